/* SPDX-License-Identifier: MIT */
/*
 * Scenarios: one YAML file that says how to run a workload, what to record of
 * it and how to judge it. docs/scenarios.md documents every key.
 *
 * scenario_load reads and checks the whole file up front, so that a typo fails
 * at once rather than after the setup and a minute of load. Every error names
 * the file, line, column and key path:
 *
 *   scenarios/x.yaml:12:5: services.zk.ready.tcp: expected HOST:PORT, got "abc"
 *
 * The values below are final: defaults filled in, ${VARIABLES} expanded, names,
 * numbers and regexes checked, service names in targets resolved. The runner
 * compiles the regexes itself (PCRE2, scenario_regex.h); they are known to compile.
 *
 * Ownership: a struct scenario owns every string and array it points to, and
 * scenario_free releases them all. Every char ** array is NULL-terminated and
 * never NULL (an empty list is {NULL}); arrays of structs are NULL when empty.
 */
#ifndef WPERF_SCENARIO_H
#define WPERF_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/*
 * The variables only the caller knows; NULL leaves one undefined. A ${NAME}
 * is looked up in this order: SCENARIO_DIR, RESULTS_DIR and DURATION (the
 * tool's own, never redefined), then defs, then build_dir as ${BUILD_DIR},
 * then env.
 */
struct scenario_vars {
	const char *results_dir; /* ${RESULTS_DIR} */
	const char *build_dir;	 /* ${BUILD_DIR} */
	/* What the user defined (a repository's .wperf-bench.yaml, --var):
	 * "NAME=value" strings ending with NULL, the first of a name winning;
	 * BUILD_DIR among them replaces build_dir. NULL: none. */
	char *const *defs;
	/* Where any other ${NAME} comes from: "NAME=value" strings ending with
	 * NULL, as the process's environ (the program passes its own; the library
	 * reads no environment). NULL: no other variable is defined. */
	char *const *env;
};

/* Is name (len bytes) a variable's name: a letter or _, then letters, digits
 * or _, at most 128 of them? The tool's own names (SCENARIO_DIR, RESULTS_DIR,
 * DURATION) are names too, but scenario_var_is_reserved. */
int scenario_var_name_ok(const char *name, size_t len);

/* Is name one of the variables the tool itself defines and nobody else may? */
int scenario_var_is_reserved(const char *name);

/* The value of name in list ("NAME=value" strings ending with NULL, as defs
 * and env): the first one's, or NULL. */
const char *scenario_vars_lookup(char *const *list, const char *name);

/* A command of build, setup, prepare, teardown, a service or the load. */
struct scenario_command {
	/* What to exec: the list as written, or {"/bin/sh", "-c", STRING} for a
	 * string. argv[0] is never empty. */
	char **argv;
	int shell; /* written as one string, run by /bin/sh -c */
	int line;  /* where it was written (1-based), for the runner's messages */
};

enum scenario_ready_kind {
	SCENARIO_READY_NONE,  /* ready once started */
	SCENARIO_READY_TCP,   /* a TCP connection to host:port succeeds */
	SCENARIO_READY_FILE,  /* file exists */
	SCENARIO_READY_LOG,   /* a line of the service's output matches log */
	SCENARIO_READY_DELAY, /* delay seconds have passed */
	SCENARIO_READY_HTTP,  /* a GET of url answers with status */
};

struct scenario_ready {
	enum scenario_ready_kind kind;
	char *host;	/* TCP: a name or an address, IPv6 without its brackets */
	int port;	/* TCP: 1..65535 */
	char *file;	/* FILE */
	char *log;	/* LOG: a PCRE2 regex (scenario_regex.h) */
	double delay;	/* DELAY: seconds */
	char *url;	/* HTTP: http:// or https:// */
	int status;	/* HTTP: 100..599; default 200 */
	double timeout; /* seconds before giving up on TCP, FILE, LOG or HTTP; default 30 */
};

struct scenario_service {
	char *name; /* [A-Za-z0-9_-]+, never "load" */
	struct scenario_command command;
	char **env;  /* "KEY=VALUE", added to wperf-bench's environment */
	size_t nenv; /* entries of env */
	char *cwd;   /* NULL: wperf-bench's working directory */
	struct scenario_ready ready;
	int stop_signal;     /* default SIGTERM */
	double stop_timeout; /* seconds from stop_signal to SIGKILL; default 10 */
};

struct scenario_throughput {
	/* NULL: the load gives no throughput. Otherwise a PCRE2 regex with
	 * at least one group; the first group of the last matching line is the
	 * number. */
	char *regex;
	char *file;	      /* NULL: match the load's output; otherwise this file's lines */
	char *unit;	      /* NULL when not given */
	int higher_is_better; /* default 1 */
};

/* One of the load's other metrics (core/gate/metric.h): read from a regex's
 * first group, as the throughput, or from a key path in JSON. */
struct scenario_metric {
	char *name;  /* wperf_metric_name_ok, unique in the scenario */
	char *regex; /* a POSIX extended regex with a group; NULL when json is given */
	/* A key path into the load's JSON output, "latency.p99" or "runs[0].ops":
	 * names ([A-Za-z0-9_-]+) separated by '.', each with optional [INDEX]s;
	 * NULL when regex is given. */
	char *json;
	char *file;	      /* NULL: the load's output; otherwise this file */
	char *unit;	      /* NULL when not given */
	int higher_is_better; /* required: a latency is lower-is-better */
	double tolerance;     /* (0, 1]; 0: gate.throughput_tolerance */
};

#define SCENARIO_MAX_METRICS 32

struct scenario_load {
	struct scenario_command command;
	char **env;	 /* "KEY=VALUE", added to wperf-bench's environment */
	size_t nenv;	 /* entries of env */
	char *cwd;	 /* NULL: wperf-bench's working directory */
	double duration; /* seconds, also ${DURATION}; 0: not given */
	/* Seconds the load may run before the run fails; 0: the duration and as
	 * much again (at least 30 s), or an hour without a duration. */
	double timeout;
	double stop_timeout; /* seconds from SIGTERM to SIGKILL when it is stopped; default 10 */
	struct scenario_throughput throughput;
	struct scenario_metric *metrics; /* load.metrics in the file's order; NULL: none */
	size_t nmetrics;		 /* at most SCENARIO_MAX_METRICS */
};

enum scenario_target_kind {
	SCENARIO_TARGET_NONE,	 /* not given */
	SCENARIO_TARGET_LOAD,	 /* the load command */
	SCENARIO_TARGET_SERVICE, /* a service of this scenario */
	SCENARIO_TARGET_PROCESS, /* processes by name */
	SCENARIO_TARGET_PIDFILE, /* the process whose pid a file holds */
};

struct scenario_target {
	enum scenario_target_kind kind;
	/* LOAD: "load"; SERVICE: the service's name; PROCESS: the process name;
	 * PIDFILE: the file's path. */
	char *name;
	const struct scenario_service *service; /* SERVICE: in scenario.services */
};

enum scenario_stacks {
	SCENARIO_STACKS_NONE,
	SCENARIO_STACKS_KERNEL,
	SCENARIO_STACKS_USER,
	SCENARIO_STACKS_ALL,
	SCENARIO_STACKS_DWARF = 7, /* all, the user stacks copied and unwound offline */
};

struct scenario_record {
	struct scenario_target *targets; /* NULL: the whole machine */
	size_t ntargets;
	double warmup; /* seconds from the load's start to the recording's; default 0 */
	double window; /* seconds to record; 0: until the load ends */
	enum scenario_stacks stacks; /* default SCENARIO_STACKS_ALL */
	unsigned buffer_mb; /* the recorder's ring buffer, a power of two; 0: its default */
	/* Run in order once the window has closed, before the recorder reads the
	 * processes' tables (a JIT's perf map): their work is not recorded. */
	struct scenario_command *on_stop;
	size_t non_stop;
};

struct scenario_analysis {
	double threshold; /* (0, 1]; default 0.2 */
	/* [-1, 1]; NaN when not given: the level where the knots are most stable
	 * (core/analysis/knot_level.h). Here 0 means what it says (no edge is left
	 * out), whereas 0 in struct wperf_analysis_opts means the default: pass a
	 * negative value there for 0. */
	double min_edge;
	double merge_similar;	       /* [-1, 1]; default 0 (0.5: core/analysis/merge.h) */
	struct scenario_target target; /* kind NONE when not given: the load */
	/* The idle-time model's capacities; 0: not given. */
	uint64_t disk_bytes_per_s;
	uint64_t disk_iops;
	uint64_t nic_bits_per_s;
	/* "IDENTITY=NAME", in the file's order: as wperf_report_opts.aliases wants. */
	char **aliases;
	size_t naliases;
};

/* A synthetic scenario's known answer; given is 0 when it has none. */
struct scenario_expect {
	int given;
	/* Identity globs (fnmatch) that must all be in one final knot. */
	char **knot;
	size_t nknot;
	char **not_in_knot; /* globs that must not be in that knot */
	size_t nnot_in_knot;
	char **sink; /* globs that each match a final sink (an on-CPU bottleneck) */
	size_t nsink;
	int no_knot;	     /* no knot may be found */
	char *cmetric_first; /* a glob for the target's vertex the CMetric ranks first */
	char **timer_paced;  /* globs that each match a thread paced by a timer */
	size_t ntimer_paced;
};

/* Never 0, so that they can go to struct wperf_gate_opts as they are. */
struct scenario_gate {
	double edge_tolerance;	     /* default 0.10 */
	double throughput_tolerance; /* default 0.05 */
	double warn_ratio;	     /* default 0.5 */
	unsigned min_runs;	     /* default 5 */
	double max_lost;	     /* share of its events a run may lose; default 0.001 */
	double detect; /* the throughput change its runs must tell; default throughput_tolerance */
};

struct scenario {
	char *path;	   /* as given to scenario_load */
	char *file;	   /* path without a variant's selection (@NAME=VALUE,...) */
	char *dir;	   /* ${SCENARIO_DIR}: the absolute directory of the file */
	char *name;	   /* [A-Za-z0-9._-]+ */
	char *description; /* NULL when not given */
	char **tags;
	size_t ntags;
	/* What builds the workload from its source tree, run once from the tree's
	 * root before a set of runs by `ab` (not by `run`), in order. */
	struct scenario_command *build;
	size_t nbuild;
	/* Run once before a set's first run (its output in RESULTS/setup.log), in
	 * order. */
	struct scenario_command *setup;
	size_t nsetup;
	struct scenario_command *prepare; /* run before every run, in order */
	size_t nprepare;
	struct scenario_service *services; /* in the file's order */
	size_t nservices;
	struct scenario_load load;
	struct scenario_record record;
	unsigned runs; /* default 1 */
	struct scenario_analysis analysis;
	struct scenario_expect expect;
	struct scenario_gate gate;
	struct scenario_command *teardown; /* in order */
	size_t nteardown;

	struct wperf_buf mem; /* private: every block above, for scenario_free */
};

/*
 * Reads and checks the scenario at path. vars gives ${RESULTS_DIR} and
 * ${BUILD_DIR} (NULL: both undefined). Returns 0 and *out (free it with
 * scenario_free), or a negative errno with err->msg saying where and why.
 *
 * A file with a matrix (scenario_matrix.c) is one scenario per variant: path
 * is then FILE@NAME=VALUE,... naming a value for every parameter (as
 * scenario_variants gives them); the variant sees its parameters as
 * ${NAME}, and is named SCENARIO@NAME=VALUE,... (s->name), its path as given
 * (s->path) and its file without the selection (s->file).
 */
int scenario_load(const char *path, const struct scenario_vars *vars, struct scenario **out,
		  struct wperf_error *err);

/*
 * A duration as scenarios write it: a number of seconds ("30", "2.5") or a
 * number with a unit, ms, s, m or h ("500ms", "30s", "2m"). 0 with *seconds
 * and *has_unit, or -EINVAL. The range is the caller's to check.
 */
int scenario_parse_duration(const char *text, double *seconds, int *has_unit);

/*
 * The variants of the scenario file at path, each as a path scenario_load
 * takes: FILE@NAME=VALUE,... for every combination of the file's matrix (the
 * first parameter varies slowest), or just FILE without a matrix. path may
 * select some (FILE@threads=4: every variant with threads 4). 0 and *out, a
 * NULL-terminated array of *n strings (free it with scenario_variants_free),
 * or a negative errno with err saying where and why.
 */
int scenario_variants(const char *path, char ***out, size_t *n, struct wperf_error *err);

/* Frees what scenario_variants gave; NULL-safe. */
void scenario_variants_free(char **variants);

/* Releases s and everything it owns; NULL-safe. */
void scenario_free(struct scenario *s);

/* Is s tagged tag? */
int scenario_has_tag(const struct scenario *s, const char *tag);

/* The service called name, or NULL. */
const struct scenario_service *scenario_service(const struct scenario *s, const char *name);

#endif /* WPERF_SCENARIO_H */
