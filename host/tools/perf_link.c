/* rnic-perf against a stock perftest (perf_link.h): the peer session, the
 * same code on a card and on a simulated NIC (--sim-link).
 *
 * Memory: one registered region of two parts per QP, L (the local slots:
 * the requester's sources and READ/ATOMIC destinations, the receive
 * buffers of send_bw; tx-depth slots, each the message rounded up to 64 B
 * plus 64 guard bytes; with -a as many as fit the largest size's) and R
 * (the largest size, at least 4096 bytes, its address the vaddr in the
 * QP's key: what the peer WRITEs, READs and adds to, as perftest's own
 * second buffer half). L starts as the guard byte 0xa5, R as a pattern
 * from the seed; a guard page after the region is never registered.
 *
 * --mw 1|2 (write_bw, read_bw, atomic_bw, write_lat, read_lat): the MR
 * grants no remote access (local write and MW_BIND only); each QP's R is
 * reached through a memory window of that type, bound over the whole of R
 * (VA-based, as perftest addresses the vaddr of the key) with only the
 * right the test needs (WRITE, READ or ATOMIC), its rkey the one in the
 * QP's key. A bind needs a QP in RTS, so it is made once the QPs are
 * connected: right after the first round of handshakes (with -R, after the
 * CM connected them), which is before the peer can send a request, since
 * the peer waits for our later handshakes first. The key in the first round
 * is therefore the window's next key, rnic_inc_rkey of its current one:
 * the key rnic_bind_mw gives a type 1 window (checked after the bind) and
 * the one the type 2 window's BIND_MW WQE names. Type 1: rnic_bind_mw on
 * the QP; type 2: a BIND_MW WQE posted on the QP (the window is then
 * reached on that QP only); either way the bind's completion is polled and
 * must be a successful IBV_WC_BIND_MW before the session goes on.
 *
 * -c UD (send_bw): UD QPs, as perftest's: Q_Key 0x11111111 (perftest's
 * DEFF_QKEY), one message per packet (the size at most the MTU), an address
 * handle per QP toward the peer's GID, receive buffers 40 bytes longer for
 * the GRH area (which must hold the peer's IPv4 header).
 *
 * -g (send_bw, send_lat; one UD QP), as perftest's --mcg: the side that
 * takes SENDs (send_bw's server, both sides of send_lat) attaches its QP to
 * a multicast group (-M's, else perftest's MCG_GID; send_lat's client the
 * next one when -M names none) and puts the group in its key: the GID the
 * group's, the QPN the multicast QPN 0xFFFFFF. The sender's address handle
 * points at the group (the library maps it to the group's MAC) and its
 * SENDs go to QPN 0xFFFFFF. A receive must then carry the group as the
 * destination in its GRH area; the source QP and address are the peer's
 * key's where that is not a group, else the same for every receive. The
 * port's address is IPv4, so the groups are IPv4-mapped (an IPv6 group is
 * refused: the NIC would have no IPv6 source address to send from).
 *
 * perftest's options: -q N runs N QPs, each with its own key in the
 * exchange, every QP -n messages (perftest's count is per QP), posted
 * round robin; -a runs every size from 2 B by powers of two to our cap
 * (perf_link_all_max), each size -n messages; -I N sends WRITEs and SENDs
 * of at most N bytes inline.
 *
 * Who drives the traffic is perftest's choice: the client of the bw tests
 * and of read_lat is the requester, the server only answers; write_lat is
 * a ping-pong of WRITEs (each side waits for the last byte of the message
 * in its R to become the message count, then writes its own count in the
 * last byte of its message into the peer's buffer).
 *
 * What is checked, besides the exchange itself and every completion
 * (status, opcode, QP, order within the QP):
 *   the wire model      (a simulated NIC only) every frame from the peer
 *                       passes a model of a correct responder per QP
 *                       (wire_frame): requests accepted in PSN order only,
 *                       from the PSN in the peer's key, each naming the
 *                       rkey of our key (--mw: the window's); it applies accepted
 *                       WRITEs and FETCH_ADDs to a copy of the QP's R and
 *                       keeps every SEND's bytes. At the end each R must
 *                       equal its copy byte for byte (so R is untouched
 *                       where the peer only READ or only answered), and
 *                       every receive must equal its SEND on the wire; when
 *                       the peer drove the traffic the model must have
 *                       accepted its requests
 *   requester READ      each READ lands in its slot byte for byte equal to
 *                       the QP's first READ of the same size (slots are
 *                       refilled with alternating bytes before each READ, so
 *                       data not written cannot pass); guard bytes untouched
 *   requester FETCH_ADD adds 1 each time to the first word of the QP's
 *                       remote buffer: the values a QP gets back increase,
 *                       and those of all QPs on the same remote word are
 *                       consecutive (one QP: the k-th returns the first's
 *                       value plus k)
 *   responder           L untouched where the peer only addressed R; every
 *                       receive of send_bw its size, in order per QP
 * and at the end: no DMA outside a mapped range (simulated), the guard page
 * untouched.
 *
 * On a card the wire model cannot run (no frame reaches the host): the
 * checks that need it are left out, every other one is made, and times are
 * the wall clock's. In --sim-link mode (perf_link_sim.c) the NIC runs in
 * simulated cycles: timings are simulated cycles from the first post to the
 * last completion at the stated clock; the peer's wall-clock delays count
 * as the few cycles they took to arrive, so the figures describe neither
 * side and are printed for completeness.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mw_bind.h"
#include "perf_link.h"
#include "ud_qp.h"
#include "rnic/rnic_cm.h"
#include "rnic/verbs.h"

#define GUARD 0xa5
#define CYCLE_BUFFER 4096u   /* what we offer as perftest's cycle buffer */
#define CACHE_LINE 64u
#define WAIT_MS 100
#define ALL_SLOTS_MAX (16u << 20) /* -a: L of a QP at most this (or one slot of the largest size) */
#define UD_QKEY 0x11111111u  /* perftest's DEFF_QKEY */
#define SEND_LAT_SQ 16u      /* send_lat: SENDs that may wait for their ACK */

/* The peer's requests on one QP as they arrived on the wire, accepted in
 * PSN order as a correct responder accepts them (duplicates and packets
 * after a gap ignored): what R and the receive buffers must hold. */
struct wire {
	int on;            /* the peer's first PSN is known */
	uint32_t epsn;     /* next PSN to accept */
	uint32_t mtu;      /* bytes */
	uint8_t *shadow;   /* R as the accepted WRITEs and FETCH_ADDs leave it */
	uint64_t base;     /* R's address */
	size_t len;
	uint64_t va;       /* where the next WRITE payload byte goes */
	int bad_va;        /* a WRITE or FETCH_ADD outside R */
	uint32_t rkey;     /* the rkey of our key: every request must name it */
	uint32_t bad_rkey; /* the first other rkey a request named */
	int rkey_wrong;
	uint64_t accepted; /* requests (packets) accepted */
	uint8_t *msgs;     /* SEND messages of the current size, `size` bytes apart */
	size_t msg_size;
	uint64_t nmsgs, maxmsgs;
	size_t msg_len;    /* bytes of the message being assembled */
};

struct lk;

/* -R: one connection of the CM (the control QP's, or a data QP's). */
enum cm_state { CM_IDLE, CM_CONNECTING, CM_UP, CM_DOWN, CM_RETRY };
struct cm_conn {
	struct rnic_cm_id *id;
	enum cm_state state;
	int index;           /* data: the QP's index; control: -1 */
	int tries;           /* client: REQs rejected so far */
	struct timespec retry_at;
};

/* One QP and its part of the memory. */
struct lq {
	struct rnic_qp *qp;
	struct rnic_ah *ah;       /* -c UD: toward the peer's QP */
	uint32_t psn;
	const struct oob_key *pk; /* the peer's key for it */
	uint8_t *L, *R, *pat;
	uint64_t posted, done;    /* requester: this size's messages */
	uint64_t rposted, rdone;  /* send_bw responder: this size's receives */
	uint8_t *first;           /* the first READ's bytes */
	int have_first;
	uint64_t last_atomic;
	struct wire wire;
	uint32_t src_qp;          /* -g: the first receive's source QP (the peer's key names a group) */
	uint32_t cm_rq_psn;       /* -R: the peer's first PSN, as the CM set it */
	struct rnic_mw *mw;       /* --mw: the window over R */
	uint32_t rkey;            /* the rkey in our key: the window's after its bind, else the MR's */
	uint8_t src_ip[4];        /* and its source address */
};

struct row {
	size_t bytes;
	uint64_t ticks;
	double bw_avg, msg_rate;
	double t_min, t_max, t_typical, t_avg, t_stdev, t_p99, t_p999;
};

struct lk {
	const struct perf_link_opts *o;
	const struct perf_nic *nic;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_srq *srq; /* --use-srq: the receive queue of every QP */
	struct rnic_mr *mr;
	struct lq *q;
	int nqp;
	uint8_t *buf;
	size_t buf_len, l_len, r_len, mr_len, max_size;
	size_t size, stride; /* the current size, its slot stride */
	int depth, max_depth;
	size_t sizes[OOB_MAX_SIZES];
	int nsizes, cur;     /* sizes, the current one's index */
	struct row rows[OOB_MAX_SIZES];
	int nrows;
	enum oob_step_kind plan[OOB_MAX_STEPS];
	struct oob_session s;
	struct oob_key pk0;  /* the peer's QP 0, from the first handshake */
	int cur_traffic;     /* traffic steps begun */
	int connected, active, failed, recv_open;
	struct timespec deadline;
	uint64_t ticks;
	uint64_t *atomics;   /* FETCH_ADD: the value each message got back */
	uint64_t *lat;
	uint64_t nlat;
	uint64_t accepted;   /* the wire models' requests, all QPs */
	/* --use-srq: receives posted to the SRQ this size (wr_id = the count
	 * before), and which of them have completed */
	uint64_t srq_posted;
	uint8_t *srq_done;
	size_t grh;          /* -c UD: the GRH area ahead of every receive (RNIC_GRH_BYTES), else 0 */
	/* -g: the group QP 0 is attached to (mcg_attached), or none */
	union rnic_gid mgid;
	int mcg_join, mcg_attached;
	struct rnic_qp_init_attr qp_ia; /* what every data QP is made with */
	/* -R: the CM, the control QP (its own CQ and buffers) and the data QPs' ids */
	struct rnic_cm_event_channel *ch;
	struct rnic_cm_id *listen_id;
	struct cm_conn ctrl, data[OOB_MAX_QPS];
	int ndata;           /* data connections begun (client) or requested (server) */
	struct rnic_cq *ctrl_cq;
	struct rnic_mr *ctrl_mr;
	uint8_t *ctrl_buf;   /* CTRL_MSG_MAX to send, then CTRL_MSG_MAX to receive into */
	int ctrl_recv_ready; /* a receive completed, ctrl_recv_len bytes */
	uint32_t ctrl_recv_len;
	int ctrl_send_done;
	int cm_closing;      /* disconnects from here on are the end's */
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

static size_t stride_of(size_t size)
{
	return ((size + 63) & ~(size_t)63) + 64;
}

static uint8_t *slot(const struct lk *k, const struct lq *q, uint64_t i)
{
	return q->L + (size_t)(i % (uint64_t)k->depth) * k->stride;
}

static size_t count_diff(const uint8_t *a, uint8_t b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b;
	return d;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The NIC's time, and letting it run (a card runs by itself). */
static uint64_t now(const struct lk *k)
{
	return k->nic->now(k->nic->arg);
}

static void step(const struct lk *k, uint64_t ticks)
{
	if (k->nic->progress)
		k->nic->progress(k->nic->arg, ticks);
}

size_t perf_link_all_max(const struct perf_nic *nic)
{
	/* a simulated NIC moves a few MB of this machine's time a second */
	return nic->progress ? PERF_LINK_ALL_MAX_SIM : PERF_LINK_ALL_MAX_CARD;
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

/* A request's RETH or AtomicETH rkey: ours (the window's with --mw) */
static void wire_rkey(struct wire *m, uint32_t rkey)
{
	if (rkey != m->rkey && !m->rkey_wrong) {
		m->rkey_wrong = 1;
		m->bad_rkey = rkey;
	}
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
	struct lk *k = arg;
	struct wire *m = NULL;
	const uint8_t *ip = f + RNIC_ETH_HDR_BYTES, *udp, *bth, *p, *end;
	size_t ihl, tot;
	uint32_t psn, n;
	uint8_t op;

	(void)cycle;
	if (port != -1 || !k->connected || len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES ||
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
	/* the QP it is for (-g: a datagram to the group is for QP 0) */
	for (int q = 0; q < k->nqp; q++)
		if ((k->q[q].qp && k->q[q].qp->qp_num == (be32(bth + 4) & 0xffffff)) ||
		    (k->mcg_attached && q == 0 && (be32(bth + 4) & 0xffffff) == RNIC_MCAST_QPN))
			m = &k->q[q].wire;
	if (!m || !m->on)
		return;
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
		wire_rkey(m, be32(p + 8));
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
	case RNIC_OP_UD_SEND_ONLY:
	case RNIC_OP_UD_SEND_ONLY_IMM:
		/* the DETH's Q_Key must be ours: the NIC drops it otherwise */
		if (!k->grh || end < p + RNIC_DETH_BYTES || be32(p) != UD_QKEY)
			return;
		p += RNIC_DETH_BYTES + (op == RNIC_OP_UD_SEND_ONLY_IMM ? RNIC_IMMDT_BYTES : 0);
		if (end < p)
			return;
		wire_send(m, p, (size_t)(end - p), 1);
		break;
	case RNIC_OP_RDMA_READ_REQUEST: {
		uint32_t dma_len = end >= p + RNIC_RETH_BYTES ? be32(p + 12) : 0;

		if (end >= p + RNIC_RETH_BYTES)
			wire_rkey(m, be32(p + 8));

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
		wire_rkey(m, be32(p + 8));
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
	struct rnic_qp_init_attr ia;
	int send = perf_test_opcode(o->test) == RNIC_WR_SEND;
	size_t pat_len;

	k->ctx = k->nic->ctx;
	k->pd = rnic_alloc_pd(k->ctx);
	k->cq = k->pd ? rnic_create_cq(k->ctx, k->nqp * (2 * k->max_depth + 16)) : NULL;
	if (!k->cq)
		return err(k, "alloc_pd/create_cq: %s", strerror(errno));
	k->q = calloc((size_t)k->nqp, sizeof(*k->q));
	if (!k->q)
		return err(k, "out of memory");
	if (o->use_srq) {
		/* perftest's --use-srq: one SRQ for all QPs, tx-depth
		 * receives per QP */
		struct rnic_srq_init_attr sa = {.attr = {.max_wr = (uint32_t)(k->nqp * k->max_depth), .max_sge = 1}};

		k->srq = rnic_create_srq(k->pd, &sa);
		k->srq_done = calloc(o->iters * (uint64_t)k->nqp, 1);
		if (!k->srq || !k->srq_done)
			return err(k, "create_srq: %s", k->srq ? "out of memory" : strerror(errno));
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = k->cq;
	ia.recv_cq = k->cq;
	ia.qp_type = o->ud ? RNIC_QPT_UD : RNIC_QPT_RC;
	/* send_lat: the next SEND may go before the last one's ACK */
	ia.cap.max_send_wr = o->test == PERF_SEND_LAT ? SEND_LAT_SQ : (uint32_t)k->max_depth;
	ia.cap.max_send_sge = 1;
	ia.srq = k->srq;
	ia.cap.max_recv_wr = send && !k->srq ? (uint32_t)k->max_depth : 0;
	ia.cap.max_recv_sge = send && !k->srq ? 1 : 0;
	ia.cap.max_inline_data = o->inline_size;
	k->qp_ia = ia;
	/* -R: the CM makes the QPs when it connects them (cm_connect_data) */
	for (int i = 0; i < k->nqp && !o->rdma_cm; i++) {
		ia = k->qp_ia;
		k->q[i].qp = rnic_create_qp(k->pd, &ia);
		if (!k->q[i].qp)
			return err(k, "create_qp %d: %s", i, strerror(errno));
		k->q[i].psn = (uint32_t)mix64(o->seed ^ 0x50534eull ^ ((uint64_t)i << 32)) & 0xffffff;
	}

	k->grh = o->ud ? RNIC_GRH_BYTES : 0;
	k->l_len = (size_t)k->max_depth * stride_of(k->max_size + k->grh);
	/* -a: fewer slots in flight for the large sizes (set_size) */
	if (k->nsizes > 1 && k->l_len > ALL_SLOTS_MAX)
		k->l_len = stride_of(k->max_size + k->grh) > ALL_SLOTS_MAX ? stride_of(k->max_size + k->grh)
									     : ALL_SLOTS_MAX;
	k->l_len = (k->l_len + 4095) & ~(size_t)4095;
	k->r_len = ((k->max_size > CYCLE_BUFFER ? k->max_size : CYCLE_BUFFER) + 4095) & ~(size_t)4095;
	k->mr_len = (size_t)k->nqp * (k->l_len + k->r_len);
	k->buf_len = k->mr_len + 4096;
	pat_len = (size_t)k->nqp * k->r_len;
	k->buf = aligned_alloc(4096, k->buf_len);
	if (!k->buf)
		return err(k, "out of memory");
	memset(k->buf, GUARD, k->buf_len);
	for (int i = 0; i < k->nqp; i++) {
		struct lq *q = &k->q[i];

		q->L = k->buf + (size_t)i * k->l_len;
		q->R = k->buf + (size_t)k->nqp * k->l_len + (size_t)i * k->r_len;
		q->pat = malloc(k->r_len);
		q->first = malloc(k->max_size);
		q->wire.shadow = malloc(k->r_len);
		if (!q->pat || !q->first || !q->wire.shadow)
			return err(k, "out of memory");
		for (size_t j = 0; j < k->r_len; j += 8) {
			uint64_t v = mix64(o->seed ^ (0x52ull << 56) ^ ((size_t)i * k->r_len + j));

			memcpy(q->pat + j, &v, 8);
		}
		memcpy(q->R, q->pat, k->r_len);
		memcpy(q->wire.shadow, q->pat, k->r_len);
		q->wire.base = (uint64_t)(uintptr_t)q->R;
		q->wire.len = k->r_len;
	}
	(void)pat_len;
	if (k->nic->sim_frame_hook)
		k->nic->sim_frame_hook(k->nic->arg, wire_frame, k);
	/* --mw: the MR itself grants no remote access; the windows do */
	k->mr = rnic_reg_mr(k->pd, k->buf, k->mr_len,
			    o->mw ? RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND
				  : RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
					    RNIC_ACCESS_REMOTE_ATOMIC);
	if (!k->mr)
		return err(k, "reg_mr: %s", strerror(errno));
	for (int i = 0; i < k->nqp; i++) {
		struct lq *q = &k->q[i];

		if (o->mw) {
			q->mw = rnic_alloc_mw(k->pd, o->mw == 1 ? RNIC_MW_TYPE_1 : RNIC_MW_TYPE_2);
			if (!q->mw)
				return err(k, "alloc_mw (type %d) for QP %d: %s", o->mw, i, strerror(errno));
		}
		/* the window's key once bound (bind_windows) */
		q->rkey = q->mw ? rnic_inc_rkey(q->mw->rkey) : k->mr->rkey;
		q->wire.rkey = q->rkey;
	}
	return 0;
}

/* --mw: the right the peer's requests of the test need */
static unsigned int mw_rights(enum perf_test t)
{
	uint32_t op = perf_test_opcode(t);

	return op == RNIC_WR_RDMA_READ ? RNIC_ACCESS_REMOTE_READ
	       : op == RNIC_WR_ATOMIC_FETCH_AND_ADD ? RNIC_ACCESS_REMOTE_ATOMIC
						    : RNIC_ACCESS_REMOTE_WRITE;
}

static const char *rights_str(unsigned int a)
{
	return a == RNIC_ACCESS_REMOTE_READ ? "REMOTE_READ"
	       : a == RNIC_ACCESS_REMOTE_ATOMIC ? "REMOTE_ATOMIC" : "REMOTE_WRITE";
}

#define MW_WR_ID 0x4d57424eull /* "MWBN": the bind's work request */

/* --mw, the QPs in RTS: every QP's window bound over its R (type 1:
 * rnic_bind_mw on the QP; type 2: a BIND_MW WQE on it), each bind's
 * completion polled; the key must be the one our key advertised. */
static int bind_windows(struct lk *k)
{
	for (int i = 0; i < k->nqp; i++) {
		struct lq *q = &k->q[i];
		struct rnic_mw_bind_info bi = {k->mr, (uint64_t)(uintptr_t)q->R, k->r_len, mw_rights(k->o->test)};
		unsigned int polls = 0;
		struct rnic_wc wc;
		int e, got;

		e = mw_post_bind(q->qp, q->mw, &bi, MW_WR_ID, q->rkey);
		if (!e && q->mw->type == RNIC_MW_TYPE_1 && q->mw->rkey != q->rkey)
			return err(k, "--mw 1: rnic_bind_mw gave QP %d's window rkey %#x, not %#x as advertised", i,
				   q->mw->rkey, q->rkey);
		if (e)
			return err(k, "--mw %d: binding QP %d's window: %s", k->o->mw, i, strerror(e));
		while ((got = rnic_poll_cq(k->cq, 1, &wc)) == 0) {
			if (++polls % 4096 == 0 && past_deadline(k))
				return err(k, "--mw %d: the bind of QP %d's window did not complete", k->o->mw, i);
			step(k, 16);
		}
		if (got < 0)
			return err(k, "poll_cq: %s", strerror(-got));
		if (wc.status != RNIC_WC_SUCCESS || wc.opcode != RNIC_WC_BIND_MW || wc.wr_id != MW_WR_ID ||
		    wc.qp_num != q->qp->qp_num)
			return err(k, "--mw %d: the bind of QP %d's window completed with %s, opcode %u, wr_id %#" PRIx64
				   ", QP %#x", k->o->mw, i, rnic_wc_status_str(wc.status), wc.opcode, wc.wr_id, wc.qp_num);
		if (q->mw->type == RNIC_MW_TYPE_2)
			q->mw->rkey = q->rkey; /* rdma-core leaves a type 2 window's key to its consumer */
	}
	return 0;
}

static void cm_teardown(struct lk *k);

/* Everything freed; -1 when the windows or the MR would not go. */
static int teardown(struct lk *k)
{
	int bad = 0;

	cm_teardown(k);
	/* the windows first: the MR cannot go while a window is bound to it */
	for (int i = 0; k->q && i < k->nqp; i++)
		if (k->q[i].mw && rnic_dealloc_mw(k->q[i].mw))
			bad = err(k, "dealloc_mw of QP %d's window failed", i);
	if (k->mr && rnic_dereg_mr(k->mr))
		bad = err(k, "dereg_mr failed");
	if (k->mcg_attached)
		rnic_detach_mcast(k->q[0].qp, &k->mgid, 0);
	for (int i = 0; k->q && i < k->nqp; i++) {
		if (k->q[i].qp)
			rnic_destroy_qp(k->q[i].qp);
		if (k->q[i].ah)
			rnic_destroy_ah(k->q[i].ah);
		free(k->q[i].pat);
		free(k->q[i].first);
		free(k->q[i].wire.shadow);
		free(k->q[i].wire.msgs);
	}
	if (k->srq)
		rnic_destroy_srq(k->srq);
	free(k->srq_done);
	if (k->cq)
		rnic_destroy_cq(k->cq);
	if (k->pd)
		rnic_dealloc_pd(k->pd);
	free(k->q);
	free(k->buf);
	free(k->lat);
	free(k->atomics);
	return bad;
}

/* -c UD: INIT (perftest's Q_Key), RTR, RTS, and the address handle toward
 * the peer's QP; the port's MTU (every UD QP's) the one agreed. */
static int connect_ud(struct lk *k, struct lq *q)
{
	const struct oob_key *pk = q->pk;
	struct rnic_ah_attr ah;
	uint32_t failed;
	int e;

	e = rnic_set_port_mtu(k->ctx, k->s.active_mtu);
	if (e)
		return err(k, "set_port_mtu: %s", strerror(e));
	e = ud_qp_to_rts(q->qp, UD_QKEY, q->psn, &failed);
	if (e)
		return err(k, "modify_qp (UD) to %u: %s", failed, strerror(e));
	if (pk->gid[0] == 0xff)
		return err(k, "-g: the peer's group is the IPv6 one %02x%02x:%02x%02x:...; this port's address "
			   "is IPv4: the groups must be IPv4-mapped (-M 0:0:0:0:0:0:0:0:0:0:255:255:239:A:B:C on "
			   "both sides)", pk->gid[0], pk->gid[1], pk->gid[2], pk->gid[3]);
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	ah.port_num = 1;
	memcpy(ah.grh.dgid.raw, pk->gid, 16);
	ah.grh.sgid_index = 0;
	ah.grh.hop_limit = 64;
	memcpy(ah.dmac, k->o->peer_mac, 6);
	q->ah = rnic_create_ah(k->pd, &ah);
	if (!q->ah)
		return err(k, "create_ah: %s", strerror(errno));
	if (k->mcg_join) {
		/* -g, the side that takes SENDs: QP 0 joins the group its key named */
		e = rnic_attach_mcast(q->qp, &k->mgid, 0);
		if (e)
			return err(k, "attach_mcast: %s", strerror(e));
		k->mcg_attached = 1;
	}
	q->wire.epsn = pk->psn & 0xffffff;
	q->wire.mtu = 128u << k->s.active_mtu;
	q->wire.on = 1;
	return 0;
}

/* INIT, RTR and RTS from the peer's key. */
static int connect_qp(struct lk *k, struct lq *q)
{
	const struct oob_key *pk = q->pk;
	struct rnic_qp_attr a;
	int e;

	if (k->grh)
		return connect_ud(k, q);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	e = rnic_modify_qp(q->qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS);
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
	e = rnic_modify_qp(q->qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
					      RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	if (e)
		return err(k, "modify_qp RTR: %s", strerror(e));
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = q->psn;
	a.timeout = k->o->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	/* never more READs/atomics outstanding than the peer said it serves */
	a.max_rd_atomic = pk->out_reads && pk->out_reads < RNIC_MAX_RD_ATOMIC ? (uint8_t)pk->out_reads
									 : RNIC_MAX_RD_ATOMIC;
	e = rnic_modify_qp(q->qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
					      RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
	if (e)
		return err(k, "modify_qp RTS: %s", strerror(e));
	q->wire.epsn = pk->psn & 0xffffff;
	q->wire.mtu = 128u << k->s.active_mtu;
	q->wire.on = 1;
	return 0;
}

/* The size with index i: slots as deep as fit L. */
static void set_size(struct lk *k, int i)
{
	k->cur = i;
	k->size = k->sizes[i];
	k->stride = stride_of(k->size + k->grh);
	k->depth = k->max_depth;
	while (k->depth > 1 && (size_t)k->depth * k->stride > k->l_len)
		k->depth /= 2;
	for (int j = 0; j < k->nqp; j++) {
		struct lq *q = &k->q[j];

		q->posted = q->done = q->rposted = q->rdone = 0;
		q->have_first = 0;
	}
	k->srq_posted = 0;
	if (k->srq_done)
		memset(k->srq_done, 0, k->o->iters * (uint64_t)k->nqp);
}

static struct lq *qp_of(struct lk *k, uint32_t qp_num)
{
	for (int i = 0; i < k->nqp; i++)
		if (k->q[i].qp && k->q[i].qp->qp_num == qp_num)
			return &k->q[i];
	return NULL;
}

/* ------------------------------------------------------- the responder side */

static int check_done(struct lk *k, struct lq *q, const struct rnic_wc *wc);

static int post_recv(struct lk *k, struct lq *q)
{
	uint8_t *b = slot(k, q, q->rposted);
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)(k->size + k->grh), k->mr->lkey};
	struct rnic_recv_wr wr = {.wr_id = q->rposted, .sg_list = &sge, .num_sge = 1}, *bad;
	int e;

	memset(b, GUARD, k->stride);
	e = rnic_post_recv(q->qp, &wr, &bad);
	if (e)
		return err(k, "post_recv: %s", strerror(e));
	q->rposted++;
	return 0;
}

/* --use-srq: receive n of a size goes to a slot of QP n % nqp's L, slot
 * n / nqp, which receive n - nqp * depth held before it; so n is posted
 * only once that one has completed (with several QPs the SRQ's WQEs may
 * complete out of their order: a QP takes the next WQE at a message's
 * first packet and completes it at its last). */
static uint8_t *srq_slot(const struct lk *k, uint64_t n)
{
	return slot(k, &k->q[n % (uint64_t)k->nqp], n / (uint64_t)k->nqp);
}

static int post_srq_recvs(struct lk *k)
{
	uint64_t total = k->o->iters * (uint64_t)k->nqp, ring = (uint64_t)k->depth * (uint64_t)k->nqp;

	while (k->srq_posted < total && (k->srq_posted < ring || k->srq_done[k->srq_posted - ring])) {
		uint8_t *b = srq_slot(k, k->srq_posted);
		struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)(k->size + k->grh), k->mr->lkey};
		struct rnic_recv_wr wr = {.wr_id = k->srq_posted, .sg_list = &sge, .num_sge = 1}, *bad;
		int e;

		memset(b, GUARD, k->stride);
		e = rnic_post_srq_recv(k->srq, &wr, &bad);
		if (e)
			return err(k, "post_srq_recv: %s", strerror(e));
		k->srq_posted++;
	}
	return 0;
}

/* send_bw's responder, before a size's traffic: every QP's receives posted
 * and its wire model's messages kept for this size. */
static int open_receives(struct lk *k)
{
	for (int i = 0; i < k->nqp; i++) {
		struct lq *q = &k->q[i];

		free(q->wire.msgs);
		q->wire.msg_size = k->size;
		q->wire.maxmsgs = k->nic->sim_frame_hook ? k->o->iters : 0;
		q->wire.nmsgs = 0;
		q->wire.msg_len = 0;
		q->wire.msgs = malloc(q->wire.maxmsgs * k->size + 1);
		if (!q->wire.msgs)
			return err(k, "out of memory");
		while (!k->srq && q->rposted < k->o->iters && q->rposted < (uint64_t)k->depth)
			if (post_recv(k, q))
				return -1;
	}
	if (k->srq && post_srq_recvs(k))
		return -1;
	k->recv_open = 1;
	return 0;
}

static int is_group(const uint8_t gid[16])
{
	static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return gid[0] == 0xff || (!memcmp(gid, v4_mapped, 12) && (gid[12] & 0xf0) == 0xe0);
}

/* UD: a receive from the peer's QP, its GRH area as for an IPv4 packet:
 * 20 zero bytes, then its IPv4 header, from the peer's address to ours or
 * (-g) to our group. Where the peer's key names a group (send_lat -g) its
 * own QP and address are not in it: every receive must then have the
 * first one's. */
static int check_grh(struct lk *k, struct lq *q, const struct rnic_wc *wc, const uint8_t *b)
{
	const uint8_t *ip = b + RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES;
	const uint8_t *dst = k->mcg_attached ? k->mgid.raw + 12 : k->s.key.gid + 12;
	uint32_t want_qp = q->pk->qpn;
	const uint8_t *want_ip = q->pk->gid + 12;

	if (is_group(q->pk->gid)) {
		if (q->rdone == 0) {
			q->src_qp = wc->src_qp;
			memcpy(q->src_ip, ip + 12, 4);
		}
		want_qp = q->src_qp;
		want_ip = q->src_ip;
	}
	if (!(wc->wc_flags & RNIC_WC_GRH) || wc->src_qp != want_qp || wc->src_qp == RNIC_MCAST_QPN ||
	    count_diff(b, 0, RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES) || ip[0] != 0x45 || ip[9] != IPPROTO_UDP ||
	    memcmp(ip + 12, want_ip, 4) || memcmp(ip + 16, dst, 4))
		return err(k, "UD receive %" PRIu64 " of QP %#x: source QP %#x (want %#x), flags %#x, or its GRH "
			   "area not the IPv4 header from %u.%u.%u.%u to %u.%u.%u.%u (it has %u.%u.%u.%u to %u.%u.%u.%u)",
			   q->rdone, q->qp->qp_num, wc->src_qp, want_qp, wc->wc_flags, want_ip[0], want_ip[1],
			   want_ip[2], want_ip[3], dst[0], dst[1], dst[2], dst[3], ip[12], ip[13], ip[14], ip[15],
			   ip[16], ip[17], ip[18], ip[19]);
	return 0;
}

/* Completions while we answer: receives of send_bw; anything else is wrong. */
static int drain_cq(struct lk *k)
{
	struct rnic_wc wc[8];
	int n = rnic_poll_cq(k->cq, 8, wc);

	if (n < 0)
		return err(k, "poll_cq: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		struct lq *q = qp_of(k, wc[i].qp_num);
		const uint8_t *b;

		/* send_lat: our SENDs complete beside the peer's */
		if (k->o->test == PERF_SEND_LAT && q && !(wc[i].opcode & RNIC_WC_RECV)) {
			if (check_done(k, q, &wc[i]))
				return -1;
			q->done++;
			continue;
		}

		/* a QP's receives complete in its order; from an SRQ, each of
		 * its WQEs once, to one QP, a QP's in the SRQ's order */
		int order_ok = k->srq ? q && wc[i].wr_id < k->srq_posted && !k->srq_done[wc[i].wr_id] &&
					    (q->rdone == 0 || wc[i].wr_id > q->rposted)
				      : q && wc[i].wr_id == q->rdone;

		if (!q || !k->recv_open || wc[i].status != RNIC_WC_SUCCESS || wc[i].opcode != RNIC_WC_RECV ||
		    !order_ok || wc[i].byte_len != k->size + k->grh)
			return err(k, "completion QP %#x wr_id %" PRIu64 " (want receive %" PRIu64 " of %zu B%s): %s, "
				   "opcode %u, byte_len %u", wc[i].qp_num, wc[i].wr_id, q ? q->rdone : 0, k->size + k->grh,
				   k->srq ? " from the SRQ" : "", rnic_wc_status_str(wc[i].status), wc[i].opcode,
				   wc[i].byte_len);
		b = k->srq ? srq_slot(k, wc[i].wr_id) : slot(k, q, wc[i].wr_id);
		if (count_diff(b + k->size + k->grh, GUARD, k->stride - k->size - k->grh))
			return err(k, "receive %" PRIu64 ": written beyond its %zu bytes", q->rdone, k->size + k->grh);
		if (k->grh) {
			if (check_grh(k, q, &wc[i], b))
				return -1;
			b += k->grh;
		}
		if (k->nic->sim_frame_hook) {
			if (q->rdone >= q->wire.nmsgs)
				return err(k, "receive %" PRIu64 ": completed, but only %" PRIu64 " SENDs were on the wire",
					   q->rdone, q->wire.nmsgs);
			if (memcmp(b, q->wire.msgs + q->rdone * k->size, k->size))
				return err(k, "receive %" PRIu64 " of QP %#x: differs from the SEND on the wire", q->rdone,
					   q->qp->qp_num);
		}
		q->rdone++;
		if (k->srq) {
			/* rposted: the QP's last SRQ receive, for the order check */
			q->rposted = wc[i].wr_id;
			k->srq_done[wc[i].wr_id] = 1;
			if (post_srq_recvs(k))
				return -1;
		} else if (q->rposted < k->o->iters && post_recv(k, q)) {
			return -1;
		}
	}
	return 0;
}

/* Drain the CQ and let the NIC run until done(k, arg) holds: 0 then, -1
 * on an error drain_cq reported, 1 past the deadline (the caller says
 * what is missing). */
static int wait_until(struct lk *k, int (*done)(const struct lk *, uint64_t), uint64_t arg)
{
	unsigned int polls = 0;

	for (;;) {
		if (drain_cq(k))
			return -1;
		if (done(k, arg))
			return 0;
		if (++polls % 4096 == 0 && past_deadline(k))
			return 1;
		step(k, 16);
	}
}

static int all_received(const struct lk *k, uint64_t unused)
{
	(void)unused;
	for (int i = 0; i < k->nqp; i++)
		if (k->q[i].rdone != k->o->iters)
			return 0;
	return 1;
}

/* send_bw's responder after a size: every receive of every QP completed. */
static int close_receives(struct lk *k)
{
	int r = wait_until(k, all_received, 0);

	if (r > 0) {
		uint64_t got = 0;

		for (int i = 0; i < k->nqp; i++)
			got += k->q[i].rdone;
		return err(k, "%" PRIu64 " of %" PRIu64 " SENDs of %zu B received", got,
			   k->o->iters * (uint64_t)k->nqp, k->size);
	}
	if (r)
		return -1;
	k->recv_open = 0;
	return 0;
}

/* Run the NIC until fd is readable (oob's wait_readable). */
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
		if (k->nic->idle) {
			int r = k->nic->idle(k->nic->arg, fd, WAIT_MS);

			if (r < 0)
				return err(k, "waiting: %s", strerror(-r));
		} else {
			poll(&p, 1, k->connected ? 1 : WAIT_MS);
		}
	}
}

/* ------------------------------------------------------- the requester side */

static int post_one(struct lk *k, struct lq *q, uint64_t i)
{
	const struct oob_key *pk = q->pk;
	uint8_t *b = slot(k, q, i);
	size_t size = k->size;
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)size, k->mr->lkey};
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
		memset(b, (i & 1) ? 0x5a : GUARD, size);
		memset(b + size, GUARD, k->stride - size);
		wr.wr.rdma.remote_addr = pk->vaddr;
		wr.wr.rdma.rkey = pk->rkey;
		break;
	default:
		for (size_t j = 0; j < size; j++)
			b[j] = (uint8_t)(mix64(k->o->seed ^ (i << 32) ^ (j >> 3)) >> (8 * (j & 7)));
		if (k->grh) {
			wr.wr.ud.ah = q->ah;
			wr.wr.ud.remote_qpn = pk->qpn;
			wr.wr.ud.remote_qkey = UD_QKEY;
		} else {
			wr.wr.rdma.remote_addr = pk->vaddr;
			wr.wr.rdma.rkey = pk->rkey;
		}
		if (size <= k->o->inline_size)
			wr.send_flags |= RNIC_SEND_INLINE;
		break;
	}
	e = rnic_post_send(q->qp, &wr, &bad);
	if (e)
		return err(k, "post_send %" PRIu64 ": %s", i, strerror(e));
	return 0;
}

/* send_lat's waits: QP 0 has received `want` messages, has room for
 * another SEND (the peer may answer before our ACK comes), has seen
 * `want` SENDs complete. */
static int received(const struct lk *k, uint64_t want)
{
	return k->q[0].rdone >= want;
}

static int sq_room(const struct lk *k, uint64_t scnt)
{
	return scnt - k->q[0].done < SEND_LAT_SQ;
}

static int sends_done(const struct lk *k, uint64_t want)
{
	return k->q[0].done >= want;
}

/* send_lat: a ping-pong of SENDs; the client sends first, each side sends
 * its next message once the peer's has arrived (drain_cq takes it, checks
 * it and posts the receive for the one after). The messages come from R,
 * which nothing writes. */
static int run_send_pingpong(struct lk *k)
{
	struct lq *q = &k->q[0];
	uint64_t n = k->o->iters, scnt = 0, t0 = now(k), t = 0;
	int r;

	while (scnt < n || q->rdone < n) {
		if (q->rdone < n && !(scnt < 1 && !is_server(k))) {
			uint64_t want = q->rdone + 1;

			if ((r = wait_until(k, received, want)))
				return r < 0 ? -1 : err(k, "send_lat: no message %" PRIu64 " of %zu B from the peer",
							want, k->size);
			if (scnt)
				k->lat[k->nlat++] = now(k) - t;
		}
		if (scnt < n && (r = wait_until(k, sq_room, scnt)))
			return r < 0 ? -1 : err(k, "send_lat: SEND %" PRIu64 " did not complete", q->done);
		if (scnt < n) {
			struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)q->R, (uint32_t)k->size, k->mr->lkey};
			struct rnic_send_wr wr, *bad;
			int e;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = scnt++;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = RNIC_WR_SEND;
			wr.send_flags = RNIC_SEND_SIGNALED | (k->size <= k->o->inline_size ? RNIC_SEND_INLINE : 0);
			if (k->grh) {
				wr.wr.ud.ah = q->ah;
				wr.wr.ud.remote_qpn = q->pk->qpn;
				wr.wr.ud.remote_qkey = UD_QKEY;
			}
			t = now(k);
			e = rnic_post_send(q->qp, &wr, &bad);
			if (e)
				return err(k, "post_send: %s", strerror(e));
		}
	}
	if ((r = wait_until(k, sends_done, n)))
		return r < 0 ? -1 : err(k, "send_lat: SEND %" PRIu64 " did not complete", q->done);
	k->ticks = now(k) - t0;
	return 0;
}

static int check_done(struct lk *k, struct lq *q, const struct rnic_wc *wc)
{
	static const uint32_t wc_op[] = {
		[RNIC_WR_RDMA_WRITE] = RNIC_WC_RDMA_WRITE, [RNIC_WR_SEND] = RNIC_WC_SEND,
		[RNIC_WR_RDMA_READ] = RNIC_WC_RDMA_READ, [RNIC_WR_ATOMIC_FETCH_AND_ADD] = RNIC_WC_FETCH_ADD,
	};
	uint32_t op = perf_test_opcode(k->o->test);
	uint64_t want = q->done;
	const uint8_t *b = slot(k, q, want);
	size_t size = k->size;

	if (wc->status != RNIC_WC_SUCCESS || wc->opcode != wc_op[op] || wc->wr_id != want)
		return err(k, "completion QP %#x wr_id %" PRIu64 " (want %" PRIu64 "): %s, opcode %u, vendor_err 0x%x",
			   wc->qp_num, wc->wr_id, want, rnic_wc_status_str(wc->status), wc->opcode, wc->vendor_err);
	if (op == RNIC_WR_RDMA_READ) {
		if (!q->have_first) {
			memcpy(q->first, b, size);
			q->have_first = 1;
		} else if (memcmp(q->first, b, size)) {
			return err(k, "READ %" PRIu64 " of QP %#x: its data differ from the first READ of the same bytes",
				   want, q->qp->qp_num);
		}
		if (count_diff(b + size, GUARD, k->stride - size))
			return err(k, "READ %" PRIu64 ": written beyond its %zu bytes", want, size);
	} else if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD) {
		uint64_t v = get64(b);

		if (q->have_first && v <= q->last_atomic)
			return err(k, "FETCH_ADD %" PRIu64 " of QP %#x: returned 0x%016" PRIx64 ", not above the "
				   "previous 0x%016" PRIx64, want, q->qp->qp_num, v, q->last_atomic);
		q->have_first = 1;
		q->last_atomic = v;
		k->atomics[(size_t)(q - k->q) * k->o->iters + want] = v;
		if (count_diff(b + 8, GUARD, k->stride - 8))
			return err(k, "FETCH_ADD %" PRIu64 ": written beyond its 8 bytes", want);
	}
	return 0;
}

/* FETCH_ADD: the values of all QPs that add to the same remote word are
 * consecutive. */
static int check_atomics(struct lk *k)
{
	uint64_t n = k->o->iters, *v = malloc((size_t)k->nqp * n * sizeof(*v));

	if (!v)
		return err(k, "out of memory");
	for (int i = 0; i < k->nqp; i++) {
		uint64_t m = 0;
		int first = 1;

		for (int j = 0; j < k->nqp; j++) {
			if (k->q[j].pk->vaddr != k->q[i].pk->vaddr || k->q[j].pk->rkey != k->q[i].pk->rkey)
				continue;
			if (j < i)
				first = 0;
			memcpy(v + m, k->atomics + (size_t)j * n, n * sizeof(*v));
			m += n;
		}
		if (!first)
			continue;
		qsort(v, m, sizeof(*v), cmp_u64);
		for (uint64_t j = 1; j < m; j++)
			if (v[j] != v[0] + j) {
				uint64_t a = v[j], b = v[j - 1];

				free(v);
				return err(k, "FETCH_ADD: the %" PRIu64 " values returned for the word of QP %#x are not "
					   "consecutive (0x%016" PRIx64 " after 0x%016" PRIx64 ")", m, k->q[i].qp->qp_num,
					   a, b);
			}
	}
	free(v);
	return 0;
}

/* One size: every QP -n messages, posted round robin. */
static int run_requester(struct lk *k)
{
	uint64_t n = k->o->iters, left = n * (uint64_t)k->nqp, t0 = now(k), t_post[1024];
	unsigned int polls = 0;

	while (left) {
		struct rnic_wc wc[16];
		int got, posted = 1;

		while (posted) {
			posted = 0;
			for (int i = 0; i < k->nqp; i++) {
				struct lq *q = &k->q[i];

				if (q->posted < n && q->posted - q->done < (uint64_t)k->depth) {
					if (k->lat)
						t_post[q->posted % 1024] = now(k);
					if (post_one(k, q, q->posted))
						return -1;
					q->posted++;
					posted = 1;
				}
			}
		}
		got = rnic_poll_cq(k->cq, 16, wc);
		if (got < 0)
			return err(k, "poll_cq: %s", strerror(-got));
		for (int i = 0; i < got; i++) {
			struct lq *q = qp_of(k, wc[i].qp_num);

			if (!q)
				return err(k, "completion of QP %#x, not ours", wc[i].qp_num);
			if (check_done(k, q, &wc[i]))
				return -1;
			if (k->lat)
				k->lat[k->nlat++] = now(k) - t_post[q->done % 1024];
			q->done++;
			left--;
		}
		if (++polls % 4096 == 0 && past_deadline(k))
			return err(k, "%" PRIu64 " of %" PRIu64 " messages of %zu B done after %u s",
				   n * (uint64_t)k->nqp - left, n * (uint64_t)k->nqp, k->size, k->o->wall_limit);
	}
	k->ticks = now(k) - t0;
	return 0;
}

/* write_lat: perftest's ping-pong of WRITEs (one QP). */
static int wait_byte(struct lk *k, uint8_t want)
{
	volatile uint8_t *p = k->q[0].R + k->size - 1;
	unsigned int n = 0;

	while (*p != want) {
		step(k, 16);
		if (++n % 4096 == 0 && past_deadline(k))
			return err(k, "write_lat: no message %u of %zu B from the peer", want, k->size);
	}
	return 0;
}

static int run_pingpong(struct lk *k)
{
	struct lq *q = &k->q[0];
	uint64_t n = k->o->iters, scnt = 0, rcnt = 0, ccnt = 0, t0 = now(k), t = 0;
	uint8_t *b = slot(k, q, 0);

	for (size_t j = 0; j < k->size; j++)
		b[j] = (uint8_t)(mix64(k->o->seed ^ (j >> 3)) >> (8 * (j & 7)));
	while (scnt < n || ccnt < n || rcnt < n) {
		if (rcnt < n && !(scnt < 1 && is_server(k))) {
			rcnt++;
			if (wait_byte(k, (uint8_t)rcnt))
				return -1;
			if (scnt)
				k->lat[k->nlat++] = now(k) - t;
		}
		if (scnt < n) {
			struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)b, (uint32_t)k->size, k->mr->lkey};
			struct rnic_send_wr wr, *bad;
			int e;

			memset(&wr, 0, sizeof(wr));
			b[k->size - 1] = (uint8_t)++scnt;
			wr.wr_id = scnt - 1;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = RNIC_WR_RDMA_WRITE;
			wr.send_flags = RNIC_SEND_SIGNALED | (k->size <= k->o->inline_size ? RNIC_SEND_INLINE : 0);
			wr.wr.rdma.remote_addr = q->pk->vaddr;
			wr.wr.rdma.rkey = q->pk->rkey;
			t = now(k);
			e = rnic_post_send(q->qp, &wr, &bad);
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
			q->done = ccnt;
			if (got < 0 || check_done(k, q, &wc))
				return got < 0 ? err(k, "poll_cq: %s", strerror(-got)) : -1;
			ccnt++;
		}
	}
	k->ticks = now(k) - t0;
	return 0;
}

/* ---------------------------------------------------------------- the exchange */

static void lat_row(struct lk *k, struct row *r)
{
	double mhz = k->nic->tick_mhz, sum = 0, sq = 0;
	uint64_t n = k->nlat, *v = k->lat;

	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (uint64_t i = 0; i < n; i++)
		sum += (double)v[i];
	r->t_avg = sum / (double)n / mhz;
	for (uint64_t i = 0; i < n; i++)
		sq += ((double)v[i] / mhz - r->t_avg) * ((double)v[i] / mhz - r->t_avg);
	r->t_stdev = sqrt(sq / (double)n);
	r->t_min = (double)v[0] / mhz;
	r->t_max = (double)v[n - 1] / mhz;
	r->t_typical = (double)v[n / 2] / mhz;
	/* the smallest value with at least p * n samples at or below it */
	r->t_p99 = (double)v[(uint64_t)(0.99 * (double)n + 0.999999) - 1] / mhz;
	r->t_p999 = (double)v[(uint64_t)(0.999 * (double)n + 0.999999) - 1] / mhz;
}

/* The traffic of size index i that we drive, and its row. */
static int run_size(struct lk *k, int i)
{
	struct row *r = &k->rows[k->nrows];

	/* send_lat: the receives the handshake before opened stay */
	if (!k->recv_open)
		set_size(k, i);
	k->nlat = 0;
	if (k->o->test == PERF_WRITE_LAT ? run_pingpong(k)
	    : k->o->test == PERF_SEND_LAT ? run_send_pingpong(k)
					  : run_requester(k))
		return -1;
	memset(r, 0, sizeof(*r));
	r->bytes = k->size;
	r->ticks = k->ticks;
	if (k->lat) {
		lat_row(k, r);
	} else if (k->ticks) {
		double secs = (double)k->ticks / (k->nic->tick_mhz * 1e6), msgs = (double)k->o->iters * k->nqp;

		r->bw_avg = (double)k->size * msgs / secs / 1048576.0;
		r->msg_rate = msgs / secs / 1e6;
	}
	k->nrows++;
	return 0;
}

/* ------------------------------------------------------- -R: the RDMA CM */

/* perftest's -R: the exchange's messages are SENDs on a control RC QP the CM
 * connects to the peer's port, and every data QP is made and connected by a
 * CM connection of its own to the same port; the CM sets the PSNs (the
 * keys' are not used). The control QP has its own CQ, one SEND and one
 * receive of OOB_KEY_CM_LEN bytes (perftest's) in flight. */
#define CTRL_MSG_MAX 64
#define CM_RETRIES 50        /* client: REQs a server not yet listening rejects, 100 ms apart */
#define CM_CLOSE_S 20        /* at the end: how long the disconnects may take */

static int ctrl_post_recv(struct lk *k)
{
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)(k->ctrl_buf + CTRL_MSG_MAX), OOB_KEY_CM_LEN,
				    k->ctrl_mr->lkey};
	struct rnic_recv_wr wr = {2, NULL, &sge, 1}, *bad;
	int e = rnic_post_recv(k->ctrl.id->qp, &wr, &bad);

	return e ? err(k, "-R: post_recv on the control QP: %s", strerror(e)) : 0;
}

static int ctrl_setup(struct lk *k, struct rnic_cm_id *id)
{
	struct rnic_qp_init_attr ia;
	int e;

	k->ctrl_cq = rnic_create_cq(k->ctx, 8);
	k->ctrl_buf = calloc(2, CTRL_MSG_MAX);
	if (!k->ctrl_cq || !k->ctrl_buf)
		return err(k, "-R: the control QP's CQ: %s", strerror(errno));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = k->ctrl_cq;
	ia.recv_cq = k->ctrl_cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	if ((e = rnic_cm_create_qp(id, k->pd, &ia)))
		return err(k, "-R: rnic_cm_create_qp (control): %s", strerror(e));
	k->ctrl_mr = rnic_reg_mr(k->pd, k->ctrl_buf, 2 * CTRL_MSG_MAX, RNIC_ACCESS_LOCAL_WRITE);
	if (!k->ctrl_mr)
		return err(k, "-R: reg_mr (control): %s", strerror(errno));
	return ctrl_post_recv(k);
}

/* perftest's conn_param: READ and atomic tests offer out_reads both ways */
static void cm_param(const struct lk *k, struct rnic_cm_conn_param *p, int control)
{
	uint32_t op = perf_test_opcode(k->o->test);

	memset(p, 0, sizeof(*p));
	if (!control && (op == RNIC_WR_RDMA_READ || op == RNIC_WR_ATOMIC_FETCH_AND_ADD)) {
		p->responder_resources = RNIC_MAX_RD_ATOMIC;
		p->initiator_depth = RNIC_MAX_RD_ATOMIC;
	}
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* A data QP is connected: its PSNs and path MTU are the CM's. */
static int cm_data_up(struct lk *k, struct cm_conn *c)
{
	struct lq *q = &k->q[c->index];
	struct rnic_qp_attr a;
	struct rnic_qp_init_attr ia;
	int e;

	c->state = CM_UP;
	q->qp = c->id->qp;
	memset(&a, 0, sizeof(a));
	e = rnic_query_qp(q->qp, &a, RNIC_QP_SQ_PSN | RNIC_QP_RQ_PSN | RNIC_QP_PATH_MTU, &ia);
	if (e)
		return err(k, "-R: query_qp %d: %s", c->index, strerror(e));
	q->psn = a.sq_psn & 0xffffff;
	q->wire.epsn = a.rq_psn & 0xffffff;
	q->cm_rq_psn = q->wire.epsn;
	q->wire.mtu = 128u << a.path_mtu;
	q->wire.on = 1;
	k->s.active_mtu = a.path_mtu;
	return 0;
}

static int cm_addrs(struct lk *k, struct sockaddr_in *src, struct sockaddr_in *dst)
{
	union rnic_gid g;
	int e = rnic_query_gid(k->ctx, 1, 0, &g);

	if (e)
		return err(k, "query_gid 0: %s", strerror(e));
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	src->sin_family = AF_INET;
	memcpy(&src->sin_addr.s_addr, g.raw + 12, 4);
	dst->sin_family = AF_INET;
	dst->sin_port = htons(k->o->port);
	if (inet_pton(AF_INET, k->o->host, &dst->sin_addr) != 1)
		return err(k, "-R: '%s': the server's IPv4 address on the RoCE link please (A.B.C.D)", k->o->host);
	return 0;
}

/* client: a connection begins (address, then route, then the REQ) */
static int cm_start(struct lk *k, struct cm_conn *c)
{
	struct sockaddr_in src, dst;
	int e;

	if (cm_addrs(k, &src, &dst))
		return -1;
	if ((e = rnic_cm_create_id(k->ch, &c->id, c, RNIC_PS_TCP)))
		return err(k, "-R: rnic_cm_create_id: %s", strerror(e));
	if ((e = rnic_cm_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000)))
		return err(k, "-R: rnic_cm_resolve_addr: %s", strerror(e));
	c->state = CM_CONNECTING;
	return 0;
}

/* a connection's QP: the control QP, or data QP c->index (as setup makes it) */
static int cm_make_qp(struct lk *k, struct cm_conn *c, struct rnic_cm_id *id)
{
	struct rnic_qp_init_attr ia = k->qp_ia;
	int e;

	if (c->index < 0)
		return ctrl_setup(k, id);
	if ((e = rnic_cm_create_qp(id, k->pd, &ia)))
		return err(k, "-R: rnic_cm_create_qp %d: %s", c->index, strerror(e));
	k->q[c->index].qp = id->qp;
	return 0;
}

static void cm_drop(struct lk *k, struct cm_conn *c)
{
	if (c->index >= 0 && k->q)
		k->q[c->index].qp = NULL;
	if (c->id && c->id->qp)
		rnic_cm_destroy_qp(c->id);
	if (c->id)
		rnic_cm_destroy_id(c->id);
	c->id = NULL;
}

static int cm_events(struct lk *k)
{
	struct rnic_cm_event *e;
	struct rnic_cm_conn_param p;
	int r;

	while (rnic_cm_get_event(k->ch, &e) == 0) {
		enum rnic_cm_event_type t = e->event;
		struct rnic_cm_id *id = e->id;
		struct cm_conn *c = id->context;
		int status = e->status;

		rnic_cm_ack_event(e);
		if (!c && t != RNIC_CM_EVENT_CONNECT_REQUEST)
			continue; /* the listener's own (none is expected) */
		switch (t) {
		case RNIC_CM_EVENT_ADDR_RESOLVED:
			if ((r = rnic_cm_resolve_route(id, 2000)))
				return err(k, "-R: rnic_cm_resolve_route: %s", strerror(r));
			break;
		case RNIC_CM_EVENT_ROUTE_RESOLVED:
			if (cm_make_qp(k, c, id))
				return -1;
			cm_param(k, &p, c->index < 0);
			if ((r = rnic_cm_connect(id, &p)))
				return err(k, "-R: rnic_cm_connect: %s", strerror(r));
			break;
		case RNIC_CM_EVENT_CONNECT_REQUEST:
			/* the first is the control connection, then one per data QP */
			if (k->ctrl.id && k->ndata == k->nqp) {
				rnic_cm_reject(id, NULL, 0);
				rnic_cm_destroy_id(id);
				break;
			}
			c = k->ctrl.id ? &k->data[k->ndata++] : &k->ctrl;
			c->id = id;
			id->context = c;
			if (cm_make_qp(k, c, id))
				return -1;
			cm_param(k, &p, c->index < 0);
			if ((r = rnic_cm_accept(id, &p)))
				return err(k, "-R: rnic_cm_accept: %s", strerror(r));
			/* the QP is in RTS: perftest's server does not wait for the RTU either */
			if (c->index >= 0 ? cm_data_up(k, c) : 0)
				return -1;
			c->state = CM_UP;
			break;
		case RNIC_CM_EVENT_ESTABLISHED:
			if (c->state == CM_CONNECTING && (c->index >= 0 ? cm_data_up(k, c) : 0))
				return -1;
			c->state = CM_UP;
			break;
		case RNIC_CM_EVENT_REJECTED:
			/* perftest's server listens for the data QPs only after the
			 * handshake: a REQ before that is rejected, and its client
			 * tries again 100 ms later; so do we */
			if (is_server(k) || c->index < 0 || ++c->tries > CM_RETRIES)
				return err(k, "-R: the peer rejected %s connection (%s)",
					   c->index < 0 ? "the control" : "a data QP's",
					   rnic_cm_reject_reason_str(status));
			cm_drop(k, c);
			c->state = CM_RETRY;
			clock_gettime(CLOCK_MONOTONIC, &c->retry_at);
			c->retry_at.tv_nsec += 100000000;
			if (c->retry_at.tv_nsec >= 1000000000) {
				c->retry_at.tv_sec++;
				c->retry_at.tv_nsec -= 1000000000;
			}
			break;
		case RNIC_CM_EVENT_DISCONNECTED:
			/* perftest disconnects as soon as its last message is
			 * through, maybe before our own last SEND's completion is
			 * polled: whoever still needs the connection fails */
			c->state = CM_DOWN;
			rnic_cm_disconnect(id); /* the DREP */
			break;
		case RNIC_CM_EVENT_ADDR_ERROR:
		case RNIC_CM_EVENT_ROUTE_ERROR:
		case RNIC_CM_EVENT_CONNECT_ERROR:
		case RNIC_CM_EVENT_UNREACHABLE:
			return err(k, "-R: %s (%d)", rnic_cm_event_str(t), status);
		default:
			break;
		}
	}
	return 0;
}

static int ctrl_poll(struct lk *k)
{
	struct rnic_wc wc[2];
	int n;

	if (!k->ctrl_cq)
		return 0;
	while ((n = rnic_poll_cq(k->ctrl_cq, 2, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status) {
				if (k->cm_closing || (k->ctrl.state == CM_DOWN && wc[i].status == RNIC_WC_WR_FLUSH_ERR))
					continue; /* flushed by a disconnect */
				return err(k, "-R: the control QP's %s completed with %s",
					   wc[i].opcode & RNIC_WC_RECV ? "receive" : "SEND",
					   rnic_wc_status_str(wc[i].status));
			}
			if (wc[i].opcode & RNIC_WC_RECV) {
				k->ctrl_recv_ready = 1;
				k->ctrl_recv_len = wc[i].byte_len;
			} else {
				k->ctrl_send_done = 1;
			}
		}
	}
	return n < 0 ? err(k, "-R: poll_cq (control): %s", strerror(-n)) : 0;
}

/* Run the NIC and the CM until cond holds. */
static int cm_wait(struct lk *k, int (*cond)(const struct lk *), const char *what, const struct timespec *limit)
{
	for (;;) {
		struct timespec now;

		if (cm_events(k) || ctrl_poll(k))
			return -1;
		if (cond(k))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (past_deadline(k) || (limit && (now.tv_sec > limit->tv_sec ||
						   (now.tv_sec == limit->tv_sec && now.tv_nsec > limit->tv_nsec))))
			return err(k, "-R: %s: not within the time limit", what);
		for (int i = 0; i < k->nqp; i++) {
			struct cm_conn *c = &k->data[i];

			if (c->state == CM_RETRY && (now.tv_sec > c->retry_at.tv_sec ||
						     (now.tv_sec == c->retry_at.tv_sec && now.tv_nsec >= c->retry_at.tv_nsec)) &&
			    cm_start(k, c))
				return -1;
		}
		if (k->connected && !k->cm_closing && drain_cq(k))
			return -1;
		if (k->nic->idle) {
			int r = k->nic->idle(k->nic->arg, -1, 1);

			if (r < 0)
				return err(k, "waiting: %s", strerror(-r));
		} else {
			poll(NULL, 0, 1);
		}
	}
}

/* (each also holds once the connection is down: the caller says so) */
static int ctrl_is_up(const struct lk *k) { return k->ctrl.state == CM_UP || k->ctrl.state == CM_DOWN; }
static int ctrl_sent(const struct lk *k) { return k->ctrl_send_done || k->ctrl.state == CM_DOWN; }
static int ctrl_received(const struct lk *k) { return k->ctrl_recv_ready || k->ctrl.state == CM_DOWN; }

static int data_all_up(const struct lk *k)
{
	for (int i = 0; i < k->nqp; i++)
		if (k->data[i].state != CM_UP && k->data[i].state != CM_DOWN)
			return 0;
	return 1;
}

static int all_down(const struct lk *k)
{
	for (int i = 0; i < k->nqp; i++)
		if (k->data[i].id && k->data[i].state != CM_DOWN)
			return 0;
	return !k->ctrl.id || k->ctrl.state == CM_DOWN;
}

/* oob's msg_send / msg_recv: one SEND, one receive on the control QP */
static int ctrl_send(void *arg, const void *buf, size_t len)
{
	struct lk *k = arg;
	struct rnic_sg_entry sge;
	struct rnic_send_wr wr, *bad;
	int e;

	if (len > CTRL_MSG_MAX)
		return err(k, "-R: a %zu-byte control message", len);
	if (cm_wait(k, ctrl_is_up, "the control connection", NULL))
		return -1;
	if (k->ctrl.state != CM_UP)
		return err(k, "-R: the peer disconnected the control connection before our %zu-byte message", len);
	memcpy(k->ctrl_buf, buf, len);
	sge.addr = (uint64_t)(uintptr_t)k->ctrl_buf;
	sge.length = (uint32_t)len;
	sge.lkey = k->ctrl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_SIGNALED;
	k->ctrl_send_done = 0;
	if ((e = rnic_post_send(k->ctrl.id->qp, &wr, &bad)))
		return err(k, "-R: post_send on the control QP: %s", strerror(e));
	if (cm_wait(k, ctrl_sent, "the control SEND's completion", NULL))
		return -1;
	if (!k->ctrl_send_done)
		return err(k, "-R: the peer disconnected the control connection before our message was through");
	return 0;
}

static int ctrl_recv(void *arg, void *buf, size_t len)
{
	struct lk *k = arg;

	if (cm_wait(k, ctrl_received, "the peer's control message", NULL))
		return -1;
	if (!k->ctrl_recv_ready)
		return err(k, "-R: the peer disconnected the control connection instead of its next message");
	if (k->ctrl_recv_len != len)
		return err(k, "-R: the peer's control message has %u bytes, %zu expected", k->ctrl_recv_len, len);
	memcpy(buf, k->ctrl_buf + CTRL_MSG_MAX, len);
	k->ctrl_recv_ready = 0;
	return ctrl_post_recv(k);
}

/* The channel, and the control connection: a client begins it, a server
 * listens on the port (every address) and accepts it in cm_events. */
static int cm_open(struct lk *k)
{
	struct rnic_cm_channel_attr ca;
	struct sockaddr_in any, addr;
	int e;

	for (int i = 0; i < k->nqp; i++)
		k->data[i].index = i;
	k->ctrl.index = -1;
	memset(&ca, 0, sizeof(ca));
	ca.context = k->ctx;
	ca.seed = mix64(k->o->seed ^ (is_server(k) ? 0x5345ull : 0x434cull));
	/* the path MTU is the REQ's: a client's is -m's; a server takes the
	 * client's (the CM's passive side takes the smaller of the REQ's and its
	 * port's, and Linux's active side keeps its own: so our port offers the
	 * largest), as perftest's rdma_cm QPs take theirs from the CM */
	ca.if_mtu = (128u << (is_server(k) ? RNIC_IB_MTU_4096 : k->o->mtu)) + 96;
	k->ch = rnic_cm_create_event_channel(&ca);
	if (!k->ch)
		return err(k, "-R: rnic_cm_create_event_channel: %s", strerror(errno));
	/* no ARP: the peer's MAC is the next hop of every address */
	memset(&any, 0, sizeof(any));
	any.sin_family = AF_INET;
	if ((e = rnic_cm_set_neighbour(k->ch, (struct sockaddr *)&any, k->o->peer_mac)))
		return err(k, "-R: rnic_cm_set_neighbour: %s", strerror(e));
	if (!is_server(k))
		return cm_start(k, &k->ctrl);
	addr = any;
	addr.sin_port = htons(k->o->port);
	if ((e = rnic_cm_create_id(k->ch, &k->listen_id, NULL, RNIC_PS_TCP)) ||
	    (e = rnic_cm_bind_addr(k->listen_id, (struct sockaddr *)&addr)) ||
	    (e = rnic_cm_listen(k->listen_id, k->nqp + 1)))
		return err(k, "-R: listening on port %u: %s", k->o->port, strerror(e));
	/* a harness starting the client waits for this line */
	printf("rnic-perf: -R: listening on port %u\n", k->o->port);
	fflush(stdout);
	return 0;
}

/* OOB_STEP_CM_CONNECT: every data QP connected; our keys get their QPNs and PSNs. */
static int cm_connect_data(struct lk *k)
{
	if (!is_server(k))
		for (int i = 0; i < k->nqp; i++)
			if (cm_start(k, &k->data[i]))
				return -1;
	if (cm_wait(k, data_all_up, "the data QPs' connections", NULL))
		return -1;
	for (int i = 0; i < k->nqp; i++) {
		struct oob_key *key = i ? &k->s.qp_key[i] : &k->s.key;

		if (k->data[i].state != CM_UP)
			return err(k, "-R: the peer disconnected data QP %d's connection at once", i);
		key->qpn = k->q[i].qp->qp_num;
		key->psn = k->q[i].psn;
	}
	return 0;
}

/* The end: every connection disconnected (the peer may begin it too). */
static int cm_close(struct lk *k)
{
	struct timespec limit;
	int e;

	k->cm_closing = 1;
	for (int i = 0; i < k->nqp; i++)
		if (k->data[i].id && k->data[i].state == CM_UP && (e = rnic_cm_disconnect(k->data[i].id)))
			return err(k, "-R: rnic_cm_disconnect: %s", strerror(e));
	if (k->ctrl.id && k->ctrl.state == CM_UP && (e = rnic_cm_disconnect(k->ctrl.id)))
		return err(k, "-R: rnic_cm_disconnect: %s", strerror(e));
	clock_gettime(CLOCK_MONOTONIC, &limit);
	limit.tv_sec += CM_CLOSE_S;
	return cm_wait(k, all_down, "the disconnects", &limit);
}

static void cm_teardown(struct lk *k)
{
	if (!k->ch)
		return; /* no CM: no ids */
	k->connected = 0; /* the wire model looks at no QP from here on */
	for (int i = 0; i < k->nqp; i++)
		cm_drop(k, &k->data[i]);
	cm_drop(k, &k->ctrl);
	if (k->listen_id)
		rnic_cm_destroy_id(k->listen_id);
	if (k->ctrl_mr)
		rnic_dereg_mr(k->ctrl_mr);
	if (k->ctrl_cq)
		rnic_destroy_cq(k->ctrl_cq);
	free(k->ctrl_buf);
	if (k->ch)
		rnic_cm_destroy_event_channel(k->ch);
}

static int hook(struct oob_session *s, int step_i, enum oob_step_kind kind, void *arg)
{
	struct lk *k = arg;
	/* who takes SENDs: send_bw's passive side, both sides of send_lat */
	int send_passive = perf_test_opcode(k->o->test) == RNIC_WR_SEND && (!k->active || k->o->test == PERF_SEND_LAT);
	int traffic_next = step_i + 1 < OOB_MAX_STEPS && k->plan[step_i + 1] == OOB_STEP_TRAFFIC;

	if (kind == OOB_STEP_CM_CONNECT)
		return cm_connect_data(k);
	/* -R: the QPs are connected (the CM's), the first round of keys gives their R */
	if (kind == OOB_STEP_KEYS && s->handshakes == k->nqp + (k->o->rdma_cm ? 2 : 0) && !k->connected) {
		for (int i = 0; i < k->nqp; i++) {
			k->q[i].pk = i ? &s->peer_qp_key[i] : &s->peer_key;
			if (!k->o->rdma_cm && connect_qp(k, &k->q[i]))
				return -1;
		}
		if (k->o->mw && bind_windows(k))
			return -1;
		/* later handshakes carry QP 0's key again: keep the first */
		memcpy(&k->pk0, &s->peer_key, sizeof(k->pk0));
		k->q[0].pk = &k->pk0;
		k->connected = 1;
		set_size(k, 0);
	}
	if (kind == OOB_STEP_KEYS && step_i > 0 && k->plan[step_i - 1] == OOB_STEP_TRAFFIC && k->recv_open &&
	    close_receives(k))
		return -1;
	if (kind == OOB_STEP_KEYS && traffic_next && send_passive && k->connected) {
		set_size(k, k->cur_traffic);
		if (open_receives(k))
			return -1;
	}
	if (kind == OOB_STEP_TRAFFIC) {
		int t = k->cur_traffic++;

		if (!k->active)
			return 0;
		if (k->o->test == PERF_SEND_BW)
			return run_size(k, t);
		for (int i = 0; i < k->nsizes; i++)
			if (run_size(k, i))
				return -1;
	}
	if (kind == OOB_STEP_REPORTS && k->active && k->nrows) {
		const struct row *r = &k->rows[k->nrows - 1];

		s->report.size = r->bytes;
		s->report.iters = k->o->iters;
		s->report.bw_avg = r->bw_avg;
		s->report.bw_peak = r->bw_avg;
		s->report.msg_rate = r->msg_rate;
	}
	return 0;
}

/* What the memory must look like at the end (see the top). */
static int check_memory(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	uint32_t op = perf_test_opcode(o->test);
	uint64_t faults = k->nic->sim_faults ? k->nic->sim_faults(k->nic->arg) : 0;

	if (faults)
		return err(k, "the NIC made %" PRIu64 " DMA accesses outside mapped memory", faults);
	if (count_diff(k->buf + k->mr_len, GUARD, 4096))
		return err(k, "the page after the registered region changed");
	if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD && k->active && check_atomics(k))
		return -1;
	for (int i = 0; i < k->nqp; i++) {
		struct lq *q = &k->q[i];

		if (!k->active && op != RNIC_WR_SEND && count_diff(q->L, GUARD, k->l_len))
			return err(k, "L of QP %#x changed, but the peer only addressed R", q->qp->qp_num);
		if (o->test == PERF_WRITE_LAT &&
		    memcmp(q->R + k->max_size, q->pat + k->max_size, k->r_len - k->max_size))
			return err(k, "write_lat: the peer wrote beyond its %zu bytes", k->max_size);
		if (!k->nic->sim_frame_hook)
			continue; /* a card: the frames never reach the host */
		if (q->wire.bad_va)
			return err(k, "the peer addressed memory outside R of QP %#x (the wire model saw it)",
				   q->qp->qp_num);
		if (q->wire.rkey_wrong)
			return err(k, "a request of the peer on QP %#x named rkey %#x, not %#x of our key%s", q->qp->qp_num,
				   q->wire.bad_rkey, q->rkey, k->o->mw ? " (the window's)" : "");
		for (size_t j = 0; j < k->r_len; j++)
			if (q->R[j] != q->wire.shadow[j])
				return err(k, "R+%zu of QP %#x is 0x%02x, but the requests on the wire leave 0x%02x there "
					   "(as the peer's accepted WRITEs and FETCH_ADDs write it)", j, q->qp->qp_num,
					   q->R[j], q->wire.shadow[j]);
		k->accepted += q->wire.accepted;
		/* the peer's requests drove this side: the model must have seen them on every QP */
		if ((!k->active || o->test == PERF_WRITE_LAT) && !q->wire.accepted)
			return err(k, "no request of the peer was seen on the wire for QP %#x", q->qp->qp_num);
	}
	if (op == RNIC_WR_ATOMIC_FETCH_AND_ADD && !k->active && k->nic->sim_frame_hook)
		fprintf(stderr, "rnic-perf: the %" PRIu64 " FETCH_ADDs left R as the wire says\n",
			o->iters * (uint64_t)k->nqp);
	return 0;
}

/* A GID as eight groups of four hex digits (buf: 40 bytes). */
static void gid_str(const uint8_t g[16], char *buf)
{
	for (int i = 0; i < 8; i++)
		sprintf(buf + 5 * i, "%02x%02x%s", g[2 * i], g[2 * i + 1], i == 7 ? "" : ":");
}

#define RULE "---------------------------------------------------------------------------------------\n"

static void print_results(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	unsigned mhz = k->nic->tick_mhz;
	const char *clk = k->nic->progress ? "simulated cycles" : "wall clock";
	int lat = !perf_test_is_bw(o->test);

	printf(RULE);
	printf(" %s %s against perftest %d.%02d over %s\n", perf_test_name(o->test),
	       is_server(k) ? "server" : "client", k->s.peer_major, k->s.peer_minor, k->nic->device);
	for (int i = 0; i < k->nqp; i++) {
		const struct lq *q = &k->q[i];

		if (i == 0)
			printf(" Mtu : %u[B] ", 128u << k->s.active_mtu);
		else
			printf(" QP %-2d       ", i);
		/* -R: the PSNs are the CM's, not the keys' */
		printf(" local QPN %#06x PSN %#08x  remote QPN %#06x PSN %#08x  rkey ours %#010x peer's %#010x\n",
		       q->qp ? q->qp->qp_num : 0, q->psn, q->pk ? q->pk->qpn : 0,
		       o->rdma_cm ? q->cm_rq_psn : q->pk ? q->pk->psn : 0, q->rkey, q->pk ? q->pk->rkey : 0);
	}
	if (o->mw)
		printf(" Memory window : type %d per QP over its %zu bytes, VA-based, %s only; the MR's rkey %#010x "
		       "grants no remote access\n", o->mw, k->r_len, rights_str(mw_rights(o->test)), k->mr ? k->mr->rkey : 0);
	printf(" Number of qps : %d  Max inline data : %u[B]  Using SRQ : %s  Connection type : %s\n", k->nqp,
	       o->inline_size, k->srq ? "ON" : "OFF", k->grh ? "UD" : "RC");
	if (o->rdma_cm)
		printf(" Connected by : rdma_cm (port %u: a control QP, then each QP; the CM's PSNs)\n", o->port);
	else
		printf(" Connected by : the exchange (TCP port %u; the keys' PSNs)\n", o->port);
	if (o->mcg) {
		/* the group we joined, and the one we send to */
		int sends = o->test == PERF_SEND_LAT || !is_server(k);
		char j[40] = "none", t[40] = "none";

		if (k->mcg_join)
			gid_str(k->mgid.raw, j);
		if (sends && k->q[0].pk)
			gid_str(k->q[0].pk->gid, t);
		printf(" Multicast : joined %s  sent to %s\n", j, t);
	}
	printf(RULE);
	if (k->nrows && lat) {
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
		       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]   (%s at %u MHz)\n", clk, mhz);
		for (int i = 0; i < k->nrows; i++) {
			const struct row *r = &k->rows[i];

			printf(" %-7zu %-10" PRIu64 "      %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"
			       "\t\t%-7.2f \t\t%-7.2f\n", r->bytes, o->iters, r->t_min, r->t_max, r->t_typical, r->t_avg,
			       r->t_stdev, r->t_p99, r->t_p999);
		}
	} else if (k->nrows) {
		printf(" #bytes     #iterations    BW average[MB/sec]   MsgRate[Mpps]   (%s at %u MHz)\n", clk, mhz);
		for (int i = 0; i < k->nrows; i++)
			printf(" %-7zu    %-10" PRIu64 "       %-7.2f              %-7.6f\n", k->rows[i].bytes, o->iters,
			       k->rows[i].bw_avg, k->rows[i].msg_rate);
	} else {
		printf(" #bytes     #iterations    (the peer drove the traffic)\n");
		for (int i = 0; i < k->nsizes; i++)
			printf(" %-7zu    %-10" PRIu64 "\n", k->sizes[i], o->iters);
	}
	if (k->nic->sim_link_line)
		k->nic->sim_link_line(k->nic->arg, k->accepted, k->failed);
	else
		printf(" card: every completion and the data checked; verified: %s\n", k->failed ? "NO" : "yes");
	printf(RULE);
	fflush(stdout);
}

/* --json: rnic-perf --sim's rows, a row per size, with this side's role and
 * peer; the side whose peer drove the traffic has no timings. */
static int write_json(struct lk *k)
{
	const struct perf_link_opts *o = k->o;
	int n = k->nrows ? k->nrows : k->nsizes;
	FILE *f = fopen(o->json, "w");

	if (!f) {
		fprintf(stderr, "rnic-perf: %s: %s\n", o->json, strerror(errno));
		return -1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < n; i++) {
		const struct row *r = &k->rows[i];

		fprintf(f, "  {\"test\": \"%s\", \"bytes\": %zu, \"iterations\": %" PRIu64 ", \"qps\": %d, "
			"\"mtu\": %u, \"tx_depth\": %d, \"inline_size\": %u, ", perf_test_name(o->test),
			k->nrows ? r->bytes : k->sizes[i], o->iters, k->nqp, 128u << k->s.active_mtu, o->tx_depth,
			o->inline_size);
		if (k->nic->progress)
			fprintf(f, "\"width_bits\": %d, ", o->width);
		fprintf(f, "\"seed\": %" PRIu64 ", \"role\": \"%s\", \"peer\": \"perftest %d.%02d\", \"device\": \"%s\", ",
			o->seed, is_server(k) ? "server" : "client", k->s.peer_major, k->s.peer_minor,
			k->nic->progress ? "simulated" : "card");
		if (!k->nrows)
			fprintf(f, "\"peer_drove\": true, ");
		else if (perf_test_is_bw(o->test))
			fprintf(f, "\"clock_mhz\": %u, \"cycles\": %" PRIu64 ", \"bw_peak_mb_per_sec\": %.2f, "
				"\"bw_avg_mb_per_sec\": %.2f, \"msg_rate_mpps\": %.6f, ", k->nic->tick_mhz, r->ticks,
				r->bw_avg, r->bw_avg, r->msg_rate);
		else
			fprintf(f, "\"clock_mhz\": %u, \"cycles\": %" PRIu64 ", \"t_min_usec\": %.2f, \"t_max_usec\": %.2f, "
				"\"t_typical_usec\": %.2f, \"t_avg_usec\": %.2f, \"t_stdev_usec\": %.2f, "
				"\"t_p99_usec\": %.2f, \"t_p999_usec\": %.2f, ", k->nic->tick_mhz, r->ticks, r->t_min,
				r->t_max, r->t_typical, r->t_avg, r->t_stdev, r->t_p99, r->t_p999);
		fprintf(f, "\"verified\": %s}%s\n", k->failed ? "false" : "true", i + 1 == n ? "" : ",");
	}
	fprintf(f, "]\n");
	return fclose(f) ? -1 : 0;
}

int perf_link_run(const struct perf_link_opts *o, const struct perf_nic *nic)
{
	struct lk k;
	char e[160];
	int lfd = -1, rc = 1;

	memset(&k, 0, sizeof(k));
	k.o = o;
	k.nic = nic;
	k.s.fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &k.deadline);
	k.deadline.tv_sec += o->wall_limit;
	k.active = o->test == PERF_WRITE_LAT || o->test == PERF_SEND_LAT || !is_server(&k);
	k.nqp = o->qps > 1 ? o->qps : 1;
	if (o->all) {
		size_t max = perf_link_all_max(nic);

		/* UD: one packet per message, as perftest's -a */
		if (o->ud && max > (size_t)(128u << o->mtu))
			max = 128u << o->mtu;
		for (size_t s = 2; s <= max && k.nsizes < OOB_MAX_SIZES; s <<= 1)
			k.sizes[k.nsizes++] = s;
	} else {
		k.sizes[k.nsizes++] = o->size;
	}
	k.max_size = k.sizes[k.nsizes - 1];
	k.max_depth = perf_test_is_bw(o->test) ? o->tx_depth : 1;
	if ((uint64_t)k.max_depth > o->iters)
		k.max_depth = (int)o->iters;
	if (perf_test_opcode(o->test) == RNIC_WR_SEND && !k.active && o->iters > (uint64_t)k.max_depth)
		k.max_depth = o->iters < 512 ? (int)o->iters : 512; /* receives kept posted */
	oob_plan_cm(o->test, k.nqp, k.nsizes, o->rdma_cm, k.plan);
	if (!perf_test_is_bw(o->test))
		k.lat = calloc(o->iters, sizeof(*k.lat));
	if (o->test == PERF_ATOMIC_BW)
		k.atomics = calloc((size_t)k.nqp * o->iters, sizeof(*k.atomics));
	if ((!perf_test_is_bw(o->test) && !k.lat) || (o->test == PERF_ATOMIC_BW && !k.atomics)) {
		err(&k, "out of memory");
		goto out;
	}
	if (setup(&k))
		goto out;
	if (o->rdma_cm) {
		if (cm_open(&k))
			goto out;
	} else if (is_server(&k)) {
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
	if (!o->rdma_cm && k.s.fd < 0) {
		err(&k, "%s", e);
		goto out;
	}
	k.s.client = !is_server(&k);
	k.s.test = o->test;
	k.s.cycle_buffer = CYCLE_BUFFER;
	k.s.cache_line = CACHE_LINE;
	k.s.mtu = o->mtu;
	k.s.nqp = k.nqp;
	k.s.nsizes = k.nsizes;
	{
		union rnic_gid g;
		int ge = rnic_query_gid(k.ctx, 1, 0, &g);

		if (ge) {
			err(&k, "query_gid 0: %s", strerror(ge));
			goto out;
		}
		for (int i = 0; i < k.nqp; i++) {
			struct oob_key *key = i ? &k.s.qp_key[i] : &k.s.key;

			key->out_reads = RNIC_MAX_RD_ATOMIC;
			/* -R: the CM makes the QPs (cm_connect_data fills these in) */
			key->qpn = k.q[i].qp ? k.q[i].qp->qp_num : 0;
			key->psn = k.q[i].psn;
			key->rkey = k.q[i].rkey;
			key->vaddr = (uint64_t)(uintptr_t)k.q[i].R;
			memcpy(key->gid, g.raw, 16);
		}
		if (o->mcg && (o->test == PERF_SEND_LAT || is_server(&k))) {
			/* perftest's set_multicast_gid: its group, or the next one for
			 * send_lat's client; the key names the group and the multicast QPN */
			static const uint8_t mcg_gid[16] = PERF_LINK_MCG_GID;

			memcpy(k.mgid.raw, o->mgid_set ? o->mgid : mcg_gid, 16);
			if (!o->mgid_set && !is_server(&k))
				k.mgid.raw[15]++;
			if (!is_group(k.mgid.raw) || k.mgid.raw[0] == 0xff) {
				err(&k, "-g: the group %02x%02x:%02x%02x:... is %s; this port's address is IPv4: name an "
				    "IPv4-mapped group with -M (0:0:0:0:0:0:0:0:0:0:255:255:239:A:B:C)", k.mgid.raw[0],
				    k.mgid.raw[1], k.mgid.raw[2], k.mgid.raw[3],
				    is_group(k.mgid.raw) ? "an IPv6 one" : "no multicast address");
				goto out;
			}
			memcpy(k.s.key.gid, k.mgid.raw, 16);
			k.s.key.qpn = RNIC_MCAST_QPN;
			k.mcg_join = 1;
		}
	}
	k.s.wait_readable = pump;
	k.s.wait_arg = &k;
	k.s.rdma_cm = o->rdma_cm;
	k.s.msg_send = ctrl_send;
	k.s.msg_recv = ctrl_recv;
	k.s.msg_arg = &k;
	if (oob_run(&k.s, hook, &k)) {
		if (!k.failed)
			err(&k, "perftest exchange: %s", k.s.err);
		k.failed = 1;
	} else if (!k.failed) {
		/* what the peer's last frames (its final ACKs) still need */
		step(&k, nic->quiet_ticks);
		if (!(k.recv_open ? close_receives(&k) : drain_cq(&k)))
			check_memory(&k);
	}
	if (o->rdma_cm && k.ch && !k.failed)
		cm_close(&k);
	print_results(&k);
	if (o->json && k.connected && write_json(&k))
		k.failed = 1;
	rc = k.failed;
out:
	if (k.s.fd >= 0)
		close(k.s.fd);
	if (lfd >= 0)
		close(lfd);
	if (teardown(&k))
		rc = 1;
	return rc ? 1 : 0;
}
