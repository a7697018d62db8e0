/* rnic-perf --sim-link (perf_link.h): our side of a perftest run against a
 * stock perftest on Linux rdma_rxe, the NIC simulated, its port a UDP
 * socket.
 *
 * Memory: one registered region of two parts, L (the local slots: the
 * requester's sources and READ/ATOMIC destinations, the receive buffers of
 * send_bw; tx-depth slots, each the message rounded up to 64 B plus 64
 * guard bytes) and R (max(size, 4096) bytes, its address the vaddr in our
 * key: what the peer WRITEs, READs and adds to, as perftest's own second
 * buffer half). L starts as the guard byte 0xa5, R as a pattern from the
 * seed; a guard page after the region is never registered.
 *
 * Who drives the traffic is perftest's choice: the client of the bw tests
 * and of read_lat is the requester, the server only answers; write_lat is
 * a ping-pong of WRITEs (each side waits for the last byte of the message
 * in its R to become the message count, then writes its own count in the
 * last byte of its message into the peer's buffer).
 *
 * What is checked, besides the exchange itself and every completion
 * (status, opcode, order):
 *   the wire model      every frame from the peer passes a model of a
 *                       correct responder (wire_frame): requests accepted in
 *                       PSN order only, from the PSN in the peer's key; it
 *                       applies accepted WRITEs and FETCH_ADDs to a copy of
 *                       R and keeps every SEND's bytes. At the end R must
 *                       equal that copy byte for byte (so R is untouched
 *                       where the peer only READ or only answered), and
 *                       every receive must equal its SEND on the wire; when
 *                       the peer drove the traffic the model must have
 *                       accepted its requests
 *   requester READ      each READ lands in its slot byte for byte equal to
 *                       the first READ of the same remote bytes (slots are
 *                       refilled with alternating bytes before each READ, so
 *                       data not written cannot pass); guard bytes untouched
 *   requester FETCH_ADD adds 1 each time to the peer's first word: the k-th
 *                       returns the first's value plus k
 *   responder           L untouched where the peer only addressed R
 * and at the end: no DMA outside a mapped range, the guard page untouched.
 *
 * Time: the peer runs on the wall clock, the NIC in simulated cycles, far
 * slower. While we wait for the peer's TCP message the world runs as long
 * as anything moves in it (and QUIET_CYCLES more), then blocks in
 * rnic_sim_udp_wait with simulated time standing still until a frame or
 * the TCP message arrives. While we are the requester the world runs
 * without pause, so the NIC's ACK timer (-u, code 8: 1.05 ms simulated,
 * a second or so of this machine's time) runs too and recovers lost frames;
 * the peer's answers, milliseconds away on the wall clock, come back after
 * some thousands of cycles, far inside it. Timings are simulated cycles
 * from the first post to the last completion at the stated clock: the
 * peer's wall-clock delays count as the few cycles they took to arrive, so
 * the figures describe neither side and are printed for completeness.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf_link.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"

#define GUARD 0xa5
#define CYCLE_BUFFER 4096u   /* what we offer as perftest's cycle buffer */
#define CACHE_LINE 64u
#define QUIET_CYCLES 25000u  /* run this long after the last activity before blocking */
#define STEP_CYCLES 256u
#define WAIT_MS 100

/* The peer's requests as they arrived on the wire, accepted in PSN order as
 * a correct responder accepts them (duplicates and packets after a gap
 * ignored): what R and the receive buffers must hold. */
struct wire {
	int on;            /* the peer's first PSN is known */
	uint32_t epsn;     /* next PSN to accept */
	uint32_t mtu;      /* bytes */
	uint8_t *shadow;   /* R as the accepted WRITEs and FETCH_ADDs leave it */
	uint64_t base;     /* R's address */
	size_t len;
	uint64_t va;       /* where the next WRITE payload byte goes */
	int bad_va;        /* a WRITE or FETCH_ADD outside R */
	uint64_t accepted; /* requests (packets) accepted */
	uint8_t *msgs;     /* SEND messages, `size` bytes apart */
	size_t msg_size;
	uint64_t nmsgs, maxmsgs;
	size_t msg_len;    /* bytes of the message being assembled */
};

struct lk {
	const struct perf_link_opts *o;
	struct rnic_world *w;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	struct rnic_mr *mr;
	uint8_t *buf, *L, *R, *pat;
	size_t buf_len, l_len, r_len, mr_len, stride;
	int depth;
	uint32_t psn;
	struct oob_session s;
	int connected, active, failed;
	uint64_t last_busy;
	struct timespec deadline;
	/* send_bw responder */
	uint64_t rposted, rdone;
	uint8_t *first; /* the first READ's bytes */
	uint64_t first_atomic;
	uint64_t cycles;
	uint64_t *lat;
	uint64_t nlat;
	struct wire wire;
};

static int err(struct lk *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int err(struct lk *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rnic-perf: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	k->failed = 1;
	return -1;
}

static int past_deadline(const struct lk *k)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > k->deadline.tv_sec ||
	       (now.tv_sec == k->deadline.tv_sec && now.tv_nsec > k->deadline.tv_nsec);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int is_server(const struct lk *k)
{
	return k->o->host == NULL;
}

static uint8_t *slot(const struct lk *k, uint64_t i)
{
	return k->L + (size_t)(i % (uint64_t)k->depth) * k->stride;
}


/* ------------------------------------------------------- the wire model */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void wire_put(struct wire *m, const uint8_t *d, size_t n)
{
	if (m->va < m->base || m->va - m->base > m->len || n > m->len - (m->va - m->base)) {
		m->bad_va = 1;
		return;
	}
	memcpy(m->shadow + (m->va - m->base), d, n);
	m->va += n;
}

static void wire_send(struct wire *m, const uint8_t *d, size_t n, int last)
{
	if (m->nmsgs < m->maxmsgs && m->msg_len + n <= m->msg_size)
		memcpy(m->msgs + m->nmsgs * m->msg_size + m->msg_len, d, n);
	m->msg_len += n;
	if (last) {
		m->nmsgs++;
		m->msg_len = 0;
	}
}

/* Every frame that reaches the NIC from the socket (world frame hook,
 * port -1): IPv4 RoCEv2 requests of the peer into the model. */
static void wire_frame(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct wire *m = arg;
	const uint8_t *ip = f + RNIC_ETH_HDR_BYTES, *udp, *bth, *p, *end;
	size_t ihl, tot;
	uint32_t psn, n;
	uint8_t op;

	(void)cycle;
	if (port != -1 || !m->on || len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES ||
	    (f[12] << 8 | f[13]) != RNIC_ETHERTYPE_IPV4 || ip[9] != IPPROTO_UDP)
		return;
	ihl = (size_t)(ip[0] & 15) * 4;
	tot = (size_t)(ip[2] << 8 | ip[3]);
	if (tot > len - RNIC_ETH_HDR_BYTES || tot < ihl + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + RNIC_ICRC_BYTES)
		return;
	udp = ip + ihl;
	if ((udp[2] << 8 | udp[3]) != RNIC_ROCEV2_UDP_PORT)
		return;
	bth = udp + RNIC_UDP_HDR_BYTES;
	op = bth[0];
	psn = be32(bth + 8) & 0xffffff;
	if (psn != m->epsn)
		return; /* a duplicate, or behind a lost packet: the responder drops it too */
	p = bth + RNIC_BTH_BYTES;
	end = ip + tot - RNIC_ICRC_BYTES - ((bth[1] >> 4) & 3);
	if (end < p)
		return;
	n = 1;
	switch (op) {
	case RNIC_OP_RDMA_WRITE_FIRST:
	case RNIC_OP_RDMA_WRITE_ONLY:
	case RNIC_OP_RDMA_WRITE_ONLY_IMM:
		if (end < p + RNIC_RETH_BYTES)
			return;
		m->va = be64(p);
		p += RNIC_RETH_BYTES + (op == RNIC_OP_RDMA_WRITE_ONLY_IMM ? RNIC_IMMDT_BYTES : 0);
		wire_put(m, p, (size_t)(end - p));
		break;
	case RNIC_OP_RDMA_WRITE_MIDDLE:
	case RNIC_OP_RDMA_WRITE_LAST:
	case RNIC_OP_RDMA_WRITE_LAST_IMM:
		p += op == RNIC_OP_RDMA_WRITE_LAST_IMM ? RNIC_IMMDT_BYTES : 0;
		wire_put(m, p, (size_t)(end - p));
		break;
	case RNIC_OP_SEND_FIRST:
	case RNIC_OP_SEND_MIDDLE:
		wire_send(m, p, (size_t)(end - p), 0);
		break;
	case RNIC_OP_SEND_LAST:
	case RNIC_OP_SEND_ONLY:
		wire_send(m, p, (size_t)(end - p), 1);
		break;
	case RNIC_OP_SEND_LAST_IMM:
	case RNIC_OP_SEND_ONLY_IMM:
		if (end < p + RNIC_IMMDT_BYTES)
			return;
		wire_send(m, p + RNIC_IMMDT_BYTES, (size_t)(end - p) - RNIC_IMMDT_BYTES, 1);
		break;
	case RNIC_OP_RDMA_READ_REQUEST: {
		uint32_t dma_len = end >= p + RNIC_RETH_BYTES ? be32(p + 12) : 0;

		/* a READ takes one PSN per response packet */
		n = dma_len ? (dma_len + m->mtu - 1) / m->mtu : 1;
		break;
	}
	case RNIC_OP_FETCH_ADD:
	case RNIC_OP_COMPARE_SWAP: {
		/* AtomicETH: VA, R_Key, swap or add data, compare data */
		uint64_t va, data, cmp, v;

		if (end < p + RNIC_ATOMICETH_BYTES)
			return;
		va = be64(p);
		data = be64(p + 12);
		cmp = be64(p + 20);
		if (va < m->base || va + 8 > m->base + m->len) {
			m->bad_va = 1;
			break;
		}
		memcpy(&v, m->shadow + (va - m->base), 8);
		if (op == RNIC_OP_FETCH_ADD)
			v += data;
		else if (v == cmp)
			v = data;
		memcpy(m->shadow + (va - m->base), &v, 8);
		break;
	}
	default:
		return; /* not a request */
	}
	m->epsn = (m->epsn + n) & 0xffffff;
	m->accepted++;
}

/* ---------------------------------------------------------------- setup */

static int setup(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	struct rnic_sim_cfg cfg;
	struct rnic_sim_udp_cfg uc;
	struct rnic_qp_init_attr ia;
	union rnic_gid gid;
	int e;

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 1;
	cfg.data_width = (unsigned)o->width;
	cfg.seed = o->seed;
	cfg.pcap_path = o->pcap;
	cfg.p_drop = o->drop;
	k->w = rnic_world_create(&cfg);
	if (!k->w)
		return err(k, "simulator: %s", strerror(errno));
	memset(&uc, 0, sizeof(uc));
	uc.local = o->local;
	uc.remote = o->remote;
	memcpy(uc.mac, o->mac, 6);
	memcpy(uc.ipv4, o->ip, 4);
	e = rnic_sim_attach_udp(k->w, 0, &uc);
	if (e)
		return err(k, "--sim-link: %s", strerror(-e));
	k->ctx = rnic_open_sim(k->w, 0);
	if (!k->ctx)
		return err(k, "open_sim: %s", strerror(errno));
	rnic_gid_from_ipv4(&gid, o->ip);
	if ((e = rnic_set_port_mac(k->ctx, o->mac)) || (e = rnic_set_gid(k->ctx, 0, &gid)))
		return err(k, "port address: %s", strerror(e));
	k->pd = rnic_alloc_pd(k->ctx);
	k->cq = k->pd ? rnic_create_cq(k->ctx, 2 * k->depth + 16) : NULL;
	if (!k->cq)
		return err(k, "alloc_pd/create_cq: %s", strerror(errno));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = k->cq;
	ia.recv_cq = k->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = (uint32_t)k->depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_wr = perf_test_opcode(o->test) == RNIC_WR_SEND ? (uint32_t)k->depth : 0;
	ia.cap.max_recv_sge = perf_test_opcode(o->test) == RNIC_WR_SEND ? 1 : 0;
	k->qp = rnic_create_qp(k->pd, &ia);
	if (!k->qp)
		return err(k, "create_qp: %s", strerror(errno));

	k->stride = ((o->size + 63) & ~(size_t)63) + 64;
	k->l_len = ((size_t)k->depth * k->stride + 4095) & ~(size_t)4095;
	k->r_len = ((o->size > CYCLE_BUFFER ? o->size : CYCLE_BUFFER) + 4095) & ~(size_t)4095;
	k->mr_len = k->l_len + k->r_len;
	k->buf_len = k->mr_len + 4096;
	k->buf = aligned_alloc(4096, k->buf_len);
	k->pat = malloc(k->r_len);
	k->first = malloc(o->size);
	if (!k->buf || !k->pat || !k->first)
		return err(k, "out of memory");
	k->L = k->buf;
	k->R = k->buf + k->l_len;
	memset(k->buf, GUARD, k->buf_len);
	for (size_t i = 0; i < k->r_len; i += 8) {
		uint64_t v = mix64(o->seed ^ (0x52ull << 56) ^ i);

		memcpy(k->pat + i, &v, 8);
	}
	memcpy(k->R, k->pat, k->r_len);
	k->wire.shadow = malloc(k->r_len);
	k->wire.msg_size = o->size;
	k->wire.maxmsgs = perf_test_opcode(o->test) == RNIC_WR_SEND ? o->iters : 0;
	k->wire.msgs = malloc(k->wire.maxmsgs * o->size + 1);
	if (!k->wire.shadow || !k->wire.msgs)
		return err(k, "out of memory");
	memcpy(k->wire.shadow, k->pat, k->r_len);
	k->wire.base = (uint64_t)(uintptr_t)k->R;
	k->wire.len = k->r_len;
	rnic_world_set_frame_hook(k->w, wire_frame, &k->wire);
	k->mr = rnic_reg_mr(k->pd, k->buf, k->mr_len,
			    RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
				    RNIC_ACCESS_REMOTE_ATOMIC);
	if (!k->mr)
		return err(k, "reg_mr: %s", strerror(errno));
	k->psn = (uint32_t)mix64(o->seed ^ 0x50534eull) & 0xffffff;
	return 0;
}

static void teardown(struct lk *k)
{
	if (k->mr)
		rnic_dereg_mr(k->mr);
	if (k->qp)
		rnic_destroy_qp(k->qp);
	if (k->cq)
		rnic_destroy_cq(k->cq);
	if (k->pd)
		rnic_dealloc_pd(k->pd);
	if (k->ctx)
		rnic_close_device(k->ctx);
	if (k->w)
		rnic_world_destroy(k->w);
	free(k->buf);
	free(k->pat);
	free(k->first);
	free(k->lat);
	free(k->wire.shadow);
	free(k->wire.msgs);
}

/* INIT, RTR and RTS from the peer's key. */
static int connect_qp(struct lk *k)
{
	const struct oob_key *pk = &k->s.peer_key;
	struct rnic_qp_attr a;
	int e;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	e = rnic_modify_qp(k->qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS);
	if (e)
		return err(k, "modify_qp INIT: %s", strerror(e));
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = k->s.active_mtu;
	a.dest_qp_num = pk->qpn;
	a.rq_psn = pk->psn;
	a.max_dest_rd_atomic = RNIC_MAX_RD_ATOMIC;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	memcpy(a.ah_attr.grh.dgid.raw, pk->gid, 16);
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.dmac, k->o->peer_mac, 6);
	e = rnic_modify_qp(k->qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
					      RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	if (e)
		return err(k, "modify_qp RTR: %s", strerror(e));
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = k->psn;
	a.timeout = k->o->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	/* never more READs/atomics outstanding than the peer said it serves */
	a.max_rd_atomic = pk->out_reads && pk->out_reads < RNIC_MAX_RD_ATOMIC ? (uint8_t)pk->out_reads
									 : RNIC_MAX_RD_ATOMIC;
	e = rnic_modify_qp(k->qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
					      RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
	if (e)
		return err(k, "modify_qp RTS: %s", strerror(e));
	k->connected = 1;
	k->wire.epsn = pk->psn & 0xffffff;
	k->wire.mtu = 128u << k->s.active_mtu;
	k->wire.on = 1;
	return 0;
}

/* ------------------------------------------------------- the responder side */

static int post_recv(struct lk *k)
{
	uint8_t *b = slot(k, k->rposted);
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)k->o->size, k->mr->lkey};
	struct rnic_recv_wr wr = {.wr_id = k->rposted, .sg_list = &sge, .num_sge = 1}, *bad;
	int e;

	memset(b, GUARD, k->stride);
	e = rnic_post_recv(k->qp, &wr, &bad);
	if (e)
		return err(k, "post_recv: %s", strerror(e));
	k->rposted++;
	return 0;
}

static size_t count_diff(const uint8_t *a, uint8_t b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b;
	return d;
}

/* Completions while we answer: receives of send_bw; anything else is wrong. */
static int drain_cq(struct lk *k)
{
	struct rnic_wc wc[8];
	int n = rnic_poll_cq(k->cq, 8, wc);

	if (n < 0)
		return err(k, "poll_cq: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		const uint8_t *b = slot(k, wc[i].wr_id);

		if (wc[i].status != RNIC_WC_SUCCESS || wc[i].opcode != RNIC_WC_RECV || wc[i].wr_id != k->rdone ||
		    wc[i].byte_len != k->o->size)
			return err(k, "completion wr_id %" PRIu64 " (want receive %" PRIu64 " of %zu B): %s, "
				   "opcode %u, byte_len %u", wc[i].wr_id, k->rdone, k->o->size,
				   rnic_wc_status_str(wc[i].status), wc[i].opcode, wc[i].byte_len);
		if (count_diff(b + k->o->size, GUARD, k->stride - k->o->size))
			return err(k, "receive %" PRIu64 ": written beyond its %zu bytes", k->rdone, k->o->size);
		if (k->rdone >= k->wire.nmsgs)
			return err(k, "receive %" PRIu64 ": completed, but only %" PRIu64 " SENDs were on the wire",
				   k->rdone, k->wire.nmsgs);
		if (memcmp(b, k->wire.msgs + k->rdone * k->o->size, k->o->size))
			return err(k, "receive %" PRIu64 ": differs from the SEND on the wire", k->rdone);
		k->rdone++;
		if (k->rposted < k->o->iters && post_recv(k))
			return -1;
	}
	return 0;
}

/* Run the world until fd is readable (oob's wait_readable). */
static int pump(void *arg, int fd)
{
	struct lk *k = arg;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		if (poll(&p, 1, 0) > 0)
			return 0;
		if (past_deadline(k))
			return err(k, "the peer did not answer within %u s", k->o->wall_limit);
		if (k->connected && drain_cq(k))
			return -1;
		if (rnic_world_busy(k->w) || rnic_sim_rx_pending(k->w, 0)) {
			rnic_world_step(k->w, STEP_CYCLES);
			k->last_busy = rnic_world_cycle(k->w);
		} else if (rnic_world_cycle(k->w) - k->last_busy < QUIET_CYCLES) {
			rnic_world_step(k->w, STEP_CYCLES);
		} else {
			int r = rnic_sim_udp_wait(k->w, fd, WAIT_MS);

			if (r < 0)
				return err(k, "waiting: %s", strerror(-r));
			if (r > 0)
				k->last_busy = rnic_world_cycle(k->w);
		}
	}
}

/* ------------------------------------------------------- the requester side */

static int post_one(struct lk *k, uint64_t i)
{
	const struct oob_key *pk = &k->s.peer_key;
	uint8_t *b = slot(k, i);
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)k->o->size, k->mr->lkey};
	struct rnic_send_wr wr, *bad;
	int e;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = perf_test_opcode(k->o->test);
	wr.send_flags = RNIC_SEND_SIGNALED;
	switch (wr.opcode) {
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		memset(b, GUARD, k->stride);
		wr.wr.atomic.remote_addr = pk->vaddr;
		wr.wr.atomic.rkey = pk->rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	case RNIC_WR_RDMA_READ:
		/* alternate fills: a READ that writes nothing cannot match */
		memset(b, (i & 1) ? 0x5a : GUARD, k->o->size);
		memset(b + k->o->size, GUARD, k->stride - k->o->size);
		wr.wr.rdma.remote_addr = pk->vaddr;
		wr.wr.rdma.rkey = pk->rkey;
		break;
	default:
		for (size_t j = 0; j < k->o->size; j++)
			b[j] = (uint8_t)(mix64(k->o->seed ^ (i << 32) ^ (j >> 3)) >> (8 * (j & 7)));
		wr.wr.rdma.remote_addr = pk->vaddr;
		wr.wr.rdma.rkey = pk->rkey;
		break;
	}
	e = rnic_post_send(k->qp, &wr, &bad);
	if (e)
		return err(k, "post_send %" PRIu64 ": %s", i, strerror(e));
	return 0;
}

static int check_done(struct lk *k, const struct rnic_wc *wc, uint64_t want)
{
	static const uint32_t wc_op[] = {
		[RNIC_WR_RDMA_WRITE] = RNIC_WC_RDMA_WRITE, [RNIC_WR_SEND] = RNIC_WC_SEND,
		[RNIC_WR_RDMA_READ] = RNIC_WC_RDMA_READ, [RNIC_WR_ATOMIC_FETCH_AND_ADD] = RNIC_WC_FETCH_ADD,
	};
	uint32_t op = perf_test_opcode(k->o->test);
	const uint8_t *b = slot(k, wc->wr_id);

	if (wc->status != RNIC_WC_SUCCESS || wc->opcode != wc_op[op] || wc->wr_id != want)
		return err(k, "completion wr_id %" PRIu64 " (want %" PRIu64 "): %s, opcode %u, vendor_err 0x%x",
			   wc->wr_id, want, rnic_wc_status_str(wc->status), wc->opcode, wc->vendor_err);
	if (op == RNIC_WR_RDMA_READ) {
		if (want == 0)
			memcpy(k->first, b, k->o->size);
		else if (memcmp(k->first, b, k->o->size))
			return err(k, "READ %" PRIu64 ": its data differ from the first READ of the same bytes", want);
		if (count_diff(b + k->o->size, GUARD, k->stride - k->o->size))
			return err(k, "READ %" PRIu64 ": written beyond its %zu bytes", want, k->o->size);
	} else if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD) {
		uint64_t v = get64(b);

		if (want == 0)
			k->first_atomic = v;
		else if (v != k->first_atomic + want)
			return err(k, "FETCH_ADD %" PRIu64 ": returned 0x%016" PRIx64 ", want 0x%016" PRIx64, want, v,
				   k->first_atomic + want);
		if (count_diff(b + 8, GUARD, k->stride - 8))
			return err(k, "FETCH_ADD %" PRIu64 ": written beyond its 8 bytes", want);
	}
	return 0;
}

static int run_requester(struct lk *k)
{
	uint64_t n = k->o->iters, posted = 0, done = 0, c0 = rnic_world_cycle(k->w), t_post[1024];
	unsigned int polls = 0;

	while (done < n) {
		struct rnic_wc wc[16];
		int got;

		while (posted < n && posted - done < (uint64_t)k->depth) {
			t_post[posted % 1024] = rnic_world_cycle(k->w);
			if (post_one(k, posted))
				return -1;
			posted++;
		}
		got = rnic_poll_cq(k->cq, 16, wc);
		if (got < 0)
			return err(k, "poll_cq: %s", strerror(-got));
		for (int i = 0; i < got; i++) {
			if (check_done(k, &wc[i], done))
				return -1;
			if (k->lat && done < k->o->iters)
				k->lat[k->nlat++] = rnic_world_cycle(k->w) - t_post[done % 1024];
			done++;
		}
		if (++polls % 4096 == 0 && past_deadline(k))
			return err(k, "%" PRIu64 " of %" PRIu64 " messages done after %u s", done, n, k->o->wall_limit);
	}
	k->cycles = rnic_world_cycle(k->w) - c0;
	return 0;
}

/* write_lat: perftest's ping-pong of WRITEs. */
static int wait_byte(struct lk *k, uint8_t want)
{
	volatile uint8_t *p = k->R + k->o->size - 1;
	unsigned int n = 0;

	while (*p != want) {
		rnic_world_step(k->w, 16);
		if (++n % 4096 == 0 && past_deadline(k))
			return err(k, "write_lat: no message %u from the peer", want);
	}
	return 0;
}

static int run_pingpong(struct lk *k)
{
	uint64_t n = k->o->iters, scnt = 0, rcnt = 0, ccnt = 0, c0 = rnic_world_cycle(k->w), t = 0;
	uint8_t *b = slot(k, 0);

	for (size_t j = 0; j < k->o->size; j++)
		b[j] = (uint8_t)(mix64(k->o->seed ^ (j >> 3)) >> (8 * (j & 7)));
	while (scnt < n || ccnt < n || rcnt < n) {
		if (rcnt < n && !(scnt < 1 && is_server(k))) {
			rcnt++;
			if (wait_byte(k, (uint8_t)rcnt))
				return -1;
			if (scnt)
				k->lat[k->nlat++] = rnic_world_cycle(k->w) - t;
		}
		if (scnt < n) {
			const struct oob_key *pk = &k->s.peer_key;
			struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)k->o->size, k->mr->lkey};
			struct rnic_send_wr wr, *bad;
			int e;

			memset(&wr, 0, sizeof(wr));
			b[k->o->size - 1] = (uint8_t)++scnt;
			wr.wr_id = scnt - 1;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = RNIC_WR_RDMA_WRITE;
			wr.send_flags = RNIC_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = pk->vaddr;
			wr.wr.rdma.rkey = pk->rkey;
			t = rnic_world_cycle(k->w);
			e = rnic_post_send(k->qp, &wr, &bad);
			if (e)
				return err(k, "post_send: %s", strerror(e));
		}
		if (ccnt < n) {
			struct rnic_wc wc;
			unsigned int polls = 0;
			int got;

			while ((got = rnic_poll_cq(k->cq, 1, &wc)) == 0)
				if (++polls % 4096 == 0 && past_deadline(k))
					return err(k, "write_lat: no completion of WRITE %" PRIu64, ccnt);
			if (got < 0 || check_done(k, &wc, ccnt))
				return got < 0 ? err(k, "poll_cq: %s", strerror(-got)) : -1;
			ccnt++;
		}
	}
	k->cycles = rnic_world_cycle(k->w) - c0;
	/* nothing of R beyond the message */
	if (memcmp(k->R + k->o->size, k->pat + k->o->size, k->r_len - k->o->size))
		return err(k, "write_lat: the peer wrote beyond its %zu bytes", k->o->size);
	return 0;
}

/* ---------------------------------------------------------------- the exchange */

static int hook(struct oob_session *s, int step, enum oob_step_kind kind, void *arg)
{
	struct lk *k = arg;

	(void)step;
	if (kind == OOB_STEP_KEYS && s->handshakes == 1 && !k->connected) {
		if (connect_qp(k))
			return -1;
		if (perf_test_opcode(k->o->test) == RNIC_WR_SEND && !k->active)
			while (k->rposted < k->o->iters && k->rposted < (uint64_t)k->depth)
				if (post_recv(k))
					return -1;
	}
	if (kind == OOB_STEP_TRAFFIC) {
		if (k->o->test == PERF_WRITE_LAT)
			return run_pingpong(k);
		if (k->active)
			return run_requester(k);
	}
	if (kind == OOB_STEP_REPORTS && k->active && k->cycles) {
		double secs = (double)k->cycles / (rnic_world_cfg(k->w)->clock_mhz * 1e6);

		s->report.size = k->o->size;
		s->report.iters = k->o->iters;
		s->report.bw_avg = (double)k->o->size * (double)k->o->iters / secs / 1048576.0;
		s->report.bw_peak = s->report.bw_avg;
		s->report.msg_rate = (double)k->o->iters / secs / 1e6;
	}
	return 0;
}

/* What the memory must look like at the end (see the top). */
static int check_memory(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	uint32_t op = perf_test_opcode(o->test);
	uint64_t faults = rnic_sim_nic_faults(rnic_world_nic(k->w, 0), NULL, 0);

	if (faults)
		return err(k, "the NIC made %" PRIu64 " DMA accesses outside mapped memory", faults);
	if (count_diff(k->buf + k->mr_len, GUARD, 4096))
		return err(k, "the page after the registered region changed");
	if (k->wire.bad_va)
		return err(k, "the peer addressed memory outside R (the wire model saw it)");
	/* the peer's requests drove this side: the model must have seen them */
	if ((!k->active || o->test == PERF_WRITE_LAT) && !k->wire.accepted)
		return err(k, "no request of the peer was seen on the wire");
	for (size_t i = 0; i < k->r_len; i++)
		if (k->R[i] != k->wire.shadow[i])
			return err(k, "R+%zu is 0x%02x, but the requests on the wire leave 0x%02x there (R+%zu.. as "
				   "the peer's accepted WRITEs and FETCH_ADDs write it)", i, k->R[i], k->wire.shadow[i], i);
	if (!k->active && op != RNIC_WR_SEND && count_diff(k->L, GUARD, k->l_len))
		return err(k, "L changed, but the peer only addressed R");
	if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD && !k->active)
		fprintf(stderr, "rnic-perf: the %" PRIu64 " FETCH_ADDs left R as the wire says\n", o->iters);
	return 0;
}

static void print_results(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	unsigned mhz = rnic_world_cfg(k->w)->clock_mhz;
	struct rnic_sim_udp_stats us;
	struct rnic_sim_link_stats ls;

	printf("---------------------------------------------------------------------------------------\n");
	printf(" %s %s against perftest %d.%02d over the simulated NIC's UDP link %s -> %s\n",
	       perf_test_name(o->test), is_server(k) ? "server" : "client", k->s.peer_major, k->s.peer_minor,
	       o->local, o->remote);
	printf(" Mtu : %u[B]  local QPN %#06x PSN %#08x  remote QPN %#06x PSN %#08x\n", 128u << k->s.active_mtu,
	       k->qp->qp_num, k->psn, k->s.peer_key.qpn, k->s.peer_key.psn);
	printf("---------------------------------------------------------------------------------------\n");
	if (k->cycles && k->lat && k->nlat) {
		uint64_t mn = k->lat[0], mx = k->lat[0], sum = 0;

		for (uint64_t i = 0; i < k->nlat; i++) {
			mn = k->lat[i] < mn ? k->lat[i] : mn;
			mx = k->lat[i] > mx ? k->lat[i] : mx;
			sum += k->lat[i];
		}
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]    t_avg[usec]   (simulated cycles at %u MHz)\n", mhz);
		printf(" %-7zu %-10" PRIu64 "      %-7.2f        %-7.2f        %-7.2f\n", o->size, o->iters,
		       (double)mn / mhz, (double)mx / mhz, (double)sum / (double)k->nlat / mhz);
	} else if (k->cycles) {
		double secs = (double)k->cycles / (mhz * 1e6);

		printf(" #bytes     #iterations    BW average[MB/sec]   MsgRate[Mpps]   (simulated cycles at %u MHz)\n", mhz);
		printf(" %-7zu    %-10" PRIu64 "       %-7.2f              %-7.6f\n", o->size, o->iters,
		       (double)o->size * (double)o->iters / secs / 1048576.0, (double)o->iters / secs / 1e6);
	} else {
		printf(" #bytes     #iterations    (the peer drove the traffic)\n");
		printf(" %-7zu    %-10" PRIu64 "\n", o->size, o->iters);
	}
	rnic_sim_udp_stats(k->w, 0, &us);
	rnic_world_link_stats(k->w, &ls);
	printf(" link: %" PRIu64 " frames sent, %" PRIu64 " lost (--drop), %" PRIu64 " received, %" PRIu64
	       " ARP replies; the peer's request packets in PSN order: %" PRIu64 "; verified: %s\n",
	       us.tx_frames, ls.dropped, us.rx_frames, us.arp_replies, k->wire.accepted, k->failed ? "NO" : "yes");
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

int perf_link_run(const struct perf_link_opts *o)
{
	struct lk k;
	char e[160];
	int lfd = -1, rc = 1;

	memset(&k, 0, sizeof(k));
	k.o = o;
	k.s.fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &k.deadline);
	k.deadline.tv_sec += o->wall_limit;
	k.active = o->test == PERF_WRITE_LAT || !is_server(&k);
	k.depth = perf_test_is_bw(o->test) ? o->tx_depth : 1;
	if ((uint64_t)k.depth > o->iters)
		k.depth = (int)o->iters;
	if (perf_test_opcode(o->test) == RNIC_WR_SEND && !k.active && o->iters > (uint64_t)k.depth)
		k.depth = o->iters < 512 ? (int)o->iters : 512; /* receives kept posted */
	if (!perf_test_is_bw(o->test)) {
		k.lat = calloc(o->iters, sizeof(*k.lat));
		if (!k.lat) {
			fprintf(stderr, "rnic-perf: out of memory\n");
			return 1;
		}
	}
	if (setup(&k))
		goto out;
	if (is_server(&k)) {
		struct pollfd p;

		lfd = oob_listen(NULL, o->port, NULL, e, sizeof(e));
		if (lfd < 0) {
			err(&k, "%s", e);
			goto out;
		}
		p.fd = lfd;
		p.events = POLLIN;
		if (poll(&p, 1, (int)o->wall_limit * 1000) != 1) {
			err(&k, "no perftest client connected to port %u within %u s", o->port, o->wall_limit);
			goto out;
		}
		k.s.fd = oob_accept(lfd, e, sizeof(e));
	} else {
		k.s.fd = oob_connect(o->host, o->port, e, sizeof(e));
	}
	if (k.s.fd < 0) {
		err(&k, "%s", e);
		goto out;
	}
	k.s.client = !is_server(&k);
	k.s.test = o->test;
	k.s.cycle_buffer = CYCLE_BUFFER;
	k.s.cache_line = CACHE_LINE;
	k.s.mtu = o->mtu;
	k.s.key.out_reads = RNIC_MAX_RD_ATOMIC;
	k.s.key.qpn = k.qp->qp_num;
	k.s.key.psn = k.psn;
	k.s.key.rkey = k.mr->rkey;
	k.s.key.vaddr = (uint64_t)(uintptr_t)k.R;
	{
		union rnic_gid g;

		rnic_gid_from_ipv4(&g, o->ip);
		memcpy(k.s.key.gid, g.raw, 16);
	}
	k.s.wait_readable = pump;
	k.s.wait_arg = &k;
	if (oob_run(&k.s, hook, &k)) {
		if (!k.failed)
			err(&k, "perftest exchange: %s", k.s.err);
		k.failed = 1;
	} else if (!k.failed) {
		/* what the peer's last frames (its final ACKs) still need */
		rnic_world_step(k.w, QUIET_CYCLES);
		if (drain_cq(&k) == 0 && perf_test_opcode(o->test) == RNIC_WR_SEND && !k.active && k.rdone != o->iters)
			err(&k, "%" PRIu64 " of %" PRIu64 " SENDs received", k.rdone, o->iters);
		check_memory(&k);
	}
	print_results(&k);
	rc = k.failed;
out:
	if (k.s.fd >= 0)
		close(k.s.fd);
	if (lfd >= 0)
		close(lfd);
	teardown(&k);
	return rc ? 1 : 0;
}
