/* The communication manager's messages (IBTA Vol. 1 ch. 12.6) and the MAD
 * header that carries them (13.4.3): host-order structures and their
 * big-endian 256-byte wire images. Every field of REQ, MRA, REJ, REP, RTU,
 * DREQ and DREP is kept, including those RoCE leaves at 0 (LIDs, EECNs,
 * the alternate path), so a message decodes and encodes back to the same
 * bytes. Also the RDMA IP CM header (cma_hdr) at the start of a REQ's
 * private data. Private to the library (host/src/cm.c) and its tests. */
#ifndef RNIC_CM_MAD_H
#define RNIC_CM_MAD_H

#include <stdint.h>

#include "rnic/rnic_hw.h"

struct cm_mad_hdr {
	uint8_t base_version;   /* RNIC_MAD_BASE_VERSION */
	uint8_t mgmt_class;     /* RNIC_MGMT_CLASS_CM */
	uint8_t class_version;  /* RNIC_CM_CLASS_VERSION */
	uint8_t method;         /* RNIC_MAD_METHOD_SEND */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;       /* RNIC_CM_ATTR_* */
	uint16_t reserved;
	uint32_t attr_mod;
};

/* A path of a REQ (primary or alternate, 44 bytes). */
struct cm_path {
	uint16_t local_lid, remote_lid; /* 0 on RoCE */
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;    /* 20 bits */
	uint8_t packet_rate;    /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;             /* 4 bits */
	uint8_t subnet_local;   /* 1 bit */
	uint8_t local_ack_timeout; /* 5 bits */
};

struct cm_req {
	uint32_t local_comm_id;
	uint32_t vendor_id;     /* 24 bits (IBA comment 9434, Linux's ECE): 0 = none */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;     /* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;    /* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;   /* 24 bits */
	uint8_t remote_cm_response_timeout; /* 5 bits */
	uint8_t transport_type; /* 2 bits: RNIC_CM_TRANSPORT_RC */
	uint8_t flow_control;   /* 1 bit */
	uint32_t starting_psn;  /* 24 bits */
	uint8_t local_cm_response_timeout; /* 5 bits */
	uint8_t retry_count;    /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;       /* 4 bits: RNIC_IB_MTU_* */
	uint8_t rdc_exists;     /* 1 bit */
	uint8_t rnr_retry_count; /* 3 bits */
	uint8_t max_cm_retries; /* 4 bits */
	uint8_t srq;            /* 1 bit */
	uint8_t ext_transport_type; /* 3 bits */
	struct cm_path primary, alternate;
	uint8_t sap_supported;  /* 1 bit */
	uint8_t private_data[RNIC_CM_REQ_PRIVATE_BYTES];
};

struct cm_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_mraed;  /* 2 bits: RNIC_CM_MSG_* */
	uint8_t service_timeout; /* 5 bits */
	uint8_t private_data[RNIC_CM_MRA_PRIVATE_BYTES];
};

struct cm_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_rejected; /* 2 bits: RNIC_CM_MSG_* */
	uint8_t rejected_info_length; /* 7 bits */
	uint16_t reason;        /* RNIC_CM_REJ_* */
	uint8_t ari[RNIC_CM_REJ_ARI_BYTES];
	uint8_t private_data[RNIC_CM_REJ_PRIVATE_BYTES];
};

struct cm_rep {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;     /* 24 bits */
	uint32_t vendor_id;     /* 24 bits, in three bytes after the QPN, EECN and PSN (IBA comment 9434) */
	uint32_t local_eecn;    /* 24 bits */
	uint32_t starting_psn;  /* 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay; /* 5 bits */
	uint8_t failover_accepted; /* 2 bits */
	uint8_t flow_control;   /* 1 bit */
	uint8_t rnr_retry_count; /* 3 bits */
	uint8_t srq;            /* 1 bit */
	uint64_t local_ca_guid;
	uint8_t private_data[RNIC_CM_REP_PRIVATE_BYTES];
};

struct cm_rtu {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[RNIC_CM_RTU_PRIVATE_BYTES];
};

struct cm_dreq {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t remote_qpn;    /* 24 bits: the receiver's QPN */
	uint8_t private_data[RNIC_CM_DREQ_PRIVATE_BYTES];
};

struct cm_drep {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[RNIC_CM_DREP_PRIVATE_BYTES];
};

/* One CM MAD: hdr.attr_id says which member of the union is meant. */
struct cm_msg {
	struct cm_mad_hdr hdr;
	union {
		struct cm_req req;
		struct cm_mra mra;
		struct cm_rej rej;
		struct cm_rep rep;
		struct cm_rtu rtu;
		struct cm_dreq dreq;
		struct cm_drep drep;
	} u;
};

/* The MAD header of a CM Send (base version, class, class version and
 * method set; status and attribute modifier 0). */
void cm_mad_hdr_init(struct cm_mad_hdr *h, uint16_t attr_id, uint64_t tid);

/* The wire image of m (all 256 bytes written, reserved bits 0). 0, or
 * EINVAL for an attribute other than REQ, MRA, REJ, REP, RTU, DREQ, DREP
 * or a field wider than its place. */
int cm_mad_encode(const struct cm_msg *m, uint8_t mad[RNIC_MAD_BYTES]);

/* A received MAD. 0; EPROTO for a MAD that is not a CM Send of base
 * version 1 and class version 2; EOPNOTSUPP for a CM attribute this CM does
 * not take (ClassPortInfo, SIDR, LAP, APR, unknown). */
int cm_mad_decode(const uint8_t mad[RNIC_MAD_BYTES], struct cm_msg *m);

/* The RDMA IP CM header (librdmacm's and Linux's struct cma_hdr). */
struct cm_ip_hdr {
	uint8_t version;        /* RNIC_RDMA_CM_HDR_VERSION */
	uint8_t ip_version;     /* 4 or 6 (bits 7:4 of its byte) */
	uint16_t src_port;      /* the active side's port; the destination port is in the service ID */
	uint8_t src_addr[16];   /* IPv6, or IPv4 in bytes 12..15 with bytes 0..11 zero */
	uint8_t dst_addr[16];
};

void cm_ip_hdr_encode(const struct cm_ip_hdr *h, uint8_t out[RNIC_RDMA_CM_HDR_BYTES]);
/* 0, or EPROTO for an unknown version or an IP version other than 4 or 6. */
int cm_ip_hdr_decode(const uint8_t in[RNIC_RDMA_CM_HDR_BYTES], struct cm_ip_hdr *h);

/* The service ID of an IP port in a port space (RNIC_RDMA_PS_TCP). */
static inline uint64_t cm_ip_service_id(uint16_t ps, uint16_t port)
{
	return (uint64_t)RNIC_RDMA_IP_SERVICE_ID_PREFIX | (uint64_t)ps << 16 | port;
}

#endif /* RNIC_CM_MAD_H */
