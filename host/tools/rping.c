/* rping's exchange on the connection manager; see rping.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rping.h"

#define WR_RECV 1
#define WR_SEND 2
#define WR_RDMA 3

static int fail(struct rping *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->state = RPING_ERROR;
	return 1;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* rping_format_send: {buf, rkey, size} of a buffer, big-endian */
static void format_send(struct rping *r, const char *buf, const struct rnic_mr *mr)
{
	put_be(r->send_buf, (uint64_t)(uintptr_t)buf, 8);
	put_be(r->send_buf + 8, mr->rkey, 4);
	put_be(r->send_buf + 12, (uint32_t)r->size, 4);
}

static int post_recv(struct rping *r)
{
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)r->recv_buf, RPING_INFO_BYTES, r->recv_mr->lkey};
	struct rnic_recv_wr wr = {WR_RECV, NULL, &sge, 1}, *bad;

	return rnic_post_recv(r->qp, &wr, &bad);
}

static int post_send(struct rping *r)
{
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)r->send_buf, RPING_INFO_BYTES, r->send_mr->lkey};
	struct rnic_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_SEND;
	wr.send_flags = RNIC_SEND_SIGNALED;
	return rnic_post_send(r->qp, &wr, &bad);
}

static int post_rdma(struct rping *r, uint32_t opcode, uint32_t len)
{
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)r->rdma_buf, len, r->rdma_mr->lkey};
	struct rnic_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_RDMA;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = r->remote_addr;
	wr.wr.rdma.rkey = r->remote_rkey;
	return rnic_post_send(r->qp, &wr, &bad);
}

/* PD, CQ, QP (rdma_create_qp) and the registered buffers of a connection. */
static int setup(struct rping *r, struct rnic_cm_id *id)
{
	struct rnic_qp_init_attr ia;
	int err;

	r->id = id;
	r->pd = rnic_alloc_pd(id->verbs);
	if (!r->pd)
		return errno;
	r->cq = rnic_create_cq(id->verbs, RPING_SQ_DEPTH * 2);
	if (!r->cq)
		return errno;
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = RPING_SQ_DEPTH;
	ia.cap.max_recv_wr = 2;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_send_sge = 1;
	ia.qp_type = RNIC_QPT_RC;
	ia.send_cq = r->cq;
	ia.recv_cq = r->cq;
	if ((err = rnic_cm_create_qp(id, r->pd, &ia)))
		return err;
	r->qp = id->qp;
	r->recv_mr = rnic_reg_mr(r->pd, r->recv_buf, RPING_INFO_BYTES, RNIC_ACCESS_LOCAL_WRITE);
	r->send_mr = rnic_reg_mr(r->pd, r->send_buf, RPING_INFO_BYTES, 0);
	r->rdma_buf = calloc(1, (size_t)r->size);
	if (!r->recv_mr || !r->send_mr || !r->rdma_buf)
		return errno ? errno : ENOMEM;
	r->rdma_mr = rnic_reg_mr(r->pd, r->rdma_buf, (size_t)r->size,
				 RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE);
	if (!r->rdma_mr)
		return errno;
	if (!r->server) {
		r->start_buf = calloc(1, (size_t)r->size);
		if (!r->start_buf)
			return ENOMEM;
		r->start_mr = rnic_reg_mr(r->pd, r->start_buf, (size_t)r->size,
					  RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE);
		if (!r->start_mr)
			return errno;
	}
	return post_recv(r);
}

static void init_conn_param(struct rnic_cm_conn_param *p)
{
	/* rping_init_conn_param */
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* The client's next ping: the start buffer as rping fills it, then its
 * {addr, rkey, len}. */
static int client_ping(struct rping *r)
{
	int cc = snprintf(r->start_buf, (size_t)r->size, RPING_MSG_FMT, r->pings);
	unsigned char c = (unsigned char)r->start_char;

	for (int i = cc; i < r->size; i++) {
		r->start_buf[i] = (char)c;
		if (++c > 122)
			c = 65;
	}
	if (++r->start_char > 122)
		r->start_char = 65;
	r->start_buf[r->size - 1] = 0;
	r->state = RPING_RDMA_READ_ADV;
	format_send(r, r->start_buf, r->start_mr);
	return post_send(r);
}

static int cm_events(struct rping *r)
{
	struct rnic_cm_event *e;
	struct rnic_cm_conn_param p;
	int err = 0, over = 0;

	while (!over && rnic_cm_get_event(r->ch, &e) == 0) {
		enum rnic_cm_event_type t = e->event;
		struct rnic_cm_id *id = e->id;
		int status = e->status;

		rnic_cm_ack_event(e);
		switch (t) {
		case RNIC_CM_EVENT_ADDR_RESOLVED:
			r->state = RPING_ADDR_RESOLVED;
			if ((err = rnic_cm_resolve_route(id, 2000)))
				return fail(r, "rnic_cm_resolve_route: %s", strerror(err));
			break;
		case RNIC_CM_EVENT_ROUTE_RESOLVED:
			r->state = RPING_ROUTE_RESOLVED;
			if ((err = setup(r, id)))
				return fail(r, "setting up the QP and buffers: %s", strerror(err));
			init_conn_param(&p);
			if ((err = rnic_cm_connect(id, &p)))
				return fail(r, "rnic_cm_connect: %s", strerror(err));
			break;
		case RNIC_CM_EVENT_CONNECT_REQUEST:
			if (r->id) { /* one connection at a time, as rping without -P */
				rnic_cm_reject(id, NULL, 0);
				break;
			}
			r->state = RPING_CONNECT_REQUEST;
			if ((err = setup(r, id)))
				return fail(r, "setting up the QP and buffers: %s", strerror(err));
			init_conn_param(&p);
			if ((err = rnic_cm_accept(id, &p)))
				return fail(r, "rnic_cm_accept: %s", strerror(err));
			break;
		case RNIC_CM_EVENT_ESTABLISHED:
			if (!r->server) {
				r->state = RPING_CONNECTED;
				if ((err = client_ping(r)))
					return fail(r, "post_send: %s", strerror(err));
			}
			break;
		case RNIC_CM_EVENT_DISCONNECTED:
			r->state = RPING_DISCONNECTED;
			rnic_cm_disconnect(id); /* the DREP (the client's second call does nothing) */
			r->done = 1;
			over = 1;
			break;
		case RNIC_CM_EVENT_ADDR_ERROR:
		case RNIC_CM_EVENT_ROUTE_ERROR:
		case RNIC_CM_EVENT_CONNECT_ERROR:
		case RNIC_CM_EVENT_UNREACHABLE:
		case RNIC_CM_EVENT_REJECTED:
			return fail(r, "cma event %s, error %d", rnic_cm_event_str(t), status);
		default:
			break;
		}
	}
	return over;
}

static int completion(struct rping *r, const struct rnic_wc *wc)
{
	int err;

	if (wc->status == RNIC_WC_WR_FLUSH_ERR)
		return 0;
	if (wc->status)
		return fail(r, "cq completion failed status %u (%s)", wc->status, rnic_wc_status_str(wc->status));
	switch (wc->opcode) {
	case RNIC_WC_SEND:
		return 0;
	case RNIC_WC_RDMA_READ:
		/* the ping is here: tell the client to continue */
		r->state = RPING_RDMA_READ_COMPLETE;
		snprintf(r->last, sizeof(r->last), "%s", r->rdma_buf);
		if ((err = post_send(r)))
			return fail(r, "post_send: %s", strerror(err));
		return 0;
	case RNIC_WC_RDMA_WRITE:
		/* the pong is written: tell the client to begin again */
		r->state = RPING_RDMA_WRITE_COMPLETE;
		r->pings++;
		if ((err = post_send(r)))
			return fail(r, "post_send: %s", strerror(err));
		return 0;
	case RNIC_WC_RECV:
		if (wc->byte_len != RPING_INFO_BYTES)
			return fail(r, "Received bogus data, size %u", wc->byte_len);
		if (r->server) {
			r->remote_addr = get_be(r->recv_buf, 8);
			r->remote_rkey = (uint32_t)get_be(r->recv_buf + 8, 4);
			r->remote_len = (uint32_t)get_be(r->recv_buf + 12, 4);
			if (r->remote_len > (uint32_t)r->size)
				return fail(r, "the peer's buffer (%u bytes) is larger than ours (%d)", r->remote_len,
					    r->size);
		}
		if ((err = post_recv(r)))
			return fail(r, "post_recv: %s", strerror(err));
		if (r->server) {
			if (r->state <= RPING_CONNECTED || r->state == RPING_CONNECT_REQUEST ||
			    r->state == RPING_RDMA_WRITE_COMPLETE) {
				/* the client's start buffer: read it */
				r->state = RPING_RDMA_READ_ADV;
				err = post_rdma(r, RNIC_WR_RDMA_READ, r->remote_len);
			} else {
				/* the client's sink: write the ping back */
				r->state = RPING_RDMA_WRITE_ADV;
				err = post_rdma(r, RNIC_WR_RDMA_WRITE, (uint32_t)strlen(r->rdma_buf) + 1);
			}
			if (err)
				return fail(r, "post_send: %s", strerror(err));
			return 0;
		}
		if (r->state == RPING_RDMA_READ_ADV) {
			/* the server has read the ping: offer the sink */
			r->state = RPING_RDMA_WRITE_ADV;
			format_send(r, r->rdma_buf, r->rdma_mr);
			if ((err = post_send(r)))
				return fail(r, "post_send: %s", strerror(err));
			return 0;
		}
		r->state = RPING_RDMA_WRITE_COMPLETE;
		if (r->validate && memcmp(r->start_buf, r->rdma_buf, (size_t)r->size))
			return fail(r, "data mismatch in ping %d", r->pings);
		snprintf(r->last, sizeof(r->last), "%s", r->rdma_buf);
		r->pings++;
		if (r->count && r->pings == r->count) {
			if ((err = rnic_cm_disconnect(r->id)))
				return fail(r, "rnic_cm_disconnect: %s", strerror(err));
			return 0;
		}
		if ((err = client_ping(r)))
			return fail(r, "post_send: %s", strerror(err));
		return 0;
	default:
		return fail(r, "unknown completion opcode 0x%x", wc->opcode);
	}
}

int rping_poll(struct rping *r)
{
	struct rnic_wc wc[4];
	int n;

	if (r->state == RPING_ERROR || r->done)
		return 1;
	if (cm_events(r))
		return 1;
	if (!r->cq)
		return 0;
	while ((n = rnic_poll_cq(r->cq, 4, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (completion(r, &wc[i]))
				return 1;
	if (n < 0)
		return fail(r, "rnic_poll_cq: %s", strerror(-n));
	return 0;
}

static int start(struct rping *r, struct rnic_cm_event_channel *ch, int size)
{
	memset(r, 0, sizeof(*r));
	if (size < RPING_MIN_SIZE || size > RPING_MAX_SIZE)
		return EINVAL;
	r->ch = ch;
	r->size = size;
	r->state = RPING_IDLE;
	r->start_char = 65;
	return 0;
}

int rping_start_server(struct rping *r, struct rnic_cm_event_channel *ch, const struct sockaddr *addr, int size)
{
	int err = start(r, ch, size);

	if (err)
		return err;
	r->server = 1;
	if ((err = rnic_cm_create_id(ch, &r->listen_id, r, RNIC_PS_TCP)))
		return err;
	if ((err = rnic_cm_bind_addr(r->listen_id, addr)))
		return err;
	return rnic_cm_listen(r->listen_id, 3);
}

int rping_start_client(struct rping *r, struct rnic_cm_event_channel *ch, const struct sockaddr *addr, int size,
		       int count, int validate)
{
	int err = start(r, ch, size);
	struct rnic_cm_id *id;

	if (err)
		return err;
	r->count = count;
	r->validate = validate;
	if ((err = rnic_cm_create_id(ch, &id, r, RNIC_PS_TCP)))
		return err;
	r->id = id;
	return rnic_cm_resolve_addr(id, NULL, addr, 2000);
}

void rping_close(struct rping *r)
{
	if (r->id && r->qp)
		rnic_cm_destroy_qp(r->id);
	if (r->id)
		rnic_cm_destroy_id(r->id);
	if (r->listen_id)
		rnic_cm_destroy_id(r->listen_id);
	if (r->start_mr)
		rnic_dereg_mr(r->start_mr);
	if (r->rdma_mr)
		rnic_dereg_mr(r->rdma_mr);
	if (r->send_mr)
		rnic_dereg_mr(r->send_mr);
	if (r->recv_mr)
		rnic_dereg_mr(r->recv_mr);
	if (r->cq)
		rnic_destroy_cq(r->cq);
	if (r->pd)
		rnic_dealloc_pd(r->pd);
	free(r->start_buf);
	free(r->rdma_buf);
	memset(r, 0, sizeof(*r));
}
