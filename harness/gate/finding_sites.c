/* SPDX-License-Identifier: MIT */
#include "harness/gate/finding_sites.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/report/report.h"
#include "core/gate/runset.h"
#include "harness/base/output.h"

/* Frames of a stack told, innermost first. A user stack needs more: a wait
 * starts in the C library (__futex_abstimed_wait_common <-
 * __pthread_cond_wait_common <- pthread_cond_wait) before it reaches the
 * program's own frame, which is what a developer reads the site for. */
#define SITE_FRAMES_USER   5
#define SITE_FRAMES_KERNEL 2

/* A call site of an edge in one run; weight: its share of the window. */
struct site {
	char *waiter, *waker;
	double weight;
};

/* What one run says of a finding's edge. */
struct sample {
	double share; /* of the window, summed over the edges of the identity pair */
	struct site *sites;
	size_t nsites;
};

struct target {
	struct wperf_finding *f;
	struct sample *samples; /* one per run that has the edge */
	size_t n;
};

static void sample_release(struct sample *s)
{
	for (size_t i = 0; i < s->nsites; i++) {
		free(s->sites[i].waiter);
		free(s->sites[i].waker);
	}
	free(s->sites);
	memset(s, 0, sizeof(*s));
}

static int wants_sites(const struct wperf_finding *f)
{
	if (f->nsites)
		return 0;
	if (f->kind == WPERF_FINDING_EDGE)
		return f->worse && f->level >= WPERF_LEVEL_WARN && f->from && f->to;
	return f->kind == WPERF_FINDING_VERTEX && f->from && f->to;
}

/* ---- one report ---- */

static json_object *member(json_object *o, const char *key, enum json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* The first SITE_FRAMES_USER (or _KERNEL) frames of stack (a JSON array of
 * strings, or null), past the scheduler's when kernel, " <- " between them,
 * into a new *out (NULL: no stack). */
static int stack_text(json_object *stack, int kernel, char **out)
{
	struct wperf_buf b = {0};
	size_t n = stack ? json_object_array_length(stack) : 0, told = 0;
	size_t most = kernel ? SITE_FRAMES_KERNEL : SITE_FRAMES_USER;
	int e = 0;

	*out = NULL;
	for (size_t i = 0; i < n && told < most && !e; i++) {
		json_object *f = json_object_array_get_idx(stack, i);
		const char *frame = json_object_get_string(f);

		if (!json_object_is_type(f, json_type_string) || !frame[0] ||
		    (kernel && !told && wperf_report_scheduler_frame(frame)))
			continue;
		e = wperf_buf_printf(&b, "%s%s", told++ ? " <- " : "", frame);
	}
	if (!e && b.len)
		e = wperf_buf_append(&b, "", 1);
	if (!e && b.len)
		*out = (char *)b.data;
	else
		wperf_buf_release(&b);
	return e;
}

/* The user stack, else the kernel's. */
static int where(json_object *site, const char *user, const char *kernel, char **out)
{
	json_object *u = member(site, user, json_type_array);

	if (u && json_object_array_length(u))
		return stack_text(u, 0, out);
	return stack_text(member(site, kernel, json_type_array), 1, out);
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The call sites of report edge e, whose share of the window is share, added
 * to s (the same site of another edge of the pair adds up). */
static int add_sites(struct sample *s, json_object *e, double share)
{
	json_object *sites = member(e, "call_sites", json_type_array);
	size_t n = sites ? json_object_array_length(sites) : 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		json_object *site = json_object_array_get_idx(sites, i), *w;
		struct site x = {0};
		size_t k = 0;
		void *grown;

		if (!json_object_is_type(site, json_type_object) ||
		    !json_object_object_get_ex(site, "share", &w))
			continue;
		x.weight = json_object_get_double(w) * share;
		ret = where(site, "waiter_user", "waiter_kernel", &x.waiter);
		ret = ret ? ret : where(site, "waker_user", "waker_kernel", &x.waker);
		while (!ret && k < s->nsites &&
		       !(same(s->sites[k].waiter, x.waiter) && same(s->sites[k].waker, x.waker)))
			k++;
		if (ret || (!x.waiter && !x.waker)) {
			/* no stack on either side: nothing to tell */
		} else if (k < s->nsites) {
			s->sites[k].weight += x.weight;
		} else if ((grown = realloc(s->sites, (s->nsites + 1) * sizeof(*s->sites)))) {
			s->sites = grown;
			s->sites[s->nsites++] = x;
			continue;
		} else {
			ret = -ENOMEM;
		}
		free(x.waiter);
		free(x.waker);
	}
	return ret;
}

/* The identities of the report's vertices, by id, into a new *ids. */
static int identities(json_object *report, const char *file, char ***ids, size_t *n,
		      struct wperf_error *err)
{
	json_object *v = member(report, "vertices", json_type_array);
	size_t count = v ? json_object_array_length(v) : 0;

	*n = 0;
	if (!v)
		return wperf_error_set(err, -EINVAL, "%s: vertices: expected an array", file);
	if (!(*ids = calloc(count + 1, sizeof(**ids))))
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
	for (size_t i = 0; i < count; i++) {
		json_object *x = json_object_array_get_idx(v, i), *id;
		json_object *identity = member(x, "identity", json_type_string);

		id = member(x, "id", json_type_int);
		if (!identity || !id || json_object_get_int64(id) != (int64_t)i)
			return wperf_error_set(err, -EINVAL,
					       "%s: vertices[%zu]: expected an object with \"id\" "
					       "%zu and an \"identity\"",
					       file, i, i);
		if (!((*ids)[i] = wperf_identity_dup(json_object_get_string(identity))))
			return wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
		(*n)++;
	}
	return 0;
}

/* The JSON of text, the contents of file, into *out. */
static int parse(const struct wperf_buf *text, const char *file, json_object **out,
		 struct wperf_error *err)
{
	struct json_tokener *tok = json_tokener_new();

	if (!tok)
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
	*out = text->len <= INT_MAX
		   ? json_tokener_parse_ex(tok, (const char *)text->data, (int)text->len)
		   : NULL;
	if (!*out || !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		wperf_error_set(err, -EINVAL, "%s: byte %zu: not a JSON report: %s", file,
				json_tokener_get_parse_end(tok),
				json_tokener_error_desc(json_tokener_get_error(tok)));
	}
	json_tokener_free(tok);
	return *out ? 0 : -EINVAL;
}

/* The samples of report file for each target, appended to them. */
static int read_run(const char *file, struct target *t, size_t nt, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	json_object *report = NULL, *edges;
	struct sample *now = calloc(nt + 1, sizeof(*now));
	char **ids = NULL;
	size_t nids = 0, nedges;
	int ret = now ? output_read_all(file, &text, err)
		      : wperf_error_set(err, -ENOMEM, "%s: out of memory", file);

	if (!ret)
		ret = parse(&text, file, &report, err);
	if (!ret)
		ret = identities(report, file, &ids, &nids, err);
	edges = report ? member(report, "edges", json_type_array) : NULL;
	if (!ret && !edges)
		ret = wperf_error_set(err, -EINVAL, "%s: edges: expected an array", file);
	nedges = ret ? 0 : json_object_array_length(edges);
	for (size_t i = 0; i < nedges && !ret; i++) {
		json_object *e = json_object_array_get_idx(edges, i);
		json_object *from = member(e, "from", json_type_int),
			    *to = member(e, "to", json_type_int);
		json_object *share = member(e, "share", json_type_double);
		int64_t a = from ? json_object_get_int64(from) : -1,
			b = to ? json_object_get_int64(to) : -1;

		if (!share)
			share = member(e, "share", json_type_int);
		if (a < 0 || b < 0 || (size_t)a >= nids || (size_t)b >= nids || !share) {
			ret = wperf_error_set(err, -EINVAL,
					      "%s: edges[%zu]: expected \"from\" and \"to\" of the "
					      "vertices, and a \"share\"",
					      file, i);
			break;
		}
		for (size_t k = 0; k < nt && !ret; k++) {
			if (strcmp(ids[a], t[k].f->from) || strcmp(ids[b], t[k].f->to))
				continue;
			now[k].share += json_object_get_double(share);
			if (add_sites(&now[k], e, json_object_get_double(share)))
				ret = wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
		}
	}
	for (size_t k = 0; k < nt && !ret; k++) {
		if (now[k].share <= 0)
			continue;
		void *grown = realloc(t[k].samples, (t[k].n + 1) * sizeof(*t[k].samples));

		if (!grown) {
			ret = wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
			break;
		}
		t[k].samples = grown;
		t[k].samples[t[k].n++] = now[k];
		now[k] = (struct sample){0};
	}
	for (size_t k = 0; now && k < nt; k++)
		sample_release(&now[k]);
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	free(now);
	json_object_put(report);
	wperf_buf_release(&text);
	return ret;
}

/* ---- the runs ---- */

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;

	return (a->share > b->share) - (a->share < b->share);
}

static int cmp_site(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	return (a->weight < b->weight) - (a->weight > b->weight); /* heaviest first */
}

/* The sites of the median run of t into its finding. */
static int take_median(struct target *t)
{
	struct sample *m;
	size_t n;

	if (!t->n)
		return 0;
	qsort(t->samples, t->n, sizeof(*t->samples), cmp_sample);
	m = &t->samples[(t->n - 1) / 2];
	n = m->nsites < FINDING_SITES_MAX ? m->nsites : FINDING_SITES_MAX;
	if (!n)
		return 0; /* qsort is not for a NULL array, even of none */
	qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_site);
	if (!(t->f->sites = calloc(n, sizeof(*t->f->sites))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* the finding takes the strings */
		t->f->sites[i] = (struct wperf_site){m->sites[i].waiter, m->sites[i].waker,
						     m->sites[i].weight / m->share};
		m->sites[i].waiter = m->sites[i].waker = NULL;
	}
	t->f->nsites = n;
	return 0;
}

/* Is name a run's folder, a number from 1? */
static int run_number(const char *name, unsigned long *n)
{
	char *end;

	if (name[0] < '1' || name[0] > '9')
		return 0;
	*n = strtoul(name, &end, 10);
	return *end == '\0';
}

static int cmp_ulong(const void *pa, const void *pb)
{
	const unsigned long *a = pa, *b = pb;

	return (*a > *b) - (*a < *b);
}

/* The numbers of dir/runs/N, in order, into a new *runs. */
static int list_runs(const char *dir, unsigned long **runs, size_t *n, struct wperf_error *err)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *runs_dir;
	int ret = 0;

	*runs = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/runs", dir);
	if (!(runs_dir = opendir(path)))
		return wperf_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while (!ret && (d = readdir(runs_dir))) {
		unsigned long number;
		void *grown;

		if (!run_number(d->d_name, &number))
			continue;
		if (!(grown = realloc(*runs, (*n + 1) * sizeof(**runs))))
			ret = wperf_error_set(err, -ENOMEM, "%s: out of memory", path);
		else
			*runs = grown, (*runs)[(*n)++] = number;
	}
	closedir(runs_dir);
	if (*n)
		qsort(*runs, *n, sizeof(**runs), cmp_ulong);
	return ret;
}

int finding_sites_fill(const char *dir, struct wperf_verdict *v, struct wperf_error *err)
{
	struct target *t = calloc(v->nfindings + 1, sizeof(*t));
	unsigned long *runs = NULL;
	size_t nt = 0, nruns = 0;
	int ret = t ? 0 : wperf_error_set(err, -ENOMEM, "out of memory");

	for (size_t i = 0; i < v->nfindings && !ret; i++)
		if (wants_sites(&v->findings[i]))
			t[nt++].f = &v->findings[i];
	if (nt)
		ret = list_runs(dir, &runs, &nruns, err);
	for (size_t i = 0; i < nruns && !ret; i++) {
		char file[PATH_MAX];

		snprintf(file, sizeof(file), "%s/runs/%lu/report.json", dir, runs[i]);
		if (access(file, F_OK) == 0)
			ret = read_run(file, t, nt, err);
	}
	for (size_t k = 0; k < nt && !ret; k++)
		if (take_median(&t[k]))
			ret = wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; t && k < nt; k++) {
		for (size_t i = 0; i < t[k].n; i++)
			sample_release(&t[k].samples[i]);
		free(t[k].samples);
	}
	free(t);
	free(runs);
	return ret;
}
