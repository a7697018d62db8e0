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

/* A read burst of `beats` full beats at addr by the engine with AXI ID id,
 * and its data (zeros if data is NULL), as the memory returns it. */
static void read_burst(unsigned int id, uint64_t addr, unsigned int beats, const uint8_t *data)
{
	struct rnic_core_in in;
	struct rnic_core_out out;

	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	in.m_axi_arready = 1;
	out.m_axi_arvalid = 1;
	out.m_axi_arid = (uint8_t)id;
	out.m_axi_araddr = addr;
	out.m_axi_arlen = (uint8_t)(beats - 1);
	out.m_axi_arsize = 3;
	out.m_axi_arburst = 1;
	memcheck_edge(mc, cycle++, &in, &out);
	memset(&out, 0, sizeof(out));
	memset(&in, 0, sizeof(in));
	out.m_axi_rready = 1;
	in.m_axi_rvalid = 1;
	in.m_axi_rid = (uint8_t)id;
	for (unsigned int i = 0; i < beats; i++) {
		if (data)
			memcpy(in.m_axi_rdata, data + i * BUS, BUS);
		in.m_axi_rlast = i + 1 == beats;
		memcheck_edge(mc, cycle++, &in, &out);
	}
}

static uint64_t violations(void)
{
	struct rnic_sim_memcheck_stats st;

	memcheck_stats(mc, &st);
	return st.violations;
}

/* A burst of `beats` full beats at addr by the engine with AXI ID id;
 * returns the violations it made. */
static uint64_t dma(int write, unsigned int id, uint64_t addr, unsigned int beats, uint64_t strb)
{
	uint64_t v0 = violations();

	if (write) {
		struct rnic_core_in in;
		struct rnic_core_out out;

		memset(&in, 0, sizeof(in));
		memset(&out, 0, sizeof(out));
		in.m_axi_awready = 1;
		out.m_axi_awvalid = 1;
		out.m_axi_awid = (uint8_t)id;
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
		read_burst(id, addr, beats, NULL);
	}
	return violations() - v0;
}

/* The device fetches n bytes (a multiple of 8) at addr with engine id and
 * they hold data: the checker reads the WQEs in them. */
static uint64_t fetch(unsigned int id, uint64_t addr, const void *data, unsigned int n)
{
	uint64_t v0 = violations();

	read_burst(id, addr, n / BUS, data);
	return violations() - v0;
}

static void put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* A RoCEv2 request over IPv4 to dqpn, as the NIC takes it from the wire:
 * RETH (va, rkey, len) or, for an ATOMIC opcode, AtomicETH (va, rkey). */
static void request(unsigned int opcode, uint32_t dqpn, uint64_t va, uint32_t rkey, uint32_t len)
{
	uint8_t f[RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES +
		  RNIC_ATOMICETH_BYTES + RNIC_ICRC_BYTES];
	uint8_t *ip = f + RNIC_ETH_HDR_BYTES, *udp = ip + RNIC_IPV4_HDR_BYTES;
	uint8_t *bth = udp + RNIC_UDP_HDR_BYTES, *x = bth + RNIC_BTH_BYTES;
	int atomic = opcode == RNIC_OP_COMPARE_SWAP || opcode == RNIC_OP_FETCH_ADD;

	memset(f, 0, sizeof(f));
	put_be(f + 12, RNIC_ETHERTYPE_IPV4, 2);
	ip[0] = 0x45;
	ip[9] = RNIC_IP_PROTO_UDP;
	put_be(udp + 2, RNIC_ROCEV2_UDP_PORT, 2);
	bth[0] = (uint8_t)opcode;
	put_be(bth + 5, dqpn, 3);
	put_be(x, va, 8);
	put_be(x + 8, rkey, 4);
	if (!atomic)
		put_be(x + 12, len, 4);
	memcheck_rx_frame(mc, f, sizeof(f));
}

/* A send WQE with one SGE. */
static void send_wqe(struct rnic_wqe *w, unsigned int op, uint64_t addr, uint32_t len,
		     uint32_t lkey)
{
	memset(w, 0, sizeof(*w));
	w->opcode = (uint8_t)op;
	w->num_sge = 1;
	w->length = len;
	w->sge[0].addr = addr;
	w->sge[0].length = len;
	w->sge[0].lkey = lkey;
}

static void modify_qp(uint32_t qpn, uint32_t pd, uint32_t mask, unsigned int state,
		      unsigned int access)
{
	uint32_t in[RNIC_REG_CMD_IN_COUNT];

	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, mask);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, state);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_ACCESS_FLAGS, access);
	cmd(RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
}

#define R_WQE RNIC_DMA_ID_RD_WQE
#define R_PAY RNIC_DMA_ID_RD_PAYLOAD
#define R_RWQE RNIC_DMA_ID_RD_RWQE
#define R_RDRSP RNIC_DMA_ID_RD_RDRSP
#define R_PLWQE RNIC_DMA_ID_RD_PLWQE
#define W_PAY RNIC_DMA_ID_WR_PAYLOAD
#define W_CQE RNIC_DMA_ID_WR_CQE
#define W_PLACE RNIC_DMA_ID_WR_PLACE

static void last_violation(struct rnic_sim_violation *v)
{
	struct rnic_sim_violation all[64];
	uint64_t n = memcheck_violations(mc, all, 64);

	CHECK(n >= 1 && n <= 64);
	if (n >= 1 && n <= 64)
		*v = all[n - 1];
}

/* An MR key of pd and access over [va, va + len) on the pages given. */
static void reg_mr(uint32_t key, uint32_t pd, uint32_t access, uint64_t va, uint64_t len,
		   const uint64_t *pages, unsigned int npages)
{
	uint32_t in[RNIC_REG_CMD_IN_COUNT];

	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_REG_MR_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, ACCESS, access);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, VA, va);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, LENGTH, len);
	cmd(RNIC_CMD_OP_REG_MR, in, RNIC_CMD_REG_MR_IN_WORDS, RNIC_CMD_ST_OK, key);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, KEY, key);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, npages);
	for (unsigned int i = 0; i < npages; i++)
		RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, i, pages[i]);
	cmd(RNIC_CMD_OP_WRITE_MTT, in, RNIC_CMD_WRITE_MTT_IN_WORDS, RNIC_CMD_ST_OK, npages);
}

int main(void)
{
	uint32_t in[RNIC_REG_CMD_IN_COUNT];
	struct rnic_sim_memcheck_stats st;
	struct rnic_sim_violation v;
	struct rnic_wqe w;
	struct rnic_recv_wqe rw;
	const uint64_t cq = 0x7f0000001000ull, sq = 0x7f0000010000ull, rq = 0x7f0000020000ull;
	const uint64_t sq9 = 0x7f0000030000ull;
	const uint64_t va = 0x7f0000100064ull; /* MR of 2 pages + a bit, from offset 0x64 */
	const uint64_t pages[3] = {ALIAS + 5 * PG, ALIAS + 2 * PG, ALIAS + 9 * PG};
	const uint64_t vb = 0x7f0000200000ull; /* MR B: one page, LOCAL_WRITE | REMOTE_* */
	const uint64_t page_b = ALIAS + 20 * PG;
	const uint64_t vc = 0x7f0000300000ull; /* MR C: like B, in PD 2 */
	const uint64_t page_c = ALIAS + 30 * PG;
	const uint32_t all_access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
				    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;

	mc = memcheck_create(0, BUS, 0, NULL);
	CHECK(mc != NULL);

	/* not armed: counted, not checked */
	CHECK_EQ(dma(1, W_PAY, 0x1000, 2, 0xff), 0);
	CHECK_EQ(dma(0, R_PAY, 0x1000, 2, 0), 0);
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

	/* CQ 7: its ring (16 CQEs), written by the CQE writer only */
	cmd(RNIC_CMD_OP_CREATE_CQ, in, RNIC_CMD_CREATE_CQ_IN_WORDS, RNIC_CMD_ST_OK, 7);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.armed, 1);
	CHECK_EQ(dma(1, W_CQE, cq, 4, 0xff), 0);
	CHECK_EQ(dma(1, W_CQE, cq + 16 * RNIC_CQE_BYTES - 8, 1, 0xff), 0);
	CHECK_EQ(dma(1, W_CQE, cq + 16 * RNIC_CQE_BYTES, 1, 0x01), 1); /* one past the ring */
	last_violation(&v);
	CHECK(v.write == 1 && v.addr == cq + 16 * RNIC_CQE_BYTES && v.len == 1);
	CHECK(strstr(v.what, "outside every region") != NULL);
	CHECK_EQ(dma(0, R_WQE, cq, 1, 0), 1);     /* never read */
	CHECK_EQ(dma(1, W_PAY, cq, 1, 0xff), 1);  /* nor written by another engine */
	last_violation(&v);
	CHECK(strstr(v.what, "responder writer: write of the CQ ring of CQ 7: not this engine") != NULL);
	CHECK_EQ(dma(1, 9, cq, 1, 0xff), 1);      /* an ID no engine has */
	CHECK_EQ(memcheck_violations(mc, NULL, 0), 4);

	/* QP 5 (PD 1): rings read by the fetchers only, from INIT on */
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
	CHECK_EQ(dma(0, R_WQE, sq, 2, 0), 1); /* RESET: the device does not know the QP */
	last_violation(&v);
	CHECK(strstr(v.what, "(QP in RESET)") != NULL);
	modify_qp(5, 1, RNIC_QP_ATTR_STATE, RNIC_QPS_INIT, 0);
	CHECK_EQ(dma(0, R_WQE, sq, 16, 0), 0);                           /* the whole SQ */
	CHECK_EQ(dma(0, R_PLWQE, sq + RNIC_WQE_BYTES, 16, 0), 0);
	CHECK_EQ(dma(0, R_PAY, sq + RNIC_WQE_BYTES + 64, 1, 0), 1);       /* inline data: in the WQE */
	CHECK_EQ(dma(0, R_WQE, sq + 4 * RNIC_WQE_BYTES, 1, 0), 1);       /* past it */
	CHECK_EQ(dma(0, R_RWQE, rq + 3 * RNIC_RECV_WQE_BYTES, 8, 0), 0); /* the last receive WQE */
	CHECK_EQ(dma(0, R_WQE, rq, 1, 0), 1);                            /* the wrong ring */
	CHECK_EQ(dma(0, R_RWQE, sq, 1, 0), 1);
	CHECK_EQ(dma(0, R_RDRSP, sq, 1, 0), 1);
	CHECK_EQ(dma(1, W_CQE, sq, 1, 0xff), 1);                         /* never written */
	/* a MODIFY_QP without QP_ATTR_STATE keeps the state */
	modify_qp(5, 1, RNIC_QP_ATTR_ACCESS_FLAGS, RNIC_QPS_RESET,
		  RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(dma(0, R_WQE, sq, 1, 0), 0);
	CHECK_EQ(memcheck_violations(mc, NULL, 0), 11);

	/* MR 0x301 (PD 1, REMOTE_READ only): pending until its last page; its
	 * bytes only inside windows */
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
	/* a WQE naming it while its page list is incomplete opens nothing */
	send_wqe(&w, RNIC_WR_SEND, va + 4, 8, 0x301);
	CHECK_EQ(fetch(R_WQE, sq, &w, sizeof(w)), 0);
	CHECK_EQ(dma(0, R_PAY, pages[0] + 0x68, 1, 0), 1);
	last_violation(&v);
	CHECK(strstr(v.what, "outside every region") != NULL);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, 2);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, 1);
	RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, 0, pages[2]);
	cmd(RNIC_CMD_OP_WRITE_MTT, in, RNIC_CMD_WRITE_MTT_IN_WORDS, RNIC_CMD_ST_OK, 3);
	/* valid now, but no window yet */
	CHECK_EQ(dma(0, R_PAY, pages[0] + 0x68, 1, 0), 1);
	last_violation(&v);
	CHECK(strstr(v.what, "send payload reader: read of MR key 0x301") != NULL &&
	      strstr(v.what, "at va 0x7f0000100068") != NULL &&
	      strstr(v.what, "not inside an SGE of a fetched SEND/WRITE WQE") != NULL);
	/* a SEND WQE of QP 5 with an SGE over the whole MR: the payload engine
	 * may read it, no other engine */
	send_wqe(&w, RNIC_WR_SEND, va, 2 * PG, 0x301);
	CHECK_EQ(fetch(R_WQE, sq + RNIC_WQE_BYTES, &w, sizeof(w)), 0);
	CHECK_EQ(dma(0, R_PAY, pages[0] + 0x68, 1, 0), 0);
	CHECK_EQ(dma(0, R_PAY, pages[0] + 0x60, 1, 0), 0);     /* a beat with the first byte */
	CHECK_EQ(dma(0, R_PAY, pages[0] + 0x58, 1, 0), 1);     /* before the MR's first byte */
	CHECK_EQ(dma(0, R_PAY, pages[1], 256, 0), 0);          /* half the middle page */
	CHECK_EQ(dma(0, R_PAY, pages[1] + PG / 2, 256, 0), 0); /* the other half */
	CHECK_EQ(dma(0, R_PAY, pages[2] + 0x60, 1, 0), 0);     /* the last bytes */
	CHECK_EQ(dma(0, R_PAY, pages[2] + 0x68, 1, 0), 1);     /* past the end */
	CHECK_EQ(dma(0, R_RDRSP, pages[1], 1, 0), 1);          /* no READ asked for it */
	CHECK_EQ(dma(1, W_PAY, pages[1] + 8, 1, 0x0f), 1);     /* no write window */
	last_violation(&v);
	CHECK(v.write && v.addr == pages[1] + 8 && v.len == 4 && strstr(v.what, "0x301") &&
	      strstr(v.what, "not inside a LOCAL_WRITE SGE of a fetched receive WQE"));
	/* a READ WQE naming it as its sink: refused (no LOCAL_WRITE) */
	send_wqe(&w, RNIC_WR_RDMA_READ, va, 64, 0x301);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.windows_refused, 1);
	CHECK_EQ(fetch(R_PLWQE, sq + 2 * RNIC_WQE_BYTES, &w, sizeof(w)), 0);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.windows_refused, 2);
	CHECK_EQ(dma(1, W_PLACE, pages[0] + 0x68, 1, 0xff), 1);
	/* an RDMA READ request of 16 bytes at va + 0x100 to QP 5 */
	request(RNIC_OP_RDMA_READ_REQUEST, 5, va + 0x100, 0x301, 16);
	CHECK_EQ(dma(0, R_RDRSP, pages[0] + 0x164, 2, 0), 0);
	CHECK_EQ(dma(0, R_RDRSP, pages[0] + 0x170, 1, 0), 0); /* 4 of its bytes are the READ's */
	CHECK_EQ(dma(0, R_RDRSP, pages[0] + 0x178, 1, 0), 1);
	CHECK_EQ(dma(0, R_RDRSP, pages[0] + 0x160, 4, 0), 1); /* the READ, and a beat past it */
	last_violation(&v);
	CHECK(v.addr == pages[0] + 0x178);
	last_violation(&v);
	CHECK(strstr(v.what, "READ response reader: read of MR key 0x301") &&
	      strstr(v.what, "not inside an RDMA READ that the QP's and the MR's rights"));
	/* an RDMA WRITE to it: the MR has no REMOTE_WRITE */
	request(RNIC_OP_RDMA_WRITE_ONLY, 5, va + 0x200, 0x301, 16);
	CHECK_EQ(dma(1, W_PAY, pages[0] + 0x264, 1, 0xff), 1);
	/* to a QP that does not exist, or is in RESET: nothing */
	request(RNIC_OP_RDMA_READ_REQUEST, 6, va + 0x300, 0x301, 16);
	CHECK_EQ(dma(0, R_RDRSP, pages[0] + 0x364, 1, 0), 1);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.requests_seen, 3);
	CHECK_EQ(st.windows_refused, 4);

	/* MR B (PD 1, every right) and MR C (PD 2, every right); QP 9 in PD 2
	 * with every right, QP 5 with every right */
	reg_mr(0x402, 1, all_access, vb, PG, &page_b, 1);
	reg_mr(0x503, 2, all_access, vc, PG, &page_c, 1);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, PD, 2);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SEND_CQN, 7);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RECV_CQN, 7);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE, RNIC_QP_TYPE_RC);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE, 2);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_BASE, sq9);
	cmd(RNIC_CMD_OP_CREATE_QP, in, RNIC_CMD_CREATE_QP_IN_WORDS, RNIC_CMD_ST_OK, 9);
	modify_qp(9, 2, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_ACCESS_FLAGS, RNIC_QPS_INIT,
		  RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC);
	/* PD: QP 9's WRITE to MR B (PD 1) opens nothing; QP 5's does */
	request(RNIC_OP_RDMA_WRITE_FIRST, 9, vb, 0x402, 256);
	CHECK_EQ(dma(1, W_PAY, page_b, 4, 0xff), 1);
	last_violation(&v);
	CHECK(strstr(v.what, "not inside a LOCAL_WRITE SGE of a fetched receive WQE") &&
	      strstr(v.what, " or an RDMA WRITE that") && strstr(v.what, " or an ATOMIC that"));
	request(RNIC_OP_RDMA_WRITE_FIRST, 5, vb, 0x402, 256);
	CHECK_EQ(dma(1, W_PAY, page_b, 32, 0xff), 0);
	CHECK_EQ(dma(1, W_PAY, page_b + 256, 1, 0x01), 1); /* one past the RETH's length */
	CHECK_EQ(dma(1, W_PLACE, page_b, 1, 0xff), 1);     /* not the placement engine's */
	/* and QP 9's WRITE to MR C (PD 2) does */
	request(RNIC_OP_RDMA_WRITE_ONLY, 9, vc + 64, 0x503, 8);
	CHECK_EQ(dma(1, W_PAY, page_c + 64, 1, 0xff), 0);
	CHECK_EQ(dma(1, W_PAY, page_c + 56, 2, 0xff), 1);
	/* a strobed run that leaves the window is caught at its first bad byte */
	CHECK_EQ(dma(1, W_PAY, page_c + 64, 1, 0x0f), 0);
	CHECK_EQ(dma(1, W_PAY, page_c + 64, 2, 0xff), 1);
	last_violation(&v);
	CHECK(v.addr == page_c + 72 && v.len == 8);
	/* the QP's rights: QP 9 loses REMOTE_READ */
	modify_qp(9, 2, RNIC_QP_ATTR_ACCESS_FLAGS, RNIC_QPS_RESET, RNIC_ACCESS_REMOTE_WRITE);
	request(RNIC_OP_RDMA_READ_REQUEST, 9, vc + 512, 0x503, 64);
	CHECK_EQ(dma(0, R_RDRSP, page_c + 512, 1, 0), 1);
	/* ATOMIC: 8 aligned bytes, read by the RWQE engine, written back */
	request(RNIC_OP_FETCH_ADD, 5, vb + 1024, 0x402, 0);
	CHECK_EQ(dma(0, R_RWQE, page_b + 1024, 1, 0), 0);
	CHECK_EQ(dma(1, W_PAY, page_b + 1024, 1, 0xff), 0);
	CHECK_EQ(dma(1, W_PAY, page_b + 1032, 1, 0xff), 1);
	request(RNIC_OP_COMPARE_SWAP, 5, vb + 2052, 0x402, 0); /* misaligned: nothing */
	CHECK_EQ(dma(0, R_RWQE, page_b + 2048, 2, 0), 1);
	/* a receive WQE of QP 5 with an SGE in MR B and one in MR C (PD 2:
	 * refused), then the INVALID_LKEY end */
	memset(&rw, 0, sizeof(rw));
	rw.sge[0].addr = vb + 3072;
	rw.sge[0].length = 64;
	rw.sge[0].lkey = 0x402;
	rw.sge[1].addr = vc + 3072;
	rw.sge[1].length = 64;
	rw.sge[1].lkey = 0x503;
	rw.sge[2].lkey = RNIC_INVALID_LKEY;
	rw.sge[3].addr = vb;
	rw.sge[3].length = PG;
	rw.sge[3].lkey = 0x402;
	CHECK_EQ(fetch(R_RWQE, rq + RNIC_RECV_WQE_BYTES, &rw, sizeof(rw)), 0);
	CHECK_EQ(dma(1, W_PAY, page_b + 3072, 8, 0xff), 0);
	CHECK_EQ(dma(1, W_PAY, page_c + 3072, 1, 0xff), 1);
	CHECK_EQ(dma(1, W_PAY, page_b + 3136, 1, 0xff), 1); /* the last SGE was never reached */
	/* READ and ATOMIC WQEs of QP 5 name MR B as their sink */
	send_wqe(&w, RNIC_WR_ATOMIC_CMP_AND_SWP, vb + 3584, 8, 0x402);
	CHECK_EQ(fetch(R_WQE, sq + 3 * RNIC_WQE_BYTES, &w, sizeof(w)), 0);
	CHECK_EQ(dma(1, W_PLACE, page_b + 3584, 1, 0xff), 0);
	CHECK_EQ(dma(1, W_PLACE, page_b + 3592, 1, 0xff), 1);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.requests_seen, 9);
	CHECK_EQ(st.violations, 33);

	/* DEREG_MR: gone, with its windows */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, 0x301);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, 1);
	cmd(RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, R_PAY, pages[1], 1, 0), 1);
	last_violation(&v);
	CHECK(strstr(v.what, "outside every region") != NULL);
	/* the same key registered again has none of the old windows */
	reg_mr(0x301, 1, RNIC_ACCESS_REMOTE_READ, va, 2 * PG, pages, 3);
	CHECK_EQ(dma(0, R_PAY, pages[1], 1, 0), 1);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, 0x301);
	cmd(RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, 0x402);
	cmd(RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, 0x503);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, 2);
	cmd(RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(1, W_PAY, page_b, 1, 0xff), 1);

	/* a CMD_CTRL while busy is ignored (the hardware ignores it too) */
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DESTROY_CQ_IN, CQN, 7);
	for (unsigned int i = 0; i < RNIC_CMD_DESTROY_CQ_IN_WORDS; i++)
		memcheck_bar_write(mc, RNIC_REG_CMD_IN + 4 * i, in[i]);
	token++;
	memcheck_bar_write(mc, RNIC_REG_CMD_CTRL, (uint32_t)token << 16 | RNIC_CMD_OP_QUERY_DEVICE);
	memcheck_bar_write(mc, RNIC_REG_CMD_CTRL, (uint32_t)(token + 1) << 16 | RNIC_CMD_OP_DESTROY_CQ);
	memcheck_bar_read(mc, RNIC_REG_CMD_STATUS, (uint32_t)token << 16 | RNIC_CMD_ST_OK << 8);
	CHECK_EQ(dma(1, W_CQE, cq, 1, 0xff), 0); /* the CQ is still there */
	/* DESTROY_CQ, DESTROY_QP: gone; a failed DESTROY_QP changes nothing */
	cmd(RNIC_CMD_OP_DESTROY_CQ, in, RNIC_CMD_DESTROY_CQ_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(1, W_CQE, cq, 1, 0xff), 1);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, 5);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, 2);
	cmd(RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, RNIC_CMD_ST_PD_MISMATCH, 0);
	CHECK_EQ(dma(0, R_WQE, sq, 1, 0), 0);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, 1);
	cmd(RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
	CHECK_EQ(dma(0, R_WQE, sq, 1, 0), 1);
	CHECK_EQ(dma(0, R_RWQE, rq, 1, 0), 1);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, 9);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, 2);
	cmd(RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, RNIC_CMD_ST_OK, 0);
	memcheck_stats(mc, &st);
	CHECK_EQ(st.objects_live, 0);
	CHECK_EQ(st.violations, 39);
	memcheck_destroy(mc);
	return check_summary();
}
