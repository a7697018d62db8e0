/* Shared scaffolding of the firmware's native unit tests: checks, a booted
 * firmware state, and command helpers. One line per failed check and a
 * closing "N passed, N failed" line; exit status 1 on failure. */
#ifndef FW_TEST_H
#define FW_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "core/ctx.h"
#include "core/fw.h"
#include "hal/mock_mmio.h"
#include "../check.h"

extern unsigned int n_pass, n_fail;

/* The mock's verdict as a check. */
#define CHECK_MOCK(label) CHECK(mock_mmio_verify(label) == 0)

int check_summary(void);

/* The firmware under test and a copy to compare it with. */
extern struct fw fw, fw_before;

/* Empty tables for a device of the given sizes (0: the firmware's maximum). */
void t_init(uint32_t qps, uint32_t cqs, uint32_t mrs, uint32_t mtt, uint32_t pds);

/* A test's own bit packer (independent of rnic_hw.h's accessors). */
void t_put(uint32_t *w, unsigned int lsb, unsigned int width, uint64_t v);
uint64_t t_get(const uint32_t *w, unsigned int lsb, unsigned int width);

/* Run a command in record mode (the data path accepts every context write);
 * the output in out (may be NULL). */
enum fw_status t_cmd(uint32_t op, const uint32_t *in, uint32_t *out);

/* Run a command that must fail with want and change nothing: strict mock
 * with no expected access, tables compared before and after. */
void t_cmd_fails_(const char *what, int line, uint32_t op, const uint32_t *in,
		  enum fw_status want);
#define t_cmd_fails(op, in, want) t_cmd_fails_(__func__, __LINE__, (op), (in), (want))

/* Objects made through commands (record mode); each checks its status. */
uint32_t t_alloc_pd(void);
uint32_t t_create_cq(void);
uint32_t t_create_qp(uint32_t pd, uint32_t scq, uint32_t rcq);
/* Every attribute a MODIFY_QP may carry, valid values. */
void t_modify_in(uint32_t *in, uint32_t qpn, uint32_t pd, uint32_t mask, uint32_t state);
/* Take a fresh QP of pd to state s through legal transitions (SQE: set
 * directly, as the data path would). */
void t_qp_to_state(uint32_t qpn, uint32_t pd, uint32_t s);
/* REG_MR in record mode; key, mtt base and npages out. */
enum fw_status t_reg_mr(uint32_t pd, uint32_t access, uint64_t va, uint64_t len, uint32_t *key,
			uint32_t *mtt_base, uint32_t *npages);

#endif /* FW_TEST_H */
