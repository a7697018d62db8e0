/* OpenRNIC firmware core: memory windows (IBA Vol. 1 10.6.7, ibv_alloc_mw,
 * ibv_bind_mw; docs/mw.md). A window is an MPT entry in the MRs' index
 * space. ALLOC_MW takes an index and writes nothing: the entry is invalid
 * until a bind. A bind writes the window's own MPT entry as a copy of what
 * the remote check needs (range, rights, PD, the pa of its first byte and,
 * type 2, the QP), so that a remote access through a window is one MPT
 * lookup; the MR below cannot be deregistered while a window is bound to it
 * (cmd.c asks fw_mr_has_windows), which keeps the copy true.
 *
 * Per window the firmware keeps only what it already keeps per MR (tag, PD,
 * one 14-bit field: the MR it is bound to and its type) and one bit in
 * fw.mw: the firmware's RAM is nearly full. It keeps no MR attributes: the
 * requester's lkey check of a bind reads the MR's MPT entry and hands over
 * its access and the translated pa with the request.
 *
 * As in cmd.c, every check runs before the first side effect. */
#include "core/bitmap.h"
#include "core/ctx.h"
#include "core/fw.h"
#include "hal/mmio.h"

#define IN(rec, f) RNIC_CTX_GET(in, CMD_##rec##_IN, f)
#define OUT(rec, f, v) RNIC_CTX_SET(out, CMD_##rec##_OUT, f, (v))

#define TAG_MASK ((1u << RNIC_MKEY_TAG_BITS) - 1)
#define REMOTE_RIGHTS (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | \
		       RNIC_ACCESS_REMOTE_ATOMIC)

/* The MPT index of a live window, 0 if i is none (index 0 is never used). */
static uint32_t mw_index(const struct fw *fw, uint64_t i)
{
	if (i == 0 || i >= fw->caps.num_mrs || !fw_bit_test(fw->mr_used, (uint32_t)i) ||
	    !fw_bit_test(fw->mw, (uint32_t)i))
		return 0;
	return (uint32_t)i;
}

/* The window named by the full key (index and current tag), 0 if none. */
static uint32_t mw_by_key(const struct fw *fw, uint32_t key)
{
	uint32_t i = mw_index(fw, key >> RNIC_MKEY_TAG_BITS);

	return i && fw->mr[i].tag == (key & TAG_MASK) ? i : 0;
}

static int mw_bound(const struct fw *fw, uint32_t i)
{
	return fw_bit_test(fw->mr_valid, i);
}

int fw_mr_has_windows(const struct fw *fw, uint32_t mr)
{
	/* bound windows only: words of mw & mr_valid, usually all zero */
	for (uint32_t w = 0; w < FW_BITMAP_WORDS(fw->caps.num_mrs); w++) {
		uint32_t bits = fw->mw[w] & fw->mr_valid[w];

		while (bits) {
			uint32_t b = (uint32_t)__builtin_ctz(bits);

			if ((fw->mr[w * 32 + b].mtt_base & FW_MW_MR_MASK) == mr)
				return 1;
			bits &= bits - 1;
		}
	}
	return 0;
}

/* Write the window's MPT entry: w all zero invalidates it. */
FW_MUST_CHECK static enum fw_status mpt_write(uint32_t i, const uint32_t *w)
{
	return fw_ctx_write(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, i, w, RNIC_MPT_WORDS);
}

enum fw_status fw_cmd_alloc_mw(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t pd = IN(ALLOC_MW, PD), type = IN(ALLOC_MW, TYPE);
	int32_t idx;
	uint32_t key;

	if (pd == 0 || pd >= fw->caps.num_pds || !fw_bit_test(fw->pd_used, (uint32_t)pd))
		return FW_BAD_HANDLE;
	if (type != RNIC_MW_TYPE_1 && type != RNIC_MW_TYPE_2)
		return FW_BAD_PARAM;
	idx = fw_bit_find_clear(fw->mr_used, 1, fw->caps.num_mrs, fw->mr_hint);
	if (idx < 0)
		return FW_NO_RESOURCES;
	/* The entry is invalid already: the index's last MR or window
	 * invalidated it when it went. A new tag, as for an MR. */
	key = fw_mkey_next(fw, (uint32_t)idx);
	fw->mr[idx].pd = (uint32_t)pd;
	fw->mr[idx].mtt_base = type == RNIC_MW_TYPE_2 ? FW_MW_TYPE2 : 0;
	fw_bit_set(fw->mr_used, (uint32_t)idx);
	fw_bit_set(fw->mw, (uint32_t)idx);
	fw_bit_clear(fw->mr_valid, (uint32_t)idx);
	fw->pd_refcnt[pd]++;
	fw->mr_hint = (uint32_t)idx + 1;
	OUT(ALLOC_MW, RKEY, key);
	return FW_OK;
}

enum fw_status fw_cmd_dealloc_mw(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint64_t key = IN(DEALLOC_MW, RKEY), pd = IN(DEALLOC_MW, PD);
	uint32_t i = mw_index(fw, key >> RNIC_MKEY_TAG_BITS);
	uint32_t w[RNIC_MPT_WORDS] = { 0 };
	enum fw_status st;

	(void)out;
	if (!i)
		return FW_BAD_HANDLE;
	if (fw->mr[i].pd != pd)
		return FW_PD_MISMATCH;
	if (mw_bound(fw, i)) {
		/* IBA 10.6.7.1: deallocation invalidates a bound window */
		st = mpt_write(i, w);
		if (st != FW_OK)
			return st;
	}
	fw->pd_refcnt[fw->mr[i].pd]--;
	fw->mr[i].pd = 0;
	fw->mr[i].mtt_base = 0;
	fw_bit_clear(fw->mr_valid, i);
	fw_bit_clear(fw->mw, i);
	fw_bit_clear(fw->mr_used, i);
	return FW_OK;
}

/* The MR of a bind: a live, registered MR (not a window, MPT written) with
 * the key's tag, in pd. 0 if not. */
static uint32_t bind_mr(const struct fw *fw, uint32_t key, uint32_t pd)
{
	uint32_t i = key >> RNIC_MKEY_TAG_BITS;

	if (i == 0 || i >= fw->caps.num_mrs || !fw_bit_test(fw->mr_used, i) ||
	    fw_bit_test(fw->mw, i) || !fw_bit_test(fw->mr_valid, i) ||
	    fw->mr[i].tag != (key & TAG_MASK) || fw->mr[i].pd != pd)
		return 0;
	return i;
}

uint32_t fw_mw_bind(struct fw *fw, const struct fw_mw_bind *b)
{
	uint32_t w[RNIC_MPT_WORDS] = { 0 };
	uint32_t i, mr = 0, type2, pd;

	if (b->qpn >= fw->caps.num_qps || !fw_bit_test(fw->qp_used, b->qpn))
		return RNIC_WC_MW_BIND_ERR;
	i = mw_by_key(fw, b->mw_rkey);
	/* C10-72: window, QP (and below, MR) in one PD; the key stays the
	 * window's (same index), only its tag may change */
	if (!i || fw->mr[i].pd != fw->qp[b->qpn].pd || b->new_rkey >> RNIC_MKEY_TAG_BITS != i)
		return RNIC_WC_MW_BIND_ERR;
	pd = fw->mr[i].pd;
	type2 = fw->mr[i].mtt_base & FW_MW_TYPE2;
	/* only remote rights and zero-based addressing name a window's access */
	if (b->access & ~(uint32_t)(REMOTE_RIGHTS | RNIC_ACCESS_ZERO_BASED))
		return RNIC_WC_MW_BIND_ERR;
	if (type2) {
		/* o10-37.2.30: a type 2 window is bound from the free state
		 * only; o10-37.2.40: to a nonempty range */
		if (mw_bound(fw, i) || b->length == 0)
			return RNIC_WC_MW_BIND_ERR;
	} else if (b->access & RNIC_ACCESS_ZERO_BASED) {
		return RNIC_WC_MW_BIND_ERR; /* o10-36.2.2: type 1 is VA-based */
	}
	if (b->length) {
		mr = bind_mr(fw, b->mr_key, pd);
		/* C10-75: the MR allows binding; C10-78: remote write and
		 * atomic through a window need local write on the MR */
		if (!mr || !(b->mr_access & RNIC_ACCESS_MW_BIND) ||
		    ((b->access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
		     !(b->mr_access & RNIC_ACCESS_LOCAL_WRITE)) ||
		    b->addr + b->length - 1 < b->addr)
			return RNIC_WC_MW_BIND_ERR;
		RNIC_CTX_SET(w, MPT, VALID, 1);
		RNIC_CTX_SET(w, MPT, ACCESS, b->access & REMOTE_RIGHTS);
		RNIC_CTX_SET(w, MPT, PD, pd);
		RNIC_CTX_SET(w, MPT, MW, 1);
		RNIC_CTX_SET(w, MPT, MW_TYPE2, type2 != 0);
		RNIC_CTX_SET(w, MPT, KEY, b->new_rkey);
		RNIC_CTX_SET(w, MPT, VA, b->access & RNIC_ACCESS_ZERO_BASED ? 0 : b->addr);
		RNIC_CTX_SET(w, MPT, LENGTH, b->length);
		RNIC_CTX_SET(w, MPT, PA, b->pa);
		RNIC_CTX_SET(w, MPT, QPN, type2 ? b->qpn : 0);
	}
	/* one write replaces what the window allowed before: from here on only
	 * the new key, range and rights pass the responder's check */
	if (mpt_write(i, w) != FW_OK)
		return RNIC_WC_GENERAL_ERR;
	fw->mr[i].tag = b->new_rkey & TAG_MASK;
	fw->mr[i].mtt_base = type2 | mr;
	if (mr)
		fw_bit_set(fw->mr_valid, i);
	else
		fw_bit_clear(fw->mr_valid, i);
	return RNIC_WC_SUCCESS;
}

uint32_t fw_mw_invalidate(struct fw *fw, uint32_t qpn, uint32_t rkey, int remote)
{
	uint32_t w[RNIC_MPT_WORDS] = { 0 }, i;
	uint32_t refused = remote ? RNIC_WC_REM_INV_REQ_ERR : RNIC_WC_LOC_QP_OP_ERR;

	if (qpn >= fw->caps.num_qps || !fw_bit_test(fw->qp_used, qpn))
		return refused;
	i = mw_by_key(fw, rkey);
	/* o10-37.2.26: type 1 windows are not invalidated by a work request;
	 * an unbound window's key is invalid already */
	if (!i || !(fw->mr[i].mtt_base & FW_MW_TYPE2) || !mw_bound(fw, i) ||
	    fw->mr[i].pd != fw->qp[qpn].pd)
		return refused;
	if (mpt_write(i, w) != FW_OK)
		return RNIC_WC_GENERAL_ERR;
	fw->mr[i].mtt_base = FW_MW_TYPE2;
	fw_bit_clear(fw->mr_valid, i);
	return RNIC_WC_SUCCESS;
}

int fw_mw_poll(struct fw *fw)
{
	uint32_t w[RNIC_MW_REQ_WORDS], st, qpn;

	w[0] = fw_mmio_read32(RNIC_REG_MW_REQ);
	if (!RNIC_CTX_GET(w, MW_REQ, PENDING))
		return 0;
	for (uint32_t i = 1; i < RNIC_MW_REQ_WORDS; i++)
		w[i] = fw_mmio_read32(RNIC_REG_MW_REQ + 4 * i);
	qpn = (uint32_t)RNIC_CTX_GET(w, MW_REQ, QPN);
	if (qpn < fw->caps.num_qps && fw_bit_test(fw->qp_used, qpn) &&
	    (fw->qp[qpn].state == RNIC_QPS_ERR || fw->qp[qpn].state == RNIC_QPS_RESET)) {
		/* moved to ERR (or reset) while the request waited: the WQE is
		 * flushed, as every WQE of a QP in error */
		st = RNIC_WC_WR_FLUSH_ERR;
	} else if (RNIC_CTX_GET(w, MW_REQ, OP) == RNIC_MW_REQ_OP_BIND) {
		struct fw_mw_bind b = {
			.qpn = qpn,
			.mw_rkey = (uint32_t)RNIC_CTX_GET(w, MW_REQ, MW_RKEY),
			.new_rkey = (uint32_t)RNIC_CTX_GET(w, MW_REQ, NEW_RKEY),
			.mr_key = (uint32_t)RNIC_CTX_GET(w, MW_REQ, MR_KEY),
			.access = (uint32_t)RNIC_CTX_GET(w, MW_REQ, ACCESS),
			.mr_access = (uint32_t)RNIC_CTX_GET(w, MW_REQ, MR_ACCESS),
			.addr = RNIC_CTX_GET(w, MW_REQ, ADDR),
			.length = RNIC_CTX_GET(w, MW_REQ, LENGTH),
			.pa = RNIC_CTX_GET(w, MW_REQ, PA),
		};
		st = fw_mw_bind(fw, &b);
	} else if (RNIC_CTX_GET(w, MW_REQ, OP) == RNIC_MW_REQ_OP_LOCAL_INV) {
		st = fw_mw_invalidate(fw, qpn, (uint32_t)RNIC_CTX_GET(w, MW_REQ, MW_RKEY), 0);
	} else if (RNIC_CTX_GET(w, MW_REQ, OP) == RNIC_MW_REQ_OP_REMOTE_INV) {
		/* the responder's SEND with invalidate: it writes the receive
		 * CQE (or refuses the SEND) after this answer */
		st = fw_mw_invalidate(fw, qpn, (uint32_t)RNIC_CTX_GET(w, MW_REQ, MW_RKEY), 1);
	} else {
		st = RNIC_WC_LOC_QP_OP_ERR;
	}
	fw_mmio_write32(RNIC_REG_MW_ANSWER, st & RNIC_MW_ANSWER_STATUS_MASK);
	return 1;
}
