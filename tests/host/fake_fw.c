/* The firmware's register access layer (firmware/hal/mmio.h) for the host
 * library's unit tests: the natively compiled firmware reads and writes the
 * registers of the fake device it runs in (fake_backend.h). */
#include "fake_backend.h"
#include "hal/mmio.h"

struct fake_nic *fake_fw_nic;

uint32_t fw_mmio_read32(uint32_t off)
{
	return fake_reg_read(fake_fw_nic, off);
}

void fw_mmio_write32(uint32_t off, uint32_t val)
{
	fake_reg_write(fake_fw_nic, off, val);
}
