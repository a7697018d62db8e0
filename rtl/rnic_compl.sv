`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Requester completion engine.
 *
 * An ACK whose PSN lies between the last acknowledged PSN and the last PSN
 * sent acknowledges every packet up to it; the engine then walks the QP's
 * in-flight WQEs from the oldest and retires each whose last PSN is covered,
 * asking for a CQE when the WQE was signaled. A NAK acknowledges the packets
 * before its PSN, ends the WQE holding that PSN with the status its syndrome
 * names (IBTA Table 43 -> ibv_wc_status) and puts the QP in the error state;
 * every later WQE then completes with WR_FLUSH_ERR. A record the requester
 * wrote with an error status (local check failed, flush) retires in order
 * behind the WQEs before it. Retiring frees the in-flight window, so the QP is
 * kicked back into the scheduler. When a QP enters the error state here, an
 * error event tells the responder, which flushes the QP's receive queue.
 *
 * A PSN sequence error NAK or RNR NAK ends the WQE with RETRY_EXC_ERR /
 * RNR_RETRY_EXC_ERR: retransmission is not implemented yet.
 */
module rnic_compl #(
    parameter int QPN_WIDTH = 10,
    parameter int INFLIGHT_LOG2 = 4,
    parameter int INF_BITS = 113
) (
    input  wire logic                               clk,
    input  wire logic                               rst,

    // ACK / NAK headers from the receive dispatcher
    input  wire logic                               s_ack_valid,
    output      logic                               s_ack_ready,
    input  wire logic [QPN_WIDTH-1:0]               s_ack_qpn,
    input  wire logic [23:0]                        s_ack_psn,
    input  wire logic [7:0]                         s_ack_syndrome,

    // error records written by the requester
    input  wire logic                               s_local_valid,
    output      logic                               s_local_ready,
    input  wire logic [QPN_WIDTH-1:0]               s_local_qpn,

    // requester state
    output      logic [QPN_WIDTH-1:0]               ci_rd_qpn,
    input  wire logic [15:0]                        ci_rd_idx,
    input  wire logic [23:0]                        ci_rd_next_psn,
    input  wire logic [QPN_WIDTH-1:0]               una_rd_qpn,
    output      logic [15:0]                        una_rd_idx,
    input  wire logic [QPN_WIDTH-1:0]               err_rd_qpn,
    output      logic                               err_rd_val,
    input  wire logic [QPN_WIDTH-1:0]               err2_rd_qpn,
    output      logic                               err2_rd_val,

    // in-flight table
    output      logic                               inf_rd_en,
    output      logic [QPN_WIDTH+INFLIGHT_LOG2-1:0] inf_rd_addr,
    input  wire logic [INF_BITS-1:0]                inf_rd_data,

    input  wire logic                               qp_reset_valid,
    input  wire logic                               qp_rts_valid,
    input  wire logic [QPN_WIDTH-1:0]               qp_reset_qpn,
    input  wire logic [23:0]                        qp_reset_sq_psn,

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
    output      logic                               stat_rx_nak
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

    logic [15:0] una_mem [NUM_QPS];
    logic [23:0] last_acked_mem [NUM_QPS];
    logic        err_mem [NUM_QPS];

    assign una_rd_idx = una_mem[una_rd_qpn];
    assign err_rd_val = err_mem[err_rd_qpn];
    assign err2_rd_val = err_mem[err2_rd_qpn];

    typedef enum logic [2:0] {
        S_IDLE,   // take an ACK/NAK or a local trigger
        S_ACK,    // check the PSN against the window
        S_WALK,   // read the oldest in-flight record
        S_CHECK,  // retire it, or stop
        S_CQE,    // hand the CQE to the writer
        S_ERREV,  // tell the responder the QP entered the error state
        S_KICK    // tell the scheduler
    } state_t;

    state_t state_reg;
    logic [QPN_WIDTH-1:0] qpn_reg;
    logic [23:0]          psn_reg;
    logic [7:0]           syn_reg;
    logic                 nak_reg;        // walking for a NAK: the WQE holding psn_reg fails
    logic [7:0]           nak_status_reg;
    logic [23:0]          acked_reg;      // last acknowledged PSN of qpn_reg
    logic [15:0]          una_reg;
    logic                 err_reg;
    logic                 retired_reg;
    logic                 errev_reg;      // the QP entered the error state in this walk

    // in-flight record fields
    wire [23:0] rec_last_psn = inf_rd_data[23:0];
    wire        rec_signaled = inf_rd_data[24];
    wire [7:0]  rec_status   = inf_rd_data[32:25];
    wire [7:0]  rec_opcode   = inf_rd_data[40:33];
    wire [31:0] rec_len      = inf_rd_data[72:41];
    wire [15:0] rec_cqn      = inf_rd_data[88:73];
    wire [23:0] rec_src_qp   = inf_rd_data[112:89];

    assign s_ack_ready = state_reg == S_IDLE;
    assign s_local_ready = state_reg == S_IDLE && !s_ack_valid;
    assign ci_rd_qpn = qpn_reg;
    assign inf_rd_en = state_reg == S_WALK;
    assign inf_rd_addr = {qpn_reg, una_reg[INFLIGHT_LOG2-1:0]};
    assign m_kick_valid = state_reg == S_KICK;
    assign m_err_valid = state_reg == S_ERREV;
    assign m_err_qpn = qpn_reg;
    assign m_kick_qpn = qpn_reg;
    assign m_cqe_valid = state_reg == S_CQE;

    wire [2:0] syn_kind = syn_reg[7:5];
    wire [4:0] syn_code = syn_reg[4:0];

    logic [7:0] nak_status;
    always_comb begin
        if (syn_kind == 3'(rnic_pkg::AETH_KIND_RNR)) nak_status = rnic_pkg::WC_RNR_RETRY_EXC_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_INVALID_REQ)) nak_status = rnic_pkg::WC_REM_INV_REQ_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_REM_ACCESS_ERR)) nak_status = rnic_pkg::WC_REM_ACCESS_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_REM_OP_ERR)) nak_status = rnic_pkg::WC_REM_OP_ERR[7:0];
        else if (syn_code == 5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR)) nak_status = rnic_pkg::WC_RETRY_EXC_ERR[7:0];
        else nak_status = rnic_pkg::WC_BAD_RESP_ERR[7:0];
    end

    // what the walk does with the current record
    logic       covered;
    logic       retire;
    logic [7:0] retire_status;
    always_comb begin
        covered = psn_le(rec_last_psn, acked_reg);
        retire = 1'b0;
        retire_status = rec_status;
        if (rec_status != rnic_pkg::WC_SUCCESS[7:0]) begin
            retire = covered || err_reg;
        end else if (covered) begin
            retire = 1'b1;
        end else if (err_reg) begin
            retire = 1'b1;
            retire_status = rnic_pkg::WC_WR_FLUSH_ERR[7:0];
        end else if (nak_reg && psn_le(psn_reg, rec_last_psn)) begin
            retire = 1'b1;
            retire_status = nak_status_reg;
        end
    end

    logic [7:0]  cqe_status_reg;
    logic        cqe_nak_reg;
    logic [7:0]  cqe_opcode_reg;
    logic [31:0] cqe_len_reg;
    logic [15:0] cqe_cqn_reg;
    logic [23:0] cqe_src_reg;

    assign m_cqe_cqn = cqe_cqn_reg;
    assign m_cqe_qpn = 24'(qpn_reg);
    assign m_cqe_wqe_counter = una_reg;
    assign m_cqe_opcode = cqe_opcode_reg;
    assign m_cqe_status = cqe_status_reg;
    assign m_cqe_byte_len = cqe_len_reg;
    assign m_cqe_src_qp = cqe_src_reg;
    assign m_cqe_syndrome = cqe_nak_reg ? syn_reg : 8'h0;

    // the window of PSNs in flight is (last acknowledged, next PSN - 1]
    wire [23:0] last_sent = ci_rd_next_psn - 24'd1;
    wire        in_window = psn_le(psn_reg, last_sent) && !psn_le(psn_reg, acked_reg);
    wire        nak_in_window = psn_le(psn_reg, last_sent) && psn_le(acked_reg, psn_reg - 24'd1);

    // where a walk ends: report a new error state, then kick the scheduler
    state_t walk_end;
    always_comb begin
        if (errev_reg) walk_end = S_ERREV;
        else if (retired_reg) walk_end = S_KICK;
        else walk_end = S_IDLE;
    end

    always_ff @(posedge clk) begin
        stat_rx_ack <= 1'b0;
        stat_rx_nak <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                nak_reg <= 1'b0;
                retired_reg <= 1'b0;
                errev_reg <= 1'b0;
                if (s_ack_valid) begin
                    qpn_reg <= s_ack_qpn;
                    psn_reg <= s_ack_psn;
                    syn_reg <= s_ack_syndrome;
                    acked_reg <= last_acked_mem[s_ack_qpn];
                    una_reg <= una_mem[s_ack_qpn];
                    err_reg <= err_mem[s_ack_qpn];
                    state_reg <= S_ACK;
                end else if (s_local_valid) begin
                    qpn_reg <= s_local_qpn;
                    acked_reg <= last_acked_mem[s_local_qpn];
                    una_reg <= una_mem[s_local_qpn];
                    err_reg <= err_mem[s_local_qpn];
                    state_reg <= S_WALK;
                end
            end
            S_ACK: begin
                state_reg <= S_IDLE;
                if (syn_kind == 3'(rnic_pkg::AETH_KIND_ACK)) begin
                    stat_rx_ack <= 1'b1;
                    if (in_window) begin
                        acked_reg <= psn_reg;
                        state_reg <= S_WALK;
                    end
                end else begin
                    stat_rx_nak <= 1'b1;
                    if (nak_in_window && !err_reg) begin
                        acked_reg <= psn_reg - 24'd1;
                        nak_reg <= 1'b1;
                        nak_status_reg <= nak_status;
                        state_reg <= S_WALK;
                    end
                end
            end
            S_WALK: begin
                state_reg <= (una_reg != ci_rd_idx) ? S_CHECK : walk_end;
            end
            S_CHECK: begin
                if (retire) begin
                    cqe_status_reg <= retire_status;
                    cqe_nak_reg <= nak_reg && retire_status == nak_status_reg && retire_status != rec_status;
                    cqe_opcode_reg <= rec_opcode;
                    cqe_len_reg <= rec_len;
                    cqe_cqn_reg <= rec_cqn;
                    cqe_src_reg <= rec_src_qp;
                    if (retire_status != rnic_pkg::WC_SUCCESS[7:0]) begin
                        err_reg <= 1'b1;
                        nak_reg <= 1'b0;
                        if (!err_reg) errev_reg <= 1'b1;
                    end
                    if (rec_signaled || retire_status != rnic_pkg::WC_SUCCESS[7:0]) begin
                        state_reg <= S_CQE;
                    end else begin
                        una_reg <= una_reg + 16'd1;
                        retired_reg <= 1'b1;
                        state_reg <= S_WALK;
                    end
                end else begin
                    state_reg <= walk_end;
                end
            end
            S_CQE: begin
                if (m_cqe_ready) begin
                    una_reg <= una_reg + 16'd1;
                    retired_reg <= 1'b1;
                    state_reg <= S_WALK;
                end
            end
            S_ERREV: begin
                if (m_err_ready) begin
                    errev_reg <= 1'b0;
                    state_reg <= retired_reg ? S_KICK : S_IDLE;
                end
            end
            S_KICK: begin
                if (m_kick_ready) state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        if (rst) begin
            state_reg <= S_IDLE;
            errev_reg <= 1'b0;
            stat_rx_ack <= 1'b0;
            stat_rx_nak <= 1'b0;
        end
    end

    // per-QP state follows the walk; a context write resets it
    always_ff @(posedge clk) begin
        if (qp_reset_valid) begin
            una_mem[qp_reset_qpn] <= '0;
            last_acked_mem[qp_reset_qpn] <= qp_reset_sq_psn - 24'd1;
            err_mem[qp_reset_qpn] <= 1'b0;
        end else if (qp_rts_valid) begin
            last_acked_mem[qp_reset_qpn] <= qp_reset_sq_psn - 24'd1;
        end else if (state_reg != S_IDLE) begin
            una_mem[qpn_reg] <= una_reg;
            last_acked_mem[qpn_reg] <= acked_reg;
            err_mem[qpn_reg] <= err_reg;
        end
    end

endmodule

`resetall
