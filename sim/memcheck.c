/* OpenRNIC simulator: the memory-protection checker.
 *
 * Every DMA burst a NIC makes is checked against a mirror of what the host
 * and the remote peers granted the device, built independently of the
 * NIC's own tables:
 *
 *   - the host's command-mailbox traffic, snooped at the BAR (CMD_IN and
 *     CMD_CTRL writes; the CMD_STATUS read that sees the command done, with
 *     its token and status; the CMD_OUT reads that return the new handle);
 *   - the bus pages the host handed to the device in WRITE_MTT, which are the
 *     IOMMU's pages of the MR (rnic_sim_dma_map_pages);
 *   - the send and receive WQEs as the device fetches them (the R data of
 *     its ring reads), which name the local SGEs a QP may use;
 *   - the request frames the NIC takes from the wire (RETH, AtomicETH),
 *     which name the remote accesses a peer asks for.
 *
 * Each DMA engine has its own AXI ID (DMA_ID_* in docs/formats.toml), so a
 * burst is checked against the rights of the engine that made it
 * (docs/memcheck.md):
 *
 *   rings    CQ ring: CQE writer only; SQ ring: WQE fetch, placement WQE
 *            fetch (inline data travel inside the fetched WQE); RQ ring and
 *            SRQ ring (CREATE_SRQ to DESTROY_SRQ): receive WQE fetch;
 *            a QP's rings only while it is not in RESET.
 *   MR bytes only inside a window, and only for the engines of that window:
 *     LREAD   an SGE of a fetched SEND/WRITE WQE        payload read
 *     PLACE   an SGE of a fetched READ/ATOMIC WQE       requester placement
 *     RECV    an SGE of a fetched receive WQE           responder write
 *     RWRITE  the RETH of a received RDMA WRITE         responder write
 *     RREAD   the RETH of a received RDMA READ          READ response read
 *     RATOMIC the AtomicETH of a received ATOMIC        ATOMIC read, write
 *   A window opens only if the checker itself finds the access legal: the
 *   key names a registered MR whose page list is complete, in the QP's PD,
 *   the range inside the MR, LOCAL_WRITE for PLACE and RECV, and for remote
 *   requests the MR's and the QP's REMOTE_WRITE / REMOTE_READ /
 *   REMOTE_ATOMIC (ATOMIC: 8 bytes, 8-byte aligned). A window stays open
 *   until its MR is deregistered: the checker does not follow completions.
 *
 * A command changes the mirror only when the host saw it succeed. A write
 * beat is checked byte by byte under WSTRB; a read beat passes when one of
 * its bytes is allowed (DMA engines fetch whole beats, so the rest of a
 * beat may lie outside an SGE or past the end of a region).
 *
 * Nothing is checked until the mirror is armed: the first successful
 * command that grants memory (CREATE_CQ, CREATE_QP, REG_MR). A host that
 * programs the contexts through the CTX window never arms it; such bursts
 * are counted as unchecked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define PAGE_SHIFT RNIC_MTT_PAGE_SHIFT
#define PAGE_BYTES (1ull << PAGE_SHIFT)
#define VIOL_LOG 64
#define VIOL_PRINT 4
#define AWQ_MAX 256
#define ARQ_MAX 256
#define SNOOP_IDS 8

enum obj_kind { OBJ_CQ = 1, OBJ_SQ, OBJ_RQ, OBJ_MR, OBJ_SRQ, OBJ_MW };

static const char *kind_name(int k)
{
	switch (k) {
	case OBJ_CQ: return "CQ ring";
	case OBJ_SQ: return "SQ ring";
	case OBJ_RQ: return "RQ ring";
	case OBJ_MR: return "MR";
	case OBJ_SRQ: return "SRQ ring";
	case OBJ_MW: return "memory window";
	default: return "?";
	}
}

enum win { WIN_LREAD, WIN_PLACE, WIN_RECV, WIN_RWRITE, WIN_RREAD, WIN_RATOMIC, WIN_N };

static const char *const win_name[WIN_N] = {
	[WIN_LREAD] = "an SGE of a fetched SEND/WRITE WQE of a QP in the MR's PD",
	[WIN_PLACE] = "a LOCAL_WRITE SGE of a fetched READ/ATOMIC WQE of a QP in the MR's PD",
	[WIN_RECV] = "a LOCAL_WRITE SGE of a fetched receive WQE of a QP in the MR's PD",
	[WIN_RWRITE] = "an RDMA WRITE that the QP's and the MR's rights, PD and bounds allow",
	[WIN_RREAD] = "an RDMA READ that the QP's and the MR's rights, PD and bounds allow",
	[WIN_RATOMIC] = "an ATOMIC that the QP's and the MR's rights, PD and bounds allow",
};

#define KIND(k) (1u << (k))
#define WIN(w) (1u << (w))

/* What each DMA engine may touch: ring kinds and MR windows. */
struct engine {
	const char *name;
	unsigned int kinds, wins;
	int wqes; /* it fetches WQEs: the checker reads them too */
};

static const struct engine rd_engine[] = {
	[RNIC_DMA_ID_RD_WQE] = {"send WQE fetcher", KIND(OBJ_SQ), 0, 1},
	[RNIC_DMA_ID_RD_PAYLOAD] = {"send payload reader", 0, WIN(WIN_LREAD)},
	[RNIC_DMA_ID_RD_RWQE] = {"receive WQE and ATOMIC reader", KIND(OBJ_RQ) | KIND(OBJ_SRQ),
				 WIN(WIN_RATOMIC), 1},
	[RNIC_DMA_ID_RD_RDRSP] = {"READ response reader", 0, WIN(WIN_RREAD)},
	[RNIC_DMA_ID_RD_PLWQE] = {"placement WQE fetcher", KIND(OBJ_SQ), 0, 1},
};

static const struct engine wr_engine[] = {
	[RNIC_DMA_ID_WR_PAYLOAD] = {"responder writer", 0,
				    WIN(WIN_RECV) | WIN(WIN_RWRITE) | WIN(WIN_RATOMIC)},
	[RNIC_DMA_ID_WR_CQE] = {"CQE writer", KIND(OBJ_CQ), 0},
	[RNIC_DMA_ID_WR_PLACE] = {"requester placement writer", 0, WIN(WIN_PLACE)},
};

static const struct engine no_engine = {"DMA engine with an unknown AXI ID", 0, 0, 0};

static const struct engine *engine_of(int write, unsigned int id)
{
	const struct engine *t = write ? wr_engine : rd_engine;
	size_t n = write ? sizeof(wr_engine) / sizeof(wr_engine[0]) :
			   sizeof(rd_engine) / sizeof(rd_engine[0]);

	return id < n && t[id].name ? &t[id] : &no_engine;
}

/* A set of disjoint, sorted, half-open intervals (an MR's window of one
 * kind, in VA space). */
struct ivs {
	uint64_t *iv; /* lo0, hi0, lo1, hi1, ... */
	int n, cap;
};

/* First interval whose hi > x. */
static int ivs_find(const struct ivs *s, uint64_t x)
{
	int lo = 0, hi = s->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->iv[2 * mid + 1] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int ivs_add(struct ivs *s, uint64_t a, uint64_t b)
{
	int i, j;

	if (a >= b)
		return 0;
	i = ivs_find(s, a);              /* first that ends after a ... */
	if (i > 0 && s->iv[2 * i - 1] == a)
		i--;                     /* ... or touches it */
	for (j = i; j < s->n && s->iv[2 * j] <= b; j++) {
		if (s->iv[2 * j] < a)
			a = s->iv[2 * j];
		if (s->iv[2 * j + 1] > b)
			b = s->iv[2 * j + 1];
	}
	if (j == i) { /* nothing merged: insert */
		if (s->n == s->cap) {
			int cap = s->cap ? 2 * s->cap : 8;
			uint64_t *p = realloc(s->iv, (size_t)cap * 2 * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->iv = p;
			s->cap = cap;
		}
		memmove(&s->iv[2 * i + 2], &s->iv[2 * i], (size_t)(s->n - i) * 2 * sizeof(*s->iv));
		s->n++;
	} else if (j > i + 1) { /* intervals i..j-1 become one */
		memmove(&s->iv[2 * i + 2], &s->iv[2 * j], (size_t)(s->n - j) * 2 * sizeof(*s->iv));
		s->n -= j - i - 1;
	}
	s->iv[2 * i] = a;
	s->iv[2 * i + 1] = b;
	return 0;
}

/* Bytes from x the set covers without a gap (0: x is outside). */
static uint64_t ivs_run(const struct ivs *s, uint64_t x)
{
	int i = ivs_find(s, x);

	return i < s->n && s->iv[2 * i] <= x ? s->iv[2 * i + 1] - x : 0;
}

/* One granted object (a ring or an MR). */
struct mobj {
	int kind;
	int enabled;      /* the device may use it now */
	int dead;
	int have_id;
	uint32_t id;      /* CQN, QPN or key */
	uint32_t pd;
	uint32_t access;  /* MR: its access; SQ: the QP's qp_access_flags */
	uint64_t va, len; /* MR: VA range; rings: bus range */
	uint64_t npages, written;
	uint64_t *pages;  /* MR: bus page of each page */
	uint8_t *shadow;  /* SQ, RQ: the ring as the device last read it; CQ: as written */
	struct ivs win[WIN_N]; /* MR: its windows; MW: those opened through its key (MR VAs) */
	/* MW: its type and, while bound, the MR object, the MR VA of its first
	 * byte, the address the wire names it by (va, or 0 zero-based), its
	 * length, rights and (type 2) QP */
	int mw_type, mw_bound, mw_mr;
	uint64_t mw_va, mw_base, mw_len;
	uint32_t mw_access, mw_qpn;
};

/* The part of an object inside one bus page: bytes [lo, hi) of it. */
struct piece {
	uint64_t page;
	uint64_t va;      /* MR: VA of byte lo; rings: bus address of byte lo */
	uint32_t lo, hi;
	int obj;
	int next; /* chain of the page's hash bucket */
};

struct wburst {
	uint64_t addr;
	uint16_t beats, beat;
	uint8_t size, type, faulted, id;
};

/* A ring read whose data the checker reads too. */
struct rburst {
	uint64_t addr;
	uint16_t beats, beat;
	uint8_t size, type;
	int obj; /* SQ or RQ ring object, else -1 */
};

struct memcheck {
	int index;
	unsigned int bus_bytes;
	int fatal;
	struct memcheck_frames *frames;

	struct mobj *objs;
	int nobjs, cap_objs;
	struct piece *pieces;
	int npieces, cap_pieces;
	int *buckets;
	unsigned int nbuckets; /* power of two */

	/* the mailbox as the host sees it */
	uint32_t in[RNIC_REG_CMD_IN_COUNT];
	int busy;
	uint32_t op, token;
	uint32_t pin[RNIC_REG_CMD_IN_COUNT]; /* CMD_IN when CMD_CTRL was written */
	int out_obj[2]; /* objects waiting for their handle from CMD_OUT word 0 */
	int out_nobj;
	uint32_t last_op;

	struct wburst awq[AWQ_MAX];
	unsigned int awq_head, awq_count;
	struct rburst arq[SNOOP_IDS][ARQ_MAX];
	unsigned int arq_head[SNOOP_IDS], arq_count[SNOOP_IDS];

	int mws; /* window objects ever made (allowed_run looks at them) */

	struct rnic_sim_memcheck_stats st;
	struct rnic_sim_violation viol[VIOL_LOG];
};

/* What an object owns; a dead object keeps only its slot. */
static void free_obj_memory(struct mobj *o)
{
	free(o->pages);
	o->pages = NULL;
	o->npages = 0;
	free(o->shadow);
	o->shadow = NULL;
	for (int w = 0; w < WIN_N; w++) {
		free(o->win[w].iv);
		memset(&o->win[w], 0, sizeof(o->win[w]));
	}
}

struct memcheck *memcheck_create(int index, unsigned int bus_bytes, int fatal,
				 struct memcheck_frames *frames)
{
	struct memcheck *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->index = index;
	m->bus_bytes = bus_bytes;
	m->fatal = fatal;
	m->frames = frames;
	m->nbuckets = 1024;
	m->buckets = malloc(m->nbuckets * sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	memset(m->buckets, 0xff, m->nbuckets * sizeof(*m->buckets));
	return m;
}

void memcheck_destroy(struct memcheck *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nobjs; i++)
		free_obj_memory(&m->objs[i]);
	free(m->objs);
	free(m->pieces);
	free(m->buckets);
	free(m);
}

/* ---------------------------------------------------------------- mirror */

static unsigned int bucket_of(const struct memcheck *m, uint64_t page)
{
	return (unsigned int)((page * 0x9e3779b97f4a7c15ull) >> 40) & (m->nbuckets - 1);
}

static int rehash(struct memcheck *m)
{
	unsigned int n = m->nbuckets * 2;
	int *b = malloc(n * sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
	memset(b, 0xff, n * sizeof(*b));
	for (int i = 0; i < m->npieces; i++) {
		unsigned int k = bucket_of(m, m->pieces[i].page);

		m->pieces[i].next = b[k];
		b[k] = i;
	}
	return 0;
}

static int add_piece(struct memcheck *m, int obj, uint64_t page, uint32_t lo, uint32_t hi,
		     uint64_t va)
{
	unsigned int k;

	if (m->npieces == m->cap_pieces) {
		int cap = m->cap_pieces ? 2 * m->cap_pieces : 256;
		struct piece *p = realloc(m->pieces, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->pieces = p;
		m->cap_pieces = cap;
	}
	if ((unsigned int)m->npieces >= m->nbuckets && rehash(m))
		return -ENOMEM;
	k = bucket_of(m, page);
	m->pieces[m->npieces] = (struct piece){page, va, lo, hi, obj, m->buckets[k]};
	m->buckets[k] = m->npieces++;
	return 0;
}

/* Pieces of the bus range [base, base + len), whose first byte is at va. */
static int add_range(struct memcheck *m, int obj, uint64_t base, uint64_t len, uint64_t va)
{
	uint64_t a = base, end = base + len;

	if (len == 0 || end < base)
		return 0;
	while (a < end) {
		uint64_t page = a >> PAGE_SHIFT;
		uint64_t pend = (page + 1) << PAGE_SHIFT;
		uint64_t e = end < pend ? end : pend;

		if (add_piece(m, obj, page, (uint32_t)(a & (PAGE_BYTES - 1)),
			      (uint32_t)(e - (page << PAGE_SHIFT)), va + (a - base)))
			return -ENOMEM;
		a = e;
	}
	return 0;
}

static int new_obj(struct memcheck *m, int kind)
{
	struct mobj *o;

	if (m->nobjs == m->cap_objs) {
		int cap = m->cap_objs ? 2 * m->cap_objs : 64;
		struct mobj *p = realloc(m->objs, (size_t)cap * sizeof(*p));

		if (!p)
			return -1;
		m->objs = p;
		m->cap_objs = cap;
	}
	o = &m->objs[m->nobjs];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	return m->nobjs++;
}

static int find_obj(const struct memcheck *m, int kind, uint32_t id)
{
	for (int i = m->nobjs - 1; i >= 0; i--)
		if (m->objs[i].kind == kind && m->objs[i].have_id && m->objs[i].id == id &&
		    !m->objs[i].dead)
			return i;
	return -1;
}

static void kill_obj(struct memcheck *m, int i)
{
	struct mobj *o;

	if (i < 0)
		return;
	o = &m->objs[i];
	o->dead = 1;
	o->enabled = 0;
	m->st.objects_live--;
	free_obj_memory(o);
}

/* A window's binding ends (unbind, rebind, invalidation, deallocation):
 * what was opened through its key closes with it. */
static void mw_unbind(struct mobj *w)
{
	for (int k = 0; k < WIN_N; k++) {
		free(w->win[k].iv);
		memset(&w->win[k], 0, sizeof(w->win[k]));
	}
	w->mw_bound = 0;
}

/* The live window object of MPT index idx (any tag), else -1. */
static int mw_obj(const struct memcheck *m, uint32_t idx)
{
	for (int i = m->nobjs - 1; i >= 0; i--)
		if (m->objs[i].kind == OBJ_MW && m->objs[i].have_id && !m->objs[i].dead &&
		    m->objs[i].id >> RNIC_MKEY_TAG_BITS == idx)
			return i;
	return -1;
}

/* A ring object over [base, base + len), enabled at once or not. */
static int grant_ring(struct memcheck *m, int kind, uint64_t base, uint64_t len, int enabled)
{
	int o = new_obj(m, kind);

	if (o < 0)
		return -1;
	m->objs[o].va = base;
	m->objs[o].len = len;
	m->objs[o].enabled = enabled;
	m->st.objects_live++;
	if (add_range(m, o, base, len, base))
		return -1;
	return o;
}

static void grant_mr_pages(struct memcheck *m, int o)
{
	struct mobj *mr = &m->objs[o];
	uint64_t first = mr->va >> PAGE_SHIFT << PAGE_SHIFT, end = mr->va + mr->len;

	for (uint64_t i = 0; i < mr->npages; i++) {
		uint64_t pva = first + (i << PAGE_SHIFT);
		uint64_t lo = i == 0 ? mr->va - pva : 0;
		uint64_t hi = end - pva >= PAGE_BYTES ? PAGE_BYTES : end - pva;

		add_range(m, o, mr->pages[i] + lo, hi - lo, pva + lo);
	}
	mr->enabled = 1;
}

static void set_qp_enabled(struct memcheck *m, uint32_t qpn, int on)
{
	for (int i = 0; i < m->nobjs; i++) {
		struct mobj *o = &m->objs[i];

		if ((o->kind == OBJ_SQ || o->kind == OBJ_RQ) && o->have_id && o->id == qpn && !o->dead)
			o->enabled = on;
	}
}

/* A command the host saw complete with CMD_ST_OK. */
static void apply(struct memcheck *m, uint32_t op, const uint32_t *in)
{
	int o;

	m->out_nobj = 0;
	switch (op) {
	case RNIC_CMD_OP_CREATE_CQ: {
		uint64_t log = RNIC_CTX_GET(in, CMD_CREATE_CQ_IN, LOG_SIZE);

		o = grant_ring(m, OBJ_CQ, RNIC_CTX_GET(in, CMD_CREATE_CQ_IN, BASE),
			       (uint64_t)RNIC_CQE_BYTES << (log & 31), 1);
		if (o >= 0)
			m->out_obj[m->out_nobj++] = o;
		m->st.armed = 1;
		break;
	}
	case RNIC_CMD_OP_DESTROY_CQ:
		kill_obj(m, find_obj(m, OBJ_CQ, (uint32_t)RNIC_CTX_GET(in, CMD_DESTROY_CQ_IN, CQN)));
		break;
	case RNIC_CMD_OP_CREATE_QP: {
		uint64_t sql = RNIC_CTX_GET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE) & 31;
		uint64_t rql = RNIC_CTX_GET(in, CMD_CREATE_QP_IN, RQ_LOG_SIZE) & 31;
		uint64_t rqb = RNIC_CTX_GET(in, CMD_CREATE_QP_IN, RQ_BASE);
		uint32_t pd = (uint32_t)RNIC_CTX_GET(in, CMD_CREATE_QP_IN, PD);

		o = grant_ring(m, OBJ_SQ, RNIC_CTX_GET(in, CMD_CREATE_QP_IN, SQ_BASE),
			       (uint64_t)RNIC_WQE_BYTES << sql, 0);
		if (o >= 0) {
			m->objs[o].pd = pd;
			m->out_obj[m->out_nobj++] = o;
		}
		if (rqb) {
			o = grant_ring(m, OBJ_RQ, rqb, (uint64_t)RNIC_RECV_WQE_BYTES << rql, 0);
			if (o >= 0) {
				m->objs[o].pd = pd;
				m->out_obj[m->out_nobj++] = o;
			}
		}
		m->st.armed = 1;
		break;
	}
	case RNIC_CMD_OP_MODIFY_QP: {
		uint32_t qpn = (uint32_t)RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, QPN);
		uint64_t mask = RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, ATTR_MASK);

		if (mask & RNIC_QP_ATTR_ACCESS_FLAGS) {
			o = find_obj(m, OBJ_SQ, qpn);
			if (o >= 0)
				m->objs[o].access =
					(uint32_t)RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, QP_ACCESS_FLAGS);
		}
		if (mask & RNIC_QP_ATTR_STATE)
			set_qp_enabled(m, qpn,
				       RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, QP_STATE) != RNIC_QPS_RESET);
		break;
	}
	case RNIC_CMD_OP_DESTROY_QP: {
		uint32_t qpn = (uint32_t)RNIC_CTX_GET(in, CMD_DESTROY_QP_IN, QPN);

		kill_obj(m, find_obj(m, OBJ_SQ, qpn));
		kill_obj(m, find_obj(m, OBJ_RQ, qpn));
		break;
	}
	case RNIC_CMD_OP_CREATE_SRQ: {
		/* a shared receive queue's ring: its WQEs' SGEs open receive
		 * windows in the SRQ's PD, whichever QP's SEND takes them */
		uint64_t log = RNIC_CTX_GET(in, CMD_CREATE_SRQ_IN, LOG_SIZE) & 31;

		o = grant_ring(m, OBJ_SRQ, RNIC_CTX_GET(in, CMD_CREATE_SRQ_IN, BASE),
			       (uint64_t)RNIC_RECV_WQE_BYTES << log, 1);
		if (o >= 0) {
			m->objs[o].pd = (uint32_t)RNIC_CTX_GET(in, CMD_CREATE_SRQ_IN, PD);
			m->out_obj[m->out_nobj++] = o;
		}
		m->st.armed = 1;
		break;
	}
	case RNIC_CMD_OP_DESTROY_SRQ:
		kill_obj(m, find_obj(m, OBJ_SRQ, (uint32_t)RNIC_CTX_GET(in, CMD_DESTROY_SRQ_IN, SRQN)));
		break;
	case RNIC_CMD_OP_REG_MR: {
		uint64_t va = RNIC_CTX_GET(in, CMD_REG_MR_IN, VA);
		uint64_t len = RNIC_CTX_GET(in, CMD_REG_MR_IN, LENGTH);
		uint32_t acc = (uint32_t)RNIC_CTX_GET(in, CMD_REG_MR_IN, ACCESS);

		o = new_obj(m, OBJ_MR);
		if (o < 0)
			break;
		m->objs[o].va = va;
		m->objs[o].len = len;
		m->objs[o].access = acc;
		m->objs[o].pd = (uint32_t)RNIC_CTX_GET(in, CMD_REG_MR_IN, PD);
		m->objs[o].npages = len ? ((va + len - 1) >> PAGE_SHIFT) - (va >> PAGE_SHIFT) + 1 : 0;
		m->objs[o].pages = calloc(m->objs[o].npages ? m->objs[o].npages : 1, sizeof(uint64_t));
		m->st.objects_live++;
		m->out_obj[m->out_nobj++] = o;
		m->st.armed = 1;
		break;
	}
	case RNIC_CMD_OP_WRITE_MTT: {
		uint64_t off = RNIC_CTX_GET(in, CMD_WRITE_MTT_IN, OFFSET);
		uint64_t cnt = RNIC_CTX_GET(in, CMD_WRITE_MTT_IN, COUNT);
		struct mobj *mr;

		o = find_obj(m, OBJ_MR, (uint32_t)RNIC_CTX_GET(in, CMD_WRITE_MTT_IN, KEY));
		if (o < 0 || !m->objs[o].pages)
			break;
		mr = &m->objs[o];
		for (uint64_t i = 0; i < cnt && i < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT &&
				     off + i < mr->npages; i++)
			mr->pages[off + i] = RNIC_CTX_GET_I(in, CMD_WRITE_MTT_IN, PAGE, i) &
					     ~(PAGE_BYTES - 1);
		if (off + cnt > mr->written)
			mr->written = off + cnt;
		if (mr->written >= mr->npages && !mr->enabled)
			grant_mr_pages(m, o);
		break;
	}
	case RNIC_CMD_OP_DEREG_MR:
		kill_obj(m, find_obj(m, OBJ_MR, (uint32_t)RNIC_CTX_GET(in, CMD_DEREG_MR_IN, KEY)));
		break;
	case RNIC_CMD_OP_ALLOC_MW:
		/* unbound: its key opens nothing until a bind completes */
		o = new_obj(m, OBJ_MW);
		if (o < 0)
			break;
		m->mws++;
		m->objs[o].pd = (uint32_t)RNIC_CTX_GET(in, CMD_ALLOC_MW_IN, PD);
		m->objs[o].mw_type = (int)RNIC_CTX_GET(in, CMD_ALLOC_MW_IN, TYPE);
		m->objs[o].enabled = 1;
		m->st.objects_live++;
		m->out_obj[m->out_nobj++] = o;
		break;
	case RNIC_CMD_OP_DEALLOC_MW:
		o = mw_obj(m, (uint32_t)RNIC_CTX_GET(in, CMD_DEALLOC_MW_IN, RKEY) >> RNIC_MKEY_TAG_BITS);
		if (o >= 0) {
			mw_unbind(&m->objs[o]);
			kill_obj(m, o);
		}
		break;
	default:
		break;
	}
}

/* --------------------------------------------------------- BAR snooping */

void memcheck_bar_write(struct memcheck *m, uint32_t off, uint32_t val)
{
	if (off >= RNIC_REG_CMD_IN && off < RNIC_REG_CMD_IN + 4 * RNIC_REG_CMD_IN_COUNT) {
		if (!m->busy) /* the hardware ignores CMD_IN writes while busy */
			m->in[(off - RNIC_REG_CMD_IN) / 4] = val;
	} else if (off == RNIC_REG_CMD_CTRL && !m->busy) {
		m->busy = 1;
		m->op = val & RNIC_CMD_OPCODE_MASK;
		m->token = val >> RNIC_CMD_TOKEN_SHIFT & RNIC_CMD_TOKEN_MASK;
		memcpy(m->pin, m->in, sizeof(m->pin));
		m->out_nobj = 0;
	}
}

void memcheck_bar_read(struct memcheck *m, uint32_t off, uint32_t val)
{
	if (off == RNIC_REG_CMD_STATUS && m->busy && val != 0xffffffffu &&
	    !(val & RNIC_CMD_STATUS_BUSY) && !(val & RNIC_CMD_STATUS_HALTED) &&
	    (val >> RNIC_CMD_TOKEN_SHIFT & RNIC_CMD_TOKEN_MASK) == m->token) {
		m->busy = 0;
		m->st.commands++;
		m->last_op = m->op;
		if ((val >> RNIC_CMD_STATUS_ST_SHIFT & RNIC_CMD_STATUS_ST_MASK) == RNIC_CMD_ST_OK)
			apply(m, m->op, m->pin);
		else
			m->out_nobj = 0;
	} else if (off == RNIC_REG_CMD_OUT && !m->busy && m->out_nobj) {
		/* word 0 of CREATE_CQ, CREATE_QP, CREATE_SRQ and REG_MR outputs is the handle */
		for (int i = 0; i < m->out_nobj; i++) {
			m->objs[m->out_obj[i]].id = val;
			m->objs[m->out_obj[i]].have_id = 1;
		}
		m->out_nobj = 0;
	}
}

/* ----------------------------------------------------------- checking */

/* Bytes from bus address a that engine e may touch without a gap, within
 * a's page (0: none). *pc: a piece covering a (of an enabled object if
 * any), else -1, for the report. */
static uint64_t allowed_run(const struct memcheck *m, const struct engine *e, uint64_t a, int *pc)
{
	uint64_t page = a >> PAGE_SHIFT;
	uint32_t off = (uint32_t)(a & (PAGE_BYTES - 1));
	uint64_t best = 0;

	*pc = -1;
	for (int i = m->buckets[bucket_of(m, page)]; i >= 0; i = m->pieces[i].next) {
		const struct piece *p = &m->pieces[i];
		const struct mobj *o = &m->objs[p->obj];
		uint64_t run = 0;

		if (p->page != page || off < p->lo || off >= p->hi || o->dead)
			continue;
		if (*pc < 0 || (o->enabled && !m->objs[m->pieces[*pc].obj].enabled))
			*pc = i;
		if (!o->enabled)
			continue;
		if (o->kind != OBJ_MR) {
			if (e->kinds & KIND(o->kind))
				run = p->hi - off;
		} else {
			uint64_t va = p->va + (off - p->lo);

			for (int w = 0; w < WIN_N; w++) {
				uint64_t r;

				if (!(e->wins & WIN(w)))
					continue;
				r = ivs_run(&o->win[w], va);
				if (r > p->hi - off)
					r = p->hi - off;
				if (r > run)
					run = r;
			}
			/* ... or opened through the key of a window bound to it */
			for (int j = 0; m->mws && j < m->nobjs; j++) {
				const struct mobj *mw = &m->objs[j];

				if (mw->kind != OBJ_MW || mw->dead || !mw->mw_bound || mw->mw_mr != p->obj)
					continue;
				for (int w = 0; w < WIN_N; w++) {
					uint64_t r;

					if (!(e->wins & WIN(w)))
						continue;
					r = ivs_run(&mw->win[w], va);
					if (r > p->hi - off)
						r = p->hi - off;
					if (r > run)
						run = r;
				}
			}
		}
		if (run > best)
			best = run;
	}
	return best;
}

static void describe(const struct memcheck *m, const struct engine *e, int pc, int write,
		     uint64_t addr, char *buf, size_t n)
{
	const char *rw = write ? "write" : "read";
	const struct piece *p;
	const struct mobj *o;
	int len;

	if (pc < 0) {
		snprintf(buf, n, "%s: %s outside every region the host granted the device", e->name,
			 rw);
		return;
	}
	p = &m->pieces[pc];
	o = &m->objs[p->obj];
	if (o->kind != OBJ_MR) {
		snprintf(buf, n, "%s: %s of the %s of %s %u%s", e->name, rw, kind_name(o->kind),
			 o->kind == OBJ_CQ ? "CQ" : "QP", o->id,
			 !o->enabled ? " (QP in RESET)" : ": not this engine's ring");
		return;
	}
	len = snprintf(buf, n, "%s: %s of MR key 0x%x (pd %u, access 0x%x, va 0x%llx+%llu)", e->name,
		       rw, o->id, o->pd, o->access, (unsigned long long)o->va,
		       (unsigned long long)o->len);
	if (len < 0 || (size_t)len >= n)
		return;
	if (!o->enabled) {
		snprintf(buf + len, n - (size_t)len, ": MR not valid (page list incomplete)");
		return;
	}
	len += snprintf(buf + len, n - (size_t)len, " at va 0x%llx",
			(unsigned long long)(p->va + ((addr & (PAGE_BYTES - 1)) - p->lo)));
	if (len < 0 || (size_t)len >= n)
		return;
	if (!e->wins) {
		snprintf(buf + len, n - (size_t)len, ": this engine never touches MRs");
		return;
	}
	for (int w = 0, first = 1; w < WIN_N && (size_t)len < n; w++) {
		if (!(e->wins & WIN(w)))
			continue;
		len += snprintf(buf + len, n - (size_t)len, "%s%s", first ? ": not inside " : " or ",
				win_name[w]);
		first = 0;
	}
}

static void violation(struct memcheck *m, uint64_t cycle, const struct engine *e, uint64_t addr,
		      uint32_t len, int write, int pc)
{
	struct rnic_sim_violation *v;
	char what[sizeof(v->what)];

	describe(m, e, pc, write, addr, what, sizeof(what));
	if (m->st.violations < VIOL_LOG) {
		v = &m->viol[m->st.violations];
		v->cycle = cycle;
		v->addr = addr;
		v->len = len;
		v->write = (uint8_t)write;
		memcpy(v->what, what, sizeof(v->what));
	}
	m->st.violations++;
	if (m->st.violations <= VIOL_PRINT) {
		fprintf(stderr,
			"rnic-sim: nic%d: MEMORY PROTECTION VIOLATION at cycle %llu: DMA %s of %u "
			"byte(s) at bus 0x%llx: %s\n",
			m->index, (unsigned long long)cycle, write ? "write" : "read", len,
			(unsigned long long)addr, what);
		memcheck_frames_print(m->frames, m->index, stderr);
	}
	if (m->fatal) {
		fprintf(stderr, "rnic-sim: stopping at the first memory protection violation\n");
		exit(1);
	}
}

static unsigned int beat_size(const struct memcheck *m, unsigned int size)
{
	unsigned int n = 1u << (size & 7);

	return n > m->bus_bytes ? m->bus_bytes : n;
}

static uint64_t beat_addr(uint64_t addr, unsigned int type, unsigned int beats, unsigned int n,
			  unsigned int i)
{
	uint64_t aligned = addr & ~(uint64_t)(n - 1);

	if (type == 0 || i == 0)
		return addr;
	if (type == 2) {
		uint64_t total = (uint64_t)n * beats, lo = addr & ~(total - 1);

		return lo + ((aligned - lo + (uint64_t)i * n) & (total - 1));
	}
	return aligned + (uint64_t)i * n;
}

/* 1 if a strobed byte of the beat may not be written (reported). */
static int check_write_beat(struct memcheck *m, uint64_t cycle, const struct engine *e,
			    uint64_t addr, unsigned int n, uint64_t strb)
{
	uint64_t c = addr & ~(uint64_t)(n - 1);
	unsigned int lane0 = (unsigned int)(c % m->bus_bytes);
	uint64_t ok_end = c; /* bytes below this are known allowed */
	int pc;

	for (unsigned int k = 0; k < n; k++) {
		if (!((strb >> (lane0 + k)) & 1) || c + k < ok_end)
			continue;
		ok_end = c + k + allowed_run(m, e, c + k, &pc);
		if (ok_end == c + k) {
			unsigned int len = 0;

			for (unsigned int j = k; j < n && ((strb >> (lane0 + j)) & 1); j++)
				len++;
			violation(m, cycle, e, c + k, len, 1, pc);
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------- windows from WQEs and frames */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/* A remote access through the key of a memory window (remote: its MPT
 * index is a window's): opened on the window, in the MR's VAs, if the
 * window is bound with that key, in the QP's PD, (type 2) bound to this
 * QP, grants need and holds [va, va + len). 1 if key names a window. */
static int open_mw_window(struct memcheck *m, int w, uint32_t key, uint32_t pd, uint32_t qpn,
			  uint32_t need, uint64_t va, uint64_t len)
{
	int o = mw_obj(m, key >> RNIC_MKEY_TAG_BITS);
	struct mobj *mw;

	if (o < 0)
		return 0;
	mw = &m->objs[o];
	if (len == 0)
		return 1;
	if (!mw->mw_bound || mw->id != key || mw->pd != pd || (mw->mw_access & need) != need ||
	    (mw->mw_type == RNIC_MW_TYPE_2 && mw->mw_qpn != qpn) || va < mw->mw_base ||
	    va + len < va || va + len > mw->mw_base + mw->mw_len) {
		m->st.windows_refused++;
		return 1;
	}
	if (ivs_add(&mw->win[w], mw->mw_va + (va - mw->mw_base),
		    mw->mw_va + (va - mw->mw_base) + len) == 0)
		m->st.windows_opened++;
	return 1;
}

/* Open window w of [va, va + len) in the MR named by key if a QP in PD pd
 * may make that access with the MR's access flags; need: the flags the MR
 * must have. */
static void open_window(struct memcheck *m, int w, uint32_t key, uint32_t pd, uint32_t need,
			uint64_t va, uint64_t len)
{
	int o = find_obj(m, OBJ_MR, key);
	struct mobj *mr;

	if (len == 0)
		return;
	if (o < 0 || !(mr = &m->objs[o])->enabled || mr->pd != pd ||
	    (mr->access & need) != need || va < mr->va || va + len < va ||
	    va + len > mr->va + mr->len) {
		m->st.windows_refused++;
		return;
	}
	if (ivs_add(&mr->win[w], va, va + len) == 0)
		m->st.windows_opened++;
}

/* A send WQE of the QP whose SQ is ring object q, as the device read it. */
static void parse_send_wqe(struct memcheck *m, int q, const uint8_t *wqe)
{
	unsigned int op = wqe[offsetof(struct rnic_wqe, opcode)];
	unsigned int flags = wqe[offsetof(struct rnic_wqe, flags)];
	unsigned int nsge = wqe[offsetof(struct rnic_wqe, num_sge)];
	int place = op == RNIC_WR_RDMA_READ || op == RNIC_WR_ATOMIC_CMP_AND_SWP ||
		    op == RNIC_WR_ATOMIC_FETCH_AND_ADD;

	if ((flags & RNIC_WQE_FLAG_INLINE) && !place)
		return;
	if (nsge > RNIC_MAX_SEND_SGE)
		nsge = RNIC_MAX_SEND_SGE;
	for (unsigned int i = 0; i < nsge; i++) {
		const uint8_t *sge = wqe + offsetof(struct rnic_wqe, sge) + i * RNIC_SGE_BYTES;

		open_window(m, place ? WIN_PLACE : WIN_LREAD,
			    le32(sge + offsetof(struct rnic_sge, lkey)), m->objs[q].pd,
			    place ? RNIC_ACCESS_LOCAL_WRITE : 0,
			    le64(sge + offsetof(struct rnic_sge, addr)),
			    le32(sge + offsetof(struct rnic_sge, length)));
	}
}

static void parse_recv_wqe(struct memcheck *m, int q, const uint8_t *wqe)
{
	for (unsigned int i = 0; i < RNIC_MAX_RECV_SGE; i++) {
		const uint8_t *sge = wqe + offsetof(struct rnic_recv_wqe, sge) + i * RNIC_SGE_BYTES;
		uint32_t lkey = le32(sge + offsetof(struct rnic_sge, lkey));

		if (lkey == RNIC_INVALID_LKEY)
			break;
		open_window(m, WIN_RECV, lkey, m->objs[q].pd, RNIC_ACCESS_LOCAL_WRITE,
			    le64(sge + offsetof(struct rnic_sge, addr)),
			    le32(sge + offsetof(struct rnic_sge, length)));
	}
}

/* A BIND_MW or LOCAL_INV WQE completed with success, or a receive of a
 * SEND with invalidate (its CQE's owner byte written): the window's binding in the mirror follows, from the WQE as
 * the device fetched it (the SQ's shadow) and the checker's own view of
 * the MR. A bind the checker finds illegal leaves the window unbound, so
 * every access through it is a violation. Until the CQE, the mirror keeps
 * the old binding: the device's answer comes before it. */
static void mw_complete(struct memcheck *m, const uint8_t *cqe)
{
	uint32_t qpn = le32(cqe + offsetof(struct rnic_cqe, qpn)) & 0xffffffu;
	unsigned int cnt = (unsigned int)cqe[offsetof(struct rnic_cqe, wqe_counter)] |
			   (unsigned int)cqe[offsetof(struct rnic_cqe, wqe_counter) + 1] << 8;
	unsigned int op = cqe[offsetof(struct rnic_cqe, opcode)];
	int q, o, mro;
	const uint8_t *wqe;
	struct mobj *sq, *mw, *mr;
	uint32_t key, nkey, acc;
	uint64_t addr, len;

	if (cqe[offsetof(struct rnic_cqe, status)] != RNIC_WC_SUCCESS)
		return;
	if (op == RNIC_WC_RECV && (cqe[offsetof(struct rnic_cqe, wc_flags)] & RNIC_WC_FLAG_WITH_INV)) {
		/* a SEND with invalidate received: the type 2 window of the
		 * QP's PD whose current key the CQE names is unbound */
		key = be32(cqe + offsetof(struct rnic_cqe, imm_data));
		q = find_obj(m, OBJ_SQ, qpn);
		o = mw_obj(m, key >> RNIC_MKEY_TAG_BITS);
		if (q < 0 || o < 0 || (mw = &m->objs[o])->id != key || mw->pd != m->objs[q].pd ||
		    mw->mw_type != RNIC_MW_TYPE_2)
			return;
		m->st.mw_ops++;
		mw_unbind(mw);
		return;
	}
	if (op != RNIC_WC_BIND_MW && op != RNIC_WC_LOCAL_INV)
		return;
	q = find_obj(m, OBJ_SQ, qpn);
	if (q < 0 || !(sq = &m->objs[q])->shadow || sq->len < RNIC_WQE_BYTES)
		return;
	wqe = sq->shadow + (cnt % (sq->len / RNIC_WQE_BYTES)) * RNIC_WQE_BYTES;
	if (wqe[offsetof(struct rnic_wqe, opcode)] !=
	    (op == RNIC_WC_BIND_MW ? RNIC_WR_BIND_MW : RNIC_WR_LOCAL_INV))
		return;
	key = le32(wqe + offsetof(struct rnic_wqe, rkey));
	o = mw_obj(m, key >> RNIC_MKEY_TAG_BITS);
	if (o < 0 || (mw = &m->objs[o])->id != key || mw->pd != sq->pd)
		return;
	m->st.mw_ops++;
	mw_unbind(mw);
	if (op == RNIC_WC_LOCAL_INV)
		return;
	nkey = le32(wqe + offsetof(struct rnic_wqe, mw_new_rkey));
	if (nkey >> RNIC_MKEY_TAG_BITS == key >> RNIC_MKEY_TAG_BITS)
		mw->id = nkey;
	acc = le32(wqe + offsetof(struct rnic_wqe, bind_access));
	addr = le64(wqe + offsetof(struct rnic_wqe, remote_addr));
	len = le64(wqe + offsetof(struct rnic_wqe, compare_add));
	mro = find_obj(m, OBJ_MR, le32(wqe + offsetof(struct rnic_wqe, bind_lkey)));
	if (len == 0 || mro < 0)
		return;
	mr = &m->objs[mro];
	if (!mr->enabled || mr->pd != mw->pd || !(mr->access & RNIC_ACCESS_MW_BIND) ||
	    addr < mr->va || addr + len < addr || addr + len > mr->va + mr->len)
		return;
	mw->mw_bound = 1;
	mw->mw_mr = mro;
	mw->mw_va = addr;
	mw->mw_base = (acc & RNIC_ACCESS_ZERO_BASED) ? 0 : addr;
	mw->mw_len = len;
	mw->mw_access = acc & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			       RNIC_ACCESS_REMOTE_ATOMIC);
	mw->mw_qpn = qpn;
}

/* One W beat of the CQE writer: into the CQ ring's shadow; a CQE whose
 * owner byte it writes is complete. */
static void cqe_beat(struct memcheck *m, uint64_t addr, unsigned int n, const uint8_t *wdata,
		     uint64_t strb)
{
	uint64_t c = addr & ~(uint64_t)(n - 1), page = c >> PAGE_SHIFT;
	uint32_t off = (uint32_t)(c & (PAGE_BYTES - 1));
	unsigned int lane0 = (unsigned int)(c % m->bus_bytes);
	struct mobj *cq = NULL;

	for (int i = m->buckets[bucket_of(m, page)]; i >= 0; i = m->pieces[i].next) {
		const struct piece *p = &m->pieces[i];

		if (p->page == page && off >= p->lo && off < p->hi && !m->objs[p->obj].dead &&
		    m->objs[p->obj].kind == OBJ_CQ)
			cq = &m->objs[p->obj];
	}
	if (!cq || (!cq->shadow && !(cq->shadow = calloc(1, cq->len))))
		return;
	for (unsigned int k = 0; k < n; k++) {
		uint64_t at = c + k - cq->va;

		if (!((strb >> (lane0 + k)) & 1) || c + k < cq->va || at >= cq->len)
			continue;
		cq->shadow[at] = wdata[lane0 + k];
		if (at % RNIC_CQE_BYTES == RNIC_CQE_BYTES - 1)
			mw_complete(m, cq->shadow + at + 1 - RNIC_CQE_BYTES);
	}
}

/* The enabled SQ, RQ or SRQ ring object over bus address a, else -1. */
static int ring_at(const struct memcheck *m, uint64_t a)
{
	uint64_t page = a >> PAGE_SHIFT;
	uint32_t off = (uint32_t)(a & (PAGE_BYTES - 1));

	for (int i = m->buckets[bucket_of(m, page)]; i >= 0; i = m->pieces[i].next) {
		const struct piece *p = &m->pieces[i];
		const struct mobj *o = &m->objs[p->obj];

		if (p->page == page && off >= p->lo && off < p->hi && !o->dead && o->enabled &&
		    (o->kind == OBJ_SQ || o->kind == OBJ_RQ || o->kind == OBJ_SRQ))
			return p->obj;
	}
	return -1;
}

/* One R beat of a ring read: into the ring's shadow; every WQE whose last
 * byte this beat brings is parsed (the device may act on a WQE as soon as
 * it has it whole, before the rest of the burst), and at the burst's end
 * one it ends inside. A wrapping burst is parsed at its end. */
static void ring_beat(struct memcheck *m, struct rburst *b, const uint8_t *rdata)
{
	struct mobj *o = &m->objs[b->obj];
	unsigned int n = beat_size(m, b->size);
	uint64_t a = beat_addr(b->addr, b->type, b->beats, n, b->beat);
	uint64_t c = a & ~(uint64_t)(n - 1);
	unsigned int lane0 = (unsigned int)(c % m->bus_bytes);
	unsigned int stride = o->kind == OBJ_SQ ? RNIC_WQE_BYTES : RNIC_RECV_WQE_BYTES;
	int last = b->beat + 1u >= b->beats;
	uint64_t lo, hi;

	if (o->dead)
		return;
	if (!o->shadow && !(o->shadow = calloc(1, o->len)))
		return;
	for (unsigned int k = 0; k < n; k++)
		if (c + k >= o->va && c + k < o->va + o->len)
			o->shadow[c + k - o->va] = rdata[lane0 + k];
	if (b->type == 2) { /* a wrapping burst covers its aligned block */
		if (!last)
			return;
		lo = b->addr & ~((uint64_t)n * b->beats - 1);
		hi = lo + (uint64_t)n * b->beats;
	} else {
		lo = b->addr;
		hi = c + n; /* the burst's bytes so far */
	}
	if (lo < o->va)
		lo = o->va;
	if (hi > o->va + o->len)
		hi = o->va + o->len;
	for (uint64_t s = (lo - o->va) / stride * stride; o->va + s < hi; s += stride) {
		uint64_t end = o->va + s + stride;

		if (s + stride > o->len)
			break;
		if (b->type != 2 && !(end > c && end <= hi) && !(last && end > hi))
			continue; /* whole before this beat, parsed then */
		if (o->kind == OBJ_SQ)
			parse_send_wqe(m, b->obj, o->shadow + s);
		else
			parse_recv_wqe(m, b->obj, o->shadow + s);
	}
}

/* Where the BTH of a RoCEv2 frame starts (Ethernet, IPv4 or IPv6, UDP to
 * the RoCEv2 port) if its first n bytes hold one, else 0. */
static size_t bth_offset(const uint8_t *f, size_t n)
{
	const size_t ip = RNIC_ETH_HDR_BYTES;
	unsigned int et;
	size_t udp;

	if (n < ip)
		return 0;
	et = be16(f + 12);
	if (et == RNIC_ETHERTYPE_IPV4 && n >= ip + RNIC_IPV4_HDR_BYTES &&
	    f[ip + 9] == RNIC_IP_PROTO_UDP)
		udp = ip + (size_t)(f[ip] & 0xf) * 4;
	else if (et == RNIC_ETHERTYPE_IPV6 && n >= ip + RNIC_IPV6_HDR_BYTES &&
		 f[ip + 6] == RNIC_IP_PROTO_UDP)
		udp = ip + RNIC_IPV6_HDR_BYTES;
	else
		return 0;
	if (n < udp + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES ||
	    be16(f + udp + 2) != RNIC_ROCEV2_UDP_PORT)
		return 0;
	return udp + RNIC_UDP_HDR_BYTES;
}

/* The request opcodes whose BTH is followed by a RETH. */
static int has_reth(unsigned int opc)
{
	return opc == RNIC_OP_RDMA_WRITE_FIRST || opc == RNIC_OP_RDMA_WRITE_ONLY ||
	       opc == RNIC_OP_RDMA_WRITE_ONLY_IMM || opc == RNIC_OP_RDMA_READ_REQUEST;
}

void memcheck_rx_frame(struct memcheck *m, const uint8_t *f, size_t len)
{
	size_t at;
	const uint8_t *bth, *x;
	unsigned int opc;
	uint32_t dqpn;
	int q;

	if (!m || !m->st.armed || !(at = bth_offset(f, len)))
		return;
	bth = f + at;
	x = bth + RNIC_BTH_BYTES;
	opc = bth[0];
	dqpn = be32(bth + 4) & 0xffffff;
	q = find_obj(m, OBJ_SQ, dqpn);
	if (has_reth(opc)) {
		int rd = opc == RNIC_OP_RDMA_READ_REQUEST;
		uint32_t need = rd ? RNIC_ACCESS_REMOTE_READ : RNIC_ACCESS_REMOTE_WRITE;

		if ((size_t)(x - f) + RNIC_RETH_BYTES > len)
			return;
		m->st.requests_seen++;
		if (q < 0 || !m->objs[q].enabled || (m->objs[q].access & need) != need) {
			m->st.windows_refused++;
			return;
		}
		if (!open_mw_window(m, rd ? WIN_RREAD : WIN_RWRITE, be32(x + 8), m->objs[q].pd, dqpn,
				    need, be64(x), be32(x + 12)))
			open_window(m, rd ? WIN_RREAD : WIN_RWRITE, be32(x + 8), m->objs[q].pd, need,
				    be64(x), be32(x + 12));
	} else if (opc == RNIC_OP_COMPARE_SWAP || opc == RNIC_OP_FETCH_ADD) {
		uint64_t va;

		if ((size_t)(x - f) + RNIC_ATOMICETH_BYTES > len)
			return;
		m->st.requests_seen++;
		va = be64(x);
		if (q < 0 || !m->objs[q].enabled || !(m->objs[q].access & RNIC_ACCESS_REMOTE_ATOMIC) ||
		    (va & 7)) {
			m->st.windows_refused++;
			return;
		}
		if (!open_mw_window(m, WIN_RATOMIC, be32(x + 8), m->objs[q].pd, dqpn,
				    RNIC_ACCESS_REMOTE_ATOMIC, va, 8))
			open_window(m, WIN_RATOMIC, be32(x + 8), m->objs[q].pd, RNIC_ACCESS_REMOTE_ATOMIC,
				    va, 8);
	}
}

void memcheck_edge(struct memcheck *m, uint64_t cycle, const struct rnic_core_in *in,
		   const struct rnic_core_out *out)
{
	/* R data of ring reads (same-ID bursts return in order) */
	if (in->m_axi_rvalid && out->m_axi_rready && in->m_axi_rid < SNOOP_IDS &&
	    m->arq_count[in->m_axi_rid]) {
		unsigned int id = in->m_axi_rid;
		struct rburst *b = &m->arq[id][m->arq_head[id]];

		if (b->obj >= 0)
			ring_beat(m, b, in->m_axi_rdata);
		if (++b->beat >= b->beats) {
			m->arq_head[id] = (m->arq_head[id] + 1) % ARQ_MAX;
			m->arq_count[id]--;
		}
	}
	/* W before AW: a beat belongs to a burst accepted in an earlier cycle */
	if (in->m_axi_wready && out->m_axi_wvalid && m->awq_count) {
		struct wburst *b = &m->awq[m->awq_head];
		unsigned int n = beat_size(m, b->size);

		if (m->st.armed) {
			/* one violation per burst: its first bad beat */
			if (!b->faulted)
				b->faulted = (uint8_t)check_write_beat(
					m, cycle, engine_of(1, b->id),
					beat_addr(b->addr, b->type, b->beats, n, b->beat), n,
					out->m_axi_wstrb);
			m->st.wr_beats_checked++;
			/* window binds and invalidations take effect with their CQE */
			if (m->mws && b->id == RNIC_DMA_ID_WR_CQE)
				cqe_beat(m, beat_addr(b->addr, b->type, b->beats, n, b->beat), n,
					 out->m_axi_wdata, out->m_axi_wstrb);
		} else {
			m->st.wr_beats_unchecked++;
		}
		if (++b->beat >= b->beats) {
			m->awq_head = (m->awq_head + 1) % AWQ_MAX;
			m->awq_count--;
		}
	}
	if (in->m_axi_awready && out->m_axi_awvalid && m->awq_count < AWQ_MAX) {
		struct wburst *b = &m->awq[(m->awq_head + m->awq_count++) % AWQ_MAX];

		b->addr = out->m_axi_awaddr;
		b->beats = (uint16_t)(out->m_axi_awlen + 1u);
		b->beat = 0;
		b->faulted = 0;
		b->size = out->m_axi_awsize & 7;
		b->type = out->m_axi_awburst & 3;
		b->id = out->m_axi_awid;
	}
	if (in->m_axi_arready && out->m_axi_arvalid) {
		unsigned int beats = out->m_axi_arlen + 1u, n = beat_size(m, out->m_axi_arsize);
		unsigned int type = out->m_axi_arburst & 3, id = out->m_axi_arid;
		const struct engine *e = engine_of(0, id);
		uint64_t ok_end = 0; /* bytes below it, from a beat's start, are the engine's */

		if (e->wqes && id < SNOOP_IDS) {
			struct rburst *r;

			if (m->arq_count[id] == ARQ_MAX) { /* cannot happen: a WQE fetcher keeps few */
				fprintf(stderr, "rnic-sim: nic%d: memcheck: more than %u WQE reads "
						"outstanding on AXI ID %u\n", m->index, ARQ_MAX, id);
				abort();
			}
			r = &m->arq[id][(m->arq_head[id] + m->arq_count[id]++) % ARQ_MAX];
			*r = (struct rburst){out->m_axi_araddr, (uint16_t)beats, 0,
					     (uint8_t)(out->m_axi_arsize & 7), (uint8_t)type,
					     m->st.armed ? ring_at(m, out->m_axi_araddr) : -1};
		}
		if (!m->st.armed) {
			m->st.rd_bursts_unchecked++;
			return;
		}
		m->st.rd_bursts_checked++;
		/* a read beat passes when any byte of it is the engine's: an
		 * engine reads whole beats of which it may use a few */
		for (unsigned int i = 0; i < beats; i++) {
			uint64_t a = beat_addr(out->m_axi_araddr, type, beats, n, i);
			uint64_t c = a & ~(uint64_t)(n - 1);
			int pc, first_pc = -1;

			if (ok_end > c)
				continue;
			for (unsigned int k = 0; k < n && ok_end <= c; k++) {
				uint64_t r = allowed_run(m, e, c + k, &pc);

				if (c + k == a)
					first_pc = pc;
				if (r)
					ok_end = c + k + r;
			}
			if (ok_end <= c) {
				violation(m, cycle, e, a, (uint32_t)(n - (a & (n - 1))), 0, first_pc);
				break;
			}
		}
	}
}

void memcheck_stats(const struct memcheck *m, struct rnic_sim_memcheck_stats *st)
{
	*st = m->st;
}

uint64_t memcheck_violations(const struct memcheck *m, struct rnic_sim_violation *out, size_t max)
{
	size_t n = m->st.violations < VIOL_LOG ? (size_t)m->st.violations : VIOL_LOG;

	if (out)
		memcpy(out, m->viol, (n < max ? n : max) * sizeof(*out));
	return m->st.violations;
}

/* ------------------------------------------------- the frames on the wire */

#define FRAMES_KEPT 8
#define FRAME_HEAD 96

struct memcheck_frame {
	uint64_t cycle;
	int port; /* sender's port, or -1 - NIC for an injected frame */
	uint32_t len;
	uint8_t head[FRAME_HEAD];
};

struct memcheck_frames {
	struct memcheck_frame f[FRAMES_KEPT * RNIC_SIM_MAX_NICS];
	unsigned int next, count;
};

struct memcheck_frames *memcheck_frames_create(void)
{
	return calloc(1, sizeof(struct memcheck_frames));
}

void memcheck_frames_destroy(struct memcheck_frames *fr)
{
	free(fr);
}

void memcheck_frames_add(struct memcheck_frames *fr, int port, const uint8_t *frame, size_t len,
			 uint64_t cycle)
{
	const unsigned int cap = sizeof(fr->f) / sizeof(fr->f[0]);
	struct memcheck_frame *f = &fr->f[fr->next];

	f->cycle = cycle;
	f->port = port;
	f->len = (uint32_t)len;
	memcpy(f->head, frame, len < FRAME_HEAD ? len : FRAME_HEAD);
	fr->next = (fr->next + 1) % cap;
	if (fr->count < cap)
		fr->count++;
}

/* One line: cycle, length, and the BTH (and RETH) of a RoCEv2 frame. */
static void print_frame(const struct memcheck_frame *f, FILE *out)
{
	size_t n = f->len < FRAME_HEAD ? f->len : FRAME_HEAD;
	size_t at = bth_offset(f->head, n);

	fprintf(out, "    cycle %llu, %u bytes%s", (unsigned long long)f->cycle, f->len,
		f->port < 0 ? " (injected)" : "");
	if (at) {
		const uint8_t *bth = f->head + at;
		unsigned int opc = bth[0];

		fprintf(out, ": opcode 0x%02x dest_qpn %u psn %u", opc, be32(bth + 4) & 0xffffff,
			be32(bth + 8) & 0xffffff);
		if (has_reth(opc) && n >= at + RNIC_BTH_BYTES + RNIC_RETH_BYTES) {
			const uint8_t *r = bth + RNIC_BTH_BYTES;

			fprintf(out, " RETH va 0x%08x%08x rkey 0x%x len %u", be32(r), be32(r + 4),
				be32(r + 8), be32(r + 12));
		}
	}
	fprintf(out, "\n");
}

void memcheck_frames_print(const struct memcheck_frames *fr, int nic, FILE *out)
{
	const unsigned int cap = sizeof(fr->f) / sizeof(fr->f[0]);
	const struct memcheck_frame *pick[FRAMES_KEPT];
	unsigned int shown = 0;

	if (!fr)
		return;
	fprintf(out, "  the last frames on the wire not sent by nic%d (newest last):\n", nic);
	for (unsigned int i = 0; i < fr->count && shown < FRAMES_KEPT; i++) {
		const struct memcheck_frame *f = &fr->f[(fr->next + cap - 1 - i) % cap];

		if (f->port == nic || (f->port < 0 && -1 - f->port != nic))
			continue;
		pick[shown++] = f;
	}
	for (unsigned int i = shown; i-- > 0;)
		print_frame(pick[i], out);
	if (!shown)
		fprintf(out, "    (none)\n");
}
