/* SPDX-License-Identifier: MIT */
/*
 * hookcost: what each operation of a recorder program costs on this machine.
 * bench/hookcost.bpf.c holds variants of a tp_btf/sched_switch program, each
 * doing one thing more than an empty one (a clock read, four probe reads, a
 * ring buffer record, a kernel stack walk...). hookcost attaches one variant
 * at a time, runs the context-switch storm `pingpong --pin CPU -d SECONDS`,
 * detaches it, and reads the run time and run count the kernel kept for the
 * program (kernel.bpf_stats_enabled, set to 1 for the whole run and restored at
 * exit). All variants run once per round, rounds interleaved (A B C ... A B C)
 * so that a drift of the machine hits them all alike.
 *
 *   hookcost [-d SECONDS] [--cpu CPU] [-r ROUNDS] [--pingpong PATH]
 *
 * Per variant, the median over the rounds of:
 *
 *   ns/run     run_time_ns / run_cnt: the program's own time, measured by the
 *              kernel with a clock read on each side of the call (part of that
 *              is counted too: empty is not zero). The cost of the hook itself (the enabled
 *              tracepoint, the call through __bpf_trace_run) is outside: that
 *              is what bench/floor measures.
 *   vs empty   ns/run minus empty's: what the variant's work adds to a run.
 *   runs       run_cnt of one round: every sched_switch on every CPU while the
 *              variant was attached, the storm's and the rest of the machine's.
 *
 * Every variant but empty adds its result into a per-CPU array (so that the
 * compiler keeps the work); store does only that, so the cost of an operation
 * alone is its vs empty minus store's. two_clocks minus clock is the second
 * clock read; ringbuf_record and staged_record fill their records with the four
 * loads of direct_loads, so their cost beyond direct_loads is the record's.
 *
 * Then one machine-readable line per variant, like bench/run.sh's summary:
 *
 *   bench: hookcost workload=pingpong_pin0_1s rounds=2
 *   bench: hookcost VARIANT_ns=N vs_empty_ns=D runs=R min=A max=B
 *
 * A record that found the ring buffer full is counted and reported: a failed
 * reservation is cheaper than a record, so that figure would be too low. Other
 * BPF programs on sched_switch run too, but not in the figures: the kernel
 * times each program alone; they only slow the storm.
 *
 * Needs root (or CAP_BPF, CAP_PERFMON and the right to write the sysctl).
 * Exit status 0 when every run worked, 1 otherwise, 130 on SIGINT or SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench/hookcost.skel.h"

#define STATS_SYSCTL   "/proc/sys/kernel/bpf_stats_enabled"
#define POLL_MS	       10
#define MAX_ROUNDS     99
#define EXIT_FAILED    1
#define EXIT_SIGNALLED 130

/* Keep in step with the programs of bench/hookcost.bpf.c (hc_NAME). */
static const struct variant {
	const char *name;
	const char *what;
} variants[] = {
    {"empty", "return 0: the floor"},
    {"store", "add a value into a per-CPU array (what every other variant does too)"},
    {"clock", "bpf_ktime_get_ns()"},
    {"two_clocks", "two bpf_ktime_get_ns() (minus clock: the second read)"},
    {"probe_reads", "4 BPF_CORE_READ: prev->pid, prev->tgid, next->pid, next->tgid"},
    {"direct_loads", "the same 4 fields as plain loads (tp_btf)"},
    {"pid_tgid", "bpf_get_current_pid_tgid()"},
    {"current_task", "bpf_get_current_task_btf()->pid"},
    {"pt_regs", "bpf_task_pt_regs(current) then ip, sp, orig_ax"},
    {"task_storage", "bpf_task_storage_get(current, F_CREATE) and a counter in it"},
    {"ringbuf_record", "bpf_ringbuf_reserve 48 bytes, 4 loads, bpf_ringbuf_submit(NO_WAKEUP)"},
    {"staged_record", "a 48-byte record (4 loads) into a per-CPU 4 KiB stage, output when full"},
    {"stack_kernel", "bpf_get_stackid(ctx, map, 0) on every run (the uncached walk)"},
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

/* One run of one variant. */
struct sample {
	double ns_per_run;
	unsigned long long runs;
};

static volatile sig_atomic_t stop;
static volatile sig_atomic_t child_pid;
static char saved_stats[16]; /* the sysctl's value before; "" when not changed */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hookcost [-d SECONDS] [--cpu CPU] [-r ROUNDS] [--pingpong PATH]\n"
		"\n"
		"Measures what each operation of a BPF recorder program costs: variants of a\n"
		"tp_btf/sched_switch program, attached one at a time while the storm\n"
		"`pingpong --pin CPU -d SECONDS` runs, timed by the kernel\n"
		"(kernel.bpf_stats_enabled, restored at exit). Prints per variant the median\n"
		"over the rounds of the ns per run, its difference from empty, and the runs.\n"
		"\n"
		"  -d, --duration SECONDS  storm length per variant and round (default 1)\n"
		"      --cpu CPU           the storm's CPU (default 0)\n"
		"  -r, --rounds N          rounds, interleaved (default 2, at most %d)\n"
		"      --pingpong PATH     the storm program (default: ../synthetic/pingpong\n"
		"                          next to this program's directory)\n"
		"  -h, --help              this text\n"
		"\n"
		"Needs root.\n",
		MAX_ROUNDS);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("hookcost: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libbpf's warnings and errors; its debug chatter is not wanted. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs("hookcost: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* SIGINT, SIGTERM, SIGHUP: stop after the storm running now, which is told too. */
static void on_signal(int sig)
{
	stop = 1;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int write_sysctl(const char *value)
{
	int fd = open(STATS_SYSCTL, O_WRONLY | O_CLOEXEC), e = 0;
	size_t n = strlen(value);

	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		e = -errno;
	close(fd);
	return e;
}

/* Puts kernel.bpf_stats_enabled back as it was; safe to call twice. */
static void restore_stats(void)
{
	int e;

	if (!saved_stats[0])
		return;
	e = write_sysctl(saved_stats);
	if (e)
		fprintf(stderr, "hookcost: error: cannot restore %s to %s: %s\n", STATS_SYSCTL,
			saved_stats, strerror(-e));
	saved_stats[0] = '\0';
}

static int enable_stats(void)
{
	FILE *f = fopen(STATS_SYSCTL, "re");
	char old[sizeof(saved_stats)] = "";
	int e;

	if (!f || !fgets(old, sizeof(old), f)) {
		fail("cannot read %s: %s", STATS_SYSCTL, f ? "empty" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	old[strcspn(old, "\n")] = '\0';
	if (!strcmp(old, "1"))
		return 0; /* already on: nothing to restore */
	e = write_sysctl("1");
	if (e) {
		fail("cannot enable %s: %s", STATS_SYSCTL, strerror(-e));
		return -1;
	}
	snprintf(saved_stats, sizeof(saved_stats), "%s", old);
	return 0;
}

/* The kernel's run time statistics of a program since it was loaded. */
static int prog_stats(int fd, unsigned long long *run_time_ns, unsigned long long *run_cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int e;

	memset(&info, 0, sizeof(info));
	e = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (e)
		return e < 0 ? e : -errno;
	*run_time_ns = info.run_time_ns;
	*run_cnt = info.run_cnt;
	return 0;
}

/* Records are only consumed, not read: the reading is not what is measured. */
static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* pingpong as ../synthetic/pingpong from this program's directory. */
static int default_pingpong(char *path, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(path, size, "%s/../synthetic/pingpong", self) >= size)
		return -1;
	return 0;
}

/*
 * Runs the storm and consumes the ring buffer while it runs; 0 when pingpong
 * exited with status 0, -1 otherwise (with a message unless stopped).
 */
static int run_storm(char *const argv[], struct ring_buffer *rb)
{
	int status = 0, e;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
		execv(argv[0], argv);
		fprintf(stderr, "hookcost: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	for (;;) {
		pid_t w;

		/* The programs never wake us (BPF_RB_NO_WAKEUP): the timeout paces
		 * the draining. */
		e = ring_buffer__poll(rb, POLL_MS);
		if (e >= 0)
			e = ring_buffer__consume(rb);
		if (e < 0 && e != -EINTR) {
			fail("reading the ring buffer: %s", strerror(-e));
			kill(pid, SIGTERM);
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			fail("waiting for %s: %s", argv[0], strerror(errno));
			child_pid = 0;
			return -1;
		}
	}
	child_pid = 0;
	if (e < 0 && e != -EINTR)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!stop) {
		if (WIFSIGNALED(status))
			fail("%s was killed by signal %d", argv[0], WTERMSIG(status));
		else if (WEXITSTATUS(status) != 127) /* 127: the child said why */
			fail("%s exited with status %d", argv[0], WEXITSTATUS(status));
	}
	return -1;
}

/*
 * One round of one variant: attach it alone, run the storm, detach, and take
 * the difference of its statistics.
 */
static int measure(struct hookcost_bpf *skel, struct bpf_program *prog, const char *name,
		   char *const storm[], struct ring_buffer *rb, struct sample *out)
{
	unsigned long long t0, c0, t1, c1, lost0, lost1;
	struct bpf_link *link;
	int fd = bpf_program__fd(prog), e, rc;

	lost0 = skel->bss->ringbuf_lost + skel->bss->staged_lost;
	e = prog_stats(fd, &t0, &c0);
	if (e) {
		fail("cannot read the statistics of %s: %s", name, strerror(-e));
		return -1;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		fail("cannot attach %s to sched_switch: %s", name, strerror(errno));
		return -1;
	}
	rc = run_storm(storm, rb);
	bpf_link__destroy(link);
	ring_buffer__consume(rb);
	if (rc)
		return -1;
	e = prog_stats(fd, &t1, &c1);
	if (e) {
		fail("cannot read the statistics of %s: %s", name, strerror(-e));
		return -1;
	}
	if (c1 == c0) {
		fail("%s never ran: no sched_switch while it was attached, or no statistics "
		     "(is kernel.bpf_stats_enabled honoured?)",
		     name);
		return -1;
	}
	lost1 = skel->bss->ringbuf_lost + skel->bss->staged_lost;
	if (lost1 != lost0)
		fprintf(stderr,
			"hookcost: warning: %s: %llu records found the ring buffer full "
			"(its figure is too low)\n",
			name, lost1 - lost0);
	out->ns_per_run = (double)(t1 - t0) / (double)(c1 - c0);
	out->runs = c1 - c0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* Median, minimum and maximum of ns per run of one variant over n rounds. */
static void summarize(const struct sample *s, int n, double *med, double *lo, double *hi,
		      unsigned long long *runs)
{
	double x[MAX_ROUNDS];
	unsigned long long r[MAX_ROUNDS];

	for (int i = 0; i < n; i++) {
		x[i] = s[i].ns_per_run;
		r[i] = s[i].runs;
	}
	qsort(x, n, sizeof(x[0]), cmp_double);
	qsort(r, n, sizeof(r[0]), cmp_ull);
	*med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	*runs = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	*lo = x[0];
	*hi = x[n - 1];
}

/* A whole number in [min, max], the whole argument; -1 when it is not one. */
static int parse_int(const char *opt, const char *s, long min, long max, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < min || n > max) {
		fail("%s wants a whole number from %ld to %ld, not '%s'", opt, min, max, s);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* A number in [min, max], the whole argument; -1 when it is not one. */
static int parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *out < min || *out > max) {
		fail("%s wants a number from %g to %g, not '%s'", opt, min, max, s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct sample samples[NVARIANTS][MAX_ROUNDS];
	struct bpf_program *progs[NVARIANTS];
	struct hookcost_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct sigaction sa = {0};
	char pingpong[PATH_MAX] = "", cpu_arg[16] = "0", secs_arg[32] = "1";
	char *storm[6];
	double secs = 1;
	int cpu = 0, rounds = 2, rc = EXIT_FAILED, e;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "-d") && strcmp(a, "--duration") && strcmp(a, "--cpu") &&
		    strcmp(a, "-r") && strcmp(a, "--rounds") && strcmp(a, "--pingpong")) {
			fail("unknown option '%s'", a);
			usage(stderr);
			return EXIT_FAILED;
		}
		if (!v) {
			fail("%s needs a value", a);
			usage(stderr);
			return EXIT_FAILED;
		}
		i++;
		if (!strcmp(a, "-d") || !strcmp(a, "--duration")) {
			if (parse_double(a, v, 0.001, 50, &secs))
				return EXIT_FAILED;
			snprintf(secs_arg, sizeof(secs_arg), "%s", v);
		} else if (!strcmp(a, "--cpu")) {
			if (parse_int(a, v, 0, 4095, &cpu))
				return EXIT_FAILED;
			snprintf(cpu_arg, sizeof(cpu_arg), "%d", cpu);
		} else if (!strcmp(a, "-r") || !strcmp(a, "--rounds")) {
			if (parse_int(a, v, 1, MAX_ROUNDS, &rounds))
				return EXIT_FAILED;
		} else {
			snprintf(pingpong, sizeof(pingpong), "%s", v);
		}
	}
	if (!pingpong[0] && default_pingpong(pingpong, sizeof(pingpong))) {
		fail("cannot find pingpong next to this program: give --pingpong PATH");
		return EXIT_FAILED;
	}
	if (access(pingpong, X_OK)) {
		fail("%s: %s (build it: make all)", pingpong, strerror(errno));
		return EXIT_FAILED;
	}
	storm[0] = pingpong;
	storm[1] = "--pin";
	storm[2] = cpu_arg;
	storm[3] = "-d";
	storm[4] = secs_arg;
	storm[5] = NULL;

	libbpf_set_print(print_libbpf);
	skel = hookcost_bpf__open();
	if (!skel) {
		fail("cannot open the BPF object: %s", strerror(errno));
		return EXIT_FAILED;
	}
	e = hookcost_bpf__load(skel);
	if (e) {
		fail("the kernel refused the programs: %s%s", strerror(-e),
		     e == -EPERM ? " (hookcost needs root)" : "");
		goto out;
	}
	for (size_t v = 0; v < NVARIANTS; v++) {
		char name[64];

		snprintf(name, sizeof(name), "hc_%s", variants[v].name);
		progs[v] = bpf_object__find_program_by_name(skel->obj, name);
		if (!progs[v]) {
			fail("the BPF object has no program %s", name);
			goto out;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, NULL, NULL);
	if (!rb) {
		fail("cannot open the ring buffer: %s", strerror(errno));
		goto out;
	}

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(restore_stats);
	if (enable_stats())
		goto out;

	printf("storm: pingpong --pin %s -d %s  (%zu variants x %d rounds, interleaved)\n", cpu_arg,
	       secs_arg, NVARIANTS, rounds);
	for (int r = 0; r < rounds && !stop; r++) {
		for (size_t v = 0; v < NVARIANTS && !stop; v++) {
			struct sample *s = &samples[v][r];

			if (measure(skel, progs[v], variants[v].name, storm, rb, s))
				goto out;
			printf("  round %d/%d  %-16s %8.1f ns/run %12llu runs\n", r + 1, rounds,
			       variants[v].name, s->ns_per_run, s->runs);
		}
	}
	if (stop)
		goto out;

	{
		double med[NVARIANTS], lo[NVARIANTS], hi[NVARIANTS];
		unsigned long long runs[NVARIANTS];

		for (size_t v = 0; v < NVARIANTS; v++)
			summarize(samples[v], rounds, &med[v], &lo[v], &hi[v], &runs[v]);
		printf("\ncost per run of a sched_switch program (median over %d rounds; the "
		       "kernel's run_time_ns / run_cnt):\n",
		       rounds);
		printf("  %-16s %8s  %-17s %9s %12s  %s\n", "variant", "ns/run", "spread",
		       "vs empty", "runs/round", "what it does");
		for (size_t v = 0; v < NVARIANTS; v++)
			printf("  %-16s %8.1f  %7.1f..%-8.1f %+9.1f %12llu  %s\n", variants[v].name,
			       med[v], lo[v], hi[v], med[v] - med[0], runs[v], variants[v].what);
		printf("  (an operation alone: its vs empty minus store's, %.1f ns)\n",
		       med[1] - med[0]);
		printf("\n");
		printf("bench: hookcost workload=pingpong_pin%s_%ss rounds=%d\n", cpu_arg, secs_arg,
		       rounds);
		for (size_t v = 0; v < NVARIANTS; v++)
			printf("bench: hookcost %s_ns=%.1f vs_empty_ns=%.1f runs=%llu min=%.1f "
			       "max=%.1f\n",
			       variants[v].name, med[v], med[v] - med[0], runs[v], lo[v], hi[v]);
	}
	rc = 0;
out:
	restore_stats();
	ring_buffer__free(rb);
	hookcost_bpf__destroy(skel);
	if (stop) {
		fprintf(stderr, "hookcost: interrupted\n");
		return EXIT_SIGNALLED;
	}
	return rc;
}
