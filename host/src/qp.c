/* OpenRNIC host library: queue pairs: create, the state machine of
 * rnic_modify_qp (IBTA / ibv_modify_qp(3) rules for RC), the QPC and the
 * context operation of each transition, post_send, post_recv. */
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
	struct rnic_device *d;
	struct rnic_qp_priv *q;
	int64_t h;
	int err;

	if (!pd || !ia || ia->qp_type != RNIC_QPT_RC || !ia->send_cq || !ia->recv_cq || ia->srq ||
	    ia->cap.max_send_wr < 1 || ia->cap.max_send_wr > RNIC_LIB_MAX_QP_WR ||
	    ia->cap.max_send_sge > RNIC_MAX_SEND_SGE ||
	    ia->cap.max_inline_data > RNIC_MAX_INLINE_BYTES ||
	    ia->cap.max_recv_wr > RNIC_LIB_MAX_QP_WR || ia->cap.max_recv_sge > RNIC_MAX_RECV_SGE ||
	    ia->send_cq->context != pd->context || ia->recv_cq->context != pd->context) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	h = rnic_idx_alloc(&d->qp_idx);
	if (h < 0) {
		free(q);
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
	q->qp.context = pd->context;
	q->qp.qp_context = ia->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.handle = (uint32_t)h;
	q->qp.qp_num = (uint32_t)h;
	q->qp.state = RNIC_QPS_RESET;
	q->qp.qp_type = RNIC_QPT_RC;
	q->sq_sig_all = ia->sq_sig_all;
	/* Report what the QP really has, as ibv_create_qp does. */
	ia->cap.max_send_wr = 1u << q->sq_log;
	ia->cap.max_recv_wr = q->rq_size;
	q->cap = ia->cap;
	q->attr.qp_state = RNIC_QPS_RESET;
	q->attr.cap = q->cap;

	d->qp_table[h] = q;
	pd_priv(pd)->refcnt++;
	cq_priv(ia->send_cq)->refcnt++;
	cq_priv(ia->recv_cq)->refcnt++;
	d->n_qp++;
	return &q->qp;

fail:
	rnic_dma_free(d, q->rq, q->rq_bytes);
	free(q->rq_wrid);
	rnic_dma_free(d, q->sq, q->sq_bytes);
	free(q->wrid);
	rnic_idx_free(&d->qp_idx, (uint32_t)h);
	free(q);
	errno = err;
	return NULL;
}

/* ---------------------------------------------------------------- QPC */

static int gid_is_v4_mapped(const uint8_t g[16])
{
	for (int i = 0; i < 10; i++)
		if (g[i])
			return 0;
	return g[10] == 0xff && g[11] == 0xff;
}

/* The whole QPC of a QP whose software attributes are a, in state `state`.
 * A QP going to RESET gets an all-zero record. */
static void qpc_encode(uint32_t w[RNIC_QPC_WORDS], const struct rnic_qp_priv *q,
		       const struct rnic_qp_attr *a, uint32_t state)
{
	const struct rnic_global_route *g = &a->ah_attr.grh;
	const uint8_t *mac = a->ah_attr.dmac;
	uint64_t dgid_hi = 0, dgid_lo = 0, dmac = 0;

	memset(w, 0, RNIC_QPC_WORDS * sizeof(uint32_t));
	if (state == RNIC_QPS_RESET)
		return;
	for (int i = 0; i < 8; i++) {
		dgid_hi = dgid_hi << 8 | g->dgid.raw[i];
		dgid_lo = dgid_lo << 8 | g->dgid.raw[8 + i];
	}
	for (int i = 0; i < 6; i++)
		dmac = dmac << 8 | mac[i];
	RNIC_CTX_SET(w, QPC, STATE, state);
	RNIC_CTX_SET(w, QPC, PMTU, a->path_mtu);
	RNIC_CTX_SET(w, QPC, IPV6, !gid_is_v4_mapped(g->dgid.raw));
	RNIC_CTX_SET(w, QPC, SGID_INDEX, g->sgid_index);
	RNIC_CTX_SET(w, QPC, DEST_QPN, a->dest_qp_num);
	RNIC_CTX_SET(w, QPC, SQ_PSN, a->sq_psn);
	RNIC_CTX_SET(w, QPC, RQ_PSN, a->rq_psn);
	RNIC_CTX_SET(w, QPC, ACCESS, a->qp_access_flags);
	RNIC_CTX_SET(w, QPC, PD, q->qp.pd->handle);
	RNIC_CTX_SET(w, QPC, SEND_CQN, q->qp.send_cq->handle);
	RNIC_CTX_SET(w, QPC, RECV_CQN, q->qp.recv_cq->handle);
	RNIC_CTX_SET(w, QPC, SQ_LOG_SIZE, q->sq_log);
	RNIC_CTX_SET(w, QPC, RQ_LOG_SIZE, q->rq_log);
	RNIC_CTX_SET(w, QPC, RETRY_CNT, a->retry_cnt);
	RNIC_CTX_SET(w, QPC, RNR_RETRY, a->rnr_retry);
	RNIC_CTX_SET(w, QPC, TIMEOUT, a->timeout);
	RNIC_CTX_SET(w, QPC, MIN_RNR_TIMER, a->min_rnr_timer);
	RNIC_CTX_SET(w, QPC, MAX_RD_ATOMIC, a->max_rd_atomic);
	RNIC_CTX_SET(w, QPC, MAX_DEST_RD_ATOMIC, a->max_dest_rd_atomic);
	RNIC_CTX_SET(w, QPC, UDP_SPORT, rnic_rocev2_udp_sport(q->qp.qp_num, a->dest_qp_num, g->flow_label));
	RNIC_CTX_SET(w, QPC, FLOW_LABEL, g->flow_label);
	RNIC_CTX_SET(w, QPC, PKEY, RNIC_DEFAULT_PKEY);
	RNIC_CTX_SET(w, QPC, TRAFFIC_CLASS, g->traffic_class);
	RNIC_CTX_SET(w, QPC, HOP_LIMIT, g->hop_limit ? g->hop_limit : RNIC_IPV4_DEFAULT_TTL);
	RNIC_CTX_SET(w, QPC, DST_MAC, dmac);
	rnic_ctx_set(w, RNIC_QPC_DGID_LSB, 64, dgid_lo);
	rnic_ctx_set(w, RNIC_QPC_DGID_LSB + 64, 64, dgid_hi);
	RNIC_CTX_SET(w, QPC, SQ_BASE, q->sq_bus);
	RNIC_CTX_SET(w, QPC, RQ_BASE, q->rq_bus);
}

/* ---------------------------------------------------------------- modify */

#define M_STATE RNIC_QP_STATE
#define M_CUR RNIC_QP_CUR_STATE

/* Required and optional attribute masks of each legal RC transition
 * (ibv_modify_qp(3); IBTA Vol. 1 11.2.5.3), the STATE bit not included. */
static int transition(uint32_t cur, uint32_t next, int *req, int *opt)
{
	*req = 0;
	*opt = 0;
	if (next == RNIC_QPS_RESET || next == RNIC_QPS_ERR)
		return cur <= RNIC_QPS_ERR;
	switch (cur) {
	case RNIC_QPS_RESET:
		if (next != RNIC_QPS_INIT)
			return 0;
		*req = RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS;
		return 1;
	case RNIC_QPS_INIT:
		if (next == RNIC_QPS_INIT) {
			*opt = RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS;
			return 1;
		}
		if (next != RNIC_QPS_RTR)
			return 0;
		*req = RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
		       RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
		*opt = RNIC_QP_PKEY_INDEX | RNIC_QP_ACCESS_FLAGS;
		return 1;
	case RNIC_QPS_RTR:
		if (next != RNIC_QPS_RTS)
			return 0;
		*req = RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
		       RNIC_QP_MAX_QP_RD_ATOMIC;
		*opt = RNIC_QP_ACCESS_FLAGS | RNIC_QP_MIN_RNR_TIMER;
		return 1;
	case RNIC_QPS_RTS:
		if (next != RNIC_QPS_RTS)
			return 0;
		*opt = RNIC_QP_ACCESS_FLAGS | RNIC_QP_MIN_RNR_TIMER;
		return 1;
	default:
		return 0; /* SQD, SQE: not supported */
	}
}

#define ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
		    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* Range checks of the attributes named in mask. */
static int check_values(const struct rnic_qp_attr *a, int mask)
{
	if ((mask & RNIC_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~(unsigned int)ACCESS_ALL))
		return EINVAL;
	if ((mask & RNIC_QP_PKEY_INDEX) && a->pkey_index != 0)
		return EINVAL;
	if ((mask & RNIC_QP_PORT) && a->port_num != 1)
		return EINVAL;
	if ((mask & RNIC_QP_AV) &&
	    (!a->ah_attr.is_global || a->ah_attr.grh.sgid_index >= RNIC_GID_TABLE_SIZE ||
	     a->ah_attr.grh.flow_label > 0xfffff))
		return EINVAL;
	if ((mask & RNIC_QP_PATH_MTU) &&
	    (a->path_mtu < RNIC_IB_MTU_256 || a->path_mtu > RNIC_IB_MTU_4096))
		return EINVAL;
	if ((mask & RNIC_QP_DEST_QPN) && a->dest_qp_num >> RNIC_QPN_BITS)
		return EINVAL;
	if ((mask & RNIC_QP_RQ_PSN) && a->rq_psn >> RNIC_PSN_BITS)
		return EINVAL;
	if ((mask & RNIC_QP_SQ_PSN) && a->sq_psn >> RNIC_PSN_BITS)
		return EINVAL;
	if ((mask & RNIC_QP_TIMEOUT) && a->timeout > 31)
		return EINVAL;
	if ((mask & RNIC_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & RNIC_QP_RETRY_CNT) && a->retry_cnt > 7)
		return EINVAL;
	if ((mask & RNIC_QP_RNR_RETRY) && a->rnr_retry > 7)
		return EINVAL;
	if ((mask & RNIC_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > RNIC_LIB_MAX_RD_ATOM)
		return EINVAL;
	if ((mask & RNIC_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > RNIC_LIB_MAX_RD_ATOM)
		return EINVAL;
	return 0;
}

static void copy_attrs(struct rnic_qp_attr *dst, const struct rnic_qp_attr *src, int mask)
{
	if (mask & RNIC_QP_ACCESS_FLAGS)
		dst->qp_access_flags = src->qp_access_flags;
	if (mask & RNIC_QP_PKEY_INDEX)
		dst->pkey_index = src->pkey_index;
	if (mask & RNIC_QP_PORT)
		dst->port_num = src->port_num;
	if (mask & RNIC_QP_AV)
		dst->ah_attr = src->ah_attr;
	if (mask & RNIC_QP_PATH_MTU)
		dst->path_mtu = src->path_mtu;
	if (mask & RNIC_QP_DEST_QPN)
		dst->dest_qp_num = src->dest_qp_num;
	if (mask & RNIC_QP_RQ_PSN)
		dst->rq_psn = src->rq_psn;
	if (mask & RNIC_QP_SQ_PSN)
		dst->sq_psn = src->sq_psn;
	if (mask & RNIC_QP_TIMEOUT)
		dst->timeout = src->timeout;
	if (mask & RNIC_QP_MIN_RNR_TIMER)
		dst->min_rnr_timer = src->min_rnr_timer;
	if (mask & RNIC_QP_RETRY_CNT)
		dst->retry_cnt = src->retry_cnt;
	if (mask & RNIC_QP_RNR_RETRY)
		dst->rnr_retry = src->rnr_retry;
	if (mask & RNIC_QP_MAX_QP_RD_ATOMIC)
		dst->max_rd_atomic = src->max_rd_atomic;
	if (mask & RNIC_QP_MAX_DEST_RD_ATOMIC)
		dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
}

/* Both rings empty, as the device's indices after CTX_OP_WRITE. */
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

/* The context operation that carries a QP from cur to next:
 * - CTX_OP_WRITE resets the QP's dynamic state on the device (PSNs, SQ/RQ
 *   indices, MSN, error): entering INIT from RESET, and any move to RESET;
 * - CTX_OP_QP_RTR (INIT -> RTR) loads the expected PSN from rq_psn and keeps
 *   the RQ indices (receives may be posted in INIT);
 * - CTX_OP_QP_RTS (RTR -> RTS) loads the next send PSN from sq_psn;
 * - CTX_OP_MODIFY for every other transition (INIT -> INIT, RTS -> RTS,
 *   any -> ERR): the attributes change, the dynamic state stays. */
static unsigned int qpc_op(uint32_t cur, uint32_t next)
{
	if (cur == RNIC_QPS_RESET || next == RNIC_QPS_RESET)
		return RNIC_CTX_OP_WRITE;
	if (cur == RNIC_QPS_INIT && next == RNIC_QPS_RTR)
		return RNIC_CTX_OP_QP_RTR;
	if (cur == RNIC_QPS_RTR && next == RNIC_QPS_RTS)
		return RNIC_CTX_OP_QP_RTS;
	return RNIC_CTX_OP_MODIFY;
}

int rnic_modify_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask)
{
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	struct rnic_qp_attr next;
	uint32_t cur, new_state, w[RNIC_QPC_WORDS];
	int req, opt, err;

	if (!qp || !attr)
		return EINVAL;
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	cur = qp->state;
	if ((attr_mask & M_CUR) && attr->cur_qp_state != cur)
		return EINVAL;
	new_state = (attr_mask & M_STATE) ? attr->qp_state : cur;
	if (!transition(cur, new_state, &req, &opt))
		return EINVAL;
	if ((attr_mask & req) != req)
		return EINVAL; /* a required attribute is missing */
	if (attr_mask & ~(req | opt | M_STATE | M_CUR))
		return EINVAL; /* an attribute this transition does not take */
	err = check_values(attr, attr_mask);
	if (err)
		return err;
	next = q->attr;
	copy_attrs(&next, attr, attr_mask);
	next.qp_state = new_state;
	next.cur_qp_state = new_state;
	if (new_state == RNIC_QPS_RESET) {
		memset(&next, 0, sizeof(next));
		next.qp_state = RNIC_QPS_RESET;
		next.cap = q->cap;
	}
	/* The device knows the QP from INIT on (its RQ may be posted to in
	 * INIT): every modify but RESET -> RESET writes the whole QPC. */
	if (cur != RNIC_QPS_RESET || new_state != RNIC_QPS_RESET) {
		qpc_encode(w, q, &next, new_state);
		err = rnic_ctx_write(d, RNIC_CTX_TABLE_QPC, qpc_op(cur, new_state), qp->qp_num, w,
				     RNIC_QPC_WORDS);
		if (err)
			return err;
	}
	if (new_state == RNIC_QPS_RESET)
		queues_reset(q);
	q->attr = next;
	qp->state = new_state;
	if (new_state == RNIC_QPS_ERR) {
		/* Ring both queues at their producer indices: the device, seeing
		 * the QP in error, completes every outstanding WQE with
		 * WR_FLUSH_ERR. */
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SQ), qp->qp_num << 16 | (q->sq_head & 0xffffu));
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_RQ), qp->qp_num << 16 | (q->rq_head & 0xffffu));
	}
	return 0;
}

int rnic_query_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask,
		  struct rnic_qp_init_attr *init_attr)
{
	struct rnic_qp_priv *q;

	(void)attr_mask; /* every attribute is returned, as most providers do */
	if (!qp || !attr || !init_attr)
		return EINVAL;
	q = qp_priv(qp);
	*attr = q->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = q->cap;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->cap = q->cap;
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = q->sq_sig_all;
	return 0;
}

int rnic_destroy_qp(struct rnic_qp *qp)
{
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	uint32_t w[RNIC_QPC_WORDS] = {0};
	int err;

	if (!qp)
		return EINVAL;
	q = qp_priv(qp);
	d = rnic_dev(qp->context);
	if (qp->state != RNIC_QPS_RESET) {
		/* The device knows this QP: stop it before its rings go away. */
		err = rnic_ctx_write(d, RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, qp->qp_num, w,
				     RNIC_QPC_WORDS);
		if (err)
			return err;
	}
	rnic_dma_free(d, q->sq, q->sq_bytes);
	free(q->wrid);
	rnic_dma_free(d, q->rq, q->rq_bytes);
	free(q->rq_wrid);
	d->qp_table[qp->qp_num] = NULL;
	rnic_idx_free(&d->qp_idx, qp->qp_num);
	pd_priv(qp->pd)->refcnt--;
	cq_priv(qp->send_cq)->refcnt--;
	cq_priv(qp->recv_cq)->refcnt--;
	d->n_qp--;
	free(q);
	return 0;
}

/* ---------------------------------------------------------------- post_send */

#define SEND_FLAGS_ALL (RNIC_SEND_FENCE | RNIC_SEND_SIGNALED | RNIC_SEND_SOLICITED | \
			RNIC_SEND_INLINE)

/* Check one work request; *len gets its payload length. */
static int check_wr(const struct rnic_qp_priv *q, const struct rnic_send_wr *wr, uint32_t *len)
{
	uint64_t total = 0;

	if (wr->opcode > RNIC_WR_ATOMIC_FETCH_AND_ADD || (wr->send_flags & ~SEND_FLAGS_ALL))
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
		    wr->opcode != RNIC_WR_SEND && wr->opcode != RNIC_WR_SEND_WITH_IMM)
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
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		w.remote_addr = rnic_htole64(wr->wr.atomic.remote_addr);
		w.rkey = rnic_htole32(wr->wr.atomic.rkey);
		w.compare_add = rnic_htole64(wr->wr.atomic.compare_add);
		w.swap = rnic_htole64(wr->wr.atomic.swap);
		break;
	case RNIC_WR_SEND:
	case RNIC_WR_SEND_WITH_IMM:
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

int rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr)
{
	struct rnic_qp_priv *q;
	struct rnic_device *d;
	unsigned int posted = 0;
	uint32_t len = 0;
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
		err = check_wr(q, wr, &len);
		if (err)
			break;
		if (q->sq_head - q->sq_tail >= (1u << q->sq_log)) {
			err = ENOMEM;
			break;
		}
		write_wqe(q, wr, len);
		q->wrid[q->sq_head & ((1u << q->sq_log) - 1)] = wr->wr_id;
		q->sq_head++;
		posted++;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	/* One barrier and one doorbell for everything posted, also when a later
	 * WR failed (the WRs before it are posted, as in rdma-core). */
	if (posted)
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SQ),
			      qp->qp_num << 16 | (q->sq_head & 0xffffu));
	return err;
}

/* ---------------------------------------------------------------- post_recv */

/* Build the 64-byte receive WQE of wr into the RQ slot: the SGEs, then (with
 * fewer than RNIC_MAX_RECV_SGE) an SGE with lkey RNIC_INVALID_LKEY that ends
 * the list. */
static void write_recv_wqe(struct rnic_qp_priv *q, const struct rnic_recv_wr *wr)
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
	memcpy(&q->rq[q->rq_head & (q->rq_size - 1)], &w, sizeof(w));
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
		 * the device flushes them. */
		if (qp->state == RNIC_QPS_RESET) {
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
		write_recv_wqe(q, wr);
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
