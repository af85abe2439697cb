/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's values: YAML scalars and lists turned into checked C
 * strings, numbers, booleans and regexes, with ${VARIABLES} expanded, and
 * errors that say what was expected and what was found.
 *
 * Regexes are compiled once here to check them, and bounded first: glibc's
 * regcomp exhausts memory on nested counted repetitions and overflows the
 * stack on deeply nested groups.
 */
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario/scenario_internal.h"

#define SC_MAX_VAR	    128	 /* length of a ${NAME} */
#define SC_REGEX_MAX_COST   2000 /* elements once counted repetitions are expanded */
#define SC_REGEX_MAX_DEPTH  32	 /* nested groups */
#define SC_REGEX_MAX_GROUPS 100
#define STR_(x)		    #x
#define STR(x)		    STR_(x)

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

int scenario_var_name_ok(const char *p, size_t len)
{
	static const char first[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
	static const char rest[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";

	return len > 0 && len <= SC_MAX_VAR && p[0] && strchr(first, p[0]) &&
	       strspn(p, rest) >= len;
}

/* What an undefined built-in variable needs, for its error ("" for others). */
static const char *undefined_hint(const char *name)
{
	if (!strcmp(name, "DURATION"))
		return " (load.duration is not set)";
	if (!strcmp(name, "BUILD_DIR"))
		return " (the folder of the scenario's built programs: give --build-dir DIR; "
		       "it is the program's own folder only for a wperf-bench built by make "
		       "in a source tree)";
	return "";
}

/* Expands ${NAME} and $$ in s into L->tmp (NUL-terminated). */
static int expand(struct loader *L, const yaml_node_t *n, const char *s)
{
	wperf_buf_clear(&L->tmp);
	for (const char *p = s; *p;) {
		const char *close, *value;
		char name[SC_MAX_VAR + 1];
		size_t len;
		int r;

		if (p[0] != '$' || (p[1] != '$' && p[1] != '{')) {
			len = strcspn(p + 1, "$") + 1;
			r = wperf_buf_append(&L->tmp, p, len);
			p += len;
		} else if (p[1] == '$') {
			r = wperf_buf_append(&L->tmp, "$", 1);
			p += 2;
		} else {
			close = strchr(p + 2, '}');
			if (!close)
				return wperf_yaml_fail(
				    &L->y, n, "unterminated ${ (write $$ for a literal $)");
			len = close - (p + 2);
			if (!scenario_var_name_ok(p + 2, len))
				return wperf_yaml_fail(&L->y, n, "bad variable name ${%.*s}",
						       (int)(len > 40 ? 40 : len), p + 2);
			memcpy(name, p + 2, len);
			name[len] = '\0';
			value = variable(L, name);
			if (!value)
				return wperf_yaml_fail(&L->y, n, "undefined variable ${%s}%s", name,
						       undefined_hint(name));
			r = wperf_buf_append(&L->tmp, value, strlen(value));
			p = close + 1;
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

/*
 * Why re is too costly for glibc's regcomp (the message), or NULL. Its compile time and
 * memory grow with the number of elements once counted repetitions are
 * expanded (((a{100}){100}){100} is a million), faster than linearly with
 * stars and groups (20000 bytes of a*a*... take 800 MB), exponentially with
 * repetitions in a row (a+++...), and its parser recurses per nested group.
 * So the regex is scanned first, its elements counted on the safe side;
 * regcomp has the last word on the syntax.
 */
static const char *regex_too_costly(const char *re)
{
	uint64_t stack[SC_REGEX_MAX_DEPTH], cur = 0, last = 0;
	const uint64_t cap = SC_REGEX_MAX_COST + 1;
	int depth = 0, groups = 0, repeated = 0;

	for (const char *p = re; *p; p++) {
		uint64_t atom = 1, copies = 0;

		if (*p == '\\') {
			p += p[1] != '\0';
		} else if (*p == '[') {
			/* A bracket expression: a ']' first is a member; so is [:alpha:]. */
			const char *q = p + 1;

			q += *q == '^';
			q += *q == ']';
			while (*q && *q != ']') {
				char close[3] = {q[1], ']', '\0'};
				const char *e;

				if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=') &&
				    (e = strstr(q + 2, close)))
					q = e + 2;
				else
					q++;
			}
			p = *q ? q : q - 1;
		} else if (*p == '(') {
			if (depth == SC_REGEX_MAX_DEPTH)
				return "regex too complex: groups nested deeper than " STR(
				    SC_REGEX_MAX_DEPTH);
			if (++groups > SC_REGEX_MAX_GROUPS)
				return "regex too complex: more than " STR(
				    SC_REGEX_MAX_GROUPS) " groups";
			stack[depth++] = cur;
			cur = last = 0;
			repeated = 0;
			continue;
		} else if (*p == ')' && depth > 0) {
			atom = cur + 1;
			cur = stack[--depth];
		} else if (*p == '*' || *p == '?' || *p == '+') {
			copies = *p == '+' ? 2 : 1; /* a+ is aa*; a* and a? add a node */
		} else if (*p == '{' && ((p[1] >= '0' && p[1] <= '9') || p[1] == ',')) {
			/* {m}, {m,}, {,n} or {m,n}: max(m, n) + 1 copies at most */
			unsigned long lo, hi = 0;
			char *end;

			lo = strtoul(p + 1, &end, 10);
			if (*end == ',')
				hi = strtoul(end + 1, &end, 10);
			if (*end == '}') {
				hi = lo > hi ? lo : hi;
				copies = hi >= cap ? cap : hi + 1;
				p = end;
			}
		}
		if (copies) {
			if (repeated)
				return "bad regex: two repetitions in a row, like a** (POSIX has "
				       "no lazy .*?)";
			/* The last atom, counted once already, now counts copies times. */
			cur -= last;
			last = last * copies + 1 > cap ? cap : last * copies + 1;
			cur += last;
		} else {
			last = *p == '|' ? 0 : atom; /* nothing to repeat after a '|' */
			cur += atom;
		}
		repeated = copies != 0;
		if (cur >= cap)
			return "regex too complex: over " STR(
			    SC_REGEX_MAX_COST) " elements once "
					       "repetitions are expanded";
	}
	return NULL;
}

int sc_regex(struct loader *L, const yaml_node_t *n, size_t min_groups, char **out)
{
	const char *costly;
	regex_t re;
	char msg[128];
	size_t groups;
	int e;

	if (sc_string(L, n, SC_NONEMPTY, out) < 0)
		return -1;
	costly = regex_too_costly(*out);
	if (costly)
		return wperf_yaml_fail(&L->y, n, "%s", costly);
	e = regcomp(&re, *out, REG_EXTENDED);
	if (e) {
		regerror(e, &re, msg, sizeof(msg));
		return wperf_yaml_fail(&L->y, n, "bad regex: %s", msg);
	}
	groups = re.re_nsub;
	regfree(&re);
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
