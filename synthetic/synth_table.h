/* SPDX-License-Identifier: MIT */
/*
 * A table that worker threads update under a lock: one mutex for the whole
 * table (the contention of lock and pools), or, for their fixes, one per
 * stripe (--fixed, --stripes K), so that an update takes only its stripe's;
 * and the options that shape the work around it. Static inline, as in synth.h.
 */
#ifndef SYNTH_TABLE_H
#define SYNTH_TABLE_H

#include "synth.h"

struct stripe {
	pthread_mutex_t lock;
	uint64_t updates; /* the "table": what the lock protects */
} __attribute__((aligned(64)));

struct table {
	struct stripe *stripes;
	int nstripes;
};

/* The options, for a program's getopt_long: its option table takes
 * TABLE_OPTIONS, its usage TABLE_USAGE, and table_option takes them. */
enum { TABLE_OPT_CS_US = 512, TABLE_OPT_OUT_US, TABLE_OPT_FIXED, TABLE_OPT_STRIPES };

#define TABLE_OPTIONS                                                                              \
	{"cs-us", required_argument, NULL, TABLE_OPT_CS_US},                                       \
	    {"out-us", required_argument, NULL, TABLE_OPT_OUT_US},                                 \
	    {"fixed", no_argument, NULL, TABLE_OPT_FIXED},                                         \
	{                                                                                          \
		"stripes", required_argument, NULL, TABLE_OPT_STRIPES                              \
	}

#define TABLE_USAGE                                                                                \
	"      --cs-us US          CPU work inside the table's lock, per update (default 1000)\n"  \
	"      --out-us US         CPU work outside it, per update (default 300)\n"                \
	"      --fixed             finer locking: one lock per stripe of the table\n"              \
	"      --stripes K         stripes with --fixed (default 4 per worker)\n"

struct table_opts {
	int64_t cs_ns, out_ns; /* CPU work inside the lock and outside it, per update */
	bool fixed;
	long long stripes; /* 0: 4 per worker */
};

#define TABLE_OPTS_DEFAULT                                                                         \
	{                                                                                          \
		1000 * SYNTH_NSEC_PER_USEC, 300 * SYNTH_NSEC_PER_USEC, false, 0                    \
	}

/* Takes option c, with its argument arg, when it is one of the table's. */
static inline void table_option(int c, const char *arg, struct table_opts *o)
{
	switch (c) {
	case TABLE_OPT_CS_US:
		o->cs_ns = synth_opt_double("--cs-us", arg, 0, 1e9) * SYNTH_NSEC_PER_USEC;
		break;
	case TABLE_OPT_OUT_US:
		o->out_ns = synth_opt_double("--out-us", arg, 0, 1e9) * SYNTH_NSEC_PER_USEC;
		break;
	case TABLE_OPT_FIXED:
		o->fixed = true;
		break;
	case TABLE_OPT_STRIPES:
		o->stripes = synth_opt_long("--stripes", arg, 1, 1 << 16);
		break;
	}
}

/* The table of nworkers' updates: one stripe, or stripes of them with --fixed. */
static inline void table_init(struct table *t, const struct table_opts *o, int nworkers)
{
	t->nstripes = !o->fixed ? 1 : o->stripes ? (int)o->stripes : 4 * nworkers;
	t->stripes = aligned_alloc(64, t->nstripes * sizeof(*t->stripes));
	if (!t->stripes)
		synth_die(1, "out of memory");
	for (int i = 0; i < t->nstripes; i++) {
		pthread_mutex_init(&t->stripes[i].lock, NULL);
		t->stripes[i].updates = 0;
	}
}

static inline void table_release(struct table *t)
{
	for (int i = 0; i < t->nstripes; i++)
		pthread_mutex_destroy(&t->stripes[i].lock);
	free(t->stripes);
}

#endif /* SYNTH_TABLE_H */
