/* SPDX-License-Identifier: MIT */
/*
 * TCP ports of services: whether one accepts connections (a service's ready
 * check), and who holds one that is taken already, before a service that
 * should listen there starts: its ready check would otherwise pass against
 * the other process.
 */
#ifndef WPERF_TCP_PORT_H
#define WPERF_TCP_PORT_H

#include <stdbool.h>

#include "core/util/error.h"

/* Does a TCP connection to host:port (a name or an address) succeed? */
bool tcp_port_accepts(const char *host, int port);

/*
 * 0 when nothing accepts connections at host:port; otherwise -EADDRINUSE with
 * err: "services.NAME: HOST:PORT is already in use by another process (pid P,
 * COMM)", the process found by its listening socket in /proc when it can be.
 */
int tcp_port_check_free(const char *service, const char *host, int port, struct wperf_error *err);

#endif /* WPERF_TCP_PORT_H */
