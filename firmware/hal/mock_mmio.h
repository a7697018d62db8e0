/* OpenRNIC firmware: the mock register file of the native unit tests.
 *
 * Strict mode (the default after mock_mmio_reset): the test lists the exact
 * accesses it expects, in order, each a read (with the value the register
 * returns) or a write (with the value that must be written). Any other access
 * -- a different register, a write of another value, a read where a write was
 * expected, an access after the list is used up -- is a failure, and so is an
 * expectation left unused. A command that must not touch the device is run
 * with an empty list.
 *
 * Record mode: every access is accepted and logged, reads return the value
 * set with mock_mmio_set_reg() (0 if none); for tests that look at the
 * effect of a command rather than at every access. */
#ifndef FW_HAL_MOCK_MMIO_H
#define FW_HAL_MOCK_MMIO_H

#include <stddef.h>
#include <stdint.h>

struct mock_access {
	int write;    /* 1: write, 0: read */
	uint32_t off; /* BAR0 offset */
	uint32_t val; /* value written, or returned by the read */
};

/* Forget every expectation, failure, log entry and register value; strict. */
void mock_mmio_reset(void);
void mock_mmio_expect_read(uint32_t off, uint32_t val);
void mock_mmio_expect_write(uint32_t off, uint32_t val);
/* Record mode on (1) or off (0). */
void mock_mmio_record(int on);
/* The value reads of off return in record mode. */
void mock_mmio_set_reg(uint32_t off, uint32_t val);
/* Accesses seen since the last reset (both modes). */
size_t mock_mmio_count(void);
const struct mock_access *mock_mmio_access(size_t i);
/* 0 if every expectation was met in order and nothing unexpected happened;
 * else prints what went wrong (with the caller's label) and returns -1. */
int mock_mmio_verify(const char *label);

#endif /* FW_HAL_MOCK_MMIO_H */
