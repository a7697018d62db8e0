/* OpenRNIC host library: queue pairs. Create, modify, query and destroy
 * are firmware commands (the firmware owns the QP state machine and the
 * QPC); post_send and post_recv write the rings and ring the doorbells. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/roce.h"
#include "priv.h"
#include "wire.h"

static uint32_t log2_ceil(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

struct rnic_qp *rnic_create_qp(struct rnic_pd *pd, struct rnic_qp_init_attr *ia)
{
	uint32_t in[RNIC_CMD_CREATE_QP_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_QP_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_qp_priv *q;
	uint32_t qpn;
	int err;

	/* A QP on an SRQ has no RQ of its own (max_recv_wr 0); only RC QPs take
	 * their receive WQEs from one (the firmware refuses the others too). */
	if (pd && ia && ia->srq && (ia->srq->context != pd->context || ia->cap.max_recv_wr ||
				    ia->qp_type != RNIC_QPT_RC)) {
		errno = EINVAL;
		return NULL;
	}
	if (!pd || !ia ||
	    (ia->qp_type != RNIC_QPT_RC && ia->qp_type != RNIC_QPT_UD && ia->qp_type != RNIC_QPT_GSI) ||
	    !ia->send_cq || !ia->recv_cq ||
	    ia->cap.max_send_wr < 1 || ia->cap.max_send_wr > RNIC_LIB_MAX_QP_WR ||
	    ia->cap.max_send_sge > RNIC_MAX_SEND_SGE ||
	    ia->cap.max_inline_data > RNIC_MAX_INLINE_BYTES ||
	    ia->cap.max_recv_wr > RNIC_LIB_MAX_QP_WR || ia->cap.max_recv_sge > RNIC_MAX_RECV_SGE ||
	    ia->send_cq->context != pd->context || ia->recv_cq->context != pd->context) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	if (ia->qp_type == RNIC_QPT_GSI && d->qp_table[RNIC_GSI_QPN]) {
		errno = EBUSY; /* the device has one QP1 */
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	q->sq_log = log2_ceil(ia->cap.max_send_wr);
	q->wrid = calloc((size_t)1 << q->sq_log, sizeof(*q->wrid));
	if (!q->wrid) {
		err = ENOMEM;
		goto fail;
	}
	q->sq = rnic_dma_alloc(d, (size_t)RNIC_WQE_BYTES << q->sq_log, &q->sq_bytes, &q->sq_bus);
	if (!q->sq) {
		err = errno;
		goto fail;
	}
	/* The RQ ring: none at all for max_recv_wr 0 (the QPC then names an
	 * empty ring at bus address 0 that is never rung). */
	if (ia->cap.max_recv_wr) {
		q->rq_log = log2_ceil(ia->cap.max_recv_wr);
		q->rq_size = 1u << q->rq_log;
		q->rq_wrid = calloc(q->rq_size, sizeof(*q->rq_wrid));
		if (!q->rq_wrid) {
			err = ENOMEM;
			goto fail;
		}
		q->rq = rnic_dma_alloc(d, (size_t)RNIC_RECV_WQE_BYTES << q->rq_log, &q->rq_bytes,
				       &q->rq_bus);
		if (!q->rq) {
			err = errno;
			goto fail;
		}
	}
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, PD, pd->handle);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SEND_CQN, ia->send_cq->handle);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RECV_CQN, ia->recv_cq->handle);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE,
		     ia->qp_type == RNIC_QPT_GSI ? RNIC_QP_TYPE_GSI :
		     ia->qp_type == RNIC_QPT_UD ? RNIC_QP_TYPE_UD : RNIC_QP_TYPE_RC);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE, q->sq_log);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_LOG_SIZE, q->rq_log);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_BASE, q->sq_bus);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_BASE, q->rq_bus);
	if (ia->srq)
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SRQN, ia->srq->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_CREATE_QP, in, RNIC_CMD_CREATE_QP_IN_WORDS, out,
		       RNIC_CMD_CREATE_QP_OUT_WORDS);
	if (err)
		goto fail;
	qpn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_QP_OUT, QPN);
	if ((ia->qp_type == RNIC_QPT_GSI ? qpn != RNIC_GSI_QPN : qpn < 2) || qpn > d->max_qp + 1 ||
	    d->qp_table[qpn]) {
		rnic_log("CREATE_QP answered QPN %u, not a free QPN in 2..%u (1 for the GSI QP)", qpn,
			 d->max_qp + 1);
		err = EIO;
		goto fail;
	}
	q->qp.context = pd->context;
	q->qp.qp_context = ia->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.handle = qpn;
	q->qp.qp_num = qpn;
	q->qp.state = RNIC_QPS_RESET;
	q->qp.qp_type = ia->qp_type;
	q->sq_sig_all = ia->sq_sig_all;
	/* Report what the QP really has, as ibv_create_qp does. */
	ia->cap.max_send_wr = 1u << q->sq_log;
	ia->cap.max_recv_wr = q->rq_size;
	q->cap = ia->cap;

	d->qp_table[qpn] = q;
	pd_priv(pd)->refcnt++;
	cq_priv(ia->send_cq)->refcnt++;
	cq_priv(ia->recv_cq)->refcnt++;
	if (ia->srq) {
		q->srq = srq_priv(ia->srq);
		q->srq->refcnt++;
	}
	d->n_qp++;
	return &q->qp;

fail:
	rnic_dma_free(d, q->rq, q->rq_bytes);
	free(q->rq_wrid);
	rnic_dma_free(d, q->sq, q->sq_bytes);
	free(q->wrid);
	free(q);
	errno = err;
	return NULL;
}

/* ---------------------------------------------------------------- modify */

_Static_assert(RNIC_QP_STATE == RNIC_QP_ATTR_STATE && RNIC_QP_CUR_STATE == RNIC_QP_ATTR_CUR_STATE &&
	       RNIC_QP_ACCESS_FLAGS == RNIC_QP_ATTR_ACCESS_FLAGS && RNIC_QP_AV == RNIC_QP_ATTR_AV &&
	       RNIC_QP_SQ_PSN == RNIC_QP_ATTR_SQ_PSN && RNIC_QP_DEST_QPN == RNIC_QP_ATTR_DEST_QPN &&
	       RNIC_QP_MAX_DEST_RD_ATOMIC == RNIC_QP_ATTR_MAX_DEST_RD_ATOMIC,
	       "the API's attribute mask is the command's QP_ATTR_* mask");

/* The GID as the command's 128-bit number: raw[0] is its top byte. */
static void gid_set(uint32_t *w, unsigned int lsb, const uint8_t raw[16])
{
	uint64_t hi = 0, lo = 0;

	for (int i = 0; i < 8; i++) {
		hi = hi << 8 | raw[i];
		lo = lo << 8 | raw[8 + i];
	}
	rnic_ctx_set(w, lsb, 64, lo);
	rnic_ctx_set(w, lsb + 64, 64, hi);
}

static void gid_get(const uint32_t *w, unsigned int lsb, uint8_t raw[16])
{
	uint64_t lo = rnic_ctx_get(w, lsb, 64), hi = rnic_ctx_get(w, lsb + 64, 64);

	for (int i = 7; i >= 0; i--) {
		raw[i] = (uint8_t)hi;
		raw[8 + i] = (uint8_t)lo;
		hi >>= 8;
		lo >>= 8;
	}
}

static uint64_t mac_num(const uint8_t mac[6])
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return v;
}

/* Both rings empty, as the device's indices after the QP left RESET. */
static void queues_reset(struct rnic_qp_priv *q)
{
	q->sq_head = 0;
	q->sq_tail = 0;
	memset(q->sq, 0, q->sq_bytes);
	memset(q->wrid, 0, ((size_t)1 << q->sq_log) * sizeof(*q->wrid));
	q->rq_head = 0;
	q->rq_tail = 0;
	if (q->rq) {
		memset(q->rq, 0, q->rq_bytes);
		memset(q->rq_wrid, 0, (size_t)q->rq_size * sizeof(*q->rq_wrid));
	}
}

/* MODIFY_QP: the firmware checks the transition, the attribute mask and
 * every value (docs/firmware.md has the table) and writes the QPC. Values
 * wider than their command field are refused here rather than truncated. */
int rnic_modify_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask)
{
	uint32_t in[RNIC_CMD_MODIFY_QP_IN_WORDS] = {0};
	const struct rnic_global_route *g;
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	uint32_t next;
	int err;

	if (!qp || !attr || attr_mask < 0)
		return EINVAL;
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	g = &attr->ah_attr.grh;
	if (attr->qp_state > 0xffu || attr->cur_qp_state > 0xffu || attr->path_mtu > 0xffu ||
	    attr->qp_access_flags > 0xffu)
		return EINVAL;
	next = (attr_mask & RNIC_QP_STATE) ? attr->qp_state : qp->state;
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qp->qp_num);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, qp->pd->handle);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, (uint32_t)attr_mask);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, attr->qp_state);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, CUR_QP_STATE, attr->cur_qp_state);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PATH_MTU, attr->path_mtu);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_ACCESS_FLAGS, attr->qp_access_flags);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PKEY_INDEX, attr->pkey_index);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PORT_NUM, attr->port_num);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SGID_INDEX, g->sgid_index);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, TIMEOUT, attr->timeout);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RETRY_CNT, attr->retry_cnt);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RNR_RETRY, attr->rnr_retry);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MIN_RNR_TIMER, attr->min_rnr_timer);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_RD_ATOMIC, attr->max_rd_atomic);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_DEST_RD_ATOMIC, attr->max_dest_rd_atomic);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, IS_GLOBAL, attr->ah_attr.is_global);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, HOP_LIMIT, g->hop_limit);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, TRAFFIC_CLASS, g->traffic_class);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DEST_QP_NUM, attr->dest_qp_num);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RQ_PSN, attr->rq_psn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SQ_PSN, attr->sq_psn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, FLOW_LABEL, g->flow_label);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DMAC, mac_num(attr->ah_attr.dmac));
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QKEY, attr->qkey);
	gid_set(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB, g->dgid.raw);
	err = rnic_cmd(d, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
	if (err)
		return err;
	if (next == RNIC_QPS_RESET)
		queues_reset(q);
	qp->state = next;
	if (next == RNIC_QPS_ERR) {
		/* Ring both queues at their producer indices: the device, seeing
		 * the QP in error, completes every outstanding WQE with
		 * WR_FLUSH_ERR. */
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SQ), qp->qp_num << 16 | (q->sq_head & 0xffffu));
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_RQ), qp->qp_num << 16 | (q->rq_head & 0xffffu));
	}
	return 0;
}

/* QUERY_QP: the firmware's record of the QP. */
int rnic_query_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask,
		  struct rnic_qp_init_attr *init_attr)
{
	uint32_t in[RNIC_CMD_QUERY_QP_IN_WORDS] = {0}, out[RNIC_CMD_QUERY_QP_OUT_WORDS];
	struct rnic_global_route *g;
	struct rnic_qp_priv *q;
	uint64_t mac;
	int err;

	(void)attr_mask; /* every attribute is returned, as most providers do */
	if (!qp || !attr || !init_attr)
		return EINVAL;
	q = qp_priv(qp);
	RNIC_CTX_SET(in, CMD_QUERY_QP_IN, QPN, qp->qp_num);
	RNIC_CTX_SET(in, CMD_QUERY_QP_IN, PD, qp->pd->handle);
	err = rnic_cmd(rnic_dev(qp->context), RNIC_CMD_OP_QUERY_QP, in, RNIC_CMD_QUERY_QP_IN_WORDS,
		       out, RNIC_CMD_QUERY_QP_OUT_WORDS);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	g = &attr->ah_attr.grh;
#define Q(f) RNIC_CTX_GET(out, CMD_QUERY_QP_OUT, f)
	attr->qp_state = (uint32_t)Q(QP_STATE);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = (uint32_t)Q(PATH_MTU);
	attr->qp_access_flags = (unsigned int)Q(QP_ACCESS_FLAGS);
	attr->pkey_index = (uint16_t)Q(PKEY_INDEX);
	attr->port_num = (uint8_t)Q(PORT_NUM);
	attr->timeout = (uint8_t)Q(TIMEOUT);
	attr->retry_cnt = (uint8_t)Q(RETRY_CNT);
	attr->rnr_retry = (uint8_t)Q(RNR_RETRY);
	attr->min_rnr_timer = (uint8_t)Q(MIN_RNR_TIMER);
	attr->max_rd_atomic = (uint8_t)Q(MAX_RD_ATOMIC);
	attr->max_dest_rd_atomic = (uint8_t)Q(MAX_DEST_RD_ATOMIC);
	attr->dest_qp_num = (uint32_t)Q(DEST_QP_NUM);
	attr->rq_psn = (uint32_t)Q(RQ_PSN);
	attr->sq_psn = (uint32_t)Q(SQ_PSN);
	attr->ah_attr.is_global = (uint8_t)Q(IS_GLOBAL);
	g->sgid_index = (uint8_t)Q(SGID_INDEX);
	g->hop_limit = (uint8_t)Q(HOP_LIMIT);
	g->traffic_class = (uint8_t)Q(TRAFFIC_CLASS);
	g->flow_label = (uint32_t)Q(FLOW_LABEL);
	mac = Q(DMAC);
	attr->qkey = (uint32_t)Q(QKEY);
#undef Q
	for (int i = 5; i >= 0; i--, mac >>= 8)
		attr->ah_attr.dmac[i] = (uint8_t)mac;
	gid_get(out, RNIC_CMD_QUERY_QP_OUT_DGID_LSB, g->dgid.raw);
	attr->cap = q->cap;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = q->srq ? &q->srq->srq : NULL;
	init_attr->cap = q->cap;
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = q->sq_sig_all;
	return 0;
}

int rnic_destroy_qp(struct rnic_qp *qp)
{
	uint32_t in[RNIC_CMD_DESTROY_QP_IN_WORDS] = {0};
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	int err;

	if (!qp)
		return EINVAL;
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	/* The firmware stops a QP the device knows before its rings go away. */
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, qp->qp_num);
	RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, qp->pd->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DESTROY_QP, in, RNIC_CMD_DESTROY_QP_IN_WORDS, NULL, 0);
	if (err)
		return err;
	rnic_dma_free(d, q->sq, q->sq_bytes);
	free(q->wrid);
	rnic_dma_free(d, q->rq, q->rq_bytes);
	free(q->rq_wrid);
	d->qp_table[qp->qp_num] = NULL;
	pd_priv(qp->pd)->refcnt--;
	cq_priv(qp->send_cq)->refcnt--;
	cq_priv(qp->recv_cq)->refcnt--;
	if (q->srq)
		q->srq->refcnt--;
	d->n_qp--;
	free(q);
	return 0;
}

/* ---------------------------------------------------------------- post_send */

#define SEND_FLAGS_ALL (RNIC_SEND_FENCE | RNIC_SEND_SIGNALED | RNIC_SEND_SOLICITED | \
			RNIC_SEND_INLINE)

/* Check one work request; *len gets its payload length. */
static int check_wr(const struct rnic_qp_priv *q, const struct rnic_send_wr *wr, uint32_t *len,
		    int mw_type)
{
	uint64_t total = 0;

	if (wr->opcode > RNIC_WR_SEND_WITH_INV || (wr->send_flags & ~SEND_FLAGS_ALL))
		return EINVAL;
	/* the IETH is RC's (IBA 9.3.8): UD has no SEND with invalidate */
	if (wr->opcode == RNIC_WR_SEND_WITH_INV && q->qp.qp_type != RNIC_QPT_RC)
		return EINVAL;
	/* window operations carry no payload (docs/mw.md); a BIND_MW WQE binds
	 * a type 2 window of this device (type 1: rnic_bind_mw), keeping its
	 * MPT index; the device checks the rest (WC_MW_BIND_ERR) */
	if (wr->opcode == RNIC_WR_LOCAL_INV || wr->opcode == RNIC_WR_BIND_MW) {
		if (wr->num_sge || (wr->send_flags & RNIC_SEND_INLINE))
			return EINVAL;
		if (wr->opcode == RNIC_WR_BIND_MW) {
			const struct rnic_mw *mw = wr->wr.bind_mw.mw;
			const struct rnic_mw_bind_info *bi = &wr->wr.bind_mw.bind_info;

			if (!mw || mw->type != mw_type || mw->context != q->qp.context ||
			    wr->wr.bind_mw.rkey >> RNIC_MKEY_TAG_BITS != mw->handle ||
			    (bi->length && !bi->mr) || (bi->mr && bi->mr->context != q->qp.context))
				return EINVAL;
		}
		*len = 0;
		return 0;
	}
	/* UD: a SEND names an AH of the QP's context and a 24-bit QPN (other
	 * opcodes and a destroyed or foreign AH are the device's to refuse:
	 * an error completion, as rxe gives) */
	if (q->qp.qp_type != RNIC_QPT_RC &&
	    (wr->opcode == RNIC_WR_SEND || wr->opcode == RNIC_WR_SEND_WITH_IMM) &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->context != q->qp.context ||
	     wr->wr.ud.remote_qpn >> RNIC_QPN_BITS))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > q->cap.max_send_sge ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > 0x80000000u) /* IBTA: a message is at most 2^31 bytes */
		return EINVAL;
	/* an ATOMIC returns exactly 8 bytes (IBTA 9.4.5; rxe refuses the same) */
	if ((wr->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP || wr->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD) &&
	    total != 8)
		return EINVAL;
	if (wr->send_flags & RNIC_SEND_INLINE) {
		if (wr->opcode != RNIC_WR_RDMA_WRITE && wr->opcode != RNIC_WR_RDMA_WRITE_WITH_IMM &&
		    wr->opcode != RNIC_WR_SEND && wr->opcode != RNIC_WR_SEND_WITH_IMM &&
		    wr->opcode != RNIC_WR_SEND_WITH_INV)
			return EINVAL;
		if (total > q->cap.max_inline_data)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length && !wr->sg_list[i].addr)
				return EINVAL;
	}
	*len = (uint32_t)total;
	return 0;
}

static uint8_t wqe_flags(const struct rnic_qp_priv *q, unsigned int f)
{
	uint8_t w = 0;

	if ((f & RNIC_SEND_SIGNALED) || q->sq_sig_all)
		w |= RNIC_WQE_FLAG_SIGNALED;
	if (f & RNIC_SEND_INLINE)
		w |= RNIC_WQE_FLAG_INLINE;
	if (f & RNIC_SEND_FENCE)
		w |= RNIC_WQE_FLAG_FENCE;
	if (f & RNIC_SEND_SOLICITED)
		w |= RNIC_WQE_FLAG_SOLICITED;
	return w;
}

/* Build the 128-byte WQE of wr into the SQ slot. */
static void write_wqe(struct rnic_qp_priv *q, const struct rnic_send_wr *wr, uint32_t len)
{
	struct rnic_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = (uint8_t)wr->opcode;
	w.flags = wqe_flags(q, wr->send_flags);
	w.imm_data = wr->imm_data; /* already network order */
	w.length = rnic_htole32(len);
	switch (wr->opcode) {
	case RNIC_WR_BIND_MW: {
		const struct rnic_mw_bind_info *bi = &wr->wr.bind_mw.bind_info;

		w.rkey = rnic_htole32(wr->wr.bind_mw.mw->rkey);
		w.mw_new_rkey = rnic_htole32(wr->wr.bind_mw.rkey);
		w.bind_lkey = rnic_htole32(bi->mr ? bi->mr->lkey : 0);
		w.bind_access = rnic_htole32(bi->mw_access_flags);
		w.remote_addr = rnic_htole64(bi->addr);
		w.compare_add = rnic_htole64(bi->length);
		break;
	}
	case RNIC_WR_LOCAL_INV:
	case RNIC_WR_SEND_WITH_INV: /* the IETH's key */
		w.rkey = rnic_htole32(wr->invalidate_rkey);
		break;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		w.remote_addr = rnic_htole64(wr->wr.atomic.remote_addr);
		w.rkey = rnic_htole32(wr->wr.atomic.rkey);
		w.compare_add = rnic_htole64(wr->wr.atomic.compare_add);
		w.swap = rnic_htole64(wr->wr.atomic.swap);
		break;
	case RNIC_WR_SEND:
	case RNIC_WR_SEND_WITH_IMM:
		if (q->qp.qp_type != RNIC_QPT_RC) {
			w.ud_ah = rnic_htole32(wr->wr.ud.ah->handle);
			w.ud_remote_qpn = rnic_htole32(wr->wr.ud.remote_qpn);
			w.ud_remote_qkey = rnic_htole32(wr->wr.ud.remote_qkey);
		}
		break;
	default: /* RDMA WRITE, WRITE_WITH_IMM, READ */
		w.remote_addr = rnic_htole64(wr->wr.rdma.remote_addr);
		w.rkey = rnic_htole32(wr->wr.rdma.rkey);
		break;
	}
	if (wr->send_flags & RNIC_SEND_INLINE) {
		uint8_t *p = (uint8_t *)w.sge;

		w.inline_len = (uint8_t)len;
		for (int i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length)
				memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		w.num_sge = (uint8_t)wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			w.sge[i].addr = rnic_htole64(wr->sg_list[i].addr);
			w.sge[i].length = rnic_htole32(wr->sg_list[i].length);
			w.sge[i].lkey = rnic_htole32(wr->sg_list[i].lkey);
		}
	}
	memcpy(&q->sq[q->sq_head & ((1u << q->sq_log) - 1)], &w, sizeof(w));
}

/* Post a list of work requests; a BIND_MW among them binds a window of
 * mw_type (RNIC_MW_TYPE_2 from rnic_post_send, 1 from rnic_bind_mw). */
static int post_wrs(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr,
		    int mw_type)
{
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	unsigned int posted = 0;
	uint32_t len = 0;
	int inline_one = 0; /* the last WR posted is inline */
	int err = 0;

	if (!qp) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	for (; wr; wr = wr->next) {
		if (qp->state != RNIC_QPS_RTS) {
			err = EINVAL;
			break;
		}
		err = check_wr(q, wr, &len, mw_type);
		if (err)
			break;
		if (q->sq_head - q->sq_tail >= (1u << q->sq_log)) {
			err = ENOMEM;
			break;
		}
		write_wqe(q, wr, len);
		inline_one = (wr->send_flags & RNIC_SEND_INLINE) != 0;
		q->wrid[q->sq_head & ((1u << q->sq_log) - 1)] = wr->wr_id;
		q->sq_head++;
		posted++;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	/* One barrier and one doorbell for everything posted, also when a later
	 * WR failed (the WRs before it are posted, as in rdma-core). A single
	 * inline WQE also goes through the doorbell page's WQE window: the
	 * device then reads nothing from host memory to send it. */
	if (posted == 1 && inline_one && d->wqe_window)
		rnic_doorbell_wqe(d, qp->qp_num << 16 | (q->sq_head & 0xffffu),
				  &q->sq[(q->sq_head - 1) & ((1u << q->sq_log) - 1)]);
	else if (posted)
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SQ),
			      qp->qp_num << 16 | (q->sq_head & 0xffffu));
	return err;
}

int rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr)
{
	return post_wrs(qp, wr, bad_wr, RNIC_MW_TYPE_2);
}

/* ibv_bind_mw for a type 1 window: a BIND_MW WQE with the next tag (as
 * rdma-core's providers choose it: rnic_inc_rkey). The checks are
 * rdma-core's ibv_bind_mw's (no MR with an address or length: EINVAL; the
 * MR of another PD: EPERM) and its providers' (zero-based: EINVAL). */
int rnic_bind_mw(struct rnic_qp *qp, struct rnic_mw *mw, struct rnic_mw_bind *mw_bind)
{
	const struct rnic_mw_bind_info *bi;
	struct rnic_send_wr wr;
	uint32_t key;
	int err;

	if (!qp || !mw || !mw_bind || mw->type != RNIC_MW_TYPE_1 || mw->context != qp->context)
		return EINVAL;
	bi = &mw_bind->bind_info;
	if ((!bi->mr && (bi->addr || bi->length)) || (bi->mr && bi->mr->context != qp->context) ||
	    (bi->mw_access_flags & ~(unsigned int)(RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
						   RNIC_ACCESS_REMOTE_ATOMIC)) ||
	    (mw_bind->send_flags & ~(unsigned int)(RNIC_SEND_SIGNALED | RNIC_SEND_FENCE)))
		return EINVAL;
	if (bi->mr && bi->mr->pd != mw->pd)
		return EPERM;
	key = rnic_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = RNIC_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = key;
	wr.wr.bind_mw.bind_info = *bi;
	err = post_wrs(qp, &wr, NULL, RNIC_MW_TYPE_1);
	if (!err)
		mw->rkey = key;
	return err;
}

/* ---------------------------------------------------------------- post_recv */

/* Build the 64-byte receive WQE of wr into the RQ slot: the SGEs, then (with
 * fewer than RNIC_MAX_RECV_SGE) an SGE with lkey RNIC_INVALID_LKEY that ends
 * the list. */
void rnic_recv_wqe_build(struct rnic_recv_wqe *dst, const struct rnic_recv_wr *wr)
{
	struct rnic_recv_wqe w;

	memset(&w, 0, sizeof(w));
	for (int i = 0; i < wr->num_sge; i++) {
		w.sge[i].addr = rnic_htole64(wr->sg_list[i].addr);
		w.sge[i].length = rnic_htole32(wr->sg_list[i].length);
		w.sge[i].lkey = rnic_htole32(wr->sg_list[i].lkey);
	}
	if (wr->num_sge < RNIC_MAX_RECV_SGE)
		w.sge[wr->num_sge].lkey = rnic_htole32(RNIC_INVALID_LKEY);
	memcpy(dst, &w, sizeof(w));
}

int rnic_post_recv(struct rnic_qp *qp, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr)
{
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	unsigned int posted = 0;
	int err = 0;

	if (!qp) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	for (; wr; wr = wr->next) {
		/* IBTA: receives may be posted in every state but RESET; in ERR
		 * the device flushes them. A QP on an SRQ has no RQ: its receive
		 * WQEs go to the SRQ (rnic_post_srq_recv). */
		if (qp->state == RNIC_QPS_RESET || q->srq) {
			err = EINVAL;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > q->cap.max_recv_sge ||
		    (wr->num_sge > 0 && !wr->sg_list)) {
			err = EINVAL;
			break;
		}
		if (q->rq_head - q->rq_tail >= q->rq_size) {
			err = ENOMEM;
			break;
		}
		rnic_recv_wqe_build(&q->rq[q->rq_head & (q->rq_size - 1)], wr);
		q->rq_wrid[q->rq_head & (q->rq_size - 1)] = wr->wr_id;
		q->rq_head++;
		posted++;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	/* One barrier and one doorbell for everything posted. */
	if (posted)
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_RQ),
			      qp->qp_num << 16 | (q->rq_head & 0xffffu));
	return err;
}
