/* The CM's MAD carrier over QP1 of the device (struct rnic_cm_gsi): the GSI
 * QP, a send and a receive CQ, receive buffers kept posted, send slots, and
 * address handles cached by destination. Nothing blocks: recv polls the
 * receive CQ once per MAD, send reaps send completions before it takes a
 * slot. A receive buffer holds the GRH area and the largest UD payload (path
 * MTU 4096), not just a MAD: a longer datagram to QP1 would complete with a
 * local length error and take the QP to the error state. Should QP1 reach it
 * anyway (an error completion), the carrier brings it back: it lets every
 * outstanding WQE complete (the QP in ERR flushes them), then RESET, RTS and
 * every buffer posted again, as the kernel's MAD layer recovers its QPs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_cm.h"

#define GSI_RECV_BUFS 32   /* receive buffers kept posted */
#define GSI_SEND_SLOTS 16  /* MADs in flight */
#define GSI_AH_CACHE 16    /* destinations with an address handle */
/* the largest UD payload: path MTU 4096 (IB MTU code n is 128 << n bytes) */
#define GSI_MAX_PAYLOAD (128u << RNIC_IB_MTU_4096)
#define GSI_RECV_BYTES (RNIC_GRH_BYTES + GSI_MAX_PAYLOAD)
#define GSI_MAD_RECV_BYTES (RNIC_GRH_BYTES + RNIC_MAD_BYTES) /* a MAD's receive */

struct gsi_ah {
	struct rnic_ah *ah;
	struct rnic_ah_attr attr; /* what it was made from: the cache key */
	uint64_t used;            /* last use (the cache's clock) */
	unsigned int inflight;    /* sends through it not yet completed */
};

struct rnic_cm_gsi {
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *send_cq, *recv_cq;
	struct rnic_qp *qp;
	uint8_t *mem;             /* receive buffers, then send slots */
	struct rnic_mr *mr;
	int slot_ah[GSI_SEND_SLOTS]; /* the cache entry of a busy slot, -1: free */
	struct gsi_ah ahc[GSI_AH_CACHE];
	uint64_t tick;
	unsigned int recv_posted;  /* receive WQEs not yet completed */
	int broken;                /* an error completion came: recovering */
	struct rnic_cm_gsi_stats stats;
};

static uint8_t *recv_buf(struct rnic_cm_gsi *g, unsigned int i)
{
	return g->mem + (size_t)i * GSI_RECV_BYTES;
}

static uint8_t *send_buf(struct rnic_cm_gsi *g, unsigned int i)
{
	return g->mem + (size_t)GSI_RECV_BUFS * GSI_RECV_BYTES + (size_t)i * RNIC_MAD_BYTES;
}

static int post_recv(struct rnic_cm_gsi *g, unsigned int i)
{
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)recv_buf(g, i), GSI_RECV_BYTES, g->mr->lkey};
	struct rnic_recv_wr wr = {i, NULL, &sge, 1}, *bad;
	int err = rnic_post_recv(g->qp, &wr, &bad);

	if (!err)
		g->recv_posted++;
	return err;
}

/* RESET -> INIT (P_Key index 0, port 1, the GSI Q_Key) -> RTR -> RTS. */
static int qp_to_rts(struct rnic_qp *qp)
{
	struct rnic_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = RNIC_GSI_QKEY;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_QKEY);
	a.qp_state = RNIC_QPS_RTR;
	if (!err)
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE);
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = 0;
	if (!err)
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN);
	return err;
}

int rnic_cm_gsi_open(struct rnic_context *ctx, struct rnic_cm_gsi **out)
{
	struct rnic_cm_gsi *g;
	struct rnic_qp_init_attr ia;
	size_t bytes = (size_t)GSI_RECV_BUFS * GSI_RECV_BYTES + (size_t)GSI_SEND_SLOTS * RNIC_MAD_BYTES;
	int err = ENOMEM;

	if (!ctx || !out)
		return EINVAL;
	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return ENOMEM;
	g->ctx = ctx;
	for (int i = 0; i < GSI_SEND_SLOTS; i++)
		g->slot_ah[i] = -1;
	err = EIO;
	g->pd = rnic_alloc_pd(ctx);
	if (!g->pd)
		goto fail_errno;
	g->send_cq = rnic_create_cq(ctx, GSI_SEND_SLOTS);
	if (!g->send_cq)
		goto fail_errno;
	g->recv_cq = rnic_create_cq(ctx, GSI_RECV_BUFS);
	if (!g->recv_cq)
		goto fail_errno;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = g->send_cq;
	ia.recv_cq = g->recv_cq;
	ia.qp_type = RNIC_QPT_GSI;
	ia.cap.max_send_wr = GSI_SEND_SLOTS;
	ia.cap.max_recv_wr = GSI_RECV_BUFS;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	g->qp = rnic_create_qp(g->pd, &ia);
	if (!g->qp)
		goto fail_errno; /* EBUSY: QP1 is someone else's */
	/* the buffers once QP1 is ours (a second carrier fails above) */
	err = ENOMEM;
	g->mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	if (!g->mem)
		goto fail;
	memset(g->mem, 0, bytes);
	g->mr = rnic_reg_mr(g->pd, g->mem, bytes, RNIC_ACCESS_LOCAL_WRITE);
	if (!g->mr)
		goto fail_errno;
	err = qp_to_rts(g->qp);
	if (err)
		goto fail;
	for (unsigned int i = 0; i < GSI_RECV_BUFS; i++) {
		err = post_recv(g, i);
		if (err)
			goto fail;
	}
	*out = g;
	return 0;
fail_errno:
	err = errno ? errno : EIO;
fail:
	rnic_cm_gsi_close(g);
	return err;
}

int rnic_cm_gsi_close(struct rnic_cm_gsi *g)
{
	int err = 0;

	if (!g)
		return EINVAL;
	/* the QP first: nothing of it may use an AH or a buffer afterwards */
	if (g->qp && rnic_destroy_qp(g->qp))
		err = EIO;
	for (int i = 0; i < GSI_AH_CACHE; i++)
		if (g->ahc[i].ah && rnic_destroy_ah(g->ahc[i].ah))
			err = EIO;
	if (g->send_cq && rnic_destroy_cq(g->send_cq))
		err = EIO;
	if (g->recv_cq && rnic_destroy_cq(g->recv_cq))
		err = EIO;
	if (g->mr && rnic_dereg_mr(g->mr))
		err = EIO;
	if (g->pd && rnic_dealloc_pd(g->pd))
		err = EIO;
	free(g->mem);
	free(g);
	return err;
}

struct rnic_qp *rnic_cm_gsi_qp(struct rnic_cm_gsi *g)
{
	return g ? g->qp : NULL;
}

void rnic_cm_gsi_get_stats(struct rnic_cm_gsi *g, struct rnic_cm_gsi_stats *stats)
{
	if (g && stats)
		*stats = g->stats;
}

/* Free the slots of completed sends. */
static void reap_sends(struct rnic_cm_gsi *g)
{
	struct rnic_wc wc[8];
	int n;

	while ((n = rnic_poll_cq(g->send_cq, 8, wc)) > 0)
		for (int i = 0; i < n; i++) {
			uint64_t s = wc[i].wr_id;

			if (s >= GSI_SEND_SLOTS || g->slot_ah[s] < 0)
				continue;
			g->ahc[g->slot_ah[s]].inflight--;
			g->slot_ah[s] = -1;
			if (wc[i].status != RNIC_WC_SUCCESS)
				g->stats.send_errors++;
		}
}

/* The cache entry of an AH to dst: found, made in a free entry, or made in
 * place of the least recently used idle one. -1 and *err when none. */
static int get_ah(struct rnic_cm_gsi *g, const struct rnic_cm_mad_addr *dst, int *err)
{
	struct rnic_ah_attr a;
	int victim = -1;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.dgid = dst->gid;
	a.grh.sgid_index = dst->sgid_index;
	a.grh.hop_limit = dst->hop_limit;
	a.grh.traffic_class = dst->traffic_class;
	memcpy(a.dmac, dst->mac, 6);
	g->tick++;
	for (int i = 0; i < GSI_AH_CACHE; i++) {
		struct gsi_ah *c = &g->ahc[i];

		if (c->ah && !memcmp(&c->attr, &a, sizeof(a))) {
			c->used = g->tick;
			return i;
		}
		if (!c->ah) {
			if (victim < 0 || g->ahc[victim].ah)
				victim = i;
		} else if (!c->inflight && (victim < 0 || (g->ahc[victim].ah && c->used < g->ahc[victim].used))) {
			victim = i;
		}
	}
	if (victim < 0) {
		*err = ENOBUFS; /* every AH has a send in flight */
		return -1;
	}
	if (g->ahc[victim].ah) {
		if (rnic_destroy_ah(g->ahc[victim].ah)) {
			*err = EIO;
			return -1;
		}
		g->ahc[victim].ah = NULL;
	}
	g->ahc[victim].ah = rnic_create_ah(g->pd, &a);
	if (!g->ahc[victim].ah) {
		*err = errno ? errno : EIO;
		return -1;
	}
	g->ahc[victim].attr = a;
	g->ahc[victim].used = g->tick;
	g->ahc[victim].inflight = 0;
	g->stats.ahs_created++;
	return victim;
}

int rnic_cm_gsi_send(void *priv, const struct rnic_cm_mad_addr *dst, const uint8_t *mad)
{
	struct rnic_cm_gsi *g = priv;
	struct rnic_send_wr wr, *bad;
	struct rnic_sg_entry sge;
	int slot = -1, ahi, err = 0;

	if (!g || !dst || !mad)
		return EINVAL;
	/* IBA 13.5.1: GSI MADs go to QP1 with the GSI Q_Key; the NIC sends the
	 * default P_Key only. */
	if (dst->qpn != RNIC_GSI_QPN || dst->qkey != RNIC_GSI_QKEY || dst->pkey != RNIC_DEFAULT_PKEY)
		return EINVAL;
	if (g->broken)
		return EAGAIN; /* QP1 is being recovered (recv): the CM sends again */
	if (!dst->mac_valid)
		return EHOSTUNREACH; /* no next hop: the carrier cannot resolve one */
	reap_sends(g);
	for (int i = 0; i < GSI_SEND_SLOTS && slot < 0; i++)
		if (g->slot_ah[i] < 0)
			slot = i;
	if (slot < 0) {
		g->stats.send_full++;
		return ENOBUFS;
	}
	ahi = get_ah(g, dst, &err);
	if (ahi < 0)
		return err;
	memcpy(send_buf(g, (unsigned int)slot), mad, RNIC_MAD_BYTES);
	sge = (struct rnic_sg_entry){(uint64_t)(uintptr_t)send_buf(g, (unsigned int)slot), RNIC_MAD_BYTES,
				     g->mr->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.ud.ah = g->ahc[ahi].ah;
	wr.wr.ud.remote_qpn = RNIC_GSI_QPN;
	wr.wr.ud.remote_qkey = RNIC_GSI_QKEY;
	err = rnic_post_send(g->qp, &wr, &bad);
	if (err)
		return err;
	g->slot_ah[slot] = ahi;
	g->ahc[ahi].inflight++;
	g->stats.sent++;
	return 0;
}

/* The source and destination GIDs of a receive buffer's GRH area: an IPv4
 * header in its last 20 bytes (the first 20 zero), or an IPv6 header. */
static int grh_gids(const uint8_t *grh, union rnic_gid *sgid, union rnic_gid *dgid)
{
	static const uint8_t zero[RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES];
	const uint8_t *ip4 = grh + RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES;

	if (!memcmp(grh, zero, sizeof(zero)) && ip4[0] == 0x45) {
		rnic_gid_from_ipv4(sgid, ip4 + 12);
		rnic_gid_from_ipv4(dgid, ip4 + 16);
		return 0;
	}
	if (grh[0] >> 4 == 6) {
		memcpy(sgid->raw, grh + 8, 16);
		memcpy(dgid->raw, grh + 24, 16);
		return 0;
	}
	return EPROTO;
}

/* After an error completion: once every receive WQE has completed and every
 * send slot is free (the QP in ERR flushes them), RESET, RTS and every buffer
 * posted again. EAGAIN while it waits (or once done: nothing received yet);
 * an error of the modify or the post. */
static int recover(struct rnic_cm_gsi *g)
{
	struct rnic_qp_attr a;
	int err;

	reap_sends(g);
	for (int i = 0; i < GSI_SEND_SLOTS; i++)
		if (g->slot_ah[i] >= 0)
			return EAGAIN;
	if (g->recv_posted)
		return EAGAIN;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RESET;
	err = rnic_modify_qp(g->qp, &a, RNIC_QP_STATE);
	if (!err)
		err = qp_to_rts(g->qp);
	for (unsigned int i = 0; !err && i < GSI_RECV_BUFS; i++)
		err = post_recv(g, i);
	if (err)
		return err;
	g->broken = 0;
	g->stats.recoveries++;
	return EAGAIN;
}

int rnic_cm_gsi_recv(void *priv, struct rnic_cm_mad_addr *src, uint8_t *mad)
{
	struct rnic_cm_gsi *g = priv;

	if (!g || !src || !mad)
		return EINVAL;
	for (;;) {
		struct rnic_wc wc;
		union rnic_gid dgid, e;
		const uint8_t *b;
		int n = rnic_poll_cq(g->recv_cq, 1, &wc), err, idx = -1;

		if (n < 0)
			return -n;
		if (n == 0)
			return g->broken ? recover(g) : EAGAIN;
		if (wc.wr_id >= GSI_RECV_BUFS)
			return EIO; /* not one of ours: the CQ is corrupt */
		g->recv_posted--;
		b = recv_buf(g, (unsigned int)wc.wr_id);
		if (wc.status != RNIC_WC_SUCCESS) {
			g->stats.recv_errors++;
			if (!g->broken) {
				/* the QP is in ERR (or going there): every WQE
				 * still outstanding flushes; then recover() */
				struct rnic_qp_attr a = {.qp_state = RNIC_QPS_ERR};

				g->broken = 1;
				err = rnic_modify_qp(g->qp, &a, RNIC_QP_STATE);
				if (err)
					return err; /* nothing would flush: recover() would wait forever */
			}
			continue;
		} else if (g->broken) {
			continue; /* completed before the error: dropped with the rest */
		} else if (wc.byte_len != GSI_MAD_RECV_BYTES || !(wc.wc_flags & RNIC_WC_GRH) ||
			   grh_gids(b, &src->gid, &dgid)) {
			g->stats.recv_dropped++; /* not a MAD */
		} else {
			for (int i = 0; i < RNIC_GID_TABLE_SIZE && idx < 0; i++)
				if (!rnic_query_gid(g->ctx, 1, i, &e) && !memcmp(e.raw, dgid.raw, 16))
					idx = i;
			src->qpn = wc.src_qp;
			src->qkey = RNIC_GSI_QKEY; /* QP1 takes only MADs with the GSI Q_Key */
			src->pkey = RNIC_DEFAULT_PKEY;
			src->sgid_index = (uint8_t)(idx < 0 ? 0 : idx);
			src->hop_limit = 0;
			src->traffic_class = 0;
			/* the frame's source MAC (the CQE's smac): the next hop back
			 * to the sender, so an answer needs no neighbour entry */
			memcpy(src->mac, wc.smac, 6);
			src->mac_valid = memcmp(wc.smac, "\0\0\0\0\0\0", 6) != 0;
			memcpy(mad, b + RNIC_GRH_BYTES, RNIC_MAD_BYTES);
			g->stats.received++;
			if (post_recv(g, (unsigned int)wc.wr_id))
				g->stats.repost_errors++; /* the QP is in ERR: the next poll says so */
			return 0;
		}
		err = post_recv(g, (unsigned int)wc.wr_id);
		if (err)
			return err;
	}
}

const struct rnic_cm_transport_ops rnic_cm_gsi_transport = {
	.send = rnic_cm_gsi_send,
	.recv = rnic_cm_gsi_recv,
};
