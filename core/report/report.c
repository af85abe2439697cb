/* SPDX-License-Identifier: MIT */
/*
 * What the report writers share: the names people see.
 */
#include "core/report/report.h"

#include <string.h>

const char *wperf_report_display(const struct wperf_report_opts *opts, const char *identity)
{
	size_t len = strlen(identity);

	for (size_t i = 0; opts && i < opts->naliases; i++)
		if (!strncmp(opts->aliases[i], identity, len) && opts->aliases[i][len] == '=')
			return opts->aliases[i] + len + 1;
	return identity;
}

const char *wperf_vertex_kind_name(uint8_t kind)
{
	static const char *const names[] = {"thread", "disk", "nic", "irq"};

	return kind < sizeof(names) / sizeof(*names) ? names[kind] : "unknown";
}
