/* End-to-end RDMA WRITE tests: host library -> BAR doorbell -> RTL -> wire ->
 * RTL -> host memory -> CQE, two simulated NICs back to back.
 *
 *   rnic-e2e --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define MAX_POLLS 40000000ull

/* mem_wr_bw: host-memory write bytes per cycle, 0 for the default */
static struct rnic_world *make_world_bw(const char *tag, double mem_wr_bw)
{
	struct rnic_sim_cfg cfg;
	char path[512];

	rnic_sim_cfg_default(&cfg);
	if (mem_wr_bw > 0) {
		/* a slow receiving host: the flow-control scenarios. At 512
		 * bits the sending host reads 32 B/cycle (64 Gb/s), not the
		 * default 54: without flow control a faster sender only makes
		 * go-back-N's recovery from the drops longer (minutes of
		 * simulation), which is not what these cases test. */
		cfg.mem_wr_bw = mem_wr_bw;
		if (e2e_width == 512)
			cfg.mem_rd_bw = 32;
	}
	cfg.num_nics = 2;
	cfg.data_width = (unsigned)e2e_width;
	cfg.seed = e2e_seed;
	if (e2e_pcap_dir) {
		snprintf(path, sizeof(path), "%s/%s.pcap", e2e_pcap_dir, tag);
		cfg.pcap_path = path;
	}
	return rnic_world_create(&cfg);
}

static struct rnic_world *make_world(const char *tag)
{
	return make_world_bw(tag, 0);
}

/* A world and two connected QPs at path MTU mtu_code; NULL on failure. */
static struct rnic_world *open_pair(const char *tag, double mem_wr_bw, uint32_t mtu_code,
				    struct sim_pair *p)
{
	struct rnic_world *w = make_world_bw(tag, mem_wr_bw);
	struct sim_pair_opts o;

	sim_pair_default_opts(&o);
	o.nqp = 2;
	o.path_mtu = mtu_code;
	/* the flow-control scenarios (a slow receiving host): without flow
	 * control the receive FIFO drops frames, and a retransmitted packet
	 * dropped again after the responder's one NAK can only be recovered by
	 * the ACK timer (IB go-back-N): 4.2 ms (code 10), well beyond the
	 * longest pause the host makes (~0.35 ms), not the default 67 ms */
	if (mem_wr_bw > 0)
		o.timeout = 10;
	if (w && sim_pair_open(p, w, &o)) {
		rnic_world_destroy(w);
		w = NULL;
	}
	return w;
}

static int post_write(struct rnic_qp *qp, uint64_t wr_id, struct rnic_sg_entry *sge, int nsge,
		      uint64_t raddr, uint32_t rkey)
{
	struct rnic_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return rnic_post_send(qp, &wr, &bad);
}

/* WRITE len bytes from a fresh source buffer on side 0 into a fresh MR on
 * side 1; check the completion, the data and the guard zones. */
static void write_case(struct sim_pair *p, int qpi, size_t len, int nsge, uint32_t mtu_bytes)
{
	struct e2e_buf src = {0}, dst = {0};
	struct rnic_sg_entry sge[RNIC_MAX_SEND_SGE];
	struct rnic_wc wc;
	uint64_t c0 = rnic_world_cycle(p->world);
	int ok = 0, n;
	size_t off = 0;

	if (e2e_buf_init(&src, p->side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1) ||
	    e2e_buf_init(&dst, p->side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0)) {
		e2e_result(0, "mtu%u write %zu B: buffer setup", mtu_bytes, len);
		goto out;
	}
	/* split the source over nsge SGEs of uneven sizes */
	for (int i = 0; i < nsge; i++) {
		size_t piece = (i == nsge - 1) ? len - off : (len - off) / 3;

		sge[i].addr = (uint64_t)(uintptr_t)(src.p + off);
		sge[i].length = (uint32_t)piece;
		sge[i].lkey = src.mr->lkey;
		off += piece;
	}
	if (post_write(p->side[0].qp[qpi], 0x1000 + len, sge, nsge, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey)) {
		e2e_result(0, "mtu%u write %zu B: post_send", mtu_bytes, len);
		goto out;
	}
	n = sim_pair_wait(p->side[0].cq, &wc, 1, MAX_POLLS);
	ok = n == 1 && wc.status == RNIC_WC_SUCCESS && wc.opcode == RNIC_WC_RDMA_WRITE &&
	     wc.wr_id == 0x1000 + len && wc.qp_num == p->side[0].qp[qpi]->qp_num &&
	     memcmp(src.p, dst.p, len) == 0 && e2e_only_written(&dst, 0, len);
	e2e_result(ok, "mtu%u qp%d write %zu B over %d SGE(s): %s, %llu cycles", mtu_bytes, qpi, len, nsge,
	           n == 1 ? rnic_wc_status_str(wc.status) : "no completion",
	           (unsigned long long)(rnic_world_cycle(p->world) - c0));
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
}

/* Two QPs carry one message each at the same time; both arrive intact. */
static void concurrent_case(struct sim_pair *p, size_t len, uint32_t mtu_bytes)
{
	struct e2e_buf src[2] = {{0}}, dst[2] = {{0}};
	struct rnic_sg_entry sge[2];
	struct rnic_wc wc[2];
	int ok = 1, n;

	for (int q = 0; q < 2; q++) {
		ok &= !e2e_buf_init(&src[q], p->side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1);
		ok &= !e2e_buf_init(&dst[q], p->side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
		if (!ok)
			break;
		sge[q].addr = (uint64_t)(uintptr_t)src[q].p;
		sge[q].length = (uint32_t)len;
		sge[q].lkey = src[q].mr->lkey;
		ok &= !post_write(p->side[0].qp[q], 0x2000 + (uint64_t)q, &sge[q], 1,
				  (uint64_t)(uintptr_t)dst[q].p, dst[q].mr->rkey);
	}
	n = ok ? sim_pair_wait(p->side[0].cq, wc, 2, MAX_POLLS) : 0;
	ok &= n == 2;
	for (int i = 0; ok && i < 2; i++)
		ok &= wc[i].status == RNIC_WC_SUCCESS && (wc[i].wr_id == 0x2000 || wc[i].wr_id == 0x2001);
	ok &= n == 2 && wc[0].wr_id != wc[1].wr_id;
	for (int q = 0; ok && q < 2; q++)
		ok &= memcmp(src[q].p, dst[q].p, len) == 0 && e2e_only_written(&dst[q], 0, len);
	e2e_result(ok, "mtu%u two QPs concurrently, %zu B each", mtu_bytes, len);
	for (int q = 0; q < 2; q++) {
		e2e_buf_free(&src[q]);
		e2e_buf_free(&dst[q]);
	}
}

static void mtu_suite(uint32_t mtu_code, int quick)
{
	uint32_t mtu = 128u << mtu_code;
	struct sim_pair p;
	struct rnic_world *w;
	char tag[64];
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 5, 1u << 20};
	int nsizes = quick ? 6 : 7;

	snprintf(tag, sizeof(tag), "w%d_mtu%u", e2e_width, mtu);
	w = open_pair(tag, 0, mtu_code, &p);
	if (!w) {
		e2e_result(0, "mtu%u: world and QP setup", mtu);
		return;
	}
	for (int i = 0; i < nsizes; i++)
		write_case(&p, i % 2, sizes[i], 1, mtu);
	write_case(&p, 0, 3 * mtu + 17, 3, mtu);
	write_case(&p, 1, 7, 4, mtu);
	concurrent_case(&p, 2 * mtu + 3, mtu);
	sim_pair_close(&p);
	e2e_check_nics(w, tag, 0);
	rnic_world_destroy(w);
}

/* An error case gets its own QP: the failure moves the QP to the error state. */
static void error_case(struct sim_pair *p, int qpi, const char *name, uint32_t expect_status)
{
	const size_t len = 3000;
	struct e2e_buf src = {0}, dst = {0}, ro = {0};
	struct rnic_sg_entry sge;
	struct rnic_wc wc;
	uint64_t raddr;
	uint32_t rkey, lkey;
	uint8_t *snapshot = NULL;
	int ok = 1, n;

	ok &= !e2e_buf_init(&src, p->side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1);
	ok &= !e2e_buf_init(&dst, p->side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 1);
	ok &= !e2e_buf_init(&ro, p->side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ, 1);
	if (!ok) {
		e2e_result(0, "error case %s: setup", name);
		goto out;
	}
	snapshot = malloc(2 * (len + 2 * E2E_GUARD));
	memcpy(snapshot, dst.base, len + 2 * E2E_GUARD);
	memcpy(snapshot + len + 2 * E2E_GUARD, ro.base, len + 2 * E2E_GUARD);
	raddr = (uint64_t)(uintptr_t)dst.p;
	rkey = dst.mr->rkey;
	lkey = src.mr->lkey;
	if (!strcmp(name, "wrong rkey"))
		rkey ^= 0x80; /* same MPT entry, other tag */
	else if (!strcmp(name, "rkey of another MR index"))
		rkey = ro.mr->rkey ^ (1u << RNIC_MKEY_TAG_BITS);
	else if (!strcmp(name, "out of bounds"))
		raddr += len - 100;
	else if (!strcmp(name, "no REMOTE_WRITE")) {
		raddr = (uint64_t)(uintptr_t)ro.p;
		rkey = ro.mr->rkey;
	} else if (!strcmp(name, "wrong lkey"))
		lkey ^= 0x80;
	sge.addr = (uint64_t)(uintptr_t)src.p;
	sge.length = (uint32_t)len;
	sge.lkey = lkey;
	if (!strcmp(name, "SGE beyond its MR"))
		sge.addr += 8; /* the last 8 bytes lie past the MR */
	ok &= !post_write(p->side[0].qp[qpi], 0x3000 + (uint64_t)qpi, &sge, 1, raddr, rkey);
	n = ok ? sim_pair_wait(p->side[0].cq, &wc, 1, MAX_POLLS) : 0;
	ok &= n == 1 && wc.status == expect_status && wc.wr_id == 0x3000 + (uint64_t)qpi;
	/* host memory on the target side is untouched, inside and outside the MRs */
	ok &= memcmp(snapshot, dst.base, len + 2 * E2E_GUARD) == 0;
	ok &= memcmp(snapshot + len + 2 * E2E_GUARD, ro.base, len + 2 * E2E_GUARD) == 0;
	e2e_result(ok, "error: %s -> %s (want %s), target memory untouched", name,
	           n == 1 ? rnic_wc_status_str(wc.status) : "no completion", rnic_wc_status_str(expect_status));
out:
	free(snapshot);
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_buf_free(&ro);
}

/* Two WQEs in one post_send: the first fails (locally, or by the peer's
 * NAK); the NIC must complete the second with WR_FLUSH_ERR, in order, and
 * never execute it. */
static void flush_case(struct sim_pair *p, int qpi, int remote)
{
	struct e2e_buf src = {0}, dst = {0}, dst2 = {0};
	struct rnic_sg_entry sge[2];
	struct rnic_send_wr wr[2], *bad = NULL;
	struct rnic_wc wc[2];
	uint32_t want = remote ? RNIC_WC_REM_ACCESS_ERR : RNIC_WC_LOC_PROT_ERR;
	int ok = 1, n = 0;

	ok &= !e2e_buf_init(&src, p->side[0].pd, 2048, RNIC_ACCESS_LOCAL_WRITE, 1);
	ok &= !e2e_buf_init(&dst, p->side[1].pd, 2048, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	ok &= !e2e_buf_init(&dst2, p->side[1].pd, 2048, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	if (ok) {
		memset(wr, 0, sizeof(wr));
		for (int i = 0; i < 2; i++) {
			sge[i].addr = (uint64_t)(uintptr_t)src.p;
			sge[i].length = 2048;
			sge[i].lkey = src.mr->lkey;
			wr[i].wr_id = 0x5000 + (uint64_t)i;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = RNIC_WR_RDMA_WRITE;
			wr[i].send_flags = RNIC_SEND_SIGNALED;
			wr[i].wr.rdma.rkey = (i == 0 ? dst : dst2).mr->rkey;
			wr[i].wr.rdma.remote_addr = (uint64_t)(uintptr_t)(i == 0 ? dst : dst2).p;
		}
		wr[0].next = &wr[1];
		if (remote)
			wr[0].wr.rdma.rkey ^= 0x80;
		else
			sge[0].lkey ^= 0x80;
		ok &= !rnic_post_send(p->side[0].qp[qpi], &wr[0], &bad);
		n = ok ? sim_pair_wait(p->side[0].cq, wc, 2, MAX_POLLS) : 0;
	}
	ok &= n == 2 && wc[0].wr_id == 0x5000 && wc[0].status == want && wc[1].wr_id == 0x5001 &&
	      wc[1].status == RNIC_WC_WR_FLUSH_ERR;
	for (size_t i = 0; ok && i < 2048; i++)
		ok &= dst.p[i] == E2E_GUARD_BYTE && dst2.p[i] == E2E_GUARD_BYTE;
	e2e_result(ok, "flush: %s, then the next WQE -> %s, %s; target memory untouched",
	           remote ? "NAK remote access error" : "local protection error",
	           n >= 1 ? rnic_wc_status_str(wc[0].status) : "no completion",
	           n == 2 ? rnic_wc_status_str(wc[1].status) : "no completion");
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_buf_free(&dst2);
}

static void error_suite(void)
{
	static const struct {
		const char *name;
		uint32_t status;
	} cases[] = {
		{"wrong rkey", RNIC_WC_REM_ACCESS_ERR},
		{"rkey of another MR index", RNIC_WC_REM_ACCESS_ERR},
		{"out of bounds", RNIC_WC_REM_ACCESS_ERR},
		{"no REMOTE_WRITE", RNIC_WC_REM_ACCESS_ERR},
		{"wrong lkey", RNIC_WC_LOC_PROT_ERR},
		{"SGE beyond its MR", RNIC_WC_LOC_PROT_ERR},
	};
	const int ncases = (int)(sizeof(cases) / sizeof(cases[0]));
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w = make_world(e2e_width == 64 ? "w64_errors" : "w512_errors");
	uint32_t nak = 0, access = 0, prot = 0;

	sim_pair_default_opts(&o);
	o.nqp = ncases + 2;
	o.path_mtu = RNIC_IB_MTU_1024;
	if (!w || sim_pair_open(&p, w, &o)) {
		e2e_result(0, "errors: setup");
		if (w)
			rnic_world_destroy(w);
		return;
	}
	for (int i = 0; i < ncases; i++)
		error_case(&p, i, cases[i].name, cases[i].status);
	/* the responder counted each refused request and NAKed it */
	rnic_read_counter(p.side[1].ctx, RNIC_REG_STAT_TX_NAK, &nak);
	rnic_read_counter(p.side[1].ctx, RNIC_REG_STAT_RX_ACCESS_ERR, &access);
	rnic_read_counter(p.side[0].ctx, RNIC_REG_STAT_LOC_PROT_ERR, &prot);
	e2e_result(nak == 4 && access == 4 && prot == 2, "error counters: NAKs sent %u, access errors %u, local protection errors %u",
	           nak, access, prot);

	/* a QP in the error state flushes what is posted after the error */
	{
		struct e2e_buf src = {0}, dst = {0};
		struct rnic_sg_entry sge;
		struct rnic_wc wc;
		int ok = !e2e_buf_init(&src, p.side[0].pd, 64, RNIC_ACCESS_LOCAL_WRITE, 1) &&
			 !e2e_buf_init(&dst, p.side[1].pd, 64, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
		int rc = -1, n = 0;

		if (ok) {
			sge.addr = (uint64_t)(uintptr_t)src.p;
			sge.length = 64;
			sge.lkey = src.mr->lkey;
			rc = post_write(p.side[0].qp[0], 0x4000, &sge, 1, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey);
			if (rc == 0)
				n = sim_pair_wait(p.side[0].cq, &wc, 1, 200000);
		}
		/* either the library refuses the post (QP known to be in error) or the
		 * NIC flushes it; it must never be executed */
		ok &= (rc == EINVAL) || (rc == 0 && n == 1 && wc.status == RNIC_WC_WR_FLUSH_ERR);
		for (int i = 0; ok && i < 64; i++)
			ok &= dst.p[i] == E2E_GUARD_BYTE;
		e2e_result(ok, "post after error: %s",
		           rc ? "refused by the library" : (n ? rnic_wc_status_str(wc.status) : "no completion"));
		e2e_buf_free(&src);
		e2e_buf_free(&dst);
	}
	flush_case(&p, ncases, 0);
	flush_case(&p, ncases + 1, 1);
	sim_pair_close(&p);
	e2e_check_nics(w, "errors", 0);
	rnic_world_destroy(w);
}

/* PSNs wrap from 0xffffff to 0 inside one message. */
static void wrap_suite(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w = make_world(e2e_width == 64 ? "w64_psn_wrap" : "w512_psn_wrap");

	sim_pair_default_opts(&o);
	o.path_mtu = RNIC_IB_MTU_256;
	o.psn[0] = 0xfffff0;
	o.psn[1] = 0xfffffe;
	if (!w || sim_pair_open(&p, w, &o)) {
		e2e_result(0, "psn wrap: setup");
		if (w)
			rnic_world_destroy(w);
		return;
	}
	write_case(&p, 0, 64 * 256 + 9, 1, 256);
	write_case(&p, 0, 1000, 2, 256);
	sim_pair_close(&p);
	rnic_world_destroy(w);
}

/* ---- receive-side checks on frames injected into the core ---- */

struct capture {
	uint8_t frame[2048];
	size_t len;
};

static void capture_first_write(void *arg, int port, const uint8_t *frame, size_t len, uint64_t cycle)
{
	struct capture *c = arg;

	(void)port;
	(void)cycle;
	if (!c->len && len > 100 && len <= sizeof(c->frame)) {
		memcpy(c->frame, frame, len);
		c->len = len;
	}
}

/* RoCEv2 ICRC (IBTA Annex A17) of an IPv4 frame, written into its last 4
 * bytes: CRC32 over 8 bytes of 0xff, then the IP datagram with TOS, TTL,
 * header checksum, UDP checksum and BTH resv8a replaced by ones. */
static void fix_icrc(uint8_t *f, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 6; i < len - 4; i++) {
		uint8_t b = (i < 14) ? 0xff : f[i];

		if (i == 15 || i == 22 || i == 24 || i == 25 || i == 40 || i == 41 || i == 46)
			b = 0xff;
		crc ^= b;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	crc = ~crc;
	for (int k = 0; k < 4; k++)
		f[len - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
}

static void rx_drop_suite(void)
{
	static const struct {
		const char *name;
		uint32_t reg;
	} kinds[] = {
		{"duplicate", RNIC_REG_STAT_RX_DUPLICATE},
		{"bad ICRC", RNIC_REG_STAT_RX_DROP_ICRC},
		{"bad IPv4 header checksum", RNIC_REG_STAT_RX_DROP_IP_CSUM},
		{"wrong UDP port", RNIC_REG_STAT_RX_DROP_UDP_PORT},
		{"unknown QPN", RNIC_REG_STAT_RX_DROP_QPN},
		{"another MAC address", RNIC_REG_STAT_RX_DROP_NOT_ROCE},
		{"ARP frame", RNIC_REG_STAT_RX_DROP_NOT_ROCE},
	};
	struct capture cap = {{0}, 0};
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	const char *saved = e2e_pcap_dir;
	/* no capture here: the injected frames are bad on purpose */
	e2e_pcap_dir = NULL;
	w = make_world("rx_drops");
	e2e_pcap_dir = saved;
	struct e2e_buf src = {0}, dst = {0};
	struct rnic_sg_entry sge;
	struct rnic_wc wc;
	int ok;

	sim_pair_default_opts(&o);
	o.path_mtu = RNIC_IB_MTU_1024;
	if (!w || sim_pair_open(&p, w, &o)) {
		e2e_result(0, "rx drops: setup");
		if (w)
			rnic_world_destroy(w);
		return;
	}
	rnic_world_set_frame_hook(w, capture_first_write, &cap);
	ok = !e2e_buf_init(&src, p.side[0].pd, 600, RNIC_ACCESS_LOCAL_WRITE, 1) &&
	     !e2e_buf_init(&dst, p.side[1].pd, 600, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	if (ok) {
		sge.addr = (uint64_t)(uintptr_t)src.p;
		sge.length = 600;
		sge.lkey = src.mr->lkey;
		ok = !post_write(p.side[0].qp[0], 7, &sge, 1, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey) &&
		     sim_pair_wait(p.side[0].cq, &wc, 1, MAX_POLLS) == 1 && wc.status == RNIC_WC_SUCCESS &&
		     cap.len > 0 && cap.frame[42] == RNIC_OP_RDMA_WRITE_ONLY;
	}
	rnic_world_set_frame_hook(w, NULL, NULL);
	e2e_result(ok, "rx drops: captured the WRITE ONLY frame (%zu bytes)", cap.len);
	memset(dst.p, 0, 600);
	for (size_t k = 0; ok && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		uint8_t f[2048];
		size_t len = cap.len;
		uint32_t before[20], after, changed = 0;

		for (uint32_t r = 0; r < 20; r++)
			before[r] = e2e_counter(p.side[1].ctx, RNIC_REG_STAT_TX_FRAMES + 4 * r);
		memcpy(f, cap.frame, len);
		switch (k) {
		case 1: f[60] ^= 0x10; break;                       /* payload byte: ICRC no longer matches */
		case 2: f[22] ^= 0x01; break;                       /* TTL: header checksum wrong, ICRC still right */
		case 3: f[37] ^= 0x01; fix_icrc(f, len); break;     /* UDP destination port 4790 */
		case 4: f[47] = 0x00; f[48] = 0x03; f[49] = 0x80; fix_icrc(f, len); break; /* QPN 0x380 */
		case 5: f[5] ^= 0x40; break;                        /* destination MAC */
		case 6: f[12] = 0x08; f[13] = 0x06; break;          /* EtherType ARP */
		default: break;
		}
		rnic_sim_inject_frame(w, 1, f, len);
		rnic_world_step(w, 5000);
		after = e2e_counter(p.side[1].ctx, kinds[k].reg);
		for (uint32_t r = 0; r < 20; r++) {
			uint32_t reg = RNIC_REG_STAT_TX_FRAMES + 4 * r;
			uint32_t v = e2e_counter(p.side[1].ctx, reg);

			/* frame, byte and ACK counters move with the traffic itself */
			if (reg == kinds[k].reg || reg == RNIC_REG_STAT_RX_FRAMES || reg == RNIC_REG_STAT_RX_BYTES ||
			    (k == 0 && (reg == RNIC_REG_STAT_TX_FRAMES || reg == RNIC_REG_STAT_TX_BYTES ||
					reg == RNIC_REG_STAT_TX_ACK)))
				continue;
			if (v != before[r])
				printf("  counter 0x%x moved %u -> %u\n", reg, before[r], v);
			changed += v != before[r];
		}
		if (after != before[(kinds[k].reg - RNIC_REG_STAT_TX_FRAMES) / 4] + 1)
			printf("  counter 0x%x: %u -> %u\n", kinds[k].reg, before[(kinds[k].reg - RNIC_REG_STAT_TX_FRAMES) / 4], after);
		int zero = 1;
		for (int i = 0; i < 600; i++)
			zero &= dst.p[i] == 0;
		e2e_result(after == before[(kinds[k].reg - RNIC_REG_STAT_TX_FRAMES) / 4] + 1 && !changed && zero &&
			       e2e_only_written(&dst, 0, 600),
		           "rx: %s counted once, no other counter moved, host memory untouched", kinds[k].name);
	}
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	sim_pair_close(&p);
	e2e_check_nics(w, "rx drops", 0);
	rnic_world_destroy(w);
}

/* Link flow control (IEEE 802.3x PAUSE by the MACs, requested by the core
 * from its receive FIFO level). Two QPs stream 1 MiB WRITEs each at once,
 * then 64 WRITEs of 4 KiB spread over both (at 64 bits 128 KiB and 16). The
 * sender's host and link deliver faster than the receiver's host writes: at
 * 512 bits the sender reads 32 B/cycle (64 Gb/s; make_world_bw) onto a
 * 100 Gb/s link and the receiver's host takes 24 B/cycle (48 Gb/s); at 64
 * bits 10 Gb/s against a host that takes 4 Gb/s. (The default hosts on both
 * sides move the same bytes per cycle, so whether the receiver falls behind
 * would be a matter of the engines' per-packet overheads, not a test.) With flow control
 * the receiver asks for pauses, the sender's MAC obeys, and nothing is
 * dropped or retransmitted; with it switched off (PORT_FC_CTRL = 0) the same
 * traffic overruns the FIFO and go-back-N has to recover, which shows the
 * case is a real test. With the default host (and at 64 bits a link slower
 * than it) no pause is ever asked for. With XOFF lowered to 1 KiB (a frame
 * of MTU 1024 reaches it while it is received: the level counts the frame
 * being written) the pauses come and the traffic still gets through. */
struct fc_run {
	uint32_t overflow, retry, pause_req;
	struct rnic_sim_port_stats ps[2];
	int ok;
};

static void fc_traffic(const char *tag, double mem_wr_bw, uint32_t fc_ctrl, uint32_t xoff,
		       uint32_t xon, uint32_t mtu_code, struct fc_run *r)
{
	enum { NBIG = 2, NSMALL = 64 };
	/* a 10 Gb/s link moves a tenth of what 100 Gb/s moves in the time */
	const size_t big = e2e_width == 512 ? 1u << 20 : 1u << 17, small = 4096;
	const int nsmall = e2e_width == 512 ? NSMALL : NSMALL / 4;
	struct sim_pair p;
	struct rnic_world *w;
	struct e2e_buf src[NBIG] = {{0}}, dst[NBIG] = {{0}}, ssrc = {0}, sdst = {0};
	struct rnic_sg_entry sge;
	struct rnic_wc wc[NSMALL];
	int ok = 1;

	memset(r, 0, sizeof(*r));
	w = open_pair(tag, mem_wr_bw, mtu_code, &p);
	if (!w)
		return;
	for (int i = 0; i < 2; i++) {
		struct rnic_sim_nic *nic = rnic_world_nic(w, i);

		ok &= rnic_sim_bar_read32(nic, RNIC_REG_PORT_FC_CTRL) == 1 &&
		      rnic_sim_bar_read32(nic, RNIC_REG_PORT_FC_XOFF) ==
			      rnic_sim_bar_read32(nic, RNIC_REG_PORT_RX_FIFO_BYTES) / 2 &&
		      rnic_sim_bar_read32(nic, RNIC_REG_PORT_FC_XON) ==
			      rnic_sim_bar_read32(nic, RNIC_REG_PORT_RX_FIFO_BYTES) / 4;
		rnic_sim_bar_write32(nic, RNIC_REG_PORT_FC_CTRL, fc_ctrl);
		rnic_sim_bar_write32(nic, RNIC_REG_PORT_FC_XOFF, xoff);
		rnic_sim_bar_write32(nic, RNIC_REG_PORT_FC_XON, xon);
		ok &= rnic_sim_bar_read32(nic, RNIC_REG_PORT_FC_XOFF) == xoff;
	}
	if (!ok)
		e2e_result(0, "%s: flow-control registers after reset and after a write", tag);
	for (int q = 0; ok && q < NBIG; q++) {
		ok &= !e2e_buf_init(&src[q], p.side[0].pd, big, RNIC_ACCESS_LOCAL_WRITE, 1) &&
		      !e2e_buf_init(&dst[q], p.side[1].pd, big, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
		sge = e2e_sg(src[q].p, (uint32_t)big, ok ? src[q].mr->lkey : 0);
		ok &= ok && !post_write(p.side[0].qp[q], 0x5000 + (uint64_t)q, &sge, 1,
					(uint64_t)(uintptr_t)dst[q].p, dst[q].mr->rkey);
	}
	ok &= ok && sim_pair_wait(p.side[0].cq, wc, NBIG, MAX_POLLS) == NBIG;
	for (int q = 0; ok && q < NBIG; q++)
		ok &= wc[q].status == RNIC_WC_SUCCESS && !memcmp(src[q].p, dst[q].p, big) &&
		      e2e_only_written(&dst[q], 0, big);
	ok &= ok && !e2e_buf_init(&ssrc, p.side[0].pd, nsmall * small, RNIC_ACCESS_LOCAL_WRITE, 1) &&
	      !e2e_buf_init(&sdst, p.side[1].pd, nsmall * small,
			    RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	for (int i = 0; ok && i < nsmall; i++) {
		sge = e2e_sg(ssrc.p + i * small, (uint32_t)small, ssrc.mr->lkey);
		ok &= !post_write(p.side[0].qp[i % 2], 0x6000 + (uint64_t)i, &sge, 1,
				  (uint64_t)(uintptr_t)(sdst.p + i * small), sdst.mr->rkey);
	}
	ok &= ok && sim_pair_wait(p.side[0].cq, wc, nsmall, MAX_POLLS) == nsmall;
	for (int i = 0; ok && i < nsmall; i++)
		ok &= wc[i].status == RNIC_WC_SUCCESS;
	ok &= ok && !memcmp(ssrc.p, sdst.p, nsmall * small) && e2e_only_written(&sdst, 0, nsmall * small);
	for (int i = 0; i < 2; i++) {
		r->overflow += e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RX_DROP_OVERFLOW);
		r->retry += e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RETRY);
		rnic_sim_nic_port_stats(w, i, &r->ps[i]);
	}
	r->pause_req = e2e_counter(p.side[1].ctx, RNIC_REG_STAT_RX_PAUSE_REQ);
	r->ok = ok;
	for (int q = 0; q < NBIG; q++) {
		e2e_buf_free(&src[q]);
		e2e_buf_free(&dst[q]);
	}
	e2e_buf_free(&ssrc);
	e2e_buf_free(&sdst);
	sim_pair_close(&p);
	e2e_check_nics(w, tag, 0);
	rnic_world_destroy(w);
}

static void fc_report(const char *what, const struct fc_run *r, int ok)
{
	e2e_result(ok && r->ok,
		   "flow control, %s: data %s; FIFO drops %u, retries %u; receiver: %u pause requests, "
		   "%llu XOFF + %llu XON frames; sender's MAC: %llu PAUSE received, paused %llu cycles",
		   what, r->ok ? "exact" : "WRONG", r->overflow, r->retry, r->pause_req,
		   (unsigned long long)r->ps[1].tx_xoff_frames, (unsigned long long)r->ps[1].tx_xon_frames,
		   (unsigned long long)r->ps[0].rx_pause_frames, (unsigned long long)r->ps[0].tx_paused_cycles);
}

/* Both directions at once with a host slower than the link on both sides:
 * each side WRITEs to the other and READs from it. A receive path waits for
 * its own transmit (ACKs, READ responses), so each side's FIFO can fill
 * because the other side paused it: with pauses both ways the two could wait
 * for each other for good. PORT_FC_STALL ends that: a request held while
 * the FIFO moves nothing for RNIC_FC_STALL_RESET cycles falls (STAT_RX_PAUSE_STALL), what
 * meets the full FIFO is dropped and retransmitted, and every WQE completes
 * with its data exact. */
static void fc_both_ways(double mem_wr_bw)
{
	const size_t len = e2e_width == 512 ? 1u << 19 : 1u << 16;
	struct sim_pair p;
	struct rnic_world *w;
	struct e2e_buf src[2] = {{0}}, dst[2] = {{0}}, rsrc[2] = {{0}}, rdst[2] = {{0}};
	struct rnic_wc wc[2][2];
	uint32_t req[2], stall[2], retry[2];
	int ok = 1;
	char tag[64];

	snprintf(tag, sizeof(tag), "w%d_flow_control_both_ways", e2e_width);
	w = open_pair(tag, mem_wr_bw, RNIC_IB_MTU_4096, &p);
	if (!w) {
		e2e_result(0, "%s: world and QP setup", tag);
		return;
	}
	for (int i = 0; i < 2; i++)
		ok &= rnic_sim_bar_read32(rnic_world_nic(w, i), RNIC_REG_PORT_FC_STALL) == RNIC_FC_STALL_RESET;
	for (int i = 0; ok && i < 2; i++) {
		struct rnic_send_wr wr, *bad = NULL;
		struct rnic_sg_entry sge;
		int peer = 1 - i;

		ok &= !e2e_buf_init(&src[i], p.side[i].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1) &&
		      !e2e_buf_init(&dst[i], p.side[peer].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0) &&
		      !e2e_buf_init(&rsrc[i], p.side[peer].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ, 1) &&
		      !e2e_buf_init(&rdst[i], p.side[i].pd, len, RNIC_ACCESS_LOCAL_WRITE, 0);
		if (!ok)
			break;
		sge = e2e_sg(src[i].p, (uint32_t)len, src[i].mr->lkey);
		ok &= !post_write(p.side[i].qp[i], 0x7000 + (uint64_t)i, &sge, 1, (uint64_t)(uintptr_t)dst[i].p,
				  dst[i].mr->rkey);
		memset(&wr, 0, sizeof(wr));
		sge = e2e_sg(rdst[i].p, (uint32_t)len, rdst[i].mr->lkey);
		wr.wr_id = 0x7100 + (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = RNIC_WR_RDMA_READ;
		wr.send_flags = RNIC_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)rsrc[i].p;
		wr.wr.rdma.rkey = rsrc[i].mr->rkey;
		ok &= !rnic_post_send(p.side[i].qp[1 - i], &wr, &bad);
	}
	for (int i = 0; ok && i < 2; i++)
		ok &= sim_pair_wait(p.side[i].cq, wc[i], 2, MAX_POLLS) == 2;
	for (int i = 0; ok && i < 2; i++)
		ok &= wc[i][0].status == RNIC_WC_SUCCESS && wc[i][1].status == RNIC_WC_SUCCESS &&
		      !memcmp(src[i].p, dst[i].p, len) && e2e_only_written(&dst[i], 0, len) &&
		      !memcmp(rsrc[i].p, rdst[i].p, len) && e2e_only_written(&rdst[i], 0, len);
	for (int i = 0; i < 2; i++) {
		req[i] = e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RX_PAUSE_REQ);
		stall[i] = e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RX_PAUSE_STALL);
		retry[i] = e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RETRY);
	}
	e2e_result(ok && req[0] + req[1] > 0,
		   "flow control, both ways (WRITE and READ %zu B each way): data %s; pause requests %u/%u, "
		   "given up as stalled %u/%u, retries %u/%u (side 0/1)",
		   len, ok ? "exact" : "WRONG", req[0], req[1], stall[0], stall[1], retry[0], retry[1]);
	for (int i = 0; i < 2; i++) {
		e2e_buf_free(&src[i]);
		e2e_buf_free(&dst[i]);
		e2e_buf_free(&rsrc[i]);
		e2e_buf_free(&rdst[i]);
	}
	sim_pair_close(&p);
	e2e_check_nics(w, tag, 0);
	rnic_world_destroy(w);
}

/* The receive path drains whatever holds the transmit path. Side 1's MAC
 * is paused by its link partner (a PAUSE of 0xffff quanta injected at the
 * MAC) for the whole exchange, and its MAC FIFO takes 256 bytes, so the
 * packet builder sees the back-pressure after a few frames. Side 0 sends
 * what its windows let go unacknowledged: 32 WRITEs on QP 0 and 16
 * FETCH_AND_ADDs (max_rd_atomic) on QP 1. Not one ACK can leave side 1,
 * yet it must execute every request (the WRITEs' bytes and the sum in its
 * memory) with no pause given up and no frame dropped; when the pause ends
 * (a PAUSE of 0) every WQE completes, each FETCH_AND_ADD returning the sum
 * before it. Were the ACKs to wait in the responder's queue for the
 * builder, the queue would fill and the requests behind it stay unread. */
static void fc_tx_held(void)
{
	enum { NWR = 32, NAT = 16 };
	const size_t len = e2e_width == 512 ? 4096 : 1024;
	const uint64_t init = 0x1000000000000001ull, add = 0x10001;
	/* long enough for the requests to cross at the width's line rate,
	 * shorter than the 0xffff quanta the PAUSE asks for */
	const uint64_t hold = e2e_width == 512 ? 30000 : 120000;
	struct rnic_sim_cfg cfg;
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct e2e_buf src = {0}, dst = {0}, tgt = {0}, res = {0};
	struct rnic_wc wc[NWR + NAT];
	struct rnic_sim_port_stats ps;
	uint32_t stall = 0, over = 0, retry = 0;
	uint64_t sum = 0;
	int ok = 1, early = -1, got = 0, written = 0;
	/* the link partner's station address (locally administered) */
	static const uint8_t peer[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	uint8_t f[60];
	char tag[64];

	snprintf(tag, sizeof(tag), "w%d_flow_control_tx_held", e2e_width);
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	cfg.data_width = (unsigned)e2e_width;
	cfg.seed = e2e_seed;
	cfg.link_tx_fifo = 256;
	w = rnic_world_create(&cfg);
	sim_pair_default_opts(&o);
	o.nqp = 2;
	if (!w || sim_pair_open(&p, w, &o)) {
		e2e_result(0, "%s: world and QP setup", tag);
		if (w)
			rnic_world_destroy(w);
		return;
	}
	ok &= !e2e_buf_init(&src, p.side[0].pd, NWR * len, RNIC_ACCESS_LOCAL_WRITE, 1) &&
	      !e2e_buf_init(&dst, p.side[1].pd, NWR * len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0) &&
	      !e2e_buf_init(&tgt, p.side[1].pd, 8, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_ATOMIC, 0) &&
	      !e2e_buf_init(&res, p.side[0].pd, NAT * 8, RNIC_ACCESS_LOCAL_WRITE, 0);
	if (ok)
		memcpy(tgt.p, &init, 8);
	ok &= ok && !rnic_sim_inject_frame(w, 1, f, rnic_sim_pause_frame(f, peer, 0xffff));
	for (int i = 0; ok && i < NAT; i++) {
		struct rnic_send_wr wr, *bad = NULL;
		struct rnic_sg_entry sge = e2e_sg(res.p + 8 * i, 8, res.mr->lkey);

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0x8100 + (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
		wr.send_flags = RNIC_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)tgt.p;
		wr.wr.atomic.compare_add = add;
		wr.wr.atomic.rkey = tgt.mr->rkey;
		ok &= !rnic_post_send(p.side[0].qp[1], &wr, &bad);
	}
	for (int i = 0; ok && i < NWR; i++) {
		struct rnic_sg_entry sge = e2e_sg(src.p + i * len, (uint32_t)len, src.mr->lkey);

		ok &= !post_write(p.side[0].qp[0], 0x8000 + (uint64_t)i, &sge, 1,
				  (uint64_t)(uintptr_t)(dst.p + i * len), dst.mr->rkey);
	}
	if (ok) {
		/* while side 1 cannot send: everything executed, nothing acknowledged */
		rnic_world_step(w, hold);
		early = rnic_poll_cq(p.side[0].cq, NWR + NAT, wc);
		memcpy(&sum, tgt.p, 8);
		for (int i = 0; i < NWR; i++)
			written += !memcmp(src.p + i * len, dst.p + i * len, len);
		rnic_sim_nic_port_stats(w, 1, &ps);
		e2e_result(early == 0 && written == NWR && sum == init + NAT * add && ps.tx_paused_cycles > 0,
			   "%s: side 1's MAC paused by its peer for %llu cycles (%llu of them with a frame waiting): "
			   "%d of %d WRITEs of %zu B in its memory, FETCH_AND_ADD sum %s (%d of %d applied), %d completions on side 0 (want 0)",
			   tag, (unsigned long long)hold, (unsigned long long)ps.tx_paused_cycles, written, NWR, len,
			   sum == init + NAT * add ? "exact" : "WRONG", (int)((sum - init) / add), NAT, early);
	}
	/* the pause ends: every ACK goes out, every WQE completes (also after
	 * a failure above, so that the QPs close on a world that has drained) */
	ok &= !rnic_sim_inject_frame(w, 1, f, rnic_sim_pause_frame(f, peer, 0));
	while (ok && got < NWR + NAT) {
		int n = sim_pair_wait(p.side[0].cq, wc + got, NWR + NAT - got, MAX_POLLS);

		if (n <= 0)
			break;
		got += n;
	}
	for (int i = 0; ok && i < got; i++) {
		ok &= wc[i].status == RNIC_WC_SUCCESS;
		if (wc[i].wr_id >= 0x8100) {
			uint64_t v;

			memcpy(&v, res.p + 8 * (wc[i].wr_id - 0x8100), 8);
			ok &= v == init + (wc[i].wr_id - 0x8100) * add;
		}
	}
	ok &= got == NWR + NAT && e2e_only_written(&dst, 0, NWR * len);
	for (int i = 0; i < 2; i++) {
		stall += e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RX_PAUSE_STALL);
		over += e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RX_DROP_OVERFLOW);
		retry += e2e_counter(p.side[i].ctx, RNIC_REG_STAT_RETRY);
	}
	e2e_result(ok && stall == 0 && over == 0 && retry == 0,
		   "%s: after the pause %d of %d WQEs completed successfully, every FETCH_AND_ADD returned the sum before it; "
		   "pauses given up %u, frames dropped for a full FIFO %u, retries %u (both sides)",
		   tag, got, NWR + NAT, stall, over, retry);
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_buf_free(&tgt);
	e2e_buf_free(&res);
	sim_pair_close(&p);
	e2e_check_nics(w, tag, 0);
	rnic_world_destroy(w);
}

static void flow_control_suite(void)
{
	const uint32_t fifo_half = 16384, fifo_quarter = 8192;
	/* bytes per cycle the receiver's host writes: below the line rate */
	const double slow_host = e2e_width == 512 ? 24 : 2;
	struct fc_run on, off, low, plain;
	const char *saved;
	char tag[64];

	snprintf(tag, sizeof(tag), "w%d_flow_control", e2e_width);
	fc_traffic(tag, slow_host, 1, fifo_half, fifo_quarter, RNIC_IB_MTU_4096, &on);
	fc_report("on, link faster than the host", &on,
		  on.overflow == 0 && on.retry == 0 && on.pause_req > 0 &&
		  on.ps[1].tx_xoff_frames >= on.pause_req && on.ps[1].tx_xon_frames == on.pause_req &&
		  on.ps[0].rx_pause_frames == on.ps[1].tx_xoff_frames + on.ps[1].tx_xon_frames &&
		  on.ps[0].tx_paused_cycles > 0 && on.ps[1].tx_paused_cycles == 0);
	fc_tx_held();
	if (e2e_quick)
		return;
	/* no capture: the receiver drops frames the wire shows, which no
	 * checker of the capture can tell */
	saved = e2e_pcap_dir;
	e2e_pcap_dir = NULL;
	fc_traffic("no flow control", slow_host, 0, fifo_half, fifo_quarter, RNIC_IB_MTU_4096, &off);
	e2e_pcap_dir = saved;
	fc_report("off, the same traffic", &off,
		  off.overflow > 0 && off.retry > 0 && off.pause_req == 0 &&
		  off.ps[1].tx_xoff_frames == 0 && off.ps[0].tx_paused_cycles == 0);
	if (e2e_width == 64) {
		snprintf(tag, sizeof(tag), "w%d_flow_control_fast_host", e2e_width);
		fc_traffic(tag, 0, 1, fifo_half, fifo_quarter, RNIC_IB_MTU_4096, &plain);
		fc_report("on, host faster than the link: never needed", &plain,
			  plain.overflow == 0 && plain.retry == 0 && plain.pause_req == 0 &&
			  plain.ps[1].tx_xoff_frames == 0 && plain.ps[0].rx_pause_frames == 0);
	}
	fc_both_ways(slow_host);
	snprintf(tag, sizeof(tag), "w%d_flow_control_xoff1k", e2e_width);
	fc_traffic(tag, 0, 1, 1024, 512, RNIC_IB_MTU_1024, &low);
	fc_report("XOFF 1 KiB, XON 512 B, MTU 1024", &low,
		  low.overflow == 0 && low.retry == 0 && low.pause_req > 0 &&
		  low.ps[1].tx_xon_frames == low.pause_req &&
		  low.ps[0].rx_pause_frames == low.ps[1].tx_xoff_frames + low.ps[1].tx_xon_frames);
}

/* Same seed, same world, same work: same cycle count. */
static uint64_t timed_write(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct e2e_buf src = {0}, dst = {0};
	struct rnic_sg_entry sge;
	struct rnic_wc wc;
	uint64_t cycles = 0;
	const char *saved = e2e_pcap_dir;

	e2e_pcap_dir = NULL;
	w = make_world("det");
	e2e_pcap_dir = saved;
	sim_pair_default_opts(&o);
	if (w && !sim_pair_open(&p, w, &o)) {
		e2e_rng_seed(42);
		if (!e2e_buf_init(&src, p.side[0].pd, 65536, RNIC_ACCESS_LOCAL_WRITE, 1) &&
		    !e2e_buf_init(&dst, p.side[1].pd, 65536, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0)) {
			uint64_t c0 = rnic_world_cycle(w);

			sge.addr = (uint64_t)(uintptr_t)src.p;
			sge.length = 65536;
			sge.lkey = src.mr->lkey;
			if (!post_write(p.side[0].qp[0], 1, &sge, 1, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey) &&
			    sim_pair_wait(p.side[0].cq, &wc, 1, MAX_POLLS) == 1 && wc.status == RNIC_WC_SUCCESS)
				cycles = rnic_world_cycle(w) - c0;
		}
		e2e_buf_free(&src);
		e2e_buf_free(&dst);
		sim_pair_close(&p);
	}
	if (w)
		rnic_world_destroy(w);
	return cycles;
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e",
				"End-to-end RDMA WRITE tests on two simulated NICs.\n"
				"--quick: path MTU 1024 only (no 1 MiB message); flow control on, with\n"
				"the host slower than the link, only.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	e2e_mtu_suites(mtu_suite);
	error_suite();
	rx_drop_suite();
	wrap_suite();
	flow_control_suite();
	{
		uint64_t a = timed_write(), b = timed_write();

		e2e_result(a != 0 && a == b, "deterministic: 64 KiB WRITE took %llu and %llu cycles",
		           (unsigned long long)a, (unsigned long long)b);
	}
	return e2e_summary();
}
