/* RC queue pair of the C reference model; see rc_qp.h and model/README.md.
 *
 * Requester (send queue -> request packets), completer (responses -> send
 * completions, retransmission) and responder (requests -> memory, receive
 * completions, responses) of IBTA Vol. 1 ch. 9.7, checked against the
 * behaviour of Linux rxe (rxe_req.c, rxe_comp.c, rxe_resp.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rc_qp.h"

/* ------------------------------------------------------------ timers */

/* The RNR NAK timer field (IBTA Vol. 1 Table 45) and the local ACK timeout
 * unit (9.7.6.1.3: 4.096 us * 2^Local ACK Timeout), from docs/formats.toml. */
static const uint64_t rnr_ns[32] = {
	RNIC_RNR_TIMER_0_NS, RNIC_RNR_TIMER_1_NS, RNIC_RNR_TIMER_2_NS, RNIC_RNR_TIMER_3_NS,
	RNIC_RNR_TIMER_4_NS, RNIC_RNR_TIMER_5_NS, RNIC_RNR_TIMER_6_NS, RNIC_RNR_TIMER_7_NS,
	RNIC_RNR_TIMER_8_NS, RNIC_RNR_TIMER_9_NS, RNIC_RNR_TIMER_10_NS, RNIC_RNR_TIMER_11_NS,
	RNIC_RNR_TIMER_12_NS, RNIC_RNR_TIMER_13_NS, RNIC_RNR_TIMER_14_NS, RNIC_RNR_TIMER_15_NS,
	RNIC_RNR_TIMER_16_NS, RNIC_RNR_TIMER_17_NS, RNIC_RNR_TIMER_18_NS, RNIC_RNR_TIMER_19_NS,
	RNIC_RNR_TIMER_20_NS, RNIC_RNR_TIMER_21_NS, RNIC_RNR_TIMER_22_NS, RNIC_RNR_TIMER_23_NS,
	RNIC_RNR_TIMER_24_NS, RNIC_RNR_TIMER_25_NS, RNIC_RNR_TIMER_26_NS, RNIC_RNR_TIMER_27_NS,
	RNIC_RNR_TIMER_28_NS, RNIC_RNR_TIMER_29_NS, RNIC_RNR_TIMER_30_NS, RNIC_RNR_TIMER_31_NS,
};

uint64_t rc_rnr_timer_ns(unsigned int code)
{
	return rnr_ns[code & 31];
}

uint64_t rc_ack_timeout_ns(unsigned int code)
{
	return code ? (uint64_t)RNIC_ACK_TIMEOUT_UNIT_NS << (code & 31) : 0;
}

/* ------------------------------------------------------------ memory */

#define KEY_TAG_MASK ((1u << RNIC_MKEY_TAG_BITS) - 1)

void rc_mem_init(struct rc_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->tag = 0x5a;
}

uint32_t rc_mem_reg(struct rc_mem *m, uint32_t pd, void *buf, uint64_t va, uint64_t length,
		    unsigned int access)
{
	for (uint32_t i = 1; i < RC_MEM_MAX_MR; i++) {
		struct rc_mr *r = &m->mr[i];

		if (r->valid)
			continue;
		m->tag = (uint8_t)(m->tag * 5 + 17);
		r->buf = buf;
		r->va = va;
		r->length = length;
		r->pd = pd;
		r->access = access;
		r->key = i << RNIC_MKEY_TAG_BITS | m->tag;
		r->valid = 1;
		return r->key;
	}
	return 0;
}

int rc_mem_dereg(struct rc_mem *m, uint32_t key)
{
	uint32_t i = key >> RNIC_MKEY_TAG_BITS;

	if (i >= RC_MEM_MAX_MR || !m->mr[i].valid || m->mr[i].key != key)
		return -1;
	m->mr[i].valid = 0;
	return 0;
}

uint8_t *rc_mem_resolve(struct rc_mem *m, uint32_t key, uint32_t pd, uint64_t va, uint64_t len,
			unsigned int access, int *ok)
{
	uint32_t i = key >> RNIC_MKEY_TAG_BITS;
	struct rc_mr *r;

	*ok = 0;
	if (len == 0) {
		*ok = 1;
		return NULL;
	}
	if (i >= RC_MEM_MAX_MR)
		return NULL;
	r = &m->mr[i];
	if (!r->valid || r->key != key || r->pd != pd || (r->access & access) != access)
		return NULL;
	if (va < r->va || va - r->va > r->length || len > r->length - (va - r->va))
		return NULL;
	*ok = 1;
	return r->buf + (va - r->va);
}

/* ------------------------------------------------------------ CQ */

int rc_cq_init(struct rc_cq *cq, uint32_t size)
{
	memset(cq, 0, sizeof(*cq));
	cq->ring = calloc(size ? size : 1, sizeof(*cq->ring));
	cq->size = size ? size : 1;
	return cq->ring ? 0 : -1;
}

void rc_cq_free(struct rc_cq *cq)
{
	free(cq->ring);
	memset(cq, 0, sizeof(*cq));
}

static void cq_push(struct rc_cq *cq, const struct rc_wc *wc)
{
	if (!cq)
		return;
	if (cq->head - cq->tail >= cq->size) {
		cq->overruns++;
		return;
	}
	cq->ring[cq->head % cq->size] = *wc;
	cq->head++;
}

int rc_cq_poll(struct rc_cq *cq, struct rc_wc *wc, int n)
{
	int got = 0;

	while (got < n && cq->tail != cq->head) {
		wc[got++] = cq->ring[cq->tail % cq->size];
		cq->tail++;
	}
	return got;
}

uint32_t rc_cq_count(const struct rc_cq *cq)
{
	return cq->head - cq->tail;
}

/* ------------------------------------------------------------ the QP */

enum { W_POSTED, W_STARTED, W_SENT, W_DONE, W_ERROR };

struct swqe {
	struct rc_send_wr wr;
	uint8_t inl[RNIC_MAX_INLINE_BYTES];
	uint32_t len;
	uint32_t first_psn, last_psn, npkts;
	uint8_t state, has_rd_atomic, checked;
	uint32_t status;
};

enum { J_ACK, J_READ, J_ATOMIC_ACK };

struct job {
	uint8_t kind, syndrome;
	uint32_t psn, msn;
	uint64_t va;
	uint32_t rkey, len, off;
	uint8_t *src;
	uint64_t orig;
};

enum { RES_NONE, RES_READ, RES_ATOMIC };

struct resource {
	uint8_t type;
	uint32_t first_psn, last_psn;
	uint64_t va;
	uint32_t rkey, len;
	uint64_t orig;
};

struct rc_qp {
	struct rc_qp_cfg cfg;
	struct rc_mem *mem;
	struct rc_cq *scq, *rcq;
	rc_tx_fn tx;
	void *tx_arg;
	struct rc_oracle oracle;
	int has_oracle;
	int state;
	uint16_t ip_id;
	uint64_t timeout_ticks;
	struct rc_qp_stats st;
	uint8_t scratch[4096];

	/* requester and completer */
	struct swqe *sq;
	uint32_t sq_post, sq_done, sq_send, pkt_idx;
	uint32_t next_psn, una_psn, sent_end;
	uint32_t rd_atomic;
	uint32_t noack;
	uint8_t retry_left, rnr_left;
	uint8_t nak_guard; /* a go-back-N for a NAK or a gap is under way: ignore further ones */
	uint8_t blocked;   /* a WQE failed its local checks: send nothing more */
	uint8_t rnr_wait;
	rc_time_t rnr_until, retry_at;

	/* responder */
	struct rc_recv_wr *rq;
	uint32_t rq_post, rq_cons;
	uint32_t epsn, msn;
	int cur_op; /* opcode of the last packet of an unfinished message, -1 between messages */
	uint8_t nak_sent;
	uint32_t since_ack;
	uint64_t w_va;
	uint32_t w_rkey, w_resid, w_total;
	uint8_t *w_ptr;
	uint8_t r_active;
	struct rc_recv_wr r_wqe;
	uint32_t r_off, r_cap;
	uint8_t *r_ptr[RC_MAX_RECV_SGE];
	uint32_t r_len[RC_MAX_RECV_SGE];
	struct resource res[RC_MAX_RD_ATOMIC];
	uint32_t res_next;
	struct job *jobs;
	uint32_t jobs_cap, job_head, job_tail;
};

#define SQ(qp, i) (&(qp)->sq[(i) % (qp)->cfg.sq_size])
#define RQ(qp, i) (&(qp)->rq[(i) % (qp)->cfg.rq_size])
#define PSN_MASK ((1u << RNIC_PSN_BITS) - 1)
#define MAX_MSG_BYTES 0x80000000u /* 2^31 (IBTA 9.4.1.1: DMA Length) */

void rc_qp_cfg_default(struct rc_qp_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = 1024;
	c->access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	c->retry_cnt = 7;
	c->rnr_retry = 7;
	c->timeout = 14;
	c->min_rnr_timer = 12;
	c->max_rd_atomic = 16;
	c->max_dest_rd_atomic = 16;
	c->sq_size = 256;
	c->rq_size = 256;
	c->max_unacked_psn = 128;
	c->tick_ps = 1000;
	c->ackreq_policy = RC_ACKREQ_RXE;
	c->ackreq_every = 64;
	c->addr.pkey = RNIC_DEFAULT_PKEY;
	c->addr.hop_limit = RNIC_IPV4_DEFAULT_TTL;
	c->addr.ip_df = 1;
	c->addr.ip_id_inc = 1;
	c->addr.udp_sport = RNIC_ROCEV2_SPORT_MIN;
}

static uint64_t ns_to_ticks(const struct rc_qp *qp, uint64_t ns)
{
	uint64_t t = ns * 1000 / qp->cfg.tick_ps;

	return t ? t : 1;
}

struct rc_qp *rc_qp_create(const struct rc_qp_cfg *cfg, struct rc_mem *mem, struct rc_cq *scq,
			   struct rc_cq *rcq)
{
	struct rc_qp *qp;

	if (!cfg || !mem || cfg->mtu < 256 || cfg->mtu > 4096 || (cfg->mtu & (cfg->mtu - 1)) ||
	    !cfg->sq_size || !cfg->rq_size || !cfg->tick_ps || cfg->max_rd_atomic == 0 ||
	    cfg->max_dest_rd_atomic > RC_MAX_RD_ATOMIC || cfg->retry_cnt > 7 || cfg->rnr_retry > 7 ||
	    cfg->max_unacked_psn == 0 || cfg->max_unacked_psn >= (1u << (RNIC_PSN_BITS - 1)))
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->cfg = *cfg;
	qp->cfg.qpn &= PSN_MASK;
	qp->cfg.dest_qpn &= PSN_MASK;
	qp->sq = calloc(cfg->sq_size, sizeof(*qp->sq));
	qp->rq = calloc(cfg->rq_size, sizeof(*qp->rq));
	qp->jobs_cap = 64;
	qp->jobs = calloc(qp->jobs_cap, sizeof(*qp->jobs));
	if (!qp->sq || !qp->rq || !qp->jobs) {
		rc_qp_destroy(qp);
		return NULL;
	}
	qp->mem = mem;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->state = RNIC_QPS_RTS;
	qp->ip_id = cfg->addr.ip_id;
	qp->timeout_ticks = cfg->timeout ? ns_to_ticks(qp, rc_ack_timeout_ns(cfg->timeout)) : 0;
	qp->next_psn = qp->una_psn = qp->sent_end = cfg->sq_psn & PSN_MASK;
	qp->epsn = cfg->rq_psn & PSN_MASK;
	qp->retry_left = cfg->retry_cnt;
	qp->rnr_left = cfg->rnr_retry;
	qp->retry_at = RC_TIME_NEVER;
	qp->cur_op = -1;
	return qp;
}

void rc_qp_destroy(struct rc_qp *qp)
{
	if (!qp)
		return;
	free(qp->sq);
	free(qp->rq);
	free(qp->jobs);
	free(qp);
}

const struct rc_qp_cfg *rc_qp_get_cfg(const struct rc_qp *qp) { return &qp->cfg; }
void rc_qp_set_tx(struct rc_qp *qp, rc_tx_fn tx, void *arg) { qp->tx = tx; qp->tx_arg = arg; }
int rc_qp_state(const struct rc_qp *qp) { return qp->state; }
const struct rc_qp_stats *rc_qp_stats(const struct rc_qp *qp) { return &qp->st; }
uint32_t rc_qp_sq_outstanding(const struct rc_qp *qp) { return qp->sq_post - qp->sq_done; }
uint32_t rc_qp_rq_posted(const struct rc_qp *qp) { return qp->rq_post - qp->rq_cons; }
uint32_t rc_qp_epsn(const struct rc_qp *qp) { return qp->epsn; }
uint32_t rc_qp_msn(const struct rc_qp *qp) { return qp->msn; }
uint32_t rc_qp_next_psn(const struct rc_qp *qp) { return qp->next_psn; }
uint32_t rc_qp_una_psn(const struct rc_qp *qp) { return qp->una_psn; }

void rc_qp_set_oracle(struct rc_qp *qp, const struct rc_oracle *oracle)
{
	qp->has_oracle = oracle && oracle->ask;
	if (qp->has_oracle)
		qp->oracle = *oracle;
}

static int ask(struct rc_qp *qp, enum rc_oracle_q q, const struct rc_pkt *req)
{
	return qp->oracle.ask(qp->oracle.arg, q, req);
}

/* ------------------------------------------------------------ packets out */

static void fill_addr(struct rc_qp *qp, struct rc_pkt *p, unsigned int opcode, uint32_t psn)
{
	const struct rc_qp_addr *a = &qp->cfg.addr;

	memset(p, 0, sizeof(*p));
	memcpy(p->eth_src, a->smac, 6);
	memcpy(p->eth_dst, a->dmac, 6);
	memcpy(p->sgid, a->sgid, 16);
	memcpy(p->dgid, a->dgid, 16);
	p->ipv6 = !rc_gid_is_ipv4(a->dgid);
	p->tclass = a->tclass;
	p->hop_limit = a->hop_limit;
	p->flow_label = p->ipv6 ? a->flow_label & 0xfffff : 0;
	p->ip_id = qp->ip_id;
	if (a->ip_id_inc)
		qp->ip_id++;
	p->ip_frag = a->ip_df ? 0x4000 : 0;
	p->udp_sport = a->udp_sport;
	p->pkey = a->pkey;
	p->dest_qpn = qp->cfg.dest_qpn;
	p->opcode = (uint8_t)opcode;
	p->psn = psn & PSN_MASK;
}

static void emit(struct rc_qp *qp, struct rc_pkt *p)
{
	p->pad = (uint8_t)((0u - p->payload_len) & 3);
	qp->st.tx_pkts++;
	qp->st.tx_bytes += p->payload_len;
	if (qp->tx)
		qp->tx(qp->tx_arg, p);
}

/* ------------------------------------------------------------ completions */

static uint32_t wc_opcode(uint32_t wr_opcode)
{
	switch (wr_opcode) {
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		return RNIC_WC_RDMA_WRITE;
	case RNIC_WR_SEND:
	case RNIC_WR_SEND_WITH_IMM:
		return RNIC_WC_SEND;
	case RNIC_WR_RDMA_READ:
		return RNIC_WC_RDMA_READ;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
		return RNIC_WC_COMP_SWAP;
	default:
		return RNIC_WC_FETCH_ADD;
	}
}

static int is_rd_atomic(uint32_t op)
{
	return op == RNIC_WR_RDMA_READ || op == RNIC_WR_ATOMIC_CMP_AND_SWP || op == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static int is_atomic(uint32_t op)
{
	return op == RNIC_WR_ATOMIC_CMP_AND_SWP || op == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

/* Complete the oldest send WQE (in order, exactly once). A completion is
 * written for a signaled WQE and for every error (IBTA 10.7.3.1). */
static void complete_head(struct rc_qp *qp, uint32_t status, uint32_t vendor_err)
{
	struct swqe *w = SQ(qp, qp->sq_done);

	if ((w->wr.flags & RC_SEND_SIGNALED) || status != RNIC_WC_SUCCESS) {
		struct rc_wc wc;

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = w->wr.wr_id;
		wc.status = status;
		wc.opcode = wc_opcode(w->wr.opcode);
		wc.vendor_err = vendor_err;
		wc.byte_len = w->len;
		wc.qp_num = qp->cfg.qpn;
		if (w->wr.opcode == RNIC_WR_SEND_WITH_IMM || w->wr.opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)
			wc.wc_flags = RNIC_WC_FLAG_WITH_IMM;
		cq_push(qp->scq, &wc);
	}
	if (w->has_rd_atomic) {
		w->has_rd_atomic = 0;
		qp->rd_atomic--;
	}
	w->state = W_DONE;
	qp->sq_done++;
	if ((int32_t)(qp->sq_send - qp->sq_done) < 0) {
		qp->sq_send = qp->sq_done;
		qp->pkt_idx = 0;
	}
}

static void complete_recv(struct rc_qp *qp, const struct rc_recv_wr *r, uint32_t status, uint32_t opcode,
			  uint32_t byte_len, int with_imm, uint32_t imm)
{
	struct rc_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r->wr_id;
	wc.status = status;
	wc.opcode = opcode;
	wc.byte_len = byte_len;
	wc.qp_num = qp->cfg.qpn;
	wc.src_qp = qp->cfg.dest_qpn;
	if (with_imm) {
		wc.wc_flags = RNIC_WC_FLAG_WITH_IMM;
		wc.imm_data = imm;
	}
	if (status == RNIC_WC_SUCCESS)
		qp->st.sends_delivered++;
	cq_push(qp->rcq, &wc);
}

/* The error state: nothing more goes out but queued responses; every
 * outstanding work request completes with WR_FLUSH_ERR, in order. */
static void qp_error(struct rc_qp *qp)
{
	if (qp->state == RNIC_QPS_ERR)
		return;
	qp->state = RNIC_QPS_ERR;
	qp->retry_at = RC_TIME_NEVER;
	qp->rnr_wait = 0;
	while (qp->sq_done != qp->sq_post)
		complete_head(qp, RNIC_WC_WR_FLUSH_ERR, 0);
	qp->sq_send = qp->sq_done;
	if (qp->r_active) {
		qp->r_active = 0;
		complete_recv(qp, &qp->r_wqe, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, 0, 0);
	}
	while (qp->rq_cons != qp->rq_post) {
		complete_recv(qp, RQ(qp, qp->rq_cons), RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, 0, 0);
		qp->rq_cons++;
	}
	qp->cur_op = -1;
}

void rc_qp_set_error(struct rc_qp *qp)
{
	qp_error(qp);
}

/* ------------------------------------------------------------ posting */

int rc_qp_post_send(struct rc_qp *qp, const struct rc_send_wr *wr)
{
	struct swqe *w;
	uint64_t len = 0;

	if (wr->opcode > RNIC_WR_ATOMIC_FETCH_AND_ADD || wr->num_sge < 0 || wr->num_sge > RC_MAX_SGE)
		return EINVAL;
	if ((wr->flags & RC_SEND_INLINE) &&
	    (is_rd_atomic(wr->opcode) || wr->inline_len > RNIC_MAX_INLINE_BYTES || (!wr->inline_data && wr->inline_len)))
		return EINVAL;
	if (qp->sq_post - qp->sq_done >= qp->cfg.sq_size)
		return ENOMEM;
	w = SQ(qp, qp->sq_post);
	memset(w, 0, sizeof(*w));
	w->wr = *wr;
	if (wr->flags & RC_SEND_INLINE) {
		memcpy(w->inl, wr->inline_data, wr->inline_len);
		w->wr.inline_data = NULL;
		len = wr->inline_len;
	} else {
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
	}
	w->len = len > 0xffffffffu ? 0xffffffffu : (uint32_t)len;
	w->state = W_POSTED;
	qp->sq_post++;
	if (qp->state == RNIC_QPS_ERR)
		while (qp->sq_done != qp->sq_post)
			complete_head(qp, RNIC_WC_WR_FLUSH_ERR, 0);
	return 0;
}

int rc_qp_post_recv(struct rc_qp *qp, const struct rc_recv_wr *wr)
{
	if (wr->num_sge < 0 || wr->num_sge > RC_MAX_RECV_SGE)
		return EINVAL;
	if (qp->state == RNIC_QPS_ERR) {
		complete_recv(qp, wr, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, 0, 0);
		return 0;
	}
	if (qp->rq_post - qp->rq_cons >= qp->cfg.rq_size)
		return ENOMEM;
	*RQ(qp, qp->rq_post) = *wr;
	qp->rq_post++;
	return 0;
}

/* ------------------------------------------------------------ requester */

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return a ? (uint32_t)(((uint64_t)a + b - 1) / b) : 1;
}

/* Checks a NIC makes before sending anything of a WQE: the status it fails
 * with, or SUCCESS. */
static uint32_t local_check(struct rc_qp *qp, struct swqe *w)
{
	unsigned int need = is_rd_atomic(w->wr.opcode) ? RNIC_ACCESS_LOCAL_WRITE : 0;
	uint64_t len = 0;

	if (w->wr.flags & RC_SEND_INLINE)
		return RNIC_WC_SUCCESS;
	for (int i = 0; i < w->wr.num_sge; i++) {
		const struct rc_sge *s = &w->wr.sg_list[i];
		int ok;

		len += s->length;
		rc_mem_resolve(qp->mem, s->lkey, qp->cfg.pd, s->addr, s->length, need, &ok);
		if (!ok)
			return RNIC_WC_LOC_PROT_ERR;
	}
	if (len > MAX_MSG_BYTES)
		return RNIC_WC_LOC_LEN_ERR;
	if (is_atomic(w->wr.opcode) && len != 8)
		return RNIC_WC_LOC_LEN_ERR;
	return RNIC_WC_SUCCESS;
}

/* Copy n bytes at message offset off between the WQE's buffers and dst
 * (to_wqe: into the WQE's buffers). Returns 0, or -1 if a key check fails. */
static int wqe_copy(struct rc_qp *qp, struct swqe *w, uint32_t off, uint8_t *data, uint32_t n, int to_wqe)
{
	if (w->wr.flags & RC_SEND_INLINE) {
		if (!to_wqe)
			memcpy(data, w->inl + off, n);
		return 0;
	}
	for (int i = 0; i < w->wr.num_sge && n; i++) {
		const struct rc_sge *s = &w->wr.sg_list[i];
		uint32_t take;
		uint8_t *p;
		int ok;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		take = s->length - off < n ? s->length - off : n;
		p = rc_mem_resolve(qp->mem, s->lkey, qp->cfg.pd, s->addr + off, take,
				   to_wqe ? RNIC_ACCESS_LOCAL_WRITE : 0, &ok);
		if (!ok)
			return -1;
		if (p) {
			if (to_wqe)
				memcpy(p, data, take);
			else
				memcpy(data, p, take);
		} else if (!to_wqe) {
			memset(data, 0, take);
		}
		data += take;
		n -= take;
		off = 0;
	}
	return 0;
}

static void arm_timer(struct rc_qp *qp, rc_time_t now)
{
	qp->retry_at = qp->timeout_ticks ? now + qp->timeout_ticks : RC_TIME_NEVER;
}

/* Go back N: send again from the oldest unacknowledged PSN, which lies in
 * the oldest WQE not completed. */
static void restart(struct rc_qp *qp, rc_time_t now)
{
	struct swqe *w;

	if (qp->sq_done == qp->sq_post)
		return;
	w = SQ(qp, qp->sq_done);
	if (w->state == W_POSTED || w->state == W_ERROR)
		return;
	qp->sq_send = qp->sq_done;
	qp->pkt_idx = is_rd_atomic(w->wr.opcode) ? 0 : (uint32_t)rc_psn_diff(qp->una_psn, w->first_psn);
	qp->next_psn = qp->una_psn;
	qp->noack = 0;
	qp->st.retries++;
	arm_timer(qp, now);
}

/* The oldest unacknowledged PSN moved forward: retry counters start over
 * (rxe: reset_retry_counters), and the send point never lags behind it. */
static void advance_una(struct rc_qp *qp, uint32_t psn, rc_time_t now)
{
	if (rc_psn_diff(psn, qp->una_psn) <= 0)
		return;
	qp->una_psn = psn;
	qp->retry_left = qp->cfg.retry_cnt;
	qp->rnr_left = qp->cfg.rnr_retry;
	qp->nak_guard = 0;
	if (rc_psn_diff(qp->una_psn, qp->next_psn) > 0) {
		struct swqe *w = SQ(qp, qp->sq_send);

		if (qp->sq_send == qp->sq_done && qp->sq_send != qp->sq_post && !is_rd_atomic(w->wr.opcode))
			qp->pkt_idx = (uint32_t)rc_psn_diff(qp->una_psn, w->first_psn);
		qp->next_psn = qp->una_psn;
	}
	if (rc_psn_diff(qp->sent_end, qp->una_psn) <= 0)
		qp->retry_at = RC_TIME_NEVER;
	else
		arm_timer(qp, now);
}

/* The oldest WQE ends with an error; the QP goes to the error state. */
static void req_fatal(struct rc_qp *qp, uint32_t status, uint32_t syndrome)
{
	if (qp->sq_done != qp->sq_post)
		complete_head(qp, status, syndrome);
	qp_error(qp);
}

/* A WQE that failed its local checks completes when it is the oldest. */
static void check_head_error(struct rc_qp *qp)
{
	if (qp->state == RNIC_QPS_RTS && qp->sq_done != qp->sq_post && SQ(qp, qp->sq_done)->state == W_ERROR)
		req_fatal(qp, SQ(qp, qp->sq_done)->status, 0);
}

static int ackreq_policy(struct rc_qp *qp, uint32_t idx, int last)
{
	int a = last;

	switch (qp->cfg.ackreq_policy) {
	case RC_ACKREQ_EVERY_N:
		a |= qp->cfg.ackreq_every && idx % qp->cfg.ackreq_every == qp->cfg.ackreq_every - 1;
		break;
	case RC_ACKREQ_RXE:
		a |= qp->noack++ > qp->cfg.ackreq_every;
		if (a)
			qp->noack = 0;
		break;
	default:
		break;
	}
	return a;
}

/* Build packet pkt_idx of a SEND or WRITE WQE (also what the scoreboard calls). */
static void build_send_write(struct rc_qp *qp, struct swqe *w, uint32_t idx, struct rc_pkt *p)
{
	uint32_t mtu = qp->cfg.mtu, off = idx * mtu, n = w->len - off < mtu ? w->len - off : mtu;
	int first = idx == 0, last = off + n >= w->len;
	int imm = w->wr.opcode == RNIC_WR_SEND_WITH_IMM || w->wr.opcode == RNIC_WR_RDMA_WRITE_WITH_IMM;
	unsigned int op;

	if (w->wr.opcode == RNIC_WR_SEND || w->wr.opcode == RNIC_WR_SEND_WITH_IMM)
		op = first && last ? (imm ? RNIC_OP_SEND_ONLY_IMM : RNIC_OP_SEND_ONLY)
		     : first       ? RNIC_OP_SEND_FIRST
		     : last        ? (imm ? RNIC_OP_SEND_LAST_IMM : RNIC_OP_SEND_LAST)
				   : RNIC_OP_SEND_MIDDLE;
	else
		op = first && last ? (imm ? RNIC_OP_RDMA_WRITE_ONLY_IMM : RNIC_OP_RDMA_WRITE_ONLY)
		     : first       ? RNIC_OP_RDMA_WRITE_FIRST
		     : last        ? (imm ? RNIC_OP_RDMA_WRITE_LAST_IMM : RNIC_OP_RDMA_WRITE_LAST)
				   : RNIC_OP_RDMA_WRITE_MIDDLE;
	fill_addr(qp, p, op, rc_psn_add(w->first_psn, idx));
	if (rc_op_flags(op) & RC_OPF_RETH) {
		p->reth_va = w->wr.remote_addr;
		p->reth_rkey = w->wr.rkey;
		p->reth_len = w->len;
	}
	if (imm && last)
		p->imm = w->wr.imm_data;
	/* the solicited event rides on the last packet of a SEND or a WRITE with immediate */
	p->se = (w->wr.flags & RC_SEND_SOLICITED) && last && w->wr.opcode != RNIC_WR_RDMA_WRITE;
	p->payload_len = n;
	p->payload = qp->scratch;
	p->ackreq = (uint8_t)ackreq_policy(qp, idx, last);
}

/* Send the next request packet if the window, fences and RNR waits allow.
 * Returns 1 if a packet went out. */
static int req_send_one(struct rc_qp *qp, rc_time_t now)
{
	struct swqe *w;
	struct rc_pkt p;
	int last = 1;

	if (qp->state != RNIC_QPS_RTS || qp->blocked || qp->sq_send == qp->sq_post)
		return 0;
	if (qp->rnr_wait) {
		if (now < qp->rnr_until)
			return 0;
		qp->rnr_wait = 0;
	}
	w = SQ(qp, qp->sq_send);
	if (!w->checked) {
		uint32_t st = local_check(qp, w);

		w->checked = 1;
		if (st != RNIC_WC_SUCCESS) {
			w->state = W_ERROR;
			w->status = st;
			qp->blocked = 1;
			check_head_error(qp);
			return 0;
		}
	}
	if (w->state == W_POSTED) {
		if ((w->wr.flags & RC_SEND_FENCE) && qp->rd_atomic > 0)
			return 0;
		if (is_rd_atomic(w->wr.opcode) && !w->has_rd_atomic) {
			if (qp->rd_atomic >= qp->cfg.max_rd_atomic)
				return 0;
			w->has_rd_atomic = 1;
			qp->rd_atomic++;
		}
	}
	if (rc_psn_diff(qp->next_psn, qp->una_psn) >= (int32_t)qp->cfg.max_unacked_psn)
		return 0;
	if (w->state == W_POSTED) {
		w->first_psn = qp->next_psn;
		w->npkts = is_atomic(w->wr.opcode) ? 1 : div_up(w->len, qp->cfg.mtu);
		w->last_psn = rc_psn_add(w->first_psn, w->npkts - 1);
		w->state = W_STARTED;
	}
	switch (w->wr.opcode) {
	case RNIC_WR_RDMA_READ: {
		uint32_t done = (uint32_t)rc_psn_diff(qp->next_psn, w->first_psn) * qp->cfg.mtu;

		fill_addr(qp, &p, RNIC_OP_RDMA_READ_REQUEST, qp->next_psn);
		p.reth_va = w->wr.remote_addr + done;
		p.reth_rkey = w->wr.rkey;
		p.reth_len = w->len - done;
		p.ackreq = (uint8_t)ackreq_policy(qp, 0, 1);
		qp->next_psn = rc_psn_add(w->last_psn, 1);
		break;
	}
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		fill_addr(qp, &p, w->wr.opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ? RNIC_OP_COMPARE_SWAP : RNIC_OP_FETCH_ADD,
			  qp->next_psn);
		p.atomic_va = w->wr.remote_addr;
		p.atomic_rkey = w->wr.rkey;
		if (w->wr.opcode == RNIC_WR_ATOMIC_CMP_AND_SWP) {
			p.atomic_swap_add = w->wr.swap;
			p.atomic_compare = w->wr.compare_add;
		} else {
			p.atomic_swap_add = w->wr.compare_add;
		}
		p.ackreq = (uint8_t)ackreq_policy(qp, 0, 1);
		qp->next_psn = rc_psn_add(qp->next_psn, 1);
		break;
	default:
		build_send_write(qp, w, qp->pkt_idx, &p);
		if (wqe_copy(qp, w, qp->pkt_idx * qp->cfg.mtu, qp->scratch, p.payload_len, 0)) {
			/* the MR went away after the first check */
			w->state = W_ERROR;
			w->status = RNIC_WC_LOC_PROT_ERR;
			qp->blocked = 1;
			check_head_error(qp);
			return 0;
		}
		last = (qp->pkt_idx + 1) * qp->cfg.mtu >= w->len;
		qp->next_psn = rc_psn_add(qp->next_psn, 1);
		break;
	}
	if (rc_psn_diff(qp->next_psn, qp->sent_end) > 0) {
		qp->sent_end = qp->next_psn;
	} else {
		qp->st.tx_retransmits++;
	}
	qp->st.tx_requests++;
	emit(qp, &p);
	if (last) {
		if (w->state < W_SENT)
			w->state = W_SENT;
		qp->sq_send++;
		qp->pkt_idx = 0;
	} else {
		qp->pkt_idx++;
	}
	if (qp->retry_at == RC_TIME_NEVER)
		arm_timer(qp, now);
	return 1;
}

static uint32_t nak_status(unsigned int code)
{
	switch (code) {
	case RNIC_AETH_NAK_INVALID_REQ:
		return RNIC_WC_REM_INV_REQ_ERR;
	case RNIC_AETH_NAK_REM_ACCESS_ERR:
		return RNIC_WC_REM_ACCESS_ERR;
	case RNIC_AETH_NAK_INVALID_RD_REQ:
		return RNIC_WC_REM_INV_RD_REQ_ERR;
	default:
		return RNIC_WC_REM_OP_ERR; /* remote operational error and reserved codes (rxe) */
	}
}

/* A transport retry (NAK, gap or timeout) if the retry count allows one. */
static void transport_retry(struct rc_qp *qp, rc_time_t now)
{
	if (qp->retry_left == 0) {
		req_fatal(qp, RNIC_WC_RETRY_EXC_ERR, 0);
		return;
	}
	qp->retry_left--;
	restart(qp, now);
}

static void req_rx(struct rc_qp *qp, rc_time_t now, const struct rc_pkt *pkt)
{
	unsigned int f = rc_op_flags(pkt->opcode);
	uint32_t p = pkt->psn;
	uint8_t syn = pkt->aeth_syndrome;
	struct swqe *w;

	qp->st.rx_responses++;
	if (qp->state != RNIC_QPS_RTS) {
		qp->st.dropped++;
		return;
	}
	/* only PSNs outstanding: [una, highest sent] */
	if (rc_psn_diff(p, qp->una_psn) < 0 || rc_psn_diff(p, qp->sent_end) >= 0) {
		qp->st.rx_stale++;
		return;
	}
	/* a response for PSN p acknowledges every request before p (IBTA
	 * 9.7.5.2.1); READ and ATOMIC wholly before p lost their responses */
	while (qp->sq_done != qp->sq_post) {
		w = SQ(qp, qp->sq_done);
		if (w->state < W_STARTED || rc_psn_diff(w->last_psn, p) >= 0)
			break;
		if (is_rd_atomic(w->wr.opcode)) {
			if (!qp->nak_guard) {
				qp->nak_guard = 1;
				transport_retry(qp, now);
			}
			return;
		}
		complete_head(qp, RNIC_WC_SUCCESS, 0);
		advance_una(qp, rc_psn_add(w->last_psn, 1), now);
	}
	if (qp->sq_done == qp->sq_post) {
		qp->st.rx_stale++;
		return;
	}
	w = SQ(qp, qp->sq_done);
	if (w->state < W_STARTED) {
		qp->st.rx_stale++;
		return;
	}
	if (f & RC_OPF_ACK) {
		switch (rc_aeth_kind(syn)) {
		case RNIC_AETH_KIND_ACK:
			qp->st.rx_acks++;
			if (is_rd_atomic(w->wr.opcode)) {
				/* an ACK where a READ or ATOMIC response belongs */
				if (!qp->nak_guard) {
					qp->nak_guard = 1;
					transport_retry(qp, now);
				}
				return;
			}
			advance_una(qp, rc_psn_add(p, 1), now);
			if (p == w->last_psn && w->state >= W_SENT)
				complete_head(qp, RNIC_WC_SUCCESS, 0);
			break;
		case RNIC_AETH_KIND_RNR:
			qp->st.rx_rnr_naks++;
			advance_una(qp, p, now);
			if (qp->cfg.rnr_retry != RNIC_RETRY_INFINITE) {
				if (qp->rnr_left == 0) {
					req_fatal(qp, RNIC_WC_RNR_RETRY_EXC_ERR, syn);
					return;
				}
				qp->rnr_left--;
			}
			restart(qp, now);
			qp->retry_at = RC_TIME_NEVER;
			qp->rnr_wait = 1;
			qp->rnr_until = now + ns_to_ticks(qp, rc_rnr_timer_ns(rc_aeth_value(syn)));
			qp->st.rnr_waits++;
			break;
		case RNIC_AETH_KIND_NAK:
			qp->st.rx_naks++;
			if (rc_aeth_value(syn) == RNIC_AETH_NAK_PSN_SEQ_ERR) {
				advance_una(qp, p, now);
				if (!qp->nak_guard) {
					qp->nak_guard = 1;
					transport_retry(qp, now);
				}
			} else {
				req_fatal(qp, nak_status(rc_aeth_value(syn)), syn);
			}
			return;
		default:
			qp->st.dropped++; /* reserved syndrome */
			return;
		}
	} else if (f & RC_OPF_READ_RESP) {
		uint32_t idx, off, want;

		if (w->wr.opcode != RNIC_WR_RDMA_READ || ((f & RC_OPF_AETH) && rc_aeth_kind(syn) != RNIC_AETH_KIND_ACK)) {
			req_fatal(qp, RNIC_WC_BAD_RESP_ERR, 0);
			return;
		}
		if (p != qp->una_psn) {
			/* a gap in the responses: ask again from the first missing one */
			if (!qp->nak_guard) {
				qp->nak_guard = 1;
				transport_retry(qp, now);
			}
			return;
		}
		idx = (uint32_t)rc_psn_diff(p, w->first_psn);
		off = idx * qp->cfg.mtu;
		want = w->len - off < qp->cfg.mtu ? w->len - off : qp->cfg.mtu;
		if (!!(f & RC_OPF_END) != (p == w->last_psn) || (idx == 0 && !(f & RC_OPF_START))) {
			req_fatal(qp, RNIC_WC_BAD_RESP_ERR, 0);
			return;
		}
		if (pkt->payload_len != want) {
			req_fatal(qp, RNIC_WC_LOC_LEN_ERR, 0);
			return;
		}
		if (wqe_copy(qp, w, off, (uint8_t *)(uintptr_t)pkt->payload, want, 1)) {
			req_fatal(qp, RNIC_WC_LOC_PROT_ERR, 0);
			return;
		}
		advance_una(qp, rc_psn_add(p, 1), now);
		if (p == w->last_psn)
			complete_head(qp, RNIC_WC_SUCCESS, 0);
	} else if (f & RC_OPF_ATOMIC_ACK) {
		uint8_t v[8];

		if (!is_atomic(w->wr.opcode) || p != w->first_psn || rc_aeth_kind(syn) != RNIC_AETH_KIND_ACK) {
			req_fatal(qp, RNIC_WC_BAD_RESP_ERR, 0);
			return;
		}
		for (int i = 0; i < 8; i++)
			v[i] = (uint8_t)(pkt->atomic_orig >> (8 * i)); /* host memory is little-endian */
		if (wqe_copy(qp, w, 0, v, 8, 1)) {
			req_fatal(qp, RNIC_WC_LOC_PROT_ERR, 0);
			return;
		}
		advance_una(qp, rc_psn_add(p, 1), now);
		complete_head(qp, RNIC_WC_SUCCESS, 0);
	} else {
		qp->st.dropped++;
		return;
	}
	check_head_error(qp);
}

/* ------------------------------------------------------------ responder */

static struct job *push_job(struct rc_qp *qp)
{
	struct job *j;

	if (qp->job_head - qp->job_tail >= qp->jobs_cap) {
		uint32_t n = qp->jobs_cap * 2;
		struct job *nj = calloc(n, sizeof(*nj));

		if (!nj)
			return NULL;
		for (uint32_t i = 0; i < qp->jobs_cap; i++)
			nj[i] = qp->jobs[(qp->job_tail + i) % qp->jobs_cap];
		free(qp->jobs);
		qp->jobs = nj;
		qp->job_head -= qp->job_tail;
		qp->job_tail = 0;
		qp->jobs_cap = n;
	}
	j = &qp->jobs[qp->job_head % qp->jobs_cap];
	memset(j, 0, sizeof(*j));
	qp->job_head++;
	return j;
}

static void push_ack(struct rc_qp *qp, uint32_t psn, uint8_t syn)
{
	struct job *j = push_job(qp);

	if (!j)
		return;
	j->kind = J_ACK;
	j->psn = psn & PSN_MASK;
	j->syndrome = syn;
	j->msn = qp->msn;
}

static uint8_t syn_ack(void)
{
	return rc_aeth(RNIC_AETH_KIND_ACK, RNIC_AETH_CREDITS_INVALID);
}

static uint8_t syn_nak(unsigned int code)
{
	return rc_aeth(RNIC_AETH_KIND_NAK, code);
}

/* Class C/A errors (IBTA 9.9.3.1.2): a NAK for the request, the receive WQE
 * in use (if the error concerns it) completes with recv_status, and the QP
 * goes to the error state. */
static void resp_fatal(struct rc_qp *qp, uint32_t psn, unsigned int code, uint32_t recv_status)
{
	push_ack(qp, psn, syn_nak(code));
	qp->st.tx_naks++;
	if (recv_status && qp->r_active) {
		qp->r_active = 0;
		complete_recv(qp, &qp->r_wqe, recv_status, RNIC_WC_RECV, qp->r_off, 0, 0);
	}
	qp_error(qp);
}

/* Take the receive WQE at the head of the RQ for a SEND or a WRITE with
 * immediate. Returns 0, 1 (none: RNR) or -1 (error handled). */
static int take_rwqe(struct rc_qp *qp, const struct rc_pkt *pkt, int check_sges)
{
	if (qp->has_oracle) {
		if (!ask(qp, RC_ORACLE_RECV_READY, pkt))
			return 1;
		memset(&qp->r_wqe, 0, sizeof(qp->r_wqe));
		qp->r_cap = 0xffffffffu;
		memset(qp->r_ptr, 0, sizeof(qp->r_ptr));
	} else {
		if (qp->rq_cons == qp->rq_post)
			return 1;
		qp->r_wqe = *RQ(qp, qp->rq_cons);
		qp->rq_cons++;
		qp->r_cap = 0;
		memset(qp->r_ptr, 0, sizeof(qp->r_ptr));
		memset(qp->r_len, 0, sizeof(qp->r_len));
	}
	qp->r_active = 1;
	qp->r_off = 0;
	if (!check_sges)
		return 0;
	if (qp->has_oracle) {
		if (!ask(qp, RC_ORACLE_RECV_SGE_OK, pkt)) {
			resp_fatal(qp, pkt->psn, RNIC_AETH_NAK_REM_OP_ERR, RNIC_WC_LOC_PROT_ERR);
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < qp->r_wqe.num_sge; i++) {
		const struct rc_sge *s = &qp->r_wqe.sg_list[i];
		int ok;

		if (s->lkey == RNIC_INVALID_LKEY)
			break;
		qp->r_ptr[i] = rc_mem_resolve(qp->mem, s->lkey, qp->cfg.pd, s->addr, s->length,
					      RNIC_ACCESS_LOCAL_WRITE, &ok);
		if (!ok) {
			/* rxe: malformed WQE -> remote operational error; the
			 * RTL: the same NAK and LOC_PROT_ERR */
			resp_fatal(qp, pkt->psn, RNIC_AETH_NAK_REM_OP_ERR, RNIC_WC_LOC_PROT_ERR);
			return -1;
		}
		qp->r_len[i] = s->length;
		qp->r_cap += s->length;
	}
	return 0;
}

static void scatter_recv(struct rc_qp *qp, const uint8_t *data, uint32_t n)
{
	uint32_t off = qp->r_off;

	for (int i = 0; i < RC_MAX_RECV_SGE && n; i++) {
		uint32_t take;

		if (off >= qp->r_len[i]) {
			off -= qp->r_len[i];
			continue;
		}
		take = qp->r_len[i] - off < n ? qp->r_len[i] - off : n;
		if (qp->r_ptr[i])
			memcpy(qp->r_ptr[i] + off, data, take);
		data += take;
		n -= take;
		off = 0;
	}
}

static struct resource *find_res(struct rc_qp *qp, uint32_t psn, int type)
{
	for (uint32_t i = 0; i < qp->cfg.max_dest_rd_atomic; i++) {
		struct resource *r = &qp->res[i];

		if (r->type == type && rc_psn_diff(psn, r->first_psn) >= 0 && rc_psn_diff(psn, r->last_psn) <= 0)
			return r;
	}
	return NULL;
}

static struct resource *new_res(struct rc_qp *qp)
{
	struct resource *r = &qp->res[qp->res_next % qp->cfg.max_dest_rd_atomic];

	qp->res_next++;
	memset(r, 0, sizeof(*r));
	return r;
}

static uint8_t *resolve_remote(struct rc_qp *qp, const struct rc_pkt *pkt, uint32_t rkey, uint64_t va,
			       uint64_t len, unsigned int access, int *ok)
{
	if (qp->has_oracle) {
		*ok = len == 0 || ask(qp, RC_ORACLE_RKEY_OK, pkt);
		return NULL;
	}
	return rc_mem_resolve(qp->mem, rkey, qp->cfg.pd, va, len, access, ok);
}

static void push_read(struct rc_qp *qp, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len, uint8_t *src)
{
	struct job *j = push_job(qp);

	if (!j)
		return;
	j->kind = J_READ;
	j->psn = psn;
	j->va = va;
	j->rkey = rkey;
	j->len = len;
	j->src = src;
	j->msn = qp->msn;
}

static void push_atomic_ack(struct rc_qp *qp, uint32_t psn, uint64_t orig)
{
	struct job *j = push_job(qp);

	if (!j)
		return;
	j->kind = J_ATOMIC_ACK;
	j->psn = psn;
	j->orig = orig;
	j->msn = qp->msn;
}

/* A request behind the expected PSN (IBTA 9.7.5.1.2 / C9-105..C9-107). */
static void resp_duplicate(struct rc_qp *qp, const struct rc_pkt *pkt)
{
	unsigned int f = rc_op_flags(pkt->opcode);

	qp->st.rx_duplicates++;
	if (f & (RC_OPF_SEND | RC_OPF_WRITE)) {
		/* acknowledge again, deliver nothing */
		push_ack(qp, rc_psn_add(qp->epsn, PSN_MASK), syn_ack());
		qp->st.tx_acks++;
	} else if (f & RC_OPF_READ_REQ) {
		struct resource *r = find_res(qp, pkt->psn, RES_READ);
		uint8_t *src;
		int ok;

		if (!r || pkt->reth_rkey != r->rkey || pkt->reth_va < r->va || pkt->reth_len > r->len ||
		    pkt->reth_va - r->va > r->len - pkt->reth_len) {
			qp->st.dropped++; /* not a subset of a READ we answered: ignore (rxe) */
			return;
		}
		/* execute it again over the memory as it is now */
		src = resolve_remote(qp, pkt, pkt->reth_rkey, pkt->reth_va, pkt->reth_len, RNIC_ACCESS_REMOTE_READ, &ok);
		if (!ok) {
			resp_fatal(qp, pkt->psn, RNIC_AETH_NAK_REM_ACCESS_ERR, 0);
			return;
		}
		push_read(qp, pkt->psn, pkt->reth_va, pkt->reth_rkey, pkt->reth_len, src);
		qp->st.dup_reads++;
	} else if (f & RC_OPF_ATOMIC_REQ) {
		struct resource *r = find_res(qp, pkt->psn, RES_ATOMIC);

		if (!r) {
			qp->st.dropped++;
			return;
		}
		/* answer from the saved result; never execute twice */
		push_atomic_ack(qp, pkt->psn, r->orig);
		qp->st.dup_atomics++;
	}
}

static void resp_rx(struct rc_qp *qp, rc_time_t now, const struct rc_pkt *pkt)
{
	unsigned int f = rc_op_flags(pkt->opcode);
	uint32_t p = pkt->psn, mtu = qp->cfg.mtu, n = pkt->payload_len;
	int32_t d;
	int ok;

	(void)now;
	qp->st.rx_requests++;
	if (qp->state != RNIC_QPS_RTS && qp->state != RNIC_QPS_RTR) {
		qp->st.dropped++;
		return;
	}
	d = rc_psn_diff(p, qp->epsn);
	if (d > 0) {
		/* one NAK per sequence error (IBTA 9.7.5.1.1); also none while an
		 * RNR NAK is outstanding (the RTL's choice) */
		qp->st.rx_psn_errors++;
		if (!qp->nak_sent) {
			push_ack(qp, qp->epsn, syn_nak(RNIC_AETH_NAK_PSN_SEQ_ERR));
			qp->st.tx_naks++;
			qp->nak_sent = 1;
		}
		return;
	}
	if (d < 0) {
		resp_duplicate(qp, pkt);
		return;
	}
	qp->nak_sent = 0;

	/* opcode sequence (IBTA 9.7.5.1.3) */
	if (qp->cur_op >= 0) {
		unsigned int cf = rc_op_flags((unsigned int)qp->cur_op);

		if ((f & RC_OPF_START) || (f & (RC_OPF_SEND | RC_OPF_WRITE)) != (cf & (RC_OPF_SEND | RC_OPF_WRITE))) {
			resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, 0);
			return;
		}
	} else if (!(f & RC_OPF_START)) {
		resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, 0);
		return;
	}
	/* the operation must be enabled on the QP (rxe: invalid request) */
	if (((f & RC_OPF_READ_REQ) && !(qp->cfg.access & RNIC_ACCESS_REMOTE_READ)) ||
	    ((f & RC_OPF_WRITE) && !(qp->cfg.access & RNIC_ACCESS_REMOTE_WRITE)) ||
	    ((f & RC_OPF_ATOMIC_REQ) && !(qp->cfg.access & RNIC_ACCESS_REMOTE_ATOMIC)) ||
	    ((f & (RC_OPF_READ_REQ | RC_OPF_ATOMIC_REQ)) && qp->cfg.max_dest_rd_atomic == 0)) {
		resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, 0);
		return;
	}
	/* a receive WQE: the first packet of a SEND, the immediate of a WRITE */
	if (((f & RC_OPF_SEND) && (f & RC_OPF_START)) || ((f & RC_OPF_WRITE) && (f & RC_OPF_IMM))) {
		int r = take_rwqe(qp, pkt, !!(f & RC_OPF_SEND));

		if (r < 0)
			return;
		if (r > 0) {
			/* receiver not ready (IBTA 9.7.5.2.8): the requester retries this PSN */
			push_ack(qp, p, rc_aeth(RNIC_AETH_KIND_RNR, qp->cfg.min_rnr_timer));
			qp->st.tx_rnr_naks++;
			qp->nak_sent = 1;
			return;
		}
	}
	/* lengths (C9-88..C9-92): FIRST and MIDDLE carry one MTU, LAST 1..MTU,
	 * ONLY up to an MTU; the pad fills only the last packet to 4 bytes */
	if (f & (RC_OPF_SEND | RC_OPF_WRITE)) {
		int bad;

		if (f & RC_OPF_END)
			bad = n > mtu || (!(f & RC_OPF_START) && n == 0);
		else
			bad = n != mtu;
		bad |= pkt->pad != ((0u - n) & 3);
		if ((f & RC_OPF_WRITE) && (f & RC_OPF_START)) {
			bad |= pkt->reth_len > MAX_MSG_BYTES;
			if (!bad) {
				qp->w_va = pkt->reth_va;
				qp->w_rkey = pkt->reth_rkey;
				qp->w_resid = qp->w_total = pkt->reth_len;
			}
		}
		if (f & RC_OPF_WRITE)
			bad |= (f & RC_OPF_END) ? n != qp->w_resid : n >= qp->w_resid;
		if (bad) {
			resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, 0);
			return;
		}
		if ((f & RC_OPF_SEND) &&
		    (qp->has_oracle ? !ask(qp, RC_ORACLE_RECV_FITS, pkt) : (uint64_t)qp->r_off + n > qp->r_cap)) {
			/* C9-?: longer than the receive buffer: invalid request NAK,
			 * the receive WQE completes with a local length error */
			resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, RNIC_WC_LOC_LEN_ERR);
			return;
		}
	} else if (f & (RC_OPF_READ_REQ | RC_OPF_ATOMIC_REQ)) {
		if (n || ((f & RC_OPF_READ_REQ) && pkt->reth_len > MAX_MSG_BYTES) ||
		    ((f & RC_OPF_ATOMIC_REQ) && (pkt->atomic_va & 7))) {
			resp_fatal(qp, p, RNIC_AETH_NAK_INVALID_REQ, 0);
			return;
		}
	}

	if (f & RC_OPF_SEND) {
		scatter_recv(qp, pkt->payload, n);
		qp->r_off += n;
	} else if (f & RC_OPF_WRITE) {
		if (f & RC_OPF_START) {
			qp->w_ptr = resolve_remote(qp, pkt, pkt->reth_rkey, pkt->reth_va, pkt->reth_len,
						   RNIC_ACCESS_REMOTE_WRITE, &ok);
			if (!ok) {
				resp_fatal(qp, p, RNIC_AETH_NAK_REM_ACCESS_ERR, 0);
				return;
			}
		}
		if (qp->w_ptr && n)
			memcpy(qp->w_ptr + (qp->w_total - qp->w_resid), pkt->payload, n);
		qp->w_resid -= n;
	} else if (f & RC_OPF_READ_REQ) {
		uint8_t *src = resolve_remote(qp, pkt, pkt->reth_rkey, pkt->reth_va, pkt->reth_len,
					      RNIC_ACCESS_REMOTE_READ, &ok);
		struct resource *r;
		uint32_t npkts = div_up(pkt->reth_len, mtu);

		if (!ok) {
			resp_fatal(qp, p, RNIC_AETH_NAK_REM_ACCESS_ERR, 0);
			return;
		}
		qp->msn = (qp->msn + 1) & PSN_MASK; /* C9-148: counted when the READ is accepted */
		r = new_res(qp);
		r->type = RES_READ;
		r->first_psn = p;
		r->last_psn = rc_psn_add(p, npkts - 1);
		r->va = pkt->reth_va;
		r->rkey = pkt->reth_rkey;
		r->len = pkt->reth_len;
		push_read(qp, p, pkt->reth_va, pkt->reth_rkey, pkt->reth_len, src);
		qp->epsn = rc_psn_add(p, npkts);
		qp->since_ack = 0;
		return;
	} else if (f & RC_OPF_ATOMIC_REQ) {
		uint8_t *m = resolve_remote(qp, pkt, pkt->atomic_rkey, pkt->atomic_va, 8, RNIC_ACCESS_REMOTE_ATOMIC, &ok);
		uint64_t orig = 0, val;
		struct resource *r;

		if (!ok) {
			resp_fatal(qp, p, RNIC_AETH_NAK_REM_ACCESS_ERR, 0);
			return;
		}
		if (m)
			for (int i = 0; i < 8; i++)
				orig |= (uint64_t)m[i] << (8 * i);
		if (pkt->opcode == RNIC_OP_COMPARE_SWAP)
			val = orig == pkt->atomic_compare ? pkt->atomic_swap_add : orig;
		else
			val = orig + pkt->atomic_swap_add;
		if (m)
			for (int i = 0; i < 8; i++)
				m[i] = (uint8_t)(val >> (8 * i));
		qp->msn = (qp->msn + 1) & PSN_MASK;
		r = new_res(qp);
		r->type = RES_ATOMIC;
		r->first_psn = r->last_psn = p;
		r->orig = orig;
		push_atomic_ack(qp, p, orig);
		qp->epsn = rc_psn_add(p, 1);
		qp->since_ack = 0;
		return;
	}

	/* SEND / WRITE accepted */
	if (f & RC_OPF_END) {
		qp->msn = (qp->msn + 1) & PSN_MASK;
		if (f & RC_OPF_SEND) {
			qp->r_active = 0;
			complete_recv(qp, &qp->r_wqe, RNIC_WC_SUCCESS, RNIC_WC_RECV, qp->r_off, !!(f & RC_OPF_IMM), pkt->imm);
		} else if (f & RC_OPF_IMM) {
			qp->r_active = 0;
			complete_recv(qp, &qp->r_wqe, RNIC_WC_SUCCESS, RNIC_WC_RECV_RDMA_WITH_IMM, qp->w_total, 1, pkt->imm);
		}
		qp->cur_op = -1;
	} else {
		qp->cur_op = pkt->opcode;
	}
	qp->epsn = rc_psn_add(p, 1);
	if (pkt->ackreq || (qp->cfg.ack_on_last && (f & RC_OPF_END)) ||
	    (qp->cfg.ack_every && qp->since_ack + 1 >= qp->cfg.ack_every)) {
		push_ack(qp, p, syn_ack());
		qp->st.tx_acks++;
		qp->since_ack = 0;
	} else {
		qp->since_ack++;
	}
}

/* One packet of the oldest queued response. */
static void job_emit(struct rc_qp *qp)
{
	struct job *j = &qp->jobs[qp->job_tail % qp->jobs_cap];
	struct rc_pkt p;

	if (j->kind == J_ACK) {
		fill_addr(qp, &p, RNIC_OP_ACKNOWLEDGE, j->psn);
		p.aeth_syndrome = j->syndrome;
		p.aeth_msn = j->msn;
		emit(qp, &p);
		qp->job_tail++;
	} else if (j->kind == J_ATOMIC_ACK) {
		fill_addr(qp, &p, RNIC_OP_ATOMIC_ACKNOWLEDGE, j->psn);
		p.aeth_syndrome = syn_ack();
		p.aeth_msn = j->msn;
		p.atomic_orig = j->orig;
		emit(qp, &p);
		qp->st.tx_atomic_acks++;
		qp->job_tail++;
	} else {
		uint32_t mtu = qp->cfg.mtu, npk = div_up(j->len, mtu);
		uint32_t n = j->len - j->off < mtu ? j->len - j->off : mtu;
		uint32_t idx = j->off / mtu;
		unsigned int op = npk == 1 ? RNIC_OP_RDMA_READ_RESPONSE_ONLY
				  : idx == 0 ? RNIC_OP_RDMA_READ_RESPONSE_FIRST
				  : idx == npk - 1 ? RNIC_OP_RDMA_READ_RESPONSE_LAST
						   : RNIC_OP_RDMA_READ_RESPONSE_MIDDLE;

		fill_addr(qp, &p, op, rc_psn_add(j->psn, idx));
		p.aeth_syndrome = syn_ack();
		p.aeth_msn = j->msn;
		if (j->src)
			memcpy(qp->scratch, j->src + j->off, n);
		else
			memset(qp->scratch, 0, n);
		p.payload = qp->scratch;
		p.payload_len = n;
		emit(qp, &p);
		qp->st.tx_read_resps++;
		j->off += n;
		if (j->off >= j->len)
			qp->job_tail++;
	}
}

/* ------------------------------------------------------------ entry points */

void rc_qp_recv(struct rc_qp *qp, rc_time_t now, const struct rc_pkt *pkt)
{
	unsigned int f = rc_op_flags(pkt->opcode);

	if (!f || pkt->dest_qpn != qp->cfg.qpn) {
		qp->st.dropped++;
		return;
	}
	if (f & RC_OPF_REQUEST)
		resp_rx(qp, now, pkt);
	else
		req_rx(qp, now, pkt);
}

static void fire_timers(struct rc_qp *qp, rc_time_t now)
{
	if (qp->state != RNIC_QPS_RTS || qp->retry_at == RC_TIME_NEVER || now < qp->retry_at)
		return;
	if (rc_psn_diff(qp->sent_end, qp->una_psn) <= 0) {
		qp->retry_at = RC_TIME_NEVER;
		return;
	}
	/* local ACK timeout (IBTA 9.7.6.1.3): go back to the oldest unacknowledged
	 * PSN; NAKs for what was sent before are ignored until progress */
	qp->st.timeouts++;
	qp->nak_guard = 1;
	transport_retry(qp, now);
}

int rc_qp_progress(struct rc_qp *qp, rc_time_t now, int max_pkts)
{
	int n = 0;

	fire_timers(qp, now);
	while (n < max_pkts && qp->job_tail != qp->job_head) {
		job_emit(qp);
		n++;
	}
	while (n < max_pkts && req_send_one(qp, now))
		n++;
	return n;
}

rc_time_t rc_qp_next_timer(const struct rc_qp *qp)
{
	rc_time_t t = RC_TIME_NEVER;

	if (qp->state != RNIC_QPS_RTS)
		return t;
	if (qp->retry_at != RC_TIME_NEVER)
		t = qp->retry_at;
	if (qp->rnr_wait && qp->rnr_until < t)
		t = qp->rnr_until;
	return t;
}

int rc_qp_has_work(const struct rc_qp *qp, rc_time_t now)
{
	if (qp->job_tail != qp->job_head)
		return 1;
	if (qp->state != RNIC_QPS_RTS || qp->blocked || qp->sq_send == qp->sq_post)
		return 0;
	if (qp->rnr_wait && now < qp->rnr_until)
		return 0;
	return rc_psn_diff(qp->next_psn, qp->una_psn) < (int32_t)qp->cfg.max_unacked_psn;
}
