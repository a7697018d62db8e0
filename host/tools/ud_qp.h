/* A UD QP from any state to RTS, the IB spec's way for UD: RESET, INIT
 * (P_Key index 0, port 1, the Q_Key), RTR (nothing more for UD), RTS (the
 * send PSN). rnic-perf's -c UD and the UD end-to-end tests share it; the
 * library keeps QP1's own (cm_gsi.c), as a verbs library leaves the state
 * steps of the application's QPs to the application. Header-only, so the
 * programs that use it link nothing more. */
#ifndef RNIC_TOOLS_UD_QP_H
#define RNIC_TOOLS_UD_QP_H

#include <stdint.h>
#include <string.h>

#include "rnic/verbs.h"

/* 0, or the errno of the first step that failed; *failed (when not NULL)
 * is then the RNIC_QPS_* state it was to reach. */
static inline int ud_qp_to_rts(struct rnic_qp *qp, uint32_t qkey, uint32_t sq_psn, uint32_t *failed)
{
	struct rnic_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RESET;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	if (!err) {
		a.qp_state = RNIC_QPS_INIT;
		a.port_num = 1;
		a.qkey = qkey;
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_QKEY);
	}
	if (!err) {
		a.qp_state = RNIC_QPS_RTR;
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	}
	if (!err) {
		a.qp_state = RNIC_QPS_RTS;
		a.sq_psn = sq_psn;
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN);
	}
	if (err && failed)
		*failed = a.qp_state;
	return err;
}

/* One signaled SEND of the gather list sg (nsge entries) to remote_qpn
 * through ah with remote_qkey: 0 or rnic_post_send's errno. */
static inline int ud_post_send1(struct rnic_qp *qp, uint64_t wr_id, struct rnic_sg_entry *sg, int nsge,
				struct rnic_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rnic_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = remote_qkey;
	return rnic_post_send(qp, &wr, &bad);
}

#endif
