/* SPDX-License-Identifier: MIT */
/*
 * pingpong: two threads, ping and pong, hand a turn back and forth through one
 * mutex and condition variable. One round trip is ping -> pong -> ping.
 *
 * Known answer: ping and pong wait only for each other, so the wait-for graph
 * is the cycle ping <-> pong, a knot. Pinned to one CPU (--pin) it is a
 * context-switch storm (two switches per round trip), the worst case for the
 * recorder's overhead.
 *
 *   pingpong [-n N] [-d SECONDS] [--pin CPU] [--work-us U]
 */
#include <getopt.h>

#include "synth.h"

enum role { PING, PONG };

struct game {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum role turn; /* who may run: the other one waits on cond */
	bool stop;
	uint64_t trips;	    /* round trips completed, counted by ping */
	uint64_t max_trips; /* 0: no limit */
	int64_t work_ns;    /* CPU work per turn */
	int cpu;	    /* -1: not pinned */
	pthread_barrier_t start;
	int64_t t_start, t_end; /* ping's first and last turn */
};

struct player {
	struct game *game;
	enum role me;
	const char *name;
};

/*
 * Both threads run this. Only one cond is needed: whoever passes the turn is
 * running, so the only possible waiter is the other player.
 */
static void *play(void *arg)
{
	struct player *p = arg;
	struct game *g = p->game;
	bool first = true;

	synth_name_thread(p->name);
	if (g->cpu >= 0)
		synth_pin_cpu(g->cpu);
	pthread_barrier_wait(&g->start);

	pthread_mutex_lock(&g->lock);
	if (p->me == PING)
		g->t_start = synth_now_ns();
	for (;;) {
		while (g->turn != p->me && !g->stop)
			pthread_cond_wait(&g->cond, &g->lock);
		if (g->stop)
			break;
		/* The turn coming back to ping closes a round trip. */
		if (p->me == PING && !first && ++g->trips == g->max_trips) {
			g->stop = true;
			pthread_cond_signal(&g->cond);
			synth_done();
			break;
		}
		first = false;
		if (g->work_ns) {
			pthread_mutex_unlock(&g->lock);
			synth_work_ns(g->work_ns);
			pthread_mutex_lock(&g->lock);
		}
		g->turn = p->me == PING ? PONG : PING;
		pthread_cond_signal(&g->cond);
	}
	if (p->me == PING)
		g->t_end = synth_now_ns();
	pthread_mutex_unlock(&g->lock);
	synth_report_switches(p->name);
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -n, --count N        round trips (default 1000; no limit when only -d is given)\n"
    "  -d, --duration S     run for S seconds (with -n: whichever ends first)\n"
    "      --pin CPU        pin both threads to CPU: a context-switch storm\n"
    "      --work-us U      CPU work per turn in microseconds (default 0)\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_PIN = 256, OPT_WORK_US };
	static const struct option opts[] = {
	    {"count", required_argument, NULL, 'n'},
	    {"duration", required_argument, NULL, 'd'},
	    {"pin", required_argument, NULL, OPT_PIN},
	    {"work-us", required_argument, NULL, OPT_WORK_US},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct game g = {.turn = PING, .max_trips = 1000, .cpu = -1};
	struct player players[] = {{&g, PING, "ping"}, {&g, PONG, "pong"}};
	pthread_t threads[2];
	bool count_given = false;
	double duration = 0;
	int c, sig;

	while ((c = synth_getopt(argc, argv, "n:d:h", opts, usage)) != -1) {
		switch (c) {
		case 'n':
			g.max_trips = synth_opt_long("--count", optarg, 1, LLONG_MAX);
			count_given = true;
			break;
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PIN:
			g.cpu = synth_opt_long("--pin", optarg, 0, CPU_SETSIZE - 1);
			break;
		case OPT_WORK_US:
			g.work_ns =
			    synth_opt_double("--work-us", optarg, 0, 1e9) * SYNTH_NSEC_PER_USEC;
			break;
		}
	}
	if (duration > 0 && !count_given)
		g.max_trips = 0;

	synth_signals_init();
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.cond, NULL);
	pthread_barrier_init(&g.start, NULL, 3);
	for (int i = 0; i < 2; i++)
		synth_thread_create(&threads[i], play, &players[i]);
	pthread_barrier_wait(&g.start);

	sig = synth_wait(duration);
	pthread_mutex_lock(&g.lock);
	g.stop = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	synth_say_stopped(sig);

	synth_report("round trips", g.trips, g.t_end - g.t_start, "round_trips/s");
	pthread_barrier_destroy(&g.start);
	pthread_cond_destroy(&g.cond);
	pthread_mutex_destroy(&g.lock);
	return 0;
}
