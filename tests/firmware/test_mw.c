/* Memory windows in the firmware (core/mw.c, docs/mw.md): ALLOC_MW and
 * DEALLOC_MW, the bind and invalidate requests the data path hands over,
 * DEREG_MR refused while windows are bound. Every refusal with the status
 * the host or the WQE sees and nothing changed (tables compared, no register
 * touched); every success with the MPT words it writes (record mode: the
 * CTX_DATA words and the CTX_CMD). */
#include <string.h>

#include "fw_test.h"
#include "core/bitmap.h"

#define OP(x) RNIC_CMD_OP_##x
#define PUT(rec, f, v) t_put(in, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W, (v))
#define GET(rec, f) t_get(out, RNIC_CMD_##rec##_##f##_LSB, RNIC_CMD_##rec##_##f##_W)
#define MPT(w, f) t_get((w), RNIC_MPT_##f##_LSB, RNIC_MPT_##f##_W)

#define ACC_RW (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ)
#define ACC_MR (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND)

static uint32_t in[32], out[32];

static uint32_t alloc_mw(uint32_t pd, uint32_t type)
{
	memset(in, 0, sizeof(in));
	PUT(ALLOC_MW_IN, PD, pd);
	PUT(ALLOC_MW_IN, TYPE, type);
	CHECK_EQ(t_cmd(OP(ALLOC_MW), in, out), FW_OK);
	/* the entry is invalid already: no register touched */
	CHECK_EQ(mock_mmio_count(), 0);
	return (uint32_t)GET(ALLOC_MW_OUT, RKEY);
}

static void dealloc_in(uint32_t rkey, uint32_t pd)
{
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_MW_IN, RKEY, rkey);
	PUT(DEALLOC_MW_IN, PD, pd);
}

static void dereg_in(uint32_t key, uint32_t pd)
{
	memset(in, 0, sizeof(in));
	PUT(DEREG_MR_IN, KEY, key);
	PUT(DEREG_MR_IN, PD, pd);
}

/* A registered MR (REG_MR and WRITE_MTT of its one page): its key. */
static uint32_t mr(uint32_t pd, uint32_t access, uint64_t va, uint64_t len)
{
	uint32_t key = 0, npages = 0;

	CHECK_EQ(t_reg_mr(pd, access, va, len, &key, NULL, &npages), FW_OK);
	CHECK_EQ(npages, 1);
	memset(in, 0, sizeof(in));
	PUT(WRITE_MTT_IN, KEY, key);
	PUT(WRITE_MTT_IN, PD, pd);
	PUT(WRITE_MTT_IN, OFFSET, 0);
	PUT(WRITE_MTT_IN, COUNT, 1);
	t_put(in, RNIC_CMD_WRITE_MTT_IN_PAGE_LSB, 64, 0x200000000ull);
	CHECK_EQ(t_cmd(OP(WRITE_MTT), in, out), FW_OK);
	CHECK_EQ(GET(WRITE_MTT_OUT, VALID), 1);
	return key;
}

/* The CTX_DATA words (into w) and the CTX_CMD of the last call in record
 * mode; 0 if there was no context write. */
static uint32_t logged_ctx(uint32_t *w)
{
	uint32_t cmd = 0;

	memset(w, 0xee, 4 * RNIC_MPT_WORDS);
	for (size_t i = 0; i < mock_mmio_count(); i++) {
		const struct mock_access *a = mock_mmio_access(i);

		if (a->write && a->off >= RNIC_REG_CTX_DATA &&
		    a->off < RNIC_REG_CTX_DATA + 4 * RNIC_MPT_WORDS)
			w[(a->off - RNIC_REG_CTX_DATA) / 4] = a->val;
		if (a->write && a->off == RNIC_REG_CTX_CMD)
			cmd = a->val;
	}
	return cmd;
}

static uint32_t mpt_cmd(uint32_t key)
{
	return fw_ctx_cmd_word(RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, key >> RNIC_MKEY_TAG_BITS);
}

/* A bind or invalidate run in record mode (the context write accepted). */
static uint32_t bind(const struct fw_mw_bind *b)
{
	uint32_t st;

	mock_mmio_reset();
	mock_mmio_record(1);
	st = fw_mw_bind(&fw, b);
	mock_mmio_record(0);
	return st;
}

static uint32_t inval(uint32_t qpn, uint32_t rkey, int remote)
{
	uint32_t st;

	mock_mmio_reset();
	mock_mmio_record(1);
	st = fw_mw_invalidate(&fw, qpn, rkey, remote);
	mock_mmio_record(0);
	return st;
}

/* A request that must be refused with want, changing nothing and touching
 * no register (strict mock, no expectation). */
static void refused_(int line, const struct fw_mw_bind *b, uint32_t qpn, uint32_t rkey,
		     int remote, uint32_t want)
{
	char label[48];
	uint32_t st;

	memcpy(&fw_before, &fw, sizeof(fw));
	mock_mmio_reset();
	st = b ? fw_mw_bind(&fw, b) : fw_mw_invalidate(&fw, qpn, rkey, remote);
	snprintf(label, sizeof(label), "refused line %d", line);
	if (st != want) {
		n_fail++;
		printf("FAIL %s: status %u, expected %u\n", label, st, want);
	} else {
		n_pass++;
	}
	if (memcmp(&fw_before, &fw, sizeof(fw))) {
		n_fail++;
		printf("FAIL %s: the firmware's tables changed\n", label);
	} else {
		n_pass++;
	}
	CHECK_MOCK(label);
}
#define bind_refused(b) refused_(__LINE__, (b), 0, 0, 0, RNIC_WC_MW_BIND_ERR)
#define inval_refused(q, k, r)                                                   \
	refused_(__LINE__, NULL, (q), (k), (r),                                  \
		 (r) ? RNIC_WC_REM_INV_REQ_ERR : RNIC_WC_LOC_QP_OP_ERR)

static uint32_t next_tag(uint32_t key, uint32_t tag)
{
	return (key & ~((1u << RNIC_MKEY_TAG_BITS) - 1)) | tag;
}

static void test_alloc_dealloc(void)
{
	uint32_t pd, pd2, k1, k2, kmr;

	t_init(16, 8, 8, 64, 4);
	pd = t_alloc_pd();
	pd2 = t_alloc_pd();

	/* ALLOC_MW: a PD that does not exist, a type that is neither */
	memset(in, 0, sizeof(in));
	PUT(ALLOC_MW_IN, PD, 0);
	PUT(ALLOC_MW_IN, TYPE, RNIC_MW_TYPE_1);
	t_cmd_fails(OP(ALLOC_MW), in, FW_BAD_HANDLE);
	PUT(ALLOC_MW_IN, PD, 3);
	t_cmd_fails(OP(ALLOC_MW), in, FW_BAD_HANDLE);
	for (uint32_t type = 0; type < 5; type += 3) {
		PUT(ALLOC_MW_IN, PD, pd);
		PUT(ALLOC_MW_IN, TYPE, type);
		t_cmd_fails(OP(ALLOC_MW), in, FW_BAD_PARAM);
	}
	PUT(ALLOC_MW_IN, TYPE, 0x80000001u);
	t_cmd_fails(OP(ALLOC_MW), in, FW_BAD_PARAM);

	k1 = alloc_mw(pd, RNIC_MW_TYPE_1);
	k2 = alloc_mw(pd2, RNIC_MW_TYPE_2);
	CHECK(k1 >> RNIC_MKEY_TAG_BITS >= 1 && k1 >> RNIC_MKEY_TAG_BITS < 8);
	CHECK(k2 >> RNIC_MKEY_TAG_BITS != k1 >> RNIC_MKEY_TAG_BITS);
	CHECK_EQ(fw.pd_refcnt[pd], 1);
	CHECK_EQ(fw.pd_refcnt[pd2], 1);
	CHECK_EQ(fw.mr[k2 >> RNIC_MKEY_TAG_BITS].mtt_base, FW_MW_TYPE2);

	/* a PD with a window cannot go */
	memset(in, 0, sizeof(in));
	PUT(DEALLOC_PD_IN, PD, pd);
	t_cmd_fails(OP(DEALLOC_PD), in, FW_BUSY);

	/* a window's key is no MR's: MR commands refuse it */
	dereg_in(k1, pd);
	t_cmd_fails(OP(DEREG_MR), in, FW_BAD_HANDLE);
	memset(in, 0, sizeof(in));
	PUT(WRITE_MTT_IN, KEY, k1);
	PUT(WRITE_MTT_IN, PD, pd);
	PUT(WRITE_MTT_IN, COUNT, 1);
	t_cmd_fails(OP(WRITE_MTT), in, FW_BAD_HANDLE);

	/* DEALLOC_MW: index 0, out of range, free, an MR's key, another PD */
	kmr = mr(pd, ACC_MR, 0x10000, 4096);
	dealloc_in(0, pd);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	dealloc_in(8 << RNIC_MKEY_TAG_BITS, pd);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	dealloc_in(0xffffffffu, pd);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	dealloc_in(6 << RNIC_MKEY_TAG_BITS, pd);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	dealloc_in(kmr, pd);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	dealloc_in(k1, pd2);
	t_cmd_fails(OP(DEALLOC_MW), in, FW_PD_MISMATCH);

	/* an unbound window goes without a register write */
	dealloc_in(k1, pd);
	CHECK_EQ(t_cmd(OP(DEALLOC_MW), in, out), FW_OK);
	CHECK_EQ(mock_mmio_count(), 0);
	CHECK_EQ(fw.pd_refcnt[pd], 1); /* the MR */
	t_cmd_fails(OP(DEALLOC_MW), in, FW_BAD_HANDLE);
	/* its index again: a new tag, so the old key names nothing */
	CHECK(alloc_mw(pd, RNIC_MW_TYPE_1) != k1);

	/* no index left: MRs and windows share the table (7 usable) */
	t_init(16, 8, 4, 64, 4);
	pd = t_alloc_pd();
	mr(pd, ACC_MR, 0x10000, 4096);
	alloc_mw(pd, RNIC_MW_TYPE_1);
	alloc_mw(pd, RNIC_MW_TYPE_2);
	memset(in, 0, sizeof(in));
	PUT(ALLOC_MW_IN, PD, pd);
	PUT(ALLOC_MW_IN, TYPE, RNIC_MW_TYPE_2);
	t_cmd_fails(OP(ALLOC_MW), in, FW_NO_RESOURCES);
	CHECK_EQ(t_reg_mr(pd, ACC_MR, 0x10000, 4096, NULL, NULL, NULL), FW_NO_RESOURCES);

	/* QUERY_DEVICE: windows share max_mr's indices */
	CHECK_EQ(t_cmd(OP(QUERY_DEVICE), NULL, out), FW_OK);
	CHECK_EQ(GET(QUERY_DEVICE_OUT, MAX_MW), 3);
	CHECK_EQ(GET(QUERY_DEVICE_OUT, MAX_MR), 3);
}

/* Two QPs (PD a and PD b), an MR with MW_BIND and one without in PD a. */
static uint32_t pd_a, pd_b, qp_a, qp_b, mr_bind, mr_nobind, mr_ro;

static void setup(void)
{
	uint32_t cq;

	t_init(16, 8, 16, 64, 4);
	pd_a = t_alloc_pd();
	pd_b = t_alloc_pd();
	cq = t_create_cq();
	qp_a = t_create_qp(pd_a, cq, cq);
	qp_b = t_create_qp(pd_b, cq, cq);
	mr_bind = mr(pd_a, ACC_MR | RNIC_ACCESS_REMOTE_READ, 0x10000, 4096);
	mr_nobind = mr(pd_a, RNIC_ACCESS_LOCAL_WRITE | ACC_RW, 0x20000, 4096);
	mr_ro = mr(pd_a, RNIC_ACCESS_MW_BIND, 0x30000, 4096); /* no local write */
}

static struct fw_mw_bind req(uint32_t qpn, uint32_t mw, uint32_t new_rkey, uint32_t mrkey,
			     uint32_t access, uint64_t addr, uint64_t len)
{
	struct fw_mw_bind b = {
		.qpn = qpn, .mw_rkey = mw, .new_rkey = new_rkey, .mr_key = mrkey,
		.access = access, .addr = addr, .length = len,
		.mr_access = ACC_MR | RNIC_ACCESS_REMOTE_READ,
		.pa = (1ull << RNIC_MPT_PA_MTT_BIT) | (addr & 0xfff),
	};

	if (mrkey == mr_nobind)
		b.mr_access = RNIC_ACCESS_LOCAL_WRITE | ACC_RW;
	if (mrkey == mr_ro)
		b.mr_access = RNIC_ACCESS_MW_BIND;
	return b;
}

static void test_type1(void)
{
	uint32_t w[RNIC_MPT_WORDS], mw, k, mr2;
	struct fw_mw_bind b;

	setup();
	mw = alloc_mw(pd_a, RNIC_MW_TYPE_1);
	k = next_tag(mw, 0x5a);

	/* refusals: nothing changes, no register is touched */
	b = req(qp_a, next_tag(mw, (mw + 1) & 0xff), k, mr_bind, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* not the window's current key */
	b = req(qp_a, mw, k + (1u << RNIC_MKEY_TAG_BITS), mr_bind, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* the new key names another index */
	b = req(qp_b, mw, k, mr_bind, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* the QP's PD is not the window's */
	b = req(15, mw, k, mr_bind, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* no such QP */
	b = req(qp_a, mw, k, mr_nobind, ACC_RW, 0x20100, 256);
	bind_refused(&b); /* C10-75: the MR lacks MW_BIND */
	b = req(qp_a, mw, k, mr_ro, RNIC_ACCESS_REMOTE_WRITE, 0x30100, 256);
	bind_refused(&b); /* C10-78: remote write needs the MR's local write */
	b = req(qp_a, mw, k, mr_ro, RNIC_ACCESS_REMOTE_ATOMIC, 0x30100, 256);
	bind_refused(&b);
	b = req(qp_a, mw, k, mr_bind, ACC_RW | RNIC_ACCESS_LOCAL_WRITE, 0x10100, 256);
	bind_refused(&b); /* local rights are no window's */
	b = req(qp_a, mw, k, mr_bind, ACC_RW | RNIC_ACCESS_MW_BIND, 0x10100, 256);
	bind_refused(&b);
	b = req(qp_a, mw, k, mr_bind, ACC_RW | RNIC_ACCESS_ZERO_BASED, 0x10100, 256);
	bind_refused(&b); /* o10-36.2.2: type 1 is VA-based */
	b = req(qp_a, mw, k, mr_bind ^ 1, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* a stale MR key */
	b = req(qp_a, mw, k, mw, ACC_RW, 0x10100, 256);
	bind_refused(&b); /* a window is no MR */
	b = req(qp_a, mw, k, mr_bind, ACC_RW, 0xfffffffffffff000ull, 0x2000);
	bind_refused(&b); /* the range wraps */

	/* bind: one MPT write with the window's whole check */
	b = req(qp_a, mw, k, mr_bind, RNIC_ACCESS_REMOTE_READ, 0x10100, 256);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	CHECK_EQ(MPT(w, VALID), 1);
	CHECK_EQ(MPT(w, ACCESS), RNIC_ACCESS_REMOTE_READ);
	CHECK_EQ(MPT(w, PD), pd_a);
	CHECK_EQ(MPT(w, MW), 1);
	CHECK_EQ(MPT(w, MW_TYPE2), 0);
	CHECK_EQ(MPT(w, KEY), k);
	CHECK_EQ(MPT(w, VA), 0x10100);
	CHECK_EQ(MPT(w, LENGTH), 256);
	CHECK_EQ(MPT(w, PA), b.pa);
	CHECK_EQ(MPT(w, QPN), 0);
	CHECK(fw_mr_has_windows(&fw, mr_bind >> RNIC_MKEY_TAG_BITS));

	/* the MR below cannot be deregistered while the window is bound */
	dereg_in(mr_bind, pd_a);
	t_cmd_fails(OP(DEREG_MR), in, FW_BUSY);
	/* the old key is gone: only the new one names the window */
	b = req(qp_a, mw, next_tag(mw, 0x77), mr_bind, ACC_RW, 0x10100, 256);
	bind_refused(&b);

	/* a type 1 window is not invalidated by a work request (o10-37.2.26) */
	inval_refused(qp_a, k, 0);
	inval_refused(qp_a, k, 1);

	/* rebind to another MR: the first one is free again */
	mr2 = mr(pd_a, ACC_MR | RNIC_ACCESS_REMOTE_READ, 0x40000, 4096);
	b = req(qp_a, k, next_tag(mw, 0x5b), mr2, ACC_RW, 0x40800, 0x800);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	CHECK_EQ(MPT(w, KEY), next_tag(mw, 0x5b));
	CHECK_EQ(MPT(w, VA), 0x40800);
	CHECK_EQ(MPT(w, ACCESS), ACC_RW);
	CHECK(!fw_mr_has_windows(&fw, mr_bind >> RNIC_MKEY_TAG_BITS));
	CHECK(fw_mr_has_windows(&fw, mr2 >> RNIC_MKEY_TAG_BITS));
	dereg_in(mr_bind, pd_a);
	CHECK_EQ(t_cmd(OP(DEREG_MR), in, out), FW_OK);
	dereg_in(mr2, pd_a);
	t_cmd_fails(OP(DEREG_MR), in, FW_BUSY);

	/* length 0 unbinds a type 1 window: its entry is invalidated */
	b = req(qp_a, next_tag(mw, 0x5b), next_tag(mw, 0x5c), 0, 0, 0, 0);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	for (uint32_t i = 0; i < RNIC_MPT_WORDS; i++)
		CHECK_EQ(w[i], 0);
	CHECK_EQ(t_cmd(OP(DEREG_MR), in, out), FW_OK);
}

static void test_type2(void)
{
	uint32_t w[RNIC_MPT_WORDS], mw, k1, k2, mw1;
	struct fw_mw_bind b;

	setup();
	mw = alloc_mw(pd_a, RNIC_MW_TYPE_2);
	k1 = next_tag(mw, 0x10);

	b = req(qp_a, mw, k1, mr_bind, ACC_RW, 0x10100, 0);
	bind_refused(&b); /* o10-37.2.40: an empty range */
	b = req(qp_b, mw, k1, mr_bind, ACC_RW, 0x10100, 64);
	bind_refused(&b); /* C10-72: the QP's PD */

	/* zero-based: the window's addresses start at 0, pa at its first byte */
	b = req(qp_a, mw, k1, mr_bind, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_ZERO_BASED,
		0x10200, 512);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	CHECK_EQ(MPT(w, VALID), 1);
	CHECK_EQ(MPT(w, ACCESS), RNIC_ACCESS_REMOTE_WRITE);
	CHECK_EQ(MPT(w, MW), 1);
	CHECK_EQ(MPT(w, MW_TYPE2), 1);
	CHECK_EQ(MPT(w, QPN), qp_a);
	CHECK_EQ(MPT(w, KEY), k1);
	CHECK_EQ(MPT(w, VA), 0);
	CHECK_EQ(MPT(w, LENGTH), 512);
	CHECK_EQ(MPT(w, PA), b.pa);

	/* o10-37.2.30: bound already */
	b = req(qp_a, k1, next_tag(mw, 0x11), mr_bind, ACC_RW, 0x10100, 64);
	bind_refused(&b);

	/* invalidation: the current key only, the QP's PD, a window only */
	inval_refused(qp_a, mw, 0);
	inval_refused(qp_a, mw, 1);
	inval_refused(qp_b, k1, 0);
	inval_refused(qp_b, k1, 1);
	inval_refused(15, k1, 0);
	inval_refused(qp_a, mr_bind, 0); /* an MR is not invalidated by a WR here */
	inval_refused(qp_a, mr_bind, 1);

	/* LOCAL_INV: the entry goes invalid in one write */
	CHECK_EQ(inval(qp_a, k1, 0), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	for (uint32_t i = 0; i < RNIC_MPT_WORDS; i++)
		CHECK_EQ(w[i], 0);
	CHECK(!fw_mr_has_windows(&fw, mr_bind >> RNIC_MKEY_TAG_BITS));
	/* invalid already */
	inval_refused(qp_a, k1, 0);
	inval_refused(qp_a, k1, 1);

	/* bound again with a new tag; SEND with invalidate takes it back */
	k2 = next_tag(mw, 0x12);
	b = req(qp_a, k1, k2, mr_bind, RNIC_ACCESS_REMOTE_READ, 0x10000, 4096);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	CHECK_EQ(MPT(w, VA), 0x10000);
	CHECK_EQ(MPT(w, KEY), k2);
	inval_refused(qp_a, k1, 1); /* the old key */
	dereg_in(mr_bind, pd_a);
	t_cmd_fails(OP(DEREG_MR), in, FW_BUSY);
	CHECK_EQ(inval(qp_a, k2, 1), RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw));
	CHECK_EQ(MPT(w, VALID), 0);

	/* DEALLOC_MW of a bound window invalidates it first */
	mw1 = alloc_mw(pd_a, RNIC_MW_TYPE_1);
	b = req(qp_a, mw1, next_tag(mw1, 3), mr_bind, ACC_RW, 0x10000, 16);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	dereg_in(mr_bind, pd_a);
	t_cmd_fails(OP(DEREG_MR), in, FW_BUSY);
	dealloc_in(next_tag(mw1, 3), pd_a);
	CHECK_EQ(t_cmd(OP(DEALLOC_MW), in, out), FW_OK);
	CHECK_EQ(logged_ctx(w), mpt_cmd(mw1));
	CHECK_EQ(MPT(w, VALID), 0);
	dereg_in(mr_bind, pd_a);
	CHECK_EQ(t_cmd(OP(DEREG_MR), in, out), FW_OK);
}

/* A context write the data path refuses: the WQE fails with a general
 * error and the firmware keeps the window as it was. */
static void test_ctx_error(void)
{
	uint32_t mw, k;
	struct fw_mw_bind b;

	setup();
	mw = alloc_mw(pd_a, RNIC_MW_TYPE_2);
	k = next_tag(mw, 0x40);
	b = req(qp_a, mw, k, mr_bind, ACC_RW, 0x10100, 64);
	memcpy(&fw_before, &fw, sizeof(fw));
	mock_mmio_reset();
	mock_mmio_record(1);
	mock_mmio_set_reg(RNIC_REG_CTX_STATUS, RNIC_CTX_STATUS_ERROR);
	CHECK_EQ(fw_mw_bind(&fw, &b), RNIC_WC_GENERAL_ERR);
	mock_mmio_record(0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	memcpy(&fw_before, &fw, sizeof(fw));
	mock_mmio_reset();
	mock_mmio_record(1);
	mock_mmio_set_reg(RNIC_REG_CTX_STATUS, RNIC_CTX_STATUS_BUSY); /* stays busy */
	CHECK_EQ(fw_mw_invalidate(&fw, qp_a, k, 0), RNIC_WC_GENERAL_ERR);
	mock_mmio_record(0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
}

/* The exact register traffic of a LOCAL_INV: the MPT words, CTX_CMD, one
 * CTX_STATUS poll. */
static void test_traffic(void)
{
	uint32_t mw, k;
	struct fw_mw_bind b;

	setup();
	mw = alloc_mw(pd_a, RNIC_MW_TYPE_2);
	k = next_tag(mw, 0x41);
	b = req(qp_a, mw, k, mr_bind, ACC_RW, 0x10100, 64);
	CHECK_EQ(bind(&b), RNIC_WC_SUCCESS);
	mock_mmio_reset();
	for (uint32_t i = 0; i < RNIC_MPT_WORDS; i++)
		mock_mmio_expect_write(RNIC_REG_CTX_DATA + 4 * i, 0);
	mock_mmio_expect_write(RNIC_REG_CTX_CMD, mpt_cmd(mw));
	mock_mmio_expect_read(RNIC_REG_CTX_STATUS, 0);
	CHECK_EQ(fw_mw_invalidate(&fw, qp_a, k, 0), RNIC_WC_SUCCESS);
	CHECK_MOCK("local invalidate traffic");
}

/* ---------------------------------------------------------------- window requests (MW_REQ) */

#define REQ(w, f, v) t_put((w), RNIC_MW_REQ_##f##_LSB, RNIC_MW_REQ_##f##_W, (v))

/* Serve one request (words w) in record mode: fw_mw_poll's result; *answer
 * gets the value written to MW_ANSWER (~0 if none, 2 if written twice),
 * *reads the MW_REQ words read. */
static int poll_req(const uint32_t *w, uint32_t *answer, int *reads)
{
	int r;

	mock_mmio_reset();
	mock_mmio_record(1);
	for (uint32_t i = 0; i < RNIC_MW_REQ_WORDS; i++)
		mock_mmio_set_reg(RNIC_REG_MW_REQ + 4 * i, w[i]);
	r = fw_mw_poll(&fw);
	mock_mmio_record(0);
	*answer = ~0u;
	*reads = 0;
	for (size_t i = 0; i < mock_mmio_count(); i++) {
		const struct mock_access *a = mock_mmio_access(i);

		if (a->write && a->off == RNIC_REG_MW_ANSWER)
			*answer = *answer == ~0u ? a->val : 2;
		if (!a->write && a->off >= RNIC_REG_MW_REQ && a->off < RNIC_REG_MW_REQ + 4 * RNIC_MW_REQ_WORDS)
			(*reads)++;
	}
	return r;
}

static void req_bind(uint32_t *w, const struct fw_mw_bind *b)
{
	memset(w, 0, 4 * RNIC_MW_REQ_WORDS);
	REQ(w, PENDING, 1);
	REQ(w, OP, RNIC_MW_REQ_OP_BIND);
	REQ(w, QPN, b->qpn);
	REQ(w, MW_RKEY, b->mw_rkey);
	REQ(w, NEW_RKEY, b->new_rkey);
	REQ(w, MR_KEY, b->mr_key);
	REQ(w, ACCESS, b->access);
	REQ(w, MR_ACCESS, b->mr_access);
	REQ(w, ADDR, b->addr);
	REQ(w, LENGTH, b->length);
	REQ(w, PA, b->pa);
}

static void test_poll(void)
{
	uint32_t w[RNIC_MW_REQ_WORDS], m[RNIC_MPT_WORDS], ans, k1, k2;
	struct fw_mw_bind b;
	int reads;

	setup();
	/* the requester serves QPs in RTS (a QP in RESET or ERR: below) */
	fw.qp[qp_a].state = RNIC_QPS_RTS;
	/* nothing pending: one read, nothing else */
	mock_mmio_reset();
	mock_mmio_expect_read(RNIC_REG_MW_REQ, 0);
	CHECK_EQ(fw_mw_poll(&fw), 0);
	CHECK_MOCK("no request");

	/* a type 1 bind: every word read, the MPT entry written, answered */
	k1 = alloc_mw(pd_a, RNIC_MW_TYPE_1);
	b = req(qp_a, k1, next_tag(k1, (k1 + 1) & 0xff), mr_bind, RNIC_ACCESS_REMOTE_READ, 0x10200, 512);
	req_bind(w, &b);
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(reads, RNIC_MW_REQ_WORDS);
	CHECK_EQ(ans, RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(m), mpt_cmd(k1));
	CHECK_EQ(MPT(m, VALID), 1);
	CHECK_EQ(MPT(m, KEY), b.new_rkey);
	CHECK_EQ(MPT(m, VA), 0x10200);
	CHECK_EQ(MPT(m, LENGTH), 512);
	CHECK_EQ(MPT(m, PA), b.pa);
	CHECK_EQ(MPT(m, ACCESS), RNIC_ACCESS_REMOTE_READ);

	/* refused (the MR lacks MW_BIND): MW_BIND_ERR, no context write */
	k2 = alloc_mw(pd_a, RNIC_MW_TYPE_2);
	b = req(qp_a, k2, next_tag(k2, 0x33), mr_nobind, RNIC_ACCESS_REMOTE_READ, 0x20000, 64);
	req_bind(w, &b);
	memcpy(&fw_before, &fw, sizeof(fw));
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_MW_BIND_ERR);
	CHECK_EQ(logged_ctx(m), 0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);

	/* a type 2 bind, then LOCAL_INV of its new key through a request */
	b = req(qp_a, k2, next_tag(k2, 0x34), mr_bind, ACC_RW, 0x10000, 4096);
	req_bind(w, &b);
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(m), mpt_cmd(k2));
	CHECK_EQ(MPT(m, QPN), qp_a);
	CHECK_EQ(MPT(m, MW_TYPE2), 1);
	memset(w, 0, sizeof(w));
	REQ(w, PENDING, 1);
	REQ(w, OP, RNIC_MW_REQ_OP_LOCAL_INV);
	REQ(w, QPN, qp_a);
	REQ(w, MW_RKEY, next_tag(k2, 0x34));
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(m), mpt_cmd(k2));
	CHECK_EQ(MPT(m, VALID), 0);
	CHECK_EQ(MPT(m, KEY), 0);
	/* again: the window is not bound any more */
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_LOC_QP_OP_ERR);
	CHECK_EQ(logged_ctx(m), 0);

	/* the responder's SEND with invalidate (REMOTE_INV): bound again,
	 * refused on a QP of another PD and for the type 1 window (nothing
	 * changed, REM_INV_REQ_ERR), then taken back on the QP's PD */
	b = req(qp_a, next_tag(k2, 0x34), next_tag(k2, 0x36), mr_bind, ACC_RW, 0x10000, 4096);
	req_bind(w, &b);
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(m), mpt_cmd(k2));
	memset(w, 0, sizeof(w));
	REQ(w, PENDING, 1);
	REQ(w, OP, RNIC_MW_REQ_OP_REMOTE_INV);
	REQ(w, QPN, qp_b);
	REQ(w, MW_RKEY, next_tag(k2, 0x36));
	fw.qp[qp_b].state = RNIC_QPS_RTS;
	memcpy(&fw_before, &fw, sizeof(fw));
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(reads, RNIC_MW_REQ_WORDS);
	CHECK_EQ(ans, RNIC_WC_REM_INV_REQ_ERR);
	CHECK_EQ(logged_ctx(m), 0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
	REQ(w, QPN, qp_a);
	REQ(w, MW_RKEY, b.mw_rkey); /* the key before the bind */
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_REM_INV_REQ_ERR);
	CHECK_EQ(logged_ctx(m), 0);
	REQ(w, MW_RKEY, next_tag(k1, (k1 + 1) & 0xff)); /* the bound type 1 window */
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_REM_INV_REQ_ERR);
	CHECK_EQ(logged_ctx(m), 0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
	REQ(w, MW_RKEY, next_tag(k2, 0x36));
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_SUCCESS);
	CHECK_EQ(logged_ctx(m), mpt_cmd(k2));
	CHECK_EQ(MPT(m, VALID), 0);
	CHECK(!fw_bit_test(fw.mr_valid, k2 >> RNIC_MKEY_TAG_BITS));
	/* invalid now: refused again */
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_REM_INV_REQ_ERR);
	CHECK_EQ(logged_ctx(m), 0);

	/* an op the firmware does not know */
	REQ(w, OP, 7);
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_LOC_QP_OP_ERR);
	CHECK_EQ(logged_ctx(m), 0);

	/* a QP the firmware has in ERR: flushed, nothing changed (the bind
	 * itself, of the window's current key, would pass) */
	b = req(qp_a, next_tag(k2, 0x34), next_tag(k2, 0x35), mr_bind, ACC_RW, 0x10000, 4096);
	req_bind(w, &b);
	fw.qp[qp_a].state = RNIC_QPS_ERR;
	memcpy(&fw_before, &fw, sizeof(fw));
	CHECK_EQ(poll_req(w, &ans, &reads), 1);
	CHECK_EQ(ans, RNIC_WC_WR_FLUSH_ERR);
	CHECK_EQ(logged_ctx(m), 0);
	CHECK(memcmp(&fw_before, &fw, sizeof(fw)) == 0);
}

int main(void)
{
	test_alloc_dealloc();
	test_type1();
	test_type2();
	test_ctx_error();
	test_traffic();
	test_poll();
	return check_summary();
}
