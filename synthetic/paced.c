/* SPDX-License-Identifier: MIT */
/*
 * paced: a thread that paces the work with a timer, and consumers that wait
 * for it.
 *
 * Thread pacer sleeps --period-us (pace_wait), then makes an item (--work-us
 * of CPU) and puts it in a queue, again and again. Threads consumer-1 ..
 * consumer-N (--consumers) block while the queue is empty (queue_pop), take
 * an item and consume it (--consumer-us of CPU). The sleep is the
 * bottleneck: the throughput is about 1 / (period + work), 950 items/s by
 * default, whatever the cores.
 *
 * How the pacer sleeps (--timer): "nanosleep" (usleep's way: a relative
 * sleep, so the period and the work add up), "timerfd" (a periodic timerfd
 * read: the period alone sets the pace) or "condwait" (pthread_cond_timedwait
 * on a condition nobody signals: a timed wait that always times out). Each
 * ends in a wakeup from the timer interrupt, never from a thread.
 *
 * Known answer: NO knot. The pacer hardly runs (5% of a CPU), so it is a
 * background sink once its waits for the timer are left out (interrupts are
 * never bottlenecks); the consumers wait for it and hardly run either. What
 * must be found is the pacing: the pacer sleeps on a timer most of the
 * window while the consumers wait for it (the report's "paced by a timer").
 *
 * The fix (--fixed): half the period, about twice the throughput.
 */
#include <getopt.h>
#include <stdatomic.h>
#include <sys/timerfd.h>

#include "synth.h"
#include "synth_queue.h"

#define MAX_THREADS 64

enum pace_timer { PACE_NANOSLEEP, PACE_TIMERFD, PACE_CONDWAIT };

struct paced {
	/* options */
	int64_t period_ns, work_ns, consumer_ns;
	enum pace_timer timer;
	/* state */
	struct queue queue;
	pthread_barrier_t start;
	atomic_uint_fast64_t items; /* consumed */
};

/* The pacer's timer, set up by pace_init. */
struct pace {
	int timerfd;
	pthread_mutex_t lock;
	pthread_cond_t never; /* nobody signals it: every wait times out */
	struct timespec deadline;
};

/* The pacer's sleep until the next item is due, the bottleneck: not inlined,
 * not static, so that the recorded stacks name it. */
__attribute__((noinline)) void pace_wait(const struct paced *app, struct pace *p)
{
	uint64_t expirations;

	switch (app->timer) {
	case PACE_NANOSLEEP:
		synth_sleep_ns(app->period_ns);
		break;
	case PACE_TIMERFD:
		if (read(p->timerfd, &expirations, sizeof(expirations)) < 0 && errno != EINTR)
			synth_die(1, "reading the timerfd: %s", strerror(errno));
		break;
	case PACE_CONDWAIT:
		/* the next deadline, one period after the last (CLOCK_REALTIME, the
		 * condition's clock) */
		p->deadline.tv_nsec += app->period_ns;
		p->deadline.tv_sec += p->deadline.tv_nsec / SYNTH_NSEC_PER_SEC;
		p->deadline.tv_nsec %= SYNTH_NSEC_PER_SEC;
		pthread_mutex_lock(&p->lock);
		while (pthread_cond_timedwait(&p->never, &p->lock, &p->deadline) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&p->lock);
		break;
	}
}

static void pace_init(const struct paced *app, struct pace *p)
{
	struct itimerspec every = {
	    .it_interval = {.tv_sec = app->period_ns / SYNTH_NSEC_PER_SEC,
			    .tv_nsec = app->period_ns % SYNTH_NSEC_PER_SEC},
	};

	p->timerfd = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->never, NULL);
	clock_gettime(CLOCK_REALTIME, &p->deadline);
	if (app->timer != PACE_TIMERFD)
		return;
	every.it_value = every.it_interval;
	p->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (p->timerfd < 0 || timerfd_settime(p->timerfd, 0, &every, NULL) < 0)
		synth_die(1, "timerfd: %s", strerror(errno));
}

static void *pacer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct paced *app = w->app;
	struct pace p;

	synth_thread_begin(w->name, &app->start);
	pace_init(app, &p);
	for (uint64_t item = 0;; item++) {
		pace_wait(app, &p);
		synth_work_ns(app->work_ns);
		if (!queue_push(&app->queue, item))
			break;
	}
	if (p.timerfd >= 0)
		close(p.timerfd);
	pthread_cond_destroy(&p.never);
	pthread_mutex_destroy(&p.lock);
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct paced *app = w->app;
	uint64_t item;

	synth_thread_begin(w->name, &app->start);
	/* queue_pop, where it waits for the pacer, is a function of its own */
	while (queue_pop(&app->queue, &item)) {
		synth_work_ns(app->consumer_ns);
		atomic_fetch_add(&app->items, 1);
	}
	return NULL;
}

static enum pace_timer parse_timer(const char *arg)
{
	if (!strcmp(arg, "nanosleep"))
		return PACE_NANOSLEEP;
	if (!strcmp(arg, "timerfd"))
		return PACE_TIMERFD;
	if (!strcmp(arg, "condwait"))
		return PACE_CONDWAIT;
	synth_die(2, "--timer is nanosleep, timerfd or condwait, not '%s'", arg);
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S       run for S seconds (default 5)\n"
    "      --period-us US     the pacer's sleep per item (default 1000)\n"
    "      --timer KIND       how it sleeps: nanosleep (default), timerfd, condwait\n"
    "      --work-us US       the pacer's CPU work per item (default 50)\n"
    "      --consumer-us US   a consumer's CPU work per item (default 100)\n"
    "      --consumers N      consumer threads (default 2)\n"
    "      --fixed            half the period\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_PERIOD_US = 256,
		OPT_TIMER,
		OPT_WORK_US,
		OPT_CONSUMER_US,
		OPT_CONSUMERS,
		OPT_FIXED,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"period-us", required_argument, NULL, OPT_PERIOD_US},
	    {"timer", required_argument, NULL, OPT_TIMER},
	    {"work-us", required_argument, NULL, OPT_WORK_US},
	    {"consumer-us", required_argument, NULL, OPT_CONSUMER_US},
	    {"consumers", required_argument, NULL, OPT_CONSUMERS},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct paced app;
	static struct synth_worker pacer, consumers[MAX_THREADS];
	double duration = 5, period_us = 1000, work_us = 50, consumer_us = 100;
	int nconsumers = 2, fixed = 0;
	struct synth_window w;
	int c;

	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PERIOD_US:
			period_us = synth_opt_double("--period-us", optarg, 1, 1e9);
			break;
		case OPT_TIMER:
			app.timer = parse_timer(optarg);
			break;
		case OPT_WORK_US:
			work_us = synth_opt_double("--work-us", optarg, 0, 1e9);
			break;
		case OPT_CONSUMER_US:
			consumer_us = synth_opt_double("--consumer-us", optarg, 0, 1e9);
			break;
		case OPT_CONSUMERS:
			nconsumers = synth_opt_long("--consumers", optarg, 1, MAX_THREADS);
			break;
		case OPT_FIXED:
			fixed = 1;
			break;
		}
	}
	app.period_ns = (fixed ? period_us / 2 : period_us) * SYNTH_NSEC_PER_USEC;
	app.work_ns = work_us * SYNTH_NSEC_PER_USEC;
	app.consumer_ns = consumer_us * SYNTH_NSEC_PER_USEC;

	synth_signals_init();
	queue_init(&app.queue, 1024);
	/* The pacer, the consumers and main. */
	pthread_barrier_init(&app.start, NULL, nconsumers + 2);
	synth_start_workers(&pacer, 1, pacer_main, &app, "pacer", -1);
	synth_start_workers(consumers, nconsumers, consumer_main, &app, "consumer-", 1);

	w = synth_measure(&app.start, duration, &app.items);
	queue_stop(&app.queue);
	synth_join_workers(&pacer, 1);
	synth_join_workers(consumers, nconsumers);
	synth_say_stopped(w.sig);

	queue_destroy(&app.queue);
	synth_report("items", w.count, w.elapsed_ns, "items/s");
	return 0;
}
