/* What a simulated OpenRNIC reports about itself, read straight from its DEV
 * block through the simulator (no host library), for tests/host/rnic_info_sim.py
 * to hold rnic-info's output against. Prints "key value" lines for NIC 0 of
 * a fresh two-NIC world (and the firmware's version once it has booted):
 * rnic_query_device's derivations of the raw
 * registers (max_qp = DEV_NUM_QPS - 2, ...) as docs/api.md states them.
 *   rnic_info_check [--width 64|512] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_hw.h"
#include "rnic_sim.h"

int main(int argc, char **argv)
{
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_sim_nic *nic;
	uint32_t id, ver, qps, mrs, cqs, mtt, fw;

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	if (argc == 3 && strcmp(argv[1], "--width") == 0)
		cfg.data_width = (unsigned int)atoi(argv[2]);
	w = rnic_world_create(&cfg);
	if (!w) {
		fprintf(stderr, "rnic_info_check: cannot create the simulation\n");
		return 1;
	}
	nic = rnic_world_nic(w, 0);
	/* the simulated core has the documented layout: DEV at 0 */
	if (rnic_sim_bar_read32(nic, RNIC_BLK_DEV_BASE + RNIC_REG_BLK_TYPE) != RNIC_BLK_TYPE_DEV) {
		fprintf(stderr, "rnic_info_check: no DEV block at offset 0\n");
		return 1;
	}
	ver = rnic_sim_bar_read32(nic, RNIC_BLK_DEV_BASE + RNIC_REG_BLK_VERSION);
	id = rnic_sim_bar_read32(nic, RNIC_REG_DEV_ID);
	qps = rnic_sim_bar_read32(nic, RNIC_REG_DEV_NUM_QPS);
	mrs = rnic_sim_bar_read32(nic, RNIC_REG_DEV_NUM_MRS);
	cqs = rnic_sim_bar_read32(nic, RNIC_REG_DEV_NUM_CQS);
	mtt = rnic_sim_bar_read32(nic, RNIC_REG_DEV_NUM_MTT);
	/* fw_ver is the firmware's (FW_STATE, once it has booted); hw_ver the
	 * DEV block's version */
	for (int i = 0; i < 1000 && !rnic_sim_bar_read32(nic, RNIC_REG_FW_STATE); i++)
		rnic_world_step(w, 1000);
	fw = rnic_sim_bar_read32(nic, RNIC_REG_FW_STATE);
	if (!fw) {
		fprintf(stderr, "rnic_info_check: the firmware did not boot\n");
		return 1;
	}
	printf("fw_ver %u.%u\n", fw >> 16, fw & 0xffff);
	printf("hw_ver 0x%x\n", ver);
	printf("vendor_id 0x%04x\n", id >> 16);
	printf("vendor_part_id %u\n", id & 0xffff);
	printf("data_width %u\n", rnic_sim_bar_read32(nic, RNIC_REG_DEV_DATA_WIDTH));
	printf("clock_mhz %u\n", rnic_sim_bar_read32(nic, RNIC_REG_DEV_CLOCK_MHZ));
	printf("max_inflight %u\n", rnic_sim_bar_read32(nic, RNIC_REG_DEV_MAX_INFLIGHT));
	printf("mtt_entries %u\n", mtt);
	printf("max_mr_size 0x%llx\n", (unsigned long long)mtt << RNIC_MTT_PAGE_SHIFT);
	printf("max_qp %u\n", qps - 2);
	printf("max_mr %u\n", mrs - 1);
	printf("max_cq %u\n", cqs - 1);
	printf("max_sge %u\n", RNIC_MAX_SEND_SGE);
	printf("max_inline_data %u\n", RNIC_MAX_INLINE_BYTES);
	/* the library writes inline WQEs into the doorbell page from DB 1.1 on */
	printf("wqe_window %s\n",
	       (rnic_sim_bar_read32(nic, RNIC_BLK_DB_BASE + RNIC_REG_BLK_VERSION) & 0xffff) >= 1 ? "yes" : "no");
	printf("gid_table_size %u\n", RNIC_GID_TABLE_SIZE);
	rnic_world_destroy(w);
	return 0;
}
