/* OpenRNIC host library: asynchronous events. The firmware writes them into
 * a ring of registers (EQ_ENTRY, producer index EQ_PI); the library reads
 * the entries between its consumer index and EQ_PI and writes EQ_CI back so
 * the firmware can reuse the slots. */
#include <errno.h>

#include "priv.h"

_Static_assert(RNIC_EVENT_CQ_ERR == RNIC_ASYNC_EVENT_CQ_ERR &&
	       RNIC_EVENT_QP_FATAL == RNIC_ASYNC_EVENT_QP_FATAL &&
	       RNIC_EVENT_QP_REQ_ERR == RNIC_ASYNC_EVENT_QP_REQ_ERR &&
	       RNIC_EVENT_QP_ACCESS_ERR == RNIC_ASYNC_EVENT_QP_ACCESS_ERR &&
	       RNIC_EVENT_SRQ_LIMIT_REACHED == RNIC_ASYNC_EVENT_SRQ_LIMIT_REACHED &&
	       RNIC_EVENT_QP_LAST_WQE_REACHED == RNIC_ASYNC_EVENT_QP_LAST_WQE_REACHED,
	       "the API's event numbers are the firmware's (enum ibv_event_type)");

int rnic_get_async_event(struct rnic_context *context, struct rnic_async_event *event)
{
	struct rnic_device *d;
	uint32_t pi;

	if (!context || !event)
		return EINVAL;
	d = rnic_dev(context);
	pi = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_PI));
	if (pi - d->eq_ci > RNIC_EQ_DEPTH) {
		rnic_log("EQ_PI %u is more than a ring ahead of the library's %u", pi, d->eq_ci);
		return EIO;
	}
	while (d->eq_ci != pi) {
		uint32_t e = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_ENTRY) +
					       4 * (d->eq_ci % RNIC_EQ_DEPTH));
		uint32_t type = e >> RNIC_EQ_ENTRY_TYPE_SHIFT, num = e & RNIC_EQ_ENTRY_NUM_MASK;

		d->eq_ci++;
		rnic_write32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_CI), d->eq_ci);
		if ((type == RNIC_ASYNC_EVENT_QP_FATAL || type == RNIC_ASYNC_EVENT_QP_REQ_ERR ||
		     type == RNIC_ASYNC_EVENT_QP_ACCESS_ERR) && num >= 2 && num <= d->max_qp + 1 &&
		    d->qp_table[num]) {
			struct rnic_qp *qp = &d->qp_table[num]->qp;

			qp->state = RNIC_QPS_ERR;
			event->element.qp = qp;
			event->event_type = (enum rnic_event_type)type;
			return 0;
		}
		if (type == RNIC_ASYNC_EVENT_CQ_ERR && num >= 1 && num <= d->max_cq &&
		    d->cq_table[num]) {
			event->element.cq = &d->cq_table[num]->cq;
			event->event_type = RNIC_EVENT_CQ_ERR;
			return 0;
		}
		if (type == RNIC_ASYNC_EVENT_SRQ_LIMIT_REACHED && num >= 1 && num <= d->max_srq &&
		    d->srq_table[num]) {
			event->element.srq = &d->srq_table[num]->srq;
			event->event_type = RNIC_EVENT_SRQ_LIMIT_REACHED;
			return 0;
		}
		if (type == RNIC_ASYNC_EVENT_QP_LAST_WQE_REACHED && num >= 2 && num <= d->max_qp + 1 &&
		    d->qp_table[num]) {
			event->element.qp = &d->qp_table[num]->qp;
			event->event_type = RNIC_EVENT_QP_LAST_WQE_REACHED;
			return 0;
		}
		/* an object destroyed since, or an event this library does not know */
	}
	return EAGAIN;
}

uint32_t rnic_async_events_lost(struct rnic_context *context)
{
	struct rnic_device *d;

	if (!context)
		return 0;
	d = rnic_dev(context);
	return rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_EQ_LOST));
}

const char *rnic_event_type_str(enum rnic_event_type type)
{
	switch (type) {
	case RNIC_EVENT_CQ_ERR: return "CQ error";
	case RNIC_EVENT_QP_FATAL: return "local work queue catastrophic error";
	case RNIC_EVENT_QP_REQ_ERR: return "invalid request local work queue error";
	case RNIC_EVENT_QP_ACCESS_ERR: return "local access violation work queue error";
	case RNIC_EVENT_SRQ_LIMIT_REACHED: return "SRQ limit reached";
	case RNIC_EVENT_QP_LAST_WQE_REACHED: return "last WQE reached";
	default: return "unknown";
	}
}
