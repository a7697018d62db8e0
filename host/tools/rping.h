/* rping's exchange (rdma-core, librdmacm/examples/rping.c) on the
 * connection manager (<rnic/rnic_cm.h>): the messages and their order are
 * rping's, so with a MAD carrier to a Linux host's QP1 the NIC can be either
 * end of a stock `rping -s` / `rping -c` (tests/host/rping_sim.c runs both
 * ends on two simulated NICs). Poll-driven: rping_poll takes the CM's
 * events and the CQ's completions and answers them; nothing blocks.
 *
 * Per ping, as rping does it:
 *   client  SEND start buffer's {addr, rkey, len}   (struct rping_rdma_info, big-endian)
 *   server  RDMA READ of len bytes from it into its buffer, then SEND "go ahead"
 *   client  SEND its sink buffer's {addr, rkey, len}
 *   server  RDMA WRITE of strlen + 1 bytes to the sink, then SEND "go ahead"
 *   client  (with validate) the sink must equal the start buffer
 * The client fills the start buffer as rping does: "rdma-ping-%d: " and a
 * rotating run of the letters A..z, NUL-terminated. After count pings the
 * client disconnects; the server answers the disconnect. */
#ifndef RNIC_TOOLS_RPING_H
#define RNIC_TOOLS_RPING_H

#include <stdint.h>
#include <sys/socket.h>

#include "rnic/rnic_cm.h"
#include "rnic/verbs.h"

#define RPING_INFO_BYTES 16 /* struct rping_rdma_info: be64 buf, be32 rkey, be32 size */
#define RPING_SQ_DEPTH 16
#define RPING_MSG_FMT "rdma-ping-%d: "
#define RPING_MIN_SIZE 24   /* rping's RPING_MIN_BUFSIZE: sizeof "2147483647" + sizeof RPING_MSG_FMT */
#define RPING_MAX_SIZE (64 * 1024 - 1)

enum rping_state {
	RPING_IDLE = 1, /* the values of rping's enum test_state */
	RPING_CONNECT_REQUEST,
	RPING_ADDR_RESOLVED,
	RPING_ROUTE_RESOLVED,
	RPING_CONNECTED,
	RPING_RDMA_READ_ADV,
	RPING_RDMA_READ_COMPLETE,
	RPING_RDMA_WRITE_ADV,
	RPING_RDMA_WRITE_COMPLETE,
	RPING_DISCONNECTED,
	RPING_ERROR
};

struct rping {
	int server;
	int size, count, validate;
	enum rping_state state;
	int pings;                 /* client: pings completed (and validated); server: pongs written */
	int done;                  /* the connection is over (disconnected) */
	char err[160];             /* why state is RPING_ERROR */
	char last[96];             /* the last ping's text (client: the sink; server: what it read) */

	struct rnic_cm_event_channel *ch;
	struct rnic_cm_id *listen_id; /* server */
	struct rnic_cm_id *id;        /* the connection */
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	uint8_t recv_buf[RPING_INFO_BYTES], send_buf[RPING_INFO_BYTES];
	struct rnic_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	char *rdma_buf, *start_buf;
	uint32_t remote_rkey, remote_len;
	uint64_t remote_addr;
	int start_char;
};

/* 0 or an errno. The server binds to addr (port included) and listens; the
 * client resolves addr and connects when the route is there. */
int rping_start_server(struct rping *r, struct rnic_cm_event_channel *ch, const struct sockaddr *addr, int size);
int rping_start_client(struct rping *r, struct rnic_cm_event_channel *ch, const struct sockaddr *addr, int size,
		       int count, int validate);
/* One turn: CM events, then completions. 1 when the run is over (done or
 * error: see state), else 0. */
int rping_poll(struct rping *r);
void rping_close(struct rping *r);

#endif
