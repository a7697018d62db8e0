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

#endif
