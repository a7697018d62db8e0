/* OpenRNIC host library: the pure logic of the pci backend. Nothing here
 * makes a system call: PCI addresses, sysfs paths, BAR checks, the choice of
 * a DMA mode, pagemap entries, the IOVA allocator, VFIO info parsing and the
 * hints attached to errors. tests/host/test_pci_util.c covers all of it. */
#ifndef RNIC_PCI_UTIL_H
#define RNIC_PCI_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- addresses */

#define RNIC_BDF_LEN 16 /* "dddd:bb:dd.f" and its NUL, with room to spare */
#define RNIC_SYSFS_PCI "/sys/bus/pci/devices"

struct rnic_bdf {
	uint32_t domain; /* 0..0xffff */
	uint8_t bus, dev, func; /* dev 0..31, func 0..7 */
};

/* "dddd:bb:dd.f" or "bb:dd.f" (domain 0), hexadecimal, as lspci prints it.
 * Returns 0 or EINVAL. */
int rnic_bdf_parse(const char *s, struct rnic_bdf *b);
/* "dddd:bb:dd.f" into out (RNIC_BDF_LEN bytes). */
void rnic_bdf_format(const struct rnic_bdf *b, char *out);

/* The PCI IDs the library looks for: "vvvv:dddd" (vendor:device, four
 * hexadecimal digits each, as `lspci -n` prints them), the value of the
 * environment variable RNIC_PCI_ID_ENV when a bitstream was built with other
 * IDs than the formats' default. Returns 0 or EINVAL (also for vendor
 * 0xffff, which no device may carry). */
#define RNIC_PCI_ID_ENV "RNIC_PCI_ID"
int rnic_pci_id_parse(const char *s, uint16_t *vendor, uint16_t *device);

/* RNIC_SYSFS_PCI "/BDF" ["/" leaf] into out; 0 or ENAMETOOLONG. */
int rnic_sysfs_path(char *out, size_t n, const struct rnic_bdf *b, const char *leaf);
/* The last component of a symlink target (".../drivers/vfio-pci" gives
 * "vfio-pci"); the whole string when it has no '/'. */
const char *rnic_path_last(const char *link);
/* The group number of an iommu_group link target (".../iommu_groups/17");
 * 0 or EINVAL. */
int rnic_iommu_group_parse(const char *link, int *group);

/* ---------------------------------------------------------------- BARs */

enum rnic_bar_verdict {
	RNIC_BAR_OK,
	RNIC_BAR_UNASSIGNED, /* size or address 0: no window was given to the BAR */
	RNIC_BAR_IO,         /* an I/O-port BAR, not memory */
	RNIC_BAR_SMALL,      /* smaller than the register map */
};

enum rnic_bar_verdict rnic_bar_check(uint64_t base, uint64_t size, int is_io, uint64_t need);
const char *rnic_bar_verdict_str(enum rnic_bar_verdict v);

/* What a write-combined map request obtains: libpciaccess opens
 * resourceN_wc when it exists (the kernel makes it for prefetchable memory
 * BARs only) and silently falls back to the uncached resourceN. Returns 1 for
 * write-combined, 0 for uncached. */
int rnic_wc_obtained(int is_prefetchable, int wc_file_exists);

/* ---------------------------------------------------------------- DMA mode */

enum rnic_dma_mode {
	RNIC_DMA_NONE,
	RNIC_DMA_VFIO,    /* IOMMU through VFIO: IOVAs the library allocates */
	RNIC_DMA_PAGEMAP, /* no IOMMU translation: physical addresses */
};

struct rnic_dma_env {
	const char *driver;     /* bound kernel driver, "" when none */
	int iommu_group;        /* -1: the device has no IOMMU group */
	const char *group_type; /* iommu_groups/N/type: "DMA", "DMA-FQ", "identity", ... ("" unknown) */
	int vfio_present;       /* /dev/vfio/vfio exists */
};

/* Choose how the device reaches host memory. Returns 0 with *mode set, or an
 * errno value with *why naming the cause and what to do:
 *   bound to vfio-pci                      VFIO (ENOENT without /dev/vfio/vfio,
 *                                          ENODEV without an IOMMU group)
 *   bound to another kernel driver         EBUSY (uio_pci_generic is accepted)
 *   IOMMU group whose domain translates    EOPNOTSUPP (bind to vfio-pci)
 *   no IOMMU group, or an identity domain  pagemap */
int rnic_dma_choose(const struct rnic_dma_env *e, enum rnic_dma_mode *mode, const char **why);
const char *rnic_dma_mode_str(enum rnic_dma_mode m);

/* ---------------------------------------------------------------- pagemap */

#define RNIC_PM_PFN_MASK ((1ull << 55) - 1)
#define RNIC_PM_SWAPPED (1ull << 62)
#define RNIC_PM_PRESENT (1ull << 63)

/* Decode one /proc/self/pagemap entry: 0 and *pfn; ENOENT (not present),
 * EFAULT (swapped out), EPERM (present but the PFN reads 0: hidden from a
 * process without CAP_SYS_ADMIN). */
int rnic_pagemap_decode(uint64_t entry, uint64_t *pfn);

/* Fill bus_pages[] with the 4 KiB-page bus addresses of [va, va + len) from
 * the bus address of each system page (page_size bytes) the range touches,
 * sys[0] being the one holding va. Returns the number of entries. */
size_t rnic_bus_pages(uintptr_t va, size_t len, size_t page_size, const uint64_t *sys,
		      uint64_t *bus_pages);
/* 1 when sys[0..n) are consecutive pages of page_size bytes. */
int rnic_sys_contiguous(const uint64_t *sys, size_t n, size_t page_size);

/* ---------------------------------------------------------------- IOVAs */

struct rnic_iova_range {
	uint64_t base, size;
};

/* Free IOVA space: sorted, disjoint, coalesced ranges; first fit. Every
 * allocation is aligned to and rounded up to `align` (a power of two). */
struct rnic_iova {
	struct rnic_iova_range *free;
	unsigned int n, cap;
	uint64_t align;
};

int rnic_iova_init(struct rnic_iova *a, uint64_t base, uint64_t size, uint64_t align);
void rnic_iova_destroy(struct rnic_iova *a);
/* 0 and *iova, ENOMEM (no free run large enough, or out of memory), EINVAL
 * (size 0). */
int rnic_iova_alloc(struct rnic_iova *a, uint64_t size, uint64_t *iova);
/* Return [iova, iova + size); EINVAL when it is misaligned or overlaps free
 * space (a double free), ENOMEM. */
int rnic_iova_free(struct rnic_iova *a, uint64_t iova, uint64_t size);
uint64_t rnic_iova_avail(const struct rnic_iova *a);

/* The IOVA window the library uses inside the ranges the IOMMU accepts: the
 * largest part of a range inside [lo, hi), aligned to align. 0 or ENOSPC. */
int rnic_iova_window(const struct rnic_iova_range *r, unsigned int n, uint64_t lo, uint64_t hi,
		     uint64_t align, struct rnic_iova_range *win);

/* Walk the capability chain of a VFIO_IOMMU_GET_INFO answer (buf, len bytes)
 * for the IOVA-range capability; copies up to max ranges into out and sets
 * *n to their number. Returns 0, ENOENT (no such capability: an old kernel)
 * or EINVAL (a malformed chain). */
int rnic_vfio_iova_ranges(const void *buf, size_t len, struct rnic_iova_range *out,
			  unsigned int max, unsigned int *n);

/* ---------------------------------------------------------------- hints */

enum rnic_pci_step {
	RNIC_STEP_SCAN,     /* pci_system_init: reading /sys/bus/pci */
	RNIC_STEP_MAP,      /* mapping a BAR through its sysfs resource file */
	RNIC_STEP_CONFIG,   /* config space (command register) */
	RNIC_STEP_VFIO,     /* /dev/vfio/vfio: the container */
	RNIC_STEP_GROUP,    /* /dev/vfio/N: the device's group */
	RNIC_STEP_DMA_MAP,  /* VFIO_IOMMU_MAP_DMA */
	RNIC_STEP_PAGEMAP,  /* /proc/self/pagemap */
	RNIC_STEP_MLOCK,    /* pinning pages */
	RNIC_STEP_HUGEPAGE, /* a hugepage for a ring (pagemap mode) */
};

/* What to do about error err at step: a short sentence, never NULL. */
const char *rnic_pci_hint(enum rnic_pci_step step, int err);

#endif /* RNIC_PCI_UTIL_H */
