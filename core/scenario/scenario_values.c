/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's values: YAML scalars and lists turned into checked C
 * strings, numbers, booleans and regexes, with ${VARIABLES} expanded, and
 * errors that say what was expected and what was found.
 *
 * Regexes (PCRE2, scenario_regex.h) are compiled once here to check them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario/scenario_internal.h"
#include "core/scenario/scenario_regex.h"

#define SC_MAX_VAR 128 /* length of a ${NAME} */

const struct wperf_doc_range sc_seconds_pos = {0, SC_MAX_SECONDS, 1, 0};
const struct wperf_doc_range sc_seconds = {0, SC_MAX_SECONDS, 0, 0};
const struct wperf_doc_range sc_share = {0, 1, 1, 0};
const struct wperf_doc_range sc_signed_share = {-1, 1, 0, 0};
const struct wperf_doc_range sc_relative = {0, 100, 1, 0};

const char *scenario_vars_lookup(char *const *list, const char *name)
{
	size_t len = strlen(name);

	for (char *const *v = list; v && *v; v++)
		if (!strncmp(*v, name, len) && (*v)[len] == '=')
			return *v + len + 1;
	return NULL;
}

int scenario_var_is_reserved(const char *name)
{
	return !strcmp(name, "SCENARIO_DIR") || !strcmp(name, "RESULTS_DIR") ||
	       !strcmp(name, "DURATION");
}

/* The value of a variable, or NULL when it has none (scenario_vars' order). */
static const char *variable(struct loader *L, const char *name)
{
	const char *def;

	if (!strcmp(name, "SCENARIO_DIR"))
		return L->s->dir;
	if (!strcmp(name, "RESULTS_DIR"))
		return L->vars ? L->vars->results_dir : NULL;
	if (!strcmp(name, "DURATION"))
		return L->duration[0] ? L->duration : NULL;
	if (!L->vars)
		return NULL;
	if ((def = scenario_vars_lookup(L->vars->defs, name)))
		return def;
	if (!strcmp(name, "BUILD_DIR"))
		return L->vars->build_dir;
	return scenario_vars_lookup(L->vars->env, name);
}

/* The variables a scenario always means by ${NAME}: undefined, they are an
 * error, not text for the shell. */
static int builtin(const char *name)
{
	return scenario_var_is_reserved(name) || !strcmp(name, "BUILD_DIR");
}

/* What an undefined built-in variable needs, for its error. */
static const char *undefined_hint(const char *name)
{
	if (!strcmp(name, "DURATION"))
		return " (load.duration is not set)";
	if (!strcmp(name, "BUILD_DIR"))
		return " (the folder of the scenario's built programs: give --build-dir DIR, or "
		       "--var BUILD_DIR=DIR to check-perf; it is the program's own folder only for "
		       "a wperf-bench built by make in a source tree)";
	return "";
}

int scenario_var_name_ok(const char *p, size_t len)
{
	static const char first[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
	static const char rest[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";

	return len > 0 && len <= SC_MAX_VAR && p[0] && strchr(first, p[0]) &&
	       strspn(p, rest) >= len;
}

/*
 * Is p a ${NAME} of the scenario's: a built-in, or a variable with a value?
 * 1 with *value (NULL: a built-in that is undefined), *len, the reference's
 * length, and its name in name; 0 when p is anything else, for the shell.
 */
static int reference(struct loader *L, const char *p, const char **value, size_t *len,
		     char name[SC_MAX_VAR + 1])
{
	/* A name is short: looking further for the '}' would be quadratic. */
	const char *close =
	    p[0] == '$' && p[1] == '{' ? memchr(p + 2, '}', strnlen(p + 2, SC_MAX_VAR + 1)) : NULL;
	size_t n = close ? (size_t)(close - (p + 2)) : 0;

	if (!close || !scenario_var_name_ok(p + 2, n))
		return 0;
	memcpy(name, p + 2, n);
	name[n] = '\0';
	*len = n + 3;
	*value = variable(L, name);
	return *value || builtin(name);
}

/*
 * Expands s into L->tmp (NUL-terminated): each ${NAME} of the scenario's is
 * replaced, and \${NAME} is the text ${NAME}; everything else stays as it is
 * for the shell ($f, ${f} when the scenario has no f, $$, $(...), ${f%.c}).
 */
static int expand(struct loader *L, const yaml_node_t *n, const char *s)
{
	wperf_buf_clear(&L->tmp);
	for (const char *p = s; *p;) {
		const char *value;
		char name[SC_MAX_VAR + 1];
		size_t len;
		int r;

		if (p[0] == '\\' && reference(L, p + 1, &value, &len, name)) {
			r = wperf_buf_append(&L->tmp, p + 1, len);
			p += 1 + len;
		} else if (reference(L, p, &value, &len, name)) {
			if (!value)
				return wperf_yaml_fail(&L->y, n, "undefined variable ${%s}%s", name,
						       undefined_hint(name));
			r = wperf_buf_append(&L->tmp, value, strlen(value));
			p += len;
		} else {
			len = strcspn(p + 1, "$\\") + 1;
			r = wperf_buf_append(&L->tmp, p, len);
			p += len;
		}
		if (r < 0)
			return wperf_yaml_no_memory(&L->y);
	}
	if (wperf_buf_append(&L->tmp, "", 1) < 0)
		return wperf_yaml_no_memory(&L->y);
	return 0;
}

int sc_string(struct loader *L, const yaml_node_t *n, int flags, char **out)
{
	const char *v;
	size_t len;
	int ret = wperf_yaml_string(&L->y, n, 0, &v, &len);

	if (ret)
		return ret;
	if (!(flags & SC_RAW)) {
		if (expand(L, n, v) < 0)
			return -1;
		v = (const char *)L->tmp.data;
		len = L->tmp.len - 1;
	}
	if ((flags & SC_NONEMPTY) && len == 0)
		return wperf_yaml_fail(&L->y, n, "expected a non-empty string, found \"\"");
	*out = sc_strndup(L, n, v, len);
	return *out ? 0 : -1;
}

int sc_regex(struct loader *L, const yaml_node_t *n, size_t min_groups, char **out)
{
	struct scenario_regex *re;
	char why[256];
	unsigned groups;
	int e;

	if (sc_string(L, n, SC_NONEMPTY, out) < 0)
		return -1;
	e = scenario_regex_compile(*out, &re, why, sizeof(why));
	if (e == -ENOMEM)
		return wperf_yaml_no_memory(&L->y);
	if (e)
		return wperf_yaml_fail(&L->y, n, "bad regex: %s", why);
	groups = scenario_regex_groups(re);
	scenario_regex_free(re);
	if (groups < min_groups)
		return wperf_yaml_fail(&L->y, n,
				       "the regex needs a group around the number, like ([0-9.]+)");
	return 0;
}

int sc_strings(struct loader *L, const yaml_node_t *n, int flags, int nonempty, char ***out,
	       size_t *count)
{
	const yaml_node_item_t *items;
	size_t k;
	char **v;

	if (wperf_yaml_list(&L->y, n, &items, &k) < 0)
		return -1;
	if (nonempty && k == 0)
		return wperf_yaml_fail(&L->y, n, "expected a non-empty list, found an empty list");
	v = sc_alloc(L, n, (k + 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < k; i++) {
		size_t saved = wperf_doc_path_index(&L->y.path, i);

		if (sc_string(L, wperf_yaml_node(&L->y, items[i]), flags, &v[i]) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, saved);
	}
	v[k] = NULL;
	*out = v;
	if (count)
		*count = k;
	return 0;
}

/* ---- the same, for the value of a key ---- */

#define GET(call)                                                                                  \
	do {                                                                                       \
		const yaml_node_t *v_ = wperf_yaml_lookup(&L->y, map, key);                        \
		size_t saved_;                                                                     \
		int r_;                                                                            \
                                                                                                   \
		if (!v_)                                                                           \
			return 0;                                                                  \
		saved_ = wperf_doc_path_key(&L->y.path, key);                                      \
		r_ = (call);                                                                       \
		if (r_ == 0)                                                                       \
			wperf_doc_path_pop(&L->y.path, saved_);                                    \
		return r_;                                                                         \
	} while (0)

int sc_get_string(struct loader *L, const yaml_node_t *map, const char *key, int flags, char **out)
{
	GET(sc_string(L, v_, flags, out));
}

int sc_get_number(struct loader *L, const yaml_node_t *map, const char *key,
		  const struct wperf_doc_range *r, double *out)
{
	GET(wperf_yaml_number(&L->y, v_, r, out));
}

int sc_get_duration(struct loader *L, const yaml_node_t *map, const char *key,
		    const struct wperf_doc_range *r, double *out)
{
	GET(sc_duration(L, v_, r, out));
}

int sc_get_integer(struct loader *L, const yaml_node_t *map, const char *key, long long min,
		   long long max, long long *out)
{
	GET(wperf_yaml_integer(&L->y, v_, min, max, out));
}

int sc_get_bool(struct loader *L, const yaml_node_t *map, const char *key, int *out)
{
	GET(wperf_yaml_bool(&L->y, v_, out));
}

int sc_get_regex(struct loader *L, const yaml_node_t *map, const char *key, size_t min_groups,
		 char **out)
{
	GET(sc_regex(L, v_, min_groups, out));
}

int sc_get_strings(struct loader *L, const yaml_node_t *map, const char *key, int flags,
		   int nonempty, char ***out, size_t *count)
{
	GET(sc_strings(L, v_, flags, nonempty, out, count));
}
