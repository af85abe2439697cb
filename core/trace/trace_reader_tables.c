/* SPDX-License-Identifier: MIT */
/*
 * The table sections of a trace (META, THREADS, STACKS, MAPPINGS, KSYMS,
 * PERFMAP, STATS, STACK_COPIES; COUNTERS in trace_reader_counters.c): decoding
 * their payloads into arrays owned by the trace, and the accessors that return
 * those arrays.
 *
 * The payloads are untrusted: every read goes through a bounds-checked cursor,
 * and every count is checked against the bytes that could hold it before
 * anything is allocated for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "core/util/buf.h"
#include "core/trace/trace.h"
#include "core/trace/trace_reader_internal.h"
#include "core/util/varint.h"
#include "core/util/cmp.h"

/* Copies a uvarint-length string into the arena; returns its offset, or SIZE_MAX. */
static size_t arena_lstr(struct wperf_trace *t, struct wperf_cursor *c, size_t *len_out)
{
	uint64_t len = wperf_cur_uvarint(c);
	const uint8_t *s = wperf_cur_bytes(c, len);
	size_t off = t->arena.len;

	if (!s)
		return 0; /* the cursor has the error; the caller checks it */
	if (wperf_buf_reserve(&t->arena, len + 1))
		return SIZE_MAX;
	wperf_buf_append(&t->arena, s, len);
	wperf_buf_append(&t->arena, "", 1);
	if (len_out)
		*len_out = len;
	return off;
}

static int load_meta(struct wperf_trace *t, const struct section *s, const uint8_t *p, size_t n,
		     struct wperf_error *err)
{
	size_t i = 0;

	/* key\0value\0 pairs to the end of the payload; no count. */
	while (i < n) {
		const uint8_t *k = p + i, *kend = memchr(k, 0, n - i), *v, *vend;
		struct meta_kv *kv;

		v = kend ? kend + 1 : NULL;
		vend = v && v < p + n ? memchr(v, 0, (size_t)(p + n - v)) : NULL;
		if (!vend)
			return wperf_trace__fail_at(
			    err, -EBADMSG, t->path, "corrupt", s->off,
			    "META section, payload byte %zu: a key without a "
			    "NUL-terminated value",
			    i);
		kv = wperf_buf_push(&t->meta, sizeof(*kv));
		if (!kv)
			return -ENOMEM;
		kv->key = t->arena.len;
		if (wperf_buf_append(&t->arena, k, (size_t)(vend - k) + 1))
			return -ENOMEM;
		kv->value = kv->key + (size_t)(v - k);
		i = (size_t)(vend + 1 - p);
	}
	return 0;
}

/* Reads one row of a table into row, in its array; 0 or -ENOMEM. */
typedef int read_row_fn(struct wperf_trace *t, struct wperf_cursor *c, void *row);

/* A table of rows (size bytes each in rows, min bytes each at least in the
 * section): their count, then each row as read_row reads it. 0 or -ENOMEM. */
static int load_rows(struct wperf_trace *t, struct wperf_cursor *c, struct wperf_buf *rows,
		     size_t min, size_t size, read_row_fn *read_row)
{
	uint64_t n = wperf_cur_count(c, min);

	if (wperf_buf_reserve(rows, n * size))
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		int ret = read_row(t, c, wperf_buf_push(rows, size)); /* reserved: no NULL */

		if (ret)
			return ret;
	}
	return 0;
}

static int read_thread(struct wperf_trace *t, struct wperf_cursor *c, void *row)
{
	struct wperf_thread *th = row;
	uint64_t len;
	const uint8_t *comm;

	(void)t;
	th->tid = wperf_cur_u32(c);
	th->tgid = wperf_cur_u32(c);
	th->ppid = wperf_cur_u32(c);
	len = wperf_cur_uvarint(c);
	comm = wperf_cur_bytes(c, len);
	if (comm)
		memcpy(th->comm, comm, len < WPERF_COMM_LEN ? len : WPERF_COMM_LEN - 1);
	return 0;
}

static int read_stack(struct wperf_trace *t, struct wperf_cursor *c, void *row)
{
	struct wperf_stack *st = row;
	uint64_t ip = 0;
	uint64_t *ips;

	st->id = wperf_cur_s32(c);
	st->user = wperf_cur_u8(c) != 0;
	st->nr = wperf_cur_count32(c, 1);
	if (c->err)
		return 0;
	st->ips = AS_PTR(t->ips.len / sizeof(uint64_t));
	if (st->nr == 0)
		return 0;
	if (wperf_buf_reserve(&t->ips, st->nr * sizeof(uint64_t)))
		return -ENOMEM;
	ips = (uint64_t *)(void *)(t->ips.data + t->ips.len);
	for (uint64_t j = 0; j < st->nr; j++) {
		ip += (uint64_t)wperf_cur_svarint(c);
		ips[j] = ip;
	}
	t->ips.len += st->nr * sizeof(uint64_t);
	return 0;
}

static int read_mapping(struct wperf_trace *t, struct wperf_cursor *c, void *row)
{
	struct wperf_mapping *m = row;
	const uint8_t *bid;
	size_t path;

	m->tgid = wperf_cur_u32(c);
	m->start = wperf_cur_uvarint(c);
	m->end = wperf_cur_uvarint(c);
	m->pgoff = wperf_cur_uvarint(c);
	m->build_id_len = wperf_cur_u8(c);
	if (m->build_id_len > sizeof(m->build_id))
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
	bid = wperf_cur_bytes(c, m->build_id_len);
	if (bid)
		memcpy(m->build_id, bid, m->build_id_len);
	path = arena_lstr(t, c, NULL);
	if (path == SIZE_MAX)
		return -ENOMEM;
	m->path = AS_PTR(path);
	return 0;
}

static int read_ksym(struct wperf_trace *t, struct wperf_cursor *c, void *row)
{
	struct wperf_ksym *k = row;
	size_t name;

	k->addr = wperf_cur_le64(c);
	name = arena_lstr(t, c, NULL);
	if (name == SIZE_MAX)
		return -ENOMEM;
	k->name = AS_PTR(name);
	return 0;
}

static int read_stack_copy(struct wperf_trace *t, struct wperf_cursor *c, void *row)
{
	struct wperf_stack_copy *sc = row;
	const uint8_t *bytes;

	sc->id = wperf_cur_s32(c);
	sc->tgid = wperf_cur_u32(c);
	sc->tid = wperf_cur_u32(c);
	sc->ip = wperf_cur_uvarint(c);
	sc->base = wperf_cur_uvarint(c);
	sc->nregs = wperf_cur_count32(c, 1);
	if (sc->nregs > WPERF_COPY_REGS)
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
	for (uint32_t r = 0; r < sc->nregs && !c->err; r++)
		sc->regs[r] = wperf_cur_uvarint(c);
	sc->size = wperf_cur_count32(c, 1);
	bytes = wperf_cur_bytes(c, sc->size);
	if (!bytes)
		return 0; /* the cursor has the error */
	sc->bytes = AS_PTR(t->arena.len);
	return wperf_buf_append(&t->arena, bytes, sc->size);
}

static int load_perfmap(struct wperf_trace *t, struct wperf_cursor *c)
{
	struct wperf_perfmap *pm = wperf_buf_push(&t->perfmaps, sizeof(*pm));
	size_t text, len = 0;

	if (!pm)
		return -ENOMEM;
	pm->tgid = wperf_cur_u32(c);
	text = arena_lstr(t, c, &len);
	if (text == SIZE_MAX)
		return -ENOMEM;
	pm->text = AS_PTR(text);
	pm->len = len;
	return 0;
}

static int load_stats(struct wperf_trace *t, const struct section *s, struct wperf_cursor *c,
		      struct wperf_error *err)
{
	struct wperf_trace_stats *st = &t->stats;
	uint64_t nkinds;

	if (t->have_stats)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
					    "a second STATS section");
	t->have_stats = 1;
	st->start_ts = wperf_cur_le64(c);
	st->end_ts = wperf_cur_le64(c);
	st->ncpu = wperf_cur_count32(c, 1);
	if (c->err)
		return 0;
	if (wperf_buf_reserve(&t->lost, st->ncpu * sizeof(uint64_t)))
		return -ENOMEM;
	for (uint64_t i = 0; i < st->ncpu; i++) {
		uint64_t v = wperf_cur_uvarint(c);

		wperf_buf_append(&t->lost, &v, sizeof(v));
	}
	st->stack_lost = wperf_cur_uvarint(c);
	st->stack_fault = wperf_cur_uvarint(c);
	st->late_events = wperf_cur_uvarint(c);
	/* A writer with more kinds than we know writes more counts: keep ours. */
	nkinds = wperf_cur_count(c, 1);
	for (uint64_t k = 0; k < nkinds; k++) {
		uint64_t v = wperf_cur_uvarint(c);

		if (k < WPERF_EV_KIND_MAX)
			st->events[k] = v;
	}
	return 0;
}

/* Decodes a table section into the trace's arrays. Unknown bytes at its end are ignored. */
int wperf_trace__load_table(struct wperf_trace *t, const struct section *s, ZSTD_DCtx *dctx,
			    struct wperf_buf *scratch, struct wperf_error *err)
{
	const uint8_t *p;
	struct wperf_cursor c;
	int ret;

	ret = wperf_trace__section_payload(t, s, dctx, scratch, &p, err);
	if (ret)
		return ret;
	wperf_cursor_init(&c, p, s->raw);
	switch (s->kind) {
	case WPERF_SECTION_META:
		ret = load_meta(t, s, p, s->raw, err);
		if (ret && ret != -ENOMEM)
			return ret;
		break;
	case WPERF_SECTION_THREADS: /* 4 bytes a row at least: three one-byte ids, an empty name */
		ret = load_rows(t, &c, &t->threads, 4, sizeof(struct wperf_thread), read_thread);
		break;
	case WPERF_SECTION_STACKS: /* id, user, nr: a byte each at least */
		ret = load_rows(t, &c, &t->stacks, 3, sizeof(struct wperf_stack), read_stack);
		break;
	case WPERF_SECTION_MAPPINGS: /* tgid, start, end, pgoff, build id and path lengths */
		ret = load_rows(t, &c, &t->mappings, 6, sizeof(struct wperf_mapping), read_mapping);
		break;
	case WPERF_SECTION_KSYMS: /* u64 addr, name length */
		ret = load_rows(t, &c, &t->ksyms, 9, sizeof(struct wperf_ksym), read_ksym);
		break;
	case WPERF_SECTION_PERFMAP:
		ret = load_perfmap(t, &c);
		break;
	case WPERF_SECTION_STACK_COPIES: /* id, tgid, tid, ip, base, nregs, size */
		ret = load_rows(t, &c, &t->copies, 7, sizeof(struct wperf_stack_copy),
				read_stack_copy);
		break;
	case WPERF_SECTION_STATS:
		ret = load_stats(t, s, &c, err);
		if (ret && ret != -ENOMEM)
			return ret;
		break;
	case WPERF_SECTION_COUNTERS:
		ret = wperf_trace__load_counters(t, s, &c, err);
		if (ret && ret != -ENOMEM)
			return ret;
		break;
	}
	if (ret == -ENOMEM)
		return wperf_trace__fail_at(err, -ENOMEM, t->path, "reading", s->off,
					    "out of memory for the %s table",
					    wperf_trace__section_name(s->kind));
	if (c.err)
		return wperf_trace__table_error(t, s, p, &c, err);
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct wperf_stack *x = a, *y = b;
	const uint64_t kx[] = {x->user, wperf_key_signed(x->id)};
	const uint64_t ky[] = {y->user, wperf_key_signed(y->id)};

	return wperf_cmp_keys(kx, ky, 2);
}

/* The frames are final now: the stacks' offsets into pointers, and the
 * stacks sorted for wperf_trace_stack(). */
static void resolve_stacks(struct wperf_trace *t)
{
	struct wperf_stack *st = (struct wperf_stack *)(void *)t->stacks.data;
	const uint64_t *ips = (const uint64_t *)(void *)t->ips.data;

	for (size_t i = 0; i < t->stacks.len / sizeof(*st); i++)
		st[i].ips = st[i].nr ? ips + AS_OFF(st[i].ips) : NULL;
	if (t->stacks.len)
		qsort(st, t->stacks.len / sizeof(*st), sizeof(*st), cmp_stack);
}

/* arena + off. An arena that holds nothing (copies of no bytes) has no
 * pointer to add an offset to: NULL. */
static const char *arena_at(const char *arena, const void *off)
{
	return arena ? arena + AS_OFF(off) : NULL;
}

/* The arenas are final now: turn the offsets in the tables into pointers. */
void wperf_trace__resolve_pointers(struct wperf_trace *t)
{
	struct wperf_mapping *m = (struct wperf_mapping *)(void *)t->mappings.data;
	struct wperf_ksym *k = (struct wperf_ksym *)(void *)t->ksyms.data;
	struct wperf_perfmap *pm = (struct wperf_perfmap *)(void *)t->perfmaps.data;
	struct wperf_stack_copy *sc = (struct wperf_stack_copy *)(void *)t->copies.data;
	const char *arena = (const char *)t->arena.data;

	resolve_stacks(t);
	for (size_t i = 0; i < t->mappings.len / sizeof(*m); i++)
		m[i].path = arena_at(arena, m[i].path);
	for (size_t i = 0; i < t->ksyms.len / sizeof(*k); i++)
		k[i].name = arena_at(arena, k[i].name);
	for (size_t i = 0; i < t->perfmaps.len / sizeof(*pm); i++)
		pm[i].text = arena_at(arena, pm[i].text);
	for (size_t i = 0; i < t->copies.len / sizeof(*sc); i++)
		sc[i].bytes = (const uint8_t *)arena_at(arena, sc[i].bytes);
	t->stats.lost = (uint64_t *)(void *)t->lost.data;
}

/* ---- accessors ---- */

size_t wperf_trace_meta_count(const struct wperf_trace *t)
{
	return t->meta.len / sizeof(struct meta_kv);
}

void wperf_trace_meta_at(const struct wperf_trace *t, size_t i, const char **key,
			 const char **value)
{
	const struct meta_kv *kv = (const struct meta_kv *)(void *)t->meta.data + i;

	*key = (const char *)t->arena.data + kv->key;
	*value = (const char *)t->arena.data + kv->value;
}

const char *wperf_trace_meta(const struct wperf_trace *t, const char *key)
{
	for (size_t i = 0; i < wperf_trace_meta_count(t); i++) {
		const char *k, *v;

		wperf_trace_meta_at(t, i, &k, &v);
		if (strcmp(k, key) == 0)
			return v; /* the first pair with that key */
	}
	return NULL;
}

const struct wperf_trace_stats *wperf_trace_stats(const struct wperf_trace *t)
{
	return &t->stats;
}

#define TABLE(t, field, type, n)                                                                   \
	(*(n) = (t)->field.len / sizeof(type), (const type *)(void *)(t)->field.data)

const struct wperf_thread *wperf_trace_threads(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, threads, struct wperf_thread, n);
}

const struct wperf_stack *wperf_trace_stacks(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, stacks, struct wperf_stack, n);
}

const struct wperf_stack *wperf_trace_stack(const struct wperf_trace *t, int32_t id, int user)
{
	struct wperf_stack key = {.id = id, .user = user != 0};
	size_t n;
	const struct wperf_stack *s = wperf_trace_stacks(t, &n);

	if (!n)
		return NULL;
	return bsearch(&key, s, n, sizeof(*s), cmp_stack);
}

const struct wperf_mapping *wperf_trace_mappings(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, mappings, struct wperf_mapping, n);
}

const struct wperf_ksym *wperf_trace_ksyms(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, ksyms, struct wperf_ksym, n);
}

const struct wperf_perfmap *wperf_trace_perfmaps(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, perfmaps, struct wperf_perfmap, n);
}

const struct wperf_stack_copy *wperf_trace_stack_copies(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, copies, struct wperf_stack_copy, n);
}

int wperf_trace_add_stacks(struct wperf_trace *t, const struct wperf_stack *s, size_t n,
			   struct wperf_error *err)
{
	struct wperf_stack *st = (struct wperf_stack *)(void *)t->stacks.data;
	size_t have = t->stacks.len / sizeof(*st), frames = 0;
	const uint64_t *old = (const uint64_t *)(void *)t->ips.data;

	for (size_t i = 0; i < n; i++)
		frames += s[i].nr;
	/* Both arrays may move: the frames as offsets until they are final. */
	for (size_t i = 0; i < have; i++)
		st[i].ips = AS_PTR(st[i].nr ? (size_t)(st[i].ips - old) : 0);
	if (wperf_buf_reserve(&t->ips, frames * sizeof(uint64_t)) ||
	    wperf_buf_reserve(&t->stacks, n * sizeof(*st))) {
		resolve_stacks(t);
		return wperf_error_set(err, -ENOMEM, "%s: out of memory for %zu more stacks",
				       t->path, n);
	}
	for (size_t i = 0; i < n; i++) {
		struct wperf_stack *row = wperf_buf_push(&t->stacks, sizeof(*row));

		*row = s[i];
		row->ips = AS_PTR(t->ips.len / sizeof(uint64_t));
		wperf_buf_append(&t->ips, s[i].ips, s[i].nr * sizeof(uint64_t));
	}
	resolve_stacks(t);
	return 0;
}
