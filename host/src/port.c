/* Port addressing (MAC, GID table) and counters. On a real system the
 * management software sets these; in simulation the program does. */
#include <errno.h>
#include <string.h>

#include "priv.h"

#define RNIC_STAT_REG(d, r) ((d)->blk_stat + ((r) - RNIC_BLK_STAT_BASE))

int rnic_set_port_mac(struct rnic_context *context, const uint8_t mac[6])
{
	struct rnic_device *d;

	if (!context || !mac)
		return EINVAL;
	d = rnic_dev(context);
	rnic_write32(d, RNIC_PORT_REG(d, RNIC_REG_PORT_MAC_LO),
		     (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]);
	rnic_write32(d, RNIC_PORT_REG(d, RNIC_REG_PORT_MAC_HI), (uint32_t)mac[0] << 8 | mac[1]);
	return 0;
}

/* Entry i occupies four words, the most significant 32 bits of the GID first. */
static uint32_t gid_reg(struct rnic_device *d, int index, int word)
{
	return RNIC_PORT_REG(d, RNIC_REG_PORT_GID) + (uint32_t)(16 * index + 4 * word);
}

int rnic_set_gid(struct rnic_context *context, int index, const union rnic_gid *gid)
{
	struct rnic_device *d;

	if (!context || !gid || index < 0 || index >= RNIC_GID_TABLE_SIZE)
		return EINVAL;
	d = rnic_dev(context);
	for (int w = 0; w < 4; w++) {
		const uint8_t *b = &gid->raw[4 * w];
		rnic_write32(d, gid_reg(d, index, w),
			     (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
	}
	return 0;
}

int rnic_query_gid(struct rnic_context *context, uint8_t port_num, int index, union rnic_gid *gid)
{
	struct rnic_device *d;

	if (!context || !gid || port_num != 1 || index < 0 || index >= RNIC_GID_TABLE_SIZE)
		return EINVAL;
	d = rnic_dev(context);
	for (int w = 0; w < 4; w++) {
		uint32_t v = rnic_read32(d, gid_reg(d, index, w));
		gid->raw[4 * w] = (uint8_t)(v >> 24);
		gid->raw[4 * w + 1] = (uint8_t)(v >> 16);
		gid->raw[4 * w + 2] = (uint8_t)(v >> 8);
		gid->raw[4 * w + 3] = (uint8_t)v;
	}
	return 0;
}

int rnic_set_port_mtu(struct rnic_context *context, uint32_t mtu)
{
	if (!context || mtu < RNIC_IB_MTU_256 || mtu > RNIC_IB_MTU_4096)
		return EINVAL;
	rnic_write32(rnic_dev(context), RNIC_PORT_REG(rnic_dev(context), RNIC_REG_PORT_UD_MTU), mtu);
	return 0;
}

void rnic_gid_from_ipv4(union rnic_gid *gid, const uint8_t ip[4])
{
	memset(gid->raw, 0, sizeof(gid->raw));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], ip, 4);
}

int rnic_read_counter(struct rnic_context *context, uint32_t reg, uint32_t *value)
{
	struct rnic_device *d;

	if (!context || !value || reg < RNIC_REG_STAT_TX_FRAMES || reg >= RNIC_BLK_STAT_NEXT || reg % 4)
		return EINVAL;
	d = rnic_dev(context);
	*value = rnic_read32(d, RNIC_STAT_REG(d, reg));
	return 0;
}
