/* OpenRNIC simulator: the host's BAR0 accesses as an AXI4-Lite master.
 *
 * Operations run in the order they were queued. Each reaches the bus
 * `latency` cycles after it was queued (a PCIe MMIO request's trip to the
 * card). Writes are posted and pipelined: AW and W of a write are offered
 * together, the next write may start before the previous B arrives. A read
 * waits until every earlier write has its B response, then offers AR; its
 * data reach the host `latency` cycles after the R handshake. BREADY and
 * RREADY are always high.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_int.h"

struct bar_op {
	uint64_t ready; /* first cycle it may reach the bus */
	int64_t ticket; /* reads: > 0 */
	uint32_t off, val;
	uint8_t write;
};

struct bar_master {
	unsigned int latency;
	struct bar_op *q;
	size_t head, count, cap;
	int aw_done, w_done, ar_done; /* progress of the head op */
	unsigned int b_pending;       /* writes issued, B not yet seen */
	int64_t next_ticket;
	/* the last completed read */
	int64_t done_ticket;
	uint64_t done_cycle;
	uint32_t done_val;
	int done_err;
	struct rnic_sim_bar_stats st;
};

struct bar_master *bar_create(unsigned int latency)
{
	struct bar_master *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->latency = latency;
	b->next_ticket = 1;
	return b;
}

void bar_destroy(struct bar_master *b)
{
	if (!b)
		return;
	free(b->q);
	free(b);
}

static int push(struct bar_master *b, const struct bar_op *op)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		struct bar_op *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t i = 0; i < b->count; i++)
			q[i] = b->q[(b->head + i) % b->cap];
		free(b->q);
		b->q = q;
		b->head = 0;
		b->cap = cap;
	}
	b->q[(b->head + b->count) % b->cap] = *op;
	b->count++;
	return 0;
}

static void pop(struct bar_master *b)
{
	b->head = (b->head + 1) % b->cap;
	b->count--;
	b->aw_done = b->w_done = b->ar_done = 0;
}

int bar_post_write(struct bar_master *b, uint64_t now, uint32_t off, uint32_t val)
{
	struct bar_op op = { .ready = now + b->latency, .off = off, .val = val, .write = 1 };

	return push(b, &op);
}

int64_t bar_post_read(struct bar_master *b, uint64_t now, uint32_t off)
{
	struct bar_op op = { .ready = now + b->latency, .off = off, .ticket = b->next_ticket };
	int err = push(b, &op);

	if (err)
		return err;
	return b->next_ticket++;
}

int bar_read_result(struct bar_master *b, int64_t ticket, uint64_t now, uint32_t *val,
		    int *err)
{
	if (b->done_ticket != ticket || now < b->done_cycle + b->latency)
		return 0;
	*val = b->done_val;
	*err = b->done_err;
	return 1;
}

int bar_busy(const struct bar_master *b)
{
	return b->count || b->b_pending;
}

void bar_drive(struct bar_master *b, uint64_t cycle, struct rnic_core_in *in)
{
	const struct bar_op *op = b->count ? &b->q[b->head] : NULL;

	in->s_axil_awvalid = 0;
	in->s_axil_wvalid = 0;
	in->s_axil_arvalid = 0;
	in->s_axil_awprot = 0;
	in->s_axil_arprot = 0;
	in->s_axil_bready = 1;
	in->s_axil_rready = 1;
	if (op && op->ready <= cycle) {
		if (op->write) {
			in->s_axil_awvalid = !b->aw_done;
			in->s_axil_wvalid = !b->w_done;
		} else {
			in->s_axil_arvalid = !b->ar_done && b->b_pending == 0;
		}
	}
	/* address and data stay stable (the head op's) while valid is low too */
	in->s_axil_awaddr = op ? (uint16_t)op->off : 0;
	in->s_axil_araddr = op ? (uint16_t)op->off : 0;
	in->s_axil_wdata = op ? op->val : 0;
	in->s_axil_wstrb = 0xf;
}

void bar_edge(struct bar_master *b, uint64_t cycle, const struct rnic_core_in *in,
	      const struct rnic_core_out *out)
{
	if (out->s_axil_bvalid && in->s_axil_bready) {
		if (b->b_pending) {
			b->b_pending--;
			b->st.writes++;
		}
		if (out->s_axil_bresp != 0)
			b->st.errors++;
	}
	if (out->s_axil_rvalid && in->s_axil_rready && b->count && !b->q[b->head].write &&
	    b->ar_done) {
		b->done_ticket = b->q[b->head].ticket;
		b->done_cycle = cycle;
		b->done_val = out->s_axil_rdata;
		b->done_err = out->s_axil_rresp != 0;
		if (b->done_err)
			b->st.errors++;
		b->st.reads++;
		pop(b);
		return;
	}
	if (!b->count)
		return;
	if (b->q[b->head].write) {
		if (in->s_axil_awvalid && out->s_axil_awready)
			b->aw_done = 1;
		if (in->s_axil_wvalid && out->s_axil_wready)
			b->w_done = 1;
		if (b->aw_done && b->w_done) {
			b->b_pending++;
			pop(b);
		}
	} else if (in->s_axil_arvalid && out->s_axil_arready) {
		b->ar_done = 1;
	}
}

void bar_stats(const struct bar_master *b, struct rnic_sim_bar_stats *st)
{
	*st = b->st;
}

void bar_count_error(struct bar_master *b)
{
	b->st.errors++;
}
