/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user stack past a C library built without frame pointers (included by
 * recorder.bpf.c).
 *
 * The kernel walks a user stack by its frame pointers. A program built with
 * them that blocks inside a library built without them (Debian's glibc) loses
 * its frames there: the library reuses the frame pointer register, or leaves
 * it pointing at the program's innermost frame, whose own return address the
 * walk then skips. A thread waiting in pthread_cond_wait from queue_push from
 * a_worker reads "__futex_abstimed_wait_common <- start_thread", and the frames
 * that say which pool it is, a_worker's, are gone (see core/analysis/merge_split.c).
 *
 * So when the innermost frame is outside the program's own text, the words
 * above the user stack pointer are scanned for where the program called the
 * library: the first word that points into the program's text right after a
 * call instruction. The program's frames are then found above it: the first
 * pair (a pointer further up the stack, a return address) is the frame of the
 * function that called the library, and the walk goes on by frame pointers
 * from there. The stack found is kept under an id of its own (recovered_base
 * and up), which user space reads back (harness/record/bpf_recorder.c); when nothing
 * is found the kernel's walk stands.
 *
 * x86 only: the call instruction's bytes are how a return address is told from
 * a function pointer left on the stack. Elsewhere stacks are as walked.
 */
#ifndef WPERF_STACK_CALLER_BPF_H
#define WPERF_STACK_CALLER_BPF_H

/* Words scanned above the stack pointer, a power of two: 1 KiB, where a C
 * library's frames fit. */
#define SCAN_WORDS	128
#define STACK_FAR_BYTES (8 << 20) /* no frame is further up a stack than this */

const volatile __s32 recovered_base = 0; /* the first id of a recovered stack */
const volatile __u32 recovered_room = 0; /* how many there may be (0: none) */

/* A recovered stack -> its id, and back. Unused frames are 0, so that equal
 * stacks hash alike. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* resized by user space */
	__type(key, struct wperf_recovered_stack);
	__type(value, __s32);
} recovered_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* resized by user space */
	__type(key, __s32);
	__type(value, struct wperf_recovered_stack);
} recovered_stacks SEC(".maps");

/* The state of one recovery, shared by its loops. It lives in the map value,
 * not on the stack: the verifier checks a bpf_loop callback again for every
 * state it can start from, and values it tracks on the stack (r.at, r.fp)
 * made that fourteen thousand instructions and 85 ms a program, at every
 * load; in a map value they are unknown numbers, and one pass does. */
struct recovery {
	__u64 lo, hi; /* the program's text */
	__u64 sp;
	__u64 fp; /* the next frame's frame pointer, 0 at the end */
	__u32 n;  /* words read above sp */
	__u32 at; /* the word found */
};

struct recover_scratch {
	__u64 words[SCAN_WORDS];
	struct wperf_recovered_stack stack;
	struct recovery r;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct recover_scratch);
} recover_buf SEC(".maps");

__u32 recovered_taken = 0; /* ids handed out, recovered_room at most */

static __always_inline struct recover_scratch *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&recover_buf, &zero);
}

#if defined(__TARGET_ARCH_x86)
/* Whether the bytes before v are an x86 call: v is then a return address. */
static __always_inline bool after_call(__u64 v)
{
	__u8 b[8]; /* b[7] is the byte at v - 1 */

	if (bpf_probe_read_user(b, sizeof(b), (void *)(v - sizeof(b))))
		return false;
	return b[3] == 0xe8 ||				  /* call rel32 */
	       (b[6] == 0xff && (b[7] & 0xf8) == 0xd0) || /* call *%reg */
	       (b[6] == 0xff && (b[7] & 0xf8) == 0x10 &&  /* call *(%reg) */
		(b[7] & 7) != 4 && (b[7] & 7) != 5) ||
	       (b[5] == 0xff && (b[6] & 0xf8) == 0x50) ||		  /* call *d8(%reg) */
	       (b[2] == 0xff && (b[3] == 0x15 || (b[3] & 0xf8) == 0x90)); /* call *d32(...) */
}

static __always_inline bool in_text(__u64 v, __u64 lo, __u64 hi)
{
	return v > lo && v < hi && after_call(v);
}

/* Turn i: whether word i is where the program called into the library. */
static long find_call(__u32 i, void *unused)
{
	struct recover_scratch *s = scratch();

	if (!s || i >= SCAN_WORDS || i >= s->r.n)
		return 1;
	if (!in_text(s->words[i & (SCAN_WORDS - 1)], s->r.lo, s->r.hi))
		return 0;
	s->r.at = i;
	return 1;
}

/* Turn k: whether the words from r->at + 1 + k are the calling function's frame,
 * a saved frame pointer (further up the stack) and a return address. */
static long find_frame(__u32 k, void *unused)
{
	struct recover_scratch *s = scratch();
	struct recovery *r = s ? &s->r : NULL;
	__u32 j = r ? r->at + 1 + k : SCAN_WORDS;
	__u64 up, at = r ? r->sp + (__u64)j * sizeof(__u64) : 0;

	if (!r || j >= SCAN_WORDS - 1 || j + 1 >= r->n)
		return 1;
	barrier_var(j); /* keeps the bound on j itself, for the verifier */
	up = s->words[j & (SCAN_WORDS - 1)];
	if (up <= at || up - at >= STACK_FAR_BYTES ||
	    !in_text(s->words[(j + 1) & (SCAN_WORDS - 1)], r->lo, r->hi))
		return 0;
	if (s->stack.nr < WPERF_RECOVER_DEPTH)
		s->stack.ips[s->stack.nr++] = s->words[(j + 1) & (SCAN_WORDS - 1)];
	r->fp = up;
	return 1;
}

/* Turn k: one frame further by frame pointers, into libraries too (start_thread). */
static long walk_frame(__u32 k, void *unused)
{
	struct recover_scratch *s = scratch();
	struct recovery *r = s ? &s->r : NULL;
	__u64 frame[2]; /* the saved frame pointer, the return address */
	__u32 nr;

	if (!r || !r->fp || bpf_probe_read_user(frame, sizeof(frame), (void *)r->fp) || !frame[1])
		return 1;
	nr = s->stack.nr;
	if (nr >= WPERF_RECOVER_DEPTH)
		return 1;
	s->stack.ips[nr] = frame[1];
	s->stack.nr = nr + 1;
	r->fp = frame[0] > r->fp && frame[0] - r->fp < STACK_FAR_BYTES ? frame[0] : 0;
	return 0;
}

/*
 * Fills s->stack with the stack of task (user registers ip, sp) recovered past
 * the library it is in; returns its frame count, 0 when the innermost frame is
 * in the program (the kernel's walk is right) or the program's call is not
 * found.
 */
static __always_inline __u32 recover_stack(struct task_struct *task, __u64 ip, __u64 sp,
					   struct recover_scratch *s)
{
	struct mm_struct *mm = task->mm;
	struct recovery *r = &s->r;
	__u32 at;

	if (!mm)
		return 0;
	*r = (struct recovery){.sp = sp, .n = SCAN_WORDS, .at = SCAN_WORDS};
	r->lo = mm->start_code;
	r->hi = mm->end_code;
	if (ip >= r->lo && ip < r->hi)
		return 0;
	/* Near the top of the stack fewer words may be mapped. */
	if (bpf_probe_read_user(s->words, sizeof(s->words), (void *)sp)) {
		r->n = SCAN_WORDS / 4;
		if (bpf_probe_read_user(s->words, (SCAN_WORDS / 4) * sizeof(__u64), (void *)sp))
			return 0;
	}
	bpf_loop(SCAN_WORDS, find_call, NULL, 0);
	at = r->at;
	if (at >= SCAN_WORDS)
		return 0;
	__builtin_memset(&s->stack, 0, sizeof(s->stack));
	s->stack.ips[0] = ip;
	s->stack.ips[1] = s->words[at & (SCAN_WORDS - 1)];
	s->stack.nr = 2;
	bpf_loop(SCAN_WORDS, find_frame, NULL, 0);
	bpf_loop(WPERF_RECOVER_DEPTH, walk_frame, NULL, 0);
	return s->stack.nr;
}
#else
static __always_inline __u32 recover_stack(struct task_struct *task, __u64 ip, __u64 sp,
					   struct recover_scratch *s)
{
	return 0;
}
#endif

/* The id of task's recovered user stack, or WPERF_NO_STACK when there is none
 * (or no room left): the kernel's walk is taken then. */
static __always_inline __s32 recovered_stack_id(struct task_struct *task, __u64 ip, __u64 sp)
{
	struct recover_scratch *s = scratch();
	__s32 *found, id;
	__u32 n;

	if (!s || !recover_stack(task, ip, sp, s))
		return WPERF_NO_STACK;
	found = bpf_map_lookup_elem(&recovered_ids, &s->stack);
	if (found)
		return *found;
	n = __sync_fetch_and_add(&recovered_taken, 1);
	if (n >= recovered_room)
		return WPERF_NO_STACK;
	id = recovered_base + (__s32)n;
	if (bpf_map_update_elem(&recovered_ids, &s->stack, &id, BPF_NOEXIST)) {
		/* another CPU stored it first: its id (n stays unused) */
		found = bpf_map_lookup_elem(&recovered_ids, &s->stack);
		return found ? *found : WPERF_NO_STACK;
	}
	bpf_map_update_elem(&recovered_stacks, &id, &s->stack, BPF_ANY);
	return id;
}

#endif /* WPERF_STACK_CALLER_BPF_H */
