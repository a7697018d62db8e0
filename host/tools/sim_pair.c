/* Two simulated NICs connected back to back; see sim_pair.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim_pair.h"

void sim_pair_default_opts(struct sim_pair_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->nqp = 1;
	o->path_mtu = RNIC_IB_MTU_4096;
	o->psn[0] = 0x1000;
	o->psn[1] = 0x2000;
	o->cqe = 1024;
	o->max_send_wr = 256;
	o->max_recv_wr = 0;
	o->max_recv_sge = 0;
	o->rnr_retry = 7;
	o->min_rnr_timer = 12;
	o->timeout = 14;
	o->retry_cnt = 7;
	o->max_rd_atomic = RNIC_MAX_RD_ATOMIC;
	o->max_dest_rd_atomic = RNIC_MAX_RD_ATOMIC;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "sim_pair: %s: %s\n", what, strerror(err));
	return err;
}

static int connect_qp(struct rnic_qp *qp, const struct sim_pair_side *peer, struct rnic_qp *peer_qp,
		      const struct sim_pair_opts *o, const struct sim_pair_av *av, uint32_t sq_psn,
		      uint32_t rq_psn)
{
	struct rnic_qp_attr a;
	int err;

	if (av->sgid_index >= peer->ngid)
		return fail("address vector: GID index", EINVAL);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS);
	if (err)
		return fail("modify_qp INIT", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = o->path_mtu;
	a.dest_qp_num = peer_qp->qp_num;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = o->max_dest_rd_atomic;
	a.min_rnr_timer = o->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gids[av->sgid_index];
	a.ah_attr.grh.sgid_index = av->sgid_index;
	a.ah_attr.grh.hop_limit = av->hop_limit;
	a.ah_attr.grh.traffic_class = av->traffic_class;
	a.ah_attr.grh.flow_label = av->flow_label;
	memcpy(a.ah_attr.dmac, peer->mac, 6);
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
					 RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	if (err)
		return fail("modify_qp RTR", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->max_rd_atomic;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
					 RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC);
	if (err)
		return fail("modify_qp RTS", err);
	return 0;
}

int sim_pair_open(struct sim_pair *p, struct rnic_world *world, const struct sim_pair_opts *o)
{
	int err;

	if (o->nqp < 1 || o->nqp > SIM_PAIR_MAX_QPS)
		return fail("open", EINVAL);
	memset(p, 0, sizeof(*p));
	p->world = world;
	p->nqp = o->nqp;
	for (int s = 0; s < 2; s++) {
		struct sim_pair_side *sd = &p->side[s];
		/* locally administered MACs; addresses from the benchmarking range 198.18.0.0/15 */
		const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(0x0a + s)};
		const uint8_t ip[4] = {198, 18, 0, (uint8_t)(1 + s)};

		sd->ctx = rnic_open_sim(world, s);
		if (!sd->ctx)
			return fail("open_sim", errno ? errno : ENODEV);
		memcpy(sd->mac, mac, 6);
		rnic_gid_from_ipv4(&sd->gid, ip);
		sd->gids[0] = sd->gid;
		sd->ngid = 1;
		if (o->all_gids) {
			union rnic_gid *g = sd->gids;

			/* fe80::ff:fe00:0a+s: EUI-64 of 02:00:00:00:00:0a+s (U/L bit flipped) */
			g[1].raw[0] = 0xfe;
			g[1].raw[1] = 0x80;
			g[1].raw[11] = 0xff;
			g[1].raw[12] = 0xfe;
			g[1].raw[15] = mac[5];
			g[2].raw[0] = g[3].raw[0] = 0x20;
			g[2].raw[1] = g[3].raw[1] = 0x01;
			g[2].raw[2] = g[3].raw[2] = 0x0d;
			g[2].raw[3] = g[3].raw[3] = 0xb8;
			g[3].raw[5] = 1;
			g[2].raw[15] = g[3].raw[15] = (uint8_t)(1 + s);
			sd->ngid = RNIC_GID_TABLE_SIZE;
		}
		if ((err = rnic_set_port_mac(sd->ctx, mac)))
			return fail("port address", err);
		for (int i = 0; i < sd->ngid; i++)
			if ((err = rnic_set_gid(sd->ctx, i, &sd->gids[i])))
				return fail("port GID", err);
		sd->pd = rnic_alloc_pd(sd->ctx);
		if (!sd->pd)
			return fail("alloc_pd", errno);
		sd->cq = rnic_create_cq(sd->ctx, o->cqe);
		if (!sd->cq)
			return fail("create_cq", errno);
		if (s == 1 && o->srq_wr > 0) {
			struct rnic_srq_init_attr sa;

			memset(&sa, 0, sizeof(sa));
			sa.attr.max_wr = (uint32_t)o->srq_wr;
			sa.attr.max_sge = (uint32_t)o->max_recv_sge;
			sa.attr.srq_limit = o->srq_limit;
			sd->srq = rnic_create_srq(sd->pd, &sa);
			if (!sd->srq)
				return fail("create_srq", errno);
		}
		for (int i = 0; i < o->nqp; i++) {
			struct rnic_qp_init_attr ia;

			memset(&ia, 0, sizeof(ia));
			ia.send_cq = sd->cq;
			ia.recv_cq = sd->cq;
			ia.qp_type = RNIC_QPT_RC;
			ia.cap.max_send_wr = (uint32_t)o->max_send_wr;
			ia.cap.max_send_sge = RNIC_MAX_SEND_SGE;
			ia.cap.max_recv_wr = sd->srq ? 0 : (uint32_t)o->max_recv_wr;
			ia.srq = sd->srq;
			ia.cap.max_recv_sge = (uint32_t)o->max_recv_sge;
			ia.cap.max_inline_data = RNIC_MAX_INLINE_BYTES;
			sd->qp[i] = rnic_create_qp(sd->pd, &ia);
			if (!sd->qp[i])
				return fail("create_qp", errno);
		}
	}
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < o->nqp; i++) {
			static const struct sim_pair_av def_av = {0, 0, 64, 0};
			uint32_t sq = (o->psn[s] + (uint32_t)i) & 0xffffff;
			uint32_t rq = (o->psn[1 - s] + (uint32_t)i) & 0xffffff;

			err = connect_qp(p->side[s].qp[i], &p->side[1 - s], p->side[1 - s].qp[i], o,
					 o->av ? &o->av[i] : &def_av, sq, rq);
			if (err)
				return err;
		}
	}
	return 0;
}

int sim_pair_reconnect(struct sim_pair *p, const struct sim_pair_opts *o, int i, uint32_t psn[2])
{
	static const struct sim_pair_av def_av = {0, 0, 64, 0};
	struct rnic_qp_attr a;
	int err;

	if (i < 0 || i >= p->nqp)
		return fail("reconnect", EINVAL);
	for (int s = 0; s < 2; s++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = RNIC_QPS_RESET;
		if ((err = rnic_modify_qp(p->side[s].qp[i], &a, RNIC_QP_STATE)))
			return fail("modify_qp RESET", err);
	}
	for (int s = 0; s < 2; s++) {
		err = connect_qp(p->side[s].qp[i], &p->side[1 - s], p->side[1 - s].qp[i], o,
				 o->av ? &o->av[i] : &def_av, psn[s] & 0xffffff, psn[1 - s] & 0xffffff);
		if (err)
			return err;
	}
	return 0;
}

void sim_pair_close(struct sim_pair *p)
{
	for (int s = 0; s < 2; s++) {
		struct sim_pair_side *sd = &p->side[s];

		for (int i = 0; i < p->nqp; i++)
			if (sd->qp[i])
				rnic_destroy_qp(sd->qp[i]);
		if (sd->srq)
			rnic_destroy_srq(sd->srq);
		if (sd->cq)
			rnic_destroy_cq(sd->cq);
		if (sd->pd)
			rnic_dealloc_pd(sd->pd);
		if (sd->ctx)
			rnic_close_device(sd->ctx);
	}
	memset(p, 0, sizeof(*p));
}

int sim_pair_wait(struct rnic_cq *cq, struct rnic_wc *wc, int n, uint64_t max_polls)
{
	int got = 0;

	for (uint64_t polls = 0; got < n && polls < max_polls;) {
		int r = rnic_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return got;
		if (r == 0)
			polls++;
		got += r;
	}
	return got;
}
