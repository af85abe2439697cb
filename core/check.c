/* SPDX-License-Identifier: MIT */
/*
 * The outcome of a whole check (see check.h).
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum wperf_verdict_kind wperf_check_kind(const struct wperf_check *c, int *error)
{
	/* From the least to the most serious: the worst scenario's is the check's. */
	static const enum wperf_verdict_kind order[] = {
	    WPERF_VERDICT_PASS, WPERF_VERDICT_IMPROVED, WPERF_VERDICT_INCONCLUSIVE,
	    WPERF_VERDICT_REGRESSION, WPERF_VERDICT_NEW_BOTTLENECK};
	size_t worst = 0;

	*error = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->scenarios[i].error) {
			*error = 1;
			continue;
		}
		for (size_t k = worst + 1; k < sizeof(order) / sizeof(*order); k++)
			if (c->scenarios[i].verdict.kind == order[k])
				worst = k;
	}
	return order[worst];
}

void wperf_check_scenario_release(struct wperf_check_scenario *s)
{
	free(s->name);
	free(s->dir);
	free(s->reason);
	wperf_verdict_release(&s->verdict);
	memset(s, 0, sizeof(*s));
}

void wperf_check_release(struct wperf_check *c)
{
	for (size_t i = 0; i < c->n; i++)
		wperf_check_scenario_release(&c->scenarios[i]);
	free(c->scenarios);
	memset(c, 0, sizeof(*c));
}
