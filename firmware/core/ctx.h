/* OpenRNIC firmware core: the context window (docs/regs.md, block ctx).
 * Inline: every command writes contexts through it, MTT entries once per
 * page, and with a constant record size the word loop and the checks fold
 * away on the control processor. */
#ifndef FW_CORE_CTX_H
#define FW_CORE_CTX_H

#include "core/fw.h"
#include "hal/mmio.h"

/* The CTX_CMD word for (table, op, index), each within its field. */
static inline uint32_t fw_ctx_cmd_word(uint32_t table, uint32_t op, uint32_t index)
{
	return (table & RNIC_CTX_CMD_TABLE_MASK) | (op & RNIC_CTX_CMD_OP_MASK) << RNIC_CTX_CMD_OP_SHIFT |
	       (index & RNIC_CTX_CMD_INDEX_MASK) << RNIC_CTX_CMD_INDEX_SHIFT;
}

/* CTX_CMD (table, op, index) on what CTX_DATA holds, then poll CTX_STATUS.
 * FW_INTERNAL if the window reports an error or stays busy. */
FW_MUST_CHECK static inline enum fw_status fw_ctx_cmd(uint32_t table, uint32_t op, uint32_t index)
{
	uint32_t st = 1;

	if (index > RNIC_CTX_CMD_INDEX_MASK || table > RNIC_CTX_CMD_TABLE_MASK || op > RNIC_CTX_CMD_OP_MASK)
		return FW_INTERNAL;
	fw_mmio_write32(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(table, op, index));
	for (uint32_t n = 0; n < FW_CTX_POLLS; n++) {
		st = fw_mmio_read32(RNIC_REG_CTX_STATUS);
		if (!(st & RNIC_CTX_STATUS_BUSY))
			break;
	}
	if (st & (RNIC_CTX_STATUS_BUSY | RNIC_CTX_STATUS_ERROR))
		return FW_INTERNAL;
	return FW_OK;
}

/* Write a context record through the CTX window: CTX_DATA words, then
 * fw_ctx_cmd. */
FW_MUST_CHECK static inline enum fw_status fw_ctx_write(uint32_t table, uint32_t op,
							uint32_t index, const uint32_t *words,
							uint32_t nwords)
{
	if (nwords > RNIC_CTX_WORDS)
		return FW_INTERNAL;
	for (uint32_t i = 0; i < nwords; i++)
		fw_mmio_write32(RNIC_REG_CTX_DATA + 4 * i, words[i]);
	return fw_ctx_cmd(table, op, index);
}

#endif /* FW_CORE_CTX_H */
