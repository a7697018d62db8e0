/* The main loop's side of the mailbox, against the strict mock: boot reads
 * the DEV block and writes FW_STATE (the version, never 0); an idle poll
 * reads CMD_STATUS only; a command is read (CMD_OPCODE, then exactly its
 * CMD_IN words), run, its CMD_OUT words written, and CMD_DONE written last
 * with the status; a failed or unknown command writes no CMD_OUT word. */
#include "fw_test.h"

#define OP(x) RNIC_CMD_OP_##x

static void test_boot(void)
{
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_QPS, 64);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_MRS, 128);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_CQS, 32);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_MTT, 1u << 20);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_SRQS, 16);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_AHS, 1u << 12);
	mock_mmio_expect_read(RNIC_REG_DEV_NUM_MCGS, FW_MAX_MCGS);
	mock_mmio_expect_write(RNIC_REG_FW_STATE, RNIC_FW_VERSION);
	fw_boot(&fw);
	CHECK_MOCK("boot");
	CHECK(RNIC_FW_VERSION != 0);
	CHECK_EQ(fw.caps.num_qps, 64);
	CHECK_EQ(fw.caps.num_mrs, 128);
	CHECK_EQ(fw.caps.num_cqs, 32);
	CHECK_EQ(fw.caps.num_mtt, FW_MAX_MTT);
	CHECK_EQ(fw.caps.num_srqs, 16);
	CHECK_EQ(fw.caps.num_ahs, FW_MAX_AHS);
	CHECK_EQ(fw.caps.num_mcgs, FW_MAX_MCGS);
}

static void test_idle(void)
{
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 0);
	CHECK_EQ(fw_mailbox_poll(&fw), 0);
	CHECK_MOCK("idle");
	/* the overrun bit alone is no command */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 2 | 0x1234u << 16);
	CHECK_EQ(fw_mailbox_poll(&fw), 0);
	CHECK_MOCK("idle with overrun");
}

static void test_create_cq(void)
{
	uint32_t token = 0xbeefu << 16;

	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 1);
	mock_mmio_expect_read(RNIC_REG_CMD_OPCODE, token | OP(CREATE_CQ));
	/* cmd_create_cq_in: log_size, base (2 words) */
	CHECK_EQ(RNIC_CMD_CREATE_CQ_IN_WORDS, 3);
	mock_mmio_expect_read(RNIC_REG_CMD_IN + 0, 6);
	mock_mmio_expect_read(RNIC_REG_CMD_IN + 4, 0x00042000);
	mock_mmio_expect_read(RNIC_REG_CMD_IN + 8, 0x1);
	mock_mmio_expect_write(RNIC_REG_CTX_DATA + 0, 1 | 6 << 1);
	mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4, 0x00042000);
	mock_mmio_expect_write(RNIC_REG_CTX_DATA + 8, 0x1);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, fw_ctx_cmd_word(RNIC_CTX_TABLE_CQC, RNIC_CTX_OP_WRITE, 1));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	mock_mmio_expect_write(RNIC_REG_CMD_OUT + 0, 1); /* cqn */
	mock_mmio_expect_write(RNIC_REG_CMD_DONE, RNIC_CMD_ST_OK << 8);
	CHECK_EQ(fw_mailbox_poll(&fw), 1);
	CHECK_MOCK("CREATE_CQ through the mailbox");
}

static void test_query_device(void)
{
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 1);
	mock_mmio_expect_read(RNIC_REG_CMD_OPCODE, OP(QUERY_DEVICE));
	mock_mmio_expect_write(RNIC_REG_CMD_OUT + 0, RNIC_FW_VERSION);
	mock_mmio_expect_write(RNIC_REG_CMD_OUT + 4, 62);  /* max_qp */
	mock_mmio_expect_write(RNIC_REG_CMD_OUT + 8, 31);  /* max_cq */
	mock_mmio_expect_write(RNIC_REG_CMD_OUT + 12, 127); /* max_mr */
	for (uint32_t i = 4; i < RNIC_CMD_QUERY_DEVICE_OUT_WORDS; i++) {
		uint32_t out[32];

		CHECK_EQ(fw_cmd_run(&fw, OP(QUERY_DEVICE), NULL, out), FW_OK);
		mock_mmio_expect_write(RNIC_REG_CMD_OUT + 4 * i, out[i]);
	}
	mock_mmio_expect_write(RNIC_REG_CMD_DONE, RNIC_CMD_ST_OK << 8);
	CHECK_EQ(fw_mailbox_poll(&fw), 1);
	CHECK_MOCK("QUERY_DEVICE through the mailbox");
}

static void test_failures(void)
{
	/* unknown opcode: no CMD_IN read, no CMD_OUT written */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 1);
	mock_mmio_expect_read(RNIC_REG_CMD_OPCODE, 0x7777u << 16 | 0xee);
	mock_mmio_expect_write(RNIC_REG_CMD_DONE, RNIC_CMD_ST_BAD_OPCODE << 8);
	CHECK_EQ(fw_mailbox_poll(&fw), 1);
	CHECK_MOCK("unknown opcode");
	/* a command that fails: its input read, no CMD_OUT, the status */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 1);
	mock_mmio_expect_read(RNIC_REG_CMD_OPCODE, OP(DESTROY_CQ));
	mock_mmio_expect_read(RNIC_REG_CMD_IN, 9); /* no such CQ */
	mock_mmio_expect_write(RNIC_REG_CMD_DONE, RNIC_CMD_ST_BAD_HANDLE << 8);
	CHECK_EQ(fw_mailbox_poll(&fw), 1);
	CHECK_MOCK("DESTROY_CQ of no CQ");
	/* ALLOC_PD: no input at all, one output word */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_CMD_STATUS, 1);
	mock_mmio_expect_read(RNIC_REG_CMD_OPCODE, OP(ALLOC_PD));
	mock_mmio_expect_write(RNIC_REG_CMD_OUT, 1);
	mock_mmio_expect_write(RNIC_REG_CMD_DONE, RNIC_CMD_ST_OK << 8);
	CHECK_EQ(fw_mailbox_poll(&fw), 1);
	CHECK_MOCK("ALLOC_PD");
}

int main(void)
{
	test_boot();
	test_idle();
	test_create_cq();
	test_query_device();
	test_failures();
	return check_summary();
}
