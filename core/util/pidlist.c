/* SPDX-License-Identifier: MIT */
#include "core/util/pidlist.h"

#include <stdlib.h>

int wperf_pid_list_next(const char **p, uint32_t *pid)
{
	while (*p && **p) {
		char *end;
		unsigned long n = strtoul(*p, &end, 10);

		if (end == *p) {
			(*p)++; /* a separator, a '+' or damage */
			continue;
		}
		*p = end;
		if (n > 0 && n <= UINT32_MAX) {
			*pid = (uint32_t)n;
			return 1;
		}
	}
	return 0;
}
