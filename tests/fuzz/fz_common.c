/* See fz_common.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_common.h"

/* locally administered MACs; addresses from the benchmarking range 198.18.0.0/15 */
const uint8_t fz_nic_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
const uint8_t fz_peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
const uint8_t fz_nic_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1};
const uint8_t fz_peer_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 2};

/* CMD_STATUS fields (docs/formats.toml, block cmd) */
#define ST_BUSY 0x1u
#define ST_HALTED 0x4u
#define FW_POLLS 200000
#define CTX_POLLS 10000

uint64_t fz_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int fz_open(struct fz_nic *f, unsigned int width, uint64_t seed, int memcheck_nonfatal)
{
	struct rnic_sim_cfg cfg;
	uint32_t v = 0;

	memset(f, 0, sizeof(*f));
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 1;
	cfg.data_width = width;
	cfg.seed = seed;
	cfg.memcheck_nonfatal = memcheck_nonfatal;
	f->w = rnic_world_create(&cfg);
	if (!f->w) {
		fprintf(stderr, "cannot create the world: %s\n", strerror(errno));
		return -1;
	}
	f->nic = rnic_world_nic(f->w, 0);
	for (int i = 0; i < 20000 && v == 0; i++)
		v = rnic_sim_bar_read32(f->nic, RNIC_REG_FW_STATE);
	if (v != RNIC_FW_VERSION) {
		fprintf(stderr, "firmware did not boot: FW_STATE 0x%08x\n", v);
		return -1;
	}
	rnic_sim_bar_write32(f->nic, RNIC_REG_PORT_MAC_LO, be32(fz_nic_mac + 2));
	rnic_sim_bar_write32(f->nic, RNIC_REG_PORT_MAC_HI,
			     (uint32_t)fz_nic_mac[0] << 8 | fz_nic_mac[1]);
	for (int w = 0; w < 4; w++)
		rnic_sim_bar_write32(f->nic, RNIC_REG_PORT_GID + 4 * w, be32(fz_nic_gid + 4 * w));
	rnic_sim_bar_flush(f->nic);
	return 0;
}

void fz_close(struct fz_nic *f)
{
	rnic_world_destroy(f->w);
	f->w = NULL;
}

int fz_cmd(struct fz_nic *f, unsigned int op, const uint32_t *in, unsigned int nin,
	   uint32_t *out, unsigned int nout)
{
	uint32_t st = ST_BUSY;
	uint64_t c0;

	for (unsigned int i = 0; i < nin; i++)
		rnic_sim_bar_write32(f->nic, RNIC_REG_CMD_IN + 4 * i, in[i]);
	f->token++;
	c0 = rnic_world_cycle(f->w);
	rnic_sim_bar_write32(f->nic, RNIC_REG_CMD_CTRL, (uint32_t)f->token << 16 | (op & 0xff));
	for (int polls = 0; polls < FW_POLLS && (st & ST_BUSY) && st != 0xffffffffu; polls++)
		st = rnic_sim_bar_read32(f->nic, RNIC_REG_CMD_STATUS);
	f->last_cycles = rnic_world_cycle(f->w) - c0;
	f->last_status = st;
	if ((st & ST_BUSY) || (st >> 16) != f->token || (st & ST_HALTED))
		return -1;
	if (((st >> 8) & 0xff) == RNIC_CMD_ST_OK)
		for (unsigned int i = 0; i < nout; i++)
			out[i] = rnic_sim_bar_read32(f->nic, RNIC_REG_CMD_OUT + 4 * i);
	return (int)((st >> 8) & 0xff);
}

void fz_set_gid(uint32_t *w, unsigned int lsb, const uint8_t gid[16])
{
	for (unsigned int k = 0; k < 4; k++)
		rnic_ctx_set(w, lsb + 32 * k, 32, be32(gid + 12 - 4 * k));
}

int fz_alloc_pd(struct fz_nic *f, uint32_t *pd)
{
	uint32_t out[RNIC_CMD_ALLOC_PD_OUT_WORDS];
	int st = fz_cmd(f, RNIC_CMD_OP_ALLOC_PD, NULL, 0, out, RNIC_CMD_ALLOC_PD_OUT_WORDS);

	if (st == RNIC_CMD_ST_OK)
		*pd = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_PD_OUT, PD);
	return st;
}

int fz_create_cq(struct fz_nic *f, unsigned int log_size, void *ring, uint32_t *cqn)
{
	uint32_t in[RNIC_CMD_CREATE_CQ_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_CQ_OUT_WORDS];
	int st;

	if (rnic_sim_dma_map(f->nic, ring, (size_t)RNIC_CQE_BYTES << log_size))
		return -1;
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, LOG_SIZE, log_size);
	RNIC_CTX_SET(in, CMD_CREATE_CQ_IN, BASE, (uintptr_t)ring);
	st = fz_cmd(f, RNIC_CMD_OP_CREATE_CQ, in, RNIC_CMD_CREATE_CQ_IN_WORDS, out,
		    RNIC_CMD_CREATE_CQ_OUT_WORDS);
	if (st == RNIC_CMD_ST_OK)
		*cqn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_CQ_OUT, CQN);
	return st;
}

int fz_create_qp(struct fz_nic *f, uint32_t pd, uint32_t cqn, unsigned int sq_log, void *sq,
		 unsigned int rq_log, void *rq, uint32_t *qpn)
{
	return fz_create_qp_type(f, RNIC_QP_TYPE_RC, pd, cqn, sq_log, sq, rq_log, rq, qpn);
}

int fz_create_qp_type(struct fz_nic *f, unsigned int type, uint32_t pd, uint32_t cqn, unsigned int sq_log,
		      void *sq, unsigned int rq_log, void *rq, uint32_t *qpn)
{
	uint32_t in[RNIC_CMD_CREATE_QP_IN_WORDS] = {0}, out[RNIC_CMD_CREATE_QP_OUT_WORDS];
	int st;

	if (rnic_sim_dma_map(f->nic, sq, (size_t)RNIC_WQE_BYTES << sq_log) ||
	    (rq && rnic_sim_dma_map(f->nic, rq, (size_t)RNIC_RECV_WQE_BYTES << rq_log)))
		return -1;
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SEND_CQN, cqn);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RECV_CQN, cqn);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, QP_TYPE, type);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_LOG_SIZE, sq_log);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_LOG_SIZE, rq ? rq_log : 0);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, SQ_BASE, (uintptr_t)sq);
	RNIC_CTX_SET(in, CMD_CREATE_QP_IN, RQ_BASE, (uintptr_t)rq);
	st = fz_cmd(f, RNIC_CMD_OP_CREATE_QP, in, RNIC_CMD_CREATE_QP_IN_WORDS, out,
		    RNIC_CMD_CREATE_QP_OUT_WORDS);
	if (st == RNIC_CMD_ST_OK)
		*qpn = (uint32_t)RNIC_CTX_GET(out, CMD_CREATE_QP_OUT, QPN);
	return st;
}

int fz_qp_modify_state(struct fz_nic *f, uint32_t qpn, uint32_t pd, unsigned int state)
{
	uint32_t in[RNIC_CMD_MODIFY_QP_IN_WORDS] = {0};

	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, RNIC_QP_ATTR_STATE);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, state);
	return fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
}

int fz_qp_ud_rts(struct fz_nic *f, uint32_t qpn, uint32_t pd, uint32_t qkey, uint32_t sq_psn)
{
	uint32_t in[RNIC_CMD_MODIFY_QP_IN_WORDS] = {0};
	int st = fz_qp_modify_state(f, qpn, pd, RNIC_QPS_RESET);

	if (st != RNIC_CMD_ST_OK)
		return st;
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK,
		     RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_PKEY_INDEX | RNIC_QP_ATTR_PORT | RNIC_QP_ATTR_QKEY);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_INIT);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PORT_NUM, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QKEY, qkey);
	st = fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
	if (st != RNIC_CMD_ST_OK)
		return st;
	st = fz_qp_modify_state(f, qpn, pd, RNIC_QPS_RTR);
	if (st != RNIC_CMD_ST_OK)
		return st;
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_SQ_PSN);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_RTS);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SQ_PSN, sq_psn);
	return fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
}

int fz_qp_connect(struct fz_nic *f, uint32_t qpn, uint32_t pd, unsigned int access,
		  uint32_t dest_qpn, uint32_t rq_psn, uint32_t sq_psn, unsigned int mtu)
{
	uint32_t in[RNIC_CMD_MODIFY_QP_IN_WORDS] = {0};
	uint64_t dmac = 0;
	int st;

	for (int i = 0; i < 6; i++)
		dmac = dmac << 8 | fz_peer_mac[i];
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK,
		     RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_PKEY_INDEX | RNIC_QP_ATTR_PORT |
			     RNIC_QP_ATTR_ACCESS_FLAGS);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_INIT);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PORT_NUM, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_ACCESS_FLAGS, access);
	st = fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
	if (st != RNIC_CMD_ST_OK)
		return st;
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK,
		     RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_AV | RNIC_QP_ATTR_PATH_MTU |
			     RNIC_QP_ATTR_DEST_QPN | RNIC_QP_ATTR_RQ_PSN |
			     RNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | RNIC_QP_ATTR_MIN_RNR_TIMER);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_RTR);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, IS_GLOBAL, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PATH_MTU, mtu);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DEST_QP_NUM, dest_qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RQ_PSN, rq_psn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_DEST_RD_ATOMIC, RNIC_MAX_RD_ATOMIC);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MIN_RNR_TIMER, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, DMAC, dmac);
	fz_set_gid(in, RNIC_CMD_MODIFY_QP_IN_DGID_LSB, fz_peer_gid);
	st = fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
	if (st != RNIC_CMD_ST_OK)
		return st;
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK,
		     RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_SQ_PSN | RNIC_QP_ATTR_TIMEOUT |
			     RNIC_QP_ATTR_RETRY_CNT | RNIC_QP_ATTR_RNR_RETRY |
			     RNIC_QP_ATTR_MAX_QP_RD_ATOMIC);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_RTS);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, SQ_PSN, sq_psn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, TIMEOUT, 0);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RETRY_CNT, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, RNR_RETRY, 1);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, MAX_RD_ATOMIC, RNIC_MAX_RD_ATOMIC);
	return fz_cmd(f, RNIC_CMD_OP_MODIFY_QP, in, RNIC_CMD_MODIFY_QP_IN_WORDS, NULL, 0);
}

int fz_reg_mr(struct fz_nic *f, uint32_t pd, unsigned int access, void *va, size_t len,
	      uint32_t *key, uint32_t *mtt_base)
{
	uint32_t in[RNIC_CMD_WRITE_MTT_IN_WORDS] = {0}, out[RNIC_CMD_REG_MR_OUT_WORDS];
	uint64_t npages = (((uintptr_t)va + len - 1) >> RNIC_MTT_PAGE_SHIFT) -
			  ((uintptr_t)va >> RNIC_MTT_PAGE_SHIFT) + 1;
	uint64_t *pages = calloc(npages, sizeof(*pages));
	uint32_t k;
	int st;

	if (!pages || rnic_sim_dma_map_pages(f->nic, va, len, pages)) {
		free(pages);
		return -1;
	}
	RNIC_CTX_SET(in, CMD_REG_MR_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, ACCESS, access);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, VA, (uintptr_t)va);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, LENGTH, len);
	st = fz_cmd(f, RNIC_CMD_OP_REG_MR, in, RNIC_CMD_REG_MR_IN_WORDS, out,
		    RNIC_CMD_REG_MR_OUT_WORDS);
	if (st != RNIC_CMD_ST_OK) {
		free(pages);
		return st;
	}
	k = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, KEY);
	if (mtt_base)
		*mtt_base = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, MTT_BASE);
	memset(in, 0, sizeof(in));
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, KEY, k);
	RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, PD, pd);
	for (uint64_t off = 0; off < npages && st == RNIC_CMD_ST_OK;
	     off += RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT) {
		uint64_t n = npages - off < RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT ?
				     npages - off : RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT;

		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, off);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, n);
		for (uint64_t i = 0; i < n; i++)
			RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, i, pages[off + i]);
		st = fz_cmd(f, RNIC_CMD_OP_WRITE_MTT, in, RNIC_CMD_WRITE_MTT_IN_WORDS, out,
			    RNIC_CMD_WRITE_MTT_OUT_WORDS);
	}
	free(pages);
	*key = k;
	return st;
}

int fz_mw_req_pending(struct fz_nic *f)
{
	return (rnic_sim_bar_read32(f->nic, RNIC_REG_CTX_STATUS) & RNIC_CTX_STATUS_MW_REQ) != 0;
}

int fz_ctx_write(struct fz_nic *f, unsigned int table, unsigned int op, uint32_t index,
		 const uint32_t *words, unsigned int nwords)
{
	uint32_t st = 1;

	/* the firmware uses the window while it serves a window request
	 * (CTX_STATUS bit 2 until its MW_ANSWER); a host writing the window
	 * behind its back waits for that, or the two writes would mix */
	for (int i = 0; i < CTX_POLLS && fz_mw_req_pending(f); i++)
		rnic_world_step(rnic_sim_nic_world(f->nic), 16);
	for (unsigned int i = 0; i < nwords; i++)
		rnic_sim_bar_write32(f->nic, RNIC_REG_CTX_DATA + 4 * i, words[i]);
	rnic_sim_bar_write32(f->nic, RNIC_REG_CTX_CMD,
			     table | (op << RNIC_CTX_CMD_OP_SHIFT) | (index << RNIC_CTX_CMD_INDEX_SHIFT));
	for (int i = 0; i < CTX_POLLS && (st & RNIC_CTX_STATUS_BUSY); i++)
		st = rnic_sim_bar_read32(f->nic, RNIC_REG_CTX_STATUS);
	if (st & (RNIC_CTX_STATUS_BUSY | RNIC_CTX_STATUS_ERROR))
		fprintf(stderr, "fz_ctx_write: table %u op %u index %u: CTX_STATUS 0x%x (%s)\n", table, op,
			(unsigned int)index, (unsigned int)st, st & RNIC_CTX_STATUS_BUSY ? "still busy" : "error");
	return (st & (RNIC_CTX_STATUS_BUSY | RNIC_CTX_STATUS_ERROR)) ? -1 : 0;
}

void fz_pkt_init(struct rc_pkt *p, unsigned int opcode, uint32_t qpn, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->eth_dst, fz_nic_mac, 6);
	memcpy(p->eth_src, fz_peer_mac, 6);
	memcpy(p->sgid, fz_peer_gid, 16);
	memcpy(p->dgid, fz_nic_gid, 16);
	p->hop_limit = RNIC_IPV4_DEFAULT_TTL;
	p->ip_frag = 0x4000; /* DF */
	p->udp_sport = RNIC_ROCEV2_SPORT_MIN;
	p->opcode = (uint8_t)opcode;
	p->pkey = RNIC_DEFAULT_PKEY;
	p->tver = RNIC_BTH_TVER;
	p->dest_qpn = qpn;
	p->psn = psn;
	p->ackreq = 1;
}
