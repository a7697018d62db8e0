/* OpenRNIC host library: the `sim` backend (the Verilator model of sim/).
 *
 * BAR writes are posted into the simulation; a BAR read runs the simulation
 * until the read completes. DMA mapping goes through the simulated IOMMU:
 * rings and CQs are mapped one to one (bus address = virtual address), memory
 * regions page by page onto scattered bus pages (reached through the MTT);
 * the device may reach only mapped bytes.
 * The host CPU is infinitely fast: the library's work costs no simulated time,
 * and each empty poll (progress) advances the world by one cycle.
 */
#include <errno.h>
#include <stdlib.h>

#include "priv.h"
#include "rnic_sim.h"

struct sim_backend {
	struct rnic_world *world;
	struct rnic_sim_nic *nic;
};

static void sim_bar_write32(void *priv, uint32_t off, uint32_t val)
{
	struct sim_backend *s = priv;

	rnic_sim_bar_write32(s->nic, off, val);
}

static uint32_t sim_bar_read32(void *priv, uint32_t off)
{
	struct sim_backend *s = priv;

	return rnic_sim_bar_read32(s->nic, off);
}

static int sim_dma_map(void *priv, void *va, size_t len, uint64_t *bus_addr)
{
	struct sim_backend *s = priv;
	int err = rnic_sim_dma_map(s->nic, va, len);

	if (err)
		return err < 0 ? -err : err;
	*bus_addr = (uint64_t)(uintptr_t)va;
	return 0;
}

static int sim_dma_map_pages(void *priv, void *va, size_t len, uint64_t *bus_pages)
{
	struct sim_backend *s = priv;
	int err = rnic_sim_dma_map_pages(s->nic, va, len, bus_pages);

	return err < 0 ? -err : err;
}

static int sim_dma_unmap(void *priv, void *va, size_t len)
{
	struct sim_backend *s = priv;
	int err = rnic_sim_dma_unmap(s->nic, va, len);

	return err < 0 ? -err : err;
}

static void sim_progress(void *priv)
{
	struct sim_backend *s = priv;

	rnic_world_step(s->world, 1);
}

static void sim_close(void *priv)
{
	free(priv); /* the world belongs to the caller */
}

static const struct rnic_backend_ops sim_ops = {
	.name = "sim",
	.bar_write32 = sim_bar_write32,
	.bar_read32 = sim_bar_read32,
	.dma_map = sim_dma_map,
	.dma_map_pages = sim_dma_map_pages,
	.dma_unmap = sim_dma_unmap,
	.progress = sim_progress,
	.close = sim_close,
};

struct rnic_context *rnic_open_sim(struct rnic_world *world, int nic_index)
{
	struct sim_backend *s;
	struct rnic_sim_nic *nic;

	if (!world || nic_index < 0) {
		errno = EINVAL;
		return NULL;
	}
	nic = rnic_world_nic(world, nic_index);
	if (!nic) {
		errno = ENODEV;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->world = world;
	s->nic = nic;
	return rnic_open_backend(&sim_ops, s);
}
