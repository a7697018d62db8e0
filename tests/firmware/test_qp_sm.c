/* The RC QP state machine through MODIFY_QP: every (current, next) pair of
 * states, valid and invalid; for each valid transition its required
 * attributes left out one at a time, every attribute it does not take added
 * one at a time, each optional attribute it takes, a wrong cur_qp_state and
 * each attribute value out of range. A refused command must leave the QP
 * (and every table) as it was and touch no register; an accepted one writes
 * the QPC with the context operation of the transition. The expected table
 * is written out here from ibv_modify_qp(3) / IBTA Vol. 1 ch. 10, apart from
 * the firmware's own. */
#include <string.h>

#include "fw_test.h"
#include "rnic/verbs.h"

#define S(x) RNIC_QPS_##x
#define A(x) RNIC_QP_ATTR_##x
#define NSTATES (S(ERR) + 1)

/* The firmware's mask bits are ibv's (and the host library's). */
_Static_assert(A(STATE) == RNIC_QP_STATE && A(CUR_STATE) == RNIC_QP_CUR_STATE &&
	       A(EN_SQD_ASYNC_NOTIFY) == RNIC_QP_EN_SQD_ASYNC_NOTIFY &&
	       A(ACCESS_FLAGS) == RNIC_QP_ACCESS_FLAGS && A(PKEY_INDEX) == RNIC_QP_PKEY_INDEX &&
	       A(PORT) == RNIC_QP_PORT && A(QKEY) == RNIC_QP_QKEY && A(AV) == RNIC_QP_AV &&
	       A(PATH_MTU) == RNIC_QP_PATH_MTU && A(TIMEOUT) == RNIC_QP_TIMEOUT &&
	       A(RETRY_CNT) == RNIC_QP_RETRY_CNT && A(RNR_RETRY) == RNIC_QP_RNR_RETRY &&
	       A(RQ_PSN) == RNIC_QP_RQ_PSN && A(MAX_QP_RD_ATOMIC) == RNIC_QP_MAX_QP_RD_ATOMIC &&
	       A(ALT_PATH) == RNIC_QP_ALT_PATH && A(MIN_RNR_TIMER) == RNIC_QP_MIN_RNR_TIMER &&
	       A(SQ_PSN) == RNIC_QP_SQ_PSN && A(MAX_DEST_RD_ATOMIC) == RNIC_QP_MAX_DEST_RD_ATOMIC &&
	       A(PATH_MIG_STATE) == RNIC_QP_PATH_MIG_STATE && A(CAP) == RNIC_QP_CAP &&
	       A(DEST_QPN) == RNIC_QP_DEST_QPN,
	       "QP_ATTR_* agree with enum rnic_qp_attr_mask");

/* Optional attributes the firmware refuses (no APM, no async events). */
#define UNSUPPORTED (A(ALT_PATH) | A(PATH_MIG_STATE) | A(EN_SQD_ASYNC_NOTIFY))

struct row {
	uint32_t cur, next, req, opt, op;
};

/* Every legal RC transition: required and optional attributes (STATE not
 * included) and the context operation the host library used for it. */
static const struct row rows[] = {
	{ S(RESET), S(RESET), 0, 0, 0 },
	{ S(RESET), S(INIT), A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0, RNIC_CTX_OP_WRITE },
	{ S(RESET), S(ERR), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(INIT), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(INIT), S(INIT), 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), RNIC_CTX_OP_MODIFY },
	{ S(INIT), S(RTR),
	  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
	  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX), RNIC_CTX_OP_QP_RTR },
	{ S(INIT), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
	{ S(RTR), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(RTR), S(RTS), A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC),
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
	  RNIC_CTX_OP_QP_RTS },
	{ S(RTR), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
	{ S(RTS), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(RTS), S(RTS), 0,
	  A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) | A(MIN_RNR_TIMER),
	  RNIC_CTX_OP_MODIFY },
	{ S(RTS), S(SQD), 0, A(EN_SQD_ASYNC_NOTIFY), RNIC_CTX_OP_MODIFY },
	{ S(RTS), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
	{ S(SQD), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(SQD), S(RTS), 0,
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
	  RNIC_CTX_OP_MODIFY },
	{ S(SQD), S(SQD), 0,
	  A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) |
		  A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) |
		  A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
	  RNIC_CTX_OP_MODIFY },
	{ S(SQD), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
	{ S(SQE), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(SQE), S(RTS), 0, A(CUR_STATE), RNIC_CTX_OP_MODIFY },
	{ S(SQE), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
	{ S(ERR), S(RESET), 0, 0, RNIC_CTX_OP_WRITE },
	{ S(ERR), S(ERR), 0, 0, RNIC_CTX_OP_MODIFY },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const struct row *find_row(uint32_t cur, uint32_t next)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].cur == cur && rows[i].next == next)
			return &rows[i];
	return NULL;
}

static uint32_t pd, cq;

/* A fresh QP in state s. */
static uint32_t qp_in(uint32_t s)
{
	uint32_t qpn = t_create_qp(pd, cq, cq);

	t_qp_to_state(qpn, pd, s);
	return qpn;
}

static void destroy(uint32_t qpn)
{
	uint32_t in[32] = { 0 };

	t_put(in, RNIC_CMD_DESTROY_QP_IN_QPN_LSB, 32, qpn);
	t_put(in, RNIC_CMD_DESTROY_QP_IN_PD_LSB, 32, pd);
	CHECK_EQ(t_cmd(RNIC_CMD_OP_DESTROY_QP, in, NULL), FW_OK);
}

/* MODIFY_QP cur -> next with mask must fail with want, changing nothing. */
static void modify_fails(uint32_t cur, uint32_t next, uint32_t mask, enum fw_status want)
{
	uint32_t qpn = qp_in(cur), in[32];

	t_modify_in(in, qpn, pd, mask, next);
	t_cmd_fails(RNIC_CMD_OP_MODIFY_QP, in, want);
	CHECK_EQ(fw.qp[qpn].state, cur);
	destroy(qpn);
}

/* MODIFY_QP cur -> next with mask must succeed: the QP is in next and the
 * data path got exactly one QPC write with the row's context operation (none
 * for RESET -> RESET). */
static void modify_ok(const struct row *r, uint32_t mask)
{
	uint32_t qpn = qp_in(r->cur), in[32];
	const struct mock_access *a;
	size_t n;

	t_modify_in(in, qpn, pd, mask, r->next);
	if (t_cmd(RNIC_CMD_OP_MODIFY_QP, in, NULL) != FW_OK) {
		n_fail++;
		printf("FAIL %d -> %d with mask 0x%x refused\n", r->cur, r->next, mask);
		destroy(qpn);
		return;
	}
	CHECK_EQ(fw.qp[qpn].state, r->next);
	n = mock_mmio_count();
	if (r->cur == S(RESET) && r->next == S(RESET)) {
		CHECK_EQ(n, 0);
	} else {
		/* QPC words, CTX_CMD, one CTX_STATUS read */
		CHECK_EQ(n, RNIC_QPC_WORDS + 2);
		a = mock_mmio_access(RNIC_QPC_WORDS);
		CHECK(a && a->write && a->off == RNIC_REG_CTX_CMD &&
		      a->val == (fw_ctx_cmd_word(RNIC_CTX_TABLE_QPC, r->op, qpn)));
		a = mock_mmio_access(0);
		CHECK(a && a->write && a->off == RNIC_REG_CTX_DATA &&
		      (a->val & 0xf) == (r->next == S(RESET) ? 0 : r->next));
	}
	destroy(qpn);
}

/* Every pair of states (and states out of range): the legal ones succeed
 * with their required attributes, every other pair is refused. */
static void test_all_pairs(void)
{
	for (uint32_t cur = 0; cur < NSTATES; cur++) {
		for (uint32_t next = 0; next <= NSTATES; next++) {
			const struct row *r = next < NSTATES ? find_row(cur, next) : NULL;

			if (r)
				modify_ok(r, A(STATE) | r->req);
			else if (next < NSTATES)
				modify_fails(cur, next, A(STATE), FW_BAD_STATE);
			else
				modify_fails(cur, next, A(STATE), FW_BAD_PARAM);
		}
	}
}

/* Leaving STATE out means "stay": legal only where cur -> cur is. */
static void test_no_state_bit(void)
{
	for (uint32_t cur = 0; cur < NSTATES; cur++) {
		const struct row *r = find_row(cur, cur);

		if (r)
			modify_ok(r, r->req);
		else
			modify_fails(cur, cur, 0, FW_BAD_STATE);
	}
}

static void test_required_missing(void)
{
	for (size_t i = 0; i < NROWS; i++)
		for (uint32_t b = 0; b < 32; b++)
			if (rows[i].req & 1u << b)
				modify_fails(rows[i].cur, rows[i].next,
					     (A(STATE) | rows[i].req) & ~(1u << b), FW_BAD_ATTR_MASK);
}

static void test_forbidden_added(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];

		for (uint32_t b = 0; b < 32; b++) {
			uint32_t bit = 1u << b;

			if (bit == A(STATE) || (r->req & bit))
				continue;
			if (bit == A(CUR_STATE) && (r->opt & bit))
				continue; /* taken: tested below */
			if ((r->opt & bit) && !(UNSUPPORTED & bit))
				continue;
			modify_fails(r->cur, r->next, A(STATE) | r->req | bit, FW_BAD_ATTR_MASK);
		}
	}
}

static void test_optional_added(void)
{
	for (size_t i = 0; i < NROWS; i++)
		for (uint32_t b = 0; b < 32; b++)
			if ((rows[i].opt & ~UNSUPPORTED) & 1u << b)
				modify_ok(&rows[i], A(STATE) | rows[i].req | 1u << b);
}

/* cur_qp_state, where taken, must be the QP's state. */
static void test_cur_state(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		uint32_t qpn, in[32];

		if (!(r->opt & A(CUR_STATE)))
			continue;
		qpn = qp_in(r->cur);
		t_modify_in(in, qpn, pd, A(STATE) | A(CUR_STATE) | r->req, r->next);
		t_put(in, RNIC_CMD_MODIFY_QP_IN_CUR_QP_STATE_LSB, 8, r->cur == S(RTS) ? S(RTR) : S(RTS));
		t_cmd_fails(RNIC_CMD_OP_MODIFY_QP, in, FW_BAD_STATE);
		t_put(in, RNIC_CMD_MODIFY_QP_IN_CUR_QP_STATE_LSB, 8, 9);
		t_cmd_fails(RNIC_CMD_OP_MODIFY_QP, in, FW_BAD_PARAM);
		destroy(qpn);
	}
}

/* Each attribute value out of range, on a transition that takes it. */
static void test_values(void)
{
	static const struct {
		uint32_t cur, next, mask, lsb, width;
		uint64_t bad;
	} cases[] = {
#define F(f) RNIC_CMD_MODIFY_QP_IN_##f##_LSB, RNIC_CMD_MODIFY_QP_IN_##f##_W
#define INIT_MASK (A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS))
#define RTR_MASK (A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | \
		  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER))
#define RTS_MASK (A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | \
		  A(MAX_QP_RD_ATOMIC))
		{ S(RESET), S(INIT), INIT_MASK, F(QP_ACCESS_FLAGS), 0x10 },
		{ S(RESET), S(INIT), INIT_MASK, F(PKEY_INDEX), 1 },
		{ S(RESET), S(INIT), INIT_MASK, F(PORT_NUM), 2 },
		{ S(RESET), S(INIT), INIT_MASK, F(PORT_NUM), 0 },
		{ S(INIT), S(RTR), RTR_MASK, F(IS_GLOBAL), 0 },
		{ S(INIT), S(RTR), RTR_MASK, F(SGID_INDEX), RNIC_GID_TABLE_SIZE },
		{ S(INIT), S(RTR), RTR_MASK, F(FLOW_LABEL), 0x100000 },
		{ S(INIT), S(RTR), RTR_MASK, F(PATH_MTU), 0 },
		{ S(INIT), S(RTR), RTR_MASK, F(PATH_MTU), 6 },
		{ S(INIT), S(RTR), RTR_MASK, F(DEST_QP_NUM), 0x1000000 },
		{ S(INIT), S(RTR), RTR_MASK, F(RQ_PSN), 0x1000000 },
		{ S(INIT), S(RTR), RTR_MASK, F(MAX_DEST_RD_ATOMIC), RNIC_MAX_RD_ATOMIC + 1 },
		{ S(INIT), S(RTR), RTR_MASK, F(MIN_RNR_TIMER), 32 },
		{ S(RTR), S(RTS), RTS_MASK, F(SQ_PSN), 0x1000000 },
		{ S(RTR), S(RTS), RTS_MASK, F(TIMEOUT), 32 },
		{ S(RTR), S(RTS), RTS_MASK, F(RETRY_CNT), 8 },
		{ S(RTR), S(RTS), RTS_MASK, F(RNR_RETRY), 8 },
		{ S(RTR), S(RTS), RTS_MASK, F(MAX_RD_ATOMIC), RNIC_MAX_RD_ATOMIC + 1 },
#undef F
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t qpn = qp_in(cases[i].cur), in[32];

		t_modify_in(in, qpn, pd, cases[i].mask, cases[i].next);
		t_put(in, cases[i].lsb, cases[i].width, cases[i].bad);
		t_cmd_fails(RNIC_CMD_OP_MODIFY_QP, in, FW_BAD_PARAM);
		CHECK_EQ(fw.qp[qpn].state, cases[i].cur);
		destroy(qpn);
	}
}

/* The pure functions agree with the table too. */
static void test_pure(void)
{
	for (uint32_t cur = 0; cur <= NSTATES; cur++) {
		for (uint32_t next = 0; next <= NSTATES; next++) {
			const struct row *r = cur < NSTATES && next < NSTATES ? find_row(cur, next) : NULL;
			uint32_t req = 1, opt = 1;
			enum fw_status st = fw_qp_transition(cur, next, &req, &opt);

			CHECK_EQ(st, r ? FW_OK : FW_BAD_STATE);
			CHECK_EQ(req, r ? r->req : 0);
			CHECK_EQ(opt, r ? r->opt : 0);
			if (r && !(r->cur == S(RESET) && r->next == S(RESET)))
				CHECK_EQ(fw_qpc_op(cur, next), r->op);
		}
	}
}

int main(void)
{
	t_init(0, 0, 0, 0, 0);
	pd = t_alloc_pd();
	cq = t_create_cq();
	test_pure();
	test_all_pairs();
	test_no_state_bit();
	test_required_missing();
	test_forbidden_added();
	test_optional_added();
	test_cur_state();
	test_values();
	/* every QP made above was destroyed again */
	CHECK_EQ(fw.pd_refcnt[pd], 0);
	CHECK_EQ(fw.cq_refcnt[cq], 0);
	return check_summary();
}
