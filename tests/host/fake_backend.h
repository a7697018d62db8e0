/* A fake OpenRNIC for host-library unit tests: a backend ops table that
 * records every BAR write, serves BAR reads from a register array laid out
 * like the real DEV/PORT/CTX/STAT/CMD/DB blocks, runs the real firmware
 * (firmware/core, compiled natively) on each command written to CMD_CTRL,
 * applies the firmware's CTX_CMD writes to its own copy of the context
 * tables, and maps DMA through a fixed offset so a test can tell bus
 * addresses from virtual ones. */
#ifndef FAKE_BACKEND_H
#define FAKE_BACKEND_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fw.h"
#include "rnic/backend.h"
#include "rnic/rnic_hw.h"

#define FAKE_BUS_OFFSET 0x100000000000ull /* bus = va + this */
#define FAKE_MAX_LOG 8192
#define FAKE_ENTRIES 64
#define FAKE_MTT 64 /* MTT entries: 256 KiB of MRs (the QP1 carrier alone takes 34 pages) */
/* Paged mappings: the fake hands out bus pages from here, neighbours of a
 * range swapped in pairs, so a page list is never one contiguous run. */
#define FAKE_PAGE_BASE 0x200000000000ull

struct fake_write {
	uint32_t off, val;
};

struct fake_nic {
	uint32_t regs[RNIC_BAR0_BYTES / 4];
	struct fake_write log[FAKE_MAX_LOG];
	unsigned int nlog;
	unsigned int nreads, nprogress, nmaps, nunmaps, closed;
	int map_error;          /* returned by dma_map when set */
	int ctx_busy_forever;   /* CTX_STATUS stays busy */
	uint32_t ctx_status;    /* CTX_STATUS once not busy */
	unsigned int ctx_busy_reads; /* busy reads after each CTX_CMD */
	unsigned int busy_left;
	uint32_t ctx_data[RNIC_CTX_WORDS];
	uint32_t qpc[FAKE_ENTRIES][RNIC_QPC_WORDS];
	uint32_t mpt[FAKE_ENTRIES][RNIC_MPT_WORDS];
	uint32_t cqc[FAKE_ENTRIES][RNIC_CQC_WORDS];
	uint32_t srqc[FAKE_ENTRIES][RNIC_SRQC_WORDS];
	uint32_t ah[FAKE_ENTRIES][RNIC_AH_WORDS];
	uint64_t mtt[FAKE_MTT];        /* page field of each MTT entry written */
	uint64_t next_page;            /* bus pages handed out by dma_map_pages */
	unsigned int ncmd, npage_maps; /* ncmd: CTX_CMD writes */
	uint32_t last_ctx_cmd;
	uint32_t ctx_count;     /* CTX_COUNT: entries of a CTX_OP_MTT_RUN */
	/* The firmware: booted at the first read of FW_STATE (after the test
	 * has set the DEV block up), one command per CMD_CTRL write. */
	struct fw fw;
	int fw_booted;
	int fw_never_boots;     /* FW_STATE stays 0 */
	int fw_halted;          /* CMD_STATUS says the control processor halted */
	unsigned int fw_cmds;   /* commands run */
	uint32_t fw_last_opcode;
};

/* The fake the firmware's register accesses go to (tests/host/fake_fw.c). */
extern struct fake_nic *fake_fw_nic;

static inline void fake_set(struct fake_nic *f, uint32_t off, uint32_t v) { f->regs[off / 4] = v; }

static inline void fake_block(struct fake_nic *f, uint32_t base, uint32_t type, uint32_t ver,
			      uint32_t next)
{
	fake_set(f, base + RNIC_REG_BLK_TYPE, type);
	fake_set(f, base + RNIC_REG_BLK_VERSION, ver);
	fake_set(f, base + RNIC_REG_BLK_NEXT, next);
}

/* The register file of a fresh device, laid out as docs/regs.md says. */
static inline void fake_init(struct fake_nic *f)
{
	memset(f, 0, sizeof(*f));
	fake_block(f, RNIC_BLK_DEV_BASE, RNIC_BLK_TYPE_DEV, RNIC_BLK_DEV_VERSION, RNIC_BLK_DEV_NEXT);
	fake_block(f, RNIC_BLK_PORT_BASE, RNIC_BLK_TYPE_PORT, RNIC_BLK_PORT_VERSION, RNIC_BLK_PORT_NEXT);
	fake_block(f, RNIC_BLK_CTX_BASE, RNIC_BLK_TYPE_CTX, RNIC_BLK_CTX_VERSION, RNIC_BLK_CTX_NEXT);
	fake_block(f, RNIC_BLK_STAT_BASE, RNIC_BLK_TYPE_STAT, RNIC_BLK_STAT_VERSION, RNIC_BLK_STAT_NEXT);
	fake_block(f, RNIC_BLK_CMD_BASE, RNIC_BLK_TYPE_CMD, RNIC_BLK_CMD_VERSION, RNIC_BLK_CMD_NEXT);
	fake_block(f, RNIC_BLK_DB_BASE, RNIC_BLK_TYPE_DB, RNIC_BLK_DB_VERSION, RNIC_BLK_DB_NEXT);
	fake_set(f, RNIC_REG_DEV_ID, (uint32_t)RNIC_PCI_VENDOR_ID << 16 | RNIC_PCI_DEVICE_ID);
	fake_set(f, RNIC_REG_DEV_DATA_WIDTH, 64);
	fake_set(f, RNIC_REG_DEV_CLOCK_MHZ, RNIC_CLOCK_MHZ);
	fake_set(f, RNIC_REG_DEV_NUM_QPS, 16);
	fake_set(f, RNIC_REG_DEV_NUM_MRS, 16);
	fake_set(f, RNIC_REG_DEV_NUM_CQS, 8);
	fake_set(f, RNIC_REG_DEV_MAX_INFLIGHT, 8);
	fake_set(f, RNIC_REG_DEV_NUM_MTT, FAKE_MTT);
	fake_set(f, RNIC_REG_DEV_NUM_SRQS, 8);
	fake_set(f, RNIC_REG_DEV_NUM_AHS, 8);
	fake_set(f, RNIC_REG_PORT_UD_MTU, RNIC_IB_MTU_4096); /* its reset value */
	fake_set(f, RNIC_REG_PORT_MAC_LO, 0x33445566);
	fake_set(f, RNIC_REG_PORT_MAC_HI, 0x0211);
}

/* A register write by the host or by the firmware. */
static inline void fake_reg_write(struct fake_nic *f, uint32_t off, uint32_t val)
{
	if (off >= RNIC_REG_CTX_DATA && off < RNIC_REG_CTX_DATA + 4 * RNIC_CTX_WORDS) {
		f->ctx_data[(off - RNIC_REG_CTX_DATA) / 4] = val;
	} else if (off == RNIC_REG_CTX_COUNT) {
		f->ctx_count = val;
	} else if (off == RNIC_REG_CTX_CMD &&
		   ((val >> RNIC_CTX_CMD_OP_SHIFT) & RNIC_CTX_CMD_OP_MASK) == RNIC_CTX_OP_MTT_RUN) {
		uint32_t index = (val >> RNIC_CTX_CMD_INDEX_SHIFT) & RNIC_CTX_CMD_INDEX_MASK;

		f->ncmd++;
		f->last_ctx_cmd = val;
		f->busy_left = f->ctx_busy_reads;
		for (uint32_t i = 0; i < f->ctx_count && i < RNIC_CTX_WORDS / RNIC_MTT_WORDS; i++)
			if (index + i < FAKE_MTT)
				f->mtt[index + i] = RNIC_CTX_GET(&f->ctx_data[i * RNIC_MTT_WORDS], MTT, PAGE);
	} else if (off == RNIC_REG_CTX_CMD) {
		uint32_t table = val & RNIC_CTX_CMD_TABLE_MASK;
		uint32_t index = (val >> RNIC_CTX_CMD_INDEX_SHIFT) & RNIC_CTX_CMD_INDEX_MASK;

		f->ncmd++;
		f->last_ctx_cmd = val;
		f->busy_left = f->ctx_busy_reads;
		if (index < FAKE_ENTRIES && table == RNIC_CTX_TABLE_QPC)
			memcpy(f->qpc[index], f->ctx_data, sizeof(f->qpc[index]));
		else if (index < FAKE_ENTRIES && table == RNIC_CTX_TABLE_MPT)
			memcpy(f->mpt[index], f->ctx_data, sizeof(f->mpt[index]));
		else if (index < FAKE_ENTRIES && table == RNIC_CTX_TABLE_CQC)
			memcpy(f->cqc[index], f->ctx_data, sizeof(f->cqc[index]));
		else if (index < FAKE_ENTRIES && table == RNIC_CTX_TABLE_SRQC)
			memcpy(f->srqc[index], f->ctx_data, sizeof(f->srqc[index]));
		else if (index < FAKE_ENTRIES && table == RNIC_CTX_TABLE_AH)
			memcpy(f->ah[index], f->ctx_data, sizeof(f->ah[index]));
		else if (index < FAKE_MTT && table == RNIC_CTX_TABLE_MTT)
			f->mtt[index] = RNIC_CTX_GET(f->ctx_data, MTT, PAGE);
	} else if (off >= RNIC_REG_PORT_MAC_LO && off < RNIC_BLK_PORT_NEXT) {
		/* port registers read back what was written */
		f->regs[off / 4] = val;
	} else if ((off >= RNIC_REG_CMD_IN && off < RNIC_REG_CMD_IN + 4 * RNIC_REG_CMD_IN_COUNT) ||
		   (off >= RNIC_REG_CMD_OUT && off < RNIC_REG_CMD_OUT + 4 * RNIC_REG_CMD_OUT_COUNT) ||
		   (off >= RNIC_REG_EQ_ENTRY && off < RNIC_REG_EQ_ENTRY + 4 * RNIC_REG_EQ_ENTRY_COUNT) ||
		   off == RNIC_REG_FW_STATE || off == RNIC_REG_EQ_PI || off == RNIC_REG_EQ_CI ||
		   off == RNIC_REG_EQ_LOST) {
		f->regs[off / 4] = val;
	} else if (off == RNIC_REG_CMD_DONE) {
		/* the firmware ends the command: busy clears, status and token */
		f->regs[RNIC_REG_CMD_STATUS / 4] =
			(val & ((uint32_t)RNIC_CMD_STATUS_ST_MASK << RNIC_CMD_STATUS_ST_SHIFT)) |
			(f->regs[RNIC_REG_CMD_OPCODE / 4] & ((uint32_t)RNIC_CMD_TOKEN_MASK << RNIC_CMD_TOKEN_SHIFT));
	}
}

static inline uint32_t fake_reg_read(struct fake_nic *f, uint32_t off)
{
	if (off == RNIC_REG_CTX_STATUS) {
		if (f->ctx_busy_forever)
			return RNIC_CTX_STATUS_BUSY;
		if (f->busy_left) {
			f->busy_left--;
			return RNIC_CTX_STATUS_BUSY;
		}
		return f->ctx_status;
	}
	return off < RNIC_BAR0_BYTES ? f->regs[off / 4] : 0xffffffffu;
}

static inline void fake_fw_boot(struct fake_nic *f)
{
	if (f->fw_booted || f->fw_never_boots)
		return;
	fake_fw_nic = f;
	fw_boot(&f->fw);
	f->fw_booted = 1;
}

static inline void fake_bar_write32(void *priv, uint32_t off, uint32_t val)
{
	struct fake_nic *f = priv;

	if (f->nlog < FAKE_MAX_LOG)
		f->log[f->nlog++] = (struct fake_write){off, val};
	if (off == RNIC_REG_CMD_CTRL) {
		if (f->fw_halted || !f->fw_booted)
			return; /* nobody will answer */
		/* The mailbox as the hardware runs it: busy, the opcode and token
		 * for the firmware, then one turn of the firmware's main loop. */
		f->regs[RNIC_REG_CMD_OPCODE / 4] = val;
		f->regs[RNIC_REG_CMD_STATUS / 4] = RNIC_CMD_STATUS_BUSY;
		f->fw_cmds++;
		f->fw_last_opcode = val & RNIC_CMD_OPCODE_MASK;
		fake_fw_nic = f;
		fw_mailbox_poll(&f->fw);
		return;
	}
	if (off == RNIC_REG_CMD_DONE || off == RNIC_REG_FW_STATE || off == RNIC_REG_EQ_PI ||
	    off == RNIC_REG_EQ_LOST || off == RNIC_REG_EVT_POP ||
	    (off >= RNIC_REG_CMD_OUT && off < RNIC_REG_CMD_OUT + 4 * RNIC_REG_CMD_OUT_COUNT) ||
	    (off >= RNIC_REG_EQ_ENTRY && off < RNIC_REG_EQ_ENTRY + 4 * RNIC_REG_EQ_ENTRY_COUNT))
		return; /* the firmware's registers: read-only for the host */
	fake_reg_write(f, off, val);
}

/* The data path raises an event (an EVT_POP word); the firmware takes it
 * as its main loop would. */
static inline void fake_event(struct fake_nic *f, uint32_t word)
{
	f->regs[RNIC_REG_EVT_POP / 4] = word;
	fake_fw_nic = f;
	(void)fw_event_poll(&f->fw);
	f->regs[RNIC_REG_EVT_POP / 4] = 0;
}

static inline uint32_t fake_bar_read32(void *priv, uint32_t off)
{
	struct fake_nic *f = priv;

	f->nreads++;
	if (off == RNIC_REG_FW_STATE)
		fake_fw_boot(f);
	if (off == RNIC_REG_CMD_STATUS && f->fw_halted)
		return f->regs[off / 4] | RNIC_CMD_STATUS_HALTED;
	return fake_reg_read(f, off);
}

static inline int fake_dma_map(void *priv, void *va, size_t len, uint64_t *bus)
{
	struct fake_nic *f = priv;

	(void)len;
	if (f->map_error)
		return f->map_error;
	f->nmaps++;
	*bus = (uint64_t)(uintptr_t)va + FAKE_BUS_OFFSET;
	return 0;
}

/* Bus page of the k-th page handed out: pairs swapped (1, 0, 3, 2, ...). */
static inline uint64_t fake_page(uint64_t k)
{
	return FAKE_PAGE_BASE + ((k ^ 1) << RNIC_MTT_PAGE_SHIFT);
}

static inline int fake_dma_map_pages(void *priv, void *va, size_t len, uint64_t *pages)
{
	struct fake_nic *f = priv;
	uint64_t first = (uintptr_t)va >> RNIC_MTT_PAGE_SHIFT;
	uint64_t n = (((uintptr_t)va + len - 1) >> RNIC_MTT_PAGE_SHIFT) - first + 1;

	if (f->map_error)
		return f->map_error;
	f->nmaps++;
	f->npage_maps++;
	/* start each range on an even page so its pairs stay inside it */
	f->next_page = (f->next_page + 1) & ~1ull;
	for (uint64_t i = 0; i < n; i++)
		pages[i] = fake_page(f->next_page++);
	return 0;
}

static inline int fake_dma_unmap(void *priv, void *va, size_t len)
{
	struct fake_nic *f = priv;

	(void)va;
	(void)len;
	f->nunmaps++;
	return 0;
}

static inline void fake_progress(void *priv)
{
	((struct fake_nic *)priv)->nprogress++;
}

static inline void fake_close(void *priv)
{
	((struct fake_nic *)priv)->closed++;
}

static const struct rnic_backend_ops fake_ops = {
	.name = "fake",
	.bar_write32 = fake_bar_write32,
	.bar_read32 = fake_bar_read32,
	.dma_map = fake_dma_map,
	.dma_map_pages = fake_dma_map_pages,
	.dma_unmap = fake_dma_unmap,
	.progress = fake_progress,
	.close = fake_close,
};

/* The same device with a backend that maps only contiguous ranges (no
 * dma_map_pages): the library lists the range's pages itself. */
static const struct rnic_backend_ops fake_ops_contig = {
	.name = "fake-contig",
	.bar_write32 = fake_bar_write32,
	.bar_read32 = fake_bar_read32,
	.dma_map = fake_dma_map,
	.dma_unmap = fake_dma_unmap,
	.progress = fake_progress,
	.close = fake_close,
};

/* Host virtual address of a bus address the fake handed out. */
static inline void *fake_va(uint64_t bus)
{
	return (void *)(uintptr_t)(bus - FAKE_BUS_OFFSET);
}

#endif /* FAKE_BACKEND_H */
