/* Host-library unit tests against a fake device (no simulator) that runs
 * the real firmware natively: the commands each control verb sends and the
 * contexts the firmware writes for them, the exact register traffic of the
 * fast path, the WQE and CQE handling, and the errors of bad arguments. Prints one line per failed check and a closing
 * "N passed, N failed" line; exits non-zero on failure. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"
#include "rnic/backend.h"
#include "rnic/verbs.h"
#include "../check.h"

static unsigned int n_pass, n_fail;

/* ------------------------------------------------------------ fixtures */

/* The commands the host sent since log entry `from`, in order (CMD_CTRL
 * opcodes); -1 if any other host write in that span was not a CMD_IN word,
 * i.e. something reached the device past the firmware. */
static int host_cmds_to(const struct fake_nic *f, unsigned int from, unsigned int to,
			uint32_t *ops, int max)
{
	int n = 0;

	for (unsigned int i = from; i < to; i++) {
		uint32_t off = f->log[i].off;

		if (off == RNIC_REG_CMD_CTRL) {
			if (n < max)
				ops[n] = f->log[i].val & RNIC_CMD_OPCODE_MASK;
			n++;
		} else if (off < RNIC_REG_CMD_IN || off >= RNIC_REG_CMD_IN + 4 * RNIC_REG_CMD_IN_COUNT) {
			return -1;
		}
	}
	return n;
}

static int host_cmds(const struct fake_nic *f, unsigned int from, uint32_t *ops, int max)
{
	return host_cmds_to(f, from, f->nlog, ops, max);
}

/* Exactly these commands in log entries [from, to), and nothing else. */
#define CHECK_CMDS_TO(f, from, to, ...)                                                  \
	do {                                                                             \
		const uint32_t want_[] = {__VA_ARGS__};                                  \
		uint32_t got_[16] = {0};                                                 \
		int n_ = host_cmds_to((f), (from), (to), got_, 16);                      \
		CHECK_EQ(n_, (int)(sizeof(want_) / sizeof(want_[0])));                   \
		for (unsigned int i_ = 0; i_ < sizeof(want_) / sizeof(want_[0]) && i_ < 16; i_++) \
			CHECK_EQ(got_[i_], want_[i_]);                                   \
	} while (0)
#define CHECK_CMDS(f, from, ...) CHECK_CMDS_TO(f, from, (f)->nlog, __VA_ARGS__)

static struct fake_nic *fake_new(void)
{
	struct fake_nic *f = malloc(sizeof(*f));

	fake_init(f);
	return f;
}

static struct rnic_context *open_fake(struct fake_nic *f)
{
	struct rnic_context *ctx = rnic_open_backend(&fake_ops, f);

	CHECK(ctx != NULL);
	return ctx;
}

/* The RDMA-ready setup most tests share. */
struct env {
	struct fake_nic *f;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
};

static const uint8_t peer_gid_v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
static const uint8_t peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

static void attr_init(struct rnic_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_LOCAL_WRITE;
}

#define MASK_INIT (RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS)
#define MASK_RTR (RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | \
		  RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER)
#define MASK_RTS (RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | \
		  RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC)

static void attr_rtr(struct rnic_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_RTR;
	a->path_mtu = RNIC_IB_MTU_1024;
	a->dest_qp_num = 0x123;
	a->rq_psn = 0xabcdef;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	memcpy(a->ah_attr.grh.dgid.raw, peer_gid_v4, 16);
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.hop_limit = 0; /* default TTL */
	a->ah_attr.grh.traffic_class = 0x68;
	memcpy(a->ah_attr.dmac, peer_mac, 6);
}

static void attr_rts(struct rnic_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_RTS;
	a->sq_psn = 0x654321;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 6;
	a->max_rd_atomic = 1;
}

static int qp_to_rts(struct rnic_qp *qp)
{
	struct rnic_qp_attr a;
	int err;

	attr_init(&a);
	err = rnic_modify_qp(qp, &a, MASK_INIT);
	if (err)
		return err;
	attr_rtr(&a);
	err = rnic_modify_qp(qp, &a, MASK_RTR);
	if (err)
		return err;
	attr_rts(&a);
	return rnic_modify_qp(qp, &a, MASK_RTS);
}

static struct rnic_qp *make_qp(struct env *e, uint32_t max_send_wr, uint32_t max_sge, int sig_all)
{
	struct rnic_qp_init_attr ia = {0};

	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = max_send_wr;
	ia.cap.max_send_sge = max_sge;
	ia.cap.max_inline_data = 64;
	ia.sq_sig_all = sig_all;
	return rnic_create_qp(e->pd, &ia);
}

static void env_up(struct env *e, int cqe, uint32_t max_send_wr)
{
	memset(e, 0, sizeof(*e));
	e->f = fake_new();
	e->ctx = open_fake(e->f);
	e->pd = rnic_alloc_pd(e->ctx);
	e->cq = rnic_create_cq(e->ctx, cqe);
	e->qp = make_qp(e, max_send_wr, 2, 0);
	CHECK(e->pd && e->cq && e->qp);
	CHECK_EQ(qp_to_rts(e->qp), 0);
}

static void env_down(struct env *e)
{
	if (e->qp)
		CHECK_EQ(rnic_destroy_qp(e->qp), 0);
	if (e->cq)
		CHECK_EQ(rnic_destroy_cq(e->cq), 0);
	if (e->pd)
		CHECK_EQ(rnic_dealloc_pd(e->pd), 0);
	CHECK_EQ(rnic_close_device(e->ctx), 0);
	CHECK_EQ(e->f->closed, 1);
	free(e->f);
}

/* The CQ ring and the SQ ring as the device sees them (from its contexts). */
static struct rnic_cqe *cq_ring(struct fake_nic *f, struct rnic_cq *cq)
{
	return fake_va(RNIC_CTX_GET(f->cqc[cq->handle], CQC, BASE));
}

static struct rnic_wqe *sq_ring(struct fake_nic *f, struct rnic_qp *qp)
{
	return fake_va(RNIC_CTX_GET(f->qpc[qp->qp_num], QPC, SQ_BASE));
}

/* Write a CQE the way the device does: body, then the owner byte. */
static void nic_write_cqe(struct fake_nic *f, struct rnic_cq *cq, uint32_t pi, uint32_t qpn,
			  uint16_t counter, uint8_t status, uint8_t syndrome)
{
	uint32_t log = (uint32_t)RNIC_CTX_GET(f->cqc[cq->handle], CQC, LOG_SIZE);
	struct rnic_cqe *e = &cq_ring(f, cq)[pi & ((1u << log) - 1)];

	memset(e, 0, sizeof(*e) - 1);
	e->qpn = qpn;
	e->wqe_counter = counter;
	e->opcode = RNIC_WC_RDMA_WRITE;
	e->status = status;
	e->byte_len = 0x1000;
	e->src_qp = 0x123;
	e->syndrome = syndrome;
	e->owner = (uint8_t)(((pi >> log) & 1) ^ 1);
}

static unsigned int count_writes(struct fake_nic *f, unsigned int from, uint32_t off)
{
	unsigned int n = 0;

	for (unsigned int i = from; i < f->nlog; i++)
		n += f->log[i].off == off;
	return n;
}

/* ------------------------------------------------------------ device */

static void test_open_query(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_device_attr a;

	/* opening reads, asks the firmware what it can create, and skips
	 * the asynchronous events of earlier users */
	CHECK_CMDS_TO(f, 0, f->nlog - 1, RNIC_CMD_OP_QUERY_DEVICE);
	CHECK_EQ(f->log[f->nlog - 1].off, RNIC_REG_EQ_CI);
	CHECK_EQ(rnic_query_device(ctx, &a), 0);
	CHECK_EQ(a.vendor_id, RNIC_PCI_VENDOR_ID);
	CHECK_EQ(a.vendor_part_id, RNIC_PCI_DEVICE_ID);
	CHECK_EQ(a.hw_ver, RNIC_BLK_DEV_VERSION);
	CHECK(strcmp(a.fw_ver, "1.0") == 0);
	CHECK_EQ(a.max_qp, 14);
	CHECK_EQ(a.max_mr, 15);
	CHECK_EQ(a.max_cq, 7);
	CHECK_EQ(a.max_sge, RNIC_MAX_SEND_SGE);
	CHECK_EQ(a.data_width, 64);
	CHECK_EQ(a.clock_mhz, 250);
	CHECK_EQ(a.max_inflight, 8);
	CHECK(memcmp(a.mac, (uint8_t[6]){0x02, 0x11, 0x33, 0x44, 0x55, 0x66}, 6) == 0);
	CHECK_EQ(rnic_query_device(ctx, NULL), EINVAL);
	CHECK_EQ(rnic_close_device(ctx), 0);
	CHECK_EQ(f->closed, 1);
	free(f);
}

/* Port MAC and GID table: register layout and read-back. */
static void test_port_addr(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	const uint8_t mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
	const uint8_t ip[4] = {198, 18, 0, 7};
	union rnic_gid gid, back;
	struct rnic_device_attr a;
	uint32_t v;

	CHECK_EQ(rnic_set_port_mac(ctx, mac), 0);
	CHECK_EQ(f->regs[RNIC_REG_PORT_MAC_LO / 4], 0xbbccddeeu);
	CHECK_EQ(f->regs[RNIC_REG_PORT_MAC_HI / 4], 0x02aau);
	CHECK_EQ(rnic_query_device(ctx, &a), 0);
	CHECK(memcmp(a.mac, mac, 6) == 0);
	rnic_gid_from_ipv4(&gid, ip);
	CHECK(gid.raw[10] == 0xff && gid.raw[11] == 0xff && gid.raw[12] == 198 && gid.raw[15] == 7);
	CHECK_EQ(rnic_set_gid(ctx, 2, &gid), 0);
	/* entry 2, word 0 = most significant 32 bits; word 3 = the IPv4 address */
	CHECK_EQ(f->regs[(RNIC_REG_PORT_GID + 32 + 0) / 4], 0u);
	CHECK_EQ(f->regs[(RNIC_REG_PORT_GID + 32 + 8) / 4], 0x0000ffffu);
	CHECK_EQ(f->regs[(RNIC_REG_PORT_GID + 32 + 12) / 4], 0xc6120007u);
	CHECK_EQ(rnic_query_gid(ctx, 1, 2, &back), 0);
	CHECK(memcmp(back.raw, gid.raw, 16) == 0);
	CHECK_EQ(rnic_set_gid(ctx, RNIC_GID_TABLE_SIZE, &gid), EINVAL);
	CHECK_EQ(rnic_set_gid(ctx, -1, &gid), EINVAL);
	CHECK_EQ(rnic_query_gid(ctx, 2, 0, &back), EINVAL);
	CHECK_EQ(rnic_set_port_mac(ctx, NULL), EINVAL);
	fake_set(f, RNIC_REG_STAT_CQE, 77);
	CHECK_EQ(rnic_read_counter(ctx, RNIC_REG_STAT_CQE, &v), 0);
	CHECK_EQ(v, 77u);
	CHECK_EQ(rnic_read_counter(ctx, RNIC_REG_STAT_CQE + 2, &v), EINVAL);
	CHECK_EQ(rnic_read_counter(ctx, RNIC_REG_DB_SQ, &v), EINVAL);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* The command mailbox: a firmware that never boots, one of another command
 * set, one that has halted; each is refused with its own error. */
static void test_firmware_mailbox(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	unsigned int from;

	f->fw_never_boots = 1;
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_EQ(f->closed, 1);
	CHECK_EQ(f->fw_cmds, 0);

	fake_init(f);
	fake_fw_boot(f);
	f->regs[RNIC_REG_FW_STATE / 4] = RNIC_FW_VERSION + (1u << 16);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, EPROTONOSUPPORT);
	CHECK_EQ(f->fw_cmds, 0);

	fake_init(f);
	ctx = open_fake(f);
	pd = rnic_alloc_pd(ctx);
	CHECK(pd != NULL);
	CHECK_EQ(f->fw_last_opcode, RNIC_CMD_OP_ALLOC_PD);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(f->fw_last_opcode, RNIC_CMD_OP_DEALLOC_PD);
	/* the status and the token of the last command */
	CHECK_EQ(f->regs[RNIC_REG_CMD_STATUS / 4] & RNIC_CMD_STATUS_BUSY, 0);
	CHECK_EQ(f->regs[RNIC_REG_CMD_STATUS / 4] >> RNIC_CMD_TOKEN_SHIFT,
		 f->regs[RNIC_REG_CMD_OPCODE / 4] >> RNIC_CMD_TOKEN_SHIFT);
	/* the firmware halts: every command fails with EIO, at once */
	f->fw_halted = 1;
	from = f->fw_cmds;
	errno = 0;
	CHECK(rnic_create_cq(ctx, 4) == NULL);
	CHECK_EQ(errno, EIO);
	CHECK(rnic_alloc_pd(ctx) == NULL);
	CHECK_EQ(errno, EIO);
	CHECK_EQ(f->fw_cmds, from);
	CHECK_EQ(f->nmaps, f->nunmaps);
	f->fw_halted = 0; /* the library remembers: still EIO */
	CHECK(rnic_alloc_pd(ctx) == NULL);
	CHECK_EQ(errno, EIO);
	CHECK_EQ(f->fw_cmds, from);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* Asynchronous events: the data path tells the firmware, the firmware puts
 * them on the ring, rnic_get_async_event takes them in order. */
static void test_async_events(void)
{
	struct env e;
	struct rnic_async_event ev;
	struct rnic_qp_attr q;
	struct rnic_qp_init_attr qi;
	const uint32_t qp_err = RNIC_EVT_POP_VALID | RNIC_EVT_QP_ERR << RNIC_EVT_POP_TYPE_SHIFT;
	const uint32_t cq_ovr = RNIC_EVT_POP_VALID | RNIC_EVT_CQ_OVERRUN << RNIC_EVT_POP_TYPE_SHIFT;

	env_up(&e, 16, 8);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), EAGAIN);
	CHECK_EQ(rnic_get_async_event(NULL, &ev), EINVAL);
	CHECK_EQ(rnic_get_async_event(e.ctx, NULL), EINVAL);
	/* the QP's error completion: QP_FATAL, the QP in ERR here and in the
	 * firmware (QUERY_QP) */
	fake_event(e.f, qp_err | e.qp->qp_num);
	fake_event(e.f, cq_ovr | e.cq->handle);
	fake_event(e.f, cq_ovr | e.cq->handle); /* once per CQ */
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, RNIC_EVENT_QP_FATAL);
	CHECK(ev.element.qp == e.qp);
	CHECK_EQ(e.qp->state, RNIC_QPS_ERR);
	CHECK_EQ(rnic_query_qp(e.qp, &q, 0, &qi), 0);
	CHECK_EQ(q.qp_state, RNIC_QPS_ERR);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, RNIC_EVENT_CQ_ERR);
	CHECK(ev.element.cq == e.cq);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), EAGAIN);
	CHECK_EQ(e.f->regs[RNIC_REG_EQ_CI / 4], 2);
	/* more than the ring holds while nobody reads: the rest are counted lost */
	for (uint32_t i = 0; i < RNIC_EQ_DEPTH + 3; i++) {
		struct rnic_cq *cq = rnic_create_cq(e.ctx, 1);

		fake_event(e.f, cq_ovr | (cq ? cq->handle : 0));
		CHECK_EQ(rnic_destroy_cq(cq), 0); /* its events are skipped later */
		if (i == 6) /* FAKE: 8 CQs, CQN 1 taken: the CQNs repeat */
			break;
	}
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), EAGAIN);
	CHECK_EQ(e.f->regs[RNIC_REG_EQ_CI / 4], e.f->regs[RNIC_REG_EQ_PI / 4]);
	CHECK_EQ(rnic_async_events_lost(e.ctx), 0);
	CHECK(strcmp(rnic_event_type_str(RNIC_EVENT_CQ_ERR), "CQ error") == 0);
	env_down(&e);
}

/* Blocks found by type wherever the chain puts them; unknown types skipped. */
static void test_block_chain_relocated(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_mr *mr;
	static char buf[64] __attribute__((aligned(64))); /* one page: one MTT entry */

	/* DEV -> PORT -> unknown @0x200 -> STAT @0x400 -> DB @0x1000 -> CTX @0x2000 */
	fake_block(f, 0x200, 0x524e00ff, 0x70000, RNIC_BLK_CTX_NEXT);
	fake_set(f, RNIC_BLK_DB_BASE + RNIC_REG_BLK_NEXT, 0x2000);
	fake_block(f, 0x2000, RNIC_BLK_TYPE_CTX, 0x10003, 0);
	ctx = open_fake(f);
	pd = rnic_alloc_pd(ctx);
	mr = rnic_reg_mr(pd, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	/* the host writes no context itself: the firmware does (at its own,
	 * fixed addresses) */
	CHECK_EQ(count_writes(f, 0, 0x2000 + (RNIC_REG_CTX_CMD - RNIC_BLK_CTX_BASE)), 0);
	CHECK_EQ(count_writes(f, 0, RNIC_REG_CTX_CMD), 0);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_MPT | RNIC_CTX_OP_WRITE << 4 | mr->handle << 8);
	CHECK_EQ(rnic_dereg_mr(mr), 0);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

static void test_block_chain_errors(void)
{
	struct fake_nic *f = fake_new();

	/* unknown major version of a known block */
	fake_set(f, RNIC_BLK_CTX_BASE + RNIC_REG_BLK_VERSION, 0x20000);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, EPROTONOSUPPORT);
	CHECK_EQ(f->closed, 1);

	fake_init(f);
	fake_set(f, RNIC_BLK_DEV_BASE + RNIC_REG_BLK_VERSION, 0x0);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, EPROTONOSUPPORT);

	/* not an OpenRNIC: nothing at offset 0 */
	fake_init(f);
	fake_set(f, 0, 0xffffffff);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, ENODEV);

	/* wrong DEV_ID */
	fake_init(f);
	fake_set(f, RNIC_REG_DEV_ID, 0x10de0001);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, ENODEV);

	/* a loop in the chain */
	fake_init(f);
	fake_set(f, RNIC_BLK_STAT_BASE + RNIC_REG_BLK_NEXT, RNIC_BLK_PORT_BASE);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, EIO);

	/* the chain ends without a DB block */
	fake_init(f);
	fake_set(f, RNIC_BLK_STAT_BASE + RNIC_REG_BLK_NEXT, 0);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, ENODEV);

	/* a NEXT outside BAR0 */
	fake_init(f);
	fake_set(f, RNIC_BLK_STAT_BASE + RNIC_REG_BLK_NEXT, RNIC_BAR0_BYTES);
	errno = 0;
	CHECK(rnic_open_backend(&fake_ops, f) == NULL);
	CHECK_EQ(errno, EIO);

	errno = 0;
	CHECK(rnic_open_backend(NULL, f) == NULL);
	CHECK_EQ(errno, EINVAL);
	free(f);
}

/* ------------------------------------------------------------ MR */

/* MTT index of the MR's first page, from its MPT entry (and a check that pa
 * is in MTT space with the MR's byte offset kept). */
static uint32_t mpt_mtt_base(const struct fake_nic *f, const struct rnic_mr *mr)
{
	uint64_t pa = RNIC_CTX_GET(f->mpt[mr->handle], MPT, PA);
	uint64_t off_mask = (1ull << RNIC_MTT_PAGE_SHIFT) - 1;

	CHECK_EQ(pa >> RNIC_MPT_PA_MTT_BIT, 1);
	CHECK_EQ(pa & off_mask, (uintptr_t)mr->addr & off_mask);
	return (uint32_t)((pa & ~(1ull << RNIC_MPT_PA_MTT_BIT)) >> RNIC_MTT_PAGE_SHIFT);
}

static void test_reg_mr_traffic(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	static char buf[8192] __attribute__((aligned(4096)));
	struct rnic_mr *mr, *mr2;
	unsigned int from = f->nlog, reads, k;
	uint32_t key1, idx, base;
	const uint32_t *w;

	mr = rnic_reg_mr(pd, buf + 100, 5000, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	CHECK(mr != NULL);
	if (!mr)
		return;
	idx = mr->lkey >> RNIC_MKEY_TAG_BITS;
	CHECK_EQ(mr->rkey, mr->lkey);
	CHECK_EQ(mr->handle, idx);
	CHECK(idx != 0);
	CHECK(mr->addr == buf + 100);
	CHECK_EQ(mr->length, 5000);
	/* exactly: REG_MR, then one WRITE_MTT with both pages; the firmware
	 * wrote the two MTT entries, then the MPT entry */
	CHECK_CMDS(f, from, RNIC_CMD_OP_REG_MR, RNIC_CMD_OP_WRITE_MTT);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_MPT | RNIC_CTX_OP_WRITE << 4 | idx << 8);
	base = mpt_mtt_base(f, mr);
	/* each entry holds its page as the backend mapped it */
	for (k = 0; k < 2; k++)
		CHECK_EQ(f->mtt[base + k], fake_page(k) >> RNIC_MTT_PAGE_SHIFT);
	w = f->mpt[idx];
	CHECK_EQ(RNIC_CTX_GET(w, MPT, VALID), 1);
	CHECK_EQ(RNIC_CTX_GET(w, MPT, ACCESS), RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	CHECK_EQ(RNIC_CTX_GET(w, MPT, PD), pd->handle);
	CHECK_EQ(RNIC_CTX_GET(w, MPT, KEY), mr->lkey);
	CHECK_EQ(RNIC_CTX_GET(w, MPT, VA), (uintptr_t)(buf + 100));
	CHECK_EQ(RNIC_CTX_GET(w, MPT, LENGTH), 5000);
	CHECK_EQ(mpt_mtt_base(f, mr), base);
	CHECK_EQ(RNIC_CTX_GET(w, MPT, PA),
		 1ull << RNIC_MPT_PA_MTT_BIT | (uint64_t)base << RNIC_MTT_PAGE_SHIFT | 100);
	CHECK_EQ(f->nmaps, 1);
	CHECK_EQ(f->npage_maps, 1);

	/* dereg: DEREG_MR (the firmware writes an all-zero MPT entry), then unmap */
	from = f->nlog;
	key1 = mr->lkey;
	CHECK_EQ(rnic_dereg_mr(mr), 0);
	CHECK_CMDS(f, from, RNIC_CMD_OP_DEREG_MR);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_MPT | RNIC_CTX_OP_WRITE << 4 | idx << 8);
	CHECK_EQ(RNIC_CTX_GET(f->mpt[idx], MPT, VALID), 0);
	CHECK_EQ(RNIC_CTX_GET(f->mpt[idx], MPT, KEY), 0);
	CHECK_EQ(f->nunmaps, 1);

	/* the same index again gets a new tag */
	mr2 = NULL;
	for (int i = 0; i < 16 && !mr2; i++) {
		struct rnic_mr *m = rnic_reg_mr(pd, buf, 64, 0);

		if (m && m->handle == idx)
			mr2 = m;
		else if (m)
			rnic_dereg_mr(m);
	}
	CHECK(mr2 != NULL);
	if (mr2) {
		CHECK(mr2->lkey != key1);
		CHECK_EQ(mr2->lkey >> RNIC_MKEY_TAG_BITS, idx);
		CHECK_EQ(rnic_dereg_mr(mr2), 0);
	}

	/* CTX_STATUS busy for a while: the firmware polls it */
	f->ctx_busy_reads = 3;
	reads = f->nreads;
	mr = rnic_reg_mr(pd, buf, 64, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	/* the host reads CMD_STATUS once per command and the outputs:
	 * REG_MR's 3 words, WRITE_MTT's 2 */
	CHECK_EQ(f->nreads - reads, 2 + RNIC_CMD_REG_MR_OUT_WORDS + RNIC_CMD_WRITE_MTT_OUT_WORDS);
	if (mr)
		CHECK_EQ(rnic_dereg_mr(mr), 0);
	f->ctx_busy_reads = 0;

	/* CTX_STATUS error bit: the firmware says CMD_ST_INTERNAL, the host EIO;
	 * nothing left mapped */
	f->ctx_status = RNIC_CTX_STATUS_ERROR;
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 64, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EIO);
	CHECK_EQ(f->nmaps, f->nunmaps);
	f->ctx_status = 0;

	/* CTX_STATUS busy forever: the firmware gives up, EIO */
	f->ctx_busy_forever = 1;
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 64, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EIO);
	CHECK_EQ(f->nmaps, f->nunmaps);
	f->ctx_busy_forever = 0;

	/* dma_map failure is passed through */
	f->map_error = EFAULT;
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 64, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EFAULT);
	f->map_error = 0;

	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* MTT entries: one per page an MR touches, first fit, freed on dereg and on
 * every failure; a backend without dma_map_pages gets consecutive pages. */
static void test_reg_mr_mtt(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	const size_t pg = 1u << RNIC_MTT_PAGE_SHIFT;
	char *buf = aligned_alloc(pg, (FAKE_MTT + 2) * pg);
	struct rnic_device_attr a;
	struct rnic_mr *big, *m1, *m2, *m3;

	CHECK(buf != NULL && pd != NULL);
	if (!buf || !pd)
		return;
	CHECK_EQ(rnic_query_device(ctx, &a), 0);
	CHECK_EQ(a.max_mr_size, (uint64_t)FAKE_MTT * pg);
	/* pages touched, not bytes: 2 bytes across a page boundary take 2 */
	m1 = rnic_reg_mr(pd, buf + pg - 1, 2, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(m1 != NULL);
	if (m1) {
		CHECK_EQ(mpt_mtt_base(f, m1), 0);
		/* the backend's pages as it listed them (swapped pairs), not a run */
		CHECK_EQ(f->mtt[0], f->mtt[1] + 1);
	}
	/* the rest of the table in one MR, then nothing is left */
	big = rnic_reg_mr(pd, buf, (FAKE_MTT - 2) * pg, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(big != NULL);
	if (big)
		CHECK_EQ(mpt_mtt_base(f, big), 2);
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 1, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(f->nmaps, f->nunmaps + 2);
	/* freed entries are found again, first fit */
	CHECK_EQ(rnic_dereg_mr(m1), 0);
	m2 = rnic_reg_mr(pd, buf + 10, 100, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(m2 != NULL);
	if (m2)
		CHECK_EQ(mpt_mtt_base(f, m2), 0);
	m3 = rnic_reg_mr(pd, buf, 100, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(m3 != NULL);
	if (m3)
		CHECK_EQ(mpt_mtt_base(f, m3), 1);
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 1, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, ENOMEM);
	if (m2)
		CHECK_EQ(rnic_dereg_mr(m2), 0);
	if (m3)
		CHECK_EQ(rnic_dereg_mr(m3), 0);
	if (big)
		CHECK_EQ(rnic_dereg_mr(big), 0);
	/* larger than the whole table: EINVAL (beyond max_mr_size) */
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, FAKE_MTT * pg + 1, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EINVAL);
	big = rnic_reg_mr(pd, buf, FAKE_MTT * pg, RNIC_ACCESS_LOCAL_WRITE);
	CHECK(big != NULL);
	if (big) {
		CHECK_EQ(mpt_mtt_base(f, big), 0);
		CHECK_EQ(rnic_dereg_mr(big), 0);
	}
	CHECK_EQ(f->nmaps, f->nunmaps);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);

	/* contiguous-only backend: the library lists consecutive pages */
	memset(f, 0, sizeof(*f));
	fake_init(f);
	ctx = rnic_open_backend(&fake_ops_contig, f);
	CHECK(ctx != NULL);
	if (ctx) {
		pd = rnic_alloc_pd(ctx);
		m1 = pd ? rnic_reg_mr(pd, buf + 300, 3 * pg, RNIC_ACCESS_LOCAL_WRITE) : NULL;
		CHECK(m1 != NULL);
		if (m1) {
			uint32_t b = mpt_mtt_base(f, m1);

			CHECK_EQ(f->npage_maps, 0);
			for (uint32_t i = 0; i < 4; i++)
				CHECK_EQ(f->mtt[b + i], ((uintptr_t)buf + FAKE_BUS_OFFSET) / pg + i);
			CHECK_EQ(rnic_dereg_mr(m1), 0);
		}
		CHECK_EQ(rnic_dealloc_pd(pd), 0);
		CHECK_EQ(rnic_close_device(ctx), 0);
	}
	free(buf);
	free(f);
}

static void test_reg_mr_bad_args(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	static char buf[64];
	const int bad[] = {
		RNIC_ACCESS_REMOTE_WRITE,
		RNIC_ACCESS_REMOTE_ATOMIC,
		RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ,
		0x100,
		-1,
	};
	struct rnic_mr *mrs[20];
	unsigned int from = f->nlog;
	int n = 0;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		CHECK(rnic_reg_mr(pd, buf, sizeof(buf), bad[i]) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, 0, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(rnic_reg_mr(pd, NULL, 64, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(rnic_reg_mr(NULL, buf, 64, RNIC_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(f->nlog, from); /* nothing reached the device */
	/* read-only remote access without local write is fine */
	mrs[0] = rnic_reg_mr(pd, buf, 64, RNIC_ACCESS_REMOTE_READ);
	CHECK(mrs[0] != NULL);
	CHECK_EQ(rnic_dealloc_pd(pd), EBUSY);
	CHECK_EQ(rnic_close_device(ctx), EBUSY);
	CHECK_EQ(rnic_dereg_mr(mrs[0]), 0);

	/* the MPT runs out: 16 entries, index 0 unused -> 15 MRs, then ENOMEM */
	while (n < 20 && (mrs[n] = rnic_reg_mr(pd, buf, 64, 0)) != NULL)
		n++;
	CHECK_EQ(n, 15);
	CHECK_EQ(errno, ENOMEM);
	while (n > 0)
		CHECK_EQ(rnic_dereg_mr(mrs[--n]), 0);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* Memory windows: rnic_alloc_mw / rnic_dealloc_mw against the firmware
 * (docs/mw.md): argument checks before the device, keys in the MRs' index
 * space, the PD held, the entry left invalid until a bind, the shared pool
 * running out, MW_BIND accepted and zero-based refused by rnic_reg_mr. */
static void test_memory_windows(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	struct rnic_device_attr attr;
	struct rnic_mw *w1, *w2, *ws[20];
	struct rnic_mr *mr;
	static char buf[64];
	unsigned int from = f->nlog;
	int n = 0;

	errno = 0;
	CHECK(rnic_alloc_mw(NULL, RNIC_MW_TYPE_1) == NULL);
	CHECK_EQ(errno, EINVAL);
	for (int type = 0; type < 5; type += 3) {
		errno = 0;
		CHECK(rnic_alloc_mw(pd, type) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	CHECK_EQ(rnic_dealloc_mw(NULL), EINVAL);
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, sizeof(buf), RNIC_ACCESS_ZERO_BASED) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(f->nlog, from); /* nothing reached the device */

	CHECK_EQ(rnic_query_device(ctx, &attr), 0);
	CHECK_EQ(attr.max_mw, attr.max_mr);
	CHECK_EQ(attr.max_mw, 15);

	mr = rnic_reg_mr(pd, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND);
	CHECK(mr != NULL);
	w1 = rnic_alloc_mw(pd, RNIC_MW_TYPE_1);
	w2 = rnic_alloc_mw(pd, RNIC_MW_TYPE_2);
	CHECK(w1 && w2);
	if (!mr || !w1 || !w2)
		return;
	CHECK_EQ(w1->type, RNIC_MW_TYPE_1);
	CHECK_EQ(w2->type, RNIC_MW_TYPE_2);
	CHECK(w1->pd == pd && w1->context == ctx);
	CHECK_EQ(w1->handle, w1->rkey >> RNIC_MKEY_TAG_BITS);
	CHECK(w1->handle != mr->handle && w2->handle != mr->handle && w1->handle != w2->handle);
	/* not bound: the entries stay invalid */
	CHECK_EQ(RNIC_CTX_GET(f->mpt[w1->handle], MPT, VALID), 0);
	CHECK_EQ(RNIC_CTX_GET(f->mpt[w2->handle], MPT, VALID), 0);
	CHECK_EQ(RNIC_CTX_GET(f->mpt[mr->handle], MPT, ACCESS),
		 RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND);
	/* the windows hold the PD and the device */
	CHECK_EQ(rnic_dereg_mr(mr), 0);
	CHECK_EQ(rnic_dealloc_pd(pd), EBUSY);
	CHECK_EQ(rnic_close_device(ctx), EBUSY);
	CHECK_EQ(rnic_dealloc_mw(w1), 0);
	CHECK_EQ(rnic_dealloc_mw(w2), 0);

	/* MRs and windows share the 15 MPT entries */
	mr = rnic_reg_mr(pd, buf, sizeof(buf), 0);
	CHECK(mr != NULL);
	while (n < 20 && (ws[n] = rnic_alloc_mw(pd, 1 + n % 2)) != NULL)
		n++;
	CHECK_EQ(n, 14);
	CHECK_EQ(errno, ENOMEM);
	errno = 0;
	CHECK(rnic_reg_mr(pd, buf, sizeof(buf), 0) == NULL);
	CHECK_EQ(errno, ENOMEM);
	while (n > 0)
		CHECK_EQ(rnic_dealloc_mw(ws[--n]), 0);
	CHECK_EQ(rnic_dereg_mr(mr), 0);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* rnic_bind_mw (ibv_bind_mw): what rdma-core's ibv_bind_mw and its
 * providers refuse before the device, each refusal with nothing posted (no
 * register touched, the SQ and the window's key as they were); then binds
 * that are posted: the BIND_MW WQE (the window's key before and after, the
 * MR's lkey, range, rights, flags), the key advanced by rnic_inc_rkey, an
 * unbind with no MR, and the SQ full (ENOMEM). rnic_inc_rkey keeps the MPT
 * index and skips the invalid lkey. */
static void test_bind_mw_args(void)
{
	struct env e;
	struct fake_nic *f2 = fake_new();
	struct rnic_context *ctx2 = open_fake(f2);
	struct rnic_pd *pd2, *pd_other;
	struct rnic_mr *mr, *mr_pd2, *mr_other;
	struct rnic_mw *w1, *w2, *w_other;
	struct rnic_qp *idle;
	struct rnic_wqe *sq;
	struct rnic_mw_bind b;
	static uint8_t buf[4096];
	const uint64_t va = (uint64_t)(uintptr_t)buf;
	unsigned int from;
	uint32_t key0, key;

	/* the next tag, the MPT index kept; 0xffffffff (the invalid lkey) skipped */
	CHECK_EQ(rnic_inc_rkey(0x00000305u), 0x00000306u);
	CHECK_EQ(rnic_inc_rkey(0x000003ffu), 0x00000300u);
	CHECK_EQ(rnic_inc_rkey(0xfffffffeu), 0xffffff00u);
	CHECK_EQ(rnic_inc_rkey(0xffffffffu), 0xffffff00u);

	env_up(&e, 16, 4); /* 4 SQ entries */
	sq = sq_ring(e.f, e.qp);
	pd2 = rnic_alloc_pd(e.ctx);
	pd_other = ctx2 ? rnic_alloc_pd(ctx2) : NULL;
	mr = rnic_reg_mr(e.pd, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND);
	mr_pd2 = pd2 ? rnic_reg_mr(pd2, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND) : NULL;
	mr_other = pd_other ? rnic_reg_mr(pd_other, buf, sizeof(buf),
					  RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND) : NULL;
	w1 = rnic_alloc_mw(e.pd, RNIC_MW_TYPE_1);
	w2 = rnic_alloc_mw(e.pd, RNIC_MW_TYPE_2);
	w_other = pd_other ? rnic_alloc_mw(pd_other, RNIC_MW_TYPE_1) : NULL;
	idle = make_qp(&e, 4, 1, 0); /* RESET */
	CHECK(pd2 && pd_other && mr && mr_pd2 && mr_other && w1 && w2 && w_other && idle);
	if (!pd2 || !pd_other || !mr || !mr_pd2 || !mr_other || !w1 || !w2 || !w_other || !idle)
		return;
	key0 = w1->rkey;

	/* refused before the device: nothing reaches it, the key stays */
#define BIND_REFUSED(qp, mw, bind, want)                                  \
	do {                                                              \
		from = e.f->nlog;                                         \
		CHECK_EQ(rnic_bind_mw((qp), (mw), (bind)), (want));       \
		CHECK_EQ(e.f->nlog, from);                                \
		CHECK_EQ(w1->rkey, key0);                                 \
	} while (0)
	memset(&b, 0, sizeof(b));
	b.wr_id = 0xb1;
	b.send_flags = RNIC_SEND_SIGNALED;
	b.bind_info = (struct rnic_mw_bind_info){mr, va + 512, 1024, RNIC_ACCESS_REMOTE_WRITE};
	BIND_REFUSED(NULL, w1, &b, EINVAL);
	BIND_REFUSED(e.qp, NULL, &b, EINVAL);
	BIND_REFUSED(e.qp, w1, NULL, EINVAL);
	/* a type 2 window is bound by a BIND_MW WQE (rnic_post_send), not here */
	key = w2->rkey;
	BIND_REFUSED(e.qp, w2, &b, EINVAL);
	CHECK_EQ(w2->rkey, key);
	/* another device's window, another device's MR */
	BIND_REFUSED(e.qp, w_other, &b, EINVAL);
	b.bind_info.mr = mr_other;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	/* the MR of another PD than the window's: EPERM, as rdma-core */
	b.bind_info.mr = mr_pd2;
	BIND_REFUSED(e.qp, w1, &b, EPERM);
	b.bind_info.mr = mr;
	/* rights: only REMOTE_*; zero-based is refused for type 1 (o10-36.2.2) */
	b.bind_info.mw_access_flags = RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_LOCAL_WRITE;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info.mw_access_flags = RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_ZERO_BASED;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info.mw_access_flags = RNIC_ACCESS_MW_BIND;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info.mw_access_flags = 0x40;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info.mw_access_flags = RNIC_ACCESS_REMOTE_WRITE;
	/* send flags: SIGNALED and FENCE only */
	b.send_flags = RNIC_SEND_SIGNALED | RNIC_SEND_INLINE;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.send_flags = RNIC_SEND_SOLICITED;
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.send_flags = RNIC_SEND_SIGNALED;
	/* no MR with a length or an address */
	b.bind_info = (struct rnic_mw_bind_info){NULL, 0, 1024, RNIC_ACCESS_REMOTE_WRITE};
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info = (struct rnic_mw_bind_info){NULL, va, 0, RNIC_ACCESS_REMOTE_WRITE};
	BIND_REFUSED(e.qp, w1, &b, EINVAL);
	b.bind_info = (struct rnic_mw_bind_info){mr, va + 512, 1024, RNIC_ACCESS_REMOTE_WRITE};
	/* a QP not in RTS */
	BIND_REFUSED(idle, w1, &b, EINVAL);
#undef BIND_REFUSED

	/* posted: one WQE, one doorbell, the key the next one */
	from = e.f->nlog;
	b.send_flags = RNIC_SEND_SIGNALED | RNIC_SEND_FENCE;
	CHECK_EQ(rnic_bind_mw(e.qp, w1, &b), 0);
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_SQ);
	CHECK_EQ(e.f->log[from].val, e.qp->qp_num << 16 | 1);
	CHECK_EQ(w1->rkey, rnic_inc_rkey(key0));
	CHECK_EQ(w1->rkey >> RNIC_MKEY_TAG_BITS, w1->handle);
	CHECK_EQ(sq[0].opcode, RNIC_WR_BIND_MW);
	CHECK_EQ(sq[0].flags, RNIC_WQE_FLAG_SIGNALED | RNIC_WQE_FLAG_FENCE);
	CHECK_EQ(sq[0].num_sge, 0);
	CHECK_EQ(sq[0].length, 0);
	CHECK_EQ(sq[0].rkey, key0);
	CHECK_EQ(sq[0].mw_new_rkey, w1->rkey);
	CHECK_EQ(sq[0].bind_lkey, mr->lkey);
	CHECK_EQ(sq[0].bind_access, RNIC_ACCESS_REMOTE_WRITE);
	CHECK_EQ(sq[0].remote_addr, va + 512);
	CHECK_EQ(sq[0].compare_add, 1024);
	/* an unbind: no MR, length 0; unsignaled */
	key = w1->rkey;
	b.send_flags = 0;
	b.bind_info = (struct rnic_mw_bind_info){NULL, 0, 0, 0};
	CHECK_EQ(rnic_bind_mw(e.qp, w1, &b), 0);
	CHECK_EQ(w1->rkey, rnic_inc_rkey(key));
	CHECK_EQ(sq[1].opcode, RNIC_WR_BIND_MW);
	CHECK_EQ(sq[1].flags, 0);
	CHECK_EQ(sq[1].rkey, key);
	CHECK_EQ(sq[1].mw_new_rkey, w1->rkey);
	CHECK_EQ(sq[1].bind_lkey, 0);
	CHECK_EQ(sq[1].compare_add, 0);
	/* the SQ full (4 entries): ENOMEM, no doorbell, the key as it was */
	b.bind_info = (struct rnic_mw_bind_info){mr, va, 64, RNIC_ACCESS_REMOTE_READ};
	CHECK_EQ(rnic_bind_mw(e.qp, w1, &b), 0);
	CHECK_EQ(rnic_bind_mw(e.qp, w1, &b), 0);
	key = w1->rkey;
	from = e.f->nlog;
	CHECK_EQ(rnic_bind_mw(e.qp, w1, &b), ENOMEM);
	CHECK_EQ(e.f->nlog, from);
	CHECK_EQ(w1->rkey, key);

	CHECK_EQ(rnic_destroy_qp(idle), 0);
	CHECK_EQ(rnic_dealloc_mw(w1), 0);
	CHECK_EQ(rnic_dealloc_mw(w2), 0);
	CHECK_EQ(rnic_dealloc_mw(w_other), 0);
	CHECK_EQ(rnic_dereg_mr(mr), 0);
	CHECK_EQ(rnic_dereg_mr(mr_pd2), 0);
	CHECK_EQ(rnic_dereg_mr(mr_other), 0);
	CHECK_EQ(rnic_dealloc_pd(pd2), 0);
	CHECK_EQ(rnic_dealloc_pd(pd_other), 0);
	CHECK_EQ(rnic_close_device(ctx2), 0);
	free(f2);
	env_down(&e);
}

/* ------------------------------------------------------------ CQ */

static void test_create_cq(void)
{
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	unsigned int from = f->nlog;
	struct rnic_cq *cq = rnic_create_cq(ctx, 5);
	const uint32_t *w;
	uint64_t base;

	CHECK(cq != NULL);
	if (!cq)
		return;
	CHECK_EQ(cq->cqe, 8);
	CHECK(cq->handle != 0);
	CHECK_CMDS(f, from, RNIC_CMD_OP_CREATE_CQ);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_CQC | RNIC_CTX_OP_WRITE << 4 | cq->handle << 8);
	w = f->cqc[cq->handle];
	CHECK_EQ(RNIC_CTX_GET(w, CQC, VALID), 1);
	CHECK_EQ(RNIC_CTX_GET(w, CQC, LOG_SIZE), 3);
	base = RNIC_CTX_GET(w, CQC, BASE);
	CHECK(base >= FAKE_BUS_OFFSET);
	CHECK_EQ((base - FAKE_BUS_OFFSET) % 4096, 0); /* page aligned */
	{
		const uint8_t *ring = fake_va(base);
		int zero = 1;

		for (int i = 0; i < 8 * RNIC_CQE_BYTES; i++)
			zero &= ring[i] == 0;
		CHECK(zero); /* CQ memory starts zeroed */
	}
	from = f->nlog;
	CHECK_EQ(rnic_destroy_cq(cq), 0);
	CHECK_EQ(RNIC_CTX_GET(f->cqc[1], CQC, VALID), 0);
	CHECK_CMDS(f, from, RNIC_CMD_OP_DESTROY_CQ);
	CHECK_EQ(f->nmaps, f->nunmaps);

	errno = 0;
	CHECK(rnic_create_cq(ctx, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(rnic_create_cq(ctx, (1 << 15) + 1) == NULL);
	CHECK_EQ(errno, EINVAL);
	{
		struct rnic_cq *one = rnic_create_cq(ctx, 1);

		CHECK(one && one->cqe == 1);
		if (one)
			rnic_destroy_cq(one);
	}
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* ------------------------------------------------------------ QP */

static void test_modify_qp_qpc(void)
{
	struct fake_nic *f = fake_new();
	struct env e = {0};
	struct rnic_qp_attr a, q;
	struct rnic_qp_init_attr qi;
	unsigned int from;
	const uint32_t *w;
	uint32_t n;

	e.f = f;
	e.ctx = open_fake(f);
	e.pd = rnic_alloc_pd(e.ctx);
	e.cq = rnic_create_cq(e.ctx, 16);
	e.qp = make_qp(&e, 10, 2, 0);
	CHECK(e.qp != NULL);
	if (!e.qp)
		return;
	CHECK_EQ(e.qp->qp_num, 2); /* 0 and 1 are reserved */
	CHECK_EQ(e.qp->state, RNIC_QPS_RESET);
	n = e.qp->qp_num;

	/* RESET -> INIT: the whole QPC with CTX_OP_WRITE (resets the device's
	 * dynamic state; the RQ ring must be known, receives may be posted) */
	from = f->nlog;
	attr_init(&a);
	CHECK_EQ(rnic_modify_qp(e.qp, &a, MASK_INIT), 0);
	CHECK_EQ(e.qp->state, RNIC_QPS_INIT);
	CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_WRITE << 4 | n << 8);
	w = f->qpc[n];
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_INIT);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, ACCESS), RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_LOCAL_WRITE);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, PD), e.pd->handle);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SQ_LOG_SIZE), 4);
	CHECK(RNIC_CTX_GET(w, QPC, SQ_BASE) >= FAKE_BUS_OFFSET);

	/* INIT -> INIT: CTX_OP_MODIFY keeps the dynamic state (posted receives) */
	from = f->nlog;
	CHECK_EQ(rnic_modify_qp(e.qp, &a, RNIC_QP_ACCESS_FLAGS), 0);
	CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_MODIFY << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_INIT);

	/* INIT -> RTR: the whole QPC with CTX_OP_QP_RTR (loads rq_psn) */
	from = f->nlog;
	attr_rtr(&a);
	CHECK_EQ(rnic_modify_qp(e.qp, &a, MASK_RTR), 0);
	CHECK_EQ(e.qp->state, RNIC_QPS_RTR);
	CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_QP_RTR << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_RTR);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, PMTU), RNIC_IB_MTU_1024);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, IPV6), 0);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SGID_INDEX), 1);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, DEST_QPN), 0x123);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RQ_PSN), 0xabcdef);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, ACCESS), RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_LOCAL_WRITE);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, PD), e.pd->handle);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SEND_CQN), e.cq->handle);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RECV_CQN), e.cq->handle);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SQ_LOG_SIZE), 4); /* 10 -> 16 entries */
	CHECK_EQ(RNIC_CTX_GET(w, QPC, MIN_RNR_TIMER), 12);
	CHECK(RNIC_CTX_GET(w, QPC, UDP_SPORT) >= RNIC_ROCEV2_SPORT_MIN);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, PKEY), RNIC_DEFAULT_PKEY);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, TRAFFIC_CLASS), 0x68);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, HOP_LIMIT), RNIC_IPV4_DEFAULT_TTL);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, DST_MAC), 0x020000000002ull);
	CHECK_EQ(rnic_ctx_get(w, RNIC_QPC_DGID_LSB, 64), 0x0000ffff0a000002ull);
	CHECK_EQ(rnic_ctx_get(w, RNIC_QPC_DGID_LSB + 64, 64), 0);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SQ_BASE) % 4096, 0);
	CHECK(RNIC_CTX_GET(w, QPC, SQ_BASE) >= FAKE_BUS_OFFSET);
	/* created with max_recv_wr 0: no RQ ring */
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RQ_BASE), 0);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RQ_LOG_SIZE), 0);

	/* RTR -> RTS: the whole QPC with CTX_OP_QP_RTS (loads sq_psn) */
	from = f->nlog;
	attr_rts(&a);
	CHECK_EQ(rnic_modify_qp(e.qp, &a, MASK_RTS), 0);
	CHECK_EQ(e.qp->state, RNIC_QPS_RTS);
	CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_QP_RTS << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_RTS);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SQ_PSN), 0x654321);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RQ_PSN), 0xabcdef); /* kept from RTR */
	CHECK_EQ(RNIC_CTX_GET(w, QPC, TIMEOUT), 14);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RETRY_CNT), 7);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RNR_RETRY), 6);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, DEST_QPN), 0x123);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, DST_MAC), 0x020000000002ull);

	/* query: QUERY_QP, the firmware's record */
	CHECK_EQ(rnic_query_qp(e.qp, &q, 0, &qi), 0);
	CHECK_EQ(q.qp_state, RNIC_QPS_RTS);
	CHECK_EQ(q.sq_psn, 0x654321);
	CHECK_EQ(q.rq_psn, 0xabcdef);
	CHECK_EQ(q.dest_qp_num, 0x123);
	CHECK_EQ(q.path_mtu, RNIC_IB_MTU_1024);
	CHECK_EQ(q.timeout, 14);
	CHECK(memcmp(q.ah_attr.dmac, peer_mac, 6) == 0);
	CHECK_EQ(qi.cap.max_send_wr, 16);
	CHECK(qi.send_cq == e.cq);

	/* RTS -> RTS: CTX_OP_MODIFY, the live QP keeps its PSNs and indices */
	from = f->nlog;
	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = 3;
	CHECK_EQ(rnic_modify_qp(e.qp, &a, RNIC_QP_MIN_RNR_TIMER), 0);
	CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_MODIFY << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, MIN_RNR_TIMER), 3);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_RTS);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, SQ_PSN), 0x654321);
	CHECK_EQ(e.qp->state, RNIC_QPS_RTS);
	a.qp_state = RNIC_QPS_RTS;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_LOCAL_WRITE;
	CHECK_EQ(rnic_modify_qp(e.qp, &a, RNIC_QP_STATE | RNIC_QP_ACCESS_FLAGS), 0);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_MODIFY << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, ACCESS), RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_LOCAL_WRITE);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, MIN_RNR_TIMER), 3);
	/* RTS -> RTS still refuses what the transition does not take */
	a.sq_psn = 1;
	CHECK_EQ(rnic_modify_qp(e.qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN), EINVAL);

	/* IPv6 GID, explicit hop limit */
	{
		struct rnic_qp *q2 = make_qp(&e, 4, 1, 0);

		attr_init(&a);
		CHECK_EQ(rnic_modify_qp(q2, &a, MASK_INIT), 0);
		attr_rtr(&a);
		a.ah_attr.grh.dgid.raw[0] = 0xfe;
		a.ah_attr.grh.dgid.raw[1] = 0x80;
		a.ah_attr.grh.hop_limit = 5;
		a.ah_attr.grh.flow_label = 0x12345;
		CHECK_EQ(rnic_modify_qp(q2, &a, MASK_RTR), 0);
		w = f->qpc[q2->qp_num];
		CHECK_EQ(RNIC_CTX_GET(w, QPC, IPV6), 1);
		CHECK_EQ(RNIC_CTX_GET(w, QPC, HOP_LIMIT), 5);
		CHECK_EQ(rnic_ctx_get(w, RNIC_QPC_DGID_LSB + 64, 64), 0xfe80000000000000ull);
		/* rdma-core's flow-label folding: 0x12345 -> 0x2345 ^ 0x4 */
		CHECK_EQ(RNIC_CTX_GET(w, QPC, UDP_SPORT), 0xc000 | (0x2345 ^ (0x10000 >> 14)));
		/* to ERR: QPC written with state ERR by CTX_OP_MODIFY, then both
		 * queues rung at their producer indices so the NIC flushes them */
		from = f->nlog;
		a.qp_state = RNIC_QPS_ERR;
		CHECK_EQ(rnic_modify_qp(q2, &a, RNIC_QP_STATE), 0);
		CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_ERR);
		CHECK_EQ(RNIC_CTX_GET(w, QPC, DEST_QPN), 0x123);
		CHECK_EQ(f->last_ctx_cmd,
			 RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_MODIFY << 4 | q2->qp_num << 8);
		CHECK_CMDS_TO(f, from, f->nlog - 2, RNIC_CMD_OP_MODIFY_QP);
		CHECK_EQ(f->log[f->nlog - 2].off, RNIC_REG_DB_SQ);
		CHECK_EQ(f->log[f->nlog - 2].val, q2->qp_num << 16);
		CHECK_EQ(f->log[f->nlog - 1].off, RNIC_REG_DB_RQ);
		CHECK_EQ(f->log[f->nlog - 1].val, q2->qp_num << 16);
		/* to RESET: an all-zero QPC by CTX_OP_WRITE; attributes forgotten */
		from = f->nlog;
		a.qp_state = RNIC_QPS_RESET;
		CHECK_EQ(rnic_modify_qp(q2, &a, RNIC_QP_STATE), 0);
		CHECK_CMDS(f, from, RNIC_CMD_OP_MODIFY_QP);
		CHECK_EQ(f->last_ctx_cmd,
			 RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_WRITE << 4 | q2->qp_num << 8);
		CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_RESET);
		CHECK_EQ(RNIC_CTX_GET(w, QPC, DEST_QPN), 0);
		CHECK_EQ(rnic_query_qp(q2, &q, 0, &qi), 0);
		CHECK_EQ(q.dest_qp_num, 0);
		CHECK_EQ(rnic_destroy_qp(q2), 0);
	}

	/* destroy of a QP the device knows: a RESET QPC */
	from = f->nlog;
	CHECK_EQ(rnic_destroy_cq(e.cq), EBUSY);
	CHECK_EQ(rnic_dealloc_pd(e.pd), EBUSY);
	CHECK_EQ(rnic_destroy_qp(e.qp), 0);
	e.qp = NULL;
	CHECK_CMDS(f, from, RNIC_CMD_OP_DESTROY_QP);
	CHECK_EQ(f->last_ctx_cmd, RNIC_CTX_TABLE_QPC | RNIC_CTX_OP_WRITE << 4 | n << 8);
	CHECK_EQ(RNIC_CTX_GET(f->qpc[n], QPC, STATE), RNIC_QPS_RESET);
	env_down(&e);
}

static void test_modify_qp_errors(void)
{
	struct fake_nic *f = fake_new();
	struct env e = {0};
	struct rnic_qp_attr a;
	unsigned int from, ctx_from;

	e.f = f;
	e.ctx = open_fake(f);
	e.pd = rnic_alloc_pd(e.ctx);
	e.cq = rnic_create_cq(e.ctx, 16);
	e.qp = make_qp(&e, 8, 1, 0);
	from = f->nlog;
	ctx_from = f->ncmd;

#define EXPECT_MODIFY(mask_, err_, state_)                                \
	do {                                                              \
		CHECK_EQ(rnic_modify_qp(e.qp, &a, (mask_)), (err_));      \
		CHECK_EQ(e.qp->state, (state_));                          \
	} while (0)

	/* RESET -> RTR / RTS: not a legal transition */
	attr_rtr(&a);
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_RESET);
	attr_rts(&a);
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_RESET);
	/* RESET -> INIT without ACCESS_FLAGS, PORT or PKEY_INDEX */
	attr_init(&a);
	EXPECT_MODIFY(MASK_INIT & ~RNIC_QP_ACCESS_FLAGS, EINVAL, RNIC_QPS_RESET);
	EXPECT_MODIFY(MASK_INIT & ~RNIC_QP_PORT, EINVAL, RNIC_QPS_RESET);
	EXPECT_MODIFY(MASK_INIT & ~RNIC_QP_PKEY_INDEX, EINVAL, RNIC_QPS_RESET);
	/* an attribute RESET -> INIT does not take */
	EXPECT_MODIFY(MASK_INIT | RNIC_QP_SQ_PSN, EINVAL, RNIC_QPS_RESET);
	/* bad values */
	a.port_num = 2;
	EXPECT_MODIFY(MASK_INIT, EINVAL, RNIC_QPS_RESET);
	attr_init(&a);
	a.qp_access_flags = 0x80;
	EXPECT_MODIFY(MASK_INIT, EINVAL, RNIC_QPS_RESET);
	attr_init(&a);
	a.pkey_index = 1;
	EXPECT_MODIFY(MASK_INIT, EINVAL, RNIC_QPS_RESET);
	/* wrong cur_qp_state */
	attr_init(&a);
	a.cur_qp_state = RNIC_QPS_RTR;
	EXPECT_MODIFY(MASK_INIT | RNIC_QP_CUR_STATE, EINVAL, RNIC_QPS_RESET);
	/* a state that does not exist */
	attr_init(&a);
	a.qp_state = 9;
	EXPECT_MODIFY(MASK_INIT, EINVAL, RNIC_QPS_RESET);
	/* cur_qp_state is taken only into RTS (IBTA 11.2.5.3, as Linux's
	 * ib_modify_qp_is_ok), even when it is right */
	attr_init(&a);
	a.cur_qp_state = RNIC_QPS_RESET;
	EXPECT_MODIFY(MASK_INIT | RNIC_QP_CUR_STATE, EINVAL, RNIC_QPS_RESET);
	/* now INIT */
	EXPECT_MODIFY(MASK_INIT, 0, RNIC_QPS_INIT);
	/* INIT -> INIT is allowed, without a state bit too */
	a.qp_access_flags = RNIC_ACCESS_REMOTE_READ;
	EXPECT_MODIFY(RNIC_QP_ACCESS_FLAGS, 0, RNIC_QPS_INIT);
	/* INIT -> RTS skips RTR */
	attr_rts(&a);
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_INIT);
	/* INIT -> RTR, each required attribute missing in turn */
	{
		const int req[] = {RNIC_QP_AV, RNIC_QP_PATH_MTU, RNIC_QP_DEST_QPN, RNIC_QP_RQ_PSN,
				   RNIC_QP_MAX_DEST_RD_ATOMIC, RNIC_QP_MIN_RNR_TIMER};

		attr_rtr(&a);
		for (unsigned int i = 0; i < sizeof(req) / sizeof(req[0]); i++)
			EXPECT_MODIFY(MASK_RTR & ~req[i], EINVAL, RNIC_QPS_INIT);
	}
	/* INIT -> RTR with bad values */
	attr_rtr(&a);
	a.path_mtu = 6;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.path_mtu = 0;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.dest_qp_num = 1u << 24;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.rq_psn = 1u << 24;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.ah_attr.is_global = 0;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.ah_attr.grh.sgid_index = RNIC_GID_TABLE_SIZE;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.min_rnr_timer = 32;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	attr_rtr(&a);
	a.max_dest_rd_atomic = 17;
	EXPECT_MODIFY(MASK_RTR, EINVAL, RNIC_QPS_INIT);
	/* unsupported attributes */
	attr_rtr(&a);
	EXPECT_MODIFY(MASK_RTR | RNIC_QP_ALT_PATH, EINVAL, RNIC_QPS_INIT);
	EXPECT_MODIFY(MASK_RTR | RNIC_QP_QKEY, EINVAL, RNIC_QPS_INIT);
	/* the firmware refused the bad modifies without touching the device:
	 * only the two good ones (RESET -> INIT, INIT -> INIT) wrote the QPC */
	CHECK_EQ(f->ncmd - ctx_from, 2);
	CHECK(host_cmds(f, from, NULL, 0) > 2);

	attr_rtr(&a);
	EXPECT_MODIFY(MASK_RTR, 0, RNIC_QPS_RTR);
	/* RTR -> RTS, each required attribute missing in turn, then bad values */
	{
		const int req[] = {RNIC_QP_SQ_PSN, RNIC_QP_TIMEOUT, RNIC_QP_RETRY_CNT,
				   RNIC_QP_RNR_RETRY, RNIC_QP_MAX_QP_RD_ATOMIC};

		attr_rts(&a);
		for (unsigned int i = 0; i < sizeof(req) / sizeof(req[0]); i++)
			EXPECT_MODIFY(MASK_RTS & ~req[i], EINVAL, RNIC_QPS_RTR);
	}
	attr_rts(&a);
	a.retry_cnt = 8;
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_RTR);
	attr_rts(&a);
	a.rnr_retry = 8;
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_RTR);
	attr_rts(&a);
	a.timeout = 32;
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_RTR);
	attr_rts(&a);
	a.sq_psn = 0x1000000;
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_RTR);
	attr_rts(&a);
	EXPECT_MODIFY(MASK_RTS | RNIC_QP_PATH_MTU, EINVAL, RNIC_QPS_RTR);
	/* RTR -> INIT: backwards */
	attr_init(&a);
	EXPECT_MODIFY(RNIC_QP_STATE, EINVAL, RNIC_QPS_RTR);
	/* SQD is not supported */
	a.qp_state = RNIC_QPS_SQD;
	EXPECT_MODIFY(RNIC_QP_STATE, EINVAL, RNIC_QPS_RTR);
	/* any -> ERR takes no attributes */
	a.qp_state = RNIC_QPS_ERR;
	EXPECT_MODIFY(RNIC_QP_STATE | RNIC_QP_SQ_PSN, EINVAL, RNIC_QPS_RTR);
	EXPECT_MODIFY(RNIC_QP_STATE, 0, RNIC_QPS_ERR);
	/* ERR -> RTS: no */
	attr_rts(&a);
	EXPECT_MODIFY(MASK_RTS, EINVAL, RNIC_QPS_ERR);
	CHECK_EQ(rnic_modify_qp(NULL, &a, 0), EINVAL);
	CHECK_EQ(rnic_modify_qp(e.qp, NULL, 0), EINVAL);
#undef EXPECT_MODIFY
	env_down(&e);
}

static void test_create_qp_errors(void)
{
	struct fake_nic *f = fake_new();
	struct env e = {0};
	struct rnic_qp_init_attr ia;
	struct rnic_qp *qps[20];
	int n = 0;

	e.f = f;
	e.ctx = open_fake(f);
	e.pd = rnic_alloc_pd(e.ctx);
	e.cq = rnic_create_cq(e.ctx, 16);

#define EXPECT_CREATE_EINVAL(field, value)                         \
	do {                                                       \
		memset(&ia, 0, sizeof(ia));                        \
		ia.send_cq = e.cq;                                 \
		ia.recv_cq = e.cq;                                 \
		ia.qp_type = RNIC_QPT_RC;                          \
		ia.cap.max_send_wr = 4;                            \
		ia.cap.max_send_sge = 1;                           \
		field = value;                                     \
		errno = 0;                                         \
		CHECK(rnic_create_qp(e.pd, &ia) == NULL);          \
		CHECK_EQ(errno, EINVAL);                           \
	} while (0)

	EXPECT_CREATE_EINVAL(ia.qp_type, 3);
	EXPECT_CREATE_EINVAL(ia.send_cq, NULL);
	EXPECT_CREATE_EINVAL(ia.recv_cq, NULL);
	EXPECT_CREATE_EINVAL(ia.cap.max_send_wr, 0);
	EXPECT_CREATE_EINVAL(ia.cap.max_send_wr, (1u << 15) + 1);
	EXPECT_CREATE_EINVAL(ia.cap.max_send_sge, RNIC_MAX_SEND_SGE + 1);
	EXPECT_CREATE_EINVAL(ia.cap.max_inline_data, RNIC_MAX_INLINE_BYTES + 1);
	EXPECT_CREATE_EINVAL(ia.cap.max_recv_wr, (1u << 15) + 1);
	EXPECT_CREATE_EINVAL(ia.cap.max_recv_sge, RNIC_MAX_RECV_SGE + 1);
	EXPECT_CREATE_EINVAL(ia.srq, (void *)&ia);
#undef EXPECT_CREATE_EINVAL
	/* QPNs 2..15 */
	while (n < 20 && (qps[n] = make_qp(&e, 1, 1, 0)) != NULL)
		n++;
	CHECK_EQ(n, 14);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(qps[0]->qp_num, 2);
	CHECK_EQ(qps[13]->qp_num, 15);
	while (n > 0)
		CHECK_EQ(rnic_destroy_qp(qps[--n]), 0);
	env_down(&e);
}

/* ------------------------------------------------------------ post_send */

static void test_post_send_wqe(void)
{
	struct env e;
	struct rnic_sg_entry sge[4] = {
		{0x1000, 100, 0x101},
		{0x2000, 200, 0x102},
		{0, 0, 0},
		{0x3000, 8, 0x103},
	};
	struct rnic_send_wr wr[4], *bad = NULL;
	struct rnic_wqe *sq;
	unsigned int from;
	uint8_t inline_src[40];

	env_up(&e, 16, 8);
	sq = sq_ring(e.f, e.qp);
	memset(wr, 0, sizeof(wr));
	/* 0: RDMA WRITE, two SGEs, signaled, fenced */
	wr[0].wr_id = 0xa0;
	wr[0].next = &wr[1];
	wr[0].sg_list = sge;
	wr[0].num_sge = 2;
	wr[0].opcode = RNIC_WR_RDMA_WRITE;
	wr[0].send_flags = RNIC_SEND_SIGNALED | RNIC_SEND_FENCE;
	wr[0].wr.rdma.remote_addr = 0x1122334455667788ull;
	wr[0].wr.rdma.rkey = 0x4321;
	/* 1: RDMA WRITE WITH IMM, inline, solicited, unsignaled */
	for (unsigned int i = 0; i < sizeof(inline_src); i++)
		inline_src[i] = (uint8_t)(i * 7);
	sge[2] = (struct rnic_sg_entry){(uintptr_t)inline_src, sizeof(inline_src), 0};
	wr[1].wr_id = 0xa1;
	wr[1].next = &wr[2];
	wr[1].sg_list = &sge[2];
	wr[1].num_sge = 1;
	wr[1].opcode = RNIC_WR_RDMA_WRITE_WITH_IMM;
	wr[1].send_flags = RNIC_SEND_INLINE | RNIC_SEND_SOLICITED;
	wr[1].imm_data = 0x04030201; /* network order as given */
	wr[1].wr.rdma.remote_addr = 0x9000;
	wr[1].wr.rdma.rkey = 0x777;
	/* 2: atomic fetch-and-add into an 8-byte SGE */
	wr[2].wr_id = 0xa2;
	wr[2].next = &wr[3];
	wr[2].sg_list = &sge[3];
	wr[2].num_sge = 1;
	wr[2].opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
	wr[2].wr.atomic.remote_addr = 0x8000;
	wr[2].wr.atomic.rkey = 0x555;
	wr[2].wr.atomic.compare_add = 5;
	wr[2].wr.atomic.swap = 6;
	/* 3: SEND, no SGE */
	wr[3].wr_id = 0xa3;
	wr[3].opcode = RNIC_WR_SEND;

	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	CHECK(bad == NULL);
	/* one doorbell for the list, {QPN, PI = 4}, and nothing else */
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_SQ);
	CHECK_EQ(e.f->log[from].val, e.qp->qp_num << 16 | 4);

	CHECK_EQ(sq[0].opcode, RNIC_WR_RDMA_WRITE);
	CHECK_EQ(sq[0].flags, RNIC_WQE_FLAG_SIGNALED | RNIC_WQE_FLAG_FENCE);
	CHECK_EQ(sq[0].num_sge, 2);
	CHECK_EQ(sq[0].inline_len, 0);
	CHECK_EQ(sq[0].remote_addr, 0x1122334455667788ull);
	CHECK_EQ(sq[0].rkey, 0x4321);
	CHECK_EQ(sq[0].length, 300);
	CHECK_EQ(sq[0].sge[0].addr, 0x1000);
	CHECK_EQ(sq[0].sge[0].length, 100);
	CHECK_EQ(sq[0].sge[0].lkey, 0x101);
	CHECK_EQ(sq[0].sge[1].addr, 0x2000);
	CHECK_EQ(sq[0].sge[1].length, 200);
	CHECK_EQ(sq[0].sge[1].lkey, 0x102);
	CHECK_EQ(sq[0].sge[2].lkey, 0);
	/* the raw bytes: little-endian fields at the documented offsets */
	{
		const uint8_t *b = (const uint8_t *)&sq[0];

		CHECK_EQ(b[8], 0x88);
		CHECK_EQ(b[15], 0x11);
		CHECK_EQ(b[16], 0x21);
		CHECK_EQ(b[20], 300 & 0xff);
		CHECK_EQ(b[21], 300 >> 8);
		CHECK_EQ(b[64 + 12], 0x01);
		CHECK_EQ(b[64 + 13], 0x01);
	}
	CHECK_EQ(sq[1].opcode, RNIC_WR_RDMA_WRITE_WITH_IMM);
	CHECK_EQ(sq[1].flags, RNIC_WQE_FLAG_INLINE | RNIC_WQE_FLAG_SOLICITED);
	CHECK_EQ(sq[1].inline_len, sizeof(inline_src));
	CHECK_EQ(sq[1].length, sizeof(inline_src));
	CHECK(memcmp(sq[1].sge, inline_src, sizeof(inline_src)) == 0);
	CHECK_EQ(((const uint8_t *)&sq[1])[4], 0x01); /* imm_data bytes as given */
	CHECK_EQ(((const uint8_t *)&sq[1])[7], 0x04);
	CHECK_EQ(sq[2].opcode, RNIC_WR_ATOMIC_FETCH_AND_ADD);
	CHECK_EQ(sq[2].remote_addr, 0x8000);
	CHECK_EQ(sq[2].rkey, 0x555);
	CHECK_EQ(sq[2].compare_add, 5);
	CHECK_EQ(sq[2].swap, 6);
	CHECK_EQ(sq[2].length, 8);
	CHECK_EQ(sq[3].opcode, RNIC_WR_SEND);
	CHECK_EQ(sq[3].num_sge, 0);
	CHECK_EQ(sq[3].length, 0);
	CHECK_EQ(sq[3].flags, 0);

	/* SEND with invalidate (RC): the WQE's rkey is invalidate_rkey (the
	 * IETH's), not wr.rdma's */
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0xa4;
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	wr[0].opcode = RNIC_WR_SEND_WITH_INV;
	wr[0].invalidate_rkey = 0x12345678;
	wr[0].wr.rdma.rkey = 0x999;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	CHECK_EQ(sq[4].opcode, RNIC_WR_SEND_WITH_INV);
	CHECK_EQ(sq[4].rkey, 0x12345678);
	CHECK_EQ(sq[4].length, 100);
	CHECK_EQ(sq[4].sge[0].lkey, 0x101);
	env_down(&e);
}

/* The WQE window: a single inline WQE goes into the doorbell page as well
 * (32 words, as in the ring) and DB_SQ_WQE rings; anything else, a device
 * without the window (DB block 1.0) and RNIC_NO_WQE_WINDOW keep DB_SQ. */
static void check_window_post(struct env *e, const struct rnic_wqe *slot, uint32_t pi, unsigned int from)
{
	const uint8_t *b = (const uint8_t *)slot;

	CHECK_EQ(e->f->nlog - from, RNIC_REG_DB_WQE_COUNT + 1);
	for (unsigned int i = 0; i < RNIC_REG_DB_WQE_COUNT && from + i < e->f->nlog; i++) {
		uint32_t w = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
			     (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;

		CHECK_EQ(e->f->log[from + i].off, RNIC_REG_DB_WQE + 4 * i);
		CHECK_EQ(e->f->log[from + i].val, w);
	}
	CHECK_EQ(e->f->log[e->f->nlog - 1].off, RNIC_REG_DB_SQ_WQE);
	CHECK_EQ(e->f->log[e->f->nlog - 1].val, e->qp->qp_num << 16 | pi);
}

/* The call rang DB_SQ alone, with {QPN, pi}. */
static void check_db_sq_post(struct env *e, uint32_t pi, unsigned int from)
{
	CHECK_EQ(e->f->nlog - from, 1);
	CHECK_EQ(e->f->log[from].off, RNIC_REG_DB_SQ);
	CHECK_EQ(e->f->log[from].val, e->qp->qp_num << 16 | pi);
}

static void test_post_send_window(void)
{
	struct env e;
	struct rnic_device_attr a;
	struct rnic_sg_entry sge[2];
	struct rnic_send_wr wr[2], *bad = NULL;
	struct rnic_wqe *sq;
	unsigned int from;
	uint8_t src[64];

	for (unsigned int i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(0xa5 ^ i * 3);
	env_up(&e, 16, 8);
	sq = sq_ring(e.f, e.qp);
	CHECK_EQ(rnic_query_device(e.ctx, &a), 0);
	CHECK_EQ(a.wqe_window, 1);
	memset(wr, 0, sizeof(wr));
	sge[0] = (struct rnic_sg_entry){(uintptr_t)src, 40, 0};
	sge[1] = (struct rnic_sg_entry){(uintptr_t)src + 40, 24, 0};
	wr[0].wr_id = 1;
	wr[0].sg_list = sge;
	wr[0].num_sge = 2;
	wr[0].opcode = RNIC_WR_SEND_WITH_IMM;
	wr[0].imm_data = 0x11223344;
	wr[0].send_flags = RNIC_SEND_INLINE | RNIC_SEND_SIGNALED;

	/* one inline WR: the window, then DB_SQ_WQE {QPN, PI 1} */
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	CHECK_EQ(sq[0].inline_len, 64);
	CHECK(memcmp(sq[0].sge, src, 64) == 0);
	check_window_post(&e, &sq[0], 1, from);

	/* not inline: DB_SQ only */
	wr[0].send_flags = RNIC_SEND_SIGNALED;
	wr[0].num_sge = 1;
	sge[0].lkey = 0x101;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	check_db_sq_post(&e, 2, from);

	/* two inline WRs in one call: one DB_SQ for both */
	wr[0].send_flags = RNIC_SEND_INLINE;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].next = NULL;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	check_db_sq_post(&e, 4, from);

	/* the second of two fails: the one posted still takes the window */
	wr[1].send_flags = 0x80000000u;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[1]);
	check_window_post(&e, &sq[4], 5, from);
	env_down(&e);

	/* a device whose DB block predates the window */
	{
		struct fake_nic *f = fake_new();
		struct rnic_context *ctx;

		fake_set(f, RNIC_BLK_DB_BASE + RNIC_REG_BLK_VERSION, RNIC_BLK_DB_VERSION & 0xffff0000u);
		ctx = open_fake(f);
		CHECK_EQ(rnic_query_device(ctx, &a), 0);
		CHECK_EQ(a.wqe_window, 0);
		CHECK_EQ(rnic_close_device(ctx), 0);
		free(f);
	}
	/* turned off by the environment: DB_SQ for a single inline WR */
	setenv("RNIC_NO_WQE_WINDOW", "1", 1);
	env_up(&e, 16, 8);
	unsetenv("RNIC_NO_WQE_WINDOW");
	CHECK_EQ(rnic_query_device(e.ctx, &a), 0);
	CHECK_EQ(a.wqe_window, 0);
	wr[0].next = NULL;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), 0);
	check_db_sq_post(&e, 1, from);
	env_down(&e);
}

static void test_post_send_errors(void)
{
	struct env e;
	struct rnic_sg_entry sge[3] = {{0x1000, 8, 1}, {0x2000, 8, 1}, {0x3000, 8, 1}};
	struct rnic_send_wr wr[6], *bad;
	unsigned int from;
	struct rnic_qp *idle;
	uint8_t big[65];

	env_up(&e, 16, 4); /* QP: max_send_sge 2, 4 SQ entries */
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 6; i++) {
		wr[i].wr_id = 100 + (uint64_t)i;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].opcode = RNIC_WR_RDMA_WRITE;
	}

	/* a QP not in RTS: EINVAL on the first WR, no doorbell */
	idle = make_qp(&e, 4, 1, 0);
	from = e.f->nlog;
	bad = NULL;
	CHECK_EQ(rnic_post_send(idle, wr, &bad), EINVAL);
	CHECK(bad == &wr[0]);
	CHECK_EQ(e.f->nlog, from);
	CHECK_EQ(rnic_destroy_qp(idle), 0);

	/* num_sge over the QP's max_send_sge on the second WR: the first is
	 * posted and rung, bad_wr is the second */
	wr[1].num_sge = 3;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].val, e.qp->qp_num << 16 | 1);
	wr[1].num_sge = 1;

	/* other bad WRs: all EINVAL, nothing posted */
	from = e.f->nlog;
	wr[1].next = NULL;
	/* window operations carry no SGE; past SEND_WITH_INV no opcode */
	wr[1].opcode = RNIC_WR_LOCAL_INV;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].opcode = RNIC_WR_BIND_MW;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].opcode = 10;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].opcode = RNIC_WR_RDMA_WRITE;
	wr[1].num_sge = -1;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].num_sge = 1;
	wr[1].send_flags = 0x10;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].send_flags = RNIC_SEND_INLINE; /* inline larger than max_inline_data */
	memset(big, 0, sizeof(big));
	sge[2] = (struct rnic_sg_entry){(uintptr_t)big, sizeof(big), 0};
	wr[1].sg_list = &sge[2];
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].opcode = RNIC_WR_RDMA_READ; /* inline READ */
	sge[2].length = 8;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].send_flags = 0;
	wr[1].sg_list = sge; /* ATOMICs of 16 and 0 bytes: an ATOMIC returns exactly 8 */
	wr[1].num_sge = 2;
	wr[1].opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].num_sge = 0;
	wr[1].opcode = RNIC_WR_ATOMIC_CMP_AND_SWP;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	wr[1].num_sge = 1;
	wr[1].opcode = RNIC_WR_RDMA_WRITE;
	wr[1].sg_list = NULL;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(e.f->nlog, from);
	wr[1].sg_list = sge;
	wr[1].next = &wr[2];

	/* SQ overflow: 1 outstanding + 5 more into 4 entries: 3 posted, then
	 * ENOMEM at the 4th of the list */
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, &wr[1], &bad), ENOMEM);
	CHECK(bad == &wr[4]);
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_SQ);
	CHECK_EQ(e.f->log[from].val, e.qp->qp_num << 16 | 4);
	/* full: even one more fails and nothing is rung */
	wr[5].next = NULL;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_send(e.qp, &wr[5], &bad), ENOMEM);
	CHECK(bad == &wr[5]);
	CHECK_EQ(e.f->nlog, from);
	/* a completion of the last WQE frees all four (unsignaled before it) */
	{
		struct rnic_wc wc[4];

		nic_write_cqe(e.f, e.cq, 0, e.qp->qp_num, 3, RNIC_WC_SUCCESS, 0);
		CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
		CHECK_EQ(wc[0].wr_id, 103);
		CHECK_EQ(rnic_post_send(e.qp, &wr[5], &bad), 0);
		CHECK_EQ(e.f->log[e.f->nlog - 1].val, e.qp->qp_num << 16 | 5);
	}
	CHECK_EQ(rnic_post_send(NULL, wr, &bad), EINVAL);
	env_down(&e);
}

/* ------------------------------------------------------------ post_recv */

static struct rnic_qp *make_qp_rq(struct env *e, uint32_t max_recv_wr, uint32_t max_recv_sge)
{
	struct rnic_qp_init_attr ia = {0};

	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_wr = max_recv_wr;
	ia.cap.max_recv_sge = max_recv_sge;
	return rnic_create_qp(e->pd, &ia);
}

static struct rnic_recv_wqe *rq_ring(struct fake_nic *f, struct rnic_qp *qp)
{
	return fake_va(RNIC_CTX_GET(f->qpc[qp->qp_num], QPC, RQ_BASE));
}

/* The RQ ring in the QPC, the receive WQE layout, the DB_RQ doorbell. */
static void test_post_recv_wqe(void)
{
	struct env e;
	struct rnic_qp *qp;
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp_attr qa;
	struct rnic_sg_entry sge[4] = {
		{0x1000, 100, 0x101},
		{0x2000, 0, 0x102},
		{0x3003, 300, 0x103},
		{0x4000, 400, 0x104},
	};
	struct rnic_recv_wr wr[4], *bad = NULL;
	struct rnic_recv_wqe *rq;
	const uint32_t *w;
	unsigned int from, maps;

	env_up(&e, 16, 8);
	/* max_recv_wr rounded up and reported, as ibv_create_qp does */
	ia.send_cq = e.cq;
	ia.recv_cq = e.cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 5;
	ia.cap.max_recv_sge = RNIC_MAX_RECV_SGE;
	maps = e.f->nmaps;
	qp = rnic_create_qp(e.pd, &ia);
	CHECK(qp != NULL);
	if (!qp)
		return;
	CHECK_EQ(ia.cap.max_recv_wr, 8);
	CHECK_EQ(ia.cap.max_recv_sge, RNIC_MAX_RECV_SGE);
	CHECK_EQ(e.f->nmaps - maps, 2); /* SQ and RQ rings */
	CHECK_EQ(rnic_query_qp(qp, &qa, 0, &ia), 0);
	CHECK_EQ(qa.cap.max_recv_wr, 8);

	/* RESET: refused, nothing written */
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0xb0;
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	from = e.f->nlog;
	CHECK_EQ(rnic_post_recv(qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[0]);
	CHECK_EQ(e.f->nlog, from);

	/* INIT: the QPC names the ring; receives may be posted */
	attr_init(&qa);
	CHECK_EQ(rnic_modify_qp(qp, &qa, MASK_INIT), 0);
	w = e.f->qpc[qp->qp_num];
	CHECK_EQ(RNIC_CTX_GET(w, QPC, RQ_LOG_SIZE), 3);
	CHECK(RNIC_CTX_GET(w, QPC, RQ_BASE) >= FAKE_BUS_OFFSET);
	CHECK_EQ((RNIC_CTX_GET(w, QPC, RQ_BASE) - FAKE_BUS_OFFSET) % 4096, 0);
	CHECK(RNIC_CTX_GET(w, QPC, RQ_BASE) != RNIC_CTX_GET(w, QPC, SQ_BASE));
	rq = rq_ring(e.f, qp);

	/* 0: one SGE, 1: four SGEs (one zero-length), 2: none, 3: three */
	wr[0].next = &wr[1];
	wr[1].wr_id = 0xb1;
	wr[1].next = &wr[2];
	wr[1].sg_list = sge;
	wr[1].num_sge = 4;
	wr[2].wr_id = 0xb2;
	wr[2].next = &wr[3];
	wr[3].wr_id = 0xb3;
	wr[3].sg_list = &sge[1];
	wr[3].num_sge = 3;
	from = e.f->nlog;
	bad = NULL;
	CHECK_EQ(rnic_post_recv(qp, wr, &bad), 0);
	CHECK(bad == NULL);
	/* one doorbell for the list: DB_RQ {QPN, PI = 4} */
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_RQ);
	CHECK_EQ(e.f->log[from].val, qp->qp_num << 16 | 4);

	CHECK_EQ(rq[0].sge[0].addr, 0x1000);
	CHECK_EQ(rq[0].sge[0].length, 100);
	CHECK_EQ(rq[0].sge[0].lkey, 0x101);
	CHECK_EQ(rq[0].sge[1].lkey, RNIC_INVALID_LKEY); /* ends the list */
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(rq[1].sge[i].addr, sge[i].addr);
		CHECK_EQ(rq[1].sge[i].length, sge[i].length);
		CHECK_EQ(rq[1].sge[i].lkey, sge[i].lkey);
	}
	CHECK_EQ(rq[2].sge[0].lkey, RNIC_INVALID_LKEY);
	CHECK_EQ(rq[3].sge[0].addr, 0x2000);
	CHECK_EQ(rq[3].sge[2].addr, 0x4000);
	CHECK_EQ(rq[3].sge[2].lkey, 0x104);
	CHECK_EQ(rq[3].sge[3].lkey, RNIC_INVALID_LKEY);
	/* the raw bytes: little-endian at the documented offsets */
	{
		const uint8_t *b = (const uint8_t *)&rq[3];

		CHECK_EQ(b[16 + 0], 0x03);
		CHECK_EQ(b[16 + 1], 0x30);
		CHECK_EQ(b[16 + 8], 300 & 0xff);
		CHECK_EQ(b[16 + 9], 300 >> 8);
		CHECK_EQ(b[16 + 12], 0x03);
		CHECK_EQ(b[48 + 12], 0xff);
		CHECK_EQ(b[48 + 15], 0xff);
	}

	/* RTR, RTS: still posting; the producer index runs on */
	attr_rtr(&qa);
	CHECK_EQ(rnic_modify_qp(qp, &qa, MASK_RTR), 0);
	wr[2].next = NULL;
	CHECK_EQ(rnic_post_recv(qp, &wr[2], &bad), 0);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, qp->qp_num << 16 | 5);
	CHECK_EQ(rq[4].sge[0].lkey, RNIC_INVALID_LKEY);
	attr_rts(&qa);
	CHECK_EQ(rnic_modify_qp(qp, &qa, MASK_RTS), 0);
	CHECK_EQ(rnic_post_recv(qp, &wr[2], &bad), 0);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, qp->qp_num << 16 | 6);

	/* ERR: MODIFY_QP, then DB_SQ {QPN, 0} and DB_RQ {QPN, 6}; posting still allowed */
	from = e.f->nlog;
	qa.qp_state = RNIC_QPS_ERR;
	CHECK_EQ(rnic_modify_qp(qp, &qa, RNIC_QP_STATE), 0);
	CHECK_CMDS_TO(e.f, from, e.f->nlog - 2, RNIC_CMD_OP_MODIFY_QP);
	CHECK_EQ(e.f->log[e.f->nlog - 2].off, RNIC_REG_DB_SQ);
	CHECK_EQ(e.f->log[e.f->nlog - 2].val, qp->qp_num << 16);
	CHECK_EQ(e.f->log[e.f->nlog - 1].off, RNIC_REG_DB_RQ);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, qp->qp_num << 16 | 6);
	CHECK_EQ(rnic_post_recv(qp, &wr[2], &bad), 0);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, qp->qp_num << 16 | 7);

	/* RESET empties the ring: the producer index starts again at 0 */
	qa.qp_state = RNIC_QPS_RESET;
	CHECK_EQ(rnic_modify_qp(qp, &qa, RNIC_QP_STATE), 0);
	CHECK_EQ(rnic_post_recv(qp, &wr[2], &bad), EINVAL);
	attr_init(&qa);
	CHECK_EQ(rnic_modify_qp(qp, &qa, MASK_INIT), 0);
	CHECK_EQ(rnic_post_recv(qp, &wr[2], &bad), 0);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, qp->qp_num << 16 | 1);
	CHECK_EQ(rq[0].sge[0].lkey, RNIC_INVALID_LKEY); /* the new one, in slot 0 */
	CHECK_EQ(rq[1].sge[0].lkey, 0);                 /* old entries cleared */
	CHECK_EQ(rq[1].sge[0].addr, 0);

	/* destroy of an INIT QP: the device knows it, the firmware writes a
	 * RESET QPC */
	from = e.f->nlog;
	maps = e.f->nunmaps;
	CHECK_EQ(rnic_destroy_qp(qp), 0);
	CHECK_CMDS(e.f, from, RNIC_CMD_OP_DESTROY_QP);
	CHECK_EQ(RNIC_CTX_GET(w, QPC, STATE), RNIC_QPS_RESET);
	CHECK_EQ(e.f->nunmaps - maps, 2);
	env_down(&e);
}

static void test_post_recv_errors(void)
{
	struct env e;
	struct rnic_qp *qp, *norq;
	struct rnic_sg_entry sge[3] = {{0x1000, 8, 1}, {0x2000, 8, 1}, {0x3000, 8, 1}};
	struct rnic_recv_wr wr[6], *bad;
	struct rnic_qp_attr qa;
	unsigned int from;

	env_up(&e, 16, 8);
	qp = make_qp_rq(&e, 4, 2); /* 4 RQ entries, 2 SGEs */
	CHECK(qp != NULL);
	if (!qp)
		return;
	attr_init(&qa);
	CHECK_EQ(rnic_modify_qp(qp, &qa, MASK_INIT), 0);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 6; i++) {
		wr[i].wr_id = 200 + (uint64_t)i;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
	}

	/* num_sge over max_recv_sge on the second WR: the first is posted and
	 * rung, bad_wr is the second */
	wr[1].num_sge = 3;
	from = e.f->nlog;
	bad = NULL;
	CHECK_EQ(rnic_post_recv(qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_RQ);
	CHECK_EQ(e.f->log[from].val, qp->qp_num << 16 | 1);

	/* other bad WRs: EINVAL, bad_wr set, nothing posted or rung */
	from = e.f->nlog;
	wr[1].next = NULL;
	wr[1].num_sge = -1;
	bad = NULL;
	CHECK_EQ(rnic_post_recv(qp, &wr[1], &bad), EINVAL);
	CHECK(bad == &wr[1]);
	wr[1].num_sge = 1;
	wr[1].sg_list = NULL;
	bad = NULL;
	CHECK_EQ(rnic_post_recv(qp, &wr[1], &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(e.f->nlog, from);
	wr[1].sg_list = sge;
	wr[1].next = &wr[2];
	bad = NULL;
	CHECK_EQ(rnic_post_recv(NULL, &wr[1], &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(rnic_post_recv(qp, NULL, &bad), 0); /* an empty list posts nothing */
	CHECK_EQ(e.f->nlog, from);

	/* RQ overflow: 1 outstanding + 5 more into 4 entries: 3 posted and
	 * rung, then ENOMEM at the 4th of the list (as libibverbs providers) */
	from = e.f->nlog;
	CHECK_EQ(rnic_post_recv(qp, &wr[1], &bad), ENOMEM);
	CHECK(bad == &wr[4]);
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].val, qp->qp_num << 16 | 4);
	from = e.f->nlog;
	CHECK_EQ(rnic_post_recv(qp, &wr[5], &bad), ENOMEM);
	CHECK(bad == &wr[5]);
	CHECK_EQ(e.f->nlog, from);

	/* a QP without an RQ (max_recv_wr 0) is always full */
	norq = make_qp_rq(&e, 0, 0);
	CHECK(norq != NULL);
	if (norq) {
		attr_init(&qa);
		CHECK_EQ(rnic_modify_qp(norq, &qa, MASK_INIT), 0);
		CHECK_EQ(RNIC_CTX_GET(e.f->qpc[norq->qp_num], QPC, RQ_BASE), 0);
		wr[5].num_sge = 0;
		from = e.f->nlog;
		CHECK_EQ(rnic_post_recv(norq, &wr[5], &bad), ENOMEM);
		CHECK(bad == &wr[5]);
		CHECK_EQ(e.f->nlog, from);
		/* max_recv_sge 0 allows only SGE-less receives */
		CHECK_EQ(rnic_destroy_qp(norq), 0);
	}
	norq = make_qp_rq(&e, 2, 0);
	CHECK(norq != NULL);
	if (norq) {
		attr_init(&qa);
		CHECK_EQ(rnic_modify_qp(norq, &qa, MASK_INIT), 0);
		wr[5].num_sge = 1;
		CHECK_EQ(rnic_post_recv(norq, &wr[5], &bad), EINVAL);
		wr[5].num_sge = 0;
		CHECK_EQ(rnic_post_recv(norq, &wr[5], &bad), 0);
		CHECK_EQ(rnic_destroy_qp(norq), 0);
	}
	CHECK_EQ(rnic_destroy_qp(qp), 0);
	env_down(&e);
}

/* ------------------------------------------------------------ poll_cq */

static void post_n(struct env *e, int n, uint64_t first_id, unsigned int flags)
{
	struct rnic_sg_entry sge = {0x1000, 64, 0x100};
	struct rnic_send_wr wr = {0}, *bad = NULL;

	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = flags;
	for (int i = 0; i < n; i++) {
		wr.wr_id = first_id + (uint64_t)i;
		CHECK_EQ(rnic_post_send(e->qp, &wr, &bad), 0);
	}
}

static void test_poll_cq(void)
{
	struct env e;
	struct rnic_wc wc[8];
	struct rnic_cqe *ring;
	unsigned int from, progress, pi = 0;
	uint32_t qpn;

	env_up(&e, 4, 64); /* CQ of 4 entries: wraps often */
	qpn = e.qp->qp_num;
	ring = cq_ring(e.f, e.cq);

	/* empty: 0, one progress call, no doorbell */
	from = e.f->nlog;
	progress = e.f->nprogress;
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 0);
	CHECK_EQ(e.f->nprogress - progress, 1);
	CHECK_EQ(e.f->nlog, from);

	/* a body without its owner byte is not taken */
	post_n(&e, 2, 1000, 0);            /* WQE 0, 1 unsignaled */
	post_n(&e, 1, 1002, RNIC_SEND_SIGNALED); /* WQE 2 */
	nic_write_cqe(e.f, e.cq, pi, qpn, 2, RNIC_WC_SUCCESS, 0);
	ring[0].owner = 0;
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 0);
	ring[0].owner = 1;
	from = e.f->nlog;
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 1);
	pi++;
	CHECK_EQ(wc[0].wr_id, 1002);
	CHECK_EQ(wc[0].status, RNIC_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, RNIC_WC_RDMA_WRITE);
	CHECK_EQ(wc[0].qp_num, qpn);
	CHECK_EQ(wc[0].src_qp, 0x123);
	CHECK_EQ(wc[0].byte_len, 0x1000);
	CHECK_EQ(wc[0].vendor_err, 0);
	CHECK_EQ(wc[0].wc_flags, 0);
	/* one DB_CQ with {CQN, CI} */
	CHECK_EQ(e.f->nlog - from, 1);
	CHECK_EQ(e.f->log[from].off, RNIC_REG_DB_CQ);
	CHECK_EQ(e.f->log[from].val, e.cq->handle << 16 | 1);

	/* many passes over the 4-entry ring, batches of 3 signaled WQEs:
	 * the phase flips each wrap; stale entries of the last pass are not
	 * taken; one DB_CQ per poll call */
	for (int round = 0; round < 10; round++) {
		int got = 0;

		post_n(&e, 3, 2000 + (uint64_t)round * 10, RNIC_SEND_SIGNALED);
		for (int k = 0; k < 3; k++) {
			nic_write_cqe(e.f, e.cq, pi, qpn, (uint16_t)(3 + round * 3 + k),
				      RNIC_WC_SUCCESS, 0);
			pi++;
		}
		from = e.f->nlog;
		got = rnic_poll_cq(e.cq, 2, wc);
		CHECK_EQ(got, 2);
		CHECK_EQ(wc[0].wr_id, 2000 + (uint64_t)round * 10);
		CHECK_EQ(wc[1].wr_id, 2001 + (uint64_t)round * 10);
		got = rnic_poll_cq(e.cq, 8, wc);
		CHECK_EQ(got, 1);
		CHECK_EQ(wc[0].wr_id, 2002 + (uint64_t)round * 10);
		CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 0); /* old-phase entries ignored */
		CHECK_EQ(count_writes(e.f, from, RNIC_REG_DB_CQ), 2);
		CHECK_EQ(e.f->log[e.f->nlog - 1].val, e.cq->handle << 16 | (pi & 0xffff));
	}

	/* an error completion: status, syndrome, QP to ERR, posting refused */
	post_n(&e, 1, 3000, 0);
	nic_write_cqe(e.f, e.cq, pi++, qpn, 33, RNIC_WC_REM_ACCESS_ERR, 0x62);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 3000);
	CHECK_EQ(wc[0].status, RNIC_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, 0x62);
	CHECK_EQ(e.qp->state, RNIC_QPS_ERR);
	{
		struct rnic_sg_entry sge = {0x1000, 64, 0x100};
		struct rnic_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;

		CHECK_EQ(rnic_post_send(e.qp, &wr, &bad), EINVAL);
	}

	/* a CQE naming an unknown QP: -EIO, consumed, the next one is fine */
	nic_write_cqe(e.f, e.cq, pi++, 9, 0, RNIC_WC_SUCCESS, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 0);
	/* a CQE naming a WQE that is not outstanding: -EIO */
	nic_write_cqe(e.f, e.cq, pi++, qpn, 40, RNIC_WC_SUCCESS, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);
	CHECK_EQ(rnic_poll_cq(e.cq, -1, wc), -EINVAL);
	CHECK_EQ(rnic_poll_cq(e.cq, 1, NULL), -EINVAL);
	CHECK_EQ(rnic_poll_cq(NULL, 1, wc), -EINVAL);
	env_down(&e);
}

/* Good completions before a bad CQE are returned first; the bad one next. */
static void test_poll_cq_partial(void)
{
	struct env e;
	struct rnic_wc wc[4];

	env_up(&e, 8, 8);
	post_n(&e, 2, 50, RNIC_SEND_SIGNALED);
	nic_write_cqe(e.f, e.cq, 0, e.qp->qp_num, 0, RNIC_WC_SUCCESS, 0);
	nic_write_cqe(e.f, e.cq, 1, 7, 0, RNIC_WC_SUCCESS, 0);
	nic_write_cqe(e.f, e.cq, 2, e.qp->qp_num, 1, RNIC_WC_SUCCESS, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 50);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), -EIO);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 51);
	env_down(&e);
}

/* A receive CQE as the device writes it: body, then the owner byte. */
static void nic_write_recv_cqe(struct fake_nic *f, struct rnic_cq *cq, uint32_t pi, uint32_t qpn,
			       uint16_t counter, uint8_t opcode, uint8_t status, uint32_t byte_len,
			       const uint8_t imm[4], uint8_t flags)
{
	uint32_t log = (uint32_t)RNIC_CTX_GET(f->cqc[cq->handle], CQC, LOG_SIZE);
	struct rnic_cqe *e = &cq_ring(f, cq)[pi & ((1u << log) - 1)];

	memset(e, 0, sizeof(*e) - 1);
	e->qpn = qpn;
	e->wqe_counter = counter;
	e->opcode = opcode;
	e->status = status;
	e->byte_len = byte_len;
	if (imm)
		memcpy(&e->imm_data, imm, 4);
	e->src_qp = 0x123;
	e->wc_flags = flags;
	e->owner = (uint8_t)(((pi >> log) & 1) ^ 1);
}

static void post_recv_n(struct rnic_qp *qp, int n, uint64_t first_id)
{
	struct rnic_sg_entry sge = {0x1000, 64, 0x100};
	struct rnic_recv_wr wr = {0}, *bad = NULL;

	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (int i = 0; i < n; i++) {
		wr.wr_id = first_id + (uint64_t)i;
		CHECK_EQ(rnic_post_recv(qp, &wr, &bad), 0);
	}
}

/* Receive completions: routed to the RQ by the RNIC_WC_RECV opcode bit,
 * every field copied, one RQ entry consumed each, in order. */
static void test_poll_cq_recv(void)
{
	static const uint8_t imm[4] = {0x11, 0x22, 0x33, 0x44};
	struct env e;
	struct rnic_qp *qp, *split;
	struct rnic_cq *rcq;
	struct rnic_qp_init_attr ia = {0};
	struct rnic_wc wc[8];
	uint32_t pi = 0, rpi = 0, qpn;
	uint32_t be_imm;

	memcpy(&be_imm, imm, 4);
	env_up(&e, 16, 8);
	qp = make_qp_rq(&e, 8, 1);
	CHECK(qp != NULL);
	if (!qp)
		return;
	CHECK_EQ(qp_to_rts(qp), 0);
	qpn = qp->qp_num;

	/* SEND, SEND with immediate, WRITE with immediate */
	post_recv_n(qp, 3, 300);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 0, RNIC_WC_RECV, RNIC_WC_SUCCESS, 77, NULL, 0);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 1, RNIC_WC_RECV, RNIC_WC_SUCCESS, 0, imm,
			   RNIC_WC_FLAG_WITH_IMM);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 2, RNIC_WC_RECV_RDMA_WITH_IMM, RNIC_WC_SUCCESS,
			   4096, imm, RNIC_WC_FLAG_WITH_IMM);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 3);
	CHECK_EQ(wc[0].wr_id, 300);
	CHECK_EQ(wc[0].opcode, RNIC_WC_RECV);
	CHECK_EQ(wc[0].status, RNIC_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 77);
	CHECK_EQ(wc[0].qp_num, qpn);
	CHECK_EQ(wc[0].src_qp, 0x123);
	CHECK_EQ(wc[0].wc_flags, 0);
	CHECK_EQ(wc[0].imm_data, 0);
	CHECK_EQ(wc[1].wr_id, 301);
	CHECK_EQ(wc[1].opcode, RNIC_WC_RECV);
	CHECK_EQ(wc[1].byte_len, 0);
	CHECK_EQ(wc[1].wc_flags, RNIC_WC_WITH_IMM);
	CHECK_EQ(wc[1].imm_data, be_imm); /* network order, unchanged */
	CHECK(memcmp(&wc[1].imm_data, imm, 4) == 0);
	CHECK_EQ(wc[2].wr_id, 302);
	CHECK_EQ(wc[2].opcode, RNIC_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(wc[2].byte_len, 4096);
	CHECK_EQ(wc[2].wc_flags, RNIC_WC_WITH_IMM);
	CHECK_EQ(wc[2].imm_data, be_imm);

	/* send and receive completions of one QP mixed on one CQ */
	{
		struct rnic_sg_entry sge = {0x1000, 64, 0x100};
		struct rnic_send_wr swr = {.wr_id = 900, .sg_list = &sge, .num_sge = 1,
					   .opcode = RNIC_WR_SEND, .send_flags = RNIC_SEND_SIGNALED};
		struct rnic_send_wr *sbad;

		CHECK_EQ(rnic_post_send(qp, &swr, &sbad), 0);
		post_recv_n(qp, 2, 303);
		nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 3, RNIC_WC_RECV, RNIC_WC_SUCCESS, 5, NULL, 0);
		nic_write_recv_cqe(e.f, e.cq, pi, qpn, 0, RNIC_WC_SEND, RNIC_WC_SUCCESS, 64, NULL, 0);
		pi++;
		nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 4, RNIC_WC_RECV, RNIC_WC_SUCCESS, 6, NULL, 0);
		CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 3);
		CHECK_EQ(wc[0].wr_id, 303);
		CHECK_EQ(wc[1].wr_id, 900);
		CHECK_EQ(wc[1].opcode, RNIC_WC_SEND);
		CHECK_EQ(wc[2].wr_id, 304);
		CHECK_EQ(wc[2].byte_len, 6);
	}

	/* a receive CQE that names another RQ entry than the oldest: -EIO,
	 * consumed; the right one is then taken */
	post_recv_n(qp, 1, 305);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 6, RNIC_WC_RECV, RNIC_WC_SUCCESS, 1, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);
	/* nothing outstanding is a receive CQE too many */
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 5, RNIC_WC_RECV, RNIC_WC_SUCCESS, 1, NULL, 0);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, 6, RNIC_WC_RECV, RNIC_WC_SUCCESS, 1, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 305);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);
	/* a receive CQE of a QP without an RQ */
	nic_write_recv_cqe(e.f, e.cq, pi++, e.qp->qp_num, 0, RNIC_WC_RECV, RNIC_WC_SUCCESS, 1,
			   NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);

	/* the RQ slots come back: many passes over the 8-entry ring and over
	 * the 16-bit wqe_counter */
	{
		int ok = 1;

		for (uint32_t i = 6; i < 70000 + 6; i++) {
			struct rnic_sg_entry sge = {0x1000, 64, 0x100};
			struct rnic_recv_wr wr = {.wr_id = 1000000 + i, .sg_list = &sge, .num_sge = 1};
			struct rnic_recv_wr *bad;

			ok &= rnic_post_recv(qp, &wr, &bad) == 0;
			nic_write_recv_cqe(e.f, e.cq, pi++, qpn, (uint16_t)i, RNIC_WC_RECV,
					   RNIC_WC_SUCCESS, i, NULL, 0);
			ok &= rnic_poll_cq(e.cq, 8, wc) == 1 && wc[0].wr_id == 1000000 + i &&
			      wc[0].byte_len == i;
		}
		CHECK(ok);
	}

	/* an error: LOC_LEN_ERR moves the QP to ERR, the rest flush as WC_RECV */
	post_recv_n(qp, 3, 400);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, (uint16_t)70006, RNIC_WC_RECV, RNIC_WC_LOC_LEN_ERR, 0,
			   NULL, 0);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, (uint16_t)70007, RNIC_WC_RECV, RNIC_WC_WR_FLUSH_ERR,
			   0, NULL, 0);
	nic_write_recv_cqe(e.f, e.cq, pi++, qpn, (uint16_t)70008, RNIC_WC_RECV, RNIC_WC_WR_FLUSH_ERR,
			   0, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), 3);
	CHECK_EQ(wc[0].wr_id, 400);
	CHECK_EQ(wc[0].status, RNIC_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[1].wr_id, 401);
	CHECK_EQ(wc[1].status, RNIC_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].opcode, RNIC_WC_RECV);
	CHECK_EQ(wc[2].wr_id, 402);
	CHECK_EQ(qp->state, RNIC_QPS_ERR);
	CHECK_EQ(rnic_destroy_qp(qp), 0);

	/* separate send and receive CQs: each CQE must come on the right one */
	rcq = rnic_create_cq(e.ctx, 4);
	ia.send_cq = e.cq;
	ia.recv_cq = rcq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_recv_sge = 1;
	split = rnic_create_qp(e.pd, &ia);
	CHECK(rcq && split);
	if (rcq && split) {
		CHECK_EQ(qp_to_rts(split), 0);
		CHECK_EQ(RNIC_CTX_GET(e.f->qpc[split->qp_num], QPC, RECV_CQN), rcq->handle);
		post_recv_n(split, 2, 500);
		/* on the send CQ: not this CQ's receive */
		nic_write_recv_cqe(e.f, e.cq, pi++, split->qp_num, 0, RNIC_WC_RECV, RNIC_WC_SUCCESS,
				   1, NULL, 0);
		CHECK_EQ(rnic_poll_cq(e.cq, 8, wc), -EIO);
		nic_write_recv_cqe(e.f, rcq, rpi++, split->qp_num, 0, RNIC_WC_RECV, RNIC_WC_SUCCESS,
				   1, NULL, 0);
		CHECK_EQ(rnic_poll_cq(rcq, 8, wc), 1);
		CHECK_EQ(wc[0].wr_id, 500);
		/* a send CQE on the receive CQ */
		nic_write_recv_cqe(e.f, rcq, rpi++, split->qp_num, 0, RNIC_WC_SEND, RNIC_WC_SUCCESS,
				   1, NULL, 0);
		CHECK_EQ(rnic_poll_cq(rcq, 8, wc), -EIO);
		CHECK_EQ(rnic_destroy_cq(rcq), EBUSY);
		CHECK_EQ(rnic_destroy_qp(split), 0);
	}
	if (rcq)
		CHECK_EQ(rnic_destroy_cq(rcq), 0);
	env_down(&e);
}

/* sq_sig_all: every WQE signaled whatever its flags. */
/* ------------------------------------------------------------ SRQ */

/* Shared receive queues: create (ring in the SRQC), a QP on it (SRQN in the
 * QPC, no RQ, post_recv refused), post_srq_recv (WQEs, one DB_SRQ), slots
 * freed only in order though completed out of order, modify/query, the
 * limit event, destroy refused while in use. */
static void test_srq(void)
{
	struct env e;
	struct rnic_device_attr a;
	struct rnic_srq_init_attr si = {0};
	struct rnic_srq *srq;
	struct rnic_srq_attr sa;
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp *qp;
	struct rnic_recv_wr wr[6], *bad = NULL;
	struct rnic_sg_entry sge[6];
	struct rnic_recv_wqe *ring;
	struct rnic_async_event ev;
	struct rnic_wc wc[4];
	unsigned int from;
	uint32_t pi = 0, srqn;

	env_up(&e, 16, 8);
	CHECK_EQ(rnic_query_device(e.ctx, &a), 0);
	CHECK_EQ(a.max_srq, 7); /* 8 contexts, SRQN 0 reserved */
	CHECK_EQ(a.max_srq_wr, 1 << RNIC_CMD_MAX_LOG_SRQ_WR);
	CHECK_EQ(a.max_srq_sge, RNIC_MAX_RECV_SGE);
	si.attr.max_wr = 3;
	si.attr.max_sge = RNIC_MAX_RECV_SGE + 1;
	CHECK(rnic_create_srq(e.pd, &si) == NULL && errno == EINVAL);
	si.attr.max_sge = 2;
	si.attr.srq_limit = 4; /* not below the 4 entries */
	CHECK(rnic_create_srq(e.pd, &si) == NULL && errno == EINVAL);
	si.attr.srq_limit = 0;
	srq = rnic_create_srq(e.pd, &si);
	CHECK(srq != NULL);
	if (!srq)
		return;
	CHECK_EQ(si.attr.max_wr, 4);
	CHECK_EQ(RNIC_CTX_GET(e.f->srqc[srq->handle], SRQC, VALID), 1);
	CHECK_EQ(RNIC_CTX_GET(e.f->srqc[srq->handle], SRQC, LOG_SIZE), 2);
	CHECK_EQ(RNIC_CTX_GET(e.f->srqc[srq->handle], SRQC, PD), e.pd->handle);
	ring = fake_va(RNIC_CTX_GET(e.f->srqc[srq->handle], SRQC, BASE));

	/* a QP on it: no RQ of its own */
	ia.send_cq = e.cq;
	ia.recv_cq = e.cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.srq = srq;
	ia.cap.max_recv_wr = 1;
	CHECK(rnic_create_qp(e.pd, &ia) == NULL && errno == EINVAL);
	ia.cap.max_recv_wr = 0;
	qp = rnic_create_qp(e.pd, &ia);
	CHECK(qp != NULL);
	if (!qp)
		return;
	CHECK_EQ(qp_to_rts(qp), 0);
	CHECK_EQ(RNIC_CTX_GET(e.f->qpc[qp->qp_num], QPC, SRQN), srq->handle);
	CHECK_EQ(RNIC_CTX_GET(e.f->qpc[qp->qp_num], QPC, RQ_BASE), 0);
	for (int i = 0; i < 6; i++) {
		sge[i] = (struct rnic_sg_entry){0x1000 + 0x100 * (uint64_t)i, 64, 0x100 + (uint32_t)i};
		wr[i] = (struct rnic_recv_wr){500 + (uint64_t)i, i < 5 ? &wr[i + 1] : NULL, &sge[i], 1};
	}
	CHECK_EQ(rnic_post_recv(qp, wr, &bad), EINVAL);

	/* four fit: one doorbell, the fifth is refused */
	from = e.f->nlog;
	CHECK_EQ(rnic_post_srq_recv(srq, wr, &bad), ENOMEM);
	CHECK(bad == &wr[4]);
	CHECK_EQ(count_writes(e.f, from, RNIC_REG_DB_SRQ), 1);
	CHECK_EQ(e.f->log[e.f->nlog - 1].off, RNIC_REG_DB_SRQ);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, srq->handle << 16 | 4);
	CHECK_EQ(ring[3].sge[0].addr, 0x1300);
	CHECK_EQ(ring[3].sge[0].lkey, 0x103);
	CHECK_EQ(ring[3].sge[1].lkey, RNIC_INVALID_LKEY);

	/* slot 2 completes first: its wr_id; nothing freed (slot 0 is busy) */
	nic_write_recv_cqe(e.f, e.cq, pi++, qp->qp_num, 2, RNIC_WC_RECV, RNIC_WC_SUCCESS, 10, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 502);
	CHECK_EQ(wc[0].qp_num, qp->qp_num);
	CHECK_EQ(rnic_post_srq_recv(srq, &wr[4], &bad), ENOMEM);
	/* slot 0: slot 0 free, slot 1 still busy */
	nic_write_recv_cqe(e.f, e.cq, pi++, qp->qp_num, 0, RNIC_WC_RECV, RNIC_WC_SUCCESS, 10, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 500);
	wr[4].next = NULL;
	CHECK_EQ(rnic_post_srq_recv(srq, &wr[4], &bad), 0);
	CHECK_EQ(e.f->log[e.f->nlog - 1].val, srq->handle << 16 | 5);
	CHECK_EQ(rnic_post_srq_recv(srq, &wr[5], &bad), ENOMEM);
	/* slot 2 again: not outstanding */
	nic_write_recv_cqe(e.f, e.cq, pi++, qp->qp_num, 2, RNIC_WC_RECV, RNIC_WC_SUCCESS, 10, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), -EIO);
	/* slot 1: slots 1 and 2 free */
	nic_write_recv_cqe(e.f, e.cq, pi++, qp->qp_num, 1, RNIC_WC_RECV, RNIC_WC_SUCCESS, 10, NULL, 0);
	CHECK_EQ(rnic_poll_cq(e.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 501);
	CHECK_EQ(rnic_post_srq_recv(srq, &wr[5], &bad), 0);

	/* the limit: armed, queried, the event, resizing refused */
	sa.srq_limit = 2;
	CHECK_EQ(rnic_modify_srq(srq, &sa, RNIC_SRQ_LIMIT), 0);
	CHECK_EQ(RNIC_CTX_GET(e.f->srqc[srq->handle], SRQC, LIMIT), 2);
	CHECK_EQ(rnic_modify_srq(srq, &sa, RNIC_SRQ_LIMIT | RNIC_SRQ_MAX_WR), EINVAL);
	memset(&sa, 0, sizeof(sa));
	CHECK_EQ(rnic_query_srq(srq, &sa), 0);
	CHECK_EQ(sa.max_wr, 4);
	CHECK_EQ(sa.max_sge, 2);
	CHECK_EQ(sa.srq_limit, 2);
	fake_event(e.f, RNIC_EVT_POP_VALID | RNIC_EVT_SRQ_LIMIT << RNIC_EVT_POP_TYPE_SHIFT | srq->handle);
	fake_event(e.f, RNIC_EVT_POP_VALID | RNIC_EVT_QP_LAST_WQE << RNIC_EVT_POP_TYPE_SHIFT | qp->qp_num);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, RNIC_EVENT_SRQ_LIMIT_REACHED);
	CHECK(ev.element.srq == srq);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, RNIC_EVENT_QP_LAST_WQE_REACHED);
	CHECK(ev.element.qp == qp);
	CHECK_EQ(rnic_get_async_event(e.ctx, &ev), EAGAIN);
	CHECK_EQ(rnic_query_srq(srq, &sa), 0);
	CHECK_EQ(sa.srq_limit, 0);
	CHECK(strcmp(rnic_event_type_str(RNIC_EVENT_SRQ_LIMIT_REACHED), "SRQ limit reached") == 0);

	/* destroy: refused while the QP uses it; it holds the PD too */
	srqn = srq->handle;
	CHECK_EQ(rnic_destroy_srq(srq), EBUSY);
	CHECK_EQ(rnic_dealloc_pd(e.pd), EBUSY);
	CHECK_EQ(rnic_destroy_qp(qp), 0);
	CHECK_EQ(rnic_destroy_srq(srq), 0);
	CHECK_EQ(RNIC_CTX_GET(e.f->srqc[srqn], SRQC, VALID), 0);
	CHECK_EQ(rnic_destroy_srq(NULL), EINVAL);
	env_down(&e);
}

static void test_sq_sig_all(void)
{
	struct env e;
	struct rnic_qp *qp;
	struct rnic_sg_entry sge = {0x1000, 64, 0x100};
	struct rnic_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;

	env_up(&e, 8, 8);
	qp = make_qp(&e, 4, 1, 1);
	CHECK_EQ(qp_to_rts(qp), 0);
	CHECK_EQ(rnic_post_send(qp, &wr, &bad), 0);
	CHECK_EQ(sq_ring(e.f, qp)[0].flags, RNIC_WQE_FLAG_SIGNALED);
	CHECK_EQ(rnic_destroy_qp(qp), 0);
	env_down(&e);
}

/* Address handles: the AH record the firmware writes for what the library
 * sends (the next-hop MAC as given for a unicast GID, derived for a
 * multicast one: 01:00:5e + 23 bits, 33:33 + 32 bits), the PD held, the
 * record zeroed at DESTROY_AH; argument checks; query_device's max_ah and
 * max_ud_payload from PORT_UD_MTU (rnic_set_port_mtu). */
static void test_address_handles(void)
{
	static const struct {
		uint8_t gid[16];
		uint8_t mac[6];
	} c[] = {
		{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2}, {0x02, 0, 0, 0, 0, 2}},
		{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 0x81, 2, 3}, {0x01, 0x00, 0x5e, 0x01, 2, 3}},
		{{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0x00, 0xab, 0xcd}, {0x33, 0x33, 0xff, 0x00, 0xab, 0xcd}},
		{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, {0x02, 0, 0, 0, 0, 2}},
	};
	struct fake_nic *f = fake_new();
	struct rnic_context *ctx = open_fake(f);
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	struct rnic_ah *ah[4];
	struct rnic_ah_attr a;
	struct rnic_device_attr da;

	CHECK(pd != NULL);
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t mac = 0;
		uint32_t *w;

		memset(&a, 0, sizeof(a));
		a.is_global = 1;
		a.grh.sgid_index = (uint8_t)(i % RNIC_GID_TABLE_SIZE);
		a.grh.hop_limit = (uint8_t)(i ? 9 : 0);
		a.grh.traffic_class = 0x20;
		a.grh.flow_label = 0x12345 * i & 0xfffff;
		memcpy(a.grh.dgid.raw, c[i].gid, 16);
		memcpy(a.dmac, peer_mac, 6);
		ah[i] = rnic_create_ah(pd, &a);
		CHECK(ah[i] != NULL);
		if (!ah[i] || ah[i]->handle >= FAKE_ENTRIES)
			continue;
		w = f->ah[ah[i]->handle];
		for (int k = 0; k < 6; k++)
			mac = mac << 8 | c[i].mac[k];
		CHECK_EQ(RNIC_CTX_GET(w, AH, VALID), 1u);
		CHECK_EQ(RNIC_CTX_GET(w, AH, DST_MAC), mac);
		CHECK_EQ(RNIC_CTX_GET(w, AH, IPV6), (uint64_t)(i >= 2));
		CHECK_EQ(RNIC_CTX_GET(w, AH, PD), pd->handle);
		CHECK_EQ(RNIC_CTX_GET(w, AH, SGID_INDEX), a.grh.sgid_index);
		CHECK_EQ(RNIC_CTX_GET(w, AH, HOP_LIMIT), i ? 9u : (uint64_t)RNIC_IPV4_DEFAULT_TTL);
		CHECK_EQ(RNIC_CTX_GET(w, AH, TRAFFIC_CLASS), 0x20u);
		CHECK_EQ(RNIC_CTX_GET(w, AH, FLOW_LABEL), a.grh.flow_label);
		/* the GID as a 128-bit number: its first byte on top */
		CHECK_EQ(rnic_ctx_get(w, RNIC_AH_DGID_LSB + 96, 32),
			 (uint64_t)c[i].gid[0] << 24 | c[i].gid[1] << 16 | c[i].gid[2] << 8 | c[i].gid[3]);
		CHECK_EQ(rnic_ctx_get(w, RNIC_AH_DGID_LSB, 32),
			 (uint64_t)c[i].gid[12] << 24 | c[i].gid[13] << 16 | c[i].gid[14] << 8 | c[i].gid[15]);
	}
	/* the PD is busy while they exist */
	CHECK_EQ(rnic_dealloc_pd(pd), EBUSY);
	memset(&a, 0, sizeof(a));
	CHECK(rnic_create_ah(pd, &a) == NULL && errno == EINVAL); /* is_global 0 */
	a.is_global = 1;
	a.grh.sgid_index = RNIC_GID_TABLE_SIZE;
	CHECK(rnic_create_ah(pd, &a) == NULL && errno == EINVAL);
	a.grh.sgid_index = 0;
	a.grh.flow_label = 1u << 20;
	CHECK(rnic_create_ah(pd, &a) == NULL && errno == EINVAL);
	CHECK(rnic_create_ah(NULL, &a) == NULL);
	CHECK_EQ(rnic_destroy_ah(NULL), EINVAL);
	for (unsigned int i = 0; i < 4; i++) {
		uint32_t h = ah[i] ? ah[i]->handle : 0;

		if (!ah[i])
			continue;
		CHECK_EQ(rnic_destroy_ah(ah[i]), 0);
		if (h < FAKE_ENTRIES)
			CHECK_EQ(RNIC_CTX_GET(f->ah[h], AH, VALID), 0u);
	}
	CHECK_EQ(rnic_query_device(ctx, &da), 0);
	CHECK_EQ(da.max_ah, 7);
	CHECK_EQ(da.max_ud_payload, 4096u);
	CHECK_EQ(rnic_set_port_mtu(ctx, RNIC_IB_MTU_1024), 0);
	CHECK_EQ(f->regs[RNIC_REG_PORT_UD_MTU / 4], (uint32_t)RNIC_IB_MTU_1024);
	CHECK_EQ(rnic_query_device(ctx, &da), 0);
	CHECK_EQ(da.max_ud_payload, 1024u);
	CHECK_EQ(rnic_set_port_mtu(ctx, RNIC_IB_MTU_4096 + 1), EINVAL);
	CHECK_EQ(rnic_dealloc_pd(pd), 0);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

static void test_strings(void)
{
	CHECK(strcmp(rnic_wc_status_str(RNIC_WC_SUCCESS), "success") == 0);
	CHECK(strcmp(rnic_wc_status_str(RNIC_WC_REM_ACCESS_ERR), "remote access error") == 0);
	CHECK(strcmp(rnic_wc_status_str(RNIC_WC_LOC_PROT_ERR), "local protection error") == 0);
	CHECK(strcmp(rnic_wc_status_str(RNIC_WC_RETRY_EXC_ERR),
		     "transport retry counter exceeded") == 0);
	CHECK(strcmp(rnic_wc_status_str(1000), "unknown") == 0);
}

/* The generated record accessors (word by word) against a bit-by-bit
 * reference, at every alignment and width up to 64, on random records;
 * rnic_ctx_or on the same record with the field's bits cleared first. */
static void test_ctx_accessors(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int n = 0; n < 20000; n++) {
		uint32_t a[8], b[8], c[8];
		unsigned lsb, width;
		uint64_t v, ref = 0;

		for (int i = 0; i < 8; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a[i] = b[i] = (uint32_t)x;
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = x;
		width = 1 + (unsigned)(x >> 8) % 64;
		lsb = (unsigned)(x >> 20) % (256 - width);
		memcpy(c, a, sizeof(c));
		for (unsigned i = 0; i < width; i++)
			c[(lsb + i) / 32] &= ~(1u << ((lsb + i) % 32));
		rnic_ctx_or(c, lsb, width, v);
		rnic_ctx_set(a, lsb, width, v);
		for (unsigned i = 0; i < width; i++) {
			unsigned bit = lsb + i;
			uint32_t m = 1u << (bit % 32);

			b[bit / 32] = ((v >> i) & 1) ? (b[bit / 32] | m) : (b[bit / 32] & ~m);
			ref |= (uint64_t)((b[bit / 32] >> (bit % 32)) & 1) << i;
		}
		if (memcmp(a, b, sizeof(a)) || memcmp(c, b, sizeof(c)) || rnic_ctx_get(a, lsb, width) != ref) {
			CHECK(0 && "rnic_ctx_set/or/get differ from the bit-by-bit reference");
			printf("  lsb %u width %u\n", lsb, width);
			return;
		}
	}
	CHECK(1);
}

int main(void)
{
	test_ctx_accessors();
	test_open_query();
	test_port_addr();
	test_firmware_mailbox();
	test_async_events();
	test_block_chain_relocated();
	test_block_chain_errors();
	test_reg_mr_traffic();
	test_reg_mr_mtt();
	test_reg_mr_bad_args();
	test_memory_windows();
	test_bind_mw_args();
	test_create_cq();
	test_modify_qp_qpc();
	test_modify_qp_errors();
	test_create_qp_errors();
	test_post_send_wqe();
	test_post_send_window();
	test_post_send_errors();
	test_post_recv_wqe();
	test_post_recv_errors();
	test_poll_cq();
	test_poll_cq_recv();
	test_poll_cq_partial();
	test_srq();
	test_sq_sig_all();
	test_address_handles();
	test_strings();
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
