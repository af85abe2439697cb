/* SPDX-License-Identifier: MIT */
/*
 * A small key-value server, the project of tests/trials/test_adoption.c: one
 * thread per connection ("handler"), each request a line "GET N" answered
 * with a line "VALUE H". Built with -DAUDIT, every request is also handed to
 * one "audit" thread that the handler waits for: the change a gate must
 * catch (a new edge handler -> audit, and a lower throughput).
 *
 *   server PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Work per request, so that the handlers, not the network, set the pace. */
static uint64_t digest(uint64_t key, unsigned rounds)
{
	uint64_t h = key ^ 0x9e3779b97f4a7c15ULL;

	for (unsigned i = 0; i < rounds; i++)
		h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
	return h;
}

#ifdef AUDIT
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t audit_cond = PTHREAD_COND_INITIALIZER;
static uint64_t audit_asked, audit_done, audit_key;

/* One request at a time: every handler waits for this thread. */
static void *audit_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "audit");
	pthread_mutex_lock(&audit_lock);
	for (;;) {
		while (audit_done == audit_asked)
			pthread_cond_wait(&audit_cond, &audit_lock);
		audit_key = digest(audit_key, 40000);
		audit_done++;
		pthread_cond_broadcast(&audit_cond);
	}
	return NULL;
}

static void audit(uint64_t key)
{
	uint64_t ticket;

	pthread_mutex_lock(&audit_lock);
	while (audit_asked != audit_done) /* one in flight */
		pthread_cond_wait(&audit_cond, &audit_lock);
	audit_key ^= key;
	ticket = ++audit_asked;
	pthread_cond_broadcast(&audit_cond);
	while (audit_done < ticket)
		pthread_cond_wait(&audit_cond, &audit_lock);
	pthread_mutex_unlock(&audit_lock);
}
#endif

static void *handler_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	FILE *in = fdopen(fd, "r");
	char line[64], reply[64];
	unsigned long long key;

	pthread_setname_np(pthread_self(), "handler");
	while (in && fgets(line, sizeof(line), in)) {
		if (sscanf(line, "GET %llu", &key) != 1)
			break;
#ifdef AUDIT
		audit(key);
#endif
		int n = snprintf(reply, sizeof(reply), "VALUE %llu\n",
				 (unsigned long long)digest(key, 20000));
		if (write(fd, reply, (size_t)n) != n)
			break;
	}
	if (in)
		fclose(in);
	else
		close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: server PORT\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	addr.sin_port = htons((uint16_t)atoi(argv[1]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 64)) {
		perror("server");
		return 1;
	}
#ifdef AUDIT
	pthread_create(&t, NULL, audit_main, NULL);
#endif
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (pthread_create(&t, NULL, handler_main, (void *)(intptr_t)fd) == 0)
			pthread_detach(t);
		else
			close(fd);
	}
}
