/* SPDX-License-Identifier: MIT */
/*
 * gate_sim: the gate's error rates measured, not argued. The real verdict
 * (core/gate/verdict.h) is run thousands of times on run sets resampled from
 * runs of identical code, judged as check-perf judges a pull request's runs
 * against its base's (harness/gate/check_scenario.h): a baseline made from
 * the base's runs, paired tests, the looks and their levels of the spending
 * plan.
 *
 *   gate_sim [--trials N] [--first N] [--max N] [--alpha A] [--strict]
 *            [--seed S] [--effect KIND=VALUE]... [--curve]
 *            [--assert-aa] [--assert-power KIND=VALUE:P]... DIR...
 *
 * Each DIR is one scenario of the simulated check, whose alpha is divided
 * among them as check-perf divides it: a results folder of `wperf-bench run`
 * (summary.json), or a scenario folder of check-perf or ab (base/ and head/,
 * pooled: an A/A check ran the same code on both sides). Its accepted
 * entries are those of DIR/base.yaml, else of baselines/SCENARIO.yaml; its
 * gate options (tolerances, detect) those of scenarios/SCENARIO.yaml, else
 * the runs' own: the bar is the tree's, as a check's is its base's.
 *
 * A trial, per scenario: from a check's folder, max of its pairs of runs
 * (base run i and head run i, made one beside the other), each a coin's toss
 * for which of its runs is the base's: the labels shuffled within pairs, as
 * a permutation test of a paired design does; from a results folder, max
 * runs for the base and max others for the head. Without replacement (too
 * few pairs or runs are drawn from with replacement, a bootstrap, and the
 * output says so); the effects planted on the head's; looks at first,
 * first + 3, ... up to max runs per side, each at its level, until the
 * verdict is settled. The check fails when a scenario's verdict fails (exit
 * code 1; with --strict, inconclusive too).
 *
 * Effects, on the head's runs only:
 *   throughput=V  each run's throughput times 1 + V (V < 0: worse); a
 *                 lower-is-better measure (a time) divided by 1 + V
 *   vertex=P      "sim/planted" joins the run's first knot (a knot of its own
 *                 in a run without one) with probability P
 *   edge=F        the heaviest edge whose median share times F is at most 1
 *                 (else the heaviest): its share in every run times F
 *
 * Output: the check's failure rate with its Wilson 95% interval (false
 * failures without effects, power with them), per scenario the shares of each
 * verdict and the mean runs per side; --curve adds each scenario's power
 * (regression or new-bottleneck) at throughput -2..-40% and vertex 30..100%.
 * Every pass starts from the same seed (default 1): the output is the same on
 * any machine, and the passes of a curve see the same draws.
 *
 * Exit status: 0; 1 an assertion failed (--assert-aa: the A/A rate's interval
 * lies above alpha; --assert-power: a scenario's power at the effect has its
 * interval below P); 2 an error.
 *
 * Unlike a real check: no time budget; a results folder's runs are paired at
 * random, the pool's whole spread noise to the paired tests (the power is
 * understated where the machine drifts). The runs keep what they had: lost
 * events, checks, expected answers met.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gate_sim/sim.h"
#include "core/gate/spending.h"

#define SIM_MAX_POWER 8

/* The command line: what to simulate (sim) and which passes to make. */
struct cli {
	struct sim s;
	struct effects eff; /* --effect: planted in the first pass (else A/A) */
	int have_effect, curve, assert_aa;
	struct effects power_eff[SIM_MAX_POWER]; /* --assert-power */
	double power_min[SIM_MAX_POWER];
	size_t npower;
};

/* ---- output ---- */

static int name_width(const struct sim *s)
{
	size_t w = 8;

	for (size_t i = 0; i < s->nsc; i++)
		if (strlen(s->sc[i].pool.scenario) > w)
			w = strlen(s->sc[i].pool.scenario);
	return (int)w;
}

static void print_effects(const struct sim *s, const struct effects *eff)
{
	if (!eff->throughput && !eff->vertex && !eff->edge) {
		printf("A/A: identical code on both sides; a failure is a false one\n");
		return;
	}
	printf("effects on the head:");
	if (eff->throughput)
		printf(" throughput %+.1f%%", eff->throughput * 100);
	if (eff->vertex)
		printf(" vertex %s in %.0f%% of the runs", SIM_VERTEX, eff->vertex * 100);
	for (size_t i = 0; eff->edge && i < s->nsc; i++)
		printf("%s edge %s -> %s x%g (%s)", i ? "," : "", s->sc[i].edge_from,
		       s->sc[i].edge_to, eff->edge, s->sc[i].pool.scenario);
	printf("\n");
}

/* A pass's table: per scenario its failure rate and the share of each verdict. */
static void print_pass(const struct sim *s, const struct effects *eff)
{
	static const enum wperf_verdict_kind cols[] = {
	    WPERF_VERDICT_NEW_BOTTLENECK, WPERF_VERDICT_REGRESSION, WPERF_VERDICT_INCONCLUSIVE,
	    WPERF_VERDICT_IMPROVED, WPERF_VERDICT_PASS};
	int w = name_width(s);
	double n = s->trials, lo, hi;

	print_effects(s, eff);
	printf("  %-*s  %-23s", w, "scenario", "fails [95%]");
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		printf(" %14s", wperf_verdict_name(cols[c]));
	printf(" %9s\n", "runs/side");
	for (size_t i = 0; i < s->nsc; i++) {
		const struct sim_scenario *sc = &s->sc[i];

		sim_wilson(sc->fails, s->trials, &lo, &hi);
		printf("  %-*s  %.4f [%.4f, %.4f]", w, sc->pool.scenario, sc->fails / n, lo, hi);
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			printf(" %14.4f", sc->kinds[cols[c]] / n);
		printf(" %9.2f\n", sc->runs_used / n);
	}
	sim_wilson(s->check_fails, s->trials, &lo, &hi);
	printf("the check fails in %zu of %u trials: %.4f, Wilson 95%% [%.4f, %.4f] (alpha %g)\n",
	       s->check_fails, s->trials, s->check_fails / n, lo, hi, s->alpha);
	printf("%u checks in %.2f s: %.0f checks/s\n\n", s->trials, s->seconds,
	       s->trials / s->seconds);
}

/* The power curves: each point a pass from the same seed. */
static int print_curve(struct sim *s, struct wperf_error *err)
{
	static const struct {
		const char *label;
		struct effects eff;
	} points[] = {{"tp-2%", {.throughput = -0.02}},	 {"tp-5%", {.throughput = -0.05}},
		      {"tp-10%", {.throughput = -0.10}}, {"tp-20%", {.throughput = -0.20}},
		      {"tp-40%", {.throughput = -0.40}}, {"v30%", {.vertex = 0.3}},
		      {"v50%", {.vertex = 0.5}},	 {"v70%", {.vertex = 0.7}},
		      {"v100%", {.vertex = 1.0}}};
	enum { NPOINTS = sizeof(points) / sizeof(points[0]) };
	double *power = calloc(NPOINTS * (s->nsc + 1), sizeof(*power)), t0 = sim_now();
	int w = name_width(s), e = power ? 0 : wperf_error_set(err, -ENOMEM, "out of memory");

	for (size_t p = 0; !e && p < NPOINTS; p++) {
		e = sim_pass(s, &points[p].eff, err);
		for (size_t i = 0; !e && i < s->nsc; i++)
			power[p * (s->nsc + 1) + i] =
			    (double)(s->sc[i].kinds[WPERF_VERDICT_REGRESSION] +
				     s->sc[i].kinds[WPERF_VERDICT_NEW_BOTTLENECK]) /
			    s->trials;
		power[p * (s->nsc + 1) + s->nsc] = (double)s->check_fails / s->trials;
	}
	if (!e) {
		printf("power (share of trials whose verdict is regression or new-bottleneck; "
		       "the check: that fails), %u trials a point\n  %-*s",
		       s->trials, w, "scenario");
		for (size_t p = 0; p < NPOINTS; p++)
			printf(" %7s", points[p].label);
		for (size_t i = 0; i <= s->nsc; i++) {
			printf("\n  %-*s", w, i < s->nsc ? s->sc[i].pool.scenario : "(check)");
			for (size_t p = 0; p < NPOINTS; p++)
				printf(" %7.3f", power[p * (s->nsc + 1) + i]);
		}
		printf("\n%u checks in %.2f s\n\n", s->trials * NPOINTS, sim_now() - t0);
	}
	free(power);
	return e;
}

static void print_setup(const struct sim *s)
{
	printf("gate_sim: %u trials of a check of %zu scenario%s, alpha %g (%g a scenario%s), "
	       "seed %llu\nlooks at",
	       s->trials, s->nsc, s->nsc == 1 ? "" : "s", s->alpha, s->scenario_alpha,
	       s->strict ? ", --strict" : "", (unsigned long long)s->seed);
	for (unsigned k = 0; k < s->looks; k++) {
		printf("%s %u runs per side (level %.3g)", k ? "," : "",
		       check_looks_runs(&s->plan, s->first, k),
		       check_looks_level(&s->plan, s->first, k, s->scenario_alpha));
	}
	printf("\n");
	for (size_t i = 0; i < s->nsc; i++) {
		const struct sim_scenario *sc = &s->sc[i];
		size_t n = sc->pool.runs.nruns;

		size_t have = sc->pairs ? sc->pairs : n / 2;

		printf("  %s: %zu runs pooled from %s (%s), accepted entries: %s, settings: %s\n",
		       sc->pool.scenario, n, sc->dir, sc->pairs ? "in pairs" : "no pairs",
		       sc->accepted_from, sc->settings_from);
		if (have < s->max)
			printf("    BOOTSTRAP: %zu %s cannot give %u a side without "
			       "replacement; drawn with replacement\n",
			       sc->pairs ? sc->pairs : n, sc->pairs ? "pairs" : "runs", s->max);
	}
	printf("\n");
}

/* ---- the command line ---- */

static int usage(FILE *f)
{
	fprintf(f, "usage: gate_sim [--trials N] [--first N] [--max N] [--alpha A] [--strict] "
		   "[--seed S]\n                [--effect KIND=VALUE]... [--curve] [--assert-aa] "
		   "[--assert-power KIND=VALUE:P]... DIR...\n  KIND: throughput (relative "
		   "change, -0.10), vertex (chance, 0.7), edge (factor, 2)\n");
	return 2;
}

/* KIND=VALUE added to *eff; 0, or -1 when it is not one. */
static int parse_effect(const char *arg, struct effects *eff)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	char *end;
	double v = eq ? strtod(eq + 1, &end) : NAN;

	if (!eq || end == eq + 1 || *end || !isfinite(v))
		return -1;
	if (len == 10 && !strncmp(arg, "throughput", len) && v > -1 && v < 1)
		eff->throughput = v;
	else if (len == 6 && !strncmp(arg, "vertex", len) && v > 0 && v <= 1)
		eff->vertex = v;
	else if (len == 4 && !strncmp(arg, "edge", len) && v > 0)
		eff->edge = v;
	else
		return -1;
	return 0;
}

/* --assert-power KIND=VALUE:P. */
static int parse_power(struct cli *c, const char *arg)
{
	char effect[64], *colon, *end;
	double p;

	snprintf(effect, sizeof(effect), "%s", arg);
	if (c->npower == SIM_MAX_POWER || !(colon = strrchr(effect, ':')))
		return -1;
	*colon = '\0';
	p = strtod(colon + 1, &end);
	if (end == colon + 1 || *end || !(p > 0 && p <= 1))
		return -1;
	c->power_min[c->npower] = p;
	return parse_effect(effect, &c->power_eff[c->npower++]);
}

/* A whole number in [lo, hi] into *out; -1 when arg is not one. */
static int parse_count(const char *arg, unsigned long long lo, unsigned long long hi,
		       unsigned long long *out)
{
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -1; /* strtoull would take "-1" */
	errno = 0;
	*out = strtoull(arg, &end, 10);
	return !*end && !errno && *out >= lo && *out <= hi ? 0 : -1;
}

/* One option into c; 0, or -1 when its argument is not what it wants. */
static int parse_option(struct cli *c, int opt, const char *arg)
{
	struct sim *s = &c->s;
	unsigned long long n;
	char *end;

	switch (opt) {
	case 't':
		return parse_count(arg, 1, 10000000, &n) ? -1 : (s->trials = (unsigned)n, 0);
	case 'f':
		return parse_count(arg, 2, 1000, &n) ? -1 : (s->first = (unsigned)n, 0);
	case 'm':
		return parse_count(arg, 2, 1000, &n) ? -1 : (s->max = (unsigned)n, 0);
	case 's':
		return parse_count(arg, 0, UINT64_MAX, &n) ? -1 : (s->seed = n, 0);
	case 'a':
		s->alpha = strtod(arg, &end);
		return s->alpha > 0 && s->alpha < 0.5 && end != arg && !*end ? 0 : -1;
	case 'e':
		c->have_effect = 1;
		return parse_effect(arg, &c->eff);
	case 'P':
		return parse_power(c, arg);
	case 'c':
		return c->curve = 1, 0;
	case 'S':
		return s->strict = 1, 0;
	case 'A':
		return c->assert_aa = 1, 0;
	}
	return -1;
}

/* The options into c; 0, 1 for --help, -1 when they are wrong (said on stderr). */
static int parse_args(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"trials", 1, NULL, 't'},	    {"first", 1, NULL, 'f'}, {"max", 1, NULL, 'm'},
	    {"alpha", 1, NULL, 'a'},	    {"seed", 1, NULL, 's'},  {"effect", 1, NULL, 'e'},
	    {"assert-power", 1, NULL, 'P'}, {"curve", 0, NULL, 'c'}, {"strict", 0, NULL, 'S'},
	    {"assert-aa", 0, NULL, 'A'},    {"help", 0, NULL, 'h'},  {0}};
	const char *why = NULL;
	int opt, at = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, &at)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?')
			return -1; /* getopt said why */
		if (parse_option(c, opt, optarg) < 0) {
			fprintf(stderr, "gate_sim: bad value '%s' of --%s\n", optarg,
				opts[at].name);
			return -1;
		}
	}
	if (optind == argc)
		why = "no folder of runs";
	else if (c->s.max < c->s.first)
		why = "--max is below --first";
	else if (c->assert_aa && c->have_effect)
		why = "--assert-aa measures identical code: no --effect with it";
	if (why)
		fprintf(stderr, "gate_sim: %s\n", why);
	return why ? -1 : 0;
}

/* Does every scenario's power at the last pass reach min, within its
 * interval? Says which does not. */
static int power_reached(const struct sim *s, double min)
{
	int ok = 1;
	double lo, hi;

	for (size_t i = 0; i < s->nsc; i++) {
		const struct sim_scenario *sc = &s->sc[i];
		size_t k =
		    sc->kinds[WPERF_VERDICT_REGRESSION] + sc->kinds[WPERF_VERDICT_NEW_BOTTLENECK];

		sim_wilson(k, s->trials, &lo, &hi);
		if (hi >= min)
			continue;
		printf("assert-power: FAILED: %s: power %.4f [%.4f, %.4f] is below %g\n",
		       sc->pool.scenario, (double)k / s->trials, lo, hi, min);
		ok = 0;
	}
	return ok;
}

/* The passes the options ask for; 1 when an assertion failed. */
static int run_all(struct cli *c, struct wperf_error *err)
{
	static const struct effects aa = {0};
	const struct effects *first = c->have_effect ? &c->eff : &aa;
	struct sim *s = &c->s;
	int failed = 0, e = sim_pass(s, first, err);
	double lo, hi;

	if (!e)
		print_pass(s, first);
	sim_wilson(s->check_fails, s->trials, &lo, &hi);
	if (!e && c->assert_aa && lo > s->alpha) {
		printf("assert-aa: FAILED: the false-failure rate's interval [%.4f, %.4f] is above "
		       "alpha %g\n",
		       lo, hi, s->alpha);
		failed = 1;
	}
	if (!e && c->curve)
		e = print_curve(s, err);
	for (size_t p = 0; !e && p < c->npower; p++) {
		if (!(e = sim_pass(s, &c->power_eff[p], err)))
			print_pass(s, &c->power_eff[p]);
		if (!e && !power_reached(s, c->power_min[p]))
			failed = 1;
	}
	return e ? e : failed;
}

int main(int argc, char **argv)
{
	struct cli c = {
	    .s = {.trials = 1000, .first = 5, .max = 17, .alpha = WPERF_GATE_ALPHA, .seed = 1}};
	struct wperf_error err = {0};
	double t0 = sim_now();
	int e = parse_args(&c, argc, argv);

	if (e)
		return e > 0 ? usage(stdout) - 2 : usage(stderr);
	e = sim_setup(&c.s, argv + optind, (size_t)(argc - optind), &err);
	if (!e) {
		print_setup(&c.s);
		e = run_all(&c, &err);
	}
	sim_release(&c.s);
	if (e < 0) {
		fprintf(stderr, "gate_sim: error: %s\n", err.msg);
		return 2;
	}
	printf("%s in %.2f s\n", e ? "assertions FAILED" : "done", sim_now() - t0);
	return e;
}
