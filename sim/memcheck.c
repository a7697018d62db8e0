/* OpenRNIC simulator: the memory-protection checker.
 *
 * Every DMA burst a NIC makes is checked against a mirror of what the host
 * granted the device, built independently of the NIC's own tables:
 *
 *   - the host's command-mailbox traffic, snooped at the BAR (CMD_IN and
 *     CMD_CTRL writes; the CMD_STATUS read that sees the command done, with
 *     its token and status; the CMD_OUT reads that return the new handle);
 *   - the bus pages the host handed to the device in WRITE_MTT, which are the
 *     IOMMU's pages of the MR (rnic_sim_dma_map_pages).
 *
 * Grants (docs/memcheck.md):
 *   CQ ring (CREATE_CQ .. DESTROY_CQ)          write only
 *   SQ and RQ rings of a QP not in RESET       read only
 *   MR bytes (REG_MR + every page by WRITE_MTT
 *     .. DEREG_MR)                             read; write with LOCAL_WRITE
 * A command changes the mirror only when the host saw it succeed. A write
 * beat is checked byte by byte under WSTRB; a read beat by its first
 * requested byte (DMA engines fetch whole beats, so the rest of a beat may
 * lie past the end of a region).
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

/* CMD_STATUS fields (docs/formats.toml, block cmd) */
#define ST_BUSY 0x1u
#define ST_HALTED 0x4u
#define ST_CODE(v) (((v) >> 8) & 0xffu)
#define ST_TOKEN(v) ((v) >> 16)
#define CTRL_OPCODE(v) ((v) & 0xffu)
#define CTRL_TOKEN(v) ((v) >> 16)

#define PAGE_SHIFT RNIC_MTT_PAGE_SHIFT
#define PAGE_BYTES (1ull << PAGE_SHIFT)
#define VIOL_LOG 16
#define VIOL_PRINT 4
#define AWQ_MAX 256

enum obj_kind { OBJ_CQ = 1, OBJ_SQ, OBJ_RQ, OBJ_MR };

static const char *kind_name(int k)
{
	switch (k) {
	case OBJ_CQ: return "CQ ring";
	case OBJ_SQ: return "SQ ring";
	case OBJ_RQ: return "RQ ring";
	case OBJ_MR: return "MR";
	default: return "?";
	}
}

#define PERM_R 1u
#define PERM_W 2u

/* One granted object (a ring or an MR). */
struct mobj {
	int kind;
	int enabled;      /* the device may use it now */
	int dead;
	int have_id;
	uint32_t id;      /* CQN, QPN or key */
	uint32_t pd;
	uint32_t access;  /* MR */
	uint64_t va, len; /* MR: VA range; rings: bus range */
	uint64_t npages, written;
	uint64_t *pages;  /* MR: bus page of each page */
	unsigned int perm;
};

/* The part of an object inside one bus page: bytes [lo, hi) of it. */
struct piece {
	uint64_t page;
	uint32_t lo, hi;
	int obj;
	int next; /* chain of the page's hash bucket */
};

struct wburst {
	uint64_t addr;
	uint16_t beats, beat;
	uint8_t size, type, faulted;
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

	struct rnic_sim_memcheck_stats st;
	struct rnic_sim_violation viol[VIOL_LOG];
};

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
		free(m->objs[i].pages);
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

static int add_piece(struct memcheck *m, int obj, uint64_t page, uint32_t lo, uint32_t hi)
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
	m->pieces[m->npieces] = (struct piece){page, lo, hi, obj, m->buckets[k]};
	m->buckets[k] = m->npieces++;
	return 0;
}

/* Pieces of the bus range [base, base + len). */
static int add_range(struct memcheck *m, int obj, uint64_t base, uint64_t len)
{
	uint64_t a = base, end = base + len;

	if (len == 0 || end < base)
		return 0;
	while (a < end) {
		uint64_t page = a >> PAGE_SHIFT;
		uint64_t pend = (page + 1) << PAGE_SHIFT;
		uint64_t e = end < pend ? end : pend;

		if (add_piece(m, obj, page, (uint32_t)(a & (PAGE_BYTES - 1)),
			      (uint32_t)(e - (page << PAGE_SHIFT))))
			return -ENOMEM;
		a = e;
	}
	return 0;
}

static int new_obj(struct memcheck *m, int kind, unsigned int perm)
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
	o->perm = perm;
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
	if (i < 0)
		return;
	m->objs[i].dead = 1;
	m->objs[i].enabled = 0;
	m->st.objects_live--;
}

/* A ring object over [base, base + len), enabled at once or not. */
static int grant_ring(struct memcheck *m, int kind, unsigned int perm, uint64_t base, uint64_t len,
		      int enabled)
{
	int o = new_obj(m, kind, perm);

	if (o < 0)
		return -1;
	m->objs[o].va = base;
	m->objs[o].len = len;
	m->objs[o].enabled = enabled;
	m->st.objects_live++;
	if (add_range(m, o, base, len))
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

		add_range(m, o, mr->pages[i] + lo, hi - lo);
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

		o = grant_ring(m, OBJ_CQ, PERM_W, RNIC_CTX_GET(in, CMD_CREATE_CQ_IN, BASE),
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

		o = grant_ring(m, OBJ_SQ, PERM_R, RNIC_CTX_GET(in, CMD_CREATE_QP_IN, SQ_BASE),
			       (uint64_t)RNIC_WQE_BYTES << sql, 0);
		if (o >= 0) {
			m->objs[o].pd = pd;
			m->out_obj[m->out_nobj++] = o;
		}
		if (rqb) {
			o = grant_ring(m, OBJ_RQ, PERM_R, rqb, (uint64_t)RNIC_RECV_WQE_BYTES << rql, 0);
			if (o >= 0) {
				m->objs[o].pd = pd;
				m->out_obj[m->out_nobj++] = o;
			}
		}
		m->st.armed = 1;
		break;
	}
	case RNIC_CMD_OP_MODIFY_QP:
		if (RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, ATTR_MASK) & RNIC_QP_ATTR_STATE)
			set_qp_enabled(m, (uint32_t)RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, QPN),
				       RNIC_CTX_GET(in, CMD_MODIFY_QP_IN, QP_STATE) != RNIC_QPS_RESET);
		break;
	case RNIC_CMD_OP_DESTROY_QP: {
		uint32_t qpn = (uint32_t)RNIC_CTX_GET(in, CMD_DESTROY_QP_IN, QPN);

		kill_obj(m, find_obj(m, OBJ_SQ, qpn));
		kill_obj(m, find_obj(m, OBJ_RQ, qpn));
		break;
	}
	case RNIC_CMD_OP_REG_MR: {
		uint64_t va = RNIC_CTX_GET(in, CMD_REG_MR_IN, VA);
		uint64_t len = RNIC_CTX_GET(in, CMD_REG_MR_IN, LENGTH);
		uint32_t acc = (uint32_t)RNIC_CTX_GET(in, CMD_REG_MR_IN, ACCESS);

		o = new_obj(m, OBJ_MR, PERM_R | (acc & RNIC_ACCESS_LOCAL_WRITE ? PERM_W : 0));
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
		m->op = CTRL_OPCODE(val);
		m->token = CTRL_TOKEN(val);
		memcpy(m->pin, m->in, sizeof(m->pin));
		m->out_nobj = 0;
	}
}

void memcheck_bar_read(struct memcheck *m, uint32_t off, uint32_t val)
{
	if (off == RNIC_REG_CMD_STATUS && m->busy && val != 0xffffffffu && !(val & ST_BUSY) &&
	    !(val & ST_HALTED) && ST_TOKEN(val) == m->token) {
		m->busy = 0;
		m->st.commands++;
		m->last_op = m->op;
		if (ST_CODE(val) == RNIC_CMD_ST_OK)
			apply(m, m->op, m->pin);
		else
			m->out_nobj = 0;
	} else if (off == RNIC_REG_CMD_OUT && !m->busy && m->out_nobj) {
		/* word 0 of CREATE_CQ, CREATE_QP and REG_MR outputs is the handle */
		for (int i = 0; i < m->out_nobj; i++) {
			m->objs[m->out_obj[i]].id = val;
			m->objs[m->out_obj[i]].have_id = 1;
		}
		m->out_nobj = 0;
	}
}

/* ----------------------------------------------------------- checking */

/* Permissions of bus byte a (the union of every enabled piece over it);
 * *obj: one object covering it (enabled or not), else -1. */
static unsigned int perm_at(const struct memcheck *m, uint64_t a, int *obj)
{
	uint64_t page = a >> PAGE_SHIFT;
	uint32_t off = (uint32_t)(a & (PAGE_BYTES - 1));
	unsigned int perm = 0;

	*obj = -1;
	for (int i = m->buckets[bucket_of(m, page)]; i >= 0; i = m->pieces[i].next) {
		const struct piece *p = &m->pieces[i];
		const struct mobj *o = &m->objs[p->obj];

		if (p->page != page || off < p->lo || off >= p->hi || o->dead)
			continue;
		if (*obj < 0 || o->enabled)
			*obj = p->obj;
		if (o->enabled)
			perm |= o->perm;
	}
	return perm;
}

static void describe(const struct memcheck *m, int obj, int write, char *buf, size_t n)
{
	const struct mobj *o;

	if (obj < 0) {
		snprintf(buf, n, "outside every region the host granted the device");
		return;
	}
	o = &m->objs[obj];
	if (o->kind == OBJ_MR)
		snprintf(buf, n, "%s of MR key 0x%x (pd %u, access 0x%x, va 0x%llx+%llu)%s",
			 write ? "write" : "read", o->id, o->pd, o->access, (unsigned long long)o->va,
			 (unsigned long long)o->len,
			 !o->enabled ? ": MR not valid (page list incomplete)" :
			 write ? ": MR registered without LOCAL_WRITE" : "");
	else
		snprintf(buf, n, "%s of the %s of %s %u%s", write ? "write" : "read",
			 kind_name(o->kind), o->kind == OBJ_CQ ? "CQ" : "QP", o->id,
			 !o->enabled ? " (QP in RESET)" :
			 o->kind == OBJ_CQ ? " (the device only writes CQ rings)" :
					     " (the device only reads SQ and RQ rings)");
}

static void violation(struct memcheck *m, uint64_t cycle, uint64_t addr, uint32_t len, int write,
		      int obj)
{
	struct rnic_sim_violation *v;
	char what[sizeof(v->what)];

	describe(m, obj, write, what, sizeof(what));
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
static int check_write_beat(struct memcheck *m, uint64_t cycle, uint64_t addr, unsigned int n,
			    uint64_t strb)
{
	uint64_t c = addr & ~(uint64_t)(n - 1);
	unsigned int lane0 = (unsigned int)(c % m->bus_bytes);
	int obj;

	for (unsigned int k = 0; k < n; k++) {
		if (!((strb >> (lane0 + k)) & 1))
			continue;
		if (!(perm_at(m, c + k, &obj) & PERM_W)) {
			unsigned int len = 0;

			for (unsigned int j = k; j < n && ((strb >> (lane0 + j)) & 1); j++)
				len++;
			violation(m, cycle, c + k, len, 1, obj);
			return 1;
		}
	}
	return 0;
}

void memcheck_edge(struct memcheck *m, uint64_t cycle, const struct rnic_core_in *in,
		   const struct rnic_core_out *out)
{
	/* W before AW: a beat belongs to a burst accepted in an earlier cycle */
	if (in->m_axi_wready && out->m_axi_wvalid && m->awq_count) {
		struct wburst *b = &m->awq[m->awq_head];
		unsigned int n = beat_size(m, b->size);

		if (m->st.armed) {
			/* one violation per burst: its first bad beat */
			if (!b->faulted)
				b->faulted = (uint8_t)check_write_beat(
					m, cycle, beat_addr(b->addr, b->type, b->beats, n, b->beat), n,
					out->m_axi_wstrb);
			m->st.wr_beats_checked++;
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
	}
	if (in->m_axi_arready && out->m_axi_arvalid) {
		unsigned int beats = out->m_axi_arlen + 1u, n = beat_size(m, out->m_axi_arsize);
		unsigned int type = out->m_axi_arburst & 3;

		if (!m->st.armed) {
			m->st.rd_bursts_unchecked++;
			return;
		}
		m->st.rd_bursts_checked++;
		for (unsigned int i = 0; i < beats; i++) {
			uint64_t a = beat_addr(out->m_axi_araddr, type, beats, n, i);
			int obj;

			if (!(perm_at(m, a, &obj) & PERM_R)) {
				violation(m, cycle, a, (uint32_t)(n - (a & (n - 1))), 0, obj);
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

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One line: cycle, length, and the BTH (and RETH) of a RoCEv2 frame. */
static void print_frame(const struct memcheck_frame *f, FILE *out)
{
	size_t n = f->len < FRAME_HEAD ? f->len : FRAME_HEAD;
	size_t ip = RNIC_ETH_HDR_BYTES, udp = 0;
	unsigned int et = n >= RNIC_ETH_HDR_BYTES ? be16(f->head + 12) : 0;

	fprintf(out, "    cycle %llu, %u bytes%s", (unsigned long long)f->cycle, f->len,
		f->port < 0 ? " (injected)" : "");
	if (et == RNIC_ETHERTYPE_IPV4 && n > ip)
		udp = ip + (size_t)(f->head[ip] & 0xf) * 4;
	else if (et == RNIC_ETHERTYPE_IPV6)
		udp = ip + RNIC_IPV6_HDR_BYTES;
	if (udp && n >= udp + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES &&
	    be16(f->head + udp + 2) == RNIC_ROCEV2_UDP_PORT) {
		const uint8_t *bth = f->head + udp + RNIC_UDP_HDR_BYTES;
		unsigned int opc = bth[0];

		fprintf(out, ": opcode 0x%02x dest_qpn %u psn %u", opc, be32(bth + 4) & 0xffffff,
			be32(bth + 8) & 0xffffff);
		if ((opc == RNIC_OP_RDMA_WRITE_FIRST || opc == RNIC_OP_RDMA_WRITE_ONLY ||
		     opc == RNIC_OP_RDMA_WRITE_ONLY_IMM || opc == RNIC_OP_RDMA_READ_REQUEST) &&
		    n >= udp + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + RNIC_RETH_BYTES) {
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
