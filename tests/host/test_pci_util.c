/* Unit tests of the pci backend's pure logic (host/src/pci_util.c): PCI
 * addresses and sysfs paths, BAR checks, the choice of a DMA mode, pagemap
 * entries and page lists, the IOVA allocator (against a bitmap model),
 * VFIO capability parsing and the error hints. No system calls, no device.
 * Prints one line per failed check and "N passed, N failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "pci_util.h"
#include "../check.h"

static unsigned int n_pass, n_fail;

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *a_ = (a), *b_ = (b);                                      \
		if (a_ && b_ && strcmp(a_, b_) == 0) {                                \
			n_pass++;                                                     \
		} else {                                                              \
			n_fail++;                                                     \
			printf("FAIL %s:%d: %s == \"%s\" (got \"%s\")\n", __func__,   \
			       __LINE__, #a, b_ ? b_ : "(null)", a_ ? a_ : "(null)"); \
		}                                                                     \
	} while (0)

static void test_bdf(void)
{
	struct rnic_bdf b;
	char s[RNIC_BDF_LEN];
	static const char *bad[] = {
		"", "0000:03:00", "0000:03:00.", "0000:03:00.8", "0000:03:20.0", "000:03:00.0",
		"0000:3:00.0", "0000:03:00.0 ", " 0000:03:00.0", "0000-03:00.0", "g000:03:00.0",
		"10000:03:00.0", "03:00.0.1", "0000:03:00:0", "03.00.0", "0000:03:00.00",
	};

	CHECK_EQ(rnic_bdf_parse("0000:03:00.0", &b), 0);
	CHECK_EQ(b.domain, 0);
	CHECK_EQ(b.bus, 3);
	CHECK_EQ(b.dev, 0);
	CHECK_EQ(b.func, 0);
	CHECK_EQ(rnic_bdf_parse("abcd:Fe:1f.7", &b), 0);
	CHECK_EQ(b.domain, 0xabcd);
	CHECK_EQ(b.bus, 0xfe);
	CHECK_EQ(b.dev, 0x1f);
	CHECK_EQ(b.func, 7);
	rnic_bdf_format(&b, s);
	CHECK_STR(s, "abcd:fe:1f.7");
	/* without a domain: domain 0 */
	CHECK_EQ(rnic_bdf_parse("81:00.1", &b), 0);
	CHECK_EQ(b.domain, 0);
	CHECK_EQ(b.bus, 0x81);
	CHECK_EQ(b.func, 1);
	rnic_bdf_format(&b, s);
	CHECK_STR(s, "0000:81:00.1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = rnic_bdf_parse(bad[i], &b);

		if (err != EINVAL)
			printf("FAIL %s: \"%s\" parsed\n", __func__, bad[i]);
		CHECK_EQ(err, EINVAL);
	}
	CHECK_EQ(rnic_bdf_parse(NULL, &b), EINVAL);
}

static void test_pci_id(void)
{
	uint16_t v = 1, d = 2;
	static const char *bad[] = {
		"", "10ee", "10ee:", "10ee:4e5", "10ee:4e522", "10ee-4e52", "10ee:4e52 ", " 10ee:4e52",
		"g0ee:4e52", "10ee:4e5g", "ffff:0001", "0x10:4e52", "10ee::e52",
	};

	CHECK_EQ(rnic_pci_id_parse("10ee:4e52", &v, &d), 0);
	CHECK_EQ(v, 0x10ee);
	CHECK_EQ(d, 0x4e52);
	CHECK_EQ(rnic_pci_id_parse("ABCD:ffff", &v, &d), 0);
	CHECK_EQ(v, 0xabcd);
	CHECK_EQ(d, 0xffff);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 1;
		d = 2;
		CHECK_EQ(rnic_pci_id_parse(bad[i], &v, &d), EINVAL);
		/* a refused value leaves the IDs alone */
		CHECK_EQ(v, 1);
		CHECK_EQ(d, 2);
	}
	CHECK_EQ(rnic_pci_id_parse(NULL, &v, &d), EINVAL);
}

static void test_paths(void)
{
	struct rnic_bdf b = {0, 3, 0, 0};
	char p[64];
	int g = -1;

	CHECK_EQ(rnic_sysfs_path(p, sizeof(p), &b, "resource0"), 0);
	CHECK_STR(p, "/sys/bus/pci/devices/0000:03:00.0/resource0");
	CHECK_EQ(rnic_sysfs_path(p, sizeof(p), &b, NULL), 0);
	CHECK_STR(p, "/sys/bus/pci/devices/0000:03:00.0");
	CHECK_EQ(rnic_sysfs_path(p, 20, &b, "resource0"), ENAMETOOLONG);
	CHECK_STR(rnic_path_last("../../../bus/pci/drivers/vfio-pci"), "vfio-pci");
	CHECK_STR(rnic_path_last("vfio-pci"), "vfio-pci");
	CHECK_EQ(rnic_iommu_group_parse("../../../kernel/iommu_groups/17", &g), 0);
	CHECK_EQ(g, 17);
	CHECK_EQ(rnic_iommu_group_parse("/sys/kernel/iommu_groups/0", &g), 0);
	CHECK_EQ(g, 0);
	CHECK_EQ(rnic_iommu_group_parse("iommu_groups/5", &g), 0);
	CHECK_EQ(g, 5);
	CHECK_EQ(rnic_iommu_group_parse("../kernel/iommu_groups/", &g), EINVAL);
	CHECK_EQ(rnic_iommu_group_parse("../kernel/iommu_groups/1a", &g), EINVAL);
	CHECK_EQ(rnic_iommu_group_parse("../kernel/groups/1", &g), EINVAL);
	CHECK_EQ(rnic_iommu_group_parse("7", &g), EINVAL);
}

static void test_bar(void)
{
	CHECK_EQ(rnic_bar_check(0xf0000000, 0x10000, 0, 0x10000), RNIC_BAR_OK);
	CHECK_EQ(rnic_bar_check(0xf0000000, 0x100000, 0, 0x10000), RNIC_BAR_OK);
	CHECK_EQ(rnic_bar_check(0xf0000000, 0x8000, 0, 0x10000), RNIC_BAR_SMALL);
	CHECK_EQ(rnic_bar_check(0, 0x10000, 0, 0x10000), RNIC_BAR_UNASSIGNED);
	CHECK_EQ(rnic_bar_check(0xf0000000, 0, 0, 0x10000), RNIC_BAR_UNASSIGNED);
	CHECK_EQ(rnic_bar_check(0xe000, 0x100, 1, 0x10000), RNIC_BAR_IO);
	CHECK_STR(rnic_bar_verdict_str(RNIC_BAR_SMALL), "smaller than the register map");
	/* the silent fallback: a WC request on a non-prefetchable BAR is uncached */
	CHECK_EQ(rnic_wc_obtained(1, 1), 1);
	CHECK_EQ(rnic_wc_obtained(0, 0), 0);
	CHECK_EQ(rnic_wc_obtained(0, 1), 0);
	CHECK_EQ(rnic_wc_obtained(1, 0), 0);
}

static void test_dma_choose(void)
{
	struct rnic_dma_env e;
	enum rnic_dma_mode m;
	const char *why;

	/* no IOMMU, no driver: pagemap */
	e = (struct rnic_dma_env){"", -1, "", 0};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), 0);
	CHECK_EQ(m, RNIC_DMA_PAGEMAP);
	/* vfio-pci with a group and /dev/vfio/vfio: VFIO */
	e = (struct rnic_dma_env){"vfio-pci", 12, "DMA", 1};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), 0);
	CHECK_EQ(m, RNIC_DMA_VFIO);
	e.vfio_present = 0;
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), ENOENT);
	CHECK(why && strstr(why, "modprobe vfio-pci"));
	e = (struct rnic_dma_env){"vfio-pci", -1, "", 1};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), ENODEV);
	CHECK(why && strstr(why, "IOMMU"));
	/* another kernel driver holds it */
	e = (struct rnic_dma_env){"mlx5_core", -1, "", 1};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), EBUSY);
	CHECK(why && strstr(why, "unbind"));
	CHECK_EQ(m, RNIC_DMA_NONE);
	/* uio_pci_generic: no DMA help from the kernel, physical addresses */
	e = (struct rnic_dma_env){"uio_pci_generic", -1, "", 0};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), 0);
	CHECK_EQ(m, RNIC_DMA_PAGEMAP);
	/* a translating IOMMU domain without vfio-pci cannot work */
	e = (struct rnic_dma_env){"", 3, "DMA-FQ", 1};
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), EOPNOTSUPP);
	CHECK(why && strstr(why, "vfio-pci"));
	e.group_type = "";
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), EOPNOTSUPP);
	/* an identity (passthrough) domain lets physical addresses through */
	e.group_type = "identity";
	CHECK_EQ(rnic_dma_choose(&e, &m, &why), 0);
	CHECK_EQ(m, RNIC_DMA_PAGEMAP);
	CHECK_STR(rnic_dma_mode_str(RNIC_DMA_VFIO), "vfio");
	CHECK_STR(rnic_dma_mode_str(RNIC_DMA_PAGEMAP), "pagemap");
}

static void test_pagemap(void)
{
	uint64_t pfn = 0, sys[4], pages[8];

	CHECK_EQ(rnic_pagemap_decode(RNIC_PM_PRESENT | 0x10d54a, &pfn), 0);
	CHECK_EQ(pfn, 0x10d54a);
	/* soft-dirty (55) and exclusive (56) bits are not part of the PFN */
	CHECK_EQ(rnic_pagemap_decode(0xa10000000010d54bull, &pfn), 0);
	CHECK_EQ(pfn, 0x10d54b);
	CHECK_EQ(rnic_pagemap_decode(RNIC_PM_PRESENT | RNIC_PM_PFN_MASK, &pfn), 0);
	CHECK_EQ(pfn, RNIC_PM_PFN_MASK);
	CHECK_EQ(rnic_pagemap_decode(0, &pfn), ENOENT);
	CHECK_EQ(rnic_pagemap_decode(0x10d54a, &pfn), ENOENT);
	CHECK_EQ(rnic_pagemap_decode(RNIC_PM_PRESENT, &pfn), EPERM); /* hidden */
	CHECK_EQ(rnic_pagemap_decode(RNIC_PM_PRESENT | (1ull << 55), &pfn), EPERM);
	CHECK_EQ(rnic_pagemap_decode(RNIC_PM_SWAPPED | 0x1234, &pfn), EFAULT);

	/* 4 KiB system pages: one entry per page, the offset dropped */
	sys[0] = 0x5000;
	sys[1] = 0x9000;
	sys[2] = 0x6000;
	CHECK_EQ(rnic_bus_pages(0x7f0000001010, 0x2000, 4096, sys, pages), 3);
	CHECK_EQ(pages[0], 0x5000);
	CHECK_EQ(pages[1], 0x9000);
	CHECK_EQ(pages[2], 0x6000);
	CHECK_EQ(rnic_bus_pages(0x7f0000001000, 1, 4096, sys, pages), 1);
	CHECK_EQ(rnic_bus_pages(0x7f0000001fff, 2, 4096, sys, pages), 2);
	/* 64 KiB system pages: 4 KiB entries inside each */
	sys[0] = 0x100000;
	sys[1] = 0x300000;
	CHECK_EQ(rnic_bus_pages(0x7f000000e000, 0x4000, 0x10000, sys, pages), 4);
	CHECK_EQ(pages[0], 0x10e000);
	CHECK_EQ(pages[1], 0x10f000);
	CHECK_EQ(pages[2], 0x300000);
	CHECK_EQ(pages[3], 0x301000);

	sys[0] = 0x5000;
	sys[1] = 0x6000;
	sys[2] = 0x7000;
	CHECK_EQ(rnic_sys_contiguous(sys, 3, 4096), 1);
	CHECK_EQ(rnic_sys_contiguous(sys, 1, 4096), 1);
	sys[2] = 0x9000;
	CHECK_EQ(rnic_sys_contiguous(sys, 3, 4096), 0);
	CHECK_EQ(rnic_sys_contiguous(sys, 2, 4096), 1);
}

/* The allocator against a bitmap of pages: random allocations and frees,
 * every answer checked (inside the window, aligned, disjoint), and the free
 * total always equal to what the model says. */
static void test_iova_random(void)
{
	enum { PAGES = 512, OPS = 20000, LIVE = 64 };
	const uint64_t base = 1ull << 32, pg = 4096;
	static uint8_t used[PAGES];
	struct { uint64_t iova, n; } live[LIVE];
	unsigned int nlive = 0, bad = 0;
	struct rnic_iova a;
	uint64_t nused = 0, seed = 12345;

	memset(used, 0, sizeof(used));
	CHECK_EQ(rnic_iova_init(&a, base, PAGES * pg, pg), 0);
	for (int op = 0; op < OPS; op++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (nlive < LIVE && ((seed >> 33) & 3) != 0) {
			uint64_t n = 1 + (seed >> 40) % 24, iova;
			int err = rnic_iova_alloc(&a, n * pg - (seed >> 20) % pg, &iova);

			if (err) {
				/* ENOMEM only when no free run of n pages exists (first fit
				 * finds any run) */
				uint64_t run = 0, best = 0;

				for (int i = 0; i < PAGES; i++) {
					run = used[i] ? 0 : run + 1;
					best = run > best ? run : best;
				}
				bad += err != ENOMEM || best >= n;
				continue;
			}
			bad += iova < base || iova + n * pg > base + PAGES * pg || (iova % pg) != 0;
			for (uint64_t i = 0; i < n && !bad; i++)
				bad += used[(iova - base) / pg + i]++ != 0;
			live[nlive].iova = iova;
			live[nlive++].n = n;
			nused += n;
		} else if (nlive) {
			unsigned int k = (unsigned int)((seed >> 35) % nlive);

			bad += rnic_iova_free(&a, live[k].iova, live[k].n * pg) != 0;
			for (uint64_t i = 0; i < live[k].n; i++)
				used[(live[k].iova - base) / pg + i] = 0;
			nused -= live[k].n;
			live[k] = live[--nlive];
		}
		bad += rnic_iova_avail(&a) != (PAGES - nused) * pg;
		if (bad)
			break;
	}
	CHECK_EQ(bad, 0);
	while (nlive) {
		nlive--;
		CHECK_EQ(rnic_iova_free(&a, live[nlive].iova, live[nlive].n * pg), 0);
	}
	/* everything back: one coalesced range */
	CHECK_EQ(a.n, 1);
	CHECK_EQ(rnic_iova_avail(&a), PAGES * pg);
	rnic_iova_destroy(&a);
}

static void test_iova(void)
{
	struct rnic_iova a;
	uint64_t x, y, z;

	CHECK_EQ(rnic_iova_init(&a, 0x1000, 0x10000, 3000), EINVAL); /* not a power of two */
	CHECK_EQ(rnic_iova_init(&a, 0x1800, 0x10000, 0x1000), EINVAL); /* misaligned base */
	CHECK_EQ(rnic_iova_init(&a, 0x100000, 0x10000, 0x1000), 0);
	CHECK_EQ(rnic_iova_alloc(&a, 0, &x), EINVAL);
	CHECK_EQ(rnic_iova_alloc(&a, 1, &x), 0); /* rounded up to a page */
	CHECK_EQ(x, 0x100000);
	CHECK_EQ(rnic_iova_alloc(&a, 0x2000, &y), 0);
	CHECK_EQ(y, 0x101000);
	CHECK_EQ(rnic_iova_alloc(&a, 0x1000, &z), 0);
	CHECK_EQ(z, 0x103000);
	CHECK_EQ(rnic_iova_avail(&a), 0xc000);
	CHECK_EQ(rnic_iova_alloc(&a, 0xd000, &x), ENOMEM);
	/* free the middle: a hole that first fit reuses */
	CHECK_EQ(rnic_iova_free(&a, y, 0x2000), 0);
	CHECK_EQ(rnic_iova_free(&a, y, 0x2000), EINVAL); /* double free */
	CHECK_EQ(rnic_iova_free(&a, y + 0x1000, 0x1000), EINVAL); /* inside free space */
	CHECK_EQ(rnic_iova_free(&a, 0x100800, 0x1000), EINVAL); /* misaligned */
	CHECK_EQ(rnic_iova_alloc(&a, 0x1000, &x), 0);
	CHECK_EQ(x, 0x101000);
	CHECK_EQ(rnic_iova_alloc(&a, 0x2000, &x), 0); /* the hole is 1 page now */
	CHECK_EQ(x, 0x104000);
	rnic_iova_destroy(&a);

	/* many disjoint holes: the range array grows */
	CHECK_EQ(rnic_iova_init(&a, 0, 0x1000 * 200, 0x1000), 0);
	CHECK_EQ(rnic_iova_alloc(&a, 0x1000 * 200, &x), 0);
	for (int i = 0; i < 200; i += 2)
		CHECK_EQ(rnic_iova_free(&a, (uint64_t)i * 0x1000, 0x1000), 0);
	CHECK_EQ(a.n, 100);
	for (int i = 1; i < 200; i += 2)
		CHECK_EQ(rnic_iova_free(&a, (uint64_t)i * 0x1000, 0x1000), 0);
	CHECK_EQ(a.n, 1);
	CHECK_EQ(rnic_iova_avail(&a), 0x1000 * 200);
	rnic_iova_destroy(&a);

	test_iova_random();
}

static void test_iova_window(void)
{
	struct rnic_iova_range r[3] = {
		{0, 0xfee00000},                           /* below the MSI window */
		{0xfef00000, (1ull << 39) - 0xfef00000},   /* up to a 39-bit aperture */
		{1ull << 50, 1ull << 20},
	}, w;

	CHECK_EQ(rnic_iova_window(r, 3, 1ull << 20, 1ull << 48, 4096, &w), 0);
	CHECK_EQ(w.base, 0xfef00000);
	CHECK_EQ(w.size, (1ull << 39) - 0xfef00000);
	/* clipped by lo and hi */
	CHECK_EQ(rnic_iova_window(r, 1, 1ull << 20, 1ull << 48, 4096, &w), 0);
	CHECK_EQ(w.base, 1ull << 20);
	CHECK_EQ(w.size, 0xfee00000 - (1ull << 20));
	CHECK_EQ(rnic_iova_window(&r[2], 1, 1ull << 20, 1ull << 48, 4096, &w), ENOSPC);
	/* the whole 64-bit space (size saturated) */
	r[0] = (struct rnic_iova_range){0, UINT64_MAX};
	CHECK_EQ(rnic_iova_window(r, 1, 1ull << 20, 1ull << 48, 4096, &w), 0);
	CHECK_EQ(w.base, 1ull << 20);
	CHECK_EQ(w.size, (1ull << 48) - (1ull << 20));
	/* alignment rounds the base up and the size down */
	r[0] = (struct rnic_iova_range){0x200123, 0x10000};
	CHECK_EQ(rnic_iova_window(r, 1, 0, 1ull << 48, 4096, &w), 0);
	CHECK_EQ(w.base, 0x201000);
	CHECK_EQ(w.size, 0xf000);
}

static void test_vfio_caps(void)
{
	uint8_t buf[256];
	struct vfio_iommu_type1_info info = {0};
	struct vfio_info_cap_header other = {0};
	struct vfio_iommu_type1_info_cap_iova_range cap = {0};
	struct vfio_iova_range vr[2] = {{0, 0xfedfffff}, {0xfef00000, 0x7fffffffff}};
	struct rnic_iova_range out[4];
	unsigned int n = 99;
	size_t off;

	/* info, then an unrelated capability, then the IOVA ranges */
	memset(buf, 0, sizeof(buf));
	info.argsz = sizeof(buf);
	info.flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
	info.cap_offset = 24;
	memcpy(buf, &info, sizeof(info));
	other.id = VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION;
	other.next = 64;
	memcpy(buf + 24, &other, sizeof(other));
	cap.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
	cap.nr_iovas = 2;
	memcpy(buf + 64, &cap, sizeof(cap));
	off = 64 + sizeof(cap);
	memcpy(buf + off, vr, sizeof(vr));
	CHECK_EQ(rnic_vfio_iova_ranges(buf, off + sizeof(vr), out, 4, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(out[0].base, 0);
	CHECK_EQ(out[0].size, 0xfee00000);
	CHECK_EQ(out[1].base, 0xfef00000);
	CHECK_EQ(out[1].size, 0x8000000000ull - 0xfef00000);
	/* the answer cut short: the ranges do not fit */
	CHECK_EQ(rnic_vfio_iova_ranges(buf, off + sizeof(vr) - 1, out, 4, &n), EINVAL);
	/* more ranges than room: the first max */
	CHECK_EQ(rnic_vfio_iova_ranges(buf, off + sizeof(vr), out, 1, &n), 0);
	CHECK_EQ(n, 1);
	/* a loop in the chain */
	other.next = 24;
	memcpy(buf + 24, &other, sizeof(other));
	CHECK_EQ(rnic_vfio_iova_ranges(buf, sizeof(buf), out, 4, &n), EINVAL);
	/* a chain without the capability, and no chain at all (old kernels) */
	other.next = 0;
	memcpy(buf + 24, &other, sizeof(other));
	CHECK_EQ(rnic_vfio_iova_ranges(buf, sizeof(buf), out, 4, &n), ENOENT);
	info.flags = VFIO_IOMMU_INFO_PGSIZES;
	memcpy(buf, &info, sizeof(info));
	CHECK_EQ(rnic_vfio_iova_ranges(buf, sizeof(buf), out, 4, &n), ENOENT);
	/* an offset outside the buffer */
	info.flags = VFIO_IOMMU_INFO_CAPS;
	info.cap_offset = 250;
	memcpy(buf, &info, sizeof(info));
	CHECK_EQ(rnic_vfio_iova_ranges(buf, sizeof(buf), out, 4, &n), EINVAL);
	CHECK_EQ(rnic_vfio_iova_ranges(buf, 8, out, 4, &n), EINVAL);
}

static void test_hints(void)
{
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_MAP, EACCES), "run as root"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_MAP, EPERM), "run as root"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_MAP, ENOENT), "rescan"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_SCAN, ENOENT), "no PCI bus"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_VFIO, ENOENT), "modprobe vfio-pci"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_VFIO, EACCES), "run as root"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_GROUP, ENOENT), "bind the device to vfio-pci"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_GROUP, EBUSY), "already open"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_GROUP, EINVAL), "not viable"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_DMA_MAP, ENOMEM), "ulimit -l"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_MLOCK, EPERM), "ulimit -l"));
	CHECK(strstr(rnic_pci_hint(RNIC_STEP_PAGEMAP, EPERM), "CAP_SYS_ADMIN"));
	/* never NULL, whatever comes in */
	for (int s = RNIC_STEP_SCAN; s <= RNIC_STEP_MLOCK + 1; s++)
		for (int e = 0; e < 140; e++)
			CHECK(rnic_pci_hint((enum rnic_pci_step)s, e) != NULL);
}

int main(void)
{
	test_bdf();
	test_pci_id();
	test_paths();
	test_bar();
	test_dma_choose();
	test_pagemap();
	test_iova();
	test_iova_window();
	test_vfio_caps();
	test_hints();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
