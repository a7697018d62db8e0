/* The simulator's memory-protection checker catches what it must and only
 * that (docs/memcheck.md). One NIC; its PD, CQ, QPs and MRs are made through
 * the firmware's command mailbox, so the checker mirrors them; RDMA WRITEs
 * come as frames injected into the NIC (the reference model's codec, valid
 * ICRC). Then contexts are corrupted through the CTX window behind the
 * mirror's back, as a data-path or firmware bug would, and each planted bad
 * DMA must be reported with its access and the offending frame:
 *
 *   - a WRITE into an MR the host registered without write rights, through
 *     an MPT entry rewritten with REMOTE_WRITE (the NIC's key check passes);
 *   - a WRITE into an MR registered with LOCAL_WRITE but not REMOTE_WRITE,
 *     through an MPT entry rewritten with REMOTE_WRITE (the NIC may write the
 *     MR, but not for a peer);
 *   - a WRITE into an MR of another PD, through an MPT entry rewritten with
 *     the QP's PD;
 *   - a WRITE through a wrong MTT entry, onto a page the IOMMU maps but the
 *     host never granted the device (the IOMMU alone sees nothing wrong);
 *   - an SQ fetch from a CQ ring, through a QPC written with the CQ ring as
 *     its SQ (a read the device must never make);
 *   - a receive WQE fetch from a CQ ring, through an SRQ context the host
 *     never created (CTX_TABLE_SRQC written with the CQ ring as its ring)
 *     and a QPC that names it: a SEND makes the responder read the SRQ's
 *     WQE from a ring that is not a granted SRQ.
 *
 *   rnic-memcheck-test --width 64|512 [--seed N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_common.h"
#include "fz_common.h"

#define PG (1u << RNIC_MTT_PAGE_SHIFT)
#define WAIT_CYCLES 20000u

struct t {
	struct fz_nic f;
	uint32_t pd, cqn, qpn, qpn2;
	uint32_t psn;
	uint8_t *cq, *sq, *rq, *sq2;
	uint8_t *a, *b, *c; /* MR A (read/write), MR B (remote read only), C (mapped, never granted) */
	uint8_t *d, *e;     /* MR D (LOCAL_WRITE only), MR E (every right, another PD) */
	uint32_t key_a, key_b, mtt_a, mtt_b, key_d, mtt_d, key_e, mtt_e, pd2;
	uint64_t bus_c;
};

static uint64_t violations(struct t *t, struct rnic_sim_violation *v)
{
	return rnic_sim_nic_violations(t->f.nic, v, 1);
}

/* An RDMA WRITE ONLY of n bytes of pattern x at va, rkey; the next PSN. */
static void inject_write(struct t *t, uint64_t va, uint32_t rkey, uint32_t n, uint8_t x)
{
	struct rc_pkt p;
	uint8_t payload[512], frame[RC_MAX_FRAME];
	int len;

	memset(payload, x, sizeof(payload));
	fz_pkt_init(&p, RNIC_OP_RDMA_WRITE_ONLY, t->qpn, t->psn++);
	p.reth_va = va;
	p.reth_rkey = rkey;
	p.reth_len = n;
	p.payload = payload;
	p.payload_len = n;
	len = rc_encode(&p, frame, sizeof(frame), 0);
	if (len < 0 || rnic_sim_inject_frame(t->f.w, 0, frame, (size_t)len) < 0)
		e2e_result(0, "frame built and injected");
}

/* Run until n bytes at p hold x, or WAIT_CYCLES; 1 if they do. */
static int wait_bytes(struct t *t, const uint8_t *p, uint32_t n, uint8_t x)
{
	for (unsigned int c = 0; c < WAIT_CYCLES; c += 100) {
		int ok = 1;

		for (uint32_t i = 0; i < n && ok; i++)
			ok = p[i] == x;
		if (ok)
			return 1;
		rnic_world_step(t->f.w, 100);
	}
	return 0;
}

/* The QP back to RTS after an error: ERR, RESET, then connected again. */
static int reconnect(struct t *t)
{
	t->psn = 0x100;
	return fz_qp_modify_state(&t->f, t->qpn, t->pd, RNIC_QPS_ERR) == RNIC_CMD_ST_OK &&
	       fz_qp_modify_state(&t->f, t->qpn, t->pd, RNIC_QPS_RESET) == RNIC_CMD_ST_OK &&
	       fz_qp_connect(&t->f, t->qpn, t->pd,
			     RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ, 0x55, t->psn, 0,
			     RNIC_IB_MTU_1024) == RNIC_CMD_ST_OK;
}

static int setup(struct t *t)
{
	uint64_t pages[1];

	t->cq = aligned_alloc(PG, PG);
	t->sq = aligned_alloc(PG, PG);
	t->rq = aligned_alloc(PG, PG);
	t->sq2 = aligned_alloc(PG, PG);
	t->a = aligned_alloc(PG, 2 * PG);
	t->b = aligned_alloc(PG, PG);
	t->c = aligned_alloc(PG, PG);
	t->d = aligned_alloc(PG, PG);
	t->e = aligned_alloc(PG, PG);
	if (!t->cq || !t->sq || !t->rq || !t->sq2 || !t->a || !t->b || !t->c || !t->d || !t->e)
		return 0;
	memset(t->d, 0, PG);
	memset(t->e, 0, PG);
	memset(t->cq, 0, PG);
	memset(t->sq, 0, PG);
	memset(t->rq, 0, PG);
	memset(t->sq2, 0, PG);
	memset(t->a, 0, 2 * PG);
	memset(t->b, 0, PG);
	memset(t->c, 0, PG);
	if (rnic_sim_dma_map_pages(t->f.nic, t->c, PG, pages))
		return 0;
	t->bus_c = pages[0];
	t->psn = 0x100;
	return fz_alloc_pd(&t->f, &t->pd) == RNIC_CMD_ST_OK &&
	       fz_create_cq(&t->f, 6, t->cq, &t->cqn) == RNIC_CMD_ST_OK &&
	       fz_create_qp(&t->f, t->pd, t->cqn, 4, t->sq, 4, t->rq, &t->qpn) == RNIC_CMD_ST_OK &&
	       fz_create_qp(&t->f, t->pd, t->cqn, 4, t->sq2, 0, NULL, &t->qpn2) == RNIC_CMD_ST_OK &&
	       fz_qp_connect(&t->f, t->qpn, t->pd,
			     RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ, 0x55, t->psn, 0,
			     RNIC_IB_MTU_1024) == RNIC_CMD_ST_OK &&
	       fz_reg_mr(&t->f, t->pd,
			 RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ,
			 t->a, 2 * PG, &t->key_a, &t->mtt_a) == RNIC_CMD_ST_OK &&
	       fz_reg_mr(&t->f, t->pd, RNIC_ACCESS_REMOTE_READ, t->b, PG, &t->key_b, &t->mtt_b) ==
		       RNIC_CMD_ST_OK;
}

/* MR key's MPT entry rewritten behind the mirror's back: pd, access. */
static int plant_mpt(struct t *t, uint32_t key, uint32_t mtt, const uint8_t *buf, uint32_t pd,
		     uint32_t access)
{
	uint32_t words[RNIC_CTX_WORDS];

	memset(words, 0, sizeof(words));
	RNIC_CTX_SET(words, MPT, VALID, 1);
	RNIC_CTX_SET(words, MPT, ACCESS, access);
	RNIC_CTX_SET(words, MPT, PD, pd);
	RNIC_CTX_SET(words, MPT, KEY, key);
	RNIC_CTX_SET(words, MPT, VA, (uintptr_t)buf);
	RNIC_CTX_SET(words, MPT, LENGTH, PG);
	RNIC_CTX_SET(words, MPT, PA, (1ull << RNIC_MPT_PA_MTT_BIT) + ((uint64_t)mtt << RNIC_MTT_PAGE_SHIFT));
	return fz_ctx_write(&t->f, RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, key >> RNIC_MKEY_TAG_BITS,
			    words, RNIC_MPT_WORDS) == 0;
}

/* The newest violation since n0 names key and holds `want`. */
static int reported(struct t *t, uint64_t n0, uint32_t key, const char *want, uint64_t *n)
{
	struct rnic_sim_violation all[64];
	char k[32];
	int found = 0;

	*n = rnic_sim_nic_violations(t->f.nic, all, 64);
	snprintf(k, sizeof(k), "MR key 0x%x ", key);
	for (uint64_t i = n0; i < *n && i < 64; i++)
		if (all[i].write && strstr(all[i].what, k) && strstr(all[i].what, want))
			found = 1;
	if (!found && *n > n0 && n0 < 64)
		printf("  newest violation: %s\n", all[*n - 1 < 64 ? *n - 1 : 63].what);
	return found;
}

static void run(void)
{
	struct t t;
	struct rnic_sim_memcheck_stats st;
	struct rnic_sim_violation v;
	uint32_t words[RNIC_CTX_WORDS];
	uint64_t n0;
	int ok;

	memset(&t, 0, sizeof(t));
	if (fz_open(&t.f, (unsigned int)e2e_width, e2e_seed, 1)) {
		e2e_result(0, "world and firmware");
		return;
	}
	ok = setup(&t);
	rnic_sim_nic_memcheck_stats(t.f.nic, &st);
	e2e_result(ok && st.armed && st.objects_live == 6,
		   "setup through the mailbox: PD, CQ, 2 QPs, 2 MRs; checker armed, %llu objects",
		   (unsigned long long)st.objects_live);
	if (!ok)
		goto out;

	/* a good WRITE: data in MR A, checked, no violation */
	inject_write(&t, (uintptr_t)t.a + 100, t.key_a, 300, 0x11);
	ok = wait_bytes(&t, t.a + 100, 300, 0x11);
	rnic_world_step(t.f.w, 2000);
	rnic_sim_nic_memcheck_stats(t.f.nic, &st);
	e2e_result(ok && st.violations == 0 && st.wr_beats_checked > 0,
		   "WRITE into MR A (LOCAL_WRITE|REMOTE_WRITE): data landed, %llu write beats checked, %llu violations",
		   (unsigned long long)st.wr_beats_checked, (unsigned long long)st.violations);

	/* WRITE into MR B, registered without write rights: the NIC refuses it */
	n0 = rnic_sim_bar_read32(t.f.nic, RNIC_REG_STAT_RX_ACCESS_ERR);
	inject_write(&t, (uintptr_t)t.b + 8, t.key_b, 64, 0x22);
	rnic_world_step(t.f.w, WAIT_CYCLES);
	ok = t.b[8] == 0 && rnic_sim_bar_read32(t.f.nic, RNIC_REG_STAT_RX_ACCESS_ERR) == n0 + 1;
	e2e_result(ok && violations(&t, NULL) == 0,
		   "WRITE into MR B (REMOTE_READ only): refused by the NIC (STAT_RX_ACCESS_ERR +1), no violation");
	e2e_result(reconnect(&t), "QP back to RTS (ERR, RESET, INIT, RTR, RTS)");

	/* planted: B's MPT entry rewritten with write rights */
	ok = plant_mpt(&t, t.key_b, t.mtt_b, t.b, t.pd,
		       RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
	inject_write(&t, (uintptr_t)t.b + 8, t.key_b, 64, 0x33);
	ok = ok && wait_bytes(&t, t.b + 8, 64, 0x33);
	n0 = violations(&t, &v);
	{
		char want[64];

		snprintf(want, sizeof(want), "MR key 0x%x", t.key_b);
		e2e_result(ok && n0 >= 1 && v.write && strstr(v.what, want) &&
				   strstr(v.what, "not inside a LOCAL_WRITE SGE") &&
				   strstr(v.what, "or an RDMA WRITE that"),
			   "planted MPT with REMOTE_WRITE on MR B: the write is reported (%llu violation(s); first: %s of %u bytes at 0x%llx, cycle %llu: %s)",
			   (unsigned long long)n0, v.write ? "write" : "read", v.len,
			   (unsigned long long)v.addr, (unsigned long long)v.cycle, v.what);
	}

	/* planted: MR D may be written by the NIC (LOCAL_WRITE) but not by a
	 * peer; its MPT entry rewritten with REMOTE_WRITE lets a WRITE in */
	ok = fz_reg_mr(&t.f, t.pd, RNIC_ACCESS_LOCAL_WRITE, t.d, PG, &t.key_d, &t.mtt_d) ==
		     RNIC_CMD_ST_OK &&
	     plant_mpt(&t, t.key_d, t.mtt_d, t.d, t.pd,
		       RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	inject_write(&t, (uintptr_t)t.d + 512, t.key_d, 64, 0x55);
	ok = ok && wait_bytes(&t, t.d + 512, 64, 0x55);
	{
		uint64_t n;
		int found = reported(&t, n0, t.key_d, "or an RDMA WRITE that", &n);

		e2e_result(ok && found,
			   "planted MPT with REMOTE_WRITE on MR D (LOCAL_WRITE only): the peer's write is reported (%llu violation(s) now)",
			   (unsigned long long)n);
		n0 = n;
	}

	/* planted: MR E of another PD, its MPT entry rewritten with the QP's PD */
	ok = fz_alloc_pd(&t.f, &t.pd2) == RNIC_CMD_ST_OK &&
	     fz_reg_mr(&t.f, t.pd2,
		       RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ,
		       t.e, PG, &t.key_e, &t.mtt_e) == RNIC_CMD_ST_OK &&
	     plant_mpt(&t, t.key_e, t.mtt_e, t.e, t.pd,
		       RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
	inject_write(&t, (uintptr_t)t.e + 1024, t.key_e, 64, 0x66);
	ok = ok && wait_bytes(&t, t.e + 1024, 64, 0x66);
	{
		char want[32];
		uint64_t n;

		int found;

		snprintf(want, sizeof(want), "(pd %u,", t.pd2);
		found = reported(&t, n0, t.key_e, want, &n);
		e2e_result(ok && found,
			   "planted MPT with the QP's PD on MR E (PD %u): the write across PDs is reported (%llu violation(s) now)",
			   t.pd2, (unsigned long long)n);
		n0 = n;
	}

	/* planted: MR A's first MTT entry pointing at page C */
	memset(words, 0, sizeof(words));
	RNIC_CTX_SET(words, MTT, PAGE, t.bus_c >> RNIC_MTT_PAGE_SHIFT);
	ok = fz_ctx_write(&t.f, RNIC_CTX_TABLE_MTT, RNIC_CTX_OP_WRITE, t.mtt_a, words,
			  RNIC_MTT_WORDS) == 0;
	inject_write(&t, (uintptr_t)t.a + 200, t.key_a, 128, 0x44);
	ok = ok && wait_bytes(&t, t.c + 200, 128, 0x44);
	{
		struct rnic_sim_violation all[16];
		uint64_t n = rnic_sim_nic_violations(t.f.nic, all, 16);
		int found = 0;

		for (uint64_t i = n0; i < n && i < 16; i++)
			if (all[i].write && (all[i].addr >> RNIC_MTT_PAGE_SHIFT) ==
						    (t.bus_c >> RNIC_MTT_PAGE_SHIFT) &&
			    strstr(all[i].what, "outside every region"))
				found = 1;
		e2e_result(ok && found,
			   "planted MTT entry of MR A onto an ungranted page: the IOMMU lets the write through (%llu DMA faults), the checker reports it (%llu violation(s) now)",
			   (unsigned long long)rnic_sim_nic_faults(t.f.nic, NULL, 0),
			   (unsigned long long)n);
		n0 = n;
	}

	/* planted: QP 2 (RESET for the firmware) written as RTS with the CQ ring as its SQ */
	memset(words, 0, sizeof(words));
	RNIC_CTX_SET(words, QPC, STATE, RNIC_QPS_RTS);
	RNIC_CTX_SET(words, QPC, PMTU, RNIC_IB_MTU_1024);
	RNIC_CTX_SET(words, QPC, DEST_QPN, 0x56);
	RNIC_CTX_SET(words, QPC, PD, t.pd);
	RNIC_CTX_SET(words, QPC, SEND_CQN, t.cqn);
	RNIC_CTX_SET(words, QPC, RECV_CQN, t.cqn);
	RNIC_CTX_SET(words, QPC, SQ_LOG_SIZE, 4);
	RNIC_CTX_SET(words, QPC, RETRY_CNT, 1);
	RNIC_CTX_SET(words, QPC, MAX_RD_ATOMIC, 1);
	RNIC_CTX_SET(words, QPC, UDP_SPORT, RNIC_ROCEV2_SPORT_MIN);
	RNIC_CTX_SET(words, QPC, PKEY, RNIC_DEFAULT_PKEY);
	RNIC_CTX_SET(words, QPC, HOP_LIMIT, RNIC_IPV4_DEFAULT_TTL);
	fz_set_gid(words, RNIC_QPC_DGID_LSB, fz_peer_gid);
	RNIC_CTX_SET(words, QPC, SQ_BASE, (uintptr_t)t.cq);
	ok = fz_ctx_write(&t.f, RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, t.qpn2, words,
			  RNIC_QPC_WORDS) == 0;
	rnic_sim_bar_write32(t.f.nic, RNIC_REG_DB_SQ, t.qpn2 << 16 | 1);
	rnic_world_step(t.f.w, WAIT_CYCLES);
	{
		struct rnic_sim_violation all[16];
		uint64_t n = rnic_sim_nic_violations(t.f.nic, all, 16);
		int found = 0;

		for (uint64_t i = n0; i < n && i < 16; i++)
			if (!all[i].write && all[i].addr >= (uintptr_t)t.cq &&
			    all[i].addr < (uintptr_t)t.cq + PG && strstr(all[i].what, "CQ ring"))
				found = 1;
		e2e_result(ok && found,
			   "planted QPC with the CQ ring as SQ: the WQE fetch is reported as a read of the CQ ring (%llu violation(s) now)",
			   (unsigned long long)n);
	}
	/* planted: SRQ 1 (never created) with the CQ ring as its ring, and QP
	 * 2 written as RTS on it; one WQE posted (DB_SRQ), then a SEND */
	n0 = rnic_sim_nic_violations(t.f.nic, NULL, 0);
	memset(words, 0, sizeof(words));
	RNIC_CTX_SET(words, SRQC, VALID, 1);
	RNIC_CTX_SET(words, SRQC, LOG_SIZE, 4);
	RNIC_CTX_SET(words, SRQC, PD, t.pd);
	RNIC_CTX_SET(words, SRQC, BASE, (uintptr_t)t.cq);
	ok = fz_ctx_write(&t.f, RNIC_CTX_TABLE_SRQC, RNIC_CTX_OP_WRITE, 1, words, RNIC_SRQC_WORDS) == 0;
	memset(words, 0, sizeof(words));
	RNIC_CTX_SET(words, QPC, STATE, RNIC_QPS_RTS);
	RNIC_CTX_SET(words, QPC, PMTU, RNIC_IB_MTU_1024);
	RNIC_CTX_SET(words, QPC, DEST_QPN, 0x56);
	RNIC_CTX_SET(words, QPC, RQ_PSN, 0x300);
	RNIC_CTX_SET(words, QPC, PD, t.pd);
	RNIC_CTX_SET(words, QPC, SEND_CQN, t.cqn);
	RNIC_CTX_SET(words, QPC, RECV_CQN, t.cqn);
	RNIC_CTX_SET(words, QPC, SQ_LOG_SIZE, 4);
	RNIC_CTX_SET(words, QPC, SQ_BASE, (uintptr_t)t.sq2);
	RNIC_CTX_SET(words, QPC, SRQN, 1);
	RNIC_CTX_SET(words, QPC, RETRY_CNT, 1);
	RNIC_CTX_SET(words, QPC, MAX_RD_ATOMIC, 1);
	RNIC_CTX_SET(words, QPC, UDP_SPORT, RNIC_ROCEV2_SPORT_MIN);
	RNIC_CTX_SET(words, QPC, PKEY, RNIC_DEFAULT_PKEY);
	RNIC_CTX_SET(words, QPC, HOP_LIMIT, RNIC_IPV4_DEFAULT_TTL);
	fz_set_gid(words, RNIC_QPC_DGID_LSB, fz_peer_gid);
	ok = ok && fz_ctx_write(&t.f, RNIC_CTX_TABLE_QPC, RNIC_CTX_OP_WRITE, t.qpn2, words,
				RNIC_QPC_WORDS) == 0;
	rnic_sim_bar_write32(t.f.nic, RNIC_REG_DB_SRQ, 1u << 16 | 1);
	rnic_world_step(t.f.w, 2000); /* the doorbell in before the SEND */
	{
		struct rc_pkt p;
		uint8_t payload[64], frame[RC_MAX_FRAME];
		int len;

		memset(payload, 0x77, sizeof(payload));
		fz_pkt_init(&p, RNIC_OP_SEND_ONLY, t.qpn2, 0x300);
		p.payload = payload;
		p.payload_len = sizeof(payload);
		len = rc_encode(&p, frame, sizeof(frame), 0);
		ok = ok && len > 0 && rnic_sim_inject_frame(t.f.w, 0, frame, (size_t)len) >= 0;
	}
	rnic_world_step(t.f.w, WAIT_CYCLES);
	{
		struct rnic_sim_violation all[16];
		uint64_t n = rnic_sim_nic_violations(t.f.nic, all, 16);
		int found = 0;

		for (uint64_t i = n0; i < n && i < 16; i++)
			if (!all[i].write && all[i].addr >= (uintptr_t)t.cq &&
			    all[i].addr < (uintptr_t)t.cq + PG && strstr(all[i].what, "CQ ring") &&
			    strstr(all[i].what, "receive WQE"))
				found = 1;
		e2e_result(ok && found,
			   "planted SRQC with the CQ ring as its ring and a QPC on it: the receive WQE fetch of a SEND is reported as a read of the CQ ring (%llu violation(s) now)",
			   (unsigned long long)n);
	}
	rnic_sim_nic_memcheck_stats(t.f.nic, &st);
	printf("  checker: %llu commands, %llu objects, %llu read bursts and %llu write beats checked, %llu violations\n",
	       (unsigned long long)st.commands, (unsigned long long)st.objects_live,
	       (unsigned long long)st.rd_bursts_checked, (unsigned long long)st.wr_beats_checked,
	       (unsigned long long)st.violations);
out:
	fz_close(&t.f);
	free(t.cq);
	free(t.sq);
	free(t.rq);
	free(t.sq2);
	free(t.a);
	free(t.b);
	free(t.c);
	free(t.d);
	free(t.e);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-memcheck-test",
				"Planted bad DMAs must be reported by the memory-protection checker.\n");

	if (rc >= 0)
		return rc;
	run();
	return e2e_summary();
}
