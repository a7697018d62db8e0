/* RoCEv2 packet codec of the C reference model; see rc_codec.h. */
#include <string.h>

#include "rc_codec.h"

/* ------------------------------------------------------------ opcodes */

#define F_SEND (RC_OPF_VALID | RC_OPF_REQUEST | RC_OPF_SEND | RC_OPF_PAYLOAD)
#define F_WRITE (RC_OPF_VALID | RC_OPF_REQUEST | RC_OPF_WRITE | RC_OPF_PAYLOAD)
#define F_RRESP (RC_OPF_VALID | RC_OPF_READ_RESP | RC_OPF_PAYLOAD)
#define F_FIRST RC_OPF_START
#define F_LAST RC_OPF_END
#define F_ONLY (RC_OPF_START | RC_OPF_END)

static const struct {
	unsigned int flags;
	const char *name;
} op_table[32] = {
	[RNIC_OP_SEND_FIRST] = {F_SEND | F_FIRST, "RC_SEND_FIRST"},
	[RNIC_OP_SEND_MIDDLE] = {F_SEND | RC_OPF_MIDDLE, "RC_SEND_MIDDLE"},
	[RNIC_OP_SEND_LAST] = {F_SEND | F_LAST, "RC_SEND_LAST"},
	[RNIC_OP_SEND_LAST_IMM] = {F_SEND | F_LAST | RC_OPF_IMM, "RC_SEND_LAST_WITH_IMMEDIATE"},
	[RNIC_OP_SEND_ONLY] = {F_SEND | F_ONLY, "RC_SEND_ONLY"},
	[RNIC_OP_SEND_ONLY_IMM] = {F_SEND | F_ONLY | RC_OPF_IMM, "RC_SEND_ONLY_WITH_IMMEDIATE"},
	[RNIC_OP_RDMA_WRITE_FIRST] = {F_WRITE | F_FIRST | RC_OPF_RETH, "RC_RDMA_WRITE_FIRST"},
	[RNIC_OP_RDMA_WRITE_MIDDLE] = {F_WRITE | RC_OPF_MIDDLE, "RC_RDMA_WRITE_MIDDLE"},
	[RNIC_OP_RDMA_WRITE_LAST] = {F_WRITE | F_LAST, "RC_RDMA_WRITE_LAST"},
	[RNIC_OP_RDMA_WRITE_LAST_IMM] = {F_WRITE | F_LAST | RC_OPF_IMM, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE"},
	[RNIC_OP_RDMA_WRITE_ONLY] = {F_WRITE | F_ONLY | RC_OPF_RETH, "RC_RDMA_WRITE_ONLY"},
	[RNIC_OP_RDMA_WRITE_ONLY_IMM] = {F_WRITE | F_ONLY | RC_OPF_RETH | RC_OPF_IMM,
					 "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
	[RNIC_OP_RDMA_READ_REQUEST] = {RC_OPF_VALID | RC_OPF_REQUEST | RC_OPF_READ_REQ | F_ONLY | RC_OPF_RETH,
				       "RC_RDMA_READ_REQUEST"},
	[RNIC_OP_RDMA_READ_RESPONSE_FIRST] = {F_RRESP | F_FIRST | RC_OPF_AETH, "RC_RDMA_READ_RESPONSE_FIRST"},
	[RNIC_OP_RDMA_READ_RESPONSE_MIDDLE] = {F_RRESP | RC_OPF_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE"},
	[RNIC_OP_RDMA_READ_RESPONSE_LAST] = {F_RRESP | F_LAST | RC_OPF_AETH, "RC_RDMA_READ_RESPONSE_LAST"},
	[RNIC_OP_RDMA_READ_RESPONSE_ONLY] = {F_RRESP | F_ONLY | RC_OPF_AETH, "RC_RDMA_READ_RESPONSE_ONLY"},
	[RNIC_OP_ACKNOWLEDGE] = {RC_OPF_VALID | RC_OPF_ACK | F_ONLY | RC_OPF_AETH, "RC_ACKNOWLEDGE"},
	[RNIC_OP_ATOMIC_ACKNOWLEDGE] = {RC_OPF_VALID | RC_OPF_ATOMIC_ACK | F_ONLY | RC_OPF_AETH | RC_OPF_ATOMICACK,
					"RC_ATOMIC_ACKNOWLEDGE"},
	[RNIC_OP_COMPARE_SWAP] = {RC_OPF_VALID | RC_OPF_REQUEST | RC_OPF_ATOMIC_REQ | F_ONLY | RC_OPF_ATOMIC,
				  "RC_CMP_SWAP"},
	[RNIC_OP_FETCH_ADD] = {RC_OPF_VALID | RC_OPF_REQUEST | RC_OPF_ATOMIC_REQ | F_ONLY | RC_OPF_ATOMIC,
			       "RC_FETCH_ADD"},
	[RNIC_OP_SEND_LAST_INV] = {F_SEND | F_LAST | RC_OPF_IETH, "RC_SEND_LAST_WITH_INVALIDATE"},
	[RNIC_OP_SEND_ONLY_INV] = {F_SEND | F_ONLY | RC_OPF_IETH, "RC_SEND_ONLY_WITH_INVALIDATE"},
};

unsigned int rc_op_flags(unsigned int opcode)
{
	return opcode < 32 ? op_table[opcode].flags : 0;
}

unsigned int rc_op_ext_len(unsigned int opcode)
{
	unsigned int f = rc_op_flags(opcode), n = 0;

	if (f & RC_OPF_RETH)
		n += RNIC_RETH_BYTES;
	if (f & RC_OPF_AETH)
		n += RNIC_AETH_BYTES;
	if (f & RC_OPF_IMM)
		n += RNIC_IMMDT_BYTES;
	if (f & RC_OPF_IETH)
		n += RNIC_IETH_BYTES;
	if (f & RC_OPF_ATOMIC)
		n += RNIC_ATOMICETH_BYTES;
	if (f & RC_OPF_ATOMICACK)
		n += RNIC_ATOMICACKETH_BYTES;
	return n;
}

const char *rc_op_name(unsigned int opcode)
{
	return rc_op_flags(opcode) ? op_table[opcode].name : "RC_UNKNOWN";
}

const char *rc_strerror(int err)
{
	static const char *const s[RC_ERR_COUNT] = {
		[RC_OK] = "ok",
		[RC_ERR_TRUNCATED] = "truncated",
		[RC_ERR_NOT_IP] = "not IP",
		[RC_ERR_IP_HDR] = "unsupported IP header",
		[RC_ERR_NOT_UDP] = "not UDP",
		[RC_ERR_NOT_ROCE] = "not RoCEv2 (UDP port)",
		[RC_ERR_IP_CSUM] = "bad IPv4 header checksum",
		[RC_ERR_UDP_CSUM] = "bad UDP checksum",
		[RC_ERR_LENGTH] = "IP/UDP lengths inconsistent",
		[RC_ERR_BTH] = "bad BTH (TVer or opcode)",
		[RC_ERR_HDR_LEN] = "too short for the opcode's headers or pad",
		[RC_ERR_PAYLOAD] = "payload on an opcode without one",
		[RC_ERR_ICRC] = "bad ICRC",
	};

	return (err >= 0 && err < RC_ERR_COUNT) ? s[err] : "unknown error";
}

/* ------------------------------------------------------------ checksums */

static uint32_t crc_table[256];
static int crc_table_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
		crc_table[i] = c;
	}
	crc_table_ready = 1;
}

uint32_t rc_crc32(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	if (!crc_table_ready)
		crc_init();
	for (size_t i = 0; i < n; i++)
		crc = (crc >> 8) ^ crc_table[(crc ^ b[i]) & 0xff];
	return crc;
}

uint16_t rc_inet_csum(const uint8_t *p, size_t n, uint32_t sum)
{
	uint64_t s = sum;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Bytes of the IP, UDP and BTH headers the ICRC masks. */
#define ICRC_HDR_MAX (RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES)

uint32_t rc_icrc(const uint8_t *ip, size_t len, int ipv6)
{
	uint8_t h[ICRC_HDR_MAX];
	size_t iph = ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES;
	size_t hl = iph + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES;
	uint32_t crc = RNIC_ICRC_CRC_INIT;

	if (len < hl)
		hl = len;
	memcpy(h, ip, hl);
	if (ipv6) {
		h[0] |= 0x0f;               /* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xff;  /* traffic class low nibble, flow label */
		h[7] = 0xff;                /* hop limit */
	} else {
		h[1] = 0xff;                /* TOS */
		h[8] = 0xff;                /* TTL */
		h[10] = h[11] = 0xff;       /* header checksum */
	}
	if (hl >= iph + RNIC_UDP_HDR_BYTES)
		h[iph + 6] = h[iph + 7] = 0xff; /* UDP checksum */
	if (hl > iph + RNIC_UDP_HDR_BYTES + 4)
		h[iph + RNIC_UDP_HDR_BYTES + 4] = 0xff; /* BTH FECN, BECN, resv6a */
	for (int i = 0; i < RNIC_ICRC_LRH_ONES_BYTES; i++) {
		static const uint8_t ones = 0xff;

		crc = rc_crc32(crc, &ones, 1);
	}
	crc = rc_crc32(crc, h, hl);
	crc = rc_crc32(crc, ip + hl, len - hl);
	return ~crc;
}

/* ------------------------------------------------------------ bytes */

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); put16(p + 1, v); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)(v >> 32)); put32(p + 4, (uint32_t)v); }
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t get24(const uint8_t *p) { return (uint32_t)p[0] << 16 | get16(p + 1); }
static uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

void rc_gid_from_ipv4(uint8_t gid[16], const uint8_t ip[4])
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip, 4);
}

int rc_gid_is_ipv4(const uint8_t gid[16])
{
	for (int i = 0; i < 10; i++)
		if (gid[i])
			return 0;
	return gid[10] == 0xff && gid[11] == 0xff;
}

/* ------------------------------------------------------------ encode */

int rc_encode(const struct rc_pkt *pkt, uint8_t *buf, size_t cap, unsigned int flags)
{
	unsigned int f = rc_op_flags(pkt->opcode);
	unsigned int ext = rc_op_ext_len(pkt->opcode);
	unsigned int pad = (flags & RC_ENC_KEEP_PAD) ? (pkt->pad & 3u) : ((0u - pkt->payload_len) & 3u);
	size_t iph = pkt->ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES;
	size_t udp_len = RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + ext + pkt->payload_len + pad + RNIC_ICRC_BYTES;
	size_t len = RNIC_ETH_HDR_BYTES + iph + udp_len;
	size_t frame = len;
	uint8_t *ip = buf + RNIC_ETH_HDR_BYTES, *udp = ip + iph, *bth = udp + RNIC_UDP_HDR_BYTES, *x;
	uint32_t icrc;

	if (!f || udp_len > 0xffff || (pkt->payload_len && !(f & RC_OPF_PAYLOAD)))
		return -1;
	if (frame < RNIC_ETH_MIN_FRAME_BYTES && !(flags & RC_ENC_NO_MIN_PAD))
		frame = RNIC_ETH_MIN_FRAME_BYTES;
	if (frame > cap)
		return -1;

	memcpy(buf, pkt->eth_dst, 6);
	memcpy(buf + 6, pkt->eth_src, 6);
	put16(buf + 12, pkt->ipv6 ? RNIC_ETHERTYPE_IPV6 : RNIC_ETHERTYPE_IPV4);
	if (pkt->ipv6) {
		uint32_t fl = pkt->flow_label & 0xfffff;

		put32(ip, 6u << 28 | (uint32_t)pkt->tclass << 20 | fl);
		put16(ip + 4, (uint32_t)udp_len);
		ip[6] = RNIC_IP_PROTO_UDP;
		ip[7] = pkt->hop_limit;
		memcpy(ip + 8, pkt->sgid, 16);
		memcpy(ip + 24, pkt->dgid, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = pkt->tclass;
		put16(ip + 2, (uint32_t)(iph + udp_len));
		put16(ip + 4, pkt->ip_id);
		put16(ip + 6, pkt->ip_frag);
		ip[8] = pkt->hop_limit;
		ip[9] = RNIC_IP_PROTO_UDP;
		put16(ip + 10, 0);
		memcpy(ip + 12, pkt->sgid + 12, 4);
		memcpy(ip + 16, pkt->dgid + 12, 4);
		put16(ip + 10, rc_inet_csum(ip, RNIC_IPV4_HDR_BYTES, 0));
	}
	put16(udp, pkt->udp_sport);
	put16(udp + 2, RNIC_ROCEV2_UDP_PORT);
	put16(udp + 4, (uint32_t)udp_len);
	put16(udp + 6, (flags & RC_ENC_UDP_CSUM_AS_IS) ? pkt->udp_csum : 0);

	bth[0] = pkt->opcode;
	bth[1] = (uint8_t)((pkt->se & 1) << 7 | (pkt->migreq & 1) << 6 | pad << 4 | (pkt->tver & 0xf));
	put16(bth + 2, pkt->pkey);
	bth[4] = pkt->bth_b4;
	put24(bth + 5, pkt->dest_qpn);
	bth[8] = (uint8_t)((pkt->ackreq & 1) << 7 | (pkt->bth_resv7 & 0x7f));
	put24(bth + 9, pkt->psn);
	x = bth + RNIC_BTH_BYTES;
	if (f & RC_OPF_RETH) {
		put64(x, pkt->reth_va);
		put32(x + 8, pkt->reth_rkey);
		put32(x + 12, pkt->reth_len);
		x += RNIC_RETH_BYTES;
	}
	if (f & RC_OPF_ATOMIC) {
		put64(x, pkt->atomic_va);
		put32(x + 8, pkt->atomic_rkey);
		put64(x + 12, pkt->atomic_swap_add);
		put64(x + 20, pkt->atomic_compare);
		x += RNIC_ATOMICETH_BYTES;
	}
	if (f & RC_OPF_AETH) {
		x[0] = pkt->aeth_syndrome;
		put24(x + 1, pkt->aeth_msn);
		x += RNIC_AETH_BYTES;
	}
	if (f & RC_OPF_ATOMICACK) {
		put64(x, pkt->atomic_orig);
		x += RNIC_ATOMICACKETH_BYTES;
	}
	if (f & RC_OPF_IMM) {
		put32(x, pkt->imm);
		x += RNIC_IMMDT_BYTES;
	}
	if (f & RC_OPF_IETH) {
		put32(x, pkt->ieth_rkey);
		x += RNIC_IETH_BYTES;
	}
	if (pkt->payload_len)
		memmove(x, pkt->payload, pkt->payload_len);
	x += pkt->payload_len;
	memset(x, 0, pad);
	x += pad;
	icrc = rc_icrc(ip, (size_t)(x - ip), pkt->ipv6);
	if (flags & RC_ENC_BAD_ICRC)
		icrc = ~icrc;
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(icrc >> (8 * i));
	if (pkt->ipv6 && (flags & RC_ENC_UDP6_CSUM) && !(flags & RC_ENC_UDP_CSUM_AS_IS)) {
		uint8_t ph[40];
		uint16_t c;

		memcpy(ph, ip + 8, 32);
		put32(ph + 32, (uint32_t)udp_len);
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = RNIC_IP_PROTO_UDP;
		c = rc_inet_csum(udp, udp_len, 0xffffu & ~(uint32_t)rc_inet_csum(ph, sizeof(ph), 0));
		put16(udp + 6, c ? c : 0xffff);
	}
	memset(buf + len, 0, frame - len);
	return (int)frame;
}

/* ------------------------------------------------------------ decode */

static void get_gid4(uint8_t gid[16], const uint8_t *ip4)
{
	rc_gid_from_ipv4(gid, ip4);
}

int rc_decode(const uint8_t *frame, size_t len, struct rc_pkt *p, unsigned int flags)
{
	const uint8_t *ip = frame + RNIC_ETH_HDR_BYTES, *udp, *bth, *x;
	size_t iph, ip_total, udp_len, body;
	unsigned int f, ext, type;

	memset(p, 0, sizeof(*p));
	if (len < RNIC_ETH_HDR_BYTES)
		return RC_ERR_TRUNCATED;
	memcpy(p->eth_dst, frame, 6);
	memcpy(p->eth_src, frame + 6, 6);
	type = get16(frame + 12);
	if (type == RNIC_ETHERTYPE_IPV4) {
		if (len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES)
			return RC_ERR_TRUNCATED;
		iph = RNIC_IPV4_HDR_BYTES;
		p->tclass = ip[1];
		p->ip_id = (uint16_t)get16(ip + 4);
		p->ip_frag = (uint16_t)get16(ip + 6);
		p->hop_limit = ip[8];
		get_gid4(p->sgid, ip + 12);
		get_gid4(p->dgid, ip + 16);
		if (ip[0] != 0x45 || (p->ip_frag & 0x3fff))
			return RC_ERR_IP_HDR; /* options or a fragment */
		ip_total = get16(ip + 2);
		if (ip[9] != RNIC_IP_PROTO_UDP)
			return RC_ERR_NOT_UDP;
		if (ip_total < iph + RNIC_UDP_HDR_BYTES)
			return RC_ERR_LENGTH;
		if (RNIC_ETH_HDR_BYTES + ip_total > len)
			return RC_ERR_TRUNCATED;
		if (!(flags & RC_DEC_NO_IP_CSUM) && rc_inet_csum(ip, iph, 0) != 0)
			return RC_ERR_IP_CSUM;
	} else if (type == RNIC_ETHERTYPE_IPV6) {
		uint32_t w;

		if (len < RNIC_ETH_HDR_BYTES + RNIC_IPV6_HDR_BYTES)
			return RC_ERR_TRUNCATED;
		p->ipv6 = 1;
		iph = RNIC_IPV6_HDR_BYTES;
		w = get32(ip);
		p->tclass = (uint8_t)(w >> 20);
		p->flow_label = w & 0xfffff;
		p->hop_limit = ip[7];
		memcpy(p->sgid, ip + 8, 16);
		memcpy(p->dgid, ip + 24, 16);
		if ((w >> 28) != 6)
			return RC_ERR_IP_HDR;
		if (ip[6] != RNIC_IP_PROTO_UDP)
			return RC_ERR_NOT_UDP;
		ip_total = iph + get16(ip + 4);
		if (ip_total < iph + RNIC_UDP_HDR_BYTES)
			return RC_ERR_LENGTH;
		if (RNIC_ETH_HDR_BYTES + ip_total > len)
			return RC_ERR_TRUNCATED;
	} else {
		return RC_ERR_NOT_IP;
	}
	udp = ip + iph;
	p->udp_sport = (uint16_t)get16(udp);
	p->udp_csum = (uint16_t)get16(udp + 6);
	if (get16(udp + 2) != RNIC_ROCEV2_UDP_PORT)
		return RC_ERR_NOT_ROCE;
	udp_len = get16(udp + 4);
	if (udp_len != ip_total - iph)
		return RC_ERR_LENGTH;
	if (udp_len < RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + RNIC_ICRC_BYTES)
		return RC_ERR_LENGTH;
	p->frame_len = (uint32_t)(RNIC_ETH_HDR_BYTES + ip_total);
	if (p->udp_csum && !(flags & RC_DEC_NO_UDP_CSUM)) {
		uint8_t ph[40];
		size_t n;

		if (p->ipv6) {
			memcpy(ph, ip + 8, 32);
			put32(ph + 32, (uint32_t)udp_len);
			ph[36] = ph[37] = ph[38] = 0;
			ph[39] = RNIC_IP_PROTO_UDP;
			n = 40;
		} else {
			memcpy(ph, ip + 12, 8);
			ph[8] = 0;
			ph[9] = RNIC_IP_PROTO_UDP;
			put16(ph + 10, (uint32_t)udp_len);
			n = 12;
		}
		if (rc_inet_csum(udp, udp_len, 0xffffu & ~(uint32_t)rc_inet_csum(ph, n, 0)) != 0)
			return RC_ERR_UDP_CSUM;
	}

	bth = udp + RNIC_UDP_HDR_BYTES;
	p->opcode = bth[0];
	p->se = bth[1] >> 7;
	p->migreq = (bth[1] >> 6) & 1;
	p->pad = (bth[1] >> 4) & 3;
	p->tver = bth[1] & 0xf;
	p->pkey = (uint16_t)get16(bth + 2);
	p->bth_b4 = bth[4];
	p->dest_qpn = get24(bth + 5);
	p->ackreq = bth[8] >> 7;
	p->bth_resv7 = bth[8] & 0x7f;
	p->psn = get24(bth + 9);
	x = ip + ip_total - RNIC_ICRC_BYTES;
	p->icrc = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
	if (!(flags & RC_DEC_NO_ICRC) && rc_icrc(ip, ip_total - RNIC_ICRC_BYTES, p->ipv6) != p->icrc)
		return RC_ERR_ICRC;

	f = rc_op_flags(p->opcode);
	if (p->tver != RNIC_BTH_TVER || !f)
		return RC_ERR_BTH;
	ext = rc_op_ext_len(p->opcode);
	body = udp_len - RNIC_UDP_HDR_BYTES - RNIC_BTH_BYTES - RNIC_ICRC_BYTES;
	if (body < ext || body - ext < p->pad)
		return RC_ERR_HDR_LEN;
	x = bth + RNIC_BTH_BYTES;
	if (f & RC_OPF_RETH) {
		p->reth_va = get64(x);
		p->reth_rkey = get32(x + 8);
		p->reth_len = get32(x + 12);
		x += RNIC_RETH_BYTES;
	}
	if (f & RC_OPF_ATOMIC) {
		p->atomic_va = get64(x);
		p->atomic_rkey = get32(x + 8);
		p->atomic_swap_add = get64(x + 12);
		p->atomic_compare = get64(x + 20);
		x += RNIC_ATOMICETH_BYTES;
	}
	if (f & RC_OPF_AETH) {
		p->aeth_syndrome = x[0];
		p->aeth_msn = get24(x + 1);
		x += RNIC_AETH_BYTES;
	}
	if (f & RC_OPF_ATOMICACK) {
		p->atomic_orig = get64(x);
		x += RNIC_ATOMICACKETH_BYTES;
	}
	if (f & RC_OPF_IMM) {
		p->imm = get32(x);
		x += RNIC_IMMDT_BYTES;
	}
	if (f & RC_OPF_IETH) {
		p->ieth_rkey = get32(x);
		x += RNIC_IETH_BYTES;
	}
	p->payload = x;
	p->payload_len = (uint32_t)(body - ext - p->pad);
	if (body - ext && !(f & RC_OPF_PAYLOAD))
		return RC_ERR_PAYLOAD;
	return RC_OK;
}
