/* OpenRNIC firmware core: shared receive queues (IBTA Vol. 1 10.2.9,
 * ibv_create_srq). The firmware numbers SRQs, keeps their attributes and
 * how many QPs use each, and writes their contexts (CTX_TABLE_SRQC): the
 * ring, the PD the receive WQEs' lkeys are checked against, and the limit.
 * The data path keeps the producer index (DB_SRQ), the consumer index all
 * the SRQ's QPs share, and disarms the limit when it raises EVT_SRQ_LIMIT.
 * As in cmd.c, every check runs before the first side effect. */
#include "core/bitmap.h"
#include "core/ctx.h"
#include "core/fw.h"

#define IN(rec, f) RNIC_CTX_GET(in, CMD_##rec##_IN, f)
#define OUT(rec, f, v) RNIC_CTX_SET(out, CMD_##rec##_OUT, f, (v))

/* SRQN 0 is never handed out: a QPC's srqn 0 means the QP's own RQ. */
int fw_srq_live(const struct fw *fw, uint64_t srqn)
{
	return srqn != 0 && srqn < fw->caps.num_srqs && fw_bit_test(fw->srq_used, (uint32_t)srqn);
}

enum fw_status fw_srq_check(const struct fw *fw, uint64_t srqn, uint64_t pd)
{
	if (!fw_srq_live(fw, srqn))
		return FW_BAD_HANDLE;
	if (fw->srq[srqn].pd != pd)
		return FW_PD_MISMATCH;
	return FW_OK;
}

static void srqc_encode(uint32_t w[RNIC_SRQC_WORDS], const struct fw_srq *s)
{
	for (uint32_t i = 0; i < RNIC_SRQC_WORDS; i++)
		w[i] = 0;
	RNIC_CTX_SET(w, SRQC, VALID, 1);
	RNIC_CTX_SET(w, SRQC, LOG_SIZE, s->log_size);
	RNIC_CTX_SET(w, SRQC, PD, s->pd);
	RNIC_CTX_SET(w, SRQC, LIMIT, s->limit);
	RNIC_CTX_SET(w, SRQC, BASE, (uint64_t)s->base_hi << 32 | s->base_lo);
}

enum fw_status fw_cmd_create_srq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(CREATE_SRQ, PD), log_size = IN(CREATE_SRQ, LOG_SIZE);
	uint64_t max_sge = IN(CREATE_SRQ, MAX_SGE), limit = IN(CREATE_SRQ, SRQ_LIMIT);
	uint64_t base = IN(CREATE_SRQ, BASE);
	uint32_t w[RNIC_SRQC_WORDS];
	struct fw_srq s = { 0 };
	enum fw_status st;
	int32_t srqn;

	if (pd == 0 || pd >= fw->caps.num_pds || !fw_bit_test(fw->pd_used, (uint32_t)pd))
		return FW_BAD_HANDLE;
	if (log_size > RNIC_CMD_MAX_LOG_SRQ_WR || max_sge > RNIC_MAX_RECV_SGE ||
	    base % RNIC_RECV_WQE_BYTES || limit >= 1ull << log_size)
		return FW_BAD_PARAM;
	srqn = fw_bit_find_clear(fw->srq_used, 1, fw->caps.num_srqs, fw->srq_hint);
	if (srqn < 0)
		return FW_NO_RESOURCES;
	s.base_lo = (uint32_t)base;
	s.base_hi = (uint32_t)(base >> 32);
	s.pd = (uint16_t)pd;
	s.limit = (uint16_t)limit;
	s.log_size = (uint8_t)log_size;
	s.max_sge = (uint8_t)max_sge;
	srqc_encode(w, &s);
	st = fw_ctx_write(RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_WRITE, (uint32_t)srqn, w, RNIC_SRQC_WORDS);
	if (st != FW_OK)
		return st;
	fw->srq[srqn] = s;
	fw_bit_set(fw->srq_used, (uint32_t)srqn);
	fw->pd_refcnt[pd]++;
	fw->srq_hint = (uint32_t)srqn + 1;
	OUT(CREATE_SRQ, SRQN, (uint32_t)srqn);
	return FW_OK;
}

enum fw_status fw_cmd_modify_srq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t srqn = IN(MODIFY_SRQ, SRQN), mask = IN(MODIFY_SRQ, ATTR_MASK);
	uint64_t limit = IN(MODIFY_SRQ, SRQ_LIMIT);
	enum fw_status st = fw_srq_check(fw, srqn, IN(MODIFY_SRQ, PD));
	uint32_t w[RNIC_SRQC_WORDS];
	struct fw_srq s;

	(void)out;
	if (st != FW_OK)
		return st;
	/* no resizing: a ring the host allocated stays its size */
	if (mask & ~(uint64_t)RNIC_SRQ_ATTR_LIMIT)
		return FW_BAD_PARAM;
	if (!(mask & RNIC_SRQ_ATTR_LIMIT))
		return FW_OK;
	if (limit >= 1ull << fw->srq[srqn].log_size)
		return FW_BAD_PARAM;
	s = fw->srq[srqn];
	s.limit = (uint16_t)limit;
	srqc_encode(w, &s);
	/* MODIFY keeps the indices: only the limit changes */
	st = fw_ctx_write(RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_MODIFY, (uint32_t)srqn, w, RNIC_SRQC_WORDS);
	if (st != FW_OK)
		return st;
	fw->srq[srqn] = s;
	return FW_OK;
}

enum fw_status fw_cmd_query_srq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t srqn = IN(QUERY_SRQ, SRQN);
	enum fw_status st = fw_srq_check(fw, srqn, IN(QUERY_SRQ, PD));
	const struct fw_srq *s;

	if (st != FW_OK)
		return st;
	s = &fw->srq[srqn];
	OUT(QUERY_SRQ, LOG_SIZE, s->log_size);
	OUT(QUERY_SRQ, MAX_SGE, s->max_sge);
	OUT(QUERY_SRQ, SRQ_LIMIT, s->limit);
	OUT(QUERY_SRQ, QP_COUNT, s->qp_count);
	OUT(QUERY_SRQ, BASE, (uint64_t)s->base_hi << 32 | s->base_lo);
	return FW_OK;
}

enum fw_status fw_cmd_destroy_srq(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t srqn = IN(DESTROY_SRQ, SRQN);
	enum fw_status st = fw_srq_check(fw, srqn, IN(DESTROY_SRQ, PD));
	uint32_t w[RNIC_SRQC_WORDS] = { 0 };

	(void)out;
	if (st != FW_OK)
		return st;
	if (fw->srq[srqn].qp_count)
		return FW_BUSY;
	st = fw_ctx_write(RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_WRITE, (uint32_t)srqn, w, RNIC_SRQC_WORDS);
	if (st != FW_OK)
		return st;
	fw->pd_refcnt[fw->srq[srqn].pd]--;
	fw->srq[srqn] = (struct fw_srq){ 0 };
	fw_bit_clear(fw->srq_used, (uint32_t)srqn);
	return FW_OK;
}
