/* SPDX-License-Identifier: MIT */
/*
 * The processes a scenario runs (services, the load, setup and teardown
 * commands): each started in a process group of its own, with its output in a
 * log file, so that stopping it stops everything it started, children included,
 * and nothing is left behind.
 */
#ifndef WPERF_SERVICE_H
#define WPERF_SERVICE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/util/error.h"

struct service_spec {
	const char *name;     /* for messages */
	char *const *argv;    /* NULL-terminated; argv[0] searched in PATH */
	char *const *env;     /* KEY=VALUE added to the environment, NULL-terminated, or NULL */
	const char *cwd;      /* or NULL */
	const char *log_path; /* standard output and error go there (created, appended) */
};

struct service {
	char name[64];
	pid_t pgid; /* the group leader's pid; 0 once stopped and reaped */
	int status; /* the leader's wait status, once it exited */
	bool exited;
	char log_path[4096];
};

/*
 * Waits in progress (readiness, service_wait) give up with -EINTR once *flag
 * is non-zero: the caller's signal handler sets it. service_stop never gives
 * up, so that stopping still works after an interrupt. NULL: never.
 */
void service_cancel_on(const volatile sig_atomic_t *flag);

/* Starts spec in a new process group. Errors name the service and the program. */
int service_start(const struct service_spec *spec, struct service *out, struct wperf_error *err);

/* The last size - 1 bytes of the service's log, to quote when it failed. */
void service_log_tail(const struct service *s, char *buf, size_t size);

/* Reaps the leader if it exited; true while it runs. */
bool service_running(struct service *s);

/*
 * Stops the whole group: sig, then SIGKILL after timeout seconds, and waits
 * until no process of the group is left (zombies that nobody reaps aside).
 * True when SIGKILL was needed, for a warning. Safe to call more than once.
 */
bool service_stop(struct service *s, int sig, double timeout);

/* Waits up to timeout seconds for the leader to exit (or an interrupt, see
 * service_cancel_on); true if it exited. */
bool service_wait(struct service *s, double timeout);

/*
 * Readiness: each polls until the condition holds, the service exits (an error
 * that quotes the end of its log), timeout seconds pass (an error) or an
 * interrupt comes (-EINTR).
 */
int service_ready_tcp(struct service *s, const char *host, int port, double timeout,
		      struct wperf_error *err);
int service_ready_file(struct service *s, const char *path, double timeout,
		       struct wperf_error *err);
int service_ready_log(struct service *s, const char *regex, double timeout,
		      struct wperf_error *err);
/* Ready when a GET of url (http:// or https://, redirects not followed)
 * answers with status. */
int service_ready_http(struct service *s, const char *url, int status, double timeout,
		       struct wperf_error *err);

/* Sleeps for seconds, failing early if the service exits. */
int service_ready_delay(struct service *s, double seconds, struct wperf_error *err);

#endif /* WPERF_SERVICE_H */
