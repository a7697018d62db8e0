/* What the end-to-end programs share: the PASS/FAIL printer and its
 * counters, the command line, the seeded test data, counter reads and the
 * checks made on each NIC before its world goes away. */
#ifndef RNIC_E2E_COMMON_H
#define RNIC_E2E_COMMON_H

#include <stdint.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"

/* From the command line (--width, --seed, --pcap-dir, --quick). */
extern int e2e_width;
extern uint64_t e2e_seed;
extern const char *e2e_pcap_dir;
extern int e2e_quick;
extern int e2e_passed, e2e_failed;

/* Parse the common options; prog names the program in messages, help is
 * printed after the usage line. Returns -1 to go on, else the exit code. */
int e2e_parse_args(int argc, char **argv, const char *prog, const char *help);

/* One line "PASS wW ..." or "FAIL wW ...", counted. */
void e2e_result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The closing line "N passed, N failed"; returns the exit code. */
int e2e_summary(void);

/* splitmix64: deterministic test data from the seed */
void e2e_rng_seed(uint64_t s);
uint64_t e2e_rng(void);

/* A statistics counter, or on_error when it cannot be read. */
uint32_t e2e_counter_or(struct rnic_context *ctx, uint32_t reg, uint32_t on_error);
static inline uint32_t e2e_counter(struct rnic_context *ctx, uint32_t reg)
{
	return e2e_counter_or(ctx, reg, 0);
}

struct e2e_nic_health {
	uint64_t faults;          /* DMA outside mapped memory */
	uint64_t protocol_errors; /* AXI4 rule broken (4 KiB crossing, bad burst) */
	uint64_t bar_errors;
};

void e2e_nic_health(struct rnic_sim_nic *nic, struct e2e_nic_health *h);

/* One PASS/FAIL line per NIC of w: no DMA fault, no AXI protocol error and,
 * with bar set, no BAR error. Made before each world goes away. */
void e2e_check_nics(struct rnic_world *w, const char *tag, int bar);

#endif
