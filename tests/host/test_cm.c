/* The communication manager (host/src/cm.c) between two fake devices over
 * the in-memory MAD carrier (cm_mem_transport.h), on a simulated clock:
 * connect and accept (the QPs in RTS with each other's QPN and PSN), consumer
 * reject and no listener, a lost REQ, REP and RTU each resent after exactly
 * the CM response timeout and connecting, the REQ's retries exhausted
 * (UNREACHABLE on both sides), duplicated MADs, the MRA of a slow listener,
 * disconnect from either side with the DREQ lost once, timewait, a stale
 * REQ, and random loss, duplication and reordering under seeds.
 * Prints one line per failed check and "N passed, N failed"; ASan/UBSan. */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mad.h"
#include "cm_mem_transport.h"
#include "fake_backend.h"
#include "rnic/rnic_cm.h"
#include "rnic/verbs.h"
#include "../check.h"

static unsigned int n_pass, n_fail;

#define PORT 20001
#define DELAY_NS 10000ull /* one-way delay of a MAD */
#define MAX_EV 64

/* The REQ's wait for an answer, as the rdma_cm's REQ sets it: the remote
 * CM response timeout (20) and twice the packet life time (16), in units of
 * 4.096 us; also the REP's (local CM response timeout 20) and the DREQ's. */
#define CM_WAIT_NS (((uint64_t)RNIC_CM_TIMEOUT_UNIT_NS << RNIC_RDMA_CM_RESPONSE_TIMEOUT) + \
		    2 * ((uint64_t)RNIC_CM_TIMEOUT_UNIT_NS << RNIC_RDMA_CM_PACKET_LIFETIME))
/* timewait: the QP's local ACK timeout, 2 x packet life time = 2^17 units */
#define TIMEWAIT_NS ((uint64_t)RNIC_CM_TIMEOUT_UNIT_NS << (RNIC_RDMA_CM_PACKET_LIFETIME + 1))

enum mode { ACCEPT, REJECT, HOLD };

struct ev {
	int type, status;
	struct rnic_cm_id *id, *listen;
	uint64_t t;
	struct rnic_cm_conn_param conn;
	uint8_t pdata[RNIC_CM_RTU_PRIVATE_BYTES];
	int plen;
};

struct side {
	struct fake_nic *f;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct memnet_ep *ep;
	struct rnic_cm_event_channel *ch;
	struct rnic_cm_id *id;   /* the client's id, the server's listener */
	struct rnic_cm_id *conn; /* the server's connection */
	struct ev ev[MAX_EV];
	int nev;
	enum mode mode;
	int auto_disconnect;     /* answer DISCONNECTED with rnic_cm_disconnect */
};

struct world {
	struct memnet net;
	struct side s[2]; /* 0 client (10.0.0.1), 1 server (10.0.0.2) */
};

static const uint8_t mac_of[2][6] = {{0x02, 0, 0, 0, 0, 0x01}, {0x02, 0, 0, 0, 0, 0x02}};

static struct sockaddr_in ip4(int host, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(0x0a000000u | (uint32_t)host);
	return a;
}

static void world_up(struct world *w, uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	memnet_init(&w->net, seed, DELAY_NS);
	for (int i = 0; i < 2; i++) {
		struct side *s = &w->s[i];
		struct rnic_cm_channel_attr ca;
		union rnic_gid gid;
		uint8_t ip[4] = {10, 0, 0, (uint8_t)(i + 1)};

		s->f = malloc(sizeof(*s->f));
		fake_init(s->f);
		s->ctx = rnic_open_backend(&fake_ops, s->f);
		CHECK(s->ctx != NULL);
		CHECK_EQ(rnic_set_port_mac(s->ctx, mac_of[i]), 0);
		rnic_gid_from_ipv4(&gid, ip);
		CHECK_EQ(rnic_set_gid(s->ctx, 0, &gid), 0);
		s->ep = memnet_add(&w->net, mac_of[i]);
		s->ep->gid[0] = gid;
		memset(&ca, 0, sizeof(ca));
		ca.context = s->ctx;
		ca.transport = &memnet_ops;
		ca.transport_priv = s->ep;
		ca.now_ns = memnet_now;
		ca.clock_priv = &w->net;
		ca.seed = seed * 2 + (uint64_t)i + 1;
		s->ch = rnic_cm_create_event_channel(&ca);
		CHECK(s->ch != NULL);
		s->pd = rnic_alloc_pd(s->ctx);
		s->cq = rnic_create_cq(s->ctx, 16);
		CHECK(s->pd && s->cq);
		s->auto_disconnect = 1;
	}
	struct sockaddr_in peer = ip4(2, 0);
	CHECK_EQ(rnic_cm_set_neighbour(w->s[0].ch, (struct sockaddr *)&peer, mac_of[1]), 0);
}

static void side_down(struct side *s)
{
	struct rnic_cm_id *ids[2] = {s->conn, s->id};

	for (int k = 0; k < 2; k++) {
		if (!ids[k])
			continue;
		if (ids[k]->qp)
			CHECK_EQ(rnic_cm_destroy_qp(ids[k]), 0);
		CHECK_EQ(rnic_cm_destroy_id(ids[k]), 0);
	}
	CHECK_EQ(rnic_cm_destroy_event_channel(s->ch), 0);
	CHECK_EQ(rnic_destroy_cq(s->cq), 0);
	CHECK_EQ(rnic_dealloc_pd(s->pd), 0);
	CHECK_EQ(rnic_close_device(s->ctx), 0);
	free(s->f);
}

static void world_down(struct world *w)
{
	side_down(&w->s[0]);
	side_down(&w->s[1]);
}

static int make_qp(struct side *s, struct rnic_cm_id *id)
{
	struct rnic_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return rnic_cm_create_qp(id, s->pd, &ia);
}

static int server_accept(struct side *s)
{
	struct rnic_cm_conn_param p;

	memset(&p, 0, sizeof(p));
	p.private_data = "world";
	p.private_data_len = 5;
	p.responder_resources = 2;
	p.initiator_depth = 4;
	p.rnr_retry_count = 6;
	return rnic_cm_accept(s->conn, &p);
}

/* Take and answer every event of a side, as an rdma_cm program would. */
static void side_events(struct world *w, int i)
{
	struct side *s = &w->s[i];
	struct rnic_cm_event *e;

	while (rnic_cm_get_event(s->ch, &e) == 0) {
		struct ev *r = &s->ev[s->nev < MAX_EV ? s->nev++ : MAX_EV - 1];
		struct rnic_cm_conn_param p;

		memset(r, 0, sizeof(*r));
		r->type = e->event;
		r->status = e->status;
		r->id = e->id;
		r->listen = e->listen_id;
		r->t = w->net.now;
		r->conn = e->param.conn;
		r->plen = e->param.conn.private_data_len;
		if (r->plen)
			memcpy(r->pdata, e->param.conn.private_data, (size_t)r->plen);
		switch (e->event) {
		case RNIC_CM_EVENT_ADDR_RESOLVED:
			CHECK_EQ(rnic_cm_resolve_route(e->id, 2000), 0);
			break;
		case RNIC_CM_EVENT_ROUTE_RESOLVED:
			CHECK_EQ(make_qp(s, e->id), 0);
			memset(&p, 0, sizeof(p));
			p.private_data = "hello";
			p.private_data_len = 5;
			p.responder_resources = 4;
			p.initiator_depth = 2;
			p.retry_count = 7;
			p.rnr_retry_count = 7;
			CHECK_EQ(rnic_cm_connect(e->id, &p), 0);
			break;
		case RNIC_CM_EVENT_CONNECT_REQUEST:
			CHECK(s->conn == NULL);
			s->conn = e->id;
			CHECK_EQ(make_qp(s, e->id), 0);
			if (s->mode == ACCEPT)
				CHECK_EQ(server_accept(s), 0);
			else if (s->mode == REJECT)
				CHECK_EQ(rnic_cm_reject(e->id, "busy", 4), 0);
			break;
		case RNIC_CM_EVENT_DISCONNECTED:
			if (s->auto_disconnect)
				CHECK_EQ(rnic_cm_disconnect(e->id), 0);
			break;
		default:
			break;
		}
		CHECK_EQ(rnic_cm_ack_event(e), 0);
	}
}

/* Run both sides until nothing is left to do before `until` (absolute). */
static void run_until(struct world *w, uint64_t until)
{
	for (int guard = 0; guard < 200000; guard++) {
		uint64_t next = 0, t;

		side_events(w, 0);
		side_events(w, 1);
		if (!memnet_next(&w->net, &t))
			next = t;
		for (int i = 0; i < 2; i++)
			if (!rnic_cm_next_timeout(w->s[i].ch, &t) && (!next || t < next))
				next = t;
		if (!next || next > until)
			break;
		if (next > w->net.now)
			w->net.now = next;
	}
	if (w->net.now < until)
		w->net.now = until;
}

static void run_for(struct world *w, uint64_t ns)
{
	run_until(w, w->net.now + ns);
}

static void start_listen(struct world *w, uint16_t port)
{
	struct side *s = &w->s[1];
	struct sockaddr_in any = ip4(0, port);

	any.sin_addr.s_addr = 0;
	CHECK_EQ(rnic_cm_create_id(s->ch, &s->id, s, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_bind_addr(s->id, (struct sockaddr *)&any), 0);
	CHECK_EQ(rnic_cm_listen(s->id, 4), 0);
}

static void start_connect(struct world *w, uint16_t port)
{
	struct side *c = &w->s[0];
	struct sockaddr_in dst = ip4(2, port);

	CHECK_EQ(rnic_cm_create_id(c->ch, &c->id, c, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000), 0);
}

static int count_ev(const struct side *s, int type)
{
	int n = 0;

	for (int i = 0; i < s->nev; i++)
		n += s->ev[i].type == type;
	return n;
}

static const struct ev *find_ev(const struct side *s, int type)
{
	for (int i = 0; i < s->nev; i++)
		if (s->ev[i].type == type)
			return &s->ev[i];
	return NULL;
}

/* Time of the k-th MAD of attr sent by endpoint from (0-based); 0 if none. */
static uint64_t sent_at(const struct memnet *n, uint16_t attr, int from, int k)
{
	for (int i = 0; i < n->nlog; i++)
		if (n->log[i].attr == attr && n->log[i].from == from && k-- == 0)
			return n->log[i].t;
	return 0;
}

static uint32_t qp_state(struct rnic_qp *qp)
{
	struct rnic_qp_attr a;
	struct rnic_qp_init_attr ia;

	if (rnic_query_qp(qp, &a, 0, &ia))
		return 0xff;
	return a.qp_state;
}

/* Both QPs in RTS, connected to each other. */
static void check_connected(struct world *w)
{
	struct rnic_qp *qa = w->s[0].id->qp, *qb = w->s[1].conn ? w->s[1].conn->qp : NULL;
	struct rnic_qp_attr a, b;
	struct rnic_qp_init_attr ia;

	CHECK(qa && qb);
	if (!qa || !qb)
		return;
	CHECK_EQ(rnic_query_qp(qa, &a, 0, &ia), 0);
	CHECK_EQ(rnic_query_qp(qb, &b, 0, &ia), 0);
	CHECK_EQ(a.qp_state, RNIC_QPS_RTS);
	CHECK_EQ(b.qp_state, RNIC_QPS_RTS);
	CHECK_EQ(a.dest_qp_num, qb->qp_num);
	CHECK_EQ(b.dest_qp_num, qa->qp_num);
	CHECK_EQ(a.rq_psn, b.sq_psn);
	CHECK_EQ(b.rq_psn, a.sq_psn);
	CHECK(a.sq_psn != b.sq_psn); /* random PSNs of two seeds */
	{
		/* Linux's meaning of the Starting PSN (its cm_rep_handler sets
		 * the active side's sq_psn from the REP): the PSN the message's
		 * sender expects to receive */
		struct cm_msg req, rep;

		CHECK_EQ(cm_mad_decode(w->net.last[RNIC_CM_ATTR_REQ], &req), 0);
		CHECK_EQ(cm_mad_decode(w->net.last[RNIC_CM_ATTR_REP], &rep), 0);
		CHECK_EQ(req.u.req.starting_psn, a.rq_psn);
		CHECK_EQ(rep.u.rep.starting_psn, a.sq_psn);
	}
	CHECK_EQ(a.path_mtu, RNIC_IB_MTU_1024); /* a 1500-byte Ethernet */
	CHECK_EQ(b.path_mtu, RNIC_IB_MTU_1024);
	CHECK(!memcmp(a.ah_attr.grh.dgid.raw, w->s[1].ep->gid[0].raw, 16));
	CHECK(!memcmp(b.ah_attr.grh.dgid.raw, w->s[0].ep->gid[0].raw, 16));
	CHECK(!memcmp(a.ah_attr.dmac, mac_of[1], 6));
	CHECK(!memcmp(b.ah_attr.dmac, mac_of[0], 6));
	CHECK_EQ(a.ah_attr.grh.hop_limit, RNIC_IPV4_DEFAULT_TTL);
	CHECK_EQ(b.ah_attr.grh.hop_limit, RNIC_IPV4_DEFAULT_TTL);
	/* the client offered responder resources 4 / initiator depth 2, the
	 * server answered 2 / 4: each side's reads outstanding (max_rd_atomic)
	 * are the other's responder resources (max_dest_rd_atomic) */
	CHECK_EQ(a.max_rd_atomic, 2);
	CHECK_EQ(b.max_dest_rd_atomic, 2);
	CHECK_EQ(b.max_rd_atomic, 4);
	CHECK_EQ(a.max_dest_rd_atomic, 4);
	CHECK_EQ(a.timeout, RNIC_RDMA_CM_PACKET_LIFETIME + 1);
	CHECK_EQ(b.timeout, RNIC_RDMA_CM_PACKET_LIFETIME + 1);
	CHECK_EQ(a.retry_cnt, 7);
	CHECK_EQ(b.retry_cnt, 7);
	CHECK_EQ(a.rnr_retry, 6); /* the REP's */
	CHECK_EQ(b.rnr_retry, 7); /* the REQ's */
}

/* ------------------------------------------------------------ tests */

static void test_connect_disconnect(void)
{
	struct world w;
	struct side *c = &w.s[0], *s = &w.s[1];
	const struct ev *e;
	uint64_t t0;

	world_up(&w, 1);
	start_listen(&w, PORT);
	t0 = w.net.now;
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);

	CHECK_EQ(c->nev, 3);
	CHECK_EQ(c->ev[0].type, RNIC_CM_EVENT_ADDR_RESOLVED);
	CHECK_EQ(c->ev[1].type, RNIC_CM_EVENT_ROUTE_RESOLVED);
	CHECK_EQ(c->ev[2].type, RNIC_CM_EVENT_ESTABLISHED);
	CHECK_EQ(c->ev[2].t, t0 + 2 * DELAY_NS); /* REQ there, REP back */
	CHECK(c->ev[2].plen >= 5 && !memcmp(c->ev[2].pdata, "world", 5));
	CHECK_EQ(s->nev, 2);
	CHECK_EQ(s->ev[0].type, RNIC_CM_EVENT_CONNECT_REQUEST);
	CHECK_EQ(s->ev[1].type, RNIC_CM_EVENT_ESTABLISHED);
	CHECK_EQ(s->ev[1].t, t0 + 3 * DELAY_NS); /* and the RTU */
	e = &s->ev[0];
	CHECK(e->listen == s->id);
	CHECK(e->id == s->conn && e->id != s->id);
	CHECK_EQ(e->plen, RNIC_CM_REQ_PRIVATE_BYTES - RNIC_RDMA_CM_HDR_BYTES);
	CHECK(!memcmp(e->pdata, "hello", 5));
	CHECK_EQ(e->conn.qp_num, c->id->qp->qp_num);
	CHECK_EQ(e->conn.responder_resources, 2); /* the client's initiator depth */
	CHECK_EQ(e->conn.initiator_depth, 4);
	CHECK_EQ(e->conn.retry_count, 7);
	CHECK_EQ(e->conn.rnr_retry_count, 7);
	/* the connection's addresses, from the REQ's cma_hdr */
	{
		const struct sockaddr_in *src = (const struct sockaddr_in *)&s->conn->route.src_addr;
		const struct sockaddr_in *dst = (const struct sockaddr_in *)&s->conn->route.dst_addr;
		const struct sockaddr_in *csrc = (const struct sockaddr_in *)&c->id->route.src_addr;

		CHECK_EQ(src->sin_family, AF_INET);
		CHECK_EQ(ntohl(src->sin_addr.s_addr), 0x0a000002);
		CHECK_EQ(ntohs(src->sin_port), PORT);
		CHECK_EQ(ntohl(dst->sin_addr.s_addr), 0x0a000001);
		CHECK_EQ(dst->sin_port, csrc->sin_port);
		CHECK(ntohs(csrc->sin_port) >= 32768 && ntohs(csrc->sin_port) <= 60999);
	}
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REP, 1), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_RTU, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_MRA, -1), 0);
	check_connected(&w);

	/* a second listener on the port is refused */
	{
		struct rnic_cm_id *l2;
		struct sockaddr_in any = ip4(0, PORT);

		any.sin_addr.s_addr = 0;
		CHECK_EQ(rnic_cm_create_id(s->ch, &l2, NULL, RNIC_PS_TCP), 0);
		CHECK_EQ(rnic_cm_bind_addr(l2, (struct sockaddr *)&any), EADDRINUSE);
		CHECK_EQ(rnic_cm_destroy_id(l2), 0);
	}

	/* the client disconnects, the server answers */
	t0 = w.net.now;
	CHECK_EQ(rnic_cm_disconnect(c->id), 0);
	CHECK_EQ(qp_state(c->id->qp), RNIC_QPS_ERR);
	run_for(&w, 2000000000ull);
	CHECK_EQ(c->nev, 5);
	CHECK_EQ(c->ev[3].type, RNIC_CM_EVENT_DISCONNECTED);
	CHECK_EQ(c->ev[3].status, 0);
	CHECK_EQ(c->ev[3].t, t0 + 2 * DELAY_NS);
	CHECK_EQ(c->ev[4].type, RNIC_CM_EVENT_TIMEWAIT_EXIT);
	CHECK_EQ(c->ev[4].t, t0 + 2 * DELAY_NS + TIMEWAIT_NS);
	CHECK_EQ(s->nev, 4);
	CHECK_EQ(s->ev[2].type, RNIC_CM_EVENT_DISCONNECTED);
	CHECK_EQ(s->ev[2].t, t0 + DELAY_NS);
	CHECK_EQ(s->ev[3].type, RNIC_CM_EVENT_TIMEWAIT_EXIT);
	CHECK_EQ(s->ev[3].t, t0 + DELAY_NS + TIMEWAIT_NS);
	CHECK_EQ(qp_state(s->conn->qp), RNIC_QPS_ERR);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREQ, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREP, 1), 1);
	CHECK_EQ(rnic_cm_disconnect(c->id), 0); /* again: nothing left to do, as rdma_disconnect */
	world_down(&w);
}

/* Linux's REP names the depth its program accepted with (perftest's 128 on
 * rxe), whatever the REQ offered: the active side keeps its own offer. */
static void rep_depth_128(int from, uint8_t *mad)
{
	struct cm_msg m;

	if (from != 1 || (mad[16] << 8 | mad[17]) != RNIC_CM_ATTR_REP || cm_mad_decode(mad, &m))
		return;
	m.u.rep.responder_resources = 128;
	m.u.rep.initiator_depth = 128;
	CHECK_EQ(cm_mad_encode(&m, mad), 0);
}

static void test_rep_depth_over_offer(void)
{
	struct world w;
	struct side *c = &w.s[0];
	struct rnic_qp_attr a;
	struct rnic_qp_init_attr ia;

	world_up(&w, 1);
	w.net.edit = rep_depth_128;
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	CHECK_EQ(c->nev, 3);
	CHECK_EQ(c->ev[2].type, RNIC_CM_EVENT_ESTABLISHED);
	CHECK_EQ(c->ev[2].conn.responder_resources, 128); /* the REP as it came */
	CHECK(c->id->qp != NULL);
	if (c->id->qp) {
		CHECK_EQ(rnic_query_qp(c->id->qp, &a, 0, &ia), 0);
		CHECK_EQ(a.qp_state, RNIC_QPS_RTS);
		CHECK_EQ(a.max_dest_rd_atomic, 4); /* our offer (responder_resources 4), not 128 */
		CHECK_EQ(a.max_rd_atomic, 2);      /* our initiator depth */
	}
	world_down(&w);
}

static void test_reject(void)
{
	struct world w;
	const struct ev *e;

	/* the listener's program says no */
	world_up(&w, 2);
	w.s[1].mode = REJECT;
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	e = find_ev(&w.s[0], RNIC_CM_EVENT_REJECTED);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ(e->status, RNIC_CM_REJ_CONSUMER_DEFINED);
		CHECK(e->plen >= 4 && !memcmp(e->pdata, "busy", 4));
	}
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_ESTABLISHED), 0);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED), 0);
	CHECK_EQ(qp_state(w.s[0].id->qp), RNIC_QPS_ERR);
	CHECK_EQ(qp_state(w.s[1].conn->qp), RNIC_QPS_ERR);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REJ, 1), 1);
	CHECK_EQ(rnic_cm_accept(w.s[1].conn, NULL), EINVAL); /* already rejected */
	world_down(&w);

	/* nobody listens on the port: "invalid service ID" */
	world_up(&w, 3);
	start_listen(&w, PORT);
	start_connect(&w, PORT + 1);
	run_for(&w, 1000000000ull);
	e = find_ev(&w.s[0], RNIC_CM_EVENT_REJECTED);
	CHECK(e != NULL);
	if (e)
		CHECK_EQ(e->status, RNIC_CM_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(w.s[1].nev, 0);
	CHECK(w.s[1].conn == NULL);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 1); /* no retry after a REJ */
	CHECK_EQ(strcmp(rnic_cm_reject_reason_str(RNIC_CM_REJ_INVALID_SERVICE_ID), "invalid service ID"), 0);
	world_down(&w);
}

/* One MAD of attr lost: resent after exactly CM_WAIT_NS, and connected. */
static void test_lost_once(uint16_t attr, int from, uint16_t resent_attr, int resent_from)
{
	struct world w;
	uint64_t t1, t2;

	world_up(&w, 10 + attr);
	start_listen(&w, PORT);
	memnet_drop_next(&w.net, attr, from, 1);
	start_connect(&w, PORT);
	run_for(&w, 10000000000ull);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_CONNECT_REQUEST), 1);
	CHECK_EQ(memnet_count(&w.net, attr, from), 2);
	CHECK_EQ(memnet_count(&w.net, resent_attr, resent_from), 2);
	if (memnet_count(&w.net, attr, from) != 2)
		for (int i = 0; i < w.net.nlog; i++)
			printf("  %llu ep%d attr 0x%x%s\n", (unsigned long long)w.net.log[i].t, w.net.log[i].from,
			       w.net.log[i].attr, w.net.log[i].dropped ? " dropped" : "");
	t1 = sent_at(&w.net, resent_attr, resent_from, 0);
	t2 = sent_at(&w.net, resent_attr, resent_from, 1);
	CHECK_EQ(t2 - t1, CM_WAIT_NS);
	check_connected(&w);
	world_down(&w);
}

static void test_lost(void)
{
	test_lost_once(RNIC_CM_ATTR_REQ, 0, RNIC_CM_ATTR_REQ, 0);
	test_lost_once(RNIC_CM_ATTR_REP, 1, RNIC_CM_ATTR_REP, 1);
	/* a lost RTU: the server resends its REP, the client answers it with
	 * its RTU again */
	test_lost_once(RNIC_CM_ATTR_RTU, 0, RNIC_CM_ATTR_REP, 1);
}

static void test_unreachable(void)
{
	struct world w;
	const struct ev *e;
	uint64_t t0;

	/* no REQ ever arrives: 1 + 15 REQs, then UNREACHABLE and a REJ */
	world_up(&w, 20);
	start_listen(&w, PORT);
	memnet_drop_next(&w.net, RNIC_CM_ATTR_REQ, 0, 1000);
	t0 = w.net.now;
	start_connect(&w, PORT);
	run_for(&w, 200000000000ull);
	e = find_ev(&w.s[0], RNIC_CM_EVENT_UNREACHABLE);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ(e->status, -ETIMEDOUT);
		CHECK_EQ(e->t, t0 + (RNIC_RDMA_CM_MAX_CM_RETRIES + 1) * CM_WAIT_NS);
	}
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), RNIC_RDMA_CM_MAX_CM_RETRIES + 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REJ, 0), 1); /* reason timeout */
	CHECK_EQ(qp_state(w.s[0].id->qp), RNIC_QPS_ERR);
	CHECK_EQ(w.s[1].nev, 0);
	world_down(&w);

	/* no RTU ever arrives: the server's REP retries run out */
	world_up(&w, 21);
	start_listen(&w, PORT);
	memnet_drop_next(&w.net, RNIC_CM_ATTR_RTU, 0, 1000);
	start_connect(&w, PORT);
	run_for(&w, 200000000000ull);
	e = find_ev(&w.s[1], RNIC_CM_EVENT_UNREACHABLE);
	CHECK(e != NULL);
	if (e)
		CHECK_EQ(e->status, -ETIMEDOUT);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED), 0);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REP, 1), RNIC_RDMA_CM_MAX_CM_RETRIES + 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_RTU, 0), RNIC_RDMA_CM_MAX_CM_RETRIES + 1);
	CHECK_EQ(qp_state(w.s[1].conn->qp), RNIC_QPS_ERR);
	world_down(&w);
}

static void test_duplicates(void)
{
	struct world w;

	/* every MAD arrives twice */
	world_up(&w, 30);
	w.net.dup_pct = 100;
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_CONNECT_REQUEST), 1);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED), 1);
	/* the second REQ found the first still undecided: an MRA (the listener
	 * answered in the same turn, so one REP follows); the second REP got
	 * the RTU again */
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_MRA, 1), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REP, 1), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_RTU, 0), 2);
	check_connected(&w);
	CHECK_EQ(rnic_cm_disconnect(w.s[1].conn), 0);
	run_for(&w, 2000000000ull);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_DISCONNECTED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_DISCONNECTED), 1);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREQ, 1), 1);
	/* one DREP: the second DREQ came while the program had not yet
	 * answered the first (dropped, as Linux's DREQ_RCVD does) */
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREP, 0), 1);
	world_down(&w);
}

/* A listener slower than the REQ's timeout: the resent REQ gets an MRA,
 * and the client waits the MRA's service timeout instead of resending. */
static void test_mra(void)
{
	struct world w;
	uint64_t t0;

	world_up(&w, 40);
	w.s[1].mode = HOLD;
	start_listen(&w, PORT);
	t0 = w.net.now;
	start_connect(&w, PORT);
	run_until(&w, t0 + CM_WAIT_NS + 1000000);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 2);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_MRA, 1), 1);
	CHECK_EQ(sent_at(&w.net, RNIC_CM_ATTR_MRA, 1, 0), t0 + CM_WAIT_NS + DELAY_NS);
	/* 30 s later: no third REQ (the MRA asked for 2^24 units, 68.7 s) */
	run_until(&w, t0 + 30000000000ull);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 2);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_CONNECT_REQUEST), 1);
	CHECK(w.s[1].conn != NULL);
	if (!w.s[1].conn) {
		world_down(&w);
		return;
	}
	CHECK_EQ(server_accept(&w.s[1]), 0);
	run_for(&w, 1000000000ull);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REQ, 0), 2);
	check_connected(&w);
	world_down(&w);
}

/* Disconnect from side `from` with its first DREQ lost. */
static void test_disconnect_dreq_lost(int from)
{
	struct world w;
	struct side *a = &w.s[from], *b = &w.s[1 - from];
	struct rnic_cm_id *aid, *bid;
	const struct ev *e;
	uint64_t t0;

	world_up(&w, 50 + (uint64_t)from);
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	check_connected(&w);
	aid = from ? w.s[1].conn : w.s[0].id;
	bid = from ? w.s[0].id : w.s[1].conn;
	memnet_drop_next(&w.net, RNIC_CM_ATTR_DREQ, from, 1);
	t0 = w.net.now;
	CHECK_EQ(rnic_cm_disconnect(aid), 0);
	run_for(&w, 10000000000ull);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREQ, from), 2);
	CHECK_EQ(sent_at(&w.net, RNIC_CM_ATTR_DREQ, from, 1) - sent_at(&w.net, RNIC_CM_ATTR_DREQ, from, 0),
		 CM_WAIT_NS);
	e = find_ev(b, RNIC_CM_EVENT_DISCONNECTED);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ(e->t, t0 + CM_WAIT_NS + DELAY_NS);
		CHECK(e->id == bid);
	}
	e = find_ev(a, RNIC_CM_EVENT_DISCONNECTED);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ(e->status, 0);
		CHECK_EQ(e->t, t0 + CM_WAIT_NS + 2 * DELAY_NS);
	}
	CHECK_EQ(count_ev(a, RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
	CHECK_EQ(count_ev(b, RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
	CHECK_EQ(qp_state(aid->qp), RNIC_QPS_ERR);
	CHECK_EQ(qp_state(bid->qp), RNIC_QPS_ERR);
	world_down(&w);
}

static void test_disconnect(void)
{
	test_disconnect_dreq_lost(0);
	test_disconnect_dreq_lost(1);
}

/* A REQ from a QP the server still holds a connection with (the peer lost
 * its state): REJ "stale connection", and the old connection is ended. */
static void test_stale(void)
{
	struct world w;
	struct cm_msg m;
	uint8_t mad[RNIC_MAD_BYTES], got[RNIC_MAD_BYTES];
	struct rnic_cm_mad_addr dst, src;
	struct cm_ip_hdr h;

	world_up(&w, 60);
	w.s[0].auto_disconnect = 1;
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	check_connected(&w);

	/* the client's CA, the same QPN, a new communication ID */
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, RNIC_CM_ATTR_REQ, 0x77);
	m.u.req.local_comm_id = 0x0badcafe;
	m.u.req.service_id = cm_ip_service_id(RNIC_RDMA_PS_TCP, PORT);
	m.u.req.local_ca_guid = (uint64_t)(mac_of[0][0] ^ 2) << 56 | (uint64_t)mac_of[0][1] << 48 |
				(uint64_t)mac_of[0][2] << 40 | 0xfffeull << 24 | (uint64_t)mac_of[0][3] << 16 |
				(uint64_t)mac_of[0][4] << 8 | mac_of[0][5];
	m.u.req.local_qpn = w.s[0].id->qp->qp_num;
	m.u.req.path_mtu = RNIC_IB_MTU_1024;
	m.u.req.transport_type = RNIC_CM_TRANSPORT_RC;
	memcpy(m.u.req.primary.local_gid, w.s[0].ep->gid[0].raw, 16);
	memcpy(m.u.req.primary.remote_gid, w.s[1].ep->gid[0].raw, 16);
	memset(&h, 0, sizeof(h));
	h.ip_version = 4;
	h.dst_addr[15] = 2;
	cm_ip_hdr_encode(&h, m.u.req.private_data);
	CHECK_EQ(cm_mad_encode(&m, mad), 0);
	memset(&dst, 0, sizeof(dst));
	dst.gid = w.s[1].ep->gid[0];
	dst.qpn = RNIC_GSI_QPN;
	dst.qkey = RNIC_GSI_QKEY;
	dst.pkey = RNIC_DEFAULT_PKEY;
	CHECK_EQ(memnet_send(w.s[0].ep, &dst, mad), 0);
	/* deliver it to the server only, and take the server's answer */
	w.net.now += DELAY_NS;
	side_events(&w, 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REJ, 1), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREQ, 1), 1);
	w.net.now += DELAY_NS;
	{
		struct cm_msg r;
		int found = 0;

		/* the REJ, straight off the client's queue */
		while (memnet_recv(w.s[0].ep, &src, got) == 0) {
			CHECK_EQ(cm_mad_decode(got, &r), 0);
			if (r.hdr.attr_id == RNIC_CM_ATTR_REJ) {
				found = 1;
				CHECK_EQ(r.u.rej.reason, RNIC_CM_REJ_STALE_CONN);
				CHECK_EQ(r.u.rej.remote_comm_id, 0x0badcafe);
				CHECK_EQ(r.u.rej.message_rejected, RNIC_CM_MSG_REQ);
				CHECK_EQ(r.hdr.tid, 0x77);
			} else {
				/* the DREQ of the old connection: let the client have it */
				CHECK_EQ(r.hdr.attr_id, RNIC_CM_ATTR_DREQ);
				memnet_enqueue(&w.net, 0, &src, got);
			}
		}
		CHECK(found);
	}
	run_for(&w, 2000000000ull);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_DISCONNECTED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_DISCONNECTED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_CONNECT_REQUEST), 1);
	world_down(&w);
}

/* Loss, duplication and reordering: every seed connects and disconnects. */
static void test_random(void)
{
	int lost = 0, mads = 0;

	for (uint64_t seed = 100; seed < 120; seed++) {
		struct world w;
		int ok;

		world_up(&w, seed);
		w.net.loss_pct = 20;
		w.net.dup_pct = 20;
		w.net.delay_min_ns = 5000;
		w.net.delay_max_ns = 2000000; /* reorders everything sent within 2 ms */
		start_listen(&w, PORT);
		start_connect(&w, PORT);
		run_for(&w, 120000000000ull);
		ok = count_ev(&w.s[0], RNIC_CM_EVENT_ESTABLISHED) == 1 &&
		     count_ev(&w.s[1], RNIC_CM_EVENT_ESTABLISHED) == 1 &&
		     count_ev(&w.s[1], RNIC_CM_EVENT_CONNECT_REQUEST) == 1;
		CHECK(ok);
		if (ok) {
			check_connected(&w);
			CHECK_EQ(rnic_cm_disconnect(seed & 1 ? w.s[1].conn : w.s[0].id), 0);
			run_for(&w, 120000000000ull);
			CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_DISCONNECTED), 1);
			CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_DISCONNECTED), 1);
			CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
			CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
			CHECK(find_ev(&w.s[0], RNIC_CM_EVENT_DISCONNECTED)->status == 0);
		} else {
			printf("seed %llu: client %d events, server %d events\n", (unsigned long long)seed,
			       w.s[0].nev, w.s[1].nev);
		}
		CHECK_EQ(w.net.overflow, 0);
		for (int i = 0; i < w.net.nlog; i++)
			lost += w.net.log[i].dropped;
		mads += w.net.nlog;
		world_down(&w);
	}
	/* the faults happened: about a fifth of the MADs lost */
	CHECK(lost * 10 > mads && lost * 3 < mads);
	printf("random: %d MADs, %d lost, over 20 seeds\n", mads, lost);
}

/* Address and route resolution, and the calls' refusals. */
static void test_resolve(void)
{
	struct world w;
	struct rnic_cm_id *id;
	struct sockaddr_in dst = ip4(9, PORT), src = ip4(7, 0);
	struct sockaddr_in6 ll;

	world_up(&w, 70);
	/* no neighbour entry for 10.0.0.9: ROUTE_ERROR */
	CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_connect(id, NULL), EINVAL); /* not resolved */
	CHECK_EQ(rnic_cm_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 100), EADDRNOTAVAIL);
	CHECK_EQ(rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100), 0);
	w.s[0].auto_disconnect = 0;
	{
		struct rnic_cm_event *ev;

		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ADDR_RESOLVED);
		CHECK(ev->id == id);
		CHECK_EQ(rnic_cm_destroy_id(id), EBUSY); /* an event not acknowledged */
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK(!memcmp(id->route.sgid.raw, w.s[0].ep->gid[0].raw, 16));
		CHECK_EQ(id->route.sgid_index, 0);
		CHECK_EQ(rnic_cm_resolve_route(id, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ROUTE_ERROR);
		CHECK_EQ(ev->status, -EHOSTUNREACH);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), EAGAIN);
	}
	CHECK_EQ(rnic_cm_destroy_id(id), 0);
	{
		/* a default next hop (the entry of 0.0.0.0) serves any IPv4
		 * address without an entry of its own, and no IPv6 one */
		static const uint8_t gw[6] = {0x02, 0x66, 0, 0, 0, 0x01};
		struct sockaddr_in any = ip4(0, 0);
		struct sockaddr_in6 d6;
		struct rnic_cm_event *ev;

		any.sin_addr.s_addr = 0;
		CHECK_EQ(rnic_cm_set_neighbour(w.s[0].ch, (struct sockaddr *)&any, gw), 0);
		CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, RNIC_PS_TCP), 0);
		CHECK_EQ(rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ADDR_RESOLVED);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK_EQ(rnic_cm_resolve_route(id, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ROUTE_RESOLVED);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK(!memcmp(id->route.dmac, gw, 6));
		CHECK_EQ(rnic_cm_destroy_id(id), 0);
		memset(&d6, 0, sizeof(d6));
		d6.sin6_family = AF_INET6;
		d6.sin6_addr.s6_addr[0] = 0x20;
		d6.sin6_addr.s6_addr[15] = 9;
		CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, RNIC_PS_TCP), 0);
		if (rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&d6, 100) == 0 &&
		    rnic_cm_get_event(w.s[0].ch, &ev) == 0) {
			int resolved = ev->event == RNIC_CM_EVENT_ADDR_RESOLVED;

			CHECK_EQ(rnic_cm_ack_event(ev), 0);
			if (resolved && rnic_cm_resolve_route(id, 100) == 0 && rnic_cm_get_event(w.s[0].ch, &ev) == 0) {
				CHECK_EQ(ev->event, RNIC_CM_EVENT_ROUTE_ERROR);
				CHECK_EQ(rnic_cm_ack_event(ev), 0);
			}
		}
		CHECK_EQ(rnic_cm_destroy_id(id), 0);
	}

	/* IPv6 link-local: no table entry needed, the MAC is in the address;
	 * the port has no IPv6 GID: ADDR_ERROR */
	memset(&ll, 0, sizeof(ll));
	ll.sin6_family = AF_INET6;
	ll.sin6_port = htons(PORT);
	{
		static const uint8_t a[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
		union rnic_gid g;
		struct rnic_cm_event *ev;

		memcpy(&ll.sin6_addr, a, 16);
		CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, RNIC_PS_TCP), 0);
		CHECK_EQ(rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&ll, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ADDR_ERROR);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK_EQ(rnic_cm_destroy_id(id), 0);

		memcpy(g.raw, a, 16);
		g.raw[15] = 0x01; /* our own link-local address */
		CHECK_EQ(rnic_set_gid(w.s[0].ctx, 1, &g), 0);
		CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, RNIC_PS_TCP), 0);
		CHECK_EQ(rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&ll, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ADDR_RESOLVED);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		CHECK_EQ(id->route.sgid_index, 1);
		CHECK_EQ(rnic_cm_resolve_route(id, 100), 0);
		CHECK_EQ(rnic_cm_get_event(w.s[0].ch, &ev), 0);
		CHECK_EQ(ev->event, RNIC_CM_EVENT_ROUTE_RESOLVED);
		CHECK_EQ(rnic_cm_ack_event(ev), 0);
		static const uint8_t want_mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
		CHECK(!memcmp(id->route.dmac, want_mac, 6));
		CHECK_EQ(id->route.path_mtu, RNIC_IB_MTU_1024);
		CHECK_EQ(rnic_cm_destroy_id(id), 0);
	}
	CHECK_EQ(rnic_cm_create_id(w.s[0].ch, &id, NULL, (enum rnic_port_space)0x0111), EINVAL);
	world_down(&w);

	/* the path MTU of a 9000-byte Ethernet */
	{
		struct fake_nic *f = malloc(sizeof(*f));
		struct rnic_context *ctx;
		struct rnic_cm_channel_attr ca;
		struct rnic_cm_event_channel *ch;
		struct memnet net;
		struct memnet_ep *ep;

		fake_init(f);
		ctx = rnic_open_backend(&fake_ops, f);
		memnet_init(&net, 1, DELAY_NS);
		ep = memnet_add(&net, mac_of[0]);
		memset(&ca, 0, sizeof(ca));
		ca.context = ctx;
		ca.transport = &memnet_ops;
		ca.transport_priv = ep;
		ca.if_mtu = 9000;
		ch = rnic_cm_create_event_channel(&ca);
		CHECK(ch != NULL);
		ca.if_mtu = 300; /* room for no IB MTU */
		CHECK(rnic_cm_create_event_channel(&ca) == NULL);
		CHECK_EQ(errno, EINVAL);
		if (ch) {
			union rnic_gid g;
			uint8_t ip[4] = {10, 0, 0, 1};
			struct sockaddr_in peer = ip4(2, PORT);
			struct rnic_cm_event *ev;

			rnic_gid_from_ipv4(&g, ip);
			CHECK_EQ(rnic_set_gid(ctx, 0, &g), 0);
			CHECK_EQ(rnic_cm_set_neighbour(ch, (struct sockaddr *)&peer, mac_of[1]), 0);
			CHECK_EQ(rnic_cm_create_id(ch, &id, NULL, RNIC_PS_TCP), 0);
			CHECK_EQ(rnic_cm_resolve_addr(id, NULL, (struct sockaddr *)&peer, 100), 0);
			CHECK_EQ(rnic_cm_resolve_route(id, 100), 0);
			CHECK_EQ(rnic_cm_get_event(ch, &ev), 0);
			CHECK_EQ(rnic_cm_ack_event(ev), 0);
			CHECK_EQ(rnic_cm_get_event(ch, &ev), 0);
			CHECK_EQ(ev->event, RNIC_CM_EVENT_ROUTE_RESOLVED);
			CHECK_EQ(rnic_cm_ack_event(ev), 0);
			CHECK_EQ(id->route.path_mtu, RNIC_IB_MTU_4096);
			CHECK(!memcmp(id->route.dmac, mac_of[1], 6));
			CHECK_EQ(rnic_cm_destroy_event_channel(ch), EBUSY); /* an id is left */
			CHECK_EQ(rnic_cm_destroy_id(id), 0);
			CHECK_EQ(rnic_cm_destroy_event_channel(ch), 0);
		}
		CHECK_EQ(rnic_close_device(ctx), 0);
		free(f);
	}
}

/* The QP1 carrier on the fake device: what a channel gets without a
 * transport (QP1 in RTS, 32 receives posted), one per device, the refusals
 * of send, nothing to receive, and everything freed (ASan). The MADs on a
 * wire are rnic-rping-sim's. */
static void test_gsi_carrier(void)
{
	struct fake_nic *f = malloc(sizeof(*f));
	struct rnic_context *ctx;
	struct rnic_cm_channel_attr ca;
	struct rnic_cm_event_channel *ch;
	struct rnic_cm_gsi *g, *g2 = NULL;
	struct rnic_cm_mad_addr a, src;
	struct rnic_cm_gsi_stats st;
	struct rnic_qp_attr qa;
	struct rnic_qp_init_attr qia;
	uint8_t mad[RNIC_MAD_BYTES];
	uint8_t ip[4] = {10, 0, 0, 2};

	fake_init(f);
	ctx = rnic_open_backend(&fake_ops, f);
	memset(&ca, 0, sizeof(ca));
	ca.context = ctx;
	ch = rnic_cm_create_event_channel(&ca);
	CHECK(ch != NULL);
	g = rnic_cm_channel_gsi(ch);
	CHECK(g != NULL);
	if (!ch || !g) {
		rnic_close_device(ctx);
		free(f);
		return;
	}
	CHECK_EQ(rnic_cm_gsi_qp(g)->qp_num, RNIC_GSI_QPN);
	CHECK_EQ(rnic_cm_gsi_qp(g)->qp_type, RNIC_QPT_GSI);
	CHECK_EQ(rnic_query_qp(rnic_cm_gsi_qp(g), &qa, RNIC_QP_STATE | RNIC_QP_QKEY, &qia), 0);
	CHECK_EQ(qa.qp_state, RNIC_QPS_RTS);
	CHECK_EQ(qa.qkey, RNIC_GSI_QKEY);
	/* one QP1 per device */
	CHECK_EQ(rnic_cm_gsi_open(ctx, &g2), EBUSY);
	CHECK(g2 == NULL);
	CHECK(rnic_cm_create_event_channel(&ca) == NULL);
	CHECK_EQ(errno, EBUSY);
	CHECK_EQ(rnic_cm_gsi_open(NULL, &g2), EINVAL);
	/* send: QP1, the GSI Q_Key and the default P_Key only; a next hop */
	memset(&a, 0, sizeof(a));
	memset(mad, 0, sizeof(mad));
	rnic_gid_from_ipv4(&a.gid, ip);
	a.qpn = RNIC_GSI_QPN;
	a.qkey = RNIC_GSI_QKEY;
	a.pkey = RNIC_DEFAULT_PKEY;
	a.mac_valid = 1;
	memcpy(a.mac, mac_of[1], 6);
	a.qpn = 2;
	CHECK_EQ(rnic_cm_gsi_send(g, &a, mad), EINVAL);
	a.qpn = RNIC_GSI_QPN;
	a.qkey = 0x1234;
	CHECK_EQ(rnic_cm_gsi_send(g, &a, mad), EINVAL);
	a.qkey = RNIC_GSI_QKEY;
	a.pkey = 0x7fff;
	CHECK_EQ(rnic_cm_gsi_send(g, &a, mad), EINVAL);
	a.pkey = RNIC_DEFAULT_PKEY;
	a.mac_valid = 0;
	CHECK_EQ(rnic_cm_gsi_send(g, &a, mad), EHOSTUNREACH);
	CHECK_EQ(rnic_cm_gsi_send(NULL, &a, mad), EINVAL);
	/* nothing on the wire: nothing received */
	CHECK_EQ(rnic_cm_gsi_recv(g, &src, mad), EAGAIN);
	rnic_cm_gsi_get_stats(g, &st);
	CHECK(st.sent == 0 && st.received == 0 && st.ahs_created == 0);
	CHECK_EQ(rnic_cm_destroy_event_channel(ch), 0);
	/* QP1 is free again: a carrier of the program's own */
	CHECK_EQ(rnic_cm_gsi_open(ctx, &g2), 0);
	if (g2)
		CHECK_EQ(rnic_cm_gsi_close(g2), 0);
	CHECK_EQ(rnic_cm_gsi_close(NULL), EINVAL);
	CHECK_EQ(rnic_close_device(ctx), 0);
	free(f);
}

/* Destroying an established id disconnects it; the peer sees DISCONNECTED. */
static void test_destroy_connected(void)
{
	struct world w;

	world_up(&w, 80);
	start_listen(&w, PORT);
	start_connect(&w, PORT);
	run_for(&w, 1000000000ull);
	check_connected(&w);
	CHECK_EQ(rnic_cm_destroy_qp(w.s[0].id), 0);
	CHECK_EQ(rnic_cm_destroy_id(w.s[0].id), 0);
	w.s[0].id = NULL;
	run_for(&w, 2000000000ull);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_DISCONNECTED), 1);
	CHECK_EQ(count_ev(&w.s[1], RNIC_CM_EVENT_TIMEWAIT_EXIT), 1);
	CHECK_EQ(count_ev(&w.s[0], RNIC_CM_EVENT_DISCONNECTED), 0); /* nobody to tell */
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREQ, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_DREP, 1), 1);
	world_down(&w);
}

/* The listener destroyed with a connection request the program has not
 * taken: that request is rejected; one taken keeps its id. */
static void test_destroy_listener(void)
{
	struct world w;
	struct side *c = &w.s[0], *s = &w.s[1];
	struct rnic_cm_id *cid[2];
	struct rnic_cm_event *e;
	struct sockaddr_in dst = ip4(2, PORT);
	struct rnic_cm_conn_param p;
	int rejected = 0;

	world_up(&w, 90);
	start_listen(&w, PORT);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x42; /* no QPs: the ids carry a QPN */
	for (int k = 0; k < 2; k++) {
		/* resolution is done at the call: connect need not wait for the
		 * events (they stay queued) */
		CHECK_EQ(rnic_cm_create_id(c->ch, &cid[k], NULL, RNIC_PS_TCP), 0);
		CHECK_EQ(rnic_cm_resolve_addr(cid[k], NULL, (struct sockaddr *)&dst, 100), 0);
		CHECK_EQ(rnic_cm_resolve_route(cid[k], 100), 0);
		p.qp_num = 0x42 + (uint32_t)k;
		CHECK_EQ(rnic_cm_connect(cid[k], &p), 0);
	}
	w.net.now += DELAY_NS;
	CHECK_EQ(rnic_cm_get_event(s->ch, &e), 0); /* the first request; the second waits */
	CHECK_EQ(e->event, RNIC_CM_EVENT_CONNECT_REQUEST);
	CHECK(e->listen_id == s->id);
	CHECK_EQ(rnic_cm_destroy_id(s->id), EBUSY); /* its event is not acknowledged */
	s->conn = e->id;
	CHECK_EQ(rnic_cm_ack_event(e), 0);
	CHECK_EQ(rnic_cm_destroy_id(s->id), 0);
	s->id = NULL;
	w.net.now += DELAY_NS;
	for (int k = 0; k < 8 && rnic_cm_get_event(c->ch, &e) == 0; k++) {
		if (e->event == RNIC_CM_EVENT_REJECTED) {
			rejected++;
			CHECK_EQ(e->status, RNIC_CM_REJ_CONSUMER_DEFINED);
			CHECK(e->id == cid[1]);
		}
		CHECK_EQ(rnic_cm_ack_event(e), 0);
	}
	CHECK_EQ(rejected, 1);
	CHECK_EQ(rnic_cm_get_event(s->ch, &e), EAGAIN);
	/* the taken request is still the program's to answer */
	CHECK_EQ(rnic_cm_reject(s->conn, NULL, 0), 0);
	w.net.now += DELAY_NS;
	CHECK_EQ(rnic_cm_get_event(c->ch, &e), 0);
	CHECK_EQ(e->event, RNIC_CM_EVENT_REJECTED);
	CHECK(e->id == cid[0]);
	CHECK_EQ(rnic_cm_ack_event(e), 0);
	for (int k = 0; k < 2; k++)
		CHECK_EQ(rnic_cm_destroy_id(cid[k]), 0);
	world_down(&w);
}

/* IPv6: GID entry 1 of each side holds 2001:db8::1 / ::2, the listener
 * binds [::]; the REQ's header says IP version 6 and the QPs send IPv6. */
static void test_ipv6(void)
{
	struct world w;
	struct side *c = &w.s[0], *s = &w.s[1];
	struct sockaddr_in6 any, dst;
	union rnic_gid g[2];
	const struct sockaddr_in6 *a6;

	world_up(&w, 95);
	for (int i = 0; i < 2; i++) {
		memset(&g[i], 0, sizeof(g[i]));
		g[i].raw[0] = 0x20;
		g[i].raw[1] = 0x01;
		g[i].raw[2] = 0x0d;
		g[i].raw[3] = 0xb8;
		g[i].raw[15] = (uint8_t)(i + 1);
		CHECK_EQ(rnic_set_gid(w.s[i].ctx, 1, &g[i]), 0);
		w.s[i].ep->gid[1] = g[i];
	}
	memset(&any, 0, sizeof(any));
	any.sin6_family = AF_INET6;
	any.sin6_port = htons(PORT);
	dst = any;
	memcpy(&dst.sin6_addr, g[1].raw, 16);
	CHECK_EQ(rnic_cm_set_neighbour(c->ch, (struct sockaddr *)&dst, mac_of[1]), 0);
	CHECK_EQ(rnic_cm_create_id(s->ch, &s->id, s, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_bind_addr(s->id, (struct sockaddr *)&any), 0);
	CHECK_EQ(rnic_cm_listen(s->id, 4), 0);
	CHECK_EQ(rnic_cm_create_id(c->ch, &c->id, c, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000), 0);
	run_for(&w, 1000000000ull);
	CHECK_EQ(count_ev(c, RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(count_ev(s, RNIC_CM_EVENT_ESTABLISHED), 1);
	CHECK_EQ(c->id->route.sgid_index, 1);
	if (s->conn) {
		CHECK_EQ(s->conn->route.sgid_index, 1);
		a6 = (const struct sockaddr_in6 *)&s->conn->route.dst_addr;
		CHECK_EQ(a6->sin6_family, AF_INET6);
		CHECK(!memcmp(&a6->sin6_addr, g[0].raw, 16));
		a6 = (const struct sockaddr_in6 *)&s->conn->route.src_addr;
		CHECK(!memcmp(&a6->sin6_addr, g[1].raw, 16));
		CHECK_EQ(ntohs(a6->sin6_port), PORT);
	}
	if (c->id->qp && s->conn && s->conn->qp) {
		struct rnic_qp_attr a;
		struct rnic_qp_init_attr ia;

		CHECK_EQ(rnic_query_qp(c->id->qp, &a, 0, &ia), 0);
		CHECK(!memcmp(a.ah_attr.grh.dgid.raw, g[1].raw, 16));
		CHECK_EQ(a.ah_attr.grh.sgid_index, 1);
		CHECK_EQ(a.qp_state, RNIC_QPS_RTS);
		CHECK_EQ(rnic_query_qp(s->conn->qp, &a, 0, &ia), 0);
		CHECK(!memcmp(a.ah_attr.grh.dgid.raw, g[0].raw, 16));
		CHECK_EQ(a.ah_attr.grh.sgid_index, 1);
		CHECK_EQ(a.qp_state, RNIC_QPS_RTS);
	}
	world_down(&w);
}

/* An active id without a QP (rdma_connect with qp_num): CONNECT_RESPONSE,
 * then rnic_cm_establish sends the RTU. */
static void test_connect_response(void)
{
	struct world w;
	struct side *c = &w.s[0], *s = &w.s[1];
	struct sockaddr_in dst = ip4(2, PORT);
	struct rnic_cm_conn_param p;
	struct rnic_cm_event *e;
	int got = 0;

	world_up(&w, 97);
	start_listen(&w, PORT);
	CHECK_EQ(rnic_cm_create_id(c->ch, &c->id, c, RNIC_PS_TCP), 0);
	CHECK_EQ(rnic_cm_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 100), 0);
	CHECK_EQ(rnic_cm_resolve_route(c->id, 100), 0);
	memset(&p, 0, sizeof(p));
	CHECK_EQ(rnic_cm_connect(c->id, &p), EINVAL); /* neither a QP nor a qp_num */
	p.qp_num = 0x77;
	CHECK_EQ(rnic_cm_establish(c->id), EINVAL);
	CHECK_EQ(rnic_cm_connect(c->id, &p), 0);
	for (int k = 0; k < 3; k++) {
		w.net.now += DELAY_NS;
		side_events(&w, 1); /* the server accepts with its QP */
		while (rnic_cm_get_event(c->ch, &e) == 0) {
			if (e->event == RNIC_CM_EVENT_CONNECT_RESPONSE) {
				got++;
				CHECK_EQ(e->param.conn.qp_num, s->conn->qp->qp_num);
				CHECK(e->param.conn.private_data_len >= 5 &&
				      !memcmp(e->param.conn.private_data, "world", 5));
				CHECK_EQ(rnic_cm_establish(c->id), 0);
			}
			CHECK(e->event != RNIC_CM_EVENT_ESTABLISHED);
			CHECK_EQ(rnic_cm_ack_event(e), 0);
		}
	}
	CHECK_EQ(got, 1);
	run_for(&w, 1000000000ull);
	CHECK_EQ(count_ev(s, RNIC_CM_EVENT_ESTABLISHED), 1);
	if (s->conn && s->conn->qp) {
		struct rnic_qp_attr a;
		struct rnic_qp_init_attr ia;

		CHECK_EQ(rnic_query_qp(s->conn->qp, &a, 0, &ia), 0);
		CHECK_EQ(a.dest_qp_num, 0x77);
		CHECK_EQ(a.qp_state, RNIC_QPS_RTS);
	}
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_RTU, 0), 1);
	CHECK_EQ(memnet_count(&w.net, RNIC_CM_ATTR_REP, 1), 1);
	world_down(&w);
}

/* QPs the programs make and move themselves (rping -q): rnic_create_qp,
 * then rnic_cm_init_qp_attr for INIT, RTR and RTS; the CM carries qp_num. */
static struct rnic_qp *own_qp(struct side *s)
{
	struct rnic_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return rnic_create_qp(s->pd, &ia);
}

static int move_qp(struct rnic_cm_id *id, struct rnic_qp *qp, uint32_t state)
{
	struct rnic_qp_attr a;
	int mask, err;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	if ((err = rnic_cm_init_qp_attr(id, &a, &mask)))
		return err;
	return rnic_modify_qp(qp, &a, mask);
}

static void test_own_qp(void)
{
	struct world w;
	struct side *c = &w.s[0], *s = &w.s[1];
	struct sockaddr_in dst = ip4(2, PORT);
	struct rnic_qp *qc, *qs;
	struct rnic_cm_conn_param p;
	struct rnic_cm_event *e;
	struct rnic_qp_attr a;
	int mask;

	world_up(&w, 99);
	s->mode = HOLD;
	start_listen(&w, PORT);
	qc = own_qp(c);
	qs = own_qp(s);
	CHECK(qc && qs);
	CHECK_EQ(rnic_cm_create_id(c->ch, &c->id, c, RNIC_PS_TCP), 0);
	CHECK_EQ(move_qp(c->id, qc, RNIC_QPS_INIT), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	CHECK_EQ(rnic_cm_init_qp_attr(c->id, &a, &mask), EINVAL); /* no peer yet */
	a.qp_state = RNIC_QPS_SQD;
	CHECK_EQ(rnic_cm_init_qp_attr(c->id, &a, &mask), EINVAL);
	CHECK_EQ(rnic_cm_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 100), 0);
	CHECK_EQ(rnic_cm_resolve_route(c->id, 100), 0);
	memset(&p, 0, sizeof(p));
	p.qp_num = qc->qp_num;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	CHECK_EQ(rnic_cm_connect(c->id, &p), 0);
	w.net.now += DELAY_NS;
	side_events(&w, 1); /* CONNECT_REQUEST; held (the harness made a QP on it: drop that one) */
	CHECK(s->conn != NULL);
	if (!s->conn) {
		world_down(&w);
		return;
	}
	CHECK_EQ(rnic_cm_destroy_qp(s->conn), 0);
	/* the server moves its own QP to RTS before accepting, as rping -q */
	CHECK_EQ(move_qp(s->conn, qs, RNIC_QPS_INIT), 0);
	CHECK_EQ(move_qp(s->conn, qs, RNIC_QPS_RTR), 0);
	CHECK_EQ(move_qp(s->conn, qs, RNIC_QPS_RTS), 0);
	p.qp_num = qs->qp_num;
	CHECK_EQ(rnic_cm_accept(s->conn, &p), 0);
	w.net.now += DELAY_NS;
	while (rnic_cm_get_event(c->ch, &e) == 0) {
		if (e->event == RNIC_CM_EVENT_CONNECT_RESPONSE) {
			CHECK_EQ(move_qp(c->id, qc, RNIC_QPS_RTR), 0);
			CHECK_EQ(move_qp(c->id, qc, RNIC_QPS_RTS), 0);
			CHECK_EQ(rnic_cm_establish(c->id), 0);
		}
		CHECK_EQ(rnic_cm_ack_event(e), 0);
	}
	run_for(&w, 1000000000ull);
	CHECK_EQ(count_ev(s, RNIC_CM_EVENT_ESTABLISHED), 1);
	{
		struct rnic_qp_attr x, y;
		struct rnic_qp_init_attr ia;

		CHECK_EQ(rnic_query_qp(qc, &x, 0, &ia), 0);
		CHECK_EQ(rnic_query_qp(qs, &y, 0, &ia), 0);
		CHECK_EQ(x.qp_state, RNIC_QPS_RTS);
		CHECK_EQ(y.qp_state, RNIC_QPS_RTS);
		CHECK_EQ(x.dest_qp_num, qs->qp_num);
		CHECK_EQ(y.dest_qp_num, qc->qp_num);
		CHECK_EQ(x.rq_psn, y.sq_psn);
		CHECK_EQ(y.rq_psn, x.sq_psn);
		CHECK_EQ(x.path_mtu, RNIC_IB_MTU_1024);
		CHECK(!memcmp(x.ah_attr.dmac, mac_of[1], 6));
		CHECK(!memcmp(y.ah_attr.dmac, mac_of[0], 6));
		CHECK(x.qp_access_flags & RNIC_ACCESS_REMOTE_READ); /* the peer may read: 1 responder resource */
	}
	CHECK_EQ(rnic_destroy_qp(qc), 0);
	CHECK_EQ(rnic_destroy_qp(qs), 0);
	world_down(&w);
}

int main(void)
{
	test_connect_disconnect();
	test_reject();
	test_rep_depth_over_offer();
	test_lost();
	test_unreachable();
	test_duplicates();
	test_mra();
	test_disconnect();
	test_stale();
	test_random();
	test_resolve();
	test_destroy_connected();
	test_destroy_listener();
	test_ipv6();
	test_connect_response();
	test_own_qp();
	test_gsi_carrier();
	printf("test_cm: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
