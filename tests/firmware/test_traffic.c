/* Exact register traffic of representative commands, against the strict
 * mock: every context record as the host library wrote it (CTX_DATA words,
 * then CTX_CMD, then CTX_STATUS polled), MTT entries before the MPT entry,
 * the MPT entry invalidated before the MTT entries are freed, the QPC and
 * context operation of each QP transition, counters read in order. The
 * expected records are packed here with the test's own packer. */
#include <string.h>

#include "fw_test.h"
#include "hal/mmio.h"

#define OP(x) RNIC_CMD_OP_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))
#define REC(w, rec, f, v) t_put((w), RNIC_##rec##_##f##_LSB, RNIC_##rec##_##f##_W, (v))

static uint32_t in[32], out[32];

/* Expect one context write: the record's words, CTX_CMD, one CTX_STATUS
 * read answering "done". */
static void expect_ctx(uint32_t table, uint32_t op, uint32_t index, const uint32_t *w,
		       uint32_t nwords)
{
	for (uint32_t i = 0; i < nwords; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, w[i]);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(table, op, index));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
}

static enum fw_status run(uint32_t op)
{
	return fw_cmd_run(&fw, op, in, out);
}

/* CTX_CMD as docs/formats.toml describes it: bits 3:0 table, 7:4 op,
 * 31:8 index */
static void test_ctx_cmd_word(void)
{
	CHECK_EQ(fw_ctx_cmd_word(0x3, 0x2, 0x123456), 0x12345623u);
	CHECK_EQ(fw_ctx_cmd_word(RNIC_CTX_TABLE_MTT, RNIC_CTX_OP_MTT_RUN, 0xffffff), 0xffffff54u);
}

static void test_mock_self(void)
{
	/* the mock must catch what it was not told to expect */
	mock_mmio_reset();
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, 5);
	fw_mmio_write32(RNIC_REG_CTX_CMD, 6);
	CHECK(mock_mmio_verify("self-test: wrong value (failure expected)") != 0);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	fw_mmio_write32(RNIC_REG_CTX_STATUS, 0);
	CHECK(mock_mmio_verify("self-test: write for read (failure expected)") != 0);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	CHECK(mock_mmio_verify("self-test: unused expectation (failure expected)") != 0);
	mock_mmio_reset();
	(void)fw_mmio_read32(RNIC_REG_DEV_NUM_QPS);
	CHECK(mock_mmio_verify("self-test: unexpected read (failure expected)") != 0);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_QPS, 7);
	CHECK_EQ(fw_mmio_read32(RNIC_REG_DEV_NUM_QPS), 7);
	CHECK_MOCK("self-test: expected read");
}

static void test_cq(void)
{
	uint32_t w[RNIC_CQC_WORDS] = { 0 };

	t_init(0, 0, 0, 0, 0);
	memset(in, 0, sizeof(in));
	PUT(CREATE_CQ_IN, LOG_SIZE, 9);
	PUT(CREATE_CQ_IN, BASE, 0x100012345000ull);
	REC(w, CQC, VALID, 1);
	REC(w, CQC, LOG_SIZE, 9);
	REC(w, CQC, BASE, 0x100012345000ull);
	mock_mmio_reset();
	expect_ctx(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, 1, w, RNIC_CQC_WORDS);
	CHECK_EQ(run(OP(CREATE_CQ)), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_CREATE_CQ_OUT_CQN_LSB, 32), 1);
	CHECK_MOCK("CREATE_CQ");

	memset(in, 0, sizeof(in));
	memset(w, 0, sizeof(w));
	PUT(DESTROY_CQ_IN, CQN, 1);
	mock_mmio_reset();
	expect_ctx(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, 1, w, RNIC_CQC_WORDS);
	CHECK_EQ(run(OP(DESTROY_CQ)), FW_OK);
	CHECK_MOCK("DESTROY_CQ");
}

static uint64_t page_addr(uint32_t i)
{
	return 0x200000000000ull + ((uint64_t)(i ^ 1) << 12); /* scattered pages */
}

static void write_mtt(uint32_t key, uint32_t pd, uint32_t offset, uint32_t count)
{
	memset(in, 0, sizeof(in));
	PUT(WRITE_MTT_IN, KEY, key);
	PUT(WRITE_MTT_IN, PD, pd);
	PUT(WRITE_MTT_IN, OFFSET, offset);
	PUT(WRITE_MTT_IN, COUNT, count);
	for (uint32_t i = 0; i < count; i++)
		t_put(in, RNIC_CMD_WRITE_MTT_IN_PAGE_LSB + 64 * i, 64, page_addr(offset + i));
}

/* One MTT run: each page's entry into CTX_DATA, CTX_COUNT, then CTX_CMD
 * (CTX_OP_MTT_RUN at the chunk's first entry) and one CTX_STATUS read. */
static void expect_mtt(uint32_t base, uint32_t offset, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint32_t w[RNIC_MTT_WORDS] = { 0 };

		REC(w, MTT, PAGE, page_addr(offset + i) >> 12);
		for (uint32_t k = 0; k < RNIC_MTT_WORDS; k++)
			mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * (i * RNIC_MTT_WORDS + k), w[k]);
	}
	mock_mmio_expect_write(RNIC_REG_CTX_COUNT, count);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD,
			       RNIC_CTX_TABLE_MTT | RNIC_CTX_OP_MTT_RUN << 4 | (base + offset) << 8);
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
}

static void test_mr(void)
{
	const uint64_t va = 0x7f0000001234ull, len = 20 * 4096;
	const uint32_t access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
	uint32_t pd, key, base, npages, idx, w[RNIC_MPT_WORDS] = { 0 };

	t_init(0, 0, 0, 0, 0);
	pd = t_alloc_pd();
	/* an earlier MR occupies MTT entries 0..2: the new run starts at 3 */
	CHECK_EQ(t_reg_mr(pd, 0, 0x1000, 0x3000, NULL, NULL, NULL), FW_OK);

	memset(in, 0, sizeof(in));
	PUT(REG_MR_IN, PD, pd);
	PUT(REG_MR_IN, ACCESS, access);
	PUT(REG_MR_IN, VA, va);
	PUT(REG_MR_IN, LENGTH, len);
	mock_mmio_reset(); /* REG_MR alone writes nothing: the MR is not valid yet */
	CHECK_EQ(run(OP(REG_MR)), FW_OK);
	CHECK_MOCK("REG_MR");
	key = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_KEY_LSB, 32);
	base = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_MTT_BASE_LSB, 32);
	npages = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_NPAGES_LSB, 32);
	idx = key >> 8;
	CHECK_EQ(idx, 2);
	CHECK_EQ(key & 0xff, 1);
	CHECK_EQ(base, 3);
	CHECK_EQ(npages, 21); /* 0x...1234 + 20 pages ends in a 21st page */

	/* chunk 1: 14 MTT entries, no MPT entry */
	write_mtt(key, pd, 0, 14);
	mock_mmio_reset();
	expect_mtt(base, 0, 14);
	CHECK_EQ(run(OP(WRITE_MTT)), FW_OK);
	CHECK_MOCK("WRITE_MTT chunk 1");
	/* chunk 2: the last 7 entries, then the MPT entry */
	REC(w, MPT, VALID, 1);
	REC(w, MPT, ACCESS, access);
	REC(w, MPT, PD, pd);
	REC(w, MPT, KEY, key);
	REC(w, MPT, VA, va);
	REC(w, MPT, LENGTH, len);
	REC(w, MPT, PA, 1ull << 63 | (uint64_t)base << 12 | 0x234);
	write_mtt(key, pd, 14, 7);
	mock_mmio_reset();
	expect_mtt(base, 14, 7);
	expect_ctx(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
	CHECK_EQ(run(OP(WRITE_MTT)), FW_OK);
	CHECK_MOCK("WRITE_MTT chunk 2 and MPT");
	CHECK_EQ(t_get(out, RNIC_CMD_WRITE_MTT_OUT_VALID_LSB, 1), 1);

	/* DEREG: the MPT entry invalidated, nothing else written; the run free
	 * only afterwards */
	memset(in, 0, sizeof(in));
	memset(w, 0, sizeof(w));
	PUT(DEREG_MR_IN, KEY, key);
	PUT(DEREG_MR_IN, PD, pd);
	mock_mmio_reset();
	expect_ctx(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
	CHECK_EQ(run(OP(DEREG_MR)), FW_OK);
	CHECK_MOCK("DEREG_MR");
	for (uint32_t i = 0; i < 3 + npages + 2; i++)
		CHECK_EQ(fw.mtt_used[i / 32] >> (i % 32) & 1, i < 3);
	/* the freed run is handed out again, first fit */
	CHECK_EQ(t_reg_mr(pd, 0, 0x1000, 0x2000, NULL, &base, NULL), FW_OK);
	CHECK_EQ(base, 3);
}

/* The UDP source port rdma-core derives from the flow label. */
static uint32_t sport(uint32_t lqpn, uint32_t rqpn, uint32_t fl)
{
	if (!fl) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
	}
	return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | RNIC_ROCEV2_SPORT_MIN;
}

/* The QPC t_modify_in's attributes make, in state s (attributes given so
 * far: up to INIT, RTR or RTS). */
static void qpc(uint32_t *w, uint32_t qpn, uint32_t pd, uint32_t cq, uint32_t s, uint32_t upto)
{
	memset(w, 0, 4 * RNIC_QPC_WORDS);
	REC(w, QPC, STATE, s);
	REC(w, QPC, IPV6, upto >= RNIC_QPS_RTR ? 0 : 1); /* ::ffff:a.b.c.d is IPv4 */
	REC(w, QPC, ACCESS, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
	REC(w, QPC, PD, pd);
	REC(w, QPC, SEND_CQN, cq);
	REC(w, QPC, RECV_CQN, cq);
	REC(w, QPC, SQ_LOG_SIZE, 3);
	REC(w, QPC, RQ_LOG_SIZE, 2);
	REC(w, QPC, PKEY, 0xffff);
	REC(w, QPC, HOP_LIMIT, 64);
	REC(w, QPC, SQ_BASE, 0x100000300000ull);
	REC(w, QPC, RQ_BASE, 0x100000400000ull);
	REC(w, QPC, UDP_SPORT, sport(qpn, upto >= RNIC_QPS_RTR ? 0x123456 : 0, 0));
	if (upto >= RNIC_QPS_RTR) {
		REC(w, QPC, PMTU, RNIC_IB_MTU_1024);
		REC(w, QPC, SGID_INDEX, 1);
		REC(w, QPC, DEST_QPN, 0x123456);
		REC(w, QPC, RQ_PSN, 0xabcdef);
		REC(w, QPC, MIN_RNR_TIMER, 12);
		REC(w, QPC, MAX_DEST_RD_ATOMIC, 16);
		REC(w, QPC, TRAFFIC_CLASS, 0x28);
		REC(w, QPC, DST_MAC, 0x021122334455ull);
		t_put(w, RNIC_QPC_DGID_LSB, 64, 0x0000ffffc6120002ull);
	}
	if (upto >= RNIC_QPS_RTS) {
		REC(w, QPC, SQ_PSN, 0x654321);
		REC(w, QPC, TIMEOUT, 14);
		REC(w, QPC, RETRY_CNT, 7);
		REC(w, QPC, RNR_RETRY, 7);
		REC(w, QPC, MAX_RD_ATOMIC, 16);
	}
}

#define A(x) RNIC_QP_ATTR_##x

static void modify(uint32_t qpn, uint32_t pd, uint32_t mask, uint32_t s, uint32_t op,
		   const uint32_t *w, const char *label)
{
	t_modify_in(in, qpn, pd, A(STATE) | mask, s);
	mock_mmio_reset();
	expect_ctx(RNIC_CTX_TABLE_QPC, op, qpn, w, RNIC_QPC_WORDS);
	CHECK_EQ(run(OP(MODIFY_QP)), FW_OK);
	CHECK_MOCK(label);
}

static void test_qp(void)
{
	uint32_t pd, cq, qpn, w[RNIC_QPC_WORDS];

	t_init(0, 0, 0, 0, 0);
	pd = t_alloc_pd();
	cq = t_create_cq();
	memset(in, 0, sizeof(in));
	PUT(CREATE_QP_IN, PD, pd);
	PUT(CREATE_QP_IN, SEND_CQN, cq);
	PUT(CREATE_QP_IN, RECV_CQN, cq);
	PUT(CREATE_QP_IN, QP_TYPE, RNIC_QP_TYPE_RC);
	PUT(CREATE_QP_IN, SQ_LOG_SIZE, 3);
	PUT(CREATE_QP_IN, RQ_LOG_SIZE, 2);
	PUT(CREATE_QP_IN, SQ_BASE, 0x100000300000ull);
	PUT(CREATE_QP_IN, RQ_BASE, 0x100000400000ull);
	mock_mmio_reset(); /* the device learns of the QP at INIT */
	CHECK_EQ(run(OP(CREATE_QP)), FW_OK);
	CHECK_MOCK("CREATE_QP");
	qpn = (uint32_t)t_get(out, RNIC_CMD_CREATE_QP_OUT_QPN_LSB, 32);
	CHECK_EQ(qpn, 2);

	qpc(w, qpn, pd, cq, RNIC_QPS_INIT, RNIC_QPS_INIT);
	modify(qpn, pd, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), RNIC_QPS_INIT,
	       RNIC_CTX_OP_WRITE, w, "RESET -> INIT");
	qpc(w, qpn, pd, cq, RNIC_QPS_RTR, RNIC_QPS_RTR);
	modify(qpn, pd, A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
				A(MIN_RNR_TIMER),
	       RNIC_QPS_RTR, RNIC_CTX_OP_QP_RTR, w, "INIT -> RTR");
	qpc(w, qpn, pd, cq, RNIC_QPS_RTS, RNIC_QPS_RTS);
	modify(qpn, pd, A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC),
	       RNIC_QPS_RTS, RNIC_CTX_OP_QP_RTS, w, "RTR -> RTS");
	qpc(w, qpn, pd, cq, RNIC_QPS_ERR, RNIC_QPS_RTS);
	modify(qpn, pd, 0, RNIC_QPS_ERR, RNIC_CTX_OP_MODIFY, w, "RTS -> ERR");

	/* QUERY_QP gives back what was set */
	memset(in, 0, sizeof(in));
	PUT(QUERY_QP_IN, QPN, qpn);
	PUT(QUERY_QP_IN, PD, pd);
	mock_mmio_reset();
	CHECK_EQ(run(OP(QUERY_QP)), FW_OK);
	CHECK_MOCK("QUERY_QP");
#define GET(f) t_get(out, RNIC_CMD_QUERY_QP_OUT_##f##_LSB, RNIC_CMD_QUERY_QP_OUT_##f##_W)
	CHECK_EQ(GET(QP_STATE), RNIC_QPS_ERR);
	CHECK_EQ(GET(PATH_MTU), RNIC_IB_MTU_1024);
	CHECK_EQ(GET(QP_ACCESS_FLAGS), RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
	CHECK_EQ(GET(PORT_NUM), 1);
	CHECK_EQ(GET(IS_GLOBAL), 1);
	CHECK_EQ(GET(SGID_INDEX), 1);
	CHECK_EQ(GET(TIMEOUT), 14);
	CHECK_EQ(GET(MIN_RNR_TIMER), 12);
	CHECK_EQ(GET(MAX_RD_ATOMIC), 16);
	CHECK_EQ(GET(TRAFFIC_CLASS), 0x28);
	CHECK_EQ(GET(QP_TYPE), RNIC_QP_TYPE_RC);
	CHECK_EQ(GET(SQ_LOG_SIZE), 3);
	CHECK_EQ(GET(SEND_CQN), cq);
	CHECK_EQ(GET(DEST_QP_NUM), 0x123456);
	CHECK_EQ(GET(RQ_PSN), 0xabcdef);
	CHECK_EQ(GET(SQ_PSN), 0x654321);
	CHECK_EQ(GET(DMAC), 0x021122334455ull);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_QP_OUT_DGID_LSB, 64), 0x0000ffffc6120002ull);
	CHECK_EQ(GET(SQ_BASE), 0x100000300000ull);
	CHECK_EQ(GET(RQ_BASE), 0x100000400000ull);
#undef GET

	/* ERR -> RESET: an all-zero QPC, CTX_OP_WRITE */
	memset(w, 0, sizeof(w));
	modify(qpn, pd, 0, RNIC_QPS_RESET, RNIC_CTX_OP_WRITE, w, "ERR -> RESET");
	/* DESTROY_QP in RESET: the device does not know the QP, nothing written */
	memset(in, 0, sizeof(in));
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd);
	mock_mmio_reset();
	CHECK_EQ(run(OP(DESTROY_QP)), FW_OK);
	CHECK_MOCK("DESTROY_QP in RESET");
	/* DESTROY_QP of a live QP: an all-zero QPC first */
	qpn = t_create_qp(pd, cq, cq);
	t_qp_to_state(qpn, pd, RNIC_QPS_RTS);
	memset(in, 0, sizeof(in));
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd);
	mock_mmio_reset();
	expect_ctx(RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, qpn, w, RNIC_QPC_WORDS);
	CHECK_EQ(run(OP(DESTROY_QP)), FW_OK);
	CHECK_MOCK("DESTROY_QP in RTS");
}

static void test_counter(void)
{
	t_init(0, 0, 0, 0, 0);
	memset(in, 0, sizeof(in));
	PUT(QUERY_COUNTER_IN, FIRST, 2);
	PUT(QUERY_COUNTER_IN, COUNT, 3);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_STAT_RX_FRAMES, 111);
	mock_mmio_expect_read(RNIC_REG_STAT_RX_BYTES, 222);
	mock_mmio_expect_read(RNIC_REG_STAT_RX_DROP_NOT_ROCE, 333);
	CHECK_EQ(run(OP(QUERY_COUNTER)), FW_OK);
	CHECK_MOCK("QUERY_COUNTER");
	CHECK_EQ(out[0], 111);
	CHECK_EQ(out[1], 222);
	CHECK_EQ(out[2], 333);
	CHECK_EQ(out[3], 0);
	/* the last counter of the block is the last one there is */
	PUT(QUERY_COUNTER_IN, FIRST, (RNIC_BLK_STAT_END - 4 - RNIC_REG_STAT_TX_FRAMES) / 4);
	PUT(QUERY_COUNTER_IN, COUNT, 1);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_BLK_STAT_END - 4, 9);
	CHECK_EQ(run(OP(QUERY_COUNTER)), FW_OK);
	CHECK_MOCK("QUERY_COUNTER last");
}

static void test_query_device(void)
{
	t_init(1024, 256, 4096, 16384, 0);
	mock_mmio_reset();
	CHECK_EQ(run(OP(QUERY_DEVICE)), FW_OK);
	CHECK_MOCK("QUERY_DEVICE");
#define GET(f) t_get(out, RNIC_CMD_QUERY_DEVICE_OUT_##f##_LSB, RNIC_CMD_QUERY_DEVICE_OUT_##f##_W)
	CHECK_EQ(GET(FW_VERSION), RNIC_FW_VERSION);
	CHECK_EQ(GET(MAX_QP), 1022);
	CHECK_EQ(GET(MAX_CQ), 255);
	CHECK_EQ(GET(MAX_MR), 4095);
	CHECK_EQ(GET(MAX_PD), FW_MAX_PDS - 1);
	CHECK_EQ(GET(MAX_MTT), 16384);
	CHECK_EQ(GET(MAX_QP_WR), 32768);
	CHECK_EQ(GET(MAX_CQE), 32768);
	CHECK_EQ(GET(MAX_SEND_SGE), RNIC_MAX_SEND_SGE);
	CHECK_EQ(GET(MAX_RECV_SGE), RNIC_MAX_RECV_SGE);
	CHECK_EQ(GET(MAX_MTU), RNIC_IB_MTU_4096);
	CHECK_EQ(GET(MAX_RD_ATOMIC), RNIC_MAX_RD_ATOMIC);
	CHECK_EQ(GET(MAX_INLINE_DATA), RNIC_MAX_INLINE_BYTES);
	/* a device larger than the firmware's tables is capped */
	t_init(1u << 20, 1u << 20, 1u << 20, 1u << 20, 0);
	CHECK_EQ(run(OP(QUERY_DEVICE)), FW_OK);
	CHECK_EQ(GET(MAX_QP), FW_MAX_QPS - 2);
	CHECK_EQ(GET(MAX_MTT), FW_MAX_MTT);
#undef GET
}

int main(void)
{
	test_ctx_cmd_word();
	test_mock_self();
	test_cq();
	test_mr();
	test_qp();
	test_counter();
	test_query_device();
	return check_summary();
}
