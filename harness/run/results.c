/* SPDX-License-Identifier: MIT */
#include "harness/run/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "harness/run/calibrate.h"
#include "harness/base/version.h"
#include "harness/base/output.h"

/* ---- the folder ---- */

int results_make_dir(const char *dir, struct wperf_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	int e;

	if (stat(dir, &st) == 0 && !(output_is_empty_dir(dir)))
		return wperf_error_set(err, -EEXIST,
				       "%s exists and is not an empty folder: results are never "
				       "written over; choose another --results",
				       dir);
	snprintf(path, sizeof(path), "%s/runs", dir);
	e = output_make_dirs(path, err);
	snprintf(path, sizeof(path), "%s/plots", dir);
	return e ? e : output_make_dirs(path, err);
}

/* ---- the environment ---- */

static void cpu_model(char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

void results_environment(struct wperf_env *env)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(env, 0, sizeof(*env));
	if (uname(&u) == 0)
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	env->cpus = cpus > 0 ? (uint32_t)cpus : 0;
	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	snprintf(env->tool, sizeof(env->tool), "wperf-bench %s", WPERF_VERSION);
	env->calibration = calibrate_machine();
}

int results_add_run(struct results *r, struct wperf_run *run, const struct results_expect *x)
{
	struct results_expect *grown = realloc(r->expect, (r->runs.nruns + 1) * sizeof(*r->expect));

	if (!grown)
		return -ENOMEM;
	r->expect = grown;
	if (wperf_runset_add(&r->runs, run) < 0)
		return -ENOMEM;
	r->expect[r->runs.nruns - 1] = *x;
	return 0;
}

int results_write_file(const struct results *r, const char *name, const struct wperf_buf *b,
		       struct wperf_error *err)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	return output_write(path, b->data, b->len, err);
}

void results_release(struct results *r)
{
	wperf_runset_release(&r->runs);
	free(r->expect);
	r->expect = NULL;
}
