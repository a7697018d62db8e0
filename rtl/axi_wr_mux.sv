`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4 write-channel multiplexer: PORTS write masters share one AXI4 master.
 *
 * AW requests are granted round robin through a register stage; the W channel
 * follows the order of the granted AWs (a FIFO of granted ports lets AW run
 * ahead of W by several bursts); B responses go back to the port that issued
 * their AWID. The clients must use distinct AWIDs. Port p's signals sit at
 * [p*W +: W] of the flattened s_axi_* vectors.
 */
module axi_wr_mux #(
    parameter int PORTS = 2,
    parameter int DATA_WIDTH = 64,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4
) (
    input  wire logic                               clk,
    input  wire logic                               rst,

    input  wire logic [PORTS*AXI_ID_WIDTH-1:0]      s_axi_awid,
    input  wire logic [PORTS*AXI_ADDR_WIDTH-1:0]    s_axi_awaddr,
    input  wire logic [PORTS*8-1:0]                 s_axi_awlen,
    input  wire logic [PORTS*3-1:0]                 s_axi_awsize,
    input  wire logic [PORTS*2-1:0]                 s_axi_awburst,
    input  wire logic [PORTS-1:0]                   s_axi_awlock,
    input  wire logic [PORTS*4-1:0]                 s_axi_awcache,
    input  wire logic [PORTS*3-1:0]                 s_axi_awprot,
    input  wire logic [PORTS-1:0]                   s_axi_awvalid,
    output      logic [PORTS-1:0]                   s_axi_awready,
    input  wire logic [PORTS*DATA_WIDTH-1:0]        s_axi_wdata,
    input  wire logic [PORTS*DATA_WIDTH/8-1:0]      s_axi_wstrb,
    input  wire logic [PORTS-1:0]                   s_axi_wlast,
    input  wire logic [PORTS-1:0]                   s_axi_wvalid,
    output      logic [PORTS-1:0]                   s_axi_wready,
    output      logic [PORTS*AXI_ID_WIDTH-1:0]      s_axi_bid,
    output      logic [PORTS*2-1:0]                 s_axi_bresp,
    output      logic [PORTS-1:0]                   s_axi_bvalid,
    input  wire logic [PORTS-1:0]                   s_axi_bready,

    output      logic [AXI_ID_WIDTH-1:0]            m_axi_awid,
    output      logic [AXI_ADDR_WIDTH-1:0]          m_axi_awaddr,
    output      logic [7:0]                         m_axi_awlen,
    output      logic [2:0]                         m_axi_awsize,
    output      logic [1:0]                         m_axi_awburst,
    output      logic                               m_axi_awlock,
    output      logic [3:0]                         m_axi_awcache,
    output      logic [2:0]                         m_axi_awprot,
    output      logic                               m_axi_awvalid,
    input  wire logic                               m_axi_awready,
    output      logic [DATA_WIDTH-1:0]              m_axi_wdata,
    output      logic [DATA_WIDTH/8-1:0]            m_axi_wstrb,
    output      logic                               m_axi_wlast,
    output      logic                               m_axi_wvalid,
    input  wire logic                               m_axi_wready,
    input  wire logic [AXI_ID_WIDTH-1:0]            m_axi_bid,
    input  wire logic [1:0]                         m_axi_bresp,
    input  wire logic                               m_axi_bvalid,
    output      logic                               m_axi_bready
);

    localparam int PW = (PORTS > 1) ? $clog2(PORTS) : 1;
    localparam int IDS = 2 ** AXI_ID_WIDTH;
    localparam int KEEP_WIDTH = DATA_WIDTH / 8;
    localparam int ORDER_LOG2 = 3;   // AW bursts W may lag behind

    initial begin
        if (PORTS < 1 || PORTS > IDS) begin
            $error("axi_wr_mux: PORTS must be 1..2^AXI_ID_WIDTH (%m)");
            $finish;
        end
    end

    // the port that last issued each ID
    logic [PW-1:0] port_of_id [IDS];
    logic          ar_valid_reg;
    // granted ports in AW order, for the W channel
    logic [PW-1:0]       order_mem [2**ORDER_LOG2];
    logic [ORDER_LOG2:0] ow_reg, or_reg;
    wire order_full = rnic_gates_pkg::ring_full(32'(ow_reg), 32'(or_reg), ORDER_LOG2);

    // round robin among the requesting ports
    logic [PORTS-1:0] grant_oh;
    logic [PW-1:0]    grant;
    logic             grant_any, take;
    rnic_rr_arb #(.PORTS(PORTS), .PW(PW)) arb_inst (
        .clk, .rst, .req(s_axi_awvalid), .take, .any(grant_any), .grant_oh, .grant
    );

    assign take = grant_any && (!ar_valid_reg || m_axi_awready) && !order_full;
    assign s_axi_awready = take ? grant_oh : '0;
    assign m_axi_awvalid = ar_valid_reg;

    always_ff @(posedge clk) begin
        if (m_axi_awvalid && m_axi_awready) ar_valid_reg <= 1'b0;
        if (take) begin
            ar_valid_reg <= 1'b1;
            m_axi_awid <= s_axi_awid[32'(grant) * AXI_ID_WIDTH +: AXI_ID_WIDTH];
            m_axi_awaddr <= s_axi_awaddr[32'(grant) * AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH];
            m_axi_awlen <= s_axi_awlen[32'(grant) * 8 +: 8];
            m_axi_awsize <= s_axi_awsize[32'(grant) * 3 +: 3];
            m_axi_awburst <= s_axi_awburst[32'(grant) * 2 +: 2];
            m_axi_awlock <= s_axi_awlock[grant];
            m_axi_awcache <= s_axi_awcache[32'(grant) * 4 +: 4];
            m_axi_awprot <= s_axi_awprot[32'(grant) * 3 +: 3];
            port_of_id[s_axi_awid[32'(grant) * AXI_ID_WIDTH +: AXI_ID_WIDTH]] <= grant;
            order_mem[ow_reg[ORDER_LOG2-1:0]] <= grant;
            ow_reg <= ow_reg + 1'b1;
        end
        if (m_axi_wvalid && m_axi_wready && m_axi_wlast) or_reg <= or_reg + 1'b1;
        if (rst) begin
            ar_valid_reg <= 1'b0;
            ow_reg <= '0;
            or_reg <= '0;
        end
    end

    // W from the port whose AW is oldest: the head of the order queue, kept
    // as a one-hot register (zero while no W is owed). Each port's wready is
    // then one gate from flip-flops; read out of the queue at or_reg (with
    // the empty compare) it ran on into every writer's 512-bit load enables.
    // On a burst's last beat the head moves to the queue's next entry, or
    // to the port granted in the same cycle when that was the last one.
    logic [PORTS-1:0]    w_oh_reg;
    wire                 w_pop = m_axi_wvalid && m_axi_wready && m_axi_wlast;
    wire [ORDER_LOG2:0]  or_nx = or_reg + 1'b1;
    wire [PW-1:0]        w_next = order_mem[or_nx[ORDER_LOG2-1:0]];
    always_ff @(posedge clk) begin
        if (w_pop)
            w_oh_reg <= (or_nx != ow_reg) ? PORTS'(1) << w_next : take ? grant_oh : '0;
        else if (w_oh_reg == '0 && take)
            w_oh_reg <= grant_oh;
        if (rst) w_oh_reg <= '0;
    end
    always_comb begin
        m_axi_wdata = '0;
        m_axi_wstrb = '0;
        for (int p = 0; p < PORTS; p++) begin
            if (w_oh_reg[p]) begin
                m_axi_wdata = m_axi_wdata | s_axi_wdata[p * DATA_WIDTH +: DATA_WIDTH];
                m_axi_wstrb = m_axi_wstrb | s_axi_wstrb[p * KEEP_WIDTH +: KEEP_WIDTH];
            end
        end
        m_axi_wlast = |(w_oh_reg & s_axi_wlast);
        m_axi_wvalid = |(w_oh_reg & s_axi_wvalid);
        s_axi_wready = m_axi_wready ? w_oh_reg : '0;
    end
`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the register is the queue's head
    wire order_empty = ow_reg == or_reg;
    always_ff @(posedge clk)
        if (!rst) assert (w_oh_reg == (order_empty ? '0 : PORTS'(1) << order_mem[or_reg[ORDER_LOG2-1:0]]));
`endif
`endif

    // B back to the port that owns the ID
    wire [PW-1:0] b_port = port_of_id[m_axi_bid];
    always_comb begin
        for (int p = 0; p < PORTS; p++) begin
            s_axi_bid[p * AXI_ID_WIDTH +: AXI_ID_WIDTH] = m_axi_bid;
            s_axi_bresp[p * 2 +: 2] = m_axi_bresp;
            s_axi_bvalid[p] = m_axi_bvalid && b_port == PW'(p);
        end
        m_axi_bready = s_axi_bready[b_port];
    end

endmodule

`resetall
