/* Shared scaffolding of the firmware's native unit tests (fw_test.h). */
#include <string.h>

#include "fw_test.h"

unsigned int n_pass, n_fail;
struct fw fw, fw_before;

int check_summary(void)
{
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

void t_init(uint32_t qps, uint32_t cqs, uint32_t mrs, uint32_t mtt, uint32_t pds)
{
	struct fw_caps c = {
		.num_qps = qps ? qps : FW_MAX_QPS,
		.num_cqs = cqs ? cqs : FW_MAX_CQS,
		.num_mrs = mrs ? mrs : FW_MAX_MRS,
		.num_mtt = mtt ? mtt : FW_MAX_MTT,
		.num_pds = pds ? pds : FW_MAX_PDS,
		.num_srqs = FW_MAX_SRQS,
		.num_ahs = FW_MAX_AHS,
		.num_mcgs = FW_MAX_MCGS,
	};

	/* The RAM at boot holds anything: fw_init leaves the QP attributes
	 * alone, so nothing may depend on them before CREATE_QP. */
	memset(&fw, 0xa5, sizeof(fw));
	fw_init(&fw, &c);
	mock_mmio_reset();
}

void t_put(uint32_t *w, unsigned int lsb, unsigned int width, uint64_t v)
{
	for (unsigned int i = 0; i < width; i++) {
		unsigned int b = lsb + i;

		w[b / 32] &= ~(1u << (b % 32));
		w[b / 32] |= (uint32_t)((v >> i) & 1) << (b % 32);
	}
}

uint64_t t_get(const uint32_t *w, unsigned int lsb, unsigned int width)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < width; i++)
		v |= (uint64_t)((w[(lsb + i) / 32] >> ((lsb + i) % 32)) & 1) << i;
	return v;
}

enum fw_status t_cmd(uint32_t op, const uint32_t *in, uint32_t *out)
{
	uint32_t buf[RNIC_REG_CMD_OUT_COUNT];
	enum fw_status st;

	mock_mmio_reset();
	mock_mmio_record(1);
	st = fw_cmd_run(&fw, op, in, out ? out : buf);
	mock_mmio_record(0);
	return st;
}

void t_cmd_fails_(const char *what, int line, uint32_t op, const uint32_t *in,
		  enum fw_status want)
{
	uint32_t out[RNIC_REG_CMD_OUT_COUNT];
	enum fw_status st;
	char label[96];

	memcpy(&fw_before, &fw, sizeof(fw));
	mock_mmio_reset();
	st = fw_cmd_run(&fw, op, in, out);
	snprintf(label, sizeof(label), "%s:%d", what, line);
	if (st != want) {
		n_fail++;
		printf("FAIL %s: command 0x%x returned status %u, expected %u\n", label, op, st, want);
	} else {
		n_pass++;
	}
	if (memcmp(&fw_before, &fw, sizeof(fw))) {
		n_fail++;
		printf("FAIL %s: command 0x%x changed the firmware's tables\n", label, op);
	} else {
		n_pass++;
	}
	if (mock_mmio_verify(label))
		n_fail++;
	else
		n_pass++;
}

uint32_t t_alloc_pd(void)
{
	uint32_t out[RNIC_REG_CMD_OUT_COUNT];

	CHECK_EQ(t_cmd(RNIC_CMD_OP_ALLOC_PD, NULL, out), FW_OK);
	return out[0];
}

uint32_t t_create_cq(void)
{
	uint32_t in[32] = { 0 }, out[32];

	t_put(in, RNIC_CMD_CREATE_CQ_IN_LOG_SIZE_LSB, 32, 4);
	t_put(in, RNIC_CMD_CREATE_CQ_IN_BASE_LSB, 64, 0x100000200000ull);
	CHECK_EQ(t_cmd(RNIC_CMD_OP_CREATE_CQ, in, out), FW_OK);
	return out[0];
}

uint32_t t_create_qp(uint32_t pd, uint32_t scq, uint32_t rcq)
{
	uint32_t in[32] = { 0 }, out[32];

	t_put(in, RNIC_CMD_CREATE_QP_IN_PD_LSB, 32, pd);
	t_put(in, RNIC_CMD_CREATE_QP_IN_SEND_CQN_LSB, 32, scq);
	t_put(in, RNIC_CMD_CREATE_QP_IN_RECV_CQN_LSB, 32, rcq);
	t_put(in, RNIC_CMD_CREATE_QP_IN_QP_TYPE_LSB, 8, RNIC_QP_TYPE_RC);
	t_put(in, RNIC_CMD_CREATE_QP_IN_SQ_LOG_SIZE_LSB, 8, 3);
	t_put(in, RNIC_CMD_CREATE_QP_IN_RQ_LOG_SIZE_LSB, 8, 2);
	t_put(in, RNIC_CMD_CREATE_QP_IN_SQ_BASE_LSB, 64, 0x100000300000ull);
	t_put(in, RNIC_CMD_CREATE_QP_IN_RQ_BASE_LSB, 64, 0x100000400000ull);
	CHECK_EQ(t_cmd(RNIC_CMD_OP_CREATE_QP, in, out), FW_OK);
	return out[0];
}

void t_modify_in(uint32_t *in, uint32_t qpn, uint32_t pd, uint32_t mask, uint32_t state)
{
	memset(in, 0, 4 * RNIC_REG_CMD_IN_COUNT);
#define P(f, v) t_put(in, RNIC_CMD_MODIFY_QP_IN_##f##_LSB, RNIC_CMD_MODIFY_QP_IN_##f##_W, (v))
	P(QPN, qpn);
	P(PD, pd);
	P(ATTR_MASK, mask);
	P(QP_STATE, state);
	P(CUR_QP_STATE, fw.qp[qpn < FW_MAX_QPS ? qpn : 0].state);
	P(PATH_MTU, RNIC_IB_MTU_1024);
	P(QP_ACCESS_FLAGS, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
	P(PKEY_INDEX, 0);
	P(PORT_NUM, 1);
	P(SGID_INDEX, 1);
	P(TIMEOUT, 14);
	P(RETRY_CNT, 7);
	P(RNR_RETRY, 7);
	P(MIN_RNR_TIMER, 12);
	P(MAX_RD_ATOMIC, 16);
	P(MAX_DEST_RD_ATOMIC, 16);
	P(IS_GLOBAL, 1);
	P(HOP_LIMIT, 0);
	P(TRAFFIC_CLASS, 0x28);
	P(DEST_QP_NUM, 0x123456);
	P(RQ_PSN, 0xabcdef);
	P(SQ_PSN, 0x654321);
	P(FLOW_LABEL, 0);
	P(DMAC, 0x021122334455ull);
	t_put(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB, 64, 0x0000ffffc6120002ull); /* ::ffff:198.18.0.2 */
	t_put(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB + 64, 64, 0);
#undef P
}

#define A(x) RNIC_QP_ATTR_##x

static void step(uint32_t qpn, uint32_t pd, uint32_t mask, uint32_t state)
{
	uint32_t in[32];

	t_modify_in(in, qpn, pd, A(STATE) | mask, state);
	CHECK_EQ(t_cmd(RNIC_CMD_OP_MODIFY_QP, in, NULL), FW_OK);
	CHECK_EQ(fw.qp[qpn].state, state);
}

void t_qp_to_state(uint32_t qpn, uint32_t pd, uint32_t s)
{
	if (s == RNIC_QPS_RESET)
		return;
	if (s == RNIC_QPS_ERR) {
		step(qpn, pd, 0, RNIC_QPS_ERR);
		return;
	}
	step(qpn, pd, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), RNIC_QPS_INIT);
	if (s == RNIC_QPS_INIT)
		return;
	step(qpn, pd, A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
		      A(MIN_RNR_TIMER), RNIC_QPS_RTR);
	if (s == RNIC_QPS_RTR)
		return;
	step(qpn, pd, A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC),
	     RNIC_QPS_RTS);
	if (s == RNIC_QPS_RTS)
		return;
	if (s == RNIC_QPS_SQD) {
		step(qpn, pd, 0, RNIC_QPS_SQD);
		return;
	}
	/* SQE: no command leads there; the data path would move the QP. */
	fw.qp[qpn].state = RNIC_QPS_SQE;
}

enum fw_status t_reg_mr(uint32_t pd, uint32_t access, uint64_t va, uint64_t len, uint32_t *key,
			uint32_t *mtt_base, uint32_t *npages)
{
	uint32_t in[32] = { 0 }, out[32];
	enum fw_status st;

	t_put(in, RNIC_CMD_REG_MR_IN_PD_LSB, 32, pd);
	t_put(in, RNIC_CMD_REG_MR_IN_ACCESS_LSB, 32, access);
	t_put(in, RNIC_CMD_REG_MR_IN_VA_LSB, 64, va);
	t_put(in, RNIC_CMD_REG_MR_IN_LENGTH_LSB, 64, len);
	st = t_cmd(RNIC_CMD_OP_REG_MR, in, out);
	if (key)
		*key = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_KEY_LSB, 32);
	if (mtt_base)
		*mtt_base = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_MTT_BASE_LSB, 32);
	if (npages)
		*npages = (uint32_t)t_get(out, RNIC_CMD_REG_MR_OUT_NPAGES_LSB, 32);
	return st;
}
