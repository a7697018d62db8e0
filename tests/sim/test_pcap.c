/* pcap capture and injection: write N frames, read them back with libpcap
 * (bytes and ns timestamps equal), read them with pcap_read_frames. */
#define _DEFAULT_SOURCE /* u_char and friends in pcap.h */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim_int.h"

#define N 50

static uint8_t frames[N][1600];
static size_t lens[N];

struct readback {
	unsigned int n;
	int ok;
};

static int on_frame(void *arg, const uint8_t *frame, size_t len)
{
	struct readback *r = arg;

	if (r->n >= N || len != lens[r->n] || memcmp(frame, frames[r->n], len))
		r->ok = 0;
	r->n++;
	return 0;
}

static int stop_at_3(void *arg, const uint8_t *frame, size_t len)
{
	unsigned int *n = arg;

	(void)frame;
	(void)len;
	return ++*n == 3 ? -ECANCELED : 0;
}

int main(void)
{
	char path[] = "/tmp/rnic-sim-test-XXXXXX";
	int fd = mkstemp(path);
	struct pcap_cap *c;
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int n = 0;
	struct readback rb = { 0, 1 };
	uint64_t s = 7;

	CHECK(fd >= 0);
	close(fd);
	for (unsigned int i = 0; i < N; i++) {
		lens[i] = 60 + sim_rand64(&s) % 1500;
		for (size_t k = 0; k < lens[i]; k++)
			frames[i][k] = (uint8_t)sim_rand64(&s);
	}

	c = pcap_cap_open(path, 250);
	CHECK(c != NULL);
	for (unsigned int i = 0; i < N; i++)
		pcap_cap_write(c, 1000000000ull / 4 * i + i, frames[i], lens[i]);
	pcap_cap_close(c);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	CHECK(p != NULL);
	CHECK_EQ(pcap_datalink(p), DLT_EN10MB);
	while (p && pcap_next_ex(p, &h, &data) == 1) {
		uint64_t cycle = 1000000000ull / 4 * n + n;
		uint64_t ns = cycle * 4;

		CHECK_EQ(h->caplen, lens[n]);
		CHECK_EQ(h->len, lens[n]);
		CHECK(!memcmp(data, frames[n], lens[n]));
		CHECK_EQ((uint64_t)h->ts.tv_sec, ns / 1000000000u);
		CHECK_EQ((uint64_t)h->ts.tv_usec, ns % 1000000000u);
		n++;
	}
	if (p)
		pcap_close(p);
	CHECK_EQ(n, N);

	CHECK_EQ(pcap_read_frames(path, on_frame, &rb), N);
	CHECK_EQ(rb.n, N);
	CHECK(rb.ok);
	n = 0;
	CHECK_EQ(pcap_read_frames(path, stop_at_3, &n), -ECANCELED);
	CHECK_EQ(pcap_read_frames("/nonexistent/x.pcap", on_frame, &rb), -EIO);
	CHECK(pcap_cap_open("/nonexistent/x.pcap", 250) == NULL);
	unlink(path);
	return check_summary();
}
