/* SPDX-License-Identifier: MIT */
#include "core/trace/thread_table.h"

#include <errno.h>
#include <string.h>

static struct wperf_thread *slot(struct wperf_thread_table *tt, uint32_t tid, int *err)
{
	int added;
	int64_t i = wperf_idmap_get(&tt->index, tid, &added);
	struct wperf_thread fresh = {.tid = tid};

	*err = 0;
	if (i < 0 || (added && wperf_buf_append(&tt->threads, &fresh, sizeof(fresh)) < 0)) {
		*err = -ENOMEM;
		return NULL;
	}
	return (struct wperf_thread *)tt->threads.data + i;
}

static void set_comm(struct wperf_thread *t, const char *comm)
{
	memcpy(t->comm, comm, WPERF_COMM_LEN);
	t->comm[WPERF_COMM_LEN - 1] = '\0';
}

int wperf_thread_table_init(struct wperf_thread_table *tt, const struct wperf_trace *t)
{
	size_t n;
	const struct wperf_thread *snap = wperf_trace_threads(t, &n);
	int err = 0;

	memset(tt, 0, sizeof(*tt));
	for (size_t i = 0; i < n && !err; i++) {
		struct wperf_thread *th = slot(tt, snap[i].tid, &err);

		if (th)
			*th = snap[i];
	}
	return err;
}

/* A forked thread runs the program of its forker (forker_tid), until it
 * execs. (The forker is looked up after th's slot was made: the array may
 * have moved.) */
static void fork_exe(struct wperf_thread_table *tt, struct wperf_thread *th, uint32_t forker_tid)
{
	const struct wperf_thread *p = wperf_thread_table_find(tt, forker_tid);

	if (p && p != th)
		memcpy(th->exe, p->exe, WPERF_COMM_LEN);
}

int wperf_thread_table_apply(struct wperf_thread_table *tt, const struct wperf_event *ev)
{
	struct wperf_thread *th;
	int err;

	switch (ev->hdr.kind) {
	case WPERF_EV_FORK:
		th = slot(tt, ev->fork.child_tid, &err);
		if (th) {
			th->tgid = ev->fork.child_tgid;
			/* A new process's parent is the forker's process; a thread's is its own. */
			if (ev->fork.child_tgid != ev->hdr.tgid) {
				th->ppid = ev->hdr.tgid;
			} else {
				const struct wperf_thread *p =
				    wperf_thread_table_find(tt, ev->hdr.tid);

				th->ppid = p ? p->ppid : 0;
			}
			set_comm(th, ev->fork.comm);
			fork_exe(tt, th, ev->hdr.tid);
		}
		return err;
	case WPERF_EV_EXEC:
	case WPERF_EV_RENAME:
		th = slot(tt, ev->hdr.tid, &err);
		if (th) {
			th->tgid = ev->hdr.tgid;
			set_comm(th, ev->name.comm);
			/* at an exec the name is the program's file's (the kernel's
			 * comm then); a rename changes only the thread's name */
			if (ev->hdr.kind == WPERF_EV_EXEC)
				memcpy(th->exe, th->comm, WPERF_COMM_LEN);
		}
		return err;
	default:
		return 0;
	}
}

const struct wperf_thread *wperf_thread_table_find(const struct wperf_thread_table *tt,
						   uint32_t tid)
{
	int64_t i = wperf_idmap_find(&tt->index, tid);

	return i < 0 ? NULL : (const struct wperf_thread *)tt->threads.data + i;
}

const char *wperf_thread_table_name(const struct wperf_thread_table *tt, uint32_t tid)
{
	const struct wperf_thread *t = wperf_thread_table_find(tt, tid);

	if (tid == 0)
		return "idle";
	return t && t->comm[0] ? t->comm : "?";
}

void wperf_thread_table_release(struct wperf_thread_table *tt)
{
	wperf_idmap_release(&tt->index);
	wperf_buf_release(&tt->threads);
}
