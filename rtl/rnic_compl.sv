`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Requester completion engine: acknowledgements, retries, timers.
 *
 * An ACK whose PSN lies between the last acknowledged PSN and the highest PSN
 * sent acknowledges every packet up to it; the engine then walks the QP's
 * in-flight WQEs from the oldest and retires each whose last PSN is covered,
 * asking for a CQE when the WQE was signaled. Forward progress refills the
 * retry counters and restarts the ACK timer.
 *
 * Go-back-N (IBTA 9.7.5.2): a PSN sequence error NAK, or the local ACK timer
 * running out (4.096 us * 2^timeout without progress while packets are
 * outstanding), asks the requester to restart at the first unacknowledged
 * PSN (a "rewind": the requester re-reads the WQE and its payload from host
 * memory and resumes mid-message if need be) and uses one of retry_cnt; an
 * RNR NAK waits the RNR timer the NAK carries (IBTA Table 45), then rewinds,
 * using one of rnr_retry (7: forever). A NAK or timeout with no retries left
 * ends the WQE holding the PSN with RETRY_EXC_ERR / RNR_RETRY_EXC_ERR.
 *
 * Other NAKs acknowledge the packets before their PSN, end the WQE holding
 * that PSN with the status the syndrome names (IBTA Table 43 -> ibv_wc_status)
 * and put the QP in the error state; every later WQE then completes with
 * WR_FLUSH_ERR. A NAK inside a WQE the requester is still sending (a
 * responder's check failed on a middle packet) finds no record to end: the
 * QP goes to the error state at once and the NAK's status and syndrome are
 * kept in the QP's state, so that WQE, the next record retired, completes
 * with them when it is recorded (whether the requester records it as sent
 * or as flushed); the kept status is then cleared, as a QP reset clears it.
 * A record the requester wrote with an error status (local check
 * failed, flush) retires in order behind the WQEs before it. Retiring frees
 * the in-flight window, so the QP is kicked back into the scheduler. When a
 * QP enters the error state here, an error event tells the responder, which
 * flushes the QP's receive queue.
 *
 * RDMA READ: a READ response is taken only at the next PSN expected (one
 * past the last acknowledged) and only for the READ WQE holding that PSN,
 * with the opcode and length its place in the message calls for; the
 * placement engine is told to write its payload into the WQE's SGEs, else to
 * drop it (a re-read may start with FIRST and end with LAST anywhere in the
 * message: the requester re-reads in pieces its send window allows). Each
 * response placed acknowledges its PSN; the last one retires the READ, whose CQE waits (in the CQE queue, while later responses are placed) until the placement writes are done. A response
 * past the expected PSN means responses were lost: the requester is asked
 * once to re-read from the first missing PSN. An ACK or NAK whose PSN passes
 * a READ that has not received all its responses (lost, or overtaken on the
 * link) acknowledges only up to the READ's data and re-reads the rest.
 * ATOMIC: the ATOMIC ACKNOWLEDGE at the atomic WQE's PSN is taken the same
 * way; the original remote value it carries goes to the placement engine,
 * which writes it into the WQE's 8-byte SGE.
 *
 * A response for a QP that has had no context write since power-up (whose
 * per-QP state nothing has defined yet) is discarded.
 * Timers: one deadline check per cycle, sweeping the QPs round robin, so a
 * timer fires at most 2^QPN_WIDTH cycles late (4 us at 1024 QPs, 250 MHz).
 */
module rnic_compl #(
    parameter int QPN_WIDTH = 10,
    parameter int INFLIGHT_LOG2 = 4,
    parameter int INF_BITS = 113,
    parameter int CLOCK_MHZ = rnic_pkg::CLOCK_MHZ
) (
    input  wire logic                               clk,
    input  wire logic                               rst,

    input  wire logic [47:0]                        now,
    // payload reads of the requester still in flight: an error completion
    // waits for them, so a flushed WQE's buffer is free when its CQE is seen
    input  wire logic                               pay_rd_busy,

    // ACK / NAK headers from the receive dispatcher
    input  wire logic                               s_ack_valid,
    output      logic                               s_ack_ready,
    input  wire logic [QPN_WIDTH-1:0]               s_ack_qpn,
    input  wire logic [23:0]                        s_ack_psn,
    input  wire logic [7:0]                         s_ack_syndrome,
    input  wire logic [7:0]                         s_ack_opcode,
    input  wire logic [15:0]                        s_ack_plen,
    input  wire logic [63:0]                        s_ack_orig,     // AtomicAckETH
    // the ACK stands for a UD frame handed to the MAC (rnic_ud_txdone): no
    // ACK came from the wire, so STAT_RX_ACK does not count it
    input  wire logic                               s_ack_local,

    // READ response payloads: place (WQE, offset) or drop, one per response
    output      logic                               m_place_valid,
    input  wire logic                               m_place_ready,
    output      logic                               m_place_drop,
    output      logic [QPN_WIDTH-1:0]               m_place_qpn,
    output      logic [15:0]                        m_place_idx,
    output      logic [31:0]                        m_place_off,
    output      logic [15:0]                        m_place_len,
    output      logic                               m_place_atomic, // write m_place_data, not a payload
    output      logic [63:0]                        m_place_data,
    // placement commands whose writes are all answered (mod 2^16, in order)
    input  wire logic [15:0]                        place_done_cnt,

    // error records written by the requester
    input  wire logic                               s_local_valid,
    output      logic                               s_local_ready,
    input  wire logic [QPN_WIDTH-1:0]               s_local_qpn,
    input  wire logic                               s_local_force,  // the QP is in error

    // requester state: highest WQE index and PSN sent (two ports), and when
    // the requester last sent into an idle window; registered reads, the
    // data a cycle after the address
    output      logic [QPN_WIDTH-1:0]               hi_rd_qpn,
    input  wire logic [15:0]                        hi_rd_idx,
    input  wire logic [23:0]                        hi_rd_psn,
    output      logic [QPN_WIDTH-1:0]               hi2_rd_qpn,
    input  wire logic [15:0]                        hi2_rd_idx,
    input  wire logic [47:0]                        hi2_rd_sent_time,

    // this engine's state, read by the requester: registered, the data a
    // cycle after the address (writes in between are forwarded)
    input  wire logic [QPN_WIDTH-1:0]               una_rd_qpn,
    output      logic [15:0]                        una_rd_idx,
    output      logic [23:0]                        una_rd_acked_psn,
    output      logic [1:0]                         una_rd_rewind,
    output      logic                               una_rd_gap,
    output      logic                               una_rd_rnr_wait,
    output      logic                               una_rd_err,
    // the error state, read by the responder: registered, the data a cycle
    // after the address (the responder holds it that long before the use)
    input  wire logic [QPN_WIDTH-1:0]               err2_rd_qpn,
    output      logic                               err2_rd_val,

    // in-flight table
    output      logic                               inf_rd_en,
    output      logic [QPN_WIDTH+INFLIGHT_LOG2-1:0] inf_rd_addr,
    input  wire logic [INF_BITS-1:0]                inf_rd_data,

    // QP context writes: CTX_OP_WRITE resets, QP_RTS loads the send PSN,
    // every write refreshes the retry parameters
    input  wire logic                               qp_reset_valid,
    input  wire logic                               qp_rts_valid,
    input  wire logic                               qp_cfg_valid,
    input  wire logic [QPN_WIDTH-1:0]               qp_reset_qpn,
    input  wire logic [23:0]                        qp_reset_sq_psn,
    input  wire logic [2:0]                         qp_cfg_retry_cnt,
    input  wire logic [2:0]                         qp_cfg_rnr_retry,
    input  wire logic [4:0]                         qp_cfg_timeout,
    input  wire logic [2:0]                         qp_cfg_pmtu,
    // a QP context write waits (take no new event, so one is soon free), and
    // whether this engine leaves the per-QP state's write port free now
    input  wire logic                               ctx_pend,
    output      logic                               ctx_ready,

    // CQE requests
    output      logic                               m_cqe_valid,
    input  wire logic                               m_cqe_ready,
    output      logic [15:0]                        m_cqe_cqn,
    output      logic [23:0]                        m_cqe_qpn,
    output      logic [15:0]                        m_cqe_wqe_counter,
    output      logic [7:0]                         m_cqe_opcode,
    output      logic [7:0]                         m_cqe_status,
    output      logic [31:0]                        m_cqe_byte_len,
    output      logic [23:0]                        m_cqe_src_qp,
    output      logic [7:0]                         m_cqe_syndrome,

    output      logic                               m_err_valid,
    input  wire logic                               m_err_ready,
    output      logic [QPN_WIDTH-1:0]               m_err_qpn,

    output      logic                               m_kick_valid,
    input  wire logic                               m_kick_ready,
    output      logic [QPN_WIDTH-1:0]               m_kick_qpn,

    output      logic                               stat_rx_ack,
    output      logic                               stat_rx_nak,
    output      logic                               stat_rx_rnr,
    output      logic                               stat_retry,
    output      logic                               stat_timeout,

    // the per-QP table of live QPs is clear after reset
    output      logic                               init_done
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;

    initial begin
        if (INF_BITS != 113) begin
            $error("rnic_compl: in-flight record layout is 113 bits (%m)");
            $finish;
        end
    end

    // a <= b in 24-bit serial-number arithmetic
    function automatic logic psn_le(input logic [23:0] a, input logic [23:0] b);
        logic [23:0] d;
        d = b - a;
        psn_le = d < 24'h800000;
    endfunction
    // ns -> cycles at the stated clock
    function automatic logic [47:0] ns_cycles(input logic [47:0] ns);
        ns_cycles = ns * 48'(CLOCK_MHZ) / 48'd1000;
    endfunction

    // IBTA Table 45, in cycles (each entry a constant: no multiplier or
    // divider in the data path)
    function automatic logic [47:0] rnr_cycles(input logic [4:0] code);
        case (code)
            5'd0: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_0_NS));     5'd1: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_1_NS));
            5'd2: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_2_NS));     5'd3: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_3_NS));
            5'd4: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_4_NS));     5'd5: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_5_NS));
            5'd6: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_6_NS));     5'd7: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_7_NS));
            5'd8: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_8_NS));     5'd9: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_9_NS));
            5'd10: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_10_NS));   5'd11: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_11_NS));
            5'd12: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_12_NS));   5'd13: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_13_NS));
            5'd14: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_14_NS));   5'd15: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_15_NS));
            5'd16: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_16_NS));   5'd17: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_17_NS));
            5'd18: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_18_NS));   5'd19: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_19_NS));
            5'd20: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_20_NS));   5'd21: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_21_NS));
            5'd22: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_22_NS));   5'd23: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_23_NS));
            5'd24: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_24_NS));   5'd25: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_25_NS));
            5'd26: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_26_NS));   5'd27: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_27_NS));
            5'd28: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_28_NS));   5'd29: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_29_NS));
            5'd30: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_30_NS));   default: rnr_cycles = ns_cycles(48'(rnic_pkg::RNR_TIMER_31_NS));
        endcase
    endfunction

    // ------------------------------------------------------------------
    // per-QP state
    // ------------------------------------------------------------------
    logic [15:0] una_mem [NUM_QPS];
    logic [23:0] last_acked_mem [NUM_QPS];
    logic        err_mem [NUM_QPS];
    logic [2:0]  retry_left_mem [NUM_QPS];
    logic [2:0]  rnr_left_mem [NUM_QPS];
    logic        rnr_wait_mem [NUM_QPS];
    logic [47:0] rnr_until_mem [NUM_QPS];
    logic [47:0] progress_mem [NUM_QPS];    // last ACK progress or restart
    logic [1:0]  rewind_mem [NUM_QPS];      // bumped per restart request
    logic [2:0]  cfg_retry_mem [NUM_QPS];
    logic [2:0]  cfg_rnr_mem [NUM_QPS];
    logic [4:0]  cfg_timeout_mem [NUM_QPS];
    // the sweep's form of the ACK timeout: {on (code != 0), limit == 0,
    // limit - 1}, written with the code (the code's table lookup ran between
    // the sweep's read and its 48-bit bound)
    logic [49:0] cfg_lim_mem [NUM_QPS];
    // the ACK timeout (limit - 1, limit == 0) per timeout code: constants
    logic [47:0] lim_m1_tab [32];
    logic        lim_zero_tab [32];
    for (genvar k = 0; k < 32; k++) begin : g_lim
        assign lim_m1_tab[k] = (ns_cycles(48'(rnic_pkg::ACK_TIMEOUT_UNIT_NS)) << k) - 48'd1;
        assign lim_zero_tab[k] = (ns_cycles(48'(rnic_pkg::ACK_TIMEOUT_UNIT_NS)) << k) == 48'd0;
    end
    logic [2:0]  cfg_pmtu_mem [NUM_QPS];
    // a READ response past the first unacknowledged PSN came since the last
    // progress (a re-read was asked then): the responder took every request
    // up to it, the unacknowledged WQE's included (the requester may re-read
    // that READ in pieces, each a duplicate to the responder)
    logic        gap_mem [NUM_QPS];
    // a NAK's {valid, syndrome, status} kept for the WQE holding its PSN,
    // which the requester had not recorded yet
    logic [16:0] keep_mem [NUM_QPS];

    // ------------------------------------------------------------------
    // timer sweep: one QP per cycle, in two stages. Stage A (sc_qpn_reg)
    // turns the QP's own state, read the cycle before with the writes of
    // both cycles forwarded, into registered flags and bounds; stage B
    // (scan_reg) compares them with the requester's state, read fresh for
    // it, and decides. No 48-bit subtraction is left in B: "now - t >=
    // limit" becomes "t outside [now - limit + 1, now]" with the bound from A.
    // ------------------------------------------------------------------
    logic [QPN_WIDTH-1:0] scan_reg;
    // QPs whose context has been written since reset: the per-QP RAMs of the
    // others hold whatever the FPGA powered up with. A RAM like the others
    // (read by the sweep, registered), cleared after reset one QP per cycle;
    // context writes wait for init_done (rnic_core)
    logic                 live_mem [NUM_QPS];
    logic                 live_ev_mem [NUM_QPS];
    logic [QPN_WIDTH:0]   live_clear_reg;
    assign init_done = live_clear_reg[QPN_WIDTH];
    logic [QPN_WIDTH-1:0] sc_qpn_reg;           // stage A's QP
    logic                 sc_ok_reg;
    logic                 scan_ok_reg;          // stage B holds stage A's result
    // B holds at a due QP the way a single-stage sweep would: by going back
    // to it (A recomputes it), two cycles later
    logic                 scan_back_reg;
    logic [QPN_WIDTH-1:0] scan_back_qpn_reg;
    logic [15:0]          scan_una_reg;
    logic                 scan_pre_reg;         // no RNR wait, timer on, no error
    logic                 scan_live_reg;
    logic                 scan_rnr_due_reg;     // RNR wait over
    logic [47:0]          scan_prog_reg;
    logic [47:0]          scan_lo_reg;          // now - limit + 1 (mod 2^48)
    logic                 scan_wrap_reg;        // ... wrapped below zero
    logic                 scan_lz_reg;          // limit is 0 (every age passes)
    // the requester's state for B comes from registered reads given A's QP
    assign hi2_rd_qpn = sc_qpn_reg;

    // a < b, 48 bits, from 8-bit pieces: one carry cell each, combined in
    // logic (a piece below every equal one above it is less): 12-bit pieces
    // took two carry cells, one level more on the timer sweep's compares
    function automatic logic lt48(input logic [47:0] a, input logic [47:0] b);
        logic [5:0] lt, eq;
        logic       hi_eq;
        for (int i = 0; i < 6; i++) begin
            lt[i] = a[8*i +: 8] < b[8*i +: 8];
            eq[i] = a[8*i +: 8] == b[8*i +: 8];
        end
        // flat: a sum of products, not a chain the synthesis keeps
        lt48 = 1'b0;
        for (int i = 5; i >= 0; i--) begin
            hi_eq = 1'b1;
            for (int j = i + 1; j < 6; j++) hi_eq = hi_eq && eq[j];
            lt48 = lt48 || (hi_eq && lt[i]);
        end
    endfunction
    // $signed(a - b) < 0: the difference's sign bit
    function automatic logic neg48(input logic [47:0] a, input logic [47:0] b);
        neg48 = a[47] ^ b[47] ^ lt48({1'b0, a[46:0]}, {1'b0, b[46:0]});
    endfunction
    // {borrow, a - b - bin}, 48 bits, as a carry-select subtractor of 8-bit
    // pieces: each piece both ways at once (one carry cell), the borrows
    // chosen in logic
    function automatic logic [48:0] sub48(input logic [47:0] a, input logic [47:0] b, input logic bin);
        logic [7:0] d0, d1;
        logic [5:0] g, e;
        logic [6:0] bw;
        logic       all_eq;
        for (int i = 0; i < 6; i++) begin
            g[i] = a[8*i +: 8] < b[8*i +: 8];
            e[i] = a[8*i +: 8] == b[8*i +: 8];
        end
        // each piece's borrow in, flat: a piece below borrows, and every
        // piece between it and this one is equal (written as a chain, the
        // synthesis kept it one: 3 LUT levels more)
        for (int i = 0; i <= 6; i++) begin
            all_eq = 1'b1;
            for (int j = 0; j < i; j++) all_eq = all_eq && e[j];
            bw[i] = bin && all_eq;
            for (int j = 0; j < i; j++) begin
                all_eq = 1'b1;
                for (int m = j + 1; m < i; m++) all_eq = all_eq && e[m];
                bw[i] = bw[i] || (g[j] && all_eq);
            end
        end
        for (int i = 0; i < 6; i++) begin
            d0 = a[8*i +: 8] - b[8*i +: 8];
            d1 = a[8*i +: 8] + ~b[8*i +: 8];
            sub48[8*i +: 8] = bw[i] ? d1 : d0;
        end
        sub48[48] = bw[6];
    endfunction
    // a - b - bin, 24 bits, the same way
    function automatic logic [23:0] sub24(input logic [23:0] a, input logic [23:0] b, input logic bin);
        logic [11:0] d0, d1;
        logic        bw;
        bw = a[11:0] < b[11:0] || (a[11:0] == b[11:0] && bin);
        d0 = a[11:0] - b[11:0];
        d1 = a[11:0] + ~b[11:0];
        sub24[11:0] = bin ? d1 : d0;
        d0 = a[23:12] - b[23:12];
        d1 = a[23:12] + ~b[23:12];
        sub24[23:12] = bw ? d1 : d0;
    endfunction
    // now - t >= limit (mod 2^48): t lies outside [lo, now], lo = now - limit + 1
    function automatic logic aged48(input logic [47:0] t, input logic [47:0] n, input logic [47:0] lo,
                                    input logic wrap, input logic lz);
        logic ge_lo, le_now;
        ge_lo = !lt48(t, lo);
        le_now = !lt48(n, t);
        aged48 = lz || !(wrap ? (ge_lo || le_now) : (ge_lo && le_now));
    endfunction
    // the later of the requester's last send into an idle window and the
    // last progress is the reference of the ACK timer: it has aged when both
    // have (both times are past ones, within half the counter's range, so
    // the later is the one of the smaller age; the choice of the later one
    // by a signed compare stood in front of the age compares)
    wire scan_aged = aged48(hi2_rd_sent_time, now, scan_lo_reg, scan_wrap_reg, scan_lz_reg)
                     && aged48(scan_prog_reg, now, scan_lo_reg, scan_wrap_reg, scan_lz_reg);
    wire scan_rnr_due = scan_rnr_due_reg;
    wire scan_ack_due = scan_pre_reg && scan_una_reg != hi2_rd_idx && scan_aged;
    wire scan_due = scan_ok_reg && !scan_back_reg && init_done && scan_live_reg
                    && (scan_rnr_due || scan_ack_due);

    always_ff @(posedge clk) begin
        if (!init_done) live_mem[live_clear_reg[QPN_WIDTH-1:0]] <= 1'b0;
        else if (qp_reset_valid) live_mem[qp_reset_qpn] <= 1'b1;
    end
    // the same bit for the events (a table per read port): a response for
    // a QP that has had no context write since power-up meets state nothing
    // defined, and is discarded
    always_ff @(posedge clk) begin
        if (!init_done) live_ev_mem[live_clear_reg[QPN_WIDTH-1:0]] <= 1'b0;
        else if (qp_reset_valid) live_ev_mem[qp_reset_qpn] <= 1'b1;
    end
    always_ff @(posedge clk) begin
        if (!init_done) live_clear_reg <= live_clear_reg + 1'b1;
        if (rst) live_clear_reg <= '0;
    end

    typedef enum logic [3:0] {
        S_IDLE,   // take an ACK/NAK, a local trigger or a due timer
        S_LOAD,   // the QP's state, read when the event was taken, into the registers
        S_ACK,    // check the PSN against the window
        S_TIMER,  // a timer ran out
        S_WALK,   // read the oldest in-flight record
        S_REC,    // compare it with the ACK window (registered for S_CHECK)
        S_CHECK,  // retire it, or stop
        S_CQE,    // hand the CQE to the writer
        S_ERREV,  // tell the responder the QP entered the error state
        S_POST,   // restart request or RNR wait
        S_KICK,   // wait for the kick register (a kick still untaken)
        S_RDREAD, // READ response: read the in-flight record it belongs to
        S_RDREC,  // its geometry and compares, registered for S_RDCHK
        S_RDCHK,  // check it: place or drop
        S_PLACE,  // hand the decision to the placement engine
        S_STOP    // the walk met a READ still missing responses
    } state_t;

    // what happens after the walk
    localparam logic [1:0] POST_NONE = 2'd0;
    localparam logic [1:0] POST_REWIND = 2'd1;
    localparam logic [1:0] POST_RNR_WAIT = 2'd2;

    state_t state_reg;
    logic [QPN_WIDTH-1:0] qpn_reg;
    logic [23:0]          psn_reg;
    logic [23:0]          psn_m1_reg;     // psn_reg - 1, taken with it
    logic [7:0]           syn_reg;
    logic                 nak_reg;        // walking for a NAK: the WQE holding psn_reg fails
    logic [7:0]           nak_status_reg;
    logic [23:0]          acked_reg;      // last acknowledged PSN of qpn_reg
    logic [15:0]          una_reg;
    logic                 err_reg;
    logic                 retired_reg;
    logic                 errev_reg;      // the QP entered the error state in this walk
    logic [1:0]           post_reg;
    logic [2:0]           retry_left_reg;
    logic [2:0]           rnr_left_reg;
    logic                 rnr_wait_reg;
    logic [47:0]          rnr_until_reg;
    logic [47:0]          progress_reg;
    logic [1:0]           rewind_reg;
    logic                 timer_rnr_reg;  // S_TIMER: the RNR wait ended (else ACK timeout)
    // the response's BTH opcode, decoded as it is taken (flip-flops: as
    // compares of an opcode register they were the first two levels of the
    // walk's decisions and of the placement command)
    logic                 opc_first, opc_middle, opc_last, opc_only, opc_atomic;
    logic [15:0]          plen_reg;       // its payload bytes
    logic [63:0]          orig_reg;       // its AtomicAckETH
    logic [23:0]          acked_pre_reg;  // last acknowledged PSN before this event
    logic                 rd_ev_reg;      // this event placed a READ response at psn_reg
    logic                 gap_reg;
    logic                 place_drop_reg;
    logic [31:0]          place_off_reg;
    state_t               after_place_reg;
    logic                 keep_reg;       // a NAK's status waits for its WQE's record
    logic [7:0]           keep_syn_reg;
    logic [7:0]           keep_status_reg;

    // in-flight record fields
    wire [23:0] rec_last_psn = inf_rd_data[23:0];
    wire        rec_signaled = inf_rd_data[24];
    wire [7:0]  rec_status   = inf_rd_data[32:25];
    wire [7:0]  rec_opcode   = inf_rd_data[40:33];
    wire [31:0] rec_len      = inf_rd_data[72:41];
    wire [15:0] rec_cqn      = inf_rd_data[88:73];
    wire [23:0] rec_src_qp   = inf_rd_data[112:89];

    // new events wait while a QP context write does, but for the
    // requester's local trigger: the requester holds it in a state in which
    // it is busy (its ctx_ready low), so the write cannot be taken before it
    // and refusing it would hold both engines forever. Taking it makes this
    // engine busy, so the write still never lands under an event (below).
    wire ack_in = s_ack_valid && !ctx_pend;
    logic ack_local_reg;
    wire local_in = s_local_valid && !ack_in;
    wire scan_in = scan_due && !ctx_pend && !s_ack_valid && !s_local_valid;
    assign s_ack_ready = state_reg == S_IDLE && !ctx_pend;
    assign s_local_ready = state_reg == S_IDLE && !ack_in;
    // the requester's highest index and PSN of the QP: read at the QP being
    // taken while idle (so they are current in S_LOAD), then at qpn_reg
    assign hi_rd_qpn = (state_reg == S_IDLE) ? take_qpn : qpn_reg;
    // The record at una_reg is read in S_WALK and S_RDREAD, and already in
    // S_ACK, whose walk then starts at S_REC. The next record (una_reg + 1)
    // is read in S_CHECK and S_CQE, ahead of the retire that moves una_reg
    // to it: a walk goes on from a retired record straight to S_REC when
    // that record is in flight (nx_ne_hi_reg; S_WALK would choose S_REC),
    // one cycle a record less.
    wire inf_rd_next = state_reg == S_CHECK || state_reg == S_CQE;
    assign inf_rd_en = state_reg == S_WALK || state_reg == S_RDREAD || state_reg == S_ACK || inf_rd_next;
    assign inf_rd_addr = {qpn_reg, una_reg[INFLIGHT_LOG2-1:0] + INFLIGHT_LOG2'(inf_rd_next)};
    // The scheduler's kick is a register: a walk that ends with one loads it
    // and goes idle in the same cycle (S_KICK only while an older kick is
    // still untaken), so the next event does not wait for the handshake.
    logic                 kick_valid_reg;
    logic [QPN_WIDTH-1:0] kick_qpn_reg;
    assign m_kick_valid = kick_valid_reg;
    assign m_kick_qpn = kick_qpn_reg;
    assign m_err_valid = state_reg == S_ERREV;
    assign m_err_qpn = qpn_reg;
    // CQEs leave through a short queue: a READ's (or ATOMIC's) waits at its
    // head until the placement engine has done every command issued before
    // it was queued (its data is in host memory), while this engine goes on
    // placing the responses after it. The CQEs behind it wait too (in order).
    // (Waiting in S_CQE for the placement engine to go idle held back the
    // placement of every response behind a signaled READ for the round trip
    // of its last write: 200-230 cycles per 16 READs of 4 KiB.)
    localparam int CQF_LOG2 = 2;
    localparam int CQF = 2 ** CQF_LOG2;
    localparam int CQE_F_BITS = 16 + QPN_WIDTH + 16 + 8 + 8 + 32 + 24 + 8;
    logic [CQE_F_BITS-1:0] cqf_mem [CQF];
    logic                  cqf_data_mem [CQF];   // waits for the placement
    logic [15:0]           cqf_fence_mem [CQF];  // ... until place_done_cnt reaches this
    logic [CQF_LOG2:0]     cqf_wr_reg, cqf_rd_reg;
    logic                  cqf_full_reg;
    logic [15:0]           place_cnt_reg;        // placement commands issued
    wire                   cqf_empty = cqf_wr_reg == cqf_rd_reg;
    wire [CQF_LOG2-1:0]    cqf_head = cqf_rd_reg[CQF_LOG2-1:0];
    // per entry, registered: place_done_cnt has reached its fence (a cycle
    // late at worst, never early: the count only grows, and an entry just
    // written reads as not reached)
    logic [CQF-1:0]        cqf_ok_reg;
    logic                  cqe_succ_reg;         // cqe_status_reg == WC_SUCCESS
    wire                   cqe_in = state_reg == S_CQE && (cqe_succ_reg || !pay_rd_busy);
    // every command issued so far is done (the counts are registered)
    wire                   place_all_done = place_done_cnt == place_cnt_reg;
    // ... as a flip-flop for the bypass below: a cycle late, and cleared in
    // a cycle a command is issued, so never early (the done count never
    // passes the issued one); the compare ran through the CQE's valid and
    // the writer's arbiter into the responder's action queue (13 levels)
    logic                  place_done_q;
    // with the queue empty the CQE goes straight to the writer when it may
    // (as fast as without the queue; a cycle later when the placement's
    // last write was answered in the last cycle), else into the queue
    wire                   cqe_byp = cqf_empty && cqe_in && (!cqe_data_reg || place_done_q);
    wire                   cqe_push = cqe_in && !cqf_full_reg && !(cqe_byp && m_cqe_ready);
    wire                   cqe_pop = !cqf_empty && m_cqe_valid && m_cqe_ready;
    wire [CQF_LOG2:0]      cqf_wr_next = cqf_wr_reg + (CQF_LOG2+1)'(cqe_push);
    wire [CQF_LOG2:0]      cqf_rd_next = cqf_rd_reg + (CQF_LOG2+1)'(cqe_pop);
    assign m_cqe_valid = cqf_empty ? cqe_byp : (!cqf_data_mem[cqf_head] || cqf_ok_reg[cqf_head]);
    assign m_place_valid = state_reg == S_PLACE;
    assign m_place_drop = place_drop_reg;
    assign m_place_qpn = qpn_reg;
    assign m_place_idx = una_reg;
    assign m_place_off = place_off_reg;
    // An ATOMIC ACKNOWLEDGE's payload (it should carry none) never reaches the
    // placement engine (the dispatcher drains it), so a dropped one has no
    // bytes for it to drain either.
    assign m_place_len = opc_atomic ? (place_drop_reg ? 16'd0 : 16'd8) : plen_reg;
    assign m_place_atomic = opc_atomic;
    assign m_place_data = orig_reg;

    wire [2:0] syn_kind = syn_reg[7:5];
    wire [4:0] syn_code = syn_reg[4:0];
    wire       syn_rnr = syn_kind == 3'(rnic_pkg::AETH_KIND_RNR);
    wire       syn_seq = syn_kind == 3'(rnic_pkg::AETH_KIND_NAK) && syn_code == 5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR);

    logic [7:0] nak_status;
    always_comb begin
        if (syn_rnr) nak_status = rnic_pkg::WC_RNR_RETRY_EXC_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_INVALID_REQ)) nak_status = rnic_pkg::WC_REM_INV_REQ_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_REM_ACCESS_ERR)) nak_status = rnic_pkg::WC_REM_ACCESS_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_REM_OP_ERR)) nak_status = rnic_pkg::WC_REM_OP_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR)) nak_status = rnic_pkg::WC_RETRY_EXC_ERR[7:0];
        else nak_status = rnic_pkg::WC_BAD_RESP_ERR[7:0];
    end

    // the record's READ geometry: path MTU, packets, first PSN
    // the QP's configuration, read with its state when the event is taken
    // (a context write never lands during an event)
    logic [2:0] cfg_pmtu_rd_reg, cfg_retry_rd_reg, cfg_rnr_rd_reg;
    wire [2:0]  pmtu_raw = cfg_pmtu_rd_reg;
    wire [2:0]  pmtu_code = (pmtu_raw < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256) :
                            (pmtu_raw > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096) : pmtu_raw;
    wire [4:0]  mtu_lg = 5'(pmtu_code) + 5'd7;
    // The MTU as one-hot flip-flops (bit k: 2^(k+8) bytes), decoded from
    // the context read in S_LOAD and valid from the state after it, the
    // first that uses the MTU (asserted). The record's packet count, the
    // last response's length and the responses' offsets are then AND-OR
    // selections of shifts from flip-flops, not a clamp, an add and a shift
    // decode behind the block RAM's output, ahead of the first PSN's
    // subtract.
    logic [4:0] mtu_sel_reg;
    always_ff @(posedge clk)
        for (int k = 0; k < 5; k++) mtu_sel_reg[k] <= mtu_lg == 5'(k + 8);
    wire [31:0] mtu_bytes = {19'd0, mtu_sel_reg, 8'd0};
    wire        rec_atomic = rec_opcode == rnic_pkg::WC_COMP_SWAP[7:0] || rec_opcode == rnic_pkg::WC_FETCH_ADD[7:0];
    // answered with data: covered only by its own responses
    wire        rec_read = rec_opcode == rnic_pkg::WC_RDMA_READ[7:0] || rec_atomic;
    // packets = ceil(len / MTU) (1 for 0 bytes) as quotient + (remainder != 0):
    // a shift by one of five amounts, no adder
    logic [23:0] rec_q;
    logic [31:0] rec_mod;
    always_comb begin
        rec_q = '0;
        rec_mod = '0;
        for (int k = 8; k <= 12; k++) begin
            rec_q = rec_q | ({24{mtu_sel_reg[k-8]}} & 24'(rec_len >> k));
            rec_mod = rec_mod | ({32{mtu_sel_reg[k-8]}} & rec_len & ((32'd1 << k) - 32'd1));
        end
    end
    wire        rec_r = rec_mod != 0;
    wire        rec_zero = rec_len == 0;
    // first PSN - 1 = last PSN - packets
    wire [23:0] rec_first_m1 = sub24(rec_last_psn, rec_q, rec_r || rec_zero);
    // the last response's length: len - (packets - 1) * MTU
    wire [31:0] rec_last_len = rec_zero ? 32'd0 : rec_r ? rec_mod : mtu_bytes;

    // S_REC / S_RDREC: the record (read in the state before) against the
    // event's registers, which hold still in these states
    logic [23:0] rr_first_m1;
    logic [23:0] rr_psn_m1;
    logic        rr_covered, rr_le_pre, rr_at_last, rr_psn_le_last, rr_ok, rr_read, rr_atomic;
    logic        rr_len_last_ok, rr_len_mtu_ok;
    // the record of the WQE a kept NAK names (the records before it retired
    // in the NAK's walk): recorded as sent, not covered, or as flushed; a
    // local error the requester found in it keeps its own status
    logic        rr_keep;
    always_ff @(posedge clk) begin
        rr_first_m1 <= rec_first_m1;
        rr_psn_m1 <= psn_reg - 24'd1;
        rr_covered <= psn_le(rec_last_psn, acked_reg);
        rr_le_pre <= psn_le(rec_last_psn, acked_pre_reg);
        rr_at_last <= psn_reg == rec_last_psn;
        rr_psn_le_last <= psn_le(psn_reg, rec_last_psn);
        rr_ok <= rec_status == rnic_pkg::WC_SUCCESS[7:0];
        rr_keep <= keep_reg && err_reg && (rec_status == rnic_pkg::WC_SUCCESS[7:0] ? !psn_le(rec_last_psn, acked_reg)
                                                                                  : rec_status == rnic_pkg::WC_WR_FLUSH_ERR[7:0]);
        rr_read <= rec_read;
        rr_atomic <= rec_atomic;
        rr_len_last_ok <= 32'(plen_reg) == rec_last_len;
        rr_len_mtu_ok <= 32'(plen_reg) == mtu_bytes;
    end

    // a READ response at psn_reg against the READ record holding it
    wire [23:0] rsp_idx = psn_reg + ~rr_first_m1;      // psn_reg - first PSN
    logic [31:0] rsp_off;
    always_comb begin
        rsp_off = '0;
        for (int k = 8; k <= 12; k++) rsp_off = rsp_off | ({32{mtu_sel_reg[k-8]}} & (32'(rsp_idx) << k));
    end
    wire        rsp_at_first = rr_psn_m1 == rr_first_m1;
    // a re-read starts with FIRST or ONLY anywhere in the message, and one
    // the requester's send window cut short ends with LAST or ONLY anywhere
    // (every response before the message's last carries the MTU)
    wire        rsp_op_ok = (rr_at_last ? (opc_last || opc_only) : (opc_first || opc_middle || opc_last || opc_only))
                            && !(rsp_at_first && (opc_middle || opc_last));
    // first PSN <= psn_reg <= last PSN, the opcode and length its place calls for
    wire        rsp_ok = rr_ok && !rsp_idx[23] && rr_psn_le_last
                         && (rr_atomic ? (opc_atomic && plen_reg == 0)
                                       : (rr_read && rsp_op_ok && (rr_at_last ? rr_len_last_ok : rr_len_mtu_ok)));
    wire        is_rd_rsp = opc_first || opc_middle || opc_last || opc_only || opc_atomic;

    // what the walk does with the current record
    logic       covered_raw;
    logic       covered;
    logic       read_short;
    logic       retire;
    logic [7:0] retire_status;
    wire        keep_hit = rr_keep;
    always_comb begin
        covered_raw = rr_covered;
        // a READ is covered only by its own last response (or earlier events)
        read_short = covered_raw && rr_read && rr_ok && !err_reg
                     && !(rr_le_pre || (rd_ev_reg && rr_at_last));
        covered = covered_raw && !read_short;
        retire = 1'b0;
        retire_status = rec_status;
        if (!rr_ok) begin
            retire = covered_raw || err_reg;
        end else if (covered) begin
            retire = 1'b1;
        end else if (err_reg) begin
            retire = 1'b1;
            retire_status = rnic_pkg::WC_WR_FLUSH_ERR[7:0];
        end else if (nak_reg && rr_psn_le_last) begin
            retire = 1'b1;
            retire_status = nak_status_reg;
        end
        if (keep_hit) retire_status = keep_status_reg;
    end
    // retire_status == WC_SUCCESS as flags of the same choice (the compare
    // after the status multiplexer ran into una_reg's and the CQE's
    // enables: 9 levels); asserted
    wire keep_st_ok = keep_status_reg == rnic_pkg::WC_SUCCESS[7:0];
    wire nak_st_ok = nak_status_reg == rnic_pkg::WC_SUCCESS[7:0];
    wire retire_ok = keep_hit ? keep_st_ok : !rr_ok ? 1'b0 : covered ? 1'b1 : err_reg ? 1'b0
                   : (nak_reg && rr_psn_le_last) ? nak_st_ok : 1'b1;
    // the CQE's "the NAK's status" flag (retire_status == nak_status_reg,
    // != rec_status) the same way: the compares of each choice with the
    // registers, chosen after
    wire nak_is_flush = nak_status_reg == rnic_pkg::WC_WR_FLUSH_ERR[7:0];
    wire rec_is_flush = rec_status == rnic_pkg::WC_WR_FLUSH_ERR[7:0];
    wire nak_ne_rec = nak_status_reg != rec_status;
    wire retire_nak = keep_hit ? keep_syn_reg != 8'h0
                    : nak_reg && syn_reg != 8'h0
                      && (!rr_ok || covered ? 1'b0
                          : err_reg ? nak_is_flush && !rec_is_flush
                          : rr_psn_le_last && nak_ne_rec);

    logic [7:0]  cqe_status_reg;
    logic        cqe_nak_reg;
    logic [7:0]  cqe_syn_reg;
    logic [7:0]  cqe_opcode_reg;
    logic [31:0] cqe_len_reg;
    logic [15:0] cqe_cqn_reg;
    logic [23:0] cqe_src_reg;
    logic        cqe_data_reg;   // READ or ATOMIC: waits for its placement writes

    wire [QPN_WIDTH-1:0]  cqf_qpn;
    wire [CQE_F_BITS-1:0] cqe_now = {cqe_cqn_reg, qpn_reg, una_reg, cqe_opcode_reg, cqe_status_reg,
                                     cqe_len_reg, cqe_src_reg, cqe_nak_reg ? cqe_syn_reg : 8'h0};
    assign {m_cqe_cqn, cqf_qpn, m_cqe_wqe_counter, m_cqe_opcode, m_cqe_status, m_cqe_byte_len, m_cqe_src_qp,
            m_cqe_syndrome} = cqf_empty ? cqe_now : cqf_mem[cqf_head];
    assign m_cqe_qpn = 24'(cqf_qpn);
    always_ff @(posedge clk) begin
        // The free slot at cqf_wr takes the CQE's fields in every cycle the
        // queue has room (cqf_full_reg is one short of full, a cycle late:
        // the slot is free then); a push is the pointer's step. Their write
        // enables are then not cqe_push, which comes through the writer's
        // ready and the payload engine's count (9 levels).
        if (!cqf_full_reg) begin
            cqf_mem[cqf_wr_reg[CQF_LOG2-1:0]] <= cqe_now;
            cqf_data_mem[cqf_wr_reg[CQF_LOG2-1:0]] <= cqe_data_reg;
            // every command issued so far: the READ's last response's among them
            cqf_fence_mem[cqf_wr_reg[CQF_LOG2-1:0]] <= place_cnt_reg;
        end
        for (int i = 0; i < CQF; i++)
            cqf_ok_reg[i] <= (cqe_push && cqf_wr_reg[CQF_LOG2-1:0] == CQF_LOG2'(i)) ? place_all_done
                             : 16'(place_done_cnt - cqf_fence_mem[i]) < 16'h8000;
        cqf_wr_reg <= cqf_wr_next;
        cqf_rd_reg <= cqf_rd_next;
        // from the registered pointers, one short of full: a push comes at
        // most every other cycle (S_CQE, then S_WALK), so the queue never
        // overflows, and no decision of this cycle reaches the flag
        cqf_full_reg <= (cqf_wr_reg - cqf_rd_reg) >= (CQF_LOG2+1)'(CQF - 1);
        if (m_place_valid && m_place_ready) place_cnt_reg <= place_cnt_reg + 16'd1;
        place_done_q <= place_all_done && !(m_place_valid && m_place_ready);
        if (rst) begin
            cqf_wr_reg <= '0;
            cqf_rd_reg <= '0;
            cqf_full_reg <= 1'b0;
            place_cnt_reg <= '0;
            place_done_q <= 1'b1;
        end
    end

    // the window of PSNs in flight is (last acknowledged, highest PSN sent];
    // the compares with the last acknowledged PSN are registered in S_LOAD
    logic       ld_psn_le_acked_reg;    // psn_le(psn_reg, acked_reg)
    logic       ld_acked_le_prev_reg;   // psn_le(acked_reg, psn_reg - 1)
    logic       ld_next_reg;            // psn_reg == acked_reg + 1
    // S_LOAD: records are in flight (una != the requester's high-water
    // mark), for S_ACK. A cycle old there: the mark only grows, and a
    // response never answers a WQE recorded in the cycle before (its
    // request leaves after the record). Compared in S_ACK, behind the
    // forwarding mux, it ran into S_ACK's choice (10 levels).
    logic       ld_una_ne_hi_reg;
    // a record in flight after the one at una_reg (S_REC on: una_reg's
    // record is in flight, and the highest index only grows while an event
    // holds its QP, so the flag, a cycle old, stays true)
    logic       nx_ne_hi_reg;
    always_ff @(posedge clk) nx_ne_hi_reg <= una_reg + 16'd1 != hi_rd_idx;
    // now + rnr_cycles(syn_code) for S_ACK: the delay looked up as the ACK
    // is taken (rnr_p1_reg), both halves added in S_LOAD, the high one for
    // either carry of the low one, so S_ACK only selects
    logic [47:0] rnr_p1_tab [32];       // rnr_cycles + 1: S_ACK is a cycle after S_LOAD
    for (genvar k = 0; k < 32; k++) begin : g_rnr
        assign rnr_p1_tab[k] = rnr_cycles(5'(k)) + 48'd1;
    end
    logic [47:0] rnr_p1_reg;
    logic        rnr_c_reg;
    logic [23:0] rnr_lo_reg, rnr_hi0_reg, rnr_hi1_reg;
    wire [47:0]  rnr_until_nx = {rnr_c_reg ? rnr_hi1_reg : rnr_hi0_reg, rnr_lo_reg};
    // psn_le(psn_reg, hi_rd_psn - 1): bit 23 of hi_rd_psn + ~psn_reg, whose
    // carry into bit 23 is psn_reg[22:0] < hi_rd_psn[22:0]. Registered (in
    // S_LOAD for S_ACK, where its compare chain was in front of S_ACK's
    // choices and the 48-bit timer's enable): the highest PSN as S_LOAD saw
    // it, which only grows; a PSN the requester sent in that very cycle
    // cannot have been answered yet
    logic       psn_le_sent;
    always_ff @(posedge clk) psn_le_sent <= !(hi_rd_psn[23] ^ !psn_reg[23]
                                              ^ lt48(48'(psn_reg[22:0]), 48'(hi_rd_psn[22:0])));
    wire        in_window = psn_le_sent && !ld_psn_le_acked_reg;
    wire        nak_in_window = psn_le_sent && ld_acked_le_prev_reg;

    // where a walk ends: report a new error state, restart or wait, kick
    state_t walk_end;
    always_comb begin
        if (errev_reg) walk_end = S_ERREV;
        else if (post_reg != POST_NONE && !err_reg) walk_end = S_POST;
        else if (retired_reg) walk_end = S_KICK;
        else walk_end = S_IDLE;
    end
    state_t after_errev;
    always_comb begin
        if (retired_reg) after_errev = S_KICK;
        else after_errev = S_IDLE;
    end
    // the FSM goes to S_KICK in this cycle (the same choices as the case
    // below; asserted): with the kick register free it loads it and goes
    // to S_IDLE instead
    wire walk_end_kick = !errev_reg && !(post_reg != POST_NONE && !err_reg) && retired_reg;
    logic kick_enter;
    always_comb begin
        case (state_reg)
            S_WALK:  kick_enter = una_reg == hi_rd_idx && !(nak_reg && !err_reg) && walk_end_kick;
            S_CHECK: kick_enter = !read_short && !retire && !(nak_reg && !err_reg) && walk_end_kick;
            S_STOP:  kick_enter = walk_end_kick;
            S_ERREV: kick_enter = m_err_ready && retired_reg;
            S_POST:  kick_enter = post_reg != POST_RNR_WAIT || retired_reg;
            S_KICK:  kick_enter = 1'b1;
            default: kick_enter = 1'b0;
        endcase
    end
    wire kick_load = kick_enter && !kick_valid_reg;

    wire [2:0] cfg_retry = cfg_retry_rd_reg;
    wire [2:0] cfg_rnr = cfg_rnr_rd_reg;
    // a NAK that acknowledges new packets is progress: the counters refill
    wire       nak_progress = !ld_next_reg;
    wire [2:0] retry_eff = nak_progress ? cfg_retry : retry_left_reg;
    wire [2:0] rnr_eff = nak_progress ? cfg_rnr : rnr_left_reg;

    // A context write never lands under an event: none is taken while one
    // is pending (ctx_pend) but the requester's local trigger, in a cycle in
    // which the requester is not ready for the write; and the write waits
    // for ctx_ready, so the QP state an event holds in registers is never
    // stale.
    wire [QPN_WIDTH-1:0] take_qpn = ack_in ? s_ack_qpn : s_local_valid ? s_local_qpn : scan_reg;

    // the sweep holds at a due QP until the idle engine takes it
    wire scan_hold = state_reg == S_IDLE && scan_due && !s_ack_valid && !s_local_valid;

    // the cycle after a busy one
    logic busy_q_reg;
    always_ff @(posedge clk) begin
        busy_q_reg <= state_reg != S_IDLE;
        if (rst) busy_q_reg <= 1'b0;
    end

    // The QP's state is read at take_qpn in every idle cycle (registered
    // reads: block RAM) and moved into the working registers in S_LOAD. An
    // event taken in the first idle cycle, for the QP whose last state is
    // being written back in that cycle, reads the old entry: it keeps that
    // state in the registers instead (fwd_reg).
    logic [15:0] una_rd_reg;
    logic [23:0] acked_rd_reg;
    logic        err_rd_reg;
    logic [2:0]  retry_left_rd_reg;
    logic [2:0]  rnr_left_rd_reg;
    logic        rnr_wait_rd_reg;
    logic [47:0] rnr_until_rd_reg;
    logic [47:0] progress_rd_reg;
    logic [1:0]  rewind_rd_reg;
    logic        gap_rd_reg;
    logic [16:0] keep_rd_reg;
    logic        live_rd_reg;
    always_ff @(posedge clk) begin
        if (state_reg == S_IDLE) begin
            una_rd_reg <= una_mem[take_qpn];
            acked_rd_reg <= last_acked_mem[take_qpn];
            err_rd_reg <= err_mem[take_qpn];
            retry_left_rd_reg <= retry_left_mem[take_qpn];
            rnr_left_rd_reg <= rnr_left_mem[take_qpn];
            rnr_wait_rd_reg <= rnr_wait_mem[take_qpn];
            rnr_until_rd_reg <= rnr_until_mem[take_qpn];
            progress_rd_reg <= progress_mem[take_qpn];
            rewind_rd_reg <= rewind_mem[take_qpn];
            gap_rd_reg <= gap_mem[take_qpn];
            keep_rd_reg <= keep_mem[take_qpn];
            live_rd_reg <= live_ev_mem[take_qpn];
            cfg_pmtu_rd_reg <= cfg_pmtu_mem[take_qpn];
            cfg_retry_rd_reg <= cfg_retry_mem[take_qpn];
            cfg_rnr_rd_reg <= cfg_rnr_mem[take_qpn];
        end
    end
    logic   fwd_reg;
    logic   force_reg;      // a local trigger for a QP in error
    state_t load_next_reg;
    wire    load_err = fwd_reg ? err_reg : err_rd_reg;
    wire [23:0] load_acked = fwd_reg ? acked_reg : acked_rd_reg;

    // A READ response S_RDCHK accepts restarts the QP's ACK timer in the
    // next cycle (S_PLACE's first), which writes nothing of it: rsp_ok's
    // subtract and compares were in front of the 48-bit timestamp's enable.
    // The write-back of a busy cycle after it, or of the first idle one,
    // takes it.
    logic prog_rsp_q;

    always_ff @(posedge clk) begin
        stat_rx_ack <= 1'b0;
        stat_rx_nak <= 1'b0;
        stat_rx_rnr <= 1'b0;
        stat_retry <= 1'b0;
        stat_timeout <= 1'b0;
        prog_rsp_q <= 1'b0;
        if (prog_rsp_q) progress_reg <= now;
        case (state_reg)
            S_IDLE: begin
                nak_reg <= 1'b0;
                retired_reg <= 1'b0;
                errev_reg <= 1'b0;
                post_reg <= POST_NONE;
                rd_ev_reg <= 1'b0;
                fwd_reg <= busy_q_reg && take_qpn == qpn_reg;
                force_reg <= 1'b0;
                if (ack_in) begin
                    qpn_reg <= s_ack_qpn;
                    psn_reg <= s_ack_psn;
                    psn_m1_reg <= s_ack_psn - 24'd1;
                    syn_reg <= s_ack_syndrome;
                    rnr_p1_reg <= rnr_p1_tab[s_ack_syndrome[4:0]];
                    opc_first <= s_ack_opcode == rnic_pkg::OP_RDMA_READ_RESPONSE_FIRST[7:0];
                    opc_middle <= s_ack_opcode == rnic_pkg::OP_RDMA_READ_RESPONSE_MIDDLE[7:0];
                    opc_last <= s_ack_opcode == rnic_pkg::OP_RDMA_READ_RESPONSE_LAST[7:0];
                    opc_only <= s_ack_opcode == rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY[7:0];
                    opc_atomic <= s_ack_opcode == rnic_pkg::OP_ATOMIC_ACKNOWLEDGE[7:0];
                    plen_reg <= s_ack_plen;
                    orig_reg <= s_ack_orig;
                    ack_local_reg <= s_ack_local;
                    load_next_reg <= S_ACK;
                end else if (local_in) begin
                    qpn_reg <= s_local_qpn;
                    force_reg <= s_local_force;
                    load_next_reg <= S_WALK;
                end else if (scan_in) begin
                    qpn_reg <= scan_reg;
                    timer_rnr_reg <= scan_rnr_due;
                    load_next_reg <= S_TIMER;
                end
                if (ack_in || local_in || scan_in) state_reg <= S_LOAD;
            end
            S_LOAD: begin
                ld_psn_le_acked_reg <= psn_le(psn_reg, load_acked);
                // psn_le(acked, psn - 1): psn - acked in [1, 2^23], one
                // compare's chain and equalities instead of two chains
                ld_acked_le_prev_reg <= (psn_le(load_acked, psn_reg) && psn_reg != load_acked)
                                        || (psn_reg[22:0] == load_acked[22:0] && psn_reg[23] != load_acked[23]);
                // (psn == acked + 1 as psn - 1 == acked, the decrement taken
                // with psn_reg; for both sources of load_acked, chosen after:
                // the forward's choice in front of the compare ran to 10 levels)
                ld_next_reg <= fwd_reg ? psn_m1_reg == acked_reg : psn_m1_reg == acked_rd_reg;
                ld_una_ne_hi_reg <= (fwd_reg ? una_reg : una_rd_reg) != hi_rd_idx;
                {rnr_c_reg, rnr_lo_reg} <= {1'b0, now[23:0]} + {1'b0, rnr_p1_reg[23:0]};
                rnr_hi0_reg <= now[47:24] + rnr_p1_reg[47:24];
                rnr_hi1_reg <= now[47:24] - ~rnr_p1_reg[47:24];   // + 1
                if (force_reg && !load_err) errev_reg <= 1'b1;
                acked_reg <= load_acked;
                acked_pre_reg <= load_acked;
                err_reg <= load_err || force_reg;
                if (!fwd_reg) begin
                    gap_reg <= gap_rd_reg;
                    una_reg <= una_rd_reg;
                    retry_left_reg <= retry_left_rd_reg;
                    rnr_left_reg <= rnr_left_rd_reg;
                    rnr_wait_reg <= rnr_wait_rd_reg;
                    rnr_until_reg <= rnr_until_rd_reg;
                    progress_reg <= progress_rd_reg;
                    rewind_reg <= rewind_rd_reg;
                    {keep_reg, keep_syn_reg, keep_status_reg} <= keep_rd_reg;
                end
                state_reg <= load_next_reg;
            end
            S_ACK: begin
                state_reg <= S_IDLE;
                if (is_rd_rsp) begin
                    place_drop_reg <= 1'b1;
                    place_off_reg <= '0;
                    after_place_reg <= S_IDLE;
                    state_reg <= S_PLACE;
                    if (!live_rd_reg) begin
                        // dropped: no QP state to judge it by
                    end else if (!err_reg && ld_next_reg && ld_una_ne_hi_reg) begin
                        state_reg <= S_RDREAD;
                    end else if (!err_reg && in_window && !gap_reg && retry_left_reg != 0) begin
                        // responses before this one were lost: re-read from
                        // the first missing PSN now rather than at the timeout
                        gap_reg <= 1'b1;
                        retry_left_reg <= retry_left_reg - 3'd1;
                        post_reg <= POST_REWIND;
                        after_place_reg <= S_POST;
                    end
                end else if (syn_kind == 3'(rnic_pkg::AETH_KIND_ACK)) begin
                    stat_rx_ack <= !ack_local_reg;
                    if (in_window && live_rd_reg) begin
                        gap_reg <= 1'b0;
                        acked_reg <= psn_reg;
                        retry_left_reg <= cfg_retry;
                        rnr_left_reg <= cfg_rnr;
                        progress_reg <= now;
                        state_reg <= ld_una_ne_hi_reg ? S_REC : S_WALK;
                    end
                end else begin
                    stat_rx_nak <= 1'b1;
                    if (syn_rnr) stat_rx_rnr <= 1'b1;
                    if (nak_in_window && !err_reg && live_rd_reg) begin
                        // every NAK acknowledges the packets before its PSN
                        // (the WQE at it may be one the responder never took)
                        acked_reg <= psn_reg - 24'd1;
                        gap_reg <= 1'b0;
                        retry_left_reg <= retry_eff;
                        rnr_left_reg <= rnr_eff;
                        progress_reg <= now;
                        state_reg <= ld_una_ne_hi_reg ? S_REC : S_WALK;
                        if (syn_rnr && (rnr_eff != 0 || cfg_rnr == 3'(rnic_pkg::RETRY_INFINITE))) begin
                            if (cfg_rnr != 3'(rnic_pkg::RETRY_INFINITE)) rnr_left_reg <= rnr_eff - 3'd1;
                            post_reg <= POST_RNR_WAIT;
                            rnr_until_reg <= rnr_until_nx;
                        end else if (syn_seq && retry_eff != 0) begin
                            retry_left_reg <= retry_eff - 3'd1;
                            post_reg <= POST_REWIND;
                        end else begin
                            nak_reg <= 1'b1;
                            nak_status_reg <= nak_status;
                        end
                    end
                end
            end
            S_RDREAD: begin
                state_reg <= S_RDREC;
            end
            S_RDREC: begin
                state_reg <= S_RDCHK;
            end
            S_RDCHK: begin
                place_drop_reg <= !rsp_ok;
                place_off_reg <= rsp_off;
                after_place_reg <= S_IDLE;
                if (rsp_ok) begin
                    acked_reg <= psn_reg;
                    retry_left_reg <= cfg_retry;
                    rnr_left_reg <= cfg_rnr;
                    prog_rsp_q <= 1'b1;
                    gap_reg <= 1'b0;
                    rd_ev_reg <= 1'b1;
                    after_place_reg <= S_WALK;
                end
                state_reg <= S_PLACE;
            end
            S_PLACE: begin
                if (m_place_ready) state_reg <= after_place_reg;
            end
            S_STOP: begin
                state_reg <= walk_end;
            end
            S_TIMER: begin
                if (timer_rnr_reg) begin
                    // the RNR wait is over: resend from the NAKed PSN
                    rnr_wait_reg <= 1'b0;
                    post_reg <= POST_REWIND;
                    state_reg <= S_POST;
                end else begin
                    stat_timeout <= 1'b1;
                    progress_reg <= now;
                    if (retry_left_reg != 0) begin
                        retry_left_reg <= retry_left_reg - 3'd1;
                        post_reg <= POST_REWIND;
                        state_reg <= S_POST;
                    end else begin
                        // no retries left: the oldest unacknowledged WQE fails
                        psn_reg <= acked_reg + 24'd1;
                        psn_m1_reg <= acked_reg;
                        syn_reg <= 8'h0;
                        nak_reg <= 1'b1;
                        nak_status_reg <= rnic_pkg::WC_RETRY_EXC_ERR[7:0];
                        state_reg <= S_WALK;
                    end
                end
            end
            S_WALK: begin
                if (una_reg != hi_rd_idx) begin
                    state_reg <= S_REC;
                end else if (nak_reg && !err_reg) begin
                    // The NAK's PSN lies in a WQE the requester has not
                    // recorded yet (it is still sending it: a responder's
                    // check failed on a middle packet; every record before
                    // it has retired). The QP goes to the error state now,
                    // so the requester records that WQE with a walk instead
                    // of the ACK timer waiting for it, and the walk retiring
                    // it gives it the NAK's status.
                    err_reg <= 1'b1;
                    nak_reg <= 1'b0;
                    keep_reg <= 1'b1;
                    keep_syn_reg <= syn_reg;
                    keep_status_reg <= nak_status_reg;
                    errev_reg <= 1'b1;
                    state_reg <= S_ERREV;
                end else begin
                    state_reg <= walk_end;
                end
            end
            S_REC: begin
                state_reg <= S_CHECK;
            end
            S_CHECK: begin
                if (read_short) begin
                    // an ACK or NAK passes a READ still missing responses:
                    // acknowledge up to its data and re-read the rest
                    acked_reg <= psn_le(rr_first_m1, acked_pre_reg) ? acked_pre_reg : rr_first_m1;
                    nak_reg <= 1'b0;
                    post_reg <= (retry_left_reg != 0) ? POST_REWIND : POST_NONE;
                    if (retry_left_reg != 0) retry_left_reg <= retry_left_reg - 3'd1;
                    state_reg <= S_STOP;
                end else if (retire) begin
                    cqe_status_reg <= retire_status;
                    cqe_succ_reg <= retire_ok;
                    cqe_nak_reg <= retire_nak;
                    cqe_syn_reg <= keep_hit ? keep_syn_reg : syn_reg;
                    if (keep_hit) keep_reg <= 1'b0;
                    cqe_opcode_reg <= rec_opcode;
                    cqe_data_reg <= rec_read;
                    cqe_len_reg <= rec_len;
                    cqe_cqn_reg <= rec_cqn;
                    cqe_src_reg <= rec_src_qp;
                    if (!retire_ok) begin
                        err_reg <= 1'b1;
                        nak_reg <= 1'b0;
                        if (!err_reg) errev_reg <= 1'b1;
                    end
                    if (rec_signaled || !retire_ok) begin
                        state_reg <= S_CQE;
                    end else begin
                        una_reg <= una_reg + 16'd1;
                        retired_reg <= 1'b1;
                        state_reg <= nx_ne_hi_reg ? S_REC : S_WALK;
                    end
                end else if (nak_reg && !err_reg) begin
                    // The NAK's PSN lies in a record with an error status
                    // the requester wrote (a local check failed after some
                    // of its packets went out): the QP goes to the error
                    // state now and the record keeps its own status.
                    err_reg <= 1'b1;
                    nak_reg <= 1'b0;
                    errev_reg <= 1'b1;
                    state_reg <= S_ERREV;
                end else begin
                    state_reg <= walk_end;
                end
            end
            S_CQE: begin
                // straight to the writer or into the queue
                if (cqe_in && !cqf_full_reg) begin
                    una_reg <= una_reg + 16'd1;
                    retired_reg <= 1'b1;
                    state_reg <= nx_ne_hi_reg ? S_REC : S_WALK;
                end
            end
            S_ERREV: begin
                if (m_err_ready) begin
                    errev_reg <= 1'b0;
                    state_reg <= after_errev;
                end
            end
            S_POST: begin
                if (post_reg == POST_RNR_WAIT) begin
                    rnr_wait_reg <= 1'b1;
                    state_reg <= retired_reg ? S_KICK : S_IDLE;
                end else begin
                    // restart at the first unacknowledged PSN; the timer restarts too
                    rewind_reg <= rewind_reg + 2'd1;
                    progress_reg <= now;
                    stat_retry <= 1'b1;
                    state_reg <= S_KICK;
                end
                post_reg <= POST_NONE;
            end
            S_KICK: begin
                // (kick_load, below)
            end
            default: state_reg <= S_IDLE;
        endcase
        if (m_kick_ready) kick_valid_reg <= 1'b0;
        if (kick_load) begin
            kick_valid_reg <= 1'b1;
            kick_qpn_reg <= qpn_reg;
            state_reg <= S_IDLE;
        end
        if (rst) begin
            state_reg <= S_IDLE;
            kick_valid_reg <= 1'b0;
            errev_reg <= 1'b0;
            stat_rx_ack <= 1'b0;
            stat_rx_nak <= 1'b0;
            stat_rx_rnr <= 1'b0;
            stat_retry <= 1'b0;
            stat_timeout <= 1'b0;
            prog_rsp_q <= 1'b0;
        end
    end

    // per-QP state follows the FSM: written back in every busy cycle after
    // S_LOAD (and once more in the first idle cycle: the last state's
    // updates). A context write resets it; it is taken only in a cycle when
    // the engine is neither busy nor writing back (ctx_ready), so each array
    // has one write port and no event's state is read before a context
    // write to its QP lands.
    wire busy = state_reg != S_IDLE || busy_q_reg;
    wire wb = busy && state_reg != S_LOAD;
    // (nor while a kick waits: a context write never overtakes the kick of
    // the walk before it)
    assign ctx_ready = !busy && !kick_valid_reg;
    // the write port of the tables the requester reads: enable, address, data
    wire                 st_ctx = qp_reset_valid || qp_rts_valid;
    wire [QPN_WIDTH-1:0] st_wa = st_ctx ? qp_reset_qpn : qpn_reg;
    wire                 st_we = qp_reset_valid || (!qp_rts_valid && wb);  // una, err, rnr_wait, rewind, gap
    wire                 acked_we = st_ctx || wb;
    wire [15:0]          una_wd = qp_reset_valid ? 16'd0 : una_reg;
    wire [23:0]          acked_wd = st_ctx ? qp_reset_sq_psn - 24'd1 : acked_reg;
    wire                 err_wd = qp_reset_valid ? 1'b0 : err_reg;
    wire                 rnr_wait_wd = qp_reset_valid ? 1'b0 : rnr_wait_reg;
    wire [1:0]           rewind_wd = qp_reset_valid ? 2'd0 : rewind_reg;
    wire                 gap_wd = qp_reset_valid ? 1'b0 : gap_reg;
    wire [16:0]          keep_wd = qp_reset_valid ? 17'd0 : {keep_reg, keep_syn_reg, keep_status_reg};
    // the timers share that port (a context write resets them, QP_RTS alone
    // leaves them)
    wire [47:0]          until_wd = qp_reset_valid ? 48'd0 : rnr_until_reg;
    wire [47:0]          progress_wd = qp_reset_valid ? 48'd0 : progress_reg;
    always_ff @(posedge clk) begin
        if (st_we) begin
            una_mem[st_wa] <= una_wd;
            err_mem[st_wa] <= err_wd;
            rnr_wait_mem[st_wa] <= rnr_wait_wd;
            rewind_mem[st_wa] <= rewind_wd;
            gap_mem[st_wa] <= gap_wd;
            keep_mem[st_wa] <= keep_wd;
            rnr_until_mem[st_wa] <= until_wd;
            progress_mem[st_wa] <= progress_wd;
        end
        if (acked_we) last_acked_mem[st_wa] <= acked_wd;
        if (qp_reset_valid) begin
            retry_left_mem[qp_reset_qpn] <= qp_cfg_retry_cnt;
            rnr_left_mem[qp_reset_qpn] <= qp_cfg_rnr_retry;
        end else if (qp_rts_valid) begin
            retry_left_mem[qp_reset_qpn] <= qp_cfg_retry_cnt;
            rnr_left_mem[qp_reset_qpn] <= qp_cfg_rnr_retry;
        end else if (wb) begin
            retry_left_mem[qpn_reg] <= retry_left_reg;
            rnr_left_mem[qpn_reg] <= rnr_left_reg;
        end
        if (qp_cfg_valid) begin
            cfg_pmtu_mem[qp_reset_qpn] <= qp_cfg_pmtu;
            cfg_retry_mem[qp_reset_qpn] <= qp_cfg_retry_cnt;
            cfg_rnr_mem[qp_reset_qpn] <= qp_cfg_rnr_retry;
            cfg_timeout_mem[qp_reset_qpn] <= qp_cfg_timeout;
            cfg_lim_mem[qp_reset_qpn] <= {qp_cfg_timeout != 5'd0, lim_zero_tab[qp_cfg_timeout],
                                          lim_m1_tab[qp_cfg_timeout]};
        end
    end

    // ------------------------------------------------------------------
    // timer sweep, stage A: the QP read the cycle before (sc_issue), with the
    // engine's write-back to it in that cycle (registered) and in this one
    // forwarded, so B sees the state a read at B would. A context write is
    // not forwarded: the sweep goes back to A's QP and reads it again.
    // ------------------------------------------------------------------
    wire [QPN_WIDTH-1:0] sc_issue = scan_back_reg ? scan_back_qpn_reg : sc_qpn_reg + 1'b1;
    wire                 sc_ctx = qp_reset_valid || qp_cfg_valid;
    logic [15:0] sc_una_q;
    logic        sc_err_q, sc_rnr_wait_q, sc_live_q;
    logic [47:0] sc_until_q, sc_prog_q;
    logic [49:0] sc_lim_q;
    // the write-back address (qpn_reg) holds from the cycle before any
    // write-back, so its compare with the QP read is registered
    logic        sc_eq_reg, sc_fwd_reg;
    logic [47:0] until_wd_reg, progress_wd_reg;
    logic [47:0] now1_reg;      // now, in the next cycle (now counts cycles)
    wire  [24:0] now2_lo = {1'b0, now[23:0]} + 25'd2;
    always_ff @(posedge clk) begin
        sc_una_q <= una_mem[sc_issue];
        sc_err_q <= err_mem[sc_issue];
        sc_rnr_wait_q <= rnr_wait_mem[sc_issue];
        sc_until_q <= rnr_until_mem[sc_issue];
        sc_prog_q <= progress_mem[sc_issue];
        sc_lim_q <= cfg_lim_mem[sc_issue];
        sc_live_q <= live_mem[sc_issue];
        sc_eq_reg <= qpn_reg == sc_issue;
        sc_fwd_reg <= wb && qpn_reg == sc_issue;
        until_wd_reg <= rnr_until_reg;
        progress_wd_reg <= progress_reg;
        now1_reg <= {now2_lo[24] ? now[47:24] + 24'd1 : now[47:24], now2_lo[23:0]};
    end
    wire         sc_wb = wb && sc_eq_reg;
    wire [15:0]  sc_una = sc_wb ? una_reg : sc_fwd_reg ? una_wd_reg : sc_una_q;
    wire         sc_err = sc_wb ? err_reg : sc_fwd_reg ? err_wd_reg : sc_err_q;
    wire         sc_rnr_wait = sc_wb ? rnr_wait_reg : sc_fwd_reg ? rnr_wait_wd_reg : sc_rnr_wait_q;
    wire [47:0]  sc_prog = sc_wb ? progress_reg : sc_fwd_reg ? progress_wd_reg : sc_prog_q;
    // lo = now + 1 - limit; it wraps when the subtraction borrows
    wire [47:0]  sc_lm1 = sc_lim_q[47:0];
    wire [48:0]  sc_lo = sub48(now1_reg, sc_lm1, 1'b0);
    always_ff @(posedge clk) begin
        sc_qpn_reg <= sc_issue;
        sc_ok_reg <= init_done;
        scan_reg <= sc_qpn_reg;
        scan_ok_reg <= sc_ok_reg && !scan_back_reg;
        scan_back_reg <= scan_hold || sc_ctx;
        scan_back_qpn_reg <= scan_hold ? scan_reg : scan_back_reg ? scan_back_qpn_reg : sc_qpn_reg;
        scan_una_reg <= sc_una;
        scan_pre_reg <= !sc_rnr_wait && sc_lim_q[49] && !sc_err;
        scan_live_reg <= sc_live_q;
        // (the compare made for each source of the forward, then chosen:
        // the choice is the engine's write-back, its decision)
        scan_rnr_due_reg <= sc_wb ? rnr_wait_reg && !neg48(now1_reg, rnr_until_reg)
                            : sc_fwd_reg ? rnr_wait_wd_reg && !neg48(now1_reg, until_wd_reg)
                            : sc_rnr_wait_q && !neg48(now1_reg, sc_until_q);
        scan_prog_reg <= sc_prog;
        scan_lo_reg <= sc_lo[47:0];
        scan_wrap_reg <= sc_lo[48];
        scan_lz_reg <= sc_lim_q[48];
        if (rst) begin
            sc_qpn_reg <= '0;
            sc_ok_reg <= 1'b0;
            scan_ok_reg <= 1'b0;
            scan_back_reg <= 1'b0;
        end
    end

    // The requester's reads (una_rd_*): registered at una_rd_qpn, which it
    // gives a cycle ahead; a write to that entry in the cycle of the read
    // reaches the RAM only after it, so its data is forwarded. The
    // responder's (err2_rd) at its qpn_reg, which holds from S_QPC on, a
    // cycle before S_PSN and S_FLUSH use the flag: not forwarded, so the
    // flag comes from the RAM's register alone (the forward's select was
    // the first of 9 levels into the responder's decision at 512 bits). A
    // write in the read's cycle is seen by the responder a cycle later, as
    // if it came then: this engine writes the flag no later than the cycle
    // in which it raises the error event (S_ERREV, a register slice before
    // the responder), and the responder looks at the QP again for that
    // event, so no error stays unseen; clearing it is a context reset,
    // which no taken packet meets.
    logic [15:0] una_rd_ram;
    logic [23:0] acked_rd_ram;
    logic        err_rd_ram, rnr_wait_rd_ram;
    logic [1:0]  rewind_rd_ram;
    logic        gap_una_rd_ram, gap_wd_reg;
    logic        st_fwd_reg, acked_fwd_reg;
    logic        err2_rd_ram;
    logic [15:0] una_wd_reg;
    logic [23:0] acked_wd_reg;
    logic        err_wd_reg, rnr_wait_wd_reg;
    logic [1:0]  rewind_wd_reg;
    always_ff @(posedge clk) begin
        una_rd_ram <= una_mem[una_rd_qpn];
        acked_rd_ram <= last_acked_mem[una_rd_qpn];
        err_rd_ram <= err_mem[una_rd_qpn];
        rnr_wait_rd_ram <= rnr_wait_mem[una_rd_qpn];
        rewind_rd_ram <= rewind_mem[una_rd_qpn];
        gap_una_rd_ram <= gap_mem[una_rd_qpn];
        err2_rd_ram <= err_mem[err2_rd_qpn];
        st_fwd_reg <= st_we && st_wa == una_rd_qpn;
        acked_fwd_reg <= acked_we && st_wa == una_rd_qpn;
        una_wd_reg <= una_wd;
        acked_wd_reg <= acked_wd;
        err_wd_reg <= err_wd;
        rnr_wait_wd_reg <= rnr_wait_wd;
        rewind_wd_reg <= rewind_wd;
        gap_wd_reg <= gap_wd;
    end
    assign una_rd_idx = st_fwd_reg ? una_wd_reg : una_rd_ram;
    assign una_rd_acked_psn = acked_fwd_reg ? acked_wd_reg : acked_rd_ram;
    assign una_rd_err = st_fwd_reg ? err_wd_reg : err_rd_ram;
    assign una_rd_rnr_wait = st_fwd_reg ? rnr_wait_wd_reg : rnr_wait_rd_ram;
    assign una_rd_rewind = st_fwd_reg ? rewind_wd_reg : rewind_rd_ram;
    assign una_rd_gap = st_fwd_reg ? gap_wd_reg : gap_una_rd_ram;
    assign err2_rd_val = err2_rd_ram;

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the context write never meets a busy engine (rnic_regs waits for
    // ctx_ready) nor an event being taken (ctx_pend)
    always_ff @(posedge clk) begin
        if (!rst) assert (!((qp_reset_valid || qp_rts_valid) && busy));
        // the accepted READ response's timer restart lands while busy, on no other write of it
        if (!rst && prog_rsp_q) assert (state_reg == S_PLACE);
        // the CQE queue never overflows; a READ's CQE never leaves before the
        // placement commands before it are done
        if (!rst && cqe_push) assert ((cqf_wr_reg - cqf_rd_reg) < (CQF_LOG2+1)'(CQF));
        if (!rst && m_cqe_valid && m_cqe_ready && cqf_empty && cqe_data_reg) assert (place_all_done);
        if (!rst && place_done_q) assert (place_all_done);
        if (!rst) assert (!((qp_reset_valid || qp_rts_valid) && (ack_in || local_in || scan_in)));
    end

    // the registered-ahead decisions against their one-cycle definitions
    wire [47:0] ref_prog = progress_mem[scan_reg];
    wire [47:0] ref_scan_ref = ($signed(hi2_rd_sent_time - ref_prog) > 0) ? hi2_rd_sent_time : ref_prog;
    wire [4:0]  ref_to = cfg_timeout_mem[scan_reg];
    wire        ref_rnr_due = rnr_wait_mem[scan_reg] && $signed(now - rnr_until_mem[scan_reg]) >= 0;
    wire        ref_ack_due = !rnr_wait_mem[scan_reg] && una_mem[scan_reg] != hi2_rd_idx && ref_to != 0
                              && !err_mem[scan_reg]
                              && now - ref_scan_ref >= ns_cycles(48'(rnic_pkg::ACK_TIMEOUT_UNIT_NS)) << ref_to;
    wire        ref_scan_due = init_done && live_mem[scan_reg] && (ref_rnr_due || ref_ack_due);
    wire [32:0] ref_len_up = 33'(rec_len) + 33'(mtu_bytes) - 33'd1;
    wire [23:0] ref_npkts = (rec_len == 0) ? 24'd1 : 24'(ref_len_up >> mtu_lg);
    wire [23:0] ref_first = rec_last_psn - ref_npkts + 24'd1;
    wire [23:0] ref_rsp_idx = psn_reg - ref_first;
    wire [31:0] ref_rsp_off = 32'(ref_rsp_idx) << mtu_lg;
    wire        ref_at_last = psn_reg == rec_last_psn;
    wire [31:0] ref_exp_len = ref_at_last ? rec_len - ref_rsp_off : mtu_bytes;
    wire        ref_op_ok = (ref_at_last ? (opc_last || opc_only) : (opc_first || opc_middle || opc_last || opc_only))
                            && !(psn_reg == ref_first && (opc_middle || opc_last));
    wire        ref_rec_ok = rec_status == rnic_pkg::WC_SUCCESS[7:0];
    wire        ref_rsp_ok = ref_rec_ok && psn_le(ref_first, psn_reg) && psn_le(psn_reg, rec_last_psn)
                             && (rec_atomic ? (opc_atomic && plen_reg == 0)
                                            : (rec_read && ref_op_ok && 32'(plen_reg) == ref_exp_len));
    wire        ref_covered = psn_le(rec_last_psn, acked_reg);
    wire        ref_read_short = ref_covered && rec_read && ref_rec_ok && !err_reg
                                 && !(psn_le(rec_last_psn, acked_pre_reg) || (rd_ev_reg && ref_at_last));
    // (against the highest PSN of the cycle before: S_LOAD's, for S_ACK)
    logic [23:0] ref_hi_q;
    always_ff @(posedge clk) ref_hi_q <= hi_rd_psn;
    wire        ref_in_window = psn_le(psn_reg, ref_hi_q - 24'd1) && !psn_le(psn_reg, acked_reg);
    wire        ref_nak_in_window = psn_le(psn_reg, ref_hi_q - 24'd1) && psn_le(acked_reg, psn_reg - 24'd1);
    // the highest PSN never goes back while an event holds its QP
    always_ff @(posedge clk)
        if (!rst && state_reg == S_ACK) assert (psn_le(ref_hi_q, hi_rd_psn));
    logic [47:0] now_q;
    logic        rst_q;
    logic        kick_enter_q, kick_load_q;
    always_ff @(posedge clk) begin
        kick_enter_q <= kick_enter;
        kick_load_q <= kick_load;
    end
    always_ff @(posedge clk) begin
        now_q <= now;
        rst_q <= rst;
        // the sweep computes a cycle ahead with now + 1
        if (!rst && !rst_q) assert (now == now_q + 48'd1);
        if (!rst && scan_ok_reg && !scan_back_reg) assert (scan_due == ref_scan_due);
        if (!rst && scan_due) assert (scan_rnr_due == ref_rnr_due);
        if (!rst && state_reg != S_IDLE && state_reg != S_LOAD) begin
            assert (cfg_pmtu_rd_reg == cfg_pmtu_mem[qpn_reg]);
            assert (mtu_bytes == 32'd1 << mtu_lg);
            assert (cfg_retry_rd_reg == cfg_retry_mem[qpn_reg]);
            assert (cfg_rnr_rd_reg == cfg_rnr_mem[qpn_reg]);
        end
        if (!rst && state_reg == S_ACK) begin
            assert (in_window == ref_in_window);
            assert (nak_in_window == ref_nak_in_window);
            assert (ld_next_reg == (psn_reg == acked_reg + 24'd1));
            // records in flight at S_LOAD are still in flight
            if (ld_una_ne_hi_reg) assert (una_reg != hi_rd_idx);
            assert (ld_acked_le_prev_reg == psn_le(acked_reg, psn_reg - 24'd1));
            assert (rnr_until_nx == now + rnr_cycles(syn_code));
        end
        // kick_enter follows the case: S_KICK only where it said kick and the
        // register was busy; a load goes idle with the kick
        if (!rst && !rst_q && state_reg == S_KICK) assert (kick_enter_q && !kick_load_q);
        if (!rst && !rst_q && kick_enter_q && !kick_load_q) assert (state_reg == S_KICK);
        if (!rst && !rst_q && kick_load_q) assert (state_reg == S_IDLE && kick_valid_reg);
        // the record a walk checks is in flight (S_REC straight from S_ACK,
        // S_CHECK and S_CQE rests on it)
        if (!rst && state_reg == S_REC) assert (una_reg != hi_rd_idx);
        if (!rst && (state_reg == S_CHECK || state_reg == S_CQE) && nx_ne_hi_reg)
            assert (una_reg + 16'd1 != hi_rd_idx);
        if (!rst && state_reg == S_CHECK) begin
            assert (rr_first_m1 == ref_first - 24'd1);
            assert (covered_raw == ref_covered);
            assert (read_short == ref_read_short);
            assert (rr_psn_le_last == psn_le(psn_reg, rec_last_psn));
            assert (rr_ok == ref_rec_ok);
            if (retire) assert (retire_ok == (retire_status == rnic_pkg::WC_SUCCESS[7:0]));
            if (retire) assert (retire_nak == (keep_hit ? keep_syn_reg != 8'h0
                                               : nak_reg && retire_status == nak_status_reg
                                                 && retire_status != rec_status && syn_reg != 8'h0));
        end
        if (!rst && state_reg == S_RDCHK) begin
            assert (rsp_ok == ref_rsp_ok);
            assert (rsp_off == ref_rsp_off);
        end
    end
`endif
`endif

endmodule

`resetall
