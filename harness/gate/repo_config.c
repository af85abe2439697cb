/* SPDX-License-Identifier: MIT */
#include "harness/gate/repo_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/scenario/scenario.h"
#include "core/util/doc_yaml.h"
#include "harness/base/output.h"
#include "harness/git/git_repo.h"

static const struct wperf_yaml_limits limits = {"a .wperf-bench.yaml", 8, 0};

enum { K_SCENARIOS, K_BASELINES, K_TAG, K_RESULTS, K_VARIABLES, NKEYS };
static const char *const keys[NKEYS] = {"scenarios", "baselines", "tag", "results", "variables"};

/* A path relative to the root that stays under it, into a new *out. */
static int read_path(struct wperf_yaml *y, const yaml_node_t *n, char **out)
{
	const char *s;
	size_t len;
	int e = wperf_yaml_string(y, n, WPERF_YAML_NONEMPTY, &s, &len);

	if (e)
		return e;
	if (s[0] == '/' || !strcmp(s, "..") || !strncmp(s, "../", 3) || strstr(s, "/../") ||
	    (len >= 3 && !strcmp(s + len - 3, "/..")))
		return wperf_yaml_fail(y, n,
				       "expected a path relative to the repository's root, without "
				       "'..', found \"%.60s\"",
				       s);
	return (*out = strdup(s)) ? 0 : wperf_yaml_no_memory(y);
}

static int read_scenarios(struct wperf_yaml *y, const yaml_node_t *n, struct repo_config *c)
{
	const yaml_node_item_t *items;
	size_t count;
	int e = wperf_yaml_list(y, n, &items, &count);

	if (!e && !count)
		e = wperf_yaml_fail(y, n, "expected at least one scenario file or folder");
	if (!e && !(c->scenarios = calloc(count, sizeof(*c->scenarios))))
		e = wperf_yaml_no_memory(y);
	for (size_t i = 0; i < count && !e; i++) {
		size_t back = wperf_doc_path_index(&y->path, i);

		e = read_path(y, wperf_yaml_node(y, items[i]), &c->scenarios[i]);
		wperf_doc_path_pop(&y->path, back);
		c->nscenarios += !e;
	}
	return e;
}

/* Appends "name=value" to c's variables. */
static int add_var(struct repo_config *c, const char *name, const char *value)
{
	char **grown = realloc(c->vars, (c->nvars + 2) * sizeof(*c->vars));
	size_t len = strlen(name) + strlen(value) + 2;

	if (!grown)
		return -ENOMEM;
	c->vars = grown;
	if (!(c->vars[c->nvars] = malloc(len)))
		return -ENOMEM;
	snprintf(c->vars[c->nvars], len, "%s=%s", name, value);
	c->vars[++c->nvars] = NULL;
	return 0;
}

/* Why name may not be defined; NULL when it may. */
static const char *bad_name(const char *name)
{
	if (!scenario_var_name_ok(name, strlen(name)))
		return "a name of letters, digits and '_', not starting with a digit";
	if (scenario_var_is_reserved(name))
		return "a name other than SCENARIO_DIR, RESULTS_DIR and DURATION (wperf-bench's "
		       "own)";
	return NULL;
}

static int read_variables(struct wperf_yaml *y, const yaml_node_t *n, struct repo_config *c)
{
	int e = wperf_yaml_mapping(y, n);

	e = e ? e : wperf_yaml_keys(y, n, NULL, 0, 0, NULL);

	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     !e && p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *key = wperf_yaml_node(y, p->key);
		const char *name = (const char *)key->data.scalar.value, *value, *why;
		size_t len, back = wperf_doc_path_key(&y->path, name);

		if ((why = bad_name(name)))
			e = wperf_yaml_fail(y, key, "expected %s, found \"%.60s\"", why, name);
		if (!e)
			e = wperf_yaml_string(y, wperf_yaml_node(y, p->value), 0, &value, &len);
		if (!e && add_var(c, name, value) < 0)
			e = wperf_yaml_no_memory(y);
		wperf_doc_path_pop(&y->path, back);
	}
	return e;
}

static int read_root(struct wperf_yaml *y, struct repo_config *c)
{
	yaml_node_t *root = wperf_yaml_root(y), *v[NKEYS];
	int e = wperf_yaml_mapping(y, root);
	char **strings[NKEYS] = {[K_BASELINES] = &c->baselines, [K_RESULTS] = &c->results};

	e = e ? e : wperf_yaml_keys(y, root, keys, NKEYS, 0, v);
	for (int k = 0; k < NKEYS && !e; k++) {
		size_t back;

		if (!v[k])
			continue;
		back = wperf_doc_path_key(&y->path, keys[k]);
		if (k == K_SCENARIOS)
			e = read_scenarios(y, v[k], c);
		else if (k == K_VARIABLES)
			e = read_variables(y, v[k], c);
		else if (k == K_TAG)
			e = wperf_yaml_strdup(y, v[k], WPERF_YAML_NONEMPTY, &c->tag);
		else
			e = read_path(y, v[k], strings[k]);
		wperf_doc_path_pop(&y->path, back);
	}
	return e;
}

int repo_config_parse(const char *file, const char *text, size_t len, struct repo_config *out,
		      struct wperf_error *err)
{
	struct repo_config c = {0};
	struct wperf_yaml y = {0};
	int e = wperf_yaml_load(&y, file, text, len, &limits, err);

	if (!e)
		e = read_root(&y, &c);
	wperf_yaml_release(&y);
	if (e) {
		repo_config_release(&c);
		return e;
	}
	memcpy(c.root, out->root, sizeof(c.root));
	c.found = 1;
	repo_config_release(out);
	*out = c;
	return 0;
}

int repo_config_load(struct repo_config *out, struct wperf_error *err)
{
	struct git_repo *repo = NULL;
	struct wperf_buf text = {0};
	struct wperf_error none = {0};
	char file[PATH_MAX + sizeof(REPO_CONFIG_FILE)];
	int e = 0;

	repo_config_release(out);
	if (git_repo_open(".", &repo, &none) == 0) {
		snprintf(out->root, sizeof(out->root), "%s", git_repo_workdir(repo));
		out->root[strlen(out->root) - 1] = '\0'; /* its '/' */
	} else if (!getcwd(out->root, sizeof(out->root))) {
		e = wperf_error_set(err, -errno, "the current folder: %s", strerror(errno));
	}
	git_repo_free(repo);
	if (e)
		return e;
	snprintf(file, sizeof(file), "%s" REPO_CONFIG_FILE, out->root);
	e = output_read_all(file, &text, err);
	if (!e)
		e = repo_config_parse(file, (const char *)text.data, text.len, out, err);
	wperf_buf_release(&text);
	return e == -ENOENT ? 0 : e;
}

int repo_config_define(struct repo_config *c, const char *assignment, struct wperf_error *err)
{
	const char *eq = strchr(assignment, '=');
	char name[160], *last;
	const char *why;

	if (!eq || (size_t)(eq - assignment) >= sizeof(name))
		return wperf_error_set(err, -EINVAL, "--var wants NAME=VALUE, not '%.60s'",
				       assignment);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	if ((why = bad_name(name)))
		return wperf_error_set(err, -EINVAL, "--var %s: expected %s", name, why);
	if (add_var(c, name, eq + 1) < 0)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	/* First of a name wins: the newest goes to the front. */
	last = c->vars[c->nvars - 1];
	memmove(c->vars + 1, c->vars, (c->nvars - 1) * sizeof(*c->vars));
	c->vars[0] = last;
	return 0;
}

const char *repo_config_var(const struct repo_config *c, const char *name)
{
	return scenario_vars_lookup(c->vars, name);
}

void repo_config_release(struct repo_config *c)
{
	for (size_t i = 0; i < c->nscenarios; i++)
		free(c->scenarios[i]);
	for (size_t i = 0; i < c->nvars; i++)
		free(c->vars[i]);
	free(c->scenarios);
	free(c->vars);
	free(c->baselines);
	free(c->tag);
	free(c->results);
	memset(c, 0, sizeof(*c));
}
