/* SPDX-License-Identifier: MIT */
#include "harness/run/tcp_port.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness/record/proc_stat.h"

#define TCP_LISTEN 0x0A /* the state of a listening socket in /proc/net/tcp */

bool tcp_port_accepts(const char *host, int port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	char service[16];
	bool ok = false;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &res) != 0)
		return false;
	for (struct addrinfo *ai = res; ai && !ok; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
		if (fd >= 0)
			close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

/* The inode of a socket listening on port, from /proc/net/tcp or tcp6; 0: none. */
static unsigned long listening_inode(int port)
{
	static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	unsigned long inode = 0;

	for (size_t i = 0; i < 2 && !inode; i++) {
		FILE *f = fopen(tables[i], "re");
		char line[512];

		/* "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode" */
		while (f && !inode && fgets(line, sizeof(line), f)) {
			unsigned local, state;
			unsigned long ino;

			if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s %*s %lu",
				   &local, &state, &ino) == 3 &&
			    (int)local == port && state == TCP_LISTEN)
				inode = ino;
		}
		if (f)
			fclose(f);
	}
	return inode;
}

/* Does process pid hold the socket "socket:[INODE]" (want) open? */
static int holds(pid_t pid, const struct proc_stat *st, void *ctx)
{
	const char *want = ctx;
	char dir[64];
	struct dirent *de;
	DIR *d;
	int found = 0;

	(void)st;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		char path[400], target[64];
		ssize_t n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, want);
		}
	}
	if (d)
		closedir(d);
	return found ? (int)pid : 0;
}

int tcp_port_check_free(const char *service, const char *host, int port, struct wperf_error *err)
{
	const char *lb = strchr(host, ':') ? "[" : "", *rb = *lb ? "]" : ""; /* IPv6 */
	unsigned long inode;
	char sock[64], who[128] = "";
	struct proc_stat st;
	int pid = 0;

	if (!tcp_port_accepts(host, port))
		return 0;
	inode = listening_inode(port);
	if (inode) {
		snprintf(sock, sizeof(sock), "socket:[%lu]", inode);
		pid = proc_for_each(holds, sock);
	}
	if (pid > 0 && proc_stat_read(pid, &st) == 0)
		snprintf(who, sizeof(who), " (pid %d, %s)", pid, st.comm);
	else if (pid > 0)
		snprintf(who, sizeof(who), " (pid %d)", pid);
	return wperf_error_set(err, -EADDRINUSE,
			       "services.%s: %s%s%s:%d is already in use by another process%s: "
			       "its ready check would pass against it; stop it, or give the "
			       "service another port",
			       service, lb, host, rb, port, who);
}
