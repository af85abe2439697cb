/* SPDX-License-Identifier: MIT */
/* The scenario variables of run, ab and baseline (see cli_vars.h). */
#include "harness/cli/cli_vars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"

static int define(const char *cmd, struct cli_vars *v, int tree_relative)
{
	const char *const *args = (const char *const *)v->args.data;
	struct wperf_error err = {0};
	const char *build_dir;
	size_t n = 0;

	if (repo_config_load(&v->config, &err) < 0)
		return cli_error(cmd, "%s", err.msg);
	for (size_t i = 0; i < v->args.len / sizeof(*args); i++)
		if (repo_config_define(&v->config, args[i], &err) < 0)
			return cli_error(cmd, "%s", err.msg);
	if (!(v->defs = calloc(v->config.nvars + 1, sizeof(*v->defs))))
		return cli_error(cmd, "out of memory");
	for (size_t i = 0; i < v->config.nvars; i++)
		if (strncmp(v->config.vars[i], "BUILD_DIR=", 10))
			v->defs[n++] = v->config.vars[i];
	build_dir = repo_config_var(&v->config, "BUILD_DIR");
	if (!build_dir || !build_dir[0])
		return EXIT_OK;
	if (build_dir[0] == '/' || tree_relative)
		v->build_dir = strdup(build_dir);
	else if (asprintf(&v->build_dir, "%s/%s", v->config.root, build_dir) < 0)
		v->build_dir = NULL;
	return v->build_dir ? EXIT_OK : cli_error(cmd, "out of memory");
}

int cli_vars_define(const char *cmd, struct cli_vars *v, int tree_relative, char *const **defs,
		    const char **build_dir)
{
	int status = define(cmd, v, tree_relative);

	if (status != EXIT_OK) {
		cli_vars_release(v);
		return status;
	}
	if (defs)
		*defs = v->defs;
	if (build_dir && v->build_dir)
		*build_dir = v->build_dir;
	return EXIT_OK;
}

int cli_vars_define_looks(const char *cmd, struct cli_vars *v, struct check_looks *looks,
			  char *const **defs, const char **build_dir)
{
	int status;

	if (looks->first && looks->max && looks->max < looks->first)
		return cli_error(cmd, "--max-runs %u is below --runs %u", looks->max, looks->first);
	if ((status = cli_vars_define(cmd, v, 1, defs, build_dir)) != EXIT_OK)
		return status;
	if (looks->first && !looks->max)
		looks->max = looks->first;
	return EXIT_OK;
}

void cli_vars_release(struct cli_vars *v)
{
	wperf_buf_release(&v->args);
	repo_config_release(&v->config);
	free(v->defs);
	free(v->build_dir);
	v->defs = NULL;
	v->build_dir = NULL;
}
