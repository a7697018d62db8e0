/* OpenRNIC firmware core: multicast groups of UD QPs (ibv_attach_mcast,
 * ibv_detach_mcast; docs/multicast.md). The firmware keeps a copy of the
 * data path's group table (CTX_TABLE_MCG): two ways of 2^MCAST_BUCKET_BITS
 * entries, a group in way 0 at bucket mcast_hash0 of its GID or in way 1 at
 * mcast_hash1 (the hashes the receive path computes, docs/formats.toml). A
 * group whose two buckets are both taken cannot be created. Every change
 * writes the whole entry before the command completes, so a DETACH stops
 * delivery to the QP from the next packet on. As in cmd.c, every check runs
 * before the first side effect. */
#include "core/bitmap.h"
#include "core/ctx.h"
#include "core/fw.h"

#define IN(rec, f) RNIC_CTX_GET(in, CMD_##rec##_IN, f)

/* bucket of a GID in way 0 or 1 (gid[0] holds bits 31:0) */
uint32_t fw_mcast_bucket(const uint32_t gid[4], int way)
{
	uint32_t h = 0, b = RNIC_MCAST_BUCKET_BITS;

	for (unsigned int i = 0; i < 8; i++) {
		uint32_t v = (gid[i / 2] >> (16 * (i % 2))) & 0xffff;

		if (way && i)
			v = ((v << i) | (v >> (16 - i))) & 0xffff;
		h ^= v;
	}
	return (h ^ h >> b ^ h >> 2 * b) & ((1u << b) - 1);
}

/* ff00::/8, or IPv4-mapped ::ffff:224.0.0.0/100 */
static int mgid_is_multicast(const uint32_t gid[4])
{
	if ((gid[3] >> 24) == 0xff)
		return 1;
	return gid[3] == 0 && gid[2] == 0 && gid[1] == 0xffff && (gid[0] >> 28) == 0xe;
}

static uint32_t slot_of(int way, uint32_t bucket)
{
	return (uint32_t)way << RNIC_MCAST_BUCKET_BITS | bucket;
}

/* The slot holding the group, or -1. */
static int mcg_find(const struct fw *fw, const uint32_t gid[4])
{
	for (int way = 0; way < RNIC_MCAST_WAYS; way++) {
		uint32_t s = slot_of(way, fw_mcast_bucket(gid, way));
		const struct fw_mcg *g = &fw->mcg[s];

		if (g->count && g->mgid[0] == gid[0] && g->mgid[1] == gid[1] && g->mgid[2] == gid[2] &&
		    g->mgid[3] == gid[3])
			return (int)s;
	}
	return -1;
}

/* The record's GID and QPNs are whole words: written as words (the bit
 * packer, inlined at every use, costs RAM the firmware does not have). */
_Static_assert(RNIC_MCG_MGID_LSB % 32 == 0 && RNIC_MCG_QPN_LSB % 32 == 0 && RNIC_MCG_QPN_W == 32 &&
		       RNIC_CMD_MCAST_IN_MGID_LSB % 32 == 0,
	       "mcg words");

FW_MUST_CHECK static enum fw_status mcg_write(const struct fw_mcg *g, uint32_t slot)
{
	uint32_t w[RNIC_MCG_WORDS] = { 0 };

	if (g->count) {
		RNIC_CTX_SET(w, MCG, VALID, 1);
		RNIC_CTX_SET(w, MCG, COUNT, g->count);
		for (unsigned int i = 0; i < 4; i++)
			w[RNIC_MCG_MGID_LSB / 32 + i] = g->mgid[i];
		for (unsigned int i = 0; i < g->count; i++)
			w[RNIC_MCG_QPN_LSB / 32 + i] = g->qpn[i];
	}
	return fw_ctx_write(RNIC_CTX_TABLE_MCG, RNIC_CTX_OP_WRITE, slot, w, RNIC_MCG_WORDS);
}

FW_MUST_CHECK static enum fw_status mcast_args(const struct fw *fw, const uint32_t *in, uint32_t gid[4])
{
	uint64_t qpn = IN(MCAST, QPN);

	if (qpn == 0 || qpn >= fw->caps.num_qps || !fw_bit_test(fw->qp_used, (uint32_t)qpn))
		return FW_BAD_HANDLE;
	if (fw->qp[qpn].pd != IN(MCAST, PD))
		return FW_PD_MISMATCH;
	for (unsigned int i = 0; i < 4; i++)
		gid[i] = in[RNIC_CMD_MCAST_IN_MGID_LSB / 32 + i];
	/* only UD QPs take multicast (IBTA 10.5.2.2), QP1 none */
	if (fw->qp[qpn].type != FW_QPT_UD || qpn == RNIC_GSI_QPN || IN(MCAST, LID) != 0 ||
	    !mgid_is_multicast(gid))
		return FW_BAD_PARAM;
	if (!fw->caps.num_mcgs)
		return FW_NO_RESOURCES;
	return FW_OK;
}

enum fw_status fw_cmd_attach_mcast(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint32_t gid[4], qpn = (uint32_t)IN(MCAST, QPN);
	enum fw_status st = mcast_args(fw, in, gid);
	struct fw_mcg g;
	int s;

	(void)out;
	if (st != FW_OK)
		return st;
	s = mcg_find(fw, gid);
	if (s >= 0) {
		g = fw->mcg[s];
		for (unsigned int i = 0; i < g.count; i++)
			if (g.qpn[i] == qpn)
				return FW_OK; /* attached already: nothing changes */
		if (g.count >= RNIC_MCAST_GROUP_QPS)
			return FW_NO_RESOURCES;
	} else {
		for (int way = 0; way < RNIC_MCAST_WAYS && s < 0; way++) {
			uint32_t t = slot_of(way, fw_mcast_bucket(gid, way));

			if (!fw->mcg[t].count)
				s = (int)t;
		}
		if (s < 0)
			return FW_NO_RESOURCES; /* both buckets hold other groups */
		g = (struct fw_mcg){ 0 };
		for (unsigned int i = 0; i < 4; i++)
			g.mgid[i] = gid[i];
	}
	g.qpn[g.count++] = (uint16_t)qpn;
	st = mcg_write(&g, (uint32_t)s);
	if (st != FW_OK)
		return st;
	fw->mcg[s] = g;
	return FW_OK;
}

/* Drop member i of the group in slot s, the table entry written first. */
FW_MUST_CHECK static enum fw_status mcg_remove(struct fw *fw, uint32_t s, unsigned int i)
{
	struct fw_mcg g = fw->mcg[s];
	enum fw_status st;

	g.qpn[i] = g.qpn[g.count - 1];
	g.qpn[--g.count] = 0;
	if (!g.count)
		g = (struct fw_mcg){ 0 };
	st = mcg_write(&g, s);
	if (st != FW_OK)
		return st;
	fw->mcg[s] = g;
	return FW_OK;
}

enum fw_status fw_cmd_detach_mcast(struct fw *fw, const uint32_t *in, uint32_t *out)
{
	uint32_t gid[4], qpn = (uint32_t)IN(MCAST, QPN);
	enum fw_status st = mcast_args(fw, in, gid);
	int s;

	(void)out;
	if (st != FW_OK)
		return st;
	s = mcg_find(fw, gid);
	if (s < 0)
		return FW_BAD_PARAM; /* no such group */
	for (unsigned int i = 0; i < fw->mcg[s].count; i++)
		if (fw->mcg[s].qpn[i] == qpn)
			return mcg_remove(fw, (uint32_t)s, i);
	return FW_BAD_PARAM; /* not a member */
}

enum fw_status fw_mcast_detach_qp(struct fw *fw, uint32_t qpn)
{
	for (uint32_t s = 0; s < fw->caps.num_mcgs; s++)
		for (unsigned int i = 0; i < fw->mcg[s].count; i++)
			if (fw->mcg[s].qpn[i] == qpn) {
				enum fw_status st = mcg_remove(fw, s, i);

				if (st != FW_OK)
					return st;
				break;
			}
	return FW_OK;
}
