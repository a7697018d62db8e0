/* OpenRNIC host library: the backend ops table.
 *
 * A backend moves the library's register accesses and DMA mappings to a device:
 * `sim` (the Verilator model, rnic_open_sim) today, `pci` (a real card through
 * libpciaccess) later. Everything above this table is backend-independent.
 * A backend author fills a struct rnic_backend_ops and calls rnic_open_backend.
 */
#ifndef RNIC_BACKEND_H
#define RNIC_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rnic_backend_ops {
	const char *name; /* "sim", "pci", ... */

	/* Posted 32-bit write to BAR0 at byte offset off. Must not wait for the
	 * device; writes reach the device in program order. */
	void (*bar_write32)(void *priv, uint32_t off, uint32_t val);

	/* 32-bit read from BAR0 at byte offset off; returns when the value is
	 * known (the sim backend runs the simulation until the read completes).
	 * Earlier posted writes are complete when the read returns. Not used in
	 * the fast path (post_send, poll_cq). */
	uint32_t (*bar_read32)(void *priv, uint32_t off);

	/* Make [va, va + len) reachable by device DMA and return its bus address
	 * in *bus_addr. The range must stay physically contiguous in bus space
	 * (one MPT entry or ring describes it by its first byte). Returns 0 or an
	 * errno value. */
	int (*dma_map)(void *priv, void *va, size_t len, uint64_t *bus_addr);

	/* Make [va, va + len) reachable by device DMA page by page, as pinned
	 * user memory is: fill bus_pages[i] with the (4 KiB-aligned) bus address
	 * of the i-th 4 KiB page the range touches, ((va + len - 1) >> 12) -
	 * (va >> 12) + 1 entries. The pages need not be contiguous in bus space:
	 * memory regions reach them through the device's page table (MTT).
	 * Returns 0 or an errno value; dma_unmap with the same va and len undoes
	 * it. May be NULL: the library then maps the region with dma_map and
	 * lists its contiguous pages. */
	int (*dma_map_pages)(void *priv, void *va, size_t len, uint64_t *bus_pages);

	/* Undo dma_map (or dma_map_pages) for the same va and len. Returns 0 or
	 * an errno value. */
	int (*dma_unmap)(void *priv, void *va, size_t len);

	/* Memory for a ring (SQ, RQ, CQ): at least bytes, zeroed, page-aligned,
	 * such that dma_map of the whole of it succeeds (physically contiguous
	 * where the device has no IOMMU: hugepages). *alloc_bytes gets the size
	 * to hand back to dma_free. NULL with errno set on failure. May be NULL
	 * (both): the library then uses page-aligned heap memory. */
	void *(*dma_alloc)(void *priv, size_t bytes, size_t *alloc_bytes);
	void (*dma_free)(void *priv, void *va, size_t alloc_bytes);

	/* Called by the library when a poll found nothing to do (rnic_poll_cq
	 * returning 0, a busy CTX_STATUS). A real card's backend may do nothing
	 * (or pause the CPU); the sim backend advances simulated time by one
	 * cycle: in simulation the host CPU is infinitely fast and each empty
	 * poll costs exactly one cycle. May be NULL. */
	void (*progress)(void *priv);

	/* Release the backend's state; called last by rnic_close_device (and by
	 * rnic_open_backend when the open fails). May be NULL. */
	void (*close)(void *priv);

	/* Posted write of len bytes (a multiple of 4, little-endian words as in
	 * memory) to BAR0 at byte offset off, for the doorbell page's WQE window:
	 * a backend with a write-combined doorbell mapping copies the block with
	 * wide stores and flushes once. The bytes arrive before any later write.
	 * May be NULL: the library then writes the words with bar_write32. */
	void (*bar_write_block)(void *priv, uint32_t off, const void *src, size_t len);
};

/* Open a device behind ops. On success the context owns priv: it is released
 * through ops->close. Walks the register block chain from BAR0 offset 0 and
 * refuses a device whose blocks it does not understand. Returns NULL and sets
 * errno on failure (ops->close has then been called):
 *   EINVAL           ops or one of its mandatory entries is NULL
 *   ENODEV           the DEV block or its ID does not match an OpenRNIC device,
 *                    or a mandatory block (DEV, PORT, CTX, DB) is missing
 *   EPROTONOSUPPORT  a known block has a major version this library does not know
 *   EIO              the block chain is malformed (loop, out of BAR0, misaligned)
 *   ENOMEM           out of memory
 */
struct rnic_context *rnic_open_backend(const struct rnic_backend_ops *ops, void *priv);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_BACKEND_H */
