/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's file and memory: reads the file, bounded, into the
 * strict-document kit's YAML reader (core/util/doc_yaml.h), and allocates the
 * scenario's memory under one size limit.
 *
 * Hostile input is expected (scenarios come from pull requests): the file's
 * size, the nesting depth and the memory that aliases can multiply are all
 * bounded, because libyaml bounds none of them (and slows down quadratically
 * with the depth).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/scenario/scenario_internal.h"

#define SC_MAX_FILE  (1u << 20)	 /* bytes of YAML */
#define SC_MAX_BYTES (64u << 20) /* of values, however many times aliases repeat them */

/* Nested lists and mappings: the schema needs 5. Aliases are allowed (a
 * command repeated), their cost counted by sc_alloc. */
static const struct wperf_yaml_limits limits = {"a scenario", 32, 1};

/* ---- memory: every block belongs to the scenario, under one size limit ---- */

void *sc_alloc(struct loader *L, const yaml_node_t *at, size_t n)
{
	void *p;

	if (n > SC_MAX_BYTES - L->bytes) {
		wperf_yaml_fail(&L->y, at,
				"the scenario is too large: its values take more than %u MiB",
				SC_MAX_BYTES >> 20);
		return NULL;
	}
	p = malloc(n ? n : 1);
	if (!p || wperf_buf_append(&L->s->mem, &p, sizeof(p)) < 0) {
		free(p);
		wperf_yaml_no_memory(&L->y);
		return NULL;
	}
	L->bytes += n;
	return p;
}

char *sc_strndup(struct loader *L, const yaml_node_t *at, const char *p, size_t n)
{
	char *s = sc_alloc(L, at, n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* ---- reading the file ---- */

/* The whole file into b, refusing what is not a regular file or too large. */
static int read_file(struct loader *L, struct wperf_buf *b)
{
	struct stat st;
	size_t n;
	FILE *f;

	/* stat first: opening a FIFO would wait for a writer. */
	if (stat(L->file, &st) == 0 && !S_ISREG(st.st_mode)) {
		wperf_error_set(L->err, -EINVAL, "%s: not a regular file", L->file);
		return -1;
	}
	f = fopen(L->file, "rb");
	if (!f) {
		wperf_error_set(L->err, -errno, "%s: %s", L->file, strerror(errno));
		return -1;
	}
	/* In pieces, so that a small file takes little memory; one byte past the limit
	 * tells a file that is too large. */
	do {
		if (wperf_buf_reserve(b, 1 << 16) < 0) {
			fclose(f);
			return wperf_yaml_no_memory(&L->y);
		}
		n = fread(b->data + b->len, 1, 1 << 16, f);
		b->len += n;
	} while (n > 0 && b->len <= SC_MAX_FILE);
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		wperf_error_set(L->err, -e, "%s: %s", L->file, strerror(e));
		return -1;
	}
	fclose(f);
	if (b->len > SC_MAX_FILE) {
		wperf_error_set(L->err, -EFBIG, "%s: larger than %u KiB: not a scenario", L->file,
				SC_MAX_FILE >> 10);
		return -1;
	}
	return 0;
}

int sc_read_document(struct loader *L)
{
	struct wperf_buf b = {0};
	int ret = read_file(L, &b);

	if (!ret)
		ret = wperf_yaml_load(&L->y, L->file, b.data, b.len, &limits, L->err);
	wperf_buf_release(&b);
	return ret;
}
