/* The firmware on the control processor, in the cycle-accurate core: the
 * image the build made boots on the simulated PicoRV32 and answers the host's
 * command mailbox through BAR0 (docs/firmware.md). Checks the boot, the
 * mailbox handshake (token, status, overrun, the halted bit) and a command of
 * each kind with good and bad arguments; prints each command's latency from
 * CMD_CTRL to the status read that saw it done, in cycles and ns.
 *
 *   rnic-e2e-fw --width 64|512 [--seed N]   (e2e_common's options)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_common.h"
#include "rnic/rnic_hw.h"
#include "rnic_sim.h"

struct fw {
	struct rnic_world *w;
	struct rnic_sim_nic *nic;
	uint16_t token;
	uint64_t last_cycles; /* latency of the last command */
};

/* Run one command: CMD_IN, CMD_CTRL, poll CMD_STATUS; CMD_OUT into out.
 * Returns the status, or -1 if it never completed or echoed another token. */
static int cmd(struct fw *f, unsigned int op, const uint32_t *in, unsigned int nin, uint32_t *out,
	       unsigned int nout)
{
	uint32_t st = 1;
	uint64_t c0;
	unsigned int polls;

	for (unsigned int i = 0; i < nin; i++)
		rnic_sim_bar_write32(f->nic, RNIC_REG_CMD_IN + 4 * i, in[i]);
	f->token++;
	c0 = rnic_world_cycle(f->w);
	rnic_sim_bar_write32(f->nic, RNIC_REG_CMD_CTRL, (uint32_t)f->token << RNIC_CMD_TOKEN_SHIFT | op);
	for (polls = 0; polls < 100000 && (st & RNIC_CMD_STATUS_BUSY); polls++)
		st = rnic_sim_bar_read32(f->nic, RNIC_REG_CMD_STATUS);
	f->last_cycles = rnic_world_cycle(f->w) - c0;
	if ((st & RNIC_CMD_STATUS_BUSY) || (st >> RNIC_CMD_TOKEN_SHIFT) != f->token ||
	    (st & RNIC_CMD_STATUS_HALTED))
		return -1;
	for (unsigned int i = 0; i < nout; i++)
		out[i] = rnic_sim_bar_read32(f->nic, RNIC_REG_CMD_OUT + 4 * i);
	return (int)((st >> RNIC_CMD_STATUS_ST_SHIFT) & RNIC_CMD_STATUS_ST_MASK);
}

static double ns(const struct fw *f, uint64_t cycles)
{
	return rnic_world_cycles_to_ns(f->w, cycles);
}

#define IN(rec) uint32_t rec##_in[RNIC_CMD_##rec##_IN_WORDS]; memset(rec##_in, 0, sizeof(rec##_in))
#define SET(rec, field, v) RNIC_CTX_SET(rec##_in, CMD_##rec##_IN, field, (v))

static void run(unsigned int width, uint64_t seed)
{
	struct rnic_sim_cfg cfg;
	struct fw f = {0};
	uint32_t out[32], v;
	uint64_t boot;
	const size_t pg = 1u << RNIC_MTT_PAGE_SHIFT;
	uint8_t *ring = aligned_alloc(pg, 4 * pg), *buf = aligned_alloc(pg, 257 * pg);
	uint32_t pd, cqn, qpn, key1, key256;
	int st;

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 1;
	cfg.data_width = width;
	cfg.seed = seed;
	f.w = rnic_world_create(&cfg);
	if (!f.w || !ring || !buf) {
		e2e_result(0, "world");
		goto out;
	}
	f.nic = rnic_world_nic(f.w, 0);
	rnic_sim_dma_map(f.nic, ring, 4 * pg);

	/* boot: FW_STATE holds the version once main() runs */
	v = 0;
	for (int i = 0; i < 20000 && v == 0; i++)
		v = rnic_sim_bar_read32(f.nic, RNIC_REG_FW_STATE);
	boot = rnic_world_cycle(f.w);
	e2e_result(v == RNIC_FW_VERSION, "firmware booted: FW_STATE 0x%08x after %llu cycles (%.1f us)", v, (unsigned long long)boot, ns(&f, boot) / 1000);
	if (v != RNIC_FW_VERSION)
		goto out;

	/* QUERY_DEVICE against the DEV block */
	st = cmd(&f, RNIC_CMD_OP_QUERY_DEVICE, NULL, 0, out, RNIC_CMD_QUERY_DEVICE_OUT_WORDS);
	e2e_result(st == RNIC_CMD_ST_OK &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, FW_VERSION) == RNIC_FW_VERSION &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_QP) ==
		       rnic_sim_bar_read32(f.nic, RNIC_REG_DEV_NUM_QPS) - 2 &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MTT) ==
		       rnic_sim_bar_read32(f.nic, RNIC_REG_DEV_NUM_MTT) &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_SEND_SGE) == RNIC_MAX_SEND_SGE &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_RD_ATOMIC) == RNIC_MAX_RD_ATOMIC &&
	       RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_INLINE_DATA) == RNIC_MAX_INLINE_BYTES,
	       "QUERY_DEVICE: status %d, max_qp %llu, max_mtt %llu (%llu cycles)", st,
	       (unsigned long long)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_QP),
	       (unsigned long long)RNIC_CTX_GET(out, CMD_QUERY_DEVICE_OUT, MAX_MTT),
	       (unsigned long long)f.last_cycles);

	st = cmd(&f, 0x7f, NULL, 0, NULL, 0);
	e2e_result(st == RNIC_CMD_ST_BAD_OPCODE, "unknown opcode 0x7f: status %d", st);

	/* overrun: a second CMD_CTRL while busy is ignored and flagged */
	rnic_sim_bar_write32(f.nic, RNIC_REG_CMD_CTRL,
			     0xbeefu << RNIC_CMD_TOKEN_SHIFT | RNIC_CMD_OP_QUERY_DEVICE);
	rnic_sim_bar_write32(f.nic, RNIC_REG_CMD_CTRL,
			     0xdeadu << RNIC_CMD_TOKEN_SHIFT | RNIC_CMD_OP_ALLOC_PD);
	v = rnic_sim_bar_read32(f.nic, RNIC_REG_CMD_STATUS);
	for (int i = 0; i < 100000 && (v & RNIC_CMD_STATUS_BUSY); i++)
		v = rnic_sim_bar_read32(f.nic, RNIC_REG_CMD_STATUS);
	e2e_result((v & RNIC_CMD_STATUS_OVERRUN) && (v >> RNIC_CMD_TOKEN_SHIFT) == 0xbeef &&
			   ((v >> RNIC_CMD_STATUS_ST_SHIFT) & RNIC_CMD_STATUS_ST_MASK) == RNIC_CMD_ST_OK,
	       "CMD_CTRL while busy: ignored and flagged (CMD_STATUS 0x%08x)", v);

	st = cmd(&f, RNIC_CMD_OP_ALLOC_PD, NULL, 0, out, RNIC_CMD_ALLOC_PD_OUT_WORDS);
	pd = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_PD_OUT, PD);
	e2e_result(st == RNIC_CMD_ST_OK && pd != 0, "ALLOC_PD: status %d, pd %u", st, pd);
	{
		IN(DEALLOC_PD);
		SET(DEALLOC_PD, PD, pd + 77);
		st = cmd(&f, RNIC_CMD_OP_DEALLOC_PD, DEALLOC_PD_in, RNIC_CMD_DEALLOC_PD_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BAD_HANDLE, "DEALLOC_PD of a PD never made: status %d", st);
	}

	/* a CQ and an RC QP, taken to RTS */
	{
		IN(CREATE_CQ);
		SET(CREATE_CQ, LOG_SIZE, 40);
		SET(CREATE_CQ, BASE, (uintptr_t)ring);
		st = cmd(&f, RNIC_CMD_OP_CREATE_CQ, CREATE_CQ_in, RNIC_CMD_CREATE_CQ_IN_WORDS, out, 1);
		e2e_result(st == RNIC_CMD_ST_BAD_PARAM, "CREATE_CQ of 2^40 entries: status %d", st);
		SET(CREATE_CQ, LOG_SIZE, 6);
		st = cmd(&f, RNIC_CMD_OP_CREATE_CQ, CREATE_CQ_in, RNIC_CMD_CREATE_CQ_IN_WORDS, out, 1);
		cqn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_CQ_OUT, CQN);
		e2e_result(st == RNIC_CMD_ST_OK && cqn != 0, "CREATE_CQ: status %d, cqn %u (%llu cycles)",
		       st, cqn, (unsigned long long)f.last_cycles);
	}
	{
		IN(CREATE_QP);
		SET(CREATE_QP, PD, pd);
		SET(CREATE_QP, SEND_CQN, cqn);
		SET(CREATE_QP, RECV_CQN, cqn);
		SET(CREATE_QP, QP_TYPE, RNIC_QP_TYPE_RC);
		SET(CREATE_QP, SQ_LOG_SIZE, 4);
		SET(CREATE_QP, RQ_LOG_SIZE, 4);
		SET(CREATE_QP, SQ_BASE, (uintptr_t)ring + 2 * pg);
		SET(CREATE_QP, RQ_BASE, (uintptr_t)ring + 3 * pg);
		st = cmd(&f, RNIC_CMD_OP_CREATE_QP, CREATE_QP_in, RNIC_CMD_CREATE_QP_IN_WORDS, out, 1);
		qpn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_QP_OUT, QPN);
		e2e_result(st == RNIC_CMD_ST_OK && qpn >= 2, "CREATE_QP: status %d, qpn %u; latency %llu cycles = %.0f ns", st, qpn, (unsigned long long)f.last_cycles, ns(&f, f.last_cycles));
	}
	{
		uint64_t to_rts = 0;
		IN(MODIFY_QP);
		SET(MODIFY_QP, QPN, qpn);
		SET(MODIFY_QP, PD, pd);
		/* RESET -> RTR is no transition */
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE);
		SET(MODIFY_QP, QP_STATE, RNIC_QPS_RTR);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BAD_STATE, "MODIFY_QP RESET -> RTR: status %d", st);
		/* RESET -> INIT without PORT: a required attribute missing */
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_PKEY_INDEX | RNIC_QP_ATTR_ACCESS_FLAGS);
		SET(MODIFY_QP, QP_STATE, RNIC_QPS_INIT);
		SET(MODIFY_QP, PORT_NUM, 1);
		SET(MODIFY_QP, QP_ACCESS_FLAGS, RNIC_ACCESS_REMOTE_WRITE);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BAD_ATTR_MASK, "MODIFY_QP RESET -> INIT without PORT: status %d", st);
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_PKEY_INDEX | RNIC_QP_ATTR_PORT |
					  RNIC_QP_ATTR_ACCESS_FLAGS);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		to_rts += f.last_cycles;
		e2e_result(st == RNIC_CMD_ST_OK, "MODIFY_QP RESET -> INIT: status %d", st);
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_AV | RNIC_QP_ATTR_PATH_MTU |
					  RNIC_QP_ATTR_DEST_QPN | RNIC_QP_ATTR_RQ_PSN |
					  RNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | RNIC_QP_ATTR_MIN_RNR_TIMER);
		SET(MODIFY_QP, QP_STATE, RNIC_QPS_RTR);
		SET(MODIFY_QP, IS_GLOBAL, 1);
		SET(MODIFY_QP, PATH_MTU, RNIC_IB_MTU_1024);
		SET(MODIFY_QP, DEST_QP_NUM, 0x123);
		SET(MODIFY_QP, RQ_PSN, 0x10);
		SET(MODIFY_QP, MAX_DEST_RD_ATOMIC, 16);
		SET(MODIFY_QP, MIN_RNR_TIMER, 12);
		SET(MODIFY_QP, DMAC, 0x021122334455ull);
		/* ::ffff:198.18.0.2, the low 32 bits of the 128-bit number first */
		rnic_ctx_set(MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB, 32, 0xc6120002u);
		rnic_ctx_set(MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB + 32, 32, 0x0000ffffu);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		to_rts += f.last_cycles;
		e2e_result(st == RNIC_CMD_ST_OK, "MODIFY_QP INIT -> RTR: status %d", st);
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_SQ_PSN | RNIC_QP_ATTR_TIMEOUT |
					  RNIC_QP_ATTR_RETRY_CNT | RNIC_QP_ATTR_RNR_RETRY |
					  RNIC_QP_ATTR_MAX_QP_RD_ATOMIC);
		SET(MODIFY_QP, QP_STATE, RNIC_QPS_RTS);
		SET(MODIFY_QP, SQ_PSN, 0x20);
		SET(MODIFY_QP, TIMEOUT, 14);
		SET(MODIFY_QP, RETRY_CNT, 7);
		SET(MODIFY_QP, RNR_RETRY, 7);
		SET(MODIFY_QP, MAX_RD_ATOMIC, 16);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		to_rts += f.last_cycles;
		e2e_result(st == RNIC_CMD_ST_OK, "MODIFY_QP RTR -> RTS: status %d; RESET -> RTS in %llu cycles = %.0f ns", st, (unsigned long long)to_rts, ns(&f, to_rts));
		/* the wrong PD is refused */
		SET(MODIFY_QP, PD, pd + 1);
		SET(MODIFY_QP, ATTR_MASK, RNIC_QP_ATTR_STATE);
		SET(MODIFY_QP, QP_STATE, RNIC_QPS_ERR);
		st = cmd(&f, RNIC_CMD_OP_MODIFY_QP, MODIFY_QP_in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_PD_MISMATCH, "MODIFY_QP with another PD: status %d", st);
	}
	{
		IN(QUERY_QP);
		SET(QUERY_QP, QPN, qpn);
		SET(QUERY_QP, PD, pd);
		st = cmd(&f, RNIC_CMD_OP_QUERY_QP, QUERY_QP_in, RNIC_CMD_QUERY_QP_IN_WORDS, out,
			 RNIC_CMD_QUERY_QP_OUT_WORDS);
		e2e_result(st == RNIC_CMD_ST_OK && RNIC_CTX_GET(out, CMD_QUERY_QP_OUT, QP_STATE) == RNIC_QPS_RTS &&
		       RNIC_CTX_GET(out, CMD_QUERY_QP_OUT, DEST_QP_NUM) == 0x123,
		       "QUERY_QP: status %d, state %llu", st,
		       (unsigned long long)RNIC_CTX_GET(out, CMD_QUERY_QP_OUT, QP_STATE));
	}

	/* memory regions of 1 and 256 pages: REG_MR, then the page list in
	 * chunks; the chunk with the last page makes the MR valid */
	for (unsigned int npages = 1; npages <= 256; npages += 255) {
		uint64_t total;
		uint32_t key, written = 0;
		int ok = 1;
		IN(REG_MR);
		IN(WRITE_MTT);
		SET(REG_MR, PD, pd);
		SET(REG_MR, ACCESS, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
		SET(REG_MR, VA, (uintptr_t)buf + 100);
		SET(REG_MR, LENGTH, npages * pg - 200);
		st = cmd(&f, RNIC_CMD_OP_REG_MR, REG_MR_in, RNIC_CMD_REG_MR_IN_WORDS, out, RNIC_CMD_REG_MR_OUT_WORDS);
		total = f.last_cycles;
		key = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, KEY);
		ok = st == RNIC_CMD_ST_OK && RNIC_CTX_GET(out, CMD_REG_MR_OUT, NPAGES) == npages;
		SET(WRITE_MTT, KEY, key);
		SET(WRITE_MTT, PD, pd);
		for (uint32_t off = 0; ok && off < npages; off += RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT) {
			uint32_t n = npages - off < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT ? npages - off :
										       RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT;

			SET(WRITE_MTT, OFFSET, off);
			SET(WRITE_MTT, COUNT, n);
			for (uint32_t i = 0; i < n; i++)
				RNIC_CTX_SET_I(WRITE_MTT_in, CMD_WRITE_MTT_IN, PAGE, i,
					       ((uintptr_t)buf & ~(uintptr_t)(pg - 1)) + (uint64_t)(off + i) * pg);
			st = cmd(&f, RNIC_CMD_OP_WRITE_MTT, WRITE_MTT_in, RNIC_CMD_WRITE_MTT_IN_WORDS, out,
				 RNIC_CMD_WRITE_MTT_OUT_WORDS);
			total += f.last_cycles;
			written = (uint32_t)RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, WRITTEN);
			ok = st == RNIC_CMD_ST_OK && written == off + n &&
			     RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, VALID) == (off + n == npages);
		}
		e2e_result(ok, "reg_mr of %u page(s) (REG_MR + %u WRITE_MTT): %llu cycles = %.1f us", npages,
		       (npages + RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT - 1) / RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT,
		       (unsigned long long)total, ns(&f, total) / 1000);
		if (npages == 1)
			key1 = key;
		else
			key256 = key;
	}
	{
		IN(DEREG_MR);
		SET(DEREG_MR, PD, pd);
		SET(DEREG_MR, KEY, key1);
		st = cmd(&f, RNIC_CMD_OP_DEREG_MR, DEREG_MR_in, RNIC_CMD_DEREG_MR_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_OK, "DEREG_MR: status %d", st);
		st = cmd(&f, RNIC_CMD_OP_DEREG_MR, DEREG_MR_in, RNIC_CMD_DEREG_MR_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BAD_HANDLE, "DEREG_MR twice: status %d", st);
		/* a PD still in use by a QP and an MR cannot go */
		IN(DEALLOC_PD);
		SET(DEALLOC_PD, PD, pd);
		st = cmd(&f, RNIC_CMD_OP_DEALLOC_PD, DEALLOC_PD_in, RNIC_CMD_DEALLOC_PD_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BUSY, "DEALLOC_PD in use: status %d", st);
		SET(DEREG_MR, KEY, key256);
		st = cmd(&f, RNIC_CMD_OP_DEREG_MR, DEREG_MR_in, RNIC_CMD_DEREG_MR_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_OK, "DEREG_MR of 256 pages: status %d", st);
	}
	{
		IN(DESTROY_QP);
		IN(DESTROY_CQ);
		IN(DEALLOC_PD);
		SET(DESTROY_QP, QPN, qpn);
		SET(DESTROY_QP, PD, pd);
		SET(DESTROY_CQ, CQN, cqn);
		SET(DEALLOC_PD, PD, pd);
		st = cmd(&f, RNIC_CMD_OP_DESTROY_CQ, DESTROY_CQ_in, RNIC_CMD_DESTROY_CQ_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_BUSY, "DESTROY_CQ in use by a QP: status %d", st);
		st = cmd(&f, RNIC_CMD_OP_DESTROY_QP, DESTROY_QP_in, RNIC_CMD_DESTROY_QP_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_OK, "DESTROY_QP: status %d", st);
		st = cmd(&f, RNIC_CMD_OP_DESTROY_CQ, DESTROY_CQ_in, RNIC_CMD_DESTROY_CQ_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_OK, "DESTROY_CQ: status %d", st);
		st = cmd(&f, RNIC_CMD_OP_DEALLOC_PD, DEALLOC_PD_in, RNIC_CMD_DEALLOC_PD_IN_WORDS, NULL, 0);
		e2e_result(st == RNIC_CMD_ST_OK, "DEALLOC_PD: status %d", st);
	}
	{
		IN(QUERY_COUNTER);
		SET(QUERY_COUNTER, FIRST, 0);
		SET(QUERY_COUNTER, COUNT, 4);
		st = cmd(&f, RNIC_CMD_OP_QUERY_COUNTER, QUERY_COUNTER_in, RNIC_CMD_QUERY_COUNTER_IN_WORDS, out, 4);
		e2e_result(st == RNIC_CMD_ST_OK && out[0] == rnic_sim_bar_read32(f.nic, RNIC_REG_STAT_TX_FRAMES),
		       "QUERY_COUNTER: status %d", st);
		SET(QUERY_COUNTER, COUNT, 1000);
		st = cmd(&f, RNIC_CMD_OP_QUERY_COUNTER, QUERY_COUNTER_in, RNIC_CMD_QUERY_COUNTER_IN_WORDS, out, 1);
		e2e_result(st == RNIC_CMD_ST_BAD_PARAM, "QUERY_COUNTER past the last counter: status %d", st);
	}
	v = rnic_sim_bar_read32(f.nic, RNIC_REG_CMD_STATUS);
	e2e_result(!(v & 4) && rnic_sim_nic_faults(f.nic, NULL, 0) == 0,
	       "firmware still running, no DMA fault (CMD_STATUS 0x%08x)", v);
	e2e_check_nics(f.w, "fw", 1);
out:
	rnic_world_destroy(f.w);
	free(ring);
	free(buf);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-fw",
				"The firmware on the simulated control processor, through the command mailbox.\n");

	if (rc >= 0)
		return rc;
	run((unsigned int)e2e_width, e2e_seed);
	return e2e_summary();
}
