/* Shared receive queues in the firmware: CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ,
 * DESTROY_SRQ and CREATE_QP with an SRQ. Every refusal (bad SRQ number, PD
 * mismatch, sizes, a destroy while QPs use it, commands on a destroyed
 * SRQ) with the status the host sees and nothing changed: tables compared
 * and no register touched. Then the bookkeeping of the successes (use
 * counts, the SRQC and QPC words written) and the two SRQ events. */
#include <string.h>

#include "fw_test.h"

#define OP(x) RNIC_CMD_OP_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))
#define GET(rec, f) t_get(out, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W)

static uint32_t in[32], out[32];

static void create_in(uint32_t pd, uint32_t log_size, uint32_t max_sge, uint32_t limit, uint64_t base)
{
	memset(in, 0, sizeof(in));
	PUT(CREATE_SRQ_IN, PD, pd);
	PUT(CREATE_SRQ_IN, LOG_SIZE, log_size);
	PUT(CREATE_SRQ_IN, MAX_SGE, max_sge);
	PUT(CREATE_SRQ_IN, SRQ_LIMIT, limit);
	PUT(CREATE_SRQ_IN, BASE, base);
}

static uint32_t create_srq(uint32_t pd, uint32_t log_size, uint32_t limit)
{
	create_in(pd, log_size, 2, limit, 0x100000500000ull);
	CHECK_EQ(t_cmd(OP(CREATE_SRQ), in, out), FW_OK);
	return (uint32_t)GET(CREATE_SRQ_OUT, SRQN);
}

static void qp_in(uint32_t pd, uint32_t cq, uint32_t srqn, uint32_t rq_log, uint64_t rq_base)
{
	memset(in, 0, sizeof(in));
	PUT(CREATE_QP_IN, PD, pd);
	PUT(CREATE_QP_IN, SEND_CQN, cq);
	PUT(CREATE_QP_IN, RECV_CQN, cq);
	PUT(CREATE_QP_IN, QP_TYPE, RNIC_QP_TYPE_RC);
	PUT(CREATE_QP_IN, SQ_LOG_SIZE, 3);
	PUT(CREATE_QP_IN, RQ_LOG_SIZE, rq_log);
	PUT(CREATE_QP_IN, SQ_BASE, 0x100000300000ull);
	PUT(CREATE_QP_IN, RQ_BASE, rq_base);
	PUT(CREATE_QP_IN, SRQN, srqn);
}

static void handle_in(uint32_t op, uint32_t srqn, uint32_t pd)
{
	memset(in, 0, sizeof(in));
	if (op == OP(MODIFY_SRQ)) {
		PUT(MODIFY_SRQ_IN, SRQN, srqn);
		PUT(MODIFY_SRQ_IN, PD, pd);
		PUT(MODIFY_SRQ_IN, ATTR_MASK, RNIC_SRQ_ATTR_LIMIT);
		PUT(MODIFY_SRQ_IN, SRQ_LIMIT, 1);
	} else if (op == OP(QUERY_SRQ)) {
		PUT(QUERY_SRQ_IN, SRQN, srqn);
		PUT(QUERY_SRQ_IN, PD, pd);
	} else {
		PUT(DESTROY_SRQ_IN, SRQN, srqn);
		PUT(DESTROY_SRQ_IN, PD, pd);
	}
}

/* MODIFY, QUERY and DESTROY of srqn with pd all fail with want */
static void all_fail(uint32_t srqn, uint32_t pd, enum fw_status want)
{
	static const uint32_t ops[] = { OP(MODIFY_SRQ), OP(QUERY_SRQ), OP(DESTROY_SRQ) };

	for (unsigned int i = 0; i < 3; i++) {
		handle_in(ops[i], srqn, pd);
		t_cmd_fails(ops[i], in, want);
	}
}

static void test_refusals(void)
{
	uint32_t pd, pd2, cq, srqn, qpn;

	t_init(16, 8, 8, 64, 4);
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();
	cq = t_create_cq();

	/* CREATE_SRQ: a PD that does not exist, sizes out of range */
	create_in(0, 4, 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_HANDLE);
	create_in(3, 4, 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_HANDLE); /* not allocated */
	create_in(pd, RNIC_CMD_MAX_LOG_SRQ_WR + 1, 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_PARAM); /* max_wr too large */
	create_in(pd, 40, 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_PARAM);
	create_in(pd, 4, RNIC_MAX_RECV_SGE + 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_PARAM); /* max_sge */
	create_in(pd, 4, 1, 0, 0x1000 + RNIC_RECV_WQE_BYTES / 2);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_PARAM); /* misaligned ring */
	create_in(pd, 4, 1, 16, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_BAD_PARAM); /* limit not below the size */

	/* bad SRQ numbers: 0 (never handed out), out of range, not created */
	all_fail(0, pd, FW_BAD_HANDLE);
	all_fail(FW_MAX_SRQS, pd, FW_BAD_HANDLE);
	all_fail(0xffffffffu, pd, FW_BAD_HANDLE);
	all_fail(5, pd, FW_BAD_HANDLE);

	srqn = create_srq(pd, 4, 0);
	CHECK(srqn >= 1 && srqn < FW_MAX_SRQS);
	CHECK_EQ(fw.srq[srqn].qp_count, 0);
	all_fail(srqn, pd2, FW_PD_MISMATCH);

	/* MODIFY_SRQ: resizing is refused, so is a limit not below the size */
	handle_in(OP(MODIFY_SRQ), srqn, pd);
	PUT(MODIFY_SRQ_IN, ATTR_MASK, RNIC_SRQ_ATTR_MAX_WR | RNIC_SRQ_ATTR_LIMIT);
	t_cmd_fails(OP(MODIFY_SRQ), in, FW_BAD_PARAM);
	handle_in(OP(MODIFY_SRQ), srqn, pd);
	PUT(MODIFY_SRQ_IN, SRQ_LIMIT, 16);
	t_cmd_fails(OP(MODIFY_SRQ), in, FW_BAD_PARAM);
	handle_in(OP(MODIFY_SRQ), srqn, pd);
	PUT(MODIFY_SRQ_IN, ATTR_MASK, 0x80);
	t_cmd_fails(OP(MODIFY_SRQ), in, FW_BAD_PARAM);

	/* CREATE_QP on an SRQ: the SRQ must exist; no RQ ring of its own */
	qp_in(pd, cq, 7, 0, 0);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	qp_in(pd, cq, FW_MAX_SRQS + 1, 0, 0);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	qp_in(pd, cq, srqn, 2, 0);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);
	qp_in(pd, cq, srqn, 0, 0x100000400000ull);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_PARAM);

	/* a QP of another PD may use it (the SRQ's PD checks its WQEs) */
	qp_in(pd2, cq, srqn, 0, 0);
	CHECK_EQ(t_cmd(OP(CREATE_QP), in, out), FW_OK);
	qpn = (uint32_t)GET(CREATE_QP_OUT, QPN);
	CHECK_EQ(fw.qp[qpn].srqn, srqn);
	CHECK_EQ(fw.srq[srqn].qp_count, 1);

	/* destroy while in use: busy; the SRQ also holds its PD */
	handle_in(OP(DESTROY_SRQ), srqn, pd);
	t_cmd_fails(OP(DESTROY_SRQ), in, FW_BUSY);
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_PD_IN, PD, pd);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BUSY);

	/* the QP goes (through RESET and back to RESET: the SRQ stays its) */
	t_qp_to_state(qpn, pd2, RNIC_QPS_RTS);
	CHECK_EQ(fw.qp[qpn].srqn, srqn);
	memset(in, 0, sizeof(in));
	PUT(QUERY_QP_IN, QPN, qpn);
	PUT(QUERY_QP_IN, PD, pd2);
	CHECK_EQ(t_cmd(OP(QUERY_QP), in, out), FW_OK);
	CHECK_EQ(GET(QUERY_QP_OUT, SRQN), srqn);
	memset(in, 0, sizeof(in));
	PUT(DESTROY_QP_IN, QPN, qpn);
	PUT(DESTROY_QP_IN, PD, pd2);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, out), FW_OK);
	CHECK_EQ(fw.srq[srqn].qp_count, 0);

	/* now it goes; afterwards every command on it is refused */
	handle_in(OP(DESTROY_SRQ), srqn, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_SRQ), in, out), FW_OK);
	all_fail(srqn, pd, FW_BAD_HANDLE); /* modify (and query, destroy) on a destroyed SRQ */
	qp_in(pd, cq, srqn, 0, 0);
	t_cmd_fails(OP(CREATE_QP), in, FW_BAD_HANDLE);
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_PD_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DEALLOC_PD), in, out), FW_OK);

	/* no SRQ left: the device has 3 contexts, SRQN 0 unused */
	pd = t_alloc_pd();
	fw.caps.num_srqs = 3;
	create_srq(pd, 2, 0);
	create_srq(pd, 2, 0);
	create_in(pd, 2, 1, 0, 0x1000);
	t_cmd_fails(OP(CREATE_SRQ), in, FW_NO_RESOURCES);
}

/* The CTX_DATA words (into w) and the CTX_CMD of the last command run in
 * record mode. */
static uint32_t logged_ctx(uint32_t *w)
{
	uint32_t cmd = 0;

	for (size_t i = 0; i < mock_mmio_count(); i++) {
		const struct mock_access *a = mock_mmio_access(i);

		if (a->write && a->off >= RNIC_REG_CTX_DATA && a->off < RNIC_REG_CTX_DATA + 4 * RNIC_SRQC_WORDS)
			w[(a->off - RNIC_REG_CTX_DATA) / 4] = a->val;
		if (a->write && a->off == RNIC_REG_CTX_CMD)
			cmd = a->val;
	}
	return cmd;
}

/* The SRQC a CREATE_SRQ and a MODIFY_SRQ write: record mode shows the
 * CTX_DATA words and the CTX_CMD (table, op, index). */
static void test_words(void)
{
	uint32_t pd, srqn, w[RNIC_SRQC_WORDS], cmd;

	t_init(16, 8, 8, 64, 4);
	pd = t_alloc_pd();
	srqn = create_srq(pd, 6, 9);
	memset(w, 0, sizeof(w));
	cmd = logged_ctx(w);
	CHECK_EQ(cmd, fw_ctx_cmd_word(RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_WRITE, srqn));
	CHECK_EQ(t_get(w, RNIC_SRQC_VALID_LSB, RNIC_SRQC_VALID_W), 1);
	CHECK_EQ(t_get(w, RNIC_SRQC_LOG_SIZE_LSB, RNIC_SRQC_LOG_SIZE_W), 6);
	CHECK_EQ(t_get(w, RNIC_SRQC_PD_LSB, RNIC_SRQC_PD_W), pd);
	CHECK_EQ(t_get(w, RNIC_SRQC_LIMIT_LSB, RNIC_SRQC_LIMIT_W), 9);
	CHECK_EQ(t_get(w, RNIC_SRQC_BASE_LSB, RNIC_SRQC_BASE_W), 0x100000500000ull);

	/* re-arm at 5: MODIFY keeps the indices */
	handle_in(OP(MODIFY_SRQ), srqn, pd);
	PUT(MODIFY_SRQ_IN, SRQ_LIMIT, 5);
	CHECK_EQ(t_cmd(OP(MODIFY_SRQ), in, out), FW_OK);
	cmd = logged_ctx(w);
	CHECK_EQ(cmd, fw_ctx_cmd_word(RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_MODIFY, srqn));
	CHECK_EQ(t_get(w, RNIC_SRQC_LIMIT_LSB, RNIC_SRQC_LIMIT_W), 5);
	CHECK_EQ(t_get(w, RNIC_SRQC_LOG_SIZE_LSB, RNIC_SRQC_LOG_SIZE_W), 6);
	handle_in(OP(QUERY_SRQ), srqn, pd);
	CHECK_EQ(t_cmd(OP(QUERY_SRQ), in, out), FW_OK);
	CHECK_EQ(GET(QUERY_SRQ_OUT, SRQ_LIMIT), 5);
	CHECK_EQ(GET(QUERY_SRQ_OUT, LOG_SIZE), 6);
	CHECK_EQ(GET(QUERY_SRQ_OUT, MAX_SGE), 2);
	CHECK_EQ(GET(QUERY_SRQ_OUT, QP_COUNT), 0);
	CHECK_EQ(GET(QUERY_SRQ_OUT, BASE), 0x100000500000ull);
}

static uint32_t evt(uint32_t type, uint32_t num)
{
	return RNIC_EVT_POP_VALID | type << RNIC_EVT_POP_TYPE_SHIFT | num;
}

/* EVT_SRQ_LIMIT disarms the firmware's copy and tells the host once per
 * event; EVT_QP_LAST_WQE is passed on for a QP on an SRQ only. */
static void test_events(void)
{
	uint32_t pd, cq, srqn, qp_srq, qp_rq;

	t_init(16, 8, 8, 64, 4);
	pd = t_alloc_pd();
	cq = t_create_cq();
	srqn = create_srq(pd, 4, 3);
	qp_in(pd, cq, srqn, 0, 0);
	CHECK_EQ(t_cmd(OP(CREATE_QP), in, out), FW_OK);
	qp_srq = (uint32_t)GET(CREATE_QP_OUT, QPN);
	qp_rq = t_create_qp(pd, cq, cq);

	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_SRQ_LIMIT, srqn));
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 0);
	mock_mmio_expect_write(RNIC_REG_EQ_ENTRY,
			       RNIC_ASYNC_EVENT_SRQ_LIMIT_REACHED << RNIC_EQ_ENTRY_TYPE_SHIFT | srqn);
	mock_mmio_expect_write(RNIC_REG_EQ_PI, 1);
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("srq limit");
	CHECK_EQ(fw.srq[srqn].limit, 0);

	/* an SRQ nobody created: nothing */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_SRQ_LIMIT, srqn + 1));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("unknown srq");

	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_LAST_WQE, qp_srq));
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 0);
	mock_mmio_expect_write(RNIC_REG_EQ_ENTRY + 4,
			       RNIC_ASYNC_EVENT_QP_LAST_WQE_REACHED << RNIC_EQ_ENTRY_TYPE_SHIFT | qp_srq);
	mock_mmio_expect_write(RNIC_REG_EQ_PI, 2);
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("last wqe");

	/* a QP with its own RQ has no last WQE to report */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_LAST_WQE, qp_rq));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("last wqe of a QP without SRQ");
}

int main(void)
{
	test_refusals();
	test_words();
	test_events();
	return check_summary();
}
