/* A memory window bound over a buffer the way rnic-perf's --mw binds it:
 * type 1 by rnic_bind_mw on the QP, type 2 by a BIND_MW WQE posted on it
 * naming the key the caller chose (the window's next key, as advertised).
 * Signaled; the caller polls the completion. rnic-perf's two engines
 * (perf_link.c against a peer, stream.c in the simulator) share it.
 * Header-only, as ud_qp.h. */
#ifndef RNIC_TOOLS_MW_BIND_H
#define RNIC_TOOLS_MW_BIND_H

#include <stdint.h>
#include <string.h>

#include "rnic/verbs.h"

/* 0, or the errno of rnic_bind_mw / rnic_post_send. A type 1 window's key
 * is then mw->rkey (rnic_bind_mw sets it: the caller compares it with the
 * one it advertised); a type 2 window's becomes rkey once its completion
 * succeeds (rdma-core leaves that to the consumer too). */
static inline int mw_post_bind(struct rnic_qp *qp, struct rnic_mw *mw, const struct rnic_mw_bind_info *bi,
			       uint64_t wr_id, uint32_t rkey)
{
	struct rnic_send_wr wr, *bad;

	if (mw->type == RNIC_MW_TYPE_1) {
		struct rnic_mw_bind b = {.wr_id = wr_id, .send_flags = RNIC_SEND_SIGNALED, .bind_info = *bi};

		return rnic_bind_mw(qp, mw, &b);
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = RNIC_WR_BIND_MW;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = rkey;
	wr.wr.bind_mw.bind_info = *bi;
	return rnic_post_send(qp, &wr, &bad);
}

#endif
