/* OpenRNIC host library: the `pci` backend, a real card through libpciaccess.
 *
 * Discovery by the PCI IDs of <rnic/rnic_hw.h> (or a BDF the user names),
 * BAR0 mapped uncached through its sysfs resource file, register access by
 * volatile 32-bit loads and stores (the device is little-endian), bus
 * mastering switched on for the life of the context, and DMA through VFIO
 * and the IOMMU or, without translation, pinned pages and their physical
 * addresses (pci_dma.c). Every failure says what failed and what to do.
 *
 * libpciaccess keeps its state in one global: pci_system_init and
 * pci_system_cleanup are counted here and every libpciaccess call runs under
 * one lock, so contexts may be opened and closed from several threads.
 */
#define _DEFAULT_SOURCE /* htole32 and le32toh */

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pci_regs.h>
#include <pciaccess.h>

#include "barrier.h"
#include "pci_dma.h"
#include "pci_util.h"
#include "priv.h"
#include "rnic/pci.h"

/* The BAR holding the doorbell block. The register map (docs/regs.md) puts
 * the DB block in BAR0, so doorbells are uncached stores into BAR0 today. A
 * card with a separate prefetchable doorbell BAR sets this; that BAR is then
 * mapped write-combined (checked, see map_doorbells) and bar_write32 sends
 * offsets from db_lo on to it. */
#define PCI_DB_BAR 0

struct pci_backend {
	struct pci_device *dev;
	char bdf[RNIC_BDF_LEN];
	volatile uint8_t *bar0;
	uint64_t bar0_size;  /* the BAR's size */
	uint64_t bar0_map;   /* bytes mapped */
	/* doorbells: [db_lo, db_lo + db_size) of the register space goes to db */
	volatile uint8_t *db;
	uint64_t db_lo, db_size;
	int db_bar, db_wc;
	uint16_t cmd_saved;   /* PCI command register before we opened */
	int cmd_set;
	int iommu_group;
	struct rnic_pci_dma *dma;
};

static pthread_mutex_t pci_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int pci_users; /* pci_system_init calls not yet cleaned up */

/* Under pci_lock. */
static int pci_sys_get(void)
{
	int err;

	if (pci_users) {
		pci_users++;
		return 0;
	}
	err = pci_system_init();
	if (err) {
		pci_system_cleanup();
		return err;
	}
	pci_users = 1;
	return 0;
}

static void pci_sys_put(void)
{
	if (pci_users && --pci_users == 0)
		pci_system_cleanup();
}

/* ---------------------------------------------------------------- sysfs */

/* The last component of the symlink BDF/leaf into out ("" when absent). */
static void sysfs_link_last(const struct rnic_bdf *b, const char *leaf, char *out, size_t n)
{
	char path[256], target[256];
	ssize_t len;

	out[0] = 0;
	if (rnic_sysfs_path(path, sizeof(path), b, leaf))
		return;
	len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = 0;
	snprintf(out, n, "%s", rnic_path_last(target));
}

static int sysfs_iommu_group(const struct rnic_bdf *b)
{
	char path[256], target[256];
	ssize_t len;
	int g;

	if (rnic_sysfs_path(path, sizeof(path), b, "iommu_group"))
		return -1;
	len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return -1;
	target[len] = 0;
	return rnic_iommu_group_parse(target, &g) ? -1 : g;
}

/* First line of a small file into out ("" when unreadable). */
static void read_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* Log msg with every "BDF" in it replaced by the device's address. */
static void log_bdf(const char *bdf, const char *msg)
{
	char buf[512];
	size_t o = 0;

	for (const char *p = msg; *p && o + RNIC_BDF_LEN + 1 < sizeof(buf);) {
		if (strncmp(p, "BDF", 3) == 0) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", bdf);
			p += 3;
		} else {
			buf[o++] = *p++;
		}
	}
	buf[o] = 0;
	rnic_log("%s: %s", bdf, buf);
}

/* ---------------------------------------------------------------- MMIO */

/* One 32-bit store (le: already little-endian) into the doorbell mapping or
 * BAR0; returns 1 when it went into a write-combined mapping, which the
 * caller must flush. */
static int pci_store32(struct pci_backend *b, uint32_t off, uint32_t le)
{
	if (off - b->db_lo < b->db_size && b->db != b->bar0) {
		*(volatile uint32_t *)(b->db + (off - b->db_lo)) = le;
		return b->db_wc;
	}
	if ((uint64_t)off + 4 > b->bar0_map)
		return 0; /* outside the map: dropped, as a master abort would */
	*(volatile uint32_t *)(b->bar0 + off) = le;
	return 0;
}

static void pci_bar_write32(void *priv, uint32_t off, uint32_t val)
{
	if (pci_store32(priv, off, htole32(val)))
		rnic_wc_flush_barrier();
}

/* The WQE window: 32-bit stores (the registers are 32 bits wide), which a
 * write-combined doorbell mapping merges into bursts; one flush at the end
 * instead of one per word. The words are already little-endian in memory. */
static void pci_bar_write_block(void *priv, uint32_t off, const void *src, size_t len)
{
	const uint8_t *s = src;
	int wc = 0;
	uint32_t v;

	for (size_t i = 0; i + 4 <= len; i += 4) {
		memcpy(&v, s + i, 4);
		wc |= pci_store32(priv, off + (uint32_t)i, v);
	}
	if (wc)
		rnic_wc_flush_barrier();
}

static uint32_t pci_bar_read32(void *priv, uint32_t off)
{
	struct pci_backend *b = priv;
	uint32_t v;

	if ((uint64_t)off + 4 > b->bar0_map)
		return 0xffffffffu;
	/* A PCIe read does not pass earlier posted writes: when it returns,
	 * they have arrived. */
	v = le32toh(*(volatile uint32_t *)(b->bar0 + off));
	/* A register may announce host memory the device wrote: later loads
	 * must not be satisfied before this one. */
	rnic_from_device_barrier();
	return v;
}

static int pci_dma_map(void *priv, void *va, size_t len, uint64_t *bus)
{
	return rnic_dma_map(((struct pci_backend *)priv)->dma, va, len, bus);
}

static void *pci_dma_alloc(void *priv, size_t bytes, size_t *alloc_bytes)
{
	return rnic_dma_ring_alloc(((struct pci_backend *)priv)->dma, bytes, alloc_bytes);
}

static void pci_dma_free(void *priv, void *va, size_t alloc_bytes)
{
	rnic_dma_ring_free(((struct pci_backend *)priv)->dma, va, alloc_bytes);
}

static int pci_dma_map_pages(void *priv, void *va, size_t len, uint64_t *bus_pages)
{
	return rnic_dma_map_pages(((struct pci_backend *)priv)->dma, va, len, bus_pages);
}

static int pci_dma_unmap(void *priv, void *va, size_t len)
{
	return rnic_dma_unmap(((struct pci_backend *)priv)->dma, va, len);
}

static void pci_close(void *priv)
{
	struct pci_backend *b = priv;

	pthread_mutex_lock(&pci_lock);
	/* Bus mastering off first: no DMA into memory that is about to be
	 * unmapped and reused. */
	if (b->cmd_set)
		pci_device_cfg_write_u16(b->dev, b->cmd_saved, PCI_COMMAND);
	if (b->db && b->db != b->bar0)
		pci_device_unmap_range(b->dev, (void *)b->db, b->db_size);
	if (b->bar0)
		pci_device_unmap_range(b->dev, (void *)b->bar0, b->bar0_map);
	rnic_dma_close(b->dma);
	pci_sys_put();
	pthread_mutex_unlock(&pci_lock);
	free(b);
}

static const struct rnic_backend_ops pci_ops = {
	.name = "pci",
	.bar_write32 = pci_bar_write32,
	.bar_write_block = pci_bar_write_block,
	.bar_read32 = pci_bar_read32,
	.dma_map = pci_dma_map,
	.dma_alloc = pci_dma_alloc,
	.dma_free = pci_dma_free,
	.dma_map_pages = pci_dma_map_pages,
	.dma_unmap = pci_dma_unmap,
	.progress = NULL, /* a real card runs on its own */
	.close = pci_close,
};

/* ---------------------------------------------------------------- open */

int rnic_pci_ids(uint16_t *vendor, uint16_t *device)
{
	const char *env = getenv(RNIC_PCI_ID_ENV);

	*vendor = RNIC_PCI_VENDOR_ID;
	*device = RNIC_PCI_DEVICE_ID;
	if (!env)
		return 0;
	if (rnic_pci_id_parse(env, vendor, device)) {
		rnic_log("%s=\"%s\" is not a PCI ID pair (vvvv:dddd, hexadecimal, as `lspci -n` prints)",
			 RNIC_PCI_ID_ENV, env);
		return EINVAL;
	}
	return 0;
}

static int is_rnic(const struct pci_device *dev, uint16_t vendor, uint16_t device)
{
	return dev->vendor_id == vendor && dev->device_id == device;
}

static struct pci_device *find_first(uint16_t vendor, uint16_t device)
{
	struct pci_id_match m = {
		.vendor_id = vendor,
		.device_id = device,
		.subvendor_id = PCI_MATCH_ANY,
		.subdevice_id = PCI_MATCH_ANY,
	};
	struct pci_device_iterator *it = pci_id_match_iterator_create(&m);
	struct pci_device *dev;

	if (!it)
		return NULL;
	dev = pci_device_next(it);
	pci_iterator_destroy(it);
	return dev;
}

static void bdf_of(const struct pci_device *dev, struct rnic_bdf *b)
{
	b->domain = dev->domain;
	b->bus = dev->bus;
	b->dev = dev->dev;
	b->func = dev->func;
}

/* Doorbells: BAR0 (uncached) today. A separate doorbell BAR is mapped
 * write-combined; libpciaccess falls back to uncached without a word when
 * the BAR is not prefetchable, so check which mapping was obtained. */
static int map_doorbells(struct pci_backend *b, int bar)
{
	struct pci_mem_region *r;
	struct rnic_bdf a;
	char path[256], leaf[32];
	void *p;
	int err;

	if (bar == 0) {
		b->db = b->bar0;
		b->db_bar = 0;
		b->db_wc = 0;
		return 0;
	}
	r = &b->dev->regions[bar];
	if (rnic_bar_check(r->base_addr, r->size, r->is_IO, 4) != RNIC_BAR_OK) {
		rnic_log("%s: doorbell BAR%d is %s", b->bdf, bar,
			 rnic_bar_verdict_str(rnic_bar_check(r->base_addr, r->size, r->is_IO, 4)));
		return ENXIO;
	}
	err = pci_device_map_range(b->dev, r->base_addr, r->size,
				   PCI_DEV_MAP_FLAG_WRITABLE | PCI_DEV_MAP_FLAG_WRITE_COMBINE, &p);
	if (err) {
		log_bdf(b->bdf, rnic_pci_hint(RNIC_STEP_MAP, err));
		return err;
	}
	bdf_of(b->dev, &a);
	snprintf(leaf, sizeof(leaf), "resource%d_wc", bar);
	b->db_wc = !rnic_sysfs_path(path, sizeof(path), &a, leaf) &&
		   rnic_wc_obtained(r->is_prefetchable, access(path, F_OK) == 0);
	if (!b->db_wc)
		rnic_log("%s: doorbell BAR%d is not prefetchable: mapped uncached, not write-combined",
			 b->bdf, bar);
	b->db = p;
	b->db_size = r->size;
	b->db_bar = bar;
	return 0;
}

/* Find, check and map the device; set up its DMA. Under pci_lock, with the
 * libpciaccess reference taken. Fills b; 0 or an errno value. */
static int pci_setup(struct pci_backend *b, const char *bdf_str)
{
	struct rnic_dma_env env = {0};
	enum rnic_dma_mode mode;
	struct pci_mem_region *r;
	enum rnic_bar_verdict v;
	struct rnic_bdf a;
	char driver[64], gtype[32], path[256];
	const char *why;
	uint16_t cmd, vid, did;
	void *p;
	int err;

	err = rnic_pci_ids(&vid, &did);
	if (err)
		return err;
	if (bdf_str) {
		rnic_bdf_parse(bdf_str, &a); /* checked by the caller */
		rnic_bdf_format(&a, b->bdf);
		b->dev = pci_device_find_by_slot(a.domain, a.bus, a.dev, a.func);
		if (!b->dev) {
			rnic_log("no OpenRNIC device found: no PCI device at %s (lspci -D lists the devices)",
				 b->bdf);
			return ENODEV;
		}
		if (!is_rnic(b->dev, vid, did)) {
			rnic_log("no OpenRNIC device found: %s is %04x:%04x, not an OpenRNIC (%04x:%04x)", b->bdf,
				 b->dev->vendor_id, b->dev->device_id, vid, did);
			return ENODEV;
		}
	} else {
		b->dev = find_first(vid, did);
		if (!b->dev) {
			rnic_log("no OpenRNIC device found: no PCI device %04x:%04x on this machine (check `lspci -d %04x:%04x`; is the FPGA programmed and the bus rescanned? echo 1 > /sys/bus/pci/rescan)",
				 vid, did, vid, did);
			return ENODEV;
		}
		bdf_of(b->dev, &a);
		rnic_bdf_format(&a, b->bdf);
	}

	err = pci_device_probe(b->dev);
	if (err) {
		rnic_log("%s: reading its BARs: %s", b->bdf, strerror(err));
		log_bdf(b->bdf, rnic_pci_hint(RNIC_STEP_MAP, err));
		return err;
	}
	r = &b->dev->regions[0];
	v = rnic_bar_check(r->base_addr, r->size, r->is_IO, RNIC_BAR0_BYTES);
	if (v != RNIC_BAR_OK) {
		rnic_log("%s: BAR0 (%llu bytes at 0x%llx) is %s; the register map needs %u bytes of memory BAR: wrong bitstream, or check `lspci -vv -s %s`",
			 b->bdf, (unsigned long long)r->size, (unsigned long long)r->base_addr,
			 rnic_bar_verdict_str(v), (unsigned int)RNIC_BAR0_BYTES, b->bdf);
		return ENXIO;
	}
	b->bar0_size = r->size;

	/* How the device will reach host memory. */
	sysfs_link_last(&a, "driver", driver, sizeof(driver));
	b->iommu_group = sysfs_iommu_group(&a);
	gtype[0] = 0;
	if (b->iommu_group >= 0) {
		snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%d/type", b->iommu_group);
		read_line(path, gtype, sizeof(gtype));
	}
	env.driver = driver;
	env.iommu_group = b->iommu_group;
	env.group_type = gtype;
	env.vfio_present = access("/dev/vfio/vfio", F_OK) == 0;
	err = rnic_dma_choose(&env, &mode, &why);
	if (err) {
		if (*driver)
			rnic_log("%s: bound to kernel driver %s", b->bdf, driver);
		log_bdf(b->bdf, why);
		return err;
	}
	if (mode == RNIC_DMA_VFIO) {
		err = rnic_dma_open_vfio(&b->dma, b->bdf, b->iommu_group);
	} else {
		err = rnic_dma_open_pagemap(&b->dma);
		/* no driver holds the device: enable it through sysfs */
		if (!err && !*driver)
			pci_device_enable(b->dev);
	}
	if (err)
		return err;

	/* Memory decoding and bus mastering on (vfio-pci leaves mastering off). */
	err = pci_device_cfg_read_u16(b->dev, &cmd, PCI_COMMAND);
	if (!err) {
		b->cmd_saved = cmd;
		err = pci_device_cfg_write_u16(b->dev, cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER,
					       PCI_COMMAND);
		b->cmd_set = !err;
	}
	if (err) {
		rnic_log("%s: PCI command register: %s", b->bdf, strerror(err));
		log_bdf(b->bdf, rnic_pci_hint(RNIC_STEP_CONFIG, err));
		return err;
	}

	err = pci_device_map_range(b->dev, r->base_addr, RNIC_BAR0_BYTES, PCI_DEV_MAP_FLAG_WRITABLE, &p);
	if (err) {
		rnic_log("%s: mapping BAR0: %s", b->bdf, strerror(err));
		log_bdf(b->bdf, rnic_pci_hint(RNIC_STEP_MAP, err));
		return err;
	}
	b->bar0 = p;
	b->bar0_map = RNIC_BAR0_BYTES;
	return map_doorbells(b, PCI_DB_BAR);
}

struct rnic_context *rnic_open_pci(const char *bdf)
{
	struct pci_backend *b;
	struct rnic_bdf a;
	int err;

	if (bdf && rnic_bdf_parse(bdf, &a)) {
		rnic_log("\"%s\" is not a PCI address (dddd:bb:dd.f or bb:dd.f, as lspci -D prints)", bdf);
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	b->iommu_group = -1;
	pthread_mutex_lock(&pci_lock);
	err = pci_sys_get();
	if (err) {
		pthread_mutex_unlock(&pci_lock);
		rnic_log("no OpenRNIC device found: cannot scan the PCI bus: %s: %s", strerror(err),
			 rnic_pci_hint(RNIC_STEP_SCAN, err));
		free(b);
		errno = err == ENOENT ? ENODEV : err;
		return NULL;
	}
	err = pci_setup(b, bdf);
	pthread_mutex_unlock(&pci_lock);
	if (err) {
		pci_close(b);
		errno = err;
		return NULL;
	}
	return rnic_open_backend(&pci_ops, b);
}

int rnic_pci_query(struct rnic_context *context, struct rnic_pci_attr *attr)
{
	struct rnic_device *d;
	struct pci_backend *b;

	if (!context || !attr)
		return EINVAL;
	d = rnic_dev(context);
	if (d->ops != &pci_ops)
		return EINVAL;
	b = d->priv;
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->bdf, sizeof(attr->bdf), "%s", b->bdf);
	attr->bar0_size = b->bar0_size;
	attr->db_bar = b->db_bar;
	attr->db_write_combined = b->db_wc;
	attr->db_mapping = b->db_wc ? "write-combined" : "uncached";
	attr->dma_mode = rnic_dma_mode_str(rnic_dma_mode_of(b->dma));
	attr->iommu_group = b->iommu_group;
	return 0;
}

/* ---------------------------------------------------------------- list */

void rnic_free_device_list(struct rnic_pci_device **list)
{
	if (!list)
		return;
	for (struct rnic_pci_device **p = list; *p; p++)
		free(*p);
	free(list);
}

struct rnic_pci_device **rnic_get_device_list(int *num_devices)
{
	struct pci_id_match m = {
		.subvendor_id = PCI_MATCH_ANY,
		.subdevice_id = PCI_MATCH_ANY,
	};
	struct rnic_pci_device **list, **t;
	struct pci_device_iterator *it = NULL;
	struct pci_device *dev;
	size_t n = 0, cap = 4;
	uint16_t vid, did;
	int err;

	err = rnic_pci_ids(&vid, &did);
	if (err) {
		errno = err;
		return NULL;
	}
	m.vendor_id = vid;
	m.device_id = did;
	list = calloc(cap + 1, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&pci_lock);
	err = pci_sys_get();
	if (err == ENOENT) {
		/* no PCI bus at all: no card */
		pthread_mutex_unlock(&pci_lock);
		goto out;
	}
	if (err)
		goto fail;
	it = pci_id_match_iterator_create(&m);
	if (!it) {
		err = ENOMEM;
		goto fail_put;
	}
	while ((dev = pci_device_next(it))) {
		struct rnic_pci_device *e;
		struct rnic_bdf a;

		if (n == cap) {
			t = realloc(list, (cap * 2 + 1) * sizeof(*list));
			if (!t) {
				err = ENOMEM;
				goto fail_put;
			}
			list = t;
			cap *= 2;
		}
		e = calloc(1, sizeof(*e));
		if (!e) {
			err = ENOMEM;
			goto fail_put;
		}
		bdf_of(dev, &a);
		rnic_bdf_format(&a, e->bdf);
		e->vendor_id = dev->vendor_id;
		e->device_id = dev->device_id;
		e->subvendor_id = dev->subvendor_id;
		e->subdevice_id = dev->subdevice_id;
		e->revision = dev->revision;
		sysfs_link_last(&a, "driver", e->driver, sizeof(e->driver));
		e->iommu_group = sysfs_iommu_group(&a);
		list[n++] = e;
		list[n] = NULL;
	}
	pci_iterator_destroy(it);
	pci_sys_put();
	pthread_mutex_unlock(&pci_lock);
out:
	if (num_devices)
		*num_devices = (int)n;
	return list;

fail_put:
	if (it)
		pci_iterator_destroy(it);
	pci_sys_put();
fail:
	pthread_mutex_unlock(&pci_lock);
	rnic_free_device_list(list);
	errno = err;
	return NULL;
}
