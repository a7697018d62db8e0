/* Fuzzer of the firmware's command interface (docs/memcheck.md).
 *
 * Random commands with random and structured arguments (handles of live
 * objects mostly, sometimes stale, foreign, zero or out of range; values in
 * and out of range; sensible and random MODIFY_QP masks) go to the
 * firmware, and every answer is checked against a shadow model of what the
 * firmware accepted, kept by this program from docs/firmware.md alone:
 *
 *   - the status is a CMD_ST_* value; QUERY_DEVICE never fails;
 *   - a success is possible: ALLOC_PD, CREATE_CQ, CREATE_QP and REG_MR hand
 *     out handles no live object has (and in range); CREATE_QP and REG_MR
 *     name live objects; REMOTE_WRITE / REMOTE_ATOMIC come with LOCAL_WRITE;
 *     DEALLOC_PD and DESTROY_CQ never free an object in use; MTT runs of
 *     live MRs never overlap; WRITE_MTT's written/valid follow the chunks;
 *   - QUERY_QP of a live QP succeeds with its PD and returns exactly the
 *     state, attributes and creation parameters the accepted commands set
 *     (RESET clears the attributes), and refused commands changed nothing.
 *
 * Two builds of this file:
 *   fuzz-cmd-native (FZ_NATIVE): firmware/core against the mock register
 *     file, ASan/UBSan; also checks that a refused command left the
 *     firmware's tables byte for byte as they were and touched no register;
 *     small tables (exhaustion is reached) and full ones;
 *   rnic-fuzz-cmd (FZ_SIM): the firmware image on the simulated control
 *     processor, through the BAR mailbox; also checks that it never halts
 *     and that the memory-protection checker reports nothing.
 *
 *   fuzz-cmd-native [--seed N] [--cmds N] [--small]
 *   rnic-fuzz-cmd [--width 64|512] [--seed N] [--cmds N]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic/rnic_hw.h"

#ifdef FZ_NATIVE
#include "core/fw.h"
#include "hal/mock_mmio.h"
#else
#include "fz_common.h"
#endif

#define MAXO 64 /* shadow objects of each kind */
#define OUTW RNIC_REG_CMD_OUT_COUNT
#define INW RNIC_REG_CMD_IN_COUNT

struct s_qp {
	int live;
	uint32_t qpn, pd, scq, rcq;
	uint64_t sq_log, rq_log, sq_base, rq_base;
	uint32_t state;
	/* attributes as accepted, by QUERY_QP field */
	uint64_t mtu, access, sgid, timeout, retry, rnr, min_rnr, rd_atomic, dest_rd_atomic;
	uint64_t hop, tclass, dest_qpn, rq_psn, sq_psn, flow, dmac;
	uint32_t dgid[4];
};

struct s_mr {
	int live, valid;
	uint32_t key, pd, access, mtt_base, npages, written;
	uint64_t va, len;
};

/* A memory window: ALLOC_MW .. DEALLOC_MW (never bound here: binds come
 * from the data path). */
struct s_mw {
	int live;
	uint32_t key, pd, type;
};

static struct {
	uint32_t pd[MAXO], cq[MAXO];
	struct s_mw mw[MAXO];
	int npd, ncq;
	struct s_qp qp[MAXO];
	struct s_mr mr[MAXO];
	uint32_t max_qp, max_cq, max_mr, max_pd, max_mtt;
	uint64_t rng;
	uint64_t cmds, ok, st_count[16], bugs;
	uint64_t queries;
} S;

#ifdef FZ_NATIVE
static struct fw fw, fw_before;
#else
static struct fz_nic F;
#endif

static uint64_t rnd(void)
{
	uint64_t z = (S.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void bug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bug(const char *fmt, ...)
{
	va_list ap;

	S.bugs++;
	if (S.bugs > 20)
		return;
	printf("FAIL after %llu commands: ", (unsigned long long)S.cmds);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ------------------------------------------------------------- backend */

/* One command; the status, out[] on success. */
static int run_cmd(uint32_t op, const uint32_t *in, uint32_t *out)
{
	int st;

	memset(out, 0, OUTW * sizeof(*out));
#ifdef FZ_NATIVE
	memcpy(&fw_before, &fw, sizeof(fw));
	mock_mmio_reset();
	mock_mmio_record(1);
	st = fw_cmd_run(&fw, op, in, out);
	mock_mmio_record(0);
	if (st != RNIC_CMD_ST_OK) {
		if (memcmp(&fw, &fw_before, sizeof(fw)))
			bug("opcode 0x%x refused with status %d but changed the firmware's tables", op, st);
		for (size_t i = 0; i < mock_mmio_count(); i++)
			if (mock_mmio_access(i)->write) {
				bug("opcode 0x%x refused with status %d but wrote register 0x%x", op, st,
				    mock_mmio_access(i)->off);
				break;
			}
		for (unsigned int i = 0; i < OUTW; i++)
			if (out[i]) {
				bug("opcode 0x%x refused with status %d but gave output words", op, st);
				break;
			}
	}
#else
	st = fz_cmd(&F, op, in, INW, out, OUTW);
	if (st < 0) {
		bug("opcode 0x%x: no answer, another token or the firmware halted (CMD_STATUS 0x%08x)",
		    op, F.last_status);
		return -1;
	}
#endif
	S.cmds++;
	if (st >= 0 && st < 16)
		S.st_count[st]++;
	if (st < RNIC_CMD_ST_OK || st > RNIC_CMD_ST_INTERNAL)
		bug("opcode 0x%x: status %d is no CMD_ST_* value", op, st);
	if (st == RNIC_CMD_ST_INTERNAL)
		bug("opcode 0x%x: CMD_ST_INTERNAL (the data path accepts every context write here)", op);
	if (st == RNIC_CMD_ST_OK)
		S.ok++;
	return st;
}

/* ------------------------------------------------------------- handles */

static int has(const uint32_t *a, int n, uint32_t v)
{
	for (int i = 0; i < n; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

static void drop(uint32_t *a, int *n, uint32_t v)
{
	for (int i = 0; i < *n; i++)
		if (a[i] == v) {
			a[i] = a[--*n];
			return;
		}
}

/* A handle: a live one mostly, else 0, a small number, a big one, random. */
static uint32_t pick(const uint32_t *live, int n, uint32_t max)
{
	switch (rn(10)) {
	case 0: return 0;
	case 1: return rn(max + 3);
	case 2: return max + rn(4);
	case 3: return (uint32_t)rnd();
	default: return n ? live[rn((uint32_t)n)] : rn(max + 2);
	}
}

static struct s_qp *find_qp(uint32_t qpn)
{
	for (int i = 0; i < MAXO; i++)
		if (S.qp[i].live && S.qp[i].qpn == qpn)
			return &S.qp[i];
	return NULL;
}

static struct s_mr *find_mr(uint32_t key)
{
	for (int i = 0; i < MAXO; i++)
		if (S.mr[i].live && S.mr[i].key == key)
			return &S.mr[i];
	return NULL;
}

static int pd_users(uint32_t pd)
{
	int n = 0;

	for (int i = 0; i < MAXO; i++)
		n += (S.qp[i].live && S.qp[i].pd == pd) + (S.mr[i].live && S.mr[i].pd == pd) +
		     (S.mw[i].live && S.mw[i].pd == pd);
	return n;
}

/* The live window of an MPT index (any tag names it for DEALLOC_MW). */
static struct s_mw *find_mw(uint32_t key)
{
	for (int i = 0; i < MAXO; i++)
		if (S.mw[i].live && S.mw[i].key >> RNIC_MKEY_TAG_BITS == key >> RNIC_MKEY_TAG_BITS)
			return &S.mw[i];
	return NULL;
}

static int cq_users(uint32_t cq)
{
	int n = 0;

	for (int i = 0; i < MAXO; i++)
		n += S.qp[i].live && (S.qp[i].scq == cq || S.qp[i].rcq == cq);
	return n;
}

static uint32_t pick_qpn(uint32_t *pd)
{
	uint32_t live[MAXO];
	int n = 0;
	uint32_t qpn;
	struct s_qp *q;

	for (int i = 0; i < MAXO; i++)
		if (S.qp[i].live)
			live[n++] = S.qp[i].qpn;
	qpn = pick(live, n, S.max_qp + 2);
	q = find_qp(qpn);
	*pd = q && rn(8) ? q->pd : pick(S.pd, S.npd, S.max_pd);
	return qpn;
}

static uint32_t pick_key(uint32_t *pd)
{
	uint32_t live[MAXO];
	int n = 0;
	uint32_t key;
	struct s_mr *m;

	for (int i = 0; i < MAXO; i++)
		if (S.mr[i].live)
			live[n++] = S.mr[i].key;
	key = pick(live, n, S.max_mr << RNIC_MKEY_TAG_BITS);
	if (rn(10) == 0)
		key ^= 1u << rn(RNIC_MKEY_TAG_BITS); /* a stale tag */
	m = find_mr(key);
	*pd = m && rn(8) ? m->pd : pick(S.pd, S.npd, S.max_pd);
	return key;
}

/* ------------------------------------------------------------- QUERY_QP */

#define Q(f) RNIC_CTX_GET(out, CMD_QUERY_QP_OUT, f)

static void check_query(const struct s_qp *q, const uint32_t *out)
{
	uint64_t got[] = {Q(QP_STATE), Q(PATH_MTU), Q(QP_ACCESS_FLAGS), Q(SGID_INDEX), Q(TIMEOUT),
			  Q(RETRY_CNT), Q(RNR_RETRY), Q(MIN_RNR_TIMER), Q(MAX_RD_ATOMIC),
			  Q(MAX_DEST_RD_ATOMIC), Q(HOP_LIMIT), Q(TRAFFIC_CLASS), Q(DEST_QP_NUM),
			  Q(RQ_PSN), Q(SQ_PSN), Q(FLOW_LABEL), Q(DMAC), Q(SQ_LOG_SIZE), Q(RQ_LOG_SIZE),
			  Q(SEND_CQN), Q(RECV_CQN), Q(SQ_BASE), Q(RQ_BASE), Q(QP_TYPE), Q(PKEY_INDEX),
			  Q(PORT_NUM), Q(IS_GLOBAL)};
	uint64_t want[] = {q->state, q->mtu, q->access, q->sgid, q->timeout, q->retry, q->rnr,
			   q->min_rnr, q->rd_atomic, q->dest_rd_atomic, q->hop, q->tclass,
			   q->dest_qpn, q->rq_psn, q->sq_psn, q->flow, q->dmac, q->sq_log, q->rq_log,
			   q->scq, q->rcq, q->sq_base, q->rq_base, RNIC_QP_TYPE_RC, 0, 1, 1};
	static const char *const name[] = {
		"qp_state", "path_mtu", "qp_access_flags", "sgid_index", "timeout", "retry_cnt",
		"rnr_retry", "min_rnr_timer", "max_rd_atomic", "max_dest_rd_atomic", "hop_limit",
		"traffic_class", "dest_qp_num", "rq_psn", "sq_psn", "flow_label", "dmac",
		"sq_log_size", "rq_log_size", "send_cqn", "recv_cqn", "sq_base", "rq_base",
		"qp_type", "pkey_index", "port_num", "is_global"};

	S.queries++;
	for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++)
		if (got[i] != want[i])
			bug("QUERY_QP %u: %s is 0x%llx, the accepted commands set 0x%llx", q->qpn,
			    name[i], (unsigned long long)got[i], (unsigned long long)want[i]);
	for (unsigned int i = 0; i < 4; i++)
		if (rnic_ctx_get(out, RNIC_CMD_QUERY_QP_OUT_DGID_LSB + 32 * i, 32) != q->dgid[i])
			bug("QUERY_QP %u: dgid word %u differs", q->qpn, i);
}

static void query_all(void)
{
	uint32_t in[INW], out[OUTW];

	for (int i = 0; i < MAXO; i++) {
		struct s_qp *q = &S.qp[i];
		int st;

		if (!q->live)
			continue;
		memset(in, 0, sizeof(in));
		RNIC_CTX_SET(in, CMD_QUERY_QP_IN, QPN, q->qpn);
		RNIC_CTX_SET(in, CMD_QUERY_QP_IN, PD, q->pd);
		st = run_cmd(RNIC_CMD_OP_QUERY_QP, in, out);
		if (st != RNIC_CMD_ST_OK)
			bug("QUERY_QP of live QP %u with its PD: status %d", q->qpn, st);
		else
			check_query(q, out);
	}
}

/* ------------------------------------------------------------- one command */

static uint64_t aligned(uint64_t a)
{
	uint64_t v = rnd() & 0x0000fffffffff000ull;

	return rn(10) ? v : v | (rnd() & (a - 1)) | 1;
}

/* A mask for a plausible transition out of cur (with its required
 * attributes), or a random one. */
static uint32_t gen_mask(uint32_t cur, uint32_t *next)
{
	static const uint32_t rtr_req = RNIC_QP_ATTR_AV | RNIC_QP_ATTR_PATH_MTU |
					RNIC_QP_ATTR_DEST_QPN | RNIC_QP_ATTR_RQ_PSN |
					RNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | RNIC_QP_ATTR_MIN_RNR_TIMER;
	static const uint32_t rts_req = RNIC_QP_ATTR_SQ_PSN | RNIC_QP_ATTR_TIMEOUT |
					RNIC_QP_ATTR_RETRY_CNT | RNIC_QP_ATTR_RNR_RETRY |
					RNIC_QP_ATTR_MAX_QP_RD_ATOMIC;
	uint32_t m = RNIC_QP_ATTR_STATE;

	if (rn(5) == 0) {
		*next = rn(8);
		return (uint32_t)rnd() & ((RNIC_QP_ATTR_DEST_QPN << 2) - 1);
	}
	switch (cur) {
	case RNIC_QPS_RESET: *next = RNIC_QPS_INIT; m |= RNIC_QP_ATTR_PKEY_INDEX | RNIC_QP_ATTR_PORT | RNIC_QP_ATTR_ACCESS_FLAGS; break;
	case RNIC_QPS_INIT: *next = RNIC_QPS_RTR; m |= rtr_req; break;
	case RNIC_QPS_RTR: *next = RNIC_QPS_RTS; m |= rts_req; break;
	case RNIC_QPS_RTS: *next = rn(2) ? RNIC_QPS_SQD : RNIC_QPS_RTS; m |= rn(2) ? RNIC_QP_ATTR_MIN_RNR_TIMER : 0; break;
	default: *next = rn(2) ? RNIC_QPS_RESET : RNIC_QPS_ERR; break;
	}
	if (rn(4) == 0)
		*next = rn(2) ? RNIC_QPS_ERR : RNIC_QPS_RESET;
	if (rn(6) == 0)
		m ^= 1u << rn(21); /* one attribute too many or missing */
	return m;
}

static void one(void)
{
	static const uint32_t ops[] = {
		RNIC_CMD_OP_QUERY_DEVICE, RNIC_CMD_OP_ALLOC_PD, RNIC_CMD_OP_DEALLOC_PD,
		RNIC_CMD_OP_CREATE_CQ, RNIC_CMD_OP_DESTROY_CQ, RNIC_CMD_OP_CREATE_QP,
		RNIC_CMD_OP_MODIFY_QP, RNIC_CMD_OP_MODIFY_QP, RNIC_CMD_OP_MODIFY_QP,
		RNIC_CMD_OP_QUERY_QP, RNIC_CMD_OP_DESTROY_QP, RNIC_CMD_OP_REG_MR,
		RNIC_CMD_OP_WRITE_MTT, RNIC_CMD_OP_WRITE_MTT, RNIC_CMD_OP_DEREG_MR,
		RNIC_CMD_OP_QUERY_COUNTER, RNIC_CMD_OP_ALLOC_MW, RNIC_CMD_OP_DEALLOC_MW,
	};
	uint32_t in[INW], out[OUTW], op, pd;
	int st;

	memset(in, 0, sizeof(in));
	op = rn(40) == 0 ? (uint32_t)rnd() & 0xff : ops[rn(sizeof(ops) / sizeof(ops[0]))];
	if (rn(30) == 0)
		for (unsigned int i = 0; i < INW; i++)
			in[i] = (uint32_t)rnd();
	switch (op) {
	case RNIC_CMD_OP_DEALLOC_PD:
		pd = pick(S.pd, S.npd, S.max_pd);
		RNIC_CTX_SET(in, CMD_DEALLOC_PD_IN, PD, pd);
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK) {
			if (!has(S.pd, S.npd, pd))
				bug("DEALLOC_PD of %u, no live PD", pd);
			else if (pd_users(pd))
				bug("DEALLOC_PD of %u while %d QPs/MRs use it", pd, pd_users(pd));
			drop(S.pd, &S.npd, pd);
		} else if (has(S.pd, S.npd, pd) && !pd_users(pd)) {
			bug("DEALLOC_PD of unused live PD %u: status %d", pd, st);
		}
		return;
	case RNIC_CMD_OP_ALLOC_PD:
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK) {
			pd = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_PD_OUT, PD);
			if (pd == 0 || pd > S.max_pd || has(S.pd, S.npd, pd))
				bug("ALLOC_PD gave %u (max %u, live already: %d)", pd, S.max_pd,
				    has(S.pd, S.npd, pd));
			else if (S.npd < MAXO)
				S.pd[S.npd++] = pd;
			else {
				RNIC_CTX_SET(in, CMD_DEALLOC_PD_IN, PD, pd);
				(void)run_cmd(RNIC_CMD_OP_DEALLOC_PD, in, out);
			}
		} else if ((uint32_t)S.npd < S.max_pd) {
			bug("ALLOC_PD refused (%d) with %d of %u PDs live", st, S.npd, S.max_pd);
		}
		return;
	case RNIC_CMD_OP_CREATE_CQ: {
		uint64_t log = rn(12) ? rn(RNIC_CMD_MAX_LOG_CQE + 1) : rn(64);

		RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, LOG_SIZE, log);
		RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, BASE, aligned(RNIC_CQE_BYTES));
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK) {
			uint32_t cq = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_CQ_OUT, CQN);

			if (log > RNIC_CMD_MAX_LOG_CQE || RNIC_CTX_GET(in, CMD_CREATE_CQ_IN, BASE) % RNIC_CQE_BYTES)
				bug("CREATE_CQ accepted log_size %llu, base 0x%llx", (unsigned long long)log,
				    (unsigned long long)RNIC_CTX_GET(in, CMD_CREATE_CQ_IN, BASE));
			if (cq == 0 || has(S.cq, S.ncq, cq))
				bug("CREATE_CQ gave cqn %u (live already: %d)", cq, has(S.cq, S.ncq, cq));
			else if (S.ncq < MAXO)
				S.cq[S.ncq++] = cq;
			else {
				RNIC_CTX_SET(in, CMD_DESTROY_CQ_IN, CQN, cq);
				(void)run_cmd(RNIC_CMD_OP_DESTROY_CQ, in, out);
			}
		}
		return;
	}
	case RNIC_CMD_OP_DESTROY_CQ: {
		uint32_t cq = pick(S.cq, S.ncq, S.max_cq);

		RNIC_CTX_SET(in, CMD_DESTROY_CQ_IN, CQN, cq);
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK) {
			if (!has(S.cq, S.ncq, cq) || cq_users(cq))
				bug("DESTROY_CQ of %u accepted (live %d, used by %d QPs)", cq,
				    has(S.cq, S.ncq, cq), cq_users(cq));
			drop(S.cq, &S.ncq, cq);
		} else if (has(S.cq, S.ncq, cq) && !cq_users(cq)) {
			bug("DESTROY_CQ of unused live CQ %u: status %d", cq, st);
		}
		return;
	}
	case RNIC_CMD_OP_CREATE_QP: {
		struct s_qp q;

		memset(&q, 0, sizeof(q));
		q.pd = pick(S.pd, S.npd, S.max_pd);
		q.scq = pick(S.cq, S.ncq, S.max_cq);
		q.rcq = rn(3) ? q.scq : pick(S.cq, S.ncq, S.max_cq);
		q.sq_log = rn(10) ? rn(RNIC_CMD_MAX_LOG_WR + 1) : rn(256);
		q.rq_log = rn(10) ? rn(RNIC_CMD_MAX_LOG_WR + 1) : rn(256);
		q.sq_base = aligned(RNIC_WQE_BYTES);
		q.rq_base = rn(5) ? aligned(RNIC_RECV_WQE_BYTES) : 0;
		if (!q.rq_base && rn(2))
			q.rq_log = 0;
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, PD, q.pd);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SEND_CQN, q.scq);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RECV_CQN, q.rcq);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE, rn(20) ? RNIC_QP_TYPE_RC : rn(256));
		if (rn(20) == 0)
			RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE, rn(2) ? RNIC_QP_TYPE_UD : RNIC_QP_TYPE_GSI);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE, q.sq_log);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_LOG_SIZE, q.rq_log);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_BASE, q.sq_base);
		RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_BASE, q.rq_base);
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK) {
			int slot = -1;

			q.qpn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_QP_OUT, QPN);
			if (RNIC_CTX_GET(in, CMD_CREATE_QP_IN, QP_TYPE) != RNIC_QP_TYPE_RC) {
				/* UD and GSI QPs: the number (QP1 for GSI only, never
				 * an RC QP's) and the parameters, then gone again (the
				 * shadow follows RC transitions only) */
				int gsi = RNIC_CTX_GET(in, CMD_CREATE_QP_IN, QP_TYPE) == RNIC_QP_TYPE_GSI;

				if ((gsi ? q.qpn != RNIC_GSI_QPN : q.qpn < 2) || find_qp(q.qpn))
					bug("CREATE_QP (type %u) gave qpn %u", (unsigned)RNIC_CTX_GET(in, CMD_CREATE_QP_IN, QP_TYPE), q.qpn);
				if (!has(S.pd, S.npd, q.pd) || !has(S.cq, S.ncq, q.scq) || !has(S.cq, S.ncq, q.rcq) ||
				    q.sq_log > RNIC_CMD_MAX_LOG_WR || q.rq_log > RNIC_CMD_MAX_LOG_WR ||
				    q.sq_base % RNIC_WQE_BYTES || q.rq_base % RNIC_RECV_WQE_BYTES)
					bug("CREATE_QP (UD) accepted bad parameters");
				memset(in, 0, sizeof(in));
				RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, q.qpn);
				RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, q.pd);
				if (run_cmd(RNIC_CMD_OP_DESTROY_QP, in, out) != RNIC_CMD_ST_OK)
					bug("DESTROY_QP of the UD QP %u just made failed", q.qpn);
				return;
			}
			q.live = 1;
			q.state = RNIC_QPS_RESET;
			if (q.qpn < 2 || find_qp(q.qpn))
				bug("CREATE_QP gave qpn %u (live already: %d)", q.qpn, find_qp(q.qpn) != NULL);
			if (!has(S.pd, S.npd, q.pd) || !has(S.cq, S.ncq, q.scq) || !has(S.cq, S.ncq, q.rcq))
				bug("CREATE_QP accepted pd %u, CQs %u/%u not all live", q.pd, q.scq, q.rcq);
			if (q.sq_log > RNIC_CMD_MAX_LOG_WR || q.rq_log > RNIC_CMD_MAX_LOG_WR ||
			    RNIC_CTX_GET(in, CMD_CREATE_QP_IN, QP_TYPE) != RNIC_QP_TYPE_RC ||
			    q.sq_base % RNIC_WQE_BYTES || q.rq_base % RNIC_RECV_WQE_BYTES)
				bug("CREATE_QP accepted bad parameters");
			for (int i = 0; i < MAXO && slot < 0; i++)
				if (!S.qp[i].live)
					slot = i;
			if (slot >= 0) {
				S.qp[slot] = q;
			} else {
				RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, q.qpn);
				RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, q.pd);
				(void)run_cmd(RNIC_CMD_OP_DESTROY_QP, in, out);
			}
		}
		return;
	}
	case RNIC_CMD_OP_MODIFY_QP: {
		uint32_t qpn = pick_qpn(&pd), next = 0, mask;
		struct s_qp *q = find_qp(qpn);
		uint64_t dmac = rnd() & 0xffffffffffffull;

		mask = gen_mask(q ? q->state : rn(7), &next);
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, mask);
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, next);
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, CUR_QP_STATE, q && rn(4) ? q->state : rn(8));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PATH_MTU, rn(8) ? RNIC_IB_MTU_256 + rn(5) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_ACCESS_FLAGS, rn(8) ? rn(16) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PKEY_INDEX, rn(10) ? 0 : rn(4));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PORT_NUM, rn(10) ? 1 : rn(4));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SGID_INDEX, rn(8) ? rn(RNIC_GID_TABLE_SIZE) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, TIMEOUT, rn(8) ? rn(32) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RETRY_CNT, rn(8) ? rn(8) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RNR_RETRY, rn(8) ? rn(8) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MIN_RNR_TIMER, rn(8) ? rn(32) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_RD_ATOMIC, rn(8) ? rn(RNIC_MAX_RD_ATOMIC + 1) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_DEST_RD_ATOMIC, rn(8) ? rn(RNIC_MAX_RD_ATOMIC + 1) : rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, IS_GLOBAL, rn(10) ? 1 : rn(4));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, HOP_LIMIT, rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, TRAFFIC_CLASS, rn(256));
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DEST_QP_NUM, rn(8) ? rn(1u << RNIC_QPN_BITS) : (uint32_t)rnd());
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RQ_PSN, rn(8) ? rn(1u << RNIC_PSN_BITS) : (uint32_t)rnd());
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SQ_PSN, rn(8) ? rn(1u << RNIC_PSN_BITS) : (uint32_t)rnd());
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, FLOW_LABEL, rn(8) ? rn(1u << 20) : (uint32_t)rnd());
		RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DMAC, dmac);
		for (unsigned int i = 0; i < 4; i++)
			rnic_ctx_set(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB + 32 * i, 32, (uint32_t)rnd());
		st = run_cmd(op, in, out);
		if (st != RNIC_CMD_ST_OK)
			return;
		if (!q || q->pd != pd) {
			bug("MODIFY_QP of qpn %u pd %u accepted (live: %d)", qpn, pd, q != NULL);
			return;
		}
		next = mask & RNIC_QP_ATTR_STATE ? next : q->state;
		if (next == RNIC_QPS_RESET) {
			struct s_qp r = *q;

			memset(&r.mtu, 0, sizeof(r) - offsetof(struct s_qp, mtu));
			*q = r;
		} else {
#define V(f) RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, f)
			if (mask & RNIC_QP_ATTR_ACCESS_FLAGS) q->access = V(QP_ACCESS_FLAGS);
			if (mask & RNIC_QP_ATTR_AV) {
				q->sgid = V(SGID_INDEX);
				q->flow = V(FLOW_LABEL);
				q->hop = V(HOP_LIMIT);
				q->tclass = V(TRAFFIC_CLASS);
				q->dmac = V(DMAC);
				for (unsigned int i = 0; i < 4; i++)
					q->dgid[i] = (uint32_t)rnic_ctx_get(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB + 32 * i, 32);
			}
			if (mask & RNIC_QP_ATTR_PATH_MTU) q->mtu = V(PATH_MTU);
			if (mask & RNIC_QP_ATTR_DEST_QPN) q->dest_qpn = V(DEST_QP_NUM);
			if (mask & RNIC_QP_ATTR_RQ_PSN) q->rq_psn = V(RQ_PSN);
			if (mask & RNIC_QP_ATTR_SQ_PSN) q->sq_psn = V(SQ_PSN);
			if (mask & RNIC_QP_ATTR_TIMEOUT) q->timeout = V(TIMEOUT);
			if (mask & RNIC_QP_ATTR_MIN_RNR_TIMER) q->min_rnr = V(MIN_RNR_TIMER);
			if (mask & RNIC_QP_ATTR_RETRY_CNT) q->retry = V(RETRY_CNT);
			if (mask & RNIC_QP_ATTR_RNR_RETRY) q->rnr = V(RNR_RETRY);
			if (mask & RNIC_QP_ATTR_MAX_QP_RD_ATOMIC) q->rd_atomic = V(MAX_RD_ATOMIC);
			if (mask & RNIC_QP_ATTR_MAX_DEST_RD_ATOMIC) q->dest_rd_atomic = V(MAX_DEST_RD_ATOMIC);
#undef V
		}
		q->state = next;
		return;
	}
	case RNIC_CMD_OP_QUERY_QP:
	case RNIC_CMD_OP_DESTROY_QP: {
		uint32_t qpn = pick_qpn(&pd);
		struct s_qp *q = find_qp(qpn);

		if (op == RNIC_CMD_OP_QUERY_QP) {
			RNIC_CTX_SET(in, CMD_QUERY_QP_IN, QPN, qpn);
			RNIC_CTX_SET(in, CMD_QUERY_QP_IN, PD, pd);
		} else {
			RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, QPN, qpn);
			RNIC_CTX_SET(in, CMD_DESTROY_QP_IN, PD, pd);
		}
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK && (!q || q->pd != pd)) {
			bug("opcode 0x%x of qpn %u pd %u accepted (live: %d)", op, qpn, pd, q != NULL);
			return;
		}
		if (q && q->pd == pd && st != RNIC_CMD_ST_OK)
			bug("opcode 0x%x of live QP %u with its PD: status %d", op, qpn, st);
		if (st == RNIC_CMD_ST_OK && op == RNIC_CMD_OP_QUERY_QP)
			check_query(q, out);
		if (st == RNIC_CMD_ST_OK && op == RNIC_CMD_OP_DESTROY_QP)
			q->live = 0;
		return;
	}
	case RNIC_CMD_OP_REG_MR: {
		struct s_mr m;
		uint64_t pages;

		memset(&m, 0, sizeof(m));
		m.pd = pick(S.pd, S.npd, S.max_pd);
		m.access = rn(10) ? rn(16) : (uint32_t)rnd();
		m.va = rn(10) ? rnd() & 0x0000ffffffffffffull : rnd();
		m.len = rn(10) ? 1 + rn(20 << RNIC_MTT_PAGE_SHIFT) : rn(3) ? 0 : rnd();
		RNIC_CTX_SET(in, CMD_REG_MR_IN, PD, m.pd);
		RNIC_CTX_SET(in, CMD_REG_MR_IN, ACCESS, m.access);
		RNIC_CTX_SET(in, CMD_REG_MR_IN, VA, m.va);
		RNIC_CTX_SET(in, CMD_REG_MR_IN, LENGTH, m.len);
		st = run_cmd(op, in, out);
		if (st != RNIC_CMD_ST_OK)
			return;
		m.key = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, KEY);
		m.mtt_base = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, MTT_BASE);
		m.npages = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, NPAGES);
		m.live = 1;
		if (m.len == 0 || m.va + m.len < m.va || !has(S.pd, S.npd, m.pd) ||
		    (m.access & ~(0xfu | RNIC_ACCESS_MW_BIND)) ||
		    ((m.access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
		     !(m.access & RNIC_ACCESS_LOCAL_WRITE))) {
			bug("REG_MR accepted pd %u access 0x%x va 0x%llx length 0x%llx", m.pd, m.access,
			    (unsigned long long)m.va, (unsigned long long)m.len);
			return;
		}
		pages = ((m.va + m.len - 1) >> RNIC_MTT_PAGE_SHIFT) - (m.va >> RNIC_MTT_PAGE_SHIFT) + 1;
		if (m.npages != pages)
			bug("REG_MR: npages %u, the range spans %llu", m.npages, (unsigned long long)pages);
		if (find_mr(m.key) || find_mw(m.key))
			bug("REG_MR gave key 0x%x of a live MR or window", m.key);
		for (int i = 0; i < MAXO; i++)
			if (S.mr[i].live && m.mtt_base < S.mr[i].mtt_base + S.mr[i].npages &&
			    S.mr[i].mtt_base < m.mtt_base + m.npages)
				bug("REG_MR: MTT run %u+%u overlaps key 0x%x's %u+%u", m.mtt_base, m.npages,
				    S.mr[i].key, S.mr[i].mtt_base, S.mr[i].npages);
		if (m.mtt_base + m.npages > S.max_mtt)
			bug("REG_MR: MTT run %u+%u past the table (%u)", m.mtt_base, m.npages, S.max_mtt);
		for (int i = 0; i < MAXO; i++)
			if (!S.mr[i].live) {
				S.mr[i] = m;
				return;
			}
		RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, m.key);
		RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, m.pd);
		(void)run_cmd(RNIC_CMD_OP_DEREG_MR, in, out);
		return;
	}
	case RNIC_CMD_OP_WRITE_MTT: {
		uint32_t key = pick_key(&pd), off, cnt;
		struct s_mr *m = find_mr(key);

		off = m && rn(8) ? m->written : rn(64);
		cnt = m && rn(4) && m->npages > off ?
			      1 + rn(m->npages - off < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT ?
					     m->npages - off : RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT) :
			      rn(RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT + 3);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, KEY, key);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, PD, pd);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, off);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, cnt);
		for (unsigned int i = 0; i < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT; i++)
			RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, i, aligned(1u << RNIC_MTT_PAGE_SHIFT));
		st = run_cmd(op, in, out);
		if (st != RNIC_CMD_ST_OK)
			return;
		if (!m || m->pd != pd || m->valid || off != m->written || cnt == 0 ||
		    cnt > RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT || off + cnt > m->npages) {
			bug("WRITE_MTT key 0x%x pd %u offset %u count %u accepted", key, pd, off, cnt);
			return;
		}
		m->written = off + cnt;
		m->valid = m->written == m->npages;
		if (RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, WRITTEN) != m->written ||
		    RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, VALID) != (uint64_t)m->valid)
			bug("WRITE_MTT: written %llu valid %llu, expected %u %d",
			    (unsigned long long)RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, WRITTEN),
			    (unsigned long long)RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, VALID), m->written,
			    m->valid);
		return;
	}
	case RNIC_CMD_OP_DEREG_MR: {
		uint32_t key = pick_key(&pd);
		struct s_mr *m = find_mr(key);

		RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, key);
		RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, pd);
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK && (!m || m->pd != pd))
			bug("DEREG_MR key 0x%x pd %u accepted (live: %d)", key, pd, m != NULL);
		else if (st == RNIC_CMD_ST_OK)
			m->live = 0;
		else if (m && m->pd == pd)
			bug("DEREG_MR of live key 0x%x with its PD: status %d", key, st);
		return;
	}
	case RNIC_CMD_OP_ALLOC_MW: {
		struct s_mw w = { 1, 0, pick(S.pd, S.npd, S.max_pd),
				  rn(8) ? 1 + rn(2) : (rn(2) ? rn(5) : (uint32_t)rnd()) };

		RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, PD, w.pd);
		RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, TYPE, w.type);
		st = run_cmd(op, in, out);
		if (st != RNIC_CMD_ST_OK) {
			if (has(S.pd, S.npd, w.pd) && (w.type == RNIC_MW_TYPE_1 || w.type == RNIC_MW_TYPE_2) &&
			    st != RNIC_CMD_ST_NO_RESOURCES)
				bug("ALLOC_MW pd %u type %u refused: status %d", w.pd, w.type, st);
			return;
		}
		w.key = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_MW_OUT, RKEY);
		if (!has(S.pd, S.npd, w.pd) || (w.type != RNIC_MW_TYPE_1 && w.type != RNIC_MW_TYPE_2)) {
			bug("ALLOC_MW accepted pd %u type %u", w.pd, w.type);
			return;
		}
		if (w.key >> RNIC_MKEY_TAG_BITS == 0 || w.key >> RNIC_MKEY_TAG_BITS > S.max_mr ||
		    find_mw(w.key))
			bug("ALLOC_MW gave key 0x%x (max_mr %u, index live: %d)", w.key, S.max_mr,
			    find_mw(w.key) != NULL);
		for (int i = 0; i < MAXO; i++)
			if (S.mr[i].live && S.mr[i].key >> RNIC_MKEY_TAG_BITS == w.key >> RNIC_MKEY_TAG_BITS)
				bug("ALLOC_MW gave key 0x%x, the index of MR 0x%x", w.key, S.mr[i].key);
		for (int i = 0; i < MAXO; i++)
			if (!S.mw[i].live) {
				S.mw[i] = w;
				return;
			}
		RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, RKEY, w.key);
		RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, PD, w.pd);
		if (run_cmd(RNIC_CMD_OP_DEALLOC_MW, in, out) != RNIC_CMD_ST_OK)
			bug("DEALLOC_MW of the window just made refused");
		return;
	}
	case RNIC_CMD_OP_DEALLOC_MW: {
		uint32_t live[MAXO], key;
		struct s_mw *w;
		int n = 0;

		for (int i = 0; i < MAXO; i++)
			if (S.mw[i].live)
				live[n++] = S.mw[i].key;
		key = rn(6) ? pick(live, n, S.max_mr << RNIC_MKEY_TAG_BITS) : pick_key(&pd);
		if (rn(10) == 0)
			key ^= 1u << rn(RNIC_MKEY_TAG_BITS);
		w = find_mw(key);
		pd = w && rn(8) ? w->pd : pick(S.pd, S.npd, S.max_pd);
		RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, RKEY, key);
		RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, PD, pd);
		st = run_cmd(op, in, out);
		if (st == RNIC_CMD_ST_OK && (!w || w->pd != pd))
			bug("DEALLOC_MW key 0x%x pd %u accepted (live: %d)", key, pd, w != NULL);
		else if (st == RNIC_CMD_ST_OK)
			w->live = 0;
		else if (w && w->pd == pd)
			bug("DEALLOC_MW of live window 0x%x with its PD: status %d", key, st);
		return;
	}
	case RNIC_CMD_OP_QUERY_COUNTER:
		RNIC_CTX_SET(in, CMD_QUERY_COUNTER_IN, FIRST, rn(40));
		RNIC_CTX_SET(in, CMD_QUERY_COUNTER_IN, COUNT, rn(40));
		(void)run_cmd(op, in, out);
		return;
	case RNIC_CMD_OP_QUERY_DEVICE:
		st = run_cmd(op, in, out);
		if (st != RNIC_CMD_ST_OK)
			bug("QUERY_DEVICE: status %d", st);
		return;
	default:
		st = run_cmd(op, in, out);
		if (op >= RNIC_CMD_OP_CREATE_SRQ && op <= RNIC_CMD_OP_DESTROY_SRQ) {
			/* the SRQ commands are not in the shadow: an SRQ random
			 * input made (it holds its PD) is taken back at once */
			if (op == RNIC_CMD_OP_CREATE_SRQ && st == RNIC_CMD_ST_OK) {
				uint32_t pd_in = (uint32_t)RNIC_CTX_GET(in, CMD_CREATE_SRQ_IN, PD);

				RNIC_CTX_SET(in, CMD_DESTROY_SRQ_IN, SRQN,
					     RNIC_CTX_GET(out, CMD_CREATE_SRQ_OUT, SRQN));
				RNIC_CTX_SET(in, CMD_DESTROY_SRQ_IN, PD, pd_in);
				if (run_cmd(RNIC_CMD_OP_DESTROY_SRQ, in, out) != RNIC_CMD_ST_OK)
					bug("DESTROY_SRQ of the SRQ just created refused");
			}
			return;
		}
		if (op == RNIC_CMD_OP_ATTACH_MCAST || op == RNIC_CMD_OP_DETACH_MCAST) {
			/* multicast is not in the shadow either: an attach random
			 * input made is undone at once (the group table holds no
			 * PD or QP reference the shadow would miss) */
			if (op == RNIC_CMD_OP_ATTACH_MCAST && st == RNIC_CMD_ST_OK &&
			    run_cmd(RNIC_CMD_OP_DETACH_MCAST, in, out) != RNIC_CMD_ST_OK)
				bug("DETACH_MCAST of the attach just made refused");
			return;
		}
		if (st != RNIC_CMD_ST_BAD_OPCODE && !(op >= RNIC_CMD_OP_QUERY_DEVICE && op <= RNIC_CMD_OP_DESTROY_AH))
			bug("unknown opcode 0x%x: status %d", op, st);
		if (op == RNIC_CMD_OP_CREATE_AH && st == RNIC_CMD_ST_OK) {
			/* an AH holds its PD: free it, so the shadow's PDs stay right */
			uint32_t ah = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_AH_OUT, AH);
			uint32_t apd = (uint32_t)RNIC_CTX_GET(in, CMD_CREATE_AH_IN, PD);

			memset(in, 0, sizeof(in));
			RNIC_CTX_SET(in, CMD_DESTROY_AH_IN, AH, ah);
			RNIC_CTX_SET(in, CMD_DESTROY_AH_IN, PD, apd);
			if (run_cmd(RNIC_CMD_OP_DESTROY_AH, in, out) != RNIC_CMD_ST_OK)
				bug("DESTROY_AH of AH %u just made failed", ah);
		}
		return;
	}
}

/* ------------------------------------------------------------- main */

static int start(int small, unsigned int width, uint64_t seed)
{
	uint32_t out[OUTW], in[INW] = {0};

#ifdef FZ_NATIVE
	struct fw_caps caps = {small ? 16 : FW_MAX_QPS, small ? 8 : FW_MAX_CQS,
			       small ? 32 : FW_MAX_MRS, small ? 256 : FW_MAX_MTT,
			       small ? 8 : FW_MAX_PDS, small ? 4 : FW_MAX_SRQS,
			       small ? 4 : FW_MAX_AHS, FW_MAX_MCGS};

	(void)width;
	(void)seed;
	fw_init(&fw, &caps);
#else
	(void)small;
	if (fz_open(&F, width, seed, 1))
		return -1;
#endif
	if (run_cmd(RNIC_CMD_OP_QUERY_DEVICE, in, out) != RNIC_CMD_ST_OK)
		return -1;
	S.max_qp = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_QP);
	S.max_cq = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_CQ);
	S.max_mr = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MR);
	S.max_pd = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_PD);
	S.max_mtt = (uint32_t)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MTT);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'}, {"seed", required_argument, NULL, 's'},
		{"cmds", required_argument, NULL, 'n'},  {"small", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	unsigned int width = 64;
	uint64_t seed = 1, cmds = 100000;
	int small = 0, c;
	struct timespec t0, t1;
	double secs;

	while ((c = getopt_long(argc, argv, "w:s:n:Sh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': width = (unsigned int)atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': cmds = strtoull(optarg, NULL, 0); break;
		case 'S': small = 1; break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: %s [--seed N] [--cmds N] [--small] [--width 64|512]\n"
				"Random firmware commands checked against a shadow of what was accepted (docs/memcheck.md).\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	S.rng = seed;
	if (start(small, width, seed)) {
		printf("FAIL setup: QUERY_DEVICE\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (S.cmds < cmds && S.bugs == 0) {
		one();
		if (rn(64) == 0)
			query_all();
	}
	query_all();
#ifndef FZ_NATIVE
	{
		struct rnic_sim_memcheck_stats mc;
		uint32_t st = rnic_sim_bar_read32(F.nic, RNIC_REG_CMD_STATUS);

		rnic_sim_nic_memcheck_stats(F.nic, &mc);
		if (st & 4) /* CMD_STATUS bit 2: firmware halted */
			bug("the firmware halted (CMD_STATUS 0x%08x)", st);
		if (mc.violations || rnic_sim_nic_faults(F.nic, NULL, 0))
			bug("memory protection violations %llu, DMA faults %llu",
			    (unsigned long long)mc.violations,
			    (unsigned long long)rnic_sim_nic_faults(F.nic, NULL, 0));
	}
#endif
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("%s seed %llu%s: %llu commands (%llu ok, QUERY_QP compared %llu times) in %.1f s, "
	       "%.0f commands/s; statuses:",
	       argv[0], (unsigned long long)seed, small ? " (small tables)" : "",
	       (unsigned long long)S.cmds, (unsigned long long)S.ok, (unsigned long long)S.queries,
	       secs, S.cmds / (secs > 0 ? secs : 1));
	for (int i = 0; i <= RNIC_CMD_ST_INTERNAL; i++)
		printf(" %d:%llu", i, (unsigned long long)S.st_count[i]);
	printf("\n%s: %llu problems\n", S.bugs ? "FAIL" : "PASS", (unsigned long long)S.bugs);
#ifndef FZ_NATIVE
	fz_close(&F);
#endif
	return S.bugs ? 1 : 0;
}
