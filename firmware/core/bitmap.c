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

int32_t fw_bit_find_run(const uint32_t *map, uint32_t n, uint32_t count)
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
