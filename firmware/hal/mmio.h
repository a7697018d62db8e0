/* OpenRNIC firmware: the one register access layer.
 *
 * Every register access of the firmware goes through fw_mmio_read32() and
 * fw_mmio_write32(). The offset is the register's BAR0 address from the
 * generated map (RNIC_REG_*); the control processor sees it at
 * RNIC_FW_REG_BASE + offset, 32-bit accesses only.
 *
 * Built with FW_MOCK_MMIO (the native unit tests) the two functions are
 * hal/mock_mmio.c's, which compare each access with a list of expected
 * accesses. */
#ifndef FW_HAL_MMIO_H
#define FW_HAL_MMIO_H

#include <stdint.h>

#include "rnic/rnic_hw.h"

#ifdef FW_MOCK_MMIO

uint32_t fw_mmio_read32(uint32_t off);
void fw_mmio_write32(uint32_t off, uint32_t val);

#else

static inline volatile uint32_t *fw_mmio_reg(uint32_t off)
{
	return (volatile uint32_t *)(uintptr_t)(RNIC_FW_REG_BASE + off);
}

static inline uint32_t fw_mmio_read32(uint32_t off)
{
	return *fw_mmio_reg(off);
}

static inline void fw_mmio_write32(uint32_t off, uint32_t val)
{
	*fw_mmio_reg(off) = val;
}

#endif /* FW_MOCK_MMIO */

#endif /* FW_HAL_MMIO_H */
