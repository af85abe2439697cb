/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's schema: which keys each mapping may hold, their types,
 * ranges and defaults, and the checks that span keys (service names in
 * targets, the recording window inside the load's duration). Services and
 * commands are in scenario_services.c; scenario_values.c and scenario_yaml.c
 * turn YAML nodes into checked values. docs/scenarios.md is the user's side of
 * these files and must change with them.
 */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/analysis.h"
#include "core/gate/verdict.h"
#include "core/scenario/scenario_internal.h"

#define MAX_RUNS 1000
#define MAX_NAME 100 /* the scenario's name names folders */

/* ---- the load ---- */

static int throughput(struct loader *L, const yaml_node_t *map, struct scenario_throughput *t)
{
	static const char *const keys[] = {"regex", "file", "unit", "higher_is_better"};

	if (SC_KEYS(L, map, keys, 1) < 0)
		return -1;
	return sc_get_regex(L, map, "regex", 1, &t->regex) < 0 ||
		       sc_get_string(L, map, "file", SC_NONEMPTY, &t->file) < 0 ||
		       sc_get_string(L, map, "unit", SC_NONEMPTY, &t->unit) < 0 ||
		       sc_get_bool(L, map, "higher_is_better", &t->higher_is_better) < 0
		   ? -1
		   : 0;
}

static int load(struct loader *L, const yaml_node_t *map)
{
	static const char *const keys[] = {"command", "env",	      "cwd",	    "duration",
					   "timeout", "stop_timeout", "throughput", "metrics"};
	struct scenario_load *l = &L->s->load;
	const yaml_node_t *v;

	if (SC_KEYS(L, map, keys, 1) < 0)
		return -1;
	if (sc_process(L, map, &l->command, &l->env, &l->nenv, &l->cwd) < 0)
		return -1;
	l->stop_timeout = 10;
	if (sc_get_duration(L, map, "duration", &sc_seconds_pos, &l->duration) < 0 ||
	    sc_get_duration(L, map, "timeout", &sc_seconds_pos, &l->timeout) < 0 ||
	    sc_get_duration(L, map, "stop_timeout", &sc_seconds, &l->stop_timeout) < 0)
		return -1;
	/* A load stopped before its own end could never succeed. */
	if (l->timeout > 0 && l->timeout <= l->duration) {
		wperf_doc_path_key(&L->y.path, "timeout");
		return wperf_yaml_fail(
		    &L->y, wperf_yaml_lookup(&L->y, map, "timeout"),
		    "%g s is not more than load.duration (%g s): the load would always "
		    "be stopped before its end",
		    l->timeout, l->duration);
	}
	if ((v = wperf_yaml_lookup(&L->y, map, "throughput")))
		AT_KEY(L, "throughput", throughput(L, v, &l->throughput) < 0);
	if ((v = wperf_yaml_lookup(&L->y, map, "metrics")))
		AT_KEY(L, "metrics", sc_metrics(L, v, l) < 0);
	return 0;
}

/*
 * ${DURATION} must be known before any string is expanded, strings that come
 * before load in the file included; so load.duration is read first.
 */
static int duration_variable(struct loader *L, const yaml_node_t *root)
{
	const yaml_node_t *l = wperf_yaml_lookup(&L->y, root, "load"), *d;
	double v;

	if (!l || !(d = wperf_yaml_lookup(&L->y, l, "duration")))
		return 0;
	wperf_doc_path_key(&L->y.path, "load");
	wperf_doc_path_key(&L->y.path, "duration");
	if (sc_duration(L, d, &sc_seconds_pos, &v) < 0)
		return -1;
	wperf_doc_path_pop(&L->y.path, 0);
	snprintf(L->duration, sizeof(L->duration), "%.9g", v);
	return 0;
}

/* ---- record and analysis ---- */

/*
 * "load", "service:NAME", "process:NAME", "pidfile:PATH", or a bare NAME: a
 * service, or else (when bare_process) a process name.
 */
static int target(struct loader *L, const yaml_node_t *n, int bare_process,
		  struct scenario_target *t)
{
	static const char *const prefixes[] = {"service:", "process:", "pidfile:"};
	static const enum scenario_target_kind kinds[] = {
	    SCENARIO_TARGET_SERVICE, SCENARIO_TARGET_PROCESS, SCENARIO_TARGET_PIDFILE};
	const struct scenario *s = L->s;
	char *v, names[160];
	size_t len = 0;

	if (sc_string(L, n, SC_NONEMPTY, &v) < 0)
		return -1;
	if (!strcmp(v, "load")) {
		t->kind = SCENARIO_TARGET_LOAD;
		t->name = v;
		return 0;
	}
	t->kind = SCENARIO_TARGET_SERVICE;
	t->name = v;
	for (size_t i = 0; i < 3; i++) {
		if (!strncmp(v, prefixes[i], strlen(prefixes[i]))) {
			t->kind = kinds[i];
			t->name = v + strlen(prefixes[i]);
			if (!t->name[0])
				return wperf_yaml_fail(&L->y, n, "expected a name after %s",
						       prefixes[i]);
			if (i > 0)
				return 0;
		}
	}
	t->service = scenario_service(s, t->name);
	if (t->service)
		return 0;
	if (bare_process && t->name == v) {
		t->kind = SCENARIO_TARGET_PROCESS;
		return 0;
	}
	names[0] = '\0';
	for (size_t i = 0; i < s->nservices && len < sizeof(names); i++) {
		int w = snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
				 s->services[i].name);

		len += w > 0 ? (size_t)w : 0;
	}
	if (!s->nservices)
		return wperf_yaml_fail(
		    &L->y, n,
		    "unknown service \"%s\": this scenario has no services (a process "
		    "is process:NAME)",
		    t->name);
	return wperf_yaml_fail(&L->y, n,
			       "unknown service \"%s\" (services: %s; a process is process:NAME)",
			       t->name, names);
}

/* record.targets: a non-empty list. */
static int targets(struct loader *L, const yaml_node_t *v, struct scenario_record *r)
{
	const yaml_node_item_t *items;
	size_t k;

	if (wperf_yaml_list(&L->y, v, &items, &k) < 0)
		return -1;
	if (!k)
		return wperf_yaml_fail(&L->y, v,
				       "expected a non-empty list (without targets, the whole "
				       "machine is recorded), found an empty list");
	if (!(r->targets = sc_alloc(L, v, k * sizeof(*r->targets))))
		return -1;
	memset(r->targets, 0, k * sizeof(*r->targets));
	for (size_t i = 0; i < k; i++) {
		size_t at = wperf_doc_path_index(&L->y.path, i);

		if (target(L, wperf_yaml_node(&L->y, items[i]), 0, &r->targets[i]) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, at);
	}
	r->ntargets = k;
	return 0;
}

static int record(struct loader *L, const yaml_node_t *map)
{
	static const char *const keys[] = {"targets", "warmup",	   "window",
					   "stacks",  "buffer_mb", "on_stop"};
	static const char *const stacks[] = {"none", "kernel", "user", "all", "dwarf"};
	static const enum scenario_stacks modes[] = {SCENARIO_STACKS_NONE, SCENARIO_STACKS_KERNEL,
						     SCENARIO_STACKS_USER, SCENARIO_STACKS_ALL,
						     SCENARIO_STACKS_DWARF};
	struct scenario_record *r = &L->s->record;
	const double duration = L->s->load.duration;
	const yaml_node_t *v;
	char *mode = NULL;
	long long buffer_mb = 0;

	if (SC_KEYS(L, map, keys, 0) < 0)
		return -1;
	if ((v = wperf_yaml_lookup(&L->y, map, "targets")))
		AT_KEY(L, "targets", targets(L, v, r) < 0);
	if (sc_get_duration(L, map, "warmup", &sc_seconds, &r->warmup) < 0 ||
	    sc_get_duration(L, map, "window", &sc_seconds_pos, &r->window) < 0 ||
	    sc_get_string(L, map, "stacks", SC_NONEMPTY, &mode) < 0 ||
	    sc_get_integer(L, map, "buffer_mb", 1, 4096, &buffer_mb) < 0 ||
	    sc_commands(L, map, "on_stop", &r->on_stop, &r->non_stop) < 0)
		return -1;
	if (buffer_mb & (buffer_mb - 1)) {
		wperf_doc_path_key(&L->y.path, "buffer_mb");
		return wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, map, "buffer_mb"),
				       "expected a power of two from 1 to 4096, found %lld",
				       buffer_mb);
	}
	r->buffer_mb = (unsigned)buffer_mb;
	if (mode) {
		size_t i = 0;
		char got[64];

		while (i < 5 && strcmp(mode, stacks[i]))
			i++;
		if (i == 5) {
			wperf_doc_path_key(&L->y.path, "stacks");
			v = wperf_yaml_lookup(&L->y, map, "stacks");
			return wperf_yaml_fail(
			    &L->y, v, "expected none, kernel, user, all or dwarf, found %s",
			    wperf_yaml_describe(v, got, sizeof(got)));
		}
		r->stacks = modes[i];
	}
	/* A recording that starts or ends after the load would see nothing of it. */
	if (duration > 0 && r->warmup >= duration) {
		wperf_doc_path_key(&L->y.path, "warmup");
		return wperf_yaml_fail(
		    &L->y, wperf_yaml_lookup(&L->y, map, "warmup"),
		    "%g s of warm-up leave nothing of the load's %g s (load.duration) to "
		    "record",
		    r->warmup, duration);
	}
	if (duration > 0 && r->window > 0 && r->warmup + r->window > duration) {
		wperf_doc_path_key(&L->y.path, "window");
		return wperf_yaml_fail(
		    &L->y, wperf_yaml_lookup(&L->y, map, "window"),
		    "warm-up and window (%g + %g s) outlast the load (load.duration: %g s)",
		    r->warmup, r->window, duration);
	}
	return 0;
}

static int capacity(struct loader *L, const yaml_node_t *map, struct scenario_analysis *a)
{
	static const char *const keys[] = {"disk_bytes_per_s", "disk_iops", "nic_bits_per_s"};
	uint64_t *fields[] = {&a->disk_bytes_per_s, &a->disk_iops, &a->nic_bits_per_s};

	if (SC_KEYS(L, map, keys, 0) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		long long v = 0;

		if (sc_get_integer(L, map, keys[i], 1, 1000000000000000000LL, &v) < 0)
			return -1;
		*fields[i] = (uint64_t)v;
	}
	return 0;
}

static int aliases(struct loader *L, const yaml_node_t *map, struct scenario_analysis *a)
{
	const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	size_t k = map->data.mapping.pairs.top - p;

	if (wperf_yaml_keys(&L->y, map, NULL, 0, 0, NULL) < 0 ||
	    !(a->aliases = sc_alloc(L, map, (k + 1) * sizeof(char *))))
		return -1;
	for (size_t i = 0; i < k; i++) {
		const char *id = sc_key(L, &p[i]);
		size_t saved = wperf_doc_path_key(&L->y.path, id);
		char *name;

		if (sc_string(L, wperf_yaml_node(&L->y, p[i].value), SC_NONEMPTY, &name) < 0 ||
		    !(a->aliases[i] = sc_alloc(L, map, strlen(id) + strlen(name) + 2)))
			return -1;
		sprintf(a->aliases[i], "%s=%s", id, name);
		wperf_doc_path_pop(&L->y.path, saved);
	}
	a->aliases[k] = NULL;
	a->naliases = k;
	return 0;
}

static int analysis(struct loader *L, const yaml_node_t *map)
{
	static const char *const keys[] = {"threshold", "min_edge", "merge_similar",
					   "target",	"capacity", "aliases"};
	struct scenario_analysis *a = &L->s->analysis;
	const yaml_node_t *v;

	if (SC_KEYS(L, map, keys, 0) < 0 ||
	    sc_get_number(L, map, "threshold", &sc_share, &a->threshold) < 0 ||
	    sc_get_number(L, map, "min_edge", &sc_signed_share, &a->min_edge) < 0 ||
	    sc_get_number(L, map, "merge_similar", &sc_signed_share, &a->merge_similar) < 0)
		return -1;
	if ((v = wperf_yaml_lookup(&L->y, map, "target")))
		AT_KEY(L, "target", target(L, v, 1, &a->target) < 0);
	if ((v = wperf_yaml_lookup(&L->y, map, "capacity")))
		AT_KEY(L, "capacity", capacity(L, v, a) < 0);
	if ((v = wperf_yaml_lookup(&L->y, map, "aliases")))
		AT_KEY(L, "aliases", wperf_yaml_mapping(&L->y, v) < 0 || aliases(L, v, a) < 0);
	return 0;
}

static int expect(struct loader *L, const yaml_node_t *map)
{
	static const char *const keys[] = {"knot",    "not_in_knot",   "sink",
					   "no_knot", "cmetric_first", "timer_paced"};
	struct scenario_expect *e = &L->s->expect;

	if (SC_KEYS(L, map, keys, 0) < 0 ||
	    sc_get_strings(L, map, "knot", SC_NONEMPTY, 1, &e->knot, &e->nknot) < 0 ||
	    sc_get_strings(L, map, "not_in_knot", SC_NONEMPTY, 0, &e->not_in_knot,
			   &e->nnot_in_knot) < 0 ||
	    sc_get_strings(L, map, "sink", SC_NONEMPTY, 1, &e->sink, &e->nsink) < 0 ||
	    sc_get_bool(L, map, "no_knot", &e->no_knot) < 0 ||
	    sc_get_string(L, map, "cmetric_first", SC_NONEMPTY, &e->cmetric_first) < 0 ||
	    sc_get_strings(L, map, "timer_paced", SC_NONEMPTY, 1, &e->timer_paced,
			   &e->ntimer_paced) < 0)
		return -1;
	if (e->no_knot && e->nknot)
		AT_KEY(L, "no_knot",
		       wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, map, "no_knot"),
				       "true contradicts expect.knot") < 0);
	if (e->nnot_in_knot && !e->nknot)
		AT_KEY(L, "not_in_knot",
		       wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, map, "not_in_knot"),
				       "needs the knot it speaks of (expect.knot)") < 0);
	if (!e->nknot && !e->nsink && !e->no_knot && !e->cmetric_first && !e->ntimer_paced)
		return wperf_yaml_fail(
		    &L->y, map,
		    "expected at least one of knot, sink, no_knot: true, cmetric_first "
		    "or timer_paced");
	e->given = 1;
	return 0;
}

static int gate(struct loader *L, const yaml_node_t *map)
{
	static const char *const keys[] = {"edge_tolerance", "throughput_tolerance",
					   "warn_ratio",     "min_runs",
					   "max_lost",	     "detect"};
	struct scenario_gate *g = &L->s->gate;
	long long min_runs = g->min_runs;

	if (SC_KEYS(L, map, keys, 0) < 0 ||
	    sc_get_number(L, map, "edge_tolerance", &sc_relative, &g->edge_tolerance) < 0 ||
	    sc_get_number(L, map, "throughput_tolerance", &sc_share, &g->throughput_tolerance) <
		0 ||
	    sc_get_number(L, map, "warn_ratio", &sc_share, &g->warn_ratio) < 0 ||
	    sc_get_integer(L, map, "min_runs", 2, MAX_RUNS, &min_runs) < 0 ||
	    sc_get_number(L, map, "max_lost", &sc_share, &g->max_lost) < 0)
		return -1;
	g->min_runs = (unsigned)min_runs;
	/* Not given: the change that would fail is the one the runs must tell. */
	g->detect = g->throughput_tolerance;
	return sc_get_number(L, map, "detect", &sc_share, &g->detect) < 0 ? -1 : 0;
}

/* ---- the whole file ---- */

static int scenario(struct loader *L, const yaml_node_t *root)
{
	static const char *const keys[] = {"name",     "load",	 "description", "tags",
					   "build",    "setup",	 "prepare",	"include",
					   "services", "record", "runs",	"analysis",
					   "expect",   "gate",	 "teardown",	"matrix"};
	struct scenario *s = L->s;
	const yaml_node_t *v;
	long long runs = 1;

	if (root->type != YAML_MAPPING_NODE) {
		char got[64];

		return wperf_yaml_fail(&L->y, root,
				       "expected a mapping of keys (name, load, ...), found %s",
				       wperf_yaml_describe(root, got, sizeof(got)));
	}
	if (SC_KEYS(L, root, keys, 2) < 0 || duration_variable(L, root) < 0)
		return -1;
	/* The defaults of everything a file may leave out (the rest is 0 or NULL). */
	s->load.throughput.higher_is_better = 1;
	s->record.stacks = SCENARIO_STACKS_ALL;
	s->analysis.threshold = WPERF_DEFAULT_THRESHOLD;
	s->analysis.min_edge = NAN;
	s->gate = (struct scenario_gate){.edge_tolerance = 0.10,
					 .throughput_tolerance = 0.05,
					 .warn_ratio = 0.5,
					 .min_runs = 5,
					 .max_lost = WPERF_GATE_MAX_LOST,
					 .detect = 0.05};
	/* Lists not given are empty, never NULL; one {NULL} serves them all. */
	if (!(L->empty = sc_alloc(L, root, sizeof(char *))))
		return -1;
	L->empty[0] = NULL;
	s->tags = s->analysis.aliases = s->expect.knot = s->expect.not_in_knot = s->expect.sink =
	    s->expect.timer_paced = L->empty;

	if (sc_get_string(L, root, "name", SC_NONEMPTY, &s->name) < 0)
		return -1;
	if (s->name[0] == '.' || strlen(s->name) > MAX_NAME ||
	    strspn(s->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
		strlen(s->name)) {
		char got[64];

		/* The name as expanded: that is what is wrong with it. */
		wperf_doc_quote(got, sizeof(got), s->name, strlen(s->name));
		wperf_doc_path_key(&L->y.path, "name");
		return wperf_yaml_fail(
		    &L->y, wperf_yaml_lookup(&L->y, root, "name"),
		    "expected a name of letters, digits, '.', '_' and '-' (at most %d, "
		    "not starting with '.'), found %s",
		    MAX_NAME, got);
	}
	if (sc_get_string(L, root, "description", 0, &s->description) < 0 ||
	    sc_get_strings(L, root, "tags", SC_NONEMPTY, 0, &s->tags, &s->ntags) < 0 ||
	    sc_commands(L, root, "build", &s->build, &s->nbuild) < 0 ||
	    sc_commands(L, root, "setup", &s->setup, &s->nsetup) < 0 ||
	    sc_commands(L, root, "prepare", &s->prepare, &s->nprepare) < 0 ||
	    sc_services(L, root) < 0)
		return -1;
	AT_KEY(L, "load", load(L, wperf_yaml_lookup(&L->y, root, "load")) < 0);
	if ((v = wperf_yaml_lookup(&L->y, root, "record")))
		AT_KEY(L, "record", record(L, v) < 0);
	if (sc_get_integer(L, root, "runs", 1, MAX_RUNS, &runs) < 0)
		return -1;
	s->runs = (unsigned)runs;
	if ((v = wperf_yaml_lookup(&L->y, root, "analysis")))
		AT_KEY(L, "analysis", analysis(L, v) < 0);
	if ((v = wperf_yaml_lookup(&L->y, root, "expect")))
		AT_KEY(L, "expect", expect(L, v) < 0);
	if ((v = wperf_yaml_lookup(&L->y, root, "gate")))
		AT_KEY(L, "gate", gate(L, v) < 0);
	return sc_commands(L, root, "teardown", &s->teardown, &s->nteardown);
}

/* ${SCENARIO_DIR}: the file's directory, absolute, symbolic links resolved. */
static int scenario_dir(struct loader *L)
{
	char *real = realpath(L->file, NULL), *slash;

	if (!real) {
		wperf_error_set(L->err, -errno, "%s: %s", L->file, strerror(errno));
		return -1;
	}
	slash = strrchr(real, '/');
	L->s->dir = sc_strndup(L, NULL, real, slash == real ? 1 : (size_t)(slash - real));
	free(real);
	return L->s->dir ? 0 : -1;
}

int sc_load_file(const char *path, const struct scenario_vars *vars, struct scenario **out,
		 struct wperf_error *err)
{
	struct wperf_error local;
	struct loader L = {.file = path, .vars = vars, .err = err ? err : &local};
	int ret = -1;

	*out = NULL;
	L.err->code = 0;
	L.y.file = path; /* for the errors before the document is read */
	L.y.err = L.err;
	L.s = calloc(1, sizeof(*L.s));
	if (!L.s)
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", path);
	if ((L.s->path = L.s->file = sc_strndup(&L, NULL, path, strlen(path))) &&
	    sc_read_document(&L) == 0 && scenario_dir(&L) == 0)
		ret = scenario(&L, wperf_yaml_root(&L.y));
	wperf_yaml_release(&L.y);
	wperf_buf_release(&L.tmp);
	if (ret < 0) {
		scenario_free(L.s);
		return L.err->code ? L.err->code : -EINVAL;
	}
	*out = L.s;
	return 0;
}

int scenario_has_tag(const struct scenario *s, const char *tag)
{
	for (size_t i = 0; i < s->ntags; i++)
		if (!strcmp(s->tags[i], tag))
			return 1;
	return 0;
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->mem.len / sizeof(void *); i++)
		free(((void **)s->mem.data)[i]);
	wperf_buf_release(&s->mem);
	free(s);
}
