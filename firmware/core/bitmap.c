/* OpenRNIC firmware core: bitmap searches. */
#include "core/bitmap.h"

int32_t fw_bit_find_clear(const uint32_t *map, uint32_t lo, uint32_t n, uint32_t hint)
{
	uint32_t span;

	if (n <= lo)
		return -1;
	span = n - lo;
	if (hint < lo || hint >= n)
		hint = lo;
	for (uint32_t k = 0; k < span; k++) {
		uint32_t i = hint + k;

		if (i >= n)
			i -= span;
		if (!fw_bit_test(map, i))
			return (int32_t)i;
	}
	return -1;
}

/* Whole words at a time where a word decides alone (all used: the run
 * restarts; all free and the run still short: it grows by 32). The MTT
 * bitmap has 16384 bits and every REG_MR searches it. */
int32_t fw_bit_find_run(const uint32_t *map, uint32_t n, uint32_t count)
{
	uint32_t run = 0, i = 0;

	if (count == 0 || count > n)
		return -1;
	while (i < n) {
		if (i % 32 == 0 && n - i >= 32) {
			uint32_t w = map[i / 32];

			if (w == 0xffffffffu) {
				run = 0;
				i += 32;
				continue;
			}
			if (w == 0 && count - run > 32) {
				run += 32;
				i += 32;
				continue;
			}
		}
		run = fw_bit_test(map, i) ? 0 : run + 1;
		i++;
		if (run == count)
			return (int32_t)(i - count);
	}
	return -1;
}

/* Bits [lo, lo + count) of one word as a mask. */
static uint32_t word_mask(uint32_t lo, uint32_t count)
{
	uint32_t m = count >= 32 ? 0xffffffffu : (1u << count) - 1;

	return m << (lo % 32);
}

void fw_bit_set_range(uint32_t *map, uint32_t i, uint32_t count)
{
	while (count) {
		uint32_t k = 32 - i % 32 < count ? 32 - i % 32 : count;

		map[i / 32] |= word_mask(i, k);
		i += k;
		count -= k;
	}
}

void fw_bit_clear_range(uint32_t *map, uint32_t i, uint32_t count)
{
	while (count) {
		uint32_t k = 32 - i % 32 < count ? 32 - i % 32 : count;

		map[i / 32] &= ~word_mask(i, k);
		i += k;
		count -= k;
	}
}

uint32_t fw_bit_find_next(const uint32_t *set, const uint32_t *clear, uint32_t i, uint32_t n)
{
	while (i < n) {
		/* bits i.. of this word that are set in `set` or clear in `clear` */
		uint32_t hit = (set[i / 32] | ~clear[i / 32]) & ~((1u << (i % 32)) - 1);

		if (hit) {
			i = (i & ~31u) + (uint32_t)__builtin_ctz(hit);
			return i < n ? i : n;
		}
		i = (i & ~31u) + 32;
	}
	return n;
}
