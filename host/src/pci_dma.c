/* OpenRNIC host library: pinned DMA memory for the pci backend (VFIO with the
 * IOMMU, or mlock + /proc/self/pagemap without it); see pci_dma.h. The
 * decisions (IOVA allocation, pagemap decoding, page lists) are the pure
 * functions of pci_util.c; this file makes the system calls. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_HUGETLB */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "pci_dma.h"
#include "priv.h"

/* IOVAs handed to the device: never below 1 MiB (bus address 0 names "no
 * ring" in a QPC) and below 2^48, which every IOMMU page table reaches and
 * leaves bit 63 (MTT space in an MPT pa) clear. Without the kernel's list of
 * valid ranges, stay below the x86 MSI window at 0xfee00000. */
#define IOVA_LO (1ull << 20)
#define IOVA_HI (1ull << 48)
#define IOVA_HI_NOINFO 0xfee00000ull
#define IOVA_MAX_RANGES 32

struct dma_rec {
	uintptr_t va;   /* first system page */
	size_t len;     /* whole system pages */
	uint64_t iova;  /* vfio: the bus address of va */
	uint64_t *sys;  /* pagemap: the physical address of each system page */
	unsigned int refs;
};

struct rnic_pci_dma {
	enum rnic_dma_mode mode;
	size_t page_size;
	int container, group, device; /* vfio */
	int pagemap;                  /* pagemap: /proc/self/pagemap */
	struct rnic_iova iova;
	struct dma_rec *rec;
	unsigned int nrec, caprec;
};

static struct rnic_pci_dma *dma_new(enum rnic_dma_mode mode)
{
	struct rnic_pci_dma *m = calloc(1, sizeof(*m));
	long ps = sysconf(_SC_PAGESIZE);

	if (!m)
		return NULL;
	m->mode = mode;
	m->page_size = ps > 0 ? (size_t)ps : 4096;
	m->container = m->group = m->device = m->pagemap = -1;
	return m;
}

void rnic_dma_close(struct rnic_pci_dma *m)
{
	if (!m)
		return;
	/* Whatever is still mapped (a context closed with live objects cannot
	 * happen; this is for a failed open): undo it. */
	while (m->nrec) {
		struct dma_rec *r = &m->rec[0];

		m->rec[0].refs = 1;
		rnic_dma_unmap(m, (void *)r->va, r->len);
	}
	free(m->rec);
	rnic_iova_destroy(&m->iova);
	if (m->device >= 0)
		close(m->device);
	if (m->group >= 0)
		close(m->group);
	if (m->container >= 0)
		close(m->container);
	if (m->pagemap >= 0)
		close(m->pagemap);
	free(m);
}

enum rnic_dma_mode rnic_dma_mode_of(const struct rnic_pci_dma *m) { return m->mode; }
unsigned int rnic_dma_nmaps(const struct rnic_pci_dma *m) { return m->nrec; }

/* ---------------------------------------------------------------- VFIO */

static int vfio_container(int *fd, char *why, size_t n)
{
	int c, err, v;

	c = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (c < 0) {
		err = errno;
		snprintf(why, n, "/dev/vfio/vfio: %s: %s", strerror(err), rnic_pci_hint(RNIC_STEP_VFIO, err));
		return err;
	}
	v = ioctl(c, VFIO_GET_API_VERSION);
	if (v != VFIO_API_VERSION) {
		snprintf(why, n, "VFIO API version %d, this library speaks %d: %s", v, VFIO_API_VERSION,
			 rnic_pci_hint(RNIC_STEP_VFIO, EPROTONOSUPPORT));
		close(c);
		return EPROTONOSUPPORT;
	}
	if (ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0 &&
	    ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) <= 0) {
		snprintf(why, n, "VFIO has no type-1 IOMMU: %s", rnic_pci_hint(RNIC_STEP_VFIO, EOPNOTSUPP));
		close(c);
		return EOPNOTSUPP;
	}
	*fd = c;
	return 0;
}

int rnic_vfio_probe(char *why, size_t n)
{
	int fd, err;

	err = vfio_container(&fd, why, n);
	if (!err) {
		close(fd);
		snprintf(why, n, "VFIO API %d with a type-1 IOMMU", VFIO_API_VERSION);
	}
	return err;
}

/* The IOVA window: the largest valid range the kernel reports (or a
 * conservative one on kernels without the capability), in system pages. */
static int vfio_window(struct rnic_pci_dma *m, const char *bdf)
{
	struct vfio_iommu_type1_info *info;
	struct rnic_iova_range ranges[IOVA_MAX_RANGES], win;
	unsigned int n = 0;
	uint64_t hi = IOVA_HI;
	size_t sz = sizeof(*info);
	int err;

	/* Ask once with the bare struct, then once more with the size the
	 * kernel said it needs: the capability chain makes the answer larger. */
	info = NULL;
	for (int tries = 0;; tries++) {
		struct vfio_iommu_type1_info *grown = realloc(info, sz);

		if (!grown) {
			free(info);
			return ENOMEM;
		}
		info = grown;
		memset(info, 0, sz);
		info->argsz = (uint32_t)sz;
		if (ioctl(m->container, VFIO_IOMMU_GET_INFO, info)) {
			err = errno;
			free(info);
			rnic_log("%s: VFIO_IOMMU_GET_INFO: %s", bdf, strerror(err));
			return err;
		}
		if (info->argsz <= sz || tries == 1)
			break;
		sz = info->argsz;
	}
	if ((info->flags & VFIO_IOMMU_INFO_PGSIZES) &&
	    (info->iova_pgsizes & -info->iova_pgsizes) > m->page_size) {
		rnic_log("%s: the IOMMU's smallest page (%llu bytes) is larger than the system page", bdf,
			 (unsigned long long)(info->iova_pgsizes & -info->iova_pgsizes));
		free(info);
		return EOPNOTSUPP;
	}
	err = rnic_vfio_iova_ranges(info, sz, ranges, IOVA_MAX_RANGES, &n);
	free(info);
	if (err == ENOENT) {
		ranges[0].base = 0;
		ranges[0].size = UINT64_MAX;
		n = 1;
		hi = IOVA_HI_NOINFO;
	} else if (err) {
		rnic_log("%s: VFIO_IOMMU_GET_INFO: malformed capability chain", bdf);
		return EIO;
	}
	err = rnic_iova_window(ranges, n, IOVA_LO, hi, m->page_size, &win);
	if (err) {
		rnic_log("%s: VFIO reports no usable IOVA range between 0x%llx and 0x%llx", bdf,
			 (unsigned long long)IOVA_LO, (unsigned long long)hi);
		return err;
	}
	return rnic_iova_init(&m->iova, win.base, win.size, m->page_size);
}

int rnic_dma_open_vfio(struct rnic_pci_dma **out, const char *bdf, int group)
{
	struct vfio_group_status st = {.argsz = sizeof(st)};
	struct rnic_pci_dma *m;
	char path[64], why[256];
	int err, type;

	m = dma_new(RNIC_DMA_VFIO);
	if (!m)
		return ENOMEM;
	err = vfio_container(&m->container, why, sizeof(why));
	if (err) {
		rnic_log("%s: %s", bdf, why);
		goto fail;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%d", group);
	m->group = open(path, O_RDWR | O_CLOEXEC);
	if (m->group < 0) {
		err = errno;
		rnic_log("%s: %s: %s: %s", bdf, path, strerror(err), rnic_pci_hint(RNIC_STEP_GROUP, err));
		goto fail;
	}
	if (ioctl(m->group, VFIO_GROUP_GET_STATUS, &st) || !(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		err = EINVAL;
		rnic_log("%s: IOMMU group %d is not viable: %s", bdf, group,
			 rnic_pci_hint(RNIC_STEP_GROUP, err));
		goto fail;
	}
	if (ioctl(m->group, VFIO_GROUP_SET_CONTAINER, &m->container)) {
		err = errno;
		rnic_log("%s: VFIO_GROUP_SET_CONTAINER: %s", bdf, strerror(err));
		goto fail;
	}
	type = ioctl(m->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) > 0 ? VFIO_TYPE1v2_IOMMU :
										    VFIO_TYPE1_IOMMU;
	if (ioctl(m->container, VFIO_SET_IOMMU, type)) {
		err = errno;
		rnic_log("%s: VFIO_SET_IOMMU: %s", bdf, strerror(err));
		goto fail;
	}
	/* Holding the device fd keeps the device ours; vfio-pci enables it
	 * (memory decoding) on the first open. */
	m->device = ioctl(m->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (m->device < 0) {
		err = errno;
		rnic_log("%s: VFIO_GROUP_GET_DEVICE_FD: %s", bdf, strerror(err));
		goto fail;
	}
	err = vfio_window(m, bdf);
	if (err)
		goto fail;
	*out = m;
	return 0;

fail:
	rnic_dma_close(m);
	return err;
}

/* ---------------------------------------------------------------- pagemap */

/* Physical address of each system page of [va, va + len) into sys[]. */
static int pagemap_read(struct rnic_pci_dma *m, uintptr_t va, size_t len, uint64_t *sys)
{
	size_t n = len / m->page_size, done = 0;
	off_t off = (off_t)(va / m->page_size) * 8;

	while (done < n * 8) {
		ssize_t r = pread(m->pagemap, (uint8_t *)sys + done, n * 8 - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : EIO;
		done += (size_t)r;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t pfn;
		int err = rnic_pagemap_decode(sys[i], &pfn);

		if (err)
			return err;
		sys[i] = pfn * m->page_size;
	}
	return 0;
}

int rnic_dma_open_pagemap(struct rnic_pci_dma **out)
{
	struct rnic_pci_dma *m;
	uint64_t phys;
	void *probe = NULL;
	int err;

	m = dma_new(RNIC_DMA_PAGEMAP);
	if (!m)
		return ENOMEM;
	m->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (m->pagemap < 0) {
		err = errno;
		rnic_log("/proc/self/pagemap: %s: %s", strerror(err), rnic_pci_hint(RNIC_STEP_PAGEMAP, err));
		goto fail;
	}
	/* Fail at open, not at the first MR, when physical addresses are hidden. */
	if (posix_memalign(&probe, m->page_size, m->page_size)) {
		err = ENOMEM;
		goto fail;
	}
	memset(probe, 0, m->page_size);
	if (mlock(probe, m->page_size)) {
		err = errno;
		rnic_log("mlock: %s: %s", strerror(err), rnic_pci_hint(RNIC_STEP_MLOCK, err));
		goto fail;
	}
	err = pagemap_read(m, (uintptr_t)probe, m->page_size, &phys);
	munlock(probe, m->page_size);
	if (err) {
		rnic_log("/proc/self/pagemap: %s: %s", strerror(err), rnic_pci_hint(RNIC_STEP_PAGEMAP, err));
		goto fail;
	}
	free(probe);
	*out = m;
	return 0;

fail:
	free(probe);
	rnic_dma_close(m);
	return err;
}

/* ---------------------------------------------------------------- mappings */

static struct dma_rec *rec_find(struct rnic_pci_dma *m, uintptr_t va, size_t len)
{
	for (unsigned int i = 0; i < m->nrec; i++)
		if (m->rec[i].va == va && m->rec[i].len == len)
			return &m->rec[i];
	return NULL;
}

/* mlock does not nest: unlock only the pages no other mapping holds. */
static void unlock_unshared(struct rnic_pci_dma *m, const struct dma_rec *r)
{
	for (uintptr_t p = r->va; p < r->va + r->len; p += m->page_size) {
		int shared = 0;

		for (unsigned int i = 0; i < m->nrec && !shared; i++)
			shared = &m->rec[i] != r && p >= m->rec[i].va && p < m->rec[i].va + m->rec[i].len;
		if (!shared)
			munlock((void *)p, m->page_size);
	}
}

/* The mapping record of the system pages under [va, va + len): an existing
 * one, or a new one (refs 0) with the pages pinned and mapped. */
static int rec_get(struct rnic_pci_dma *m, void *va, size_t len, struct dma_rec **out)
{
	uintptr_t lo = (uintptr_t)va & ~(uintptr_t)(m->page_size - 1);
	uintptr_t hi;
	struct dma_rec r = {0};
	int err;

	if (!va || len == 0 || (uintptr_t)va + len - 1 < (uintptr_t)va)
		return EINVAL;
	hi = ((uintptr_t)va + len - 1) | (m->page_size - 1);
	r.va = lo;
	r.len = hi - lo + 1;
	*out = rec_find(m, r.va, r.len);
	if (*out)
		return 0;
	if (m->nrec == m->caprec) {
		unsigned int cap = m->caprec ? m->caprec * 2 : 16;
		struct dma_rec *t = realloc(m->rec, cap * sizeof(*t));

		if (!t)
			return ENOMEM;
		m->rec = t;
		m->caprec = cap;
	}
	if (m->mode == RNIC_DMA_VFIO) {
		struct vfio_iommu_type1_dma_map map = {
			.argsz = sizeof(map),
			.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = r.va,
			.size = r.len,
		};

		err = rnic_iova_alloc(&m->iova, r.len, &r.iova);
		if (err) {
			rnic_log("dma map of %zu bytes: IOVA space exhausted", r.len);
			return err;
		}
		map.iova = r.iova;
		if (ioctl(m->container, VFIO_IOMMU_MAP_DMA, &map)) {
			err = errno;
			rnic_iova_free(&m->iova, r.iova, r.len);
			rnic_log("VFIO_IOMMU_MAP_DMA of %zu bytes: %s: %s", r.len, strerror(err),
				 rnic_pci_hint(RNIC_STEP_DMA_MAP, err));
			return err;
		}
	} else {
		r.sys = malloc(r.len / m->page_size * sizeof(*r.sys));
		if (!r.sys)
			return ENOMEM;
		/* mlock faults the pages in, breaking copy-on-write of private
		 * writable memory, and keeps them resident. */
		if (mlock((void *)r.va, r.len)) {
			err = errno;
			free(r.sys);
			rnic_log("mlock of %zu bytes: %s: %s", r.len, strerror(err),
				 rnic_pci_hint(RNIC_STEP_MLOCK, err));
			return err;
		}
		err = pagemap_read(m, r.va, r.len, r.sys);
		if (err) {
			unlock_unshared(m, &r);
			free(r.sys);
			rnic_log("/proc/self/pagemap: %s: %s", strerror(err),
				 rnic_pci_hint(RNIC_STEP_PAGEMAP, err));
			return err;
		}
	}
	m->rec[m->nrec] = r;
	*out = &m->rec[m->nrec++];
	return 0;
}

static void rec_drop(struct rnic_pci_dma *m, struct dma_rec *r)
{
	if (m->mode == RNIC_DMA_VFIO) {
		struct vfio_iommu_type1_dma_unmap unmap = {
			.argsz = sizeof(unmap),
			.iova = r->iova,
			.size = r->len,
		};

		if (ioctl(m->container, VFIO_IOMMU_UNMAP_DMA, &unmap))
			rnic_log("VFIO_IOMMU_UNMAP_DMA of IOVA range %zu bytes: %s", r->len, strerror(errno));
		else
			rnic_iova_free(&m->iova, r->iova, r->len);
	} else {
		unlock_unshared(m, r);
		free(r->sys);
	}
	*r = m->rec[--m->nrec];
}

int rnic_dma_map(struct rnic_pci_dma *m, void *va, size_t len, uint64_t *bus)
{
	struct dma_rec *r;
	int err = rec_get(m, va, len, &r);

	if (err)
		return err;
	if (m->mode == RNIC_DMA_PAGEMAP && !rnic_sys_contiguous(r->sys, r->len / m->page_size, m->page_size)) {
		rnic_log("dma map of %zu bytes over %zu pages: the pages are not physically contiguous; without an IOMMU a ring must be (use VFIO, or hugepages)",
			 len, r->len / m->page_size);
		if (r->refs == 0)
			rec_drop(m, r);
		return EINVAL;
	}
	r->refs++;
	*bus = (m->mode == RNIC_DMA_VFIO ? r->iova : r->sys[0]) + ((uintptr_t)va - r->va);
	return 0;
}

int rnic_dma_map_pages(struct rnic_pci_dma *m, void *va, size_t len, uint64_t *bus_pages)
{
	struct dma_rec *r;
	int err = rec_get(m, va, len, &r);

	if (err)
		return err;
	r->refs++;
	if (m->mode == RNIC_DMA_PAGEMAP) {
		rnic_bus_pages((uintptr_t)va, len, m->page_size, r->sys, bus_pages);
	} else {
		uintptr_t first = (uintptr_t)va >> 12, last = ((uintptr_t)va + len - 1) >> 12;

		for (uintptr_t p = first; p <= last; p++)
			bus_pages[p - first] = r->iova + ((p << 12) - r->va);
	}
	return 0;
}

int rnic_dma_unmap(struct rnic_pci_dma *m, void *va, size_t len)
{
	uintptr_t lo = (uintptr_t)va & ~(uintptr_t)(m->page_size - 1);
	struct dma_rec *r;

	if (!va || len == 0)
		return EINVAL;
	r = rec_find(m, lo, (((uintptr_t)va + len - 1) | (m->page_size - 1)) - lo + 1);
	if (!r)
		return EINVAL;
	if (--r->refs == 0)
		rec_drop(m, r);
	return 0;
}

/* ---------------------------------------------------------------- rings */

#define HUGEPAGE_BYTES (2u << 20)

static int ring_in_hugepages(const struct rnic_pci_dma *m, size_t bytes)
{
	return m->mode == RNIC_DMA_PAGEMAP && bytes > m->page_size;
}

void *rnic_dma_ring_alloc(struct rnic_pci_dma *m, size_t bytes, size_t *alloc_bytes)
{
	size_t len = (bytes + m->page_size - 1) / m->page_size * m->page_size;
	void *va = NULL;

	if (len == 0) {
		errno = EINVAL;
		return NULL;
	}
	if (ring_in_hugepages(m, len)) {
		len = (len + HUGEPAGE_BYTES - 1) / HUGEPAGE_BYTES * HUGEPAGE_BYTES;
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
			  -1, 0);
		if (va == MAP_FAILED) {
			int err = errno;

			rnic_log("ring of %zu bytes: no hugepage (%s): %s", bytes, strerror(err),
				 rnic_pci_hint(RNIC_STEP_HUGEPAGE, ENOMEM));
			errno = ENOMEM;
			return NULL;
		}
	} else if (posix_memalign(&va, m->page_size, len)) {
		errno = ENOMEM;
		return NULL;
	}
	memset(va, 0, len);
	*alloc_bytes = len;
	return va;
}

void rnic_dma_ring_free(struct rnic_pci_dma *m, void *va, size_t alloc_bytes)
{
	if (!va)
		return;
	if (ring_in_hugepages(m, alloc_bytes))
		munmap(va, alloc_bytes);
	else
		free(va);
}
