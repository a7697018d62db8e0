/* OpenRNIC firmware core: the RC QP state machine (IBTA Vol. 1 ch. 10,
 * ibv_modify_qp(3)), the context operation of each transition and the QPC
 * encoding. Pure functions: no register access. */
#include "rnic/roce.h"
#include "core/fw.h"

#define S(x) RNIC_QPS_##x
#define A(x) RNIC_QP_ATTR_##x

struct qp_trans {
	uint8_t valid;
	uint32_t req, opt; /* the QP_ATTR_STATE bit not included */
};

/* [cur][next], RC: the attributes each transition requires and the ones it
 * may take, as IBTA and ibv_modify_qp(3) list them (the optional sets
 * include the attributes this firmware does not implement,
 * FW_QP_ATTR_UNSUPPORTED, which fw_qp_check_mask refuses). */
static const struct qp_trans qp_table[S(ERR) + 1][S(ERR) + 1] = {
	[S(RESET)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(INIT)] = { 1, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0 },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(INIT)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(INIT)] = { 1, 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) },
		[S(RTR)] = { 1,
			     A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
				     A(MIN_RNR_TIMER),
			     A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(RTR)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1,
			     A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
				     A(MAX_QP_RD_ATOMIC),
			     A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
				     A(PATH_MIG_STATE) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(RTS)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0,
			     A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) |
				     A(MIN_RNR_TIMER) },
		[S(SQD)] = { 1, 0, A(EN_SQD_ASYNC_NOTIFY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(SQD)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0,
			     A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
				     A(PATH_MIG_STATE) },
		[S(SQD)] = { 1, 0,
			     A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
				     A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
				     A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |
				     A(PATH_MIG_STATE) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(SQE)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0, A(CUR_STATE) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(ERR)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(ERR)] = { 1, 0, 0 },
	},
};

/* [cur][next], UD (IBTA Vol. 1 10.3.1, ibv_modify_qp(3)): Q_Key and the
 * P_Key index / port at INIT; nothing at RTR (no path: the address comes
 * with each send); the SQ PSN at RTS; the Q_Key may change later. */
static const struct qp_trans ud_table[S(ERR) + 1][S(ERR) + 1] = {
	[S(RESET)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(INIT)] = { 1, A(PKEY_INDEX) | A(PORT) | A(QKEY), 0 },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(INIT)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(INIT)] = { 1, 0, A(PKEY_INDEX) | A(PORT) | A(QKEY) },
		[S(RTR)] = { 1, 0, A(PKEY_INDEX) | A(QKEY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(RTR)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(RTS)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0, A(CUR_STATE) | A(QKEY) },
		[S(SQD)] = { 1, 0, A(EN_SQD_ASYNC_NOTIFY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(SQD)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0, A(CUR_STATE) | A(QKEY) },
		[S(SQD)] = { 1, 0, A(PKEY_INDEX) | A(QKEY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(SQE)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(RTS)] = { 1, 0, A(CUR_STATE) | A(QKEY) },
		[S(ERR)] = { 1, 0, 0 },
	},
	[S(ERR)] = {
		[S(RESET)] = { 1, 0, 0 },
		[S(ERR)] = { 1, 0, 0 },
	},
};

enum fw_status fw_qp_transition_type(uint32_t type, uint32_t cur, uint32_t next, uint32_t *req,
				     uint32_t *opt)
{
	const struct qp_trans(*t)[S(ERR) + 1] = type == FW_QPT_UD ? ud_table : qp_table;

	*req = 0;
	*opt = 0;
	if (type > FW_QPT_UD || cur > S(ERR) || next > S(ERR) || !t[cur][next].valid)
		return FW_BAD_STATE;
	*req = t[cur][next].req;
	*opt = t[cur][next].opt;
	return FW_OK;
}

enum fw_status fw_qp_transition(uint32_t cur, uint32_t next, uint32_t *req, uint32_t *opt)
{
	return fw_qp_transition_type(FW_QPT_RC, cur, next, req, opt);
}

enum fw_status fw_qp_check_mask(uint32_t cur, uint32_t mask, uint32_t qp_state,
				uint32_t cur_qp_state, uint32_t *next)
{
	return fw_qp_check_mask_type(FW_QPT_RC, cur, mask, qp_state, cur_qp_state, next);
}

enum fw_status fw_qp_check_mask_type(uint32_t type, uint32_t cur, uint32_t mask, uint32_t qp_state,
				     uint32_t cur_qp_state, uint32_t *next)
{
	uint32_t req, opt, n;
	enum fw_status st;

	if (mask & ~(uint32_t)FW_QP_ATTR_ALL)
		return FW_BAD_ATTR_MASK;
	if ((mask & A(STATE)) && qp_state > S(ERR))
		return FW_BAD_PARAM;
	if ((mask & A(CUR_STATE)) && cur_qp_state > S(ERR))
		return FW_BAD_PARAM;
	if ((mask & A(CUR_STATE)) && cur_qp_state != cur)
		return FW_BAD_STATE;
	n = (mask & A(STATE)) ? qp_state : cur;
	st = fw_qp_transition_type(type, cur, n, &req, &opt);
	if (st != FW_OK)
		return st;
	if ((mask & req) != req)
		return FW_BAD_ATTR_MASK; /* a required attribute is missing */
	if (mask & ~(req | (opt & ~(uint32_t)FW_QP_ATTR_UNSUPPORTED) | A(STATE)))
		return FW_BAD_ATTR_MASK; /* an attribute this transition does not take */
	*next = n;
	return FW_OK;
}

uint32_t fw_qpc_op(uint32_t cur, uint32_t next)
{
	if (cur == S(RESET) || next == S(RESET))
		return RNIC_CTX_OP_WRITE;
	if (cur == S(INIT) && next == S(RTR))
		return RNIC_CTX_OP_QP_RTR;
	if (cur == S(RTR) && next == S(RTS))
		return RNIC_CTX_OP_QP_RTS;
	return RNIC_CTX_OP_MODIFY;
}

/* An IPv4-mapped GID is ::ffff:a.b.c.d: bits 127:32 are 0...0ffff. */
static int dgid_is_v4_mapped(const uint32_t dgid[4])
{
	return dgid[3] == 0 && dgid[2] == 0 && dgid[1] == 0xffff;
}

void fw_qpc_encode(uint32_t w[restrict RNIC_QPC_WORDS], const struct fw_qp *restrict q, uint32_t qpn)
{
	/* zeros, then every field ORed in: the compiler keeps the words in
	 * registers (restrict), 206 instructions where rnic_ctx_set's
	 * read-modify-write of each field took about 280 */
	__builtin_memset(w, 0, RNIC_QPC_WORDS * sizeof(w[0]));
	if (q->state == S(RESET))
		return;
	RNIC_CTX_OR(w, QPC, STATE, q->state);
	RNIC_CTX_OR(w, QPC, PMTU, q->pmtu);
	RNIC_CTX_OR(w, QPC, IPV6, !dgid_is_v4_mapped(q->dgid));
	RNIC_CTX_OR(w, QPC, SGID_INDEX, q->sgid_index);
	RNIC_CTX_OR(w, QPC, DEST_QPN, q->dest_qpn);
	RNIC_CTX_OR(w, QPC, SQ_PSN, q->sq_psn);
	RNIC_CTX_OR(w, QPC, RQ_PSN, q->rq_psn);
	RNIC_CTX_OR(w, QPC, ACCESS, q->access);
	RNIC_CTX_OR(w, QPC, PD, q->pd);
	RNIC_CTX_OR(w, QPC, SEND_CQN, q->send_cqn);
	RNIC_CTX_OR(w, QPC, RECV_CQN, q->recv_cqn);
	RNIC_CTX_OR(w, QPC, SQ_LOG_SIZE, q->sq_log);
	RNIC_CTX_OR(w, QPC, RQ_LOG_SIZE, q->rq_log);
	RNIC_CTX_OR(w, QPC, RETRY_CNT, q->retry_cnt);
	RNIC_CTX_OR(w, QPC, RNR_RETRY, q->rnr_retry);
	RNIC_CTX_OR(w, QPC, TIMEOUT, q->timeout);
	RNIC_CTX_OR(w, QPC, MIN_RNR_TIMER, q->min_rnr_timer);
	RNIC_CTX_OR(w, QPC, MAX_RD_ATOMIC, q->max_rd_atomic);
	RNIC_CTX_OR(w, QPC, MAX_DEST_RD_ATOMIC, q->max_dest_rd_atomic);
	RNIC_CTX_OR(w, QPC, UDP_SPORT, rnic_rocev2_udp_sport(qpn, q->dest_qpn, q->flow_label));
	RNIC_CTX_OR(w, QPC, FLOW_LABEL, q->flow_label);
	RNIC_CTX_OR(w, QPC, PKEY, RNIC_DEFAULT_PKEY);
	RNIC_CTX_OR(w, QPC, TRAFFIC_CLASS, q->traffic_class);
	RNIC_CTX_OR(w, QPC, HOP_LIMIT, q->hop_limit ? q->hop_limit : RNIC_IPV4_DEFAULT_TTL);
	RNIC_CTX_OR(w, QPC, DST_MAC, (uint64_t)q->dmac_hi << 32 | q->dmac_lo);
	for (uint32_t i = 0; i < 4; i++)
		rnic_ctx_or(w, RNIC_QPC_DGID_LSB + 32 * i, 32, q->dgid[i]);
	RNIC_CTX_OR(w, QPC, SQ_BASE, (uint64_t)q->sq_base_hi << 32 | q->sq_base_lo);
	RNIC_CTX_OR(w, QPC, RQ_BASE, (uint64_t)q->rq_base_hi << 32 | q->rq_base_lo);
	RNIC_CTX_OR(w, QPC, SRQN, q->srqn);
	RNIC_CTX_OR(w, QPC, UD, q->type == FW_QPT_UD);
	RNIC_CTX_OR(w, QPC, QKEY, q->qkey);
}
