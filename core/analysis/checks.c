/* SPDX-License-Identifier: MIT */
/*
 * The model against the kernel's own counters (checks.h). Every line is made
 * by add() from the same four numbers: what the model says, what the kernel
 * counted, how far apart they may be, and so whether they agree; the families
 * below only gather those numbers.
 */
#include "core/analysis/checks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISK_TOLERANCE	   0.03	      /* of the window (issue 16, the SPEC's fidelity target) */
#define RELATIVE_TOLERANCE 0.01	      /* of the kernel's count: threads, NICs */
#define DISK_OWNED_SLACK   (1u << 20) /* bytes: a request at a counter's reading */
#define CPU_TOLERANCE	   0.01	      /* of the window, as for a thread that ran all of it */
#define THREAD_FLOOR	   0.001      /* of the window: below it a thread's time moves no edge */
#define STEAL_SLACK	   2	      /* steal is uneven: a thread may lose twice its share */
#define SLOWEST_HZ	   100	      /* the tick taken when the kernel's is unknown: the longest */
#define LINK_HEADER	   14	      /* bytes of an Ethernet header (loopback has one too) */
/* A wait for a CPU starts, for the trace, at a wakeup's first step
 * (sched_waking), and for the kernel at the enqueue that comes after it: 0.7
 * µs later on average on a 2-CPU VM (synthetic/pingpong, 97,000 wakeups). */
#define WAKE_PATH_NS	2000
#define ARPHRD_ETHER	1
#define ARPHRD_LOOPBACK 772

static const struct {
	const char *name;
	uint8_t unit;
} kinds[WPERF_CHECK_KINDS] = {
    [WPERF_CHECK_DISK_BUSY] = {"disk busy", WPERF_CHECK_NS},
    [WPERF_CHECK_NIC_TX] = {"nic tx", WPERF_CHECK_BYTES},
    [WPERF_CHECK_NIC_RX] = {"nic rx", WPERF_CHECK_BYTES},
    [WPERF_CHECK_THREAD_RUN] = {"thread run", WPERF_CHECK_NS},
    [WPERF_CHECK_THREAD_WAIT] = {"thread wait", WPERF_CHECK_NS},
    [WPERF_CHECK_THREAD_SLICES] = {"thread slices", WPERF_CHECK_COUNT},
    [WPERF_CHECK_CPU_IDLE] = {"cpu idle", WPERF_CHECK_NS},
    [WPERF_CHECK_CPU_CHAIN] = {"cpu chain", WPERF_CHECK_NS},
    [WPERF_CHECK_DISK_OWNED] = {"disk owned", WPERF_CHECK_BYTES},
};

const char *wperf_check_kind_name(unsigned kind)
{
	return kind < WPERF_CHECK_KINDS ? kinds[kind].name : "unknown";
}

const char *wperf_check_unit_name(unsigned kind)
{
	static const char *const units[] = {"ns", "bytes", "count"};

	return kind < WPERF_CHECK_KINDS ? units[kinds[kind].unit] : "unknown";
}

struct ctx {
	const struct wperf_timeline *tl;
	const struct wperf_counters *start, *end;
	struct wperf_checks_opts o;
	struct wperf_checks *out;
	struct wperf_buf lines; /* struct wperf_checks_line */
	uint64_t window;
	uint64_t busy_ns; /* the CPUs' time not idle in the window, by the model; 0: unknown */
	int oom;
};

/* The one way a line is made; NULL when out of memory (x->oom set). */
static struct wperf_checks_line *add(struct ctx *x, unsigned kind, uint64_t model, uint64_t kernel,
				     uint64_t tolerance, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static struct wperf_checks_line *add(struct ctx *x, unsigned kind, uint64_t model, uint64_t kernel,
				     uint64_t tolerance, const char *fmt, ...)
{
	struct wperf_checks_line *c;
	va_list ap;

	if (wperf_buf_reserve(&x->lines, sizeof(*c))) {
		x->oom = 1;
		return NULL;
	}
	c = (struct wperf_checks_line *)(void *)(x->lines.data + x->lines.len);
	x->lines.len += sizeof(*c);
	memset(c, 0, sizeof(*c));
	c->kind = (uint8_t)kind;
	c->model = model;
	c->kernel = kernel;
	c->diff = (int64_t)(model - kernel);
	c->tolerance = tolerance;
	c->status = (c->diff < 0 ? -(uint64_t)c->diff : (uint64_t)c->diff) > tolerance
			? WPERF_CHECK_WARN
			: WPERF_CHECK_OK;
	va_start(ap, fmt);
	vsnprintf(c->subject, sizeof(c->subject), fmt, ap);
	va_end(ap);
	return c;
}

/* Field i of a row, 0 when the kernel did not write it. */
static uint64_t field(const uint64_t *f, uint32_t n, uint32_t i)
{
	return i < n ? f[i] : 0;
}

/* How much a counter grew (0 for one that went back: reset, or wrapped). */
static uint64_t grew(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

static uint64_t share(uint64_t v, double f)
{
	return (uint64_t)((double)v * f);
}

static uint64_t at_least(uint64_t v, uint64_t floor)
{
	return v > floor ? v : floor;
}

static int excluded(const struct ctx *x, uint32_t tgid)
{
	for (size_t i = 0; i < x->o.nexclude; i++)
		if (x->o.exclude_tgids[i] == tgid)
			return 1;
	return 0;
}

/* ---- disks ---- */

static const struct wperf_entity *device(const struct ctx *x, uint8_t kind, uint32_t dev)
{
	for (size_t e = 0; e < x->tl->nentities; e++)
		if (x->tl->entities[e].kind == kind && x->tl->entities[e].dev == dev)
			return &x->tl->entities[e];
	return NULL;
}

/*
 * A disk's busy time as the kernel counts its io_ticks: in whole jiffies, each
 * busy period from the jiffy its first request started in to the one its last
 * ended in (wperf_entity.io_ticks): like with like. Its busy time in ns differs
 * by up to a jiffy a busy period, and not at random: requests that start just
 * after a tick (a thread the tick put on a CPU) count short. A trace without
 * the kernel's jiffies (before format 1.2) has only the busy time in ns.
 */
static uint64_t disk_busy_as_counted(const struct ctx *x, const struct wperf_entity *en)
{
	uint64_t jiffy = x->end->hz ? 1000000000u / x->end->hz : x->tl->jiffy_ns;

	if (!en)
		return 0;
	return x->tl->jiffy_ns ? en->io_ticks * jiffy : en->busy_ns;
}

/* The bytes a disk's requests completed between two readings of its stat:
 * the sectors read, written and discarded. */
static uint64_t disk_bytes(const struct wperf_disk_counters *s, const struct wperf_disk_counters *d)
{
	static const uint32_t sectors[] = {WPERF_DISK_READ_SECTORS, WPERF_DISK_WRITE_SECTORS,
					   WPERF_DISK_DISCARD_SECTORS};
	uint64_t n = 0;

	for (size_t i = 0; i < sizeof(sectors) / sizeof(sectors[0]); i++)
		n += grew(field(s->fields, s->nfields, sectors[i]),
			  field(d->fields, d->nfields, sectors[i]));
	return n * 512;
}

/* The disk's completed bytes that have an owner vs the kernel's count. */
static void check_disk_owned(struct ctx *x, const struct wperf_disk_counters *s,
			     const struct wperf_disk_counters *d, const struct wperf_entity *en)
{
	uint64_t kernel = disk_bytes(s, d);

	if (en || kernel)
		add(x, WPERF_CHECK_DISK_OWNED, en ? en->done_bytes - en->unowned_bytes : 0, kernel,
		    at_least(share(kernel, RELATIVE_TOLERANCE), DISK_OWNED_SLACK), "disk:%u:%u %s",
		    d->major, d->minor, d->name);
}

static void check_disks(struct ctx *x)
{
	for (size_t i = 0; i < x->end->ndisks; i++) {
		const struct wperf_disk_counters *d = &x->end->disks[i], *s = NULL;
		const struct wperf_entity *en =
		    device(x, WPERF_ENTITY_DISK, wperf_disk_counters_dev(d));
		uint64_t ticks;

		for (size_t j = 0; j < x->start->ndisks && !s; j++)
			if (x->start->disks[j].major == d->major &&
			    x->start->disks[j].minor == d->minor)
				s = &x->start->disks[j];
		if (!s || d->nfields <= WPERF_DISK_IO_TICKS)
			continue;
		ticks = grew(field(s->fields, s->nfields, WPERF_DISK_IO_TICKS),
			     d->fields[WPERF_DISK_IO_TICKS]) *
			1000000u;
		if (en || ticks) /* a disk idle and never in the trace: nothing to say */
			add(x, WPERF_CHECK_DISK_BUSY, disk_busy_as_counted(x, en), ticks,
			    share(x->window, DISK_TOLERANCE), "disk:%u:%u %s", d->major, d->minor,
			    d->name);
		check_disk_owned(x, s, d, en);
	}
}

/* ---- network interfaces ---- */

static void check_nics(struct ctx *x)
{
	for (size_t i = 0; i < x->end->nnics; i++) {
		const struct wperf_nic_counters *d = &x->end->nics[i], *s = NULL;
		struct wperf_nic_tally t = {0};
		uint64_t tx, rx;

		for (size_t j = 0; j < x->start->nnics && !s; j++)
			if (x->start->nics[j].ifindex == d->ifindex)
				s = &x->start->nics[j];
		for (size_t j = 0; j < x->tl->nnics; j++)
			if (x->tl->nics[j].ifindex == d->ifindex)
				t = x->tl->nics[j];
		if (!s)
			continue;
		tx = grew(field(s->fields, s->nfields, WPERF_NIC_TX_BYTES),
			  field(d->fields, d->nfields, WPERF_NIC_TX_BYTES));
		rx = grew(field(s->fields, s->nfields, WPERF_NIC_RX_BYTES),
			  field(d->fields, d->nfields, WPERF_NIC_RX_BYTES));
		/* The trace's sizes are skb->len as the packet leaves (with its link
		 * header) and as it is received (without). An Ethernet driver counts
		 * whole frames; loopback counts both ways without the header. */
		if (d->type == ARPHRD_LOOPBACK)
			t.tx_bytes -= LINK_HEADER * t.tx_packets;
		else if (d->type == ARPHRD_ETHER)
			t.rx_bytes += LINK_HEADER * t.rx_packets;
		if (tx || t.tx_bytes)
			add(x, WPERF_CHECK_NIC_TX, t.tx_bytes, tx, share(tx, RELATIVE_TOLERANCE),
			    "nic:%s", d->name);
		if (rx || t.rx_bytes)
			add(x, WPERF_CHECK_NIC_RX, t.rx_bytes, rx, share(rx, RELATIVE_TOLERANCE),
			    "nic:%s", d->name);
	}
}

/* ---- threads ---- */

/* A reading of a thread's schedstat. */
struct reading {
	uint64_t ts, run, wait, slices;
};

/* What the model says of a thread between two readings. */
struct model {
	uint64_t run, wait, slices;
	uint64_t lag;	  /* the kernel's resolution: up to a tick at each reading it ran at */
	uint64_t woken;	  /* waits counted in wait that began at a wakeup (or its fork) */
	uint64_t run_all; /* its running time in the whole window */
};

/* c's reading of tid, if it was read while the thread [born, died] lived. */
static int read_of(const struct wperf_counters *c, uint32_t tid, uint64_t born, uint64_t died,
		   struct reading *r)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct wperf_thread_counters *th = &c->threads[i];

		if (th->tid == tid && th->ts >= born && th->ts <= died) {
			*r = (struct reading){th->ts, th->run_ns, th->wait_ns, th->slices};
			return 1;
		}
	}
	return 0;
}

/* The readings of entity e around the window: at its start (or zeros at its
 * birth, for a thread born in it: the kernel's counts start at 0), and at its
 * end (or as it exited). */
static int readings(const struct ctx *x, uint32_t e, struct reading *r0, struct reading *r1)
{
	const struct wperf_entity *en = &x->tl->entities[e];

	if (!read_of(x->start, en->tid, en->born, en->died, r0)) {
		if (en->born <= x->tl->start)
			return 0; /* there before the window, but not read */
		*r0 = (struct reading){en->born, 0, 0, 0};
	}
	if (read_of(x->end, en->tid, en->born, en->died, r1))
		return 1;
	for (size_t i = 0; i < x->tl->nexits; i++)
		if (x->tl->exits[i].entity == e) {
			const struct wperf_exit_reading *xr = &x->tl->exits[i];

			*r1 = (struct reading){xr->ts, xr->run_ns, xr->wait_ns, xr->slices};
			return 1;
		}
	return 0;
}

/* On a CPU, as the kernel sees it: running, or spinning (an annotated spin
 * is a wait to the model, but the thread is on its CPU). */
static int on_cpu(const struct wperf_segment *s)
{
	return s->state == WPERF_SEG_RUNNING || (s->state == WPERF_SEG_WAITING && s->spin);
}

static uint64_t overlap(uint64_t s, uint64_t e, uint64_t lo, uint64_t hi)
{
	s = s > lo ? s : lo;
	e = e < hi ? e : hi;
	return e > s ? e - s : 0;
}

/* The model of entity en between the readings at t0 and t1, counted as the
 * kernel counts: a wait when it ends, a slice when it starts. */
static struct model model_of(const struct wperf_entity *en, uint64_t t0, uint64_t t1, uint64_t tick)
{
	struct model m = {0};
	uint64_t start = en->born, since = en->born; /* since: the running period's start */

	for (uint32_t k = 0; k < en->nsegments; start = en->segments[k++].end) {
		const struct wperf_segment *s = &en->segments[k];
		int run = on_cpu(s), began = run && (k == 0 || !on_cpu(&en->segments[k - 1]));

		if (began)
			since = start;
		if (run) {
			m.run += overlap(start, s->end, t0, t1);
			m.run_all += s->end - start;
			/* on a CPU at a reading: the kernel's count is as of its last
			 * tick or its switch-in, whichever came last */
			if (start < t0 && t0 <= s->end)
				m.lag += t0 - since < tick ? t0 - since : tick;
			if (start < t1 && t1 <= s->end)
				m.lag += t1 - since < tick ? t1 - since : tick;
		}
		if (began && k > 0 && start > t0 && start <= t1)
			m.slices++;
		if (s->state == WPERF_SEG_RUNNABLE && s->end > t0 && s->end <= t1) {
			m.wait += s->end - start;
			m.woken += k == 0 || en->segments[k - 1].state == WPERF_SEG_WAITING;
		}
	}
	/* what false wakeups took out of the running and runnable segments */
	m.run += en->acct.false_run_ns;
	m.run_all += en->acct.false_run_ns;
	m.wait += en->acct.false_runnable_ns;
	return m;
}

/* What the hypervisor may have stolen while a thread ran run ns: the kernel's
 * clock for tasks skips it, the trace's cannot see it. Steal falls only on
 * busy CPUs, so the thread's part is its share of the busy time, with slack
 * for steal that came in bursts; the window's whole steal when the model knows
 * no busy time. */
static uint64_t stolen_from(const struct ctx *x, uint64_t run)
{
	double part;

	if (!x->busy_ns)
		return x->out->steal_ns;
	part = (double)x->out->steal_ns * STEAL_SLACK * (double)run / (double)x->busy_ns;
	return part < (double)x->out->steal_ns ? (uint64_t)part : x->out->steal_ns;
}

/* The three lines of a thread (en: its model, NULL for one the model lacks). */

static void thread_lines(struct ctx *x, const struct wperf_entity *en, uint32_t tid, uint32_t tgid,
			 const struct model *m, const struct reading *r0, const struct reading *r1)
{
	uint64_t run = grew(r0->run, r1->run), wait = grew(r0->wait, r1->wait);
	uint64_t slices = grew(r0->slices, r1->slices), guessed = en ? en->acct.guessed_ns : 0;
	uint64_t unseen = en ? en->acct.unqueued_ns + en->acct.skipped_ns : 0;
	char subject[64];
	struct wperf_checks_line *l;

	if (en)
		snprintf(subject, sizeof(subject), "%s/%s %u", en->process, en->name, tid);
	else
		snprintf(subject, sizeof(subject), "pid %u tid %u (no event)", tgid, tid);
	if (!add(x, WPERF_CHECK_THREAD_RUN, m->run, run,
		 at_least(share(run, RELATIVE_TOLERANCE) + m->lag, share(x->window, THREAD_FLOOR)) +
		     guessed + unseen + stolen_from(x, m->run),
		 "%s", subject) ||
	    !add(x, WPERF_CHECK_THREAD_WAIT, m->wait, wait,
		 at_least(share(wait, RELATIVE_TOLERANCE) + m->woken * WAKE_PATH_NS,
			  share(x->window, THREAD_FLOOR)) +
		     guessed + (en ? en->acct.skipped_ns : 0),
		 "%s", subject) ||
	    !add(x, WPERF_CHECK_THREAD_SLICES, m->slices, slices, share(slices, RELATIVE_TOLERANCE),
		 "%s", subject))
		return;
	/* the last three lines are this thread's (add() may have moved them) */
	l = (struct wperf_checks_line *)(void *)x->lines.data + x->lines.len / sizeof(*l) - 3;
	for (size_t i = 0; i < 3; i++) {
		l[i].tid = tid;
		l[i].tgid = tgid;
		snprintf(l[i].process, sizeof(l[i].process), "%s", en ? en->process : "");
	}
}

static void check_threads(struct ctx *x)
{
	const struct wperf_timeline *tl = x->tl;
	uint32_t hz = x->end->hz ? x->end->hz : SLOWEST_HZ;
	uint64_t tick = 1000000000u / hz;

	for (uint32_t e = 0; e < tl->nentities && !x->oom; e++) {
		const struct wperf_entity *en = &tl->entities[e];
		struct reading r0, r1;
		struct model m;

		if (en->kind != WPERF_ENTITY_THREAD)
			continue;
		if (!readings(x, e, &r0, &r1)) {
			x->out->threads_unread++;
			continue;
		}
		m = model_of(en, r0.ts, r1.ts, tick);
		/* the kernel counts no wait there (wperf_thread_acct) */
		m.wait -= en->acct.unqueued_ns < m.wait ? en->acct.unqueued_ns : m.wait;
		if (x->end->irq_time == WPERF_IRQ_TIME_APART)
			m.run -=
			    m.run_all
				? (uint64_t)((double)en->irq_ns * (double)m.run / (double)m.run_all)
				: 0;
		else
			x->out->irq_in_threads_ns += en->irq_ns;
		if (m.run || m.wait || m.slices || r1.run > r0.run || r1.slices > r0.slices)
			thread_lines(x, en, en->tid, en->tgid, &m, &r0, &r1);
	}
}

/* Is there a thread of tid alive at ts in the model? */
static int modelled(const struct wperf_timeline *tl, uint32_t tid, uint64_t ts)
{
	for (uint32_t e = 0; e < tl->nentities; e++)
		if (tl->entities[e].kind == WPERF_ENTITY_THREAD && tl->entities[e].tid == tid &&
		    tl->entities[e].born <= ts && ts <= tl->entities[e].died)
			return 1;
	return 0;
}

/* Threads the kernel saw run that left no event at all: the model has none of
 * their time. */
static void check_unseen_threads(struct ctx *x)
{
	const struct model none = {0};

	for (size_t i = 0; i < x->end->nthreads && !x->oom; i++) {
		const struct wperf_thread_counters *th = &x->end->threads[i];
		struct reading r0, r1 = {th->ts, th->run_ns, th->wait_ns, th->slices};

		if (excluded(x, th->tgid) || modelled(x->tl, th->tid, th->ts) ||
		    !read_of(x->start, th->tid, 0, th->ts, &r0) ||
		    (r1.run <= r0.run && r1.slices <= r0.slices))
			continue;
		thread_lines(x, NULL, th->tid, th->tgid, &none, &r0, &r1);
	}
}

/* ---- CPUs ---- */

/* How much field f of a CPU's /proc/stat line grew, in ns (unit: a tick). */
static uint64_t cpu_grew(const struct wperf_cpu_counters *s, const struct wperf_cpu_counters *d,
			 uint32_t f, uint64_t unit)
{
	return grew(field(s->fields, s->nfields, f), field(d->fields, d->nfields, f)) * unit;
}

/* What the hypervisor took from the CPUs in the window (/proc/stat steal),
 * into x->out->steal_ns, and the CPUs' busy time by the model, into
 * x->busy_ns: the thread lines need both before the CPUs' own. */
static void window_cpu_time(struct ctx *x)
{
	uint64_t unit = 1000000000u / (x->end->user_hz ? x->end->user_hz : SLOWEST_HZ);

	for (uint32_t cpu = 0; cpu < x->tl->ncpu; cpu++)
		if (x->tl->cpus[cpu].switches)
			x->busy_ns += x->window - (x->tl->cpus[cpu].idle_ns < x->window
						       ? x->tl->cpus[cpu].idle_ns
						       : x->window);

	for (size_t i = 0; i < x->end->ncpus; i++)
		for (size_t j = 0; j < x->start->ncpus; j++)
			if (x->start->cpus[j].cpu == x->end->cpus[i].cpu) {
				x->out->steal_ns += cpu_grew(&x->start->cpus[j], &x->end->cpus[i],
							     WPERF_CPU_STEAL, unit);
				break;
			}
}

static void check_cpus(struct ctx *x)
{
	uint64_t unit = 1000000000u / (x->end->user_hz ? x->end->user_hz : SLOWEST_HZ);

	x->out->cpus_checked =
	    (x->start->flags & x->end->flags & WPERF_COUNTERS_WHOLE_MACHINE) != 0;
	for (size_t i = 0; i < x->end->ncpus; i++) {
		const struct wperf_cpu_counters *d = &x->end->cpus[i], *s = NULL;
		const struct wperf_cpu_tally *t;
		struct wperf_checks_line *idle;

		for (size_t j = 0; j < x->start->ncpus && !s; j++)
			if (x->start->cpus[j].cpu == d->cpu)
				s = &x->start->cpus[j];
		if (!s)
			continue;
		if (!x->out->cpus_checked || d->cpu >= x->tl->ncpu ||
		    !(t = &x->tl->cpus[d->cpu])->switches)
			continue; /* no switch recorded: idle or busy, the model cannot tell */
		idle = add(x, WPERF_CHECK_CPU_IDLE, t->idle_ns,
			   cpu_grew(s, d, WPERF_CPU_IDLE, unit) +
			       cpu_grew(s, d, WPERF_CPU_IOWAIT, unit),
			   share(x->window, CPU_TOLERANCE) + unit, "cpu%u, %llu idle exits", d->cpu,
			   (unsigned long long)t->idle_exits);
		if (idle)
			idle->exits = t->idle_exits;
		add(x, WPERF_CHECK_CPU_CHAIN, t->guessed_ns, 0, share(x->window, CPU_TOLERANCE),
		    "cpu%u, %llu breaks", d->cpu, (unsigned long long)t->breaks);
	}
}

int wperf_checks_compute(const struct wperf_timeline *tl, const struct wperf_counters *start,
			 const struct wperf_counters *end, const struct wperf_checks_opts *opts,
			 struct wperf_checks *out, struct wperf_error *err)
{
	struct ctx x = {.tl = tl, .start = start, .end = end, .out = out};

	memset(out, 0, sizeof(*out));
	if (!start || !end)
		return 0;
	if (opts)
		x.o = *opts;
	out->have_counters = 1;
	out->irq_time = end->irq_time;
	x.window = tl->end > tl->start ? tl->end - tl->start : 0;
	window_cpu_time(&x);
	check_disks(&x);
	check_nics(&x);
	check_threads(&x);
	check_unseen_threads(&x);
	check_cpus(&x);
	if (x.oom) {
		wperf_buf_release(&x.lines);
		memset(out, 0, sizeof(*out));
		return wperf_error_set(err, -ENOMEM, "out of memory checking the counters");
	}
	out->lines = (struct wperf_checks_line *)(void *)x.lines.data;
	out->n = x.lines.len / sizeof(struct wperf_checks_line);
	for (size_t i = 0; i < out->n; i++)
		out->warn += out->lines[i].status == WPERF_CHECK_WARN;
	return 0;
}

void wperf_checks_release(struct wperf_checks *c)
{
	free(c->lines);
	memset(c, 0, sizeof(*c));
}
