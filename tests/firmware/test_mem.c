/* The firmware's own memset, memcpy, memmove and memcmp (firmware/lib/mem.c,
 * the cross build's; the native build has libc's) compiled here under other
 * names and checked against libc's: every length 0..200 at every alignment
 * of each end, the bytes around the range untouched. */
#include <stdio.h>
#include <string.h>

#include "fw_test.h"

#define memset fw_lib_memset
#define memcpy fw_lib_memcpy
#define memmove fw_lib_memmove
#define memcmp fw_lib_memcmp
#include "lib/mem.c"
#undef memset
#undef memcpy
#undef memmove
#undef memcmp

#define LEN 200
#define PAD 16

static uint8_t pattern(unsigned i)
{
	return (uint8_t)(i * 37u + 11u);
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pattern((unsigned)i + seed);
}

static void test_memset(void)
{
	static _Alignas(4) uint8_t got[LEN + 2 * PAD], want[LEN + 2 * PAD];
	int bad = 0;

	for (size_t off = 0; off < 4 && !bad; off++)
		for (size_t n = 0; n <= LEN && !bad; n++) {
			fill(got, sizeof(got), 1);
			fill(want, sizeof(want), 1);
			if (fw_lib_memset(got + PAD + off, 0x5a, n) != got + PAD + off)
				bad = 1;
			memset(want + PAD + off, 0x5a, n);
			if (memcmp(got, want, sizeof(got))) {
				printf("  memset: offset %zu length %zu\n", off, n);
				bad = 1;
			}
		}
	CHECK(!bad);
}

static void test_memcpy(void)
{
	static _Alignas(4) uint8_t src[LEN + 2 * PAD], got[LEN + 2 * PAD], want[LEN + 2 * PAD];
	int bad = 0;

	fill(src, sizeof(src), 7);
	for (size_t doff = 0; doff < 4 && !bad; doff++)
		for (size_t soff = 0; soff < 4 && !bad; soff++)
			for (size_t n = 0; n <= LEN && !bad; n++) {
				fill(got, sizeof(got), 3);
				fill(want, sizeof(want), 3);
				if (fw_lib_memcpy(got + PAD + doff, src + PAD + soff, n) != got + PAD + doff)
					bad = 1;
				memcpy(want + PAD + doff, src + PAD + soff, n);
				if (memcmp(got, want, sizeof(got))) {
					printf("  memcpy: offsets %zu/%zu length %zu\n", doff, soff, n);
					bad = 1;
				}
			}
	CHECK(!bad);
}

/* overlapping both ways */
static void test_memmove(void)
{
	static uint8_t got[LEN + 2 * PAD], want[LEN + 2 * PAD];
	int bad = 0;

	for (int shift = -9; shift <= 9 && !bad; shift++)
		for (size_t n = 0; n <= LEN - 2 * PAD && !bad; n++) {
			fill(got, sizeof(got), 5);
			fill(want, sizeof(want), 5);
			fw_lib_memmove(got + 2 * PAD + shift, got + 2 * PAD, n);
			memmove(want + 2 * PAD + shift, want + 2 * PAD, n);
			if (memcmp(got, want, sizeof(got))) {
				printf("  memmove: shift %d length %zu\n", shift, n);
				bad = 1;
			}
		}
	CHECK(!bad);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void test_memcmp(void)
{
	uint8_t a[64], b[64];
	int bad = 0;

	fill(a, sizeof(a), 9);
	for (size_t n = 0; n <= sizeof(a) && !bad; n++)
		for (size_t at = 0; at < sizeof(a) && !bad; at++)
			for (int d = -1; d <= 1; d += 2) {
				memcpy(b, a, sizeof(b));
				b[at] = (uint8_t)(b[at] + d);
				if (sign(fw_lib_memcmp(a, b, n)) != sign(memcmp(a, b, n))) {
					printf("  memcmp: length %zu byte %zu\n", n, at);
					bad = 1;
				}
			}
	CHECK(!bad);
}

int main(void)
{
	test_memset();
	test_memcpy();
	test_memmove();
	test_memcmp();
	return check_summary();
}
