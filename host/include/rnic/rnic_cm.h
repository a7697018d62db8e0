/* OpenRNIC host library: connection management, shaped after librdmacm
 * (<rdma/rdma_cma.h>) with an rnic_cm_ prefix.
 *
 * The InfiniBand communication manager (IBTA Vol. 1 ch. 12) of RoCE, run by
 * the library: REQ, REP, RTU, REJ, MRA, DREQ and DREP with their timeouts,
 * retries and duplicates, over a MAD transport (struct
 * rnic_cm_transport_ops): QP1 of the device by default, or any other
 * carrier the program supplies, and the
 * RDMA IP CM service of librdmacm (the service ID of an IP port, the
 * addressing header in the REQ's private data), so the peer may be this
 * library or a Linux rdma_cm. The CM drives the QP of an rnic_cm_id through
 * INIT, RTR and RTS with rnic_modify_qp.
 *
 * Conventions are the library's (not librdmacm's -1/errno): calls return 0
 * or a positive errno value. Nothing blocks: rnic_cm_get_event returns
 * EAGAIN when no event is ready; rnic_cm_next_timeout says when the next
 * timer runs out. The library is not thread-safe: serialize the calls on one
 * channel. docs/cm.md is the reference for every call.
 */
#ifndef RNIC_CM_H
#define RNIC_CM_H

#include <stdint.h>
#include <sys/socket.h>

#include "rnic/rnic_hw.h"
#include "rnic/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* enum rdma_cm_event_type, same values. */
enum rnic_cm_event_type {
	RNIC_CM_EVENT_ADDR_RESOLVED = 0,
	RNIC_CM_EVENT_ADDR_ERROR = 1,
	RNIC_CM_EVENT_ROUTE_RESOLVED = 2,
	RNIC_CM_EVENT_ROUTE_ERROR = 3,
	RNIC_CM_EVENT_CONNECT_REQUEST = 4,
	RNIC_CM_EVENT_CONNECT_RESPONSE = 5,
	RNIC_CM_EVENT_CONNECT_ERROR = 6,
	RNIC_CM_EVENT_UNREACHABLE = 7,
	RNIC_CM_EVENT_REJECTED = 8,
	RNIC_CM_EVENT_ESTABLISHED = 9,
	RNIC_CM_EVENT_DISCONNECTED = 10,
	RNIC_CM_EVENT_DEVICE_REMOVAL = 11,
	RNIC_CM_EVENT_MULTICAST_JOIN = 12,
	RNIC_CM_EVENT_MULTICAST_ERROR = 13,
	RNIC_CM_EVENT_ADDR_CHANGE = 14,
	RNIC_CM_EVENT_TIMEWAIT_EXIT = 15,
};

/* enum rdma_port_space: the port space is the service ID's bits 23:16. */
enum rnic_port_space {
	RNIC_PS_TCP = RNIC_RDMA_PS_TCP,
};

/* Where a MAD goes to or came from. */
struct rnic_cm_mad_addr {
	union rnic_gid gid;     /* the peer's GID (destination on send, source on receive) */
	uint32_t qpn;           /* the peer's QP: RNIC_GSI_QPN */
	uint32_t qkey;          /* RNIC_GSI_QKEY */
	uint16_t pkey;          /* RNIC_DEFAULT_PKEY */
	uint8_t sgid_index;     /* send: the port GID entry to send from; receive: the entry the MAD was sent to */
	uint8_t hop_limit;      /* send: IPv4 TTL / IPv6 hop limit */
	uint8_t traffic_class;  /* send */
	uint8_t mac_valid;      /* mac holds a MAC address */
	uint8_t mac[6];         /* send: next-hop MAC; receive: the frame's source MAC */
};

/* The carrier of the CM's MADs (RNIC_MAD_BYTES each). */
struct rnic_cm_transport_ops {
	/* Send one MAD; 0 or an errno value. A MAD lost on the way is not an
	 * error: the CM resends what needs an answer. */
	int (*send)(void *priv, const struct rnic_cm_mad_addr *dst, const uint8_t *mad);
	/* Take the oldest received MAD: 0, or EAGAIN when there is none. */
	int (*recv)(void *priv, struct rnic_cm_mad_addr *src, uint8_t *mad);
};

/* The MAD carrier over QP1 of a device: the GSI QP with its CQs, receive
 * buffers (RNIC_GRH_BYTES + RNIC_MAD_BYTES) kept posted, and address handles
 * cached by destination. A channel created without a transport opens one
 * on its device. A device has one QP1, so one carrier (EBUSY otherwise). */
struct rnic_cm_gsi; /* opaque */

struct rnic_cm_gsi_stats {
	uint64_t sent;           /* MADs posted */
	uint64_t received;       /* MADs handed to recv's caller */
	uint64_t recv_dropped;   /* receives that were not a MAD with a GRH */
	uint64_t recv_errors;    /* receive completions in error */
	uint64_t send_errors;    /* send completions in error */
	uint64_t send_full;      /* sends refused: every slot in flight */
	uint64_t repost_errors;  /* receive buffers that could not be posted again */
	uint64_t ahs_created;    /* address handles made (the cache's misses) */
	uint64_t recoveries;     /* QP1 brought back from the error state (RESET, RTS, buffers posted) */
};

int rnic_cm_gsi_open(struct rnic_context *context, struct rnic_cm_gsi **gsi);
int rnic_cm_gsi_close(struct rnic_cm_gsi *gsi);
/* The transport calls (priv: the struct rnic_cm_gsi). send: 0, EINVAL (not
 * QP1, the GSI Q_Key and the default P_Key), EHOSTUNREACH (no MAC),
 * ENOBUFS (every send slot in flight), or the verbs' errno. recv: 0,
 * EAGAIN, or EIO once the QP is in ERR. */
int rnic_cm_gsi_send(void *priv, const struct rnic_cm_mad_addr *dst, const uint8_t *mad);
int rnic_cm_gsi_recv(void *priv, struct rnic_cm_mad_addr *src, uint8_t *mad);
extern const struct rnic_cm_transport_ops rnic_cm_gsi_transport;
struct rnic_qp *rnic_cm_gsi_qp(struct rnic_cm_gsi *gsi);
void rnic_cm_gsi_get_stats(struct rnic_cm_gsi *gsi, struct rnic_cm_gsi_stats *stats);

struct rnic_cm_channel_attr {
	struct rnic_context *context;           /* the device whose port 1 the CM serves */
	const struct rnic_cm_transport_ops *transport; /* NULL: QP1 of context (rnic_cm_gsi) */
	void *transport_priv;
	uint64_t (*now_ns)(void *clock_priv);   /* NULL: CLOCK_MONOTONIC */
	void *clock_priv;
	uint64_t seed;       /* communication IDs, PSNs, ports; 0: from the clock */
	uint64_t ca_guid;    /* 0: the EUI-64 of the port MAC */
	unsigned int if_mtu; /* the port's Ethernet MTU (0: 1500): gives the path MTU */
};

struct rnic_cm_event_channel; /* opaque */

/* struct rdma_route and struct rdma_addr in one: what resolve_addr and
 * resolve_route found (or, on the passive side, what the REQ said). */
struct rnic_cm_route {
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	union rnic_gid sgid;
	union rnic_gid dgid;
	uint8_t sgid_index;     /* port GID table entry of sgid */
	uint8_t dmac[6];        /* next-hop MAC of dgid */
	uint32_t path_mtu;      /* RNIC_IB_MTU_* */
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t packet_life_time; /* RNIC_CM_TIMEOUT_UNIT_NS * 2^value */
};

/* struct rdma_cm_id. */
struct rnic_cm_id {
	struct rnic_context *verbs;
	struct rnic_cm_event_channel *channel;
	void *context;          /* the program's */
	struct rnic_qp *qp;     /* set by rnic_cm_create_qp */
	struct rnic_cm_route route;
	enum rnic_port_space ps;
	uint8_t port_num;       /* 1 */
};

/* struct rdma_conn_param. */
struct rnic_cm_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources; /* READ/ATOMIC requests the peer may have outstanding at us */
	uint8_t initiator_depth;     /* READ/ATOMIC requests we may have outstanding at the peer */
	uint8_t flow_control;
	uint8_t retry_count;         /* 0..7 */
	uint8_t rnr_retry_count;     /* 0..7 (7: infinite) */
	uint8_t srq;
	uint32_t qp_num;
};

/* struct rdma_cm_event. */
struct rnic_cm_event {
	struct rnic_cm_id *id;
	struct rnic_cm_id *listen_id;
	enum rnic_cm_event_type event;
	int status;             /* 0; a negative errno value; REJECTED: the REJ reason (RNIC_CM_REJ_*) */
	union {
		struct rnic_cm_conn_param conn;
	} param;
};

struct rnic_cm_event_channel *rnic_cm_create_event_channel(const struct rnic_cm_channel_attr *attr);
int rnic_cm_destroy_event_channel(struct rnic_cm_event_channel *channel);
/* The QP1 carrier a channel opened for itself, or NULL. */
struct rnic_cm_gsi *rnic_cm_channel_gsi(struct rnic_cm_event_channel *channel);
/* A static neighbour entry: the next-hop MAC of an IPv4 or IPv6 address. */
int rnic_cm_set_neighbour(struct rnic_cm_event_channel *channel, const struct sockaddr *addr,
			  const uint8_t mac[6]);

int rnic_cm_create_id(struct rnic_cm_event_channel *channel, struct rnic_cm_id **id, void *context,
		      enum rnic_port_space ps);
int rnic_cm_destroy_id(struct rnic_cm_id *id);
int rnic_cm_bind_addr(struct rnic_cm_id *id, const struct sockaddr *addr);
int rnic_cm_resolve_addr(struct rnic_cm_id *id, const struct sockaddr *src_addr,
			 const struct sockaddr *dst_addr, int timeout_ms);
int rnic_cm_resolve_route(struct rnic_cm_id *id, int timeout_ms);
/* rdma_create_qp: an RC QP on pd, moved to INIT; id->qp. */
int rnic_cm_create_qp(struct rnic_cm_id *id, struct rnic_pd *pd, struct rnic_qp_init_attr *qp_init_attr);
int rnic_cm_destroy_qp(struct rnic_cm_id *id);
/* rdma_init_qp_attr: the attributes and mask that move a QP the program
 * made itself to qp_attr->qp_state (INIT; RTR and RTS once the peer's REQ or
 * REP is in) for this connection, as the CM moves its own. */
int rnic_cm_init_qp_attr(struct rnic_cm_id *id, struct rnic_qp_attr *qp_attr, int *qp_attr_mask);
int rnic_cm_connect(struct rnic_cm_id *id, const struct rnic_cm_conn_param *conn_param);
int rnic_cm_listen(struct rnic_cm_id *id, int backlog);
int rnic_cm_accept(struct rnic_cm_id *id, const struct rnic_cm_conn_param *conn_param);
int rnic_cm_reject(struct rnic_cm_id *id, const void *private_data, uint8_t private_data_len);
/* rdma_establish: the active side of an id without a QP, after
 * CONNECT_RESPONSE: sends the RTU. */
int rnic_cm_establish(struct rnic_cm_id *id);
int rnic_cm_disconnect(struct rnic_cm_id *id);

/* Receive MADs, run timers, then take the oldest event: 0, or EAGAIN. */
int rnic_cm_get_event(struct rnic_cm_event_channel *channel, struct rnic_cm_event **event);
int rnic_cm_ack_event(struct rnic_cm_event *event);
/* The clock time (ns, the channel's clock) at which the next timer runs
 * out: 0, or ENOENT when no timer runs. */
int rnic_cm_next_timeout(struct rnic_cm_event_channel *channel, uint64_t *when_ns);

const char *rnic_cm_event_str(enum rnic_cm_event_type event);
const char *rnic_cm_reject_reason_str(int reason);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_CM_H */
