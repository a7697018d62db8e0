/* RoCEv2 packet codec of the C reference model (model/README.md).
 *
 * Encodes and decodes whole Ethernet frames of the RC transport: Ethernet II,
 * IPv4 (header checksum) or IPv6, UDP to port 4791, the BTH and the
 * extension headers each RC opcode carries (RETH, AETH, ImmDt, IETH,
 * AtomicETH, AtomicAckETH; IBTA Vol. 1 9.2-9.4 and Table 38), the payload,
 * the pad to a 4-byte boundary and the ICRC of RoCEv2 (Annex A17.3.3): CRC32
 * over 8 bytes of ones standing for the LRH, then the IP datagram up to the
 * ICRC with the variant fields replaced by ones (IPv4 TOS, TTL and header
 * checksum; IPv6 traffic class, flow label and hop limit; UDP checksum; BTH
 * byte 4: FECN, BECN, resv6a). The ICRC is stored least significant byte
 * first, as Linux rxe and the RTL store it.
 *
 * Every protocol constant comes from rnic/rnic_hw.h (docs/formats.toml).
 * Freestanding: no simulator, no allocation, no I/O.
 */
#ifndef RC_CODEC_H
#define RC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/rnic_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decode results. Every one but RC_OK means the frame is refused. */
enum rc_err {
	RC_OK = 0,
	RC_ERR_TRUNCATED,   /* the frame ends before its headers (or the IP length) do */
	RC_ERR_NOT_IP,      /* EtherType neither IPv4 nor IPv6 */
	RC_ERR_IP_HDR,      /* IPv4 version/IHL/options/fragment, IPv6 version: not one we take */
	RC_ERR_NOT_UDP,     /* IP protocol / next header is not UDP */
	RC_ERR_NOT_ROCE,    /* UDP destination port is not 4791 */
	RC_ERR_IP_CSUM,     /* bad IPv4 header checksum */
	RC_ERR_UDP_CSUM,    /* a non-zero UDP checksum that is wrong */
	RC_ERR_LENGTH,      /* IP and UDP lengths disagree, or too short for BTH + ICRC */
	RC_ERR_BTH,         /* TVer not 0, or an opcode that is not an RC opcode */
	RC_ERR_HDR_LEN,     /* shorter than the opcode's extension headers, or pad > payload */
	RC_ERR_PAYLOAD,     /* a payload on an opcode that carries none */
	RC_ERR_ICRC,        /* bad ICRC */
	RC_ERR_COUNT
};

const char *rc_strerror(int err);

/* What an RC opcode carries (IBTA Vol. 1 Table 38). */
enum rc_op_flags {
	RC_OPF_VALID = 1u << 0,
	RC_OPF_RETH = 1u << 1,
	RC_OPF_AETH = 1u << 2,
	RC_OPF_IMM = 1u << 3,
	RC_OPF_IETH = 1u << 4,
	RC_OPF_ATOMIC = 1u << 5,    /* AtomicETH */
	RC_OPF_ATOMICACK = 1u << 6, /* AtomicAckETH */
	RC_OPF_PAYLOAD = 1u << 7,   /* may carry a payload */
	RC_OPF_START = 1u << 8,     /* FIRST or ONLY */
	RC_OPF_MIDDLE = 1u << 9,
	RC_OPF_END = 1u << 10,      /* LAST or ONLY */
	RC_OPF_REQUEST = 1u << 11,  /* requester -> responder; else a response */
	/* the operation it belongs to */
	RC_OPF_SEND = 1u << 12,
	RC_OPF_WRITE = 1u << 13,
	RC_OPF_READ_REQ = 1u << 14,
	RC_OPF_READ_RESP = 1u << 15,
	RC_OPF_ACK = 1u << 16,
	RC_OPF_ATOMIC_ACK = 1u << 17,
	RC_OPF_ATOMIC_REQ = 1u << 18,
};

/* Flags of an opcode (0 for one that is not an RC opcode). */
unsigned int rc_op_flags(unsigned int opcode);
/* Bytes of extension headers after the BTH. */
unsigned int rc_op_ext_len(unsigned int opcode);
/* "RC_SEND_FIRST" etc., or "RC_UNKNOWN". */
const char *rc_op_name(unsigned int opcode);

/* One packet, as fields. Addresses are GIDs: an IPv4 address travels as the
 * IPv4-mapped GID ::ffff:a.b.c.d and goes on the wire as IPv4 when ipv6 is 0.
 * Multi-byte values are host numbers; the codec puts them in network order. */
struct rc_pkt {
	uint8_t eth_dst[6], eth_src[6];
	uint8_t ipv6;          /* 0: IPv4, 1: IPv6 */
	uint8_t sgid[16], dgid[16];
	uint8_t tclass;        /* IPv4 TOS byte / IPv6 traffic class */
	uint8_t hop_limit;     /* IPv4 TTL / IPv6 hop limit */
	uint32_t flow_label;   /* IPv6 only, 20 bits */
	uint16_t ip_id;        /* IPv4 identification */
	uint16_t ip_frag;      /* IPv4 flags and fragment offset (0x4000: DF) */
	uint16_t udp_sport;
	uint16_t udp_csum;     /* as carried; the encoder writes it only with RC_ENC_UDP_CSUM_AS_IS */

	/* BTH */
	uint8_t opcode;
	uint8_t se, migreq, pad, tver;
	uint16_t pkey;
	uint8_t bth_b4;        /* byte 4: FECN (bit 7), BECN (bit 6), resv6a */
	uint32_t dest_qpn;
	uint8_t ackreq;
	uint8_t bth_resv7;     /* byte 8 bits 6:0 */
	uint32_t psn;

	/* extension headers, as the opcode says */
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint32_t imm;          /* ImmDt: the big-endian field as a number */
	uint32_t ieth_rkey;
	uint64_t atomic_va;
	uint32_t atomic_rkey;
	uint64_t atomic_swap_add, atomic_compare;
	uint64_t atomic_orig;  /* AtomicAckETH */

	const uint8_t *payload; /* decode: points into the frame */
	uint32_t payload_len;   /* without pad */

	/* decode only */
	uint32_t icrc;          /* as carried (little-endian on the wire) */
	uint32_t frame_len;     /* bytes of the frame that belong to the packet (no MAC padding) */
};

/* Encoder options. */
enum rc_enc_flags {
	RC_ENC_NO_MIN_PAD = 1u << 0,      /* do not pad short frames to ETH_MIN_FRAME_BYTES */
	RC_ENC_KEEP_PAD = 1u << 1,        /* use pkt->pad (and append that many zeros) instead of (-len) & 3 */
	RC_ENC_UDP_CSUM_AS_IS = 1u << 2,  /* write pkt->udp_csum instead of 0 (the ICRC ignores it) */
	RC_ENC_UDP6_CSUM = 1u << 3,       /* IPv6: compute the UDP checksum (RFC 8200) */
	RC_ENC_BAD_ICRC = 1u << 4,        /* invert the ICRC (test frames) */
};

/* Largest frame the codec builds: 4096 B payload behind the IPv6 headers. */
#define RC_MAX_FRAME 4400

/* Encode pkt into buf. Returns the frame length (>= 60 unless
 * RC_ENC_NO_MIN_PAD) or -1 if cap is too small or the opcode unknown. */
int rc_encode(const struct rc_pkt *pkt, uint8_t *buf, size_t cap, unsigned int flags);

/* Decoder options. */
enum rc_dec_flags {
	RC_DEC_NO_ICRC = 1u << 0,     /* do not check the ICRC */
	RC_DEC_NO_UDP_CSUM = 1u << 1, /* do not check a non-zero UDP checksum */
	RC_DEC_NO_IP_CSUM = 1u << 2,  /* do not check the IPv4 header checksum */
};

/* Decode one frame (Ethernet, no FCS; bytes past the IP datagram are MAC
 * padding and ignored). Returns RC_OK or an enum rc_err; pkt holds what was
 * parsed before the error. */
int rc_decode(const uint8_t *frame, size_t len, struct rc_pkt *pkt, unsigned int flags);

/* The ICRC of an IP datagram (from the IP header up to, not including, the
 * ICRC); store it little-endian after the datagram. */
uint32_t rc_icrc(const uint8_t *ip, size_t len, int ipv6);
/* CRC32 (IEEE 802.3, reflected): crc = rc_crc32(crc, p, n), start 0xffffffff. */
uint32_t rc_crc32(uint32_t crc, const void *p, size_t n);
/* The Internet checksum (RFC 1071) of n bytes plus a starting sum. */
uint16_t rc_inet_csum(const uint8_t *p, size_t n, uint32_t sum);

/* Helpers. */
void rc_gid_from_ipv4(uint8_t gid[16], const uint8_t ip[4]);
int rc_gid_is_ipv4(const uint8_t gid[16]);

/* PSN arithmetic mod 2^24: a - b as a signed distance in [-2^23, 2^23). */
static inline int32_t rc_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & ((1u << RNIC_PSN_BITS) - 1);

	return (d & (1u << (RNIC_PSN_BITS - 1))) ? (int32_t)d - (1 << RNIC_PSN_BITS) : (int32_t)d;
}

static inline uint32_t rc_psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & ((1u << RNIC_PSN_BITS) - 1);
}

/* AETH syndrome fields. */
static inline unsigned int rc_aeth_kind(uint8_t syn) { return syn >> 5; }
static inline unsigned int rc_aeth_value(uint8_t syn) { return syn & 0x1f; }
static inline uint8_t rc_aeth(unsigned int kind, unsigned int value)
{
	return (uint8_t)((kind << 5) | (value & 0x1f));
}

#ifdef __cplusplus
}
#endif

#endif
