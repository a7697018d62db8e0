/* host/tools/wire.c: wire bytes and the goodput limit of known messages
 * (the figures worked out by hand in the comments). */
#include <math.h>
#include <stdio.h>

#include "rnic/rnic_hw.h"
#include "wire.h"

static int failures;

#define CHECK_BYTES(op, msg, mtu, v6, want)                                                          \
	do {                                                                                         \
		unsigned long long got_ = (unsigned long long)wire_msg_bytes(op, msg, mtu, v6);       \
		if (got_ != (want)) {                                                                \
			fprintf(stderr, "FAIL %s:%d: wire_msg_bytes(%s, %llu, %u, %d) = %llu, want %llu\n", \
				__FILE__, __LINE__, #op, (unsigned long long)(msg), (unsigned)(mtu), v6, got_, \
				(unsigned long long)(want));                                          \
			failures++;                                                                  \
		}                                                                                    \
	} while (0)

#define CHECK_NEAR(got, want, tol)                                                                  \
	do {                                                                                        \
		double g_ = (got), w_ = (want);                                                     \
		if (!(fabs(g_ - w_) <= (tol))) {                                                    \
			fprintf(stderr, "FAIL %s:%d: %s = %.6f, want %.6f\n", __FILE__, __LINE__, #got, \
				g_, w_);                                                            \
			failures++;                                                                 \
		}                                                                                   \
	} while (0)

int main(void)
{
	/* 4 KiB WRITE at MTU 4096 over IPv4, one packet: 4096 payload + RETH
	 * 16 + BTH 12 + UDP 8 + IPv4 20 + Ethernet 14 + ICRC 4 + FCS 4 +
	 * preamble 8 + gap 12 = 4194 bytes, 97.66% of the line rate */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 4096, 4096, 0, 4194);
	CHECK_NEAR(wire_limit(RNIC_WR_RDMA_WRITE, 4096, 4096, 0), 4096.0 / 4194.0, 1e-12);
	CHECK_NEAR(round(wire_limit(RNIC_WR_RDMA_WRITE, 4096, 4096, 0) * 10000) / 100, 97.66, 1e-9);
	/* the same over IPv6: 20 bytes more */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 4096, 4096, 1, 4214);

	/* multi-packet WRITE: RETH on the first packet only; 64 KiB at MTU 4096
	 * = 4194 + 15 * 4178 */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 65536, 4096, 0, 66864);
	/* 10000 B at MTU 4096: 4096 (RETH) + 4096 + 1808 = 4194 + 4178 + 1890 */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 10000, 4096, 0, 10262);
	/* ImmDt on the last packet */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE_WITH_IMM, 10000, 4096, 0, 10266);

	/* SEND: no extension header; 4 KiB at MTU 1024 = 4 * (1024 + 82) */
	CHECK_BYTES(RNIC_WR_SEND, 4096, 1024, 0, 4424);
	CHECK_NEAR(wire_limit(RNIC_WR_SEND, 4096, 1024, 0), 4096.0 / 4424.0, 1e-12);
	CHECK_BYTES(RNIC_WR_SEND_WITH_IMM, 4096, 1024, 0, 4428);

	/* READ: the response packets, AETH on the first and last (4 KiB at MTU
	 * 1024) and on the only one (64 B) */
	CHECK_BYTES(RNIC_WR_RDMA_READ, 4096, 1024, 0, 4432);
	CHECK_BYTES(RNIC_WR_RDMA_READ, 64, 4096, 0, 150);

	/* small messages: the payload padded to 4 bytes (1 B SEND: 58 + 4 =
	 * 62-byte frame), and a frame under 60 bytes padded to 60 + FCS = 64
	 * (a 0-byte SEND: 58 -> 60, + 24) */
	CHECK_BYTES(RNIC_WR_SEND, 1, 4096, 0, 86);
	CHECK_BYTES(RNIC_WR_SEND, 0, 4096, 0, 84);
	CHECK_NEAR(wire_limit(RNIC_WR_SEND, 0, 4096, 0), 0.0, 0);
	/* a 64 B WRITE: 58 + 16 + 64 = 138 + 24 = 162 */
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 64, 4096, 0, 162);
	CHECK_NEAR(wire_limit(RNIC_WR_RDMA_WRITE, 64, 4096, 0), 64.0 / 162.0, 1e-12);

	/* what it does not know */
	CHECK_BYTES(RNIC_WR_ATOMIC_FETCH_AND_ADD, 8, 4096, 0, 0);
	CHECK_BYTES(RNIC_WR_RDMA_WRITE, 64, 0, 0, 0);

	if (failures) {
		fprintf(stderr, "wire-tests: %d failed\n", failures);
		return 1;
	}
	printf("wire-tests: all passed\n");
	return 0;
}
