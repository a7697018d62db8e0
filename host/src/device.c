/* OpenRNIC host library: opening a device (register block chain), the
 * context window, the doorbell, DMA-able allocations, rnic_query_device. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barrier.h"
#include "priv.h"

void rnic_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rnic: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

uint32_t rnic_read32(struct rnic_device *d, uint32_t off)
{
	return d->ops->bar_read32(d->priv, off);
}

void rnic_write32(struct rnic_device *d, uint32_t off, uint32_t val)
{
	d->ops->bar_write32(d->priv, off, val);
}

void rnic_progress(struct rnic_device *d)
{
	if (d->ops->progress)
		d->ops->progress(d->priv);
}

/* The one doorbell function: every store the device must see (WQEs, the
 * reads of consumed CQEs) is ordered before the posted doorbell write. */
void rnic_doorbell(struct rnic_device *d, uint32_t reg, uint32_t val)
{
	rnic_to_device_barrier();
	d->ops->bar_write32(d->priv, reg, val);
}

/* Write one context record through the CTX window and wait for the command:
 * CTX_DATA words, then CTX_CMD (table, op = RNIC_CTX_OP_*, index), then poll
 * CTX_STATUS until not busy. */
int rnic_ctx_write(struct rnic_device *d, unsigned int table, unsigned int op, uint32_t index,
		   const uint32_t *words, unsigned int nwords)
{
	uint32_t st = 1;

	if (nwords > RNIC_CTX_WORDS || index > 0xffffffu || table > 0xfu || op > 0xfu)
		return EINVAL;
	for (unsigned int i = 0; i < nwords; i++)
		rnic_write32(d, RNIC_CTX_REG(d, RNIC_REG_CTX_DATA) + 4 * i, words[i]);
	rnic_write32(d, RNIC_CTX_REG(d, RNIC_REG_CTX_CMD),
		     table | ((uint32_t)op << 4) | (index << 8));
	for (unsigned int n = 0; n < RNIC_LIB_CTX_POLLS; n++) {
		st = rnic_read32(d, RNIC_CTX_REG(d, RNIC_REG_CTX_STATUS));
		if (!(st & 1))
			break;
		rnic_progress(d);
	}
	if (st & 1) {
		rnic_log("context command (table %u, op %u, index %u) still busy after %u polls",
			 table, op, index, RNIC_LIB_CTX_POLLS);
		return ETIMEDOUT;
	}
	if (st & 2) {
		rnic_log("context command (table %u, op %u, index %u) failed: CTX_STATUS 0x%x",
			 table, op, index, st);
		return EIO;
	}
	return 0;
}

/* Zeroed, page-aligned, whole pages, mapped for DMA. */
void *rnic_dma_alloc(struct rnic_device *d, size_t bytes, size_t *alloc_bytes, uint64_t *bus)
{
	size_t len = (bytes + d->page_size - 1) / d->page_size * d->page_size;
	void *va = NULL;
	int err;

	if (len == 0 || posix_memalign(&va, d->page_size, len)) {
		errno = ENOMEM;
		return NULL;
	}
	memset(va, 0, len);
	err = d->ops->dma_map(d->priv, va, len, bus);
	if (err) {
		free(va);
		errno = err;
		return NULL;
	}
	*alloc_bytes = len;
	return va;
}

void rnic_dma_free(struct rnic_device *d, void *va, size_t bytes)
{
	if (!va)
		return;
	d->ops->dma_unmap(d->priv, va, bytes);
	free(va);
}

int rnic_idx_init(struct rnic_idx *x, uint32_t lo, uint32_t n)
{
	x->lo = lo;
	x->n = n;
	x->hint = lo;
	x->used = calloc(n ? n : 1, 1);
	return x->used ? 0 : ENOMEM;
}

int64_t rnic_idx_alloc(struct rnic_idx *x)
{
	if (x->n <= x->lo)
		return -1;
	for (uint32_t k = 0; k < x->n - x->lo; k++) {
		uint32_t i = x->lo + (x->hint - x->lo + k) % (x->n - x->lo);

		if (!x->used[i]) {
			x->used[i] = 1;
			x->hint = i + 1 < x->n ? i + 1 : x->lo;
			return i;
		}
	}
	return -1;
}

void rnic_idx_free(struct rnic_idx *x, uint32_t i)
{
	if (i < x->n)
		x->used[i] = 0;
}

int rnic_span_init(struct rnic_span *x, uint32_t n)
{
	x->n = n;
	x->used = calloc(n ? n : 1, 1);
	return x->used ? 0 : ENOMEM;
}

/* First fit: the lowest base with count free entries after it, or -1. */
int64_t rnic_span_alloc(struct rnic_span *x, uint32_t count)
{
	uint32_t run = 0;

	if (count == 0 || count > x->n)
		return -1;
	for (uint32_t i = 0; i < x->n; i++) {
		run = x->used[i] ? 0 : run + 1;
		if (run == count) {
			memset(&x->used[i + 1 - count], 1, count);
			return (int64_t)i + 1 - count;
		}
	}
	return -1;
}

void rnic_span_free(struct rnic_span *x, uint32_t base, uint32_t count)
{
	if (base < x->n && count <= x->n - base)
		memset(&x->used[base], 0, count);
}

static const char *blk_name(uint32_t type)
{
	switch (type) {
	case RNIC_BLK_TYPE_DEV: return "DEV";
	case RNIC_BLK_TYPE_PORT: return "PORT";
	case RNIC_BLK_TYPE_CTX: return "CTX";
	case RNIC_BLK_TYPE_STAT: return "STAT";
	case RNIC_BLK_TYPE_DB: return "DB";
	default: return NULL;
	}
}

/* Walk TYPE/VERSION/NEXT from offset 0; record the base of every block this
 * library knows; skip unknown block types; refuse a known block whose major
 * version differs from the one this library was written for. */
static int walk_blocks(struct rnic_device *d)
{
	uint32_t off = 0, *slot;
	int seen_port = 0, seen_ctx = 0, seen_db = 0, seen_stat = 0;

	for (unsigned int n = 0; n < RNIC_LIB_MAX_BLOCKS; n++) {
		uint32_t type = rnic_read32(d, off + RNIC_REG_BLK_TYPE);
		uint32_t version = rnic_read32(d, off + RNIC_REG_BLK_VERSION);
		uint32_t next = rnic_read32(d, off + RNIC_REG_BLK_NEXT);
		const char *name = blk_name(type);

		if (n == 0 && type != RNIC_BLK_TYPE_DEV) {
			rnic_log("no OpenRNIC device: block type 0x%08x at BAR0 offset 0, expected DEV 0x%08x",
				 type, RNIC_BLK_TYPE_DEV);
			return ENODEV;
		}
		if (name && (version >> 16) != RNIC_BLK_MAJOR) {
			rnic_log("%s block at 0x%04x has version %u.%u; this library knows major version %u only",
				 name, off, version >> 16, version & 0xffff, RNIC_BLK_MAJOR);
			return EPROTONOSUPPORT;
		}
		slot = NULL;
		switch (type) {
		case RNIC_BLK_TYPE_DEV:
			if (n == 0) {
				slot = &d->blk_dev;
				d->dev_version = version;
			}
			break;
		case RNIC_BLK_TYPE_PORT: slot = seen_port++ ? NULL : &d->blk_port; break;
		case RNIC_BLK_TYPE_CTX: slot = seen_ctx++ ? NULL : &d->blk_ctx; break;
		case RNIC_BLK_TYPE_STAT: slot = seen_stat++ ? NULL : &d->blk_stat; break;
		case RNIC_BLK_TYPE_DB: slot = seen_db++ ? NULL : &d->blk_db; break;
		default: break; /* a block type from a newer device: skip it */
		}
		if (slot)
			*slot = off;
		if (next == 0) {
			if (!seen_port || !seen_ctx || !seen_db) {
				rnic_log("register block chain lacks the %s block",
					 !seen_port ? "PORT" : !seen_ctx ? "CTX" : "DB");
				return ENODEV;
			}
			return 0;
		}
		if (next <= off || next >= RNIC_BAR0_BYTES || (next & 3)) {
			rnic_log("register block at 0x%04x has a bad NEXT 0x%08x", off, next);
			return EIO;
		}
		off = next;
	}
	rnic_log("register block chain longer than %u blocks", RNIC_LIB_MAX_BLOCKS);
	return EIO;
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static void free_device(struct rnic_device *d)
{
	free(d->pd_idx.used);
	free(d->mr_idx.used);
	free(d->cq_idx.used);
	free(d->qp_idx.used);
	free(d->mr_tag);
	free(d->mtt.used);
	free(d->qp_table);
	free(d->cq_table);
	free(d);
}

struct rnic_context *rnic_open_backend(const struct rnic_backend_ops *ops, void *priv)
{
	struct rnic_device *d;
	long ps;
	int err;

	if (!ops || !ops->bar_write32 || !ops->bar_read32 || !ops->dma_map || !ops->dma_unmap) {
		if (ops && ops->close)
			ops->close(priv);
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = ENOMEM;
		goto fail_close;
	}
	d->ops = ops;
	d->priv = priv;
	d->context.device = d;
	ps = sysconf(_SC_PAGESIZE);
	d->page_size = ps > 0 ? (size_t)ps : 4096;

	err = walk_blocks(d);
	if (err)
		goto fail;
	d->dev_id = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_ID));
	if (d->dev_id != ((uint32_t)RNIC_PCI_VENDOR_ID << 16 | RNIC_PCI_DEVICE_ID)) {
		rnic_log("DEV_ID 0x%08x is not an OpenRNIC device (0x%04x:%04x)", d->dev_id,
			 RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID);
		err = ENODEV;
		goto fail;
	}
	d->data_width = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_DATA_WIDTH));
	d->clock_mhz = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_CLOCK_MHZ));
	d->num_qps = min_u32(rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_NUM_QPS)), RNIC_LIB_MAX_QPS);
	d->num_mrs = min_u32(rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_NUM_MRS)), RNIC_LIB_MAX_MRS);
	d->num_cqs = min_u32(rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_NUM_CQS)), RNIC_LIB_MAX_CQS);
	d->max_inflight = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_MAX_INFLIGHT));
	d->num_mtt = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_NUM_MTT));

	/* QPN 0 and 1 are reserved by the device; MPT index 0 and CQN 0 are left
	 * unused so that a zeroed key or context never names a live object. */
	err = rnic_idx_init(&d->pd_idx, 1, RNIC_LIB_MAX_PDS + 1);
	if (!err)
		err = rnic_idx_init(&d->mr_idx, 1, d->num_mrs);
	if (!err)
		err = rnic_idx_init(&d->cq_idx, 1, d->num_cqs);
	if (!err)
		err = rnic_idx_init(&d->qp_idx, 2, d->num_qps);
	if (!err)
		err = rnic_span_init(&d->mtt, d->num_mtt);
	if (err)
		goto fail;
	d->mr_tag = calloc(d->num_mrs ? d->num_mrs : 1, 1);
	d->qp_table = calloc(d->num_qps ? d->num_qps : 1, sizeof(*d->qp_table));
	d->cq_table = calloc(d->num_cqs ? d->num_cqs : 1, sizeof(*d->cq_table));
	if (!d->mr_tag || !d->qp_table || !d->cq_table) {
		err = ENOMEM;
		goto fail;
	}
	return &d->context;

fail:
	free_device(d);
fail_close:
	if (ops->close)
		ops->close(priv);
	errno = err;
	return NULL;
}

int rnic_close_device(struct rnic_context *context)
{
	struct rnic_device *d;

	if (!context)
		return EINVAL;
	d = rnic_dev(context);
	if (d->n_pd || d->n_mr || d->n_cq || d->n_qp)
		return EBUSY;
	if (d->ops->close)
		d->ops->close(d->priv);
	free_device(d);
	return 0;
}

int rnic_query_device(struct rnic_context *context, struct rnic_device_attr *a)
{
	struct rnic_device *d;
	uint32_t lo, hi, version;

	if (!context || !a)
		return EINVAL;
	d = rnic_dev(context);
	memset(a, 0, sizeof(*a));
	/* Re-read the DEV block: it is the source of truth. */
	version = rnic_read32(d, d->blk_dev + RNIC_REG_BLK_VERSION);
	if ((version >> 16) != RNIC_BLK_MAJOR) {
		rnic_log("DEV block version %u.%u; this library knows major version %u only",
			 version >> 16, version & 0xffff, RNIC_BLK_MAJOR);
		return EPROTONOSUPPORT;
	}
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u", version >> 16, version & 0xffff);
	a->hw_ver = version;
	a->vendor_id = d->dev_id >> 16;
	a->vendor_part_id = d->dev_id & 0xffff;
	a->max_mr_size = (uint64_t)d->num_mtt << RNIC_MTT_PAGE_SHIFT;
	a->max_qp = d->num_qps > 2 ? (int)(d->num_qps - 2) : 0;
	a->max_qp_wr = RNIC_LIB_MAX_QP_WR;
	a->max_sge = RNIC_MAX_SEND_SGE;
	a->max_cq = d->num_cqs > 1 ? (int)(d->num_cqs - 1) : 0;
	a->max_cqe = RNIC_LIB_MAX_CQE;
	a->max_mr = d->num_mrs > 1 ? (int)(d->num_mrs - 1) : 0;
	a->max_pd = RNIC_LIB_MAX_PDS;
	a->max_qp_rd_atom = RNIC_LIB_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = RNIC_LIB_MAX_RD_ATOM;
	a->phys_port_cnt = 1;
	a->data_width = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_DATA_WIDTH));
	a->clock_mhz = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_CLOCK_MHZ));
	a->max_inflight = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_MAX_INFLIGHT));
	a->max_inline_data = RNIC_MAX_INLINE_BYTES;
	lo = rnic_read32(d, RNIC_PORT_REG(d, RNIC_REG_PORT_MAC_LO));
	hi = rnic_read32(d, RNIC_PORT_REG(d, RNIC_REG_PORT_MAC_HI));
	a->mac[0] = (uint8_t)(hi >> 8);
	a->mac[1] = (uint8_t)hi;
	a->mac[2] = (uint8_t)(lo >> 24);
	a->mac[3] = (uint8_t)(lo >> 16);
	a->mac[4] = (uint8_t)(lo >> 8);
	a->mac[5] = (uint8_t)lo;
	return 0;
}
