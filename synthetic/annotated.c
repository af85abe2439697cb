/* SPDX-License-Identifier: MIT */
/*
 * annotated: exercises the wperf USDT annotations (include/wperf_annotate.h)
 * so that the recorder's tests can compare recorded events with known counts.
 *
 * Part 1, busy waiting: holder takes a hand-made spin lock, does --hold-us of
 * CPU work and releases it; spinner, told (through a condition variable) that
 * the lock is taken, spins on it between WPERF_BEFORE_SPIN and
 * WPERF_AFTER_SPIN. The holder sleeps 1 ms between rounds so that kernel
 * switch events come between the spins.
 *
 * Part 2, false wakeups: seller puts out one ticket per round and broadcasts
 * to buyer1 and buyer2, both waiting; one buys it, the other finds none,
 * calls WPERF_FALSE_WAKEUP() and waits again.
 *
 * The parts run one after the other, --count rounds each. The last lines give
 * the number of annotation calls actually made:
 *   spins: N false_wakeups: M     N before_spin (= after_spin) calls
 *   spin_releases: R              spin_release calls (every unlock)
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "wperf_annotate.h"

/* What the program reports: every annotation call it made. */
static atomic_ulong n_spins, n_releases, n_false_wakeups;

/* ---- a test-and-set spin lock, annotated ---- */

/* Not inlined: one probe site each, whatever the optimization level. */
__attribute__((noinline)) static void spin_lock(atomic_bool *lock)
{
	/* Uncontended: no waiting, nothing to annotate. */
	if (!atomic_exchange_explicit(lock, true, memory_order_acquire))
		return;
	WPERF_BEFORE_SPIN(lock);
	synth_spin_until_taken(lock);
	WPERF_AFTER_SPIN(lock);
	atomic_fetch_add(&n_spins, 1);
}

__attribute__((noinline)) static void spin_unlock(atomic_bool *lock)
{
	WPERF_SPIN_RELEASE(lock);
	atomic_fetch_add(&n_releases, 1);
	atomic_store_explicit(lock, false, memory_order_release);
}

/* ---- part 1: holder and spinner ---- */

struct spin_part {
	atomic_bool lock;
	int count;
	int64_t hold_ns;
	/* "the holder has the lock in round N": lets the spinner start spinning
	 * only when there is something to wait for, without spinning on it. */
	pthread_mutex_t m;
	pthread_cond_t cv;
	int held_round;
};

static void *holder(void *arg)
{
	struct spin_part *s = arg;

	synth_name_thread("holder");
	for (int round = 1; round <= s->count; round++) {
		spin_lock(&s->lock);
		pthread_mutex_lock(&s->m);
		s->held_round = round;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->m);
		synth_work_ns(s->hold_ns);
		spin_unlock(&s->lock);
		synth_sleep_ns(SYNTH_NSEC_PER_MSEC);
	}
	return NULL;
}

static void *spinner(void *arg)
{
	struct spin_part *s = arg;

	synth_name_thread("spinner");
	for (int round = 1; round <= s->count; round++) {
		pthread_mutex_lock(&s->m);
		while (s->held_round < round)
			pthread_cond_wait(&s->cv, &s->m);
		pthread_mutex_unlock(&s->m);
		spin_lock(&s->lock);
		spin_unlock(&s->lock);
	}
	return NULL;
}

static void run_spin_part(int count, int64_t hold_ns)
{
	struct spin_part s = {.count = count, .hold_ns = hold_ns};
	pthread_t h, sp;

	atomic_init(&s.lock, false);
	pthread_mutex_init(&s.m, NULL);
	pthread_cond_init(&s.cv, NULL);
	synth_thread_create(&h, holder, &s);
	synth_thread_create(&sp, spinner, &s);
	pthread_join(h, NULL);
	pthread_join(sp, NULL);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.m);
}

/* ---- part 2: seller and buyers ---- */

struct ticket_part {
	pthread_mutex_t m;
	pthread_cond_t buyers_cv; /* a ticket is out, or the sale is over */
	pthread_cond_t seller_cv; /* a buyer started waiting */
	int count;
	int tickets;
	int waiting; /* buyers that went to wait since the last broadcast */
	bool over;
};

struct buyer {
	struct ticket_part *t;
	const char *name;
};

static void *buyer(void *arg)
{
	struct buyer *b = arg;
	struct ticket_part *t = b->t;

	synth_name_thread(b->name);
	pthread_mutex_lock(&t->m);
	for (;;) {
		while (t->tickets == 0 && !t->over) {
			t->waiting++;
			pthread_cond_signal(&t->seller_cv);
			pthread_cond_wait(&t->buyers_cv, &t->m);
			/* Woken, but the other buyer got the ticket. */
			if (t->tickets == 0 && !t->over) {
				WPERF_FALSE_WAKEUP();
				atomic_fetch_add(&n_false_wakeups, 1);
			}
		}
		if (t->over)
			break;
		t->tickets--;
	}
	pthread_mutex_unlock(&t->m);
	return NULL;
}

static void *seller(void *arg)
{
	struct ticket_part *t = arg;

	synth_name_thread("seller");
	for (int round = 0; round <= t->count; round++) {
		pthread_mutex_lock(&t->m);
		/* Both buyers must be back to waiting (the winner after buying,
		 * the loser after its false wakeup) before the next broadcast. */
		while (t->waiting < 2)
			pthread_cond_wait(&t->seller_cv, &t->m);
		t->waiting = 0;
		if (round == t->count)
			t->over = true;
		else
			t->tickets = 1;
		pthread_cond_broadcast(&t->buyers_cv);
		pthread_mutex_unlock(&t->m);
		synth_sleep_ns(SYNTH_NSEC_PER_MSEC);
	}
	return NULL;
}

static void run_ticket_part(int count)
{
	struct ticket_part t = {.count = count};
	struct buyer buyers[] = {{&t, "buyer1"}, {&t, "buyer2"}};
	pthread_t s, b[2];

	pthread_mutex_init(&t.m, NULL);
	pthread_cond_init(&t.buyers_cv, NULL);
	pthread_cond_init(&t.seller_cv, NULL);
	synth_thread_create(&s, seller, &t);
	for (int i = 0; i < 2; i++)
		synth_thread_create(&b[i], buyer, &buyers[i]);
	pthread_join(s, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(b[i], NULL);
	pthread_cond_destroy(&t.seller_cv);
	pthread_cond_destroy(&t.buyers_cv);
	pthread_mutex_destroy(&t.m);
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -n, --count N      rounds of each part (default 200)\n"
    "      --hold-us U    CPU work while the holder has the spin lock (default 2000)\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_HOLD_US = 256 };
	static const struct option opts[] = {
	    {"count", required_argument, NULL, 'n'},
	    {"hold-us", required_argument, NULL, OPT_HOLD_US},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int count = 200;
	double hold_us = 2000;
	int c;

	while ((c = synth_getopt(argc, argv, "n:h", opts, usage)) != -1) {
		switch (c) {
		case 'n':
			count = synth_opt_long("--count", optarg, 1, INT_MAX);
			break;
		case OPT_HOLD_US:
			hold_us = synth_opt_double("--hold-us", optarg, 0, 1e9);
			break;
		}
	}

	run_spin_part(count, hold_us * SYNTH_NSEC_PER_USEC);
	run_ticket_part(count);
	printf("spins: %lu false_wakeups: %lu\n", atomic_load(&n_spins),
	       atomic_load(&n_false_wakeups));
	printf("spin_releases: %lu\n", atomic_load(&n_releases));
	return 0;
}
