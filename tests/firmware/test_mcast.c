/* Multicast groups in the firmware: ATTACH_MCAST / DETACH_MCAST refusals
 * (handle, PD, QP type, lid, GID), the group table record written through
 * the context window (exactly, at the slot the formats' hash names, which
 * this test computes on its own), a second member, the ninth member and a
 * third group on a taken bucket pair refused, detach, and DESTROY_QP
 * detaching its QP. */
#include <string.h>

#include "fw_test.h"
#include "hal/mmio.h"

#define OP(x) RNIC_CMD_OP_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))
#define REC(w, rec, f, v) t_put((w), RNIC_##rec##_##f##_LSB, RNIC_##rec##_##f##_W, (v))

static uint32_t in[32], out[32];

static uint32_t create_qp(uint32_t pd, uint32_t cq, uint32_t type)
{
	memset(in, 0, sizeof(in));
	PUT(CREATE_QP_IN, PD, pd);
	PUT(CREATE_QP_IN, SEND_CQN, cq);
	PUT(CREATE_QP_IN, RECV_CQN, cq);
	PUT(CREATE_QP_IN, QP_TYPE, type);
	PUT(CREATE_QP_IN, SQ_LOG_SIZE, 3);
	PUT(CREATE_QP_IN, RQ_LOG_SIZE, 3);
	PUT(CREATE_QP_IN, SQ_BASE, 0x200000);
	PUT(CREATE_QP_IN, RQ_BASE, 0x300000);
	CHECK_EQ(t_cmd(OP(CREATE_QP), in, out), FW_OK);
	return out[0];
}

static void mc_in(uint32_t qpn, uint32_t pd, uint32_t lid, const uint32_t gid[4])
{
	memset(in, 0, sizeof(in));
	PUT(MCAST_IN, QPN, qpn);
	PUT(MCAST_IN, PD, pd);
	PUT(MCAST_IN, LID, lid);
	for (int i = 0; i < 4; i++)
		t_put(in, RNIC_CMD_MCAST_IN_MGID_LSB + 32 * i, 32, gid[i]);
}

/* the formats' hash, written out from docs/formats.toml (group mcast) */
static uint32_t hash(const uint32_t gid[4], int way)
{
	uint32_t h = 0;

	for (int i = 0; i < 8; i++) {
		uint32_t v = (uint32_t)t_get(gid, 16 * i, 16);

		if (way)
			v = ((v << i) | (v >> ((16 - i) % 16))) & 0xffff;
		h ^= v;
	}
	return (h ^ (h >> RNIC_MCAST_BUCKET_BITS) ^ (h >> (2 * RNIC_MCAST_BUCKET_BITS))) &
	       ((1u << RNIC_MCAST_BUCKET_BITS) - 1);
}

/* Expect exactly this entry written at slot by the next command. */
static void expect_entry(uint32_t slot, const uint32_t gid[4], const uint32_t *qpn, uint32_t n)
{
	uint32_t w[RNIC_MCG_WORDS] = { 0 };

	if (n) {
		REC(w, MCG, VALID, 1);
		REC(w, MCG, COUNT, n);
		for (int i = 0; i < 4; i++)
			t_put(w, RNIC_MCG_MGID_LSB + 32 * i, 32, gid[i]);
		for (uint32_t i = 0; i < n; i++)
			t_put(w, RNIC_MCG_QPN_LSB + 32 * i, 32, qpn[i]);
	}
	mock_mmio_reset();
	for (uint32_t i = 0; i < RNIC_MCG_WORDS; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, w[i]);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(RNIC_CTX_TABLE_MCG, RNIC_CTX_OP_WRITE, slot));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
}

static void test_mcast(void)
{
	static const uint32_t g4[4] = { 0xef010203, 0xffff, 0, 0 };    /* ::ffff:239.1.2.3 */
	static const uint32_t uni[4] = { 0xc0a80102, 0xffff, 0, 0 };   /* ::ffff:192.168.1.2 */
	uint32_t pd, pd2, cq, ud[10], rc, gsi, slot, members[2];
	uint32_t coll[3][4];
	int n = 0;

	t_init(32, 8, 8, 64, 8);
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();
	cq = t_create_cq();
	for (int i = 0; i < 10; i++)
		ud[i] = create_qp(pd, cq, RNIC_QP_TYPE_UD);
	rc = create_qp(pd, cq, RNIC_QP_TYPE_RC);
	gsi = create_qp(pd, cq, RNIC_QP_TYPE_GSI);

	mc_in(0, pd, 0, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_BAD_HANDLE);
	mc_in(ud[0], pd2, 0, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_PD_MISMATCH);
	mc_in(rc, pd, 0, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_BAD_PARAM);
	mc_in(gsi, pd, 0, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_BAD_PARAM);
	mc_in(ud[0], pd, 1, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_BAD_PARAM);
	mc_in(ud[0], pd, 0, uni);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_BAD_PARAM);
	mc_in(ud[0], pd, 0, g4);
	t_cmd_fails(OP(DETACH_MCAST), in, FW_BAD_PARAM); /* no such group */

	/* the record, exactly, at way 0's bucket; then a second member */
	slot = hash(g4, 0);
	CHECK_EQ(fw_mcast_bucket(g4, 0), slot);
	members[0] = ud[0];
	mc_in(ud[0], pd, 0, g4);
	expect_entry(slot, g4, members, 1);
	CHECK_EQ(fw_cmd_run(&fw, OP(ATTACH_MCAST), in, out), FW_OK);
	CHECK_MOCK("ATTACH_MCAST record");
	members[1] = ud[1];
	mc_in(ud[1], pd, 0, g4);
	expect_entry(slot, g4, members, 2);
	CHECK_EQ(fw_cmd_run(&fw, OP(ATTACH_MCAST), in, out), FW_OK);
	CHECK_MOCK("ATTACH_MCAST second member");
	/* attached again: nothing written */
	mock_mmio_reset();
	CHECK_EQ(fw_cmd_run(&fw, OP(ATTACH_MCAST), in, out), FW_OK);
	CHECK_MOCK("ATTACH_MCAST twice");
	/* up to MCAST_GROUP_QPS members, not one more */
	for (int i = 2; i < RNIC_MCAST_GROUP_QPS; i++) {
		mc_in(ud[i], pd, 0, g4);
		CHECK_EQ(t_cmd(OP(ATTACH_MCAST), in, NULL), FW_OK);
	}
	mc_in(ud[RNIC_MCAST_GROUP_QPS], pd, 0, g4);
	t_cmd_fails(OP(ATTACH_MCAST), in, FW_NO_RESOURCES);
	/* detach ud[0]: the last member takes its place */
	members[0] = ud[RNIC_MCAST_GROUP_QPS - 1];
	mc_in(ud[0], pd, 0, g4);
	CHECK_EQ(t_cmd(OP(DETACH_MCAST), in, NULL), FW_OK);
	CHECK_EQ(fw.mcg[slot].count, RNIC_MCAST_GROUP_QPS - 1);
	CHECK_EQ(fw.mcg[slot].qpn[0], members[0]);
	t_cmd_fails(OP(DETACH_MCAST), in, FW_BAD_PARAM); /* not a member any more */

	/* three IPv6 groups on one bucket pair: the third is refused */
	for (uint32_t v = 1; n < 3 && v < (1u << 20); v++) {
		uint32_t c[4] = { v * 0x9e3779b1u, v ^ 0x5a5a, 0x1234, 0xff050000 | (v & 0xff) };

		if (n == 0 || (hash(c, 0) == hash(coll[0], 0) && hash(c, 1) == hash(coll[0], 1))) {
			memcpy(coll[n], c, sizeof(c));
			n++;
		}
	}
	CHECK_EQ(n, 3);
	CHECK(hash(coll[0], 0) != slot); /* (so that the first goes to way 0) */
	if (n == 3 && hash(coll[0], 0) != slot) {
		mc_in(ud[9], pd, 0, coll[0]);
		expect_entry(hash(coll[0], 0), coll[0], &ud[9], 1);
		CHECK_EQ(fw_cmd_run(&fw, OP(ATTACH_MCAST), in, out), FW_OK);
		CHECK_MOCK("group in way 0");
		mc_in(ud[9], pd, 0, coll[1]);
		expect_entry((1u << RNIC_MCAST_BUCKET_BITS) + hash(coll[1], 1), coll[1], &ud[9], 1);
		CHECK_EQ(fw_cmd_run(&fw, OP(ATTACH_MCAST), in, out), FW_OK);
		CHECK_MOCK("group in way 1");
		mc_in(ud[9], pd, 0, coll[2]);
		t_cmd_fails(OP(ATTACH_MCAST), in, FW_NO_RESOURCES);
	}

	/* DESTROY_QP detaches: ud[9]'s two groups written empty */
	memset(in, 0, sizeof(in));
	PUT(DESTROY_QP_IN, QPN, ud[9]);
	PUT(DESTROY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, NULL), FW_OK);
	CHECK_EQ(fw.mcg[hash(coll[0], 0)].count, 0);
	CHECK_EQ(fw.mcg[(1u << RNIC_MCAST_BUCKET_BITS) + hash(coll[1], 1)].count, 0);
	CHECK_EQ(fw.mcg[slot].count, RNIC_MCAST_GROUP_QPS - 1);

	/* QUERY_DEVICE tells the limits */
	CHECK_EQ(t_cmd(OP(QUERY_DEVICE), in, out), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_DEVICE_OUT_MAX_MCAST_GRP_LSB, 32), FW_MAX_MCGS);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_DEVICE_OUT_MAX_MCAST_QP_ATTACH_LSB, 32), RNIC_MCAST_GROUP_QPS);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_DEVICE_OUT_MAX_TOTAL_MCAST_QP_ATTACH_LSB, 32), FW_MAX_MCGS * RNIC_MCAST_GROUP_QPS);
}

int main(void)
{
	test_mcast();
	return check_summary();
}
