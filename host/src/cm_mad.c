/* CM messages to and from their wire images (IBTA Vol. 1 12.6, MAD header
 * 13.4.3). Field places are given as in the specification's tables: byte
 * offset from the start of the message (after the 24-byte MAD header), bit
 * offset inside that byte counted from its most significant bit, width in
 * bits; a field may run over several bytes, most significant first. The
 * vendor ID of the REQ and REP (IBA comment 9434, Linux's Enhanced
 * Connection Establishment) is kept too; this CM sends 0 (none). */
#include <errno.h>
#include <string.h>

#include "cm_mad.h"

#define D(off) (RNIC_MAD_HDR_BYTES + (off)) /* message byte -> MAD byte */

static void put_bits(uint8_t *p, unsigned int byte, unsigned int bit, unsigned int width, uint64_t v)
{
	for (unsigned int i = 0; i < width; i++) {
		unsigned int pos = bit + i; /* bit position from the field's first byte's MSB */
		uint8_t *b = &p[byte + pos / 8];
		uint8_t m = (uint8_t)(0x80u >> (pos % 8));

		if ((v >> (width - 1 - i)) & 1)
			*b |= m;
		else
			*b &= (uint8_t)~m;
	}
}

static uint64_t get_bits(const uint8_t *p, unsigned int byte, unsigned int bit, unsigned int width)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int pos = bit + i;

		v = v << 1 | ((p[byte + pos / 8] >> (7 - pos % 8)) & 1);
	}
	return v;
}

/* A field of the message: its place, and the struct member it maps to. The
 * encoder refuses a value wider than its place. */
#define FIELD(mad, off, bit, width, val)                                      \
	do {                                                                  \
		uint64_t v_ = (uint64_t)(val);                                \
		if ((width) < 64 && (v_ >> (width)))                          \
			return EINVAL;                                        \
		put_bits((mad), D(off), (bit), (width), v_);                  \
	} while (0)
#define GET(mad, off, bit, width) get_bits((mad), D(off), (bit), (width))

void cm_mad_hdr_init(struct cm_mad_hdr *h, uint16_t attr_id, uint64_t tid)
{
	memset(h, 0, sizeof(*h));
	h->base_version = RNIC_MAD_BASE_VERSION;
	h->mgmt_class = RNIC_MGMT_CLASS_CM;
	h->class_version = RNIC_CM_CLASS_VERSION;
	h->method = RNIC_MAD_METHOD_SEND;
	h->attr_id = attr_id;
	h->tid = tid;
}

static void hdr_encode(const struct cm_mad_hdr *h, uint8_t *mad)
{
	put_bits(mad, 0, 0, 8, h->base_version);
	put_bits(mad, 1, 0, 8, h->mgmt_class);
	put_bits(mad, 2, 0, 8, h->class_version);
	put_bits(mad, 3, 0, 8, h->method);
	put_bits(mad, 4, 0, 16, h->status);
	put_bits(mad, 6, 0, 16, h->class_specific);
	put_bits(mad, 8, 0, 64, h->tid);
	put_bits(mad, 16, 0, 16, h->attr_id);
	put_bits(mad, 18, 0, 16, h->reserved);
	put_bits(mad, 20, 0, 32, h->attr_mod);
}

static void hdr_decode(const uint8_t *mad, struct cm_mad_hdr *h)
{
	h->base_version = (uint8_t)get_bits(mad, 0, 0, 8);
	h->mgmt_class = (uint8_t)get_bits(mad, 1, 0, 8);
	h->class_version = (uint8_t)get_bits(mad, 2, 0, 8);
	h->method = (uint8_t)get_bits(mad, 3, 0, 8);
	h->status = (uint16_t)get_bits(mad, 4, 0, 16);
	h->class_specific = (uint16_t)get_bits(mad, 6, 0, 16);
	h->tid = get_bits(mad, 8, 0, 64);
	h->attr_id = (uint16_t)get_bits(mad, 16, 0, 16);
	h->reserved = (uint16_t)get_bits(mad, 18, 0, 16);
	h->attr_mod = (uint32_t)get_bits(mad, 20, 0, 32);
}

/* REQ primary path at byte 52, alternate at 96 (table 106). */
static int path_encode(uint8_t *mad, unsigned int o, const struct cm_path *p)
{
	FIELD(mad, o + 0, 0, 16, p->local_lid);
	FIELD(mad, o + 2, 0, 16, p->remote_lid);
	memcpy(&mad[D(o + 4)], p->local_gid, 16);
	memcpy(&mad[D(o + 20)], p->remote_gid, 16);
	FIELD(mad, o + 36, 0, 20, p->flow_label);
	FIELD(mad, o + 39, 2, 6, p->packet_rate);
	FIELD(mad, o + 40, 0, 8, p->traffic_class);
	FIELD(mad, o + 41, 0, 8, p->hop_limit);
	FIELD(mad, o + 42, 0, 4, p->sl);
	FIELD(mad, o + 42, 4, 1, p->subnet_local);
	FIELD(mad, o + 43, 0, 5, p->local_ack_timeout);
	return 0;
}

static void path_decode(const uint8_t *mad, unsigned int o, struct cm_path *p)
{
	p->local_lid = (uint16_t)GET(mad, o + 0, 0, 16);
	p->remote_lid = (uint16_t)GET(mad, o + 2, 0, 16);
	memcpy(p->local_gid, &mad[D(o + 4)], 16);
	memcpy(p->remote_gid, &mad[D(o + 20)], 16);
	p->flow_label = (uint32_t)GET(mad, o + 36, 0, 20);
	p->packet_rate = (uint8_t)GET(mad, o + 39, 2, 6);
	p->traffic_class = (uint8_t)GET(mad, o + 40, 0, 8);
	p->hop_limit = (uint8_t)GET(mad, o + 41, 0, 8);
	p->sl = (uint8_t)GET(mad, o + 42, 0, 4);
	p->subnet_local = (uint8_t)GET(mad, o + 42, 4, 1);
	p->local_ack_timeout = (uint8_t)GET(mad, o + 43, 0, 5);
}

static int req_encode(const struct cm_req *r, uint8_t *mad)
{
	FIELD(mad, 0, 0, 32, r->local_comm_id);
	FIELD(mad, 5, 0, 24, r->vendor_id);
	FIELD(mad, 8, 0, 64, r->service_id);
	FIELD(mad, 16, 0, 64, r->local_ca_guid);
	FIELD(mad, 28, 0, 32, r->local_qkey);
	FIELD(mad, 32, 0, 24, r->local_qpn);
	FIELD(mad, 35, 0, 8, r->responder_resources);
	FIELD(mad, 36, 0, 24, r->local_eecn);
	FIELD(mad, 39, 0, 8, r->initiator_depth);
	FIELD(mad, 40, 0, 24, r->remote_eecn);
	FIELD(mad, 43, 0, 5, r->remote_cm_response_timeout);
	FIELD(mad, 43, 5, 2, r->transport_type);
	FIELD(mad, 43, 7, 1, r->flow_control);
	FIELD(mad, 44, 0, 24, r->starting_psn);
	FIELD(mad, 47, 0, 5, r->local_cm_response_timeout);
	FIELD(mad, 47, 5, 3, r->retry_count);
	FIELD(mad, 48, 0, 16, r->pkey);
	FIELD(mad, 50, 0, 4, r->path_mtu);
	FIELD(mad, 50, 4, 1, r->rdc_exists);
	FIELD(mad, 50, 5, 3, r->rnr_retry_count);
	FIELD(mad, 51, 0, 4, r->max_cm_retries);
	FIELD(mad, 51, 4, 1, r->srq);
	FIELD(mad, 51, 5, 3, r->ext_transport_type);
	if (path_encode(mad, 52, &r->primary) || path_encode(mad, 96, &r->alternate))
		return EINVAL;
	FIELD(mad, 139, 5, 1, r->sap_supported);
	memcpy(&mad[D(140)], r->private_data, sizeof(r->private_data));
	return 0;
}

static void req_decode(const uint8_t *mad, struct cm_req *r)
{
	r->local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
	r->vendor_id = (uint32_t)GET(mad, 5, 0, 24);
	r->service_id = GET(mad, 8, 0, 64);
	r->local_ca_guid = GET(mad, 16, 0, 64);
	r->local_qkey = (uint32_t)GET(mad, 28, 0, 32);
	r->local_qpn = (uint32_t)GET(mad, 32, 0, 24);
	r->responder_resources = (uint8_t)GET(mad, 35, 0, 8);
	r->local_eecn = (uint32_t)GET(mad, 36, 0, 24);
	r->initiator_depth = (uint8_t)GET(mad, 39, 0, 8);
	r->remote_eecn = (uint32_t)GET(mad, 40, 0, 24);
	r->remote_cm_response_timeout = (uint8_t)GET(mad, 43, 0, 5);
	r->transport_type = (uint8_t)GET(mad, 43, 5, 2);
	r->flow_control = (uint8_t)GET(mad, 43, 7, 1);
	r->starting_psn = (uint32_t)GET(mad, 44, 0, 24);
	r->local_cm_response_timeout = (uint8_t)GET(mad, 47, 0, 5);
	r->retry_count = (uint8_t)GET(mad, 47, 5, 3);
	r->pkey = (uint16_t)GET(mad, 48, 0, 16);
	r->path_mtu = (uint8_t)GET(mad, 50, 0, 4);
	r->rdc_exists = (uint8_t)GET(mad, 50, 4, 1);
	r->rnr_retry_count = (uint8_t)GET(mad, 50, 5, 3);
	r->max_cm_retries = (uint8_t)GET(mad, 51, 0, 4);
	r->srq = (uint8_t)GET(mad, 51, 4, 1);
	r->ext_transport_type = (uint8_t)GET(mad, 51, 5, 3);
	path_decode(mad, 52, &r->primary);
	path_decode(mad, 96, &r->alternate);
	r->sap_supported = (uint8_t)GET(mad, 139, 5, 1);
	memcpy(r->private_data, &mad[D(140)], sizeof(r->private_data));
}

static int mra_encode(const struct cm_mra *r, uint8_t *mad)
{
	FIELD(mad, 0, 0, 32, r->local_comm_id);
	FIELD(mad, 4, 0, 32, r->remote_comm_id);
	FIELD(mad, 8, 0, 2, r->message_mraed);
	FIELD(mad, 9, 0, 5, r->service_timeout);
	memcpy(&mad[D(10)], r->private_data, sizeof(r->private_data));
	return 0;
}

static void mra_decode(const uint8_t *mad, struct cm_mra *r)
{
	r->local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
	r->remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
	r->message_mraed = (uint8_t)GET(mad, 8, 0, 2);
	r->service_timeout = (uint8_t)GET(mad, 9, 0, 5);
	memcpy(r->private_data, &mad[D(10)], sizeof(r->private_data));
}

static int rej_encode(const struct cm_rej *r, uint8_t *mad)
{
	FIELD(mad, 0, 0, 32, r->local_comm_id);
	FIELD(mad, 4, 0, 32, r->remote_comm_id);
	FIELD(mad, 8, 0, 2, r->message_rejected);
	FIELD(mad, 9, 0, 7, r->rejected_info_length);
	FIELD(mad, 10, 0, 16, r->reason);
	memcpy(&mad[D(12)], r->ari, sizeof(r->ari));
	memcpy(&mad[D(84)], r->private_data, sizeof(r->private_data));
	return 0;
}

static void rej_decode(const uint8_t *mad, struct cm_rej *r)
{
	r->local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
	r->remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
	r->message_rejected = (uint8_t)GET(mad, 8, 0, 2);
	r->rejected_info_length = (uint8_t)GET(mad, 9, 0, 7);
	r->reason = (uint16_t)GET(mad, 10, 0, 16);
	memcpy(r->ari, &mad[D(12)], sizeof(r->ari));
	memcpy(r->private_data, &mad[D(84)], sizeof(r->private_data));
}

static int rep_encode(const struct cm_rep *r, uint8_t *mad)
{
	FIELD(mad, 0, 0, 32, r->local_comm_id);
	FIELD(mad, 4, 0, 32, r->remote_comm_id);
	FIELD(mad, 8, 0, 32, r->local_qkey);
	FIELD(mad, 12, 0, 24, r->local_qpn);
	if (r->vendor_id >> 24)
		return EINVAL;
	FIELD(mad, 15, 0, 8, r->vendor_id >> 16);
	FIELD(mad, 16, 0, 24, r->local_eecn);
	FIELD(mad, 19, 0, 8, (r->vendor_id >> 8) & 0xff);
	FIELD(mad, 20, 0, 24, r->starting_psn);
	FIELD(mad, 23, 0, 8, r->vendor_id & 0xff);
	FIELD(mad, 24, 0, 8, r->responder_resources);
	FIELD(mad, 25, 0, 8, r->initiator_depth);
	FIELD(mad, 26, 0, 5, r->target_ack_delay);
	FIELD(mad, 26, 5, 2, r->failover_accepted);
	FIELD(mad, 26, 7, 1, r->flow_control);
	FIELD(mad, 27, 0, 3, r->rnr_retry_count);
	FIELD(mad, 27, 3, 1, r->srq);
	FIELD(mad, 28, 0, 64, r->local_ca_guid);
	memcpy(&mad[D(36)], r->private_data, sizeof(r->private_data));
	return 0;
}

static void rep_decode(const uint8_t *mad, struct cm_rep *r)
{
	r->local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
	r->remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
	r->local_qkey = (uint32_t)GET(mad, 8, 0, 32);
	r->local_qpn = (uint32_t)GET(mad, 12, 0, 24);
	r->vendor_id = (uint32_t)(GET(mad, 15, 0, 8) << 16 | GET(mad, 19, 0, 8) << 8 | GET(mad, 23, 0, 8));
	r->local_eecn = (uint32_t)GET(mad, 16, 0, 24);
	r->starting_psn = (uint32_t)GET(mad, 20, 0, 24);
	r->responder_resources = (uint8_t)GET(mad, 24, 0, 8);
	r->initiator_depth = (uint8_t)GET(mad, 25, 0, 8);
	r->target_ack_delay = (uint8_t)GET(mad, 26, 0, 5);
	r->failover_accepted = (uint8_t)GET(mad, 26, 5, 2);
	r->flow_control = (uint8_t)GET(mad, 26, 7, 1);
	r->rnr_retry_count = (uint8_t)GET(mad, 27, 0, 3);
	r->srq = (uint8_t)GET(mad, 27, 3, 1);
	r->local_ca_guid = GET(mad, 28, 0, 64);
	memcpy(r->private_data, &mad[D(36)], sizeof(r->private_data));
}

/* RTU, DREP: the two comm IDs and private data from byte 8. */
static int ids_encode(uint32_t local, uint32_t remote, const uint8_t *pd, size_t n, uint8_t *mad)
{
	FIELD(mad, 0, 0, 32, local);
	FIELD(mad, 4, 0, 32, remote);
	if (n)
		memcpy(&mad[D(8)], pd, n);
	return 0;
}

int cm_mad_encode(const struct cm_msg *m, uint8_t mad[RNIC_MAD_BYTES])
{
	int ret;

	memset(mad, 0, RNIC_MAD_BYTES);
	hdr_encode(&m->hdr, mad);
	switch (m->hdr.attr_id) {
	case RNIC_CM_ATTR_REQ:
		ret = req_encode(&m->u.req, mad);
		break;
	case RNIC_CM_ATTR_MRA:
		ret = mra_encode(&m->u.mra, mad);
		break;
	case RNIC_CM_ATTR_REJ:
		ret = rej_encode(&m->u.rej, mad);
		break;
	case RNIC_CM_ATTR_REP:
		ret = rep_encode(&m->u.rep, mad);
		break;
	case RNIC_CM_ATTR_RTU:
		ret = ids_encode(m->u.rtu.local_comm_id, m->u.rtu.remote_comm_id, m->u.rtu.private_data,
				 sizeof(m->u.rtu.private_data), mad);
		break;
	case RNIC_CM_ATTR_DREQ:
		ret = ids_encode(m->u.dreq.local_comm_id, m->u.dreq.remote_comm_id, NULL, 0, mad);
		if (!ret) {
			FIELD(mad, 8, 0, 24, m->u.dreq.remote_qpn);
			memcpy(&mad[D(12)], m->u.dreq.private_data, sizeof(m->u.dreq.private_data));
		}
		break;
	case RNIC_CM_ATTR_DREP:
		ret = ids_encode(m->u.drep.local_comm_id, m->u.drep.remote_comm_id, m->u.drep.private_data,
				 sizeof(m->u.drep.private_data), mad);
		break;
	default:
		ret = EINVAL;
	}
	if (ret)
		memset(mad, 0, RNIC_MAD_BYTES);
	return ret;
}

int cm_mad_decode(const uint8_t mad[RNIC_MAD_BYTES], struct cm_msg *m)
{
	memset(m, 0, sizeof(*m));
	hdr_decode(mad, &m->hdr);
	if (m->hdr.base_version != RNIC_MAD_BASE_VERSION || m->hdr.mgmt_class != RNIC_MGMT_CLASS_CM ||
	    m->hdr.class_version != RNIC_CM_CLASS_VERSION || m->hdr.method != RNIC_MAD_METHOD_SEND)
		return EPROTO;
	switch (m->hdr.attr_id) {
	case RNIC_CM_ATTR_REQ:
		req_decode(mad, &m->u.req);
		return 0;
	case RNIC_CM_ATTR_MRA:
		mra_decode(mad, &m->u.mra);
		return 0;
	case RNIC_CM_ATTR_REJ:
		rej_decode(mad, &m->u.rej);
		return 0;
	case RNIC_CM_ATTR_REP:
		rep_decode(mad, &m->u.rep);
		return 0;
	case RNIC_CM_ATTR_RTU:
		m->u.rtu.local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
		m->u.rtu.remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
		memcpy(m->u.rtu.private_data, &mad[D(8)], sizeof(m->u.rtu.private_data));
		return 0;
	case RNIC_CM_ATTR_DREQ:
		m->u.dreq.local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
		m->u.dreq.remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
		m->u.dreq.remote_qpn = (uint32_t)GET(mad, 8, 0, 24);
		memcpy(m->u.dreq.private_data, &mad[D(12)], sizeof(m->u.dreq.private_data));
		return 0;
	case RNIC_CM_ATTR_DREP:
		m->u.drep.local_comm_id = (uint32_t)GET(mad, 0, 0, 32);
		m->u.drep.remote_comm_id = (uint32_t)GET(mad, 4, 0, 32);
		memcpy(m->u.drep.private_data, &mad[D(8)], sizeof(m->u.drep.private_data));
		return 0;
	default:
		return EOPNOTSUPP;
	}
}

void cm_ip_hdr_encode(const struct cm_ip_hdr *h, uint8_t out[RNIC_RDMA_CM_HDR_BYTES])
{
	out[0] = h->version;
	out[1] = (uint8_t)(h->ip_version << 4);
	out[2] = (uint8_t)(h->src_port >> 8);
	out[3] = (uint8_t)h->src_port;
	memcpy(&out[4], h->src_addr, 16);
	memcpy(&out[20], h->dst_addr, 16);
}

int cm_ip_hdr_decode(const uint8_t in[RNIC_RDMA_CM_HDR_BYTES], struct cm_ip_hdr *h)
{
	h->version = in[0];
	h->ip_version = in[1] >> 4;
	h->src_port = (uint16_t)(in[2] << 8 | in[3]);
	memcpy(h->src_addr, &in[4], 16);
	memcpy(h->dst_addr, &in[20], 16);
	if (h->version != RNIC_RDMA_CM_HDR_VERSION || (h->ip_version != 4 && h->ip_version != 6))
		return EPROTO;
	return 0;
}
