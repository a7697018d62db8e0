/* OpenRNIC host library: the firmware command mailbox (docs/firmware.md).
 *
 * Every control verb is one or more commands: the library fills CMD_IN,
 * writes CMD_CTRL (opcode and a token), polls CMD_STATUS until the firmware
 * has answered, and reads CMD_OUT. One command is in flight per device at a
 * time; the caller serializes (docs/api.md, thread safety). */
#include <errno.h>

#include "priv.h"

/* The errno a command status stands for. */
int rnic_cmd_errno(uint32_t status)
{
	switch (status) {
	case RNIC_CMD_ST_OK:
		return 0;
	case RNIC_CMD_ST_BAD_OPCODE:
		return EOPNOTSUPP;
	case RNIC_CMD_ST_NO_RESOURCES:
		return ENOMEM;
	case RNIC_CMD_ST_BUSY:
		return EBUSY;
	case RNIC_CMD_ST_INTERNAL:
		return EIO;
	case RNIC_CMD_ST_BAD_PARAM:
	case RNIC_CMD_ST_BAD_HANDLE:
	case RNIC_CMD_ST_BAD_STATE:
	case RNIC_CMD_ST_BAD_ATTR_MASK:
	case RNIC_CMD_ST_PD_MISMATCH:
	default:
		return EINVAL;
	}
}

const char *rnic_cmd_status_str(uint32_t status)
{
	static const char *const names[] = {
		[RNIC_CMD_ST_OK] = "ok",
		[RNIC_CMD_ST_BAD_OPCODE] = "unknown opcode",
		[RNIC_CMD_ST_BAD_PARAM] = "value out of range",
		[RNIC_CMD_ST_BAD_HANDLE] = "no such object",
		[RNIC_CMD_ST_BAD_STATE] = "not possible in the object's state",
		[RNIC_CMD_ST_BAD_ATTR_MASK] = "attribute missing or not taken",
		[RNIC_CMD_ST_PD_MISMATCH] = "protection domain mismatch",
		[RNIC_CMD_ST_NO_RESOURCES] = "no resources",
		[RNIC_CMD_ST_BUSY] = "object in use",
		[RNIC_CMD_ST_INTERNAL] = "context write failed",
	};

	if (status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown status";
}

static int cmd_halted(struct rnic_device *d, uint32_t st)
{
	if (!(st & RNIC_CMD_STATUS_HALTED))
		return 0;
	rnic_log("the control processor has halted (CMD_STATUS 0x%08x): reset the device", st);
	d->fw_dead = 1;
	return 1;
}

int rnic_fw_wait_ready(struct rnic_device *d)
{
	uint32_t v = 0, st;

	for (uint32_t n = 0; n < RNIC_LIB_CMD_POLLS; n++) {
		v = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_FW_STATE));
		if (v == 0xffffffffu) {
			rnic_log("FW_STATE reads all ones: the device does not answer");
			return EIO;
		}
		if (v)
			break;
		st = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_CMD_STATUS));
		if (cmd_halted(d, st))
			return EIO;
		rnic_progress(d);
	}
	if (!v) {
		rnic_log("the firmware has not booted after %u polls of FW_STATE",
			 RNIC_LIB_CMD_POLLS);
		return ETIMEDOUT;
	}
	if (v >> 16 != RNIC_FW_VERSION >> 16) {
		rnic_log("firmware version %u.%u; this library speaks command set %u only",
			 v >> 16, v & 0xffff, RNIC_FW_VERSION >> 16);
		return EPROTONOSUPPORT;
	}
	d->fw_version = v;
	return 0;
}

int rnic_cmd(struct rnic_device *d, uint32_t opcode, const uint32_t *in, unsigned int nin,
	     uint32_t *out, unsigned int nout)
{
	uint32_t st = RNIC_CMD_STATUS_BUSY, status, token;

	if (nin > RNIC_REG_CMD_IN_COUNT || nout > RNIC_REG_CMD_OUT_COUNT ||
	    opcode > RNIC_CMD_OPCODE_MASK)
		return EINVAL;
	if (d->fw_dead)
		return EIO;
	token = ++d->cmd_token & RNIC_CMD_TOKEN_MASK;
	for (unsigned int i = 0; i < nin; i++)
		rnic_write32(d, RNIC_CMD_REG(d, RNIC_REG_CMD_IN) + 4 * i, in[i]);
	rnic_write32(d, RNIC_CMD_REG(d, RNIC_REG_CMD_CTRL), opcode | token << RNIC_CMD_TOKEN_SHIFT);
	for (uint32_t n = 0; n < RNIC_LIB_CMD_POLLS; n++) {
		st = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_CMD_STATUS));
		if (cmd_halted(d, st) || !(st & RNIC_CMD_STATUS_BUSY))
			break;
		rnic_progress(d);
	}
	if (d->fw_dead)
		return EIO;
	if (st & RNIC_CMD_STATUS_BUSY) {
		rnic_log("command 0x%02x still busy after %u polls of CMD_STATUS", opcode,
			 RNIC_LIB_CMD_POLLS);
		return ETIMEDOUT;
	}
	if (st == 0xffffffffu || (st & RNIC_CMD_STATUS_OVERRUN) ||
	    st >> RNIC_CMD_TOKEN_SHIFT != token) {
		rnic_log("command 0x%02x: CMD_STATUS 0x%08x does not answer token 0x%04x", opcode,
			 st, token);
		return EIO;
	}
	status = st >> RNIC_CMD_STATUS_ST_SHIFT & RNIC_CMD_STATUS_ST_MASK;
	if (status != RNIC_CMD_ST_OK)
		return rnic_cmd_errno(status);
	for (unsigned int i = 0; i < nout; i++)
		out[i] = rnic_read32(d, RNIC_CMD_REG(d, RNIC_REG_CMD_OUT) + 4 * i);
	return 0;
}
