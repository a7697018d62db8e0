/* OpenRNIC simulator: host memory behind a NIC's AXI4 DMA master.
 *
 * The memory is this process's own memory, reached through an IOMMU with two
 * kinds of mapping:
 *   - hostmem_map: identity; the bus address of a byte is its virtual
 *     address (rings, CQs: regions the NIC addresses by their first byte);
 *   - hostmem_map_pages: paged; each 4 KiB page of the range gets a bus page
 *     of its own in an alias window above HOSTMEM_ALIAS_BASE, handed out so
 *     that neighbouring pages of a range are never neighbours on the bus
 *     (as pinned user memory is scattered over physical pages). The NIC
 *     reaches such a range only through its page list (the MTT), so any
 *     translation mistake lands on a wrong or unmapped page. Alias pages are
 *     never reused: a stale translation faults.
 * A bus byte outside every mapping (for a paged mapping: outside the bytes
 * of the mapped range, even inside its first or last page) is never read or
 * written.
 *
 * Timing (deterministic, no randomness):
 *   - read: a burst whose AR handshakes at cycle t presents its first R beat
 *     at cycle t + rd_latency; beats follow at the read bandwidth (a token
 *     bucket of rd_bw bytes per cycle, one beat of 2^ARSIZE bytes per cycle at
 *     most). Bursts return whole and in AR order (so in order per ID). At most
 *     max_rd bursts are outstanding (AR accepted, last R not yet taken).
 *   - write: W beats are accepted for the oldest accepted AW at the write
 *     bandwidth; the B response of a burst whose last W beat handshakes at
 *     cycle t is presented at t + wr_latency, in AW order, and that is when
 *     the burst's bytes reach host memory, byte by byte under WSTRB (a
 *     posted write's trip to memory: half a read's round trip by default,
 *     the proportion Intel gives for PCIe-to-memory writes against
 *     PCIe-from-memory reads). Until then the host does not see them. At
 *     most max_wr bursts from AW to B handshake.
 * Memory is sampled when an R beat is first presented. A read is ordered
 * behind the writes before it (PCIe: a read request does not pass posted
 * writes): before its first beat is sampled, every W beat accepted before
 * its AR is put into memory, due or not, so a read observes every write
 * whose W beat moved before its AR (with the default latencies they are due
 * long before: a write's trip is half a read's).
 *
 * Protocol errors (counted): reserved burst type, a beat wider than the bus,
 * an INCR burst crossing 4 KiB, WLAST on the wrong beat.
 *
 * Faults: a read beat none of whose requested bytes (from the beat address
 * to the end of its 2^ARSIZE container) is mapped answers RRESP = SLVERR
 * with zero data; unmapped bytes of a partly mapped read beat read as zero
 * (DMA engines fetch whole beats). A write burst with any strobed byte
 * outside the mapped ranges answers BRESP = SLVERR; its mapped bytes are
 * written, the others are not. Each faulting burst is recorded once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define AXI_RESP_OKAY 0
#define AXI_RESP_SLVERR 2
#define FAULT_LOG 64

/* AXI4: an INCR burst must not cross a 4 KiB boundary (A3.4.1). */
static int crosses_4k(uint64_t addr, unsigned int beats, unsigned int size)
{
	uint64_t first = addr & ~(uint64_t)((1u << size) - 1);
	uint64_t last = first + ((uint64_t)beats << size) - 1;

	return (addr >> 12) != (last >> 12);
}

struct range {
	uintptr_t base;
	size_t len;
};

/* One alias page: the bytes [lo, hi) of the page at va (page-aligned) are
 * reachable; hi == 0: unmapped. */
struct alias_page {
	uintptr_t va;
	uint16_t lo, hi;
};

/* A paged mapping: alias pages [first, first + npages) serve [va, va + len). */
struct page_map {
	uintptr_t va;
	size_t len;
	uint64_t first, npages;
};

#define PAGE_SHIFT 12
#define PAGE_BYTES (1u << PAGE_SHIFT)
#define ALIAS_MAX_PAGES (1ull << 24) /* 64 GiB of alias window */
/* Alias page n is handed out as bus page n ^ ALIAS_SCRAMBLE: neighbours in a
 * range land two to seven pages apart, in falling and rising order. */
#define ALIAS_SCRAMBLE 5u

struct burst {
	uint64_t addr;
	uint64_t ready; /* read: first R cycle */
	uint64_t wseq;  /* read: W beats accepted before its AR */
	uint16_t beats, beat;
	uint8_t id, size, type, faulted;
};

struct bresp {
	uint64_t ready;
	uint8_t id, resp;
};

/* A W beat accepted, its bytes not yet in host memory. */
struct pend {
	uint64_t addr;  /* the beat's container (address aligned to its size) */
	uint64_t strb;  /* bit k: byte addr + k is written */
	uint64_t due;   /* cycle it reaches memory; UINT64_MAX until its burst's last beat */
	uint64_t seq;   /* the W beat's number */
	uint64_t burst; /* its burst's number */
	uint16_t n;
	uint8_t data[RNIC_MODEL_MAX_BYTES];
};

struct hostmem {
	struct hostmem_cfg cfg;
	struct range *ranges;
	size_t nranges, cap_ranges;
	struct alias_page *alias;  /* by alias page number (bus page - base) */
	uint64_t nalias, cap_alias;
	struct page_map *pmaps;
	size_t npmaps, cap_pmaps;

	struct burst *rq; /* read bursts, ring of max_rd */
	unsigned int rq_head, rq_count;
	int r_valid;      /* an R beat is presented */
	uint8_t r_data[RNIC_MODEL_MAX_BYTES];
	uint8_t r_resp, r_last;
	uint64_t rd_credit, rd_cap;

	struct burst *awq; /* accepted AW waiting for W, ring of max_wr */
	unsigned int awq_head, awq_count;
	struct bresp *bq;  /* ring of max_wr */
	unsigned int bq_head, bq_count;
	struct pend *pq;   /* W beats on their way to memory, ring of pq_cap */
	size_t pq_head, pq_count, pq_cap;
	uint64_t w_seq;    /* W beats accepted so far */
	uint64_t w_burst;  /* W bursts begun so far (the current one's number) */
	uint64_t wr_credit, wr_cap;

	struct rnic_sim_mem_stats st;
	struct rnic_sim_fault faults[FAULT_LOG];
	uint64_t nfaults;
};

struct hostmem *hostmem_create(const struct hostmem_cfg *cfg)
{
	struct hostmem *m;

	if (!cfg || cfg->bus_bytes == 0 || cfg->bus_bytes > RNIC_MODEL_MAX_BYTES ||
	    (cfg->bus_bytes & (cfg->bus_bytes - 1)) || cfg->max_rd == 0 || cfg->max_wr == 0)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	if (m->cfg.rd_latency == 0)
		m->cfg.rd_latency = 1;
	if (m->cfg.wr_latency == 0)
		m->cfg.wr_latency = 1;
	m->rq = calloc(cfg->max_rd, sizeof(*m->rq));
	m->awq = calloc(cfg->max_wr, sizeof(*m->awq));
	m->bq = calloc(cfg->max_wr, sizeof(*m->bq));
	if (!m->rq || !m->awq || !m->bq) {
		hostmem_destroy(m);
		return NULL;
	}
	/* room for one full beat plus a cycle's tokens: never clipped while
	 * busy, so the long-run rate is exact; an idle bus banks one beat */
	m->rd_cap = cfg->bus_bytes * 1000ull + cfg->rd_bw_milli;
	m->wr_cap = cfg->bus_bytes * 1000ull + cfg->wr_bw_milli;
	m->rd_credit = m->rd_cap;
	m->wr_credit = m->wr_cap;
	return m;
}

void hostmem_destroy(struct hostmem *m)
{
	if (!m)
		return;
	free(m->ranges);
	free(m->alias);
	free(m->pmaps);
	free(m->rq);
	free(m->awq);
	free(m->bq);
	free(m->pq);
	free(m);
}

/* ------------------------------------------------------------- mapping */

int hostmem_map(struct hostmem *m, void *va, size_t len)
{
	uintptr_t base = (uintptr_t)va;

	if (!va || len == 0 || base + len < base)
		return -EINVAL;
	if (m->nranges == m->cap_ranges) {
		size_t cap = m->cap_ranges ? 2 * m->cap_ranges : 16;
		struct range *r = realloc(m->ranges, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		m->ranges = r;
		m->cap_ranges = cap;
	}
	m->ranges[m->nranges].base = base;
	m->ranges[m->nranges].len = len;
	m->nranges++;
	return 0;
}

int hostmem_map_pages(struct hostmem *m, void *va, size_t len, uint64_t *bus_pages)
{
	uintptr_t base = (uintptr_t)va, end;
	uint64_t first, n;

	if (!va || len == 0 || base + len < base || !bus_pages)
		return -EINVAL;
	end = base + len;
	first = base >> PAGE_SHIFT;
	n = ((end - 1) >> PAGE_SHIFT) - first + 1;
	/* whole blocks of 8, so that the scramble stays inside the window */
	if (m->nalias + n + 8 > ALIAS_MAX_PAGES)
		return -ENOMEM;
	if (m->npmaps == m->cap_pmaps) {
		size_t cap = m->cap_pmaps ? 2 * m->cap_pmaps : 16;
		struct page_map *p = realloc(m->pmaps, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->pmaps = p;
		m->cap_pmaps = cap;
	}
	if (m->nalias + n + 8 > m->cap_alias) {
		uint64_t cap = m->cap_alias ? m->cap_alias : 1024;
		struct alias_page *a;

		while (cap < m->nalias + n + 8)
			cap *= 2;
		a = realloc(m->alias, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a + m->cap_alias, 0, (cap - m->cap_alias) * sizeof(*a));
		m->alias = a;
		m->cap_alias = cap;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = (m->nalias + i) ^ ALIAS_SCRAMBLE;
		uintptr_t pva = (uintptr_t)((first + i) << PAGE_SHIFT);
		struct alias_page *ap = &m->alias[k];

		ap->va = pva;
		ap->lo = (uint16_t)(i == 0 ? base - pva : 0);
		ap->hi = (uint16_t)(end - pva >= PAGE_BYTES ? PAGE_BYTES : end - pva);
		bus_pages[i] = HOSTMEM_ALIAS_BASE + (k << PAGE_SHIFT);
	}
	m->pmaps[m->npmaps++] = (struct page_map){base, len, m->nalias, n};
	/* the next range starts on a fresh block of 8 */
	m->nalias = (m->nalias + n + 7) & ~7ull;
	return 0;
}

int hostmem_unmap(struct hostmem *m, void *va, size_t len)
{
	for (size_t i = 0; i < m->nranges; i++) {
		if (m->ranges[i].base == (uintptr_t)va && m->ranges[i].len == len) {
			memmove(&m->ranges[i], &m->ranges[i + 1],
				(m->nranges - i - 1) * sizeof(*m->ranges));
			m->nranges--;
			return 0;
		}
	}
	for (size_t i = 0; i < m->npmaps; i++) {
		struct page_map *p = &m->pmaps[i];

		if (p->va != (uintptr_t)va || p->len != len)
			continue;
		for (uint64_t k = 0; k < p->npages; k++)
			m->alias[(p->first + k) ^ ALIAS_SCRAMBLE].hi = 0;
		memmove(p, p + 1, (m->npmaps - i - 1) * sizeof(*p));
		m->npmaps--;
		return 0;
	}
	return -ENOENT;
}

/* The process memory behind bus bytes [a, a + n), or NULL where any of them
 * is unmapped. [a, a + n) must not cross a 4 KiB page (a beat never does). */
static uint8_t *host_ptr(const struct hostmem *m, uint64_t a, uint64_t n)
{
	if (a >= HOSTMEM_ALIAS_BASE) {
		uint64_t k = (a - HOSTMEM_ALIAS_BASE) >> PAGE_SHIFT;
		uint64_t off = a & (PAGE_BYTES - 1);
		const struct alias_page *ap;

		if (k >= m->cap_alias)
			return NULL;
		ap = &m->alias[k];
		if (off < ap->lo || off + n > ap->hi)
			return NULL;
		return (uint8_t *)(ap->va + off);
	}
	for (size_t i = 0; i < m->nranges; i++) {
		uint64_t b = m->ranges[i].base;

		if (a >= b && a - b <= m->ranges[i].len && n <= m->ranges[i].len - (a - b))
			return (uint8_t *)(uintptr_t)a;
	}
	return NULL;
}

/* ---------------------------------------------------------- AXI helpers */

static unsigned int beat_bytes(const struct hostmem *m, unsigned int size)
{
	uint64_t n = 1ull << (size & 7);

	return n > m->cfg.bus_bytes ? m->cfg.bus_bytes : (unsigned int)n;
}

/* Address of beat i of a burst (AXI4 A3.4.1). */
static uint64_t beat_addr(const struct burst *b, unsigned int n, unsigned int i)
{
	uint64_t aligned = b->addr & ~(uint64_t)(n - 1);

	switch (b->type) {
	case 0: /* FIXED */
		return b->addr;
	case 2: { /* WRAP: length 2, 4, 8 or 16 beats */
		uint64_t total = (uint64_t)n * b->beats;
		uint64_t lo = b->addr & ~(total - 1);

		if (i == 0)
			return b->addr;
		return lo + ((aligned - lo + (uint64_t)i * n) & (total - 1));
	}
	default: /* INCR (and reserved 3, counted as a protocol error) */
		return i == 0 ? b->addr : aligned + (uint64_t)i * n;
	}
}

static void record_fault(struct hostmem *m, uint64_t cycle, const struct burst *b,
			 unsigned int n, uint64_t addr, int write)
{
	if (write)
		m->st.wr_faults++;
	else
		m->st.rd_faults++;
	if (m->nfaults < FAULT_LOG) {
		struct rnic_sim_fault *f = &m->faults[m->nfaults];

		f->cycle = cycle;
		f->addr = addr;
		f->burst_addr = b->addr;
		f->burst_bytes = (uint32_t)n * b->beats;
		f->write = (uint8_t)write;
		f->id = b->id;
	}
	m->nfaults++;
}

/* Fill the presented R beat from memory; returns the RRESP. */
static uint8_t read_beat(struct hostmem *m, const struct burst *b, unsigned int n,
			 uint64_t addr)
{
	uint64_t c = addr & ~(uint64_t)(n - 1);
	unsigned int lane0 = (unsigned int)(c % m->cfg.bus_bytes);
	int any = 0;

	const uint8_t *p;

	memset(m->r_data, 0, sizeof(m->r_data));
	p = host_ptr(m, c, n);
	if (p) {
		memcpy(&m->r_data[lane0], p, n);
		return AXI_RESP_OKAY;
	}
	for (unsigned int k = 0; k < n; k++) {
		uint64_t x = c + k;

		p = host_ptr(m, x, 1);
		if (!p)
			continue;
		m->r_data[lane0 + k] = *p;
		if (x >= addr)
			any = 1;
	}
	(void)b;
	return any ? AXI_RESP_OKAY : AXI_RESP_SLVERR;
}

/* Queue one W beat for memory; returns non-zero if a strobed byte is
 * unmapped (those bytes will not be written). -ENOMEM: no room to queue. */
static int write_beat(struct hostmem *m, unsigned int n, uint64_t addr, const uint8_t *data,
		      uint64_t strb)
{
	uint64_t c = addr & ~(uint64_t)(n - 1);
	unsigned int lane0 = (unsigned int)(c % m->cfg.bus_bytes);
	uint64_t mask = n >= 64 ? ~0ull : ((1ull << n) - 1);
	uint64_t lanes = mask << lane0;
	struct pend *p;
	int fault = 0;

	if (strb & ~lanes)
		m->st.protocol_errors++; /* strobes outside the transfer's lanes */
	if (m->pq_count == m->pq_cap) {
		size_t cap = m->pq_cap ? 2 * m->pq_cap : 256;
		struct pend *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t i = 0; i < m->pq_count; i++)
			q[i] = m->pq[(m->pq_head + i) % m->pq_cap];
		free(m->pq);
		m->pq = q;
		m->pq_head = 0;
		m->pq_cap = cap;
	}
	p = &m->pq[(m->pq_head + m->pq_count++) % m->pq_cap];
	p->addr = c;
	p->n = (uint16_t)n;
	p->strb = (strb >> lane0) & mask;
	p->due = UINT64_MAX;
	p->seq = m->w_seq++;
	p->burst = m->w_burst;
	memcpy(p->data, &data[lane0], n);
	if (p->strb == mask && host_ptr(m, c, n))
		return 0;
	for (unsigned int k = 0; k < n; k++)
		if ((p->strb >> k & 1) && !host_ptr(m, c + k, 1))
			fault = 1;
	return fault;
}

/* Put the queued W beats into memory: those due by `cycle`, and those
 * numbered below `before` (the beats a read must observe). */
static void write_apply(struct hostmem *m, uint64_t cycle, uint64_t before)
{
	while (m->pq_count) {
		const struct pend *p = &m->pq[m->pq_head];
		uint64_t mask = p->n >= 64 ? ~0ull : ((1ull << p->n) - 1);
		uint8_t *d;

		if (p->due > cycle && p->seq >= before)
			break;
		if (p->strb == mask && (d = host_ptr(m, p->addr, p->n)) != NULL) {
			memcpy(d, p->data, p->n);
			m->st.wr_bytes += p->n;
		} else {
			for (unsigned int k = 0; k < p->n; k++) {
				if (!(p->strb >> k & 1) || !(d = host_ptr(m, p->addr + k, 1)))
					continue;
				*d = p->data[k];
				m->st.wr_bytes++;
			}
		}
		m->pq_head = (m->pq_head + 1) % m->pq_cap;
		m->pq_count--;
	}
}

/* ------------------------------------------------------------ the cycle */

void hostmem_drive(struct hostmem *m, uint64_t cycle, struct rnic_core_in *in)
{
	/* the writes whose B response is due reach memory first */
	write_apply(m, cycle, 0);
	/* read address and data */
	in->m_axi_arready = m->rq_count < m->cfg.max_rd;
	if (!m->r_valid && m->rq_count) {
		struct burst *b = &m->rq[m->rq_head];
		unsigned int n = beat_bytes(m, b->size);
		uint64_t cost = n * 1000ull;

		if (b->ready <= cycle && (m->cfg.rd_bw_milli == 0 || m->rd_credit >= cost)) {
			uint64_t a = beat_addr(b, n, b->beat);

			write_apply(m, cycle, b->wseq); /* the writes before its AR */
			m->r_resp = read_beat(m, b, n, a);
			if (m->r_resp != AXI_RESP_OKAY && !b->faulted) {
				b->faulted = 1;
				record_fault(m, cycle, b, n, a, 0);
			}
			m->r_last = b->beat + 1u == b->beats;
			m->r_valid = 1;
			if (m->cfg.rd_bw_milli)
				m->rd_credit -= cost;
		}
	}
	in->m_axi_rvalid = (uint8_t)m->r_valid;
	if (m->r_valid) {
		memcpy(in->m_axi_rdata, m->r_data, sizeof(in->m_axi_rdata));
		in->m_axi_rid = m->rq[m->rq_head].id;
		in->m_axi_rresp = m->r_resp;
		in->m_axi_rlast = m->r_last;
	} else {
		memset(in->m_axi_rdata, 0, sizeof(in->m_axi_rdata));
		in->m_axi_rid = 0;
		in->m_axi_rresp = 0;
		in->m_axi_rlast = 0;
	}

	/* write address, data, response */
	in->m_axi_awready = m->awq_count + m->bq_count < m->cfg.max_wr;
	in->m_axi_wready = 0;
	if (m->awq_count) {
		unsigned int n = beat_bytes(m, m->awq[m->awq_head].size);

		in->m_axi_wready = m->cfg.wr_bw_milli == 0 || m->wr_credit >= n * 1000ull;
	}
	in->m_axi_bvalid = m->bq_count && m->bq[m->bq_head].ready <= cycle;
	in->m_axi_bid = in->m_axi_bvalid ? m->bq[m->bq_head].id : 0;
	in->m_axi_bresp = in->m_axi_bvalid ? m->bq[m->bq_head].resp : 0;
}

void hostmem_edge(struct hostmem *m, uint64_t cycle, const struct rnic_core_in *in,
		  const struct rnic_core_out *out)
{
	unsigned int outstanding;

	/* R */
	if (in->m_axi_rvalid && out->m_axi_rready) {
		struct burst *b = &m->rq[m->rq_head];

		m->st.rd_beats++;
		m->st.rd_bytes += beat_bytes(m, b->size);
		m->r_valid = 0;
		if (++b->beat == b->beats) {
			m->rq_head = (m->rq_head + 1) % m->cfg.max_rd;
			m->rq_count--;
		}
	}
	/* AR */
	if (in->m_axi_arready && out->m_axi_arvalid) {
		struct burst *b = &m->rq[(m->rq_head + m->rq_count) % m->cfg.max_rd];

		memset(b, 0, sizeof(*b));
		b->addr = out->m_axi_araddr;
		b->beats = (uint16_t)(out->m_axi_arlen + 1u);
		b->size = out->m_axi_arsize & 7;
		b->type = out->m_axi_arburst & 3;
		b->id = out->m_axi_arid;
		b->ready = cycle + m->cfg.rd_latency;
		/* a W beat of the same edge (taken below) counts as before it */
		b->wseq = m->w_seq + (in->m_axi_wready && out->m_axi_wvalid && m->awq_count ? 1 : 0);
		if (b->type == 3 || (1u << b->size) > m->cfg.bus_bytes ||
		    (b->type == 1 && crosses_4k(b->addr, b->beats, b->size)))
			m->st.protocol_errors++;
		m->rq_count++;
		m->st.rd_bursts++;
		if (m->rq_count > m->st.rd_outstanding_max)
			m->st.rd_outstanding_max = m->rq_count;
	}
	/* W */
	if (in->m_axi_wready && out->m_axi_wvalid) {
		struct burst *b = &m->awq[m->awq_head];
		unsigned int n = beat_bytes(m, b->size);
		uint64_t a = beat_addr(b, n, b->beat);
		int last, fault;

		if (b->beat == 0)
			m->w_burst++;
		fault = write_beat(m, n, a, out->m_axi_wdata, out->m_axi_wstrb);
		if (fault < 0)
			m->st.protocol_errors++; /* out of memory: the beat is lost, say so */
		if (fault > 0 && !b->faulted) {
			b->faulted = 1;
			record_fault(m, cycle, b, n, a, 1);
		}
		if (m->cfg.wr_bw_milli)
			m->wr_credit -= n * 1000ull;
		m->st.wr_beats++;
		last = ++b->beat == b->beats;
		if (!!out->m_axi_wlast != last)
			m->st.protocol_errors++;
		if (last) {
			struct bresp *r = &m->bq[(m->bq_head + m->bq_count) % m->cfg.max_wr];

			/* the burst's beats still queued (the newest) reach memory with its B */
			for (size_t k = m->pq_count; k > 0; k--) {
				struct pend *q = &m->pq[(m->pq_head + k - 1) % m->pq_cap];

				if (q->burst != m->w_burst)
					break;
				q->due = cycle + m->cfg.wr_latency;
			}

			r->id = b->id;
			r->resp = b->faulted ? AXI_RESP_SLVERR : AXI_RESP_OKAY;
			r->ready = cycle + m->cfg.wr_latency;
			m->bq_count++;
			m->awq_head = (m->awq_head + 1) % m->cfg.max_wr;
			m->awq_count--;
		}
	}
	/* AW */
	if (in->m_axi_awready && out->m_axi_awvalid) {
		struct burst *b = &m->awq[(m->awq_head + m->awq_count) % m->cfg.max_wr];

		memset(b, 0, sizeof(*b));
		b->addr = out->m_axi_awaddr;
		b->beats = (uint16_t)(out->m_axi_awlen + 1u);
		b->size = out->m_axi_awsize & 7;
		b->type = out->m_axi_awburst & 3;
		b->id = out->m_axi_awid;
		if (b->type == 3 || (1u << b->size) > m->cfg.bus_bytes ||
		    (b->type == 1 && crosses_4k(b->addr, b->beats, b->size)))
			m->st.protocol_errors++;
		m->awq_count++;
		m->st.wr_bursts++;
	}
	/* B */
	if (in->m_axi_bvalid && out->m_axi_bready) {
		m->bq_head = (m->bq_head + 1) % m->cfg.max_wr;
		m->bq_count--;
	}
	outstanding = m->awq_count + m->bq_count;
	if (outstanding > m->st.wr_outstanding_max)
		m->st.wr_outstanding_max = outstanding;

	/* bandwidth tokens for the next cycle */
	m->rd_credit += m->cfg.rd_bw_milli;
	if (m->rd_credit > m->rd_cap)
		m->rd_credit = m->rd_cap;
	m->wr_credit += m->cfg.wr_bw_milli;
	if (m->wr_credit > m->wr_cap)
		m->wr_credit = m->wr_cap;
}

void hostmem_stats(const struct hostmem *m, struct rnic_sim_mem_stats *st)
{
	*st = m->st;
}

uint64_t hostmem_faults(const struct hostmem *m, struct rnic_sim_fault *out, size_t max)
{
	size_t n = m->nfaults < FAULT_LOG ? (size_t)m->nfaults : FAULT_LOG;

	if (out)
		memcpy(out, m->faults, (n < max ? n : max) * sizeof(*out));
	return m->nfaults;
}

int hostmem_busy(const struct hostmem *m)
{
	return m->rq_count || m->awq_count || m->bq_count || m->pq_count;
}
