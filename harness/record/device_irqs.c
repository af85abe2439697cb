/* SPDX-License-Identifier: MIT */
/*
 * The hard interrupts of disks and network interfaces, from sysfs (see
 * device_irqs.h). A block or net device's "device" link leads to the device
 * its driver bound (virtio1); the interrupts are those of the first device up
 * the tree that has any: its MSI vectors (msi_irqs/), else its legacy line
 * (irq), as a PCI function has them.
 */
#include "harness/record/device_irqs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/meta.h"
#include "harness/record/proc_info.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The numbered entries of the folder dir, ascending, into v (at most max). */
static size_t numbered_entries(const char *dir, int *v, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) && n < max)
		if (proc_is_number(de->d_name))
			v[n++] = atoi(de->d_name);
	if (d)
		closedir(d);
	qsort(v, n, sizeof(*v), cmp_int);
	return n;
}

/* The interrupts of the device that the link dev leads to, as "N,N" in out:
 * 1, or 0 when it has none (a virtual device has no link). */
static int bus_irqs(const char *dev, char *out, size_t size)
{
	char path[PATH_MAX], sub[PATH_MAX + 16];
	int v[128];
	size_t n = 0, len = 0;

	if (!realpath(dev, path))
		return 0;
	/* up from the bound device, not past /sys/devices */
	while (!n && !strncmp(path, "/sys/devices/", 13)) {
		char line[32];

		snprintf(sub, sizeof(sub), "%s/msi_irqs", path);
		n = numbered_entries(sub, v, sizeof(v) / sizeof(*v));
		snprintf(sub, sizeof(sub), "%s/irq", path);
		if (!n && proc_read_small(sub, line, sizeof(line)) == 0 && atoi(line) > 0)
			v[n++] = atoi(line);
		*strrchr(path, '/') = '\0';
	}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + len, size - len, "%s%d", i ? "," : "", v[i]);

		if (w < 0 || (size_t)w >= size - len) { /* what fits, whole numbers only */
			out[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
	return len > 0;
}

/*
 * Appends the entry of each device of the sysfs class folder class (whose
 * entry "id" names it in the key, as key_format prints it) to entries.
 */
static int class_irqs(const char *class, const char *id, const char *key_format,
		      struct wperf_buf *entries)
{
	DIR *d = opendir(class);
	struct dirent *de;
	int ret = 0;

	while (d && !ret && (de = readdir(d))) {
		char path[300], name[64], key[48], irqs[256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", class, de->d_name, id);
		if (proc_read_small(path, name, sizeof(name)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/device", class, de->d_name);
		if (!bus_irqs(path, irqs, sizeof(irqs)))
			continue;
		snprintf(key, sizeof(key), key_format, name);
		ret = meta_entry_add(entries, key, irqs);
	}
	if (d)
		closedir(d);
	return ret;
}

int device_irqs_meta(struct wperf_buf *entries)
{
	int ret = class_irqs("/sys/block", "dev", WPERF_META_DISK_IRQS(".30s"), entries);

	return ret ? ret
		   : class_irqs("/sys/class/net", "ifindex", WPERF_META_NET_IRQS(".30s"), entries);
}
