/* OpenRNIC host library: address handles of UD sends. CREATE_AH and
 * DESTROY_AH are firmware commands (the firmware writes the device's AH
 * table); the library resolves the next-hop MAC of a multicast GID. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* The destination MAC of a UD send: a multicast GID maps onto the Ethernet
 * multicast range (IPv4 group 224.0.0.0/4: 01:00:5e and the low 23 bits,
 * RFC 1112; IPv6 ff00::/8: 33:33 and the low 32 bits, RFC 2464); anything
 * else goes to the next hop the caller resolved, as for an RC path. */
static void ah_dmac(const struct rnic_ah_attr *attr, uint8_t mac[6])
{
	const uint8_t *g = attr->grh.dgid.raw;
	static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(g, v4_mapped, sizeof(v4_mapped)) == 0 && (g[12] & 0xf0) == 0xe0) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = g[13] & 0x7f;
		mac[4] = g[14];
		mac[5] = g[15];
	} else if (g[0] == 0xff) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(&mac[2], &g[12], 4);
	} else {
		memcpy(mac, attr->dmac, 6);
	}
}

struct rnic_ah *rnic_create_ah(struct rnic_pd *pd, struct rnic_ah_attr *attr)
{
	uint32_t in[RNIC_CMD_CREATE_AH_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_AH_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_ah *ah;
	uint8_t mac[6];
	uint64_t m = 0;
	int err;

	if (!pd || !attr || attr->is_global != 1 || attr->grh.sgid_index >= RNIC_GID_TABLE_SIZE ||
	    attr->grh.flow_label >> RNIC_AH_FLOW_LABEL_W) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah_dmac(attr, mac);
	for (int i = 0; i < 6; i++)
		m = m << 8 | mac[i];
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, PD, pd->handle);
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, SGID_INDEX, attr->grh.sgid_index);
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, HOP_LIMIT, attr->grh.hop_limit);
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, TRAFFIC_CLASS, attr->grh.traffic_class);
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, FLOW_LABEL, attr->grh.flow_label);
	RNIC_CTX_SET(in, CMD_CREATE_AH_IN, DMAC, m);
	/* the GID as the command's 128-bit number: raw[0] is its top byte */
	for (int w = 0; w < 4; w++) {
		const uint8_t *b = &attr->grh.dgid.raw[12 - 4 * w];

		rnic_ctx_set(in, RNIC_CMD_CREATE_AH_IN_DGID_LSB + 32 * (unsigned int)w, 32,
			     (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
	}
	err = rnic_cmd(d, RNIC_CMD_OP_CREATE_AH, in, RNIC_CMD_CREATE_AH_IN_WORDS, out,
		       RNIC_CMD_CREATE_AH_OUT_WORDS);
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_AH_OUT, AH);
	pd_priv(pd)->refcnt++;
	d->n_ah++;
	return ah;
}

int rnic_destroy_ah(struct rnic_ah *ah)
{
	uint32_t in[RNIC_CMD_DESTROY_AH_IN_WORDS] = {0};
	struct rnic_device *d;
	int err;

	if (!ah)
		return EINVAL;
	d = rnic_dev(ah->context);
	RNIC_CTX_SET(in, CMD_DESTROY_AH_IN, AH, ah->handle);
	RNIC_CTX_SET(in, CMD_DESTROY_AH_IN, PD, ah->pd->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DESTROY_AH, in, RNIC_CMD_DESTROY_AH_IN_WORDS, NULL, 0);
	if (err)
		return err;
	pd_priv(ah->pd)->refcnt--;
	d->n_ah--;
	free(ah);
	return 0;
}
