/* perftest's out-of-band exchange (perf_oob.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf_oob.h"
#include "rnic/verbs.h"

static const char *const test_names[PERF_NTESTS] = {
	[PERF_WRITE_BW] = "write_bw",  [PERF_WRITE_LAT] = "write_lat", [PERF_READ_BW] = "read_bw",
	[PERF_READ_LAT] = "read_lat",  [PERF_SEND_BW] = "send_bw",     [PERF_SEND_LAT] = "send_lat",
	[PERF_ATOMIC_BW] = "atomic_bw",
};

const char *perf_test_name(enum perf_test t)
{
	return (unsigned)t < PERF_NTESTS ? test_names[t] : "?";
}

int perf_test_parse(const char *name)
{
	for (int t = 0; t < PERF_NTESTS; t++)
		if (!strcmp(name, test_names[t]))
			return t;
	return -1;
}

uint32_t perf_test_opcode(enum perf_test t)
{
	switch (t) {
	case PERF_READ_BW:
	case PERF_READ_LAT: return RNIC_WR_RDMA_READ;
	case PERF_SEND_BW:
	case PERF_SEND_LAT: return RNIC_WR_SEND;
	case PERF_ATOMIC_BW: return RNIC_WR_ATOMIC_FETCH_AND_ADD;
	default: return RNIC_WR_RDMA_WRITE;
	}
}

int perf_test_is_bw(enum perf_test t)
{
	return t == PERF_WRITE_BW || t == PERF_READ_BW || t == PERF_SEND_BW || t == PERF_ATOMIC_BW;
}

/* ---------------------------------------------------------------- messages */

void oob_version_format(char out[OOB_VERSION_LEN])
{
	memset(out, 0, OOB_VERSION_LEN);
	memcpy(out, OOB_VERSION, sizeof(OOB_VERSION) - 1);
}

/* n decimal digits at *p (1..max digits); advances *p. */
static int dec(const char **p, const char *end, int max, int *v)
{
	int n = 0;

	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9' && n < max) {
		*v = *v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n ? 0 : -1;
}

int oob_version_parse(const char *buf, size_t len, int *major, int *minor)
{
	const char *p = buf, *end = buf + len;
	int mn = 0, frac_digits;
	const char *f;

	if (len != OOB_VERSION_LEN || dec(&p, end, 4, major) || p >= end || *p++ != '.')
		return -1;
	f = p;
	if (dec(&p, end, 4, &mn))
		return -1;
	frac_digits = (int)(p - f);
	/* the rest is NUL padding */
	for (; p < end; p++)
		if (*p)
			return -1;
	/* "5.7" is 5.70: compare the minor part as hundredths */
	*minor = frac_digits == 1 ? mn * 10 : mn;
	if (frac_digits > 2)
		return -1;
	if (*major < 5 || (*major == 5 && *minor < 70))
		return -1;
	return 0;
}

void oob_be32_format(uint8_t out[4], uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(v >> (24 - 8 * i));
}

int oob_be32_parse(const uint8_t *buf, size_t len, uint32_t *v)
{
	if (len != 4)
		return -1;
	*v = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
	return 0;
}

int oob_mtu_format(char out[2], uint32_t mtu)
{
	if (mtu < 1 || mtu > 5)
		return -1;
	out[0] = (char)('0' + mtu);
	out[1] = 0;
	return 0;
}

int oob_mtu_parse(const char *buf, size_t len, uint32_t *mtu)
{
	if (len != 2 || buf[1] || buf[0] < '1' || buf[0] > '5')
		return -1;
	*mtu = (uint32_t)(buf[0] - '0');
	return 0;
}

void oob_key_format(char out[OOB_KEY_LEN], const struct oob_key *k)
{
	int n;

	memset(out, 0, OOB_KEY_LEN);
	n = snprintf(out, OOB_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:", k->lid, k->out_reads,
		     k->qpn & 0xffffff, k->psn & 0xffffff, k->rkey, (unsigned long long)k->vaddr);
	for (int i = 0; i < 16; i++)
		n += snprintf(out + n, (size_t)(OOB_KEY_LEN - n), "%02x:", k->gid[i]);
	snprintf(out + n, (size_t)(OOB_KEY_LEN - n), "%08x:", k->srqn);
}

/* Exactly `digits` hex digits and a ':' at *p; advances *p. */
static int hexfield(const char **p, const char *end, int digits, uint64_t *v)
{
	*v = 0;
	if (end - *p < digits + 1)
		return -1;
	for (int i = 0; i < digits; i++) {
		char c = (*p)[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	if ((*p)[digits] != ':')
		return -1;
	*p += digits + 1;
	return 0;
}

int oob_key_parse(const char *buf, size_t len, struct oob_key *k)
{
	static const int width[6] = {4, 4, 6, 6, 8, 16};
	const char *p = buf, *end = buf + len;
	uint64_t v[6], x;

	if (len != OOB_KEY_LEN || buf[OOB_KEY_LEN - 1])
		return -1;
	for (int i = 0; i < 6; i++)
		if (hexfield(&p, end, width[i], &v[i]))
			return -1;
	for (int i = 0; i < 16; i++) {
		if (hexfield(&p, end, 2, &x))
			return -1;
		k->gid[i] = (uint8_t)x;
	}
	if (hexfield(&p, end, 8, &x) || p != end - 1)
		return -1;
	k->lid = (uint16_t)v[0];
	k->out_reads = (uint16_t)v[1];
	k->qpn = (uint32_t)v[2];
	k->psn = (uint32_t)v[3];
	k->rkey = (uint32_t)v[4];
	k->vaddr = v[5];
	k->srqn = (uint32_t)x;
	return 0;
}

static void be64_put(uint8_t *out, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint32_t be32_get(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint64_t be64_get(const uint8_t *b);

void oob_key_cm_format(uint8_t out[OOB_KEY_CM_LEN], const struct oob_key *k)
{
	memset(out, 0, OOB_KEY_CM_LEN);
	oob_be32_format(out, k->lid);
	oob_be32_format(out + 4, k->out_reads);
	oob_be32_format(out + 8, k->qpn & 0xffffff);
	oob_be32_format(out + 12, k->psn & 0xffffff);
	oob_be32_format(out + 16, k->rkey);
	be64_put(out + 24, k->vaddr);
	memcpy(out + 32, k->gid, 16);
	oob_be32_format(out + 48, k->srqn);
	/* gid_index (52): perftest's reader ignores it; GID 0 */
}

int oob_key_cm_parse(const uint8_t *buf, size_t len, struct oob_key *k)
{
	uint32_t lid, out_reads, qpn, psn;

	if (len != OOB_KEY_CM_LEN)
		return -1;
	lid = be32_get(buf);
	out_reads = be32_get(buf + 4);
	qpn = be32_get(buf + 8);
	psn = be32_get(buf + 12);
	if (lid > 0xffff || out_reads > 0xffff || qpn > 0xffffff || psn > 0xffffff)
		return -1;
	k->lid = (uint16_t)lid;
	k->out_reads = (uint16_t)out_reads;
	k->qpn = qpn;
	k->psn = psn;
	k->rkey = be32_get(buf + 16);
	k->vaddr = be64_get(buf + 24);
	memcpy(k->gid, buf + 32, 16);
	k->srqn = be32_get(buf + 48);
	return 0;
}

static uint64_t be64_get(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static uint64_t dbits(double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return v;
}

static double bitsd(uint64_t v)
{
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

void oob_report_format(uint8_t out[OOB_REPORT_LEN], const struct oob_report *r)
{
	be64_put(out, r->size);
	be64_put(out + 8, r->iters);
	be64_put(out + 16, dbits(r->bw_peak));
	be64_put(out + 24, dbits(r->bw_avg));
	be64_put(out + 32, dbits(r->msg_rate));
}

int oob_report_parse(const uint8_t *buf, size_t len, struct oob_report *r)
{
	if (len != OOB_REPORT_LEN)
		return -1;
	r->size = be64_get(buf);
	r->iters = be64_get(buf + 8);
	r->bw_peak = bitsd(be64_get(buf + 16));
	r->bw_avg = bitsd(be64_get(buf + 24));
	r->msg_rate = bitsd(be64_get(buf + 32));
	return 0;
}

int oob_done_parse(const char *buf, size_t len)
{
	return len == 5 && !memcmp(buf, "done", 5) ? 0 : -1;
}

/* ---------------------------------------------------------------- the plan */

size_t oob_step_len(enum oob_step_kind k)
{
	switch (k) {
	case OOB_STEP_VERSION: return OOB_VERSION_LEN;
	case OOB_STEP_CYCLE_BUFFER:
	case OOB_STEP_CACHE_LINE: return 4;
	case OOB_STEP_MTU: return 2;
	case OOB_STEP_KEYS: return OOB_KEY_LEN;
	case OOB_STEP_REPORTS: return OOB_REPORT_LEN;
	case OOB_STEP_DONE: return 5;
	default: return 0;
	}
}

const char *oob_step_name(enum oob_step_kind k)
{
	static const char *const names[] = {
		[OOB_STEP_VERSION] = "version", [OOB_STEP_CYCLE_BUFFER] = "cycle buffer",
		[OOB_STEP_CACHE_LINE] = "cache line", [OOB_STEP_MTU] = "MTU", [OOB_STEP_KEYS] = "keys",
		[OOB_STEP_TRAFFIC] = "traffic", [OOB_STEP_REPORTS] = "reports", [OOB_STEP_DONE] = "done",
		[OOB_STEP_CLOSE] = "close", [OOB_STEP_CM_CONNECT] = "CM connect",
	};

	return (unsigned)k <= OOB_STEP_CM_CONNECT ? names[k] : "?";
}

int oob_plan_qs(enum perf_test t, int nqp, int nsizes, enum oob_step_kind steps[OOB_MAX_STEPS])
{
	return oob_plan_cm(t, nqp, nsizes, 0, steps);
}

int oob_plan_cm(enum perf_test t, int nqp, int nsizes, int rdma_cm, enum oob_step_kind steps[OOB_MAX_STEPS])
{
	/* -R: perftest's ctx_close_connection sends no "done" over rdma_cm */
	enum oob_step_kind done = rdma_cm ? OOB_STEP_CLOSE : OOB_STEP_DONE;
	int n = 0;

	if (nqp < 1)
		nqp = 1;
	if (nsizes < 1 || t != PERF_SEND_BW)
		nsizes = 1;
	steps[n++] = OOB_STEP_VERSION;
	steps[n++] = OOB_STEP_CYCLE_BUFFER;
	steps[n++] = OOB_STEP_CACHE_LINE;
	steps[n++] = OOB_STEP_MTU;
	if (rdma_cm) {
		/* create_rdma_cm_connection: a handshake before and after */
		steps[n++] = OOB_STEP_KEYS;
		steps[n++] = OOB_STEP_CM_CONNECT;
		steps[n++] = OOB_STEP_KEYS;
	}
	for (int i = 0; i < nqp; i++)
		steps[n++] = OOB_STEP_KEYS;
	if (t == PERF_WRITE_BW || t == PERF_READ_BW || t == PERF_ATOMIC_BW) {
		/* a round per QP before and after connecting, then one */
		for (int i = 0; i < nqp; i++)
			steps[n++] = OOB_STEP_KEYS;
		steps[n++] = OOB_STEP_KEYS;
		steps[n++] = OOB_STEP_TRAFFIC;
		steps[n++] = OOB_STEP_KEYS;
		steps[n++] = OOB_STEP_REPORTS;
		steps[n++] = OOB_STEP_KEYS;
		steps[n++] = done;
		return n;
	}
	steps[n++] = OOB_STEP_KEYS;
	for (int i = 0; i < nqp; i++)
		steps[n++] = OOB_STEP_KEYS;
	for (int i = 0; i < nsizes; i++) {
		steps[n++] = OOB_STEP_KEYS;
		steps[n++] = OOB_STEP_TRAFFIC;
		if (t != PERF_WRITE_LAT)
			steps[n++] = OOB_STEP_KEYS;
	}
	steps[n++] = t == PERF_WRITE_LAT ? OOB_STEP_CLOSE : done;
	return n;
}

int oob_plan(enum perf_test t, enum oob_step_kind steps[OOB_MAX_STEPS])
{
	return oob_plan_qs(t, 1, 1, steps);
}

/* ---------------------------------------------------------------- the exchange */

static int fail(struct oob_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct oob_session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(struct oob_session *s, void *buf, size_t len)
{
	uint8_t *p = buf;
	int fd = s->fd;

	while (len) {
		ssize_t n;

		if (s->wait_readable && s->wait_readable(s->wait_arg, fd)) {
			errno = ECANCELED;
			return -1;
		}
		n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One symmetric exchange of len bytes: the client writes, then reads; the
 * server the other way. */
static int xchg_len(struct oob_session *s, enum oob_step_kind k, const void *out, void *in, size_t len)
{
	int err;

	if (s->rdma_cm) {
		/* one SEND each way; the callee says what went wrong */
		err = s->client ? s->msg_send(s->msg_arg, out, len) || s->msg_recv(s->msg_arg, in, len)
				: s->msg_recv(s->msg_arg, in, len) || s->msg_send(s->msg_arg, out, len);
		if (err && !s->err[0])
			fail(s, "%s exchange over the control QP failed", oob_step_name(k));
		return err ? -1 : 0;
	}
	err = s->client ? write_all(s->fd, out, len) || read_all(s, in, len)
			    : read_all(s, in, len) || write_all(s->fd, out, len);

	if (err)
		return fail(s, "%s exchange: %s", oob_step_name(k), errno ? strerror(errno) : "short");
	return 0;
}

static int xchg(struct oob_session *s, enum oob_step_kind k, const void *out, void *in)
{
	return xchg_len(s, k, out, in, oob_step_len(k));
}

static int step(struct oob_session *s, enum oob_step_kind k)
{
	uint8_t out[OOB_KEY_LEN], in[OOB_KEY_LEN];
	size_t len = oob_step_len(k);
	uint32_t v;

	memset(in, 0, sizeof(in));
	switch (k) {
	case OOB_STEP_VERSION:
		oob_version_format((char *)out);
		if (xchg(s, k, out, in))
			return -1;
		if (oob_version_parse((const char *)in, len, &s->peer_major, &s->peer_minor))
			return fail(s, "the peer's perftest version '%.16s' is not one we speak (>= 5.70)",
				    (const char *)in);
		return 0;
	case OOB_STEP_CYCLE_BUFFER:
	case OOB_STEP_CACHE_LINE:
		oob_be32_format(out, k == OOB_STEP_CYCLE_BUFFER ? s->cycle_buffer : s->cache_line);
		if (xchg(s, k, out, in) || oob_be32_parse(in, len, &v))
			return -1;
		if (!v || v > (1u << 30))
			return fail(s, "the peer's %s %u is out of range", oob_step_name(k), v);
		*(k == OOB_STEP_CYCLE_BUFFER ? &s->peer_cycle_buffer : &s->peer_cache_line) = v;
		return 0;
	case OOB_STEP_MTU:
		if (oob_mtu_format((char *)out, s->mtu))
			return fail(s, "our MTU code %u is not 1..5", s->mtu);
		if (xchg(s, k, out, in))
			return -1;
		if (oob_mtu_parse((const char *)in, len, &s->peer_mtu))
			return fail(s, "the peer's MTU message is malformed");
		s->active_mtu = s->mtu < s->peer_mtu ? s->mtu : s->peer_mtu;
		return 0;
	case OOB_STEP_KEYS: {
		/* the QP rounds' i-th handshake carries QP i's key, any other QP 0's */
		int q = s->qp_round;

		if (s->rdma_cm) {
			uint8_t cout[OOB_KEY_CM_LEN], cin[OOB_KEY_CM_LEN];
			struct oob_key none, scratch;

			/* the two handshakes around the CM connections carry
			 * perftest's keys before set_up_connection: all zero */
			memset(&none, 0, sizeof(none));
			oob_key_cm_format(cout, s->handshakes < 2 ? &none : q ? &s->qp_key[q] : &s->key);
			if (xchg_len(s, k, cout, cin, OOB_KEY_CM_LEN))
				return -1;
			if (oob_key_cm_parse(cin, OOB_KEY_CM_LEN,
					     s->handshakes < 2 ? &scratch : q ? &s->peer_qp_key[q] : &s->peer_key))
				return fail(s, "the peer's key message is malformed (a LID, QPN or PSN out of range)");
			s->handshakes++;
			return 0;
		}

		oob_key_format((char *)out, q ? &s->qp_key[q] : &s->key);
		if (xchg(s, k, out, in))
			return -1;
		if (oob_key_parse((const char *)in, len, q ? &s->peer_qp_key[q] : &s->peer_key))
			return fail(s, "the peer's key message is malformed: '%.107s'", (const char *)in);
		s->handshakes++;
		return 0;
	}
	case OOB_STEP_REPORTS:
		/* perftest's xchg_bw_reports: five exchanges of one 8-byte value each */
		oob_report_format(out, &s->report);
		for (size_t i = 0; i < OOB_REPORT_LEN; i += 8)
			if (xchg_len(s, k, out + i, in + i, 8))
				return -1;
		return oob_report_parse(in, len, &s->peer_report);
	case OOB_STEP_DONE:
		memcpy(out, "done", 5);
		if (xchg(s, k, out, in))
			return -1;
		if (oob_done_parse((const char *)in, len))
			return fail(s, "the peer did not say done");
		return 0;
	default:
		return 0;
	}
}

int oob_run(struct oob_session *s, oob_hook hook, void *arg)
{
	enum oob_step_kind plan[OOB_MAX_STEPS];
	int nqp = s->nqp > 1 ? s->nqp : 1, n, r1, r2;

	if (nqp > OOB_MAX_QPS || s->nsizes > OOB_MAX_SIZES)
		return fail(s, "%d QPs, %d sizes: at most %d and %d", nqp, s->nsizes, OOB_MAX_QPS, OOB_MAX_SIZES);
	if (s->rdma_cm && (!s->msg_send || !s->msg_recv))
		return fail(s, "rdma_cm without a control channel");
	n = oob_plan_cm(s->test, nqp, s->nsizes, s->rdma_cm, plan);
	/* where the QP rounds are: right after the MTU (-R: after the CM
	 * connections and their handshakes), and again right after it
	 * (write_bw, read_bw, atomic_bw) or after the handshake that follows
	 * (the others), as perftest's main()s run them */
	r1 = s->rdma_cm ? 7 : 4;
	r2 = s->test == PERF_WRITE_BW || s->test == PERF_READ_BW || s->test == PERF_ATOMIC_BW ? r1 + nqp : r1 + nqp + 1;
	s->err[0] = 0;
	s->handshakes = 0;
	for (int i = 0; i < n; i++) {
		s->qp_round = i >= r1 && i < r1 + nqp ? i - r1 : i >= r2 && i < r2 + nqp ? i - r2 : 0;
		if (hook && hook(s, i, plan[i], arg)) {
			if (!s->err[0])
				fail(s, "stopped before the %s step", oob_step_name(plan[i]));
			return -1;
		}
		errno = 0;
		if (step(s, plan[i]))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- TCP */

static int sockerr(char *err, size_t errlen, const char *what, const char *detail)
{
	snprintf(err, errlen, "%s: %s", what, detail);
	return -1;
}

int oob_listen(const char *bind_addr, uint16_t port, uint16_t *bound, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ps[8];
	int fd, one = 1, rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(bind_addr, ps, &hints, &ai);
	if (rc)
		return sockerr(err, errlen, "listen address", gai_strerror(rc));
	fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		sockerr(err, errlen, "listen", strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (bound)
		*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							: ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

int oob_accept(int lfd, char *err, size_t errlen)
{
	int fd;

	do
		fd = accept(lfd, NULL, NULL);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return sockerr(err, errlen, "accept", strerror(errno));
	return fd;
}

int oob_connect(const char *host, uint16_t port, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *a;
	char ps[8];
	int fd = -1, rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc)
		return sockerr(err, errlen, host, gai_strerror(rc));
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && !connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (fd < 0)
		sockerr(err, errlen, host, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}
