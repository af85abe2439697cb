/* SPDX-License-Identifier: MIT */
/*
 * falsewake: false wakeups, the ticket seller of the wPerf paper (OSDI'18,
 * section 4.1 "Removing false wakeup"; HBase in its Table 1).
 *
 * Thread seller sells one ticket at a time: it prepares the next ticket
 * (--sell-us of CPU work) while the current one is being paid for, waits
 * until it is paid, puts it out and broadcasts. --buyers threads, all named
 * buyer, wait for a ticket; the one that gets it pays for it (--pay-us of
 * CPU work) and broadcasts that it has paid. Everybody waits on one condition
 * variable, "the sale changed", and every change is broadcast:
 *
 *  - the seller's broadcast (a ticket is out) wakes every waiting buyer; one
 *    takes the ticket, the others find nothing and wait again;
 *  - a buyer's broadcast (paid) is meant for the seller, but wakes the
 *    waiting buyers too, who find no ticket and wait again.
 *
 * Those are false wakeups: the buyers do not wait for the buyer that woke
 * them, only for the seller's next ticket. Each is annotated with
 * WPERF_FALSE_WAKEUP() (--annotate, the default; --no-annotate leaves the
 * marks out), and the analyzer then drops the wakeup and wait around it.
 *
 * Known answer: the seller and the buyers form the knot: a buyer waits for
 * the seller's next ticket, the seller waits for the payment of the last one
 * (paying, 400 us, takes longer than preparing, 300 us); one ticket at a
 * time, the throughput is one ticket per payment and hand-offs. The main
 * thread (it only sleeps until the end) stays out. The buyers share a name,
 * so they are one vertex, as wPerf merges similar threads. Without the
 * annotations much of a buyer's waiting ends with another buyer's broadcast:
 * the graph has a heavy buyer -> buyer edge (a self-loop), lighter buyer ->
 * seller and seller -> buyer edges, and no knot with the seller. (With
 * --distinct, the buyers are buyer1, buyer2, ... and each is a vertex.)
 *
 * On 2 cores: the seller and the paying buyer work in parallel and the other
 * buyers sleep, so the paper's "enough cores" assumption holds but for the
 * moments after a broadcast, when the waiting buyers are all woken at once
 * to find nothing: they compete for the 2 cores with the seller and the
 * payer, which is what the false wakeups cost here (the seller is runnable
 * about a third of the time).
 *
 * --fixed: one condition variable per condition and pthread_cond_signal: a
 * ticket wakes one buyer, a payment wakes the seller only. No false wakeups
 * (but the few spurious ones of glibc's condition variables), the same knot,
 * and the throughput rises.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "wperf_annotate.h"

struct sale {
	/* options */
	int64_t sell_ns, pay_ns, check_ns;
	bool annotate, fixed;
	/* the shared state, under lock */
	pthread_mutex_t lock;
	pthread_cond_t changed;	  /* everybody waits here (without --fixed) */
	pthread_cond_t ticket_cv; /* --fixed: buyers wait for a ticket here */
	pthread_cond_t paid_cv;	  /* --fixed: the seller waits for a payment here */
	bool ticket;		  /* a ticket is out, nobody took it yet */
	bool paid;		  /* the last ticket is paid for */
	bool stop;
	pthread_barrier_t start;
	/* counters */
	atomic_uint_fast64_t sold, false_wakeups;
};

/* A wakeup that found the condition still false: say so, then wait again. */
static void false_wakeup(struct sale *s)
{
	if (s->annotate)
		WPERF_FALSE_WAKEUP();
	atomic_fetch_add(&s->false_wakeups, 1);
}

/* Wakes whoever waits for what just changed. */
static void announce(struct sale *s, pthread_cond_t *fixed_cv)
{
	if (s->fixed)
		pthread_cond_signal(fixed_cv);
	else
		pthread_cond_broadcast(&s->changed);
}

/* The work, under names of their own in the stacks. */
__attribute__((noinline)) void prepare_ticket(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void pay_ticket(int64_t ns)
{
	synth_work_ns(ns);
}

/* A woken buyer looks through the offers for a ticket, under the lock. */
__attribute__((noinline)) bool find_ticket(struct sale *s)
{
	synth_work_ns(s->check_ns);
	return s->ticket;
}

/* Blocks until a ticket is out and takes it. False once the sale is over. */
__attribute__((noinline)) bool buy(struct sale *s)
{
	pthread_cond_t *cv = s->fixed ? &s->ticket_cv : &s->changed;
	bool ok;

	pthread_mutex_lock(&s->lock);
	while (!find_ticket(s) && !s->stop) {
		pthread_cond_wait(cv, &s->lock);
		if (!find_ticket(s) && !s->stop)
			false_wakeup(s);
	}
	ok = !s->stop;
	if (ok)
		s->ticket = false;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

__attribute__((noinline)) void paid(struct sale *s)
{
	pthread_mutex_lock(&s->lock);
	s->paid = true;
	announce(s, &s->paid_cv);
	pthread_mutex_unlock(&s->lock);
}

/* Blocks until the last ticket is paid, then puts out the next one. */
__attribute__((noinline)) bool sell(struct sale *s)
{
	pthread_cond_t *cv = s->fixed ? &s->paid_cv : &s->changed;
	bool ok;

	pthread_mutex_lock(&s->lock);
	while (!s->paid && !s->stop) {
		pthread_cond_wait(cv, &s->lock);
		if (!s->paid && !s->stop)
			false_wakeup(s);
	}
	ok = !s->stop;
	if (ok) {
		s->paid = false;
		s->ticket = true;
		announce(s, &s->ticket_cv);
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void *seller_main(void *arg)
{
	struct sale *s = arg;

	synth_thread_begin("seller", &s->start);
	for (;;) {
		prepare_ticket(s->sell_ns);
		if (!sell(s))
			break;
	}
	return NULL;
}

static void *buyer_main(void *arg)
{
	struct synth_worker *b = arg;
	struct sale *s = b->app;

	synth_thread_begin(b->name, &s->start);
	while (buy(s)) {
		pay_ticket(s->pay_ns);
		atomic_fetch_add(&s->sold, 1);
		paid(s);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S   run for S seconds (default 5)\n"
    "      --buyers N     buyer threads (default 6)\n"
    "      --distinct     name them buyer1, buyer2, ... (one vertex each), not all\n"
    "                     buyer (one vertex for all)\n"
    "      --sell-us U    the seller's CPU work per ticket (default 300)\n"
    "      --pay-us U     the buyer's CPU work per ticket (default 400)\n"
    "      --check-us U   a buyer's CPU work to look for a ticket, under the lock,\n"
    "                     every time it wakes up (default 0)\n"
    "      --annotate     mark the false wakeups with wperf_annotate.h (the default)\n"
    "      --no-annotate  leave the marks out\n"
    "      --fixed        a condition variable per condition, and signal instead of\n"
    "                     broadcast: no false wakeups\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_BUYERS = 256,
		OPT_SELL_US,
		OPT_PAY_US,
		OPT_CHECK_US,
		OPT_ANNOTATE,
		OPT_NO_ANNOTATE,
		OPT_FIXED,
		OPT_DISTINCT,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"buyers", required_argument, NULL, OPT_BUYERS},
	    {"sell-us", required_argument, NULL, OPT_SELL_US},
	    {"pay-us", required_argument, NULL, OPT_PAY_US},
	    {"check-us", required_argument, NULL, OPT_CHECK_US},
	    {"annotate", no_argument, NULL, OPT_ANNOTATE},
	    {"no-annotate", no_argument, NULL, OPT_NO_ANNOTATE},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"distinct", no_argument, NULL, OPT_DISTINCT},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct sale s;
	double duration = 5, sell_us = 300, pay_us = 400, check_us = 0;
	int nbuyers = 6;
	bool distinct = false;
	struct synth_worker *buyers;
	pthread_t seller;
	struct synth_window w;
	int c;

	s.annotate = true;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_BUYERS:
			nbuyers = synth_opt_long("--buyers", optarg, 1, 64);
			break;
		case OPT_SELL_US:
			sell_us = synth_opt_double("--sell-us", optarg, 0, 1e9);
			break;
		case OPT_PAY_US:
			pay_us = synth_opt_double("--pay-us", optarg, 0, 1e9);
			break;
		case OPT_CHECK_US:
			check_us = synth_opt_double("--check-us", optarg, 0, 1e9);
			break;
		case OPT_ANNOTATE:
			s.annotate = true;
			break;
		case OPT_NO_ANNOTATE:
			s.annotate = false;
			break;
		case OPT_FIXED:
			s.fixed = true;
			break;
		case OPT_DISTINCT:
			distinct = true;
			break;
		}
	}
	s.sell_ns = sell_us * SYNTH_NSEC_PER_USEC;
	s.pay_ns = pay_us * SYNTH_NSEC_PER_USEC;
	s.check_ns = check_us * SYNTH_NSEC_PER_USEC;
	s.paid = true; /* nothing to pay for before the first ticket */
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.changed, NULL);
	pthread_cond_init(&s.ticket_cv, NULL);
	pthread_cond_init(&s.paid_cv, NULL);
	buyers = synth_calloc(nbuyers, sizeof(*buyers));

	synth_signals_init();
	pthread_barrier_init(&s.start, NULL, nbuyers + 2);
	synth_thread_create(&seller, seller_main, &s);
	synth_start_workers(buyers, nbuyers, buyer_main, &s, "buyer", distinct ? 1 : -1);

	w = synth_measure(&s.start, duration, &s.sold);
	pthread_mutex_lock(&s.lock);
	s.stop = true;
	pthread_cond_broadcast(&s.changed);
	pthread_cond_broadcast(&s.ticket_cv);
	pthread_cond_broadcast(&s.paid_cv);
	pthread_mutex_unlock(&s.lock);
	pthread_join(seller, NULL);
	synth_join_workers(buyers, nbuyers);
	synth_say_stopped(w.sig);
	free(buyers);
	printf("false_wakeups: %llu\n", (unsigned long long)atomic_load(&s.false_wakeups));
	synth_report("tickets", w.count, w.elapsed_ns, "tickets/s");
	return 0;
}
