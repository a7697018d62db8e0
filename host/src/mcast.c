/* OpenRNIC host library: multicast groups of UD QPs. ATTACH_MCAST and
 * DETACH_MCAST are firmware commands: the firmware writes the device's
 * group table before it answers, so a detach is in force when it returns
 * (docs/multicast.md). */
#include <errno.h>

#include "priv.h"

static int mcast_cmd(uint32_t op, struct rnic_qp *qp, const union rnic_gid *gid, uint16_t lid)
{
	uint32_t in[RNIC_CMD_MCAST_IN_WORDS] = {0};

	if (!qp || !gid || qp->qp_type != RNIC_QPT_UD || lid != 0)
		return EINVAL;
	RNIC_CTX_SET(in, CMD_MCAST_IN, QPN, qp->qp_num);
	RNIC_CTX_SET(in, CMD_MCAST_IN, PD, qp->pd->handle);
	RNIC_CTX_SET(in, CMD_MCAST_IN, LID, lid);
	/* the GID as the command's 128-bit number: raw[0] is its top byte */
	for (int w = 0; w < 4; w++) {
		const uint8_t *b = &gid->raw[12 - 4 * w];

		rnic_ctx_set(in, RNIC_CMD_MCAST_IN_MGID_LSB + 32 * (unsigned int)w, 32,
			     (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
	}
	return rnic_cmd(rnic_dev(qp->context), op, in, RNIC_CMD_MCAST_IN_WORDS, NULL, 0);
}

int rnic_attach_mcast(struct rnic_qp *qp, const union rnic_gid *gid, uint16_t lid)
{
	return mcast_cmd(RNIC_CMD_OP_ATTACH_MCAST, qp, gid, lid);
}

int rnic_detach_mcast(struct rnic_qp *qp, const union rnic_gid *gid, uint16_t lid)
{
	return mcast_cmd(RNIC_CMD_OP_DETACH_MCAST, qp, gid, lid);
}
