`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Responder.
 *
 * For each request header from the receive dispatcher: look up the QP (it
 * must be in RTR or RTS and not in error), compare the PSN with the expected
 * PSN (IBTA 9.7.5: a duplicate is re-acknowledged and dropped; a PSN ahead
 * gets one PSN-sequence-error NAK until the expected PSN shows up), check the
 * opcode sequence and lengths (invalid request NAK), check rkey, PD, bounds
 * and REMOTE_WRITE against the MPT on WRITE FIRST/ONLY (remote access error
 * NAK), and write the payload to host memory by DMA. ACKs are coalesced: one
 * on the ack-request bit, on the last packet of a message and at least every
 * ACK_EVERY packets. An ACK leaves only after the write responses of the data
 * it acknowledges have arrived. A NAK other than PSN-sequence puts the QP in
 * the error state.
 *
 * Operations: RDMA WRITE (FIRST/MIDDLE/LAST/ONLY). Other request opcodes get
 * the invalid request NAK.
 */
module rnic_resp #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int ACK_EVERY = 8,
    parameter int ACTION_DEPTH_LOG2 = 4
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_payload_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_payload_tkeep,
    input  wire logic                              s_axis_payload_tvalid,
    output      logic                              s_axis_payload_tready,
    input  wire logic                              s_axis_payload_tlast,

    output      logic                              qpc_rd_en,
    output      logic [QPN_WIDTH-1:0]              qpc_rd_addr,
    input  wire logic [rnic_pkg::QPC_BITS-1:0]     qpc_rd_data,
    output      logic                              mpt_rd_en,
    output      logic [MR_INDEX_WIDTH-1:0]         mpt_rd_addr,
    input  wire logic [rnic_pkg::MPT_BITS-1:0]     mpt_rd_data,

    input  wire logic [47:0]                       cfg_port_mac,
    input  wire logic [4*128-1:0]                  cfg_gid,

    input  wire logic                              qp_reset_valid,
    input  wire logic [QPN_WIDTH-1:0]              qp_reset_qpn,
    input  wire logic [23:0]                       qp_reset_rq_psn,

    // error state: this engine's, read by others; the requester side's, read here
    input  wire logic [QPN_WIDTH-1:0]              err_rd_qpn,
    output      logic                              err_rd_val,
    output      logic [QPN_WIDTH-1:0]              ext_err_qpn,
    input  wire logic                              ext_err_val,

    // payload writes
    output      logic [63:0]                       m_axis_wr_desc_addr,
    output      logic [31:0]                       m_axis_wr_desc_len,
    output      logic                              m_axis_wr_desc_valid,
    input  wire logic                              m_axis_wr_desc_ready,
    output      logic [DATA_WIDTH-1:0]             m_axis_wr_data_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_wr_data_tkeep,
    output      logic                              m_axis_wr_data_tvalid,
    input  wire logic                              m_axis_wr_data_tready,
    output      logic                              m_axis_wr_data_tlast,
    input  wire logic                              s_wr_status_valid,
    input  wire logic                              s_wr_status_error,

    // ACK / NAK headers toward the packet builder
    output      logic                              m_ack_valid,
    input  wire logic                              m_ack_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_ack_hdr,

    output      logic                              stat_drop_qpn,
    output      logic                              stat_psn_err,
    output      logic                              stat_duplicate,
    output      logic                              stat_access_err,
    output      logic                              stat_tx_ack,
    output      logic                              stat_tx_nak
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int TAG_BITS = rnic_pkg::MKEY_TAG_BITS;
    localparam int ACTIONS = 2 ** ACTION_DEPTH_LOG2;

    // ------------------------------------------------------------------
    // per-QP responder state
    // ------------------------------------------------------------------
    logic [23:0] epsn_mem [NUM_QPS];      // expected PSN
    logic [23:0] msn_mem [NUM_QPS];       // messages completed
    logic        in_write_mem [NUM_QPS];  // inside a multi-packet WRITE
    logic [63:0] wr_pa_mem [NUM_QPS];     // where the next WRITE byte goes
    logic [31:0] wr_rem_mem [NUM_QPS];    // WRITE bytes still expected
    logic        nak_sent_mem [NUM_QPS];  // a PSN sequence NAK is outstanding
    logic        err_mem [NUM_QPS];
    logic [7:0]  since_ack_mem [NUM_QPS]; // packets since the last ACK

    assign err_rd_val = err_mem[err_rd_qpn];

    typedef enum logic [2:0] {
        S_IDLE,   // take a request header, read the QP context
        S_QPC,    // latch the QP context
        S_PSN,    // QP state and PSN check
        S_OP,     // opcode sequence; start the MPT read for FIRST/ONLY
        S_MPT,    // rkey, PD, access and bounds
        S_EXEC,   // lengths; issue the write and queue the ACK
        S_DATA,   // payload into the write engine
        S_DRAIN   // payload of a dropped request
    } state_t;

    state_t state_reg;
    logic [HB-1:0]                  hdr_reg;
    logic [QPN_WIDTH-1:0]           qpn_reg;
    logic [rnic_pkg::QPC_BITS-1:0]  qpc_reg;
    logic [63:0]                    pa_reg;
    logic [31:0]                    rem_reg;

    wire [7:0]  h_opcode = hdr_reg[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W];
    wire [23:0] h_psn    = hdr_reg[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
    wire        h_ackreq = hdr_reg[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB];
    wire [63:0] h_va     = hdr_reg[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W];
    wire [31:0] h_rkey   = hdr_reg[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W];
    wire [31:0] h_dlen   = hdr_reg[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W];
    wire [15:0] h_plen   = hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];
    wire [23:0] h_dqpn   = hdr_reg[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W];

    wire [3:0]   qpc_state  = qpc_reg[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W];
    wire [2:0]   qpc_pmtu   = qpc_reg[rnic_pkg::QPC_PMTU_LSB +: rnic_pkg::QPC_PMTU_W];
    wire [7:0]   qpc_access = qpc_reg[rnic_pkg::QPC_ACCESS_LSB +: rnic_pkg::QPC_ACCESS_W];
    wire [15:0]  qpc_pd     = qpc_reg[rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W];


    wire op_first  = h_opcode == rnic_pkg::OP_RDMA_WRITE_FIRST[7:0];
    wire op_middle = h_opcode == rnic_pkg::OP_RDMA_WRITE_MIDDLE[7:0];
    wire op_last   = h_opcode == rnic_pkg::OP_RDMA_WRITE_LAST[7:0];
    wire op_only   = h_opcode == rnic_pkg::OP_RDMA_WRITE_ONLY[7:0];
    wire op_write  = op_first || op_middle || op_last || op_only;
    wire op_ends   = op_last || op_only;

    wire [2:0]  pmtu_code = (qpc_pmtu < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256) :
                            (qpc_pmtu > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096) : qpc_pmtu;
    wire [31:0] mtu_bytes = 32'(128) << pmtu_code;
    wire [31:0] plen = 32'(h_plen);

    // lengths (IBTA 9.7.5.1.6 / C9-88..90): FIRST and MIDDLE carry exactly one
    // MTU, LAST at least one byte and at most an MTU, and the message ends
    // exactly at the RETH DMA length
    logic len_ok;
    always_comb begin
        if (op_first || op_middle) len_ok = plen == mtu_bytes && plen < rem_reg;
        else if (op_last) len_ok = plen != 0 && plen <= mtu_bytes && plen == rem_reg;
        else len_ok = plen <= mtu_bytes && plen == rem_reg;
    end

    // rkey, PD, REMOTE_WRITE and bounds against the MR; the QP must allow it too
    logic        mr_ok;
    logic [63:0] mr_pa;
    rnic_mr_check rkey_check_inst (
        .mpt(mpt_rd_data), .key(h_rkey), .va(h_va), .len(h_dlen), .pd(qpc_pd),
        .need_access(rnic_pkg::ACCESS_REMOTE_WRITE[7:0]), .ok(mr_ok), .pa(mr_pa)
    );
    wire access_ok = mr_ok && (qpc_access & rnic_pkg::ACCESS_REMOTE_WRITE[7:0]) != 0;

    // ------------------------------------------------------------------
    // action queue: ACK/NAK headers in request order, each waiting for the
    // write response of its packet when it had a payload
    // ------------------------------------------------------------------
    logic [HB-1:0]               act_hdr_mem [ACTIONS];
    logic                        act_wait_mem [ACTIONS];
    logic                        act_send_mem [ACTIONS];
    logic [ACTION_DEPTH_LOG2:0]  act_wr_reg, act_rd_reg;
    wire act_full = (act_wr_reg - act_rd_reg) == (ACTION_DEPTH_LOG2+1)'(ACTIONS);
    wire act_empty = act_wr_reg == act_rd_reg;

    logic          act_push;
    logic          act_push_wait;
    logic          act_push_send;
    logic [23:0]   act_push_psn;
    logic [7:0]    act_push_syn;
    logic [23:0]   act_push_msn;

    logic [HB-1:0] addr_hdr;
    rnic_qp_hdr qp_hdr_inst (.qpc(qpc_reg), .cfg_port_mac, .cfg_gid, .hdr(addr_hdr));

    logic [HB-1:0] ack_hdr;
    always_comb begin
        ack_hdr = addr_hdr;
        ack_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = rnic_pkg::OP_ACKNOWLEDGE[7:0];
        ack_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = act_push_psn;
        ack_hdr[rnic_hdr_pkg::HDR_HAS_AETH_LSB] = 1'b1;
        ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W] = act_push_syn;
        ack_hdr[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W] = act_push_msn;
    end

    localparam logic [7:0] SYN_ACK = {3'(rnic_pkg::AETH_KIND_ACK), 5'(rnic_pkg::AETH_CREDITS_INVALID)};
    function automatic logic [7:0] nak(input logic [4:0] code);
        nak = {3'(rnic_pkg::AETH_KIND_NAK), code};
    endfunction

    // ------------------------------------------------------------------
    // request FSM
    // ------------------------------------------------------------------
    logic [23:0] epsn_cur;
    logic [23:0] msn_cur;
    logic [7:0]  since_cur;
    assign epsn_cur = epsn_mem[qpn_reg];
    assign msn_cur = msn_mem[qpn_reg];
    assign since_cur = since_ack_mem[qpn_reg];
    wire [23:0] psn_diff = h_psn - epsn_cur;
    wire        psn_dup = psn_diff[23];    // behind the expected PSN (IBTA 9.7.5.1.2)
    wire        qp_ok = (qpc_state == 4'(rnic_pkg::QPS_RTR) || qpc_state == 4'(rnic_pkg::QPS_RTS))
                        && !err_mem[qpn_reg] && !ext_err_val && h_dqpn < 24'(NUM_QPS);

    assign s_hdr_ready = state_reg == S_IDLE;
    assign qpc_rd_en = s_hdr_valid && s_hdr_ready;
    assign qpc_rd_addr = s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: QPN_WIDTH];
    assign ext_err_qpn = qpn_reg;
    assign mpt_rd_en = state_reg == S_OP;
    assign mpt_rd_addr = h_rkey[TAG_BITS +: MR_INDEX_WIDTH];

    assign m_axis_wr_desc_addr = pa_reg;
    assign m_axis_wr_desc_len = plen;
    assign m_axis_wr_desc_valid = state_reg == S_EXEC && len_ok && plen != 0 && !act_full;

    assign m_axis_wr_data_tdata = s_axis_payload_tdata;
    assign m_axis_wr_data_tkeep = s_axis_payload_tkeep;
    assign m_axis_wr_data_tlast = s_axis_payload_tlast;
    assign m_axis_wr_data_tvalid = state_reg == S_DATA && s_axis_payload_tvalid;
    assign s_axis_payload_tready = (state_reg == S_DATA && m_axis_wr_data_tready) || state_reg == S_DRAIN;

    // responder state updates, written once per accepted request
    logic        upd;
    logic [23:0] upd_epsn, upd_msn;
    logic        upd_in_write, upd_nak_sent, upd_err;
    logic [63:0] upd_pa;
    logic [31:0] upd_rem;
    logic [7:0]  upd_since;

    logic [15:0] drop_plen;   // payload left to drain after a drop

    always_comb begin
        act_push = 1'b0;
        act_push_wait = 1'b0;
        act_push_send = 1'b1;
        act_push_psn = h_psn;
        act_push_syn = SYN_ACK;
        act_push_msn = msn_cur;
        upd = 1'b0;
        upd_epsn = epsn_cur;
        upd_msn = msn_cur;
        upd_in_write = in_write_mem[qpn_reg];
        upd_nak_sent = nak_sent_mem[qpn_reg];
        upd_err = err_mem[qpn_reg];
        upd_pa = pa_reg;
        upd_rem = rem_reg;
        upd_since = since_cur;
        case (state_reg)
            S_PSN: begin
                if (!qp_ok || psn_diff == 0 || act_full) begin
                    // in order: continue (or wait for room in the action queue)
                end else if (psn_dup) begin
                    // duplicate: acknowledge the most recent request again
                    act_push = 1'b1;
                    act_push_psn = epsn_cur - 24'd1;
                end else if (!nak_sent_mem[qpn_reg]) begin
                    act_push = 1'b1;
                    act_push_psn = epsn_cur;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR));
                    upd = 1'b1;
                    upd_nak_sent = 1'b1;
                end
            end
            S_OP: begin
                if (act_full) begin
                end else if (!op_write || (in_write_mem[qpn_reg] == (op_first || op_only))) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end
            end
            S_MPT: begin
                if (act_full) begin
                end else if (!access_ok && h_dlen != 0) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_REM_ACCESS_ERR));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end
            end
            S_EXEC: begin
                if (act_full || (len_ok && plen != 0 && !m_axis_wr_desc_ready)) begin
                end else if (!len_ok) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else begin
                    upd = 1'b1;
                    upd_epsn = epsn_cur + 24'd1;
                    upd_nak_sent = 1'b0;
                    upd_in_write = !op_ends;
                    upd_pa = pa_reg + 64'(plen);
                    upd_rem = rem_reg - plen;
                    upd_msn = op_ends ? msn_cur + 24'd1 : msn_cur;
                    act_push = 1'b1;
                    act_push_wait = plen != 0;
                    act_push_msn = upd_msn;
                    act_push_send = h_ackreq || op_ends || since_cur + 8'd1 >= 8'(ACK_EVERY);
                    upd_since = act_push_send ? 8'd0 : since_cur + 8'd1;
                end
            end
            default: ;
        endcase
    end

    always_ff @(posedge clk) begin
        stat_drop_qpn <= 1'b0;
        stat_psn_err <= 1'b0;
        stat_duplicate <= 1'b0;
        stat_access_err <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (s_hdr_valid) begin
                    hdr_reg <= s_hdr;
                    qpn_reg <= s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: QPN_WIDTH];
                    drop_plen <= s_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];
                    state_reg <= S_QPC;
                end
            end
            S_QPC: begin
                qpc_reg <= qpc_rd_data;
                pa_reg <= wr_pa_mem[qpn_reg];
                rem_reg <= wr_rem_mem[qpn_reg];
                state_reg <= S_PSN;
            end
            S_PSN: begin
                if (!qp_ok) begin
                    stat_drop_qpn <= 1'b1;
                    state_reg <= (drop_plen != 0) ? S_DRAIN : S_IDLE;
                end else if (psn_diff == 0) begin
                    state_reg <= S_OP;
                end else if (!act_full) begin
                    if (psn_dup) stat_duplicate <= 1'b1;
                    else stat_psn_err <= 1'b1;
                    state_reg <= (drop_plen != 0) ? S_DRAIN : S_IDLE;
                end
            end
            S_OP: begin
                if (act_push) state_reg <= (drop_plen != 0) ? S_DRAIN : S_IDLE;
                else if (!act_full) state_reg <= (op_first || op_only) ? S_MPT : S_EXEC;
            end
            S_MPT: begin
                if (act_push) begin
                    stat_access_err <= 1'b1;
                    state_reg <= (drop_plen != 0) ? S_DRAIN : S_IDLE;
                end else if (!act_full) begin
                    pa_reg <= mr_pa;
                    rem_reg <= h_dlen;
                    state_reg <= S_EXEC;
                end
            end
            S_EXEC: begin
                if (act_push) state_reg <= !len_ok ? ((drop_plen != 0) ? S_DRAIN : S_IDLE)
                                                    : ((plen != 0) ? S_DATA : S_IDLE);
            end
            S_DATA, S_DRAIN: begin
                if (s_axis_payload_tvalid && s_axis_payload_tready && s_axis_payload_tlast) state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        if (rst) begin
            state_reg <= S_IDLE;
            stat_drop_qpn <= 1'b0;
            stat_psn_err <= 1'b0;
            stat_duplicate <= 1'b0;
            stat_access_err <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (qp_reset_valid) begin
            epsn_mem[qp_reset_qpn] <= qp_reset_rq_psn;
            msn_mem[qp_reset_qpn] <= '0;
            in_write_mem[qp_reset_qpn] <= 1'b0;
            wr_pa_mem[qp_reset_qpn] <= '0;
            wr_rem_mem[qp_reset_qpn] <= '0;
            nak_sent_mem[qp_reset_qpn] <= 1'b0;
            err_mem[qp_reset_qpn] <= 1'b0;
            since_ack_mem[qp_reset_qpn] <= '0;
        end else if (upd) begin
            epsn_mem[qpn_reg] <= upd_epsn;
            msn_mem[qpn_reg] <= upd_msn;
            in_write_mem[qpn_reg] <= upd_in_write;
            wr_pa_mem[qpn_reg] <= upd_pa;
            wr_rem_mem[qpn_reg] <= upd_rem;
            nak_sent_mem[qpn_reg] <= upd_nak_sent;
            err_mem[qpn_reg] <= upd_err;
            since_ack_mem[qpn_reg] <= upd_since;
        end
    end

    // ------------------------------------------------------------------
    // action queue
    // ------------------------------------------------------------------
    wire [ACTION_DEPTH_LOG2-1:0] head = act_rd_reg[ACTION_DEPTH_LOG2-1:0];

    // write responses come back in request order, one per payload write; they
    // queue here until the action they belong to reaches the head
    logic                       st_err_mem [ACTIONS];
    logic [ACTION_DEPTH_LOG2:0] st_wr_reg, st_rd_reg;
    wire st_empty = st_wr_reg == st_rd_reg;
    wire head_failed = act_wait_mem[head] && st_err_mem[st_rd_reg[ACTION_DEPTH_LOG2-1:0]];

    wire head_ready = !act_empty && (!act_wait_mem[head] || !st_empty);
    wire head_send = act_send_mem[head];

    // a failed host write turns the ACK into a remote operational error NAK
    always_comb begin
        m_ack_hdr = act_hdr_mem[head];
        if (head_failed)
            m_ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W] =
                nak(5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
    end
    assign m_ack_valid = head_ready && (head_send || head_failed);
    wire head_pop = head_ready && (!(head_send || head_failed) || m_ack_ready);
    wire [2:0] sent_kind = m_ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB + 5 +: 3];

    always_ff @(posedge clk) begin
        stat_tx_ack <= 1'b0;
        stat_tx_nak <= 1'b0;
        if (act_push) begin
            act_hdr_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= ack_hdr;
            act_wait_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_wait;
            act_send_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_send;
            act_wr_reg <= act_wr_reg + 1'b1;
        end
        if (s_wr_status_valid) begin
            st_err_mem[st_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= s_wr_status_error;
            st_wr_reg <= st_wr_reg + 1'b1;
        end
        if (head_pop) begin
            act_rd_reg <= act_rd_reg + 1'b1;
            if (act_wait_mem[head]) st_rd_reg <= st_rd_reg + 1'b1;
            if (head_send || head_failed) begin
                if (sent_kind == 3'(rnic_pkg::AETH_KIND_ACK)) stat_tx_ack <= 1'b1;
                else stat_tx_nak <= 1'b1;
            end
        end
        if (rst) begin
            act_wr_reg <= '0;
            act_rd_reg <= '0;
            st_wr_reg <= '0;
            st_rd_reg <= '0;
            stat_tx_ack <= 1'b0;
            stat_tx_nak <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // every write has a queued action, so its response always finds room
    always_ff @(posedge clk) begin
        if (!rst && s_wr_status_valid)
            assert ((st_wr_reg - st_rd_reg) < (ACTION_DEPTH_LOG2+1)'(ACTIONS));
    end
`endif
`endif

    wire unused_ok = ^{qpc_reg, hdr_reg};

endmodule

`resetall
