/* The model as a software peer of the RTL NIC (model/rc_peer.[ch]): a world
 * of one simulated NIC, driven through the host library, talks RoCEv2 to a
 * model QP that answers through the simulator's frame injection.
 *
 *   peer_write [--width 64|512] [--seed N] [--pcap-dir DIR] [--quick] [--only GROUP[,GROUP...]]
 *
 * Groups: "write" (RTL RDMA WRITEs into the peer's memory, sizes around the
 * MTU and 1 MiB at MTU 256/1024/4096, scatter/gather, several in flight),
 * "error" (a remote access error NAKed by the peer, the flush after it, and
 * no DMA by the NIC after the host has its completions), "faults" (RTL
 * WRITEs over a lossy link: drops, duplicates, reordering, corruption; the
 * RTL recovers by go-back-N), "send"
 * (RTL SEND, SEND with immediate and WRITE with immediate into the peer's
 * receive queue), "peer" (the peer's WRITEs and SENDs into the RTL's host
 * memory). Each case prints PASS/FAIL; the last line is "N passed, N failed". */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_peer.h"
#include "rc_qp.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"

#define GUARD 4096
#define GUARD_BYTE 0xa5
#define MAX_CYCLES 60000000ull

static int passed, failed;
static int width = 64;
static uint64_t seed = 1;
static const char *pcap_dir;
static int quick;
static const char *only;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s ", ok ? "PASS" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

static uint64_t rng_state;
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- setup */

static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
static const uint8_t nic_ip[4] = {198, 18, 0, 1};
#define PEER_PSN 0x3000
#define NIC_PSN 0x1000

/* link faults of the next world (the "faults" group): the NIC's frames only;
 * the peer's go into the NIC's RX unharmed */
static double fault_drop, fault_dup, fault_reorder, fault_corrupt;
static uint32_t peer_drop_ppm, peer_dup_ppm;
static uint8_t nic_timeout = 14;

struct bench {
	struct rnic_world *w;
	struct rc_peer *peer;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rc_cq pscq, prcq; /* the peer's CQs */
	uint32_t mtu_code;
	int nqp;
	struct rnic_qp *qp[8];
	struct rc_qp *pqp[8];
};

/* The RTL QP: INIT -> RTR -> RTS toward the peer QP pqpn. */
static int connect_nic_qp(struct bench *b, struct rnic_qp *qp, uint32_t pqpn, const uint8_t peer_gid[16],
			  const uint8_t peer_mac[6])
{
	struct rnic_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = b->mtu_code;
	a.dest_qp_num = pqpn;
	a.rq_psn = PEER_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	memcpy(a.ah_attr.grh.dgid.raw, peer_gid, 16);
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.dmac, peer_mac, 6);
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
					 RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = NIC_PSN;
	a.timeout = nic_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
					  RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
}

static int bench_open(struct bench *b, uint32_t mtu_code, int nqp, const char *tag)
{
	struct rnic_sim_cfg cfg;
	struct rc_peer_cfg pc;
	union rnic_gid gid;
	char path[512];

	memset(b, 0, sizeof(*b));
	b->mtu_code = mtu_code;
	b->nqp = nqp;
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 1; /* the peer is the only other station */
	cfg.data_width = (unsigned)width;
	cfg.seed = seed;
	cfg.p_drop = fault_drop;
	cfg.p_dup = fault_dup;
	cfg.p_reorder = fault_reorder;
	cfg.p_corrupt = fault_corrupt;
	if (pcap_dir) {
		snprintf(path, sizeof(path), "%s/%s.pcap", pcap_dir, tag);
		cfg.pcap_path = path;
	}
	b->w = rnic_world_create(&cfg);
	if (!b->w)
		return errno ? errno : EIO;
	rc_peer_cfg_default(&pc);
	pc.rate_milli = width == 64 ? 5000 : 50000;
	pc.tx_drop_ppm = peer_drop_ppm;
	pc.tx_dup_ppm = peer_dup_ppm;
	pc.seed = seed;
	b->peer = rc_peer_attach(b->w, &pc);
	if (!b->peer || rc_cq_init(&b->pscq, 4096) || rc_cq_init(&b->prcq, 4096))
		return ENOMEM;
	b->ctx = rnic_open_sim(b->w, 0);
	if (!b->ctx)
		return errno ? errno : ENODEV;
	rnic_gid_from_ipv4(&gid, nic_ip);
	if (rnic_set_port_mac(b->ctx, nic_mac) || rnic_set_gid(b->ctx, 0, &gid))
		return EIO;
	b->pd = rnic_alloc_pd(b->ctx);
	b->cq = b->pd ? rnic_create_cq(b->ctx, 4096) : NULL;
	if (!b->cq)
		return errno ? errno : EIO;
	for (int i = 0; i < nqp; i++) {
		struct rnic_qp_init_attr ia;
		struct rc_qp_cfg qc;
		int err;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = b->cq;
		ia.qp_type = RNIC_QPT_RC;
		ia.cap.max_send_wr = 256;
		ia.cap.max_send_sge = RNIC_MAX_SEND_SGE;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_recv_sge = RNIC_MAX_RECV_SGE;
		ia.cap.max_inline_data = RNIC_MAX_INLINE_BYTES;
		b->qp[i] = rnic_create_qp(b->pd, &ia);
		if (!b->qp[i])
			return errno ? errno : EIO;
		/* the peer's QP: rxe's policies, talking to the NIC's address */
		rc_qp_cfg_default(&qc);
		qc.qpn = 0x100 + (uint32_t)i;
		qc.dest_qpn = b->qp[i]->qp_num;
		qc.mtu = 128u << mtu_code;
		qc.sq_psn = PEER_PSN;
		qc.rq_psn = NIC_PSN;
		qc.min_rnr_timer = 1;
		qc.timeout = peer_drop_ppm ? 6 : 14;
		memcpy(qc.addr.dmac, nic_mac, 6);
		rc_gid_from_ipv4(qc.addr.dgid, nic_ip);
		qc.addr.udp_sport = (uint16_t)(0xd000 + i);
		b->pqp[i] = rc_peer_add_qp(b->peer, &qc, &b->pscq, &b->prcq);
		if (!b->pqp[i])
			return EINVAL;
		err = connect_nic_qp(b, b->qp[i], qc.qpn, pc.gid, pc.mac);
		if (err)
			return err;
	}
	return 0;
}

static void bench_close(struct bench *b)
{
	for (int i = 0; i < b->nqp; i++)
		if (b->qp[i])
			rnic_destroy_qp(b->qp[i]);
	if (b->cq)
		rnic_destroy_cq(b->cq);
	if (b->pd)
		rnic_dealloc_pd(b->pd);
	if (b->ctx)
		rnic_close_device(b->ctx);
	rc_peer_detach(b->peer);
	rc_cq_free(&b->pscq);
	rc_cq_free(&b->prcq);
	if (b->w) {
		struct rnic_sim_nic *nic = rnic_world_nic(b->w, 0);
		struct rnic_sim_mem_stats st;

		rnic_sim_nic_mem_stats(nic, &st);
		{
			struct rnic_sim_fault f[4];
			uint64_t nf = rnic_sim_nic_faults(nic, f, 4);

			for (uint64_t i = 0; i < nf && i < 4; i++)
				printf("  DMA fault at cycle %llu: %s addr %#llx (burst %#llx, %u bytes, id %u)\n",
				       (unsigned long long)f[i].cycle, f[i].write ? "write" : "read",
				       (unsigned long long)f[i].addr, (unsigned long long)f[i].burst_addr, f[i].burst_bytes,
				       f[i].id);
		}
		if (rnic_sim_nic_faults(nic, NULL, 0) || st.protocol_errors)
			result(0, "DMA faults %llu, AXI protocol errors %llu",
			       (unsigned long long)rnic_sim_nic_faults(nic, NULL, 0),
			       (unsigned long long)st.protocol_errors);
		rnic_world_destroy(b->w);
	}
	memset(b, 0, sizeof(*b));
}

/* RTL completions: poll until n arrived (each empty poll runs one cycle). */
static int nic_wait(struct bench *b, struct rnic_wc *wc, int n)
{
	int got = 0;

	for (uint64_t polls = 0; got < n && polls < MAX_CYCLES;) {
		int r = rnic_poll_cq(b->cq, n - got, wc + got);

		if (r < 0)
			break;
		if (r == 0)
			polls++;
		got += r;
	}
	return got;
}

/* Peer completions: run the world until n are in cq. */
static int peer_wait(struct bench *b, struct rc_cq *cq, struct rc_wc *wc, int n)
{
	for (uint64_t c = 0; rc_cq_count(cq) < (uint32_t)n && c < MAX_CYCLES; c += 16)
		rnic_world_step(b->w, 16);
	return rc_cq_poll(cq, wc, n);
}

/* Host buffer of the NIC with guard zones; registered. */
struct nbuf {
	uint8_t *base, *p;
	size_t len;
	struct rnic_mr *mr;
};

static int nbuf_init(struct bench *b, struct nbuf *x, size_t len, int access, int fill)
{
	size_t total = (len + 2 * GUARD + 4095) & ~(size_t)4095;

	x->base = aligned_alloc(4096, total);
	if (!x->base)
		return ENOMEM;
	memset(x->base, GUARD_BYTE, total);
	x->p = x->base + GUARD;
	x->len = len;
	if (fill)
		for (size_t i = 0; i < len; i++)
			x->p[i] = (uint8_t)rng();
	x->mr = rnic_reg_mr(b->pd, x->p, len ? len : 1, access);
	return x->mr ? 0 : EIO;
}

static void nbuf_free(struct nbuf *x)
{
	if (x->mr)
		rnic_dereg_mr(x->mr);
	free(x->base);
	memset(x, 0, sizeof(*x));
}

/* Peer buffer with guard zones; registered in the peer's memory. */
struct pbuf {
	uint8_t *base, *p;
	size_t len;
	uint32_t key;
};

static int pbuf_init(struct bench *b, struct pbuf *x, size_t len, unsigned int access, int fill)
{
	x->base = malloc(len + 2 * GUARD);
	if (!x->base)
		return ENOMEM;
	memset(x->base, GUARD_BYTE, len + 2 * GUARD);
	x->p = x->base + GUARD;
	x->len = len;
	if (fill)
		for (size_t i = 0; i < len; i++)
			x->p[i] = (uint8_t)rng();
	else
		memset(x->p, 0, len);
	x->key = rc_mem_reg(rc_peer_mem(b->peer), 0, x->p, (uint64_t)(uintptr_t)x->p, len ? len : 1, access);
	return x->key ? 0 : ENOMEM;
}

static void pbuf_free(struct bench *b, struct pbuf *x)
{
	if (x->key)
		rc_mem_dereg(rc_peer_mem(b->peer), x->key);
	free(x->base);
	memset(x, 0, sizeof(*x));
}

static int guards_ok(const uint8_t *base, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < GUARD; i++)
		if (base[i] != GUARD_BYTE || p[len + i] != GUARD_BYTE)
			return 0;
	return 1;
}

static int nic_post(struct rnic_qp *qp, uint64_t wr_id, uint32_t opcode, struct rnic_sg_entry *sge, int nsge,
		    uint64_t raddr, uint32_t rkey, uint32_t imm_host)
{
	struct rnic_send_wr wr, *bad = NULL;
	uint8_t be[4] = {(uint8_t)(imm_host >> 24), (uint8_t)(imm_host >> 16), (uint8_t)(imm_host >> 8),
			 (uint8_t)imm_host};

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.opcode = opcode;
	wr.send_flags = RNIC_SEND_SIGNALED;
	memcpy(&wr.imm_data, be, 4); /* network order, as ibv's __be32 */
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return rnic_post_send(qp, &wr, &bad);
}

static int split(struct rnic_sg_entry *sge, const struct nbuf *x, size_t len, int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		size_t piece = (i == n - 1) ? len - off : (len - off) / 3;

		sge[i].addr = (uint64_t)(uintptr_t)(x->p + off);
		sge[i].length = (uint32_t)piece;
		sge[i].lkey = x->mr->lkey;
		off += piece;
	}
	return n;
}

/* ---------------------------------------------------------------- write group */

static void write_case(struct bench *b, int q, size_t len, int nsge)
{
	uint32_t mtu = 128u << b->mtu_code;
	struct nbuf src = {0};
	struct pbuf dst = {0};
	struct rnic_sg_entry sge[RNIC_MAX_SEND_SGE];
	struct rnic_wc wc;
	uint64_t c0;
	int n = 0, ok = 0;

	if (nbuf_init(b, &src, len, RNIC_ACCESS_LOCAL_WRITE, 1) ||
	    pbuf_init(b, &dst, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0)) {
		result(0, "w%d mtu%u RTL WRITE %zu B to the peer: setup", width, mtu, len);
		goto out;
	}
	c0 = rnic_world_cycle(b->w);
	if (nic_post(b->qp[q], 0x1000 + len, RNIC_WR_RDMA_WRITE, sge, split(sge, &src, len, nsge),
		     (uint64_t)(uintptr_t)dst.p, dst.key, 0)) {
		result(0, "w%d mtu%u RTL WRITE %zu B to the peer: post_send", width, mtu, len);
		goto out;
	}
	n = nic_wait(b, &wc, 1);
	ok = n == 1 && wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RDMA_WRITE && wc.wr_id == 0x1000 + len &&
	     memcmp(src.p, dst.p, len) == 0 && guards_ok(dst.base, dst.p, len);
	result(ok, "w%d mtu%u RTL WRITE %zu B over %d SGE(s) into the peer's memory: %s, %llu cycles", width, mtu, len,
	       nsge, n == 1 ? rnic_wc_status_str(wc.status) : "no completion",
	       (unsigned long long)(rnic_world_cycle(b->w) - c0));
out:
	nbuf_free(&src);
	pbuf_free(b, &dst);
}

/* Eight WRITEs in flight at once, different sizes; completions in order. */
static void write_burst_case(struct bench *b, int q)
{
	uint32_t mtu = 128u << b->mtu_code;
	struct nbuf src[8] = {{0}};
	struct pbuf dst[8] = {{0}};
	struct rnic_sg_entry sge[8];
	struct rnic_wc wc[8];
	int ok = 1, n;

	for (int i = 0; i < 8 && ok; i++) {
		size_t len = 1000 + (size_t)i * 777;

		ok &= !nbuf_init(b, &src[i], len, RNIC_ACCESS_LOCAL_WRITE, 1) &&
		      !pbuf_init(b, &dst[i], len, RNIC_ACCESS_REMOTE_WRITE, 0);
		split(&sge[i], &src[i], len, 1);
		ok &= ok && !nic_post(b->qp[q], 0x2000 + (uint64_t)i, RNIC_WR_RDMA_WRITE, &sge[i], 1,
				      (uint64_t)(uintptr_t)dst[i].p, dst[i].key, 0);
	}
	n = ok ? nic_wait(b, wc, 8) : 0;
	ok &= n == 8;
	for (int i = 0; ok && i < 8; i++)
		ok &= wc[i].wr_id == 0x2000 + (uint64_t)i && wc[i].status == RNIC_WC_SUCCESS &&
		      !memcmp(src[i].p, dst[i].p, src[i].len) && guards_ok(dst[i].base, dst[i].p, dst[i].len);
	result(ok, "w%d mtu%u eight RTL WRITEs in flight to the peer, completed in order, data intact", width, mtu);
	for (int i = 0; i < 8; i++) {
		nbuf_free(&src[i]);
		pbuf_free(b, &dst[i]);
	}
}

/* A WRITE with a bad rkey: the peer NAKs (remote access error), the RTL
 * completes it with REM_ACCESS_ERR and flushes the next one. */
static void write_error_case(struct bench *b, int q)
{
	struct nbuf src = {0};
	struct pbuf dst = {0};
	struct rnic_sg_entry sge[2];
	struct rnic_wc wc[2];
	int ok, n = 0;

	ok = !nbuf_init(b, &src, 3000, RNIC_ACCESS_LOCAL_WRITE, 1) &&
	     !pbuf_init(b, &dst, 3000, RNIC_ACCESS_REMOTE_WRITE, 0);
	split(sge, &src, 3000, 1);
	split(sge + 1, &src, 3000, 1);
	ok = ok && !nic_post(b->qp[q], 0x3000, RNIC_WR_RDMA_WRITE, sge, 1, (uint64_t)(uintptr_t)dst.p, dst.key ^ 0x80, 0) &&
	     !nic_post(b->qp[q], 0x3001, RNIC_WR_RDMA_WRITE, sge + 1, 1, (uint64_t)(uintptr_t)dst.p, dst.key, 0);
	n = ok ? nic_wait(b, wc, 2) : 0;
	ok &= n == 2 && wc[0].wr_id == 0x3000 && wc[0].status == RNIC_WC_REM_ACCESS_ERR && wc[1].wr_id == 0x3001 &&
	      wc[1].status == RNIC_WC_WR_FLUSH_ERR && rc_qp_state(b->pqp[q]) == RNIC_QPS_ERR;
	for (size_t i = 0; ok && i < 3000; i++)
		ok &= dst.p[i] == 0;
	result(ok, "w%d peer NAKs a bad rkey: RTL completes %s then %s; peer memory untouched", width,
	       n >= 1 ? rnic_wc_status_str(wc[0].status) : "nothing", n >= 2 ? rnic_wc_status_str(wc[1].status) : "nothing");
	nbuf_free(&src);
	pbuf_free(b, &dst);
}

static void write_group(uint32_t mtu_code)
{
	uint32_t mtu = 128u << mtu_code;
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 5, 1u << 20};
	int nsizes = quick ? 6 : 7;
	struct bench b;
	char tag[64];
	int err;

	snprintf(tag, sizeof(tag), "peer_w%d_mtu%u", width, mtu);
	err = bench_open(&b, mtu_code, 2, tag);
	if (err) {
		result(0, "w%d mtu%u: world, peer and QP setup: %s", width, mtu, strerror(err));
		bench_close(&b);
		return;
	}
	for (int i = 0; i < nsizes; i++)
		write_case(&b, 0, sizes[i], 1);
	write_case(&b, 0, 3 * mtu + 17, 3);
	write_case(&b, 0, 7, 4);
	write_burst_case(&b, 0);
	{
		const struct rc_peer_stats *ps = rc_peer_stats(b.peer);

		result(ps->bad == 0 && ps->no_qp == 0 && ps->for_peer > 0,
		       "w%d mtu%u every RTL frame decoded by the model's codec (%llu frames, %llu refused, %llu for no QP)",
		       width, mtu, (unsigned long long)ps->for_peer, (unsigned long long)ps->bad,
		       (unsigned long long)ps->no_qp);
	}
	bench_close(&b);
}

/* A world of its own: after the error the host frees the buffers of both
 * WQEs, as an application may once their completions are polled; the world's
 * DMA check then tells whether the NIC still touched them. */
static void error_group(void)
{
	struct bench b;
	int err;
	char tag[64];

	snprintf(tag, sizeof(tag), "peer_err_w%d_mtu1024", width);
	err = bench_open(&b, RNIC_IB_MTU_1024, 1, tag);
	if (err) {
		result(0, "w%d error: setup: %s", width, strerror(err));
		bench_close(&b);
		return;
	}
	write_error_case(&b, 0);
	bench_close(&b);
}

/* The NIC's frames cross a lossy link to the peer (drop, duplicate, reorder,
 * corrupt): the peer's model responder NAKs sequence errors and re-ACKs
 * duplicates, and the RTL must recover by go-back-N and its ACK timer. */
static void peer_faults_case(struct bench *b, size_t len)
{
	struct nbuf dst = {0};
	struct pbuf src = {0};
	struct rc_send_wr w;
	struct rc_wc pwc[6];
	int ok, n = 0;

	ok = !pbuf_init(b, &src, len, 0, 1) && !nbuf_init(b, &dst, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	memset(dst.p, 0, len);
	for (int i = 0; ok && i < 6; i++) {
		size_t off = (size_t)i * (len / 6), l = i == 5 ? len - off : len / 6;

		memset(&w, 0, sizeof(w));
		w.wr_id = 0x6800 + (uint64_t)i;
		w.opcode = RNIC_WR_RDMA_WRITE;
		w.flags = RC_SEND_SIGNALED;
		w.num_sge = 1;
		w.sg_list[0] = (struct rc_sge){(uint64_t)(uintptr_t)src.p + off, (uint32_t)l, src.key};
		w.remote_addr = (uint64_t)(uintptr_t)dst.p + off;
		w.rkey = dst.mr->rkey;
		ok = !rc_qp_post_send(b->pqp[0], &w);
	}
	n = ok ? peer_wait(b, &b->pscq, pwc, 6) : 0;
	ok = ok && n == 6;
	for (int i = 0; ok && i < 6; i++)
		ok = pwc[i].status == RNIC_WC_SUCCESS && pwc[i].wr_id == 0x6800 + (uint64_t)i;
	ok = ok && !memcmp(src.p, dst.p, len) && guards_ok(dst.base, dst.p, len);
	printf("  peer: %llu frames dropped, %llu duplicated; %llu retries, %llu timeouts; RTL NAKs received %llu\n",
	       (unsigned long long)rc_peer_stats(b->peer)->tx_dropped,
	       (unsigned long long)rc_peer_stats(b->peer)->tx_duplicated,
	       (unsigned long long)rc_qp_stats(b->pqp[0])->retries, (unsigned long long)rc_qp_stats(b->pqp[0])->timeouts,
	       (unsigned long long)rc_qp_stats(b->pqp[0])->rx_naks);
	{
		static const struct {
			const char *name;
			uint32_t reg;
		} ctr[] = {
			{"rx frames", RNIC_REG_STAT_RX_FRAMES},
			{"dropped malformed", RNIC_REG_STAT_RX_DROP_MALFORMED},
			{"dropped FIFO overflow", RNIC_REG_STAT_RX_DROP_OVERFLOW},
			{"dropped ICRC", RNIC_REG_STAT_RX_DROP_ICRC},
			{"PSN errors", RNIC_REG_STAT_RX_PSN_ERR},
			{"duplicates", RNIC_REG_STAT_RX_DUPLICATE},
			{"NAKs sent", RNIC_REG_STAT_TX_NAK},
		};

		printf("  NIC:");
		for (size_t k = 0; k < sizeof(ctr) / sizeof(ctr[0]); k++) {
			uint32_t v = 0;

			rnic_read_counter(b->ctx, ctr[k].reg, &v);
			printf(" %s %u%s", ctr[k].name, v, k + 1 < sizeof(ctr) / sizeof(ctr[0]) ? "," : "\n");
		}
	}
	if (rc_peer_stats(b->peer)->tx_dropped)
		result(ok && rc_qp_stats(b->pqp[0])->retries > 0,
		       "w%d peer WRITEs %zu B into the RTL host losing and doubling its own frames: the RTL NAKs, the "
		       "model goes back N, data intact (%d of 6 completed)", width, len, n);
	else
		result(ok, "w%d peer WRITEs %zu B into the RTL host at the line rate: data intact (%d of 6 completed)",
		       width, len, n);
	nbuf_free(&dst);
	pbuf_free(b, &src);
}

static void faults_group(void)
{
	struct bench b;
	int err;
	char tag[64];
	static const size_t sizes[] = {3000, 70000, 1, 1024, 262144, 5000, 40000, 1025};

	snprintf(tag, sizeof(tag), "peer_faults_w%d_mtu1024", width);
	fault_drop = 0.02;
	fault_dup = 0.01;
	fault_reorder = 0.01;
	fault_corrupt = 0.005;
	nic_timeout = 6; /* 262 us */
	err = bench_open(&b, RNIC_IB_MTU_1024, 1, tag);
	fault_drop = fault_dup = fault_reorder = fault_corrupt = 0;
	nic_timeout = 14;
	if (err) {
		result(0, "w%d faults: setup: %s", width, strerror(err));
		bench_close(&b);
		return;
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		write_case(&b, 0, sizes[i], 1 + (int)(i % 3));
	write_burst_case(&b, 0);
	{
		struct rnic_sim_link_stats ls;
		const struct rc_qp_stats *ps = rc_qp_stats(b.pqp[0]);

		rnic_world_link_stats(b.w, &ls);
		printf("  link: %llu dropped, %llu duplicated, %llu reordered, %llu corrupted; peer responder: "
		       "%llu PSN errors, %llu duplicates, %llu NAKs\n",
		       (unsigned long long)ls.dropped, (unsigned long long)ls.duplicated, (unsigned long long)ls.reordered,
		       (unsigned long long)ls.corrupted, (unsigned long long)ps->rx_psn_errors,
		       (unsigned long long)ps->rx_duplicates, (unsigned long long)ps->tx_naks);
		result(ls.dropped > 0 && ps->tx_naks > 0, "w%d faults: the link lost frames and the peer NAKed", width);
	}
	bench_close(&b);

	/* the other way: the peer's own frames get lost */
	snprintf(tag, sizeof(tag), "peer_faults_req_w%d_mtu1024", width);
	peer_drop_ppm = 20000;
	peer_dup_ppm = 10000;
	err = bench_open(&b, RNIC_IB_MTU_1024, 1, tag);
	peer_drop_ppm = peer_dup_ppm = 0;
	if (err) {
		result(0, "w%d peer faults: setup: %s", width, strerror(err));
		bench_close(&b);
		return;
	}
	peer_faults_case(&b, 200000);
	bench_close(&b);

	/* no faults, but the peer sends at the line rate */
	snprintf(tag, sizeof(tag), "peer_bulk_req_w%d_mtu1024", width);
	err = bench_open(&b, RNIC_IB_MTU_1024, 1, tag);
	if (err) {
		result(0, "w%d peer bulk: setup: %s", width, strerror(err));
		bench_close(&b);
		return;
	}
	peer_faults_case(&b, 1u << 20);
	bench_close(&b);
}

/* ---------------------------------------------------------------- send group */

static void send_case(struct bench *b, int q, uint32_t opcode, size_t len)
{
	static const char *const names[] = {"WRITE", "WRITE with immediate", "SEND", "SEND with immediate"};
	uint32_t mtu = 128u << b->mtu_code;
	struct nbuf src = {0};
	struct pbuf dst = {0};
	struct rnic_sg_entry sge[2];
	struct rnic_wc wc;
	struct rc_wc pwc;
	struct rc_recv_wr r;
	int ok, imm = opcode != RNIC_WR_SEND;
	uint32_t immv = 0xfeed0000u + (uint32_t)len;

	ok = !nbuf_init(b, &src, len, RNIC_ACCESS_LOCAL_WRITE, 1) &&
	     !pbuf_init(b, &dst, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = 0x4000 + len;
	if (opcode != RNIC_WR_RDMA_WRITE_WITH_IMM) {
		r.num_sge = 2;
		r.sg_list[0] = (struct rc_sge){(uint64_t)(uintptr_t)dst.p, (uint32_t)(len / 2), dst.key};
		r.sg_list[1] = (struct rc_sge){(uint64_t)(uintptr_t)dst.p + len / 2, (uint32_t)(len - len / 2), dst.key};
	}
	ok = ok && !rc_qp_post_recv(b->pqp[q], &r) &&
	     !nic_post(b->qp[q], 0x5000 + len, opcode, sge, split(sge, &src, len, 2), (uint64_t)(uintptr_t)dst.p,
		       dst.key, immv);
	ok = ok && nic_wait(b, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 0x5000 + len;
	ok = ok && peer_wait(b, &b->prcq, &pwc, 1) == 1 && pwc.status == RNIC_WC_SUCCESS && pwc.wr_id == r.wr_id &&
	     pwc.byte_len == len && (!imm || (pwc.imm_data == immv && pwc.wc_flags == RNIC_WC_FLAG_WITH_IMM)) &&
	     pwc.opcode == (opcode == RNIC_WR_RDMA_WRITE_WITH_IMM ? RNIC_WC_RECV_RDMA_WITH_IMM : RNIC_WC_RECV) &&
	     pwc.src_qp == b->qp[q]->qp_num;
	ok = ok && !memcmp(src.p, dst.p, len) && guards_ok(dst.base, dst.p, len);
	result(ok, "w%d mtu%u RTL %s %zu B to the peer's receive queue: data, immediate and both completions", width,
	       mtu, names[opcode], len);
	nbuf_free(&src);
	pbuf_free(b, &dst);
}

/* No receive WQE at the peer for 100 us: the peer's RNR NAKs (timer code 1,
 * 10 us) make the RTL wait and retry until the WQE is there. */
static void send_rnr_case(struct bench *b, int q)
{
	uint32_t mtu = 128u << b->mtu_code;
	size_t len = 2 * mtu + 100;
	struct nbuf src = {0};
	struct pbuf dst = {0};
	struct rnic_sg_entry sge;
	struct rnic_wc wc;
	struct rc_wc pwc;
	struct rc_recv_wr r;
	uint64_t naks0 = rc_qp_stats(b->pqp[q])->tx_rnr_naks, naks;
	int ok;

	ok = !nbuf_init(b, &src, len, RNIC_ACCESS_LOCAL_WRITE, 1) && !pbuf_init(b, &dst, len, RNIC_ACCESS_LOCAL_WRITE, 0);
	split(&sge, &src, len, 1);
	ok = ok && !nic_post(b->qp[q], 0x5800, RNIC_WR_SEND, &sge, 1, 0, 0, 0);
	rnic_world_step(b->w, 25000); /* 100 us */
	ok = ok && rnic_poll_cq(b->cq, 1, &wc) == 0;
	memset(&r, 0, sizeof(r));
	r.wr_id = 0x5801;
	r.num_sge = 1;
	r.sg_list[0] = (struct rc_sge){(uint64_t)(uintptr_t)dst.p, (uint32_t)len, dst.key};
	ok = ok && !rc_qp_post_recv(b->pqp[q], &r);
	ok = ok && nic_wait(b, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 0x5800;
	ok = ok && peer_wait(b, &b->prcq, &pwc, 1) == 1 && pwc.status == RNIC_WC_SUCCESS && pwc.byte_len == len &&
	     !memcmp(src.p, dst.p, len);
	naks = rc_qp_stats(b->pqp[q])->tx_rnr_naks - naks0;
	/* one RNR round is the 10 us timer plus a round trip: about 8 in 100 us */
	ok = ok && naks >= 4 && naks <= 12;
	result(ok, "w%d mtu%u RTL SEND into an empty receive queue: %llu RNR NAKs from the peer in 100 us, then delivered",
	       width, mtu, (unsigned long long)naks);
	nbuf_free(&src);
	pbuf_free(b, &dst);
}

static void send_group(uint32_t mtu_code)
{
	uint32_t mtu = 128u << mtu_code;
	struct bench b;
	char tag[64];
	int err;

	snprintf(tag, sizeof(tag), "peer_send_w%d_mtu%u", width, mtu);
	err = bench_open(&b, mtu_code, 1, tag);
	if (err) {
		result(0, "w%d mtu%u send: setup: %s", width, mtu, strerror(err));
		bench_close(&b);
		return;
	}
	send_case(&b, 0, RNIC_WR_SEND, 0);
	send_case(&b, 0, RNIC_WR_SEND, mtu + 1);
	send_case(&b, 0, RNIC_WR_SEND_WITH_IMM, 3 * mtu);
	send_case(&b, 0, RNIC_WR_RDMA_WRITE_WITH_IMM, 2 * mtu + 7);
	send_rnr_case(&b, 0);
	bench_close(&b);
}

/* ---------------------------------------------------------------- peer group */

/* The peer is the requester: its WRITE and SEND land in the RTL host's memory. */
static void peer_group(uint32_t mtu_code)
{
	uint32_t mtu = 128u << mtu_code;
	size_t len = 5 * mtu + 3;
	struct bench b;
	struct nbuf dst = {0}, rdst = {0};
	struct pbuf src = {0};
	struct rc_send_wr w;
	struct rc_wc pwc;
	struct rnic_wc wc;
	struct rnic_recv_wr r, *bad = NULL;
	struct rnic_sg_entry rs;
	char tag[64];
	int ok, err;

	snprintf(tag, sizeof(tag), "peer_req_w%d_mtu%u", width, mtu);
	err = bench_open(&b, mtu_code, 1, tag);
	if (err) {
		result(0, "w%d mtu%u peer requests: setup: %s", width, mtu, strerror(err));
		bench_close(&b);
		return;
	}
	ok = !pbuf_init(&b, &src, len, 0, 1) &&
	     !nbuf_init(&b, &dst, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0) &&
	     !nbuf_init(&b, &rdst, len, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(dst.p, 0, len);
	memset(&w, 0, sizeof(w));
	w.wr_id = 0x6000;
	w.opcode = RNIC_WR_RDMA_WRITE;
	w.flags = RC_SEND_SIGNALED;
	w.num_sge = 1;
	w.sg_list[0] = (struct rc_sge){(uint64_t)(uintptr_t)src.p, (uint32_t)len, src.key};
	w.remote_addr = (uint64_t)(uintptr_t)dst.p;
	w.rkey = ok ? dst.mr->rkey : 0;
	ok = ok && !rc_qp_post_send(b.pqp[0], &w) && peer_wait(&b, &b.pscq, &pwc, 1) == 1 &&
	     pwc.status == RNIC_WC_SUCCESS && pwc.wr_id == 0x6000;
	/* the RTL's DMA writes are done before its ACK leaves */
	ok = ok && !memcmp(src.p, dst.p, len) && guards_ok(dst.base, dst.p, len);
	result(ok, "w%d mtu%u peer WRITE %zu B into the RTL host's memory: %s", width, mtu, len,
	       ok ? "ACKed, data intact" : rnic_wc_status_str(pwc.status));

	rs.addr = ok ? (uint64_t)(uintptr_t)rdst.p : 0;
	rs.length = (uint32_t)len;
	rs.lkey = rdst.mr ? rdst.mr->lkey : 0;
	memset(&r, 0, sizeof(r));
	r.wr_id = 0x6100;
	r.sg_list = &rs;
	r.num_sge = 1;
	w.wr_id = 0x6001;
	w.opcode = RNIC_WR_SEND_WITH_IMM;
	w.imm_data = 0x12345678;
	ok = rdst.mr && !rnic_post_recv(b.qp[0], &r, &bad) && !rc_qp_post_send(b.pqp[0], &w) &&
	     nic_wait(&b, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS && wc.wr_id == 0x6100 &&
	     wc.opcode == RNIC_WC_RECV && wc.byte_len == len && (wc.wc_flags & RNIC_WC_WITH_IMM) &&
	     !memcmp(&wc.imm_data, "\x12\x34\x56\x78", 4) && !memcmp(src.p, rdst.p, len) &&
	     peer_wait(&b, &b.pscq, &pwc, 1) == 1 && pwc.status == RNIC_WC_SUCCESS;
	result(ok, "w%d mtu%u peer SEND with immediate %zu B into an RTL receive WQE: data, immediate, completions",
	       width, mtu, len);
	nbuf_free(&dst);
	nbuf_free(&rdst);
	pbuf_free(&b, &src);
	bench_close(&b);
}

/* --only takes a comma-separated list of groups */
static int want(const char *group)
{
	size_t n = strlen(group);

	for (const char *o = only; o && *o;) {
		const char *e = strchr(o, ',');
		size_t l = e ? (size_t)(e - o) : strlen(o);

		if (l == n && !strncmp(o, group, n))
			return 1;
		o = e ? e + 1 : NULL;
	}
	return !only;
}

int main(int argc, char **argv)
{
	int c;
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 's'},
		{"pcap-dir", required_argument, NULL, 'p'},
		{"quick", no_argument, NULL, 'q'},
		{"only", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};

	while ((c = getopt_long(argc, argv, "w:s:p:qo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': width = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': pcap_dir = optarg; break;
		case 'q': quick = 1; break;
		case 'o': only = optarg; break;
		default:
			printf("usage: %s [--width 64|512] [--seed N] [--pcap-dir DIR] [--quick] [--only write,error,faults,send,peer]\n"
			       "The RTL NIC against the C model as a software RoCE peer.\n", argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (width != 64 && width != 512) {
		fprintf(stderr, "peer_write: --width must be 64 or 512\n");
		return 2;
	}
	rng_state = seed;
	if (want("write")) {
		write_group(RNIC_IB_MTU_256);
		write_group(RNIC_IB_MTU_1024);
		write_group(RNIC_IB_MTU_4096);
	}
	if (want("error"))
		error_group();
	if (want("faults"))
		faults_group();
	if (want("send")) {
		send_group(RNIC_IB_MTU_1024);
		send_group(RNIC_IB_MTU_256);
	}
	if (want("peer")) {
		peer_group(RNIC_IB_MTU_1024);
		peer_group(RNIC_IB_MTU_4096);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
