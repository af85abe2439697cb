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
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/meta.h"
#include "core/util/cmp.h"
#include "harness/record/proc_info.h"

/* The numbered entries of the folder dir, all of them, ascending, into v (a
 * struct wperf_buf of uint64_t, cleared first); 0 or -ENOMEM. */
static int numbered_entries(const char *dir, struct wperf_buf *v)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	wperf_buf_clear(v);
	while (d && !ret && (de = readdir(d))) {
		uint64_t irq = strtoull(de->d_name, NULL, 10);

		if (proc_is_number(de->d_name))
			ret = wperf_buf_append(v, &irq, sizeof(irq));
	}
	if (d)
		closedir(d);
	if (v->len)
		qsort(v->data, v->len / sizeof(uint64_t), sizeof(uint64_t), wperf_cmp_u64_items);
	return ret;
}

/* The interrupts of the device that the link dev leads to, as "N,N" in text
 * (cleared first): 1, 0 when it has none (a virtual device has no link), or
 * -ENOMEM. */
static int bus_irqs(const char *dev, struct wperf_buf *text)
{
	char path[PATH_MAX], sub[PATH_MAX + 16];
	struct wperf_buf v = {0};
	const uint64_t *irqs;
	size_t n = 0;
	int ret = 0;

	wperf_buf_clear(text);
	if (!realpath(dev, path))
		return 0;
	/* up from the bound device, not past /sys/devices */
	while (!ret && !v.len && !strncmp(path, "/sys/devices/", 13)) {
		char line[32];
		uint64_t irq;

		snprintf(sub, sizeof(sub), "%s/msi_irqs", path);
		ret = numbered_entries(sub, &v);
		snprintf(sub, sizeof(sub), "%s/irq", path);
		if (!ret && !v.len && proc_read_small(sub, line, sizeof(line)) == 0 &&
		    (irq = strtoull(line, NULL, 10)) > 0)
			ret = wperf_buf_append(&v, &irq, sizeof(irq));
		*strrchr(path, '/') = '\0';
	}
	irqs = (const uint64_t *)v.data;
	n = v.len / sizeof(*irqs);
	for (size_t i = 0; i < n && !ret; i++)
		ret = wperf_buf_printf(text, "%s%" PRIu64, i ? "," : "", irqs[i]);
	ret = ret ? ret : wperf_buf_append(text, "", 1);
	wperf_buf_release(&v);
	return ret < 0 ? ret : n > 0;
}

/*
 * Appends the entry of each device of the sysfs class folder class (whose
 * entry "id" names it in the key, as key_format prints it) to entries.
 */
static int class_irqs(const char *class, const char *id, const char *key_format,
		      struct wperf_buf *entries)
{
	DIR *d = opendir(class);
	struct wperf_buf irqs = {0};
	struct dirent *de;
	int ret = 0;

	while (d && !ret && (de = readdir(d))) {
		char path[300], name[64], key[48];
		int found;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", class, de->d_name, id);
		if (proc_read_small(path, name, sizeof(name)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/device", class, de->d_name);
		if ((found = bus_irqs(path, &irqs)) <= 0) {
			ret = found;
			continue;
		}
		snprintf(key, sizeof(key), key_format, name);
		ret = meta_entry_add(entries, key, (const char *)irqs.data);
	}
	if (d)
		closedir(d);
	wperf_buf_release(&irqs);
	return ret;
}

int device_irqs_meta(struct wperf_buf *entries)
{
	int ret = class_irqs("/sys/block", "dev", WPERF_META_DISK_IRQS(".30s"), entries);

	return ret ? ret
		   : class_irqs("/sys/class/net", "ifindex", WPERF_META_NET_IRQS(".30s"), entries);
}
