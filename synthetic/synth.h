/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the synthetic programs: small real programs whose
 * wait-for graph is known, recorded for real by the end-to-end tests.
 *
 * Conventions the tests rely on, all on stdout:
 *   thread NAME tid TID       one per thread, when it starts (see synth_name_thread)
 *   throughput: VALUE UNIT    once, at the end (see synth_report)
 *
 * Stopping: synth_signals_init() blocks SIGINT, SIGTERM and SIGUSR1 in every
 * thread; the main thread then sleeps in synth_wait() (usually through
 * synth_measure()) until the run time is over, a signal comes or a worker
 * calls synth_done(), and tells the workers to stop through their own mutex
 * and condition variables. No signal handler, so no async-signal-safety
 * concerns and no EINTR in the workers.
 *
 * Everything is static inline so that a program pays (and warns) only for
 * what it uses.
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SYNTH_NSEC_PER_SEC  1000000000LL
#define SYNTH_NSEC_PER_MSEC 1000000LL
#define SYNTH_NSEC_PER_USEC 1000LL

/* Print "PROGRAM: message" on stderr and exit with status (2 for usage errors). */
static inline void synth_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static inline void synth_die(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* pthread functions return the error instead of setting errno. */
static inline void synth_check(int err, const char *what)
{
	if (err)
		synth_die(1, "%s: %s", what, strerror(err));
}

/* calloc, or die: a program cannot do its work without the memory. */
static inline void *synth_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		synth_die(1, "out of memory");
	return p;
}

/* ---- time ---- */

static inline int64_t synth_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * SYNTH_NSEC_PER_SEC + ts.tv_nsec;
}

/* Wall time for throughput and deadlines. */
static inline int64_t synth_now_ns(void)
{
	return synth_clock_ns(CLOCK_MONOTONIC);
}

static inline void synth_sleep_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / SYNTH_NSEC_PER_SEC,
			      .tv_nsec = ns % SYNTH_NSEC_PER_SEC};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Burn ns of this thread's CPU time: on-CPU work, never a sleep. Counting the
 * thread's own CPU clock rather than wall time keeps the amount of work exact
 * when the thread is preempted, so "funB takes 5 ms" stays true on a busy
 * machine. Between two reads of the clock (a system call, itself CPU time)
 * some arithmetic keeps the reads to a few percent of the time; the result
 * overshoots by at most one such chunk, about a microsecond.
 */
static inline void synth_work_ns(int64_t ns)
{
	int64_t end;
	uint64_t x = (uint64_t)ns;

	if (ns <= 0)
		return;
	end = synth_clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	do {
		for (int i = 0; i < 512; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* Keep the compiler from dropping the loop as dead code. */
		__asm__ __volatile__("" : "+r"(x));
	} while (synth_clock_ns(CLOCK_THREAD_CPUTIME_ID) < end);
}

/* ---- threads ---- */

/*
 * Give the calling thread its name (the kernel's comm, at most 15 bytes) and
 * print "thread NAME tid TID" so that a test can tie the recorded tids to the
 * roles. Flushed at once: stdout is usually a pipe.
 */
static inline void synth_name_thread(const char *name)
{
	synth_check(pthread_setname_np(pthread_self(), name), "pthread_setname_np");
	printf("thread %s tid %d\n", name, (int)gettid());
	fflush(stdout);
}

/*
 * The start of a worker thread: name it (see synth_name_thread), then wait at
 * the start barrier until every thread, main included, is ready to go.
 */
static inline void synth_thread_begin(const char *name, pthread_barrier_t *start)
{
	synth_name_thread(name);
	pthread_barrier_wait(start);
}

/*
 * Print the kernel's own count of the calling thread's context switches:
 * voluntary ones are the times it blocked, a ground truth independent of any
 * tracing that a test can compare a recording with.
 */
static inline void synth_report_switches(const char *name)
{
	struct rusage ru;

	synth_check(getrusage(RUSAGE_THREAD, &ru) ? errno : 0, "getrusage");
	printf("thread %s voluntary_switches %ld involuntary_switches %ld\n", name, ru.ru_nvcsw,
	       ru.ru_nivcsw);
	fflush(stdout);
}

/* Pin the calling thread to one CPU. */
static inline void synth_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	synth_check(pthread_setaffinity_np(pthread_self(), sizeof(set), &set),
		    "pinning to a CPU (pthread_setaffinity_np)");
}

static inline void synth_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	synth_check(pthread_create(thread, NULL, fn, arg), "pthread_create");
}

/*
 * One of a group of threads that run the same function, and that function's
 * argument: what the group shares, the thread's place in the group and its
 * name (for synth_name_thread, which the thread calls itself).
 */
struct synth_worker {
	void *app;
	int index;     /* 0 .. n - 1 */
	char name[16]; /* the kernel's comm: at most 15 bytes */
	pthread_t thread;
};

/*
 * Start the n threads of w[], each running fn(&w[i]) with app. Thread i is
 * named base followed by the number first + i ("worker-" and 0: worker-0,
 * worker-1, ...), or base alone when first < 0, for threads that share one
 * name (and so one vertex of the graph).
 */
static inline void synth_start_workers(struct synth_worker *w, int n, void *(*fn)(void *),
				       void *app, const char *base, int first)
{
	for (int i = 0; i < n; i++) {
		int len = first < 0
			      ? snprintf(w[i].name, sizeof(w[i].name), "%s", base)
			      : snprintf(w[i].name, sizeof(w[i].name), "%s%d", base, first + i);

		/* The kernel would cut the name short: a program's mistake. */
		if (len >= (int)sizeof(w[i].name))
			synth_die(1, "thread name %s... is over 15 bytes", w[i].name);
		w[i].app = app;
		w[i].index = i;
		synth_thread_create(&w[i].thread, fn, &w[i]);
	}
}

static inline void synth_join_workers(struct synth_worker *w, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
}

/* ---- spinning ---- */

/* In a spin loop: let the other hyperthread run, and save power. */
static inline void synth_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * The contended path of a test-and-set spin lock: spin until the lock is free,
 * then take it (or spin again if another thread was quicker). The spin is on
 * a plain load: the exchange would bounce the cache line between the CPUs.
 */
static inline void synth_spin_until_taken(atomic_bool *lock)
{
	do {
		while (atomic_load_explicit(lock, memory_order_relaxed))
			synth_cpu_relax();
	} while (atomic_exchange_explicit(lock, true, memory_order_acquire));
}

/* ---- stopping ---- */

/* Set by synth_signals_init; the thread that synth_done() wakes. */
__attribute__((unused)) static pthread_t synth_main_thread;

static inline void synth_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGUSR1); /* synth_done */
}

/* Call in main before creating any thread: the threads inherit the mask. */
static inline void synth_signals_init(void)
{
	sigset_t set;

	synth_stop_signals(&set);
	synth_check(pthread_sigmask(SIG_BLOCK, &set, NULL), "pthread_sigmask");
	synth_main_thread = pthread_self();
}

/*
 * In the main thread: wait until seconds have passed (forever if seconds <= 0),
 * SIGINT or SIGTERM comes, or a worker calls synth_done(). Returns the signal
 * number, or 0 when the time ran out.
 */
static inline int synth_wait(double seconds)
{
	sigset_t set;
	int64_t deadline = synth_now_ns() + (int64_t)(seconds * SYNTH_NSEC_PER_SEC);

	synth_stop_signals(&set);
	for (;;) {
		int sig;

		if (seconds <= 0) {
			sig = sigwaitinfo(&set, NULL);
		} else {
			int64_t left = deadline - synth_now_ns();
			struct timespec ts;

			if (left <= 0)
				return 0;
			ts.tv_sec = left / SYNTH_NSEC_PER_SEC;
			ts.tv_nsec = left % SYNTH_NSEC_PER_SEC;
			sig = sigtimedwait(&set, NULL, &ts);
			if (sig == -1 && errno == EAGAIN)
				return 0;
		}
		if (sig > 0)
			return sig;
		if (errno != EINTR) /* e.g. after a SIGSTOP/SIGCONT; just wait again */
			synth_die(1, "sigtimedwait: %s", strerror(errno));
	}
}

/* In a worker that finished its work on its own: wake synth_wait(). */
static inline void synth_done(void)
{
	pthread_kill(synth_main_thread, SIGUSR1);
}

/* After the workers have stopped: say so on stderr if a signal ended the run. */
static inline void synth_say_stopped(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		fprintf(stderr, "%s: stopped by %s\n", program_invocation_short_name,
			strsignal(sig));
}

/* ---- measuring ---- */

/* The window in which a run is measured: see synth_measure. */
struct synth_window {
	uint64_t count;	    /* the work done in it */
	int64_t elapsed_ns; /* how long it lasted */
	int sig;	    /* what ended it, as synth_wait returns it */
};

/*
 * In main, once it has created the workers: meet them at the start barrier,
 * let them work until synth_wait(seconds) returns, and read *done, the
 * workers' count of the work they completed. It is read at the end of the
 * window, before the workers are told to stop: what finishes while they stop
 * is not counted.
 */
static inline struct synth_window synth_measure(pthread_barrier_t *start, double seconds,
						atomic_uint_fast64_t *done)
{
	struct synth_window w;
	int64_t t_start;

	pthread_barrier_wait(start);
	t_start = synth_now_ns();
	w.sig = synth_wait(seconds);
	w.count = atomic_load(done);
	w.elapsed_ns = synth_now_ns() - t_start;
	return w;
}

/* ---- options ---- */

/*
 * Print "usage: PROGRAM [options]" and then text, the options' lines, and
 * exit with status: on stdout for --help (status 0), on stderr for a usage
 * error (status 2).
 */
static inline void synth_usage(const char *text, int status) __attribute__((noreturn));

static inline void synth_usage(const char *text, int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [options]\n%s", program_invocation_short_name, text);
	exit(status);
}

/*
 * getopt_long, with what every program does alike with its answers: -h
 * (--help) prints the usage on stdout and exits 0; an unknown option, a
 * missing argument or an argument left after the options prints the usage on
 * stderr and exits 2. Returns the next of the program's own options, or -1
 * after the last. usage: the options' lines, as synth_usage prints them.
 */
static inline int synth_getopt(int argc, char **argv, const char *shortopts,
			       const struct option *longopts, const char *usage)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	if (c == 'h')
		synth_usage(usage, 0);
	if (c == '?' || (c == -1 && optind < argc))
		synth_usage(usage, 2);
	return c;
}

/* A number option: the whole argument must parse and lie in [min, max]. */
static inline double synth_opt_double(const char *opt, const char *arg, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		synth_die(2, "%s: '%s' is not a number in [%g, %g]", opt, arg, min, max);
	return v;
}

static inline long long synth_opt_long(const char *opt, const char *arg, long long min,
				       long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		synth_die(2, "%s: '%s' is not an integer in [%lld, %lld]", opt, arg, min, max);
	return v;
}

/* ---- result ---- */

/*
 * Print the final result:
 *   LABEL: COUNT
 *   throughput: VALUE UNIT       the line the tests parse
 *   elapsed: S s (US us each)    for humans
 */
static inline void synth_report(const char *label, uint64_t count, int64_t elapsed_ns,
				const char *unit)
{
	double secs = (double)elapsed_ns / SYNTH_NSEC_PER_SEC;

	printf("%s: %llu\n", label, (unsigned long long)count);
	printf("throughput: %.1f %s\n", secs > 0 ? (double)count / secs : 0.0, unit);
	printf("elapsed: %.3f s (%.1f us each)\n", secs,
	       count ? (double)elapsed_ns / 1000.0 / (double)count : 0.0);
	fflush(stdout);
}

#endif /* SYNTH_H */
