/* Lists of work requests checked against images of memory: see e2e_ops.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_ops.h"

uint64_t e2e_wr_seq = 0x10000;

uint64_t e2e_get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

uint64_t e2e_get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void e2e_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------------------------------------------------------------- wire */

int e2e_pair_of(const struct sim_pair *p, int s, uint32_t qpn)
{
	for (int i = 0; i < p->nqp; i++)
		if (p->side[s].qp[i] && p->side[s].qp[i]->qp_num == qpn)
			return i;
	return -1;
}

const uint8_t *e2e_bth_of(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + RNIC_ETH_HDR_BYTES, *udp = ip + RNIC_IPV4_HDR_BYTES;

	if (len < E2E_BTH_OFFSET + RNIC_BTH_BYTES || (f[12] << 8 | f[13]) != RNIC_ETHERTYPE_IPV4 ||
	    ip[9] != RNIC_IP_PROTO_UDP || (udp[2] << 8 | udp[3]) != RNIC_ROCEV2_UDP_PORT)
		return NULL;
	return udp + RNIC_UDP_HDR_BYTES;
}

static void tap_frame(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct e2e_world *x = arg;
	struct e2e_tap *tap = x->priv;
	const uint8_t *bth = e2e_bth_of(f, len);
	int q;

	(void)cycle;
	if (port < 0 || port > 1 || !bth)
		return;
	q = e2e_pair_of(&x->p, 1 - port, (uint32_t)e2e_get_be(bth + 5, 3)); /* destination QP */
	if (q >= 0)
		tap->fn(tap->state, port, q, bth, len);
}

static void tap_up(struct e2e_world *x)
{
	struct e2e_tap *tap = x->priv;

	memset(tap->state, 0, tap->size);
	rnic_world_set_frame_hook(x->w, tap_frame, x);
}

static void tap_down(struct e2e_world *x)
{
	rnic_world_set_frame_hook(x->w, NULL, NULL);
}

void e2e_tap_world_init(struct e2e_world *x, struct e2e_tap *tap, const char *name,
			const struct sim_pair_opts *o, e2e_frame_fn *fn, void *state, size_t size)
{
	e2e_world_init(x, name, o);
	memset(state, 0, size);
	tap->fn = fn;
	tap->state = state;
	tap->size = size;
	x->on_up = tap_up;
	x->on_down = tap_down;
	x->priv = tap;
}

int e2e_lossy_up(struct e2e_world *x)
{
	x->p_drop = 0.01;
	x->p_reorder = 0.01;
	x->p_dup = 0.01;
	x->p_corrupt = 0.001;
	x->idle_cycles = 1000000;
	x->max_wait_cycles = 60000000;
	if (!e2e_world_up(x))
		return 0;
	printf("  %s: seed %llu, drop 1%%, reorder 1%%, duplicate 1%%, corrupt 0.1%%\n", x->tag,
	       (unsigned long long)e2e_seed);
	return 1;
}

/* ---------------------------------------------------------------- memory */

static size_t span(const struct e2e_buf *b)
{
	return b->len + 2 * E2E_GUARD;
}

int e2e_mem_add(struct e2e_mem *m, struct e2e_world *x, int s, const char *name, size_t len, int access,
		int fill_random)
{
	int i = m->n, err;

	if (i >= E2E_MAX_BUFS)
		return -1;
	err = e2e_buf_init(&m->b[i], x->p.side[s].pd, len, access, fill_random);
	m->want[i] = err ? NULL : malloc(span(&m->b[i]));
	if (!m->want[i]) {
		printf("  buffer %s (%zu B on side %d): %s\n", name, len, s, strerror(err ? err : ENOMEM));
		e2e_buf_free(&m->b[i]);
		return -1;
	}
	memcpy(m->want[i], m->b[i].base, span(&m->b[i]));
	m->side[i] = s;
	m->name[i] = name;
	m->n++;
	return i;
}

void e2e_mem_free(struct e2e_mem *m)
{
	for (int i = 0; i < m->n; i++) {
		e2e_buf_free(&m->b[i]);
		free(m->want[i]);
	}
	memset(m, 0, sizeof(*m));
}

uint8_t *e2e_want_at(struct e2e_mem *m, int i, long off)
{
	return m->want[i] + E2E_GUARD + off;
}

void e2e_mem_set64(struct e2e_mem *m, int i, size_t off, uint64_t v)
{
	e2e_put_le64(m->b[i].p + off, v);
	e2e_put_le64(e2e_want_at(m, i, (long)off), v);
}

uint64_t e2e_mem_get64(const struct e2e_mem *m, int i, size_t off)
{
	return e2e_get_le64(m->b[i].p + off);
}

int e2e_mem_check(const struct e2e_mem *m)
{
	int ok = 1;

	for (int i = 0; i < m->n; i++) {
		const struct e2e_buf *b = &m->b[i];
		size_t n = span(b), first = n, ndiff = 0;
		long off;

		if (!memcmp(b->base, m->want[i], n))
			continue;
		for (size_t k = 0; k < n; k++) {
			if (b->base[k] == m->want[i][k])
				continue;
			if (first == n)
				first = k;
			ndiff++;
		}
		off = (long)first - E2E_GUARD;
		printf("  side %d buffer %s (%zu B): %zu bytes differ from what it must hold, the first at %+ld%s: 0x%02x, want 0x%02x\n",
		       m->side[i], m->name[i], b->len, ndiff, off,
		       off < 0 ? " (guard before it)" : off >= (long)b->len ? " (guard after it)" : "",
		       b->base[first], m->want[i][first]);
		if (off >= 0 && off < (long)b->len) {
			long at = off & ~7L;

			if (at + 8 <= (long)b->len)
				printf("    8 bytes at +%ld: 0x%016llx, want 0x%016llx\n", at,
				       (unsigned long long)e2e_get_le64(b->p + at),
				       (unsigned long long)e2e_get_le64(m->want[i] + E2E_GUARD + at));
		}
		ok = 0;
	}
	return ok;
}

/* ---------------------------------------------------------------- work */

int e2e_is_atomic(uint32_t opcode)
{
	return opcode == RNIC_WR_ATOMIC_CMP_AND_SWP || opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

struct e2e_op e2e_op_new(int side, int qp, uint32_t opcode)
{
	struct e2e_op o;

	memset(&o, 0, sizeof(o));
	o.side = side;
	o.qp = qp;
	o.opcode = opcode;
	o.rbuf = -1;
	o.status = RNIC_WC_SUCCESS;
	o.vendor_err = E2E_ANY;
	return o;
}

void e2e_op_sge(struct e2e_op *o, int buf, size_t off, uint32_t len)
{
	if (o->nsge < RNIC_MAX_SEND_SGE)
		o->sge[o->nsge++] = (struct e2e_lsge){buf, off, len};
}

struct e2e_op e2e_op_rw(int side, int qp, uint32_t opcode, int buf, size_t off, int rbuf, long roff,
			uint32_t len)
{
	struct e2e_op o = e2e_op_new(side, qp, opcode);

	e2e_op_sge(&o, buf, off, len);
	o.rbuf = rbuf;
	o.roff = roff;
	return o;
}

struct e2e_op e2e_op_atomic(int side, int qp, int cas, int buf, size_t off, int rbuf, long roff,
			    uint64_t cmp_add, uint64_t swap)
{
	struct e2e_op o = e2e_op_rw(side, qp, cas ? RNIC_WR_ATOMIC_CMP_AND_SWP : RNIC_WR_ATOMIC_FETCH_AND_ADD,
				    buf, off, rbuf, roff, 8);

	o.cmp_add = cmp_add;
	o.swap = swap;
	return o;
}

uint32_t e2e_op_len(const struct e2e_op *o)
{
	uint32_t n = 0;

	for (int i = 0; i < o->nsge; i++)
		n += o->sge[i].len;
	return n;
}

const char *e2e_op_name(uint32_t opcode)
{
	switch (opcode) {
	case RNIC_WR_ATOMIC_CMP_AND_SWP: return "CAS";
	case RNIC_WR_ATOMIC_FETCH_AND_ADD: return "FAA";
	case RNIC_WR_RDMA_READ: return "READ";
	case RNIC_WR_RDMA_WRITE: return "WRITE";
	case RNIC_WR_SEND: return "SEND";
	default: return "?";
	}
}

static uint32_t wc_opcode(uint32_t opcode)
{
	switch (opcode) {
	case RNIC_WR_ATOMIC_CMP_AND_SWP: return RNIC_WC_COMP_SWAP;
	case RNIC_WR_ATOMIC_FETCH_AND_ADD: return RNIC_WC_FETCH_ADD;
	case RNIC_WR_RDMA_READ: return RNIC_WC_RDMA_READ;
	case RNIC_WR_RDMA_WRITE: return RNIC_WC_RDMA_WRITE;
	default: return RNIC_WC_SEND;
	}
}

/* The images after op. ATOMIC: the original value into the SGEs, the
 * result into the target; READ copies the source into the SGEs, WRITE and
 * SEND the other way. */
static void op_apply(struct e2e_mem *m, const struct e2e_op *o)
{
	uint8_t *r;

	if (o->rbuf < 0)
		return; /* no data */
	r = e2e_want_at(m, o->rbuf, o->roff);
	if (e2e_is_atomic(o->opcode)) {
		uint64_t orig = e2e_get_le64(r), res;
		uint8_t b[8];
		int k = 0;

		if (o->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP)
			res = orig == o->cmp_add ? o->swap : orig;
		else
			res = orig + o->cmp_add;
		e2e_put_le64(b, orig);
		for (int i = 0; i < o->nsge && k < 8; i++) {
			memcpy(e2e_want_at(m, o->sge[i].buf, (long)o->sge[i].off), b + k, o->sge[i].len);
			k += (int)o->sge[i].len;
		}
		e2e_put_le64(r, res);
		return;
	}
	for (int i = 0; i < o->nsge; i++) {
		uint8_t *l = e2e_want_at(m, o->sge[i].buf, (long)o->sge[i].off);

		if (o->opcode == RNIC_WR_RDMA_READ)
			memmove(l, r, o->sge[i].len);
		else
			memmove(r, l, o->sge[i].len);
		r += o->sge[i].len;
	}
}

int e2e_op_fails(struct e2e_op *o, const struct e2e_err_def *d)
{
	o->status = d->status;
	o->vendor_err = d->syndrome;
	return d->status == RNIC_WC_LOC_PROT_ERR;
}

int e2e_resp_event_ok(struct e2e_world *x, int k, const struct e2e_err_def *d)
{
	struct rnic_qp *qp = x->p.side[1].qp[k];
	struct rnic_async_event ev;
	int want = -1, got = 0, other = 0;

	if (d->syndrome != E2E_ANY && (d->syndrome >> 5) == RNIC_AETH_KIND_NAK) {
		switch (d->syndrome & 0x1f) {
		case RNIC_AETH_NAK_INVALID_REQ: want = RNIC_EVENT_QP_REQ_ERR; break;
		case RNIC_AETH_NAK_REM_ACCESS_ERR: want = RNIC_EVENT_QP_ACCESS_ERR; break;
		case RNIC_AETH_NAK_REM_OP_ERR: want = RNIC_EVENT_QP_FATAL; break;
		default: break;
		}
	}
	/* data path -> firmware -> ring: a few firmware loop turns; where none
	 * is due, as long as one would take */
	for (int i = 0; i < 20; i++) {
		while (rnic_get_async_event(x->p.side[1].ctx, &ev) == 0) {
			if ((int)ev.event_type == want && ev.element.qp == qp)
				got++;
			else
				other++;
		}
		if (want >= 0 && got)
			break;
		rnic_world_step(x->w, 1000);
	}
	if (got == (want >= 0) && !other && (want < 0 || qp->state == RNIC_QPS_ERR))
		return 1;
	printf("  responder: %d event(s) %s for its QP (want %d), %d other(s), library QP state %u\n", got,
	       want >= 0 ? rnic_event_type_str((enum rnic_event_type)want) : "-", want >= 0, other, qp->state);
	return 0;
}

int e2e_qp_access(struct e2e_world *x, int s, int q, unsigned int access)
{
	struct rnic_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.qp_access_flags = access;
	return rnic_modify_qp(x->p.side[s].qp[q], &a, RNIC_QP_STATE | RNIC_QP_ACCESS_FLAGS);
}

void e2e_err_counters(struct e2e_world *x, uint32_t c[3])
{
	c[0] = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_NAK);
	c[1] = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_RX_ACCESS_ERR);
	c[2] = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_LOC_PROT_ERR);
}

void e2e_err_counters_check(struct e2e_world *x, const uint32_t c0[3], const char *what, uint32_t nak,
			    uint32_t acc, uint32_t prot)
{
	uint32_t c[3];

	if (!x->up || x->generation != 0)
		return;
	e2e_err_counters(x, c);
	c[0] -= c0[0];
	c[1] -= c0[1];
	c[2] -= c0[2];
	e2e_result(c[0] == nak && c[1] == acc && c[2] == prot,
		   "%s errors: responder sent %u NAKs (want %u), counted %u access errors (want %u); requester counted %u local protection errors (want %u)",
		   what, c[0], nak, c[1], acc, c[2], prot);
}

const char *e2e_st(const struct e2e_run *r, int j)
{
	return r->status[j] < 0 ? "no completion" : rnic_wc_status_str((uint32_t)r->status[j]);
}

int e2e_got(const struct e2e_run *r)
{
	return r->got[0] + r->got[1];
}

int e2e_wanted(const struct e2e_run *r)
{
	return r->want[0] + r->want[1];
}

/* The silent part of e2e_wc_check: does wc match w? */
static int wc_matches(const struct rnic_wc *wc, const struct e2e_want *w)
{
	return wc->wr_id == w->wr_id && wc->status == w->status &&
	       (w->opcode == E2E_ANY || wc->opcode == w->opcode) &&
	       (w->byte_len == E2E_ANY || wc->byte_len == w->byte_len) &&
	       (w->qp_num == E2E_ANY || wc->qp_num == w->qp_num) &&
	       (w->src_qp == E2E_ANY || wc->src_qp == w->src_qp) &&
	       (w->vendor_err == E2E_ANY || wc->vendor_err == w->vendor_err);
}

/* Check the completions that arrived on side s against the ops: each one
 * must be the next op of its QP (receive completions: the next SEND
 * towards that QP). */
static void check_side(struct e2e_world *x, const struct e2e_op *ops, int n, const uint64_t *id, int s,
		       const struct rnic_wc *wc, struct e2e_run *r)
{
	int next_send[SIM_PAIR_MAX_QPS], next_recv[SIM_PAIR_MAX_QPS], sends = 0;

	for (int q = 0; q < SIM_PAIR_MAX_QPS; q++)
		next_send[q] = next_recv[q] = 0;
	for (int j = 0; j < n; j++)
		sends += ops[j].opcode == RNIC_WR_SEND;
	for (int k = 0; k < r->got[s]; k++) {
		int q = e2e_pair_of(&x->p, s, wc[k].qp_num), recv = (wc[k].opcode & RNIC_WC_RECV) != 0, j;
		int *next = recv ? next_recv : next_send;
		struct e2e_want w;
		char what[96];

		if (q < 0) {
			if (r->bad_wc++ < E2E_MAX_PRINT)
				printf("  side %d completion %d names QP %u, no QP of this world\n", s, k, wc[k].qp_num);
			continue;
		}
		if (recv && !sends) {
			if (r->bad_wc++ < E2E_MAX_PRINT)
				printf("  side %d completion %d: a receive completion (wr_id 0x%llx), no SEND was posted\n",
				       s, k, (unsigned long long)wc[k].wr_id);
			continue;
		}
		for (j = next[q]; j < n; j++)
			if (ops[j].qp == q && (recv ? ops[j].side == 1 - s && ops[j].opcode == RNIC_WR_SEND :
					       ops[j].side == s))
				break;
		if (j >= n) {
			if (r->bad_wc++ < E2E_MAX_PRINT)
				printf("  side %d completion %d: wr_id 0x%llx status %s on QP pair %d, where no %s is outstanding\n",
				       s, k, (unsigned long long)wc[k].wr_id, rnic_wc_status_str(wc[k].status), q,
				       recv ? "receive" : "work request");
			continue;
		}
		next[q] = j + 1;
		w = e2e_want_status(recv ? ~id[j] : id[j], ops[j].status, x->p.side[s].qp[q]);
		if (ops[j].status == RNIC_WC_SUCCESS) {
			w.opcode = recv ? RNIC_WC_RECV : wc_opcode(ops[j].opcode);
			/* the message length, also of a READ; 8 for an ATOMIC */
			if (recv || ops[j].opcode == RNIC_WR_RDMA_READ || e2e_is_atomic(ops[j].opcode))
				w.byte_len = e2e_op_len(&ops[j]);
			if (recv)
				w.src_qp = x->p.side[1 - s].qp[q]->qp_num;
		} else {
			w.vendor_err = ops[j].vendor_err;
		}
		if (!recv)
			r->status[j] = wc[k].status;
		if (wc_matches(&wc[k], &w) || r->bad_wc++ >= E2E_MAX_PRINT)
			continue;
		snprintf(what, sizeof(what), "side %d %s completion of op %d (%s %u B on QP pair %d)", s,
			 recv ? "receive" : "send", j, e2e_op_name(ops[j].opcode), e2e_op_len(&ops[j]), q);
		if (wc[k].wr_id != w.wr_id)
			printf("  %s: wr_id 0x%llx, want 0x%llx; status %s\n", what,
			       (unsigned long long)wc[k].wr_id, (unsigned long long)w.wr_id,
			       rnic_wc_status_str(wc[k].status));
		else if (wc[k].status != w.status)
			printf("  %s: status %s, want %s\n", what, rnic_wc_status_str(wc[k].status),
			       rnic_wc_status_str(w.status));
		else
			e2e_wc_check(what, &wc[k], &w);
	}
}

int e2e_run_ops(struct e2e_world *x, struct e2e_mem *m, struct e2e_op *ops, int n, struct e2e_run *r)
{
	static struct rnic_send_wr wr[E2E_MAX_OPS];
	static struct rnic_sg_entry sg[E2E_MAX_OPS][RNIC_MAX_SEND_SGE];
	static struct rnic_wc wc[2][2 * E2E_MAX_OPS];
	static uint64_t id[E2E_MAX_OPS];
	uint64_t c0;
	int all;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < E2E_MAX_OPS; i++)
		r->status[i] = -1;
	if (n > E2E_MAX_OPS) {
		printf("  %d work requests, at most %d\n", n, E2E_MAX_OPS);
		return 0;
	}
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < n; i++) {
		struct e2e_op *o = &ops[i];
		const struct e2e_buf *rb = o->rbuf >= 0 ? &m->b[o->rbuf] : NULL;
		uint64_t raddr = rb ? (uint64_t)(uintptr_t)rb->p + (uint64_t)o->roff : 0;
		uint32_t rkey = rb && o->opcode != RNIC_WR_SEND ? rb->mr->rkey : 0;

		id[i] = e2e_wr_seq++;
		for (int k = 0; k < o->nsge; k++) {
			const struct e2e_buf *b = &m->b[o->sge[k].buf];

			sg[i][k] = e2e_sg(b->p + o->sge[k].off, o->sge[k].len, b->mr->lkey ^ (k ? 0 : o->lkey_xor));
		}
		wr[i].wr_id = id[i];
		wr[i].sg_list = o->nsge ? sg[i] : NULL;
		wr[i].num_sge = o->nsge;
		wr[i].opcode = o->opcode;
		wr[i].send_flags = RNIC_SEND_SIGNALED | (o->fence ? RNIC_SEND_FENCE : 0);
		if (o->rkey_set)
			rkey = o->rkey;
		if (o->raddr_set)
			raddr = o->raddr;
		rkey ^= o->rkey_xor;
		if (e2e_is_atomic(o->opcode)) {
			wr[i].wr.atomic.remote_addr = raddr;
			wr[i].wr.atomic.rkey = rkey;
			wr[i].wr.atomic.compare_add = o->cmp_add;
			wr[i].wr.atomic.swap = o->swap;
		} else {
			if (o->opcode != RNIC_WR_SEND)
				wr[i].wr.rdma.remote_addr = raddr;
			wr[i].wr.rdma.rkey = rkey;
		}
		r->want[o->side]++;
		if (o->opcode == RNIC_WR_SEND) {
			struct rnic_sg_entry rs = e2e_sg(rb->p + o->roff, e2e_op_len(o), rb->mr->lkey);

			r->want[1 - o->side]++;
			if (e2e_post_recv1(x->p.side[1 - o->side].qp[o->qp], ~id[i], &rs, 1))
				return 0;
		}
	}
	c0 = rnic_world_cycle(x->w);
	for (int i = 0, j; i < n; i = j) {
		struct rnic_send_wr *bad = NULL;
		int err;

		for (j = i + 1; j < n && ops[j].side == ops[i].side && ops[j].qp == ops[i].qp; j++)
			wr[j - 1].next = &wr[j];
		err = rnic_post_send(x->p.side[ops[i].side].qp[ops[i].qp], &wr[i], &bad);
		if (err) {
			printf("  post_send of ops %d..%d: %s (at op %d)\n", i, j - 1, strerror(err),
			       bad ? (int)(bad - wr) : -1);
			return 0;
		}
	}
	for (int i = 0; i < n; i++)
		if (ops[i].status == RNIC_WC_SUCCESS && !ops[i].unordered)
			op_apply(m, &ops[i]);
	all = e2e_wait_cqs(x, wc[0], r->want[0], wc[1], r->want[1], &r->got[0], &r->got[1]);
	r->cycles = rnic_world_cycle(x->w) - c0;
	for (int s = 0; s < 2; s++)
		check_side(x, ops, n, id, s, wc[s], r);
	if (r->bad_wc > E2E_MAX_PRINT)
		printf("  (%d more completions not as expected)\n", r->bad_wc - E2E_MAX_PRINT);
	r->wc_ok = all && !r->bad_wc;
	/* a failed op may have left bytes in its own SGEs; an unordered op's
	 * SGEs are the case's to check */
	for (int i = 0; i < n; i++) {
		if (!ops[i].sge_free && !ops[i].unordered)
			continue;
		for (int k = 0; k < ops[i].nsge; k++) {
			const struct e2e_lsge *l = &ops[i].sge[k];

			memcpy(e2e_want_at(m, l->buf, (long)l->off), m->b[l->buf].p + l->off, l->len);
		}
	}
	r->mem_ok = e2e_mem_check(m);
	return r->wc_ok && r->mem_ok;
}
