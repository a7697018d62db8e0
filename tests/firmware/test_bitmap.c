/* The firmware's bitmap functions against a bit-at-a-time reference, over
 * seeded random bitmaps with runs, full and empty words, and every
 * alignment. */
#include <stdio.h>
#include <string.h>

#include "core/bitmap.h"
#include "fw_test.h"

#define BITS 1000 /* not a multiple of 32: the last word is partial */
#define WORDS ((BITS + 31) / 32)

static uint64_t rng_state = 1;

static uint32_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31));
}

static int32_t ref_find_run(const uint32_t *map, uint32_t n, uint32_t count)
{
	uint32_t run = 0;

	if (count == 0 || count > n)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		run = fw_bit_test(map, i) ? 0 : run + 1;
		if (run == count)
			return (int32_t)(i + 1 - count);
	}
	return -1;
}

static uint32_t ref_find_next(const uint32_t *set, const uint32_t *clear, uint32_t i, uint32_t n)
{
	while (i < n && !fw_bit_test(set, i) && fw_bit_test(clear, i))
		i++;
	return i;
}

/* Words that are all ones, all zeros or mixed, in random stretches. */
static void fill(uint32_t *map)
{
	for (uint32_t w = 0; w < WORDS; w++) {
		uint32_t k = rng() % 4;

		map[w] = k == 0 ? 0 : k == 1 ? 0xffffffffu : k == 2 ? rng() : rng() & rng() & rng();
	}
}

int main(void)
{
	uint32_t a[WORDS], b[WORDS], c[WORDS];
	unsigned int bad_run = 0, bad_next = 0, bad_range = 0;

	for (int round = 0; round < 2000; round++) {
		uint32_t count = 1 + rng() % (round % 3 ? 40 : 300), i, n;

		fill(a);
		fill(b);
		n = BITS - rng() % 64;
		if (fw_bit_find_run(a, n, count) != ref_find_run(a, n, count))
			bad_run++;
		i = rng() % (n + 1);
		if (fw_bit_find_next(a, b, i, n) != ref_find_next(a, b, i, n))
			bad_next++;
		/* set / clear a range: exactly those bits change */
		i = rng() % BITS;
		count = rng() % (BITS - i + 1);
		memcpy(c, a, sizeof(c));
		fw_bit_set_range(c, i, count);
		for (uint32_t j = 0; j < BITS; j++)
			bad_range += fw_bit_test(c, j) != (j >= i && j < i + count ? 1 : fw_bit_test(a, j));
		memcpy(c, a, sizeof(c));
		fw_bit_clear_range(c, i, count);
		for (uint32_t j = 0; j < BITS; j++)
			bad_range += fw_bit_test(c, j) != (j >= i && j < i + count ? 0 : fw_bit_test(a, j));
	}
	CHECK_EQ(bad_run, 0);
	CHECK_EQ(bad_next, 0);
	CHECK_EQ(bad_range, 0);
	/* edge cases: empty and full maps, runs up to the end */
	memset(a, 0, sizeof(a));
	CHECK_EQ(fw_bit_find_run(a, BITS, BITS), 0);
	CHECK_EQ(fw_bit_find_run(a, BITS, BITS + 1), -1);
	CHECK_EQ(fw_bit_find_run(a, BITS, 0), -1);
	memset(a, 0xff, sizeof(a));
	CHECK_EQ(fw_bit_find_run(a, BITS, 1), -1);
	fw_bit_clear_range(a, BITS - 40, 40);
	CHECK_EQ(fw_bit_find_run(a, BITS, 40), BITS - 40);
	CHECK_EQ(fw_bit_find_run(a, BITS, 41), -1);
	memset(b, 0xff, sizeof(b));
	memset(c, 0, sizeof(c));
	CHECK_EQ(fw_bit_find_next(c, b, 3, BITS), BITS);
	fw_bit_set(c, 999);
	CHECK_EQ(fw_bit_find_next(c, b, 3, BITS), 999);
	return check_summary();
}
