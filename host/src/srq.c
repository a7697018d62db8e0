/* OpenRNIC host library: shared receive queues (ibv_create_srq and
 * friends). Create, modify, query and destroy are firmware commands; the
 * ring is the library's: rnic_post_srq_recv writes receive WQEs into it and
 * rings DB_SRQ with the producer index. Every QP created with the SRQ takes
 * its receive WQEs from it in posting order; receive completions name the
 * SRQ slot in wqe_counter, and since QPs complete their WQEs in any order
 * relative to each other, a slot is free again only once it and every
 * slot before it has completed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static uint32_t log2_ceil(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static void srq_free(struct rnic_device *d, struct rnic_srq_priv *s)
{
	rnic_dma_free(d, s->ring, s->ring_bytes);
	free(s->wrid);
	free(s->busy);
	free(s);
}

struct rnic_srq *rnic_create_srq(struct rnic_pd *pd, struct rnic_srq_init_attr *ia)
{
	uint32_t in[RNIC_CMD_CREATE_SRQ_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_SRQ_OUT_WORDS];
	struct rnic_srq_priv *s;
	struct rnic_device *d;
	uint32_t srqn, size;
	int err;

	if (!pd || !ia || ia->attr.max_wr < 1 || ia->attr.max_wr > 1u << RNIC_CMD_MAX_LOG_SRQ_WR ||
	    ia->attr.max_sge > RNIC_MAX_RECV_SGE) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->log_size = log2_ceil(ia->attr.max_wr);
	size = 1u << s->log_size;
	/* the limit counts WQEs in the ring: below its size */
	if (ia->attr.srq_limit >= size) {
		free(s);
		errno = EINVAL;
		return NULL;
	}
	s->max_sge = ia->attr.max_sge;
	s->wrid = calloc(size, sizeof(*s->wrid));
	s->busy = calloc(size, sizeof(*s->busy));
	if (!s->wrid || !s->busy) {
		err = ENOMEM;
		goto fail;
	}
	s->ring = rnic_dma_alloc(d, (size_t)RNIC_RECV_WQE_BYTES << s->log_size, &s->ring_bytes, &s->bus);
	if (!s->ring) {
		err = errno;
		goto fail;
	}
	RNIC_CTX_SET(in, CMD_CREATE_SRQ_IN, PD, pd->handle);
	RNIC_CTX_SET(in, CMD_CREATE_SRQ_IN, LOG_SIZE, s->log_size);
	RNIC_CTX_SET(in, CMD_CREATE_SRQ_IN, MAX_SGE, s->max_sge);
	RNIC_CTX_SET(in, CMD_CREATE_SRQ_IN, SRQ_LIMIT, ia->attr.srq_limit);
	RNIC_CTX_SET(in, CMD_CREATE_SRQ_IN, BASE, s->bus);
	err = rnic_cmd(d, RNIC_CMD_OP_CREATE_SRQ, in, RNIC_CMD_CREATE_SRQ_IN_WORDS, out,
		       RNIC_CMD_CREATE_SRQ_OUT_WORDS);
	if (err)
		goto fail;
	srqn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_SRQ_OUT, SRQN);
	if (srqn == 0 || srqn > d->max_srq || d->srq_table[srqn]) {
		rnic_log("CREATE_SRQ answered SRQN %u, not a free SRQN in 1..%u", srqn, d->max_srq);
		err = EIO;
		goto fail;
	}
	s->srq.context = pd->context;
	s->srq.srq_context = ia->srq_context;
	s->srq.pd = pd;
	s->srq.handle = srqn;
	/* what the SRQ really has, as ibv_create_srq reports it */
	ia->attr.max_wr = size;
	d->srq_table[srqn] = s;
	pd_priv(pd)->refcnt++;
	d->n_srq++;
	return &s->srq;

fail:
	srq_free(d, s);
	errno = err;
	return NULL;
}

int rnic_modify_srq(struct rnic_srq *srq, struct rnic_srq_attr *attr, int mask)
{
	uint32_t in[RNIC_CMD_MODIFY_SRQ_IN_WORDS] = {0};

	if (!srq || !attr || (mask & ~(RNIC_SRQ_MAX_WR | RNIC_SRQ_LIMIT)))
		return EINVAL;
	RNIC_CTX_SET(in, CMD_MODIFY_SRQ_IN, SRQN, srq->handle);
	RNIC_CTX_SET(in, CMD_MODIFY_SRQ_IN, PD, srq->pd->handle);
	RNIC_CTX_SET(in, CMD_MODIFY_SRQ_IN, ATTR_MASK, (uint32_t)mask);
	RNIC_CTX_SET(in, CMD_MODIFY_SRQ_IN, SRQ_LIMIT, attr->srq_limit);
	return rnic_cmd(rnic_dev(srq->context), RNIC_CMD_OP_MODIFY_SRQ, in,
			RNIC_CMD_MODIFY_SRQ_IN_WORDS, NULL, 0);
}

int rnic_query_srq(struct rnic_srq *srq, struct rnic_srq_attr *attr)
{
	uint32_t in[RNIC_CMD_QUERY_SRQ_IN_WORDS] = {0}, out[RNIC_CMD_QUERY_SRQ_OUT_WORDS];
	int err;

	if (!srq || !attr)
		return EINVAL;
	RNIC_CTX_SET(in, CMD_QUERY_SRQ_IN, SRQN, srq->handle);
	RNIC_CTX_SET(in, CMD_QUERY_SRQ_IN, PD, srq->pd->handle);
	err = rnic_cmd(rnic_dev(srq->context), RNIC_CMD_OP_QUERY_SRQ, in, RNIC_CMD_QUERY_SRQ_IN_WORDS,
		       out, RNIC_CMD_QUERY_SRQ_OUT_WORDS);
	if (err)
		return err;
	attr->max_wr = 1u << RNIC_CTX_GET(out, CMD_QUERY_SRQ_OUT, LOG_SIZE);
	attr->max_sge = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_SRQ_OUT, MAX_SGE);
	attr->srq_limit = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_SRQ_OUT, SRQ_LIMIT);
	return 0;
}

int rnic_destroy_srq(struct rnic_srq *srq)
{
	uint32_t in[RNIC_CMD_DESTROY_SRQ_IN_WORDS] = {0};
	struct rnic_srq_priv *s;
	struct rnic_device *d;
	int err;

	if (!srq)
		return EINVAL;
	s = srq_priv(srq);
	d = rnic_dev(srq->context);
	/* The firmware refuses too (CMD_ST_BUSY, its own use count). */
	RNIC_CTX_SET(in, CMD_DESTROY_SRQ_IN, SRQN, srq->handle);
	RNIC_CTX_SET(in, CMD_DESTROY_SRQ_IN, PD, srq->pd->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DESTROY_SRQ, in, RNIC_CMD_DESTROY_SRQ_IN_WORDS, NULL, 0);
	if (err) {
		if (err == EBUSY)
			rnic_log("DESTROY_SRQ %u refused: %u QP(s) still use it", srq->handle, s->refcnt);
		return err;
	}
	d->srq_table[srq->handle] = NULL;
	pd_priv(srq->pd)->refcnt--;
	d->n_srq--;
	srq_free(d, s);
	return 0;
}

int rnic_post_srq_recv(struct rnic_srq *srq, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr)
{
	struct rnic_srq_priv *s;
	struct rnic_device *d;
	unsigned int posted = 0;
	uint32_t mask;
	int err = 0;

	if (!srq) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	s = srq_priv(srq);
	d = rnic_dev(srq->context);
	mask = (1u << s->log_size) - 1;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > s->max_sge ||
		    (wr->num_sge > 0 && !wr->sg_list)) {
			err = EINVAL;
			break;
		}
		if (s->head - s->tail > mask) {
			err = ENOMEM;
			break;
		}
		rnic_recv_wqe_build(&s->ring[s->head & mask], wr);
		s->wrid[s->head & mask] = wr->wr_id;
		s->busy[s->head & mask] = 1;
		s->head++;
		posted++;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	if (posted)
		rnic_doorbell(d, RNIC_DB_REG(d, RNIC_REG_DB_SRQ), srq->handle << 16 | (s->head & 0xffffu));
	return err;
}

int rnic_srq_complete(struct rnic_srq_priv *s, uint16_t idx, uint64_t *wr_id)
{
	uint32_t mask = (1u << s->log_size) - 1;
	/* the slot's free-running index: within [tail, head) */
	uint32_t off = (uint16_t)(idx - (uint16_t)s->tail);

	if (off >= s->head - s->tail || !s->busy[idx & mask])
		return EIO;
	*wr_id = s->wrid[idx & mask];
	s->busy[idx & mask] = 0;
	while (s->tail != s->head && !s->busy[s->tail & mask])
		s->tail++;
	return 0;
}
