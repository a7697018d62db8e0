/* The pci backend on the machine the tests run on, as far as it goes without
 * a card: discovery finds none and says so (exact errors and messages), the
 * device list under concurrent callers, the pagemap DMA path on real memory
 * (pins, physical addresses checked against an independent pagemap read,
 * contiguity, shared mappings), VFIO where the kernel has it. What the
 * machine cannot do is skipped with a printed "SKIP ...: reason".
 * Prints "N passed, N failed, N skipped". */
#define _GNU_SOURCE /* MADV_HUGEPAGE */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_backend.h"
#include "pci_dma.h"
#include "pci_util.h"
#include "rnic/pci.h"
#include "rnic/verbs.h"
#include "../check.h"

static unsigned int n_pass, n_fail, n_skip;

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *a_ = (a), *b_ = (b);                                      \
		if (strcmp(a_, b_) == 0) {                                            \
			n_pass++;                                                     \
		} else {                                                              \
			n_fail++;                                                     \
			printf("FAIL %s:%d: %s\n     want \"%s\"\n     got  \"%s\"\n", \
			       __func__, __LINE__, #a, b_, a_);                       \
		}                                                                     \
	} while (0)

#define SKIP(...)                                                                     \
	do {                                                                          \
		n_skip++;                                                             \
		printf("SKIP " __VA_ARGS__);                                          \
		printf("\n");                                                         \
	} while (0)

/* ------------------------------------------------------------ stderr capture */

static int saved_fd = -1;
static FILE *cap;
static char captured[4096];

static void capture_begin(void)
{
	fflush(stderr);
	cap = tmpfile();
	saved_fd = dup(2);
	dup2(fileno(cap), 2);
}

/* What the library printed, without the trailing newline. */
static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(cap);
	n = fread(captured, 1, sizeof(captured) - 1, cap);
	fclose(cap);
	captured[n] = 0;
	while (n && captured[n - 1] == '\n')
		captured[--n] = 0;
	return captured;
}

/* ------------------------------------------------------------ discovery */

static int card_present(void)
{
	struct rnic_pci_device **l = rnic_get_device_list(NULL);
	int present = l && l[0];

	if (present)
		SKIP("no-card checks: an OpenRNIC is present at %s", l[0]->bdf);
	rnic_free_device_list(l);
	return present;
}

static void test_no_card(void)
{
	struct rnic_pci_device **list;
	struct rnic_context *ctx;
	char want[512];
	int n = -1;

	list = rnic_get_device_list(&n);
	CHECK(list != NULL);
	CHECK_EQ(n, 0);
	CHECK(list && list[0] == NULL);
	rnic_free_device_list(list);
	rnic_free_device_list(NULL);

	capture_begin();
	errno = 0;
	ctx = rnic_open_pci(NULL);
	CHECK(ctx == NULL);
	CHECK_EQ(errno, ENODEV);
	snprintf(want, sizeof(want),
		 "rnic: no OpenRNIC device found: no PCI device %04x:%04x on this machine (check `lspci -d %04x:%04x`; is the FPGA programmed and the bus rescanned? echo 1 > /sys/bus/pci/rescan)",
		 RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID, RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID);
	if (access(RNIC_SYSFS_PCI, F_OK) != 0)
		snprintf(want, sizeof(want),
			 "rnic: no OpenRNIC device found: cannot scan the PCI bus: No such file or directory: this system exposes no PCI bus (/sys/bus/pci/devices is missing; a container without sysfs?)");
	CHECK_STR(capture_end(), want);
}

static void test_open_errors(void)
{
	struct rnic_context *ctx;
	char want[512], path[256], vendor[16] = "", device[16] = "";
	const char *bdf = NULL;
	FILE *f;

	capture_begin();
	errno = 0;
	ctx = rnic_open_pci("03:00");
	CHECK(ctx == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_STR(capture_end(), "rnic: \"03:00\" is not a PCI address (dddd:bb:dd.f or bb:dd.f, as lspci -D prints)");

	if (access(RNIC_SYSFS_PCI "/0000:7f:1f.7", F_OK) == 0) {
		SKIP("open of an absent BDF: 0000:7f:1f.7 exists here");
	} else if (access(RNIC_SYSFS_PCI, F_OK) != 0) {
		SKIP("open of an absent BDF: no %s", RNIC_SYSFS_PCI);
	} else {
		capture_begin();
		errno = 0;
		ctx = rnic_open_pci("0000:7f:1f.7");
		CHECK(ctx == NULL);
		CHECK_EQ(errno, ENODEV);
		CHECK_STR(capture_end(),
			  "rnic: no OpenRNIC device found: no PCI device at 0000:7f:1f.7 (lspci -D lists the devices)");
	}

	/* Another vendor's device: refused by its IDs, before anything is
	 * probed or mapped. Bridge 00:00.0 if present, else the first device. */
	if (access(RNIC_SYSFS_PCI "/0000:00:00.0", F_OK) == 0)
		bdf = "0000:00:00.0";
	if (!bdf) {
		SKIP("open of a foreign device: no 0000:00:00.0 on this machine");
		return;
	}
	snprintf(path, sizeof(path), RNIC_SYSFS_PCI "/%s/vendor", bdf);
	if ((f = fopen(path, "r"))) {
		if (!fgets(vendor, sizeof(vendor), f))
			vendor[0] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), RNIC_SYSFS_PCI "/%s/device", bdf);
	if ((f = fopen(path, "r"))) {
		if (!fgets(device, sizeof(device), f))
			device[0] = 0;
		fclose(f);
	}
	if (strtoul(vendor, NULL, 16) == RNIC_PCI_VENDOR_ID) {
		SKIP("open of a foreign device: %s is ours", bdf);
		return;
	}
	capture_begin();
	errno = 0;
	ctx = rnic_open_pci(bdf);
	CHECK(ctx == NULL);
	CHECK_EQ(errno, ENODEV);
	snprintf(want, sizeof(want), "rnic: no OpenRNIC device found: %s is %04lx:%04lx, not an OpenRNIC (%04x:%04x)",
		 bdf, strtoul(vendor, NULL, 16), strtoul(device, NULL, 16), RNIC_PCI_VENDOR_ID,
		 RNIC_PCI_DEVICE_ID);
	CHECK_STR(capture_end(), want);
}

static void test_query_not_pci(void)
{
	struct fake_nic *f = calloc(1, sizeof(*f));
	struct rnic_pci_attr a;
	struct rnic_context *ctx;
	static const struct rnic_backend_ops ops = {
		.name = "fake", .bar_write32 = fake_bar_write32, .bar_read32 = fake_bar_read32,
		.dma_map = fake_dma_map, .dma_unmap = fake_dma_unmap,
	};

	fake_init(f);
	ctx = rnic_open_backend(&ops, f);
	CHECK(ctx != NULL);
	CHECK_EQ(rnic_pci_query(ctx, &a), EINVAL);
	CHECK_EQ(rnic_pci_query(NULL, &a), EINVAL);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

static void *list_thread(void *arg)
{
	int *bad = arg;

	for (int i = 0; i < 40; i++) {
		int n = -1;
		struct rnic_pci_device **l = rnic_get_device_list(&n);

		*bad += !l || n < 0;
		rnic_free_device_list(l);
	}
	return NULL;
}

/* libpciaccess keeps global state: concurrent scans must not trip on it. */
static void test_list_threads(void)
{
	pthread_t t[4];
	int bad[4] = {0};

	for (int i = 0; i < 4; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, list_thread, &bad[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(bad[i], 0);
	}
}

/* ------------------------------------------------------------ pagemap DMA */

/* Physical address of the page holding va, read independently of the library. */
static uint64_t phys_of(const void *va)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (off_t)((uintptr_t)va / (uintptr_t)ps) * 8) != 8)
		e = 0;
	close(fd);
	if (!(e & (1ull << 63)))
		return 0;
	return (e & ((1ull << 55) - 1)) * (uint64_t)ps;
}

/* AddressSanitizer turns mlock into a no-op: pins cannot be observed there
 * (the unsanitized twin of this test, test_pci_sys-nosan, checks them). */
#ifdef __SANITIZE_ADDRESS__
#define PINS_VISIBLE 0
#else
#define PINS_VISIBLE 1
#endif

#define CHECK_LCK(kb)                                                                 \
	do {                                                                          \
		if (PINS_VISIBLE)                                                     \
			CHECK_EQ(vm_locked_kb(), (kb));                               \
	} while (0)

static long vm_locked_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void test_pagemap(void)
{
	struct rnic_pci_dma *m = NULL;
	const size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t bus = 0, pages[8], phys[6];
	uint8_t *buf;
	long lck0, lck;
	int err, contiguous;

	capture_begin();
	err = rnic_dma_open_pagemap(&m);
	if (err) {
		const char *msg = capture_end();

		SKIP("pagemap DMA: %s (%s)", strerror(err), msg);
		return;
	}
	capture_end();
	CHECK_EQ(rnic_dma_mode_of(m), RNIC_DMA_PAGEMAP);
	buf = aligned_alloc(ps, 6 * ps);
	memset(buf, 0xa5, 6 * ps);
	lck0 = vm_locked_kb();

	/* 4 pages from an offset inside the first: 5 entries (4 KiB pages) */
	CHECK_EQ(rnic_dma_map_pages(m, buf + 100, 4 * ps, pages), 0);
	CHECK_EQ(rnic_dma_nmaps(m), 1);
	for (int i = 0; i < 6; i++)
		phys[i] = phys_of(buf + i * ps);
	if (ps == 4096)
		for (int i = 0; i < 5; i++)
			CHECK_EQ(pages[i], phys[i]);
	lck = lck0 + (long)(5 * ps / 1024);
	CHECK_LCK(lck);
	if (!PINS_VISIBLE)
		SKIP("pin accounting (VmLck): AddressSanitizer makes mlock a no-op; test_pci_sys-nosan checks it");

	/* the same pages again share the mapping; the pins stay until the last unmap */
	CHECK_EQ(rnic_dma_map_pages(m, buf + 200, 4 * ps - 150, pages), 0);
	CHECK_EQ(rnic_dma_nmaps(m), 1);
	CHECK_EQ(rnic_dma_unmap(m, buf + 100, 4 * ps), 0);
	CHECK_LCK(lck);
	CHECK_EQ(rnic_dma_unmap(m, buf + 200, 4 * ps - 150), 0);
	CHECK_EQ(rnic_dma_nmaps(m), 0);
	CHECK_LCK(lck0);
	CHECK_EQ(rnic_dma_unmap(m, buf, ps), EINVAL); /* not mapped */

	/* one page: its physical address, offset kept */
	CHECK_EQ(rnic_dma_map(m, buf + ps + 64, 128, &bus), 0);
	CHECK_EQ(bus, phys_of(buf + ps) + 64);

	/* an overlapping mapping: unmapping it keeps the shared page pinned */
	CHECK_EQ(rnic_dma_map_pages(m, buf + ps, 2 * ps, pages), 0);
	CHECK_EQ(rnic_dma_unmap(m, buf + ps, 2 * ps), 0);
	CHECK_LCK(lck0 + (long)(ps / 1024));
	CHECK_EQ(rnic_dma_unmap(m, buf + ps + 64, 128), 0);
	CHECK_LCK(lck0);

	/* several pages with dma_map: accepted exactly when physically contiguous */
	contiguous = rnic_sys_contiguous(phys + 2, 3, ps);
	capture_begin();
	err = rnic_dma_map(m, buf + 2 * ps, 3 * ps, &bus);
	if (contiguous) {
		capture_end();
		CHECK_EQ(err, 0);
		CHECK_EQ(bus, phys[2]);
		CHECK_EQ(rnic_dma_unmap(m, buf + 2 * ps, 3 * ps), 0);
	} else {
		char want[256];

		snprintf(want, sizeof(want),
			 "rnic: dma map of %zu bytes over 3 pages: the pages are not physically contiguous; without an IOMMU a ring must be (use VFIO, or hugepages)",
			 3 * ps);
		CHECK_STR(capture_end(), want);
		CHECK_EQ(err, EINVAL);
		CHECK_EQ(rnic_dma_nmaps(m), 0);
	}
	CHECK_LCK(lck0);
	printf("pagemap: 3 pages %s physically contiguous here: dma_map %s\n",
	       contiguous ? "are" : "are not", contiguous ? "accepted" : "refused");

	/* a 2 MiB transparent hugepage, where the kernel gives one */
	{
		const size_t huge = 2u << 20;
		uint8_t *raw = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *h = (uint8_t *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		int thp = 1;

		if (raw == MAP_FAILED) {
			SKIP("pagemap hugepage: mmap: %s", strerror(errno));
		} else {
			madvise(h, huge, MADV_HUGEPAGE);
			memset(h, 1, huge);
			for (size_t i = 1; i < huge / ps && thp; i++)
				thp = phys_of(h + i * ps) == phys_of(h) + i * ps;
			if (!thp) {
				SKIP("pagemap hugepage: no transparent hugepage here (/sys/kernel/mm/transparent_hugepage/enabled), a contiguous multi-page dma_map is not exercised");
			} else {
				CHECK_EQ(rnic_dma_map(m, h, huge, &bus), 0);
				CHECK_EQ(bus, phys_of(h));
				CHECK_EQ(rnic_dma_unmap(m, h, huge), 0);
				printf("pagemap: a 2 MiB hugepage maps as one contiguous range\n");
			}
			munmap(raw, 2 * huge);
		}
	}

	/* ring memory: one page from the heap; more from reserved hugepages,
	 * mapped as one contiguous range, or ENOMEM and the remedy */
	{
		size_t got = 0;
		void *r1 = rnic_dma_ring_alloc(m, 100, &got);
		uint8_t *r2;

		CHECK(r1 != NULL);
		CHECK_EQ(got, ps);
		rnic_dma_ring_free(m, r1, got);
		capture_begin();
		errno = 0;
		r2 = rnic_dma_ring_alloc(m, 64 * 1024, &got);
		if (!r2) {
			const char *msg = capture_end();

			CHECK_EQ(errno, ENOMEM);
			CHECK(strstr(msg, "rnic: ring of 65536 bytes: no hugepage") == msg);
			CHECK(strstr(msg, "vm.nr_hugepages") != NULL);
			SKIP("pagemap ring in hugepages: none reserved here (vm.nr_hugepages = 0); the refusal and its message are checked");
		} else {
			capture_end();
			CHECK_EQ(got, 2u << 20);
			CHECK_EQ(r2[0] | r2[got - 1], 0);
			CHECK_EQ(rnic_dma_map(m, r2, got, &bus), 0);
			CHECK_EQ(bus, phys_of(r2));
			CHECK_EQ(rnic_dma_unmap(m, r2, got), 0);
			rnic_dma_ring_free(m, r2, got);
			printf("pagemap: a 64 KiB ring lives in a hugepage, mapped as one contiguous range\n");
		}
	}

	/* close undoes what is still mapped */
	CHECK_EQ(rnic_dma_map_pages(m, buf, 2 * ps, pages), 0);
	rnic_dma_close(m);
	CHECK_LCK(lck0);
	free(buf);
}

/* ------------------------------------------------------------ VFIO */

static void test_vfio(void)
{
	struct rnic_pci_dma *m = NULL;
	char why[256];
	int err;

	err = rnic_vfio_probe(why, sizeof(why));
	if (err) {
		SKIP("vfio: %s", why);
		/* the open path says the same, with the device's address */
		capture_begin();
		err = rnic_dma_open_vfio(&m, "0000:00:00.0", 0);
		{
			char want[400];

			snprintf(want, sizeof(want), "rnic: 0000:00:00.0: %s", why);
			CHECK_STR(capture_end(), want);
		}
		CHECK(err != 0);
		CHECK(m == NULL);
		return;
	}
	printf("vfio: %s\n", why);
	SKIP("vfio mapping: needs an OpenRNIC bound to vfio-pci (none on this machine)");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!card_present()) {
		test_no_card();
		test_open_errors();
	}
	test_query_not_pci();
	test_list_threads();
	test_pagemap();
	test_vfio();
	printf("%u passed, %u failed, %u skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}
