/* OpenRNIC host library: internal objects shared by the .c files. */
#ifndef RNIC_PRIV_H
#define RNIC_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/backend.h"
#include "rnic/rnic_hw.h"
#include "rnic/verbs.h"

/* Library limits (see rnic_query_device). */
#define RNIC_LIB_MAX_QP_WR (1u << 15)   /* SQ/RQ PI travels mod 2^16 in DB_SQ/DB_RQ */
#define RNIC_LIB_MAX_CQE (1u << 15)     /* CQ CI travels mod 2^16 in DB_CQ */
#define RNIC_LIB_MAX_QPS (1u << 16)     /* QPN is 16 bits wide in DB_SQ */
#define RNIC_LIB_MAX_CQS (1u << 16)     /* CQN is 16 bits wide in QPC and DB_CQ */
#define RNIC_LIB_CMD_POLLS 10000000u    /* CMD_STATUS / FW_STATE polls before ETIMEDOUT */
#define RNIC_LIB_MTT_CHUNK RNIC_CMD_WRITE_MTT_IN_PAGE_COUNT /* pages per WRITE_MTT */
#define RNIC_LIB_MAX_BLOCKS 64          /* register blocks walked before EIO */
#define RNIC_BLK_MAJOR 1                /* block major version this library knows */

struct rnic_device {
	struct rnic_context context; /* handed to the user */
	const struct rnic_backend_ops *ops;
	void *priv;
	size_t page_size;

	/* Block bases found by walking the chain from offset 0. */
	uint32_t blk_dev, blk_port, blk_ctx, blk_stat, blk_db, blk_cmd;
	uint32_t dev_version;
	/* The DB block has the WQE window (version 1.1) and it is not turned
	 * off (RNIC_NO_WQE_WINDOW): rnic_post_send of a single inline WR writes
	 * its WQE there too. */
	int wqe_window;

	/* DEV block figures. */
	uint32_t dev_id, data_width, clock_mhz, max_inflight;

	/* The firmware (QUERY_DEVICE): it creates every object and numbers it. */
	uint32_t fw_version;
	uint32_t max_qp, max_cq, max_mr, max_pd, max_rd_atomic;
	uint32_t max_ah;
	uint32_t max_mw; /* memory windows: the MRs' MPT indices, shared */
	uint32_t max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach;
	uint32_t num_mtt; /* MTT entries: 4 KiB pages all MRs together may span */
	uint32_t cmd_token;
	uint32_t eq_ci;   /* asynchronous events taken (EQ_CI) */
	int fw_dead;      /* CMD_STATUS said halted: every command fails with EIO */

	struct rnic_qp_priv **qp_table; /* by QPN */
	struct rnic_cq_priv **cq_table; /* by CQN */
	unsigned int n_pd, n_mr, n_cq, n_qp, n_ah, n_mw;
	/* Shared receive queues (srq.c): SRQNs 1..max_srq. */
	uint32_t max_srq;
	struct rnic_srq_priv **srq_table;
	unsigned int n_srq;
};

struct rnic_pd_priv {
	struct rnic_pd pd;
	unsigned int refcnt; /* MRs, QPs, AHs and memory windows */
};

struct rnic_mr_priv {
	struct rnic_mr mr;
	uint32_t npages;
};

struct rnic_cq_priv {
	struct rnic_cq cq;
	struct rnic_cqe *ring;
	size_t ring_bytes;
	uint64_t bus_addr;
	uint32_t log_size;
	uint32_t ci;       /* consumer index, free running */
	uint32_t ci_db;    /* consumer index last written to DB_CQ */
	unsigned int refcnt; /* QPs */
};

struct rnic_qp_priv {
	struct rnic_qp qp;
	struct rnic_qp_cap cap;
	int sq_sig_all;
	struct rnic_wqe *sq;
	size_t sq_bytes;
	uint64_t sq_bus;
	uint32_t sq_log;
	uint32_t sq_head; /* producer index, free running */
	uint32_t sq_tail; /* oldest WQE not yet completed, free running */
	uint64_t *wrid;   /* wr_id per SQ slot */
	/* Receive queue; rq_size 0 (no ring) when created with max_recv_wr 0. */
	struct rnic_recv_wqe *rq;
	size_t rq_bytes;
	uint64_t rq_bus;
	uint32_t rq_log;
	uint32_t rq_size;  /* entries: 1 << rq_log, or 0 */
	uint32_t rq_head;  /* producer index, free running */
	uint32_t rq_tail;  /* oldest receive WQE not yet completed, free running */
	uint64_t *rq_wrid; /* wr_id per RQ slot */
	struct rnic_srq_priv *srq; /* receive WQEs from this SRQ instead (no RQ) */
};

struct rnic_srq_priv {
	struct rnic_srq srq;
	struct rnic_recv_wqe *ring;
	size_t ring_bytes;
	uint64_t bus;
	uint32_t log_size, max_sge;
	uint32_t head;     /* producer index, free running */
	uint32_t tail;     /* oldest slot not yet completed, free running */
	uint64_t *wrid;    /* wr_id per slot */
	uint8_t *busy;     /* per slot: posted and not yet completed (completions
			    * of different QPs come in any order) */
	unsigned int refcnt; /* QPs */
};

static inline struct rnic_device *rnic_dev(struct rnic_context *c) { return c->device; }
static inline struct rnic_pd_priv *pd_priv(struct rnic_pd *p) { return (struct rnic_pd_priv *)p; }
static inline struct rnic_mr_priv *mr_priv(struct rnic_mr *m) { return (struct rnic_mr_priv *)m; }
static inline struct rnic_cq_priv *cq_priv(struct rnic_cq *c) { return (struct rnic_cq_priv *)c; }
static inline struct rnic_qp_priv *qp_priv(struct rnic_qp *q) { return (struct rnic_qp_priv *)q; }
static inline struct rnic_srq_priv *srq_priv(struct rnic_srq *s) { return (struct rnic_srq_priv *)s; }

/* srq.c: the receive completion of SRQ slot idx (wqe_counter); EIO when it
 * names no WQE posted and not yet completed. */
int rnic_srq_complete(struct rnic_srq_priv *s, uint16_t idx, uint64_t *wr_id);
/* The 64-byte receive WQE of wr (qp.c). */
void rnic_recv_wqe_build(struct rnic_recv_wqe *dst, const struct rnic_recv_wr *wr);

/* Register addresses: the generated map gives absolute addresses; the library
 * adds each register's offset inside its block to the base it found. */
#define RNIC_DEV_REG(d, r) ((d)->blk_dev + ((r) - RNIC_BLK_DEV_BASE))
#define RNIC_PORT_REG(d, r) ((d)->blk_port + ((r) - RNIC_BLK_PORT_BASE))
#define RNIC_CTX_REG(d, r) ((d)->blk_ctx + ((r) - RNIC_BLK_CTX_BASE))
#define RNIC_DB_REG(d, r) ((d)->blk_db + ((r) - RNIC_BLK_DB_BASE))
#define RNIC_CMD_REG(d, r) ((d)->blk_cmd + ((r) - RNIC_BLK_CMD_BASE))

/* device.c */
uint32_t rnic_read32(struct rnic_device *d, uint32_t off);
void rnic_write32(struct rnic_device *d, uint32_t off, uint32_t val);
void rnic_progress(struct rnic_device *d);
void rnic_doorbell(struct rnic_device *d, uint32_t reg, uint32_t val);
void rnic_doorbell_wqe(struct rnic_device *d, uint32_t val, const void *wqe);
void *rnic_dma_alloc(struct rnic_device *d, size_t bytes, size_t *alloc_bytes, uint64_t *bus);
void rnic_dma_free(struct rnic_device *d, void *va, size_t bytes);
void rnic_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cmd.c: one firmware command; 0 or an errno (the status's meaning). */
int rnic_cmd(struct rnic_device *d, uint32_t opcode, const uint32_t *in, unsigned int nin,
	     uint32_t *out, unsigned int nout);
int rnic_cmd_errno(uint32_t status);
const char *rnic_cmd_status_str(uint32_t status);
/* Wait for FW_STATE and check the firmware's command-set version. */
int rnic_fw_wait_ready(struct rnic_device *d);

#endif /* RNIC_PRIV_H */
