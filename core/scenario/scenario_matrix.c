/* SPDX-License-Identifier: MIT */
/*
 * matrix: the parameters that expand a scenario file into variants (see
 * docs/scenarios.md). matrix: {threads: [1, 4], mode: [a, b]} gives four,
 * FILE@threads=1,mode=a to FILE@threads=4,mode=b, each named
 * SCENARIO@threads=1,mode=a in results and baselines (a name safe as a folder
 * name: values are letters, digits, '.', '_' and '-'), each seeing its
 * parameters as ${threads} and ${mode}. The file is read once here for its
 * matrix, then loaded as one scenario with the parameters defined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/scenario/scenario_internal.h"

#define MAX_PARAMS   8
#define MAX_VALUES   32
#define MAX_VARIANTS 256
#define MAX_SUFFIX   100 /* "@NAME=VALUE,...": with the name, under a folder name's 255 */
#define VALUE_CHARS  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

struct matrix {
	size_t nparams;
	const char *names[MAX_PARAMS]; /* into the document: valid while it is loaded */
	const char *values[MAX_PARAMS][MAX_VALUES];
	size_t nvalues[MAX_PARAMS];
	const yaml_node_t *node; /* matrix:, NULL without one */
	int chosen[MAX_PARAMS];	 /* the selection: a value's index, -1 for any */
};

/* One parameter: a list of distinct values, each of VALUE_CHARS. */
static int param(struct loader *L, const yaml_node_pair_t *p, struct matrix *m)
{
	const char *name = sc_key(L, p);
	const yaml_node_t *list = wperf_yaml_node(&L->y, p->value);
	const yaml_node_item_t *items;
	size_t k, i = m->nparams;
	char got[64];

	wperf_doc_path_key(&L->y.path, name);
	if (!scenario_var_name_ok(name, strlen(name)) || !strcmp(name, "SCENARIO_DIR") ||
	    !strcmp(name, "RESULTS_DIR") || !strcmp(name, "BUILD_DIR") || !strcmp(name, "DURATION"))
		return wperf_yaml_fail(&L->y, wperf_yaml_node(&L->y, p->key),
				       "expected a variable's name ([A-Za-z_][A-Za-z0-9_]*, not a "
				       "built-in one)");
	if (wperf_yaml_list(&L->y, list, &items, &k) < 0)
		return -1;
	if (!k || k > MAX_VALUES)
		return wperf_yaml_fail(&L->y, list, "expected 1 to %d values, found %zu",
				       MAX_VALUES, k);
	m->names[i] = name;
	for (m->nvalues[i] = 0; m->nvalues[i] < k; m->nvalues[i]++) {
		const yaml_node_t *v = wperf_yaml_node(&L->y, items[m->nvalues[i]]);
		const char *s =
		    v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";

		size_t at = wperf_doc_path_index(&L->y.path, m->nvalues[i]);

		if (!*s || strspn(s, VALUE_CHARS) != strlen(s) || strlen(s) > 32)
			return wperf_yaml_fail(&L->y, v,
					       "expected a value of 1 to 32 letters, digits, '.', "
					       "'_' or '-' (it names folders), found %s",
					       wperf_yaml_describe(v, got, sizeof(got)));
		for (size_t j = 0; j < m->nvalues[i]; j++)
			if (!strcmp(m->values[i][j], s))
				return wperf_yaml_fail(&L->y, v, "%s is already a value of %s", s,
						       name);
		m->values[i][m->nvalues[i]] = s;
		wperf_doc_path_pop(&L->y.path, at);
	}
	m->nparams++;
	return 0;
}

/* The limits that span parameters: how many variants, how long their names. */
static int matrix_size(struct loader *L, struct matrix *m)
{
	size_t variants = 1, suffix = 1;

	for (size_t i = 0; i < m->nparams; i++) {
		size_t longest = 0;

		for (size_t j = 0; j < m->nvalues[i]; j++)
			if (strlen(m->values[i][j]) > longest)
				longest = strlen(m->values[i][j]);
		variants *= m->nvalues[i];
		suffix += strlen(m->names[i]) + longest + 2;
	}
	if (variants > MAX_VARIANTS)
		return wperf_yaml_fail(&L->y, m->node, "%zu variants: at most %d", variants,
				       MAX_VARIANTS);
	if (suffix > MAX_SUFFIX)
		return wperf_yaml_fail(&L->y, m->node,
				       "the variants' names would be too long (@NAME=VALUE,... "
				       "takes at most %d bytes)",
				       MAX_SUFFIX);
	return 0;
}

/* matrix: of the loaded document, if any. */
static int read_matrix(struct loader *L, struct matrix *m)
{
	const yaml_node_t *root = wperf_yaml_root(&L->y), *v;
	const yaml_node_pair_t *p;
	size_t top;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < MAX_PARAMS; i++)
		m->chosen[i] = -1;
	if (!root || root->type != YAML_MAPPING_NODE ||
	    !(v = wperf_yaml_lookup(&L->y, root, "matrix")))
		return 0; /* the scenario's own reading says what is wrong */
	m->node = v;
	top = wperf_doc_path_key(&L->y.path, "matrix");
	if (wperf_yaml_keys(&L->y, v, NULL, 0, 0, NULL) < 0)
		return -1;
	p = v->data.mapping.pairs.start;
	if (v->data.mapping.pairs.top == p || v->data.mapping.pairs.top - p > MAX_PARAMS)
		return wperf_yaml_fail(&L->y, v, "expected 1 to %d parameters, found %zu",
				       MAX_PARAMS, (size_t)(v->data.mapping.pairs.top - p));
	for (; p < v->data.mapping.pairs.top; p++) {
		size_t saved = L->y.path.len;

		if (param(L, p, m) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, saved);
	}
	if (matrix_size(L, m) < 0)
		return -1;
	wperf_doc_path_pop(&L->y.path, top);
	return 0;
}

/* ---- the selection: FILE@NAME=VALUE,... ---- */

/* path's file and selection: the text after the last '@', when path itself
 * is not a file. */
static void split(const char *path, char *file, size_t size, const char **sel)
{
	const char *at = strrchr(path, '@');
	struct stat st;

	*sel = NULL;
	snprintf(file, size, "%s", path);
	if (!at || strchr(at, '/') || stat(path, &st) == 0)
		return;
	snprintf(file, size, "%.*s", (int)(at - path), path);
	*sel = at + 1;
}

/* m->chosen from sel (NULL: none), each NAME=VALUE a parameter and one of its values. */
static int select_variants(struct loader *L, struct matrix *m, const char *sel)
{
	char copy[256], *item, *save = NULL;

	if (!sel)
		return 0;
	if (!m->nparams)
		return wperf_error_set(L->err, -EINVAL,
				       "%s: @%s selects a variant, but the file has no matrix",
				       L->file, sel);
	snprintf(copy, sizeof(copy), "%s", sel);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		size_t i = 0, j = 0;

		if (eq)
			*eq = '\0';
		while (i < m->nparams && strcmp(m->names[i], item))
			i++;
		if (!eq || i == m->nparams)
			return wperf_error_set(L->err, -EINVAL,
					       "%s@%s: %s is not NAME=VALUE of a parameter of the "
					       "matrix",
					       L->file, sel, item);
		while (j < m->nvalues[i] && strcmp(m->values[i][j], eq + 1))
			j++;
		if (j == m->nvalues[i])
			return wperf_error_set(L->err, -EINVAL,
					       "%s@%s: %s has no value %s in the matrix", L->file,
					       sel, item, eq + 1);
		m->chosen[i] = (int)j;
	}
	return 0;
}

/* "@NAME=VALUE,..." of the variant whose values are idx, into out. */
static void suffix(const struct matrix *m, const size_t *idx, char *out, size_t size)
{
	size_t len = 0;

	for (size_t i = 0; i < m->nparams && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%c%s=%s", i ? ',' : '@',
					m->names[i], m->values[i][idx[i]]);
}

/* The next combination of values (the last parameter fastest) that the
 * selection allows; 0 when there is none. */
static int next(const struct matrix *m, size_t *idx, int first)
{
	for (;;) {
		int ok = 1;

		if (!first) {
			size_t i = m->nparams;

			while (i > 0 && ++idx[i - 1] == m->nvalues[i - 1])
				idx[--i] = 0;
			if (i == 0)
				return 0;
		}
		first = 0;
		for (size_t i = 0; i < m->nparams; i++)
			ok &= m->chosen[i] < 0 || (size_t)m->chosen[i] == idx[i];
		if (ok)
			return 1;
	}
}

/* Reads path's file for its matrix and the selection into *m; on success
 * the document stays loaded in L->y (release it). */
static int open_matrix(struct loader *L, const char *path, char *file, size_t size,
		       struct matrix *m)
{
	const char *sel;

	split(path, file, size, &sel);
	L->file = L->y.file = file;
	L->y.err = L->err;
	if (sc_read_document(L) < 0 || read_matrix(L, m) < 0)
		return L->err->code ? L->err->code : -EINVAL;
	return select_variants(L, m, sel) < 0 ? -EINVAL : 0;
}

/* A copy of text that s owns (freed by scenario_free); NULL when out of memory. */
static char *own(struct scenario *s, const char *a, const char *b)
{
	char *p = malloc(strlen(a) + strlen(b) + 1);

	if (!p || wperf_buf_append(&s->mem, &p, sizeof(p)) < 0) {
		free(p);
		return NULL;
	}
	return strcat(strcpy(p, a), b);
}

int scenario_variants(const char *path, char ***out, size_t *n, struct wperf_error *err)
{
	struct wperf_error local;
	struct loader L = {.err = err ? err : &local};
	struct wperf_buf list = {0};
	char file[4096], name[MAX_SUFFIX + 1], *v = NULL;
	size_t idx[MAX_PARAMS] = {0};
	struct matrix m = {0};
	int e = open_matrix(&L, path, file, sizeof(file), &m);

	*out = NULL;
	*n = 0;
	for (int first = 1; !e && (m.nparams ? next(&m, idx, first) : first); first = 0) {
		name[0] = '\0';
		suffix(&m, idx, name, sizeof(name));
		if (!(v = malloc(strlen(file) + strlen(name) + 1)) ||
		    wperf_buf_append(&list, &v, sizeof(v)) < 0)
			e = wperf_error_set(L.err, -ENOMEM, "out of memory");
		else
			strcat(strcpy(v, file), name);
	}
	v = NULL;
	if (!e && wperf_buf_append(&list, &v, sizeof(v)) < 0)
		e = wperf_error_set(L.err, -ENOMEM, "out of memory");
	wperf_yaml_release(&L.y);
	if (e) {
		for (size_t i = 0; i < list.len / sizeof(char *); i++)
			free(((char **)list.data)[i]);
		wperf_buf_release(&list);
		return e;
	}
	*out = (char **)list.data;
	*n = list.len / sizeof(char *) - 1;
	return 0;
}

void scenario_variants_free(char **variants)
{
	for (char **v = variants; v && *v; v++)
		free(*v);
	free(variants);
}

/* The environment of the variant: its parameters first, then vars's. */
static int variant_env(const struct matrix *m, const struct scenario_vars *vars,
		       struct wperf_buf *env, struct wperf_buf *text)
{
	size_t n = 0;
	char *p;

	for (size_t i = 0; i < m->nparams; i++)
		if (wperf_buf_printf(text, "%s=%s%c", m->names[i], m->values[i][m->chosen[i]], 0))
			return -ENOMEM;
	for (p = (char *)text->data; n < m->nparams; p += strlen(p) + 1, n++)
		if (wperf_buf_append(env, &p, sizeof(p)) < 0)
			return -ENOMEM;
	for (char *const *v = vars ? vars->env : NULL; v && *v; v++)
		if (wperf_buf_append(env, v, sizeof(*v)) < 0)
			return -ENOMEM;
	p = NULL;
	return wperf_buf_append(env, &p, sizeof(p)) < 0 ? -ENOMEM : 0;
}

/* Every parameter must have its value: a variant is one scenario. */
static int whole_selection(struct loader *L, const struct matrix *m)
{
	for (size_t i = 0; i < m->nparams; i++)
		if (m->chosen[i] < 0) {
			wperf_doc_path_key(&L->y.path, "matrix");
			return wperf_yaml_fail(
			    &L->y, m->node,
			    "a scenario with a matrix is run as its variants: "
			    "name one, as %s@%s=%s,... (a value for each "
			    "parameter; wperf-bench run and check-perf run each)",
			    L->file, m->names[0], m->values[0][0]);
		}
	return 0;
}

int scenario_load(const char *path, const struct scenario_vars *vars, struct scenario **out,
		  struct wperf_error *err)
{
	struct wperf_error local;
	struct loader L = {.err = err ? err : &local};
	struct wperf_buf env = {0}, text = {0};
	struct scenario_vars with = vars ? *vars : (struct scenario_vars){0};
	char file[4096], name[MAX_SUFFIX + 1] = "";
	size_t idx[MAX_PARAMS];
	struct matrix m = {0};
	int e = open_matrix(&L, path, file, sizeof(file), &m);

	*out = NULL;
	e = e ? e : whole_selection(&L, &m) < 0 ? -EINVAL : 0;
	for (size_t i = 0; i < m.nparams; i++)
		idx[i] = (size_t)m.chosen[i];
	if (!e && m.nparams) {
		suffix(&m, idx, name, sizeof(name));
		if (variant_env(&m, vars, &env, &text) < 0)
			e = wperf_error_set(L.err, -ENOMEM, "out of memory");
		with.env = (char *const *)env.data;
	}
	wperf_yaml_release(&L.y);
	e = e ? e : sc_load_file(file, &with, out, err);
	if (!e && m.nparams &&
	    (!((*out)->name = own(*out, (*out)->name, name)) ||
	     !((*out)->path = own(*out, path, ""))))
		e = wperf_error_set(L.err, -ENOMEM, "out of memory");
	if (e && *out) {
		scenario_free(*out);
		*out = NULL;
	}
	wperf_buf_release(&env);
	wperf_buf_release(&text);
	return e;
}
