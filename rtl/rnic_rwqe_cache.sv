`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Receive-WQE cache of the responder: WAYS ways, each holding up to WQES
 * consecutive receive WQEs of one receive queue, filled by DMA reads of its
 * ring.
 *
 * A receive queue is named by a key: the responder gives a QP's own RQ and
 * a shared receive queue (SRQ) different keys ({0, QPN} and {1, SRQN}), and
 * every QP on an SRQ the SRQ's key, with the SRQ's one consumer and producer
 * index. So the QPs of an SRQ share its way, take its WQEs in posting order
 * and never the same WQE twice; "QP" below means the queue of a key.
 *
 * The responder names the QP it serves and that QP's receive queue (consumer
 * and producer index, ring base and size). When it waits for the WQE at the
 * consumer index (want) and no way holds it, the cache reads it with the
 * WQEs posted after it (up to WQES, the producer index, the end of the ring)
 * into the QP's way, or into the next way in turn when the QP has none.
 * A responder between packets (pref: the flush check of a receive doorbell,
 * no packet waiting) has the same done for the doorbell's QP, so the WQEs
 * posted before a stream of SENDs are at hand when its first SEND comes.
 * While the responder serves a QP (ahead) whose way holds WQES/2 or fewer
 * WQEs from the consumer index on, the cache reads the next ones posted
 * into the slots already consumed, so a stream of SENDs finds its receive
 * WQEs at hand instead of waiting out a host round trip every WQES
 * messages; with a way per QP, several QPs keep theirs.
 *
 * Way w holds WQEs [lo, hi) of the queue of its key; [hi, req) are being
 * read (one read at a time); RQ index i sits in slot i mod WQES. A failed
 * read leaves err set for the WQE at hi: the responder completes that WQE in
 * error (err_hit, err_take). A key reset (a new QP or SRQ context) forgets
 * its way; the reset of a QP on an SRQ leaves the SRQ's way alone. Posted WQEs do not change until they
 * are consumed, so what a way holds stays right.
 *
 * The look-up runs in three register stages behind the responder's QP and
 * consumer index (way match; range offsets; compares), so hit and err_hit
 * are valid once those inputs and the ways have been still for three cycles
 * (settled); hit_still is hit for a caller whose inputs did not change at
 * the last clock edge. The responder's ATOMIC read shares the DMA reader: the cache
 * starts no read while rd_free is low, and says busy while it has one.
 */
module rnic_rwqe_cache #(
    parameter int DATA_WIDTH = 64,
    parameter int KEY_WIDTH = 11,
    parameter int WAYS_LOG2 = 3,
    parameter int WQES_LOG2 = 4
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // the receive queue the responder serves (its key) and its indices
    input  wire logic [KEY_WIDTH-1:0]  key,
    input  wire logic [15:0]           rq_ci,
    input  wire logic [15:0]           rq_pi,
    input  wire logic [63:0]           rq_base,
    input  wire logic [4:0]            rq_log,
    input  wire logic                  want,      // waits for the WQE at rq_ci
    input  wire logic                  ahead,     // serves the QP: read ahead for it
    // checks the QP between packets: read for it as for want (no WQE at
    // rq_ci held) or ahead, whichever applies
    input  wire logic                  pref,
    // the look-up has settled: a read starts this cycle if one is due (for a
    // pref caller: nothing more to wait for). Without this cycle's compare
    // of the inputs with the last cycle's, as hit_still: for a caller whose
    // inputs did not change at the last clock edge
    output      logic                  look_done,
    output      logic                  hit,       // the WQE at rq_ci is held
    // hit without this cycle's compare of the inputs with the last cycle's:
    // for a caller whose inputs did not change at the last clock edge
    // (equal to hit then, asserted)
    output      logic                  hit_still,
    output      logic                  err_hit,   // its read failed
    input  wire logic                  err_take,  // ... and the responder completes it in error
    // beat rd_beat of the WQE at rq_ci, a cycle after the address
    input  wire logic [7:0]            rd_beat,
    output      logic [DATA_WIDTH-1:0] rd_data,

    input  wire logic                  rd_free,   // the DMA reader may be used
    output      logic                  busy,      // a read is being set up or in flight

    // a new context for the queue of a key: forget what is held for it
    input  wire logic                  key_reset_valid,
    input  wire logic [KEY_WIDTH-1:0]  key_reset,

    output      logic [63:0]           m_axis_desc_addr,
    output      logic [31:0]           m_axis_desc_len,
    output      logic                  m_axis_desc_valid,
    input  wire logic                  m_axis_desc_ready,
    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_status_valid,
    input  wire logic                  s_status_error
);

    localparam int KEEP_WIDTH = DATA_WIDTH / 8;
    localparam int WAYS = 2 ** WAYS_LOG2;
    localparam int WQES = 2 ** WQES_LOG2;
    localparam int RB = (rnic_pkg::RECV_WQE_BYTES_TOTAL + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int RB_LOG2 = $clog2(RB);
    localparam int WAY_AW = WQES_LOG2 + RB_LOG2;   // beats of a way
    localparam int AW = WAYS_LOG2 + WAY_AW;

    initial begin
        if (RB != 2 ** RB_LOG2 || rnic_pkg::RECV_WQE_BYTES_TOTAL % KEEP_WIDTH != 0) begin
            $error("rnic_rwqe_cache: a receive WQE must be a power-of-two number of bus words (%m)");
            $finish;
        end
        if (WQES_LOG2 < 1 || WQES_LOG2 > 8 || WAYS_LOG2 < 1 || WAYS_LOG2 > 4) begin
            $error("rnic_rwqe_cache: 2..256 WQEs per way, 2..16 ways (%m)");
            $finish;
        end
    end

    // ways
    logic [WAYS-1:0]      used_reg, err_reg;
    logic [KEY_WIDTH-1:0] w_key_reg [WAYS];
    logic [15:0]          w_lo_reg [WAYS], w_hi_reg [WAYS], w_req_reg [WAYS];
    logic [WAYS_LOG2-1:0]   victim_reg;   // next way to take for a QP without one

    // the read
    typedef enum logic [2:0] {F_IDLE, F_SIZE, F_SIZE2, F_SIZE3, F_DESC, F_DATA} fstate_t;
    fstate_t              f_state_reg;
    logic                 f_miss_reg;    // for the WQE the responder waits for
    logic [WAYS_LOG2-1:0]   f_way_reg;
    logic [KEY_WIDTH-1:0] f_key_reg;
    logic [15:0]          f_start_reg, f_ci_reg, f_pi_reg, f_n_reg;
    logic [63:0]          f_base_reg, f_addr_reg;
    logic [4:0]           f_log_reg;
    logic [WAY_AW-1:0]    f_ptr_reg;
    logic [WAY_AW:0]      f_beats_reg;   // beats still to come
    logic                 f_st_reg, f_err_reg, f_stale_reg;

    // ------------------------------------------------------------------
    // look-up, three register stages
    // ------------------------------------------------------------------
    // a change of the inputs or of any way restarts the count
    logic [KEY_WIDTH-1:0] key_q;
    logic [15:0]          ci_q;
    logic                 ways_chg;
    logic [1:0]           settle_reg;
    wire                  settled = settle_reg == 2'd3 && key == key_q && rq_ci == ci_q && !ways_chg;

    // stage A: which way is the QP's
    logic                 mine_a;
    logic [WAYS_LOG2-1:0]   way_a;
    logic                 mine_c;
    logic [WAYS_LOG2-1:0]   way_c;
    always_comb begin
        mine_c = 1'b0;
        way_c = '0;
        for (int w = 0; w < WAYS; w++) begin
            if (used_reg[w] && w_key_reg[w] == key) begin
                mine_c = 1'b1;
                way_c = WAYS_LOG2'(w);
            end
        end
    end
    // stage B: the range of that way, relative to the consumer index
    logic                 mine_b, err_b;
    logic [WAYS_LOG2-1:0]   way_b;
    logic [15:0]          off_b, span_b, ahead_b, pend_b, at_hi_b, posted_b;
    // stage C: compares
    logic                 held_c, errat_c, ra_c;
    logic [WAYS_LOG2-1:0]   way_cc;
    logic                 mine_cc;
    logic [15:0]          ra_start_c;
    always_ff @(posedge clk) begin
        key_q <= key;
        ci_q <= rq_ci;
        mine_a <= mine_c;
        way_a <= way_c;

        mine_b <= mine_a;
        way_b <= way_a;
        err_b <= err_reg[way_a];
        off_b <= rq_ci - w_lo_reg[way_a];
        span_b <= w_hi_reg[way_a] - w_lo_reg[way_a];
        pend_b <= w_req_reg[way_a] - w_lo_reg[way_a];
        ahead_b <= w_req_reg[way_a] - rq_ci;
        at_hi_b <= w_hi_reg[way_a] - rq_ci;
        // WQEs posted past the consumer index, beside ahead_b: both of this
        // cycle's indices (the way never asks for more than is posted, so
        // ahead_b != posted_b says more are posted), and no subtract in
        // front of stage C's compare
        posted_b <= rq_pi - rq_ci;

        mine_cc <= mine_b;
        way_cc <= way_b;
        held_c <= mine_b && off_b < span_b;
        errat_c <= mine_b && err_b && at_hi_b == 16'd0;
        // read ahead: the consumer index within the way's range, WQES/2 or
        // fewer held or coming from it on, and more posted
        ra_c <= mine_b && !err_b && off_b <= pend_b && !rnic_gates_pkg::gt_const(32'(ahead_b), 32'(WQES / 2))
                && ahead_b != posted_b;
        ra_start_c <= rq_ci + ahead_b;
    end
    wire [WAYS_LOG2-1:0] way_i = way_cc;
    // the read of the way being filled is the one the responder waits for
    wire pend_mine = f_state_reg != F_IDLE && f_key_reg == key && f_way_reg == way_cc;

    assign hit = settled && held_c;
    // settled without this cycle's compare of the inputs (hit_still, look_done)
    wire settled_still = settle_reg == 2'd3 && !ways_chg;
    // (the compares of key and rq_ci with key_q and ci_q, in front of the
    // caller's state, mapped as a chain of LUTs seven deep)
    assign hit_still = settled_still && held_c;
    assign err_hit = settled && errat_c && !pend_mine;
    assign busy = f_state_reg != F_IDLE;

    // a read starts for the WQE waited for, or to read ahead
    wire start_ok = settled && f_state_reg == F_IDLE && rd_free && !(key_reset_valid && key_reset == key);
    wire start_miss = (want || pref) && start_ok && !held_c && !errat_c && rq_pi != rq_ci;
    wire start_ra = !want && (ahead || pref) && start_ok && ra_c;
    assign look_done = settled_still;
    wire [WAYS_LOG2-1:0] start_way = mine_cc ? way_cc : victim_reg;

    // ------------------------------------------------------------------
    // the read: size it (F_SIZE, F_SIZE2), take the way (F_SIZE3), ask for
    // it (F_DESC), take its beats (F_DATA)
    // ------------------------------------------------------------------
    wire [15:0] f_mask = (16'd1 << f_log_reg) - 16'd1;
    wire [15:0] f_slot = f_start_reg & f_mask;
    // WQEs one read brings: up to the producer index, the end of the ring
    // and the slots free in the way (all of them for a miss, those consumed
    // for a read ahead); the least of the three in F_SIZE2
    logic [15:0] f_to_pi_reg, f_to_end_reg, f_room_reg;
    wire  [15:0] f_n_a = (f_to_pi_reg < f_to_end_reg) ? f_to_pi_reg : f_to_end_reg;
    wire  [15:0] f_n = (f_n_a < f_room_reg) ? f_n_a : f_room_reg;
    // the ring address, its low and high halves a cycle apart
    wire  [32:0] f_addr_lo = 33'(f_base_reg[31:0]) + (33'(f_slot) << rnic_pkg::RECV_WQE_LOG_BYTES);
    logic        f_carry_reg;

    assign m_axis_desc_addr = f_addr_reg;
    assign m_axis_desc_len = 32'(f_n_reg) << rnic_pkg::RECV_WQE_LOG_BYTES;
    assign m_axis_desc_valid = f_state_reg == F_DESC;
    assign s_axis_tready = f_state_reg == F_DATA && f_beats_reg != 0;

    wire beat_in = s_axis_tvalid && s_axis_tready;
    wire fill_end = f_state_reg == F_DATA && f_beats_reg == 0 && f_st_reg;
    wire [WAYS_LOG2-1:0] f_way_i = f_way_reg;

    logic [DATA_WIDTH-1:0] mem [2 ** AW];
    wire [WAY_AW-1:0] rd_off = WAY_AW'((32'(rq_ci[WQES_LOG2-1:0]) << RB_LOG2) + 32'(rd_beat));
    always_ff @(posedge clk) begin
        if (beat_in) mem[{f_way_i, f_ptr_reg}] <= s_axis_tdata;
        rd_data <= mem[{way_i, rd_off}];
    end

    always_ff @(posedge clk) begin
        ways_chg <= 1'b0;
        case (f_state_reg)
            F_IDLE: if (start_miss || start_ra) begin
                f_state_reg <= F_SIZE;
                f_miss_reg <= start_miss;
                f_way_reg <= start_way;
                f_key_reg <= key;
                f_start_reg <= start_miss ? rq_ci : ra_start_c;
                f_ci_reg <= rq_ci;
                f_pi_reg <= rq_pi;
                f_base_reg <= rq_base;
                f_log_reg <= rq_log;
                f_stale_reg <= 1'b0;
                if (!mine_cc) victim_reg <= victim_reg + 1'b1;
            end
            F_SIZE: begin
                f_to_pi_reg <= f_pi_reg - f_start_reg;
                f_to_end_reg <= (~f_start_reg & f_mask) + 16'd1;
                f_room_reg <= 16'(WQES) - (f_start_reg - f_ci_reg);
                f_addr_reg[31:0] <= f_addr_lo[31:0];
                f_carry_reg <= f_addr_lo[32];
                f_ptr_reg <= WAY_AW'(32'(f_start_reg[WQES_LOG2-1:0]) << RB_LOG2);
                f_state_reg <= F_SIZE2;
            end
            F_SIZE2: begin
                f_n_reg <= f_n;
                f_addr_reg[63:32] <= f_base_reg[63:32] + 32'(f_carry_reg);
                f_beats_reg <= (WAY_AW+1)'(32'(f_n) << RB_LOG2);
                f_st_reg <= 1'b0;
                f_err_reg <= 1'b0;
                f_state_reg <= F_SIZE3;
            end
            F_SIZE3: begin
                // (a cycle of its own: the least of three compares and then
                // the sum for w_req ran to 10 levels in one)
                f_state_reg <= F_DESC;
                // the way's new range: a miss starts it at the WQE, a read
                // ahead drops the WQEs consumed. A QP reset since the start
                // (in F_SIZE) leaves the way free: its range would be stale
                used_reg[f_way_i] <= !f_stale_reg;
                err_reg[f_way_i] <= 1'b0;
                w_key_reg[f_way_i] <= f_key_reg;
                w_lo_reg[f_way_i] <= f_miss_reg ? f_start_reg : f_ci_reg;
                if (f_miss_reg) w_hi_reg[f_way_i] <= f_start_reg;
                w_req_reg[f_way_i] <= f_start_reg + f_n_reg;
                ways_chg <= 1'b1;
            end
            F_DESC: if (m_axis_desc_ready) f_state_reg <= F_DATA;
            F_DATA: begin
                if (beat_in) begin
                    f_ptr_reg <= f_ptr_reg + 1'b1;   // wraps within the way
                    f_beats_reg <= f_beats_reg - 1'b1;
                end
                if (fill_end) begin
                    f_state_reg <= F_IDLE;
                    ways_chg <= 1'b1;
                    if (!f_stale_reg) begin
                        if (f_err_reg) begin
                            w_req_reg[f_way_i] <= w_hi_reg[f_way_i];
                            err_reg[f_way_i] <= 1'b1;
                        end else begin
                            w_hi_reg[f_way_i] <= w_req_reg[f_way_i];
                        end
                    end
                end
            end
            default: f_state_reg <= F_IDLE;
        endcase
        // the status may come before or after the last beat
        if (f_state_reg == F_DATA && s_status_valid) begin
            f_st_reg <= 1'b1;
            f_err_reg <= s_status_error;
        end
        if (err_take && mine_cc) begin
            err_reg[way_i] <= 1'b0;
            ways_chg <= 1'b1;
        end
        // a new context: nothing held or being read for the QP is valid
        for (int w = 0; w < WAYS; w++) begin
            if (key_reset_valid && used_reg[w] && w_key_reg[w] == key_reset) begin
                used_reg[w] <= 1'b0;
                err_reg[w] <= 1'b0;
                ways_chg <= 1'b1;
            end
        end
        if (key_reset_valid && f_state_reg != F_IDLE && f_key_reg == key_reset) begin
            f_stale_reg <= 1'b1;
            // a way taken for it in F_SIZE3 this very cycle is dropped as well
            if (f_state_reg == F_SIZE3) used_reg[f_way_i] <= 1'b0;
        end

        // stage C holds the look-up of the inputs of three cycles ago
        if (settle_reg != 2'd3) settle_reg <= settle_reg + 1'b1;
        if (key != key_q || rq_ci != ci_q || ways_chg) settle_reg <= 2'd1;

        if (rst) begin
            used_reg <= '0;
            err_reg <= '0;
            victim_reg <= '0;
            f_state_reg <= F_IDLE;
            settle_reg <= 2'd0;
            ways_chg <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // no two ways hold the same QP
    always_ff @(posedge clk) begin
        if (!rst) begin
            if (key == key_q && rq_ci == ci_q) assert (hit_still == hit && look_done == settled);
            for (int a = 0; a < WAYS; a++)
                for (int b = a + 1; b < WAYS; b++)
                    assert (!(used_reg[a] && used_reg[b] && w_key_reg[a] == w_key_reg[b]));
        end
    end
`endif
`endif

endmodule

`resetall
