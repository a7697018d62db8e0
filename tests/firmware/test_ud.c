/* The unreliable datagram service in the firmware: UD and GSI QPs (QP1)
 * through CREATE_QP, the UD transition table (Q_Key at INIT, nothing at RTR,
 * SQ PSN at RTS; RC attributes refused), the QPC's ud bit, Q_Key and the
 * port's MTU (PORT_UD_MTU) as its path MTU, and CREATE_AH / DESTROY_AH:
 * refusals, the AH record written through the context window, PD use
 * counts. */
#include <string.h>

#include "fw_test.h"
#include "hal/mmio.h"
#include "rnic/roce.h"

#define OP(x) RNIC_CMD_OP_##x
#define A(x) RNIC_QP_ATTR_##x
#define S(x) RNIC_QPS_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))
#define REC(w, rec, f, v) t_put((w), RNIC_##rec##_##f##_LSB, RNIC_##rec##_##f##_W, (v))

static uint32_t in[32], out[32];

static uint32_t create_qp(uint32_t pd, uint32_t cq, uint32_t type, enum fw_status want)
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
	CHECK_EQ(t_cmd(OP(CREATE_QP), in, out), want);
	return want == FW_OK ? out[0] : 0;
}

static enum fw_status modify(uint32_t qpn, uint32_t pd, uint32_t mask, uint32_t state, uint32_t qkey)
{
	t_modify_in(in, qpn, pd, A(STATE) | mask, state);
	PUT(MODIFY_QP_IN, QKEY, qkey);
	return t_cmd(OP(MODIFY_QP), in, NULL);
}

static void test_qp_types(void)
{
	uint32_t pd, cq, ud, gsi;

	t_init(16, 8, 8, 64, 8);
	pd = t_alloc_pd();
	cq = t_create_cq();
	create_qp(pd, cq, 3, FW_BAD_PARAM); /* UC: not offered */
	ud = create_qp(pd, cq, RNIC_QP_TYPE_UD, FW_OK);
	CHECK(ud >= 2);
	gsi = create_qp(pd, cq, RNIC_QP_TYPE_GSI, FW_OK);
	CHECK_EQ(gsi, RNIC_GSI_QPN);
	create_qp(pd, cq, RNIC_QP_TYPE_GSI, FW_NO_RESOURCES); /* one QP1 */
	/* ordinary QPs never get QPN 1, before or after QP1 exists */
	for (int i = 0; i < 4; i++)
		CHECK(create_qp(pd, cq, RNIC_QP_TYPE_RC, FW_OK) >= 2);
	/* QUERY_QP tells the type; QP1 is UD */
	memset(in, 0, sizeof(in));
	PUT(QUERY_QP_IN, QPN, gsi);
	PUT(QUERY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(QUERY_QP), in, out), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_QP_OUT_QP_TYPE_LSB, 8), RNIC_QP_TYPE_UD);
	/* destroyed, QP1 can be made again */
	memset(in, 0, sizeof(in));
	PUT(DESTROY_QP_IN, QPN, gsi);
	PUT(DESTROY_QP_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DESTROY_QP), in, NULL), FW_OK);
	CHECK_EQ(create_qp(pd, cq, RNIC_QP_TYPE_GSI, FW_OK), RNIC_GSI_QPN);
}

static void test_ud_transitions(void)
{
	uint32_t pd, cq, qpn, req, opt;

	/* the table itself */
	CHECK_EQ(fw_qp_transition_type(FW_QPT_UD, S(RESET), S(INIT), &req, &opt), FW_OK);
	CHECK_EQ(req, A(PKEY_INDEX) | A(PORT) | A(QKEY));
	CHECK_EQ(fw_qp_transition_type(FW_QPT_UD, S(INIT), S(RTR), &req, &opt), FW_OK);
	CHECK_EQ(req, 0);
	CHECK_EQ(fw_qp_transition_type(FW_QPT_UD, S(RTR), S(RTS), &req, &opt), FW_OK);
	CHECK_EQ(req, A(SQ_PSN));
	CHECK_EQ(fw_qp_transition_type(FW_QPT_UD, S(RESET), S(RTS), &req, &opt), FW_BAD_STATE);

	t_init(16, 8, 8, 64, 8);
	pd = t_alloc_pd();
	cq = t_create_cq();
	qpn = create_qp(pd, cq, RNIC_QP_TYPE_UD, FW_OK);
	/* INIT needs the Q_Key; RC's access flags are not a UD attribute */
	t_modify_in(in, qpn, pd, A(STATE) | A(PKEY_INDEX) | A(PORT), S(INIT));
	t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_ATTR_MASK);
	t_modify_in(in, qpn, pd, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY) | A(ACCESS_FLAGS), S(INIT));
	t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_ATTR_MASK);
	CHECK_EQ(modify(qpn, pd, A(PKEY_INDEX) | A(PORT) | A(QKEY), S(INIT), 0x11111111), FW_OK);
	CHECK_EQ(fw.qp[qpn].qkey, 0x11111111);
	/* RTR: no path, no PSN; RC's RTR attributes are refused */
	t_modify_in(in, qpn, pd, A(STATE) | A(AV) | A(DEST_QPN), S(RTR));
	t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_ATTR_MASK);
	CHECK_EQ(modify(qpn, pd, A(QKEY), S(RTR), 0x22222222), FW_OK);
	CHECK_EQ(fw.qp[qpn].qkey, 0x22222222);
	/* RTS needs the SQ PSN only */
	t_modify_in(in, qpn, pd, A(STATE), S(RTS));
	t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_ATTR_MASK);
	t_modify_in(in, qpn, pd, A(STATE) | A(SQ_PSN) | A(TIMEOUT), S(RTS));
	t_cmd_fails(OP(MODIFY_QP), in, FW_BAD_ATTR_MASK);
	CHECK_EQ(modify(qpn, pd, A(SQ_PSN), S(RTS), 0), FW_OK);
	CHECK_EQ(fw.qp[qpn].state, S(RTS));
	CHECK_EQ(fw.qp[qpn].qkey, 0x22222222);
	/* RTS -> RTS takes a new Q_Key */
	CHECK_EQ(modify(qpn, pd, A(QKEY), S(RTS), 0x80010000u), FW_OK);
	CHECK_EQ(fw.qp[qpn].qkey, 0x80010000u);
	/* back to RESET clears the Q_Key, keeps the type */
	CHECK_EQ(modify(qpn, pd, 0, S(RESET), 0), FW_OK);
	CHECK_EQ(fw.qp[qpn].qkey, 0);
	CHECK_EQ(fw.qp[qpn].type, FW_QPT_UD);
}

/* The QPC of a UD QP at INIT: ud bit, Q_Key, and the port's MTU read from
 * PORT_UD_MTU as its path MTU, exactly (strict mock). */
static void test_ud_qpc(void)
{
	uint32_t pd, cq, qpn, w[RNIC_QPC_WORDS] = { 0 };

	t_init(16, 8, 8, 64, 8);
	pd = t_alloc_pd();
	cq = t_create_cq();
	qpn = create_qp(pd, cq, RNIC_QP_TYPE_UD, FW_OK);
	t_modify_in(in, qpn, pd, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY), S(INIT));
	PUT(MODIFY_QP_IN, QKEY, 0xcafef00d);
	REC(w, QPC, STATE, S(INIT));
	REC(w, QPC, PMTU, RNIC_IB_MTU_2048);
	REC(w, QPC, IPV6, 1); /* dgid 0 is not IPv4-mapped */
	REC(w, QPC, PD, pd);
	REC(w, QPC, SEND_CQN, cq);
	REC(w, QPC, RECV_CQN, cq);
	REC(w, QPC, SQ_LOG_SIZE, 3);
	REC(w, QPC, RQ_LOG_SIZE, 3);
	REC(w, QPC, UDP_SPORT, rnic_rocev2_udp_sport(qpn, 0, 0));
	REC(w, QPC, PKEY, RNIC_DEFAULT_PKEY);
	REC(w, QPC, HOP_LIMIT, RNIC_IPV4_DEFAULT_TTL);
	REC(w, QPC, SQ_BASE, 0x200000);
	REC(w, QPC, RQ_BASE, 0x300000);
	REC(w, QPC, UD, 1);
	REC(w, QPC, QKEY, 0xcafef00d);
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_PORT_UD_MTU, RNIC_IB_MTU_2048);
	for (uint32_t i = 0; i < RNIC_QPC_WORDS; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, w[i]);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD,
			       fw_ctx_cmd_word(RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, qpn));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	CHECK_EQ(fw_cmd_run(&fw, OP(MODIFY_QP), in, out), FW_OK);
	CHECK_MOCK("UD QPC at INIT");
}

static void ah_in(uint32_t pd, uint32_t sgid, uint32_t fl, const uint32_t dgid[4])
{
	memset(in, 0, sizeof(in));
	PUT(CREATE_AH_IN, PD, pd);
	PUT(CREATE_AH_IN, SGID_INDEX, sgid);
	PUT(CREATE_AH_IN, HOP_LIMIT, 0);
	PUT(CREATE_AH_IN, TRAFFIC_CLASS, 0x48);
	PUT(CREATE_AH_IN, FLOW_LABEL, fl);
	PUT(CREATE_AH_IN, DMAC, 0x0200c0a80102ull);
	for (int i = 0; i < 4; i++)
		t_put(in, RNIC_CMD_CREATE_AH_IN_DGID_LSB + 32 * i, 32, dgid[i]);
}

static void test_ah(void)
{
	static const uint32_t v4[4] = { 0xc0a80102, 0xffff, 0, 0 };
	static const uint32_t v6[4] = { 1, 0, 0, 0xfe800000 };
	uint32_t pd, pd2, ah, w[RNIC_AH_WORDS] = { 0 };

	t_init(16, 8, 8, 64, 8);
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();
	ah_in(0, 0, 0, v4);
	t_cmd_fails(OP(CREATE_AH), in, FW_BAD_HANDLE);
	ah_in(pd, RNIC_GID_TABLE_SIZE, 0, v4);
	t_cmd_fails(OP(CREATE_AH), in, FW_BAD_PARAM);
	ah_in(pd, 0, 1u << 20, v6);
	t_cmd_fails(OP(CREATE_AH), in, FW_BAD_PARAM);

	/* the record, exactly: IPv4-mapped destination, default hop limit */
	ah_in(pd, 2, 0, v4);
	REC(w, AH, VALID, 1);
	REC(w, AH, IPV6, 0);
	REC(w, AH, SGID_INDEX, 2);
	REC(w, AH, PD, pd);
	REC(w, AH, TRAFFIC_CLASS, 0x48);
	REC(w, AH, HOP_LIMIT, RNIC_IPV4_DEFAULT_TTL);
	REC(w, AH, UDP_SPORT, rnic_rocev2_udp_sport(0, 0, 0));
	REC(w, AH, DST_MAC, 0x0200c0a80102ull);
	for (int i = 0; i < 4; i++)
		t_put(w, RNIC_AH_DGID_LSB + 32 * i, 32, v4[i]);
	mock_mmio_reset();
	for (uint32_t i = 0; i < RNIC_AH_WORDS; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, w[i]);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(RNIC_CTX_TABLE_AH, RNIC_CTX_OP_WRITE, 1u));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	CHECK_EQ(fw_cmd_run(&fw, OP(CREATE_AH), in, out), FW_OK);
	CHECK_MOCK("CREATE_AH record");
	ah = out[0];
	CHECK_EQ(ah, 1);

	/* an IPv6 AH gets the next number and the ipv6 bit */
	ah_in(pd, 1, 0x12345, v6);
	CHECK_EQ(t_cmd(OP(CREATE_AH), in, out), FW_OK);
	CHECK_EQ(out[0], 2);

	/* the PD is busy while AHs use it */
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_PD_IN, PD, pd);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BUSY);

	/* DESTROY_AH: handle and PD checked, then the entry zeroed */
	memset(in, 0, sizeof(in));
	PUT(DESTROY_AH_IN, AH, 3);
	PUT(DESTROY_AH_IN, PD, pd);
	t_cmd_fails(OP(DESTROY_AH), in, FW_BAD_HANDLE);
	PUT(DESTROY_AH_IN, AH, 0);
	t_cmd_fails(OP(DESTROY_AH), in, FW_BAD_HANDLE);
	PUT(DESTROY_AH_IN, AH, ah);
	PUT(DESTROY_AH_IN, PD, pd2);
	t_cmd_fails(OP(DESTROY_AH), in, FW_PD_MISMATCH);
	PUT(DESTROY_AH_IN, PD, pd);
	memset(w, 0, sizeof(w));
	mock_mmio_reset();
	for (uint32_t i = 0; i < RNIC_AH_WORDS; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, 0);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(RNIC_CTX_TABLE_AH, RNIC_CTX_OP_WRITE, ah));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	CHECK_EQ(fw_cmd_run(&fw, OP(DESTROY_AH), in, out), FW_OK);
	CHECK_MOCK("DESTROY_AH record");
	t_cmd_fails(OP(DESTROY_AH), in, FW_BAD_HANDLE); /* twice */
	PUT(DESTROY_AH_IN, AH, 2);
	CHECK_EQ(t_cmd(OP(DESTROY_AH), in, NULL), FW_OK);
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_PD_IN, PD, pd);
	CHECK_EQ(t_cmd(OP(DEALLOC_PD), in, NULL), FW_OK);

	/* QUERY_DEVICE reports the AHs there are (AH 0 unused) */
	memset(in, 0, sizeof(in));
	CHECK_EQ(t_cmd(OP(QUERY_DEVICE), in, out), FW_OK);
	CHECK_EQ(t_get(out, RNIC_CMD_QUERY_DEVICE_OUT_MAX_AH_LSB, 32), FW_MAX_AHS - 1);
}

int main(void)
{
	test_qp_types();
	test_ud_transitions();
	test_ud_qpc();
	test_ah();
	return check_summary();
}
