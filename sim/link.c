/* OpenRNIC simulator: the Ethernet between the NICs.
 *
 * Each NIC port has a MAC: it takes frames from the core's m_axis_tx (store
 * and forward; frames shorter than 60 bytes are zero-padded to 60 as a MAC
 * pads them) and serializes them at the line rate, each frame costing
 * len + 24 bytes of wire time (8 preamble/SFD, 4 FCS, 12 IFG), exactly, with
 * fractional rates carried from frame to frame. tready drops while the MAC
 * holds tx_fifo bytes or more of complete frames, and rises again as the
 * wire drains them (a frame being received is never counted, so tready
 * cannot stay low forever).
 *
 * A frame whose serialization ends in cycle d arrives at the far end of the
 * cable at cycle d + 1 + latency. With two ports the far end is the other
 * NIC; otherwise it is a learning switch that floods unknown and group
 * destinations, filters a frame back to its own port, and serializes each
 * copy again on the egress port (no extra latency after it; unbounded switch
 * buffers). A frame is delivered into the receiving core's s_axis_rx at full
 * width, one beat per cycle, from its arrival cycle on; if the core holds
 * tready low the beat is held and the cycle counted.
 *
 * Faults are drawn per frame at the end of the sender's serialization from a
 * per-port splitmix64 stream (seeded from cfg.seed and the port number;
 * always five draws per frame, so the streams do not depend on outcomes):
 * corrupt (flip one bit), drop, reorder (hold it back and release it right
 * behind the next frame from the same port, or after reorder_hold_max
 * cycles), duplicate (a second copy right behind it).
 *
 * Flow control (cfg.pause_quanta != 0): each MAC implements IEEE 802.3
 * Annex 31B. When the core raises mac_pause_req the MAC sends a PAUSE frame
 * asking for pause_quanta quanta (512 bit times each), again every
 * pause_quanta / 2 quanta while the request stays high, and a PAUSE of 0
 * quanta when it falls. A PAUSE frame is sent next, ahead of the data frames
 * the MAC holds (after the frame on the wire), even while the MAC itself is
 * paused; its source address is the one of the last frame the core sent.
 * A MAC that receives a PAUSE frame starts no data frame until pause_time
 * quanta at its line rate have passed since the frame's last bit arrived (a
 * later PAUSE replaces the time, 0 resumes at once). Every MAC Control frame
 * (EtherType 0x8808) is consumed by the receiving MAC, never delivered to the
 * core nor forwarded by the switch; one that was corrupted on the wire is
 * discarded, as its FCS would fail. The switch honours PAUSE from a NIC on
 * that NIC's egress port and never sends one (its buffers are unbounded).
 * MAC Control frames take their fault draws like any frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

struct frame {
	struct frame *next;
	uint64_t t; /* earliest cycle for the next stage */
	uint32_t len;
	uint8_t corrupt; /* a bit was flipped on the wire (its FCS would fail) */
	uint8_t data[];
};

struct fq {
	struct frame *head, *tail;
	unsigned int count;
};

struct serializer {
	struct fq q;
	struct frame *ctl;       /* MAC Control frame to send next */
	uint64_t paused_until;   /* no data frame starts before this cycle */
	struct frame *cur;
	uint64_t need, progress; /* milli-bytes */
	uint64_t queued_bytes;   /* frame bytes in q and cur */
};

struct port {
	uint8_t *cap_buf;
	uint32_t cap_len;
	int cap_overflow;
	struct serializer tx; /* NIC -> cable */
	struct fq flight;     /* on the cable, t = arrival */
	struct frame *held;
	uint64_t held_deadline;
	uint64_t rng;
	struct serializer eg; /* switch egress -> NIC */
	link_ext_fn ext;      /* not NULL: the far end is outside the world */
	void *ext_arg;
	struct fq rxq;        /* t = first cycle it may be presented */
	uint32_t rx_off;
	uint8_t pause_req;    /* the core's mac_pause_req, as last sampled */
	uint64_t refresh_at;  /* next XOFF refresh while pause_req stays high */
	uint8_t sa[6];        /* station address: source of the last frame sent */
	struct rnic_sim_port_stats st;
};

#define MAC_TABLE 256

struct link {
	struct link_cfg cfg;
	struct port *ports;
	struct {
		uint8_t mac[6];
		unsigned int port;
	} macs[MAC_TABLE];
	unsigned int nmacs;
	struct rnic_sim_link_stats st;
	link_frame_fn frame_fn;
	link_frame_fn rx_fn;
	void *rx_arg;
	void *frame_arg;
	link_drop_fn drop_fn;
	void *drop_arg;
};

/* -------------------------------------------------------------- frames */

static struct frame *frame_new(const uint8_t *data, size_t len, uint64_t t)
{
	size_t alloc = len < LINK_MIN_FRAME ? LINK_MIN_FRAME : len;
	struct frame *f = calloc(1, sizeof(*f) + alloc);

	if (!f)
		return NULL;
	memcpy(f->data, data, len);
	f->len = (uint32_t)alloc;
	f->t = t;
	return f;
}

static void fq_push(struct fq *q, struct frame *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->count++;
}

static struct frame *fq_pop(struct fq *q)
{
	struct frame *f = q->head;

	if (!f)
		return NULL;
	q->head = f->next;
	if (!q->head)
		q->tail = NULL;
	q->count--;
	f->next = NULL;
	return f;
}

static void fq_free(struct fq *q)
{
	struct frame *f;

	while ((f = fq_pop(q)))
		free(f);
}

/* ---------------------------------------------------------------- setup */

struct link *link_create(const struct link_cfg *cfg)
{
	struct link *l;

	if (!cfg || cfg->ports == 0 || cfg->bus_bytes == 0 ||
	    cfg->bus_bytes > RNIC_MODEL_MAX_BYTES)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cfg = *cfg;
	l->ports = calloc(cfg->ports, sizeof(*l->ports));
	if (!l->ports) {
		free(l);
		return NULL;
	}
	for (unsigned int i = 0; i < cfg->ports; i++) {
		struct port *p = &l->ports[i];
		uint64_t s = cfg->seed ^ (0x6c696e6bull << 32) ^ i;

		p->cap_buf = malloc(LINK_MAX_FRAME);
		if (!p->cap_buf) {
			link_destroy(l);
			return NULL;
		}
		p->rng = sim_rand64(&s);
	}
	return l;
}

static void ser_free(struct serializer *s)
{
	fq_free(&s->q);
	free(s->cur);
	free(s->ctl);
	s->cur = NULL;
	s->ctl = NULL;
}

void link_destroy(struct link *l)
{
	if (!l)
		return;
	for (unsigned int i = 0; i < l->cfg.ports; i++) {
		struct port *p = &l->ports[i];

		free(p->cap_buf);
		ser_free(&p->tx);
		ser_free(&p->eg);
		fq_free(&p->flight);
		fq_free(&p->rxq);
		free(p->held);
	}
	free(l->ports);
	free(l);
}

void link_set_frame_fn(struct link *l, link_frame_fn fn, void *arg)
{
	l->frame_fn = fn;
	l->frame_arg = arg;
}

void link_set_drop_fn(struct link *l, link_drop_fn fn, void *arg)
{
	l->drop_fn = fn;
	l->drop_arg = arg;
}

void link_set_rx_fn(struct link *l, link_frame_fn fn, void *arg)
{
	l->rx_fn = fn;
	l->rx_arg = arg;
}

/* ------------------------------------------------------- MAC Control */

/* 01-80-C2-00-00-01: where PAUSE frames go (never forwarded by bridges) */
static const uint8_t pause_da[6] = {
	(RNIC_MAC_CTRL_PAUSE_DA_HI >> 16) & 0xff, (RNIC_MAC_CTRL_PAUSE_DA_HI >> 8) & 0xff,
	RNIC_MAC_CTRL_PAUSE_DA_HI & 0xff, (RNIC_MAC_CTRL_PAUSE_DA_LO >> 16) & 0xff,
	(RNIC_MAC_CTRL_PAUSE_DA_LO >> 8) & 0xff, RNIC_MAC_CTRL_PAUSE_DA_LO & 0xff,
};

/* Wire cycles of n pause quanta at the line rate, rounded up. */
static uint64_t quanta_cycles(const struct link *l, uint64_t n)
{
	uint64_t milli_bytes = n * (RNIC_PAUSE_QUANTUM_BITS / 8) * 1000u;

	if (!l->cfg.rate_milli)
		return 0;
	return (milli_bytes + l->cfg.rate_milli - 1) / l->cfg.rate_milli;
}

static int is_mac_ctrl(const uint8_t *d, size_t len)
{
	return len >= 14 && ((unsigned int)d[12] << 8 | d[13]) == RNIC_ETHERTYPE_MAC_CTRL;
}

/* A PAUSE frame's pause_time, or -1 if the frame is no PAUSE. */
static int pause_time(const uint8_t *d, size_t len)
{
	if (len < 18 || !is_mac_ctrl(d, len) || memcmp(d, pause_da, sizeof(pause_da)) ||
	    ((unsigned int)d[14] << 8 | d[15]) != RNIC_MAC_CTRL_OP_PAUSE)
		return -1;
	return (int)((unsigned int)d[16] << 8 | d[17]);
}

size_t rnic_sim_pause_frame(uint8_t *buf, const uint8_t sa[6], unsigned int quanta)
{
	memset(buf, 0, LINK_MIN_FRAME);
	memcpy(buf, pause_da, sizeof(pause_da));
	memcpy(&buf[6], sa, 6);
	buf[12] = RNIC_ETHERTYPE_MAC_CTRL >> 8;
	buf[13] = RNIC_ETHERTYPE_MAC_CTRL & 0xff;
	buf[14] = RNIC_MAC_CTRL_OP_PAUSE >> 8;
	buf[15] = RNIC_MAC_CTRL_OP_PAUSE & 0xff;
	buf[16] = (uint8_t)(quanta >> 8);
	buf[17] = (uint8_t)quanta;
	return LINK_MIN_FRAME;
}

/* Queue a PAUSE frame of `quanta` to go out next (it replaces one not yet
 * started: the newer request is the one that counts; ser_start counts the
 * frames as they go on the wire). */
static void pause_send(struct port *p, uint64_t cycle, unsigned int quanta)
{
	uint8_t d[LINK_MIN_FRAME];
	struct frame *f;

	f = frame_new(d, rnic_sim_pause_frame(d, p->sa, quanta), cycle);
	if (!f)
		return;
	if (p->tx.ctl) {
		p->tx.queued_bytes -= p->tx.ctl->len;
		free(p->tx.ctl);
	}
	p->tx.ctl = f;
	p->tx.queued_bytes += f->len;
}

/* The core's pause request, sampled at each edge. */
static void pause_request(struct link *l, struct port *p, uint64_t cycle, int req)
{
	uint64_t q = l->cfg.pause_quanta;

	if (!q)
		return;
	if (req && (!p->pause_req || cycle >= p->refresh_at)) {
		pause_send(p, cycle, (unsigned int)q);
		p->refresh_at = cycle + quanta_cycles(l, q / 2 ? q / 2 : 1);
	} else if (!req && p->pause_req) {
		pause_send(p, cycle, 0);
	}
	p->pause_req = (uint8_t)req;
}

/* A MAC Control frame at the MAC that receives it (the serializer s is the
 * one that sends toward the frame's sender). Returns 1 if it was one. */
static int mac_ctrl_rx(struct link *l, struct port *p, struct serializer *s,
		       const struct frame *f, uint64_t cycle)
{
	int t;

	if (!l->cfg.pause_quanta || !is_mac_ctrl(f->data, f->len))
		return 0;
	t = pause_time(f->data, f->len);
	if (f->corrupt || t < 0) {
		p->st.rx_mac_ctrl_dropped++;
		return 1;
	}
	p->st.rx_pause_frames++;
	s->paused_until = cycle + quanta_cycles(l, (uint64_t)t);
	return 1;
}

/* ------------------------------------------------------------ TX and RX */

void link_drive(struct link *l, unsigned int port, uint64_t cycle, struct rnic_core_in *in)
{
	struct port *p = &l->ports[port];
	const struct frame *f = p->rxq.head;

	in->m_axis_tx_tready = p->tx.queued_bytes < l->cfg.tx_fifo;
	memset(in->s_axis_rx_tdata, 0, sizeof(in->s_axis_rx_tdata));
	in->s_axis_rx_tkeep = 0;
	in->s_axis_rx_tvalid = 0;
	in->s_axis_rx_tlast = 0;
	in->s_axis_rx_tuser = 0;
	if (f && f->t <= cycle) {
		uint32_t n = f->len - p->rx_off;

		if (n > l->cfg.bus_bytes)
			n = l->cfg.bus_bytes;
		memcpy(in->s_axis_rx_tdata, &f->data[p->rx_off], n);
		in->s_axis_rx_tkeep = n >= 64 ? ~0ull : (1ull << n) - 1;
		in->s_axis_rx_tvalid = 1;
		in->s_axis_rx_tlast = p->rx_off + n == f->len;
	}
}

void link_edge(struct link *l, unsigned int port, uint64_t cycle,
	       const struct rnic_core_in *in, const struct rnic_core_out *out)
{
	struct port *p = &l->ports[port];

	/* RX: the core takes a beat */
	if (in->s_axis_rx_tvalid) {
		if (out->s_axis_rx_tready) {
			if (p->rx_off == 0 && l->rx_fn)
				l->rx_fn(l->rx_arg, (int)port, p->rxq.head->data, p->rxq.head->len,
					 cycle);
			if (in->s_axis_rx_tlast) {
				struct frame *f = fq_pop(&p->rxq);

				p->st.rx_frames++;
				p->st.rx_bytes += f->len;
				free(f);
				p->rx_off = 0;
			} else {
				p->rx_off += l->cfg.bus_bytes;
			}
		} else {
			p->st.rx_backpressure_cycles++;
		}
	}

	/* TX: the MAC takes a beat */
	if (out->m_axis_tx_tvalid && !in->m_axis_tx_tready)
		p->st.tx_backpressure_cycles++;
	if (out->m_axis_tx_tvalid && in->m_axis_tx_tready) {
		for (unsigned int i = 0; i < l->cfg.bus_bytes; i++) {
			if (!((out->m_axis_tx_tkeep >> i) & 1))
				continue;
			if (p->cap_len == LINK_MAX_FRAME) {
				p->cap_overflow = 1;
				break;
			}
			p->cap_buf[p->cap_len++] = out->m_axis_tx_tdata[i];
		}
		if (out->m_axis_tx_tlast) {
			struct frame *f = NULL;

			if (!out->m_axis_tx_tuser && !p->cap_overflow && p->cap_len)
				f = frame_new(p->cap_buf, p->cap_len, cycle);
			if (f) {
				memcpy(p->sa, &f->data[6], sizeof(p->sa));
				fq_push(&p->tx.q, f);
				p->tx.queued_bytes += f->len;
				p->st.tx_frames++;
				p->st.tx_bytes += f->len;
			} else {
				p->st.tx_bad_frames++;
			}
			p->cap_len = 0;
			p->cap_overflow = 0;
		}
	}

	pause_request(l, p, cycle, out->mac_pause_req != 0);
}

/* --------------------------------------------------------- the wire */

static uint64_t wire_cost(const struct frame *f)
{
	return (uint64_t)(f->len + LINK_WIRE_OVERHEAD) * 1000u;
}

static void ser_start(struct serializer *s, uint64_t cycle, struct rnic_sim_port_stats *st,
		      uint64_t *paused_cycles)
{
	if (s->cur)
		return;
	if (s->ctl) {
		s->cur = s->ctl;
		s->ctl = NULL;
		if (pause_time(s->cur->data, s->cur->len) > 0)
			st->tx_xoff_frames++;
		else
			st->tx_xon_frames++;
	} else if (s->q.head && s->q.head->t <= cycle) {
		if (cycle < s->paused_until) {
			(*paused_cycles)++;
			return;
		}
		s->cur = fq_pop(&s->q);
	} else {
		return;
	}
	s->need = wire_cost(s->cur);
}

/* Serialize for one cycle; calls done(f) for each frame finished in it. */
static void ser_tick(struct link *l, unsigned int port, struct serializer *s, uint64_t cycle,
		     void (*done)(struct link *, unsigned int, struct frame *, uint64_t))
{
	struct rnic_sim_port_stats *st = &l->ports[port].st;
	uint64_t *paused = s == &l->ports[port].tx ? &st->tx_paused_cycles : &st->eg_paused_cycles;

	ser_start(s, cycle, st, paused);
	if (!s->cur) {
		s->progress = 0; /* an idle wire banks no time */
		return;
	}
	s->progress += l->cfg.rate_milli ? l->cfg.rate_milli : s->need;
	while (s->cur && s->progress >= s->need) {
		struct frame *f = s->cur;

		s->progress -= s->need;
		s->queued_bytes -= f->len;
		s->cur = NULL;
		done(l, port, f, cycle);
		ser_start(s, cycle, st, paused);
		if (!s->cur)
			s->progress = 0;
	}
}

static void flight_push(struct port *p, struct frame *f, uint64_t t)
{
	f->t = t;
	fq_push(&p->flight, f);
}

/* End of the sender's serialization: faults, then onto the cable. */
static void tx_done(struct link *l, unsigned int port, struct frame *f, uint64_t cycle)
{
	struct port *p = &l->ports[port];
	double u_cor = sim_rand_unit(&p->rng);
	double u_drop = sim_rand_unit(&p->rng);
	double u_reo = sim_rand_unit(&p->rng);
	double u_dup = sim_rand_unit(&p->rng);
	uint64_t bit = sim_rand64(&p->rng);
	uint64_t t = cycle + 1 + l->cfg.latency;

	/* an XOFF the faults hit arrives late or not at all: the peer sends on
	 * until the next refresh, and may overrun this NIC's receive FIFO */
	if (is_mac_ctrl(f->data, f->len) && pause_time(f->data, f->len) > 0 &&
	    (u_cor < l->cfg.p_corrupt || u_drop < l->cfg.p_drop || (!p->held && u_reo < l->cfg.p_reorder)))
		p->st.tx_xoff_faulted++;
	if (u_cor < l->cfg.p_corrupt) {
		bit %= (uint64_t)f->len * 8;
		f->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		f->corrupt = 1;
		l->st.corrupted++;
	}
	if (u_drop < l->cfg.p_drop || (l->drop_fn && l->drop_fn(l->drop_arg, port, f->data, f->len))) {
		l->st.dropped++;
		free(f);
		return;
	}
	if (!p->held && u_reo < l->cfg.p_reorder) {
		p->held = f;
		p->held_deadline = t + l->cfg.reorder_hold_max;
		l->st.reordered++;
		return;
	}
	flight_push(p, f, t);
	if (u_dup < l->cfg.p_dup) {
		struct frame *c = frame_new(f->data, f->len, t);

		if (c) {
			flight_push(p, c, t);
			l->st.duplicated++;
		}
	}
	if (p->held) {
		flight_push(p, p->held, t);
		p->held = NULL;
	}
}

/* End of a switch egress serialization: into the NIC's RX. */
static void eg_done(struct link *l, unsigned int port, struct frame *f, uint64_t cycle)
{
	f->t = cycle + 1;
	fq_push(&l->ports[port].rxq, f);
}

/* A frame at a NIC's MAC from the wire: MAC Control stays in the MAC. */
static void nic_rx(struct link *l, unsigned int port, struct frame *f)
{
	struct port *p = &l->ports[port];

	if (mac_ctrl_rx(l, p, &p->tx, f, f->t)) {
		free(f);
		return;
	}
	fq_push(&p->rxq, f);
}

static void learn(struct link *l, const uint8_t *mac, unsigned int port)
{
	if (mac[0] & 1)
		return;
	for (unsigned int i = 0; i < l->nmacs; i++) {
		if (!memcmp(l->macs[i].mac, mac, 6)) {
			l->macs[i].port = port;
			return;
		}
	}
	if (l->nmacs < MAC_TABLE) {
		memcpy(l->macs[l->nmacs].mac, mac, 6);
		l->macs[l->nmacs].port = port;
		l->nmacs++;
	}
}

static int lookup(const struct link *l, const uint8_t *mac)
{
	if (mac[0] & 1)
		return -1;
	for (unsigned int i = 0; i < l->nmacs; i++)
		if (!memcmp(l->macs[i].mac, mac, 6))
			return (int)l->macs[i].port;
	return -1;
}

static void egress_push(struct link *l, unsigned int port, const struct frame *f)
{
	struct frame *c;

	if (l->ports[port].ext)
		return; /* off the wire: reached through its socket only */
	c = frame_new(f->data, f->len, f->t);
	if (!c)
		return;
	fq_push(&l->ports[port].eg.q, c);
	l->ports[port].eg.queued_bytes += c->len;
}

/* A frame at the far end of its sender's cable. */
static void arrive(struct link *l, unsigned int port, struct frame *f)
{
	l->st.frames++;
	l->st.bytes += f->len;
	if (l->frame_fn)
		l->frame_fn(l->frame_arg, (int)port, f->data, f->len, f->t);
	if (l->ports[port].ext) {
		l->ports[port].ext(l->ports[port].ext_arg, port, f->data, f->len);
		free(f);
		return;
	}
	if (l->cfg.ports == 2) {
		if (l->ports[port ^ 1].ext)
			free(f); /* the other NIC is off the wire */
		else
			nic_rx(l, port ^ 1, f);
		return;
	}
	/* the switch's port facing the sender */
	if (mac_ctrl_rx(l, &l->ports[port], &l->ports[port].eg, f, f->t)) {
		free(f);
		return;
	}
	learn(l, &f->data[6], port);
	int dst = lookup(l, f->data);

	if (dst >= 0) {
		l->st.unicast_learned++;
		if ((unsigned int)dst != port)
			egress_push(l, (unsigned int)dst, f);
	} else {
		l->st.flooded++;
		for (unsigned int i = 0; i < l->cfg.ports; i++)
			if (i != port)
				egress_push(l, i, f);
	}
	free(f);
}

void link_tick(struct link *l, uint64_t cycle)
{
	for (unsigned int i = 0; i < l->cfg.ports; i++) {
		struct port *p = &l->ports[i];

		ser_tick(l, i, &p->tx, cycle, tx_done);
		if (p->held && cycle + 1 >= p->held_deadline) {
			flight_push(p, p->held, p->held_deadline);
			p->held = NULL;
		}
	}
	for (unsigned int i = 0; i < l->cfg.ports; i++) {
		struct port *p = &l->ports[i];

		while (p->flight.head && p->flight.head->t <= cycle + 1)
			arrive(l, i, fq_pop(&p->flight));
	}
	if (l->cfg.ports != 2)
		for (unsigned int i = 0; i < l->cfg.ports; i++)
			ser_tick(l, i, &l->ports[i].eg, cycle, eg_done);
}

/* A frame from outside the simulated cable (injected, or from an external
 * port) queued for the NIC's RX; the frame hook sees it as port -1 - port. */
static int rx_enqueue(struct link *l, unsigned int port, uint64_t cycle, const uint8_t *frame,
		      size_t len)
{
	struct frame *f;

	if (port >= l->cfg.ports || !frame || len == 0 || len > LINK_MAX_FRAME)
		return -EINVAL;
	f = frame_new(frame, len, cycle);
	if (!f)
		return -ENOMEM;
	if (l->frame_fn)
		l->frame_fn(l->frame_arg, -1 - (int)port, f->data, f->len, cycle);
	nic_rx(l, port, f);
	return 0;
}

int link_inject(struct link *l, unsigned int port, uint64_t cycle, const uint8_t *frame,
		size_t len)
{
	int err = rx_enqueue(l, port, cycle, frame, len);

	if (!err)
		l->ports[port].st.rx_injected++;
	return err;
}

void link_set_external(struct link *l, unsigned int port, link_ext_fn fn, void *arg)
{
	if (port >= l->cfg.ports)
		return;
	l->ports[port].ext = fn;
	l->ports[port].ext_arg = arg;
}

int link_ext_rx(struct link *l, unsigned int port, uint64_t cycle, const uint8_t *frame,
		size_t len)
{
	return rx_enqueue(l, port, cycle, frame, len);
}

/* ---------------------------------------------------------------- stats */

void link_port_stats(const struct link *l, unsigned int port, struct rnic_sim_port_stats *st)
{
	*st = l->ports[port].st;
}

void link_stats(const struct link *l, struct rnic_sim_link_stats *st)
{
	*st = l->st;
}

unsigned int link_rx_pending(const struct link *l, unsigned int port)
{
	return l->ports[port].rxq.count;
}

int link_busy(const struct link *l)
{
	for (unsigned int i = 0; i < l->cfg.ports; i++) {
		const struct port *p = &l->ports[i];

		if (p->cap_len || p->tx.q.count || p->tx.cur || p->tx.ctl || p->flight.count ||
		    p->held || p->eg.q.count || p->eg.cur || p->eg.ctl || p->rxq.count)
			return 1;
	}
	return 0;
}
