`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Test-only stand-in for rnic_core with the same ports, used to check the
 * simulator harness (tests/sim/test_world.c) independently of the real core.
 *
 * BAR0 registers (32-bit):
 *   0x00 ID        ro  0x54455354
 *   0x04 SCRATCH   rw
 *   0x08 TX_ADDR   rw  low word; 0x0c high word
 *   0x10 TX_LEN    wo  bytes (a multiple of KEEP_WIDTH, one burst within 4 KiB):
 *                      DMA-read TX_ADDR..+TX_LEN in one burst and send it as
 *                      one frame (tuser on the last beat if any RRESP erred)
 *   0x14 RX_ADDR   rw  low word; 0x18 high word: each received frame is
 *                      DMA-written there, beat by beat, under TKEEP
 *   0x1c TX_COUNT  ro  frames sent
 *   0x20 RX_COUNT  ro  frames received and written (all B responses in)
 *   0x24 RX_LEN    ro  bytes of the last received frame
 *   0x28 DMA_ERR   ro  RRESP/BRESP errors
 *   0x2c BUSY      ro  bit 0 TX busy, bit 1 RX busy
 *   0x30 PAUSE     rw  bit 0 drives mac_pause_req
 */
/* verilator lint_off UNUSEDPARAM */ // the table widths exist only for the port-compatible header
module rnic_core #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4,
    parameter int AXIL_ADDR_WIDTH = 16,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int CQN_WIDTH = 10
) (
    /* verilator lint_on UNUSEDPARAM */
    input  wire logic                       clk,
    input  wire logic                       rst,
    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire logic [2:0]                 s_axil_awprot,
    input  wire logic                       s_axil_awvalid,
    output      logic                       s_axil_awready,
    input  wire logic [31:0]                s_axil_wdata,
    input  wire logic [3:0]                 s_axil_wstrb,
    input  wire logic                       s_axil_wvalid,
    output      logic                       s_axil_wready,
    output      logic [1:0]                 s_axil_bresp,
    output      logic                       s_axil_bvalid,
    input  wire logic                       s_axil_bready,
    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire logic [2:0]                 s_axil_arprot,
    input  wire logic                       s_axil_arvalid,
    output      logic                       s_axil_arready,
    output      logic [31:0]                s_axil_rdata,
    output      logic [1:0]                 s_axil_rresp,
    output      logic                       s_axil_rvalid,
    input  wire logic                       s_axil_rready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_awid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_awaddr,
    output      logic [7:0]                 m_axi_awlen,
    output      logic [2:0]                 m_axi_awsize,
    output      logic [1:0]                 m_axi_awburst,
    output      logic                       m_axi_awlock,
    output      logic [3:0]                 m_axi_awcache,
    output      logic [2:0]                 m_axi_awprot,
    output      logic                       m_axi_awvalid,
    input  wire logic                       m_axi_awready,
    output      logic [DATA_WIDTH-1:0]      m_axi_wdata,
    output      logic [KEEP_WIDTH-1:0]      m_axi_wstrb,
    output      logic                       m_axi_wlast,
    output      logic                       m_axi_wvalid,
    input  wire logic                       m_axi_wready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_bid,
    input  wire logic [1:0]                 m_axi_bresp,
    input  wire logic                       m_axi_bvalid,
    output      logic                       m_axi_bready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_arid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_araddr,
    output      logic [7:0]                 m_axi_arlen,
    output      logic [2:0]                 m_axi_arsize,
    output      logic [1:0]                 m_axi_arburst,
    output      logic                       m_axi_arlock,
    output      logic [3:0]                 m_axi_arcache,
    output      logic [2:0]                 m_axi_arprot,
    output      logic                       m_axi_arvalid,
    input  wire logic                       m_axi_arready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_rid,
    input  wire logic [DATA_WIDTH-1:0]      m_axi_rdata,
    input  wire logic [1:0]                 m_axi_rresp,
    input  wire logic                       m_axi_rlast,
    input  wire logic                       m_axi_rvalid,
    output      logic                       m_axi_rready,
    output      logic [DATA_WIDTH-1:0]      m_axis_tx_tdata,
    output      logic [KEEP_WIDTH-1:0]      m_axis_tx_tkeep,
    output      logic                       m_axis_tx_tvalid,
    input  wire logic                       m_axis_tx_tready,
    output      logic                       m_axis_tx_tlast,
    output      logic                       m_axis_tx_tuser,
    input  wire logic [DATA_WIDTH-1:0]      s_axis_rx_tdata,
    input  wire logic [KEEP_WIDTH-1:0]      s_axis_rx_tkeep,
    input  wire logic                       s_axis_rx_tvalid,
    output      logic                       s_axis_rx_tready,
    input  wire logic                       s_axis_rx_tlast,
    input  wire logic                       s_axis_rx_tuser,
    output      logic                       mac_pause_req
);

    localparam int SIZE = $clog2(KEEP_WIDTH);

    // registers
    logic [31:0] scratch_q;
    logic        pause_q;
    assign mac_pause_req = pause_q;
    logic [63:0] tx_addr_q, rx_addr_q;
    logic [31:0] tx_count_q, rx_count_q, rx_len_q, dma_err_q;

    // ------------------------------------------------------------ BAR0
    logic        bvalid_q, rvalid_q;
    logic [31:0] rdata_q;
    logic        tx_start;
    logic [12:0] tx_len;

    wire wr_fire = s_axil_awvalid && s_axil_wvalid && !bvalid_q;
    wire rd_fire = s_axil_arvalid && !rvalid_q;
    wire [7:0] wa = s_axil_awaddr[7:0];
    wire [7:0] ra = s_axil_araddr[7:0];

    assign s_axil_awready = wr_fire;
    assign s_axil_wready  = wr_fire;
    assign s_axil_bvalid  = bvalid_q;
    assign s_axil_bresp   = 2'b00;
    assign s_axil_arready = rd_fire;
    assign s_axil_rvalid  = rvalid_q;
    assign s_axil_rdata   = rdata_q;
    assign s_axil_rresp   = 2'b00;

    assign tx_start = wr_fire && wa == 8'h10;
    assign tx_len   = s_axil_wdata[12:0];

    // ------------------------------------------------------------ TX: read and send
    typedef enum logic [1:0] {
        TX_IDLE,  // waiting for a TX_LEN write
        TX_AR,    // offering the read burst
        TX_DATA   // passing R beats to the MAC
    } tx_state_t;
    tx_state_t   tx_state_q;
    logic [7:0]  tx_arlen_q;
    logic        tx_err_q;

    assign m_axi_arid    = '0;
    assign m_axi_araddr  = tx_addr_q;
    assign m_axi_arlen   = tx_arlen_q;
    assign m_axi_arsize  = 3'(SIZE);
    assign m_axi_arburst = 2'b01;
    assign m_axi_arlock  = 1'b0;
    assign m_axi_arcache = 4'b0011;
    assign m_axi_arprot  = 3'b000;
    assign m_axi_arvalid = tx_state_q == TX_AR;

    assign m_axis_tx_tdata  = m_axi_rdata;
    assign m_axis_tx_tkeep  = '1;
    assign m_axis_tx_tvalid = tx_state_q == TX_DATA && m_axi_rvalid;
    assign m_axis_tx_tlast  = m_axi_rlast;
    assign m_axis_tx_tuser  = tx_err_q || m_axi_rresp != 2'b00;
    assign m_axi_rready     = tx_state_q == TX_DATA && m_axis_tx_tready;

    // ------------------------------------------------------------ RX: receive and write
    typedef enum logic [1:0] {
        RX_IDLE,  // taking one beat from the MAC
        RX_WR,    // offering AW and W of a one-beat burst
        RX_B      // waiting for its response
    } rx_state_t;
    rx_state_t             rx_state_q;
    logic [DATA_WIDTH-1:0] rx_data_q;
    logic [KEEP_WIDTH-1:0] rx_keep_q;
    logic                  rx_last_q, aw_done_q, w_done_q;
    logic [31:0]           rx_off_q;

    assign s_axis_rx_tready = rx_state_q == RX_IDLE;

    assign m_axi_awid    = '0;
    assign m_axi_awaddr  = rx_addr_q + 64'(rx_off_q);
    assign m_axi_awlen   = 8'd0;
    assign m_axi_awsize  = 3'(SIZE);
    assign m_axi_awburst = 2'b01;
    assign m_axi_awlock  = 1'b0;
    assign m_axi_awcache = 4'b0011;
    assign m_axi_awprot  = 3'b000;
    assign m_axi_awvalid = rx_state_q == RX_WR && !aw_done_q;
    assign m_axi_wdata   = rx_data_q;
    assign m_axi_wstrb   = rx_keep_q;
    assign m_axi_wlast   = 1'b1;
    assign m_axi_wvalid  = rx_state_q == RX_WR && !w_done_q;
    assign m_axi_bready  = rx_state_q == RX_B;

    function automatic logic [31:0] popcount(input logic [KEEP_WIDTH-1:0] k);
        logic [31:0] n = 0;
        for (int i = 0; i < KEEP_WIDTH; i++) n = n + 32'(k[i]);
        return n;
    endfunction

    always_ff @(posedge clk) begin
        // BAR0
        if (bvalid_q && s_axil_bready) bvalid_q <= 1'b0;
        if (rvalid_q && s_axil_rready) rvalid_q <= 1'b0;
        if (wr_fire) begin
            bvalid_q <= 1'b1;
            case (wa)
                8'h04: scratch_q <= s_axil_wdata;
                8'h08: tx_addr_q[31:0] <= s_axil_wdata;
                8'h0c: tx_addr_q[63:32] <= s_axil_wdata;
                8'h14: rx_addr_q[31:0] <= s_axil_wdata;
                8'h18: rx_addr_q[63:32] <= s_axil_wdata;
                8'h30: pause_q <= s_axil_wdata[0];
                default: ;
            endcase
        end
        if (rd_fire) begin
            rvalid_q <= 1'b1;
            case (ra)
                8'h00: rdata_q <= 32'h54455354;
                8'h04: rdata_q <= scratch_q;
                8'h08: rdata_q <= tx_addr_q[31:0];
                8'h0c: rdata_q <= tx_addr_q[63:32];
                8'h14: rdata_q <= rx_addr_q[31:0];
                8'h18: rdata_q <= rx_addr_q[63:32];
                8'h1c: rdata_q <= tx_count_q;
                8'h20: rdata_q <= rx_count_q;
                8'h24: rdata_q <= rx_len_q;
                8'h28: rdata_q <= dma_err_q;
                8'h2c: rdata_q <= {30'd0, rx_state_q != RX_IDLE || rx_off_q != 0,
                                   tx_state_q != TX_IDLE};
                8'h30: rdata_q <= {31'd0, pause_q};
                default: rdata_q <= 32'hdeadbeef;
            endcase
        end

        // TX
        case (tx_state_q)
            TX_IDLE: if (tx_start) begin
                assert (tx_len[SIZE-1:0] == '0 && tx_len != '0)
                    else $error("rnic_core (test): TX_LEN %0d is not a non-zero multiple of %0d", tx_len, KEEP_WIDTH);
                tx_arlen_q <= 8'((tx_len >> SIZE) - 13'd1);
                tx_err_q <= 1'b0;
                tx_state_q <= TX_AR;
            end
            TX_AR: if (m_axi_arready) tx_state_q <= TX_DATA;
            TX_DATA: if (m_axi_rvalid && m_axi_rready) begin
                if (m_axi_rresp != 2'b00) begin
                    tx_err_q <= 1'b1;
                    dma_err_q <= dma_err_q + 1;
                end
                if (m_axi_rlast) begin
                    tx_count_q <= tx_count_q + 1;
                    tx_state_q <= TX_IDLE;
                end
            end
            default: tx_state_q <= TX_IDLE;
        endcase

        // RX
        case (rx_state_q)
            RX_IDLE: if (s_axis_rx_tvalid) begin
                rx_data_q <= s_axis_rx_tdata;
                rx_keep_q <= s_axis_rx_tkeep;
                rx_last_q <= s_axis_rx_tlast;
                aw_done_q <= 1'b0;
                w_done_q <= 1'b0;
                rx_state_q <= RX_WR;
            end
            RX_WR: begin
                if (m_axi_awvalid && m_axi_awready) aw_done_q <= 1'b1;
                if (m_axi_wvalid && m_axi_wready) w_done_q <= 1'b1;
                if ((aw_done_q || m_axi_awready) && (w_done_q || m_axi_wready))
                    rx_state_q <= RX_B;
            end
            RX_B: if (m_axi_bvalid) begin
                if (m_axi_bresp != 2'b00) dma_err_q <= dma_err_q + 1;
                if (rx_last_q) begin
                    rx_count_q <= rx_count_q + 1;
                    rx_len_q <= rx_off_q + popcount(rx_keep_q);
                    rx_off_q <= 0;
                end else begin
                    rx_off_q <= rx_off_q + KEEP_WIDTH;
                end
                rx_state_q <= RX_IDLE;
            end
            default: rx_state_q <= RX_IDLE;
        endcase

        if (rst) begin
            bvalid_q <= 1'b0;
            rvalid_q <= 1'b0;
            scratch_q <= '0;
            pause_q <= 1'b0;
            tx_addr_q <= '0;
            rx_addr_q <= '0;
            tx_count_q <= '0;
            rx_count_q <= '0;
            rx_len_q <= '0;
            dma_err_q <= '0;
            tx_state_q <= TX_IDLE;
            rx_state_q <= RX_IDLE;
            rx_off_q <= '0;
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = ^{s_axil_awprot, s_axil_arprot, s_axil_wstrb, s_axil_awaddr, s_axil_araddr,
                       m_axi_bid, m_axi_rid, s_axis_rx_tuser, tx_len};
    /* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
