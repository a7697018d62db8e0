/* OpenRNIC firmware core: the commands. Each handler checks every argument
 * before its first side effect (table change or register write), so a
 * command that fails has changed nothing; a failed context write undoes the
 * handler's allocations. Inputs and outputs are the cmd_* records of
 * docs/formats.toml. */
#include "core/bitmap.h"
#include "core/ctx.h"
#include "core/fw.h"
#include "hal/mmio.h"
#include "rnic/roce.h"

#define IN(rec, f) RNIC_CTX_GET(in, CMD_##rec##_IN, f)
#define OUT(rec, f, v) RNIC_CTX_SET(out, CMD_##rec##_OUT, f, (v))

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

void fw_init(struct fw *fw, const struct fw_caps *dev)
{
	/* Everything up to the entry tables (struct fw says why they are left
	 * as the RAM holds them): the bitmaps, hints and counters. */
	__builtin_memset(fw, 0, offsetof(struct fw, pd_refcnt));
	fw->caps.num_qps = min_u32(dev->num_qps, FW_MAX_QPS);
	fw->caps.num_cqs = min_u32(dev->num_cqs, FW_MAX_CQS);
	fw->caps.num_mrs = min_u32(dev->num_mrs, FW_MAX_MRS);
	fw->caps.num_mtt = min_u32(dev->num_mtt, FW_MAX_MTT);
	fw->caps.num_pds = min_u32(dev->num_pds, FW_MAX_PDS);
	fw->caps.num_srqs = min_u32(dev->num_srqs, FW_MAX_SRQS);
	fw->caps.num_ahs = min_u32(dev->num_ahs, FW_MAX_AHS);
	fw->caps.num_mcgs = dev->num_mcgs == FW_MAX_MCGS ? FW_MAX_MCGS : 0;
}

uint32_t fw_mkey_next(struct fw *fw, uint32_t idx)
{
	uint32_t key;

	if (!fw_bit_test(fw->mr_seen, idx)) {
		fw_bit_set(fw->mr_seen, idx);
		fw->mr[idx].tag = 0;
	}
	/* the all-ones key is INVALID_LKEY: skip it */
	do {
		fw->mr[idx].tag++;
		key = idx << RNIC_MKEY_TAG_BITS | fw->mr[idx].tag;
	} while (key == RNIC_INVALID_LKEY);
	return key;
}

/* ---------------------------------------------------------------- handles */

/* PD 0, CQN 0, MPT index 0, AH 0 and QPN 0 are never handed out, so that a
 * zeroed key or context never names a live object; QPN 1 only to the GSI
 * QP (CREATE_QP with QP_TYPE_GSI). */
FW_MUST_CHECK static enum fw_status pd_check(const struct fw *fw, uint64_t pd)
{
	if (pd == 0 || pd >= fw->caps.num_pds || !fw_bit_test(fw->pd_used, (uint32_t)pd))
		return FW_BAD_HANDLE;
	return FW_OK;
}

FW_MUST_CHECK static enum fw_status cq_check(const struct fw *fw, uint64_t cqn)
{
	if (cqn == 0 || cqn >= fw->caps.num_cqs || !fw_bit_test(fw->cq_used, (uint32_t)cqn))
		return FW_BAD_HANDLE;
	return FW_OK;
}

FW_MUST_CHECK static enum fw_status qp_check(const struct fw *fw, uint64_t qpn, uint64_t pd)
{
	if (qpn == 0 || qpn >= fw->caps.num_qps || !fw_bit_test(fw->qp_used, (uint32_t)qpn))
		return FW_BAD_HANDLE;
	if (fw->qp[qpn].pd != pd)
		return FW_PD_MISMATCH;
	return FW_OK;
}

FW_MUST_CHECK static enum fw_status mr_check(const struct fw *fw, uint64_t key, uint64_t pd,
					     uint32_t *idx)
{
	uint32_t i = (uint32_t)(key >> RNIC_MKEY_TAG_BITS);

	if (i == 0 || i >= fw->caps.num_mrs || !fw_bit_test(fw->mr_used, i) ||
	    fw_bit_test(fw->mw, i) || fw->mr[i].tag != (key & ((1u << RNIC_MKEY_TAG_BITS) - 1)))
		return FW_BAD_HANDLE;
	if (fw->mr[i].pd != pd)
		return FW_PD_MISMATCH;
	*idx = i;
	return FW_OK;
}

static struct fw_pending_mr *pending_find(struct fw *fw, uint32_t mr_index)
{
	for (uint32_t i = 0; i < FW_MAX_PENDING_MRS; i++)
		if (fw->pending[i].mr_index == mr_index)
			return &fw->pending[i];
	return NULL;
}

/* ---------------------------------------------------------------- device, PD */

static enum fw_status cmd_query_device(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	const struct fw_caps *c = &fw->caps;

	(void)in;
	OUT(QUERY_DEVICE, FW_VERSION, RNIC_FW_VERSION);
	OUT(QUERY_DEVICE, MAX_QP, c->num_qps > 2 ? c->num_qps - 2 : 0);
	OUT(QUERY_DEVICE, MAX_CQ, c->num_cqs > 1 ? c->num_cqs - 1 : 0);
	OUT(QUERY_DEVICE, MAX_MR, c->num_mrs > 1 ? c->num_mrs - 1 : 0);
	OUT(QUERY_DEVICE, MAX_PD, c->num_pds > 1 ? c->num_pds - 1 : 0);
	OUT(QUERY_DEVICE, MAX_MTT, c->num_mtt);
	OUT(QUERY_DEVICE, MAX_QP_WR, 1u << RNIC_CMD_MAX_LOG_WR);
	OUT(QUERY_DEVICE, MAX_CQE, 1u << RNIC_CMD_MAX_LOG_CQE);
	OUT(QUERY_DEVICE, MAX_SEND_SGE, RNIC_MAX_SEND_SGE);
	OUT(QUERY_DEVICE, MAX_RECV_SGE, RNIC_MAX_RECV_SGE);
	OUT(QUERY_DEVICE, MAX_MTU, RNIC_IB_MTU_4096);
	OUT(QUERY_DEVICE, MAX_RD_ATOMIC, RNIC_MAX_RD_ATOMIC);
	OUT(QUERY_DEVICE, MAX_INLINE_DATA, RNIC_MAX_INLINE_BYTES);
	OUT(QUERY_DEVICE, MAX_SRQ, c->num_srqs > 1 ? c->num_srqs - 1 : 0);
	OUT(QUERY_DEVICE, MAX_SRQ_WR, 1u << RNIC_CMD_MAX_LOG_SRQ_WR);
	OUT(QUERY_DEVICE, MAX_SRQ_SGE, RNIC_MAX_RECV_SGE);
	OUT(QUERY_DEVICE, MAX_AH, c->num_ahs > 1 ? c->num_ahs - 1 : 0);
	OUT(QUERY_DEVICE, MAX_MW, c->num_mrs > 1 ? c->num_mrs - 1 : 0);
	OUT(QUERY_DEVICE, MAX_MCAST_GRP, c->num_mcgs);
	OUT(QUERY_DEVICE, MAX_MCAST_QP_ATTACH, c->num_mcgs ? RNIC_MCAST_GROUP_QPS : 0);
	OUT(QUERY_DEVICE, MAX_TOTAL_MCAST_QP_ATTACH, c->num_mcgs * RNIC_MCAST_GROUP_QPS);
	return FW_OK;
}

static enum fw_status cmd_alloc_pd(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	int32_t pd = fw_bit_find_clear(fw->pd_used, 1, fw->caps.num_pds, fw->pd_hint);

	(void)in;
	if (pd < 0)
		return FW_NO_RESOURCES;
	fw_bit_set(fw->pd_used, (uint32_t)pd);
	fw->pd_refcnt[pd] = 0;
	fw->pd_hint = (uint32_t)pd + 1;
	OUT(ALLOC_PD, PD, (uint32_t)pd);
	return FW_OK;
}

static enum fw_status cmd_dealloc_pd(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(DEALLOC_PD, PD);
	enum fw_status st = pd_check(fw, pd);

	(void)out;
	if (st != FW_OK)
		return st;
	if (fw->pd_refcnt[pd])
		return FW_BUSY;
	fw_bit_clear(fw->pd_used, (uint32_t)pd);
	return FW_OK;
}

/* ---------------------------------------------------------------- CQ */

static enum fw_status cmd_create_cq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t log_size = IN(CREATE_CQ, LOG_SIZE), base = IN(CREATE_CQ, BASE);
	uint32_t w[RNIC_CQC_WORDS] = { 0 };
	enum fw_status st;
	int32_t cqn;

	if (log_size > RNIC_CMD_MAX_LOG_CQE || base % RNIC_CQE_BYTES)
		return FW_BAD_PARAM;
	cqn = fw_bit_find_clear(fw->cq_used, 1, fw->caps.num_cqs, fw->cq_hint);
	if (cqn < 0)
		return FW_NO_RESOURCES;
	RNIC_CTX_SET(w, CQC, VALID, 1);
	RNIC_CTX_SET(w, CQC, LOG_SIZE, log_size);
	RNIC_CTX_SET(w, CQC, BASE, base);
	st = fw_ctx_write(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, (uint32_t)cqn, w, RNIC_CQC_WORDS);
	if (st != FW_OK)
		return st;
	fw_bit_set(fw->cq_used, (uint32_t)cqn);
	fw_bit_clear(fw->cq_err, (uint32_t)cqn);
	fw->cq_refcnt[cqn] = 0;
	fw->cq_hint = (uint32_t)cqn + 1;
	OUT(CREATE_CQ, CQN, (uint32_t)cqn);
	return FW_OK;
}

static enum fw_status cmd_destroy_cq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t cqn = IN(DESTROY_CQ, CQN);
	uint32_t w[RNIC_CQC_WORDS] = { 0 };
	enum fw_status st = cq_check(fw, cqn);

	(void)out;
	if (st != FW_OK)
		return st;
	if (fw->cq_refcnt[cqn])
		return FW_BUSY;
	st = fw_ctx_write(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, (uint32_t)cqn, w, RNIC_CQC_WORDS);
	if (st != FW_OK)
		return st;
	fw_bit_clear(fw->cq_used, (uint32_t)cqn);
	return FW_OK;
}

/* ---------------------------------------------------------------- QP */

static enum fw_status cmd_create_qp(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(CREATE_QP, PD), scq = IN(CREATE_QP, SEND_CQN), rcq = IN(CREATE_QP, RECV_CQN);
	uint64_t sq_log = IN(CREATE_QP, SQ_LOG_SIZE), rq_log = IN(CREATE_QP, RQ_LOG_SIZE);
	uint64_t sq_base = IN(CREATE_QP, SQ_BASE), rq_base = IN(CREATE_QP, RQ_BASE);
	uint64_t srqn = IN(CREATE_QP, SRQN);
	uint64_t type = IN(CREATE_QP, QP_TYPE);
	enum fw_status st;
	struct fw_qp *q;
	int32_t qpn;

	if ((type != RNIC_QP_TYPE_RC && type != RNIC_QP_TYPE_UD && type != RNIC_QP_TYPE_GSI) ||
	    sq_log > RNIC_CMD_MAX_LOG_WR ||
	    rq_log > RNIC_CMD_MAX_LOG_WR || sq_base % RNIC_WQE_BYTES ||
	    rq_base % RNIC_RECV_WQE_BYTES)
		return FW_BAD_PARAM;
	st = pd_check(fw, pd);
	if (st == FW_OK)
		st = cq_check(fw, scq);
	if (st == FW_OK)
		st = cq_check(fw, rcq);
	/* a QP on an SRQ has no RQ ring of its own; the SRQ may be of any PD.
	 * The data path takes SRQ WQEs for RC receives only: a UD or GSI QP
	 * on an SRQ is refused rather than served wrongly. */
	if (st == FW_OK && srqn) {
		st = fw_srq_live(fw, srqn) ? FW_OK : FW_BAD_HANDLE;
		if (st == FW_OK && (rq_log || rq_base || type != RNIC_QP_TYPE_RC))
			st = FW_BAD_PARAM;
	}
	if (st != FW_OK)
		return st;
	if (type == RNIC_QP_TYPE_GSI) {
		/* QP1: one per device, never handed out otherwise */
		if (fw->caps.num_qps <= RNIC_GSI_QPN || fw_bit_test(fw->qp_used, RNIC_GSI_QPN))
			return FW_NO_RESOURCES;
		qpn = RNIC_GSI_QPN;
	} else {
		qpn = fw_bit_find_clear(fw->qp_used, 2, fw->caps.num_qps, fw->qp_hint);
		if (qpn < 0)
			return FW_NO_RESOURCES;
	}
	q = &fw->qp[qpn];
	*q = (struct fw_qp){ 0 };
	q->state = RNIC_QPS_RESET;
	q->type = type == RNIC_QP_TYPE_RC ? FW_QPT_RC : FW_QPT_UD;
	q->pd = (uint16_t)pd;
	q->send_cqn = (uint16_t)scq;
	q->recv_cqn = (uint16_t)rcq;
	q->sq_log = (uint32_t)sq_log;
	q->rq_log = (uint32_t)rq_log;
	q->sq_base_lo = (uint32_t)sq_base;
	q->sq_base_hi = (uint32_t)(sq_base >> 32);
	q->rq_base_lo = (uint32_t)rq_base;
	q->rq_base_hi = (uint32_t)(rq_base >> 32);
	q->srqn = (uint16_t)srqn;
	if (srqn)
		fw->srq[srqn].qp_count++;
	fw_bit_set(fw->qp_used, (uint32_t)qpn);
	fw->pd_refcnt[pd]++;
	fw->cq_refcnt[scq]++;
	fw->cq_refcnt[rcq]++;
	if (qpn != RNIC_GSI_QPN)
		fw->qp_hint = (uint32_t)qpn + 1;
	OUT(CREATE_QP, QPN, (uint32_t)qpn);
	return FW_OK;
}

/* Range checks of the attributes named in mask (as ibv_modify_qp and the
 * host library did them). */
FW_MUST_CHECK static enum fw_status qp_attr_check(const uint32_t *in, uint32_t mask)
{
#define M(x) (mask & RNIC_QP_ATTR_##x)
#define V(f) IN(MODIFY_QP, f)
	if (M(ACCESS_FLAGS) && (V(QP_ACCESS_FLAGS) & ~(uint64_t)FW_ACCESS_ALL))
		return FW_BAD_PARAM;
	if (M(PKEY_INDEX) && V(PKEY_INDEX) != 0)
		return FW_BAD_PARAM;
	if (M(PORT) && V(PORT_NUM) != 1)
		return FW_BAD_PARAM;
	if (M(AV) && (V(IS_GLOBAL) != 1 || V(SGID_INDEX) >= RNIC_GID_TABLE_SIZE ||
		      V(FLOW_LABEL) >> RNIC_QPC_FLOW_LABEL_W))
		return FW_BAD_PARAM;
	if (M(PATH_MTU) && (V(PATH_MTU) < RNIC_IB_MTU_256 || V(PATH_MTU) > RNIC_IB_MTU_4096))
		return FW_BAD_PARAM;
	if (M(DEST_QPN) && V(DEST_QP_NUM) >> RNIC_QPN_BITS)
		return FW_BAD_PARAM;
	if (M(RQ_PSN) && V(RQ_PSN) >> RNIC_PSN_BITS)
		return FW_BAD_PARAM;
	if (M(SQ_PSN) && V(SQ_PSN) >> RNIC_PSN_BITS)
		return FW_BAD_PARAM;
	if (M(TIMEOUT) && V(TIMEOUT) >> RNIC_QPC_TIMEOUT_W)
		return FW_BAD_PARAM;
	if (M(MIN_RNR_TIMER) && V(MIN_RNR_TIMER) >> RNIC_QPC_MIN_RNR_TIMER_W)
		return FW_BAD_PARAM;
	if (M(RETRY_CNT) && V(RETRY_CNT) >> RNIC_QPC_RETRY_CNT_W)
		return FW_BAD_PARAM;
	if (M(RNR_RETRY) && V(RNR_RETRY) >> RNIC_QPC_RNR_RETRY_W)
		return FW_BAD_PARAM;
	if (M(MAX_QP_RD_ATOMIC) && V(MAX_RD_ATOMIC) > RNIC_MAX_RD_ATOMIC)
		return FW_BAD_PARAM;
	if (M(MAX_DEST_RD_ATOMIC) && V(MAX_DEST_RD_ATOMIC) > RNIC_MAX_RD_ATOMIC)
		return FW_BAD_PARAM;
	return FW_OK;
}

/* Copy the attributes named in mask into q. */
static void qp_attr_apply(struct fw_qp *q, const uint32_t *in, uint32_t mask)
{
	if (M(ACCESS_FLAGS))
		q->access = (uint32_t)V(QP_ACCESS_FLAGS);
	if (M(AV)) {
		uint64_t dmac = V(DMAC);

		q->sgid_index = (uint32_t)V(SGID_INDEX);
		q->flow_label = (uint32_t)V(FLOW_LABEL);
		q->hop_limit = (uint8_t)V(HOP_LIMIT);
		q->traffic_class = (uint8_t)V(TRAFFIC_CLASS);
		q->dmac_lo = (uint32_t)dmac;
		q->dmac_hi = (uint16_t)(dmac >> 32);
		for (uint32_t i = 0; i < 4; i++)
			q->dgid[i] = (uint32_t)rnic_ctx_get(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB + 32 * i, 32);
	}
	if (M(PATH_MTU))
		q->pmtu = (uint32_t)V(PATH_MTU);
	if (M(DEST_QPN))
		q->dest_qpn = (uint32_t)V(DEST_QP_NUM);
	if (M(RQ_PSN))
		q->rq_psn = (uint32_t)V(RQ_PSN);
	if (M(SQ_PSN))
		q->sq_psn = (uint32_t)V(SQ_PSN);
	if (M(TIMEOUT))
		q->timeout = (uint32_t)V(TIMEOUT);
	if (M(MIN_RNR_TIMER))
		q->min_rnr_timer = (uint32_t)V(MIN_RNR_TIMER);
	if (M(RETRY_CNT))
		q->retry_cnt = (uint32_t)V(RETRY_CNT);
	if (M(RNR_RETRY))
		q->rnr_retry = (uint32_t)V(RNR_RETRY);
	if (M(MAX_QP_RD_ATOMIC))
		q->max_rd_atomic = (uint32_t)V(MAX_RD_ATOMIC);
	if (M(MAX_DEST_RD_ATOMIC))
		q->max_dest_rd_atomic = (uint32_t)V(MAX_DEST_RD_ATOMIC);
	if (M(QKEY))
		q->qkey = (uint32_t)V(QKEY);
#undef M
#undef V
}

static enum fw_status cmd_modify_qp(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t qpn = IN(MODIFY_QP, QPN);
	uint32_t mask = (uint32_t)IN(MODIFY_QP, ATTR_MASK), w[RNIC_QPC_WORDS], cur, next;
	struct fw_qp q;
	enum fw_status st;

	(void)out;
	st = qp_check(fw, qpn, IN(MODIFY_QP, PD));
	if (st != FW_OK)
		return st;
	cur = fw->qp[qpn].state;
	st = fw_qp_check_mask_type(fw->qp[qpn].type, cur, mask, (uint32_t)IN(MODIFY_QP, QP_STATE),
				   (uint32_t)IN(MODIFY_QP, CUR_QP_STATE), &next);
	if (st != FW_OK)
		return st;
	st = qp_attr_check(in, mask);
	if (st != FW_OK)
		return st;
	q = fw->qp[qpn];
	if (next == RNIC_QPS_RESET) {
		/* Back to the creation parameters: every attribute cleared. */
		struct fw_qp r = { 0 };

		r.pd = q.pd;
		r.send_cqn = q.send_cqn;
		r.recv_cqn = q.recv_cqn;
		r.sq_log = q.sq_log;
		r.rq_log = q.rq_log;
		r.sq_base_lo = q.sq_base_lo;
		r.sq_base_hi = q.sq_base_hi;
		r.rq_base_lo = q.rq_base_lo;
		r.rq_base_hi = q.rq_base_hi;
		r.srqn = q.srqn;
		r.type = q.type;
		q = r;
	} else {
		qp_attr_apply(&q, in, mask);
		if (q.type == FW_QPT_UD) {
			/* UD has no path: its MTU is the port's (PORT_UD_MTU) */
			uint32_t mtu = fw_mmio_read32(RNIC_REG_PORT_UD_MTU);

			q.pmtu = mtu < RNIC_IB_MTU_256 ? RNIC_IB_MTU_256 :
				 mtu > RNIC_IB_MTU_4096 ? RNIC_IB_MTU_4096 : mtu;
		}
	}
	q.state = next;
	/* The device knows the QP from INIT on: every modify but
	 * RESET -> RESET writes the whole QPC. */
	if (cur != RNIC_QPS_RESET || next != RNIC_QPS_RESET) {
		fw_qpc_encode(w, &q, (uint32_t)qpn);
		st = fw_ctx_write(RNIC_CTX_TABLE_QPC, fw_qpc_op(cur, next), (uint32_t)qpn, w,
				  RNIC_QPC_WORDS);
		if (st != FW_OK)
			return st;
	}
	fw->qp[qpn] = q;
	return FW_OK;
}

static enum fw_status cmd_query_qp(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t qpn = IN(QUERY_QP, QPN);
	enum fw_status st = qp_check(fw, qpn, IN(QUERY_QP, PD));
	const struct fw_qp *q;

	if (st != FW_OK)
		return st;
	q = &fw->qp[qpn];
	OUT(QUERY_QP, QP_STATE, q->state);
	OUT(QUERY_QP, PATH_MTU, q->pmtu);
	OUT(QUERY_QP, QP_ACCESS_FLAGS, q->access);
	OUT(QUERY_QP, SGID_INDEX, q->sgid_index);
	OUT(QUERY_QP, PKEY_INDEX, 0);
	OUT(QUERY_QP, PORT_NUM, 1);
	OUT(QUERY_QP, IS_GLOBAL, 1);
	OUT(QUERY_QP, TIMEOUT, q->timeout);
	OUT(QUERY_QP, RETRY_CNT, q->retry_cnt);
	OUT(QUERY_QP, RNR_RETRY, q->rnr_retry);
	OUT(QUERY_QP, MIN_RNR_TIMER, q->min_rnr_timer);
	OUT(QUERY_QP, MAX_RD_ATOMIC, q->max_rd_atomic);
	OUT(QUERY_QP, MAX_DEST_RD_ATOMIC, q->max_dest_rd_atomic);
	OUT(QUERY_QP, HOP_LIMIT, q->hop_limit);
	OUT(QUERY_QP, TRAFFIC_CLASS, q->traffic_class);
	OUT(QUERY_QP, QP_TYPE, q->type == FW_QPT_UD ? RNIC_QP_TYPE_UD : RNIC_QP_TYPE_RC);
	OUT(QUERY_QP, QKEY, q->qkey);
	OUT(QUERY_QP, SQ_LOG_SIZE, q->sq_log);
	OUT(QUERY_QP, RQ_LOG_SIZE, q->rq_log);
	OUT(QUERY_QP, SEND_CQN, q->send_cqn);
	OUT(QUERY_QP, RECV_CQN, q->recv_cqn);
	OUT(QUERY_QP, DEST_QP_NUM, q->dest_qpn);
	OUT(QUERY_QP, RQ_PSN, q->rq_psn);
	OUT(QUERY_QP, SQ_PSN, q->sq_psn);
	OUT(QUERY_QP, FLOW_LABEL, q->flow_label);
	OUT(QUERY_QP, DMAC, (uint64_t)q->dmac_hi << 32 | q->dmac_lo);
	for (uint32_t i = 0; i < 4; i++)
		rnic_ctx_set(out, RNIC_CMD_QUERY_QP_OUT_DGID_LSB + 32 * i, 32, q->dgid[i]);
	OUT(QUERY_QP, SQ_BASE, (uint64_t)q->sq_base_hi << 32 | q->sq_base_lo);
	OUT(QUERY_QP, RQ_BASE, (uint64_t)q->rq_base_hi << 32 | q->rq_base_lo);
	OUT(QUERY_QP, SRQN, q->srqn);
	return FW_OK;
}

static enum fw_status cmd_destroy_qp(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t qpn = IN(DESTROY_QP, QPN);
	uint32_t w[RNIC_QPC_WORDS] = { 0 };
	enum fw_status st = qp_check(fw, qpn, IN(DESTROY_QP, PD));
	struct fw_qp *q;

	(void)out;
	if (st != FW_OK)
		return st;
	q = &fw->qp[qpn];
	/* no multicast copy for it once it is gone (only UD QPs are ever
	 * attached: the scan of every group is not run for the others) */
	if (q->type == FW_QPT_UD) {
		st = fw_mcast_detach_qp(fw, (uint32_t)qpn);
		if (st != FW_OK)
			return st;
	}
	if (q->state != RNIC_QPS_RESET) {
		/* The device knows this QP: stop it before its rings go away. */
		st = fw_ctx_write(RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, (uint32_t)qpn, w,
				  RNIC_QPC_WORDS);
		if (st != FW_OK)
			return st;
	}
	fw->pd_refcnt[q->pd]--;
	fw->cq_refcnt[q->send_cqn]--;
	fw->cq_refcnt[q->recv_cqn]--;
	if (q->srqn)
		fw->srq[q->srqn].qp_count--;
	*q = (struct fw_qp){ 0 };
	fw_bit_clear(fw->qp_used, (uint32_t)qpn);
	return FW_OK;
}

/* ---------------------------------------------------------------- MR */

/* Entries in the MTT run starting at base: up to the next run's start or
 * the first free entry. */
static uint32_t mtt_run_len(const struct fw *fw, uint32_t base)
{
	/* the run ends at the next entry that is free or starts another run */
	return fw_bit_find_next(fw->mtt_start, fw->mtt_used, base + 1, fw->caps.num_mtt) - base;
}

static enum fw_status cmd_reg_mr(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(REG_MR, PD), access = IN(REG_MR, ACCESS);
	uint64_t va = IN(REG_MR, VA), len = IN(REG_MR, LENGTH), npages;
	struct fw_pending_mr *p;
	enum fw_status st;
	int32_t idx, base;
	uint32_t key;

	st = pd_check(fw, pd);
	if (st != FW_OK)
		return st;
	if (access & ~(uint64_t)(FW_ACCESS_ALL | RNIC_ACCESS_MW_BIND))
		return FW_BAD_PARAM;
	/* As ibv_reg_mr: remote write or atomic access needs local write. */
	if ((access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & RNIC_ACCESS_LOCAL_WRITE))
		return FW_BAD_PARAM;
	if (len == 0 || va + len - 1 < va)
		return FW_BAD_PARAM;
	npages = ((va + len - 1) >> RNIC_MTT_PAGE_SHIFT) - (va >> RNIC_MTT_PAGE_SHIFT) + 1;
	if (npages > fw->caps.num_mtt)
		return FW_BAD_PARAM; /* larger than max_mr_size */
	p = pending_find(fw, 0);
	idx = fw_bit_find_clear(fw->mr_used, 1, fw->caps.num_mrs, fw->mr_hint);
	base = fw_bit_find_run(fw->mtt_used, fw->caps.num_mtt, (uint32_t)npages);
	if (!p || idx < 0 || base < 0)
		return FW_NO_RESOURCES;

	/* A new tag per registration: a stale key of an earlier MR at this
	 * index no longer matches. */
	key = fw_mkey_next(fw, (uint32_t)idx);
	fw->mr[idx].pd = (uint32_t)pd;
	fw->mr[idx].mtt_base = (uint32_t)base;
	fw_bit_set(fw->mr_used, (uint32_t)idx);
	fw_bit_set_range(fw->mtt_used, (uint32_t)base, (uint32_t)npages);
	fw_bit_set(fw->mtt_start, (uint32_t)base);
	fw->pd_refcnt[pd]++;
	fw->mr_hint = (uint32_t)idx + 1;
	p->mr_index = (uint32_t)idx;
	p->written = 0;
	p->npages = (uint32_t)npages;
	p->va_lo = (uint32_t)va;
	p->va_hi = (uint32_t)(va >> 32);
	p->len_lo = (uint32_t)len;
	p->len_hi = (uint32_t)(len >> 32);
	p->access = (uint32_t)access;
	OUT(REG_MR, KEY, key);
	OUT(REG_MR, MTT_BASE, (uint32_t)base);
	OUT(REG_MR, NPAGES, (uint32_t)npages);
	return FW_OK;
}

/* The MPT record of a registered MR: its bytes are reached through its MTT
 * entries, pa names the first byte in MTT space. */
static void mpt_encode(uint32_t w[RNIC_MPT_WORDS], const struct fw_pending_mr *p, uint32_t key,
		       uint32_t pd, uint32_t mtt_base)
{
	uint64_t va = (uint64_t)p->va_hi << 32 | p->va_lo;

	for (uint32_t i = 0; i < RNIC_MPT_WORDS; i++)
		w[i] = 0;
	RNIC_CTX_SET(w, MPT, VALID, 1);
	RNIC_CTX_SET(w, MPT, ACCESS, p->access);
	RNIC_CTX_SET(w, MPT, PD, pd);
	RNIC_CTX_SET(w, MPT, KEY, key);
	RNIC_CTX_SET(w, MPT, VA, va);
	RNIC_CTX_SET(w, MPT, LENGTH, (uint64_t)p->len_hi << 32 | p->len_lo);
	RNIC_CTX_SET(w, MPT, PA, 1ull << RNIC_MPT_PA_MTT_BIT |
		     (uint64_t)mtt_base << RNIC_MTT_PAGE_SHIFT |
		     (va & ((1ull << RNIC_MTT_PAGE_SHIFT) - 1)));
}

/* Page i of a WRITE_MTT chunk. The field is whole aligned words, read as
 * such: this runs once per page of every MR. */
_Static_assert(RNIC_CMD_WRITE_MTT_IN_PAGE_LSB % 32 == 0 && RNIC_CMD_WRITE_MTT_IN_PAGE_W == 64,
	       "WRITE_MTT pages are aligned pairs of words");
_Static_assert(RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT * RNIC_MTT_WORDS <= RNIC_CTX_WORDS,
	       "a WRITE_MTT chunk is one MTT run of the context window");
static inline uint64_t mtt_in_page(const uint32_t *in, uint32_t i)
{
	const uint32_t *p = in + RNIC_CMD_WRITE_MTT_IN_PAGE_LSB / 32 + 2 * i;

	return (uint64_t)p[1] << 32 | p[0];
}

static enum fw_status cmd_write_mtt(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t key = IN(WRITE_MTT, KEY), offset = IN(WRITE_MTT, OFFSET), count = IN(WRITE_MTT, COUNT);
	uint32_t idx = 0, w[RNIC_MPT_WORDS], written;
	struct fw_pending_mr *p;
	int done;
	enum fw_status st;

	_Static_assert(RNIC_MPT_WORDS >= RNIC_MTT_WORDS, "one buffer for both records");
	st = mr_check(fw, key, IN(WRITE_MTT, PD), &idx);
	if (st != FW_OK)
		return st;
	if (fw_bit_test(fw->mr_valid, idx))
		return FW_BAD_STATE; /* the page list is complete */
	p = pending_find(fw, idx);
	if (!p)
		return FW_INTERNAL;
	if (offset != p->written || count == 0 || count > RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT ||
	    count > p->npages - offset)
		return FW_BAD_PARAM;
	for (uint32_t i = 0; i < count; i++)
		if (mtt_in_page(in, i) & ((1u << RNIC_MTT_PAGE_SHIFT) - 1))
			return FW_BAD_PARAM;

	/* The page list first (one run of MTT entries: CTX_DATA holds the
	 * chunk), then the MPT entry, which makes the MR live. */
	for (uint32_t i = 0; i < count; i++) {
		w[0] = 0;
		w[1] = 0;
		RNIC_CTX_SET(w, MTT, PAGE, mtt_in_page(in, i) >> RNIC_MTT_PAGE_SHIFT);
		for (uint32_t k = 0; k < RNIC_MTT_WORDS; k++)
			fw_mmio_write32(RNIC_REG_CTX_DATA + 4 * (i * RNIC_MTT_WORDS + k), w[k]);
	}
	fw_mmio_write32(RNIC_REG_CTX_COUNT, (uint32_t)count);
	st = fw_ctx_cmd(RNIC_CTX_TABLE_MTT, RNIC_CTX_OP_MTT_RUN,
			fw->mr[idx].mtt_base + (uint32_t)offset);
	if (st != FW_OK)
		return st;
	written = p->written + (uint32_t)count;
	done = written == p->npages;
	if (done) {
		mpt_encode(w, p, (uint32_t)key, fw->mr[idx].pd, fw->mr[idx].mtt_base);
		st = fw_ctx_write(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
		if (st != FW_OK)
			return st;
		fw_bit_set(fw->mr_valid, idx);
		*p = (struct fw_pending_mr){ 0 };
	} else {
		p->written = written;
	}
	OUT(WRITE_MTT, WRITTEN, written);
	OUT(WRITE_MTT, VALID, done);
	return FW_OK;
}

static enum fw_status cmd_dereg_mr(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint32_t idx = 0, base, n, w[RNIC_MPT_WORDS] = { 0 };
	struct fw_pending_mr *p;
	enum fw_status st;

	(void)out;
	st = mr_check(fw, IN(DEREG_MR, KEY), IN(DEREG_MR, PD), &idx);
	if (st != FW_OK)
		return st;
	/* a bound window's MPT entry is a copy of part of this MR's: it must
	 * go first (IBA 10.6.7.1: deregistration fails while windows are bound) */
	if (fw_mr_has_windows(fw, idx))
		return FW_BUSY;
	/* Invalidate the entry before its MTT entries may be reused. An MR
	 * whose page list is incomplete never had its entry written (and the
	 * index's previous MR invalidated it): nothing to undo on the device,
	 * so a registration whose WRITE_MTT failed can always be taken back. */
	if (fw_bit_test(fw->mr_valid, idx)) {
		st = fw_ctx_write(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
		if (st != FW_OK)
			return st;
	}
	base = fw->mr[idx].mtt_base;
	n = mtt_run_len(fw, base);
	fw_bit_clear_range(fw->mtt_used, base, n);
	fw_bit_clear(fw->mtt_start, base);
	p = pending_find(fw, idx);
	if (p)
		*p = (struct fw_pending_mr){ 0 };
	fw->pd_refcnt[fw->mr[idx].pd]--;
	fw->mr[idx].pd = 0;
	fw->mr[idx].mtt_base = 0;
	fw_bit_clear(fw->mr_valid, idx);
	fw_bit_clear(fw->mr_used, idx);
	return FW_OK;
}

/* ---------------------------------------------------------------- counters */

#define FW_NUM_COUNTERS ((RNIC_BLK_STAT_END - RNIC_REG_STAT_TX_FRAMES) / 4)

static enum fw_status cmd_query_counter(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t first = IN(QUERY_COUNTER, FIRST), count = IN(QUERY_COUNTER, COUNT);

	(void)fw;
	if (count == 0 || count > RNIC_CMD_QUERY_COUNTER_OUT_VALUE_COUNT ||
	    first >= FW_NUM_COUNTERS || count > FW_NUM_COUNTERS - first)
		return FW_BAD_PARAM;
	for (uint32_t i = 0; i < count; i++)
		RNIC_CTX_SET_I(out, CMD_QUERY_COUNTER_OUT, VALUE, i,
			       fw_mmio_read32(RNIC_REG_STAT_TX_FRAMES + 4 * ((uint32_t)first + i)));
	return FW_OK;
}

/* ---------------------------------------------------------------- AH */

/* An IPv4-mapped GID is ::ffff:a.b.c.d (dgid[0] holds bits 31:0). */
static int ah_dgid_v4_mapped(const uint32_t dgid[4])
{
	return dgid[3] == 0 && dgid[2] == 0 && dgid[1] == 0xffff;
}

static enum fw_status cmd_create_ah(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(CREATE_AH, PD), sgid = IN(CREATE_AH, SGID_INDEX);
	uint64_t fl = IN(CREATE_AH, FLOW_LABEL), hop = IN(CREATE_AH, HOP_LIMIT);
	uint32_t w[RNIC_AH_WORDS] = { 0 }, dgid[4];
	enum fw_status st = pd_check(fw, pd);
	int32_t ah;

	if (st != FW_OK)
		return st;
	if (sgid >= RNIC_GID_TABLE_SIZE || fl >> RNIC_AH_FLOW_LABEL_W)
		return FW_BAD_PARAM;
	ah = fw_bit_find_clear(fw->ah_used, 1, fw->caps.num_ahs, fw->ah_hint);
	if (ah < 0)
		return FW_NO_RESOURCES;
	for (uint32_t i = 0; i < 4; i++)
		dgid[i] = (uint32_t)rnic_ctx_get(in, RNIC_CMD_CREATE_AH_IN_DGID_LSB + 32 * i, 32);
	RNIC_CTX_SET(w, AH, VALID, 1);
	RNIC_CTX_SET(w, AH, IPV6, !ah_dgid_v4_mapped(dgid));
	RNIC_CTX_SET(w, AH, SGID_INDEX, sgid);
	RNIC_CTX_SET(w, AH, PD, pd);
	RNIC_CTX_SET(w, AH, TRAFFIC_CLASS, IN(CREATE_AH, TRAFFIC_CLASS));
	RNIC_CTX_SET(w, AH, HOP_LIMIT, hop ? hop : RNIC_IPV4_DEFAULT_TTL);
	/* no QP pair to derive entropy from: the flow label alone, as the
	 * source port of an AH's every datagram */
	RNIC_CTX_SET(w, AH, UDP_SPORT, rnic_rocev2_udp_sport(0, 0, (uint32_t)fl));
	RNIC_CTX_SET(w, AH, FLOW_LABEL, fl);
	RNIC_CTX_SET(w, AH, DST_MAC, IN(CREATE_AH, DMAC));
	for (uint32_t i = 0; i < 4; i++)
		rnic_ctx_set(w, RNIC_AH_DGID_LSB + 32 * i, 32, dgid[i]);
	st = fw_ctx_write(RNIC_CTX_TABLE_AH, RNIC_CTX_OP_WRITE, (uint32_t)ah, w, RNIC_AH_WORDS);
	if (st != FW_OK)
		return st;
	fw_bit_set(fw->ah_used, (uint32_t)ah);
	fw->ah_pd[ah] = (uint16_t)pd;
	fw->pd_refcnt[pd]++;
	fw->ah_hint = (uint32_t)ah + 1;
	OUT(CREATE_AH, AH, (uint32_t)ah);
	return FW_OK;
}

static enum fw_status cmd_destroy_ah(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t ah = IN(DESTROY_AH, AH), pd = IN(DESTROY_AH, PD);
	uint32_t w[RNIC_AH_WORDS] = { 0 };
	enum fw_status st;

	(void)out;
	if (ah == 0 || ah >= fw->caps.num_ahs || !fw_bit_test(fw->ah_used, (uint32_t)ah))
		return FW_BAD_HANDLE;
	if (fw->ah_pd[ah] != pd)
		return FW_PD_MISMATCH;
	/* invalid from now on: a send naming it fails (LOC_QP_OP_ERR) */
	st = fw_ctx_write(RNIC_CTX_TABLE_AH, RNIC_CTX_OP_WRITE, (uint32_t)ah, w, RNIC_AH_WORDS);
	if (st != FW_OK)
		return st;
	fw_bit_clear(fw->ah_used, (uint32_t)ah);
	fw->pd_refcnt[pd]--;
	return FW_OK;
}

/* ---------------------------------------------------------------- dispatch */

#define CMD(op, in_words, out_words, fn) \
	[RNIC_CMD_OP_##op] = { (in_words), (out_words), (fn) }

static const struct fw_cmd cmds[] = {
	CMD(QUERY_DEVICE, 0, RNIC_CMD_QUERY_DEVICE_OUT_WORDS, cmd_query_device),
	CMD(ALLOC_PD, 0, RNIC_CMD_ALLOC_PD_OUT_WORDS, cmd_alloc_pd),
	CMD(DEALLOC_PD, RNIC_CMD_DEALLOC_PD_IN_WORDS, 0, cmd_dealloc_pd),
	CMD(CREATE_CQ, RNIC_CMD_CREATE_CQ_IN_WORDS, RNIC_CMD_CREATE_CQ_OUT_WORDS, cmd_create_cq),
	CMD(DESTROY_CQ, RNIC_CMD_DESTROY_CQ_IN_WORDS, 0, cmd_destroy_cq),
	CMD(CREATE_QP, RNIC_CMD_CREATE_QP_IN_WORDS, RNIC_CMD_CREATE_QP_OUT_WORDS, cmd_create_qp),
	CMD(MODIFY_QP, RNIC_CMD_MODIFY_QP_IN_WORDS, 0, cmd_modify_qp),
	CMD(QUERY_QP, RNIC_CMD_QUERY_QP_IN_WORDS, RNIC_CMD_QUERY_QP_OUT_WORDS, cmd_query_qp),
	CMD(DESTROY_QP, RNIC_CMD_DESTROY_QP_IN_WORDS, 0, cmd_destroy_qp),
	CMD(REG_MR, RNIC_CMD_REG_MR_IN_WORDS, RNIC_CMD_REG_MR_OUT_WORDS, cmd_reg_mr),
	CMD(WRITE_MTT, RNIC_CMD_WRITE_MTT_IN_WORDS, RNIC_CMD_WRITE_MTT_OUT_WORDS, cmd_write_mtt),
	CMD(DEREG_MR, RNIC_CMD_DEREG_MR_IN_WORDS, 0, cmd_dereg_mr),
	CMD(QUERY_COUNTER, RNIC_CMD_QUERY_COUNTER_IN_WORDS, RNIC_CMD_QUERY_COUNTER_OUT_WORDS,
	    cmd_query_counter),
	/* shared receive queues (core/srq.c) */
	CMD(CREATE_SRQ, RNIC_CMD_CREATE_SRQ_IN_WORDS, RNIC_CMD_CREATE_SRQ_OUT_WORDS, fw_cmd_create_srq),
	CMD(MODIFY_SRQ, RNIC_CMD_MODIFY_SRQ_IN_WORDS, 0, fw_cmd_modify_srq),
	CMD(QUERY_SRQ, RNIC_CMD_QUERY_SRQ_IN_WORDS, RNIC_CMD_QUERY_SRQ_OUT_WORDS, fw_cmd_query_srq),
	CMD(DESTROY_SRQ, RNIC_CMD_DESTROY_SRQ_IN_WORDS, 0, fw_cmd_destroy_srq),
	CMD(CREATE_AH, RNIC_CMD_CREATE_AH_IN_WORDS, RNIC_CMD_CREATE_AH_OUT_WORDS, cmd_create_ah),
	CMD(DESTROY_AH, RNIC_CMD_DESTROY_AH_IN_WORDS, 0, cmd_destroy_ah),
	/* memory windows (core/mw.c) */
	CMD(ALLOC_MW, RNIC_CMD_ALLOC_MW_IN_WORDS, RNIC_CMD_ALLOC_MW_OUT_WORDS, fw_cmd_alloc_mw),
	CMD(DEALLOC_MW, RNIC_CMD_DEALLOC_MW_IN_WORDS, 0, fw_cmd_dealloc_mw),
	/* multicast (core/mcast.c) */
	CMD(ATTACH_MCAST, RNIC_CMD_MCAST_IN_WORDS, 0, fw_cmd_attach_mcast),
	CMD(DETACH_MCAST, RNIC_CMD_MCAST_IN_WORDS, 0, fw_cmd_detach_mcast),
};

const struct fw_cmd *fw_cmd_find(uint32_t opcode)
{
	if (opcode >= sizeof(cmds) / sizeof(cmds[0]) || !cmds[opcode].run)
		return NULL;
	return &cmds[opcode];
}

enum fw_status fw_cmd_run(struct fw *fw, uint32_t opcode, const uint32_t *in, uint32_t *out)
{
	const struct fw_cmd *c = fw_cmd_find(opcode);

	if (!c)
		return FW_BAD_OPCODE;
	/* the output record only: the rest of out[] is never written out */
	for (uint32_t i = 0; i < c->out_words; i++)
		out[i] = 0;
	return c->run(fw, in, out);
}
