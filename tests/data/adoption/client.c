/* SPDX-License-Identifier: MIT */
/*
 * The load of tests/trials/test_adoption.c's project: CONNS connections to the
 * server, each a thread sending "GET N" and reading the answer, for SECONDS;
 * then "throughput: X requests/s".
 *
 *   client PORT CONNS SECONDS
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *conn_main(void *arg)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	uint64_t *done = arg, key = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	double end = now() + seconds;
	char line[64];
	FILE *in;

	pthread_setname_np(pthread_self(), "conn");
	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    !(in = fdopen(fd, "r"))) {
		perror("client");
		exit(1);
	}
	while (now() < end) {
		int n = snprintf(line, sizeof(line), "GET %llu\n", (unsigned long long)key++);

		if (write(fd, line, (size_t)n) != n || !fgets(line, sizeof(line), in)) {
			perror("client");
			exit(1);
		}
		(*done)++;
	}
	fclose(in);
	return NULL;
}

int main(int argc, char **argv)
{
	int conns;
	uint64_t done[64] = {0}, total = 0;
	pthread_t t[64];
	double start;

	if (argc != 4 || (conns = atoi(argv[2])) < 1 || conns > 64) {
		fprintf(stderr, "usage: client PORT CONNS(1-64) SECONDS\n");
		return 2;
	}
	port = atoi(argv[1]);
	seconds = atof(argv[3]);
	start = now();
	for (int i = 0; i < conns; i++)
		pthread_create(&t[i], NULL, conn_main, &done[i]);
	for (int i = 0; i < conns; i++) {
		pthread_join(t[i], NULL);
		total += done[i];
	}
	printf("throughput: %.1f requests/s\n", (double)total / (now() - start));
	return 0;
}
