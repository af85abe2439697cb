/* SPDX-License-Identifier: MIT */
/*
 * Threads of one identity split into parts of alike ones (wPerf section 4.2,
 * "merging similar threads"), each part a vertex.
 *
 * Two threads are alike when the cosine similarity of their profiles
 * (merge_profile.c, merge_likeness.c) reaches the threshold; the parts are
 * the connected components of "alike" (single linkage), which do not depend on
 * the order of the threads. A thread with no user stack (a kernel thread, or
 * one that never blocked in the window) tells nothing: it joins the heaviest
 * part, so that kernel threads of one name stay one vertex.
 *
 * A part of a split identity is named by a function of its own stacks that no
 * other part of the identity has: "pools@a_worker". The program's own code
 * comes first (a frame in no shared library: a pool is best told by the code
 * that runs it), then the function whose stacks weigh most in the part, with
 * near ties (NAME_TIE) broken by name, so that the name holds run after run. A
 * function's name is the same on every run and machine, and across builds of
 * the same code. A part with no function of its own (all its frames are in
 * the other parts' stacks, or none has a symbol) is named by a hash of its
 * heaviest stack ("pools~1a2b3c4d") as the symbolizer writes its frames
 * (function, file and line; a library and an offset without a symbol), not
 * of their addresses in their files' paths: a base and a head are the same
 * code built in two folders, and the gate compares their vertices by name.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/merge_internal.h"
#include "core/analysis/merge_likeness.h"
#include "core/analysis/symbolize.h"

#define NAME_LEN 48 /* of a function's name in an identity */

struct split {
	const struct merge_profiles *p;
	double similar;
	struct wperf_symbolizer *sym; /* opened for the first split */
};

static uint32_t find_root(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* A function in the stacks of a part, and their weight. */
struct frame_weight {
	char name[NAME_LEN];
	uint8_t library; /* in a shared library */
	double weight;
};

/* One part of a split identity. */
struct part {
	struct wperf_buf frames; /* struct frame_weight, by name, once each */
	uint64_t heaviest;	 /* the key of its heaviest stack */
	const struct merge_use *heaviest_use;
	double heaviest_weight;
	char name[NAME_LEN + 1]; /* "@FUNCTION" or "~HASH" */
};

/* The function of frame i of a user stack of process tgid: "a_worker", not
 * "a_worker (pools.c:12)"; "pthread_cond_wait", not "pthread_cond_wait@@GLIBC_2.3.2";
 * "[pools+0x1234]" when it has no symbol. */
static void frame_name(struct split *sp, uint32_t tgid, const struct wperf_stack *s, uint32_t i,
		       struct frame_weight *out)
{
	const struct merge_file *f = merge_file_of(sp->p, tgid, s->ips[i]);
	const char *base = f && f->m->path ? strrchr(f->m->path, '/') : NULL;
	char buf[256], *cut;
	size_t len;

	/* a frame but the innermost is a return address: the call is before it */
	wperf_symbolize_user(sp->sym, tgid, i ? s->ips[i] - 1 : s->ips[i], buf, sizeof(buf));
	len = strlen(buf);
	if (len > 6 && !strcmp(buf + len - 6, " [jit]"))
		buf[len - 6] = '\0';
	else if (buf[0] != '[' && (cut = strstr(buf, " (")))
		*cut = '\0';
	if (buf[0] != '[' && (cut = strchr(buf + 1, '@')))
		*cut = '\0';
	snprintf(out->name, sizeof(out->name), "%s", buf);
	out->library = f && strstr(base ? base : f->m->path, ".so");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct frame_weight *)a)->name,
		      ((const struct frame_weight *)b)->name);
}

/* Part p's functions and heaviest stack, from the threads m[i] with part_of[i] == g. */
static int fill_part(struct split *sp, const struct merge_member *m, size_t n,
		     const uint32_t *part_of, uint32_t g, struct part *p)
{
	const struct wperf_timeline *tl = &sp->p->sl->view;
	int e = 0;

	for (size_t i = 0; i < n && !e; i++) {
		const struct merge_use *u = merge_uses_of(sp->p, m[i].entity);

		for (uint32_t k = 0; part_of[i] == g && k < sp->p->count[m[i].entity] && !e; k++) {
			const struct wperf_stack *s = wperf_trace_stack(sp->p->t, u[k].ustack, 1);
			struct frame_weight fw = {.weight = u[k].weight};

			if (u[k].weight > p->heaviest_weight ||
			    (u[k].weight == p->heaviest_weight && u[k].key < p->heaviest)) {
				p->heaviest = u[k].key;
				p->heaviest_use = &u[k];
				p->heaviest_weight = u[k].weight;
			}
			uint32_t tgid = tl->entities[u[k].entity].tgid;

			for (uint32_t j = 0; s && j < merge_stack_depth(sp->p, s, tgid) && !e;
			     j++) {
				frame_name(sp, tgid, s, j, &fw);
				e = wperf_buf_append(&p->frames, &fw, sizeof(fw));
			}
		}
	}
	p->frames.len = sizeof(struct frame_weight) *
			merge_sort_sum(p->frames.data, p->frames.len / sizeof(struct frame_weight),
				       sizeof(struct frame_weight),
				       offsetof(struct frame_weight, weight), by_name);
	return e;
}

/* Whether a part other than g has a function called like f. */
static int elsewhere(const struct part *parts, uint32_t nparts, uint32_t g,
		     const struct frame_weight *f)
{
	for (uint32_t h = 0; h < nparts; h++)
		if (h != g && bsearch(f, parts[h].frames.data,
				      parts[h].frames.len / sizeof(struct frame_weight),
				      sizeof(struct frame_weight), by_name))
			return 1;
	return 0;
}

/*
 * Weights within this share of the heaviest's are a tie. The functions of one
 * call chain are in nearly the same stacks of a part (a server's connection
 * threads: handle_one_connection, do_handle_one_connection, do_command), and
 * which of them weighs a little more changes from run to run; the name a gate
 * compares across runs must not. Among the tied, the first by name.
 */
#define NAME_TIE 0.2

/* Can function f of part g name it: a symbol that no other part has? */
static int can_name(const struct part *parts, uint32_t nparts, uint32_t g,
		    const struct frame_weight *f)
{
	return f->name[0] != '[' && !elsewhere(parts, nparts, g, f);
}

/* h with the frames of user stack id of process tgid, as the symbolizer
 * writes them, mixed in. */
static uint64_t hash_frames(struct split *sp, uint64_t h, int32_t id, uint32_t tgid)
{
	const struct wperf_stack *s =
	    id == WPERF_NO_STACK ? NULL : wperf_trace_stack(sp->p->t, id, 1);
	char buf[256];

	for (uint32_t i = 0; s && i < merge_stack_depth(sp->p, s, tgid); i++) {
		wperf_symbolize_user(sp->sym, tgid, i ? s->ips[i] - 1 : s->ips[i], buf,
				     sizeof(buf));
		h = merge_mix(h ^ merge_hash_str(buf));
	}
	return h;
}

/* The hash that names a part by use u, its heaviest: u's role and the frames
 * of its stacks (its own, then its waker's), as merge_use_frames keys them,
 * but by their names. */
static uint32_t name_hash(struct split *sp, const struct merge_use *u)
{
	uint64_t h = hash_frames(sp, merge_mix(u->role), u->ustack,
				 sp->p->sl->view.entities[u->entity].tgid);

	if (u->role == MERGE_BLOCK)
		h = u->waker ? hash_frames(sp, merge_mix(h ^ 1), u->other, u->other_tgid)
			     : merge_mix(h ^ MERGE_NO_WAKER_FRAME);
	return (uint32_t)(h >> 32);
}

/* Names part g: "@FUNCTION" by a function of its own (the program's own code
 * before a library's; the heaviest, ties by NAME_TIE), or "~HASH". */
static void name_part(struct split *sp, struct part *parts, uint32_t nparts, uint32_t g)
{
	struct part *p = &parts[g];
	const struct frame_weight *f = (const struct frame_weight *)(const void *)p->frames.data,
				  *best = NULL;
	size_t n = p->frames.len / sizeof(*f);
	uint8_t library = 1;
	double heaviest = 0;

	/* the class (own code, else a library's) and its heaviest */
	for (size_t i = 0; i < n; i++) {
		if (f[i].library > library || !can_name(parts, nparts, g, &f[i]))
			continue;
		if (f[i].library < library || f[i].weight > heaviest)
			heaviest = f[i].weight;
		library = f[i].library;
	}
	/* of its near ties, the first by name */
	for (size_t i = 0; i < n; i++)
		if (f[i].library == library && f[i].weight >= (1 - NAME_TIE) * heaviest &&
		    (!best || strcmp(f[i].name, best->name) < 0) &&
		    can_name(parts, nparts, g, &f[i]))
			best = &f[i];
	if (best)
		snprintf(p->name, sizeof(p->name), "@%s", best->name);
	else
		snprintf(p->name, sizeof(p->name), "~%08x",
			 p->heaviest_use ? name_hash(sp, p->heaviest_use) : 0);
}

/* Renames m[i] after its part, part_of[i] of nparts. */
static int name_parts(struct split *sp, struct merge_member *m, size_t n, const uint32_t *part_of,
		      uint32_t nparts)
{
	struct part *parts = calloc(nparts, sizeof(*parts));
	char base[WPERF_IDENTITY_LEN];
	int e = parts ? 0 : -ENOMEM;

	if (!e && !sp->sym)
		e = wperf_symbolizer_new(sp->p->t, &sp->sym, NULL);
	for (uint32_t g = 0; g < nparts && !e; g++)
		e = fill_part(sp, m, n, part_of, g, &parts[g]);
	for (uint32_t g = 0; g < nparts && !e; g++)
		name_part(sp, parts, nparts, g);
	snprintf(base, sizeof(base), "%s", m[0].identity);
	for (size_t i = 0; i < n && !e; i++) {
		const char *name = parts[part_of[i]].name;
		int room = (int)(sizeof(m[i].identity) - 1 - strlen(name));

		snprintf(m[i].identity, sizeof(m[i].identity), "%.*s%s", room, base, name);
	}
	for (uint32_t g = 0; parts && g < nparts; g++)
		wperf_buf_release(&parts[g].frames);
	free(parts);
	return e;
}

/*
 * part_of[i]: the part of m[i] among the parts of alike threads, for the threads
 * with stacks; UINT32_MAX for the others. Returns the number of parts.
 */
static uint32_t find_parts(const struct split *sp, const struct merge_likeness *l, size_t n,
			   uint32_t *parent, uint32_t *part_of)
{
	uint32_t nparts = 0;

	for (uint32_t i = 0; i < n; i++)
		parent[i] = i;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; l->count[i] && j < n; j++)
			if (l->count[j] && merge_likeness_cosine(l, i, j) >= sp->similar)
				parent[find_root(parent, j)] = find_root(parent, i);
	for (uint32_t i = 0; i < n; i++)
		part_of[i] = l->count[i] && find_root(parent, i) == i ? nparts++ : UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (l->count[i])
			part_of[i] = part_of[find_root(parent, i)];
	return nparts;
}

/*
 * The heaviest of nparts parts (threads m[i] in part part_of[i], UINT32_MAX for
 * none); of equal ones, the one with the smallest stack key, so that the answer
 * does not depend on the order of the threads.
 */
static int heaviest_part(const struct split *sp, const struct merge_member *m, size_t n,
			 const uint32_t *part_of, uint32_t nparts, uint32_t *out)
{
	double *weight = calloc(nparts, sizeof(*weight));
	uint64_t *least = malloc(nparts * sizeof(*least));

	if (!weight || !least) {
		free(weight);
		free(least);
		return -ENOMEM;
	}
	memset(least, 0xff, nparts * sizeof(*least));
	for (size_t i = 0; i < n; i++) {
		const struct merge_use *u = merge_uses_of(sp->p, m[i].entity);

		for (uint32_t k = 0; part_of[i] != UINT32_MAX && k < sp->p->count[m[i].entity];
		     k++) {
			weight[part_of[i]] += u[k].weight;
			least[part_of[i]] =
			    u[k].key < least[part_of[i]] ? u[k].key : least[part_of[i]];
		}
	}
	*out = 0;
	for (uint32_t g = 1; g < nparts; g++)
		if (weight[g] > weight[*out] ||
		    (weight[g] == weight[*out] && least[g] < least[*out]))
			*out = g;
	free(weight);
	free(least);
	return 0;
}

/* Splits the threads m[0, n) of one identity into parts of alike ones, and names
 * the parts when there are several. */
static int split_identity(struct split *sp, struct merge_member *m, size_t n)
{
	uint32_t *parent = calloc(n, sizeof(*parent)), *part_of = calloc(n, sizeof(*part_of));
	uint32_t nparts = 0, heaviest;
	struct merge_likeness l = {0};
	int e = parent && part_of ? merge_likeness_build(sp->p, m, n, &l) : -ENOMEM;

	if (!e)
		nparts = find_parts(sp, &l, n, parent, part_of);
	if (nparts > 1)
		e = heaviest_part(sp, m, n, part_of, nparts, &heaviest);
	if (nparts > 1 && !e) {
		for (size_t i = 0; i < n; i++) /* who has no stacks joins the heaviest part */
			part_of[i] = part_of[i] == UINT32_MAX ? heaviest : part_of[i];
		e = name_parts(sp, m, n, part_of, nparts);
	}
	merge_likeness_release(&l);
	free(parent);
	free(part_of);
	return e;
}

/* Whether m is a thread of its own: not short-lived, not a virtual thread. */
static int own_thread(const struct wperf_short_lived *sl, const struct merge_member *m)
{
	return sl->stand_in[m->entity] == m->entity && !wperf_is_virtual(sl, m->entity) &&
	       sl->view.entities[m->entity].kind == WPERF_ENTITY_THREAD;
}

/* The end of the run of members that share m[first]'s identity, up to n. */
static size_t run_end(const struct merge_member *m, size_t n, size_t first)
{
	size_t i = first + 1;

	while (i < n && !strcmp(m[i].identity, m[first].identity))
		i++;
	return i;
}

int merge_split_unlike(const struct wperf_trace *t, const struct wperf_short_lived *sl,
		       struct merge_member *m, size_t n, double similar, struct wperf_error *err)
{
	struct merge_profiles p = {0};
	struct split sp = {.p = &p, .similar = similar};
	uint8_t *profiled = calloc(sl->view.nentities + 1, 1);
	int e = profiled ? 0 : -ENOMEM;

	for (size_t first = 0, end; first < n && !e; first = end) {
		end = run_end(m, n, first);
		for (size_t i = first; end - first > 1 && i < end; i++)
			profiled[m[i].entity] = own_thread(sl, &m[i]);
	}
	if (!e)
		e = merge_profiles_build(t, sl, profiled, &p);
	for (size_t first = 0, end; first < n && !e; first = end) {
		end = run_end(m, n, first);
		if (end - first > 1 && own_thread(sl, &m[first]))
			e = split_identity(&sp, m + first, end - first);
	}
	wperf_symbolizer_free(sp.sym);
	merge_profiles_release(&p);
	free(profiled);
	/* what fails here is memory, the symbolizer's too */
	return e ? wperf_error_set(err, e, "merging threads: out of memory") : 0;
}
