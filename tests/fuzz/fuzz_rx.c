/* Receive-path fuzzer of the cycle-accurate NIC (docs/memcheck.md).
 *
 * One NIC with live objects made through the firmware's command mailbox (so
 * the simulator's memory-protection checker mirrors them): two PDs, one CQ,
 * three RC QPs in RTS with receive queues (different MTUs and remote access
 * rights), QP1 (the general services QP) and five MRs (every right, local write only, remote read only,
 * another PD's, the receive buffers). Frames from a simulated peer go into
 * the NIC's RX (rnic_sim_inject_frame), back to back:
 *
 *   - structured: valid RoCEv2 requests and responses (SEND, WRITE, READ,
 *     ATOMIC, ACK, READ responses; single packets and FIRST/MIDDLE/LAST
 *     runs) at the PSN the QP expects, or frames of the seed corpus (any
 *     pcap, e.g. the rxe captures) retargeted at our QPs and MRs, with 0..3
 *     field mutations (opcode, PSN, QPN, rkey, VA, DMA length, payload
 *     length, pad count, BTH bits, P_Key, TVer, AETH, atomic operands,
 *     addresses, IP version) and encoded by the reference codec with a
 *     valid ICRC (sometimes a bad one);
 *   - raw: the encoded frame's bytes flipped, overwritten, cut or extended,
 *     then (mostly) the IPv4 checksum and the ICRC recomputed so that the
 *     frame still gets past the receive checks.
 *
 * Frames go in batches. After each batch the QPs are recycled (ERR, RESET,
 * back to RTS, receive queues refilled) and checked: no memory-protection
 * violation, no DMA fault, no AXI or BAR error, the RX queue drained in
 * bounded time, the NIC answering BAR reads (DEV_ID), the firmware alive,
 * and a normal RDMA WRITE completing (its bytes land). An RTL assertion
 * stops the simulation (exit 1). On any failure the batch's frames are
 * written to CRASH_DIR as a pcap: a regression input for --replay, which
 * runs every pcap of a directory through the same setup and checks.
 *
 * With --requester each re-arm also posts an RDMA READ or an ATOMIC on every
 * QP's SQ (the NIC sends the request to the peer) and half the responses
 * the fuzzer makes answer it (its PSNs, opcodes and lengths), so that they
 * reach the placement engine (make fuzz runs its second process so). One
 * re-arm in three puts a memory-window WQE before it (docs/mw.md): a
 * BIND_MW, LOCAL_INV or SEND_WITH_INV (inline, one packet) with random fields, mostly aimed at the fuzzer's two
 * windows (type 1 and 2 in PD 0) and the MR with MW_BIND, so that some
 * binds succeed and the frames' rkeys may meet a bound window; a refused
 * one puts the QP in error and flushes the READ. Its own random stream
 * (wrng) leaves the READs and PSNs of a replay as they were.
 *
 *   rnic-fuzz-rx [--width 64|512] [--seed N] [--frames N] [--batch N]
 *                [--corpus FILE.pcap]... [--replay DIR] [--crash-dir DIR]
 *                [--minimize FILE.pcap] [--requester]
 *
 * The objects' memory sits at a fixed address (FZ_MEM_BASE) so that a
 * saved frame's VAs name the same bytes when it is replayed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fz_common.h"
#include "rnic/roce.h"

#define PG (1u << RNIC_MTT_PAGE_SHIFT)
#define FZ_MEM_BASE 0x4a0000000000ull /* high memory, clear of ASan's shadow and heap */
#define FZ_MEM_PAGES 72
#define NQP 3
/* The QP the re-arm makes a UD QP (its Q_Key UD_QKEY); the firmware's
 * recycle makes it an RC QP again until the next re-arm, so UD frames meet
 * both. UD frames (a SEND turned into UD SEND ONLY, a DETH put in) go to it
 * mostly, with its Q_Key mostly; some have their DETH cut short. */
#define UD_SLOT 2
#define UD_QKEY 0x1d2d3d4du
/* Multicast: the re-arm puts the UD QP in two groups (and the IPv4 one QP
 * slot 0 too, an RC QP no firmware would attach: its copies must be
 * dropped); a third of the UD frames go to a group (the multicast QPN, the
 * group's MAC and IP), some to a group nobody joined. */
static const uint32_t mc_gid4[4] = {0xef010203, 0xffff, 0, 0};     /* ::ffff:239.1.2.3 */
static const uint32_t mc_gid6[4] = {0x00010002, 0, 0, 0xff0e0000}; /* ff0e::1:2 */
/* QP1 (the general services QP: UD, Q_Key GSI_QKEY) takes a fifth of the UD
 * frames, mostly with its Q_Key: MADs as a peer's connection manager sends
 * them (the NIC hands them to the host's agent as UD receives). Every
 * recycle brings it back to RTS through the firmware with its receive queue
 * refilled; between recycles its 32 receive WQEs run out, so both its
 * receives and its no-WQE drops are met. */
#define NMR 5
#define RQ_LOG 5
#define CQ_LOG 12
#define SQ_LOG 4
#define MAX_BATCH 65536
#define REARM_EVERY 16      /* frames between two re-arms of the QPs */
#define DRAIN_LIMIT 200000u /* cycles for the RX queue to empty */
#define INV_QUIET 2000u     /* cycles without a window request before a re-arm */
#define SETTLE_CYCLES 3000u /* after a batch: responses and DMA finish */
#define LIVE_CYCLES 50000u  /* the normal WRITE must land within this */

struct fz_qp {
	uint32_t qpn, pd, slot;
	unsigned int access, mtu;
	uint32_t epsn;   /* the PSN the responder expects, as far as we know */
	uint32_t spsn;   /* the requester's first PSN since the last re-arm */
	uint32_t rd_psn; /* the READ's (or ATOMIC's) first PSN */
	uint32_t rd_len; /* bytes of the READ posted at the re-arm (0: none) */
	uint32_t rq_pi;  /* receive WQEs posted since the last RESET */
	uint32_t sq_pi;  /* send WQEs posted since the last RESET */
	uint8_t *sq, *rq;
};

struct fz_mr {
	uint32_t key, pd;
	unsigned int access;
	uint8_t *p;
	size_t len;
};

struct frame {
	uint32_t len;
	uint8_t b[RC_MAX_FRAME + 64];
};

struct fz {
	struct fz_nic f;
	uint8_t *mem;
	uint32_t pd[2], cqn;
	uint8_t *cq;
	uint32_t cq_ci;
	struct fz_qp qp[NQP];
	struct fz_qp gsi; /* QP1 */
	struct fz_mr mr[NMR];
	uint64_t rng;  /* the frames */
	uint64_t hrng; /* the harness: PSNs, the READs posted (the same in a replay) */
	uint64_t wrng; /* the window WQEs of --requester */
	uint32_t mw[2]; /* a type 1 and a type 2 window in PD 0: their keys */
	uint64_t mw_wqes, mw_wqes_rung, send_inv_wqes;
	/* seed corpus */
	struct frame *corpus;
	size_t ncorpus, cap_corpus;
	/* the current batch, for the crash file */
	struct frame *batch;
	unsigned int nbatch;
	const char *crash_dir;
	int requester;  /* --requester: post a READ or ATOMIC at each re-arm */
	int inv_fed;    /* a SEND with invalidate fed since the last re-arm */
	uint64_t batch_no;
	int done;
	/* statistics */
	uint64_t frames, structured, raw, from_corpus, repaired, batches, checks, rearms, ud, mcast, to_gsi;
	uint64_t gsi_recvs; /* successful receive CQEs of QP1 */
	uint64_t cycles_rx;
	struct rnic_sim_memcheck_stats mc;
};

static struct fz *g_fz; /* for the exit handler (an RTL assertion exits) */

static uint64_t rnd(struct fz *z)
{
	return fz_rand(&z->rng);
}

static uint32_t rnd_n(struct fz *z, uint32_t n)
{
	return n ? (uint32_t)(rnd(z) % n) : 0;
}

static uint64_t hrnd(struct fz *z)
{
	return fz_rand(&z->hrng);
}

static uint64_t hrnd_n(struct fz *z, uint64_t n)
{
	return n ? hrnd(z) % n : 0;
}

/* ------------------------------------------------------------- setup */

static uint32_t mtu_bytes(unsigned int mtu)
{
	return 128u << mtu;
}

static uint8_t *carve(struct fz *z, unsigned int *next, unsigned int pages)
{
	uint8_t *p = z->mem + (size_t)*next * PG;

	*next += pages;
	return p;
}

static void post_recvs(struct fz *z, struct fz_qp *q, const struct fz_mr *buf, unsigned int slot)
{
	const uint32_t n = 1u << RQ_LOG, len = 2048;

	for (uint32_t i = 0; i < n; i++) {
		struct rnic_recv_wqe *w = (struct rnic_recv_wqe *)(q->rq + (size_t)i * RNIC_RECV_WQE_BYTES);

		memset(w, 0, sizeof(*w));
		w->sge[0].addr = (uintptr_t)buf->p + ((slot * n + i) * 512u) % (buf->len - len);
		w->sge[0].length = len;
		w->sge[0].lkey = buf->key;
		w->sge[1].lkey = RNIC_INVALID_LKEY;
	}
	q->rq_pi = n;
	rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_RQ, q->qpn << 16 | (q->rq_pi & 0xffff));
}

static const struct fz_mr *recv_buf(const struct fz *z, const struct fz_qp *q)
{
	return q->pd == z->pd[0] ? &z->mr[4] : &z->mr[3];
}

static int connect_qp(struct fz *z, struct fz_qp *q, unsigned int slot)
{
	q->epsn = (uint32_t)(hrnd(z) & 0xffffff);
	if (fz_qp_connect(&z->f, q->qpn, q->pd, q->access, 0x100 + slot, q->epsn,
			  (uint32_t)(hrnd(z) & 0xffffff), q->mtu) != RNIC_CMD_ST_OK)
		return -1;
	post_recvs(z, q, recv_buf(z, q), slot);
	q->rd_len = 0;
	q->sq_pi = 0;
	return 0;
}

/* QP1 to RTS (send PSN 0: no harness randomness, so that a replay's PSNs
 * stay those of its recording) and its receive queue filled. */
static int gsi_arm(struct fz *z)
{
	struct fz_qp *q = &z->gsi;

	if (fz_qp_ud_rts(&z->f, q->qpn, q->pd, RNIC_GSI_QKEY, 0) != RNIC_CMD_ST_OK)
		return -1;
	post_recvs(z, q, recv_buf(z, q), q->slot);
	q->sq_pi = 0;
	return 0;
}

static int setup(struct fz *z, unsigned int width, uint64_t seed)
{
	static const unsigned int mtus[NQP] = {RNIC_IB_MTU_1024, RNIC_IB_MTU_4096, RNIC_IB_MTU_256};
	const unsigned int all = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
				 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	unsigned int next = 0;

	z->mem = mmap((void *)(uintptr_t)FZ_MEM_BASE, (size_t)FZ_MEM_PAGES * PG,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (z->mem == MAP_FAILED) {
		fprintf(stderr, "cannot map the objects' memory at 0x%llx: %s\n",
			(unsigned long long)FZ_MEM_BASE, strerror(errno));
		return -1;
	}
	if (fz_open(&z->f, width, seed, 1))
		return -1;
	z->cq = carve(z, &next, (RNIC_CQE_BYTES << CQ_LOG) / PG);
	if (fz_alloc_pd(&z->f, &z->pd[0]) || fz_alloc_pd(&z->f, &z->pd[1]) ||
	    fz_create_cq(&z->f, CQ_LOG, z->cq, &z->cqn))
		return -1;
	/* MRs: 0 every right (unaligned, 3 pages), 1 local write only, 2 remote
	 * read only, 3 every right in the other PD, 4 the receive buffers */
	{
		const struct { unsigned int pd, access, pages, off, trim; } d[NMR] = {
			{0, all | RNIC_ACCESS_MW_BIND, 4, 100, 300},
			{0, RNIC_ACCESS_LOCAL_WRITE, 2, 0, 0},
			{0, RNIC_ACCESS_REMOTE_READ, 2, 8, 8},
			{1, all, 8, 0, 0},
			{0, RNIC_ACCESS_LOCAL_WRITE, 8, 0, 0},
		};

		for (int i = 0; i < NMR; i++) {
			struct fz_mr *m = &z->mr[i];

			m->p = carve(z, &next, d[i].pages) + d[i].off;
			m->len = (size_t)d[i].pages * PG - d[i].off - d[i].trim;
			m->pd = z->pd[d[i].pd];
			m->access = d[i].access;
			if (fz_reg_mr(&z->f, m->pd, m->access, m->p, m->len, &m->key, NULL))
				return -1;
		}
	}
	for (int i = 0; i < NQP; i++) {
		struct fz_qp *q = &z->qp[i];

		q->sq = carve(z, &next, (RNIC_WQE_BYTES << SQ_LOG) / PG ? (RNIC_WQE_BYTES << SQ_LOG) / PG : 1);
		q->rq = carve(z, &next, 1);
		q->pd = z->pd[i == 2];
		q->slot = (uint32_t)i;
		q->mtu = mtus[i];
		q->access = i == 1 ? RNIC_ACCESS_REMOTE_READ :
				     RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
					     RNIC_ACCESS_REMOTE_ATOMIC;
		if (fz_create_qp(&z->f, q->pd, z->cqn, SQ_LOG, q->sq, RQ_LOG, q->rq, &q->qpn) ||
		    connect_qp(z, q, (unsigned int)i))
			return -1;
	}
	{
		struct fz_qp *q = &z->gsi;

		q->sq = carve(z, &next, (RNIC_WQE_BYTES << SQ_LOG) / PG ? (RNIC_WQE_BYTES << SQ_LOG) / PG : 1);
		q->rq = carve(z, &next, 1);
		q->pd = z->pd[0];
		q->slot = NQP;
		q->mtu = RNIC_IB_MTU_256; /* a MAD is 256 bytes */
		if (next > FZ_MEM_PAGES ||
		    fz_create_qp_type(&z->f, RNIC_QP_TYPE_GSI, q->pd, z->cqn, SQ_LOG, q->sq, RQ_LOG, q->rq,
				      &q->qpn) != RNIC_CMD_ST_OK ||
		    q->qpn != RNIC_GSI_QPN || gsi_arm(z))
			return -1;
	}
	if (next > FZ_MEM_PAGES)
		return -1;
	for (int t = 0; t < 2; t++) {
		uint32_t in[RNIC_CMD_ALLOC_MW_IN_WORDS] = {0}, out[RNIC_CMD_ALLOC_MW_OUT_WORDS] = {0};

		RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, PD, z->pd[0]);
		RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, TYPE, t ? RNIC_MW_TYPE_2 : RNIC_MW_TYPE_1);
		if (fz_cmd(&z->f, RNIC_CMD_OP_ALLOC_MW, in, RNIC_CMD_ALLOC_MW_IN_WORDS, out,
			   RNIC_CMD_ALLOC_MW_OUT_WORDS) != RNIC_CMD_ST_OK)
			return -1;
		z->mw[t] = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_MW_OUT, RKEY);
	}
	return 0;
}

static void teardown(struct fz *z)
{
	fz_close(&z->f);
	if (z->mem && z->mem != MAP_FAILED)
		munmap(z->mem, (size_t)FZ_MEM_PAGES * PG);
	z->mem = NULL;
}

/* One RDMA READ (or, one time in four, an ATOMIC) on the QP's fresh SQ,
 * into the receive-buffer MR: the NIC sends the request to the peer, and the
 * READ responses and ATOMIC ACKNOWLEDGEs the fuzzer makes at spsn.. then
 * meet an outstanding request and reach the placement engine. */
static uint64_t wrnd(struct fz *z)
{
	return fz_rand(&z->wrng);
}

/* A BIND_MW, LOCAL_INV or SEND_WITH_INV WQE into w: a window's key (its
 * current tag or another), the next tag or any, the MR with MW_BIND or
 * another, a range inside it or anywhere, random rights; a SEND_WITH_INV
 * carries up to 32 inline bytes (one packet). Returns the PSNs it takes. */
static uint32_t window_wqe(struct fz *z, struct rnic_wqe *w)
{
	const struct fz_mr *m = &z->mr[wrnd(z) % 4 ? 0 : wrnd(z) % NMR];
	uint32_t key = z->mw[wrnd(z) % 2], tag = (1u << RNIC_MKEY_TAG_BITS) - 1;
	uint64_t off = wrnd(z) % m->len;

	memset(w, 0, sizeof(*w));
	uint32_t pick = (uint32_t)(wrnd(z) % 3);

	w->opcode = pick == 0 ? RNIC_WR_BIND_MW : pick == 1 ? RNIC_WR_LOCAL_INV : RNIC_WR_SEND_WITH_INV;
	w->flags = RNIC_WQE_FLAG_SIGNALED;
	if (wrnd(z) % 4 == 0)
		key = (key & ~tag) | (uint32_t)(wrnd(z) & tag);
	if (wrnd(z) % 8 == 0)
		key = (uint32_t)wrnd(z);
	w->rkey = key;
	w->mw_new_rkey = wrnd(z) % 4 ? (key & ~tag) | ((key + 1 + (uint32_t)(wrnd(z) % 3)) & tag)
				     : (uint32_t)wrnd(z);
	w->bind_lkey = m->key;
	w->remote_addr = wrnd(z) % 4 ? (uintptr_t)m->p + off : wrnd(z);
	w->compare_add = wrnd(z) % 8 == 0 ? 0 : wrnd(z) % 4 ? 1 + wrnd(z) % (m->len - off) : wrnd(z);
	w->bind_access = (uint32_t)wrnd(z) & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
					      RNIC_ACCESS_REMOTE_ATOMIC | RNIC_ACCESS_ZERO_BASED |
					      (wrnd(z) % 8 ? 0 : RNIC_ACCESS_LOCAL_WRITE));
	z->mw_wqes++;
	if (w->opcode != RNIC_WR_SEND_WITH_INV)
		return 0;
	/* the window fields stay: the requester reads rkey alone */
	w->flags |= RNIC_WQE_FLAG_INLINE;
	w->inline_len = (uint8_t)(wrnd(z) % 33);
	w->length = w->inline_len;
	for (uint32_t i = 0; i < w->inline_len; i++)
		((uint8_t *)w->sge)[i] = (uint8_t)wrnd(z);
	z->send_inv_wqes++;
	return 1;
}

static void post_read(struct fz *z, struct fz_qp *q)
{
	struct rnic_wqe *w = (struct rnic_wqe *)q->sq;
	const struct fz_mr *dst = recv_buf(z, q);
	int atomic = (uint32_t)hrnd_n(z, 4) == 0;

	/* the QP's context was just written: its SQ starts at index 0. A
	 * window WQE first, one time in three: it takes no PSN */
	q->sq_pi = 0;
	q->rd_psn = q->spsn;
	if (wrnd(z) % 3 == 0) {
		q->rd_psn = (q->spsn + window_wqe(z, w)) & 0xffffff;
		w++;
		q->sq_pi++;
	}

	memset(w, 0, sizeof(*w));
	q->rd_len = atomic ? 8 : 2 * mtu_bytes(q->mtu) + 1 + (uint32_t)hrnd_n(z, mtu_bytes(q->mtu));
	w->opcode = atomic ? RNIC_WR_ATOMIC_FETCH_AND_ADD : RNIC_WR_RDMA_READ;
	w->flags = RNIC_WQE_FLAG_SIGNALED;
	w->num_sge = 1;
	w->remote_addr = hrnd(z) & ~7ull;
	w->rkey = (uint32_t)hrnd(z);
	w->length = q->rd_len;
	w->compare_add = hrnd(z);
	w->sge[0].addr = (uintptr_t)dst->p + 8 * (uint32_t)hrnd_n(z, (uint32_t)((dst->len - q->rd_len) / 8));
	w->sge[0].length = q->rd_len;
	w->sge[0].lkey = dst->key;
	q->sq_pi++;
}

/* The group table slot of a GID (the formats' hash, way 0; gid[0] holds
 * bits 31:0). */
static uint32_t mc_slot(const uint32_t gid[4])
{
	uint32_t h = 0, b = RNIC_MCAST_BUCKET_BITS;

	for (int i = 0; i < 8; i++)
		h ^= (gid[i / 2] >> (16 * (i % 2))) & 0xffff;
	return (h ^ h >> b ^ h >> 2 * b) & ((1u << b) - 1);
}

static int mc_write(struct fz *z, const uint32_t gid[4], int with_rc)
{
	uint32_t w[RNIC_MCG_WORDS] = {0};

	RNIC_CTX_SET(w, MCG, VALID, 1);
	RNIC_CTX_SET(w, MCG, COUNT, with_rc ? 2 : 1);
	for (int i = 0; i < 4; i++)
		rnic_ctx_set(w, RNIC_MCG_MGID_LSB + 32 * (unsigned int)i, 32, gid[i]);
	RNIC_CTX_SET_I(w, MCG, QPN, 0, z->qp[UD_SLOT].qpn);
	if (with_rc)
		RNIC_CTX_SET_I(w, MCG, QPN, 1, z->qp[0].qpn);
	return fz_ctx_write(&z->f, RNIC_CTX_TABLE_MCG, RNIC_CTX_OP_WRITE, mc_slot(gid), w, RNIC_MCG_WORDS);
}

/* Every QP straight back to RTS with fresh PSNs through the CTX window, as
 * the firmware writes QPCs (the QP's record with CTX_OP_WRITE, which resets
 * the QP's dynamic state and error state), and
 * its receive queue posted again: a few hundred cycles instead of the
 * firmware's ~45k per QP, so that the QPs are live for most frames. The
 * firmware's view (RTS) and the checker's mirror stay true: the record is
 * the one the firmware wrote, but for the PSNs. */
static int rearm(struct fz *z)
{
	z->rearms++;
	/* The re-arm writes the CTX window behind the firmware's back, which
	 * must not happen while the firmware serves a window request (it writes
	 * the window too, then answers; a QPC write of ours between the two can
	 * wait for the responder, which waits for the answer). After a SEND
	 * with invalidate the responder may still be on its way to the
	 * request, so wait until no request has shown for INV_QUIET cycles. */
	if (z->inv_fed) {
		for (unsigned int quiet = 0, c = 0; quiet < INV_QUIET && c < DRAIN_LIMIT; c += 100) {
			quiet = fz_mw_req_pending(&z->f) ? 0 : quiet + 100;
			rnic_world_step(z->f.w, 100);
		}
		z->inv_fed = 0;
	}
	for (int i = 0; i < NQP; i++) {
		struct fz_qp *q = &z->qp[i];
		uint32_t w[RNIC_QPC_WORDS] = {0};
		uint32_t dest = 0x100 + q->slot;
		uint64_t dmac = 0;

		for (int k = 0; k < 6; k++)
			dmac = dmac << 8 | fz_peer_mac[k];
		q->epsn = (uint32_t)(hrnd(z) & 0xffffff);
		RNIC_CTX_SET(w, QPC, STATE, RNIC_QPS_RTS);
		RNIC_CTX_SET(w, QPC, PMTU, q->mtu);
		RNIC_CTX_SET(w, QPC, DEST_QPN, dest);
		q->spsn = (uint32_t)(hrnd(z) & 0xffffff);
		RNIC_CTX_SET(w, QPC, SQ_PSN, q->spsn);
		RNIC_CTX_SET(w, QPC, RQ_PSN, q->epsn);
		RNIC_CTX_SET(w, QPC, ACCESS, q->access);
		RNIC_CTX_SET(w, QPC, PD, q->pd);
		RNIC_CTX_SET(w, QPC, SEND_CQN, z->cqn);
		RNIC_CTX_SET(w, QPC, RECV_CQN, z->cqn);
		RNIC_CTX_SET(w, QPC, SQ_LOG_SIZE, SQ_LOG);
		RNIC_CTX_SET(w, QPC, RQ_LOG_SIZE, RQ_LOG);
		RNIC_CTX_SET(w, QPC, RETRY_CNT, 1);
		RNIC_CTX_SET(w, QPC, RNR_RETRY, 1);
		RNIC_CTX_SET(w, QPC, MIN_RNR_TIMER, 1);
		RNIC_CTX_SET(w, QPC, MAX_RD_ATOMIC, RNIC_MAX_RD_ATOMIC);
		RNIC_CTX_SET(w, QPC, MAX_DEST_RD_ATOMIC, RNIC_MAX_RD_ATOMIC);
		RNIC_CTX_SET(w, QPC, UDP_SPORT, rnic_rocev2_udp_sport(q->qpn, dest, 0));
		RNIC_CTX_SET(w, QPC, PKEY, RNIC_DEFAULT_PKEY);
		RNIC_CTX_SET(w, QPC, HOP_LIMIT, RNIC_IPV4_DEFAULT_TTL);
		RNIC_CTX_SET(w, QPC, DST_MAC, dmac);
		fz_set_gid(w, RNIC_QPC_DGID_LSB, fz_peer_gid);
		RNIC_CTX_SET(w, QPC, SQ_BASE, (uintptr_t)q->sq);
		RNIC_CTX_SET(w, QPC, RQ_BASE, (uintptr_t)q->rq);
		if (q->slot == UD_SLOT) {
			RNIC_CTX_SET(w, QPC, UD, 1);
			RNIC_CTX_SET(w, QPC, QKEY, UD_QKEY);
		}
		if (fz_ctx_write(&z->f, RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, q->qpn, w,
				 RNIC_QPC_WORDS))
			return -1;
		q->rq_pi = 1u << RQ_LOG;
		rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_RQ, q->qpn << 16 | (q->rq_pi & 0xffff));
		if (z->requester)
			post_read(z, q);
	}
	if (mc_slot(mc_gid4) == mc_slot(mc_gid6) || mc_write(z, mc_gid4, 1) || mc_write(z, mc_gid6, 0))
		return -1;
	if (z->requester) {
		/* the SQ doorbells once the host is done with the CTX window: a
		 * window WQE makes the firmware write an MPT entry through it */
		for (int i = 0; i < NQP; i++)
			rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_SQ,
					     z->qp[i].qpn << 16 | (z->qp[i].sq_pi & 0xffff));
		/* ... and its answers (about 2k cycles each) before the host
		 * writes there again */
		if (z->mw_wqes != z->mw_wqes_rung) {
			z->mw_wqes_rung = z->mw_wqes;
			rnic_world_step(z->f.w, 4000 * NQP);
		}
	}
	return 0;
}

/* Every QP: ERR (queues flushed), RESET, RTS again, receive queue refilled;
 * the CQ consumer index caught up. */
static int recycle(struct fz *z)
{
	for (int i = 0; i < NQP; i++) {
		struct fz_qp *q = &z->qp[i];

		if (fz_qp_modify_state(&z->f, q->qpn, q->pd, RNIC_QPS_ERR) != RNIC_CMD_ST_OK)
			return -1;
		/* the flush doorbells at the producer indices */
		rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_SQ, q->qpn << 16 | (q->sq_pi & 0xffff));
		rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_RQ, q->qpn << 16 | (q->rq_pi & 0xffff));
	}
	if (fz_qp_modify_state(&z->f, z->gsi.qpn, z->gsi.pd, RNIC_QPS_ERR) != RNIC_CMD_ST_OK)
		return -1;
	rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_RQ, z->gsi.qpn << 16 | (z->gsi.rq_pi & 0xffff));
	rnic_world_step(z->f.w, 2000);
	for (int i = 0; i < NQP; i++) {
		struct fz_qp *q = &z->qp[i];

		if (fz_qp_modify_state(&z->f, q->qpn, q->pd, RNIC_QPS_RESET) != RNIC_CMD_ST_OK ||
		    connect_qp(z, q, (unsigned int)i))
			return -1;
	}
	if (gsi_arm(z))
		return -1;
	z->cq_ci = rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_CQE);
	rnic_sim_bar_write32(z->f.nic, RNIC_REG_DB_CQ, z->cqn << 16 | (z->cq_ci & 0xffff));
	return 0;
}

/* ------------------------------------------------------------- frames */

static const struct fz_mr *pick_mr(struct fz *z)
{
	return &z->mr[rnd_n(z, NMR)];
}

/* A VA for len bytes of m: inside mostly, else at or over an edge. */
static uint64_t pick_va(struct fz *z, const struct fz_mr *m, uint32_t len)
{
	uint64_t base = (uintptr_t)m->p;

	switch (rnd_n(z, 8)) {
	case 0: return base - 1 - rnd_n(z, 64);
	case 1: return base + m->len - (len ? len : 1) + 1 + rnd_n(z, 8);
	case 2: return rnd(z);
	default: return base + (len < m->len ? rnd_n(z, (uint32_t)(m->len - len + 1)) : 0);
	}
}

static uint8_t payload_buf[RC_MAX_FRAME];

/* One structured packet into p (and its payload into payload_buf). */
static void gen_packet(struct fz *z, struct rc_pkt *p, struct fz_qp *q)
{
	static const uint8_t ops[] = {
		RNIC_OP_SEND_ONLY, RNIC_OP_SEND_ONLY_IMM, RNIC_OP_SEND_ONLY_INV, RNIC_OP_SEND_FIRST,
		RNIC_OP_SEND_MIDDLE, RNIC_OP_SEND_LAST, RNIC_OP_SEND_LAST_IMM, RNIC_OP_SEND_LAST_INV,
		RNIC_OP_RDMA_WRITE_ONLY, RNIC_OP_RDMA_WRITE_ONLY_IMM, RNIC_OP_RDMA_WRITE_FIRST,
		RNIC_OP_RDMA_WRITE_MIDDLE, RNIC_OP_RDMA_WRITE_LAST, RNIC_OP_RDMA_WRITE_LAST_IMM,
		RNIC_OP_RDMA_READ_REQUEST, RNIC_OP_COMPARE_SWAP, RNIC_OP_FETCH_ADD,
		RNIC_OP_ACKNOWLEDGE, RNIC_OP_ATOMIC_ACKNOWLEDGE, RNIC_OP_RDMA_READ_RESPONSE_ONLY,
		RNIC_OP_RDMA_READ_RESPONSE_FIRST, RNIC_OP_RDMA_READ_RESPONSE_MIDDLE,
		RNIC_OP_RDMA_READ_RESPONSE_LAST,
	};
	unsigned int op = ops[rnd_n(z, sizeof(ops))];
	unsigned int fl = rc_op_flags(op);
	uint32_t mtu = mtu_bytes(q->mtu);
	const struct fz_mr *m = pick_mr(z);
	uint32_t plen = 0;

	fz_pkt_init(p, op, q->qpn, q->epsn);
	if (fl & RC_OPF_PAYLOAD) {
		if (fl & RC_OPF_MIDDLE)
			plen = rnd_n(z, 4) ? mtu_bytes(RNIC_IB_MTU_256) : mtu;
		else if ((fl & RC_OPF_START) && !(fl & RC_OPF_END))
			plen = rnd_n(z, 4) ? mtu_bytes(RNIC_IB_MTU_256) : mtu;
		else
			plen = rnd_n(z, 4) == 0 ? 0 : rnd_n(z, 4) ? rnd_n(z, 65) : rnd_n(z, mtu + 1);
	}
	for (uint32_t i = 0; i < plen; i++)
		payload_buf[i] = (uint8_t)rnd(z);
	p->payload = payload_buf;
	p->payload_len = plen;
	if (fl & RC_OPF_RETH) {
		uint32_t len = op == RNIC_OP_RDMA_READ_REQUEST ? rnd_n(z, 3 * mtu) :
			       (fl & RC_OPF_END) ? plen : plen + rnd_n(z, 3) * mtu;

		p->reth_len = len;
		p->reth_rkey = m->key;
		p->reth_va = pick_va(z, m, len);
	}
	if (fl & RC_OPF_ATOMIC) {
		p->atomic_rkey = m->key;
		p->atomic_va = pick_va(z, m, 8) & ~7ull;
		p->atomic_swap_add = rnd(z);
		p->atomic_compare = rnd(z);
	}
	if (fl & RC_OPF_IMM)
		p->imm = (uint32_t)rnd(z);
	/* an IETH names one of the windows half the time (from the window
	 * stream: the frames' stream stays as it was) */
	if (fl & RC_OPF_IETH)
		p->ieth_rkey = wrnd(z) % 2 ? z->mw[wrnd(z) % 2] : m->key;
	if (fl & RC_OPF_AETH) {
		p->aeth_syndrome = (uint8_t)(rnd_n(z, 2) ? rc_aeth(RNIC_AETH_KIND_ACK, RNIC_AETH_CREDITS_INVALID) : rnd(z));
		p->aeth_msn = (uint32_t)rnd(z) & 0xffffff;
	}
	if (fl & RC_OPF_ATOMICACK)
		p->atomic_orig = rnd(z);
	if (fl & RC_OPF_REQUEST)
		q->epsn = (q->epsn + 1) & 0xffffff;
	else if (q->rd_len && rnd_n(z, 2)) {
		/* a response to the READ (or ATOMIC) posted at the re-arm: the
		 * packet at a PSN of it, with the opcode and length there */
		uint32_t npk = q->rd_len == 8 ? 1 : (q->rd_len + mtu - 1) / mtu, k = rnd_n(z, npk);

		p->psn = (q->rd_psn + k) & 0xffffff;
		p->aeth_syndrome = rc_aeth(RNIC_AETH_KIND_ACK, RNIC_AETH_CREDITS_INVALID);
		if (q->rd_len == 8) {
			p->opcode = RNIC_OP_ATOMIC_ACKNOWLEDGE;
			p->payload_len = 0;
			p->atomic_orig = rnd(z);
		} else {
			p->opcode = k == 0 ? RNIC_OP_RDMA_READ_RESPONSE_FIRST :
				    k + 1 == npk ? RNIC_OP_RDMA_READ_RESPONSE_LAST :
						   RNIC_OP_RDMA_READ_RESPONSE_MIDDLE;
			p->payload_len = k + 1 == npk ? q->rd_len - k * mtu : mtu;
			for (uint32_t i = 0; i < p->payload_len; i++)
				payload_buf[i] = (uint8_t)(i + k);
		}
	}
}

/* A corpus frame retargeted at our NIC, a QP and an MR. 0 if it decodes. */
static int from_corpus(struct fz *z, struct rc_pkt *p, struct fz_qp *q)
{
	const struct frame *c = &z->corpus[rnd_n(z, (uint32_t)z->ncorpus)];
	const struct fz_mr *m = pick_mr(z);
	unsigned int fl;

	if (rc_decode(c->b, c->len, p, RC_DEC_NO_UDP_CSUM) != RC_OK)
		return -1;
	fl = rc_op_flags(p->opcode);
	memcpy(p->eth_dst, fz_nic_mac, 6);
	memcpy(p->eth_src, fz_peer_mac, 6);
	memcpy(p->sgid, fz_peer_gid, 16);
	memcpy(p->dgid, fz_nic_gid, 16);
	p->ipv6 = 0;
	p->dest_qpn = q->qpn;
	p->psn = q->epsn;
	if (p->payload_len > mtu_bytes(q->mtu))
		p->payload_len = mtu_bytes(q->mtu);
	memcpy(payload_buf, p->payload, p->payload_len);
	p->payload = payload_buf;
	if (fl & RC_OPF_RETH) {
		p->reth_rkey = m->key;
		p->reth_va = pick_va(z, m, p->reth_len < m->len ? p->reth_len : 1);
	}
	if (fl & RC_OPF_ATOMIC) {
		p->atomic_rkey = m->key;
		p->atomic_va = pick_va(z, m, 8) & ~7ull;
	}
	if (fl & RC_OPF_REQUEST)
		q->epsn = (q->epsn + 1) & 0xffffff;
	return 0;
}

static void mutate_field(struct fz *z, struct rc_pkt *p, unsigned int *enc)
{
	const struct fz_mr *m = pick_mr(z);

	switch (rnd_n(z, 24)) {
	case 0: p->opcode = (uint8_t)rnd(z); break;
	case 1: p->opcode = (uint8_t)rnd_n(z, RNIC_OP_SEND_ONLY_INV + 1); break;
	case 2: p->psn = (p->psn + 1 + rnd_n(z, 3)) & 0xffffff; break;
	case 3: p->psn = (p->psn - 1 - rnd_n(z, 3)) & 0xffffff; break;
	case 4: p->psn = (uint32_t)rnd(z) & 0xffffff; break;
	case 5: p->dest_qpn = rnd_n(z, 2) ? z->qp[rnd_n(z, NQP)].qpn : (uint32_t)rnd(z) & 0xffffff; break;
	case 6: p->reth_rkey = p->atomic_rkey = p->ieth_rkey = rnd_n(z, 2) ? m->key : (uint32_t)rnd(z); break;
	case 7: p->reth_rkey ^= 1u << rnd_n(z, RNIC_MKEY_TAG_BITS); break;
	case 8: p->reth_va = pick_va(z, m, p->reth_len); p->atomic_va = pick_va(z, m, 8) | rnd_n(z, 8); break;
	case 9: p->reth_len = rnd_n(z, 2) ? (uint32_t)rnd(z) : p->reth_len + 1 - 2 * rnd_n(z, 2); break;
	case 10: p->payload_len = rnd_n(z, 4097); for (uint32_t i = 0; i < p->payload_len; i++) payload_buf[i] = (uint8_t)i; p->payload = payload_buf; break;
	case 11: p->pad = (uint8_t)rnd_n(z, 4); *enc |= RC_ENC_KEEP_PAD; break;
	case 12: p->se = (uint8_t)rnd_n(z, 2); p->migreq = (uint8_t)rnd_n(z, 2); p->bth_b4 = (uint8_t)rnd(z); p->bth_resv7 = (uint8_t)rnd_n(z, 128); break;
	case 13: p->tver = (uint8_t)rnd_n(z, 16); break;
	case 14: p->pkey = (uint16_t)rnd(z); break;
	case 15: p->ackreq = (uint8_t)!p->ackreq; break;
	case 16: p->aeth_syndrome = (uint8_t)rnd(z); p->aeth_msn = (uint32_t)rnd(z) & 0xffffff; break;
	case 17: p->atomic_swap_add = rnd(z); p->atomic_compare = rnd(z); p->atomic_va |= rnd_n(z, 8); break;
	case 18: p->ipv6 = (uint8_t)!p->ipv6; break;
	case 19: p->dgid[rnd_n(z, 16)] ^= (uint8_t)(1 + rnd_n(z, 255)); break;
	case 20: p->sgid[rnd_n(z, 16)] ^= (uint8_t)(1 + rnd_n(z, 255)); break;
	case 21: p->eth_dst[rnd_n(z, 6)] ^= (uint8_t)(1 + rnd_n(z, 255)); break;
	case 22: p->ip_frag = (uint16_t)rnd(z); p->hop_limit = (uint8_t)rnd(z); p->tclass = (uint8_t)rnd(z); p->flow_label = (uint32_t)rnd(z) & 0xfffff; break;
	default: *enc |= RC_ENC_BAD_ICRC; break;
	}
}

/* IPv4 header checksum and ICRC recomputed for the lengths the frame's own
 * headers give; 1 if it could be done. */
static int repair(uint8_t *b, uint32_t len)
{
	uint32_t ip = RNIC_ETH_HDR_BYTES, iplen;
	unsigned int et;
	int v6;

	if (len < ip + RNIC_IPV4_HDR_BYTES)
		return 0;
	et = (unsigned int)b[12] << 8 | b[13];
	if (et == RNIC_ETHERTYPE_IPV4) {
		uint32_t ihl = (b[ip] & 0xfu) * 4u;

		iplen = (uint32_t)b[ip + 2] << 8 | b[ip + 3];
		if (ihl < RNIC_IPV4_HDR_BYTES || ip + ihl > len)
			return 0;
		b[ip + 10] = b[ip + 11] = 0;
		{
			uint16_t c = rc_inet_csum(b + ip, ihl, 0);

			b[ip + 10] = (uint8_t)(c >> 8);
			b[ip + 11] = (uint8_t)c;
		}
		v6 = 0;
	} else if (et == RNIC_ETHERTYPE_IPV6 && len >= ip + RNIC_IPV6_HDR_BYTES) {
		iplen = ((uint32_t)b[ip + 4] << 8 | b[ip + 5]) + RNIC_IPV6_HDR_BYTES;
		v6 = 1;
	} else {
		return 0;
	}
	if (iplen < RNIC_ICRC_BYTES || ip + iplen > len)
		return 0;
	{
		uint32_t icrc = rc_icrc(b + ip, iplen - RNIC_ICRC_BYTES, v6);
		uint8_t *t = b + ip + iplen - RNIC_ICRC_BYTES;

		t[0] = (uint8_t)icrc;
		t[1] = (uint8_t)(icrc >> 8);
		t[2] = (uint8_t)(icrc >> 16);
		t[3] = (uint8_t)(icrc >> 24);
	}
	return 1;
}

static void mutate_raw(struct fz *z, struct frame *fr)
{
	unsigned int n = 1 + rnd_n(z, 4);

	for (unsigned int k = 0; k < n; k++) {
		switch (rnd_n(z, 6)) {
		case 0:
		case 1: /* bit flips in the headers (the first 80 bytes) */
			fr->b[rnd_n(z, fr->len < 80 ? fr->len : 80)] ^= (uint8_t)(1u << rnd_n(z, 8));
			break;
		case 2: /* a byte anywhere */
			fr->b[rnd_n(z, fr->len)] = (uint8_t)rnd(z);
			break;
		case 3: /* cut */
			fr->len = 1 + rnd_n(z, fr->len);
			break;
		case 4: /* extend */ {
			uint32_t add = rnd_n(z, 256);

			for (uint32_t i = 0; i < add && fr->len < sizeof(fr->b); i++)
				fr->b[fr->len++] = (uint8_t)rnd(z);
			break;
		}
		default: /* a 16/32-bit field set to an edge value */ {
			static const uint32_t edge[] = {0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x8000, 0xffffffff};
			uint32_t off = rnd_n(z, fr->len > 4 ? fr->len - 3 : 1), v = edge[rnd_n(z, 8)];

			if (off + 4 <= fr->len) {
				fr->b[off] = (uint8_t)(v >> 24);
				fr->b[off + 1] = (uint8_t)(v >> 16);
				fr->b[off + 2] = (uint8_t)(v >> 8);
				fr->b[off + 3] = (uint8_t)v;
			}
			break;
		}
		}
	}
	if (rnd_n(z, 4) && repair(fr->b, fr->len))
		z->repaired++;
}

/* A valid SEND ONLY (with immediate) frame made a UD SEND ONLY: the DETH
 * (Q_Key, source QP) put in behind the BTH, the lengths, the IPv4 checksum
 * and the ICRC fixed. One time in eight the DETH is cut short (the UDP and
 * IP lengths say a few bytes of it are there, the frame ends after them). */
static void to_ud(struct fz *z, struct frame *fr, int ipv6, int gsi)
{
	uint32_t bth = RNIC_ETH_HDR_BYTES + (ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES) +
		       RNIC_UDP_HDR_BYTES;
	uint32_t ext = bth + RNIC_BTH_BYTES, udp = bth - RNIC_UDP_HDR_BYTES, ip = RNIC_ETH_HDR_BYTES;
	uint32_t qkey = rnd_n(z, 4) ? (gsi ? RNIC_GSI_QKEY : UD_QKEY) : (uint32_t)rnd(z), add = RNIC_DETH_BYTES, v;
	uint32_t src = (uint32_t)rnd(z) & 0xffffff;
	uint8_t deth[RNIC_DETH_BYTES] = {(uint8_t)(qkey >> 24), (uint8_t)(qkey >> 16), (uint8_t)(qkey >> 8),
					 (uint8_t)qkey, 0, (uint8_t)(src >> 16), (uint8_t)(src >> 8), (uint8_t)src};

	if (fr->len < ext || fr->len + RNIC_DETH_BYTES > sizeof(fr->b))
		return;
	if (fr->b[bth] != RNIC_OP_SEND_ONLY && fr->b[bth] != RNIC_OP_SEND_ONLY_IMM)
		return;
	fr->b[bth] = fr->b[bth] == RNIC_OP_SEND_ONLY ? RNIC_OP_UD_SEND_ONLY : RNIC_OP_UD_SEND_ONLY_IMM;
	if (rnd_n(z, 8) == 0) {
		/* cut: the frame ends inside the DETH */
		add = 1 + rnd_n(z, RNIC_DETH_BYTES - 1);
		memcpy(fr->b + ext, deth, add);
		fr->len = ext + add + RNIC_ICRC_BYTES;
		v = fr->len - udp;
	} else {
		memmove(fr->b + ext + add, fr->b + ext, fr->len - ext);
		memcpy(fr->b + ext, deth, add);
		fr->len += add;
		v = ((uint32_t)fr->b[udp + 4] << 8 | fr->b[udp + 5]) + add;
	}
	fr->b[udp + 4] = (uint8_t)(v >> 8);
	fr->b[udp + 5] = (uint8_t)v;
	if (ipv6) {
		fr->b[ip + 4] = (uint8_t)(v >> 8);
		fr->b[ip + 5] = (uint8_t)v;
	} else {
		fr->b[ip + 2] = (uint8_t)((v + RNIC_IPV4_HDR_BYTES) >> 8);
		fr->b[ip + 3] = (uint8_t)(v + RNIC_IPV4_HDR_BYTES);
	}
	if (!gsi && rnd_n(z, 3) == 0) {
		/* to a group: the multicast QPN, the group's IP and MAC (one time
		 * in eight a group nobody joined) */
		const uint32_t *g = ipv6 ? mc_gid6 : mc_gid4;
		uint32_t other = rnd_n(z, 8) == 0 ? 0x00000100 : 0;

		fr->b[bth + 5] = fr->b[bth + 6] = fr->b[bth + 7] = 0xff;
		if (ipv6) {
			for (int i = 0; i < 16; i++)
				fr->b[ip + 24 + i] = (uint8_t)(g[3 - i / 4] >> (24 - 8 * (i % 4)));
			fr->b[ip + 38] ^= (uint8_t)(other >> 8);
			memcpy(fr->b, (const uint8_t[]){0x33, 0x33, fr->b[ip + 36], fr->b[ip + 37], fr->b[ip + 38],
						  fr->b[ip + 39]}, 6);
		} else {
			for (int i = 0; i < 4; i++)
				fr->b[ip + 16 + i] = (uint8_t)((g[0] ^ other) >> (24 - 8 * i));
			memcpy(fr->b, (const uint8_t[]){0x01, 0x00, 0x5e, fr->b[ip + 17] & 0x7f, fr->b[ip + 18],
						  fr->b[ip + 19]}, 6);
		}
		z->mcast++;
	}
	repair(fr->b, fr->len);
	z->ud++;
	z->to_gsi += (uint64_t)gsi;
}

/* The next frame into fr. */
static void make_frame(struct fz *z, struct frame *fr)
{
	struct rc_pkt p;
	int ud = rnd_n(z, 8) == 0;
	int gsi = ud && rnd_n(z, 5) == 0;
	struct fz_qp *q = gsi ? &z->gsi : &z->qp[ud && rnd_n(z, 4) ? UD_SLOT : rnd_n(z, 8) < 6 ? 0 : rnd_n(z, NQP)];
	unsigned int enc = 0, nmut;
	int len;

	if (z->ncorpus && !ud && rnd_n(z, 4) == 0 && from_corpus(z, &p, q) == 0)
		z->from_corpus++;
	else
		gen_packet(z, &p, q);
	if (ud) {
		/* a UD SEND ONLY: from a SEND ONLY of at most the UD QP's MTU */
		p.opcode = rnd_n(z, 2) ? RNIC_OP_SEND_ONLY : RNIC_OP_SEND_ONLY_IMM;
		p.imm = (uint32_t)rnd(z);
		if (p.payload_len > mtu_bytes(q->mtu))
			p.payload_len = mtu_bytes(q->mtu);
		if (rc_op_flags(p.opcode) & RC_OPF_REQUEST)
			p.psn = (uint32_t)rnd(z) & 0xffffff;
	}
	nmut = rnd_n(z, 3) == 0 ? 0 : 1 + rnd_n(z, 3);
	for (unsigned int i = 0; i < nmut; i++)
		mutate_field(z, &p, &enc);
	len = rc_encode(&p, fr->b, sizeof(fr->b), enc);
	if (len < 0) {
		/* an opcode the codec does not know: a valid frame's bytes with it */
		uint8_t op = p.opcode;

		p.opcode = RNIC_OP_SEND_ONLY;
		len = rc_encode(&p, fr->b, sizeof(fr->b), enc & ~RC_ENC_KEEP_PAD);
		if (len < 0)
			len = rc_encode(&p, fr->b, sizeof(fr->b), 0);
		fr->len = (uint32_t)(len < 0 ? 0 : len);
		if (fr->len > RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES) {
			fr->b[RNIC_ETH_HDR_BYTES + (p.ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES) +
			      RNIC_UDP_HDR_BYTES] = op;
			repair(fr->b, fr->len);
		}
	} else {
		fr->len = (uint32_t)len;
		if (ud)
			to_ud(z, fr, p.ipv6, gsi);
	}
	if (rnd_n(z, 10) < 3) {
		mutate_raw(z, fr);
		z->raw++;
	} else {
		z->structured++;
	}
	if (fr->len == 0) {
		fr->len = 1;
		fr->b[0] = 0;
	}
}

/* ------------------------------------------------------------- running */

static void save_batch(struct fz *z, const char *why)
{
	char path[1024];
	pcap_t *pc;
	pcap_dumper_t *d;

	fprintf(stderr, "rnic-fuzz-rx: FAILED in batch %llu: %s\n", (unsigned long long)z->batch_no,
		why);
	if (!z->crash_dir || !z->nbatch)
		return;
	snprintf(path, sizeof(path), "%s/crash-%llu.pcap", z->crash_dir,
		 (unsigned long long)z->batch_no);
	pc = pcap_open_dead(DLT_EN10MB, 65535);
	d = pc ? pcap_dump_open(pc, path) : NULL;
	if (!d) {
		fprintf(stderr, "rnic-fuzz-rx: cannot write %s\n", path);
		if (pc)
			pcap_close(pc);
		return;
	}
	for (unsigned int i = 0; i < z->nbatch; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_usec = (suseconds_t)i;
		h.caplen = h.len = z->batch[i].len;
		pcap_dump((u_char *)d, &h, z->batch[i].b);
	}
	pcap_dump_close(d);
	pcap_close(pc);
	fprintf(stderr, "rnic-fuzz-rx: the batch's %u frames are in %s (rnic-fuzz-rx --replay %s)\n",
		z->nbatch, path, z->crash_dir);
}

/* What the NIC looks like after a failure: counters, DMA totals, the last
 * CQEs in the ring. */
static void diag(struct fz *z)
{
	static const struct { uint32_t reg; const char *name; } c[] = {
		{RNIC_REG_STAT_TX_FRAMES, "tx_frames"}, {RNIC_REG_STAT_RX_FRAMES, "rx_frames"},
		{RNIC_REG_STAT_TX_ACK, "tx_ack"}, {RNIC_REG_STAT_TX_NAK, "tx_nak"},
		{RNIC_REG_STAT_RX_ACK, "rx_ack"}, {RNIC_REG_STAT_RX_NAK, "rx_nak"},
		{RNIC_REG_STAT_RX_PSN_ERR, "rx_psn_err"}, {RNIC_REG_STAT_RX_DUPLICATE, "rx_dup"},
		{RNIC_REG_STAT_CQE, "cqe"}, {RNIC_REG_STAT_RECV_CQE, "recv_cqe"},
		{RNIC_REG_STAT_RETRY, "retry"}, {RNIC_REG_STAT_RX_ACCESS_ERR, "rx_access_err"},
		{RNIC_REG_STAT_LOC_PROT_ERR, "loc_prot_err"}, {RNIC_REG_STAT_CQ_OVERRUN, "cq_overrun"},
	};
	struct rnic_sim_mem_stats ms;
	uint32_t n;

	fprintf(stderr, "  counters:");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		fprintf(stderr, " %s %u", c[i].name, rnic_sim_bar_read32(z->f.nic, c[i].reg));
	rnic_sim_nic_mem_stats(z->f.nic, &ms);
	fprintf(stderr, "\n  DMA: %llu read bursts, %llu write bursts\n", (unsigned long long)ms.rd_bursts,
		(unsigned long long)ms.wr_bursts);
	n = rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_CQE);
	for (uint32_t i = n > 6 ? n - 6 : 0; i < n; i++) {
		const struct rnic_cqe *e = (const struct rnic_cqe *)(z->cq + (size_t)(i % (1u << CQ_LOG)) * RNIC_CQE_BYTES);

		fprintf(stderr, "  CQE %u: qpn %u wqe %u opcode %u status %u byte_len %u\n", i, e->qpn,
			e->wqe_counter, e->opcode, e->status, e->byte_len);
	}
}

static void on_exit_save(void)
{
	if (g_fz && !g_fz->done)
		save_batch(g_fz, "the simulation stopped (RTL assertion or memory protection)");
}

/* Inject one frame and run until the NIC has taken it. */
static int feed(struct fz *z, const struct frame *fr)
{
	uint64_t c0 = rnic_world_cycle(z->f.w);

	struct rc_pkt p = {0};

	if (rnic_sim_inject_frame(z->f.w, 0, fr->b, fr->len) < 0)
		return 0; /* the link refuses what no MAC could carry: fine */
	/* an RC SEND (LAST or ONLY) with invalidate makes the responder ask the
	 * firmware, which then writes the CTX window: the next re-arm waits */
	rc_decode(fr->b, fr->len, &p, RC_DEC_NO_ICRC | RC_DEC_NO_UDP_CSUM | RC_DEC_NO_IP_CSUM);
	if (p.opcode == RNIC_OP_SEND_LAST_INV || p.opcode == RNIC_OP_SEND_ONLY_INV)
		z->inv_fed = 1;
	for (unsigned int c = 0; rnic_sim_rx_pending(z->f.w, 0); c++) {
		if (c >= DRAIN_LIMIT)
			return -1;
		rnic_world_step(z->f.w, 1);
	}
	rnic_world_step(z->f.w, 2);
	z->cycles_rx += rnic_world_cycle(z->f.w) - c0;
	z->frames++;
	return 0;
}

/* After a batch: settle, recycle, check everything. 0 or -1 (reported). */
static int check(struct fz *z)
{
	struct rnic_sim_memcheck_stats mc;
	struct rnic_sim_mem_stats ms;
	struct rnic_sim_bar_stats bs;
	struct rnic_sim_violation v;
	static uint8_t x;
	struct fz_qp *q = &z->qp[0];
	const struct fz_mr *m = &z->mr[0];
	struct frame fr;
	struct rc_pkt p;
	uint8_t payload[64];
	char why[512];
	int ok = 0;

	z->checks++;
	rnic_world_step(z->f.w, SETTLE_CYCLES);
	rnic_sim_nic_memcheck_stats(z->f.nic, &mc);
	rnic_sim_nic_mem_stats(z->f.nic, &ms);
	rnic_sim_nic_bar_stats(z->f.nic, &bs);
	if (mc.violations) {
		rnic_sim_nic_violations(z->f.nic, &v, 1);
		snprintf(why, sizeof(why), "memory protection: %s of %u bytes at 0x%llx (cycle %llu): %s",
			 v.write ? "write" : "read", v.len, (unsigned long long)v.addr,
			 (unsigned long long)v.cycle, v.what);
		goto fail;
	}
	if (rnic_sim_nic_faults(z->f.nic, NULL, 0) || ms.protocol_errors || bs.errors) {
		snprintf(why, sizeof(why), "DMA faults %llu, AXI protocol errors %llu, BAR errors %llu",
			 (unsigned long long)rnic_sim_nic_faults(z->f.nic, NULL, 0),
			 (unsigned long long)ms.protocol_errors, (unsigned long long)bs.errors);
		goto fail;
	}
	if (rnic_sim_bar_read32(z->f.nic, RNIC_REG_DEV_ID) !=
	    ((uint32_t)RNIC_PCI_VENDOR_ID << 16 | RNIC_PCI_DEVICE_ID)) {
		snprintf(why, sizeof(why), "the NIC no longer answers BAR reads (DEV_ID)");
		goto fail;
	}
	/* QP1's receives since the last recycle (its frames must reach it) */
	for (uint32_t i = rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_CQE),
		      k = i - z->cq_ci > (1u << CQ_LOG) ? i - (1u << CQ_LOG) : z->cq_ci; /* the ring's last */
	     k != i; k++) {
		const struct rnic_cqe *e = (const struct rnic_cqe *)(z->cq + (size_t)(k % (1u << CQ_LOG)) * RNIC_CQE_BYTES);

		z->gsi_recvs += e->qpn == RNIC_GSI_QPN && e->opcode == RNIC_WC_RECV && e->status == RNIC_WC_SUCCESS;
	}
	if (recycle(z)) {
		snprintf(why, sizeof(why), "the firmware refused or did not finish a QP recycle (CMD_STATUS 0x%08x)",
			 z->f.last_status);
		goto fail;
	}
	/* a normal WRITE must still work */
	x++;
	memset(payload, x, sizeof(payload));
	fz_pkt_init(&p, RNIC_OP_RDMA_WRITE_ONLY, q->qpn, q->epsn);
	q->epsn = (q->epsn + 1) & 0xffffff;
	p.reth_va = (uintptr_t)m->p;
	p.reth_rkey = m->key;
	p.reth_len = sizeof(payload);
	p.payload = payload;
	p.payload_len = sizeof(payload);
	fr.len = (uint32_t)rc_encode(&p, fr.b, sizeof(fr.b), 0);
	rnic_sim_inject_frame(z->f.w, 0, fr.b, fr.len);
	for (unsigned int c = 0; c < LIVE_CYCLES && !ok; c += 50) {
		ok = 1;
		for (unsigned int i = 0; i < sizeof(payload) && ok; i++)
			ok = m->p[i] == x;
		if (!ok)
			rnic_world_step(z->f.w, 50);
	}
	if (!ok) {
		snprintf(why, sizeof(why),
			 "a normal RDMA WRITE did not land within %u cycles (RX queue %u frame(s) not taken; "
			 "STAT_RX_FRAMES %u, STAT_RX_DROP_QPN %u, STAT_RX_DROP_MALFORMED %u, STAT_TX_FRAMES %u)",
			 LIVE_CYCLES, rnic_sim_rx_pending(z->f.w, 0),
			 rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_RX_FRAMES),
			 rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_RX_DROP_QPN),
			 rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_RX_DROP_MALFORMED),
			 rnic_sim_bar_read32(z->f.nic, RNIC_REG_STAT_TX_FRAMES));
		goto fail;
	}
	rnic_world_step(z->f.w, 500);
	return 0;
fail:
	save_batch(z, why);
	diag(z);
	return -1;
}

static int run_batch(struct fz *z, const struct frame *given, unsigned int n)
{
	z->nbatch = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct frame *fr = &z->batch[z->nbatch++];

		if (i && i % REARM_EVERY == 0 && rearm(z)) {
			save_batch(z, "a QPC write through the CTX window failed");
			return -1;
		}
		if (given)
			*fr = given[i];
		else
			make_frame(z, fr);
		if (feed(z, fr)) {
			save_batch(z, "the NIC stopped taking frames (RX queue not drained)");
			return -1;
		}
	}
	z->batches++;
	z->batch_no++;
	return check(z);
}

/* ------------------------------------------------------------- corpus */

/* Every frame of a pcap file into *out (appended). */
static int read_pcap(const char *path, struct frame **out, size_t *n, size_t *cap)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;

	if (!pc) {
		fprintf(stderr, "rnic-fuzz-rx: %s: %s\n", path, err);
		return -1;
	}
	while (pcap_next_ex(pc, &h, &data) == 1) {
		if (h->caplen > sizeof((*out)[0].b))
			continue;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			struct frame *f = realloc(*out, c * sizeof(*f));

			if (!f) {
				pcap_close(pc);
				return -1;
			}
			*out = f;
			*cap = c;
		}
		(*out)[*n].len = h->caplen;
		memcpy((*out)[*n].b, data, h->caplen);
		(*n)++;
	}
	pcap_close(pc);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.pcap of dir, in name order, as one batch each (up to MAX_BATCH
 * frames per batch). Returns failures, or -1 if dir cannot be read. */
static int replay_dir(struct fz *z, const char *dir, unsigned int *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[1024];
	unsigned int nn = 0;
	int fails = 0;

	if (!d) {
		fprintf(stderr, "rnic-fuzz-rx: cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && nn < 1024) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".pcap"))
			names[nn++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof(names[0]), cmp_str);
	for (unsigned int i = 0; i < nn; i++) {
		char path[2048];
		struct frame *fr = NULL;
		size_t n = 0, cap = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (read_pcap(path, &fr, &n, &cap)) {
			fails++;
		} else {
			for (size_t off = 0; off < n || (n == 0 && off == 0); off += MAX_BATCH) {
				size_t k = n - off < MAX_BATCH ? n - off : MAX_BATCH;
				int rc = run_batch(z, fr + off, (unsigned int)k);

				printf("%s %s: %zu frames\n", rc ? "FAIL" : "PASS", names[i], k);
				fails += rc != 0;
				if (n == 0)
					break;
			}
		}
		free(fr);
		free(names[i]);
	}
	*files = nn;
	return fails;
}

/* A fresh world, then the frames keep[i] != 0 of fr as one batch; 1 if the
 * batch fails. */
static int trial(struct fz *z, unsigned int width, uint64_t seed, const struct frame *fr, size_t n,
		 const unsigned char *keep)
{
	struct frame *sel = malloc((n ? n : 1) * sizeof(*sel));
	size_t k = 0;
	int rc;

	if (!sel)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (keep[i]) {
			sel[k++] = fr[i];
		} else {
			/* a frame for another station in its place, so that the
			 * re-arms stay where they were among the frames */
			memset(&sel[k], 0, sizeof(sel[k]));
			sel[k].len = RNIC_ETH_MIN_FRAME_BYTES;
			memcpy(sel[k].b, fz_peer_mac, 6);
			memcpy(sel[k].b + 6, fz_peer_mac, 6);
			k++;
		}
	}
	z->rng = seed;
	z->hrng = ~seed;
	z->wrng = seed ^ 0x6d77;
	if (setup(z, width, seed)) {
		fprintf(stderr, "rnic-fuzz-rx: setup failed\n");
		exit(1);
	}
	rc = run_batch(z, sel, (unsigned int)k) != 0;
	teardown(z);
	free(sel);
	return rc;
}

/* Delta debugging over the frames of a failing batch: replace halves,
 * quarters, ... by frames for another station (so that every frame keeps its
 * place) while the batch still fails; the result goes to CRASH_DIR/crash-0.pcap
 * and the frames left are printed. */
static int minimize(struct fz *z, unsigned int width, uint64_t seed, const char *path)
{
	struct frame *fr = NULL;
	size_t n = 0, cap = 0, left;
	unsigned char *keep;
	const char *saved_dir = z->crash_dir;

	if (read_pcap(path, &fr, &n, &cap) || n > MAX_BATCH)
		return 2;
	keep = malloc(n);
	memset(keep, 1, n);
	z->crash_dir = NULL;
	if (!trial(z, width, seed, fr, n, keep)) {
		fprintf(stderr, "rnic-fuzz-rx: %s does not fail from a fresh world\n", path);
		return 1;
	}
	left = n;
	for (size_t chunk = n / 2; chunk >= 1; chunk /= 2) {
		for (size_t start = 0; start < n; start += chunk) {
			unsigned char *t = malloc(n);
			size_t dropped = 0;

			memcpy(t, keep, n);
			for (size_t i = start; i < start + chunk && i < n; i++)
				if (t[i]) {
					t[i] = 0;
					dropped++;
				}
			if (dropped && trial(z, width, seed, fr, n, t)) {
				memcpy(keep, t, n);
				left -= dropped;
				fprintf(stderr, "rnic-fuzz-rx: still failing with %zu frames\n", left);
			}
			free(t);
		}
	}
	{
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			z->batch[k] = fr[i];
			if (!keep[i]) {
				memset(&z->batch[k], 0, sizeof(z->batch[k]));
				z->batch[k].len = RNIC_ETH_MIN_FRAME_BYTES;
				memcpy(z->batch[k].b, fz_peer_mac, 6);
				memcpy(z->batch[k].b + 6, fz_peer_mac, 6);
			}
			k++;
		}
		z->nbatch = (unsigned int)k;
		z->crash_dir = saved_dir ? saved_dir : ".";
		z->batch_no = 0;
		save_batch(z, "minimized");
		for (size_t i = 0; i < k; i++) {
			struct rc_pkt p;

			if (!keep[i])
				continue;
			int e = rc_decode(z->batch[i].b, z->batch[i].len, &p, 0);
			printf("  frame %zu: %u bytes, decode %s, opcode 0x%02x %s qpn %u psn %u reth va 0x%llx rkey 0x%x len %u payload %u\n",
			       i, z->batch[i].len, rc_strerror(e), p.opcode, rc_op_name(p.opcode), p.dest_qpn, p.psn,
			       (unsigned long long)p.reth_va, p.reth_rkey, p.reth_len, p.payload_len);
		}
	}
	z->done = 1;
	free(keep);
	free(fr);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 's'},
		{"frames", required_argument, NULL, 'n'},
		{"batch", required_argument, NULL, 'b'},
		{"corpus", required_argument, NULL, 'c'},
		{"replay", required_argument, NULL, 'r'},
		{"crash-dir", required_argument, NULL, 'o'},
		{"minimize", required_argument, NULL, 'm'},
		{"requester", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct fz z;
	unsigned int width = 64, batch = 2048;
	uint64_t seed = 1, frames = 10000;
	const char *replay = NULL, *minim = NULL;
	struct timespec t0, t1;
	double secs;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "w:s:n:b:c:r:o:m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': width = (unsigned int)atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': frames = strtoull(optarg, NULL, 0); break;
		case 'b': batch = (unsigned int)atoi(optarg); break;
		case 'c': {
			struct frame *f = z.corpus;
			size_t n = z.ncorpus, cap = z.cap_corpus;

			if (read_pcap(optarg, &f, &n, &cap))
				return 2;
			z.corpus = f;
			z.ncorpus = n;
			z.cap_corpus = cap;
			break;
		}
		case 'r': replay = optarg; break;
		case 'o': z.crash_dir = optarg; break;
		case 'm': minim = optarg; break;
		case 'q': z.requester = 1; break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: rnic-fuzz-rx [--width 64|512] [--seed N] [--frames N] [--batch N]\n"
				"                    [--corpus FILE.pcap]... [--replay DIR] [--crash-dir DIR]\n"
				"                    [--minimize FILE.pcap] [--requester]\n"
				"Fuzzes the NIC's receive path with mutated RoCEv2 frames (docs/memcheck.md).\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if ((width != 64 && width != 512) || batch == 0 || batch > MAX_BATCH) {
		fprintf(stderr, "rnic-fuzz-rx: --width 64|512, --batch 1..%u\n", MAX_BATCH);
		return 2;
	}
	z.rng = seed;
	z.hrng = ~seed;
	z.wrng = seed ^ 0x6d77;
	z.batch = calloc(MAX_BATCH, sizeof(*z.batch));
	if (minim && z.batch) {
		g_fz = &z;
		atexit(on_exit_save);
		return minimize(&z, width, seed, minim);
	}
	if (!z.batch || setup(&z, width, seed)) {
		fprintf(stderr, "rnic-fuzz-rx: setup failed\n");
		return 1;
	}
	g_fz = &z;
	atexit(on_exit_save);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (replay) {
		unsigned int files = 0;
		int fails = replay_dir(&z, replay, &files);

		rc = fails != 0;
		printf("replayed %u file(s) from %s: %llu frames, %d failed\n", files, replay,
		       (unsigned long long)z.frames, fails < 0 ? 1 : fails);
	} else {
		while (z.frames < frames && rc == 0) {
			uint64_t left = frames - z.frames;

			rc = run_batch(&z, NULL, left < batch ? (unsigned int)left : batch) != 0;
			if (z.batches % 256 == 0) {
				clock_gettime(CLOCK_MONOTONIC, &t1);
				secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
				fprintf(stderr, "rnic-fuzz-rx: %llu frames, %.0f frames/s\n",
					(unsigned long long)z.frames, z.frames / secs);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	rnic_sim_nic_memcheck_stats(z.f.nic, &z.mc);
	if (!rc && z.to_gsi >= 32 && z.gsi_recvs == 0) {
		/* a fifth of them carry QP1's Q_Key and a valid frame: some must land */
		fprintf(stderr, "rnic-fuzz-rx: FAILED: QP1 received none of the %llu frames sent to it\n",
			(unsigned long long)z.to_gsi);
		rc = 1;
	}
	printf("rnic-fuzz-rx: width %u seed %llu: %llu frames (%llu structured, %llu raw of which %llu "
	       "repaired, %llu from the corpus, %llu UD of which %llu multicast and %llu to QP1, %llu received there) in %llu batches (%llu re-arms), %.1f s, %.0f frames/s, %.1f cycles/frame; "
	       "checker: %llu read bursts and %llu write beats checked, %llu requests seen, %llu windows "
	       "opened, %llu refused, %llu violations; %llu window WQEs posted (%llu SEND_WITH_INV), %llu binds and invalidations followed; RX drops: "
	       "ICRC %u, malformed %u, QPN %u, UD Q_Key %u, UD no WQE %u, multicast %u (copies %u); receive CQEs %u; NAKs sent %u; %s\n",
	       width, (unsigned long long)seed, (unsigned long long)z.frames,
	       (unsigned long long)z.structured, (unsigned long long)z.raw,
	       (unsigned long long)z.repaired, (unsigned long long)z.from_corpus, (unsigned long long)z.ud,
	       (unsigned long long)z.mcast, (unsigned long long)z.to_gsi, (unsigned long long)z.gsi_recvs, (unsigned long long)z.batches, (unsigned long long)z.rearms, secs, z.frames / (secs > 0 ? secs : 1),
	       z.frames ? (double)z.cycles_rx / (double)z.frames : 0.0,
	       (unsigned long long)z.mc.rd_bursts_checked, (unsigned long long)z.mc.wr_beats_checked,
	       (unsigned long long)z.mc.requests_seen, (unsigned long long)z.mc.windows_opened,
	       (unsigned long long)z.mc.windows_refused, (unsigned long long)z.mc.violations,
	       (unsigned long long)z.mw_wqes, (unsigned long long)z.send_inv_wqes, (unsigned long long)z.mc.mw_ops,
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_DROP_ICRC),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_DROP_MALFORMED),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_DROP_QPN),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_QKEY_DROP),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_UD_NO_WQE),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_MCAST_DROP),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RX_MCAST_COPY),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_RECV_CQE),
	       rnic_sim_bar_read32(z.f.nic, RNIC_REG_STAT_TX_NAK), rc ? "FAILED" : "ok");
	z.done = 1;
	teardown(&z);
	free(z.batch);
	free(z.corpus);
	return rc;
}
