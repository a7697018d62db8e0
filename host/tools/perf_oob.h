/* perftest's out-of-band exchange (TCP, port 18515), as a stock ib_write_bw
 * of perftest 4.5 speaks it with its default "Ethernet" exchange: the
 * messages (formatting and strict parsing) and the sequence each test runs.
 *
 * Every step is symmetric: the client writes its message, then reads the
 * server's, of the same length; the server reads first, then writes.
 *   version      16 B  "6.06", NUL-padded; the peer's must be >= 5.70
 *   cycle buffer  4 B  big-endian int32
 *   cache line    4 B  big-endian int32
 *   MTU           2 B  ibv_mtu digit and NUL ("3" = 1024); the smaller one wins
 *   keys        108 B  "%04x:%04x:%06x:%06x:%08x:%016x:" 16 x "%02x:" "%08x:" NUL:
 *                      lid, out_reads, qpn, psn, rkey, vaddr, gid, srqn; the
 *                      same message again at every later handshake
 *   reports   5 x 8 B  bw tests: size, iterations (u64), BW peak, BW average
 *                      (MB/s), message rate (Mpps) (IEEE doubles), big-endian,
 *                      each value one symmetric exchange of its own
 *   done          5 B  "done" and NUL
 *
 * With perftest's -R (rdma_cm) there is no TCP: the control channel is an
 * RC QP connected through the RDMA CM on the same port, every message above
 * is one SEND of the same bytes (one receive posted at a time, the client
 * sends first), the keys are binary (OOB_KEY_CM_LEN: perftest's struct
 * pingpong_dest, fields big-endian), "done" is not sent, and right after the
 * MTU come a key handshake, the data QPs' own CM connections to the same
 * port (OOB_STEP_CM_CONNECT: their PSNs set by the CM) and another key
 * handshake (both with perftest's still empty keys: all zero).
 */
#ifndef RNIC_TOOLS_PERF_OOB_H
#define RNIC_TOOLS_PERF_OOB_H

#include <stddef.h>
#include <stdint.h>

#define OOB_PORT 18515
#define OOB_VERSION "6.06"
#define OOB_VERSION_LEN 16
#define OOB_KEY_LEN 108
/* -R: struct pingpong_dest: lid, out_reads, qpn, psn, rkey (be32 at 0..16),
 * 4 bytes padding, vaddr (be64 at 24), gid (32), srqn, gid_index (be32 at 48, 52) */
#define OOB_KEY_CM_LEN 56
#define OOB_REPORT_LEN 40
#define OOB_MAX_QPS 64
#define OOB_MAX_SIZES 23  /* -a: 2^1 .. 2^23 */
#define OOB_MAX_STEPS (11 + 2 * OOB_MAX_QPS + 3 * OOB_MAX_SIZES)

enum perf_test {
	PERF_WRITE_BW,
	PERF_WRITE_LAT,
	PERF_READ_BW,
	PERF_READ_LAT,
	PERF_SEND_BW,
	PERF_SEND_LAT,
	PERF_ATOMIC_BW,
	PERF_NTESTS
};

/* "write_bw" ... ; perf_test_parse returns -1 for an unknown name. */
const char *perf_test_name(enum perf_test t);
int perf_test_parse(const char *name);
int perf_test_is_bw(enum perf_test t);
/* The work request a test posts (RNIC_WR_*). */
uint32_t perf_test_opcode(enum perf_test t);

struct oob_key {
	uint16_t lid;
	uint16_t out_reads;
	uint32_t qpn;       /* 24 bits */
	uint32_t psn;       /* 24 bits */
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
};

struct oob_report {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;
};

/* Formatting: out gets exactly the message's bytes. The parsers take the
 * bytes as received and return 0, or -1 for anything malformed (wrong
 * length, a field not of its exact width of lower- or upper-case hex digits,
 * a missing ':' or NUL, a value out of range). */
void oob_version_format(char out[OOB_VERSION_LEN]);
/* 0 when buf holds a version >= 5.70 ("MAJOR.MINOR", NUL-padded) */
int oob_version_parse(const char *buf, size_t len, int *major, int *minor);
void oob_be32_format(uint8_t out[4], uint32_t v);
int oob_be32_parse(const uint8_t *buf, size_t len, uint32_t *v);
/* mtu: RNIC_IB_MTU_256 (1) .. RNIC_IB_MTU_4096 (5) */
int oob_mtu_format(char out[2], uint32_t mtu);
int oob_mtu_parse(const char *buf, size_t len, uint32_t *mtu);
void oob_key_format(char out[OOB_KEY_LEN], const struct oob_key *k);
int oob_key_parse(const char *buf, size_t len, struct oob_key *k);
/* -R's binary key; the parser refuses a length other than OOB_KEY_CM_LEN, a
 * LID over 16 bits, a QPN or PSN over 24 */
void oob_key_cm_format(uint8_t out[OOB_KEY_CM_LEN], const struct oob_key *k);
int oob_key_cm_parse(const uint8_t *buf, size_t len, struct oob_key *k);
void oob_report_format(uint8_t out[OOB_REPORT_LEN], const struct oob_report *r);
int oob_report_parse(const uint8_t *buf, size_t len, struct oob_report *r);
int oob_done_parse(const char *buf, size_t len);

/* The exchange, step by step. */
enum oob_step_kind {
	OOB_STEP_VERSION,
	OOB_STEP_CYCLE_BUFFER,
	OOB_STEP_CACHE_LINE,
	OOB_STEP_MTU,
	OOB_STEP_KEYS,      /* a handshake: both key messages */
	OOB_STEP_TRAFFIC,   /* no message: the RDMA traffic runs */
	OOB_STEP_REPORTS,   /* bw tests: both report messages */
	OOB_STEP_DONE,      /* "done" both ways, then close */
	OOB_STEP_CLOSE,     /* close without "done" (write_lat; every test with -R) */
	OOB_STEP_CM_CONNECT,/* -R: no message: the data QPs connect through the CM */
};

size_t oob_step_len(enum oob_step_kind k);
const char *oob_step_name(enum oob_step_kind k);

/* The steps of test t, in order (version, cycle buffer, cache line, MTU,
 * then per test: write_bw, read_bw, atomic_bw: 3 handshakes, traffic, 1,
 * reports, 1, done; send_bw, read_lat, send_lat: 4, traffic, 1, done;
 * write_lat: 4, traffic, close). Returns the number of steps. */
int oob_plan(enum perf_test t, enum oob_step_kind steps[OOB_MAX_STEPS]);
/* The same with perftest's -q and -a: the handshakes that exchange every
 * QP's key (the first and the second of write_bw, read_bw and atomic_bw;
 * the first and the third of the others) become nqp of them, one per QP; send_bw's traffic
 * with its handshake before and after is repeated for each of nsizes
 * sizes (the other tests run all their sizes in one traffic step). */
int oob_plan_qs(enum perf_test t, int nqp, int nsizes, enum oob_step_kind steps[OOB_MAX_STEPS]);
/* The same, with rdma_cm (-R): after the MTU a handshake, OOB_STEP_CM_CONNECT
 * and a handshake; OOB_STEP_DONE becomes OOB_STEP_CLOSE. */
int oob_plan_cm(enum perf_test t, int nqp, int nsizes, int rdma_cm, enum oob_step_kind steps[OOB_MAX_STEPS]);

/* What one side brings and what it learns. */
struct oob_session {
	int fd;
	int client;
	enum perf_test test;
	/* ours */
	uint32_t cycle_buffer, cache_line, mtu;
	struct oob_key key;         /* QP 0's, and the one of every later handshake */
	int nqp;                    /* -q: QPs (0 or 1: one) */
	int nsizes;                 /* -a: sizes (0 or 1: one) */
	struct oob_key qp_key[OOB_MAX_QPS]; /* QP 1.. nqp-1's keys (qp_key[0] unused) */
	struct oob_report report;   /* sent at OOB_STEP_REPORTS */
	/* the peer's */
	int peer_major, peer_minor;
	uint32_t peer_cycle_buffer, peer_cache_line, peer_mtu;
	uint32_t active_mtu;        /* the smaller of the two */
	struct oob_key peer_key;    /* the peer's QP 0, and of every later handshake */
	struct oob_key peer_qp_key[OOB_MAX_QPS]; /* its QP 1.. nqp-1 */
	struct oob_report peer_report;
	int handshakes;             /* key handshakes done */
	int qp_round;               /* the QP whose key the current handshake carries */
	char err[160];              /* why oob_run failed */
	/* NULL, or called before every read of the peer's message with the
	 * socket: it returns 0 once fd is readable (meanwhile doing what the
	 * caller must, e.g. run a simulated NIC the peer is talking to), or
	 * non-zero to stop the exchange */
	int (*wait_readable)(void *arg, int fd);
	void *wait_arg;
	/* -R: the plan of oob_plan_cm, binary keys, and every message one call
	 * of msg_send / msg_recv (fd unused): 0, or non-zero with err set by
	 * the callee (msg_recv must take a message of exactly len bytes) */
	int rdma_cm;
	int (*msg_send)(void *arg, const void *buf, size_t len);
	int (*msg_recv)(void *arg, void *buf, size_t len);
	void *msg_arg;
};

/* Called before every step; OOB_STEP_TRAFFIC is its to run. Nonzero stops
 * the exchange (oob_run returns -1 and keeps the hook's message in err if
 * the hook wrote one). */
typedef int (*oob_hook)(struct oob_session *s, int step, enum oob_step_kind kind, void *arg);

/* Run test's whole plan over s->fd. 0, or -1 with s->err set. */
int oob_run(struct oob_session *s, oob_hook hook, void *arg);

/* TCP: a listening socket on port (0: any; the port bound in *bound), bound
 * to bind_addr (NULL: every address); a connection to host:port. The fd or
 * -1 with err set. */
int oob_listen(const char *bind_addr, uint16_t port, uint16_t *bound, char *err, size_t errlen);
int oob_accept(int lfd, char *err, size_t errlen);
int oob_connect(const char *host, uint16_t port, char *err, size_t errlen);

#endif
