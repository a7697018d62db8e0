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
    // the bursts issued and not yet answered, in AW order: the W side reads
    // them at its pointer, the B side at its own. At most MAX_OUTSTANDING
    // are in the queue (AW waits for that), so it never fills.
    // ------------------------------------------------------------------
    localparam int WB_W = 8 + 1 + OFF_W + 1 + OFF_W + 1;
    logic [WB_W-1:0]  wb_mem [Q];        // {AxLEN, first, first lane, end, last beat's bytes}
    logic             be_mem [Q];        // the descriptor's last burst
    logic [Q_LOG2:0]  wb_wr_reg, w_rd_reg, b_rd_reg;

    // ------------------------------------------------------------------
    // AW: bursts from the planner (dma_burst_plan), as fast as the slave
    // takes them
    // ------------------------------------------------------------------
    logic [63:0]      pl_addr;
    logic [7:0]       pl_len;
    logic [OFF_W-1:0] pl_first_lane;
    logic [OFF_W:0]   pl_last_bytes;
    logic             pl_first, pl_end, pl_user, pl_valid, pl_ready;
    logic [$clog2(MAX_OUTSTANDING+1)-1:0] outstanding_reg;

    dma_burst_plan #(.KEEP_WIDTH(KEEP_WIDTH), .MAX_BURST_BEATS(MAX_BURST_BEATS), .USER_W(1)) plan_inst (
        .clk, .rst,
        .s_addr(s_axis_desc_addr), .s_len(s_axis_desc_len), .s_user(1'b0),
        .s_valid(s_axis_desc_valid), .s_ready(s_axis_desc_ready),
        .m_addr(pl_addr), .m_len(pl_len), .m_first_lane(pl_first_lane), .m_last_bytes(pl_last_bytes),
        .m_first(pl_first), .m_end(pl_end), .m_user(pl_user), .m_valid(pl_valid), .m_ready(pl_ready)
    );

    assign m_axi_awvalid = pl_valid && 32'(outstanding_reg) < MAX_OUTSTANDING;
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
        if (aw_fire) begin
            wb_mem[wb_wr_reg[Q_LOG2-1:0]] <= {pl_len, pl_first, pl_first_lane, pl_end, pl_last_bytes};
            be_mem[wb_wr_reg[Q_LOG2-1:0]] <= pl_end;
            wb_wr_reg <= wb_wr_reg + 1'b1;
        end
        case ({aw_fire, b_fire})
            2'b10: outstanding_reg <= outstanding_reg + 1'b1;
            2'b01: outstanding_reg <= outstanding_reg - 1'b1;
            default: ;
        endcase
        if (rst) begin
            outstanding_reg <= '0;
            wb_wr_reg <= '0;
        end
    end

    // ------------------------------------------------------------------
    // W: one burst at a time, its fields in registers (loaded from the
    // queue as the burst before it ends). The data of a descriptor are
    // shifted up to its first lane; the strobes are the first beat's mask
    // (lanes from the first lane up) and the last beat's (lanes below the
    // last beat's byte count), both made when the burst is loaded. A
    // descriptor takes one output beat more than input beats when its last
    // input beat spills over the bus word (last beat's bytes <= first lane).
    // ------------------------------------------------------------------
    logic                  cb_valid_reg;     // a burst is loaded
    logic [7:0]            cb_left_reg;      // beats after the current one
    logic                  cb_wlast_reg;     // the current beat is the burst's last
    logic                  cb_end_reg;       // the burst ends its descriptor
    logic                  cb_firstbeat_reg; // the current beat is the descriptor's first
    logic                  cb_extra_reg;     // the descriptor's last output beat takes no input
    logic [KEEP_WIDTH-1:0] cb_first_mask_reg, cb_last_mask_reg;
    logic [OFF_W-1:0]      w_off_reg;        // the descriptor's first lane
    logic [DATA_WIDTH-1:0] prev_reg;

    wire [WB_W-1:0]   wb_head = wb_mem[w_rd_reg[Q_LOG2-1:0]];
    wire [7:0]        h_len = wb_head[WB_W-1 -: 8];
    wire              h_first = wb_head[2 * OFF_W + 2];
    wire [OFF_W-1:0]  h_lane = wb_head[OFF_W + 2 +: OFF_W];
    wire              h_end = wb_head[OFF_W + 1];
    wire [OFF_W:0]    h_lbytes = wb_head[0 +: OFF_W + 1];
    wire              wb_avail = wb_wr_reg != w_rd_reg;
    wire [OFF_W-1:0]  h_off = h_first ? h_lane : w_off_reg;

    wire desc_last_beat = cb_end_reg && cb_wlast_reg;
    wire need_in = !(desc_last_beat && cb_extra_reg);
    wire [DATA_WIDTH-1:0] cur = need_in ? s_axis_write_data_tdata : '0;

    // the beat made here goes into an output register (the lane shift is a
    // wide multiplexer: registered, it does not add to the W channel's
    // paths beyond this engine)
    logic [DATA_WIDTH-1:0] w_data;
    logic [KEEP_WIDTH-1:0] w_strb;
    always_comb begin
        if (w_off_reg == 0) w_data = cur;
        else w_data = (cur << (8 * 32'(w_off_reg))) | (prev_reg >> (DATA_WIDTH - 8 * 32'(w_off_reg)));
        w_strb = (cb_firstbeat_reg ? cb_first_mask_reg : '1) & (desc_last_beat ? cb_last_mask_reg : '1);
    end
    logic o_valid_reg;
    wire  w_ready = !o_valid_reg || m_axi_wready;
    wire  w_valid = cb_valid_reg && (!need_in || s_axis_write_data_tvalid);
    assign s_axis_write_data_tready = cb_valid_reg && need_in && w_ready;
    assign m_axi_wvalid = o_valid_reg;

    always_ff @(posedge clk) begin
        if (w_ready) begin
            o_valid_reg <= w_valid;
            m_axi_wdata <= w_data;
            m_axi_wstrb <= w_strb;
            m_axi_wlast <= cb_wlast_reg;
        end
        if (rst) o_valid_reg <= 1'b0;
    end

    wire w_fire = w_valid && w_ready;
    wire load = wb_avail && (!cb_valid_reg || (w_fire && cb_wlast_reg));

    always_ff @(posedge clk) begin
        if (w_fire) begin
            if (need_in) prev_reg <= s_axis_write_data_tdata;
            cb_firstbeat_reg <= 1'b0;
            cb_left_reg <= cb_left_reg - 8'd1;
            cb_wlast_reg <= cb_left_reg == 8'd1;
            if (cb_wlast_reg) cb_valid_reg <= 1'b0;
        end
        if (load) begin
            cb_valid_reg <= 1'b1;
            cb_left_reg <= h_len;
            cb_wlast_reg <= h_len == 8'd0;
            cb_end_reg <= h_end;
            cb_firstbeat_reg <= h_first;
            cb_extra_reg <= h_lbytes <= (OFF_W+1)'(h_off);
            for (int i = 0; i < KEEP_WIDTH; i++) begin
                cb_first_mask_reg[i] <= OFF_W'(i) >= h_lane;
                cb_last_mask_reg[i] <= (OFF_W+1)'(i) < h_lbytes;
            end
            if (h_first) begin
                w_off_reg <= h_lane;
                prev_reg <= '0;
            end
            w_rd_reg <= w_rd_reg + 1'b1;
        end
        if (rst) begin
            cb_valid_reg <= 1'b0;
            w_rd_reg <= '0;
        end
    end

    // ------------------------------------------------------------------
    // B: one response per burst, in order; the status with the
    // descriptor's last
    // ------------------------------------------------------------------
    logic b_err_reg;
    wire  b_err = b_err_reg || m_axi_bresp != 2'b00;
    wire  b_end = be_mem[b_rd_reg[Q_LOG2-1:0]];

    assign m_axi_bready = 1'b1;

    always_ff @(posedge clk) begin
        m_axis_desc_status_valid <= 1'b0;
        if (b_fire) begin
            b_rd_reg <= b_rd_reg + 1'b1;
            if (b_end) begin
                m_axis_desc_status_valid <= 1'b1;
                m_axis_desc_status_error <= b_err;
                b_err_reg <= 1'b0;
            end else begin
                b_err_reg <= b_err;
            end
        end
        if (rst) begin
            m_axis_desc_status_valid <= 1'b0;
            b_err_reg <= 1'b0;
            b_rd_reg <= '0;
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
            // a write response answers a burst that was issued and written
            if (b_fire) assert (b_rd_reg != w_rd_reg);
            // the queue holds at most the bursts outstanding
            assert ((wb_wr_reg - b_rd_reg) <= (Q_LOG2+1)'(MAX_OUTSTANDING));
            // a descriptor moves at least one byte
            if (s_axis_desc_valid) assert (s_axis_desc_len != 32'd0);
            // the data stream ends exactly where the descriptor does
            if (s_axis_write_data_tvalid && s_axis_write_data_tready && desc_last_beat)
                assert (s_axis_write_data_tlast);
        end
    end
`endif
`endif

    wire unused_ok = ^{s_axis_write_data_tkeep, s_axis_write_data_tlast, m_axi_bid, pl_user};

endmodule

`resetall
