/* SPDX-License-Identifier: MIT */
/*
 * gate_sim's core (sim.h): each step as the real check takes it, with the
 * real code wherever the check has it (gate_options, wperf_verdict,
 * wperf_verdict_settled, wperf_look_level, check_looks_runs).
 */
#include "bench/gate_sim/sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/gate/spending.h"
#include "core/gate/stats.h"
#include "harness/gate/gate.h"
#include "harness/run/run_set.h"

#define Z95 1.959963984540054 /* the normal's 97.5% quantile: a 95% interval */

enum { BASE, HEAD };

/* ---- the PRNG: xoshiro256**, seeded by splitmix64; ours, so any libc draws alike ---- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* Uniform in [0, n), n > 0, without the modulo's bias. */
static size_t rng_below(struct rng *r, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = rng_next(r);
	while (x >= limit);
	return (size_t)(x % n);
}

/* ---- the simulation ---- */

double sim_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sim_wilson(size_t k, size_t n, double *lo, double *hi)
{
	double p = (double)k / (double)n, z2n = Z95 * Z95 / (double)n;
	double mid = (p + z2n / 2) / (1 + z2n);
	double half = Z95 * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n)) / (1 + z2n);

	*lo = fmax(0, mid - half);
	*hi = fmin(1, mid + half);
}

/* results_read, refusing a folder that is incomplete or has no run. */
static int read_complete(const char *dir, struct results *r, struct wperf_error *err)
{
	int e = results_read(dir, r, err);

	if (!e && !r->complete)
		e = wperf_error_set(err, -EINVAL, "%s is incomplete (%s): no runs to draw from",
				    dir, r->reason);
	else if (!e && !r->runs.nruns)
		e = wperf_error_set(err, -EINVAL, "%s has no run", dir);
	if (e)
		results_release(r); /* results_read left it empty on its own errors */
	return e;
}

/* The gate options the check would judge with: those of the tree's scenario
 * file (scenarios/NAME.yaml, as a base's), else those the runs were made
 * with. A file that no longer loads is an error, not a silent fallback. */
static int load_settings(struct sim_scenario *sc, struct wperf_error *err)
{
	const struct scenario_vars vars = {
	    .results_dir = "<results>", .build_dir = "build", .env = environ};
	struct scenario *s = NULL;

	snprintf(sc->settings_from, sizeof(sc->settings_from), "scenarios/%s.yaml",
		 sc->pool.scenario);
	if (access(sc->settings_from, F_OK) != 0) {
		snprintf(sc->settings_from, sizeof(sc->settings_from), "the runs'");
		return 0;
	}
	if (scenario_load(sc->settings_from, &vars, &s, err) < 0)
		return -EINVAL;
	run_set_gate_opts(s, &sc->pool.gate);
	scenario_free(s);
	return 0;
}

/* The folder's runs into sc->pool, a check's base/ and head/ pooled; its
 * accepted entries as the check would take them (none when it has none). */
static int load_pool(struct sim_scenario *sc, struct wperf_error *err)
{
	struct results head;
	char path[PATH_MAX];
	int check, e;

	snprintf(path, sizeof(path), "%s/summary.json", sc->dir);
	check = access(path, F_OK) != 0;
	snprintf(path, sizeof(path), "%s%s", sc->dir, check ? "/base" : "");
	if (check && access(path, F_OK) != 0)
		return wperf_error_set(err, -ENOENT,
				       "%s: neither a results folder (summary.json) nor a "
				       "check's scenario folder (base/ and head/)",
				       sc->dir);
	if ((e = read_complete(path, &sc->pool, err)))
		return e;
	snprintf(path, sizeof(path), "%s/head", sc->dir);
	if (check && (e = read_complete(path, &head, err)))
		return e;
	if (check) {
		sc->head_at = sc->pool.runs.nruns;
		sc->pairs = head.runs.nruns < sc->head_at ? head.runs.nruns : sc->head_at;
	}
	for (size_t i = 0; check && !e && i < head.runs.nruns; i++)
		if (results_add_run(&sc->pool, &head.runs.runs[i], &head.expect[i]) < 0)
			e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (check)
		results_release(&head);
	if (!e)
		e = load_settings(sc, err);
	/* a check's base.yaml has the base's accepted entries; else the stored baseline's */
	snprintf(sc->accepted_from, sizeof(sc->accepted_from), "%s/base.yaml", sc->dir);
	if (!e && (!check || access(sc->accepted_from, F_OK) != 0))
		gate_baseline_path(NULL, sc->pool.scenario, sc->accepted_from,
				   sizeof(sc->accepted_from));
	if (!e && (e = gate_read_baseline(sc->accepted_from, &sc->accepted, err)) == -ENOENT) {
		snprintf(sc->accepted_from, sizeof(sc->accepted_from), "none");
		e = 0;
	}
	return e;
}

/* The knots of run r with SIM_VERTEX added to the first (a knot of its own
 * when r has none); the others are r's own, shared. 0 or -ENOMEM. */
static int plant_vertex(const struct wperf_run *r, struct planted *p)
{
	size_t n = r->nknots ? r->knots[0].n : 0;
	const char **ids = calloc(n + 1, sizeof(*ids));
	int e = -ENOMEM;

	p->nknots = r->nknots ? r->nknots : 1;
	p->knots = calloc(p->nknots, sizeof(*p->knots));
	if (ids && p->knots) {
		for (size_t i = 0; i < n; i++)
			ids[i] = r->knots[0].ids[i];
		ids[n] = SIM_VERTEX;
		e = wperf_idset_from(ids, n + 1, &p->knots[0]);
		for (size_t k = 1; k < r->nknots; k++)
			p->knots[k] = r->knots[k];
	}
	free(ids);
	return e;
}

/* The edge effect's edge: of the pool's edges (the baseline of all its runs
 * has each edge's share in every run), the heaviest by median share whose
 * median times factor is at most 1, else the heaviest. */
static int choose_edge(struct sim_scenario *sc, double factor, struct wperf_error *err)
{
	struct wperf_baseline b = {0};
	size_t best = SIZE_MAX, any = SIZE_MAX;
	double best_m = -1, any_m = -1;
	int e = wperf_baseline_from_runs(&sc->pool.runs, sc->pool.scenario, NULL, &b, err);

	for (size_t i = 0; !e && i < b.nedges; i++) {
		double m = wperf_median(b.edges[i].samples, b.runs);

		if (m > any_m)
			any_m = m, any = i;
		if (m * factor <= 1 && m > best_m)
			best_m = m, best = i;
	}
	if (!e && any == SIZE_MAX)
		e = wperf_error_set(err, -EINVAL, "%s: no edge to plant an edge effect on",
				    sc->dir);
	best = best == SIZE_MAX ? any : best;
	free(sc->edge_from);
	free(sc->edge_to);
	sc->edge_from = sc->edge_to = NULL;
	if (!e && (!(sc->edge_from = strdup(b.edges[best].from)) ||
		   !(sc->edge_to = strdup(b.edges[best].to))))
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	wperf_baseline_release(&b);
	return e;
}

/* Every pooled run's edges with the chosen edge's share times factor. */
static int plant_edges(struct sim_scenario *sc, double factor, struct wperf_error *err)
{
	int e = choose_edge(sc, factor, err);

	for (size_t i = 0; !e && i < sc->pool.runs.nruns; i++) {
		const struct wperf_run *r = &sc->pool.runs.runs[i];
		struct planted *p = &sc->planted[i];

		free(p->edges);
		if (!(p->edges = calloc(r->nedges + 1, sizeof(*p->edges))))
			return wperf_error_set(err, -ENOMEM, "out of memory");
		for (size_t k = 0; k < r->nedges; k++) {
			p->edges[k] = r->edges[k];
			if (!strcmp(r->edges[k].from, sc->edge_from) &&
			    !strcmp(r->edges[k].to, sc->edge_to))
				p->edges[k].share *= factor;
		}
	}
	sc->edge_factor = e ? 0 : factor;
	return e;
}

/* The scratch of the trials, and the two sides as gate_options reads them:
 * the pool's scenario, machine, gate and metrics, the drawn runs. */
static int scenario_prepare(const struct sim *s, struct sim_scenario *sc, struct wperf_error *err)
{
	size_t n = sc->pool.runs.nruns;
	int e = 0;

	sc->planted = calloc(n, sizeof(*sc->planted));
	sc->order = calloc(n, sizeof(*sc->order));
	for (int i = BASE; i <= HEAD; i++) {
		sc->drawn[i] = calloc(s->max, sizeof(*sc->drawn[i]));
		sc->drawn_expect[i] = calloc(s->max, sizeof(*sc->drawn_expect[i]));
		if (!sc->drawn[i] || !sc->drawn_expect[i])
			e = -ENOMEM;
	}
	if (e || !sc->planted || !sc->order)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if ((e = plant_vertex(&sc->pool.runs.runs[i], &sc->planted[i])))
			return wperf_error_set(err, e, "out of memory");
	}
	for (int i = BASE; i <= HEAD; i++) {
		struct results *r = &sc->side[i];

		snprintf(r->scenario, sizeof(r->scenario), "%s", sc->pool.scenario);
		r->complete = 1;
		r->env = sc->pool.env;
		r->gate = sc->pool.gate;
		r->runs = (struct wperf_runset){.runs = sc->drawn[i],
						.metrics = sc->pool.runs.metrics,
						.nmetrics = sc->pool.runs.nmetrics};
		memcpy(r->runs.unit, sc->pool.runs.unit, sizeof(r->runs.unit));
		r->expect = sc->drawn_expect[i];
	}
	return 0;
}

static void scenario_release(struct sim_scenario *sc)
{
	for (size_t i = 0; sc->planted && i < sc->pool.runs.nruns; i++) {
		if (sc->planted[i].knots)
			wperf_idset_release(&sc->planted[i].knots[0]);
		free(sc->planted[i].knots);
		free(sc->planted[i].edges);
	}
	for (int i = BASE; i <= HEAD; i++) {
		free(sc->drawn[i]);
		free(sc->drawn_expect[i]);
	}
	free(sc->planted);
	free(sc->order);
	free(sc->edge_from);
	free(sc->edge_to);
	results_release(&sc->pool);
	wperf_baseline_release(&sc->accepted);
}

/* The head's run i drawn from pooled run k, with the effects. The vertex's
 * coin is tossed whatever the effects, so that every pass draws alike. */
static void plant(const struct effects *eff, struct sim_scenario *sc, size_t k, size_t i,
		  struct rng *r)
{
	struct wperf_run *run = &sc->drawn[HEAD][i];
	const struct planted *p = &sc->planted[k];
	int lower = sc->pool.gate.lower_is_better;

	if (rng_unit(r) < eff->vertex) {
		run->knots = p->knots;
		run->nknots = p->nknots;
	}
	if (eff->edge > 0)
		run->edges = p->edges;
	/* a time (lower is better) by the same factor of work done per second;
	 * a wait, not more work: the target's times go with the work it did, so
	 * its CPU time per operation stays (a slower code's would grow) */
	run->throughput *= lower ? 1 / (1 + eff->throughput) : 1 + eff->throughput;
	run->running_ns = (uint64_t)((double)run->running_ns * (1 + eff->throughput));
	run->runnable_ns = (uint64_t)((double)run->runnable_ns * (1 + eff->throughput));
}

/* The next of the trial's draws from n things: without replacement (a step
 * of a partial Fisher-Yates shuffle of order) when there are want of them,
 * else with. */
static size_t draw_one(size_t *order, size_t i, size_t n, size_t want, struct rng *r)
{
	size_t j, k;

	if (n < want)
		return rng_below(r, n);
	j = i + rng_below(r, n - i);
	k = order[j];
	order[j] = order[i];
	order[i] = k;
	return k;
}

/* Run k of the pool as the side's run at. */
static void take(const struct effects *eff, struct sim_scenario *sc, int side, size_t at, size_t k,
		 struct rng *r)
{
	sc->drawn[side][at] = sc->pool.runs.runs[k];
	sc->drawn_expect[side][at] = sc->pool.expect[k];
	if (side == HEAD)
		plant(eff, sc, k, at, r);
}

/*
 * The trial's runs: max a side. A check's pairs stay pairs, as the paired
 * tests see them live (a drift of the machine moves both runs of a pair):
 * max pairs drawn, each a coin's toss for which of its runs is the base's.
 * Without pairs, max runs for the base and max others for the head. Without
 * replacement when there are enough, else with (a bootstrap).
 */
static void draw(const struct sim *s, const struct effects *eff, struct sim_scenario *sc,
		 struct rng *r)
{
	size_t n = sc->pool.runs.nruns;

	for (size_t i = 0; sc->pairs && i < s->max; i++) {
		size_t p = draw_one(sc->order, i, sc->pairs, s->max, r);
		int swap = rng_unit(r) < 0.5;

		take(eff, sc, swap ? HEAD : BASE, i, p, r);
		take(eff, sc, swap ? BASE : HEAD, i, sc->head_at + p, r);
	}
	for (size_t i = 0; !sc->pairs && i < 2 * (size_t)s->max; i++) {
		int side = i < s->max ? BASE : HEAD;

		take(eff, sc, side, side == BASE ? i : i - s->max,
		     draw_one(sc->order, i, n, 2 * (size_t)s->max, r), r);
	}
}

/* The verdict on the first n runs of each side at level, as check_scenario.c's
 * look() makes it: a baseline of the base's runs with the accepted entries,
 * the head judged against it with the options a check sets (paired). */
static int look(struct sim_scenario *sc, unsigned n, double level, struct wperf_verdict *v,
		struct wperf_error *err)
{
	struct gate_judging j = {.base = &sc->side[BASE], .alpha = level};
	struct wperf_baseline made = {0};
	struct wperf_gate_opts g;
	char why[256];
	int e;

	sc->side[BASE].runs.nruns = sc->side[HEAD].runs.nruns = n;
	e = wperf_baseline_from_runs(&sc->side[BASE].runs, sc->pool.scenario, &sc->pool.env, &made,
				     err);
	if (!e && wperf_baseline_merge_accepted(&made, &sc->accepted) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (!e) {
		gate_options(&sc->side[HEAD], &made, &j, &g, why, sizeof(why));
		e = wperf_verdict(&sc->side[HEAD].runs, &made, &g, v, err);
	}
	wperf_baseline_release(&made);
	return e;
}

/* One scenario of a trial, look after look as check_scenario.c's run_looks()
 * goes: each at its level of the plan, on until the verdict is settled or the
 * last look; *kind its verdict, *runs the runs per side it took. */
static int judge_scenario(const struct sim *s, struct sim_scenario *sc,
			  enum wperf_verdict_kind *kind, unsigned *runs, struct wperf_error *err)
{
	for (unsigned k = 0; k < s->looks; k++) {
		unsigned want = check_looks_runs(&s->plan, s->first, k);
		double level = check_looks_level(&s->plan, s->first, k, s->scenario_alpha);
		struct wperf_verdict v = {0};
		int e = look(sc, want, level, &v, err), done;

		if (e)
			return e;
		done = k + 1 == s->looks || wperf_verdict_settled(&v);
		*kind = v.kind;
		*runs = want;
		wperf_verdict_release(&v);
		if (done)
			break;
	}
	return 0;
}

int sim_pass(struct sim *s, const struct effects *eff, struct wperf_error *err)
{
	double t0 = sim_now();
	struct rng r;
	int e = 0;

	rng_seed(&r, s->seed);
	s->check_fails = 0;
	for (size_t i = 0; !e && i < s->nsc; i++) {
		struct sim_scenario *sc = &s->sc[i];

		memset(sc->kinds, 0, sizeof(sc->kinds));
		sc->fails = sc->runs_used = 0;
		/* the shuffle starts afresh too: every pass draws the same runs */
		for (size_t k = 0; k < sc->pool.runs.nruns; k++)
			sc->order[k] = k;
		if (eff->edge > 0 && sc->edge_factor != eff->edge)
			e = plant_edges(sc, eff->edge, err);
	}
	for (unsigned t = 0; !e && t < s->trials; t++) {
		int fails = 0;

		for (size_t i = 0; !e && i < s->nsc; i++) {
			struct sim_scenario *sc = &s->sc[i];
			enum wperf_verdict_kind kind = WPERF_VERDICT_PASS;
			unsigned runs = 0;
			int f;

			draw(s, eff, sc, &r);
			e = judge_scenario(s, sc, &kind, &runs, err);
			f = wperf_verdict_fails_check(kind, s->strict);
			sc->kinds[kind]++;
			sc->runs_used += runs;
			sc->fails += (size_t)f;
			fails |= f;
		}
		s->check_fails += (size_t)fails;
	}
	s->seconds = sim_now() - t0;
	return e;
}

int sim_setup(struct sim *s, char *const *dirs, size_t n, struct wperf_error *err)
{
	int e = 0;

	s->plan = (struct check_looks){.first = s->first, .max = s->max};
	s->looks = check_looks_count(&s->plan, s->first);
	s->nsc = n;
	/* as check-perf divides it: among the scenarios, and in half with --strict */
	s->scenario_alpha = s->alpha / (double)n / (s->strict ? WPERF_GATE_INCONCLUSIVE : 1);
	if (!(s->sc = calloc(n, sizeof(*s->sc))))
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; !e && i < n; i++) {
		s->sc[i].dir = dirs[i];
		e = load_pool(&s->sc[i], err);
		e = e ? e : scenario_prepare(s, &s->sc[i], err);
	}
	return e;
}

void sim_release(struct sim *s)
{
	for (size_t i = 0; s->sc && i < s->nsc; i++)
		scenario_release(&s->sc[i]);
	free(s->sc);
	s->sc = NULL;
	s->nsc = 0;
}
