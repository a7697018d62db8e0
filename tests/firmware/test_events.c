/* Data-path events (EVT_POP: error CQEs, the responder's error NAKs, CQ
 * overruns) and the host's asynchronous event ring
 * (EQ_ENTRY, EQ_PI, EQ_CI, EQ_LOST): exact register traffic of each case. */
#include "core/bitmap.h"
#include "fw_test.h"

static uint32_t evt(uint32_t type, uint32_t num)
{
	return RNIC_EVT_POP_VALID | type << RNIC_EVT_POP_TYPE_SHIFT | num;
}

static uint32_t eq_word(uint32_t type, uint32_t num)
{
	return type << RNIC_EQ_ENTRY_TYPE_SHIFT | num;
}

int main(void)
{
	uint32_t pd, cq, qp, qp2;

	t_init(0, 0, 0, 0, 0);
	pd = t_alloc_pd();
	cq = t_create_cq();
	qp = t_create_qp(pd, cq, cq);
	qp2 = t_create_qp(pd, cq, cq);
	t_qp_to_state(qp, pd, RNIC_QPS_RTS);

	/* an empty queue: one read, nothing else */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, 0);
	CHECK_EQ(fw_event_poll(&fw), 0);
	CHECK_MOCK("empty");

	/* a QP's error completion: the QP is in ERR, the host told */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_ERR, qp));
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 0);
	mock_mmio_expect_write(RNIC_REG_EQ_ENTRY, eq_word(RNIC_ASYNC_EVENT_QP_FATAL, qp));
	mock_mmio_expect_write(RNIC_REG_EQ_PI, 1);
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("qp error");
	CHECK_EQ(fw.qp[qp].state, RNIC_QPS_ERR);

	/* again for the same QP (a second error CQE): nothing more */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_ERR, qp));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("qp error twice");

	/* a QP in RESET (the host reset it before the event came) stays; so
	 * does a QPN nobody created */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_ERR, qp2));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("qp in reset");
	CHECK_EQ(fw.qp[qp2].state, RNIC_QPS_RESET);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_ERR, 777));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("unknown qp");

	/* a CQ overrun: CQ_ERR once per CQ */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_CQ_OVERRUN, cq));
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 0);
	mock_mmio_expect_write(RNIC_REG_EQ_ENTRY + 4, eq_word(RNIC_ASYNC_EVENT_CQ_ERR, cq));
	mock_mmio_expect_write(RNIC_REG_EQ_PI, 2);
	CHECK_EQ(fw_event_poll(&fw), 1);
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_CQ_OVERRUN, cq));
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("cq overrun");

	/* events lost in the data path's queue count in EQ_LOST */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_CQ_OVERRUN, cq) | RNIC_EVT_POP_LOST);
	mock_mmio_expect_write(RNIC_REG_EQ_LOST, 1);
	CHECK_EQ(fw_event_poll(&fw), 1);
	CHECK_MOCK("lost in the queue");

	/* a full ring (the host has read nothing): dropped and counted */
	fw.eq_pi = RNIC_EQ_DEPTH;
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 0);
	mock_mmio_expect_write(RNIC_REG_EQ_LOST, 2);
	fw_eq_push(&fw, RNIC_ASYNC_EVENT_CQ_ERR, 5);
	CHECK_MOCK("ring full");
	/* once the host has read one, the ring wraps to entry 0 */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_EQ_CI, 1);
	mock_mmio_expect_write(RNIC_REG_EQ_ENTRY, eq_word(RNIC_ASYNC_EVENT_CQ_ERR, 5));
	mock_mmio_expect_write(RNIC_REG_EQ_PI, RNIC_EQ_DEPTH + 1);
	fw_eq_push(&fw, RNIC_ASYNC_EVENT_CQ_ERR, 5);
	CHECK_MOCK("ring wraps");

	/* a CQ made again may overrun again */
	CHECK(fw_bit_test(fw.cq_err, cq));

	/* the responder's errors that no CQE reports: the QP in ERR and the
	 * affiliated event of each kind, once (the ring is at EQ_DEPTH + 1,
	 * the host has read all but the last) */
	{
		const uint32_t kinds[3][2] = {{RNIC_EVT_QP_REQ_ERR, RNIC_ASYNC_EVENT_QP_REQ_ERR},
					      {RNIC_EVT_QP_ACCESS_ERR, RNIC_ASYNC_EVENT_QP_ACCESS_ERR},
					      {RNIC_EVT_QP_OP_ERR, RNIC_ASYNC_EVENT_QP_FATAL}};

		for (uint32_t k = 0; k < 3; k++) {
			uint32_t q = t_create_qp(pd, cq, cq), pi = RNIC_EQ_DEPTH + 2 + k;

			t_qp_to_state(q, pd, RNIC_QPS_RTS);
			mock_mmio_reset();
			mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(kinds[k][0], q));
			mock_mmio_expect_read(RNIC_REG_EQ_CI, RNIC_EQ_DEPTH);
			mock_mmio_expect_write(RNIC_REG_EQ_ENTRY + 4 * ((pi - 1) % RNIC_EQ_DEPTH), eq_word(kinds[k][1], q));
			mock_mmio_expect_write(RNIC_REG_EQ_PI, pi);
			CHECK_EQ(fw_event_poll(&fw), 1);
			CHECK_EQ(fw.qp[q].state, RNIC_QPS_ERR);
			/* a second error of the QP, of either source: nothing more */
			mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(kinds[k][0], q));
			CHECK_EQ(fw_event_poll(&fw), 1);
			mock_mmio_expect_read(RNIC_REG_EVT_POP, evt(RNIC_EVT_QP_ERR, q));
			CHECK_EQ(fw_event_poll(&fw), 1);
			CHECK_MOCK("responder error");
		}
	}
	return check_summary();
}
