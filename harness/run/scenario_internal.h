/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the scenario loader share: scenario_yaml.c reads the file
 * and positions errors, scenario_values.c turns YAML nodes into checked C
 * values, scenario.c and scenario_services.c know the schema and walk it.
 *
 * Every function that can fail returns 0 or -1; on -1, L->err holds the whole
 * message ("FILE:LINE:COL: PATH: WHAT") and the load stops there.
 */
#ifndef WPERF_SCENARIO_INTERNAL_H
#define WPERF_SCENARIO_INTERNAL_H

#include <stddef.h>
#include <yaml.h>

#include "harness/run/scenario.h"

#define SC_PATH_MAX    256 /* longer key paths are cut; messages are 512 bytes anyway */
#define SC_MAX_SECONDS 1e6 /* any duration: over 11 days is a typo */

struct loader {
	const char *file; /* as given, for messages */
	const struct scenario_vars *vars;
	struct scenario *s;
	struct wperf_error *err;
	yaml_document_t doc;
	int have_doc;
	char path[SC_PATH_MAX]; /* the key path being read, e.g. "services.zk.ready" */
	size_t pathlen;
	struct wperf_buf tmp; /* scratch for variable expansion */
	char duration[32];    /* ${DURATION}; "" while load.duration is unknown */
	size_t bytes;	      /* allocated so far, against SC_MAX_BYTES */
	char **empty;	      /* {NULL}: every list that was not given */
};

/* Reading the file into L->doc (scenario_yaml.c). */
int sc_read_document(struct loader *L);

/* Errors. sc_fail puts the position of node at and the current path first. */
int sc_fail(struct loader *L, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sc_fail_mark(struct loader *L, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sc_oom(struct loader *L);
/* s (n bytes) quoted and escaped into buf, cut to about 40 characters. */
void sc_quote(char *buf, size_t size, const char *s, size_t n);
/* A short description of a node for "got ...": "abc" quoted, null, a list, a mapping. */
const char *sc_describe(const yaml_node_t *n, char *buf, size_t size);

/* Memory owned by the scenario; NULL (with the error set) past the size limit. */
void *sc_alloc(struct loader *L, const yaml_node_t *at, size_t n);
char *sc_strndup(struct loader *L, const yaml_node_t *at, const char *p, size_t n);

/* The key path: push returns the length to give back to sc_path_pop. */
size_t sc_path_key(struct loader *L, const char *key);
size_t sc_path_index(struct loader *L, size_t i);
static inline void sc_path_pop(struct loader *L, size_t len)
{
	L->pathlen = len;
	L->path[len] = '\0';
}

/* Nodes. */
yaml_node_t *sc_node(struct loader *L, int id);
int sc_is_null(const yaml_node_t *n);
int sc_mapping(struct loader *L, const yaml_node_t *n);	 /* fails unless a mapping */
int sc_sequence(struct loader *L, const yaml_node_t *n); /* fails unless a list */
/* Checks a mapping's keys: strings, each once, each in allowed (NULL: any). */
int sc_check_keys(struct loader *L, const yaml_node_t *map, const char *const *allowed);
/* Fails, at the mapping, when one of the NULL-terminated required keys is missing. */
int sc_require(struct loader *L, const yaml_node_t *map, const char *const *required);
/* The value of key in map (its keys checked), or NULL. */
yaml_node_t *sc_lookup(struct loader *L, const yaml_node_t *map, const char *key);
/* The key of a mapping pair, as text (keys are checked scalars). */
static inline const char *sc_key(struct loader *L, const yaml_node_pair_t *p)
{
	return (const char *)sc_node(L, p->key)->data.scalar.value;
}

/* [A-Za-z_][A-Za-z0-9_]* (len bytes of p, at most 128): a variable's name. */
int sc_is_var_name(const char *p, size_t len);

/* Scalars. */
#define SC_NONEMPTY 1 /* an empty string is an error */
#define SC_RAW	    2 /* no ${VARIABLE} expansion */

struct sc_range {
	double min, max;
	int min_open, max_open; /* (min, ...] rather than [min, ...] */
};

extern const struct sc_range sc_seconds_pos;  /* (0, 1e6] */
extern const struct sc_range sc_seconds;      /* [0, 1e6] */
extern const struct sc_range sc_share;	      /* (0, 1] */
extern const struct sc_range sc_signed_share; /* [-1, 1] */
extern const struct sc_range sc_relative;     /* (0, 100] */

int sc_string(struct loader *L, const yaml_node_t *n, int flags, char **out);
int sc_number(struct loader *L, const yaml_node_t *n, const struct sc_range *r, double *out);
int sc_integer(struct loader *L, const yaml_node_t *n, long long min, long long max,
	       long long *out);
int sc_bool(struct loader *L, const yaml_node_t *n, int *out);
/* A string that compiles as a POSIX extended regex with at least min_groups groups. */
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
		  const struct sc_range *r, double *out);
int sc_get_integer(struct loader *L, const yaml_node_t *map, const char *key, long long min,
		   long long max, long long *out);
int sc_get_bool(struct loader *L, const yaml_node_t *map, const char *key, int *out);
int sc_get_regex(struct loader *L, const yaml_node_t *map, const char *key, size_t min_groups,
		 char **out);
int sc_get_strings(struct loader *L, const yaml_node_t *map, const char *key, int flags,
		   int nonempty, char ***out, size_t *count);

/* Pushes key, runs the statement, pops: for values read without sc_get_*. */
#define AT_KEY(L, key, stmt)                                                                       \
	do {                                                                                       \
		size_t saved_ = sc_path_key(L, key);                                               \
		if (stmt)                                                                          \
			return -1;                                                                 \
		sc_path_pop(L, saved_);                                                            \
	} while (0)

/* The schema's parts in scenario_services.c. */
int sc_command(struct loader *L, const yaml_node_t *n, struct scenario_command *c);
/* The list of commands under key in root (setup, teardown), if any. */
int sc_commands(struct loader *L, const yaml_node_t *root, const char *key,
		struct scenario_command **out, size_t *count);
int sc_services(struct loader *L, const yaml_node_t *root);

#endif /* WPERF_SCENARIO_INTERNAL_H */
