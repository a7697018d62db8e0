`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Descriptor-driven DMA read engine (AXI4 master, read channels).
 *
 * A descriptor {addr, len, last} asks for len bytes. The engine cuts the
 * range into INCR bursts that end at the descriptor's end or at a boundary
 * of MAX_BURST_BEATS bus words (dma_burst_plan; never across 4 KiB), keeps
 * up to MAX_OUTSTANDING bursts in flight, masks the
 * bytes of each returning beat that lie outside the descriptor, and packs
 * the result (axis_packer): consecutive descriptors come out as one dense
 * stream, with tlast after the final byte of a descriptor marked last. R data
 * of one ARID arrive in order. One status per last-marked descriptor: error
 * if any RRESP of it or of the descriptors packed before it was not OKAY.
 * An ALIGNED engine also marks each beat whose RRESP was not OKAY
 * (m_axis_read_data_tuser), so a consumer may use the beats of a long read
 * before its status comes (a packed beat may join two bursts: there it is 0).
 *
 * BUF_BYTES > 0: R data go into a FIFO of that many bytes before the packer,
 * and a burst is asked for only when the FIFO has room for all of it and
 * every burst already outstanding, so RREADY never waits for the consumer.
 * An engine whose consumer may wait on another engine's data (the transmit
 * path takes payloads in header order) must have it: on a shared R channel
 * that returns bursts in AR order, a burst nobody drains would otherwise
 * block the one the consumer is waiting for. BUF_BYTES = 0: RREADY follows
 * the consumer.
 *
 * MAX_INFLIGHT_BYTES > 0 caps the bytes asked for whose R beats have not
 * arrived. On a shared R channel that returns bursts in AR order, every
 * byte in flight is a byte another engine's read waits behind: a small
 * read of the receive path (a receive WQE, an ATOMIC's 8 bytes) behind
 * 16 KiB of payload at 8 bytes a beat waits 2048 cycles. A cap in bytes,
 * not in bursts, keeps many small reads in flight: the latency of small
 * messages is covered by the burst count, that of large ones by the bytes.
 */
module dma_rd #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4,
    parameter logic [AXI_ID_WIDTH-1:0] AXI_ID = '0,
    parameter int MAX_OUTSTANDING = 8,
    parameter int BUF_BYTES = 0,
    parameter int MAX_INFLIGHT_BYTES = 0,  // 0: no cap but MAX_OUTSTANDING and the buffer
    // 1: every descriptor is whole beats (its address and length multiples
    // of KEEP_WIDTH; the WQE fetches: the rings are aligned to the WQE
    // size, the firmware's CREATE_QP checks it). The address's low bits are
    // then ignored and the beats leave as they came, through a register
    // slice instead of the packer (some 500 LUT4 an engine at 64 bits).
    parameter bit ALIGNED = 0,
    // LARGE_BYTES > 0: a descriptor of LARGE_BYTES or more (a power of two)
    // is large, and at most LARGE_MAX large descriptors wait in the burst
    // planner (taken, their last burst not yet asked for); the next
    // descriptor of any size waits meanwhile. Bytes a consumer has asked
    // for are read and handed over in full even when it no longer wants
    // them: a transmit path that restarts (go-back-N) drains every packet it
    // queued ahead, so what it may queue is bounded here, where the planner
    // would otherwise take QUEUE + 3 packets of the largest size ahead of
    // the bursts it asks for. Small descriptors (a short message's payload)
    // still queue. The gate counts large descriptors from the length as it
    // is offered (s_axis_desc_len, in the planner's take): a producer whose
    // length comes out of deep logic needs a register slice in front
    // (rnic_core's payd_skid_inst), or its path runs on into the planner.
    parameter int LARGE_BYTES = 0,
    parameter int LARGE_MAX = 1,
    // 4 KiB or 256 words, whichever is less
    localparam int BURST_4K_BEATS = (4096 / KEEP_WIDTH < 256) ? 4096 / KEEP_WIDTH : 256,
    // ... and with a cap, a quarter of it if that is less, so that four
    // bursts fly
    parameter int MAX_BURST_BEATS =
        (MAX_INFLIGHT_BYTES > 0 && MAX_INFLIGHT_BYTES / KEEP_WIDTH / 4 < BURST_4K_BEATS)
        ? MAX_INFLIGHT_BYTES / KEEP_WIDTH / 4 : BURST_4K_BEATS
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [63:0]               s_axis_desc_addr,
    input  wire logic [31:0]               s_axis_desc_len,
    input  wire logic                      s_axis_desc_last,
    input  wire logic                      s_axis_desc_valid,
    output      logic                      s_axis_desc_ready,

    output      logic [DATA_WIDTH-1:0]     m_axis_read_data_tdata,
    output      logic [KEEP_WIDTH-1:0]     m_axis_read_data_tkeep,
    output      logic                      m_axis_read_data_tvalid,
    input  wire logic                      m_axis_read_data_tready,
    output      logic                      m_axis_read_data_tlast,
    output      logic                      m_axis_read_data_tuser,   // ALIGNED: the beat's RRESP was not OKAY

    output      logic                      m_axis_desc_status_error,
    output      logic                      m_axis_desc_status_valid,

    output      logic [AXI_ID_WIDTH-1:0]   m_axi_arid,
    output      logic [AXI_ADDR_WIDTH-1:0] m_axi_araddr,
    output      logic [7:0]                m_axi_arlen,
    output      logic [2:0]                m_axi_arsize,
    output      logic [1:0]                m_axi_arburst,
    output      logic                      m_axi_arlock,
    output      logic [3:0]                m_axi_arcache,
    output      logic [2:0]                m_axi_arprot,
    output      logic                      m_axi_arvalid,
    input  wire logic                      m_axi_arready,
    input  wire logic [AXI_ID_WIDTH-1:0]   m_axi_rid,
    input  wire logic [DATA_WIDTH-1:0]     m_axi_rdata,
    input  wire logic [1:0]                m_axi_rresp,
    input  wire logic                      m_axi_rlast,
    input  wire logic                      m_axi_rvalid,
    output      logic                      m_axi_rready
);

    localparam int OFF_W = $clog2(KEEP_WIDTH);
    localparam bit BUF = BUF_BYTES > 0;
    localparam int BUF_BEATS = BUF ? BUF_BYTES / KEEP_WIDTH : 1;
    localparam int RES_W = $clog2(BUF_BEATS + 1) + 1;
    // a cap at or above the buffer is the buffer's reservation already
    localparam bit CAP = MAX_INFLIGHT_BYTES > 0 && (!BUF || MAX_INFLIGHT_BYTES < BUF_BYTES);
    localparam int CAP_BEATS = CAP ? MAX_INFLIGHT_BYTES / KEEP_WIDTH : 1;
    localparam int CAP_W = $clog2(CAP_BEATS + 1) + 1;
    localparam int Q_LOG2 = $clog2(MAX_OUTSTANDING) + 1;
    localparam int Q = 2 ** Q_LOG2;

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH
            || MAX_BURST_BEATS < 1 || MAX_BURST_BEATS > 256 || MAX_BURST_BEATS * KEEP_WIDTH > 4096) begin
            $error("dma_rd: unsupported DATA_WIDTH or MAX_BURST_BEATS (%m)");
            $finish;
        end
        if (BUF && (BUF_BEATS < MAX_BURST_BEATS || BUF_BEATS < 4 || (BUF_BEATS & (BUF_BEATS - 1)) != 0)) begin
            $error("dma_rd: BUF_BYTES must hold a whole burst, a power of two of 4 beats or more (%m)");
            $finish;
        end
        if (CAP && (CAP_BEATS < MAX_BURST_BEATS || CAP_BEATS * KEEP_WIDTH != MAX_INFLIGHT_BYTES)) begin
            $error("dma_rd: MAX_INFLIGHT_BYTES must be whole beats and hold a whole burst (%m)");
            $finish;
        end
        if (LARGE_BYTES < 0 || (LARGE_BYTES & (LARGE_BYTES - 1)) != 0 || LARGE_MAX < 1 || LARGE_MAX > 8) begin
            $error("dma_rd: LARGE_BYTES must be 0 or a power of two, LARGE_MAX 1..8 (%m)");
            $finish;
        end
    end

    // per-burst record for the R side: first byte lane of the first beat,
    // bytes in the last beat, and where the burst sits in its descriptor
    logic [OFF_W-1:0] rb_first_mem [Q];
    logic [OFF_W:0]   rb_last_bytes_mem [Q];
    logic             rb_desc_end_mem [Q];
    logic             rb_desc_last_mem [Q];
    logic [Q_LOG2:0]  rb_wr_reg, rb_rd_reg;
    wire rb_full = rnic_gates_pkg::ring_full(32'(rb_wr_reg), 32'(rb_rd_reg), Q_LOG2);
    wire rb_empty = rb_wr_reg == rb_rd_reg;

    // ------------------------------------------------------------------
    // AR: bursts from the planner (dma_burst_plan)
    // ------------------------------------------------------------------
    logic [63:0]      pl_addr;
    logic [7:0]       pl_len;
    logic [OFF_W-1:0] pl_first_lane;
    logic [OFF_W:0]   pl_last_bytes;
    logic             pl_first, pl_end, pl_last, pl_large, pl_valid, pl_ready, pl_s_ready;

    // large descriptors waiting in the planner (LARGE_BYTES); large_ok_reg
    // is the count after the clock edge below LARGE_MAX, so the gate on
    // the descriptor input is a flip-flop
    localparam bit LARGE = LARGE_BYTES > 0;
    localparam int LARGE_LOG2 = LARGE ? $clog2(LARGE_BYTES) : 0;
    logic [3:0] large_cnt_reg;
    logic       large_ok_reg;
    wire        s_large = LARGE && (s_axis_desc_len >> LARGE_LOG2) != 0;
    wire        s_gate = !LARGE || large_ok_reg;
    assign s_axis_desc_ready = pl_s_ready && s_gate;

    dma_burst_plan #(.KEEP_WIDTH(KEEP_WIDTH), .MAX_BURST_BEATS(MAX_BURST_BEATS), .USER_W(2)) plan_inst (
        .clk, .rst,
        .s_addr(ALIGNED ? {s_axis_desc_addr[63:OFF_W], OFF_W'(0)} : s_axis_desc_addr), .s_len(s_axis_desc_len),
        .s_user({s_large, s_axis_desc_last}),
        .s_valid(s_axis_desc_valid && s_gate), .s_ready(pl_s_ready),
        .m_addr(pl_addr), .m_len(pl_len), .m_first_lane(pl_first_lane), .m_last_bytes(pl_last_bytes),
        .m_first(pl_first), .m_end(pl_end), .m_user({pl_large, pl_last}), .m_valid(pl_valid), .m_ready(pl_ready)
    );

    logic [$clog2(MAX_OUTSTANDING+1)-1:0] outstanding_reg;

    // room for a burst of pl_len + 1 beats (at most 256) in `free` beats:
    // 256 free or more, else free > pl_len on 8 bits (a sum and a 32-bit
    // compare were 12 levels)
    function automatic logic room_for(input logic [31:0] free, input logic [7:0] len);
        room_for = free[31:8] != '0 || free[7:0] > len;
    endfunction
    // beats of the buffer not reserved by a burst asked for, and beats of
    // the in-flight cap not taken by a burst whose data are still to come
    logic [RES_W-1:0]  free_reg;
    logic [CAP_W-1:0]  cap_free_reg;
    wire buf_room = !BUF || room_for(32'(free_reg), pl_len);
    wire cap_room = !CAP || room_for(32'(cap_free_reg), pl_len);
    assign m_axi_arvalid = pl_valid && 32'(outstanding_reg) < MAX_OUTSTANDING && !rb_full && buf_room && cap_room;
    assign m_axi_arid = AXI_ID;
    assign m_axi_araddr = pl_addr;
    assign m_axi_arlen = pl_len;
    assign m_axi_arsize = 3'(OFF_W);
    assign m_axi_arburst = 2'b01;
    assign m_axi_arlock = 1'b0;
    assign m_axi_arcache = 4'b0011;
    assign m_axi_arprot = 3'b010;

    wire ar_fire = m_axi_arvalid && m_axi_arready;
    assign pl_ready = ar_fire;
    wire r_fire = m_axi_rvalid && m_axi_rready;
    wire r_burst_done = r_fire && m_axi_rlast;
    wire [3:0] large_cnt_nx = large_cnt_reg + 4'(s_axis_desc_valid && s_axis_desc_ready && s_large)
                                            - 4'(ar_fire && pl_end && pl_large);

    always_ff @(posedge clk) begin
        if (ar_fire) begin
            rb_first_mem[rb_wr_reg[Q_LOG2-1:0]] <= pl_first ? pl_first_lane : '0;
            rb_last_bytes_mem[rb_wr_reg[Q_LOG2-1:0]] <= pl_last_bytes;
            rb_desc_end_mem[rb_wr_reg[Q_LOG2-1:0]] <= pl_end;
            rb_desc_last_mem[rb_wr_reg[Q_LOG2-1:0]] <= pl_end && pl_last;
            rb_wr_reg <= rb_wr_reg + 1'b1;
        end
        if (CAP)
            cap_free_reg <= cap_free_reg - (ar_fire ? CAP_W'(pl_len) + CAP_W'(1) : '0) + CAP_W'(r_fire);
        if (LARGE) begin
            large_cnt_reg <= large_cnt_nx;
            large_ok_reg <= large_cnt_nx < 4'(LARGE_MAX);
        end
        case ({ar_fire, r_burst_done})
            2'b10: outstanding_reg <= outstanding_reg + 1'b1;
            2'b01: outstanding_reg <= outstanding_reg - 1'b1;
            default: ;
        endcase
        if (rst) begin
            outstanding_reg <= '0;
            rb_wr_reg <= '0;
            cap_free_reg <= CAP_W'(CAP_BEATS);
            large_cnt_reg <= '0;
            large_ok_reg <= 1'b1;
        end
    end

    // ------------------------------------------------------------------
    // R: keep only the descriptor's bytes, then pack
    // ------------------------------------------------------------------
    logic              r_first_beat_reg;
    logic              r_err_reg;
    wire [OFF_W-1:0]   rb_first = rb_first_mem[rb_rd_reg[Q_LOG2-1:0]];
    wire [OFF_W:0]     rb_last_bytes = rb_last_bytes_mem[rb_rd_reg[Q_LOG2-1:0]];
    wire               rb_desc_end = rb_desc_end_mem[rb_rd_reg[Q_LOG2-1:0]];
    wire               rb_desc_last = rb_desc_last_mem[rb_rd_reg[Q_LOG2-1:0]];

    logic [KEEP_WIDTH-1:0] r_keep;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            r_keep[i] = 1'b1;
            if (!ALIGNED && r_first_beat_reg && 32'(i) < 32'(rb_first)) r_keep[i] = 1'b0;
            if (!ALIGNED && m_axi_rlast && 32'(i) >= 32'(rb_last_bytes)) r_keep[i] = 1'b0;
        end
    end

    logic pk_tready, rq_tready;
    logic [DATA_WIDTH-1:0] pk_tdata;
    logic [KEEP_WIDTH-1:0] pk_tkeep;
    logic pk_tvalid, pk_tlast, pk_tuser;
    assign m_axi_rready = rq_tready && !rb_empty;

    generate
        if (BUF) begin : g_buf
            logic st_ovf, st_bad, st_good, unused_st;
            logic [$clog2(BUF_BYTES / KEEP_WIDTH):0] st_level;
            axis_fifo #(
                .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DEPTH_BYTES(BUF_BYTES),
                .FRAME_FIFO(0), .DROP_BAD_FRAME(0)
            ) buf_inst (
                .clk, .rst,
                .s_axis_tdata(m_axi_rdata), .s_axis_tkeep(r_keep), .s_axis_tvalid(m_axi_rvalid && !rb_empty),
                .s_axis_tready(rq_tready), .s_axis_tlast(m_axi_rlast && rb_desc_last), .s_axis_tuser(m_axi_rresp != 2'b00),
                .m_axis_tdata(pk_tdata), .m_axis_tkeep(pk_tkeep), .m_axis_tvalid(pk_tvalid),
                .m_axis_tready(pk_tready), .m_axis_tlast(pk_tlast), .m_axis_tuser(pk_tuser),
                .status_overflow(st_ovf), .status_bad_frame(st_bad), .status_good_frame(st_good), .status_level(st_level)
            );
            // a beat leaves the reservation when the packer takes it
            always_ff @(posedge clk) begin
                free_reg <= free_reg - (ar_fire ? RES_W'(pl_len) + RES_W'(1) : '0) + RES_W'(pk_tvalid && pk_tready);
                if (rst) free_reg <= RES_W'(BUF_BEATS);
            end
            assign unused_st = ^{st_ovf, st_bad, st_good, st_level};
        end else begin : g_direct
            // one register stage: the beat's keep (compares of lane numbers
            // against the burst's first lane and last byte count, read from
            // the burst queue) and the packer's byte counting would
            // otherwise be one path
            logic pr_valid_reg;
            assign rq_tready = !pr_valid_reg || pk_tready;
            assign pk_tvalid = pr_valid_reg;
            always_ff @(posedge clk) begin
                if (rq_tready) begin
                    pr_valid_reg <= m_axi_rvalid && !rb_empty;
                    pk_tdata <= m_axi_rdata;
                    pk_tkeep <= r_keep;
                    pk_tlast <= m_axi_rlast && rb_desc_last;
                    pk_tuser <= m_axi_rresp != 2'b00;
                end
                if (rst) pr_valid_reg <= 1'b0;
            end
            always_ff @(posedge clk) free_reg <= '0;
        end
    endgenerate

    if (ALIGNED) begin : g_aligned
        // whole beats from lane 0: nothing to pack
        rnic_skid #(.WIDTH(2 + KEEP_WIDTH + DATA_WIDTH)) out_skid_inst (
            .clk, .rst,
            .s_valid(pk_tvalid), .s_ready(pk_tready), .s_data({pk_tuser, pk_tlast, pk_tkeep, pk_tdata}),
            .m_valid(m_axis_read_data_tvalid), .m_ready(m_axis_read_data_tready),
            .m_data({m_axis_read_data_tuser, m_axis_read_data_tlast, m_axis_read_data_tkeep, m_axis_read_data_tdata})
        );
    end else begin : g_packed
        assign m_axis_read_data_tuser = 1'b0;
        wire unused_pk_user = pk_tuser;
        axis_packer #(.DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH)) packer_inst (
            .clk, .rst,
            .s_axis_tdata(pk_tdata),
            .s_axis_tkeep(pk_tkeep),
            .s_axis_tvalid(pk_tvalid),
            .s_axis_tready(pk_tready),
            .s_axis_tlast(pk_tlast),
            // the run comes from tkeep
            .s_axis_toff({$clog2(KEEP_WIDTH){1'b0}}), .s_axis_tend({($clog2(KEEP_WIDTH) + 1){1'b0}}),
            .m_axis_tdata(m_axis_read_data_tdata),
            .m_axis_tkeep(m_axis_read_data_tkeep),
            .m_axis_tvalid(m_axis_read_data_tvalid),
            .m_axis_tready(m_axis_read_data_tready),
            .m_axis_tlast(m_axis_read_data_tlast)
        );
    end

    wire r_err = r_err_reg || m_axi_rresp != 2'b00;

    always_ff @(posedge clk) begin
        m_axis_desc_status_valid <= 1'b0;
        if (r_fire) begin
            r_first_beat_reg <= m_axi_rlast;
            r_err_reg <= r_err;
            if (m_axi_rlast) begin
                rb_rd_reg <= rb_rd_reg + 1'b1;
                if (rb_desc_last) begin
                    m_axis_desc_status_valid <= 1'b1;
                    m_axis_desc_status_error <= r_err;
                    r_err_reg <= 1'b0;
                end
            end
        end
        if (rst) begin
            m_axis_desc_status_valid <= 1'b0;
            r_first_beat_reg <= 1'b1;
            r_err_reg <= 1'b0;
            rb_rd_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // AXI4 A3.4.1: a burst stays inside one 4 KiB page
    always_ff @(posedge clk) begin
        if (!rst && m_axi_arvalid)
            assert (32'(m_axi_araddr[11:0]) + ((32'(m_axi_arlen) + 1) << OFF_W) <= 32'd4096);
    end
    always_ff @(posedge clk) begin
        // every R beat belongs to a burst this engine asked for
        if (!rst && m_axi_rvalid) assert (!rb_empty && m_axi_rid == AXI_ID);
    end
    // an aligned engine's descriptors are whole beats (its address's low
    // bits, which only a context the firmware refused could set, are dropped)
    always_ff @(posedge clk) begin
        if (!rst && ALIGNED && s_axis_desc_valid)
            assert (s_axis_desc_len != 0 && s_axis_desc_len % KEEP_WIDTH == 0);
    end
    // the cap is never overdrawn
    always_ff @(posedge clk) begin
        if (!rst && CAP) assert (32'(cap_free_reg) <= CAP_BEATS);
    end
    // no more large descriptors wait than LARGE_MAX
    always_ff @(posedge clk) begin
        if (!rst && LARGE) assert (large_cnt_reg <= 4'(LARGE_MAX) && large_ok_reg == (large_cnt_reg < 4'(LARGE_MAX)));
    end
`endif
`endif

    wire unused_ok = ^{rb_desc_end, m_axi_rid};

endmodule

`resetall
