/* The memory-protection checker (sim/memcheck.c) alone, no Verilator: the
 * host's mailbox traffic goes in as BAR accesses, DMA handshakes as pin
 * structs; every grant and revocation, and what is refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_int.h"

#define BUS 8 /* 64-bit data path */
#define PG (1u << RNIC_MTT_PAGE_SHIFT)
#define ALIAS 0x0100000000000000ull

static struct memcheck *mc;
static uint16_t token;
static uint64_t cycle;

/* One command as the host makes it: CMD_IN, CMD_CTRL, the CMD_STATUS read
 * that sees it done with status st, then CMD_OUT word 0 reads out0. */
static void cmd(unsigned int op, const uint32_t *in, unsigned int nin, unsigned int st,
		uint32_t out0)
{
	for (unsigned int i = 0; i < nin; i++)
		memcheck_bar_write(mc, RNIC_REG_CMD_IN + 4 * i, in[i]);
	token++;
	memcheck_bar_write(mc, RNIC_REG_CMD_CTRL, (uint32_t)token << 16 | op);
	memcheck_bar_read(mc, RNIC_REG_CMD_STATUS, (uint32_t)token << 16 | 1); /* still busy */
	memcheck_bar_read(mc, RNIC_REG_CMD_STATUS, (uint32_t)token << 16 | st << 8);
	if (st == RNIC_CMD_ST_OK)
		memcheck_bar_read(mc, RNIC_REG_CMD_OUT, out0);
}

/* A burst of `beats` full beats at addr; returns the violations it made. */
static uint64_t dma(int write, uint64_t addr, unsigned int beats, uint64_t strb)
{
	struct rnic_core_in in;
	struct rnic_core_out out;
	struct rnic_sim_memcheck_stats st0, st1;

	memcheck_stats(mc, &st0);
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	if (write) {
		in.m_axi_awready = 1;
		out.m_axi_awvalid = 1;
		out.m_axi_awaddr = addr;
		out.m_axi_awlen = (uint8_t)(beats - 1);
		out.m_axi_awsize = 3;
		out.m_axi_awburst = 1;
		memcheck_edge(mc, cycle++, &in, &out);
		memset(&out, 0, sizeof(out));
		memset(&in, 0, sizeof(in));
		in.m_axi_wready = 1;
		out.m_axi_wvalid = 1;
		out.m_axi_wstrb = strb;
		for (unsigned int i = 0; i < beats; i++)
			memcheck_edge(mc, cycle++, &in, &out);
	} else {
		in.m_axi_arready = 1;
		out.m_axi_arvalid = 1;
		out.m_axi_araddr = addr;
		out.m_axi_arlen = (uint8_t)(beats - 1);
		out.m_axi_arsize = 3;
		out.m_axi_arburst = 1;
		memcheck_edge(mc, cycle++, &in, &out);
	}
	memcheck_stats(mc, &st1);
	return st1.violations - st0.violations;
}

int main(void)
{
	uint32_t in[RNIC_REG_CMD_IN_COUNT];
	struct rnic_sim_memcheck_stats st;
	struct rnic_sim_violation v;
	const uint64_t cq = 0x7f0000001000ull, sq = 0x7f0000010000ull, rq = 0x7f0000020000ull;
	const uint64_t va = 0x7f0000100064ull; /* MR of 2 pages + a bit, from offset 0x64 */
	const uint64_t pages[3] = {ALIAS + 5 * PG, ALIAS + 2 * PG, ALIAS + 9 * PG};

	mc = memcheck_create(0, BUS, 0, NULL);
	CHECK(mc != NULL);

	/* not armed: counted, not checked */
	CHECK_EQ(dma(1, 0x1000, 2, 0xff), 0);
	CHECK_EQ(dma(0, 0x1000, 2, 0), 0);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.armed, 0);
	CHECK_EQ(st.wr_beats_unchecked, 2);
	CHECK_EQ(st.rd_bursts_unchecked, 1);

	/* a refused CREATE_CQ grants nothing and does not arm */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, LOG_SIZE, 4);
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, BASE, cq);
	cmd(RNIC_CMD_OP_CREATE_CQ, in, RNIC_CMD_CREATE_CQ_IN_WORDS, RNIC_CMD_ST_NO_RESOURCES, 0);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.armed, 0);
	CHECK_EQ(st.commands, 1);

	/* CQ 7: its ring (16 CQEs) write only */
	cmd(RNIC_CMD_OP_CREATE_CQ, in, RNIC_CMD_CREATE_CQ_IN_WORDS, RNIC_CMD_ST_OK, 7);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.armed, 1);
	CHECK_EQ(dma(1, cq, 4, 0xff), 0);
	CHECK_EQ(dma(1, cq + 16 * RNIC_CQE_BYTES - 8, 1, 0xff), 0);
	CHECK_EQ(dma(1, cq + 16 * RNIC_CQE_BYTES, 1, 0x01), 1); /* one past the ring */
	CHECK_EQ(dma(0, cq, 1, 0), 1);                          /* never read */
	CHECK_EQ(memcheck_violations(mc, &v, 1), 2);
	CHECK(v.write == 1 && v.addr == cq + 16 * RNIC_CQE_BYTES && v.len == 1);
	CHECK(strstr(v.what, "outside every region") != NULL);

	/* QP 5: rings read only, from INIT on */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, PD, 1);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SEND_CQN, 7);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RECV_CQN, 7);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE, RNIC_QP_TYPE_RC);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE, 2);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_LOG_SIZE, 2);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_BASE, sq);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_BASE, rq);
	cmd(RNIC_CMD_OP_CREATE_QP, in, RNIC_CMD_CREATE_QP_IN_WORDS, RNIC_CMD_ST_OK, 5);
	CHECK_EQ(dma(0, sq, 2, 0), 1); /* RESET: the device does not know the QP */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, 5);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, RNIC_QP_ATTR_STATE);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_INIT);
	cmd(RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, sq, 16, 0), 0);                          /* the whole SQ: 4 WQEs */
	CHECK_EQ(dma(0, sq + 4 * RNIC_WQE_BYTES, 1, 0), 1);      /* past it */
	CHECK_EQ(dma(0, rq + 3 * RNIC_RECV_WQE_BYTES, 8, 0), 0); /* the last receive WQE */
	CHECK_EQ(dma(1, sq, 1, 0xff), 1);                        /* never written */
	/* a MODIFY_QP without QP_ATTR_STATE keeps the state */
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, RNIC_QP_ATTR_ACCESS_FLAGS);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_RESET);
	cmd(RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, sq, 1, 0), 0);

	/* an MR: pending until its last page; read, write only with LOCAL_WRITE */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_REG_MR_IN, PD, 1);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, ACCESS, RNIC_ACCESS_REMOTE_READ);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, VA, va);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, LENGTH, 2 * PG);
	cmd(RNIC_CMD_OP_REG_MR, in, RNIC_CMD_REG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0x301);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, KEY, 0x301);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, PD, 1);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, 0);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, 2);
	RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, 0, pages[0]);
	RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, 1, pages[1]);
	cmd(RNIC_CMD_OP_WRITE_MTT, in, RNIC_CMD_WRITE_MTT_IN_WORDS, RNIC_CMD_ST_OK, 2);
	CHECK_EQ(dma(0, pages[0] + 0x68, 1, 0), 1); /* page list incomplete */
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, 2);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, 1);
	RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, 0, pages[2]);
	cmd(RNIC_CMD_OP_WRITE_MTT, in, RNIC_CMD_WRITE_MTT_IN_WORDS, RNIC_CMD_ST_OK, 3);
	CHECK_EQ(dma(0, pages[0] + 0x68, 1, 0), 0);
	CHECK_EQ(dma(0, pages[0] + 0x60, 1, 0), 1);     /* before the MR's first byte */
	CHECK_EQ(dma(0, pages[1], 256, 0), 0);          /* half the middle page */
	CHECK_EQ(dma(0, pages[1] + PG / 2, 256, 0), 0); /* the other half */
	CHECK_EQ(dma(0, pages[2] + 0x60, 1, 0), 0);     /* the last bytes */
	CHECK_EQ(dma(0, pages[2] + 0x68, 1, 0), 1);     /* past the end */
	CHECK_EQ(dma(1, pages[1] + 8, 1, 0x0f), 1);     /* no LOCAL_WRITE */
	CHECK_EQ(memcheck_violations(mc, NULL, 0), 9);
	{
		struct rnic_sim_violation all[16];

		memcheck_violations(mc, all, 16);
		CHECK(all[8].write && all[8].addr == pages[1] + 8 && all[8].len == 4 &&
		      strstr(all[8].what, "without LOCAL_WRITE") && strstr(all[8].what, "0x301"));
	}
	/* DEREG_MR: gone */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, 0x301);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, 1);
	cmd(RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, pages[1], 1, 0), 1);

	/* a CMD_CTRL while busy is ignored (the hardware ignores it too) */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DESTROY_CQ_IN, CQN, 7);
	for (unsigned int i = 0; i < RNIC_CMD_DESTROY_CQ_IN_WORDS; i++)
		memcheck_bar_write(mc, RNIC_REG_CMD_IN + 4 * i, in[i]);
	token++;
	memcheck_bar_write(mc, RNIC_REG_CMD_CTRL, (uint32_t)token << 16 | RNIC_CMD_OP_QUERY_DEVICE);
	memcheck_bar_write(mc, RNIC_REG_CMD_CTRL, (uint32_t)(token + 1) << 16 | RNIC_CMD_OP_DESTROY_CQ);
	memcheck_bar_read(mc, RNIC_REG_CMD_STATUS, (uint32_t)token << 16 | RNIC_CMD_ST_OK << 8);
	CHECK_EQ(dma(1, cq, 1, 0xff), 0); /* the CQ is still there */
	/* DESTROY_CQ, DESTROY_QP: gone; a failed DESTROY_QP changes nothing */
	cmd(RNIC_CMD_OP_DESTROY_CQ, in, RNIC_CMD_DESTROY_CQ_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(1, cq, 1, 0xff), 1);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, 5);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, 2);
	cmd(RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, RNIC_CMD_ST_PD_MISMATCH, 0);
	CHECK_EQ(dma(0, sq, 1, 0), 0);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, 1);
	cmd(RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, sq, 1, 0), 1);
	CHECK_EQ(dma(0, rq, 1, 0), 1);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.objects_live, 0);
	CHECK_EQ(st.violations, 13);
	memcheck_destroy(mc);
	return check_summary();
}
