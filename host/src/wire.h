/* Byte-order accessors for the wire structs of rnic_hw.h (struct rnic_wqe,
 * struct rnic_cqe). The structs store rnic_le16/le32/le64 and rnic_be32
 * fields; only these accessors convert. */
#ifndef RNIC_WIRE_H
#define RNIC_WIRE_H

#include <stdint.h>

#include "rnic/rnic_hw.h"

#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)
#error "the compiler must define __BYTE_ORDER__"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline rnic_le16 rnic_htole16(uint16_t v) { return v; }
static inline rnic_le32 rnic_htole32(uint32_t v) { return v; }
static inline rnic_le64 rnic_htole64(uint64_t v) { return v; }
static inline uint16_t rnic_le16toh(rnic_le16 v) { return v; }
static inline uint32_t rnic_le32toh(rnic_le32 v) { return v; }
static inline uint64_t rnic_le64toh(rnic_le64 v) { return v; }
static inline uint32_t rnic_be32toh(rnic_be32 v) { return __builtin_bswap32(v); }
#else
static inline rnic_le16 rnic_htole16(uint16_t v) { return __builtin_bswap16(v); }
static inline rnic_le32 rnic_htole32(uint32_t v) { return __builtin_bswap32(v); }
static inline rnic_le64 rnic_htole64(uint64_t v) { return __builtin_bswap64(v); }
static inline uint16_t rnic_le16toh(rnic_le16 v) { return __builtin_bswap16(v); }
static inline uint32_t rnic_le32toh(rnic_le32 v) { return __builtin_bswap32(v); }
static inline uint64_t rnic_le64toh(rnic_le64 v) { return __builtin_bswap64(v); }
static inline uint32_t rnic_be32toh(rnic_be32 v) { return v; }
#endif

#endif /* RNIC_WIRE_H */
