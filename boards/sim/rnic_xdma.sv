`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simulation model of the DMA/Bridge Subsystem for PCI Express (xdma) in AXI
 * bridge mode, as the board tops instantiate it (the port list of
 * boards/<board>/rtl/ip_blackbox.v). Only the user side is modelled; the
 * PCIe link itself is the simulator's host (sim/hostmem.c for the memory
 * behind the bridge's AXI slave, sim/bar.c for the host's BAR0 accesses).
 *
 *   clock    axi_aclk is the simulator's core clock (`RNIC_SIM_TOP.clk), as
 *            the real bridge derives its user clock from the PCIe clock.
 *   reset    sys_rst_n (PERST#, asynchronous) low holds axi_aresetn and
 *            user_lnk_up low; after it rises axi_aresetn goes high
 *            USER_RESET_CYCLES later and user_lnk_up LINK_TRAIN_CYCLES after
 *            that (the link trains after the user reset; a real link takes
 *            milliseconds, cut short here). Until the link is up the host
 *            cannot reach BAR0: its accesses wait.
 *   BAR0     each AXI4-Lite access of the host model (`RNIC_SIM_TOP.s_axil_*:
 *            32 bits, the BAR offset) leaves on m_axib as a one-beat AXI4
 *            burst of 4 bytes at the BAR offset (pciebar2axibar_0 = 0), its
 *            data and strobes in the byte lanes of that address on the
 *            DW-bit bus, as the bridge turns a 32-bit memory TLP into AXI.
 *            A write's data waits for its address (the lanes depend on it).
 *   DMA      the s_axib slave (the core's DMA master) reaches the host-
 *            memory model's port (`RNIC_SIM_TOP.m_axi_* inputs; the
 *            simulation top reads the h_axi_* outputs of this instance).
 *   latency  the bridge's own pipeline (rnic_sim_delay): BAR_LAT cycles
 *            each way between the host model's BAR0 handshakes and
 *            m_axib, DMA_LAT cycles each way between s_axib and the host-
 *            memory model. 16 cycles (64 ns) is an estimate of the order of
 *            a hard PCIe block plus the bridge's AXI-to-TLP conversion
 *            (the product guide gives no figure); the PCIe trip and the
 *            root complex are the host models' own latencies.
 *
 * DW comes from `RNIC_SIM_PCIE_DW (the bridge's AXI width on the board:
 * 512 on the U250 at Gen3 x16, 256 on the KCU105 at Gen3 x8).
 */
module rnic_xdma #(
    parameter int DW = `RNIC_SIM_PCIE_DW,
    parameter int LANES = `RNIC_SIM_PCIE_LANES,
    parameter int USER_RESET_CYCLES = 40,
    parameter int LINK_TRAIN_CYCLES = 200,
    parameter int BAR_LAT = 16,
    parameter int DMA_LAT = 16
) (
    input  wire logic                sys_clk,
    input  wire logic                sys_clk_gt,
    input  wire logic                sys_rst_n,
    output      logic [LANES-1:0]    pci_exp_txp,
    output      logic [LANES-1:0]    pci_exp_txn,
    input  wire logic [LANES-1:0]    pci_exp_rxp,
    input  wire logic [LANES-1:0]    pci_exp_rxn,
    output      logic                axi_aclk,
    output      logic                axi_aresetn,
    output      logic                user_lnk_up,
    input  wire logic                usr_irq_req,
    output      logic                usr_irq_ack,
    output      logic                msi_enable,
    output      logic [2:0]          msi_vector_width,
    output      logic                interrupt_out,
    output      logic                interrupt_out_msi_vec0to31,
    output      logic                interrupt_out_msi_vec32to63,

    output      logic [3:0]          m_axib_awid,
    output      logic [63:0]         m_axib_awaddr,
    output      logic [7:0]          m_axib_awlen,
    output      logic [2:0]          m_axib_awsize,
    output      logic [1:0]          m_axib_awburst,
    output      logic [2:0]          m_axib_awprot,
    output      logic                m_axib_awvalid,
    input  wire logic                m_axib_awready,
    output      logic                m_axib_awlock,
    output      logic [3:0]          m_axib_awcache,
    output      logic [DW-1:0]       m_axib_wdata,
    output      logic [DW/8-1:0]     m_axib_wstrb,
    output      logic                m_axib_wlast,
    output      logic                m_axib_wvalid,
    input  wire logic                m_axib_wready,
    input  wire logic [3:0]          m_axib_bid,
    input  wire logic [1:0]          m_axib_bresp,
    input  wire logic                m_axib_bvalid,
    output      logic                m_axib_bready,
    output      logic [3:0]          m_axib_arid,
    output      logic [63:0]         m_axib_araddr,
    output      logic [7:0]          m_axib_arlen,
    output      logic [2:0]          m_axib_arsize,
    output      logic [1:0]          m_axib_arburst,
    output      logic [2:0]          m_axib_arprot,
    output      logic                m_axib_arvalid,
    input  wire logic                m_axib_arready,
    output      logic                m_axib_arlock,
    output      logic [3:0]          m_axib_arcache,
    input  wire logic [3:0]          m_axib_rid,
    input  wire logic [DW-1:0]       m_axib_rdata,
    input  wire logic [1:0]          m_axib_rresp,
    input  wire logic                m_axib_rlast,
    input  wire logic                m_axib_rvalid,
    output      logic                m_axib_rready,

    input  wire logic [3:0]          s_axib_awid,
    input  wire logic [63:0]         s_axib_awaddr,
    input  wire logic [3:0]          s_axib_awregion,
    input  wire logic [7:0]          s_axib_awlen,
    input  wire logic [2:0]          s_axib_awsize,
    input  wire logic [1:0]          s_axib_awburst,
    input  wire logic                s_axib_awvalid,
    output      logic                s_axib_awready,
    input  wire logic [DW-1:0]       s_axib_wdata,
    input  wire logic [DW/8-1:0]     s_axib_wstrb,
    input  wire logic                s_axib_wlast,
    input  wire logic                s_axib_wvalid,
    output      logic                s_axib_wready,
    output      logic [3:0]          s_axib_bid,
    output      logic [1:0]          s_axib_bresp,
    output      logic                s_axib_bvalid,
    input  wire logic                s_axib_bready,
    input  wire logic [3:0]          s_axib_arid,
    input  wire logic [63:0]         s_axib_araddr,
    input  wire logic [3:0]          s_axib_arregion,
    input  wire logic [7:0]          s_axib_arlen,
    input  wire logic [2:0]          s_axib_arsize,
    input  wire logic [1:0]          s_axib_arburst,
    input  wire logic                s_axib_arvalid,
    output      logic                s_axib_arready,
    output      logic [3:0]          s_axib_rid,
    output      logic [DW-1:0]       s_axib_rdata,
    output      logic [1:0]          s_axib_rresp,
    output      logic                s_axib_rlast,
    output      logic                s_axib_rvalid,
    input  wire logic                s_axib_rready
);

    localparam int LB = $clog2(DW / 8);  // byte-lane index bits
    localparam int QD = 4;               // BAR accesses in flight per direction

    assign axi_aclk = `RNIC_SIM_TOP.clk;

    // ------------------------------------------------------------------
    // reset and link: PERST# synchronized, then the user reset, then the link
    // ------------------------------------------------------------------
    // power-up values, as the IP's own registers have them
    logic [1:0]  perst_sync = 2'b00;
    logic [15:0] up_count = '0;
    logic        aresetn_q = 1'b0, lnk_up_q = 1'b0;
    assign axi_aresetn = aresetn_q;
    assign user_lnk_up = lnk_up_q;

    always_ff @(posedge axi_aclk or negedge sys_rst_n) begin
        if (!sys_rst_n) begin
            perst_sync <= '0;
        end else begin
            perst_sync <= {perst_sync[0], 1'b1};
        end
    end

    always_ff @(posedge axi_aclk) begin
        if (!perst_sync[1]) begin
            up_count <= '0;
            aresetn_q <= 1'b0;
            lnk_up_q <= 1'b0;
        end else begin
            if (up_count != 16'hffff) up_count <= up_count + 16'd1;
            if (up_count == 16'(USER_RESET_CYCLES)) aresetn_q <= 1'b1;
            if (up_count == 16'(USER_RESET_CYCLES + LINK_TRAIN_CYCLES)) lnk_up_q <= 1'b1;
        end
    end

    wire bar_up = axi_aresetn && user_lnk_up;

    // ------------------------------------------------------------------
    // BAR0: the host's 32-bit accesses as one-beat AXI4 bursts
    // ------------------------------------------------------------------
    // The bridge's pipeline: a host access reaches m_axib BAR_LAT cycles
    // after the host model's handshake, its answer the host BAR_LAT cycles
    // after m_axib's (the PCIe trip itself is the host model's latency).
    logic        bar_aw_valid, bar_aw_ready, bar_w_valid, bar_w_ready, bar_ar_valid, bar_ar_ready;
    logic        bar_aw_room, bar_w_room, bar_ar_room, bar_b_room, bar_r_room;
    logic [15:0] bar_awaddr, bar_araddr;
    logic [2:0]  bar_awprot, bar_arprot;
    logic [31:0] bar_wdata;
    logic [3:0]  bar_wstrb;

    rnic_sim_delay #(.W(3 + 16), .LAT(BAR_LAT)) bar_aw_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(bar_up && `RNIC_SIM_TOP.s_axil_awvalid), .in_ready(bar_aw_room),
        .in_data({`RNIC_SIM_TOP.s_axil_awprot, `RNIC_SIM_TOP.s_axil_awaddr}),
        .out_valid(bar_aw_valid), .out_ready(bar_aw_ready), .out_data({bar_awprot, bar_awaddr}));
    rnic_sim_delay #(.W(4 + 32), .LAT(BAR_LAT)) bar_w_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(bar_up && `RNIC_SIM_TOP.s_axil_wvalid), .in_ready(bar_w_room),
        .in_data({`RNIC_SIM_TOP.s_axil_wstrb, `RNIC_SIM_TOP.s_axil_wdata}),
        .out_valid(bar_w_valid), .out_ready(bar_w_ready), .out_data({bar_wstrb, bar_wdata}));
    rnic_sim_delay #(.W(3 + 16), .LAT(BAR_LAT)) bar_ar_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(bar_up && `RNIC_SIM_TOP.s_axil_arvalid), .in_ready(bar_ar_room),
        .in_data({`RNIC_SIM_TOP.s_axil_arprot, `RNIC_SIM_TOP.s_axil_araddr}),
        .out_valid(bar_ar_valid), .out_ready(bar_ar_ready), .out_data({bar_arprot, bar_araddr}));

    // write and read addresses taken on m_axib, waiting for their data: the
    // byte lane offset of the oldest of each
    logic [LB-1:0] waddr, raddr;
    logic          waddr_empty, waddr_full, raddr_empty, raddr_full;

    wire aw_go = bar_aw_valid && !waddr_full;
    wire w_go = bar_w_valid && !waddr_empty;
    wire ar_go = bar_ar_valid && !raddr_full;
    assign bar_aw_ready = aw_go && m_axib_awready;
    assign bar_w_ready = w_go && m_axib_wready;
    assign bar_ar_ready = ar_go && m_axib_arready;

    assign m_axib_awid = '0;
    assign m_axib_awaddr = {48'd0, bar_awaddr};
    assign m_axib_awlen = 8'd0;
    assign m_axib_awsize = 3'd2;
    assign m_axib_awburst = 2'b01;
    assign m_axib_awprot = bar_awprot;
    assign m_axib_awlock = 1'b0;
    assign m_axib_awcache = 4'b0011;
    assign m_axib_awvalid = aw_go;
    assign m_axib_wdata = {(DW / 32){bar_wdata}};
    assign m_axib_wstrb = (DW / 8)'(bar_wstrb) << waddr;
    assign m_axib_wlast = 1'b1;
    assign m_axib_wvalid = w_go;
    assign m_axib_bready = bar_b_room;
    assign m_axib_arid = '0;
    assign m_axib_araddr = {48'd0, bar_araddr};
    assign m_axib_arlen = 8'd0;
    assign m_axib_arsize = 3'd2;
    assign m_axib_arburst = 2'b01;
    assign m_axib_arprot = bar_arprot;
    assign m_axib_arlock = 1'b0;
    assign m_axib_arcache = 4'b0011;
    assign m_axib_arvalid = ar_go;
    assign m_axib_rready = bar_r_room;

    // what the simulation top hands back to the host model
    logic        h_axil_awready, h_axil_wready, h_axil_bvalid, h_axil_arready, h_axil_rvalid;
    logic [1:0]  h_axil_bresp, h_axil_rresp;
    logic [31:0] h_axil_rdata;

    assign h_axil_awready = bar_up && bar_aw_room;
    assign h_axil_wready = bar_up && bar_w_room;
    assign h_axil_arready = bar_up && bar_ar_room;

    rnic_sim_delay #(.W(2), .LAT(BAR_LAT)) bar_b_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(m_axib_bvalid), .in_ready(bar_b_room), .in_data(m_axib_bresp),
        .out_valid(h_axil_bvalid), .out_ready(`RNIC_SIM_TOP.s_axil_bready), .out_data(h_axil_bresp));
    rnic_sim_delay #(.W(2 + 32), .LAT(BAR_LAT)) bar_r_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(m_axib_rvalid), .in_ready(bar_r_room),
        .in_data({m_axib_rresp, m_axib_rdata[32 * 32'(raddr[LB-1:2]) +: 32]}),
        .out_valid(h_axil_rvalid), .out_ready(`RNIC_SIM_TOP.s_axil_rready),
        .out_data({h_axil_rresp, h_axil_rdata}));

    rnic_sim_queue #(.W(LB), .DEPTH(QD)) waddr_q (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .push(bar_aw_ready), .push_data({bar_awaddr[LB-1:2], 2'b00}),
        .pop(bar_w_ready), .set_head(1'b0), .set_data('0),
        .head(waddr), .empty(waddr_empty), .full(waddr_full));
    rnic_sim_queue #(.W(LB), .DEPTH(QD)) raddr_q (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .push(bar_ar_ready), .push_data({bar_araddr[LB-1:2], 2'b00}),
        .pop(m_axib_rvalid && m_axib_rready), .set_head(1'b0), .set_data('0),
        .head(raddr), .empty(raddr_empty), .full(raddr_full));

`ifndef SYNTHESIS
    // one-beat bursts come back as one beat each, with the bridge's ID
    always_ff @(posedge axi_aclk) begin
        if (axi_aresetn) begin
            if (m_axib_rvalid && m_axib_rready && (!m_axib_rlast || m_axib_rid != 4'd0 || raddr_empty))
                $error("rnic_xdma model: BAR read answered with a bad beat (rlast %0d rid %0d)",
                       m_axib_rlast, m_axib_rid);
            if (m_axib_bvalid && m_axib_bready && m_axib_bid != 4'd0)
                $error("rnic_xdma model: BAR write answered with ID %0d", m_axib_bid);
        end
    end
`endif

    // ------------------------------------------------------------------
    // DMA: the core's master reaches the host-memory model through the
    // bridge's pipeline, DMA_LAT cycles each way (requests and write data
    // toward the host, responses back); the host model's read and write
    // latencies are the PCIe trip and the root complex beyond the bridge
    // ------------------------------------------------------------------
    logic           h_axi_awvalid, h_axi_wvalid, h_axi_bready, h_axi_arvalid, h_axi_rready;
    logic [3:0]     h_axi_awid, h_axi_arid;
    logic [63:0]    h_axi_awaddr, h_axi_araddr;
    logic [7:0]     h_axi_awlen, h_axi_arlen;
    logic [2:0]     h_axi_awsize, h_axi_arsize;
    logic [1:0]     h_axi_awburst, h_axi_arburst;
    logic [DW-1:0]  h_axi_wdata;
    logic [DW/8-1:0] h_axi_wstrb;
    logic           h_axi_wlast;
    localparam int  AX_W = 4 + 64 + 8 + 3 + 2;   // an address channel: ID, address, length, size, burst

    rnic_sim_delay #(.W(AX_W), .LAT(DMA_LAT)) dma_aw_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(s_axib_awvalid), .in_ready(s_axib_awready),
        .in_data({s_axib_awid, s_axib_awaddr, s_axib_awlen, s_axib_awsize, s_axib_awburst}),
        .out_valid(h_axi_awvalid), .out_ready(`RNIC_SIM_TOP.m_axi_awready),
        .out_data({h_axi_awid, h_axi_awaddr, h_axi_awlen, h_axi_awsize, h_axi_awburst}));
    rnic_sim_delay #(.W(DW + DW / 8 + 1), .LAT(DMA_LAT)) dma_w_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(s_axib_wvalid), .in_ready(s_axib_wready),
        .in_data({s_axib_wdata, s_axib_wstrb, s_axib_wlast}),
        .out_valid(h_axi_wvalid), .out_ready(`RNIC_SIM_TOP.m_axi_wready),
        .out_data({h_axi_wdata, h_axi_wstrb, h_axi_wlast}));
    rnic_sim_delay #(.W(4 + 2), .LAT(DMA_LAT)) dma_b_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(`RNIC_SIM_TOP.m_axi_bvalid), .in_ready(h_axi_bready),
        .in_data({`RNIC_SIM_TOP.m_axi_bid, `RNIC_SIM_TOP.m_axi_bresp}),
        .out_valid(s_axib_bvalid), .out_ready(s_axib_bready), .out_data({s_axib_bid, s_axib_bresp}));
    rnic_sim_delay #(.W(AX_W), .LAT(DMA_LAT)) dma_ar_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(s_axib_arvalid), .in_ready(s_axib_arready),
        .in_data({s_axib_arid, s_axib_araddr, s_axib_arlen, s_axib_arsize, s_axib_arburst}),
        .out_valid(h_axi_arvalid), .out_ready(`RNIC_SIM_TOP.m_axi_arready),
        .out_data({h_axi_arid, h_axi_araddr, h_axi_arlen, h_axi_arsize, h_axi_arburst}));
    rnic_sim_delay #(.W(4 + DW + 2 + 1), .LAT(DMA_LAT)) dma_r_pipe (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .in_valid(`RNIC_SIM_TOP.m_axi_rvalid), .in_ready(h_axi_rready),
        .in_data({`RNIC_SIM_TOP.m_axi_rid, `RNIC_SIM_TOP.m_axi_rdata, `RNIC_SIM_TOP.m_axi_rresp,
                  `RNIC_SIM_TOP.m_axi_rlast}),
        .out_valid(s_axib_rvalid), .out_ready(s_axib_rready),
        .out_data({s_axib_rid, s_axib_rdata, s_axib_rresp, s_axib_rlast}));

    // no interrupts (the NIC's completions are polled), no serial lanes
    assign usr_irq_ack = 1'b0;
    assign msi_enable = 1'b0;
    assign msi_vector_width = 3'd0;
    assign interrupt_out = 1'b0;
    assign interrupt_out_msi_vec0to31 = 1'b0;
    assign interrupt_out_msi_vec32to63 = 1'b0;
    assign pci_exp_txp = '0;
    assign pci_exp_txn = '1;

    wire unused_ok = &{1'b0, raddr[1:0], sys_clk, sys_clk_gt, pci_exp_rxp, pci_exp_rxn, usr_irq_req,
                       s_axib_awregion, s_axib_arregion};

endmodule

`resetall
