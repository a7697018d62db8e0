/* OpenRNIC host library: the pure logic of the pci backend (see pci_util.h).
 * No system calls here, so every branch is reachable from a unit test. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "pci_util.h"

/* ---------------------------------------------------------------- addresses */

/* n hex digits exactly, value at most max. */
static int hex_field(const char **p, unsigned int digits, unsigned long max, unsigned long *v)
{
	unsigned long x = 0;

	for (unsigned int i = 0; i < digits; i++) {
		char c = (*p)[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return EINVAL;
		x = x * 16 + (unsigned long)d;
	}
	if (x > max)
		return EINVAL;
	*p += digits;
	*v = x;
	return 0;
}

int rnic_bdf_parse(const char *s, struct rnic_bdf *b)
{
	unsigned long dom = 0, bus, dev, fn;
	const char *p = s;

	if (!s || !b)
		return EINVAL;
	/* with a domain, the fifth character is the first ':' */
	if (strlen(s) == 12 && s[4] == ':') {
		if (hex_field(&p, 4, 0xffff, &dom) || *p++ != ':')
			return EINVAL;
	}
	if (hex_field(&p, 2, 0xff, &bus) || *p++ != ':' || hex_field(&p, 2, 0x1f, &dev) ||
	    *p++ != '.' || hex_field(&p, 1, 7, &fn) || *p)
		return EINVAL;
	b->domain = (uint32_t)dom;
	b->bus = (uint8_t)bus;
	b->dev = (uint8_t)dev;
	b->func = (uint8_t)fn;
	return 0;
}

int rnic_pci_id_parse(const char *s, uint16_t *vendor, uint16_t *device)
{
	unsigned long v, d;
	const char *p = s;

	if (!s || !vendor || !device || strlen(s) != 9)
		return EINVAL;
	if (hex_field(&p, 4, 0xfffe, &v) || *p++ != ':' || hex_field(&p, 4, 0xffff, &d) || *p)
		return EINVAL;
	*vendor = (uint16_t)v;
	*device = (uint16_t)d;
	return 0;
}

void rnic_bdf_format(const struct rnic_bdf *b, char *out)
{
	snprintf(out, RNIC_BDF_LEN, "%04x:%02x:%02x.%x", (unsigned int)b->domain & 0xffff, b->bus,
		 b->dev & 0x1f, b->func & 7);
}

int rnic_sysfs_path(char *out, size_t n, const struct rnic_bdf *b, const char *leaf)
{
	char bdf[RNIC_BDF_LEN];
	int len;

	rnic_bdf_format(b, bdf);
	if (leaf && *leaf)
		len = snprintf(out, n, "%s/%s/%s", RNIC_SYSFS_PCI, bdf, leaf);
	else
		len = snprintf(out, n, "%s/%s", RNIC_SYSFS_PCI, bdf);
	return len < 0 || (size_t)len >= n ? ENAMETOOLONG : 0;
}

const char *rnic_path_last(const char *link)
{
	const char *slash = strrchr(link, '/');

	return slash ? slash + 1 : link;
}

int rnic_iommu_group_parse(const char *link, int *group)
{
	const char *last = rnic_path_last(link);
	long g = 0;

	/* ".../iommu_groups/" then one or more decimal digits, nothing else */
	if (last - link < 13 || strncmp(last - 13, "iommu_groups/", 13) != 0 || !*last)
		return EINVAL;
	for (const char *p = last; *p; p++) {
		if (*p < '0' || *p > '9' || g > 100000000)
			return EINVAL;
		g = g * 10 + (*p - '0');
	}
	*group = (int)g;
	return 0;
}

/* ---------------------------------------------------------------- BARs */

enum rnic_bar_verdict rnic_bar_check(uint64_t base, uint64_t size, int is_io, uint64_t need)
{
	if (is_io)
		return RNIC_BAR_IO;
	if (size == 0 || base == 0)
		return RNIC_BAR_UNASSIGNED;
	if (size < need)
		return RNIC_BAR_SMALL;
	return RNIC_BAR_OK;
}

const char *rnic_bar_verdict_str(enum rnic_bar_verdict v)
{
	switch (v) {
	case RNIC_BAR_OK: return "usable";
	case RNIC_BAR_UNASSIGNED: return "not assigned (size or address 0)";
	case RNIC_BAR_IO: return "an I/O-port BAR, not memory";
	case RNIC_BAR_SMALL: return "smaller than the register map";
	default: return "unknown";
	}
}

int rnic_wc_obtained(int is_prefetchable, int wc_file_exists)
{
	return is_prefetchable && wc_file_exists;
}

/* ---------------------------------------------------------------- DMA mode */

int rnic_dma_choose(const struct rnic_dma_env *e, enum rnic_dma_mode *mode, const char **why)
{
	const char *drv = e->driver ? e->driver : "";
	const char *type = e->group_type ? e->group_type : "";

	*mode = RNIC_DMA_NONE;
	*why = NULL;
	if (strcmp(drv, "vfio-pci") == 0) {
		if (e->iommu_group < 0) {
			*why = "bound to vfio-pci but the device has no IOMMU group (vfio no-IOMMU mode cannot map DMA): boot with the IOMMU on (intel_iommu=on or amd_iommu=on)";
			return ENODEV;
		}
		if (!e->vfio_present) {
			*why = "bound to vfio-pci but /dev/vfio/vfio is missing: modprobe vfio-pci";
			return ENOENT;
		}
		*mode = RNIC_DMA_VFIO;
		return 0;
	}
	if (*drv && strcmp(drv, "uio_pci_generic") != 0) {
		*why = "bound to another kernel driver: unbind it (echo BDF > /sys/bus/pci/devices/BDF/driver/unbind) or bind vfio-pci";
		return EBUSY;
	}
	/* No driver of ours: the device's DMA goes through the group's default
	 * domain. Only an identity (passthrough) domain lets physical addresses
	 * through; a translating one faults every access that VFIO did not map. */
	if (e->iommu_group >= 0 && strcmp(type, "identity") != 0) {
		*why = "the IOMMU translates this device's DMA: bind it to vfio-pci (echo vfio-pci > /sys/bus/pci/devices/BDF/driver_override; echo BDF > /sys/bus/pci/drivers_probe), or boot with iommu=pt";
		return EOPNOTSUPP;
	}
	*mode = RNIC_DMA_PAGEMAP;
	return 0;
}

const char *rnic_dma_mode_str(enum rnic_dma_mode m)
{
	switch (m) {
	case RNIC_DMA_VFIO: return "vfio";
	case RNIC_DMA_PAGEMAP: return "pagemap";
	default: return "none";
	}
}

/* ---------------------------------------------------------------- pagemap */

int rnic_pagemap_decode(uint64_t entry, uint64_t *pfn)
{
	if (entry & RNIC_PM_SWAPPED)
		return EFAULT;
	if (!(entry & RNIC_PM_PRESENT))
		return ENOENT;
	if ((entry & RNIC_PM_PFN_MASK) == 0)
		return EPERM;
	*pfn = entry & RNIC_PM_PFN_MASK;
	return 0;
}

size_t rnic_bus_pages(uintptr_t va, size_t len, size_t page_size, const uint64_t *sys,
		      uint64_t *bus_pages)
{
	uintptr_t sys0 = va & ~(uintptr_t)(page_size - 1);
	uintptr_t first = va >> 12, last = (va + len - 1) >> 12;

	for (uintptr_t p = first; p <= last; p++) {
		uintptr_t off = (p << 12) - sys0;

		bus_pages[p - first] = sys[off / page_size] + off % page_size;
	}
	return (size_t)(last - first + 1);
}

int rnic_sys_contiguous(const uint64_t *sys, size_t n, size_t page_size)
{
	for (size_t i = 1; i < n; i++)
		if (sys[i] != sys[0] + i * page_size)
			return 0;
	return 1;
}

/* ---------------------------------------------------------------- IOVAs */

int rnic_iova_init(struct rnic_iova *a, uint64_t base, uint64_t size, uint64_t align)
{
	memset(a, 0, sizeof(*a));
	if (align == 0 || (align & (align - 1)) || (base & (align - 1)) || size < align)
		return EINVAL;
	a->align = align;
	a->cap = 16;
	a->free = calloc(a->cap, sizeof(*a->free));
	if (!a->free)
		return ENOMEM;
	a->free[0].base = base;
	a->free[0].size = size & ~(align - 1);
	a->n = 1;
	return 0;
}

void rnic_iova_destroy(struct rnic_iova *a)
{
	free(a->free);
	memset(a, 0, sizeof(*a));
}

int rnic_iova_alloc(struct rnic_iova *a, uint64_t size, uint64_t *iova)
{
	if (size == 0)
		return EINVAL;
	if (size > UINT64_MAX - a->align)
		return ENOMEM;
	size = (size + a->align - 1) & ~(a->align - 1);
	for (unsigned int i = 0; i < a->n; i++) {
		struct rnic_iova_range *r = &a->free[i];

		if (r->size < size)
			continue;
		*iova = r->base;
		r->base += size;
		r->size -= size;
		if (r->size == 0) {
			memmove(r, r + 1, (a->n - i - 1) * sizeof(*r));
			a->n--;
		}
		return 0;
	}
	return ENOMEM;
}

int rnic_iova_free(struct rnic_iova *a, uint64_t iova, uint64_t size)
{
	unsigned int i;
	struct rnic_iova_range *r;

	if (size == 0 || (iova & (a->align - 1)) || iova + size < iova)
		return EINVAL;
	size = (size + a->align - 1) & ~(a->align - 1);
	/* i: the first free range above iova */
	for (i = 0; i < a->n && a->free[i].base < iova; i++)
		;
	if (i > 0 && a->free[i - 1].base + a->free[i - 1].size > iova)
		return EINVAL;
	if (i < a->n && iova + size > a->free[i].base)
		return EINVAL;
	if (i > 0 && a->free[i - 1].base + a->free[i - 1].size == iova) {
		r = &a->free[i - 1];
		r->size += size;
		if (i < a->n && r->base + r->size == a->free[i].base) {
			r->size += a->free[i].size;
			memmove(&a->free[i], &a->free[i + 1], (a->n - i - 1) * sizeof(*r));
			a->n--;
		}
		return 0;
	}
	if (i < a->n && iova + size == a->free[i].base) {
		a->free[i].base = iova;
		a->free[i].size += size;
		return 0;
	}
	if (a->n == a->cap) {
		unsigned int cap = a->cap * 2;
		struct rnic_iova_range *f = realloc(a->free, cap * sizeof(*f));

		if (!f)
			return ENOMEM;
		a->free = f;
		a->cap = cap;
	}
	memmove(&a->free[i + 1], &a->free[i], (a->n - i) * sizeof(*a->free));
	a->free[i].base = iova;
	a->free[i].size = size;
	a->n++;
	return 0;
}

uint64_t rnic_iova_avail(const struct rnic_iova *a)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < a->n; i++)
		s += a->free[i].size;
	return s;
}

int rnic_iova_window(const struct rnic_iova_range *r, unsigned int n, uint64_t lo, uint64_t hi,
		     uint64_t align, struct rnic_iova_range *win)
{
	uint64_t best = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t b = r[i].base > lo ? r[i].base : lo;
		uint64_t e = r[i].base + r[i].size < r[i].base ? UINT64_MAX : r[i].base + r[i].size;

		if (e > hi)
			e = hi;
		b = (b + align - 1) & ~(align - 1);
		if (b < lo || b >= e)
			continue;
		e = b + ((e - b) & ~(align - 1));
		if (e - b > best) {
			best = e - b;
			win->base = b;
			win->size = e - b;
		}
	}
	return best ? 0 : ENOSPC;
}

int rnic_vfio_iova_ranges(const void *buf, size_t len, struct rnic_iova_range *out,
			  unsigned int max, unsigned int *n)
{
	const struct vfio_iommu_type1_info *info = buf;
	const uint8_t *b = buf;
	uint32_t off;

	*n = 0;
	if (len < sizeof(*info))
		return EINVAL;
	if (!(info->flags & VFIO_IOMMU_INFO_CAPS) || info->cap_offset == 0)
		return ENOENT;
	off = info->cap_offset;
	for (unsigned int hops = 0; off; hops++) {
		struct vfio_info_cap_header h;

		if (hops > 64 || off < sizeof(*info) || off > len || len - off < sizeof(h) || (off & 3))
			return EINVAL;
		memcpy(&h, b + off, sizeof(h));
		if (h.id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
			struct vfio_iommu_type1_info_cap_iova_range c;
			struct vfio_iova_range vr;

			if (len - off < sizeof(c))
				return EINVAL;
			memcpy(&c, b + off, sizeof(c));
			if (c.nr_iovas > (len - off - sizeof(c)) / sizeof(vr))
				return EINVAL;
			for (uint32_t i = 0; i < c.nr_iovas && *n < max; i++) {
				memcpy(&vr, b + off + sizeof(c) + i * sizeof(vr), sizeof(vr));
				if (vr.end < vr.start)
					return EINVAL;
				out[*n].base = vr.start;
				/* end is inclusive; the full 64-bit space saturates */
				out[*n].size = vr.end - vr.start == UINT64_MAX ? UINT64_MAX :
										 vr.end - vr.start + 1;
				(*n)++;
			}
			return 0;
		}
		if (h.next && h.next <= off)
			return EINVAL; /* a loop */
		off = h.next;
	}
	return ENOENT;
}

/* ---------------------------------------------------------------- hints */

const char *rnic_pci_hint(enum rnic_pci_step step, int err)
{
	int perm = err == EACCES || err == EPERM;

	switch (step) {
	case RNIC_STEP_SCAN:
		if (err == ENOENT)
			return "this system exposes no PCI bus (/sys/bus/pci/devices is missing; a container without sysfs?)";
		if (perm)
			return "/sys/bus/pci/devices is not readable: run with access to sysfs";
		break;
	case RNIC_STEP_MAP:
		if (perm)
			return "mapping a BAR needs root (CAP_SYS_ADMIN on /sys/bus/pci/devices/BDF/resource0): run as root";
		if (err == ENOENT)
			return "the BAR's sysfs resource file is missing: was the device removed? (lspci; echo 1 > /sys/bus/pci/rescan)";
		if (err == EBUSY)
			return "the kernel refused the mapping: is a kernel driver holding the device? (lspci -k)";
		break;
	case RNIC_STEP_CONFIG:
		if (perm)
			return "writing the command register needs root: run as root";
		break;
	case RNIC_STEP_VFIO:
		if (err == ENOENT || err == ENODEV)
			return "VFIO is not available: modprobe vfio-pci and boot with the IOMMU on (intel_iommu=on or amd_iommu=on)";
		if (perm)
			return "/dev/vfio/vfio is not accessible: run as root";
		if (err == EPROTONOSUPPORT || err == EOPNOTSUPP)
			return "the kernel's VFIO lacks the type-1 IOMMU API this library uses";
		break;
	case RNIC_STEP_GROUP:
		if (err == ENOENT)
			return "the IOMMU group has no VFIO node: bind the device to vfio-pci (echo vfio-pci > /sys/bus/pci/devices/BDF/driver_override; echo BDF > /sys/bus/pci/drivers_probe)";
		if (perm)
			return "/dev/vfio/N is not accessible: run as root or give the user the group node (udev rule)";
		if (err == EBUSY)
			return "the VFIO group is already open (another process, or another context on this device)";
		if (err == EINVAL)
			return "the VFIO group is not viable: bind every device of /sys/kernel/iommu_groups/N/devices to vfio-pci (or unbind it)";
		break;
	case RNIC_STEP_DMA_MAP:
		if (err == ENOMEM || perm)
			return "pinning pages counts against the locked-memory limit: raise it (ulimit -l) or run as root";
		if (err == ENOSPC)
			return "the IOMMU ran out of mappings (vfio_iommu_type1 dma_entry_limit) or IOVA space";
		if (err == EEXIST)
			return "this IOVA is mapped already (a library bug)";
		break;
	case RNIC_STEP_PAGEMAP:
		if (perm)
			return "physical addresses are hidden from processes without CAP_SYS_ADMIN: run as root, or use VFIO with the IOMMU";
		if (err == ENOENT)
			return "/proc/self/pagemap is missing: is /proc mounted?";
		if (err == EFAULT)
			return "a page is not resident although locked";
		break;
	case RNIC_STEP_MLOCK:
		if (err == ENOMEM || err == EAGAIN || perm)
			return "pinning pages counts against the locked-memory limit: raise it (ulimit -l) or run as root";
		break;
	case RNIC_STEP_HUGEPAGE:
		if (err == ENOMEM || err == EAGAIN)
			return "without an IOMMU a ring needs physically contiguous memory: reserve hugepages (sysctl vm.nr_hugepages=N), or use VFIO";
		break;
	default:
		break;
	}
	return "see the message above";
}
