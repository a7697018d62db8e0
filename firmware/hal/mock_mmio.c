/* OpenRNIC firmware: the mock register file (see mock_mmio.h). */
#include <stdio.h>
#include <stdlib.h>

#include "hal/mmio.h"
#include "hal/mock_mmio.h"

#define MOCK_MAX 65536
#define MOCK_REGS (RNIC_BAR0_BYTES / 4)

static struct mock_access expect[MOCK_MAX];
static struct mock_access seen[MOCK_MAX];
static uint32_t regs[MOCK_REGS];
static size_t n_expect, n_used, n_seen;
static unsigned int n_bad;
static int recording;
static char first_bad[256];

void mock_mmio_reset(void)
{
	n_expect = 0;
	n_used = 0;
	n_seen = 0;
	n_bad = 0;
	recording = 0;
	first_bad[0] = 0;
	for (size_t i = 0; i < MOCK_REGS; i++)
		regs[i] = 0;
}

static void push_expect(int write, uint32_t off, uint32_t val)
{
	if (n_expect == MOCK_MAX) {
		fprintf(stderr, "mock_mmio: more than %d expectations\n", MOCK_MAX);
		abort();
	}
	expect[n_expect++] = (struct mock_access){ write, off, val };
}

void mock_mmio_expect_read(uint32_t off, uint32_t val)
{
	push_expect(0, off, val);
}

void mock_mmio_expect_write(uint32_t off, uint32_t val)
{
	push_expect(1, off, val);
}

void mock_mmio_record(int on)
{
	recording = on;
}

void mock_mmio_set_reg(uint32_t off, uint32_t val)
{
	if (off / 4 < MOCK_REGS)
		regs[off / 4] = val;
}

size_t mock_mmio_count(void)
{
	return n_seen;
}

const struct mock_access *mock_mmio_access(size_t i)
{
	return i < n_seen ? &seen[i] : NULL;
}

static void log_access(int write, uint32_t off, uint32_t val)
{
	if (n_seen < MOCK_MAX)
		seen[n_seen++] = (struct mock_access){ write, off, val };
}

static void bad(int write, uint32_t off, uint32_t val)
{
	if (!n_bad++) {
		if (n_used < n_expect)
			snprintf(first_bad, sizeof(first_bad),
				 "access %zu: %s 0x%04x = 0x%08x, expected %s 0x%04x = 0x%08x",
				 n_seen, write ? "write" : "read", off, val,
				 expect[n_used].write ? "write" : "read", expect[n_used].off,
				 expect[n_used].val);
		else
			snprintf(first_bad, sizeof(first_bad),
				 "access %zu: %s 0x%04x = 0x%08x after the last expected access",
				 n_seen, write ? "write" : "read", off, val);
	}
}

uint32_t fw_mmio_read32(uint32_t off)
{
	uint32_t val = 0;

	if (off & 3 || off >= RNIC_BAR0_BYTES) {
		bad(0, off, 0);
	} else if (recording) {
		val = regs[off / 4];
	} else if (n_used < n_expect && !expect[n_used].write && expect[n_used].off == off) {
		val = expect[n_used++].val;
	} else {
		bad(0, off, 0);
	}
	log_access(0, off, val);
	return val;
}

void fw_mmio_write32(uint32_t off, uint32_t val)
{
	if (off & 3 || off >= RNIC_BAR0_BYTES) {
		bad(1, off, val);
	} else if (recording) {
		regs[off / 4] = val;
	} else if (n_used < n_expect && expect[n_used].write && expect[n_used].off == off &&
		   expect[n_used].val == val) {
		n_used++;
	} else {
		bad(1, off, val);
	}
	log_access(1, off, val);
}

int mock_mmio_verify(const char *label)
{
	if (n_bad) {
		printf("mock_mmio %s: %u unexpected access(es); first: %s\n", label, n_bad, first_bad);
		return -1;
	}
	if (!recording && n_used != n_expect) {
		printf("mock_mmio %s: %zu of %zu expected accesses not made; next: %s 0x%04x = 0x%08x\n",
		       label, n_expect - n_used, n_expect, expect[n_used].write ? "write" : "read",
		       expect[n_used].off, expect[n_used].val);
		return -1;
	}
	return 0;
}
