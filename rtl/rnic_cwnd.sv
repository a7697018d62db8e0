`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Requester send window of each QP, in PSNs: how much the requester lets be
 * outstanding (sent and not acknowledged) before it waits for ACKs. Go-back-N
 * stays the protocol on the wire (a restart re-sends from the first
 * unacknowledged PSN); this window decides how much of it goes out at once.
 *
 * The window starts at WND_MAX (the in-flight WQE window and max_rd_atomic
 * are then the only limits, as without it). A go-back-N restart (a PSN
 * sequence NAK, the ACK timer, a READ response gap, an ACK passing an
 * incomplete READ: every restart request of the completion engine) sets it
 * to WND_MIN and the slow-start threshold to half of what was outstanding
 * when the requester was asked to restart (at least WND_MIN), and remembers
 * the PSN acknowledged then: further restarts while no acknowledgement has
 * passed it belong to the same loss (a second NAK, a stale READ response
 * gap, the ACK timer on the same PSN) and do not cut it again. A restart
 * after progress is a new loss, also while the loss before is still being
 * repaired (go-back-N re-sends everything after a lost packet, so a loss of
 * a re-sent packet is one of what the cut window let out): the window is
 * cut again, the threshold to half of what is outstanding then, so under
 * steady loss the window settles where about one loss per window happens.
 * ACKs grow it back: by every PSN acknowledged below the threshold (slow
 * start: doubling per round trip), by one in 2^CA_SHIFT above it.
 *
 * The engine is told about a QP when the requester takes it from the
 * scheduler (take, in the cycle the requester's own per-QP state is
 * current): the restart request, the last PSN acknowledged and the PSN it
 * would send next. The entry read at rd_qpn in the cycle before is current
 * then (a write of the cycle before is forwarded). The cycle after the take,
 * wnd is the entry's window; one cycle later its update, which is written
 * back then, before the requester can take the QP again (a turn lasts at
 * least three cycles); wnd_m1 (wnd - 1) follows wnd a cycle later. Growth
 * is credited at the next take, so a QP waiting for room is taken again by
 * the requester's requeue, not by an ACK event.
 *
 * Per QP: {wnd, threshold, acknowledged PSN at the last take, acknowledged
 * PSN at the last cut, no progress since that cut}, the PSNs in their low
 * WND_W bits (differences mod 2^WND_W: one turn's ACK
 * progress or a window beyond 2^WND_W PSNs is clamped, not wrapped, where it
 * matters: the window and the threshold). One block RAM (rnic_ram_1w1r) of
 * 2^QPN_WIDTH entries; a context write (reset_valid) resets the entry.
 *
 * Logic: in the take cycle a subtract or compare of WND_W bits behind the
 * RAM's registered output and its forward; in the next, one add and one
 * compare of WND_W bits into the selection of the new entry.
 */
module rnic_cwnd #(
    parameter int QPN_WIDTH = 10,
    parameter int WND_W = 16,
    // never below this: twice the requester's AckReq interval, so two
    // ACK-asking packets are outstanding whenever it waits for room
    parameter int WND_MIN = 32,
    // above the threshold: grow by one PSN per 2^CA_SHIFT acknowledged
    parameter int CA_SHIFT = 3
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    // the entry of this QP is read every cycle (registered)
    input  wire logic [QPN_WIDTH-1:0] rd_qpn,
    // the requester takes the QP read in the last cycle (rd_qpn unchanged)
    input  wire logic                 take,
    input  wire logic                 take_loss,       // it is asked to restart (go-back-N)
    input  wire logic [23:0]          take_acked_psn,  // last PSN acknowledged
    input  wire logic [23:0]          take_next_psn,   // next PSN it would send, before any restart

    // the window of the QP taken (the cycle after the take: as stored; from
    // the next one on: updated), and the window minus one
    output      logic [WND_W-1:0]     wnd,
    output      logic [WND_W-1:0]     wnd_m1,

    // a QP context write: the entry starts over (no take in that cycle)
    input  wire logic                 reset_valid,
    input  wire logic [QPN_WIDTH-1:0] reset_qpn,
    input  wire logic [23:0]          reset_psn
);

    localparam logic [WND_W-1:0] WND_MAX = '1;
    localparam int E_BITS = 4 * WND_W + 1;

    initial begin
        if (WND_MIN < 2 || WND_MIN >= (1 << (WND_W - 1)) || CA_SHIFT < 0 || CA_SHIFT >= WND_W) begin
            $error("rnic_cwnd: bad WND_MIN / CA_SHIFT for WND_W (%m)");
            $finish;
        end
    end

    // entry: {wnd, threshold, acked at the last take, acked at the last
    // cut, no progress since that cut}
    function automatic logic [E_BITS-1:0] pack(input logic [WND_W-1:0] w, input logic [WND_W-1:0] t,
                                               input logic [WND_W-1:0] a, input logic [WND_W-1:0] r,
                                               input logic armed);
        pack = {w, t, a, r, armed};
    endfunction

    logic                 we;
    logic [QPN_WIDTH-1:0] wa;
    logic [E_BITS-1:0]    wd;
    logic [E_BITS-1:0]    ram_rd;
    wire                  unused_init;

    rnic_ram_1w1r #(.WIDTH(E_BITS), .ADDR_WIDTH(QPN_WIDTH), .ZERO_UNWRITTEN(0)) ram_inst (
        .clk, .rst, .wr_en(we), .wr_addr(wa), .wr_data(wd),
        .rd_en(1'b1), .rd_addr(rd_qpn), .rd_data(ram_rd), .init_done(unused_init)
    );

    // a write in the cycle of the read reaches the RAM after it: forward it
    logic              fwd_reg;
    logic [E_BITS-1:0] fwd_data_reg;
    always_ff @(posedge clk) begin
        fwd_reg <= we && wa == rd_qpn;
        fwd_data_reg <= wd;
    end
    wire [E_BITS-1:0] ent = fwd_reg ? fwd_data_reg : ram_rd;
    wire [WND_W-1:0]  e_wnd = ent[3*WND_W + 1 +: WND_W];
    wire [WND_W-1:0]  e_thr = ent[2*WND_W + 1 +: WND_W];
    wire [WND_W-1:0]  e_acked = ent[WND_W + 1 +: WND_W];
    wire [WND_W-1:0]  e_rec = ent[1 +: WND_W];
    wire              e_armed = ent[0];

    // stage 1 (the take): the differences, each one subtract behind the
    // entry's forward multiplexer
    logic                 s1_valid, s1_loss, s1_same, s1_slow;
    logic [QPN_WIDTH-1:0] s1_qpn;
    logic [WND_W-1:0]     s1_wnd, s1_thr, s1_acked, s1_rec, s1_delta, s1_flight;
    wire  [WND_W-1:0]     t_acked = take_acked_psn[WND_W-1:0];
    wire  [WND_W-1:0]     t_next = take_next_psn[WND_W-1:0];
    // ACK progress since the last take; "negative" (never, but for a
    // context write racing it) counts nothing
    wire  [WND_W-1:0]     t_delta = t_acked - e_acked;
    always_ff @(posedge clk) begin
        s1_valid <= take && !rst;
        s1_qpn <= rd_qpn;
        s1_loss <= take_loss;
        s1_same <= e_armed && t_acked == e_rec;   // no progress since the last cut
        s1_slow <= e_wnd < e_thr;
        s1_wnd <= e_wnd;
        s1_thr <= e_thr;
        s1_acked <= t_acked;
        s1_rec <= e_rec;
        s1_delta <= t_delta[WND_W-1] ? '0 : t_delta;
        s1_flight <= t_next + ~t_acked;   // next - acked - 1: outstanding
    end

    // stage 2: the new entry, from two sums and a halving side by side. A
    // "negative" outstanding count (acknowledged past the next PSN) is none.
    wire [WND_W-1:0] half = s1_flight >> 1;
    wire [WND_W-1:0] shrunk = (s1_flight[WND_W-1] || half < WND_W'(WND_MIN)) ? WND_W'(WND_MIN) : half;
    wire [WND_W:0]   ss_sum = {1'b0, s1_wnd} + {1'b0, s1_delta};
    wire [WND_W:0]   ca_sum = {1'b0, s1_wnd} + {1'b0, s1_delta >> CA_SHIFT};
    wire [WND_W:0]   sum = s1_slow ? ss_sum : ca_sum;
    wire [WND_W-1:0] grown = sum[WND_W] ? WND_MAX : sum[WND_W-1:0];
    wire             cut = s1_loss && !s1_same;

    logic [WND_W-1:0] n_wnd, n_thr;
    always_comb begin
        n_wnd = grown;
        n_thr = s1_thr;
        if (cut) begin
            n_wnd = WND_W'(WND_MIN);
            n_thr = shrunk;
        end
    end

    always_comb begin
        we = reset_valid || s1_valid;
        wa = reset_valid ? reset_qpn : s1_qpn;
        wd = reset_valid ? pack(WND_MAX, WND_MAX, reset_psn[WND_W-1:0] - WND_W'(1), '0, 1'b0)
                         : pack(n_wnd, n_thr, s1_acked, cut ? s1_acked : s1_rec, cut || s1_same);
    end

    // wnd_m1 follows wnd a cycle later (the subtract is not behind the
    // selection)
    always_ff @(posedge clk) begin
        if (s1_valid) wnd <= n_wnd;
        else if (take) wnd <= e_wnd;
        wnd_m1 <= wnd - WND_W'(1);
        if (rst) begin
            wnd <= WND_MAX;
            wnd_m1 <= WND_MAX - WND_W'(1);
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the context write never meets the write-back of a take
    always_ff @(posedge clk) begin
        if (!rst) assert (!(reset_valid && s1_valid));
        if (!rst) assert (!(reset_valid && take));
    end
`endif
`endif

    wire unused_ok = ^{unused_init, take_acked_psn[23:WND_W], take_next_psn[23:WND_W], reset_psn[23:WND_W]};

endmodule

`resetall
