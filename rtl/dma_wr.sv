`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Descriptor-driven DMA write engine (AXI4 master, write channels).
 *
 * A descriptor {addr, len} (len > 0) is followed on s_axis_write_data by
 * exactly len bytes, dense, tlast on the last beat. The engine cuts the
 * range into INCR bursts that end at the descriptor's end or at a boundary
 * of MAX_BURST_BEATS bus words (dma_burst_plan; never across 4 KiB; only the
 * first and last beat of a descriptor are partial), issues AW up
 * to MAX_OUTSTANDING bursts ahead of the write responses, shifts the data up
 * to the address's byte lane and sets WSTRB to exactly the descriptor's
 * bytes. One status per descriptor, in order, after all its B responses:
 * error if any BRESP was not OKAY.
 */
module dma_wr #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4,
    parameter logic [AXI_ID_WIDTH-1:0] AXI_ID = '0,
    parameter int MAX_BURST_BEATS = (4096 / KEEP_WIDTH < 256) ? 4096 / KEEP_WIDTH : 256,
    parameter int MAX_OUTSTANDING = 8
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [63:0]               s_axis_desc_addr,
    input  wire logic [31:0]               s_axis_desc_len,
    input  wire logic                      s_axis_desc_valid,
    output      logic                      s_axis_desc_ready,

    input  wire logic [DATA_WIDTH-1:0]     s_axis_write_data_tdata,
    input  wire logic [KEEP_WIDTH-1:0]     s_axis_write_data_tkeep,
    input  wire logic                      s_axis_write_data_tvalid,
    output      logic                      s_axis_write_data_tready,
    input  wire logic                      s_axis_write_data_tlast,

    output      logic                      m_axis_desc_status_error,
    output      logic                      m_axis_desc_status_valid,

    output      logic [AXI_ID_WIDTH-1:0]   m_axi_awid,
    output      logic [AXI_ADDR_WIDTH-1:0] m_axi_awaddr,
    output      logic [7:0]                m_axi_awlen,
    output      logic [2:0]                m_axi_awsize,
    output      logic [1:0]                m_axi_awburst,
    output      logic                      m_axi_awlock,
    output      logic [3:0]                m_axi_awcache,
    output      logic [2:0]                m_axi_awprot,
    output      logic                      m_axi_awvalid,
    input  wire logic                      m_axi_awready,
    output      logic [DATA_WIDTH-1:0]     m_axi_wdata,
    output      logic [KEEP_WIDTH-1:0]     m_axi_wstrb,
    output      logic                      m_axi_wlast,
    output      logic                      m_axi_wvalid,
    input  wire logic                      m_axi_wready,
    input  wire logic [AXI_ID_WIDTH-1:0]   m_axi_bid,
    input  wire logic [1:0]                m_axi_bresp,
    input  wire logic                      m_axi_bvalid,
    output      logic                      m_axi_bready
);

    localparam int OFF_W = $clog2(KEEP_WIDTH);
    localparam int Q_LOG2 = $clog2(MAX_OUTSTANDING) + 1;   // queue depths
    localparam int Q = 2 ** Q_LOG2;

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH
            || MAX_BURST_BEATS < 1 || MAX_BURST_BEATS > 256 || MAX_BURST_BEATS * KEEP_WIDTH > 4096) begin
            $error("dma_wr: unsupported DATA_WIDTH or MAX_BURST_BEATS (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // queues: W-side descriptors, W-side burst lengths, B-side burst counts
    // ------------------------------------------------------------------
    logic [OFF_W-1:0] wd_off_mem [Q];
    logic [31:0]      wd_len_mem [Q];
    logic [Q_LOG2:0]  wd_wr_reg, wd_rd_reg;
    logic [8:0]       wb_beats_mem [Q];
    logic [Q_LOG2:0]  wb_wr_reg, wb_rd_reg;
    logic [15:0]      bd_bursts_mem [Q];
    logic [Q_LOG2:0]  bd_wr_reg, bd_rd_reg;

    wire wd_empty = wd_wr_reg == wd_rd_reg;
    wire wb_full = (wb_wr_reg - wb_rd_reg) == (Q_LOG2+1)'(Q);
    wire wb_empty = wb_wr_reg == wb_rd_reg;
    wire bd_full = (bd_wr_reg - bd_rd_reg) == (Q_LOG2+1)'(Q);
    wire bd_empty = bd_wr_reg == bd_rd_reg;

    // ------------------------------------------------------------------
    // AW: bursts from the planner (dma_burst_plan), as fast as the slave
    // takes them; the W side learns each descriptor's offset and length as
    // it is taken, the B side its burst count with its last AW
    // ------------------------------------------------------------------
    logic [63:0]      pl_addr;
    logic [7:0]       pl_len;
    logic [OFF_W-1:0] pl_first_lane;
    logic [OFF_W:0]   pl_last_bytes;
    logic             pl_first, pl_end, pl_user, pl_valid, pl_ready, pl_s_ready;
    logic [15:0]      aw_bursts_reg;
    logic             wd_afull_reg;
    logic [$clog2(MAX_OUTSTANDING+1)-1:0] outstanding_reg;

    dma_burst_plan #(.KEEP_WIDTH(KEEP_WIDTH), .MAX_BURST_BEATS(MAX_BURST_BEATS), .USER_W(1)) plan_inst (
        .clk, .rst,
        .s_addr(s_axis_desc_addr), .s_len(s_axis_desc_len), .s_user(1'b0),
        .s_valid(s_axis_desc_valid && !wd_afull_reg), .s_ready(pl_s_ready),
        .m_addr(pl_addr), .m_len(pl_len), .m_first_lane(pl_first_lane), .m_last_bytes(pl_last_bytes),
        .m_first(pl_first), .m_end(pl_end), .m_user(pl_user), .m_valid(pl_valid), .m_ready(pl_ready)
    );

    // bd never fills: each of its entries has a burst outstanding (its last).
    // wd: "full" one entry early and registered (a compare of its pointers
    // in front of the planner's credits was 10 levels)
    always_ff @(posedge clk) wd_afull_reg <= (wd_wr_reg - wd_rd_reg) >= (Q_LOG2+1)'(Q - 1);
    assign s_axis_desc_ready = pl_s_ready && !wd_afull_reg;
    assign m_axi_awvalid = pl_valid && 32'(outstanding_reg) < MAX_OUTSTANDING && !wb_full;
    assign m_axi_awid = AXI_ID;
    assign m_axi_awaddr = pl_addr;
    assign m_axi_awlen = pl_len;
    assign m_axi_awsize = 3'(OFF_W);
    assign m_axi_awburst = 2'b01;
    assign m_axi_awlock = 1'b0;
    assign m_axi_awcache = 4'b0011;
    assign m_axi_awprot = 3'b010;

    wire aw_fire = m_axi_awvalid && m_axi_awready;
    assign pl_ready = aw_fire;
    wire b_fire = m_axi_bvalid && m_axi_bready;

    always_ff @(posedge clk) begin
        if (s_axis_desc_valid && s_axis_desc_ready) begin
            wd_off_mem[wd_wr_reg[Q_LOG2-1:0]] <= s_axis_desc_addr[OFF_W-1:0];
            wd_len_mem[wd_wr_reg[Q_LOG2-1:0]] <= s_axis_desc_len;
            wd_wr_reg <= wd_wr_reg + 1'b1;
        end
        if (aw_fire) begin
            aw_bursts_reg <= pl_end ? 16'd0 : aw_bursts_reg + 16'd1;
            wb_beats_mem[wb_wr_reg[Q_LOG2-1:0]] <= 9'(pl_len) + 9'd1;
            wb_wr_reg <= wb_wr_reg + 1'b1;
            if (pl_end) begin
                bd_bursts_mem[bd_wr_reg[Q_LOG2-1:0]] <= aw_bursts_reg + 16'd1;
                bd_wr_reg <= bd_wr_reg + 1'b1;
            end
        end
        case ({aw_fire, b_fire})
            2'b10: outstanding_reg <= outstanding_reg + 1'b1;
            2'b01: outstanding_reg <= outstanding_reg - 1'b1;
            default: ;
        endcase
        if (rst) begin
            aw_bursts_reg <= '0;
            outstanding_reg <= '0;
            wd_wr_reg <= '0;
            wb_wr_reg <= '0;
            bd_wr_reg <= '0;
        end
    end

    // ------------------------------------------------------------------
    // W: shift each descriptor's bytes up to its address lane
    // ------------------------------------------------------------------
    logic                  w_busy_reg;
    logic [OFF_W-1:0]      w_off_reg;
    logic [31:0]           w_len_reg;
    logic [31:0]           w_beat_reg;     // output beat of the descriptor
    logic [31:0]           w_in_beats_reg; // input beats of the descriptor
    logic [31:0]           w_out_beats_reg;
    logic [8:0]            w_burst_beat_reg;
    logic [DATA_WIDTH-1:0] prev_reg;

    wire need_in = w_beat_reg < w_in_beats_reg;
    wire [DATA_WIDTH-1:0] cur = need_in ? s_axis_write_data_tdata : '0;
    wire [8:0] burst_len = wb_beats_mem[wb_rd_reg[Q_LOG2-1:0]];

    always_comb begin
        if (w_off_reg == 0) m_axi_wdata = cur;
        else m_axi_wdata = (cur << (8 * 32'(w_off_reg))) | (prev_reg >> (DATA_WIDTH - 8 * 32'(w_off_reg)));
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            logic [31:0] pos;
            pos = w_beat_reg * KEEP_WIDTH + 32'(i);
            m_axi_wstrb[i] = pos >= 32'(w_off_reg) && pos < 32'(w_off_reg) + w_len_reg;
        end
    end
    assign m_axi_wlast = w_burst_beat_reg + 9'd1 == burst_len;
    assign m_axi_wvalid = w_busy_reg && !wb_empty && (!need_in || s_axis_write_data_tvalid);
    assign s_axis_write_data_tready = w_busy_reg && !wb_empty && need_in && m_axi_wready;

    wire w_fire = m_axi_wvalid && m_axi_wready;
    wire [31:0] next_len = wd_len_mem[wd_rd_reg[Q_LOG2-1:0]];
    wire [OFF_W-1:0] next_off = wd_off_mem[wd_rd_reg[Q_LOG2-1:0]];

    always_ff @(posedge clk) begin
        if (!w_busy_reg && !wd_empty) begin
            w_busy_reg <= 1'b1;
            w_off_reg <= next_off;
            w_len_reg <= next_len;
            w_beat_reg <= '0;
            w_in_beats_reg <= (next_len + 32'(KEEP_WIDTH - 1)) >> OFF_W;
            w_out_beats_reg <= (next_len + 32'(next_off) + 32'(KEEP_WIDTH - 1)) >> OFF_W;
            prev_reg <= '0;
            wd_rd_reg <= wd_rd_reg + 1'b1;
        end
        if (w_fire) begin
            if (need_in) prev_reg <= s_axis_write_data_tdata;
            w_beat_reg <= w_beat_reg + 32'd1;
            w_burst_beat_reg <= m_axi_wlast ? 9'd0 : w_burst_beat_reg + 9'd1;
            if (m_axi_wlast) wb_rd_reg <= wb_rd_reg + 1'b1;
            if (w_beat_reg + 32'd1 == w_out_beats_reg) w_busy_reg <= 1'b0;
        end
        if (rst) begin
            w_busy_reg <= 1'b0;
            w_burst_beat_reg <= '0;
            wd_rd_reg <= '0;
            wb_rd_reg <= '0;
        end
    end

    // ------------------------------------------------------------------
    // B: count the responses of the oldest descriptor
    // ------------------------------------------------------------------
    logic [15:0] b_count_reg;
    logic        b_err_reg;
    wire [15:0]  b_need = bd_bursts_mem[bd_rd_reg[Q_LOG2-1:0]];
    wire         b_err = b_err_reg || m_axi_bresp != 2'b00;

    assign m_axi_bready = 1'b1;

    always_ff @(posedge clk) begin
        m_axis_desc_status_valid <= 1'b0;
        if (b_fire) begin
            // the count of a descriptor is queued with its last AW, before its last B
            if (!bd_empty && b_count_reg + 16'd1 == b_need) begin
                m_axis_desc_status_valid <= 1'b1;
                m_axis_desc_status_error <= b_err;
                b_count_reg <= '0;
                b_err_reg <= 1'b0;
                bd_rd_reg <= bd_rd_reg + 1'b1;
            end else begin
                b_count_reg <= b_count_reg + 16'd1;
                b_err_reg <= b_err;
            end
        end
        if (rst) begin
            m_axis_desc_status_valid <= 1'b0;
            b_count_reg <= '0;
            b_err_reg <= 1'b0;
            bd_rd_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // AXI4 A3.4.1: a burst stays inside one 4 KiB page
    always_ff @(posedge clk) begin
        if (!rst && m_axi_awvalid)
            assert (32'(m_axi_awaddr[11:0]) + ((32'(m_axi_awlen) + 1) << OFF_W) <= 32'd4096);
    end
    always_ff @(posedge clk) begin
        if (!rst) begin
            // a write response belongs to a descriptor whose bursts were issued
            if (b_fire) assert (!bd_empty || pl_valid);
            // bd never fills (each entry has its last burst outstanding)
            if (aw_fire && pl_end) assert (!bd_full);
            // a descriptor moves at least one byte
            if (s_axis_desc_valid) assert (s_axis_desc_len != 32'd0);
            // the data stream ends exactly where the descriptor does
            if (s_axis_write_data_tvalid && s_axis_write_data_tready)
                assert (s_axis_write_data_tlast == (w_beat_reg + 32'd1 == w_in_beats_reg));
        end
    end
`endif
`endif

    wire unused_ok = ^{s_axis_write_data_tkeep, s_axis_write_data_tlast, m_axi_bid, pl_first, pl_first_lane,
                      pl_last_bytes, pl_user};

endmodule

`resetall
