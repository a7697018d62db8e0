/* The communication manager (IBTA Vol. 1 ch. 12) for RoCE RC connections
 * and its librdmacm-shaped API (<rnic/rnic_cm.h>, docs/cm.md).
 *
 * One channel serves port 1 of one device. Its ids are kept in a list; a
 * connection is found by its communication IDs. MADs come and go through the
 * program's transport; time comes from the channel's clock, read whenever
 * the channel makes progress (rnic_cm_get_event). The state names and the
 * choices where the specification leaves room (when to send an MRA, what a
 * duplicate is answered with, the timewait length) follow Linux's ib_cm and
 * rdma_cm, so that a Linux peer sees what it would see from another Linux.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm_mad.h"
#include "rnic/rnic_cm.h"

enum cm_state {
	ST_IDLE,
	ST_ADDR_RESOLVED,
	ST_ROUTE_RESOLVED,
	ST_LISTEN,
	/* active */
	ST_REQ_SENT,
	ST_MRA_REQ_RCVD,
	ST_REP_RCVD,       /* no QP: CONNECT_RESPONSE given, waiting for rnic_cm_establish */
	/* passive */
	ST_REQ_RCVD,       /* CONNECT_REQUEST given, waiting for accept or reject */
	ST_MRA_REQ_SENT,
	ST_REP_SENT,
	/* both */
	ST_ESTABLISHED,
	ST_DREQ_SENT,
	ST_DREQ_RCVD,      /* DISCONNECTED given, waiting for rnic_cm_disconnect */
	ST_TIMEWAIT,
	ST_DONE,           /* rejected, unreachable, or out of timewait */
};

struct cm_event_priv {
	struct rnic_cm_event ev;     /* first: the program's pointer */
	struct cm_event_priv *next;
	uint8_t pdata[RNIC_CM_RTU_PRIVATE_BYTES];
};

struct id_priv {
	struct rnic_cm_id id;        /* first: the program's pointer */
	struct id_priv *next;
	enum cm_state state;
	int user_gone;               /* destroyed by the program; kept until the protocol is done */
	int own_qp;                  /* id.qp made by rnic_cm_create_qp */
	unsigned int events_out;     /* taken and not yet acknowledged */
	int bound, backlog;
	uint16_t port;
	struct id_priv *listener;    /* of a passive id */

	uint32_t local_comm_id, remote_comm_id;
	uint64_t remote_ca_guid;
	uint32_t local_qpn, remote_qpn, local_psn, remote_psn;
	uint64_t tid, dreq_tid;
	struct rnic_cm_mad_addr peer; /* where the connection's MADs go */
	uint8_t resp_res, init_depth; /* our max_dest_rd_atomic, max_rd_atomic */
	uint8_t retry_count, rnr_retry_count, ack_timeout, flow_control;
	uint8_t peer_cm_timeout;     /* how long the peer takes to answer (its response timeout) */
	uint8_t max_cm_retries;

	uint8_t sent[RNIC_MAD_BYTES]; /* the message the timer resends (REQ, REP, DREQ) */
	uint8_t reply[RNIC_MAD_BYTES]; /* the last answer (MRA, RTU, REJ, DREP), resent on a duplicate */
	int have_reply;
	int was_connected;           /* reached ESTABLISHED */
	uint64_t deadline;           /* 0: no timer */
	unsigned int retries_left;
	uint64_t retry_ns;
};

struct neigh {
	union rnic_gid gid;
	uint8_t mac[6];
	struct neigh *next;
};

struct rnic_cm_event_channel {
	struct rnic_context *context;
	const struct rnic_cm_transport_ops *transport;
	void *transport_priv;
	struct rnic_cm_gsi *gsi; /* the QP1 carrier the channel opened, or NULL */
	uint64_t (*now_ns)(void *);
	void *clock_priv;
	uint64_t rng;
	uint64_t ca_guid;
	uint32_t path_mtu;
	struct id_priv *ids;
	struct cm_event_priv *evq_head, *evq_tail;
	struct neigh *neigh;
	unsigned int events_out;
};

#define PRIV(i) ((struct id_priv *)(i))

/* ------------------------------------------------------------ utilities */

static uint64_t clock_mono(void *unused)
{
	struct timespec ts;

	(void)unused;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now(struct rnic_cm_event_channel *ch)
{
	return ch->now_ns(ch->clock_priv);
}

/* xorshift64* */
static uint64_t rnd(struct rnic_cm_event_channel *ch)
{
	ch->rng ^= ch->rng >> 12;
	ch->rng ^= ch->rng << 25;
	ch->rng ^= ch->rng >> 27;
	return ch->rng * 0x2545f4914f6cdd1dull;
}

/* RNIC_CM_TIMEOUT_UNIT_NS * 2^t */
static uint64_t cm_time_ns(unsigned int t)
{
	return (uint64_t)RNIC_CM_TIMEOUT_UNIT_NS << (t > 31 ? 31 : t);
}

/* Linux iboe_get_mtu: the largest IB MTU that fits an Ethernet MTU. */
static uint32_t iboe_mtu(unsigned int if_mtu)
{
	int room = (int)if_mtu - (RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES +
				  RNIC_XRCETH_BYTES + RNIC_ATOMICETH_BYTES + RNIC_ICRC_BYTES);

	if (room >= 4096)
		return RNIC_IB_MTU_4096;
	if (room >= 2048)
		return RNIC_IB_MTU_2048;
	if (room >= 1024)
		return RNIC_IB_MTU_1024;
	if (room >= 512)
		return RNIC_IB_MTU_512;
	if (room >= 256)
		return RNIC_IB_MTU_256;
	return 0;
}

static int gid_is_v4(const union rnic_gid *g)
{
	static const uint8_t pfx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return !memcmp(g->raw, pfx, 12);
}

static int gid_is_zero(const union rnic_gid *g)
{
	static const uint8_t z[16];

	return !memcmp(g->raw, z, 16);
}

/* An IPv4 or IPv6 socket address as a GID; EAFNOSUPPORT for others. */
static int sa_to_gid(const struct sockaddr *sa, union rnic_gid *gid)
{
	if (sa->sa_family == AF_INET) {
		rnic_gid_from_ipv4(gid, (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return EAFNOSUPPORT;
}

static uint16_t sa_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static int sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? (int)sizeof(struct sockaddr_in) : (int)sizeof(struct sockaddr_in6);
}

/* The socket address of a cma_hdr address (16 bytes; IPv4 in the last 4). */
static void hdr_to_sa(int ipv, const uint8_t a[16], uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, &a[12], 4);
		s->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, a, 16);
		s->sin6_port = htons(port);
	}
}

static void sa_to_hdr(const struct sockaddr_storage *ss, uint8_t a[16])
{
	memset(a, 0, 16);
	if (ss->ss_family == AF_INET)
		memcpy(&a[12], &((const struct sockaddr_in *)ss)->sin_addr, 4);
	else
		memcpy(a, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

static int sa_is_any(const struct sockaddr_storage *ss)
{
	static const uint8_t z[16];

	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == 0;
	return !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr, z, 16);
}

/* The next-hop MAC of a GID: the static neighbour table, else the EUI-64
 * interface ID of an IPv6 link-local address (fe80::/64, ff:fe in the
 * middle), as rdma-core's rdma_get_ll_mac, else the entry of the family's
 * unspecified address (0.0.0.0 or ::: the default next hop). ENOENT when
 * none. */
static int neigh_lookup(struct rnic_cm_event_channel *ch, const union rnic_gid *gid, uint8_t mac[6])
{
	static const uint8_t ll[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0};
	static const union rnic_gid any6, any4 = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}};
	const union rnic_gid *any = gid_is_v4(gid) ? &any4 : &any6;
	const struct neigh *dflt = NULL;

	for (struct neigh *n = ch->neigh; n; n = n->next) {
		if (!memcmp(n->gid.raw, gid->raw, 16)) {
			memcpy(mac, n->mac, 6);
			return 0;
		}
		if (!memcmp(n->gid.raw, any->raw, 16))
			dflt = n;
	}
	if (!memcmp(gid->raw, ll, 8) && gid->raw[11] == 0xff && gid->raw[12] == 0xfe) {
		mac[0] = gid->raw[8] ^ 2;
		mac[1] = gid->raw[9];
		mac[2] = gid->raw[10];
		mac[3] = gid->raw[13];
		mac[4] = gid->raw[14];
		mac[5] = gid->raw[15];
		return 0;
	}
	if (dflt) {
		memcpy(mac, dflt->mac, 6);
		return 0;
	}
	return ENOENT;
}

/* ------------------------------------------------------------ events */

static void queue_event(struct rnic_cm_event_channel *ch, struct id_priv *p, struct id_priv *listen,
			enum rnic_cm_event_type type, int status, const struct rnic_cm_conn_param *conn,
			const uint8_t *pdata, size_t plen)
{
	struct cm_event_priv *e;

	if (p->user_gone)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return; /* the event is lost; the connection's state is right */
	e->ev.id = &p->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (conn)
		e->ev.param.conn = *conn;
	if (pdata && plen) {
		if (plen > sizeof(e->pdata))
			plen = sizeof(e->pdata);
		memcpy(e->pdata, pdata, plen);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = (uint8_t)plen;
	} else {
		e->ev.param.conn.private_data = NULL;
		e->ev.param.conn.private_data_len = 0;
	}
	if (ch->evq_tail)
		ch->evq_tail->next = e;
	else
		ch->evq_head = e;
	ch->evq_tail = e;
}

/* ------------------------------------------------------------ sending */

static void xmit(struct rnic_cm_event_channel *ch, const struct rnic_cm_mad_addr *dst, const uint8_t *mad)
{
	/* A failed send is a lost MAD: the timers resend what needs an answer. */
	(void)ch->transport->send(ch->transport_priv, dst, mad);
}

static uint64_t new_tid(struct rnic_cm_event_channel *ch, uint32_t comm_id)
{
	return (rnd(ch) & 0xffffffff00000000ull) | comm_id;
}

/* The peer address of a connection from its route. */
static void set_peer(struct id_priv *p)
{
	struct rnic_cm_mad_addr *a = &p->peer;

	memset(a, 0, sizeof(*a));
	a->gid = p->id.route.dgid;
	a->qpn = RNIC_GSI_QPN;
	a->qkey = RNIC_GSI_QKEY;
	a->pkey = RNIC_DEFAULT_PKEY;
	a->sgid_index = p->id.route.sgid_index;
	a->hop_limit = p->id.route.hop_limit;
	a->traffic_class = p->id.route.traffic_class;
	a->mac_valid = 1;
	memcpy(a->mac, p->id.route.dmac, 6);
}

/* A REJ to dst (stored as the id's reply when there is one). */
static void send_rej(struct rnic_cm_event_channel *ch, struct id_priv *p, const struct rnic_cm_mad_addr *dst,
		     uint64_t tid, uint32_t local_id, uint32_t remote_id, uint8_t msg, uint16_t reason,
		     const void *ari, uint8_t ari_len, const void *pdata, uint8_t plen)
{
	struct cm_msg m;
	uint8_t mad[RNIC_MAD_BYTES];

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, RNIC_CM_ATTR_REJ, tid);
	m.u.rej.local_comm_id = local_id;
	m.u.rej.remote_comm_id = remote_id;
	m.u.rej.message_rejected = msg;
	m.u.rej.reason = reason;
	if (ari_len) {
		m.u.rej.rejected_info_length = ari_len;
		memcpy(m.u.rej.ari, ari, ari_len);
	}
	if (plen)
		memcpy(m.u.rej.private_data, pdata, plen);
	if (cm_mad_encode(&m, mad))
		return;
	if (p) {
		memcpy(p->reply, mad, sizeof(mad));
		p->have_reply = 1;
	}
	xmit(ch, dst, mad);
}

/* REJ of a timed-out REQ or REP: the ARI is our CA GUID (as Linux). */
static void send_rej_timeout(struct rnic_cm_event_channel *ch, struct id_priv *p, uint8_t msg)
{
	uint8_t guid[8];

	for (int i = 0; i < 8; i++)
		guid[i] = (uint8_t)(ch->ca_guid >> (56 - 8 * i));
	send_rej(ch, p, &p->peer, p->tid, p->local_comm_id, p->remote_comm_id, msg, RNIC_CM_REJ_TIMEOUT,
		 guid, sizeof(guid), NULL, 0);
}

static void start_timer(struct rnic_cm_event_channel *ch, struct id_priv *p, uint64_t wait_ns, unsigned int retries)
{
	p->retry_ns = wait_ns;
	p->retries_left = retries;
	p->deadline = now(ch) + wait_ns;
	if (!p->deadline)
		p->deadline = 1;
}

static void send_simple(struct rnic_cm_event_channel *ch, struct id_priv *p, uint16_t attr, uint64_t tid,
			int as_reply)
{
	struct cm_msg m;
	uint8_t *mad = as_reply ? p->reply : p->sent;

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, attr, tid);
	/* RTU, DREQ, DREP: the two comm IDs lead the message */
	m.u.rtu.local_comm_id = p->local_comm_id;
	m.u.rtu.remote_comm_id = p->remote_comm_id;
	if (attr == RNIC_CM_ATTR_DREQ)
		m.u.dreq.remote_qpn = p->remote_qpn;
	if (cm_mad_encode(&m, mad))
		return;
	if (as_reply)
		p->have_reply = 1;
	xmit(ch, &p->peer, mad);
}

/* ------------------------------------------------------------ QP moves */

static int qp_to_err(struct id_priv *p)
{
	struct rnic_qp_attr a;

	if (!p->id.qp)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_ERR;
	return rnic_modify_qp(p->id.qp, &a, RNIC_QP_STATE);
}

/* The attributes of each move, with what the REQ and REP settled (as
 * Linux's ib_cm_init_qp_attr). */
static void init_attr(const struct id_priv *p, struct rnic_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qp_access_flags = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
	if (p->resp_res)
		a->qp_access_flags |= RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	*mask = RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS;
}

static void rtr_attr(const struct id_priv *p, struct rnic_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_RTR;
	a->qp_access_flags = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
	if (p->resp_res)
		a->qp_access_flags |= RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	a->path_mtu = p->id.route.path_mtu;
	a->dest_qp_num = p->remote_qpn;
	/* Linux's meaning of a REQ's or REP's Starting PSN (cm.c: the active
	 * side's sq_psn is the REP's, the passive side's the REQ's): the PSN
	 * its sender expects to receive */
	a->rq_psn = p->local_psn;
	a->max_dest_rd_atomic = p->resp_res;
	a->min_rnr_timer = 0; /* as ib_cm_init_qp_attr */
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.dgid = p->id.route.dgid;
	a->ah_attr.grh.sgid_index = p->id.route.sgid_index;
	a->ah_attr.grh.hop_limit = p->id.route.hop_limit;
	a->ah_attr.grh.traffic_class = p->id.route.traffic_class;
	a->ah_attr.grh.flow_label = p->id.route.flow_label;
	memcpy(a->ah_attr.dmac, p->id.route.dmac, 6);
	*mask = RNIC_QP_STATE | RNIC_QP_ACCESS_FLAGS | RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
		RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
}

static void rts_attr(const struct id_priv *p, struct rnic_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = RNIC_QPS_RTS;
	a->sq_psn = p->remote_psn;
	a->timeout = p->ack_timeout;
	a->retry_cnt = p->retry_count;
	a->rnr_retry = p->rnr_retry_count;
	a->max_rd_atomic = p->init_depth;
	*mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
		RNIC_QP_MAX_QP_RD_ATOMIC;
}

/* INIT -> RTR -> RTS with what the REQ and REP settled. */
static int qp_to_rts(struct id_priv *p)
{
	struct rnic_qp_attr a;
	int mask, ret;

	rtr_attr(p, &a, &mask);
	ret = rnic_modify_qp(p->id.qp, &a, mask);
	if (ret)
		return ret;
	rts_attr(p, &a, &mask);
	return rnic_modify_qp(p->id.qp, &a, mask);
}

/* ------------------------------------------------------------ ids */

static struct id_priv *find_local(struct rnic_cm_event_channel *ch, uint32_t local_comm_id)
{
	if (!local_comm_id)
		return NULL;
	for (struct id_priv *p = ch->ids; p; p = p->next)
		if (p->local_comm_id == local_comm_id && p->state >= ST_REQ_SENT)
			return p;
	return NULL;
}

static uint32_t new_comm_id(struct rnic_cm_event_channel *ch)
{
	for (;;) {
		uint32_t id = (uint32_t)rnd(ch);

		if (id && !find_local(ch, id))
			return id;
	}
}

static struct id_priv *new_id(struct rnic_cm_event_channel *ch, void *context, enum rnic_port_space ps)
{
	struct id_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->id.verbs = ch->context;
	p->id.channel = ch;
	p->id.context = context;
	p->id.ps = ps;
	p->id.port_num = 1;
	p->state = ST_IDLE;
	p->next = ch->ids;
	ch->ids = p;
	return p;
}

static void free_id(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	for (struct id_priv **pp = &ch->ids; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	for (struct id_priv *q = ch->ids; q; q = q->next)
		if (q->listener == p)
			q->listener = NULL;
	free(p);
}

/* Enter timewait: the QP's local ACK timeout (as Linux's cm_enter_timewait). */
static void enter_timewait(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	p->state = ST_TIMEWAIT;
	start_timer(ch, p, cm_time_ns(p->ack_timeout), 0);
}

static void to_done(struct id_priv *p)
{
	p->state = ST_DONE;
	p->deadline = 0;
}

/* ------------------------------------------------------------ active side */

static void conn_param_from_rep(const struct cm_rep *r, struct rnic_cm_conn_param *c)
{
	memset(c, 0, sizeof(*c));
	c->responder_resources = r->initiator_depth;
	c->initiator_depth = r->responder_resources;
	c->flow_control = r->flow_control;
	c->rnr_retry_count = r->rnr_retry_count;
	c->srq = r->srq;
	c->qp_num = r->local_qpn;
}

static void send_rtu(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	send_simple(ch, p, RNIC_CM_ATTR_RTU, p->tid, 1);
}

static void handle_rep(struct rnic_cm_event_channel *ch, const struct rnic_cm_mad_addr *src, const struct cm_msg *m)
{
	const struct cm_rep *r = &m->u.rep;
	struct id_priv *p = find_local(ch, r->remote_comm_id);
	struct rnic_cm_conn_param c;

	if (!p) {
		send_rej(ch, NULL, src, m->hdr.tid, r->remote_comm_id, r->local_comm_id, RNIC_CM_MSG_REP,
			 RNIC_CM_REJ_INVALID_COMM_ID, NULL, 0, NULL, 0);
		return;
	}
	if (p->state == ST_ESTABLISHED && r->local_comm_id == p->remote_comm_id) {
		/* the RTU was lost: the passive side resent its REP */
		if (p->have_reply)
			xmit(ch, &p->peer, p->reply);
		return;
	}
	if (p->state != ST_REQ_SENT && p->state != ST_MRA_REQ_RCVD)
		return; /* a duplicate while the program decides, or late */
	p->deadline = 0;
	p->remote_comm_id = r->local_comm_id;
	p->remote_qpn = r->local_qpn;
	p->remote_psn = r->starting_psn;
	p->remote_ca_guid = r->local_ca_guid;
	/* as Linux's cm_rep_handler: each side's depth is the other's resources
	 * (never more than the REQ offered: Linux's REP names the depth its
	 * program accepted with, e.g. perftest's 128 for rxe, whatever we offered) */
	if (r->responder_resources < p->init_depth)
		p->init_depth = r->responder_resources;
	if (r->initiator_depth < p->resp_res)
		p->resp_res = r->initiator_depth;
	p->rnr_retry_count = r->rnr_retry_count;
	conn_param_from_rep(r, &c);
	if (!p->id.qp) {
		p->state = ST_REP_RCVD;
		queue_event(ch, p, NULL, RNIC_CM_EVENT_CONNECT_RESPONSE, 0, &c, r->private_data,
			    sizeof(r->private_data));
		return;
	}
	if (qp_to_rts(p)) {
		qp_to_err(p);
		send_rej(ch, p, &p->peer, p->tid, p->local_comm_id, p->remote_comm_id, RNIC_CM_MSG_REP,
			 RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		to_done(p);
		queue_event(ch, p, NULL, RNIC_CM_EVENT_CONNECT_ERROR, -EIO, NULL, NULL, 0);
		return;
	}
	send_rtu(ch, p);
	p->state = ST_ESTABLISHED;
	p->was_connected = 1;
	queue_event(ch, p, NULL, RNIC_CM_EVENT_ESTABLISHED, 0, &c, r->private_data, sizeof(r->private_data));
}

/* ------------------------------------------------------------ passive side */

static struct id_priv *find_listener(struct rnic_cm_event_channel *ch, uint64_t service_id,
				     const struct cm_ip_hdr *h)
{
	for (struct id_priv *p = ch->ids; p; p = p->next) {
		const struct sockaddr_storage *b = &p->id.route.src_addr;
		uint8_t a[16];

		if (p->state != ST_LISTEN || p->user_gone)
			continue;
		if (cm_ip_service_id((uint16_t)p->id.ps, p->port) != service_id)
			continue;
		if (sa_is_any(b))
			return p; /* a wildcard listener takes both families, as Linux's */
		if ((b->ss_family == AF_INET) != (h->ip_version == 4))
			continue;
		sa_to_hdr(b, a);
		if (!memcmp(a, h->dst_addr, 16))
			return p;
	}
	return NULL;
}

static void conn_param_from_req(const struct cm_req *r, struct rnic_cm_conn_param *c)
{
	memset(c, 0, sizeof(*c));
	c->responder_resources = r->initiator_depth;
	c->initiator_depth = r->responder_resources;
	c->flow_control = r->flow_control;
	c->retry_count = r->retry_count;
	c->rnr_retry_count = r->rnr_retry_count;
	c->srq = r->srq;
	c->qp_num = r->local_qpn;
}

static void send_mra(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	struct cm_msg m;

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, RNIC_CM_ATTR_MRA, p->tid);
	m.u.mra.local_comm_id = p->local_comm_id;
	m.u.mra.remote_comm_id = p->remote_comm_id;
	m.u.mra.message_mraed = RNIC_CM_MSG_REQ;
	m.u.mra.service_timeout = RNIC_RDMA_CM_MRA_SERVICE_TIMEOUT;
	if (cm_mad_encode(&m, p->reply))
		return;
	p->have_reply = 1;
	xmit(ch, &p->peer, p->reply);
}

static void start_disconnect(struct rnic_cm_event_channel *ch, struct id_priv *p);

static void handle_req(struct rnic_cm_event_channel *ch, const struct rnic_cm_mad_addr *src, const struct cm_msg *m)
{
	const struct cm_req *r = &m->u.req;
	struct id_priv *p, *l;
	struct cm_ip_hdr h;
	struct rnic_cm_conn_param c;
	uint8_t mac[6];
	int children = 0;

	/* a duplicate: the same remote comm ID from the same CA */
	for (p = ch->ids; p; p = p->next) {
		if (p->state < ST_REQ_RCVD || p->remote_comm_id != r->local_comm_id ||
		    p->remote_ca_guid != r->local_ca_guid)
			continue;
		switch (p->state) {
		case ST_REQ_RCVD:
			/* the program is slow: tell the peer to wait (Linux's
			 * CMA_CM_MRA_SETTING, an MRA on the first duplicate) */
			p->state = ST_MRA_REQ_SENT;
			send_mra(ch, p);
			break;
		case ST_MRA_REQ_SENT:
		case ST_DONE:
			if (p->have_reply)
				xmit(ch, &p->peer, p->reply); /* MRA or REJ again */
			break;
		case ST_REP_SENT:
			/* our REP was lost: the REP again, and its timer counts
			 * from this one (the peer answers it within its wait) */
			xmit(ch, &p->peer, p->sent);
			p->deadline = now(ch) + p->retry_ns;
			break;
		case ST_TIMEWAIT:
			send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ,
				 RNIC_CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
			break;
		default:
			break; /* established or disconnecting: an old REQ */
		}
		return;
	}
	/* stale: the peer's QP is still connected here, or in timewait */
	for (p = ch->ids; p; p = p->next) {
		/* (an active id knows its peer's QP only from the REP on) */
		if (p->state < ST_REP_RCVD || p->state == ST_DONE || p->remote_ca_guid != r->local_ca_guid ||
		    p->remote_qpn != r->local_qpn)
			continue;
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ, RNIC_CM_REJ_STALE_CONN,
			 NULL, 0, NULL, 0);
		if (p->state == ST_ESTABLISHED)
			start_disconnect(ch, p);
		return;
	}
	if (r->transport_type != RNIC_CM_TRANSPORT_RC) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ,
			 RNIC_CM_REJ_INVALID_TRANSPORT_TYPE, NULL, 0, NULL, 0);
		return;
	}
	if (cm_ip_hdr_decode(r->private_data, &h)) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ,
			 RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		return;
	}
	l = find_listener(ch, r->service_id, &h);
	if (!l) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ,
			 RNIC_CM_REJ_INVALID_SERVICE_ID, NULL, 0, NULL, 0);
		return;
	}
	for (p = ch->ids; p; p = p->next)
		if (p->listener == l && (p->state == ST_REQ_RCVD || p->state == ST_MRA_REQ_SENT))
			children++;
	if (children >= l->backlog) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ,
			 RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		return;
	}
	if (r->path_mtu < RNIC_IB_MTU_256 || r->path_mtu > RNIC_IB_MTU_4096) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ, RNIC_CM_REJ_INVALID_MTU,
			 NULL, 0, NULL, 0);
		return;
	}
	if (src->mac_valid)
		memcpy(mac, src->mac, 6);
	else if (neigh_lookup(ch, (const union rnic_gid *)r->primary.local_gid, mac)) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ, RNIC_CM_REJ_INVALID_GID,
			 NULL, 0, NULL, 0);
		return;
	}

	p = new_id(ch, l->id.context, l->id.ps);
	if (!p) {
		send_rej(ch, NULL, src, m->hdr.tid, 0, r->local_comm_id, RNIC_CM_MSG_REQ, RNIC_CM_REJ_NO_RESOURCES,
			 NULL, 0, NULL, 0);
		return;
	}
	p->listener = l;
	p->state = ST_REQ_RCVD;
	p->local_comm_id = new_comm_id(ch);
	p->remote_comm_id = r->local_comm_id;
	p->remote_ca_guid = r->local_ca_guid;
	p->remote_qpn = r->local_qpn;
	p->remote_psn = r->starting_psn;
	p->local_psn = (uint32_t)rnd(ch) & 0xffffff; /* chosen now: rnic_cm_init_qp_attr may need it before accept */
	p->tid = m->hdr.tid;
	p->resp_res = r->initiator_depth;
	p->init_depth = r->responder_resources;
	p->retry_count = r->retry_count;
	p->rnr_retry_count = r->rnr_retry_count;
	p->ack_timeout = r->primary.local_ack_timeout;
	p->flow_control = r->flow_control;
	p->peer_cm_timeout = r->local_cm_response_timeout;
	p->max_cm_retries = r->max_cm_retries;
	/* the route the REQ describes, seen from here */
	hdr_to_sa(h.ip_version, h.dst_addr, l->port, &p->id.route.src_addr);
	hdr_to_sa(h.ip_version, h.src_addr, h.src_port, &p->id.route.dst_addr);
	memcpy(p->id.route.sgid.raw, r->primary.remote_gid, 16);
	memcpy(p->id.route.dgid.raw, r->primary.local_gid, 16);
	p->id.route.sgid_index = src->sgid_index;
	memcpy(p->id.route.dmac, mac, 6);
	p->id.route.path_mtu = r->path_mtu < ch->path_mtu ? r->path_mtu : ch->path_mtu;
	p->id.route.hop_limit = r->primary.hop_limit;
	p->id.route.traffic_class = r->primary.traffic_class;
	p->id.route.flow_label = r->primary.flow_label;
	p->id.route.packet_life_time = RNIC_RDMA_CM_PACKET_LIFETIME;
	set_peer(p);
	p->peer.gid = src->gid; /* answer where the REQ came from */
	conn_param_from_req(r, &c);
	queue_event(ch, p, l, RNIC_CM_EVENT_CONNECT_REQUEST, 0, &c, r->private_data + RNIC_RDMA_CM_HDR_BYTES,
		    RNIC_CM_REQ_PRIVATE_BYTES - RNIC_RDMA_CM_HDR_BYTES);
}

static void handle_rtu(struct rnic_cm_event_channel *ch, const struct cm_msg *m)
{
	struct id_priv *p = find_local(ch, m->u.rtu.remote_comm_id);

	if (!p || p->remote_comm_id != m->u.rtu.local_comm_id || p->state != ST_REP_SENT)
		return; /* a duplicate RTU, or one for nothing */
	p->deadline = 0;
	p->state = ST_ESTABLISHED;
	p->was_connected = 1;
	queue_event(ch, p, NULL, RNIC_CM_EVENT_ESTABLISHED, 0, NULL, m->u.rtu.private_data,
		    sizeof(m->u.rtu.private_data));
}

/* ------------------------------------------------------------ both sides */

static void handle_mra(struct rnic_cm_event_channel *ch, const struct cm_msg *m)
{
	struct id_priv *p = find_local(ch, m->u.mra.remote_comm_id);
	uint64_t wait;

	if (!p)
		return;
	wait = cm_time_ns(m->u.mra.service_timeout) + 2 * cm_time_ns(p->id.route.packet_life_time);
	if (m->u.mra.message_mraed == RNIC_CM_MSG_REQ && p->state == ST_REQ_SENT) {
		p->state = ST_MRA_REQ_RCVD;
		p->remote_comm_id = m->u.mra.local_comm_id;
		p->deadline = now(ch) + wait; /* the REQ's retries are kept */
	} else if (m->u.mra.message_mraed == RNIC_CM_MSG_REP && p->state == ST_REP_SENT) {
		p->deadline = now(ch) + wait;
	}
}

static void handle_rej(struct rnic_cm_event_channel *ch, const struct cm_msg *m)
{
	const struct cm_rej *r = &m->u.rej;
	struct id_priv *p = find_local(ch, r->remote_comm_id);
	struct rnic_cm_conn_param c;

	if (!p)
		return;
	switch (p->state) {
	case ST_REQ_SENT:
	case ST_MRA_REQ_RCVD:
	case ST_REP_RCVD:
	case ST_REP_SENT:
	case ST_MRA_REQ_SENT:
		break;
	default:
		return;
	}
	qp_to_err(p);
	to_done(p);
	memset(&c, 0, sizeof(c));
	queue_event(ch, p, NULL, RNIC_CM_EVENT_REJECTED, r->reason, &c, r->private_data, sizeof(r->private_data));
}

static void handle_dreq(struct rnic_cm_event_channel *ch, const struct rnic_cm_mad_addr *src, const struct cm_msg *m)
{
	const struct cm_dreq *d = &m->u.dreq;
	struct id_priv *p = find_local(ch, d->remote_comm_id);
	struct cm_msg r;
	uint8_t mad[RNIC_MAD_BYTES];

	if (!p || p->remote_comm_id != d->local_comm_id) {
		/* nothing of ours: say it is gone (as Linux's cm_issue_drep) */
		memset(&r, 0, sizeof(r));
		cm_mad_hdr_init(&r.hdr, RNIC_CM_ATTR_DREP, m->hdr.tid);
		r.u.drep.local_comm_id = d->remote_comm_id;
		r.u.drep.remote_comm_id = d->local_comm_id;
		if (!cm_mad_encode(&r, mad))
			xmit(ch, src, mad);
		return;
	}
	switch (p->state) {
	case ST_ESTABLISHED:
	case ST_REP_SENT:
		p->deadline = 0;
		p->dreq_tid = m->hdr.tid;
		qp_to_err(p);
		p->state = ST_DREQ_RCVD;
		queue_event(ch, p, NULL, RNIC_CM_EVENT_DISCONNECTED, 0, NULL, NULL, 0);
		if (p->user_gone) {
			send_simple(ch, p, RNIC_CM_ATTR_DREP, p->dreq_tid, 1);
			enter_timewait(ch, p);
		}
		break;
	case ST_DREQ_SENT:
		/* both sides disconnect at once */
		p->dreq_tid = m->hdr.tid;
		send_simple(ch, p, RNIC_CM_ATTR_DREP, p->dreq_tid, 1);
		enter_timewait(ch, p);
		queue_event(ch, p, NULL, RNIC_CM_EVENT_DISCONNECTED, 0, NULL, NULL, 0);
		break;
	case ST_TIMEWAIT:
		if (p->have_reply)
			xmit(ch, &p->peer, p->reply); /* our DREP was lost */
		break;
	case ST_DONE:
		/* out of timewait: the connection is gone, say so again */
		send_simple(ch, p, RNIC_CM_ATTR_DREP, m->hdr.tid, 1);
		break;
	default:
		break; /* DREQ_RCVD: the program has not disconnected yet */
	}
}

static void handle_drep(struct rnic_cm_event_channel *ch, const struct cm_msg *m)
{
	struct id_priv *p = find_local(ch, m->u.drep.remote_comm_id);

	if (!p || p->remote_comm_id != m->u.drep.local_comm_id || p->state != ST_DREQ_SENT)
		return;
	enter_timewait(ch, p);
	queue_event(ch, p, NULL, RNIC_CM_EVENT_DISCONNECTED, 0, NULL, NULL, 0);
}

static void handle_mad(struct rnic_cm_event_channel *ch, const struct rnic_cm_mad_addr *src, const uint8_t *mad)
{
	struct cm_msg m;

	if (cm_mad_decode(mad, &m))
		return; /* not a CM message this CM takes */
	switch (m.hdr.attr_id) {
	case RNIC_CM_ATTR_REQ:
		handle_req(ch, src, &m);
		break;
	case RNIC_CM_ATTR_MRA:
		handle_mra(ch, &m);
		break;
	case RNIC_CM_ATTR_REJ:
		handle_rej(ch, &m);
		break;
	case RNIC_CM_ATTR_REP:
		handle_rep(ch, src, &m);
		break;
	case RNIC_CM_ATTR_RTU:
		handle_rtu(ch, &m);
		break;
	case RNIC_CM_ATTR_DREQ:
		handle_dreq(ch, src, &m);
		break;
	case RNIC_CM_ATTR_DREP:
		handle_drep(ch, &m);
		break;
	default:
		break;
	}
}

static void start_disconnect(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	qp_to_err(p);
	p->dreq_tid = new_tid(ch, p->local_comm_id);
	send_simple(ch, p, RNIC_CM_ATTR_DREQ, p->dreq_tid, 0);
	p->state = ST_DREQ_SENT;
	start_timer(ch, p, cm_time_ns(p->peer_cm_timeout) + 2 * cm_time_ns(p->id.route.packet_life_time),
		    p->max_cm_retries);
}

static void on_timer(struct rnic_cm_event_channel *ch, struct id_priv *p)
{
	p->deadline = 0;
	switch (p->state) {
	case ST_REQ_SENT:
	case ST_MRA_REQ_RCVD:
	case ST_REP_SENT:
	case ST_DREQ_SENT:
		if (p->retries_left) {
			p->retries_left--;
			if (p->state == ST_MRA_REQ_RCVD)
				p->state = ST_REQ_SENT;
			xmit(ch, &p->peer, p->sent);
			p->deadline = now(ch) + p->retry_ns;
			return;
		}
		if (p->state == ST_DREQ_SENT) {
			enter_timewait(ch, p);
			queue_event(ch, p, NULL, RNIC_CM_EVENT_DISCONNECTED, -ETIMEDOUT, NULL, NULL, 0);
			return;
		}
		send_rej_timeout(ch, p, p->state == ST_REP_SENT ? RNIC_CM_MSG_REP : RNIC_CM_MSG_REQ);
		qp_to_err(p);
		to_done(p);
		queue_event(ch, p, NULL, RNIC_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, NULL, 0);
		return;
	case ST_TIMEWAIT:
		to_done(p);
		queue_event(ch, p, NULL, RNIC_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, NULL, 0);
		return;
	default:
		return;
	}
}

static void progress(struct rnic_cm_event_channel *ch)
{
	struct rnic_cm_mad_addr src;
	uint8_t mad[RNIC_MAD_BYTES];
	int fired;

	while (ch->transport->recv(ch->transport_priv, &src, mad) == 0)
		handle_mad(ch, &src, mad);
	do {
		uint64_t t = now(ch);

		fired = 0;
		for (struct id_priv *p = ch->ids; p; p = p->next)
			if (p->deadline && p->deadline <= t) {
				on_timer(ch, p);
				fired = 1;
				break; /* the list may have changed */
			}
	} while (fired);
	/* destroyed ids whose protocol is over */
	for (struct id_priv *p = ch->ids, *n; p; p = n) {
		n = p->next;
		if (p->user_gone && (p->state == ST_DONE || p->state < ST_REQ_SENT))
			free_id(ch, p);
	}
}

/* ------------------------------------------------------------ the API */

struct rnic_cm_event_channel *rnic_cm_create_event_channel(const struct rnic_cm_channel_attr *attr)
{
	struct rnic_cm_event_channel *ch;
	struct rnic_device_attr da;

	if (!attr || !attr->context || (attr->transport && (!attr->transport->send || !attr->transport->recv))) {
		errno = EINVAL;
		return NULL;
	}
	if (rnic_query_device(attr->context, &da)) {
		errno = EIO;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->context = attr->context;
	ch->transport = attr->transport;
	ch->transport_priv = attr->transport_priv;
	ch->path_mtu = iboe_mtu(attr->if_mtu ? attr->if_mtu : 1500);
	if (!ch->path_mtu) {
		free(ch);
		errno = EINVAL;
		return NULL;
	}
	if (!ch->transport) {
		int err = rnic_cm_gsi_open(attr->context, &ch->gsi);

		if (err) {
			free(ch);
			errno = err;
			return NULL;
		}
		ch->transport = &rnic_cm_gsi_transport;
		ch->transport_priv = ch->gsi;
	}
	ch->now_ns = attr->now_ns ? attr->now_ns : clock_mono;
	ch->clock_priv = attr->clock_priv;
	ch->rng = attr->seed ? attr->seed : clock_mono(NULL) ^ (uint64_t)(uintptr_t)ch;
	if (!ch->rng)
		ch->rng = 1;
	if (attr->ca_guid) {
		ch->ca_guid = attr->ca_guid;
	} else {
		/* modified EUI-64 of the port MAC */
		ch->ca_guid = (uint64_t)(da.mac[0] ^ 2) << 56 | (uint64_t)da.mac[1] << 48 | (uint64_t)da.mac[2] << 40 |
			      0xfffeull << 24 | (uint64_t)da.mac[3] << 16 | (uint64_t)da.mac[4] << 8 | da.mac[5];
	}
	return ch;
}

int rnic_cm_destroy_event_channel(struct rnic_cm_event_channel *ch)
{
	int err = 0;

	if (!ch)
		return EINVAL;
	for (struct id_priv *p = ch->ids; p; p = p->next)
		if (!p->user_gone)
			return EBUSY;
	if (ch->events_out)
		return EBUSY;
	while (ch->ids)
		free_id(ch, ch->ids);
	while (ch->evq_head) {
		struct cm_event_priv *e = ch->evq_head;

		ch->evq_head = e->next;
		free(e);
	}
	while (ch->neigh) {
		struct neigh *n = ch->neigh;

		ch->neigh = n->next;
		free(n);
	}
	if (ch->gsi)
		err = rnic_cm_gsi_close(ch->gsi);
	free(ch);
	return err;
}

struct rnic_cm_gsi *rnic_cm_channel_gsi(struct rnic_cm_event_channel *ch)
{
	return ch ? ch->gsi : NULL;
}

int rnic_cm_set_neighbour(struct rnic_cm_event_channel *ch, const struct sockaddr *addr, const uint8_t mac[6])
{
	union rnic_gid gid;
	struct neigh *n;

	if (!ch || !addr || !mac || sa_to_gid(addr, &gid))
		return EINVAL;
	for (n = ch->neigh; n; n = n->next)
		if (!memcmp(n->gid.raw, gid.raw, 16)) {
			memcpy(n->mac, mac, 6);
			return 0;
		}
	n = calloc(1, sizeof(*n));
	if (!n)
		return ENOMEM;
	n->gid = gid;
	memcpy(n->mac, mac, 6);
	n->next = ch->neigh;
	ch->neigh = n;
	return 0;
}

int rnic_cm_create_id(struct rnic_cm_event_channel *ch, struct rnic_cm_id **id, void *context,
		      enum rnic_port_space ps)
{
	struct id_priv *p;

	if (!ch || !id || ps != RNIC_PS_TCP)
		return EINVAL;
	p = new_id(ch, context, ps);
	if (!p)
		return ENOMEM;
	*id = &p->id;
	return 0;
}

int rnic_cm_destroy_id(struct rnic_cm_id *id)
{
	struct id_priv *p = PRIV(id);
	struct rnic_cm_event_channel *ch;

	if (!id || p->user_gone)
		return EINVAL;
	ch = id->channel;
	if (p->events_out)
		return EBUSY;
	/* events not yet taken go with it */
	for (struct cm_event_priv **pp = &ch->evq_head, *prev = NULL; *pp;) {
		struct cm_event_priv *e = *pp;

		if (e->ev.id == id || e->ev.listen_id == id) {
			if (e->ev.id != id) {
				/* a connection request the program never saw */
				struct id_priv *c = PRIV(e->ev.id);

				send_rej(ch, c, &c->peer, c->tid, c->local_comm_id, c->remote_comm_id,
					 RNIC_CM_MSG_REQ, RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
				to_done(c);
				c->user_gone = 1;
			}
			*pp = e->next;
			if (ch->evq_tail == e)
				ch->evq_tail = prev;
			free(e);
		} else {
			prev = e;
			pp = &e->next;
		}
	}
	switch (p->state) {
	case ST_REQ_SENT:
	case ST_MRA_REQ_RCVD:
		send_rej_timeout(ch, p, RNIC_CM_MSG_REQ);
		qp_to_err(p);
		to_done(p);
		break;
	case ST_REQ_RCVD:
	case ST_MRA_REQ_SENT:
	case ST_REP_SENT:
	case ST_REP_RCVD:
		send_rej(ch, p, &p->peer, p->tid, p->local_comm_id, p->remote_comm_id,
			 p->state == ST_REP_RCVD ? RNIC_CM_MSG_REP : RNIC_CM_MSG_REQ, RNIC_CM_REJ_CONSUMER_DEFINED,
			 NULL, 0, NULL, 0);
		qp_to_err(p);
		to_done(p);
		break;
	case ST_ESTABLISHED:
		start_disconnect(ch, p);
		break;
	case ST_DREQ_RCVD:
		send_simple(ch, p, RNIC_CM_ATTR_DREP, p->dreq_tid, 1);
		enter_timewait(ch, p);
		break;
	default:
		break;
	}
	/* the protocol may go on, without the program's QP */
	p->user_gone = 1;
	p->id.qp = NULL;
	if (p->state == ST_DONE || p->state < ST_REQ_SENT)
		free_id(ch, p);
	return 0;
}


/* A port not bound by another id of the channel: the given one, or an
 * ephemeral one (32768..60999, Linux's default range). */
static int port_in_use(struct rnic_cm_event_channel *ch, struct id_priv *self, uint16_t port)
{
	for (struct id_priv *q = ch->ids; q; q = q->next)
		if (q != self && q->bound && !q->user_gone && q->port == port && q->listener == NULL)
			return 1;
	return 0;
}

static int bind_port(struct id_priv *p, uint16_t port)
{
	struct rnic_cm_event_channel *ch = p->id.channel;

	if (port) {
		if (port_in_use(ch, p, port))
			return EADDRINUSE;
	} else {
		for (int tries = 0;; tries++) {
			if (tries > 100000)
				return EADDRNOTAVAIL;
			port = (uint16_t)(32768 + rnd(ch) % (60999 - 32768 + 1));
			if (!port_in_use(ch, p, port))
				break;
		}
	}
	p->port = port;
	p->bound = 1;
	sa_set_port(&p->id.route.src_addr, port);
	return 0;
}

/* The port GID entry holding gid; -1 when none. */
static int find_gid(struct rnic_context *ctx, const union rnic_gid *gid)
{
	for (int i = 0; i < RNIC_GID_TABLE_SIZE; i++) {
		union rnic_gid g;

		if (!rnic_query_gid(ctx, 1, i, &g) && !memcmp(g.raw, gid->raw, 16))
			return i;
	}
	return -1;
}

/* The first entry of a family (IPv4-mapped or not), not all zero. */
static int first_gid(struct rnic_context *ctx, int v4, union rnic_gid *gid)
{
	for (int i = 0; i < RNIC_GID_TABLE_SIZE; i++)
		if (!rnic_query_gid(ctx, 1, i, gid) && !gid_is_zero(gid) && gid_is_v4(gid) == v4)
			return i;
	return -1;
}

int rnic_cm_bind_addr(struct rnic_cm_id *id, const struct sockaddr *addr)
{
	struct id_priv *p = PRIV(id);
	union rnic_gid gid;
	int idx;

	if (!id || !addr || p->state != ST_IDLE || p->bound)
		return EINVAL;
	if (sa_to_gid(addr, &gid))
		return EAFNOSUPPORT;
	memset(&id->route.src_addr, 0, sizeof(id->route.src_addr));
	memcpy(&id->route.src_addr, addr, (size_t)sa_len(addr));
	if (!sa_is_any(&id->route.src_addr)) {
		idx = find_gid(id->verbs, &gid);
		if (idx < 0)
			return EADDRNOTAVAIL;
		id->route.sgid = gid;
		id->route.sgid_index = (uint8_t)idx;
	}
	return bind_port(p, sa_port(&id->route.src_addr));
}

int rnic_cm_resolve_addr(struct rnic_cm_id *id, const struct sockaddr *src_addr, const struct sockaddr *dst_addr,
			 int timeout_ms)
{
	struct id_priv *p = PRIV(id);
	struct rnic_cm_event_channel *ch;
	union rnic_gid dgid, sgid;
	int idx, ret;

	(void)timeout_ms; /* resolution is local: it ends at once */
	if (!id || !dst_addr || p->state != ST_IDLE)
		return EINVAL;
	ch = id->channel;
	if (sa_to_gid(dst_addr, &dgid))
		return EAFNOSUPPORT;
	if (src_addr && !p->bound) {
		if (src_addr->sa_family != dst_addr->sa_family)
			return EINVAL;
		ret = rnic_cm_bind_addr(id, src_addr);
		if (ret)
			return ret;
	} else if (p->bound && id->route.src_addr.ss_family != dst_addr->sa_family) {
		return EINVAL;
	}
	memset(&id->route.dst_addr, 0, sizeof(id->route.dst_addr));
	memcpy(&id->route.dst_addr, dst_addr, (size_t)sa_len(dst_addr));
	id->route.dgid = dgid;
	if (!p->bound || sa_is_any(&id->route.src_addr)) {
		/* the source: the port's first GID of the destination's family */
		idx = first_gid(id->verbs, gid_is_v4(&dgid), &sgid);
		if (idx < 0) {
			queue_event(ch, p, NULL, RNIC_CM_EVENT_ADDR_ERROR, -EADDRNOTAVAIL, NULL, NULL, 0);
			return 0;
		}
		id->route.sgid = sgid;
		id->route.sgid_index = (uint8_t)idx;
		uint16_t port = p->bound ? p->port : 0;

		memset(&id->route.src_addr, 0, sizeof(id->route.src_addr));
		hdr_to_sa(gid_is_v4(&sgid) ? 4 : 6, sgid.raw, port, &id->route.src_addr);
		if (!p->bound && (ret = bind_port(p, 0)))
			return ret;
	}
	p->state = ST_ADDR_RESOLVED;
	queue_event(ch, p, NULL, RNIC_CM_EVENT_ADDR_RESOLVED, 0, NULL, NULL, 0);
	return 0;
}

int rnic_cm_resolve_route(struct rnic_cm_id *id, int timeout_ms)
{
	struct id_priv *p = PRIV(id);
	struct rnic_cm_event_channel *ch;

	(void)timeout_ms;
	if (!id || p->state != ST_ADDR_RESOLVED)
		return EINVAL;
	ch = id->channel;
	if (neigh_lookup(ch, &id->route.dgid, id->route.dmac)) {
		queue_event(ch, p, NULL, RNIC_CM_EVENT_ROUTE_ERROR, -EHOSTUNREACH, NULL, NULL, 0);
		return 0;
	}
	id->route.path_mtu = ch->path_mtu;
	id->route.hop_limit = RNIC_IPV4_DEFAULT_TTL;
	id->route.traffic_class = 0;
	id->route.flow_label = 0;
	id->route.packet_life_time = RNIC_RDMA_CM_PACKET_LIFETIME;
	p->state = ST_ROUTE_RESOLVED;
	queue_event(ch, p, NULL, RNIC_CM_EVENT_ROUTE_RESOLVED, 0, NULL, NULL, 0);
	return 0;
}

int rnic_cm_create_qp(struct rnic_cm_id *id, struct rnic_pd *pd, struct rnic_qp_init_attr *qp_init_attr)
{
	struct rnic_qp_attr a;
	struct rnic_qp *qp;
	int mask, ret;

	if (!id || !pd || !qp_init_attr || id->qp || qp_init_attr->qp_type != RNIC_QPT_RC ||
	    pd->context != id->verbs)
		return EINVAL;
	qp = rnic_create_qp(pd, qp_init_attr);
	if (!qp)
		return errno ? errno : EIO;
	init_attr(PRIV(id), &a, &mask);
	ret = rnic_modify_qp(qp, &a, mask);
	if (ret) {
		rnic_destroy_qp(qp);
		return ret;
	}
	id->qp = qp;
	PRIV(id)->own_qp = 1;
	return 0;
}

int rnic_cm_destroy_qp(struct rnic_cm_id *id)
{
	int ret;

	if (!id || !id->qp || !PRIV(id)->own_qp)
		return EINVAL;
	ret = rnic_destroy_qp(id->qp);
	if (ret)
		return ret;
	id->qp = NULL;
	PRIV(id)->own_qp = 0;
	return 0;
}

static int check_param(const struct rnic_cm_conn_param *c, size_t max_pdata)
{
	if (!c)
		return 0;
	if (c->private_data_len > max_pdata || (c->private_data_len && !c->private_data) || c->retry_count > 7 ||
	    c->rnr_retry_count > 7 || c->responder_resources > 16 || c->initiator_depth > 16 || c->srq)
		return EINVAL;
	return 0;
}

int rnic_cm_connect(struct rnic_cm_id *id, const struct rnic_cm_conn_param *c)
{
	struct id_priv *p = PRIV(id);
	struct rnic_cm_event_channel *ch;
	struct rnic_cm_conn_param dflt;
	struct cm_ip_hdr h;
	struct cm_msg m;
	struct cm_req *r = &m.u.req;

	if (!id || p->state != ST_ROUTE_RESOLVED ||
	    check_param(c, RNIC_CM_REQ_PRIVATE_BYTES - RNIC_RDMA_CM_HDR_BYTES))
		return EINVAL;
	if (!c) {
		memset(&dflt, 0, sizeof(dflt));
		dflt.retry_count = 7;
		dflt.rnr_retry_count = 7;
		c = &dflt;
	}
	if (!id->qp && !c->qp_num)
		return EINVAL;
	if (id->qp && id->qp->state != RNIC_QPS_INIT)
		return EINVAL;
	ch = id->channel;
	p->local_comm_id = new_comm_id(ch);
	p->tid = new_tid(ch, p->local_comm_id);
	p->local_qpn = id->qp ? id->qp->qp_num : c->qp_num;
	p->local_psn = (uint32_t)rnd(ch) & 0xffffff;
	p->resp_res = c->responder_resources;
	p->init_depth = c->initiator_depth;
	p->retry_count = c->retry_count;
	p->flow_control = 1;
	/* the REQ's local ACK timeout: 2 x packet life time (IBTA 12.7.34
	 * with a negligible CA ACK delay, as Linux's cm_ack_timeout) */
	p->ack_timeout = (uint8_t)(id->route.packet_life_time + 1 > 31 ? 31 : id->route.packet_life_time + 1);
	p->peer_cm_timeout = RNIC_RDMA_CM_RESPONSE_TIMEOUT;
	p->max_cm_retries = RNIC_RDMA_CM_MAX_CM_RETRIES;
	set_peer(p);

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, RNIC_CM_ATTR_REQ, p->tid);
	r->local_comm_id = p->local_comm_id;
	r->service_id = cm_ip_service_id((uint16_t)id->ps, sa_port(&id->route.dst_addr));
	r->local_ca_guid = ch->ca_guid;
	r->local_qpn = p->local_qpn;
	r->responder_resources = c->responder_resources;
	r->initiator_depth = c->initiator_depth;
	r->remote_cm_response_timeout = RNIC_RDMA_CM_RESPONSE_TIMEOUT;
	r->transport_type = RNIC_CM_TRANSPORT_RC;
	r->flow_control = 1;
	r->starting_psn = p->local_psn;
	r->local_cm_response_timeout = RNIC_RDMA_CM_RESPONSE_TIMEOUT;
	r->retry_count = c->retry_count;
	r->pkey = RNIC_DEFAULT_PKEY;
	r->path_mtu = (uint8_t)id->route.path_mtu;
	r->rnr_retry_count = c->rnr_retry_count;
	r->max_cm_retries = RNIC_RDMA_CM_MAX_CM_RETRIES;
	memcpy(r->primary.local_gid, id->route.sgid.raw, 16);
	memcpy(r->primary.remote_gid, id->route.dgid.raw, 16);
	r->primary.flow_label = id->route.flow_label;
	r->primary.traffic_class = id->route.traffic_class;
	r->primary.hop_limit = id->route.hop_limit;
	r->primary.subnet_local = id->route.hop_limit <= 1;
	r->primary.local_ack_timeout = p->ack_timeout;
	memset(&h, 0, sizeof(h));
	h.version = RNIC_RDMA_CM_HDR_VERSION;
	h.ip_version = id->route.src_addr.ss_family == AF_INET ? 4 : 6;
	h.src_port = p->port;
	sa_to_hdr(&id->route.src_addr, h.src_addr);
	sa_to_hdr(&id->route.dst_addr, h.dst_addr);
	cm_ip_hdr_encode(&h, r->private_data);
	if (c->private_data_len)
		memcpy(r->private_data + RNIC_RDMA_CM_HDR_BYTES, c->private_data, c->private_data_len);
	if (cm_mad_encode(&m, p->sent))
		return EINVAL;
	p->state = ST_REQ_SENT;
	xmit(ch, &p->peer, p->sent);
	start_timer(ch, p, cm_time_ns(RNIC_RDMA_CM_RESPONSE_TIMEOUT) + 2 * cm_time_ns(id->route.packet_life_time),
		    RNIC_RDMA_CM_MAX_CM_RETRIES);
	return 0;
}

int rnic_cm_init_qp_attr(struct rnic_cm_id *id, struct rnic_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct id_priv *p = PRIV(id);

	if (!id || !qp_attr || !qp_attr_mask)
		return EINVAL;
	switch (qp_attr->qp_state) {
	case RNIC_QPS_INIT:
		init_attr(p, qp_attr, qp_attr_mask);
		return 0;
	case RNIC_QPS_RTR:
	case RNIC_QPS_RTS:
		/* the peer's QPN and PSN are known: a REQ (passive) or a REP (active) came */
		if (p->state != ST_REQ_RCVD && p->state != ST_MRA_REQ_SENT && p->state != ST_REP_RCVD &&
		    p->state != ST_REP_SENT && p->state != ST_ESTABLISHED)
			return EINVAL;
		if (qp_attr->qp_state == RNIC_QPS_RTR)
			rtr_attr(p, qp_attr, qp_attr_mask);
		else
			rts_attr(p, qp_attr, qp_attr_mask);
		return 0;
	default:
		return EINVAL;
	}
}

int rnic_cm_listen(struct rnic_cm_id *id, int backlog)
{
	struct id_priv *p = PRIV(id);

	if (!id || p->state != ST_IDLE || !p->bound || !p->port)
		return EINVAL;
	for (struct id_priv *q = id->channel->ids; q; q = q->next)
		if (q != p && q->state == ST_LISTEN && q->port == p->port && !q->user_gone)
			return EADDRINUSE;
	p->backlog = backlog > 0 ? backlog : 1024;
	p->state = ST_LISTEN;
	return 0;
}

int rnic_cm_accept(struct rnic_cm_id *id, const struct rnic_cm_conn_param *c)
{
	struct id_priv *p = PRIV(id);
	struct rnic_cm_event_channel *ch;
	struct cm_msg m;
	struct cm_rep *r = &m.u.rep;
	int ret;

	if (!id || (p->state != ST_REQ_RCVD && p->state != ST_MRA_REQ_SENT) ||
	    check_param(c, RNIC_CM_REP_PRIVATE_BYTES))
		return EINVAL;
	if (!id->qp && (!c || !c->qp_num))
		return EINVAL;
	if (id->qp && id->qp->state != RNIC_QPS_INIT)
		return EINVAL;
	ch = id->channel;
	if (c) {
		/* the program's answer, bounded by what the REQ offered */
		if (c->responder_resources < p->resp_res)
			p->resp_res = c->responder_resources;
		if (c->initiator_depth < p->init_depth)
			p->init_depth = c->initiator_depth;
	}
	p->local_qpn = id->qp ? id->qp->qp_num : c->qp_num;
	if (id->qp) {
		ret = qp_to_rts(p);
		if (ret) {
			qp_to_err(p);
			send_rej(ch, p, &p->peer, p->tid, p->local_comm_id, p->remote_comm_id, RNIC_CM_MSG_REQ,
				 RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
			to_done(p);
			return ret;
		}
	}
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, RNIC_CM_ATTR_REP, p->tid);
	r->local_comm_id = p->local_comm_id;
	r->remote_comm_id = p->remote_comm_id;
	r->local_qpn = p->local_qpn;
	r->starting_psn = p->local_psn;
	r->responder_resources = p->resp_res;
	r->initiator_depth = p->init_depth;
	r->flow_control = 1;
	r->rnr_retry_count = c ? c->rnr_retry_count : 7;
	r->local_ca_guid = ch->ca_guid;
	if (c && c->private_data_len)
		memcpy(r->private_data, c->private_data, c->private_data_len);
	if (cm_mad_encode(&m, p->sent))
		return EINVAL;
	p->state = ST_REP_SENT;
	xmit(ch, &p->peer, p->sent);
	start_timer(ch, p, cm_time_ns(p->peer_cm_timeout) + 2 * cm_time_ns(id->route.packet_life_time),
		    p->max_cm_retries);
	return 0;
}

int rnic_cm_reject(struct rnic_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct id_priv *p = PRIV(id);

	if (!id || (p->state != ST_REQ_RCVD && p->state != ST_MRA_REQ_SENT && p->state != ST_REP_RCVD) ||
	    private_data_len > RNIC_CM_REJ_PRIVATE_BYTES || (private_data_len && !private_data))
		return EINVAL;
	send_rej(id->channel, p, &p->peer, p->tid, p->local_comm_id, p->remote_comm_id,
		 p->state == ST_REP_RCVD ? RNIC_CM_MSG_REP : RNIC_CM_MSG_REQ, RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0,
		 private_data, private_data_len);
	qp_to_err(p);
	to_done(p);
	return 0;
}

int rnic_cm_establish(struct rnic_cm_id *id)
{
	struct id_priv *p = PRIV(id);

	if (!id || p->state != ST_REP_RCVD)
		return EINVAL;
	send_rtu(id->channel, p);
	p->state = ST_ESTABLISHED;
	p->was_connected = 1;
	return 0;
}

int rnic_cm_disconnect(struct rnic_cm_id *id)
{
	struct id_priv *p = PRIV(id);

	if (!id)
		return EINVAL;
	switch (p->state) {
	case ST_ESTABLISHED:
		start_disconnect(id->channel, p);
		return 0;
	case ST_DREQ_RCVD:
		send_simple(id->channel, p, RNIC_CM_ATTR_DREP, p->dreq_tid, 1);
		enter_timewait(id->channel, p);
		return 0;
	case ST_DREQ_SENT:
	case ST_TIMEWAIT:
		return 0; /* already disconnecting (as rdma_disconnect after DISCONNECTED) */
	case ST_DONE:
		return p->was_connected ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

int rnic_cm_get_event(struct rnic_cm_event_channel *ch, struct rnic_cm_event **event)
{
	struct cm_event_priv *e;

	if (!ch || !event)
		return EINVAL;
	progress(ch);
	e = ch->evq_head;
	if (!e)
		return EAGAIN;
	ch->evq_head = e->next;
	if (!ch->evq_head)
		ch->evq_tail = NULL;
	e->next = NULL;
	PRIV(e->ev.id)->events_out++;
	if (e->ev.listen_id)
		PRIV(e->ev.listen_id)->events_out++;
	ch->events_out++;
	*event = &e->ev;
	return 0;
}

int rnic_cm_ack_event(struct rnic_cm_event *event)
{
	struct cm_event_priv *e = (struct cm_event_priv *)event;

	if (!event)
		return EINVAL;
	PRIV(event->id)->events_out--;
	if (event->listen_id)
		PRIV(event->listen_id)->events_out--;
	event->id->channel->events_out--;
	free(e);
	return 0;
}

int rnic_cm_next_timeout(struct rnic_cm_event_channel *ch, uint64_t *when_ns)
{
	uint64_t t = 0;

	if (!ch || !when_ns)
		return EINVAL;
	for (struct id_priv *p = ch->ids; p; p = p->next)
		if (p->deadline && (!t || p->deadline < t))
			t = p->deadline;
	if (!t)
		return ENOENT;
	*when_ns = t;
	return 0;
}

const char *rnic_cm_event_str(enum rnic_cm_event_type event)
{
	/* the strings of rdma_event_str */
	static const char *const s[] = {
		[RNIC_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RNIC_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RNIC_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RNIC_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RNIC_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RNIC_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RNIC_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RNIC_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RNIC_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RNIC_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RNIC_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RNIC_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RNIC_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RNIC_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RNIC_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RNIC_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(s) / sizeof(s[0]))
		return s[event];
	return "UNKNOWN EVENT";
}

const char *rnic_cm_reject_reason_str(int reason)
{
	/* IBTA Vol. 1 table 109, the strings of Linux's ibcm_rej_reason_strs */
	switch (reason) {
	case RNIC_CM_REJ_NO_QP: return "no QP";
	case RNIC_CM_REJ_NO_EEC: return "no EEC";
	case RNIC_CM_REJ_NO_RESOURCES: return "no resources";
	case RNIC_CM_REJ_TIMEOUT: return "timeout";
	case RNIC_CM_REJ_UNSUPPORTED: return "unsupported";
	case RNIC_CM_REJ_INVALID_COMM_ID: return "invalid comm ID";
	case RNIC_CM_REJ_INVALID_COMM_INSTANCE: return "invalid comm instance";
	case RNIC_CM_REJ_INVALID_SERVICE_ID: return "invalid service ID";
	case RNIC_CM_REJ_INVALID_TRANSPORT_TYPE: return "invalid transport type";
	case RNIC_CM_REJ_STALE_CONN: return "stale conn";
	case RNIC_CM_REJ_RDC_NOT_EXIST: return "RDC not exist";
	case RNIC_CM_REJ_INVALID_GID: return "invalid GID";
	case RNIC_CM_REJ_INVALID_LID: return "invalid LID";
	case RNIC_CM_REJ_INVALID_SL: return "invalid SL";
	case RNIC_CM_REJ_INVALID_TRAFFIC_CLASS: return "invalid traffic class";
	case RNIC_CM_REJ_INVALID_HOP_LIMIT: return "invalid hop limit";
	case RNIC_CM_REJ_INVALID_PACKET_RATE: return "invalid packet rate";
	case RNIC_CM_REJ_INVALID_ALT_GID: return "invalid alt GID";
	case RNIC_CM_REJ_INVALID_ALT_LID: return "invalid alt LID";
	case RNIC_CM_REJ_INVALID_ALT_SL: return "invalid alt SL";
	case RNIC_CM_REJ_INVALID_ALT_TRAFFIC_CLASS: return "invalid alt traffic class";
	case RNIC_CM_REJ_INVALID_ALT_HOP_LIMIT: return "invalid alt hop limit";
	case RNIC_CM_REJ_INVALID_ALT_PACKET_RATE: return "invalid alt packet rate";
	case RNIC_CM_REJ_PORT_CM_REDIRECT: return "port CM redirect";
	case RNIC_CM_REJ_PORT_REDIRECT: return "port redirect";
	case RNIC_CM_REJ_INVALID_MTU: return "invalid MTU";
	case RNIC_CM_REJ_INSUFFICIENT_RESP_RESOURCES: return "insufficient resp resources";
	case RNIC_CM_REJ_CONSUMER_DEFINED: return "consumer defined";
	case RNIC_CM_REJ_INVALID_RNR_RETRY: return "invalid RNR retry";
	case RNIC_CM_REJ_DUPLICATE_LOCAL_COMM_ID: return "duplicate local comm ID";
	case RNIC_CM_REJ_INVALID_CLASS_VERSION: return "invalid class version";
	case RNIC_CM_REJ_INVALID_FLOW_LABEL: return "invalid flow label";
	case RNIC_CM_REJ_INVALID_ALT_FLOW_LABEL: return "invalid alt flow label";
	default: return "unrecognized reason";
	}
}
