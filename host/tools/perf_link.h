/* rnic-perf against a stock perftest (ib_write_bw ...) on the far end of an
 * Ethernet link, met through perftest's out-of-band exchange on TCP
 * (perf_oob.h): the peer session (exchange, QP setup, the traffic, the
 * checks, the result lines and JSON) over an opened rnic_context, which is
 * either a card (the pci backend: it runs by itself) or a simulated NIC
 * whose Ethernet port is a UDP socket (--sim-link, perf_link_sim.c: the
 * session's progress calls step the simulated world). See perf_link.c for
 * what each test does and checks. */
#ifndef RNIC_TOOLS_PERF_LINK_H
#define RNIC_TOOLS_PERF_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "perf_oob.h"

struct rnic_context;

/* -a: the largest size our side runs (its slots and R): a simulated NIC
 * moves a few MB of this machine's time a second; a card perftest's own */
#define PERF_LINK_ALL_MAX_SIM (1u << 20)
#define PERF_LINK_ALL_MAX_CARD (1u << 23)

/* -g: perftest's multicast group when -M names none (MCG_GID,
 * ff01:0:0:2:c985::); its client in send_lat joins the next one (the last
 * byte plus 1). Interface-local: Linux neither sends nor takes it on a
 * wire, so against a Linux peer -M names a group (IPv4-mapped, as the
 * port's address is IPv4). */
#define PERF_LINK_MCG_GID {0xff, 0x01, 0, 0, 0, 0x02, 0xc9, 0x85, 0, 0, 0, 0, 0, 0, 0, 0}

struct perf_link_opts {
	enum perf_test test;
	size_t size;
	uint64_t iters;         /* per QP and size, as perftest's -n */
	int qps;                /* -q: QPs (1..OOB_MAX_QPS), each with its own key */
	int all;                /* -a: 2 B .. perf_link_all_max by powers of two */
	uint32_t inline_size;   /* -I: WRITEs and SENDs of at most this many bytes inline */
	int use_srq;            /* --use-srq: receives from one SRQ for all QPs */
	int ud;                 /* -c UD: UD QPs (send_bw; size at most the MTU) */
	int mcg;                /* -g: UD to a multicast group (send_bw, send_lat; one QP) */
	uint8_t mgid[16];       /* -M: the group (else perftest's MCG_GID, PERF_LINK_MCG_GID) */
	int mgid_set;
	int rdma_cm;            /* -R: the exchange on a control QP and every QP connected by the RDMA CM
	                           (host: the server's IPv4 address on the link; port: the CM's) */
	int mw;                 /* --mw 1|2: our R reached through a window of that type (0: the MR) */
	const char *json;       /* --json FILE, or NULL */
	uint32_t mtu;           /* RNIC_IB_MTU_* we offer; the smaller one wins */
	int tx_depth;
	uint16_t port;          /* TCP port of the exchange */
	const char *host;       /* NULL: server (listen); else the server to connect to */
	const char *local;      /* UDP HOST:PORT of the NIC's port */
	const char *remote;     /* UDP HOST:PORT of the peer's (QEMU's) end */
	uint8_t mac[6];         /* the NIC's MAC */
	uint8_t ip[4];          /* the NIC's IPv4 address: GID ::ffff:ip, ARP */
	uint8_t peer_mac[6];    /* the peer's MAC (the static neighbour) */
	uint8_t timeout;        /* local ACK timeout code */
	int width;              /* 64 or 512 */
	uint64_t seed;
	int mac_set, ip_set;    /* a card: --mac, --ip given (else the card's own) */
	const char *pcap;       /* capture of both directions, or NULL */
	double drop;            /* probability that the NIC's link loses a frame it sends */
	unsigned int wall_limit;/* seconds the whole run may take */
};

/* The NIC a session runs on. A card leaves progress, idle and the sim_*
 * calls NULL; a simulated NIC sets them all (perf_link_sim.c). */
struct perf_nic {
	struct rnic_context *ctx;  /* opened; port 1 has its MAC and GID 0 set */
	const char *device;        /* for the result header */
	unsigned int tick_mhz;     /* now()'s ticks per microsecond */
	uint64_t (*now)(void *arg);
	/* let the NIC run for `ticks` of now() (the world steps); NULL: it runs by itself */
	void (*progress)(void *arg, uint64_t ticks);
	uint64_t quiet_ticks;      /* progress at the end for the peer's last frames */
	/* wait for fd to become readable, at most ms, the NIC running meanwhile;
	 * <0 an errno on failure; NULL: poll(2) */
	int (*idle)(void *arg, int fd, int ms);
	/* the frames that reach the NIC from its port (the wire model) */
	void (*sim_frame_hook)(void *arg, void (*fn)(void *, int, const uint8_t *, size_t, uint64_t), void *fn_arg);
	/* DMA accesses outside mapped host memory so far */
	uint64_t (*sim_faults)(void *arg);
	/* the " link: ..." line of the results */
	void (*sim_link_line)(void *arg, uint64_t accepted, int failed);
	void (*release)(void *arg); /* after the context is closed */
	void *arg;
};

/* The card through the pci backend (NULL: the first one): --mac and --ip
 * set the port's address when given, else the card's own are used. 0 or
 * 1 after the library's message. */
int perf_nic_open_card(struct perf_nic *nic, const struct perf_link_opts *o, const char *role);
/* A simulated NIC on a UDP socket (--sim-link); perf_link_sim.c. */
int perf_nic_open_sim(struct perf_nic *nic, const struct perf_link_opts *o);
void perf_nic_close(struct perf_nic *nic);

/* -a's largest size on nic: PERF_LINK_ALL_MAX_SIM or _CARD. */
size_t perf_link_all_max(const struct perf_nic *nic);

/* Run the session on nic; prints the result table on stdout, problems on
 * stderr. 0 when the exchange completed and every check passed, else 1. */
int perf_link_run(const struct perf_link_opts *o, const struct perf_nic *nic);

#endif
