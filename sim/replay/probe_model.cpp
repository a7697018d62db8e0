// OpenRNIC simulator: the receive-path probe's Verilator models
// (Vrnic_rx_probe_w64, Vrnic_rx_probe_w512) behind the C handle of
// probe_model.h. Each probe owns its VerilatedContext.
//
// Build switches: RNIC_PROBE_HAVE_W64 / RNIC_PROBE_HAVE_W512 say which
// models are compiled in (their generated headers on the include path);
// with neither, every create fails and the rest of rnic-sim still links.

#include <cerrno>
#include <cstring>
#include <new>

#include "probe_model.h"

#if RNIC_PROBE_HAVE_W64 || RNIC_PROBE_HAVE_W512
#define RNIC_PROBE_ANY 1
#include "verilated.h"
#include "verilated_fst_c.h"
#else
#define RNIC_PROBE_ANY 0
#endif
#if RNIC_PROBE_HAVE_W64
#include "Vrnic_rx_probe_w64.h"
#endif
#if RNIC_PROBE_HAVE_W512
#include "Vrnic_rx_probe_w512.h"
#endif

#if RNIC_PROBE_ANY
namespace {

// Scalars and buses up to 64 bits; byte i of b is bits 8i+7:8i.
template <typename T> void put(T &sig, const uint8_t *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n && i < 8; i++)
		v |= uint64_t(b[i]) << (8 * i);
	sig = static_cast<T>(v);
}

template <typename T> void get(const T &sig, uint8_t *b, unsigned n)
{
	uint64_t v = sig;
	for (unsigned i = 0; i < n && i < 8; i++)
		b[i] = uint8_t(v >> (8 * i));
}

// Buses wider than 64 bits: 32-bit words, word 0 least significant.
template <std::size_t W> void put(VlWide<W> &sig, const uint8_t *b, unsigned n)
{
	for (std::size_t w = 0; w < W; w++) {
		uint32_t v = 0;
		for (unsigned k = 0; k < 4; k++)
			if (4 * w + k < n)
				v |= uint32_t(b[4 * w + k]) << (8 * k);
		sig[w] = v;
	}
}

template <std::size_t W> void get(const VlWide<W> &sig, uint8_t *b, unsigned n)
{
	for (std::size_t w = 0; w < W; w++)
		for (unsigned k = 0; k < 4; k++)
			if (4 * w + k < n)
				b[4 * w + k] = uint8_t(sig[w] >> (8 * k));
}

class Probe {
public:
	virtual ~Probe() = default;
	virtual void set_inputs(const rnic_probe_in &in) = 0;
	virtual void get_outputs(rnic_probe_out &out) = 0;
	virtual void set_clk(int clk) = 0;
	virtual void eval() = 0;
	virtual void trace(VerilatedFstC *tfp) = 0;
	virtual void final() = 0;
};

template <typename V> class ProbeOf : public Probe {
public:
	ProbeOf(VerilatedContext *ctx, unsigned bytes) : v_(ctx, "probe"), bytes_(bytes) {}

	void set_inputs(const rnic_probe_in &in) override
	{
		uint8_t keep[8];

		for (unsigned i = 0; i < 8; i++)
			keep[i] = uint8_t(in.s_axis_rx_tkeep >> (8 * i));
		v_.rst = in.rst;
		put(v_.s_axis_rx_tdata, in.s_axis_rx_tdata, bytes_);
		put(v_.s_axis_rx_tkeep, keep, (bytes_ + 7) / 8);
		v_.s_axis_rx_tvalid = in.s_axis_rx_tvalid;
		v_.s_axis_rx_tlast = in.s_axis_rx_tlast;
		v_.s_axis_rx_tuser = in.s_axis_rx_tuser;
		v_.m_hdr_ready = in.m_hdr_ready;
		v_.m_axis_payload_tready = in.m_axis_payload_tready;
	}

	void get_outputs(rnic_probe_out &o) override
	{
		rnic_probe_hdr &h = o.hdr;

		o.s_axis_rx_tready = v_.s_axis_rx_tready;
		o.stat_good = v_.stat_good;
		o.stat_not_roce = v_.stat_not_roce;
		o.stat_bad_udp_port = v_.stat_bad_udp_port;
		o.stat_bad_ip_csum = v_.stat_bad_ip_csum;
		o.stat_bad_icrc = v_.stat_bad_icrc;
		o.stat_malformed = v_.stat_malformed;
		o.m_hdr_valid = v_.m_hdr_valid;
		o.m_hdr_bad = v_.m_hdr_bad;
		h.eth_dst = v_.m_hdr_eth_dst;
		h.eth_src = v_.m_hdr_eth_src;
		h.ipv6 = v_.m_hdr_ipv6;
		get(v_.m_hdr_ip_src, h.ip_src, 16);
		get(v_.m_hdr_ip_dst, h.ip_dst, 16);
		h.ip_tclass = v_.m_hdr_ip_tclass;
		h.ip_ttl = v_.m_hdr_ip_ttl;
		h.ip_flow_label = v_.m_hdr_ip_flow_label;
		h.udp_sport = v_.m_hdr_udp_sport;
		h.bth_opcode = v_.m_hdr_bth_opcode;
		h.bth_se = v_.m_hdr_bth_se;
		h.bth_migreq = v_.m_hdr_bth_migreq;
		h.bth_pad = v_.m_hdr_bth_pad;
		h.bth_pkey = v_.m_hdr_bth_pkey;
		h.bth_dest_qpn = v_.m_hdr_bth_dest_qpn;
		h.bth_ackreq = v_.m_hdr_bth_ackreq;
		h.bth_psn = v_.m_hdr_bth_psn;
		h.has_reth = v_.m_hdr_has_reth;
		h.reth_va = v_.m_hdr_reth_va;
		h.reth_rkey = v_.m_hdr_reth_rkey;
		h.reth_len = v_.m_hdr_reth_len;
		h.has_aeth = v_.m_hdr_has_aeth;
		h.aeth_syndrome = v_.m_hdr_aeth_syndrome;
		h.aeth_msn = v_.m_hdr_aeth_msn;
		h.has_immdt = v_.m_hdr_has_immdt;
		h.immdt = v_.m_hdr_immdt;
		h.has_deth = v_.m_hdr_has_deth;
		h.deth_qkey = v_.m_hdr_deth_qkey;
		h.deth_src_qpn = v_.m_hdr_deth_src_qpn;
		h.payload_len = v_.m_hdr_payload_len;
		get(v_.m_axis_payload_tdata, o.m_axis_payload_tdata, bytes_);
		o.m_axis_payload_tkeep = v_.m_axis_payload_tkeep;
		o.m_axis_payload_tvalid = v_.m_axis_payload_tvalid;
		o.m_axis_payload_tlast = v_.m_axis_payload_tlast;
		o.status_overflow = v_.status_overflow;
	}

	void set_clk(int clk) override { v_.clk = clk ? 1 : 0; }
	void eval() override { v_.eval(); }
	void trace(VerilatedFstC *tfp) override { v_.trace(tfp, 99); }
	void final() override { v_.final(); }

private:
	V v_;
	unsigned bytes_;
};

} // namespace

struct rnic_probe {
	VerilatedContext ctx;
	Probe *m = nullptr;
	VerilatedFstC *tfp = nullptr;
};

extern "C" {

int rnic_probe_available(unsigned int data_width)
{
	switch (data_width) {
#if RNIC_PROBE_HAVE_W64
	case 64:
		return 1;
#endif
#if RNIC_PROBE_HAVE_W512
	case 512:
		return 1;
#endif
	default:
		return 0;
	}
}

struct rnic_probe *rnic_probe_create(unsigned int data_width, uint64_t seed, int trace)
{
	if (!rnic_probe_available(data_width))
		return nullptr;
	rnic_probe *p = new (std::nothrow) rnic_probe;
	if (!p)
		return nullptr;
	// randomized but reproducible initial state (+verilator+rand+reset+2)
	p->ctx.randReset(2);
	p->ctx.randSeed(static_cast<int>((seed & 0x3fffffff) | 1));
	p->ctx.fatalOnError(false);
	if (trace)
		p->ctx.traceEverOn(true);
	Verilated::threadContextp(&p->ctx);
	switch (data_width) {
#if RNIC_PROBE_HAVE_W64
	case 64:
		p->m = new (std::nothrow) ProbeOf<Vrnic_rx_probe_w64>(&p->ctx, 8);
		break;
#endif
#if RNIC_PROBE_HAVE_W512
	case 512:
		p->m = new (std::nothrow) ProbeOf<Vrnic_rx_probe_w512>(&p->ctx, 64);
		break;
#endif
	default:
		break;
	}
	if (!p->m) {
		delete p;
		return nullptr;
	}
	return p;
}

void rnic_probe_destroy(struct rnic_probe *p)
{
	if (!p)
		return;
	Verilated::threadContextp(&p->ctx);
	p->m->final();
	if (p->tfp) {
		p->tfp->close();
		delete p->tfp;
	}
	delete p->m;
	delete p;
}

void rnic_probe_set_inputs(struct rnic_probe *p, const struct rnic_probe_in *in)
{
	p->m->set_inputs(*in);
}

void rnic_probe_get_outputs(struct rnic_probe *p, struct rnic_probe_out *out)
{
	p->m->get_outputs(*out);
}

void rnic_probe_eval(struct rnic_probe *p, int clk)
{
	Verilated::threadContextp(&p->ctx);
	p->m->set_clk(clk);
	p->m->eval();
	if (p->tfp)
		p->tfp->dump(p->ctx.time());
}

void rnic_probe_time_inc(struct rnic_probe *p, uint64_t ps)
{
	p->ctx.timeInc(ps);
}

int rnic_probe_got_finish(const struct rnic_probe *p)
{
	return const_cast<VerilatedContext &>(p->ctx).gotFinish() ? 1 : 0;
}

int rnic_probe_trace_open(struct rnic_probe *p, const char *path)
{
	if (p->tfp)
		return -EBUSY;
	p->ctx.traceEverOn(true);
	p->tfp = new (std::nothrow) VerilatedFstC;
	if (!p->tfp)
		return -ENOMEM;
	p->m->trace(p->tfp);
	p->tfp->open(path);
	if (!p->tfp->isOpen()) {
		delete p->tfp;
		p->tfp = nullptr;
		return -EIO;
	}
	return 0;
}

} // extern "C"

#else /* no probe model compiled in */

extern "C" {

int rnic_probe_available(unsigned int) { return 0; }
struct rnic_probe *rnic_probe_create(unsigned int, uint64_t, int) { return nullptr; }
void rnic_probe_destroy(struct rnic_probe *) {}
void rnic_probe_set_inputs(struct rnic_probe *, const struct rnic_probe_in *) {}
void rnic_probe_get_outputs(struct rnic_probe *, struct rnic_probe_out *) {}
void rnic_probe_eval(struct rnic_probe *, int) {}
void rnic_probe_time_inc(struct rnic_probe *, uint64_t) {}
int rnic_probe_got_finish(const struct rnic_probe *) { return 0; }
int rnic_probe_trace_open(struct rnic_probe *, const char *) { return -ENODEV; }

} // extern "C"

#endif
