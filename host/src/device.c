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
#include "wire.h"

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

/* The low-latency doorbell: the WQE just written to the SQ ring also goes
 * into the doorbell page's WQE window, then DB_SQ_WQE rings the SQ doorbell
 * and names it, so the device sends it without fetching it (and, inline,
 * without reading anything). The ring copy stays the reference: the device
 * falls back to it when the window was overwritten, and retransmits from it.
 * The window's words are data, not a doorbell: they must only be in place
 * before DB_SQ_WQE, which bar_write_block (one flush of a write-combined
 * mapping) or the in-order bar_write32 ensure; the doorbell itself goes
 * through rnic_doorbell and its barrier like any other. */
void rnic_doorbell_wqe(struct rnic_device *d, uint32_t val, const void *wqe)
{
	rnic_le32 words[RNIC_REG_DB_WQE_COUNT];
	uint32_t win = RNIC_DB_REG(d, RNIC_REG_DB_WQE);

	memcpy(words, wqe, sizeof(words));
	if (d->ops->bar_write_block) {
		d->ops->bar_write_block(d->priv, win, words, sizeof(words));
	} else {
		for (unsigned int i = 0; i < RNIC_REG_DB_WQE_COUNT; i++)
			d->ops->bar_write32(d->priv, win + 4 * i, rnic_le32toh(words[i]));
	}
	rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SQ_WQE), val);
}

/* Zeroed, page-aligned, whole pages, mapped for DMA as one contiguous bus
 * range: the backend's ring memory, or the heap. */
void *rnic_dma_alloc(struct rnic_device *d, size_t bytes, size_t *alloc_bytes, uint64_t *bus)
{
	size_t len = (bytes + d->page_size - 1) / d->page_size * d->page_size;
	void *va = NULL;
	int err;

	if (len == 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (d->ops->dma_alloc) {
		va = d->ops->dma_alloc(d->priv, len, &len);
		if (!va)
			return NULL;
	} else if (posix_memalign(&va, d->page_size, len)) {
		errno = ENOMEM;
		return NULL;
	} else {
		memset(va, 0, len);
	}
	err = d->ops->dma_map(d->priv, va, len, bus);
	if (err) {
		if (d->ops->dma_alloc)
			d->ops->dma_free(d->priv, va, len);
		else
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
	if (d->ops->dma_alloc)
		d->ops->dma_free(d->priv, va, bytes);
	else
		free(va);
}

static const char *blk_name(uint32_t type)
{
	switch (type) {
	case RNIC_BLK_TYPE_DEV: return "DEV";
	case RNIC_BLK_TYPE_PORT: return "PORT";
	case RNIC_BLK_TYPE_CTX: return "CTX";
	case RNIC_BLK_TYPE_STAT: return "STAT";
	case RNIC_BLK_TYPE_DB: return "DB";
	case RNIC_BLK_TYPE_CMD: return "CMD";
	default: return NULL;
	}
}

/* Walk TYPE/VERSION/NEXT from offset 0; record the base of every block this
 * library knows; skip unknown block types; refuse a known block whose major
 * version differs from the one this library was written for. */
static int walk_blocks(struct rnic_device *d)
{
	uint32_t off = 0, *slot;
	int seen_port = 0, seen_ctx = 0, seen_db = 0, seen_stat = 0, seen_cmd = 0;

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
		case RNIC_BLK_TYPE_DB:
			slot = seen_db++ ? NULL : &d->blk_db;
			/* the WQE window came with version 1.1; RNIC_NO_WQE_WINDOW
			 * (as rdma-core's MLX5_SHUT_UP_BF) keeps to plain doorbells */
			if (slot)
				d->wqe_window = (version & 0xffff) >= 1 && !getenv("RNIC_NO_WQE_WINDOW");
			break;
		case RNIC_BLK_TYPE_CMD: slot = seen_cmd++ ? NULL : &d->blk_cmd; break;
		default: break; /* a block type from a newer device: skip it */
		}
		if (slot)
			*slot = off;
		if (next == 0) {
			if (!seen_port || !seen_ctx || !seen_db || !seen_cmd) {
				rnic_log("register block chain lacks the %s block",
					 !seen_port ? "PORT" : !seen_ctx ? "CTX" : !seen_db ? "DB" : "CMD");
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

/* QUERY_DEVICE: what the firmware can create, capped by what this library
 * can address. QPNs run 2..max_qp+1, CQNs 1..max_cq (0 and 1 reserved). */
static int query_fw_caps(struct rnic_device *d)
{
	uint32_t out[RNIC_CMD_QUERY_DEVICE_OUT_WORDS];
	int err;

	err = rnic_cmd(d, RNIC_CMD_OP_QUERY_DEVICE, NULL, 0, out, RNIC_CMD_QUERY_DEVICE_OUT_WORDS);
	if (err) {
		rnic_log("QUERY_DEVICE failed: %s", strerror(err));
		return err;
	}
	d->max_qp = min_u32((uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_QP), RNIC_LIB_MAX_QPS - 2);
	d->max_cq = min_u32((uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_CQ), RNIC_LIB_MAX_CQS - 1);
	d->max_mr = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MR);
	d->max_pd = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_PD);
	d->num_mtt = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MTT);
	d->max_rd_atomic = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_RD_ATOMIC);
	/* SRQNs travel in 16 bits (DB_SRQ) */
	d->max_srq = min_u32((uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_SRQ), 0xffffu);
	d->max_ah = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_AH);
	d->max_mw = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MW);
	d->max_mcast_grp = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MCAST_GRP);
	d->max_mcast_qp_attach = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MCAST_QP_ATTACH);
	d->max_total_mcast_qp_attach =
		(uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_TOTAL_MCAST_QP_ATTACH);
	return 0;
}

static void free_device(struct rnic_device *d)
{
	free(d->qp_table);
	free(d->cq_table);
	free(d->srq_table);
	free(d);
}

struct rnic_context *rnic_open_backend(const struct rnic_backend_ops *ops, void *priv)
{
	struct rnic_device *d;
	long ps;
	int err;

	if (!ops || !ops->bar_write32 || !ops->bar_read32 || !ops->dma_map || !ops->dma_unmap ||
	    !ops->dma_alloc != !ops->dma_free) {
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
	d->max_inflight = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_MAX_INFLIGHT));

	/* Objects are the firmware's: it numbers them, and says how many. */
	err = rnic_fw_wait_ready(d);
	if (!err)
		err = query_fw_caps(d);
	if (err)
		goto fail;
	/* events from before this open name objects that are gone */
	d->eq_ci = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_PI));
	rnic_write32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_CI), d->eq_ci);
	d->qp_table = calloc(d->max_qp + 2, sizeof(*d->qp_table));
	d->cq_table = calloc(d->max_cq + 1, sizeof(*d->cq_table));
	d->srq_table = calloc(d->max_srq + 1, sizeof(*d->srq_table));
	if (!d->qp_table || !d->cq_table || !d->srq_table) {
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
	if (d->n_pd || d->n_mr || d->n_cq || d->n_qp || d->n_srq || d->n_mw)
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
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u", d->fw_version >> 16, d->fw_version & 0xffff);
	a->hw_ver = version;
	a->vendor_id = d->dev_id >> 16;
	a->vendor_part_id = d->dev_id & 0xffff;
	a->max_mr_size = (uint64_t)d->num_mtt << RNIC_MTT_PAGE_SHIFT;
	a->max_qp = (int)d->max_qp;
	a->max_qp_wr = RNIC_LIB_MAX_QP_WR;
	a->max_sge = RNIC_MAX_SEND_SGE;
	a->max_cq = (int)d->max_cq;
	a->max_cqe = RNIC_LIB_MAX_CQE;
	a->max_mr = (int)d->max_mr;
	a->max_pd = (int)d->max_pd;
	a->max_qp_rd_atom = (int)d->max_rd_atomic;
	a->max_qp_init_rd_atom = (int)d->max_rd_atomic;
	a->max_srq = (int)d->max_srq;
	a->max_srq_wr = d->max_srq ? 1 << RNIC_CMD_MAX_LOG_SRQ_WR : 0;
	a->max_srq_sge = d->max_srq ? RNIC_MAX_RECV_SGE : 0;
	a->phys_port_cnt = 1;
	a->data_width = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_DATA_WIDTH));
	a->clock_mhz = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_CLOCK_MHZ));
	a->max_inflight = rnic_read32(d, RNIC_DEV_REG(d, RNIC_REG_DEV_MAX_INFLIGHT));
	a->max_inline_data = RNIC_MAX_INLINE_BYTES;
	a->wqe_window = d->wqe_window;
	a->max_ah = (int)d->max_ah;
	a->max_mw = (int)d->max_mw;
	a->max_mcast_grp = (int)d->max_mcast_grp;
	a->max_mcast_qp_attach = (int)d->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = (int)d->max_total_mcast_qp_attach;
	a->max_ud_payload = 128u << rnic_read32(d, RNIC_PORT_REG(d, RNIC_REG_PORT_UD_MTU));
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
