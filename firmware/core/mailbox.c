/* OpenRNIC firmware core: boot and the command mailbox (docs/regs.md, block
 * cmd). */
#include "core/bitmap.h"
#include "core/fw.h"
#include "hal/mmio.h"

void fw_boot(struct fw *fw)
{
	struct fw_caps dev;

	dev.num_qps = fw_mmio_read32(RNIC_REG_DEV_NUM_QPS);
	dev.num_mrs = fw_mmio_read32(RNIC_REG_DEV_NUM_MRS);
	dev.num_cqs = fw_mmio_read32(RNIC_REG_DEV_NUM_CQS);
	dev.num_mtt = fw_mmio_read32(RNIC_REG_DEV_NUM_MTT);
	dev.num_srqs = fw_mmio_read32(RNIC_REG_DEV_NUM_SRQS);
	dev.num_pds = FW_MAX_PDS; /* PDs are the firmware's alone */
	dev.num_ahs = fw_mmio_read32(RNIC_REG_DEV_NUM_AHS);
	dev.num_mcgs = fw_mmio_read32(RNIC_REG_DEV_NUM_MCGS);
	fw_init(fw, &dev);
	fw_mmio_write32(RNIC_REG_FW_STATE, RNIC_FW_VERSION);
}

int fw_mailbox_poll(struct fw *fw)
{
	/* only the words of the command's records are read and written */
	uint32_t in[RNIC_REG_CMD_IN_COUNT], out[RNIC_REG_CMD_OUT_COUNT];
	const struct fw_cmd *c;
	enum fw_status st;
	uint32_t opcode;

	/* CMD_STATUS bit 0: a command is waiting */
	if (!(fw_mmio_read32(RNIC_REG_CMD_STATUS) & 1))
		return 0;
	/* CMD_OPCODE: bits 7:0 opcode, 31:16 token (echoed by the hardware) */
	opcode = fw_mmio_read32(RNIC_REG_CMD_OPCODE) & 0xff;
	c = fw_cmd_find(opcode);
	if (c)
		for (uint32_t i = 0; i < c->in_words; i++)
			in[i] = fw_mmio_read32(RNIC_REG_CMD_IN + 4 * i);
	st = fw_cmd_run(fw, opcode, in, out);
	if (st == FW_OK && c)
		for (uint32_t i = 0; i < c->out_words; i++)
			fw_mmio_write32(RNIC_REG_CMD_OUT + 4 * i, out[i]);
	/* CMD_DONE: bits 15:8 status; ends the command */
	fw_mmio_write32(RNIC_REG_CMD_DONE, (uint32_t)st << 8);
	return 1;
}

void fw_eq_push(struct fw *fw, uint32_t type, uint32_t num)
{
	uint32_t ci = fw_mmio_read32(RNIC_REG_EQ_CI);

	if (fw->eq_pi - ci >= RNIC_EQ_DEPTH) {
		fw_mmio_write32(RNIC_REG_EQ_LOST, ++fw->eq_lost);
		return;
	}
	fw_mmio_write32(RNIC_REG_EQ_ENTRY + 4 * (fw->eq_pi % RNIC_EQ_DEPTH),
			type << RNIC_EQ_ENTRY_TYPE_SHIFT | (num & RNIC_EQ_ENTRY_NUM_MASK));
	fw_mmio_write32(RNIC_REG_EQ_PI, ++fw->eq_pi);
}

int fw_event_poll(struct fw *fw)
{
	uint32_t e = fw_mmio_read32(RNIC_REG_EVT_POP), num, type;

	if (!(e & RNIC_EVT_POP_VALID))
		return 0;
	if (e & RNIC_EVT_POP_LOST)
		fw_mmio_write32(RNIC_REG_EQ_LOST, ++fw->eq_lost);
	num = e & RNIC_EVT_POP_NUM_MASK;
	type = (e >> RNIC_EVT_POP_TYPE_SHIFT) & RNIC_EVT_POP_TYPE_MASK;
	switch (type) {
	case RNIC_EVT_QP_ERR:
	case RNIC_EVT_QP_REQ_ERR:
	case RNIC_EVT_QP_ACCESS_ERR:
	case RNIC_EVT_QP_OP_ERR:
		/* the QP entered ERR in the data path: an error CQE (QP_FATAL), or
		 * the responder's error NAK no CQE reports (the affiliated
		 * asynchronous error of its kind); once, while the QP is live */
		if (num < fw->caps.num_qps && fw_bit_test(fw->qp_used, num) &&
		    fw->qp[num].state != RNIC_QPS_RESET && fw->qp[num].state != RNIC_QPS_ERR) {
			fw->qp[num].state = RNIC_QPS_ERR;
			fw_eq_push(fw, type == RNIC_EVT_QP_REQ_ERR ? RNIC_ASYNC_EVENT_QP_REQ_ERR :
				       type == RNIC_EVT_QP_ACCESS_ERR ? RNIC_ASYNC_EVENT_QP_ACCESS_ERR :
				       RNIC_ASYNC_EVENT_QP_FATAL, num);
		}
		break;
	case RNIC_EVT_CQ_OVERRUN:
		if (num < fw->caps.num_cqs && fw_bit_test(fw->cq_used, num) &&
		    !fw_bit_test(fw->cq_err, num)) {
			fw_bit_set(fw->cq_err, num);
			fw_eq_push(fw, RNIC_ASYNC_EVENT_CQ_ERR, num);
		}
		break;
	case RNIC_EVT_SRQ_LIMIT:
		/* the data path disarmed the limit: so does QUERY_SRQ's copy */
		if (num < fw->caps.num_srqs && fw_bit_test(fw->srq_used, num)) {
			fw->srq[num].limit = 0;
			fw_eq_push(fw, RNIC_ASYNC_EVENT_SRQ_LIMIT_REACHED, num);
		}
		break;
	case RNIC_EVT_QP_LAST_WQE:
		if (num < fw->caps.num_qps && fw_bit_test(fw->qp_used, num) && fw->qp[num].srqn)
			fw_eq_push(fw, RNIC_ASYNC_EVENT_QP_LAST_WQE_REACHED, num);
		break;
	default:
		break; /* a kind this firmware does not know */
	}
	return 1;
}
