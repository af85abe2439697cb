/* SPDX-License-Identifier: MIT */
/*
 * load.metrics: the load's other metrics (see struct scenario_metric and
 * docs/scenarios.md), each read from a regex or from a key path in the load's
 * JSON output, with its unit, direction and tolerance.
 */
#include <string.h>

#include "core/gate/metric.h"
#include "core/scenario/scenario_internal.h"

/* name(.name)*, each name of [A-Za-z0-9_-]+ followed by any [DIGITS]. */
static int json_path_ok(const char *p)
{
	static const char name[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

	for (;;) {
		size_t n = strspn(p, name);

		if (!n)
			return 0;
		p += n;
		while (*p == '[') {
			n = strspn(p + 1, "0123456789");
			if (!n || p[1 + n] != ']')
				return 0;
			p += n + 2;
		}
		if (!*p)
			return 1;
		if (*p++ != '.')
			return 0;
	}
}

/* The number, name and path checks of one metric; n its mapping. */
static int metric_checks(struct loader *L, const yaml_node_t *n, const struct scenario_load *l,
			 size_t index)
{
	const struct scenario_metric *m = &l->metrics[index];
	const yaml_node_t *v;
	char got[64];

	if (!wperf_metric_name_ok(m->name)) {
		v = wperf_yaml_lookup(&L->y, n, "name");
		wperf_doc_path_key(&L->y.path, "name");
		return wperf_yaml_fail(&L->y, v,
				       "expected a metric's name: 1 to 63 letters, digits, '_', "
				       "'.', '-', not throughput or bottlenecks; found %s",
				       wperf_yaml_describe(v, got, sizeof(got)));
	}
	for (size_t i = 0; i < index; i++)
		if (!strcmp(l->metrics[i].name, m->name)) {
			wperf_doc_path_key(&L->y.path, "name");
			return wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, n, "name"),
					       "metric %s is already defined (load.metrics[%zu])",
					       m->name, i);
		}
	if (!m->regex == !m->json)
		return wperf_yaml_fail(&L->y, n, "expected one of regex or json, %s",
				       m->regex ? "found both" : "found neither");
	if (m->json && !json_path_ok(m->json)) {
		wperf_doc_path_key(&L->y.path, "json");
		return wperf_yaml_fail(
		    &L->y, wperf_yaml_lookup(&L->y, n, "json"),
		    "expected a key path like latency.p99 or runs[0].ops "
		    "(names of letters, digits, '_', '-'; [INDEX] after a name)");
	}
	return 0;
}

static int metric(struct loader *L, const yaml_node_t *n, struct scenario_load *l, size_t index)
{
	static const char *const keys[] = {"name", "higher_is_better", "regex", "json", "file",
					   "unit", "tolerance"};
	struct scenario_metric *m = &l->metrics[index];

	if (SC_KEYS(L, n, keys, 2) < 0 || sc_get_string(L, n, "name", SC_NONEMPTY, &m->name) < 0 ||
	    sc_get_bool(L, n, "higher_is_better", &m->higher_is_better) < 0 ||
	    sc_get_regex(L, n, "regex", 1, &m->regex) < 0 ||
	    sc_get_string(L, n, "json", SC_NONEMPTY, &m->json) < 0 ||
	    sc_get_string(L, n, "file", SC_NONEMPTY, &m->file) < 0 ||
	    sc_get_string(L, n, "unit", SC_NONEMPTY, &m->unit) < 0 ||
	    sc_get_number(L, n, "tolerance", &sc_share, &m->tolerance) < 0)
		return -1;
	if (m->unit && strlen(m->unit) >= WPERF_METRIC_UNIT_MAX) {
		wperf_doc_path_key(&L->y.path, "unit");
		return wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, n, "unit"),
				       "expected at most %d bytes", WPERF_METRIC_UNIT_MAX - 1);
	}
	return metric_checks(L, n, l, index);
}

int sc_metrics(struct loader *L, const yaml_node_t *n, struct scenario_load *l)
{
	const yaml_node_item_t *items;
	size_t k;

	if (wperf_yaml_list(&L->y, n, &items, &k) < 0)
		return -1;
	if (!k || k > SCENARIO_MAX_METRICS)
		return wperf_yaml_fail(&L->y, n, "expected 1 to %d metrics, found %zu",
				       SCENARIO_MAX_METRICS, k);
	if (!(l->metrics = sc_alloc(L, n, k * sizeof(*l->metrics))))
		return -1;
	memset(l->metrics, 0, k * sizeof(*l->metrics));
	for (size_t i = 0; i < k; i++) {
		size_t at = wperf_doc_path_index(&L->y.path, i);

		if (metric(L, wperf_yaml_node(&L->y, items[i]), l, i) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, at);
	}
	l->nmetrics = k;
	return 0;
}
