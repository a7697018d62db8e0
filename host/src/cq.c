/* OpenRNIC host library: completion queues and polling. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "priv.h"
#include "wire.h"

static uint32_t log2_ceil(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

struct rnic_cq *rnic_create_cq(struct rnic_context *context, int cqe)
{
	uint32_t in[RNIC_CMD_CREATE_CQ_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_CQ_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_cq_priv *c;
	uint32_t cqn;
	int err;

	if (!context || cqe < 1 || (uint32_t)cqe > RNIC_LIB_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(context);
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->log_size = log2_ceil((uint32_t)cqe);
	c->ring = rnic_dma_alloc(d, (size_t)RNIC_CQE_BYTES << c->log_size, &c->ring_bytes,
				 &c->bus_addr);
	if (!c->ring) {
		err = errno;
		goto fail;
	}
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, LOG_SIZE, c->log_size);
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, BASE, c->bus_addr);
	err = rnic_cmd(d, RNIC_CMD_OP_CREATE_CQ, in, RNIC_CMD_CREATE_CQ_IN_WORDS, out,
		       RNIC_CMD_CREATE_CQ_OUT_WORDS);
	if (err)
		goto fail_ring;
	cqn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_CQ_OUT, CQN);
	if (cqn == 0 || cqn > d->max_cq || d->cq_table[cqn]) {
		rnic_log("CREATE_CQ answered CQN %u, not a free CQN in 1..%u", cqn, d->max_cq);
		err = EIO;
		goto fail_ring;
	}
	c->cq.context = context;
	c->cq.handle = cqn;
	c->cq.cqe = 1 << c->log_size;
	d->cq_table[cqn] = c;
	d->n_cq++;
	return &c->cq;

fail_ring:
	rnic_dma_free(d, c->ring, c->ring_bytes);
fail:
	free(c);
	errno = err;
	return NULL;
}

int rnic_destroy_cq(struct rnic_cq *cq)
{
	uint32_t in[RNIC_CMD_DESTROY_CQ_IN_WORDS] = {0};
	struct rnic_device *d;
	struct rnic_cq_priv *c;
	int err;

	if (!cq)
		return EINVAL;
	c = cq_priv(cq);
	if (c->refcnt)
		return EBUSY;
	d = rnic_dev(cq->context);
	RNIC_CTX_SET(in, CMD_DESTROY_CQ_IN, CQN, cq->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DESTROY_CQ, in, RNIC_CMD_DESTROY_CQ_IN_WORDS, NULL, 0);
	if (err)
		return err;
	rnic_dma_free(d, c->ring, c->ring_bytes);
	d->cq_table[cq->handle] = NULL;
	d->n_cq--;
	free(c);
	return 0;
}

/* The one CQE-accept function: is the entry at the consumer index the
 * device's (owner bit == the phase of this pass over the ring)? Only then,
 * after a from-device barrier, copy out the body. Does not consume. */
static int cqe_accept(const struct rnic_cq_priv *c, struct rnic_cqe *out)
{
	const struct rnic_cqe *e = &c->ring[c->ci & ((1u << c->log_size) - 1)];
	uint8_t phase = (uint8_t)(((c->ci >> c->log_size) & 1) ^ 1);
	uint8_t owner = __atomic_load_n(&e->owner, __ATOMIC_RELAXED);

	if ((owner & 1) != phase)
		return 0;
	rnic_from_device_barrier();
	memcpy(out, e, sizeof(*out));
	return 1;
}

/* The fields a send and a receive completion share. */
static void wc_fill(struct rnic_wc *wc, const struct rnic_cqe *e, uint32_t qpn, uint64_t wr_id)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->syndrome;
	wc->byte_len = rnic_le32toh(e->byte_len);
	if (e->wc_flags & RNIC_WC_FLAG_WITH_IMM)
		wc->imm_data = e->imm_data; /* stays in network order, as ibv_wc */
	wc->qp_num = qpn;
	wc->src_qp = rnic_le32toh(e->src_qp) & 0xffffffu;
	wc->wc_flags = ((e->wc_flags & RNIC_WC_FLAG_WITH_IMM) ? RNIC_WC_WITH_IMM : 0) |
		       ((e->wc_flags & RNIC_WC_FLAG_GRH) ? RNIC_WC_GRH : 0) |
		       ((e->wc_flags & RNIC_WC_FLAG_WITH_INV) ? RNIC_WC_WITH_INV : 0);
	/* the CQE holds the invalidated rkey where the immediate goes, in
	 * network order (ibv_wc's union of the two) */
	if (e->wc_flags & RNIC_WC_FLAG_WITH_INV)
		wc->invalidated_rkey = rnic_be32toh(e->imm_data);
	memcpy(wc->smac, e->smac, sizeof(wc->smac));
}

/* Turn a CQE into a work completion and retire what it covers. A CQE whose
 * opcode has the RNIC_WC_RECV bit completes the oldest receive WQE of the
 * QP's RQ (every receive WQE completes on its own, in order, so wqe_counter
 * must name exactly that one); any other CQE completes send WQEs, and the
 * unsignaled WQEs before the one it names complete implicitly. EIO: the CQE
 * names a QP or WQE this CQ does not have. */
static int cqe_to_wc(struct rnic_device *d, struct rnic_cq_priv *c, const struct rnic_cqe *e,
		     struct rnic_wc *wc)
{
	uint32_t qpn = rnic_le32toh(e->qpn) & 0xffffffu;
	uint16_t counter = rnic_le16toh(e->wqe_counter);
	struct rnic_qp_priv *q;
	uint32_t n;

	if (qpn > d->max_qp + 1 || !(q = d->qp_table[qpn]))
		return EIO;
	if ((e->opcode & RNIC_WC_RECV) && q->srq) {
		/* the SRQ slot its SEND took, in any order against other QPs */
		uint64_t wr_id;

		if (q->qp.recv_cq != &c->cq || rnic_srq_complete(q->srq, counter, &wr_id))
			return EIO;
		wc_fill(wc, e, qpn, wr_id);
	} else if (e->opcode & RNIC_WC_RECV) {
		if (q->qp.recv_cq != &c->cq || q->rq_head == q->rq_tail ||
		    counter != (uint16_t)q->rq_tail)
			return EIO;
		wc_fill(wc, e, qpn, q->rq_wrid[q->rq_tail & (q->rq_size - 1)]);
		q->rq_tail++;
	} else {
		if (q->qp.send_cq != &c->cq)
			return EIO;
		n = (uint32_t)(uint16_t)(counter - (uint16_t)q->sq_tail) + 1;
		if (n > q->sq_head - q->sq_tail)
			return EIO;
		q->sq_tail += n;
		wc_fill(wc, e, qpn, q->wrid[counter & ((1u << q->sq_log) - 1)]);
	}
	if (wc->status != RNIC_WC_SUCCESS) {
		/* The device moved the QP to the error state. */
		q->qp.state = RNIC_QPS_ERR;
	}
	return 0;
}

int rnic_poll_cq(struct rnic_cq *cq, int num_entries, struct rnic_wc *wc)
{
	struct rnic_device *d;
	struct rnic_cq_priv *c;
	struct rnic_cqe e;
	int n = 0, err = 0;

	if (!cq || num_entries < 0 || (num_entries > 0 && !wc))
		return -EINVAL;
	c = cq_priv(cq);
	d = rnic_dev(cq->context);
	while (n < num_entries && cqe_accept(c, &e)) {
		err = cqe_to_wc(d, c, &e, &wc[n]);
		if (err && n == 0)
			rnic_log("CQ %u: CQE of QP %u, wqe_counter %u, opcode %u, status %u names an unknown QP or a WQE that is not outstanding; dropped",
				 cq->handle, rnic_le32toh(e.qpn) & 0xffffffu, rnic_le16toh(e.wqe_counter),
				 e.opcode, e.status);
		if (err && n > 0)
			break; /* report the good ones; the bad CQE comes first next call */
		c->ci++;
		if (err)
			break;
		n++;
	}
	/* Report the consumer index (posted, once per call) so the device can
	 * detect an overrun. */
	if (c->ci != c->ci_db) {
		c->ci_db = c->ci;
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_CQ),
			      cq->handle << 16 | (c->ci & 0xffffu));
	}
	if (err && n == 0)
		return -err;
	if (n == 0)
		rnic_progress(d);
	return n;
}

const char *rnic_wc_status_str(uint32_t status)
{
	static const char *const str[] = {
		[RNIC_WC_SUCCESS] = "success",
		[RNIC_WC_LOC_LEN_ERR] = "local length error",
		[RNIC_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[3] = "local EE context operation error",
		[RNIC_WC_LOC_PROT_ERR] = "local protection error",
		[RNIC_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[6] = "memory management operation error",
		[RNIC_WC_BAD_RESP_ERR] = "bad response error",
		[RNIC_WC_LOC_ACCESS_ERR] = "local access error",
		[RNIC_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[RNIC_WC_REM_ACCESS_ERR] = "remote access error",
		[RNIC_WC_REM_OP_ERR] = "remote operation error",
		[RNIC_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[RNIC_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[14] = "local RDD violation error",
		[RNIC_WC_FATAL_ERR] = "fatal error",
		[16] = "aborted error",
		[17] = "invalid EE context number",
		[18] = "invalid EE context state",
		[20] = "response timeout error",
		[RNIC_WC_GENERAL_ERR] = "general error",
	};

	if (status < sizeof(str) / sizeof(str[0]) && str[status])
		return str[status];
	return "unknown";
}
