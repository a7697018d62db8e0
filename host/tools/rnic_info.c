/* rnic-info: what an OpenRNIC is and how it is doing, as ibv_devinfo prints
 * it: identity and versions, capabilities (rnic_query_device), the port
 * (MAC, MTU, GID table), with -v every counter. Real cards through the pci
 * backend; --sim a simulated pair of NICs that has carried one RDMA WRITE. */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rnic/pci.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"

#define STAT(n) {RNIC_REG_STAT_##n, #n}

static const struct {
	uint32_t reg;
	const char *name;
} counters[] = {
	STAT(TX_FRAMES), STAT(TX_BYTES), STAT(RX_FRAMES), STAT(RX_BYTES),
	STAT(RX_DROP_NOT_ROCE), STAT(RX_DROP_UDP_PORT), STAT(RX_DROP_IP_CSUM),
	STAT(RX_DROP_ICRC), STAT(RX_DROP_MALFORMED), STAT(RX_DROP_QPN),
	STAT(RX_DROP_OVERFLOW), STAT(RX_PSN_ERR), STAT(RX_DUPLICATE), STAT(TX_ACK),
	STAT(TX_NAK), STAT(RX_ACK), STAT(RX_NAK), STAT(CQE), STAT(RECV_CQE),
	STAT(LOC_PROT_ERR), STAT(CQ_OVERRUN), STAT(RX_ACCESS_ERR), STAT(TX_RNR_NAK),
	STAT(RX_RNR_NAK), STAT(RETRY), STAT(ACK_TIMEOUT), STAT(TX_WQE_WINDOW), STAT(RX_PAUSE_REQ),
	STAT(RX_PAUSE_STALL),
	STAT(TX_STALE),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rnic-info [-d BDF] [-l] [-v]\n"
		"       rnic-info --sim [--width 64|512] [-v]\n"
		"Print what an OpenRNIC is: identity, versions, capabilities, port 1 (MAC,\n"
		"MTU, GID table) and, with -v, its counters.\n"
		"\n"
		"  -d, --device BDF   the card at PCI address BDF (dddd:bb:dd.f); default: every\n"
		"                     OpenRNIC found (PCI ID %04x:%04x; the environment\n"
		"                     variable RNIC_PCI_ID=vvvv:dddd looks for other IDs)\n"
		"  -l, --list         only list the cards found\n"
		"  -v, --verbose      also print every counter\n"
		"      --sim          a simulated world instead of a card: two NICs back to\n"
		"                     back (the rnic-demo setup, every GID entry filled) after\n"
		"                     one 4 KiB RDMA WRITE from sim0 to sim1; prints both\n"
		"      --width N      data-path width of the simulated NICs (64 or 512; 64)\n"
		"  -h, --help         this text\n"
		"Exit status: 0, 1 when no device was found or one failed, 2 on bad usage.\n",
		RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID);
}

static void print_gid(const union rnic_gid *g)
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, g->raw, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	printf("%s", s);
}

static int print_device(struct rnic_context *ctx, const char *name, int verbose)
{
	struct rnic_device_attr a;
	struct rnic_pci_attr p;
	int err;

	err = rnic_query_device(ctx, &a);
	if (err) {
		fprintf(stderr, "rnic-info: %s: rnic_query_device: %s\n", name, strerror(err));
		return err;
	}
	printf("hca_id:\t%s\n", name);
	printf("\ttransport:\t\t\tRoCEv2\n");
	printf("\tfw_ver:\t\t\t\t%s\n", a.fw_ver);
	printf("\thw_ver:\t\t\t\t0x%x\n", a.hw_ver);
	printf("\tvendor_id:\t\t\t0x%04x\n", a.vendor_id);
	printf("\tvendor_part_id:\t\t\t%u\n", a.vendor_part_id);
	if (rnic_pci_query(ctx, &p) == 0) {
		printf("\tpci_address:\t\t\t%s\n", p.bdf);
		printf("\tbar0_size:\t\t\t%llu\n", (unsigned long long)p.bar0_size);
		printf("\tdoorbells:\t\t\tBAR%d, %s\n", p.db_bar, p.db_mapping);
		printf("\tdma:\t\t\t\t%s", p.dma_mode);
		if (p.iommu_group >= 0)
			printf(" (IOMMU group %d)", p.iommu_group);
		printf("\n");
	} else {
		printf("\tbackend:\t\t\tsim\n");
	}
	printf("\tdata_width:\t\t\t%u\n", a.data_width);
	printf("\tclock_mhz:\t\t\t%u\n", a.clock_mhz);
	printf("\tmax_mr_size:\t\t\t0x%llx\n", (unsigned long long)a.max_mr_size);
	printf("\tmtt_entries:\t\t\t%llu\n", (unsigned long long)(a.max_mr_size >> RNIC_MTT_PAGE_SHIFT));
	printf("\tmax_qp:\t\t\t\t%d\n", a.max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", a.max_qp_wr);
	printf("\tmax_sge:\t\t\t%d\n", a.max_sge);
	printf("\tmax_cq:\t\t\t\t%d\n", a.max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", a.max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", a.max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", a.max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", a.max_qp_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", a.max_qp_init_rd_atom);
	printf("\tmax_inflight:\t\t\t%u\n", a.max_inflight);
	printf("\tmax_inline_data:\t\t%u\n", a.max_inline_data);
	printf("\twqe_window:\t\t\t%s\n", a.wqe_window ? "yes" : "no");
	printf("\tphys_port_cnt:\t\t\t%u\n", a.phys_port_cnt);
	printf("\t\tport:\t1\n");
	/* The PORT block has no link status register (docs/regs.md). */
	printf("\t\t\tstate:\t\t\tunknown (no link status register)\n");
	printf("\t\t\tmax_mtu:\t\t%u (%u)\n", 128u << RNIC_IB_MTU_4096, RNIC_IB_MTU_4096);
	printf("\t\t\tlink_layer:\t\tEthernet\n");
	printf("\t\t\tmac:\t\t\t%02x:%02x:%02x:%02x:%02x:%02x\n", a.mac[0], a.mac[1], a.mac[2],
	       a.mac[3], a.mac[4], a.mac[5]);
	for (int i = 0; i < RNIC_GID_TABLE_SIZE; i++) {
		union rnic_gid g;

		err = rnic_query_gid(ctx, 1, i, &g);
		if (err) {
			fprintf(stderr, "rnic-info: %s: rnic_query_gid %d: %s\n", name, i, strerror(err));
			return err;
		}
		printf("\t\t\tGID[%3d]:\t\t", i);
		print_gid(&g);
		printf("\n");
	}
	if (verbose) {
		printf("\tcounters:\n");
		for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
			uint32_t v;

			err = rnic_read_counter(ctx, counters[i].reg, &v);
			if (err) {
				fprintf(stderr, "rnic-info: %s: counter %s: %s\n", name, counters[i].name,
					strerror(err));
				return err;
			}
			char lower[32];
			size_t k;

			for (k = 0; counters[i].name[k] && k < sizeof(lower) - 2; k++) {
				char ch = counters[i].name[k];

				lower[k] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
			}
			lower[k] = ':';
			lower[k + 1] = 0;
			printf("\t\t%-24s%u\n", lower, v);
		}
	}
	return 0;
}

/* Two NICs back to back, one 4 KiB WRITE from NIC 0 into NIC 1, both printed. */
static int run_sim(unsigned int width, int verbose)
{
	struct rnic_sim_cfg cfg;
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	struct rnic_sg_entry sge;
	struct rnic_send_wr wr, *bad;
	struct rnic_wc wc;
	uint8_t *src = NULL, *dst = NULL;
	int rc = 1;

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	cfg.data_width = width;
	w = rnic_world_create(&cfg);
	if (!w) {
		fprintf(stderr, "rnic-info: cannot create the simulation: %s\n", strerror(errno));
		return 1;
	}
	sim_pair_default_opts(&o);
	o.all_gids = 1;
	if (sim_pair_open(&p, w, &o))
		goto out_world;
	src = aligned_alloc(4096, 4096);
	dst = aligned_alloc(4096, 4096);
	if (!src || !dst)
		goto out_pair;
	memset(src, 0x5a, 4096);
	smr = rnic_reg_mr(p.side[0].pd, src, 4096, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[1].pd, dst, 4096, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr) {
		fprintf(stderr, "rnic-info: reg_mr: %s\n", strerror(errno));
		goto out_mr;
	}
	sge = (struct rnic_sg_entry){(uintptr_t)src, 4096, smr->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = dmr->rkey;
	if (rnic_post_send(p.side[0].qp[0], &wr, &bad) || sim_pair_wait(p.side[0].cq, &wc, 1, 1000000) != 1 ||
	    wc.status != RNIC_WC_SUCCESS) {
		fprintf(stderr, "rnic-info: the simulated RDMA WRITE did not complete\n");
		goto out_mr;
	}
	/* let the last frames settle so both NICs' counters agree */
	rnic_world_step(w, 2000);
	rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		char name[16];

		snprintf(name, sizeof(name), "sim%d", i);
		if (i)
			printf("\n");
		rc = print_device(p.side[i].ctx, name, verbose) ? 1 : 0;
	}
out_mr:
	if (smr)
		rnic_dereg_mr(smr);
	if (dmr)
		rnic_dereg_mr(dmr);
out_pair:
	sim_pair_close(&p);
out_world:
	free(src);
	free(dst);
	rnic_world_destroy(w);
	return rc;
}

static void no_device(void)
{
	uint16_t vid, did;

	if (access("/sys/bus/pci/devices", F_OK) != 0) {
		fprintf(stderr, "rnic-info: no OpenRNIC device found: this system exposes no PCI bus (/sys/bus/pci/devices is missing)\n");
		return;
	}
	if (rnic_pci_ids(&vid, &did))
		return; /* the library said why */
	fprintf(stderr, "rnic-info: no OpenRNIC device found: no PCI device %04x:%04x on this machine (check `lspci -d %04x:%04x`; is the FPGA programmed and the bus rescanned? echo 1 > /sys/bus/pci/rescan)\n",
		vid, did, vid, did);
}

static int run_pci(const char *bdf, int list_only, int verbose)
{
	struct rnic_pci_device **list;
	const char *one[2] = {bdf, NULL};
	const char **names = one;
	const char *found[64];
	int n = 0, rc = 0;

	if (!bdf || list_only) {
		list = rnic_get_device_list(&n);
		if (!list) {
			if (errno == EINVAL) /* RNIC_PCI_ID: the library said why */
				fprintf(stderr, "rnic-info: no OpenRNIC device looked for: RNIC_PCI_ID is malformed\n");
			else
				fprintf(stderr, "rnic-info: no OpenRNIC device found: cannot scan the PCI bus: %s\n",
					strerror(errno));
			return 1;
		}
		if (n == 0) {
			rnic_free_device_list(list);
			no_device();
			return 1;
		}
		for (int i = 0; i < n && i < 63; i++) {
			if (list_only)
				printf("%s\t%04x:%04x rev %02x\tdriver %s\tIOMMU group %d\n", list[i]->bdf,
				       list[i]->vendor_id, list[i]->device_id, list[i]->revision,
				       list[i]->driver[0] ? list[i]->driver : "(none)", list[i]->iommu_group);
			found[i] = list[i]->bdf;
			found[i + 1] = NULL;
		}
		if (list_only) {
			rnic_free_device_list(list);
			return 0;
		}
		names = found;
		for (int i = 0; names[i]; i++) {
			struct rnic_context *ctx = rnic_open_pci(names[i]);

			if (!ctx) {
				fprintf(stderr, "rnic-info: %s: cannot open: %s\n", names[i], strerror(errno));
				rc = 1;
				continue;
			}
			if (i)
				printf("\n");
			if (print_device(ctx, names[i], verbose))
				rc = 1;
			rnic_close_device(ctx);
		}
		rnic_free_device_list(list);
		return rc;
	}
	{
		struct rnic_context *ctx = rnic_open_pci(bdf);

		if (!ctx) {
			fprintf(stderr, "rnic-info: %s: cannot open: %s\n", bdf, strerror(errno));
			return 1;
		}
		rc = print_device(ctx, bdf, verbose) ? 1 : 0;
		rnic_close_device(ctx);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"device", required_argument, NULL, 'd'}, {"list", no_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},      {"sim", no_argument, NULL, 's'},
		{"width", required_argument, NULL, 'w'},  {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *bdf = NULL;
	unsigned int width = 64;
	int c, sim = 0, verbose = 0, list_only = 0;

	while ((c = getopt_long(argc, argv, "d:lvh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': bdf = optarg; break;
		case 'l': list_only = 1; break;
		case 'v': verbose = 1; break;
		case 's': sim = 1; break;
		case 'w': width = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || (width != 64 && width != 512) || (sim && (bdf || list_only))) {
		usage(stderr);
		return 2;
	}
	if (sim)
		return run_sim(width, verbose);
	return run_pci(bdf, list_only, verbose);
}
