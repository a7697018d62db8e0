/* OpenRNIC simulator: pcap capture of the wire and pcap injection (libpcap).
 *
 * The capture is one Ethernet (DLT_EN10MB) file with nanosecond timestamps:
 * a frame recorded at cycle c carries c * 1000 / clock_mhz ns.
 */
#define _DEFAULT_SOURCE /* u_char and friends in pcap.h */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_int.h"

struct pcap_cap {
	pcap_t *dead;
	pcap_dumper_t *dumper;
	unsigned int clock_mhz;
};

struct pcap_cap *pcap_cap_open(const char *path, unsigned int clock_mhz)
{
	struct pcap_cap *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->clock_mhz = clock_mhz ? clock_mhz : 250;
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!c->dead) {
		free(c);
		return NULL;
	}
	c->dumper = pcap_dump_open(c->dead, path);
	if (!c->dumper) {
		fprintf(stderr, "rnic-sim: pcap %s: %s\n", path, pcap_geterr(c->dead));
		pcap_close(c->dead);
		free(c);
		return NULL;
	}
	return c;
}

void pcap_cap_write(struct pcap_cap *c, uint64_t cycle, const uint8_t *frame, size_t len)
{
	struct pcap_pkthdr h;
	uint64_t ns = cycle * 1000u / c->clock_mhz;

	h.ts.tv_sec = (time_t)(ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ns % 1000000000u); /* ns: nanosecond file */
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)c->dumper, &h, frame);
}

void pcap_cap_close(struct pcap_cap *c)
{
	if (!c)
		return;
	pcap_dump_close(c->dumper);
	pcap_close(c->dead);
	free(c);
}

int pcap_read_frames(const char *path, int (*fn)(void *arg, const uint8_t *frame, size_t len),
		     void *arg)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p = pcap_open_offline(path, err);
	int n = 0, r;

	if (!p) {
		fprintf(stderr, "rnic-sim: pcap %s: %s\n", path, err);
		return -EIO;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "rnic-sim: pcap %s: link type %d is not Ethernet\n", path,
			pcap_datalink(p));
		pcap_close(p);
		return -EIO;
	}
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		int e = fn(arg, data, h->caplen);

		if (e < 0) {
			pcap_close(p);
			return e;
		}
		n++;
	}
	if (r == PCAP_ERROR) {
		fprintf(stderr, "rnic-sim: pcap %s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		return -EIO;
	}
	pcap_close(p);
	return n;
}
