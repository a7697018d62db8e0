/* perftest's out-of-band exchange (host/tools/perf_oob.c): the messages
 * formatted and parsed, malformed ones refused, each test's plan, and the
 * whole exchange of every test between two threads over 127.0.0.1 (no RDMA;
 * a hook stands in for the traffic), including peers that break it. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_oob.h"

static int failures;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                   \
		}                                                                     \
	} while (0)

static const char example_key[] =
	"0000:0001:000011:07524a:00000212:000055a890dff000:00:00:00:00:00:00:00:00:00:00:ff:ff:c6:12:00:02:00000000:";

static int same_key(const struct oob_key *a, const struct oob_key *b)
{
	return a->lid == b->lid && a->out_reads == b->out_reads && a->qpn == b->qpn && a->psn == b->psn &&
	       a->rkey == b->rkey && a->vaddr == b->vaddr && !memcmp(a->gid, b->gid, 16) && a->srqn == b->srqn;
}

static void test_key(void)
{
	struct oob_key k = {0}, k2;
	char buf[OOB_KEY_LEN], bad[OOB_KEY_LEN];

	/* the message a stock ib_write_bw sent (captured from a Linux rxe peer) */
	CHECK(sizeof(example_key) == OOB_KEY_LEN);
	CHECK(oob_key_parse(example_key, sizeof(example_key), &k) == 0);
	CHECK(k.lid == 0 && k.out_reads == 1 && k.qpn == 0x11 && k.psn == 0x07524a && k.rkey == 0x212);
	CHECK(k.vaddr == 0x000055a890dff000ull && k.srqn == 0);
	CHECK(k.gid[10] == 0xff && k.gid[11] == 0xff && k.gid[12] == 0xc6 && k.gid[13] == 0x12 && k.gid[15] == 2);
	oob_key_format(buf, &k);
	CHECK(memcmp(buf, example_key, OOB_KEY_LEN) == 0);

	/* round trip of extreme values */
	memset(&k, 0xff, sizeof(k));
	k.qpn = 0xffffff;
	k.psn = 0xabcdef;
	oob_key_format(buf, &k);
	CHECK(buf[OOB_KEY_LEN - 1] == 0 && buf[OOB_KEY_LEN - 2] == ':');
	CHECK(oob_key_parse(buf, OOB_KEY_LEN, &k2) == 0);
	CHECK(same_key(&k, &k2));
	/* upper-case hex is accepted */
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[31] = 'F';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) == 0 && (k2.vaddr & 0xf0000) == 0xf0000);

	/* refused: short, long, not NUL-terminated, bad digit, missing colon, shifted field */
	CHECK(oob_key_parse(example_key, OOB_KEY_LEN - 1, &k2) < 0);
	CHECK(oob_key_parse(example_key, 59, &k2) < 0);
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[OOB_KEY_LEN - 1] = 'x';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[2] = 'g';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[4] = '-';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[OOB_KEY_LEN - 2] = '0';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
	memcpy(bad, example_key, OOB_KEY_LEN);
	bad[0] = ' ';
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
	memset(bad, 0, sizeof(bad));
	CHECK(oob_key_parse(bad, OOB_KEY_LEN, &k2) < 0);
}

static void test_small(void)
{
	char v[OOB_VERSION_LEN], m[2];
	uint8_t b[4], rb[OOB_REPORT_LEN];
	int major, minor;
	uint32_t x;
	struct oob_report r = {65536, 5000, 11030.55, 11029.9, 0.176478}, r2;

	oob_version_format(v);
	CHECK(!strcmp(v, "6.06") && v[15] == 0);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) == 0 && major == 6 && minor == 6);
	memset(v, 0, sizeof(v));
	memcpy(v, "5.70", 4);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) == 0 && major == 5 && minor == 70);
	memcpy(v, "5.7", 4);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) == 0 && minor == 70);
	memcpy(v, "5.69", 4);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) < 0);    /* too old */
	memcpy(v, "4.99", 4);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) < 0);
	memcpy(v, "6.x6", 4);
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) < 0);
	memcpy(v, "6.06", 4);
	v[10] = 'z';                                                        /* junk in the padding */
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) < 0);
	CHECK(oob_version_parse(v, 8, &major, &minor) < 0);
	memset(v, 0, sizeof(v));
	CHECK(oob_version_parse(v, sizeof(v), &major, &minor) < 0);

	oob_be32_format(b, 4096);
	CHECK(b[0] == 0 && b[1] == 0 && b[2] == 0x10 && b[3] == 0);
	CHECK(oob_be32_parse(b, 4, &x) == 0 && x == 4096);
	CHECK(oob_be32_parse(b, 3, &x) < 0);

	CHECK(oob_mtu_format(m, 3) == 0 && m[0] == '3' && m[1] == 0);
	CHECK(oob_mtu_parse(m, 2, &x) == 0 && x == 3);
	CHECK(oob_mtu_format(m, 0) < 0 && oob_mtu_format(m, 6) < 0);
	CHECK(oob_mtu_parse("6", 2, &x) < 0 && oob_mtu_parse("0", 2, &x) < 0 && oob_mtu_parse("33", 2, &x) < 0);
	CHECK(oob_mtu_parse("5", 1, &x) < 0);

	oob_report_format(rb, &r);
	CHECK(rb[6] == 0x00 && rb[7] == 0x00 && rb[5] == 0x01 && rb[15] == 0x88 && rb[14] == 0x13);
	CHECK(oob_report_parse(rb, sizeof(rb), &r2) == 0 && !memcmp(&r, &r2, sizeof(r)));
	CHECK(oob_report_parse(rb, 39, &r2) < 0);

	CHECK(oob_done_parse("done", 5) == 0);
	CHECK(oob_done_parse("done", 4) < 0 && oob_done_parse("dome", 5) < 0);

	for (int t = 0; t < PERF_NTESTS; t++)
		CHECK(perf_test_parse(perf_test_name((enum perf_test)t)) == t);
	CHECK(perf_test_parse("write") < 0 && perf_test_parse("") < 0);
}

static int count(const enum oob_step_kind *s, int n, enum oob_step_kind k)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += s[i] == k;
	return c;
}

/* -R's binary key: perftest's struct pingpong_dest on x86-64 as its
 * rdma_write_keys fills it (htobe32 of lid, out_reads, qpn, psn, rkey, srqn,
 * gid_index; htobe64 of vaddr at 24 after 4 bytes of padding; the GID raw) */
static void test_key_cm(void)
{
	static const uint8_t wire[OOB_KEY_CM_LEN] = {
		0, 0, 0, 0,  0, 0, 0, 16,  0, 0x12, 0x34, 0x56,  0, 0xab, 0xcd, 0xef,  0x89, 0xab, 0xcd, 0x01,
		0, 0, 0, 0,  0, 0, 0x55, 0xa8, 0x90, 0xdf, 0xf0, 0x08,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 2,
		0, 0, 0, 7,  0, 0, 0, 0};
	struct oob_key k, k2;
	uint8_t buf[OOB_KEY_CM_LEN], bad[OOB_KEY_CM_LEN];

	CHECK(oob_key_cm_parse(wire, sizeof(wire), &k) == 0);
	CHECK(k.lid == 0 && k.out_reads == 16 && k.qpn == 0x123456 && k.psn == 0xabcdef && k.rkey == 0x89abcd01);
	CHECK(k.vaddr == 0x000055a890dff008ull && k.srqn == 7);
	CHECK(k.gid[10] == 0xff && k.gid[12] == 198 && k.gid[15] == 2);
	oob_key_cm_format(buf, &k);
	CHECK(memcmp(buf, wire, sizeof(wire)) == 0);
	CHECK(oob_key_cm_parse(buf, sizeof(buf), &k2) == 0 && same_key(&k, &k2));
	/* a length other than perftest's, a QPN or PSN over 24 bits, a LID over 16 */
	CHECK(oob_key_cm_parse(wire, OOB_KEY_CM_LEN - 1, &k2) < 0);
	CHECK(oob_key_cm_parse(wire, OOB_KEY_LEN, &k2) < 0);
	memcpy(bad, wire, sizeof(bad));
	bad[8] = 1;
	CHECK(oob_key_cm_parse(bad, sizeof(bad), &k2) < 0);
	memcpy(bad, wire, sizeof(bad));
	bad[12] = 1;
	CHECK(oob_key_cm_parse(bad, sizeof(bad), &k2) < 0);
	memcpy(bad, wire, sizeof(bad));
	bad[1] = 1;
	CHECK(oob_key_cm_parse(bad, sizeof(bad), &k2) < 0);
}

static void test_plans_cm(void)
{
	enum oob_step_kind s[OOB_MAX_STEPS], t[OOB_MAX_STEPS];
	int n, m;

	/* -R: a handshake, the CM connections and a handshake after the MTU,
	 * no "done"; the rest as without it */
	for (int test = 0; test < PERF_NTESTS; test++) {
		n = oob_plan_cm((enum perf_test)test, 2, 1, 1, s);
		m = oob_plan_qs((enum perf_test)test, 2, 1, t);
		CHECK(n == m + 3 && s[3] == OOB_STEP_MTU && s[4] == OOB_STEP_KEYS && s[5] == OOB_STEP_CM_CONNECT &&
		      s[6] == OOB_STEP_KEYS && count(s, n, OOB_STEP_CM_CONNECT) == 1);
		CHECK(count(s, n, OOB_STEP_DONE) == 0 && s[n - 1] == OOB_STEP_CLOSE);
		for (int i = 7; i < n - 1; i++)
			CHECK(s[i] == t[i - 3]);
	}
	n = oob_plan_cm(PERF_SEND_BW, OOB_MAX_QPS, OOB_MAX_SIZES, 1, s);
	CHECK(n <= OOB_MAX_STEPS);
}

static void test_plans(void)
{
	enum oob_step_kind s[OOB_MAX_STEPS];
	int n;

	for (int t = 0; t < PERF_NTESTS; t++) {
		n = oob_plan((enum perf_test)t, s);
		CHECK(n <= OOB_MAX_STEPS);
		CHECK(s[0] == OOB_STEP_VERSION && s[1] == OOB_STEP_CYCLE_BUFFER && s[2] == OOB_STEP_CACHE_LINE &&
		      s[3] == OOB_STEP_MTU);
		CHECK(count(s, n, OOB_STEP_TRAFFIC) == 1);
	}
	n = oob_plan(PERF_WRITE_BW, s);
	CHECK(n == 12 && count(s, n, OOB_STEP_KEYS) == 5 && s[7] == OOB_STEP_TRAFFIC && s[9] == OOB_STEP_REPORTS &&
	      s[11] == OOB_STEP_DONE);
	CHECK(oob_plan(PERF_READ_BW, s) == 12 && oob_plan(PERF_ATOMIC_BW, s) == 12);
	n = oob_plan(PERF_SEND_BW, s);
	CHECK(n == 11 && count(s, n, OOB_STEP_KEYS) == 5 && s[8] == OOB_STEP_TRAFFIC &&
	      count(s, n, OOB_STEP_REPORTS) == 0 && s[10] == OOB_STEP_DONE);
	CHECK(oob_plan(PERF_READ_LAT, s) == 11 && oob_plan(PERF_SEND_LAT, s) == 11);
	n = oob_plan(PERF_WRITE_LAT, s);
	CHECK(n == 10 && count(s, n, OOB_STEP_KEYS) == 4 && s[8] == OOB_STEP_TRAFFIC && s[9] == OOB_STEP_CLOSE);
	/* -q 64 -a (23 sizes): the largest plan fits; send_bw: two QP rounds,
	 * a traffic step per size; write_bw: two QP rounds back to back (before
	 * and after perftest's ctx_connect), sizes in one step */
	n = oob_plan_qs(PERF_SEND_BW, OOB_MAX_QPS, OOB_MAX_SIZES, s);
	CHECK(n <= OOB_MAX_STEPS && count(s, n, OOB_STEP_TRAFFIC) == OOB_MAX_SIZES &&
	      count(s, n, OOB_STEP_KEYS) == 2 * OOB_MAX_QPS + 1 + 2 * OOB_MAX_SIZES && s[n - 1] == OOB_STEP_DONE);
	n = oob_plan_qs(PERF_WRITE_BW, 4, OOB_MAX_SIZES, s);
	CHECK(n == 18 && count(s, n, OOB_STEP_TRAFFIC) == 1 && count(s, n, OOB_STEP_KEYS) == 11 &&
	      s[13] == OOB_STEP_TRAFFIC);
	n = oob_plan_qs(PERF_WRITE_LAT, 1, 5, s);
	CHECK(n == 10 && count(s, n, OOB_STEP_TRAFFIC) == 1);
}

/* ---------------------------------------------------------------- loopback */

struct side {
	struct oob_session s;
	int rc;
	int traffic;         /* the traffic hook ran, after >= 3 handshakes */
	int lfd;             /* server: the listening socket */
	uint16_t port;
	const char *junk;    /* not NULL: send this instead of the version and stop */
	int waits;           /* wait_readable calls: one per message read */
};

static int count_wait(void *arg, int fd)
{
	(void)fd;
	((struct side *)arg)->waits++;
	return 0;
}

static int hook(struct oob_session *s, int step, enum oob_step_kind kind, void *arg)
{
	struct side *sd = arg;

	(void)step;
	if (kind == OOB_STEP_TRAFFIC) {
		if (s->handshakes < 3 + (s->nqp > 1 ? s->nqp - 1 : 0))
			return -1;
		sd->traffic++;
		s->report.size = 4096;
		s->report.iters = 5;
		s->report.bw_avg = s->client ? 123.5 : 0;
	}
	return 0;
}

static void init_side(struct side *sd, int client, enum perf_test t, uint32_t mtu)
{
	memset(sd, 0, sizeof(*sd));
	sd->s.client = client;
	sd->s.test = t;
	sd->s.cycle_buffer = 4096;
	sd->s.cache_line = 64;
	sd->s.mtu = mtu;
	sd->s.key.qpn = client ? 0x11 : 0x22;
	sd->s.key.psn = client ? 0x123456 : 0x654321;
	sd->s.key.rkey = client ? 0xc1 : 0x5e;
	sd->s.key.vaddr = client ? 0x7f0000001000ull : 0x7f0000002000ull;
	sd->s.key.out_reads = t == PERF_READ_BW ? 0x80 : 1;
	sd->s.key.gid[10] = sd->s.key.gid[11] = 0xff;
	sd->s.key.gid[15] = client ? 1 : 2;
	sd->s.wait_readable = count_wait;
	sd->s.wait_arg = sd;
}

static void *server_main(void *arg)
{
	struct side *sd = arg;
	char err[128];

	sd->s.fd = oob_accept(sd->lfd, err, sizeof(err));
	if (sd->s.fd < 0) {
		fprintf(stderr, "server: %s\n", err);
		sd->rc = -1;
		return NULL;
	}
	sd->rc = oob_run(&sd->s, hook, sd);
	close(sd->s.fd);
	return NULL;
}

static void *client_main(void *arg)
{
	struct side *sd = arg;
	char err[128];

	sd->s.fd = oob_connect("127.0.0.1", sd->port, err, sizeof(err));
	if (sd->s.fd < 0) {
		fprintf(stderr, "client: %s\n", err);
		sd->rc = -1;
		return NULL;
	}
	if (sd->junk) {
		char v[OOB_VERSION_LEN] = {0}, in[OOB_VERSION_LEN];
		ssize_t n;

		strncpy(v, sd->junk, sizeof(v) - 1);
		n = write(sd->s.fd, v, sizeof(v));
		(void)n;
		n = read(sd->s.fd, in, sizeof(in));
		(void)n;
		sd->rc = 0;
	} else {
		sd->rc = oob_run(&sd->s, hook, sd);
	}
	close(sd->s.fd);
	return NULL;
}

/* One exchange over 127.0.0.1; the sides' results in *srv, *cli. */
static void loopback(struct side *srv, struct side *cli)
{
	pthread_t ts, tc;
	char err[128];

	srv->lfd = oob_listen("127.0.0.1", 0, &srv->port, err, sizeof(err));
	if (srv->lfd < 0) {
		fprintf(stderr, "listen: %s\n", err);
		failures++;
		return;
	}
	cli->port = srv->port;
	CHECK(pthread_create(&ts, NULL, server_main, srv) == 0);
	CHECK(pthread_create(&tc, NULL, client_main, cli) == 0);
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	close(srv->lfd);
}

static void test_loopback(void)
{
	for (int t = 0; t < PERF_NTESTS; t++) {
		struct side srv, cli;

		init_side(&srv, 0, (enum perf_test)t, 5);
		init_side(&cli, 1, (enum perf_test)t, 3);
		loopback(&srv, &cli);
		if (srv.rc || cli.rc)
			fprintf(stderr, "%s: server '%s', client '%s'\n", perf_test_name((enum perf_test)t), srv.s.err,
				cli.s.err);
		CHECK(srv.rc == 0 && cli.rc == 0);
		CHECK(srv.traffic == 1 && cli.traffic == 1);
		CHECK(srv.s.peer_major == 6 && srv.s.peer_minor == 6 && cli.s.peer_major == 6);
		CHECK(srv.s.active_mtu == 3 && cli.s.active_mtu == 3);
		CHECK(srv.s.peer_cycle_buffer == 4096 && cli.s.peer_cache_line == 64);
		CHECK(same_key(&srv.s.peer_key, &cli.s.key));
		CHECK(same_key(&cli.s.peer_key, &srv.s.key));
		CHECK(srv.s.handshakes == (t == PERF_WRITE_LAT ? 4 : 5));
		/* the bw tests with reports: write_bw, read_bw, atomic_bw */
		if (t == PERF_WRITE_BW || t == PERF_READ_BW || t == PERF_ATOMIC_BW)
			CHECK(srv.s.peer_report.bw_avg == 123.5 && srv.s.peer_report.iters == 5);
		/* one read per message: version, cycle buffer, cache line, MTU, the
		 * key handshakes, the reports as perftest sends them (five 8-byte
		 * values, each answered before the next), done */
		{
			int reads = 4 + srv.s.handshakes + (t == PERF_WRITE_BW || t == PERF_READ_BW ||
							     t == PERF_ATOMIC_BW ? 5 : 0) + (t != PERF_WRITE_LAT);

			CHECK(srv.waits == reads && cli.waits == reads);
		}
		printf("loopback %-9s: ok (%d handshakes)\n", perf_test_name((enum perf_test)t), srv.s.handshakes);
	}
}

/* perftest's -q and -a: a key handshake per QP in each QP round (one round
 * in write_bw, read_bw and atomic_bw, two in the others), every QP's key
 * arriving as the peer's QP of the same index; send_bw's traffic and the
 * handshakes around it once per size. */
static void test_loopback_qps(void)
{
	static const enum perf_test tests[] = {PERF_WRITE_BW, PERF_SEND_BW, PERF_READ_LAT};

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		enum perf_test t = tests[i];
		int nqp = 3, nsizes = 4, rounds = 2; /* QP rounds: two in every test */
		int traffic = t == PERF_SEND_BW ? nsizes : 1;
		struct side srv, cli;

		init_side(&srv, 0, t, 3);
		init_side(&cli, 1, t, 3);
		srv.s.nqp = cli.s.nqp = nqp;
		srv.s.nsizes = cli.s.nsizes = nsizes;
		for (int q = 1; q < nqp; q++) {
			srv.s.qp_key[q] = srv.s.key;
			srv.s.qp_key[q].qpn = 0x100 + (uint32_t)q;
			srv.s.qp_key[q].vaddr += (uint64_t)q << 20;
			cli.s.qp_key[q] = cli.s.key;
			cli.s.qp_key[q].qpn = 0x200 + (uint32_t)q;
			cli.s.qp_key[q].psn = 0x1000 * (uint32_t)q;
		}
		loopback(&srv, &cli);
		if (srv.rc || cli.rc)
			fprintf(stderr, "%s -q: server '%s', client '%s'\n", perf_test_name(t), srv.s.err, cli.s.err);
		CHECK(srv.rc == 0 && cli.rc == 0);
		CHECK(srv.traffic == traffic && cli.traffic == traffic);
		CHECK(same_key(&srv.s.peer_key, &cli.s.key) && same_key(&cli.s.peer_key, &srv.s.key));
		for (int q = 1; q < nqp; q++) {
			CHECK(same_key(&srv.s.peer_qp_key[q], &cli.s.qp_key[q]));
			CHECK(same_key(&cli.s.peer_qp_key[q], &srv.s.qp_key[q]));
		}
		CHECK(srv.s.handshakes == 5 + rounds * (nqp - 1) + (t == PERF_SEND_BW ? 2 * (nsizes - 1) : 0));
		printf("loopback %-9s -q %d -a (%d sizes): ok (%d handshakes)\n", perf_test_name(t), nqp, nsizes,
		       srv.s.handshakes);
	}
}

static void test_bad_peers(void)
{
	struct side srv, cli;

	/* a peer with an old version: refused, with the reason */
	init_side(&srv, 0, PERF_WRITE_BW, 3);
	init_side(&cli, 1, PERF_WRITE_BW, 3);
	cli.junk = "5.60";
	loopback(&srv, &cli);
	CHECK(srv.rc < 0 && strstr(srv.s.err, "version") != NULL);
	printf("old version refused: %s\n", srv.s.err);

	/* a peer that is not perftest at all */
	init_side(&srv, 0, PERF_WRITE_BW, 3);
	init_side(&cli, 1, PERF_WRITE_BW, 3);
	cli.junk = "GET / HTTP/1.0";
	loopback(&srv, &cli);
	CHECK(srv.rc < 0 && srv.s.err[0]);
	printf("garbage refused: %s\n", srv.s.err);

	/* the two sides run different tests: write_lat closes where send_lat says done */
	init_side(&srv, 0, PERF_SEND_LAT, 3);
	init_side(&cli, 1, PERF_WRITE_LAT, 3);
	loopback(&srv, &cli);
	CHECK(cli.rc == 0 && srv.rc < 0);
	printf("mismatched tests: %s\n", srv.s.err);
}

/* perf-oob-tests [unit|loopback]: the message and plan checks, the
 * exchanges over 127.0.0.1, or (no argument) both. */
int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";

	if (strcmp(what, "all") && strcmp(what, "unit") && strcmp(what, "loopback")) {
		fprintf(stderr, "usage: %s [unit|loopback]\n", argv[0]);
		return 2;
	}
	if (strcmp(what, "loopback")) {
		test_key();
		test_small();
		test_plans();
		test_plans_cm();
		test_key_cm();
	}
	if (strcmp(what, "unit")) {
		test_loopback();
		test_loopback_qps();
		test_bad_peers();
	}
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("perf-oob %s: all checks passed\n", what);
	return 0;
}
