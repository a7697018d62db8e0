/* Every command with bad arguments: the status the host sees, and nothing
 * changed -- the firmware's tables compared before and after, and no
 * register touched (strict mock, no expected access). Also the commands'
 * bookkeeping on success: handles, use counts, keys, MTT runs. */
#include <string.h>

#include "fw_test.h"

#define OP(x) RNIC_CMD_OP_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))

static uint32_t in[32];

static void clear_in(void)
{
	memset(in, 0, sizeof(in));
}

static void test_opcode(void)
{
	static const uint32_t bad[] = { 0, RNIC_CMD_OP_DEALLOC_MW + 1, RNIC_CMD_OP_CREATE_SRQ - 1,
					RNIC_CMD_OP_DESTROY_SRQ + 1, 0x7f, 0xff, 0x100 };

	t_init(0, 0, 0, 0, 0);
	clear_in();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		t_cmd_fails(bad[i], in, FW_BAD_OPCODE);
}

static void test_pd(void)
{
	uint32_t pd, cq, qpn, key;

	t_init(16, 8, 8, 64, 4); /* PDs 1..3 */
	clear_in();
	PUT(DEALLOC_PD_IN, PD, 0);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BAD_HANDLE);
	PUT(DEALLOC_PD_IN, PD, 1);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BAD_HANDLE); /* not allocated */
	PUT(DEALLOC_PD_IN, PD, 4);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BAD_HANDLE);
	PUT(DEALLOC_PD_IN, PD, 0xffffffffu);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BAD_HANDLE);

	pd = t_alloc_pd();
	CHECK_EQ(pd, 1);
	CHECK_EQ(t_alloc_pd(), 2);
	CHECK_EQ(t_alloc_pd(), 3);
	t_cmd_fails(OP(ALLOC_PD), in, FW_NO_RESOURCES);

	/* in use by a QP, then by an MR */
	cq = t_create_cq();
	qpn = t_create_qp(pd, cq, cq);
	CHECK_EQ(fw.pd_refcnt[pd], 1);
	PUT(DEALLOC_PD_IN, PD, pd);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BUSY);
	clear_in();
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, NULL), FW_OK);
	CHECK_EQ(t_reg_mr(pd, RNIC_ACCESS_LOCAL_WRITE, 0x1000, 0x1000, &key, NULL, NULL), FW_OK);
	clear_in();
	PUT(DEALLOC_PD_IN, PD, pd);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BUSY);
	clear_in();
	PUT(DEREG_MR_IN, KEY, key);
	PUT(DEREG_MR_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DEREG_MR), in, NULL), FW_OK);
	clear_in();
	PUT(DEALLOC_PD_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DEALLOC_PD), in, NULL), FW_OK);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BAD_HANDLE); /* twice */
	CHECK_EQ(t_alloc_pd(), 1);                      /* free again */
}

static void test_cq(void)
{
	uint32_t pd, cq, qpn;

	t_init(16, 3, 8, 64, 0); /* CQs 1..2 */
	clear_in();
	PUT(CREATE_CQ_IN, LOG_SIZE, RNIC_CMD_MAX_LOG_CQE + 1);
	t_cmd_fails(OP(CREATE_CQ), in, FW_BAD_PARAM);
	PUT(CREATE_CQ_IN, LOG_SIZE, 0xffffffffu);
	t_cmd_fails(OP(CREATE_CQ), in, FW_BAD_PARAM);
	PUT(CREATE_CQ_IN, LOG_SIZE, 4);
	PUT(CREATE_CQ_IN, BASE, 0x10000 + RNIC_CQE_BYTES / 2);
	t_cmd_fails(OP(CREATE_CQ), in, FW_BAD_PARAM);

	clear_in();
	PUT(DESTROY_CQ_IN, CQN, 0);
	t_cmd_fails(OP(DESTROY_CQ), in, FW_BAD_HANDLE);
	PUT(DESTROY_CQ_IN, CQN, 1);
	t_cmd_fails(OP(DESTROY_CQ), in, FW_BAD_HANDLE);
	PUT(DESTROY_CQ_IN, CQN, 3);
	t_cmd_fails(OP(DESTROY_CQ), in, FW_BAD_HANDLE);

	CHECK_EQ(t_create_cq(), 1);
	CHECK_EQ(t_create_cq(), 2);
	clear_in();
	PUT(CREATE_CQ_IN, LOG_SIZE, 4);
	t_cmd_fails(OP(CREATE_CQ), in, FW_NO_RESOURCES);

	/* in use by a QP (as send and as receive CQ) */
	pd = t_alloc_pd();
	qpn = t_create_qp(pd, 1, 2);
	CHECK_EQ(fw.cq_refcnt[1], 1);
	CHECK_EQ(fw.cq_refcnt[2], 1);
	clear_in();
	PUT(DESTROY_CQ_IN, CQN, 1);
	t_cmd_fails(OP(DESTROY_CQ), in, FW_BUSY);
	PUT(DESTROY_CQ_IN, CQN, 2);
	t_cmd_fails(OP(DESTROY_CQ), in, FW_BUSY);
	clear_in();
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, NULL), FW_OK);
	clear_in();
	PUT(DESTROY_CQ_IN, CQN, 2);
	CHECK_EQ(t_cmd(OP(DESTROY_CQ), in, NULL), FW_OK);
	cq = t_create_cq();
	CHECK_EQ(cq, 2);
}

static void create_qp_in(uint32_t pd, uint32_t scq, uint32_t rcq)
{
	clear_in();
	PUT(CREATE_QP_IN, PD, pd);
	PUT(CREATE_QP_IN, SEND_CQN, scq);
	PUT(CREATE_QP_IN, RECV_CQN, rcq);
	PUT(CREATE_QP_IN, QP_TYPE, RNIC_QP_TYPE_RC);
	PUT(CREATE_QP_IN, SQ_LOG_SIZE, RNIC_CMD_MAX_LOG_WR);
	PUT(CREATE_QP_IN, RQ_LOG_SIZE, 0);
	PUT(CREATE_QP_IN, SQ_BASE, 0x2000);
	PUT(CREATE_QP_IN, RQ_BASE, 0);
}

static void test_qp(void)
{
	uint32_t pd, pd2, cq, qpn;

	t_init(5, 4, 8, 64, 0); /* QPs 2..4 */
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();
	cq = t_create_cq();

	create_qp_in(pd, cq, cq);
	PUT(CREATE_QP_IN, QP_TYPE, 3); /* UC */
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	create_qp_in(pd, cq, cq);
	PUT(CREATE_QP_IN, SQ_LOG_SIZE, RNIC_CMD_MAX_LOG_WR + 1);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	create_qp_in(pd, cq, cq);
	PUT(CREATE_QP_IN, RQ_LOG_SIZE, RNIC_CMD_MAX_LOG_WR + 1);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	create_qp_in(pd, cq, cq);
	PUT(CREATE_QP_IN, SQ_BASE, 0x2000 + RNIC_WQE_BYTES / 2);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	create_qp_in(pd, cq, cq);
	PUT(CREATE_QP_IN, RQ_BASE, 0x3000 + RNIC_RECV_WQE_BYTES / 2);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	create_qp_in(3, cq, cq); /* PD never allocated */
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	create_qp_in(0, cq, cq);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	create_qp_in(pd, 2, cq); /* CQ never created */
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	create_qp_in(pd, cq, 0);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	create_qp_in(pd, cq, 4); /* beyond the CQ table */
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);

	qpn = t_create_qp(pd, cq, cq);
	CHECK_EQ(qpn, 2);
	CHECK_EQ(fw.qp[qpn].state, RNIC_QPS_RESET);
	CHECK_EQ(t_create_qp(pd, cq, cq), 3);
	CHECK_EQ(t_create_qp(pd, cq, cq), 4);
	create_qp_in(pd, cq, cq);
	t_cmd_fails(OP(CREATE_QP), in, FW_NO_RESOURCES);

	/* MODIFY_QP, QUERY_QP, DESTROY_QP: handle and PD checks */
	static const uint32_t bad_qpn[] = { 0, 1, 5, 0x1000002, 0xffffffffu };
	for (size_t i = 0; i < sizeof(bad_qpn) / sizeof(bad_qpn[0]); i++) {
		t_modify_in(in, bad_qpn[i], pd, RNIC_QP_ATTR_STATE, RNIC_QPS_ERR);
		t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_HANDLE);
		clear_in();
		PUT(QUERY_QP_IN, QPN, bad_qpn[i]);
		PUT(QUERY_QP_IN, PD, pd);
		t_cmd_fails(OP(QUERY_QP), in, FW_BAD_HANDLE);
		clear_in();
		PUT(DESTROY_QP_IN, QPN, bad_qpn[i]);
		PUT(DESTROY_QP_IN, PD, pd);
		t_cmd_fails(OP(DESTROY_QP), in, FW_BAD_HANDLE);
	}
	t_modify_in(in, qpn, pd2, RNIC_QP_ATTR_STATE, RNIC_QPS_ERR);
	t_cmd_fails(OP(MODIFY_QP), in, FW_PD_MISMATCH);
	clear_in();
	PUT(QUERY_QP_IN, QPN, qpn);
	PUT(QUERY_QP_IN, PD, pd2);
	t_cmd_fails(OP(QUERY_QP), in, FW_PD_MISMATCH);
	clear_in();
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd2);
	t_cmd_fails(OP(DESTROY_QP), in, FW_PD_MISMATCH);
	PUT(DESTROY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, NULL), FW_OK);
	t_cmd_fails(OP(DESTROY_QP), in, FW_BAD_HANDLE); /* twice */
	CHECK_EQ(fw.pd_refcnt[pd], 2);
	CHECK_EQ(fw.cq_refcnt[cq], 4);
}

static void reg_fails(uint32_t pd, uint32_t access, uint64_t va, uint64_t len, enum fw_status want)
{
	clear_in();
	PUT(REG_MR_IN, PD, pd);
	PUT(REG_MR_IN, ACCESS, access);
	PUT(REG_MR_IN, VA, va);
	PUT(REG_MR_IN, LENGTH, len);
	t_cmd_fails(OP(REG_MR), in, want);
}

static void write_mtt_in(uint32_t key, uint32_t pd, uint32_t offset, uint32_t count)
{
	clear_in();
	PUT(WRITE_MTT_IN, KEY, key);
	PUT(WRITE_MTT_IN, PD, pd);
	PUT(WRITE_MTT_IN, OFFSET, offset);
	PUT(WRITE_MTT_IN, COUNT, count);
	for (uint32_t i = 0; i < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT; i++)
		t_put(in, RNIC_CMD_WRITE_MTT_IN_PAGE_LSB + 64 * i, 64, 0x7000000000ull + 0x1000 * i);
}

static void test_mr(void)
{
	const uint32_t lw = RNIC_ACCESS_LOCAL_WRITE;
	uint32_t pd, pd2, key, key2, base, npages, out[32];

	t_init(16, 8, 4, 32, 0); /* MRs 1..3, 32 MTT entries */
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();
	reg_fails(0, lw, 0x1000, 0x1000, FW_BAD_HANDLE);
	reg_fails(5, lw, 0x1000, 0x1000, FW_BAD_HANDLE);
	reg_fails(pd, RNIC_ACCESS_ZERO_BASED, 0x1000, 0x1000, FW_BAD_PARAM); /* MRs are VA-based */
	reg_fails(pd, 0x40, 0x1000, 0x1000, FW_BAD_PARAM);
	reg_fails(pd, 0x100, 0x1000, 0x1000, FW_BAD_PARAM);
	reg_fails(pd, RNIC_ACCESS_REMOTE_WRITE, 0x1000, 0x1000, FW_BAD_PARAM);
	reg_fails(pd, RNIC_ACCESS_REMOTE_ATOMIC | RNIC_ACCESS_REMOTE_READ, 0x1000, 0x1000,
		  FW_BAD_PARAM);
	reg_fails(pd, lw, 0x1000, 0, FW_BAD_PARAM);
	reg_fails(pd, lw, 0xfffffffffffff000ull, 0x2000, FW_BAD_PARAM); /* wraps */
	reg_fails(pd, lw, 0x1800, 32 * 0x1000, FW_BAD_PARAM);            /* 33 pages */
	/* exactly the whole MTT fits */
	CHECK_EQ(t_reg_mr(pd, lw, 0x1000, 32 * 0x1000, &key, &base, &npages), FW_OK);
	CHECK_EQ(base, 0);
	CHECK_EQ(npages, 32);
	CHECK_EQ(key >> RNIC_MKEY_TAG_BITS, 1);
	reg_fails(pd, lw, 0x1000, 1, FW_NO_RESOURCES); /* no MTT entry left */

	/* WRITE_MTT */
	write_mtt_in(key, pd2, 0, 14);
	t_cmd_fails(OP(WRITE_MTT), in, FW_PD_MISMATCH);
	write_mtt_in(key ^ 1, pd, 0, 14); /* wrong tag */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);
	write_mtt_in(key & 0xff, pd, 0, 14); /* index 0 */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);
	write_mtt_in(2 << 8 | 1, pd, 0, 14); /* index not in use */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);
	write_mtt_in(4 << 8 | 1, pd, 0, 14); /* beyond the MPT */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);
	write_mtt_in(key, pd, 1, 14); /* not the next page */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 0, 0);
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 0, RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT + 1);
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 0, 14);
	t_put(in, RNIC_CMD_WRITE_MTT_IN_PAGE_LSB + 64 * 13, 64, 0x7000000800ull); /* unaligned */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 0, 14);
	CHECK_EQ(t_cmd(OP(WRITE_MTT), in, out), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_WRITE_MTT_OUT_WRITTEN_LSB, 32), 14);
	CHECK_EQ(t_get(out, RNIC_CMD_WRITE_MTT_OUT_VALID_LSB, 1), 0);
	write_mtt_in(key, pd, 0, 14); /* the same chunk again */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 14, 14);
	CHECK_EQ(t_cmd(OP(WRITE_MTT), in, out), FW_OK);
	write_mtt_in(key, pd, 28, 5); /* one page past the MR */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_PARAM);
	write_mtt_in(key, pd, 28, 4);
	CHECK_EQ(t_cmd(OP(WRITE_MTT), in, out), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_WRITE_MTT_OUT_WRITTEN_LSB, 32), 32);
	CHECK_EQ(t_get(out, RNIC_CMD_WRITE_MTT_OUT_VALID_LSB, 1), 1);
	write_mtt_in(key, pd, 32, 1); /* the MR is valid */
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_STATE);

	/* DEREG_MR */
	clear_in();
	PUT(DEREG_MR_IN, KEY, key);
	PUT(DEREG_MR_IN, PD, pd2);
	t_cmd_fails(OP(DEREG_MR), in, FW_PD_MISMATCH);
	PUT(DEREG_MR_IN, KEY, key + 1);
	PUT(DEREG_MR_IN, PD, pd);
	t_cmd_fails(OP(DEREG_MR), in, FW_BAD_HANDLE);
	PUT(DEREG_MR_IN, KEY, key);
	CHECK_EQ(t_cmd(OP(DEREG_MR), in, NULL), FW_OK);
	for (uint32_t i = 0; i < 32; i++)
		CHECK(!(fw.mtt_used[i / 32] >> (i % 32) & 1));
	t_cmd_fails(OP(DEREG_MR), in, FW_BAD_HANDLE); /* twice */
	/* MPT indices 2 and 3, then index 1 again (allocation goes round from
	 * the last one handed out) with a new tag: the old key is dead */
	CHECK_EQ(t_reg_mr(pd, lw, 0x1000, 0x1000, &key2, NULL, NULL), FW_OK);
	CHECK_EQ(key2 >> 8, 2);
	CHECK_EQ(t_reg_mr(pd, lw, 0x1000, 0x1000, &key2, NULL, NULL), FW_OK);
	CHECK_EQ(key2 >> 8, 3);
	CHECK_EQ(t_reg_mr(pd, lw, 0x1000, 0x1000, &key2, NULL, NULL), FW_OK);
	CHECK_EQ(key2 >> 8, key >> 8);
	CHECK(key2 != key);
	clear_in();
	PUT(DEREG_MR_IN, KEY, key);
	PUT(DEREG_MR_IN, PD, pd);
	t_cmd_fails(OP(DEREG_MR), in, FW_BAD_HANDLE);
	write_mtt_in(key, pd, 0, 1);
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);
	/* MPT indices (1..3) run out, then pending registrations */
	reg_fails(pd, lw, 0x1000, 0x1000, FW_NO_RESOURCES);
	t_init(16, 8, FW_MAX_PENDING_MRS + 4, 64, 0);
	pd = t_alloc_pd();
	for (uint32_t i = 0; i < FW_MAX_PENDING_MRS; i++)
		CHECK_EQ(t_reg_mr(pd, lw, 0x1000, 0x1000, NULL, NULL, NULL), FW_OK);
	reg_fails(pd, lw, 0x1000, 0x1000, FW_NO_RESOURCES);
}

static void test_counter(void)
{
	const uint32_t n = (RNIC_BLK_STAT_END - RNIC_REG_STAT_TX_FRAMES) / 4;

	t_init(0, 0, 0, 0, 0);
	clear_in();
	PUT(QUERY_COUNTER_IN, FIRST, 0);
	PUT(QUERY_COUNTER_IN, COUNT, 0);
	t_cmd_fails(OP(QUERY_COUNTER), in, FW_BAD_PARAM);
	PUT(QUERY_COUNTER_IN, COUNT, n + 1);
	t_cmd_fails(OP(QUERY_COUNTER), in, FW_BAD_PARAM);
	PUT(QUERY_COUNTER_IN, FIRST, n);
	PUT(QUERY_COUNTER_IN, COUNT, 1);
	t_cmd_fails(OP(QUERY_COUNTER), in, FW_BAD_PARAM);
	PUT(QUERY_COUNTER_IN, FIRST, n - 2);
	PUT(QUERY_COUNTER_IN, COUNT, 3);
	t_cmd_fails(OP(QUERY_COUNTER), in, FW_BAD_PARAM);
	PUT(QUERY_COUNTER_IN, FIRST, 0xffffffffu);
	PUT(QUERY_COUNTER_IN, COUNT, 2);
	t_cmd_fails(OP(QUERY_COUNTER), in, FW_BAD_PARAM);
}

/* A context write the data path refuses (CTX_STATUS error) or never
 * finishes: FW_INTERNAL and the tables as before. */
static void test_ctx_failure(void)
{
	uint32_t out[32];

	for (int busy = 0; busy < 2; busy++) {
		t_init(0, 0, 0, 0, 0);
		clear_in();
		PUT(CREATE_CQ_IN, LOG_SIZE, 4);
		PUT(CREATE_CQ_IN, BASE, 0x1000);
		memcpy(&fw_before, &fw, sizeof(fw));
		mock_mmio_reset();
		for (uint32_t i = 0; i < RNIC_CQC_WORDS; i++)
			mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, i == 0 ? 1 | 4 << 1 : i == 1 ? 0x1000 : 0);
		mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, 1));
		if (busy)
			for (uint32_t i = 0; i < FW_CTX_POLLS; i++)
				mock_mmio_expect_read(RNIC_REG_CTX_STATUS, RNIC_CTX_STATUS_BUSY);
		else
			mock_mmio_expect_read(RNIC_REG_CTX_STATUS, RNIC_CTX_STATUS_ERROR);
		CHECK_EQ(fw_cmd_run(&fw, OP(CREATE_CQ), in, out), FW_INTERNAL);
		CHECK_MOCK(busy ? "ctx busy" : "ctx error");
		CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
	}
}

int main(void)
{
	test_opcode();
	test_pd();
	test_cq();
	test_qp();
	test_mr();
	test_counter();
	test_ctx_failure();
	return check_summary();
}
