// OpenRNIC simulator: the one C++ file. It hides the Verilator models of
// rnic_core (Vrnic_core_w64, Vrnic_core_w512) behind the C handle of
// rnic_model.h: pins in and out as C structs, eval, FST tracing, final.
// Everything else in sim/ is C.
//
// Build switches: RNIC_SIM_HAVE_W64 / RNIC_SIM_HAVE_W512 say which models
// are compiled in (their generated headers on the include path);
// RNIC_SIM_HAVE_BOARDS adds the board models (Vrnic_board_au250,
// Vrnic_board_kcu105: a board top with models of its vendor IP).

#include <cerrno>
#include <cstring>
#include <new>

#include "verilated.h"
#include "verilated_fst_c.h"

#if RNIC_SIM_HAVE_W64
#include "Vrnic_core_w64.h"
#endif
#if RNIC_SIM_HAVE_W512
#include "Vrnic_core_w512.h"
#endif

#if RNIC_SIM_HAVE_BOARDS
#include "Vrnic_board_au250.h"
#include "Vrnic_board_kcu105.h"
#endif

#include "rnic_model.h"

struct rnic_vctx {
	VerilatedContext ctx;
};

namespace {

// Scalars and buses up to 64 bits.
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

class Model {
public:
	virtual ~Model() = default;
	virtual void set_inputs(const rnic_core_in &in) = 0;
	virtual void get_outputs(rnic_core_out &out) = 0;
	virtual void set_clk(int clk) = 0;
	virtual void set_board_clks(int mac_clk, int ref_clk) { (void)mac_clk; (void)ref_clk; }
	virtual void eval() = 0;
	virtual void trace(VerilatedFstC *tfp) = 0;
	virtual void final() = 0;
};

// mem_bytes: the DMA port's width; bytes: the Ethernet streams' (the same
// on the bare core; a board's bridge may be wider than its core).
template <typename V> class ModelOf : public Model {
public:
	ModelOf(VerilatedContext *ctx, const char *name, unsigned bytes, unsigned mem_bytes = 0)
		: v_(ctx, name), bytes_(bytes), mem_bytes_(mem_bytes ? mem_bytes : bytes)
	{
	}

	void set_inputs(const rnic_core_in &in) override
	{
		uint8_t keep[8];

		for (unsigned i = 0; i < 8; i++)
			keep[i] = uint8_t(in.s_axis_rx_tkeep >> (8 * i));
		v_.rst = in.rst;
		v_.s_axil_awaddr = in.s_axil_awaddr;
		v_.s_axil_awprot = in.s_axil_awprot;
		v_.s_axil_awvalid = in.s_axil_awvalid;
		v_.s_axil_wdata = in.s_axil_wdata;
		v_.s_axil_wstrb = in.s_axil_wstrb;
		v_.s_axil_wvalid = in.s_axil_wvalid;
		v_.s_axil_bready = in.s_axil_bready;
		v_.s_axil_araddr = in.s_axil_araddr;
		v_.s_axil_arprot = in.s_axil_arprot;
		v_.s_axil_arvalid = in.s_axil_arvalid;
		v_.s_axil_rready = in.s_axil_rready;
		v_.m_axi_awready = in.m_axi_awready;
		v_.m_axi_wready = in.m_axi_wready;
		v_.m_axi_bid = in.m_axi_bid;
		v_.m_axi_bresp = in.m_axi_bresp;
		v_.m_axi_bvalid = in.m_axi_bvalid;
		v_.m_axi_arready = in.m_axi_arready;
		v_.m_axi_rid = in.m_axi_rid;
		put(v_.m_axi_rdata, in.m_axi_rdata, mem_bytes_);
		v_.m_axi_rresp = in.m_axi_rresp;
		v_.m_axi_rlast = in.m_axi_rlast;
		v_.m_axi_rvalid = in.m_axi_rvalid;
		v_.m_axis_tx_tready = in.m_axis_tx_tready;
		put(v_.s_axis_rx_tdata, in.s_axis_rx_tdata, bytes_);
		put(v_.s_axis_rx_tkeep, keep, (bytes_ + 7) / 8);
		v_.s_axis_rx_tvalid = in.s_axis_rx_tvalid;
		v_.s_axis_rx_tlast = in.s_axis_rx_tlast;
		v_.s_axis_rx_tuser = in.s_axis_rx_tuser;
	}

	void get_outputs(rnic_core_out &o) override
	{
		o.s_axil_awready = v_.s_axil_awready;
		o.s_axil_wready = v_.s_axil_wready;
		o.s_axil_bresp = v_.s_axil_bresp;
		o.s_axil_bvalid = v_.s_axil_bvalid;
		o.s_axil_arready = v_.s_axil_arready;
		o.s_axil_rdata = v_.s_axil_rdata;
		o.s_axil_rresp = v_.s_axil_rresp;
		o.s_axil_rvalid = v_.s_axil_rvalid;
		o.m_axi_awid = v_.m_axi_awid;
		o.m_axi_awaddr = v_.m_axi_awaddr;
		o.m_axi_awlen = v_.m_axi_awlen;
		o.m_axi_awsize = v_.m_axi_awsize;
		o.m_axi_awburst = v_.m_axi_awburst;
		o.m_axi_awlock = v_.m_axi_awlock;
		o.m_axi_awcache = v_.m_axi_awcache;
		o.m_axi_awprot = v_.m_axi_awprot;
		o.m_axi_awvalid = v_.m_axi_awvalid;
		get(v_.m_axi_wdata, o.m_axi_wdata, mem_bytes_);
		o.m_axi_wstrb = v_.m_axi_wstrb;
		o.m_axi_wlast = v_.m_axi_wlast;
		o.m_axi_wvalid = v_.m_axi_wvalid;
		o.m_axi_bready = v_.m_axi_bready;
		o.m_axi_arid = v_.m_axi_arid;
		o.m_axi_araddr = v_.m_axi_araddr;
		o.m_axi_arlen = v_.m_axi_arlen;
		o.m_axi_arsize = v_.m_axi_arsize;
		o.m_axi_arburst = v_.m_axi_arburst;
		o.m_axi_arlock = v_.m_axi_arlock;
		o.m_axi_arcache = v_.m_axi_arcache;
		o.m_axi_arprot = v_.m_axi_arprot;
		o.m_axi_arvalid = v_.m_axi_arvalid;
		o.m_axi_rready = v_.m_axi_rready;
		get(v_.m_axis_tx_tdata, o.m_axis_tx_tdata, bytes_);
		o.m_axis_tx_tkeep = v_.m_axis_tx_tkeep;
		o.m_axis_tx_tvalid = v_.m_axis_tx_tvalid;
		o.m_axis_tx_tlast = v_.m_axis_tx_tlast;
		o.m_axis_tx_tuser = v_.m_axis_tx_tuser;
		o.s_axis_rx_tready = v_.s_axis_rx_tready;
		o.mac_pause_req = v_.mac_pause_req;
	}

	void set_clk(int clk) override { v_.clk = clk ? 1 : 0; }
	void eval() override { v_.eval(); }
	void trace(VerilatedFstC *tfp) override { v_.trace(tfp, 99); }
	void final() override { v_.final(); }

protected:
	V v_;
	unsigned bytes_, mem_bytes_;
};

#if RNIC_SIM_HAVE_BOARDS
template <typename V> class BoardOf : public ModelOf<V> {
public:
	using ModelOf<V>::ModelOf;

	void get_outputs(rnic_core_out &o) override
	{
		ModelOf<V>::get_outputs(o);
		o.leds = static_cast<uint8_t>(this->v_.led);
	}

	void set_board_clks(int mac_clk, int ref_clk) override
	{
		this->v_.mac_clk = mac_clk ? 1 : 0;
		this->v_.ref_clk = ref_clk ? 1 : 0;
	}
};
#endif

} // namespace

struct rnic_model {
	Model *m;
	VerilatedContext *ctx;
	VerilatedFstC *tfp;
	bool finaled;
};

extern "C" {

struct rnic_vctx *rnic_vctx_create(uint64_t seed, int trace)
{
	rnic_vctx *c = new (std::nothrow) rnic_vctx;
	if (!c)
		return nullptr;
	// +verilator+rand+reset+2 with a seed of our own: uninitialized state is
	// random but reproducible. randSeed 0 would mean "from the clock".
	c->ctx.randReset(2);
	c->ctx.randSeed(static_cast<int>((seed & 0x3fffffff) | 1));
	// A failed assertion or $error ends the run through gotFinish, so the
	// harness can close the FST and pcap files before it exits.
	c->ctx.fatalOnError(false);
	if (trace)
		c->ctx.traceEverOn(true);
	return c;
}

void rnic_vctx_destroy(struct rnic_vctx *c)
{
	delete c;
}

void rnic_vctx_time_inc(struct rnic_vctx *c, uint64_t ps)
{
	c->ctx.timeInc(ps);
}

uint64_t rnic_vctx_time(const struct rnic_vctx *c)
{
	return const_cast<VerilatedContext &>(c->ctx).time();
}

int rnic_vctx_got_finish(const struct rnic_vctx *c)
{
	return const_cast<VerilatedContext &>(c->ctx).gotFinish() ? 1 : 0;
}

int rnic_model_available(unsigned int data_width)
{
	switch (data_width) {
#if RNIC_SIM_HAVE_W64
	case 64:
		return 1;
#endif
#if RNIC_SIM_HAVE_W512
	case 512:
		return 1;
#endif
	default:
		return 0;
	}
}

struct rnic_model *rnic_model_create(struct rnic_vctx *c, unsigned int data_width,
				     const char *name)
{
	Model *m = nullptr;

	Verilated::threadContextp(&c->ctx);
	switch (data_width) {
#if RNIC_SIM_HAVE_W64
	case 64:
		m = new (std::nothrow) ModelOf<Vrnic_core_w64>(&c->ctx, name, 8);
		break;
#endif
#if RNIC_SIM_HAVE_W512
	case 512:
		m = new (std::nothrow) ModelOf<Vrnic_core_w512>(&c->ctx, name, 64);
		break;
#endif
	default:
		break;
	}
	if (!m)
		return nullptr;
	rnic_model *h = new (std::nothrow) rnic_model{ m, &c->ctx, nullptr, false };
	if (!h)
		delete m;
	return h;
}

int rnic_model_board_available(int board)
{
#if RNIC_SIM_HAVE_BOARDS
	return board == RNIC_MODEL_BOARD_AU250 || board == RNIC_MODEL_BOARD_KCU105;
#else
	(void)board;
	return 0;
#endif
}

struct rnic_model *rnic_model_create_board(struct rnic_vctx *c, int board, const char *name)
{
	Model *m = nullptr;

	Verilated::threadContextp(&c->ctx);
	switch (board) {
#if RNIC_SIM_HAVE_BOARDS
	case RNIC_MODEL_BOARD_AU250: // 512-bit streams, 512-bit bridge
		m = new (std::nothrow) BoardOf<Vrnic_board_au250>(&c->ctx, name, 64, 64);
		break;
	case RNIC_MODEL_BOARD_KCU105: // 64-bit streams, 256-bit bridge
		m = new (std::nothrow) BoardOf<Vrnic_board_kcu105>(&c->ctx, name, 8, 32);
		break;
#endif
	default:
		(void)name;
		break;
	}
	if (!m)
		return nullptr;
	rnic_model *h = new (std::nothrow) rnic_model{ m, &c->ctx, nullptr, false };
	if (!h)
		delete m;
	return h;
}

void rnic_model_set_board_clks(struct rnic_model *h, int mac_clk, int ref_clk)
{
	h->m->set_board_clks(mac_clk, ref_clk);
}

void rnic_model_destroy(struct rnic_model *h)
{
	if (!h)
		return;
	rnic_model_trace_close(h);
	delete h->m;
	delete h;
}

void rnic_model_set_inputs(struct rnic_model *h, const struct rnic_core_in *in)
{
	h->m->set_inputs(*in);
}

void rnic_model_set_clk(struct rnic_model *h, int clk)
{
	h->m->set_clk(clk);
}

void rnic_model_eval(struct rnic_model *h)
{
	// Verilator's runtime finds the context through a thread-local pointer;
	// point it at ours (several worlds may live in one process).
	Verilated::threadContextp(h->ctx);
	h->m->eval();
}

void rnic_model_get_outputs(struct rnic_model *h, struct rnic_core_out *out)
{
	h->m->get_outputs(*out);
}

int rnic_model_trace_open(struct rnic_model *h, const char *path)
{
	if (h->tfp)
		return -EBUSY;
	h->ctx->traceEverOn(true);
	h->tfp = new (std::nothrow) VerilatedFstC;
	if (!h->tfp)
		return -ENOMEM;
	h->m->trace(h->tfp);
	h->tfp->open(path);
	if (!h->tfp->isOpen()) {
		delete h->tfp;
		h->tfp = nullptr;
		return -EIO;
	}
	return 0;
}

void rnic_model_trace_dump(struct rnic_model *h)
{
	if (h->tfp)
		h->tfp->dump(h->ctx->time());
}

void rnic_model_trace_close(struct rnic_model *h)
{
	if (!h->tfp)
		return;
	h->tfp->close();
	delete h->tfp;
	h->tfp = nullptr;
}

void rnic_model_final(struct rnic_model *h)
{
	if (h->finaled)
		return;
	h->finaled = true;
	h->m->final();
}

} // extern "C"
