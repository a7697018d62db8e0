/* OpenRNIC firmware core: bitmaps of uint32_t words (bit i in word i / 32). */
#ifndef FW_CORE_BITMAP_H
#define FW_CORE_BITMAP_H

#include <stdint.h>

static inline int fw_bit_test(const uint32_t *map, uint32_t i)
{
	return (map[i / 32] >> (i % 32)) & 1;
}

static inline void fw_bit_set(uint32_t *map, uint32_t i)
{
	map[i / 32] |= 1u << (i % 32);
}

static inline void fw_bit_clear(uint32_t *map, uint32_t i)
{
	map[i / 32] &= ~(1u << (i % 32));
}

/* A clear bit in [lo, n), searched from hint on and wrapping; -1 if none. */
int32_t fw_bit_find_clear(const uint32_t *map, uint32_t lo, uint32_t n, uint32_t hint);

/* First fit: the lowest base of count clear bits in [0, n); -1 if none. */
int32_t fw_bit_find_run(const uint32_t *map, uint32_t n, uint32_t count);

/* Set / clear bits [i, i + count). */
void fw_bit_set_range(uint32_t *map, uint32_t i, uint32_t count);
void fw_bit_clear_range(uint32_t *map, uint32_t i, uint32_t count);

/* The first bit j in [i, n) set in `set` or clear in `clear`; n if none. */
uint32_t fw_bit_find_next(const uint32_t *set, const uint32_t *clear, uint32_t i, uint32_t n);

#endif /* FW_CORE_BITMAP_H */
