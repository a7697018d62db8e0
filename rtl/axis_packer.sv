`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4-Stream packer: removes gaps from a stream.
 *
 * Each input beat carries one contiguous run of valid bytes anywhere in the
 * beat (tkeep == 0 is allowed and carries nothing). The output is dense: every
 * beat is full except the tlast beat, whose bytes start at lane 0; a frame of
 * zero bytes leaves as one beat with tkeep == 0 and tlast.
 *
 * Four stages, each cut to a few logic levels at 512 bits:
 *   1. the beat is registered with where its run starts and ends (the run's
 *      edges are one-hot, so each bit of the two lane numbers is an OR);
 *      s_axis_tready is a register: a skid holds the beat that arrives while
 *      stage 1 is held;
 *   2. the run is shifted down to lane 0 and its length taken;
 *   3. the run is rotated to the accumulator's fill level and merged into
 *      the accumulator (two beats; the rotation only needs the level modulo
 *      one beat, known from the registers);
 *   4. an output register with its own skid, so m_axis_tready reaches no
 *      further than the output register and no path runs from m_axis_tready
 *      to s_axis_tready.
 * A full beat leaves the accumulator only once a byte beyond it is known (in
 * the accumulator or in stage 2) or tlast has arrived, so a frame never ends
 * with an empty tlast beat after a full one. With a free output a beat is
 * taken every cycle, aligned or not, across frame boundaries too; the input
 * stalls only while a frame's last beat turns into two output beats (one
 * cycle per frame at most). Latency: four cycles.
 */
module axis_packer #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // 1: each beat's run is found from its tkeep; 0: the producer gives it
    // (s_axis_toff, s_axis_tend, from registers it has), and tkeep is unused
    parameter bit KEEP_RUN = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    // with KEEP_RUN 0: the run's first lane and its end (last lane + 1)
    input  wire logic [$clog2(KEEP_WIDTH)-1:0] s_axis_toff,
    input  wire logic [$clog2(KEEP_WIDTH):0]   s_axis_tend,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast
);

    localparam int KW = KEEP_WIDTH;
    localparam int CNT_WIDTH = $clog2(2 * KW + 1);   // accumulator fill: 0 .. 2 beats
    localparam int OFF_WIDTH = $clog2(KW);           // a lane
    localparam int RUN_WIDTH = OFF_WIDTH + 1;        // a run's length: 0 .. one beat
    localparam logic [CNT_WIDTH-1:0] KW_CNT = CNT_WIDTH'(KW);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 2 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("axis_packer: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two of 16 or more bits (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // stage 1: the beat, its run's first lane and its end (last lane + 1)
    // ------------------------------------------------------------------
    logic [OFF_WIDTH-1:0] in_off;
    logic [RUN_WIDTH-1:0] in_end;
    if (KEEP_RUN) begin : g_keep_run
        axis_keep_run #(.KEEP_WIDTH(KW)) in_run_inst (.keep(s_axis_tkeep), .first(in_off), .run_end(in_end));
        wire unused_run = ^{s_axis_toff, s_axis_tend};
    end else begin : g_given_run
        assign in_off = s_axis_toff;
        assign in_end = s_axis_tend;
        wire unused_keep = ^s_axis_tkeep;
    end

    logic                  s_rdy_reg;
    logic                  sk_valid, p1_valid;
    logic [DATA_WIDTH-1:0] sk_data, p1_data;
    logic [OFF_WIDTH-1:0]  sk_off, p1_off;
    logic [RUN_WIDTH-1:0]  sk_end, p1_end;
    logic                  sk_last, p1_last;
    logic                  p2_en;
    assign s_axis_tready = s_rdy_reg;
    wire in_fire = s_axis_tvalid && s_rdy_reg;
    wire p1_en = !p1_valid || p2_en;

    always_ff @(posedge clk) begin
        if (p1_en) begin
            p1_valid <= sk_valid || in_fire;
            if (sk_valid) begin
                p1_data <= sk_data;
                p1_off <= sk_off;
                p1_end <= sk_end;
                p1_last <= sk_last;
            end else begin
                p1_data <= s_axis_tdata;
                p1_off <= in_off;
                p1_end <= in_end;
                p1_last <= s_axis_tlast;
            end
            sk_valid <= 1'b0;
            s_rdy_reg <= 1'b1;
        end else if (in_fire) begin
            sk_data <= s_axis_tdata;
            sk_off <= in_off;
            sk_end <= in_end;
            sk_last <= s_axis_tlast;
            sk_valid <= 1'b1;
            s_rdy_reg <= 1'b0;
        end
        if (rst) begin
            p1_valid <= 1'b0;
            sk_valid <= 1'b0;
            s_rdy_reg <= 1'b0;
        end
    end

    // ------------------------------------------------------------------
    // stage 2: the run at lane 0, and its length
    // ------------------------------------------------------------------
    logic                  p2_valid;
    logic [DATA_WIDTH-1:0] p2_data;
    logic [RUN_WIDTH-1:0]  p2_cnt;
    logic                  p2_last;
    logic                  take;
    assign p2_en = !p2_valid || take;

    always_ff @(posedge clk) begin
        if (p2_en) begin
            p2_valid <= p1_valid;
            p2_data <= p1_data >> {p1_off, 3'b000};
            p2_cnt <= p1_end - RUN_WIDTH'(p1_off);
            p2_last <= p1_last;
        end
        if (rst) p2_valid <= 1'b0;
    end

    // ------------------------------------------------------------------
    // stage 3: the accumulator, lanes 0 .. cnt-1 valid, lane 0 leaves next
    // ------------------------------------------------------------------
    logic [2*DATA_WIDTH-1:0] acc_reg, acc_next;
    logic [CNT_WIDTH-1:0]    cnt_reg, cnt_next;
    logic                    last_reg, last_next;   // the frame's tlast is in the accumulator
    logic                    sk_out_valid;          // the output's skid is full

    wire cnt_gt = cnt_reg > KW_CNT;
    wire a_valid = cnt_gt || last_reg || (cnt_reg == KW_CNT && p2_valid && p2_cnt != '0);
    wire a_last = last_reg && !cnt_gt;
    wire pop = a_valid && !sk_out_valid;

    logic [KW-1:0]         a_keep;
    logic [DATA_WIDTH-1:0] a_data;
    always_comb begin
        for (int i = 0; i < KW; i++) begin
            a_keep[i] = !a_last || CNT_WIDTH'(i) < cnt_reg;
            a_data[8*i +: 8] = a_keep[i] ? acc_reg[8*i +: 8] : 8'h00;
        end
    end

    logic [CNT_WIDTH-1:0]  cnt_pop;
    logic                  last_pop;
    logic [DATA_WIDTH-1:0] rot;
    logic [2*DATA_WIDTH-1:0] rot2;   // {run, run} shifted: its upper half is the rotation
    wire unused_rot = ^rot2[DATA_WIDTH-1:0];
    always_comb begin
        cnt_pop = cnt_reg;
        last_pop = last_reg;
        if (pop) begin
            cnt_pop = a_last ? '0 : cnt_reg - KW_CNT;
            if (a_last) last_pop = 1'b0;
        end
        take = p2_valid && !last_pop && cnt_pop <= KW_CNT;

        // the run rotated to start at lane cnt_pop modulo one beat; cnt_pop is
        // cnt_reg or cnt_reg - KW (same lanes) or 0 after a tlast beat
        rot2 = {p2_data, p2_data} << {cnt_reg[OFF_WIDTH-1:0], 3'b000};
        rot = (pop && a_last) ? p2_data : rot2[2*DATA_WIDTH-1:DATA_WIDTH];

        acc_next = pop ? {{DATA_WIDTH{1'b0}}, acc_reg[2*DATA_WIDTH-1:DATA_WIDTH]} : acc_reg;
        for (int i = 0; i < 2 * KW; i++) begin
            if (take && CNT_WIDTH'(i) >= cnt_pop) acc_next[8*i +: 8] = rot[8*(i % KW) +: 8];
        end
        cnt_next = take ? cnt_pop + CNT_WIDTH'(p2_cnt) : cnt_pop;
        last_next = take ? p2_last : last_pop;
    end

    always_ff @(posedge clk) begin
        acc_reg <= acc_next;
        cnt_reg <= cnt_next;
        last_reg <= last_next;
        if (rst) begin
            cnt_reg <= '0;
            last_reg <= 1'b0;
        end
    end

    // ------------------------------------------------------------------
    // stage 4: the output register and its skid
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] sko_data;
    logic [KW-1:0]         sko_keep;
    logic                  sko_last;

    always_ff @(posedge clk) begin
        if (!m_axis_tvalid || m_axis_tready) begin
            if (sk_out_valid) begin
                m_axis_tvalid <= 1'b1;
                m_axis_tdata <= sko_data;
                m_axis_tkeep <= sko_keep;
                m_axis_tlast <= sko_last;
                sk_out_valid <= 1'b0;
            end else begin
                m_axis_tvalid <= pop;
                m_axis_tdata <= a_data;
                m_axis_tkeep <= a_keep;
                m_axis_tlast <= a_last;
            end
        end else if (pop) begin
            sko_data <= a_data;
            sko_keep <= a_keep;
            sko_last <= a_last;
            sk_out_valid <= 1'b1;
        end
        if (rst) begin
            m_axis_tvalid <= 1'b0;
            sk_out_valid <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the input contract: one contiguous run per beat (the lane numbers of
    // stage 1 assume it)
    function automatic int runs(input logic [KW-1:0] keep);
        runs = 0;
        for (int i = 0; i < KW; i++)
            if (keep[i] && (i == 0 || !keep[(i == 0) ? 0 : i - 1])) runs = runs + 1;
    endfunction
    always_ff @(posedge clk) begin
        if (!rst && s_axis_tvalid) assert (runs(s_axis_tkeep) <= 1);
    end
`endif
`endif

endmodule

`resetall
