/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the scenario loader share: scenario_yaml.c reads the file
 * and owns the scenario's memory, scenario_values.c turns YAML nodes into
 * checked C values (strings with ${VARIABLES} expanded, regexes), scenario.c
 * and scenario_services.c know the schema and walk it (the services with the
 * files a scenario includes for them). The YAML itself (key
 * paths, positions, checked mappings, numbers, booleans) is the
 * strict-document kit's (core/util/doc_yaml.h).
 *
 * Every function that can fail returns a negative number; then L->err holds
 * the whole message ("FILE:LINE:COL: key.path: what was expected") and the
 * load stops there.
 */
#ifndef WPERF_SCENARIO_INTERNAL_H
#define WPERF_SCENARIO_INTERNAL_H

#include <stddef.h>

#include "core/util/doc_yaml.h"
#include "core/scenario/scenario.h"

#define SC_MAX_SECONDS	1e6 /* any duration: over 11 days is a typo */
#define SC_MAX_INCLUDES 8   /* files that include one another, the scenario first */

struct loader {
	const char *file; /* as given, for messages */
	const struct scenario_vars *vars;
	struct scenario *s;
	struct wperf_error *err;
	struct wperf_yaml y;  /* the document, and the key path being read */
	struct wperf_buf tmp; /* scratch for variable expansion */
	char duration[32];    /* ${DURATION}; "" while load.duration is unknown */
	size_t bytes;	      /* allocated so far, against SC_MAX_BYTES */
	char **empty;	      /* {NULL}: every list that was not given */
	/* The real paths of the files being read, each included by the one
	 * before (scenario_services.c): one more would be a cycle. */
	const char *including[SC_MAX_INCLUDES];
	size_t depth;
};

/* Loads one scenario from the file path (no variant: scenario_matrix.c's
 * scenario_load picks the variant and calls this). */
int sc_load_file(const char *path, const struct scenario_vars *vars, struct scenario **out,
		 struct wperf_error *err);

/* Reading the file into L->y (scenario_yaml.c). */
int sc_read_document(struct loader *L);

/* Memory owned by the scenario; NULL (with the error set) past the size limit. */
void *sc_alloc(struct loader *L, const yaml_node_t *at, size_t n);
char *sc_strndup(struct loader *L, const yaml_node_t *at, const char *p, size_t n);

/* Checks that map is a mapping of the keys of the array keys, the first
 * nrequired of them there. */
#define SC_KEYS(L, map, keys, nrequired)                                                           \
	wperf_yaml_keys(&(L)->y, map, keys, sizeof(keys) / sizeof(*(keys)), nrequired, NULL)

/* The key of a mapping pair, as text (keys are checked scalars). */
static inline const char *sc_key(struct loader *L, const yaml_node_pair_t *p)
{
	return (const char *)wperf_yaml_node(&L->y, p->key)->data.scalar.value;
}

/* Scalars. */
#define SC_NONEMPTY 1 /* an empty string is an error */
#define SC_RAW	    2 /* no ${VARIABLE} expansion */

extern const struct wperf_doc_range sc_seconds_pos;  /* (0, 1e6] */
extern const struct wperf_doc_range sc_seconds;	     /* [0, 1e6] */
extern const struct wperf_doc_range sc_share;	     /* (0, 1] */
extern const struct wperf_doc_range sc_signed_share; /* [-1, 1] */
extern const struct wperf_doc_range sc_relative;     /* (0, 100] */

int sc_string(struct loader *L, const yaml_node_t *n, int flags, char **out);
/* A string that compiles as a PCRE2 regex (scenario_regex.h) with at least min_groups groups. */
int sc_regex(struct loader *L, const yaml_node_t *n, size_t min_groups, char **out);
/* A list of strings (nonempty: at least one), as a NULL-terminated array. */
int sc_strings(struct loader *L, const yaml_node_t *n, int flags, int nonempty, char ***out,
	       size_t *count);

/*
 * The same for the value of key in map, with key pushed on the path; when the
 * key is absent they return 0 and leave *out alone, so that it keeps its default.
 */
int sc_get_string(struct loader *L, const yaml_node_t *map, const char *key, int flags, char **out);
int sc_get_number(struct loader *L, const yaml_node_t *map, const char *key,
		  const struct wperf_doc_range *r, double *out);
int sc_get_integer(struct loader *L, const yaml_node_t *map, const char *key, long long min,
		   long long max, long long *out);
int sc_get_bool(struct loader *L, const yaml_node_t *map, const char *key, int *out);
/* A duration in r, in seconds: a number of seconds or one with a unit (30s,
 * 500ms, 2m, 1h), scenario_duration.c. */
int sc_duration(struct loader *L, const yaml_node_t *n, const struct wperf_doc_range *r,
		double *out);
int sc_get_duration(struct loader *L, const yaml_node_t *map, const char *key,
		    const struct wperf_doc_range *r, double *out);
int sc_get_regex(struct loader *L, const yaml_node_t *map, const char *key, size_t min_groups,
		 char **out);
int sc_get_strings(struct loader *L, const yaml_node_t *map, const char *key, int flags,
		   int nonempty, char ***out, size_t *count);

/* Pushes key, runs the statement, pops: for values read without sc_get_*. */
#define AT_KEY(L, key, stmt)                                                                       \
	do {                                                                                       \
		size_t saved_ = wperf_doc_path_key(&(L)->y.path, key);                             \
		if (stmt)                                                                          \
			return -1;                                                                 \
		wperf_doc_path_pop(&(L)->y.path, saved_);                                          \
	} while (0)

/* The schema's parts in scenario_services.c. */
int sc_command(struct loader *L, const yaml_node_t *n, struct scenario_command *c);
/* The list of commands under key in root (setup, teardown), if any. */
int sc_commands(struct loader *L, const yaml_node_t *root, const char *key,
		struct scenario_command **out, size_t *count);
/* The services of root (a scenario or an included file): those of its
 * include: files first, then its own, appended to the scenario's. */
int sc_services(struct loader *L, const yaml_node_t *root);
/* The keys of map that a service and the load share: command, env (a mapping of
 * variable names to strings, as "NAME=VALUE" strings ending with NULL; L->empty
 * when absent) and cwd. 0 or -1. */
int sc_process(struct loader *L, const yaml_node_t *map, struct scenario_command *command,
	       char ***env, size_t *nenv, char **cwd);
/* load.metrics (scenario_metrics.c), n its list. */
int sc_metrics(struct loader *L, const yaml_node_t *n, struct scenario_load *l);

#endif /* WPERF_SCENARIO_INTERNAL_H */
