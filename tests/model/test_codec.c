/* Unit tests of the model's RoCEv2 codec (model/rc_codec.[ch]).
 *
 *   test_codec [VECTOR_DIR]   (default tests/vectors/rxe)
 *
 * - every frame of every rxe capture: RoCE frames decode, their ICRC is
 *   recomputed, and re-encoding the decoded fields gives the frame back byte
 *   for byte; the other frames (TCP, ICMPv6) are refused as not RoCE;
 * - round trips of every RC opcode over IPv4 and IPv6 at many payload sizes;
 * - the masked (variant) fields do not change the ICRC, every other byte does;
 * - each decode error on a crafted frame; minimum-frame padding like a MAC. */
#define _DEFAULT_SOURCE /* u_char and friends for <pcap/pcap.h> under -std=c11 */
#include <dirent.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"
#include "rc_codec.h"

static uint64_t rng_state = 1;
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------ vectors */

static unsigned int ops_seen[32];

static void vector_file(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	int n = 0, roce = 0, other = 0, rc;
	char name[600];

	snprintf(name, sizeof(name), "vectors: %s: decode, ICRC, re-encode byte for byte", path);
	mcheck_begin(name);
	CHECK(pc != NULL, "%s", err);
	if (!pc) {
		mcheck_end();
		return;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		struct rc_pkt p;
		uint8_t buf[RC_MAX_FRAME + 64];
		int e, len;

		n++;
		CHECK(h->caplen == h->len, "frame %d captured partly", n);
		e = rc_decode(data, h->caplen, &p, 0);
		if (e == RC_ERR_NOT_UDP || e == RC_ERR_NOT_IP) {
			other++;
			continue;
		}
		CHECK(e == RC_OK, "frame %d: %s", n, rc_strerror(e));
		if (e != RC_OK)
			continue;
		roce++;
		ops_seen[p.opcode & 31]++;
		CHECK(p.icrc == rc_icrc(data + RNIC_ETH_HDR_BYTES, p.frame_len - RNIC_ETH_HDR_BYTES - 4, p.ipv6),
		      "frame %d ICRC", n);
		len = rc_encode(&p, buf, sizeof(buf),
				(p.udp_csum ? RC_ENC_UDP_CSUM_AS_IS : 0) |
					(h->caplen < RNIC_ETH_MIN_FRAME_BYTES ? RC_ENC_NO_MIN_PAD : 0));
		CHECK(len >= (int)p.frame_len, "frame %d: encode %d", n, len);
		if (len >= (int)p.frame_len) {
			CHECK(memcmp(buf, data, p.frame_len) == 0, "frame %d (%s): re-encoded bytes differ", n,
			      rc_op_name(p.opcode));
			/* bytes past the datagram: MAC padding, which the encoder makes zero */
			if (h->caplen > p.frame_len && (size_t)len == h->caplen)
				CHECK(memcmp(buf, data, h->caplen) == 0, "frame %d padding", n);
		}
	}
	CHECK(rc == -2, "read error in %s", path);
	CHECK(roce > 0, "no RoCE frame in %s", path);
	printf("  %s: %d frames, %d RoCE, %d other\n", path, n, roce, other);
	pcap_close(pc);
	mcheck_end();
}

static void vectors(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[256];
	int n = 0;
	static const unsigned int want[] = {
		RNIC_OP_SEND_FIRST, RNIC_OP_SEND_MIDDLE, RNIC_OP_SEND_LAST, RNIC_OP_SEND_ONLY,
		RNIC_OP_RDMA_WRITE_FIRST, RNIC_OP_RDMA_WRITE_MIDDLE, RNIC_OP_RDMA_WRITE_LAST,
		RNIC_OP_RDMA_WRITE_ONLY, RNIC_OP_RDMA_READ_REQUEST, RNIC_OP_RDMA_READ_RESPONSE_FIRST,
		RNIC_OP_RDMA_READ_RESPONSE_MIDDLE, RNIC_OP_RDMA_READ_RESPONSE_LAST, RNIC_OP_ACKNOWLEDGE,
		RNIC_OP_ATOMIC_ACKNOWLEDGE, RNIC_OP_FETCH_ADD,
	};

	mcheck_begin("vectors: directory readable");
	CHECK(d != NULL, "cannot open %s", dir);
	mcheck_end();
	if (!d)
		return;
	while ((e = readdir(d)) && n < 256) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".pcap")) {
			names[n] = malloc(strlen(dir) + l + 2);
			sprintf(names[n], "%s/%s", dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_names);
	for (int i = 0; i < n; i++) {
		vector_file(names[i]);
		free(names[i]);
	}
	mcheck_begin("vectors: the captures hold SEND, WRITE, READ, ATOMIC and ACK opcodes");
	CHECK(n >= 7, "%d capture files", n);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(ops_seen[want[i]] > 0, "no %s frame", rc_op_name(want[i]));
	mcheck_end();
}

/* IPv6 frames built by scapy's RoCE layer (scapy.contrib.roce, which computes
 * the ICRC independently): a SEND ONLY of 3 bytes with traffic class 0xa5 and
 * flow label 0x12345, and an ACK. The rxe captures are all IPv4. */
static const char *const scapy_v6[] = {
	"02000000000b02000000000a86dd6a512345001c1111fd000000000000000000000000000001fd0000000000000000000000"
	"00000002c12312b7001c00000410ffff0000001180123456616263001b52aac8",
	"02000000000b02000000000a86dd60000000001c1140fd000000000000000000000000000001fd0000000000000000000000"
	"00000002c00012b7001c00001100ffff00000022000001001f0000050b22b84c",
};

static void scapy_ipv6(void)
{
	mcheck_begin("IPv6: scapy-made frames decode with their ICRC and re-encode byte for byte");
	for (size_t k = 0; k < sizeof(scapy_v6) / sizeof(scapy_v6[0]); k++) {
		uint8_t f[256], g[256];
		size_t n = strlen(scapy_v6[k]) / 2;
		struct rc_pkt p;
		int e, len;

		for (size_t i = 0; i < n; i++) {
			unsigned int v;

			sscanf(scapy_v6[k] + 2 * i, "%2x", &v);
			f[i] = (uint8_t)v;
		}
		e = rc_decode(f, n, &p, 0);
		CHECK(e == RC_OK, "frame %zu: %s", k, rc_strerror(e));
		CHECK(p.ipv6 == 1, "frame %zu IPv6", k);
		len = rc_encode(&p, g, sizeof(g), 0);
		CHECK(len == (int)n && !memcmp(f, g, n), "frame %zu re-encoded differs", k);
		if (k == 0)
			CHECK(p.tclass == 0xa5 && p.flow_label == 0x12345 && p.hop_limit == 17 && p.payload_len == 3 &&
			      p.pad == 1 && p.psn == 0x123456, "frame 0 fields");
	}
	mcheck_end();
}

/* ------------------------------------------------------------ round trips */

static void random_pkt(struct rc_pkt *p, unsigned int op, int ipv6, uint8_t *payload, uint32_t plen)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 6; i++) {
		p->eth_dst[i] = (uint8_t)rng();
		p->eth_src[i] = (uint8_t)rng();
	}
	p->ipv6 = (uint8_t)ipv6;
	if (ipv6) {
		for (int i = 0; i < 16; i++) {
			p->sgid[i] = (uint8_t)rng();
			p->dgid[i] = (uint8_t)rng();
		}
		p->sgid[0] = 0xfd; /* never IPv4-mapped */
		p->dgid[0] = 0xfd;
		p->flow_label = (uint32_t)rng() & 0xfffff;
	} else {
		uint8_t a[4], b[4];

		for (int i = 0; i < 4; i++) {
			a[i] = (uint8_t)rng();
			b[i] = (uint8_t)rng();
		}
		rc_gid_from_ipv4(p->sgid, a);
		rc_gid_from_ipv4(p->dgid, b);
		p->ip_id = (uint16_t)rng();
		p->ip_frag = 0x4000;
	}
	p->tclass = (uint8_t)rng();
	p->hop_limit = (uint8_t)rng();
	p->udp_sport = (uint16_t)rng();
	p->opcode = (uint8_t)op;
	p->se = (uint8_t)(rng() & 1);
	p->migreq = (uint8_t)(rng() & 1);
	p->pkey = (uint16_t)rng();
	p->bth_b4 = (uint8_t)rng();
	p->dest_qpn = (uint32_t)rng() & 0xffffff;
	p->ackreq = (uint8_t)(rng() & 1);
	p->bth_resv7 = (uint8_t)(rng() & 0x7f);
	p->psn = (uint32_t)rng() & 0xffffff;
	unsigned int f = rc_op_flags(op);
	if (f & RC_OPF_RETH) {
		p->reth_va = rng();
		p->reth_rkey = (uint32_t)rng();
		p->reth_len = (uint32_t)rng();
	}
	if (f & RC_OPF_AETH) {
		p->aeth_syndrome = (uint8_t)rng();
		p->aeth_msn = (uint32_t)rng() & 0xffffff;
	}
	if (f & RC_OPF_IMM)
		p->imm = (uint32_t)rng();
	if (f & RC_OPF_IETH)
		p->ieth_rkey = (uint32_t)rng();
	if (f & RC_OPF_ATOMIC) {
		p->atomic_va = rng();
		p->atomic_rkey = (uint32_t)rng();
		p->atomic_swap_add = rng();
		p->atomic_compare = rng();
	}
	if (f & RC_OPF_ATOMICACK)
		p->atomic_orig = rng();
	if (f & RC_OPF_PAYLOAD) {
		for (uint32_t i = 0; i < plen; i++)
			payload[i] = (uint8_t)rng();
		p->payload = payload;
		p->payload_len = plen;
	}
	p->pad = (uint8_t)((0u - p->payload_len) & 3);
}

#define SAME(field) CHECK(a->field == b->field, "%s op %#x ipv6 %d len %u: " #field, what, a->opcode, a->ipv6, \
			  a->payload_len)

static void same_pkt(const char *what, const struct rc_pkt *a, const struct rc_pkt *b)
{
	unsigned int f = rc_op_flags(a->opcode);

	CHECK(!memcmp(a->eth_dst, b->eth_dst, 6) && !memcmp(a->eth_src, b->eth_src, 6), "%s MACs", what);
	CHECK(!memcmp(a->sgid, b->sgid, 16) && !memcmp(a->dgid, b->dgid, 16), "%s GIDs", what);
	SAME(ipv6); SAME(tclass); SAME(hop_limit); SAME(flow_label); SAME(ip_id); SAME(ip_frag);
	SAME(udp_sport); SAME(opcode); SAME(se); SAME(migreq); SAME(pad); SAME(tver); SAME(pkey);
	SAME(bth_b4); SAME(dest_qpn); SAME(ackreq); SAME(bth_resv7); SAME(psn); SAME(payload_len);
	if (f & RC_OPF_RETH) {
		SAME(reth_va); SAME(reth_rkey); SAME(reth_len);
	}
	if (f & RC_OPF_AETH) {
		SAME(aeth_syndrome); SAME(aeth_msn);
	}
	if (f & RC_OPF_IMM)
		SAME(imm);
	if (f & RC_OPF_IETH)
		SAME(ieth_rkey);
	if (f & RC_OPF_ATOMIC) {
		SAME(atomic_va); SAME(atomic_rkey); SAME(atomic_swap_add); SAME(atomic_compare);
	}
	if (f & RC_OPF_ATOMICACK)
		SAME(atomic_orig);
	if (a->payload_len && b->payload_len == a->payload_len)
		CHECK(!memcmp(a->payload, b->payload, a->payload_len), "%s payload bytes", what);
}

static void round_trips(void)
{
	static const uint32_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 1023, 1024, 1025, 4095, 4096};
	static uint8_t payload[4096], frame[RC_MAX_FRAME];
	int cases = 0;

	mcheck_begin("round trip: every RC opcode, IPv4 and IPv6, payload 0..4096 B");
	for (unsigned int op = 0; op < 32; op++) {
		if (!rc_op_flags(op))
			continue;
		for (int v6 = 0; v6 < 2; v6++) {
			for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
				struct rc_pkt a, b;
				int len, e;
				size_t hdr;

				if (lens[li] && !(rc_op_flags(op) & RC_OPF_PAYLOAD))
					continue;
				random_pkt(&a, op, v6, payload, lens[li]);
				len = rc_encode(&a, frame, sizeof(frame), 0);
				hdr = RNIC_ETH_HDR_BYTES + (v6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES) +
				      RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + rc_op_ext_len(op);
				CHECK(len >= RNIC_ETH_MIN_FRAME_BYTES, "op %#x encode", op);
				if (len < 0)
					continue;
				CHECK((size_t)len == (hdr + lens[li] + a.pad + 4 < 60 ? 60 : hdr + lens[li] + a.pad + 4),
				      "op %#x len %u: frame %d bytes", op, lens[li], len);
				e = rc_decode(frame, (size_t)len, &b, 0);
				CHECK(e == RC_OK, "op %#x v6 %d len %u: %s", op, v6, lens[li], rc_strerror(e));
				if (e == RC_OK)
					same_pkt("round trip", &a, &b);
				CHECK(b.frame_len == hdr + lens[li] + a.pad + 4, "frame_len");
				/* the IPv6 UDP checksum, when computed, verifies */
				if (v6) {
					len = rc_encode(&a, frame, sizeof(frame), RC_ENC_UDP6_CSUM);
					e = rc_decode(frame, (size_t)len, &b, 0);
					CHECK(e == RC_OK && b.udp_csum != 0, "IPv6 UDP checksum: %s", rc_strerror(e));
					frame[len - 5] ^= 0x01; /* last payload/header byte before the ICRC */
					CHECK(rc_decode(frame, (size_t)len, &b, RC_DEC_NO_ICRC) == RC_ERR_UDP_CSUM,
					      "IPv6 UDP checksum error");
				}
				cases++;
			}
		}
	}
	printf("  %d round trips\n", cases);
	mcheck_end();
}

/* ------------------------------------------------------------ ICRC coverage */

static void icrc_coverage(void)
{
	static uint8_t payload[64], frame[RC_MAX_FRAME], f2[RC_MAX_FRAME];

	for (int v6 = 0; v6 < 2; v6++) {
		struct rc_pkt a, b;
		int len;
		size_t iph = v6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES;
		size_t ip0 = RNIC_ETH_HDR_BYTES, udp0 = ip0 + iph, bth0 = udp0 + RNIC_UDP_HDR_BYTES;

		mcheck_begin(v6 ? "ICRC: IPv6 variant fields are masked, every other byte is covered"
				: "ICRC: IPv4 variant fields are masked, every other byte is covered");
		random_pkt(&a, RNIC_OP_RDMA_WRITE_ONLY_IMM, v6, payload, 37);
		len = rc_encode(&a, frame, sizeof(frame), 0);
		for (int i = 0; i < len - 4; i++) {
			int masked, e;

			memcpy(f2, frame, (size_t)len);
			f2[i] ^= 0x5a;
			if (i == 12 || i == 13)
				continue; /* EtherType: another protocol, not a covered byte */
			if ((size_t)i < ip0)
				masked = 1; /* MAC addresses: not covered at all */
			else if (v6)
				masked = (size_t)i == ip0 + 1 || (size_t)i == ip0 + 2 || (size_t)i == ip0 + 3 ||
					 (size_t)i == ip0 + 7;
			else
				masked = (size_t)i == ip0 + 1 || (size_t)i == ip0 + 8 || (size_t)i == ip0 + 10 ||
					 (size_t)i == ip0 + 11;
			masked |= (size_t)i == udp0 + 6 || (size_t)i == udp0 + 7 || (size_t)i == bth0 + 4;
			e = rc_decode(f2, (size_t)len, &b, RC_DEC_NO_IP_CSUM | RC_DEC_NO_UDP_CSUM);
			if (masked)
				CHECK(e == RC_OK, "byte %d masked, got %s", i, rc_strerror(e));
			else
				CHECK(e != RC_OK, "byte %d changed, frame still accepted", i);
		}
		/* the traffic class high nibble sits in byte 0 of IPv6 (masked); the version nibble is not */
		if (v6) {
			memcpy(f2, frame, (size_t)len);
			f2[ip0] ^= 0x0f;
			CHECK(rc_decode(f2, (size_t)len, &b, 0) == RC_OK, "IPv6 traffic class high nibble is masked");
		} else {
			/* a TTL change with a fixed header checksum keeps the ICRC */
			memcpy(f2, frame, (size_t)len);
			f2[ip0 + 8]--;
			f2[ip0 + 10] = f2[ip0 + 11] = 0;
			uint16_t c = rc_inet_csum(f2 + ip0, RNIC_IPV4_HDR_BYTES, 0);
			f2[ip0 + 10] = (uint8_t)(c >> 8);
			f2[ip0 + 11] = (uint8_t)c;
			CHECK(rc_decode(f2, (size_t)len, &b, 0) == RC_OK, "TTL - 1 with a new header checksum");
		}
		mcheck_end();
	}
}

/* ------------------------------------------------------------ errors */

/* fix the IPv4 header checksum and the ICRC of an IPv4 frame after an edit */
static void refresh(uint8_t *f, size_t iplen)
{
	uint8_t *ip = f + RNIC_ETH_HDR_BYTES;
	uint16_t c;
	uint32_t icrc;

	ip[10] = ip[11] = 0;
	c = rc_inet_csum(ip, RNIC_IPV4_HDR_BYTES, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	icrc = rc_icrc(ip, iplen - 4, 0);
	for (int i = 0; i < 4; i++)
		ip[iplen - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

static void errors(void)
{
	static uint8_t payload[256], frame[RC_MAX_FRAME], f2[RC_MAX_FRAME + 8];
	struct rc_pkt a, b;
	int len;
	size_t ip0 = RNIC_ETH_HDR_BYTES, udp0 = ip0 + RNIC_IPV4_HDR_BYTES, bth0 = udp0 + RNIC_UDP_HDR_BYTES;
	size_t iplen;

	mcheck_begin("decode errors: each reason on a crafted frame");
	random_pkt(&a, RNIC_OP_SEND_ONLY, 0, payload, 100);
	len = rc_encode(&a, frame, sizeof(frame), 0);
	iplen = (size_t)len - ip0;
	CHECK(rc_decode(frame, (size_t)len, &b, 0) == RC_OK, "base frame");
	for (int l = 0; l < len; l++)
		CHECK(rc_decode(frame, (size_t)l, &b, 0) == RC_ERR_TRUNCATED, "prefix of %d bytes: %s", l,
		      rc_strerror(rc_decode(frame, (size_t)l, &b, 0)));
#define EDIT(expr, want, flags)                                                            \
	do {                                                                                   \
		memcpy(f2, frame, (size_t)len);                                                    \
		expr;                                                                              \
		int e_ = rc_decode(f2, (size_t)len, &b, flags);                                    \
		CHECK(e_ == (want), "%s: got %s, want %s", #expr, rc_strerror(e_), rc_strerror(want)); \
	} while (0)
	EDIT(f2[12] = 0x08; f2[13] = 0x06, RC_ERR_NOT_IP, 0);
	EDIT(f2[ip0] = 0x46, RC_ERR_IP_HDR, 0);
	EDIT(f2[ip0 + 6] = 0x20; refresh(f2, iplen), RC_ERR_IP_HDR, 0); /* MF: a fragment */
	EDIT(f2[ip0 + 9] = 6; refresh(f2, iplen), RC_ERR_NOT_UDP, 0);
	EDIT(f2[ip0 + 8] ^= 1, RC_ERR_IP_CSUM, 0);
	EDIT(f2[ip0 + 10] ^= 1, RC_ERR_IP_CSUM, 0);
	EDIT(f2[udp0 + 3] ^= 1; refresh(f2, iplen), RC_ERR_NOT_ROCE, 0);
	EDIT(f2[udp0 + 6] = 0x12, RC_ERR_UDP_CSUM, 0);
	EDIT(f2[udp0 + 6] = 0x12, RC_OK, RC_DEC_NO_UDP_CSUM);
	EDIT(f2[udp0 + 5] ^= 4; refresh(f2, iplen), RC_ERR_LENGTH, 0);
	EDIT(f2[ip0 + 3] += 8; refresh(f2, iplen), RC_ERR_TRUNCATED, 0);
	EDIT(f2[bth0 + 1] |= 1; refresh(f2, iplen), RC_ERR_BTH, 0);        /* TVer 1 */
	EDIT(f2[bth0] = 0x15; refresh(f2, iplen), RC_ERR_BTH, 0);          /* not an RC opcode */
	EDIT(f2[bth0] = 0x64; refresh(f2, iplen), RC_ERR_BTH, 0);          /* UD SEND ONLY */
	EDIT(f2[bth0] = RNIC_OP_ACKNOWLEDGE; refresh(f2, iplen), RC_ERR_PAYLOAD, 0);
	EDIT(f2[bth0] = RNIC_OP_COMPARE_SWAP; refresh(f2, iplen), RC_ERR_PAYLOAD, 0);
	EDIT(f2[len - 1] ^= 0x80, RC_ERR_ICRC, 0);
	EDIT(f2[len - 1] ^= 0x80, RC_OK, RC_DEC_NO_ICRC);
	EDIT(f2[bth0 + 20] ^= 0x01, RC_ERR_ICRC, 0);
	mcheck_end();

	mcheck_begin("decode errors: short headers and pad");
	{
		struct rc_pkt s;

		random_pkt(&s, RNIC_OP_SEND_ONLY, 0, payload, 1);
		len = rc_encode(&s, frame, sizeof(frame), RC_ENC_NO_MIN_PAD);
		iplen = (size_t)len - ip0;
		/* a SEND of 1 byte has pad 3: claim a RETH opcode, too short for it */
		EDIT(f2[bth0] = RNIC_OP_RDMA_WRITE_ONLY; refresh(f2, iplen), RC_ERR_HDR_LEN, 0);
		/* pad larger than what follows the BTH: 0 payload bytes + pad 3 claims 3 */
		random_pkt(&s, RNIC_OP_SEND_ONLY, 0, payload, 2);
		len = rc_encode(&s, frame, sizeof(frame), RC_ENC_NO_MIN_PAD);
		iplen = (size_t)len - ip0;
		EDIT(f2[bth0 + 1] = (uint8_t)((f2[bth0 + 1] & ~0x30) | 0x30); refresh(f2, iplen), RC_OK, 0);
		CHECK(b.payload_len == 1, "pad 3 over 4 bytes leaves 1 byte: %u", b.payload_len);
		random_pkt(&s, RNIC_OP_SEND_ONLY, 0, payload, 0);
		len = rc_encode(&s, frame, sizeof(frame), RC_ENC_NO_MIN_PAD);
		iplen = (size_t)len - ip0;
		EDIT(f2[bth0 + 1] |= 0x10; refresh(f2, iplen), RC_ERR_HDR_LEN, 0);
	}
	mcheck_end();

	mcheck_begin("minimum frame: a 0-byte SEND ONLY over IPv4 is padded to 60 bytes like a MAC");
	{
		struct rc_pkt s;

		random_pkt(&s, RNIC_OP_SEND_ONLY, 0, payload, 0);
		len = rc_encode(&s, frame, sizeof(frame), 0);
		CHECK(len == RNIC_ETH_MIN_FRAME_BYTES, "length %d", len);
		CHECK(frame[58] == 0 && frame[59] == 0, "zero padding");
		CHECK(rc_decode(frame, (size_t)len, &b, 0) == RC_OK && b.frame_len == 58 && b.payload_len == 0,
		      "decode of the padded frame: frame_len %u", b.frame_len);
		len = rc_encode(&s, frame, sizeof(frame), RC_ENC_NO_MIN_PAD);
		CHECK(len == 58, "unpadded length %d", len);
		/* an ACK is 62 bytes: no padding */
		random_pkt(&s, RNIC_OP_ACKNOWLEDGE, 0, payload, 0);
		CHECK(rc_encode(&s, frame, sizeof(frame), 0) == 62, "ACK length");
		/* non-zero padding bytes are ignored as a MAC would */
		random_pkt(&s, RNIC_OP_SEND_ONLY, 0, payload, 0);
		len = rc_encode(&s, frame, sizeof(frame), 0);
		frame[58] = 0xaa;
		frame[59] = 0x55;
		CHECK(rc_decode(frame, (size_t)len, &b, 0) == RC_OK, "junk in MAC padding");
	}
	mcheck_end();

	mcheck_begin("PSN arithmetic mod 2^24");
	CHECK(rc_psn_diff(0, 0xffffff) == 1, "0 - 0xffffff");
	CHECK(rc_psn_diff(0xffffff, 0) == -1, "0xffffff - 0");
	CHECK(rc_psn_diff(0x7fffff, 0) == 0x7fffff, "half range");
	CHECK(rc_psn_diff(0x800000, 0) == -0x800000, "half range negative");
	CHECK(rc_psn_add(0xfffffe, 3) == 1, "wrap add");
	mcheck_end();
}

int main(int argc, char **argv)
{
	vectors(argc > 1 ? argv[1] : "tests/vectors/rxe");
	scapy_ipv6();
	round_trips();
	icrc_coverage();
	errors();
	return mcheck_report();
}
