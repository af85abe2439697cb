/* SPDX-License-Identifier: MIT */
/*
 * Durations, the one reader of every key that holds a time (load.duration,
 * ready.timeout, record.window, ...): a number of seconds, or a number with
 * a unit, 500ms, 30s, 2m, 1h, as people write them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario/scenario_internal.h"

static const struct {
	const char *name;
	double seconds;
} units[] = {{"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};

int scenario_parse_duration(const char *text, double *seconds, int *has_unit)
{
	/* Decimal numbers only: strtod alone would also take hex, inf and nan. */
	size_t n = strspn(text, "0123456789+-.eE");
	char *end;
	double d;

	if (!n || !strpbrk(text, "0123456789") || strchr("eE", text[0]))
		return -EINVAL;
	errno = 0;
	d = strtod(text, &end);
	if (end != text + n)
		return -EINVAL;
	if (errno == ERANGE && fabs(d) > 1)
		d = HUGE_VAL; /* out of every range, rather than a syntax error */
	*has_unit = text[n] != '\0';
	if (!*has_unit) {
		*seconds = d;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		if (!strcmp(text + n, units[i].name)) {
			*seconds = d * units[i].seconds;
			return 0;
		}
	}
	return -EINVAL;
}

int sc_duration(struct loader *L, const yaml_node_t *n, const struct wperf_doc_range *r,
		double *out)
{
	const char *text = n->type == YAML_SCALAR_NODE && !wperf_yaml_is_null(n)
			       ? (const char *)n->data.scalar.value
			       : "";
	int has_unit = 0,
	    quoted = n->type == YAML_SCALAR_NODE && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	char got[64];
	double d;

	/* A bare number is YAML's number: quoted, it is a string, as everywhere. */
	if (!text[0] || scenario_parse_duration(text, &d, &has_unit) < 0 || (quoted && !has_unit))
		return wperf_yaml_fail(&L->y, n,
				       "expected a duration like 30s, 500ms, 2m, found %s%s",
				       wperf_yaml_describe(n, got, sizeof(got)),
				       quoted && !has_unit ? " (a quoted string)" : "");
	if (!wperf_doc_in_range(d, r))
		return wperf_yaml_fail(
		    &L->y, n, "expected a duration in %c%.9g s, %.9g s%c, found %s",
		    r->min_open ? '(' : '[', r->min, r->max, r->max_open ? ')' : ']',
		    wperf_yaml_describe(n, got, sizeof(got)));
	*out = d;
	return 0;
}
