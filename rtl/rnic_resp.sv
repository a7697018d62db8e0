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
 * opcode sequence (invalid request NAK), make sure a receive WQE is posted
 * for a SEND or a WRITE with immediate (RNR NAK otherwise, IBTA 9.7.5.2.8),
 * check lengths (invalid request NAK), check rkey, PD, bounds and
 * REMOTE_WRITE on WRITE FIRST/ONLY and again, with the message's rkey and
 * each packet's own address and length, on every MIDDLE and LAST packet
 * (remote access error NAK: a window invalidated or rebound meanwhile stops
 * the rest of the message), and write the payload to host memory by DMA.
 *
 * SEND: the first packet fetches the receive WQE at the RQ consumer index
 * and checks each of its SGEs against the MPT (LOCAL_WRITE); a failing SGE is
 * a remote operational error NAK and a LOC_PROT_ERR receive completion. Each
 * packet's payload is scattered over the SGEs: one DMA write per piece, the
 * payload stream cut at piece boundaries and re-aligned by a packer. A
 * message longer than the receive buffer is an invalid request NAK and a
 * LOC_LEN_ERR receive completion. The last packet completes the receive WQE
 * (opcode, byte_len, immediate). A WRITE with immediate consumes a receive
 * WQE on its last packet without writing into it.
 *
 * Every accepted packet becomes an action: an ACK/NAK header and, at the end
 * of a message or on an error, a receive CQE. Actions leave in request order
 * and only after the write responses of their packet's data have arrived, so
 * an ACK or CQE never overtakes the data it reports. ACKs are coalesced: one
 * on the ack-request bit, on the last packet of a message and at least every
 * ACK_EVERY packets. A NAK other than PSN-sequence or RNR puts the QP in the
 * error state; the receive queue of a QP in error (this engine's verdict, the
 * requester's, or the QPC state) is flushed: every posted receive WQE
 * completes with WR_FLUSH_ERR, on the error itself, on each RQ doorbell and
 * on each error event.
 *
 * RQ doorbells do not wait for the engine: a doorbell's producer index is
 * written into the QP's table in the cycle it comes (forwarded to the
 * request in hand if it is the same QP's), so a burst of posted receives
 * never holds back the packets that consume them. The flush check it owes
 * (is the QP in error?) goes into a small queue of QPNs (a doorbell of the
 * QP the newest entry names joins it: the check reads the index when it
 * runs) that the engine serves when no header waits, or before headers
 * once the queue is 3/4 full or its head has waited 1024 cycles (so a
 * check, and the flush of a QP in error, is never put off for good). A
 * request header of the QP answers the checks queued before it when it
 * finds the QP not in error, so a stream of SENDs, each with its receive
 * doorbell, costs no cycle of checks.
 *
 * RDMA READ: the request's rkey, PD, bounds and REMOTE_READ are checked
 * (remote access error NAK; a QP without REMOTE_READ gets the invalid
 * request NAK, as rxe); the READ takes one PSN per response packet and one
 * MSN. It becomes an action like any other, so the read of host memory
 * starts only after every earlier request's data is written (a READ after
 * a WRITE sees the WRITE's data): at the head of the queue it is handed to
 * the read-response generator instead of sending an ACK. A duplicate READ
 * is executed again from host memory with the RETH it carries, starting at
 * its own PSN, without touching the QP's state. A duplicate READ at or
 * before the previous one starts a new retry round: the QP's read
 * generation advances, and the generator drops what is left of the jobs of
 * older generations, which the requester has already given up on (as rxe
 * replaces the READ it is answering).
 *
 * ATOMIC compare-and-swap / fetch-and-add: rkey, PD, bounds of the 8 bytes
 * and REMOTE_ATOMIC checked (a misaligned address or a QP without
 * REMOTE_ATOMIC gets the invalid request NAK). The engine waits until every
 * earlier host write it issued is answered and every earlier READ of the
 * same QP has had its responses built and their bytes read (not for other
 * QPs' READ responses or queued ACKs: those wait for the transmit side,
 * which a paused link holds, and the receive path must not), reads the 8
 * bytes, computes, writes the result back (not for a failed compare) and
 * queues an ATOMIC ACKNOWLEDGE with the original value, sent after the
 * write is answered. Nothing else in the NIC writes host memory for a
 * responder in the meantime, so the operation is atomic with respect to
 * every other NIC access. The last ATOMIC_SAVED results of each QP are kept
 * by PSN; a duplicate ATOMIC is answered from them and never executed again
 * (one no longer kept is dropped). A duplicate ATOMIC leaves the read
 * generation alone: it abandons no READ.
 *
 * Responder resources (max_dest_rd_atomic): a new READ or ATOMIC arriving
 * while the QP already has max_dest_rd_atomic READs and ATOMICs accepted
 * and not yet answered (queued as actions, or READ jobs of the current read
 * generation whose last response has not gone to the packet builder) comes
 * from a requester over the responder's limit, since none of those can
 * have been answered at the requester yet: it gets the invalid request NAK
 * and the QP goes to the error state (class C, as rxe answers its
 * ERR_TOO_MANY_RDMA_ATM_REQ). max_dest_rd_atomic 0 counts as 1, more than
 * MAX_RD_ATOMIC as MAX_RD_ATOMIC.
 *
 * Operations: RDMA WRITE, RDMA WRITE with immediate, SEND, SEND with
 * immediate, SEND with invalidate, RDMA READ, ATOMIC. Other request opcodes
 * get the invalid request NAK.
 *
 * SEND with invalidate (IETH on SEND LAST / ONLY, docs/mw.md): once the
 * last packet's checks pass (S_EXEC) and before any of its bytes is
 * written, the engine asks the firmware to invalidate the IETH's rkey
 * (m_inv_*, the MW_REQ registers, MW_REQ_OP_REMOTE_INV) and waits (S_INV,
 * taking context writes meanwhile). Success: the packet is written and
 * the receive CQE carries WC_FLAG_WITH_INV and the rkey. Refused: invalid
 * request NAK (remote operational error if the firmware failed), the
 * receive WQE completes with the answer's status (REM_INV_REQ_ERR, as
 * rxe's), the QP goes to the error state. A wait that would close a
 * cycle is given up: while a QP context write waits (ctx_pend) and the
 * completion engine offers its error event, which this engine takes only
 * when idle, the firmware (running the command whose write waits for the
 * completion engine) cannot answer; the request, if the firmware has not
 * taken it (read MW_REQ while it was shown), is withdrawn and the packet
 * dropped as if lost (nothing written or sent: the peer resends it). One
 * it has taken is answered: the firmware serves requests between commands.
 *
 * Shared receive queues (IBTA 10.2.9): a QP whose QPC names an SRQ (srqn
 * not 0) takes its receive WQEs from the SRQ's ring (SRQC: base, size, PD
 * for the receive SGEs' lkeys) at the SRQ's one consumer index
 * (rnic_srq_state), which every QP on it shares; the cache keys the SRQ's
 * WQEs by the SRQ. A SEND's first packet takes the WQE (the index
 * advances at once, so another QP's SEND between its packets takes the
 * next one) and the QP remembers the WQE's index for its CQE. An empty SRQ
 * is an RNR NAK. A take that leaves fewer WQEs than the armed limit raises
 * EVT_SRQ_LIMIT. A QP on an SRQ in the error state flushes only the WQE it
 * holds (taken by a SEND not yet complete), never the SRQ's, and raises
 * EVT_QP_LAST_WQE once (IBTA 11.2.3: last WQE reached). DB_SRQ doorbells
 * come in on the RQ doorbell port with s_rqdb_srq set.
 * UD QPs (QPC ud) take UD SEND ONLY (with immediate) alone, and RC QPs no
 * UD opcode (dropped, STAT_RX_DROP_QPN). No PSN check, no ACK or NAK, no
 * RNR: a DETH whose Q_Key is not the QP's is dropped (STAT_RX_QKEY_DROP),
 * as is a packet that finds no receive WQE posted (STAT_RX_UD_NO_WQE).
 * rnic_ud_grh has put the 40-byte GRH area in front of the payload (and in
 * the payload length), so the packet is a SEND ONLY of GRH_BYTES more: it
 * is scattered over the receive SGEs, a receive buffer too small for it
 * completes with LOC_LEN_ERR, and the receive CQE carries the DETH's source
 * QP and WC_FLAG_GRH.
 */
module rnic_resp #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10,
    parameter int SRQN_WIDTH = 8,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int ACK_EVERY = 8,
    parameter int ACTION_DEPTH_LOG2 = 4,
    parameter int ATOMIC_SAVED_LOG2 = 4,
    // receive-WQE cache (rnic_rwqe_cache): ways (one QP's WQEs each) and
    // WQEs per way, which one read fetches at most
    parameter int RQ_CACHE_WAYS_LOG2 = 3,
    parameter int RQ_CACHE_LOG2 = 5
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_payload_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_payload_tkeep,
    // the beat's byte count (its tkeep's run end), from a register
    input  wire logic [$clog2(KEEP_WIDTH):0]       s_axis_payload_tbytes,
    input  wire logic                              s_axis_payload_tvalid,
    output      logic                              s_axis_payload_tready,
    input  wire logic                              s_axis_payload_tlast,

    // RQ doorbells and error events (QP put in error elsewhere): both may
    // start a flush of the receive queue
    input  wire logic                              s_rqdb_valid,
    output      logic                              s_rqdb_ready,
    input  wire logic [QPN_WIDTH-1:0]              s_rqdb_qpn,
    input  wire logic [15:0]                       s_rqdb_pi,
    input  wire logic                              s_rqdb_srq,      // DB_SRQ: s_rqdb_qpn is an SRQN
    input  wire logic                              s_errev_valid,
    output      logic                              s_errev_ready,
    input  wire logic [QPN_WIDTH-1:0]              s_errev_qpn,

    output      logic                              qpc_rd_en,
    output      logic [QPN_WIDTH-1:0]              qpc_rd_addr,
    input  wire logic [rnic_pkg::QPC_BITS-1:0]     qpc_rd_data,
    output      logic                              mpt_rd_en,
    output      logic [MR_INDEX_WIDTH-1:0]         mpt_rd_addr,
    input  wire logic [rnic_pkg::MPT_BITS-1:0]     mpt_rd_data,
    // SRQ contexts (registered read) and their writes (index, op, limit)
    output      logic                              srqc_rd_en,
    output      logic [SRQN_WIDTH-1:0]             srqc_rd_addr,
    input  wire logic [rnic_pkg::SRQC_BITS-1:0]    srqc_rd_data,
    input  wire logic                              srq_ctx_valid,
    input  wire logic                              srq_ctx_reset,
    input  wire logic [SRQN_WIDTH-1:0]             srq_ctx_srqn,
    input  wire logic [15:0]                       srq_ctx_limit,
    // SRQ events for the firmware: EVT_SRQ_LIMIT (SRQN), EVT_QP_LAST_WQE (QPN)
    output      logic                              evt_srq_limit_valid,
    output      logic [SRQN_WIDTH-1:0]             evt_srq_limit_srqn,
    output      logic                              evt_last_wqe_valid,
    output      logic [QPN_WIDTH-1:0]              evt_last_wqe_qpn,
    // the QP's error that only a NAK reports (no CQE): EVT_QP_REQ_ERR,
    // EVT_QP_ACCESS_ERR or EVT_QP_OP_ERR, for the firmware
    output      logic                              evt_resp_err_valid,
    output      logic [3:0]                        evt_resp_err_type,
    output      logic [QPN_WIDTH-1:0]              evt_resp_err_qpn,

    // QPC written with CTX_OP_WRITE (full reset) or CTX_OP_QP_RTR (load ePSN)
    input  wire logic                              qp_reset_valid,
    input  wire logic                              qp_rtr_valid,
    input  wire logic [QPN_WIDTH-1:0]              qp_reset_qpn,
    input  wire logic [23:0]                       qp_reset_rq_psn,
    // a QP context write waits: take nothing new, so the engine is soon
    // idle; ctx_ready (a register compare) says it is, and then writes none
    // of its per-QP state until the write is taken
    input  wire logic                              ctx_pend,
    output      logic                              ctx_ready,

    // error state: this engine's, read by the requester (registered: the
    // data a cycle after the address); the requester side's, read here at
    // ext_err_qpn (registered too, the address held a cycle before the use)
    input  wire logic [QPN_WIDTH-1:0]              err_rd_qpn,
    output      logic                              err_rd_val,
    output      logic [QPN_WIDTH-1:0]              ext_err_qpn,
    input  wire logic                              ext_err_val,

    // receive WQE reads
    output      logic [63:0]                       m_axis_rwqe_desc_addr,
    output      logic [31:0]                       m_axis_rwqe_desc_len,
    output      logic                              m_axis_rwqe_desc_last,
    output      logic                              m_axis_rwqe_desc_valid,
    input  wire logic                              m_axis_rwqe_desc_ready,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_rwqe_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_rwqe_tkeep,
    input  wire logic                              s_axis_rwqe_tvalid,
    output      logic                              s_axis_rwqe_tready,
    input  wire logic                              s_axis_rwqe_tlast,
    input  wire logic                              s_rwqe_status_valid,
    input  wire logic                              s_rwqe_status_error,

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

    // READ jobs toward the read-response generator
    output      logic                              m_rdjob_valid,
    input  wire logic                              m_rdjob_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_rdjob_hdr,
    output      logic [63:0]                       m_rdjob_va,
    output      logic [31:0]                       m_rdjob_rkey,
    output      logic [15:0]                       m_rdjob_pd,
    output      logic [31:0]                       m_rdjob_len,
    output      logic [2:0]                        m_rdjob_pmtu,
    // the job's QP: m_rdjob_qpn_sel ? m_rdjob_qpn_b : m_rdjob_qpn_a, two
    // registers and a select (the READ engine's searches compare both)
    output      logic [QPN_WIDTH-1:0]              m_rdjob_qpn_a,
    output      logic [QPN_WIDTH-1:0]              m_rdjob_qpn_b,
    output      logic                              m_rdjob_qpn_sel,
    output      logic [3:0]                        m_rdjob_gen,
    output      logic                              m_rdjob_raw,     // an ACK/NAK queued behind READ responses
    output      logic                              m_rdjob_plain,   // ... a plain ACK, which a later one may replace
    // the 64-byte lines of the READ's bytes, in the low 40 bits of the bus
    // address (bits 39:6): first and last (bit 34: the span wraps past
    // 2^40), none for a zero-length READ
    output      logic [33:0]                       m_rdjob_span_first,
    output      logic [34:0]                       m_rdjob_span_last,
    output      logic                              m_rdjob_span_nz,
    // the QP asked about: pend_rd_sel ? pend_rd_qpn_b : pend_rd_qpn_a
    output      logic [QPN_WIDTH-1:0]              pend_rd_qpn_a,
    output      logic [QPN_WIDTH-1:0]              pend_rd_qpn_b,
    output      logic                              pend_rd_sel,
    input  wire logic                              pend_rd_val,     // the QP has READ jobs queued
    output      logic [QPN_WIDTH-1:0]              pend_at_qpn,     // the same, for an ATOMIC's QP,
    output      logic [33:0]                       pend_at_line,    // of READs over its 64-byte line
    output      logic [MR_INDEX_WIDTH-1:0]         pend_at_mr,      // through its rkey's MPT entry (or another)
    input  wire logic                              pend_at_val,
    // the current read generation of a QP, read by the generator: a
    // registered read, rgen_rd_val is the generation of the QP named in the
    // previous cycle (the generator holds the address a cycle before it
    // looks)
    input  wire logic [QPN_WIDTH-1:0]              rgen_rd_qpn,
    output      logic [3:0]                        rgen_rd_val,
    // READ jobs of a QP and generation queued or in progress at the generator
    // (looked at in S_PSN)
    output      logic [QPN_WIDTH-1:0]              rdcnt_rd_qpn,
    output      logic [3:0]                        rdcnt_rd_gen,
    input  wire logic [7:0]                        rdcnt_rd_val,

    // receive completions
    output      logic                              m_cqe_valid,
    input  wire logic                              m_cqe_ready,
    output      logic [15:0]                       m_cqe_cqn,
    output      logic [23:0]                       m_cqe_qpn,
    output      logic [15:0]                       m_cqe_wqe_counter,
    output      logic [7:0]                        m_cqe_opcode,
    output      logic [7:0]                        m_cqe_status,
    output      logic [31:0]                       m_cqe_byte_len,
    output      logic [31:0]                       m_cqe_imm,
    output      logic [7:0]                        m_cqe_flags,
    output      logic [23:0]                       m_cqe_src_qp,
    output      logic [47:0]                       m_cqe_smac,     // UD receive: the frame's source MAC

    // SEND with invalidate: the request to the firmware (MW_REQ, shared with
    // the requester through the core's arbiter; held until the answer) and
    // the answer's WC status
    output      logic                              m_inv_valid,
    output      logic [QPN_WIDTH-1:0]              m_inv_qpn,
    output      logic [31:0]                       m_inv_rkey,
    input  wire logic                              s_inv_ans_valid,
    input  wire logic [7:0]                        s_inv_ans_status,
    input  wire logic                              s_inv_taken,   // the firmware serves the request

    output      logic                              stat_drop_qpn,
    output      logic                              stat_qkey_drop,
    output      logic                              stat_ud_no_wqe,
    output      logic                              stat_psn_err,
    output      logic                              stat_duplicate,
    output      logic                              stat_access_err,
    output      logic                              stat_tx_ack,
    output      logic                              stat_tx_nak,
    output      logic                              stat_tx_rnr,
    output      logic                              stat_recv_cqe
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int TAG_BITS = rnic_pkg::MKEY_TAG_BITS;
    localparam int ACTIONS = 2 ** ACTION_DEPTH_LOG2;
    // a packet is written in at most one piece per receive SGE
    localparam int NSGE = rnic_pkg::MAX_RECV_SGE;
    localparam int ST_LOG2 = ACTION_DEPTH_LOG2 + 2;
    localparam int RWQE_BITS = rnic_pkg::RECV_WQE_BYTES_TOTAL * 8;
    localparam int RWQE_BEATS = (rnic_pkg::RECV_WQE_BYTES_TOTAL + KEEP_WIDTH - 1) / KEEP_WIDTH;
    // where a receive SGE's field (its length, its lkey) sits in the WQE, in bits
    function automatic int rsge_field_bit(input int i, input int off);
        rsge_field_bit = 8 * (rnic_pkg::RECV_WQE_SGE_OFF + i * rnic_pkg::SGE_BYTES + off);
    endfunction
    localparam int OFF_W = $clog2(KEEP_WIDTH);
    localparam int CNT_W = OFF_W + 1;

    initial begin
        if (NSGE != 4 || rnic_pkg::RECV_WQE_SGE_COUNT != NSGE) begin
            $error("rnic_resp: the receive WQE layout must hold 4 SGEs (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // per-QP responder state
    // ------------------------------------------------------------------
    logic [23:0] epsn_mem [NUM_QPS];      // expected PSN
    logic [23:0] msn_mem [NUM_QPS];       // messages completed
    logic        in_msg_mem [NUM_QPS];    // inside a multi-packet message
    logic        msg_send_mem [NUM_QPS];  // ... which is a SEND (else a WRITE)
    logic [63:0] wr_pa_mem [NUM_QPS];     // where the next WRITE byte goes
    logic [31:0] wr_rem_mem [NUM_QPS];    // WRITE bytes still expected
    logic [31:0] msg_len_mem [NUM_QPS];   // WRITE length (RETH), for a WRITE with immediate
    // the WRITE's rkey and the address of its next byte: every MIDDLE and
    // LAST packet is checked against the MPT again (docs/mw.md)
    logic [31:0] wr_rkey_mem [NUM_QPS];
    logic [63:0] wr_va_mem [NUM_QPS];
    logic        nak_sent_mem [NUM_QPS];  // a PSN sequence or RNR NAK is outstanding
    logic        err_mem [NUM_QPS];
    logic        werr_mem [NUM_QPS];      // a payload write failed (set by the action queue)
    logic [7:0]  since_ack_mem [NUM_QPS]; // packets since the last ACK
    logic [15:0] rq_pi_mem [NUM_QPS];     // receive WQEs posted
    logic [15:0] rq_ci_mem [NUM_QPS];     // receive WQEs completed; rq_ci is the one in use
    // the receive WQE in use by a multi-packet SEND, translated: NSGE
    // {length, bus address} pairs in one word, written together
    localparam int RS_BITS = 96;
    logic [NSGE*RS_BITS-1:0] rs_sge_mem [NUM_QPS];
    logic [2:0]  rs_idx_mem [NUM_QPS];    // current SGE
    logic [31:0] rs_off_mem [NUM_QPS];    // offset inside it
    logic [31:0] rs_bytes_mem [NUM_QPS];  // message bytes received so far
    // a QP on an SRQ: the SRQ index of the WQE its SEND has taken (held
    // until the SEND completes) and whether last-WQE-reached was raised
    logic [15:0] rs_widx_mem [NUM_QPS];
    logic        rs_held_mem [NUM_QPS];
    logic        last_wqe_mem [NUM_QPS];

    wire [NSGE*RS_BITS-1:0] rs_sge_cur = rs_sge_mem[qpn_reg];

    // read generations: a duplicate READ at or before the last one (or the
    // first after new requests) begins a new round of re-reads
    logic [3:0]  rgen_mem [NUM_QPS];
    logic        dup_mode_mem [NUM_QPS];
    logic [23:0] dup_psn_mem [NUM_QPS];
    logic [3:0]  rgen_cur;        // the generation of qpn_reg (from S_QPC on)
    logic [3:0]  rgen_cur_reg;    // ... kept up to date while qpn_reg stays

    // the last ATOMIC results of each QP, by PSN, for duplicates
    localparam int ASAVE = 2 ** ATOMIC_SAVED_LOG2;
    logic [23:0]                  asave_psn_mem [NUM_QPS*ASAVE];
    logic [63:0]                  asave_orig_mem [NUM_QPS*ASAVE];
    logic [ASAVE-1:0]             asave_vld_mem [NUM_QPS];
    logic [ATOMIC_SAVED_LOG2-1:0] asave_wp_mem [NUM_QPS];

    typedef enum logic [4:0] {
        S_IDLE,       // take a DB_SRQ doorbell, an error event, a flush check or a request header
        S_QPC,        // latch the QP context and the QP's dynamic state
        S_PSN,        // QP state and PSN check
        S_OP,         // opcode sequence, receive WQE available
        S_RWQE_DESC,  // find the receive WQE in the cache
        S_RWQE_DATA,  // ... wait for the cache to read it
        S_RWQE_LOAD,  // copy it out of the cache
        S_RLKEY_RD,   // read the MPT entry of the next receive SGE
        S_RLKEY_CHK,  // check it and translate (stage A)
        S_RLKEY_C2,   // (stage B)
        S_RLKEY_CHKD, // its verdict
        S_MPT,        // rkey, PD, access and bounds (stage A; a duplicate READ)
        S_MPT2,       // (stage B; also a WRITE MIDDLE / LAST)
        S_MPTD,       // the verdict (WRITE, READ, ATOMIC; a WRITE's length too)
        S_EXEC0,      // a fresh receive WQE's lengths settle for S_EXEC
        S_EXEC,       // lengths; plan the writes
        S_WDESC,      // issue the write of the next piece
        S_WDATA,      // payload of this piece into the write engine
        S_PUSH,       // queue the action, commit the QP state
        S_DRAIN,      // payload of a dropped request
        S_FLUSH,      // flush receive WQEs of a QP in error
        S_PREF,       // a doorbell's QP not in error, no packet waiting: the cache reads its WQEs
        S_ATWAIT,     // ATOMIC: wait for earlier writes and its QP's READs
        S_ATRD,       // read the 8 bytes
        S_ATDATA,     // collect them, compute
        S_ATWR,       // write the result back
        S_ATWD,
        S_ADUP,       // a duplicate ATOMIC: look for its saved result
        S_INV,        // SEND with invalidate: wait for the firmware's answer
        S_INVD        // ... and act on it
    } state_t;

    // Kept binary (no fsm_encoding): recoded one-hot, this state's
    // decisions grew deeper (the rest of the responder's registers behind
    // the SGE choice, 11-13 levels where binary had 10)
    state_t state_reg;
    logic [1:0]                     src_reg;       // 0 request, 1 RQ doorbell's flush check, 2 error event
    logic [HB-1:0]                  hdr_reg;
    logic [QPN_WIDTH-1:0]           qpn_reg;
    logic [rnic_pkg::QPC_BITS-1:0]  qpc_reg;
    logic [63:0]                    pa_reg;
    logic [31:0]                    rem_reg;
    logic [31:0]                    msg_len_reg;
    logic [31:0]                    wr_rkey_reg;   // a WRITE's rkey (MIDDLE / LAST)
    logic [63:0]                    wr_va_reg;     // ... and this packet's address
    logic [15:0]                    rq_ci_reg;
    logic [15:0]                    rq_pi_reg;
    logic [63:0]                    rs_pa_reg [NSGE];
    logic [31:0]                    rs_len_reg [NSGE];
    logic [2:0]                     rs_idx_reg;
    logic [31:0]                    rs_off_reg;
    logic [31:0]                    rs_bytes_reg;
    logic [RWQE_BITS-1:0]           rwqe_reg;
    logic [7:0]                     rwqe_beat_reg;
    logic                           rwqe_err_reg;
    logic                           rwqe_st_seen_reg;
    logic [2:0]                     rsge_reg;      // receive SGE being checked
    logic [31:0]                    pkt_left_reg;  // payload bytes of this packet not yet planned
    // boff_reg + bytes of the current piece not yet streamed (a piece is at
    // most a packet's payload, under 64 KiB), and whether that is beyond the beat
    logic [16:0]                    pend_reg;
    logic                           pend_far_reg;
    logic [OFF_W-1:0]               boff_reg;      // first unconsumed byte lane of the payload beat
    logic [2:0]                     npieces_reg;   // writes issued for this packet
    logic [15:0]                    drop_plen;     // payload left to drain after a drop
    logic                           dup_reg;       // a duplicate READ, executed again (or a duplicate ATOMIC)
    logic [63:0]                    at_orig_reg;   // ATOMIC: the original value
    logic [63:0]                    at_new_reg;    // ... and what is written back
    logic [ATOMIC_SAVED_LOG2:0]     adup_reg;      // saved result being compared
    logic [7:0]                     inv_st_reg;    // SEND with invalidate: the firmware's answer
    logic                           inv_stale_reg; // ... the QP's context was written meanwhile
    // state_reg == S_INV as a flip-flop of its own: the request's valid and
    // the context-write readiness leave the engine from it (as a decode of
    // the state they reached the register file's read data and the context
    // write's go strobes through the top level's handshakes, 10 levels)
    logic                           inv_wait_reg;

    wire [23:0] h_psn    = hdr_reg[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
    wire        h_ackreq = hdr_reg[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB];
    wire [63:0] h_va     = hdr_reg[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W];
    wire [31:0] h_rkey   = hdr_reg[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W];
    wire [31:0] h_dlen   = hdr_reg[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W];
    wire [31:0] h_imm    = hdr_reg[rnic_hdr_pkg::HDR_IMMDT_LSB +: rnic_hdr_pkg::HDR_IMMDT_W];
    wire [15:0] h_plen   = hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];
    wire [23:0] h_dqpn   = hdr_reg[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W];
    // UD: the DETH
    wire        h_ud     = hdr_reg[rnic_hdr_pkg::HDR_HAS_DETH_LSB];
    wire [31:0] h_qkey   = hdr_reg[rnic_hdr_pkg::HDR_DETH_QKEY_LSB +: rnic_hdr_pkg::HDR_DETH_QKEY_W];
    wire [23:0] h_sqpn   = hdr_reg[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W];
    wire [47:0] h_smac   = hdr_reg[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W];
    // IETH (SEND LAST / ONLY with invalidate): its rkey is in h_rkey
    wire        h_ieth   = hdr_reg[rnic_hdr_pkg::HDR_HAS_IETH_LSB];

    wire [3:0]   qpc_state  = qpc_reg[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W];
    wire [2:0]   qpc_pmtu   = qpc_reg[rnic_pkg::QPC_PMTU_LSB +: rnic_pkg::QPC_PMTU_W];
    wire [7:0]   qpc_access = qpc_reg[rnic_pkg::QPC_ACCESS_LSB +: rnic_pkg::QPC_ACCESS_W];
    wire [15:0]  qpc_pd     = qpc_reg[rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W];
    wire [23:0]  qpc_dqpn   = qpc_reg[rnic_pkg::QPC_DEST_QPN_LSB +: rnic_pkg::QPC_DEST_QPN_W];
    wire [15:0]  qpc_rcqn   = qpc_reg[rnic_pkg::QPC_RECV_CQN_LSB +: rnic_pkg::QPC_RECV_CQN_W];
    wire [4:0]   qpc_rq_log = qpc_reg[rnic_pkg::QPC_RQ_LOG_SIZE_LSB +: rnic_pkg::QPC_RQ_LOG_SIZE_W];
    wire [63:0]  qpc_rq_base = qpc_reg[rnic_pkg::QPC_RQ_BASE_LSB +: rnic_pkg::QPC_RQ_BASE_W];
    wire         qpc_ud     = qpc_reg[rnic_pkg::QPC_UD_LSB];
    wire [31:0]  qpc_qkey   = qpc_reg[rnic_pkg::QPC_QKEY_LSB +: rnic_pkg::QPC_QKEY_W];
    wire [4:0]   qpc_rnr_timer = qpc_reg[rnic_pkg::QPC_MIN_RNR_TIMER_LSB +: rnic_pkg::QPC_MIN_RNR_TIMER_W];
    wire [4:0]   qpc_max_dest = qpc_reg[rnic_pkg::QPC_MAX_DEST_RD_ATOMIC_LSB +: rnic_pkg::QPC_MAX_DEST_RD_ATOMIC_W];
    // the QP's SRQ (0: its own RQ), and the SRQ's context: read in S_QPC
    // at the SRQN of the QPC being latched, registered in S_PSN
    wire [15:0]  qpc_srqn_full = qpc_reg[rnic_pkg::QPC_SRQN_LSB +: rnic_pkg::QPC_SRQN_W];
    wire [SRQN_WIDTH-1:0] qpc_srqn = qpc_srqn_full[SRQN_WIDTH-1:0];
    wire         on_srq = qpc_srqn_full != 16'd0;
    // (the SRQ's indices, rnic_srq_state, are read at the same address, a
    // registered read: from S_PSN on they are the SRQ's of the QPC latched)
    assign srqc_rd_en = state_reg == S_QPC;
    assign srqc_rd_addr = (state_reg == S_QPC) ? SRQN_WIDTH'(qpc_rd_data[rnic_pkg::QPC_SRQN_LSB +: rnic_pkg::QPC_SRQN_W])
                                               : qpc_srqn;
    wire [rnic_pkg::SRQC_BITS-1:0] srqc_reg = srqc_rd_data;   // held until the next S_QPC
    wire [4:0]   srq_log  = srqc_reg[rnic_pkg::SRQC_LOG_SIZE_LSB +: rnic_pkg::SRQC_LOG_SIZE_W];
    wire [63:0]  srq_base = srqc_reg[rnic_pkg::SRQC_BASE_LSB +: rnic_pkg::SRQC_BASE_W];
    wire [15:0]  srq_pd   = srqc_reg[rnic_pkg::SRQC_PD_LSB +: rnic_pkg::SRQC_PD_W];
    wire [15:0]  rq_pd    = on_srq ? srq_pd : qpc_pd;
    wire [4:0]   rda_limit = (qpc_max_dest == 0) ? 5'd1 : (qpc_max_dest > 5'(rnic_pkg::MAX_RD_ATOMIC))
                                                  ? 5'(rnic_pkg::MAX_RD_ATOMIC) : qpc_max_dest;

    function automatic logic is_op(input logic [7:0] op, input logic [7:0] code);
        is_op = op == code;
    endfunction

    // Wide sums and compares as parallel-prefix (Kogge-Stone) carry logic
    // written as gates: about log2(width) logic levels, where '+' and '<'
    // become carry chains of width / 4 levels. Operands are 65 bits (narrower
    // ones zero-extended; synthesis drops the constant bits and what is not
    // used); the result is {carry out, sum}.
    function automatic logic [65:0] padd(input logic [64:0] a, input logic [64:0] b, input logic cin);
        logic [64:0] p, gg, pp;
        p = a ^ b;
        gg = (a & b) | {64'd0, p[0] & cin};
        pp = p;
        // after distance d, bit i holds the carry generate / propagate of bits
        // (i - 2d, i]
        for (int d = 1; d < 65; d = d * 2) begin
            gg = gg | (pp & (gg << d));
            pp = pp & (pp << d);
        end
        padd = {gg[64], p ^ {gg[63:0], cin}};
    endfunction
    // a >= b, unsigned (65 bits)
    function automatic logic pge(input logic [64:0] a, input logic [64:0] b);
        pge = 1'(padd(a, ~b, 1'b1) >> 65);
    endfunction
    // a - b (65 bits, modulo)
    function automatic logic [64:0] psub(input logic [64:0] a, input logic [64:0] b);
        psub = 65'(padd(a, ~b, 1'b1));
    endfunction

    // opcode classes, decoded as the header is taken (S_IDLE) into flag
    // registers: the decisions of S_PSN on start from them, not from the
    // opcode's compare
    localparam int OPF_W = 22;
    function automatic logic [OPF_W-1:0] op_decode(input logic [7:0] op);
        logic wf, wm, wli, wl, woi, wo, sf, sm, sli, sl, soi, so, rd, cas, at;
        wf  = is_op(op, rnic_pkg::OP_RDMA_WRITE_FIRST[7:0]);
        wm  = is_op(op, rnic_pkg::OP_RDMA_WRITE_MIDDLE[7:0]);
        wli = is_op(op, rnic_pkg::OP_RDMA_WRITE_LAST_IMM[7:0]);
        wl  = is_op(op, rnic_pkg::OP_RDMA_WRITE_LAST[7:0]) || wli;
        woi = is_op(op, rnic_pkg::OP_RDMA_WRITE_ONLY_IMM[7:0]);
        wo  = is_op(op, rnic_pkg::OP_RDMA_WRITE_ONLY[7:0]) || woi;
        sf  = is_op(op, rnic_pkg::OP_SEND_FIRST[7:0]);
        sm  = is_op(op, rnic_pkg::OP_SEND_MIDDLE[7:0]);
        sli = is_op(op, rnic_pkg::OP_SEND_LAST_IMM[7:0]);
        sl  = is_op(op, rnic_pkg::OP_SEND_LAST[7:0]) || is_op(op, rnic_pkg::OP_SEND_LAST_INV[7:0]) || sli;
        // a UD SEND ONLY is a SEND ONLY here (its QP is a UD QP: S_PSN)
        soi = is_op(op, rnic_pkg::OP_SEND_ONLY_IMM[7:0]) || is_op(op, rnic_pkg::OP_UD_SEND_ONLY_IMM[7:0]);
        so  = is_op(op, rnic_pkg::OP_SEND_ONLY[7:0]) || is_op(op, rnic_pkg::OP_UD_SEND_ONLY[7:0])
              || is_op(op, rnic_pkg::OP_SEND_ONLY_INV[7:0]) || soi;
        rd  = is_op(op, rnic_pkg::OP_RDMA_READ_REQUEST[7:0]);
        cas = is_op(op, rnic_pkg::OP_COMPARE_SWAP[7:0]);
        at  = cas || is_op(op, rnic_pkg::OP_FETCH_ADD[7:0]);
        op_decode = {wf, wm, wli, wl, woi, wo, sf, sm, sli, sl, soi, so, rd, cas, at,
                     wf || wm || wl || wo,                       // write
                     sf || sm || sl || so,                       // send
                     wf || wo || sf || so || rd || at,           // starts a message
                     wl || wo || sl || so || rd || at,           // ends one
                     wli || woi || sli || soi,                   // immediate
                     sf || so || wli || woi,                     // needs the receive WQE
                     wf || wo || rd || at};                      // carries a RETH checked against the MPT
    endfunction
    logic [OPF_W-1:0] opf_reg;
    wire w_first    = opf_reg[21];
    wire w_middle   = opf_reg[20];
    wire w_last     = opf_reg[18];
    wire w_only     = opf_reg[16];
    wire s_first    = opf_reg[15];
    wire s_middle   = opf_reg[14];
    wire s_last     = opf_reg[12];
    wire s_only     = opf_reg[10];
    wire op_read    = opf_reg[9];
    wire op_cas     = opf_reg[8];
    wire op_atomic  = opf_reg[7];
    wire op_write   = opf_reg[6];
    wire op_send    = opf_reg[5];
    wire op_starts  = opf_reg[4];
    wire op_ends    = opf_reg[3];
    wire op_imm     = opf_reg[2];
    // needs the receive WQE at rq_ci: a SEND's first packet, a WRITE's immediate
    wire needs_rwqe = opf_reg[1];
    wire op_mpt     = opf_reg[0];
    wire [63:0] h_swap = hdr_reg[rnic_hdr_pkg::HDR_ATOMIC_SWAP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_SWAP_W];
    wire [63:0] h_cmp  = hdr_reg[rnic_hdr_pkg::HDR_ATOMIC_CMP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_CMP_W];
    // the fetch-and-add's sum, registered (rnic_add_split) while the engine
    // goes from S_ATDATA, which loads the original, to S_ATWR, which takes it
    logic [63:0] at_sum;
    rnic_add_split #(.B_WIDTH(64)) at_add_inst (.clk, .en(1'b1), .a(at_orig_reg), .b(h_swap), .sum(at_sum));

    wire [2:0]  pmtu_code = (qpc_pmtu < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256) :
                            (qpc_pmtu > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096) : qpc_pmtu;
    wire [31:0] mtu_bytes = 32'(128) << pmtu_code;
    wire [31:0] plen = 32'(h_plen);
    // a READ takes one PSN per response packet (at least one); registered,
    // from the header and the QPC (settled from S_PSN on) for S_PUSH
    // (ceil(dlen / MTU) as the quotient and a round-up bit: the sum is taken
    // with the next PSN's, epsn_nx_reg)
    wire [31:0] mtu_mask = mtu_bytes - 32'd1;
    logic [23:0] req_q_reg;
    logic        req_rnz_reg;
    always_ff @(posedge clk) begin
        req_q_reg <= (!op_read || h_dlen == 0) ? 24'd1 : 24'(h_dlen >> (32'(pmtu_code) + 32'd7));
        req_rnz_reg <= op_read && (h_dlen & mtu_mask) != 0;
    end

    // lengths (IBTA 9.7.5.1.6 / C9-88..90): FIRST and MIDDLE carry exactly one
    // MTU, LAST at least one byte and at most an MTU, ONLY at most an MTU; a
    // WRITE ends exactly at the RETH DMA length. Registered every cycle for
    // S_EXEC: its inputs (header, QPC, rem_reg) do not change in the cycle
    // before it (rem_reg is loaded in S_OP or S_MPT, at least one state
    // earlier). A WRITE's verdict is also taken in S_MPTD (see there): a
    // WRITE FIRST or ONLY is measured against its RETH length (h_dlen, from
    // S_QPC on), which S_OP copies to rem_reg, and a MIDDLE or LAST against
    // rem_reg as S_QPC loads it, so the register has settled by S_MPTD too.
    // (the MTU from a register of its own: the QPC's clamp and shift stood in
    // front of these compares; qpc_reg is loaded in S_QPC, at least three
    // states before S_EXEC, so mtu_q has settled the cycle before S_EXEC's)
    logic [31:0] mtu_q;
    always_ff @(posedge clk) mtu_q <= mtu_bytes;
    wire plen_le_mtu = pge(65'(mtu_q), 65'(plen));
    // UD: the GRH area and at most an MTU of payload
    wire plen_le_ud = pge(65'(mtu_q) + 65'(rnic_pkg::GRH_BYTES), 65'(plen));
    wire plen_lt_rem = !pge(65'(plen), 65'(rem_reg));
    wire plen_lt_dlen = !pge(65'(plen), 65'(h_dlen));
    logic len_ok, len_ok_reg;
    always_comb begin
        if (op_read) len_ok = plen == 0 && (!h_dlen[31] || h_dlen[30:0] == 31'd0);
        else if (op_atomic) len_ok = plen == 0;
        else if (w_first) len_ok = plen == mtu_q && plen_lt_dlen;
        else if (w_middle) len_ok = plen == mtu_q && plen_lt_rem;
        else if (w_last) len_ok = plen != 0 && plen_le_mtu && plen == rem_reg;
        else if (w_only) len_ok = plen_le_mtu && plen == h_dlen;
        else if (s_first || s_middle) len_ok = plen == mtu_q;
        else if (s_last) len_ok = plen != 0 && plen_le_mtu;
        else if (qpc_ud) len_ok = plen_le_ud;
        else len_ok = plen_le_mtu;
    end
    always_ff @(posedge clk) len_ok_reg <= len_ok;

    // receive buffer: the message so far plus this packet within the SGE
    // lengths, i.e. len0 + len1 + len2 + len3 - bytes - plen >= 0, in two
    // register steps: the receive state's five terms carry-saved to two
    // (rb_x_reg, rb_y_reg), then those and the packet's length to two and one
    // prefix carry. Registered every cycle for S_EXEC: the packet's length
    // holds from S_QPC on, the receive state changes in S_QPC (S_PSN and S_OP
    // follow), in S_RWQE_DESC and the receive SGE states (S_RLKEY_RD and
    // S_EXEC0 follow the last change), never in the two cycles before S_EXEC
    // (asserted against the direct sum there)
    function automatic logic [129:0] csa(input logic [64:0] x, input logic [64:0] y, input logic [64:0] z);
        csa = {(x & y | x & z | y & z) << 1, x ^ y ^ z};
    endfunction
    wire [129:0] rb_c1 = csa(65'(rs_len_reg[0]), 65'(rs_len_reg[1]), 65'(rs_len_reg[2]));
    wire [129:0] rb_c2 = csa(rb_c1[64:0], rb_c1[129:65], 65'(rs_len_reg[3]));
    wire [129:0] rb_c3 = csa(rb_c2[64:0], rb_c2[129:65], ~{33'd0, rs_bytes_reg});
    logic [64:0] rb_x_reg, rb_y_reg;
    always_ff @(posedge clk) begin
        rb_x_reg <= rb_c3[64:0];
        rb_y_reg <= rb_c3[129:65];
    end
    // the carry vector's bit 0 is free: the second negation's + 1
    wire [129:0] rb_c4 = csa(rb_x_reg, rb_y_reg, ~{33'd0, plen});
    wire [65:0]  rb_sum = padd(rb_c4[64:0], rb_c4[129:65] | 65'd1, 1'b1);
    wire         rbuf_ok = !rb_sum[64];
    logic        rbuf_ok_reg;
    always_ff @(posedge clk) rbuf_ok_reg <= rbuf_ok;

    // receive SGE fields
    function automatic logic [63:0] rsge_addr(input logic [RWQE_BITS-1:0] w, input logic [2:0] i);
        rsge_addr = w[8 * (rnic_pkg::RECV_WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_ADDR_OFF) +: 64];
    endfunction
    function automatic logic [31:0] rsge_len(input logic [RWQE_BITS-1:0] w, input logic [2:0] i);
        rsge_len = w[8 * (rnic_pkg::RECV_WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LENGTH_OFF) +: 32];
    endfunction
    function automatic logic [31:0] rsge_lkey(input logic [RWQE_BITS-1:0] w, input logic [2:0] i);
        rsge_lkey = w[8 * (rnic_pkg::RECV_WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LKEY_OFF) +: 32];
    endfunction
    wire [63:0] cur_raddr = rsge_addr(rwqe_reg, rsge_reg);
    wire [31:0] cur_rlen  = rsge_len(rwqe_reg, rsge_reg);
    wire [31:0] cur_rlkey = rsge_lkey(rwqe_reg, rsge_reg);
    // Per SGE, whether its length is zero and whether its lkey is the
    // invalid one (the list's end), registered as the WQE's beats arrive:
    // S_RLKEY_RD's choice then takes a bit of each (the 32-bit compares
    // behind the SGE multiplexer ran into the receive state's enables).
    logic [NSGE-1:0] rlen_z_reg, rlkey_end_reg;
    always_ff @(posedge clk) begin
        if (state_reg == S_RWQE_LOAD && rwqe_beat_reg != 0) begin
            for (int i = 0; i < NSGE; i++) begin
                // (beat n arrives when rwqe_beat_reg is n + 1: a constant compare)
                if (rwqe_beat_reg == 8'(rsge_field_bit(i, rnic_pkg::SGE_LENGTH_OFF) / DATA_WIDTH + 1))
                    rlen_z_reg[i] <= rc_rd_data[rsge_field_bit(i, rnic_pkg::SGE_LENGTH_OFF) % DATA_WIDTH +: 32] == 32'd0;
                if (rwqe_beat_reg == 8'(rsge_field_bit(i, rnic_pkg::SGE_LKEY_OFF) / DATA_WIDTH + 1))
                    rlkey_end_reg[i] <= rc_rd_data[rsge_field_bit(i, rnic_pkg::SGE_LKEY_OFF) % DATA_WIDTH +: 32]
                                        == rnic_pkg::INVALID_LKEY;
            end
        end
    end
    wire cur_rlen_z = rsge_reg < 3'(NSGE) && rlen_z_reg[rsge_reg[1:0]];
    wire rsge_end = rsge_reg == 3'(NSGE) || rlkey_end_reg[rsge_reg[1:0]];

    // The first receive SGE's MPT entry is read in S_RWQE_LOAD's last cycle,
    // from the WQE as its last beat comes out of the cache, and the key
    // check's operands are registered there too: S_RLKEY_RD runs the
    // check's first stage for that SGE itself (rlkey_pre_reg) and goes on
    // to its second (S_RLKEY_C2), a cycle less per receive WQE. Where the
    // first SGE is empty or the list's end, the read is not used.
    wire rload_last = state_reg == S_RWQE_LOAD && rwqe_beat_reg == 8'(RWQE_BEATS);
    logic [RWQE_BITS-1:0] rwqe_last_beat;
    always_comb begin
        rwqe_last_beat = rwqe_reg;
        rwqe_last_beat[DATA_WIDTH * (RWQE_BEATS - 1) +: DATA_WIDTH] = rc_rd_data;
    end
    wire [31:0] sge0_rlkey_ld = rsge_lkey(rwqe_last_beat, 3'd0);
    logic rlkey_pre_reg;   // S_RLKEY_RD's first cycle after the load: the entry read is SGE 0's
    always_ff @(posedge clk) rlkey_pre_reg <= rload_last;

    // Key check against the MPT entry read in the cycle before
    // (rnic_mr_check_pipe: rnic_mr_check in two register stages): the
    // RETH's rkey with REMOTE_WRITE / READ / ATOMIC (the QP must allow it
    // too) or the receive SGE's lkey with LOCAL_WRITE (S_RLKEY_CHK). Both
    // stages advance in every cycle of en; the verdict is used in S_MPTD /
    // S_RLKEY_CHKD.
    // A request that carries its key (WRITE FIRST / ONLY, READ, ATOMIC) is
    // checked while its PSN and opcode are: the entry is read in S_QPC
    // (the header's rkey), the operands are the header's and the context's
    // as S_QPC reads it, the stages advance in S_PSN and S_OP, and S_OP
    // goes on to the verdict (S_MPTD): two cycles fewer than a check that
    // begins after S_OP. A WRITE's MIDDLE and LAST packets (w_cont) are checked
    // too, with the message's rkey and the packet's own address and length
    // (S_QPC loads them: the entry is read in S_PSN, the first stage in
    // S_OP, the second in S_MPT2), so no packet checked after a window's
    // invalidation or rebind is written. A duplicate READ (S_PSN to S_MPT)
    // takes S_MPT and S_MPT2. Where S_OP or S_PSN waits, the stages take
    // the same operands and entry again.
    // The check's operands are registered in the state before: S_RLKEY_RD
    // (rsge_reg holds into S_RLKEY_CHK), S_QPC, S_PSN and S_OP (the header
    // and the message's registers hold from S_QPC on). Chosen there,
    // behind the SGE multiplexer and the state decode, they ran through the
    // first stage's carry pieces (10 levels).
    // S_RLKEY_CHK is next, or S_RLKEY_RD runs the first stage (rload_last)
    wire        ck_lkey_nx = state_reg == S_RLKEY_RD || rload_last;
    wire [63:0] ck_raddr = rload_last ? rsge_addr(rwqe_last_beat, 3'd0) : cur_raddr;
    wire [31:0] ck_rlen = rload_last ? rsge_len(rwqe_last_beat, 3'd0) : cur_rlen;
    wire [31:0] ck_rlkey = rload_last ? sge0_rlkey_ld : cur_rlkey;
    wire        w_cont  = w_middle || w_last;
    wire [31:0] chk_len = op_atomic ? 32'd8 : w_cont ? plen : h_dlen;
    logic        ck_lkey;
    logic [31:0] ck_key, ck_len;
    logic [63:0] ck_va;
    logic [15:0] ck_pd;
    logic [7:0]  ck_need;
    always_ff @(posedge clk) begin
        ck_lkey <= ck_lkey_nx;
        ck_key <= ck_lkey_nx ? ck_rlkey : w_cont ? wr_rkey_reg : h_rkey;
        ck_va <= ck_lkey_nx ? ck_raddr : w_cont ? wr_va_reg : h_va;
        ck_len <= ck_lkey_nx ? ck_rlen : chk_len;
        // (in S_QPC the context's PD as it is read: qpc_reg is loaded there)
        ck_pd <= ck_lkey_nx ? rq_pd : (state_reg == S_QPC) ? qpc_rd_data[rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W] : qpc_pd;
        ck_need <= ck_lkey_nx ? rnic_pkg::ACCESS_LOCAL_WRITE[7:0] :
                   op_read ? rnic_pkg::ACCESS_REMOTE_READ[7:0] :
                   op_atomic ? rnic_pkg::ACCESS_REMOTE_ATOMIC[7:0] : rnic_pkg::ACCESS_REMOTE_WRITE[7:0];
    end
    logic        cb_ok;
    logic [63:0] cb_pa;
    wire ck_en = state_reg == S_PSN || state_reg == S_OP || state_reg == S_MPT || state_reg == S_MPT2
                 || state_reg == S_RLKEY_CHK || state_reg == S_RLKEY_C2 || (state_reg == S_RLKEY_RD && rlkey_pre_reg);
    logic       cb_ok_next_unused;
    rnic_mr_check_pipe key_check_inst (
        .clk,
        .en(ck_en),
        .mpt(mpt_rd_data), .key(ck_key), .va(ck_va), .len(ck_len), .pd(ck_pd),
        .need_access(ck_need), .remote(!ck_lkey), .qpn(24'(qpn_reg)), .ok(cb_ok), .pa(cb_pa),
        .ok_next(cb_ok_next_unused)
    );
    wire        access_ok = cb_ok;
    wire        lkey_ok = cb_ok;
    wire [63:0] lkey_pa = cb_pa;

    // A WRITE with a payload goes from the key check's verdict (S_MPTD)
    // straight to its write (S_WDESC), a cycle less per packet: S_MPTD also
    // takes S_EXEC's length verdict (len_ok_reg has settled by then, see
    // above) and clears what S_EXEC would. pa_reg, set in S_MPTD, is the
    // write's address from S_WDESC on, and S_PUSH's sums, a register behind
    // it, come at least two states later. A READ (its span is registered
    // from pa_reg on the way through S_EXEC), an ATOMIC and a WRITE of no
    // payload (S_EXEC to S_PUSH) take S_EXEC. Registered every cycle (the
    // header holds from S_QPC on, S_MPTD is at least two states later).
    logic wfold_q;
    always_ff @(posedge clk) wfold_q <= op_write && plen != 32'd0;
    // the key check refuses: remote access error (not a duplicate READ's,
    // which is dropped; a request of no length is not checked)
    wire mptd_acc_bad = !access_ok && chk_len != 0 && !dup_reg;

    // ------------------------------------------------------------------
    // action queue: ACK/NAK headers and receive CQEs in request order, each
    // waiting for the write responses of its packet
    // ------------------------------------------------------------------
    // the ACK headers as the bits an ACK can set (rnic_hdr_pkg::HDR_MASK_ACK)
    localparam logic [HB-1:0] ACK_MASK = rnic_hdr_pkg::HDR_MASK_ACK;
    localparam int ACK_W = rnic_hdr_pkg::hdr_mask_bits(ACK_MASK);
    logic [ACK_W-1:0]            act_hdr_mem [ACTIONS];
    logic [2:0]                  act_nwait_mem [ACTIONS];
    logic                        act_send_mem [ACTIONS];
    logic                        act_cqe_mem [ACTIONS];
    // (registers to synthesis, not a memory: yosys would merge the head's
    // QPN registers below into a read port and rebuild it as a registered
    // address in front of the 16-way read, which put that read back in
    // front of the READ engine's searches)
    (* mem2reg *) logic [QPN_WIDTH-1:0] act_qpn_mem [ACTIONS];
    logic [15:0]                 act_cqn_mem [ACTIONS];
    logic [15:0]                 act_widx_mem [ACTIONS];
    logic [7:0]                  act_opc_mem [ACTIONS];
    logic [7:0]                  act_status_mem [ACTIONS];
    logic [31:0]                 act_blen_mem [ACTIONS];
    logic [31:0]                 act_imm_mem [ACTIONS];
    logic [7:0]                  act_flags_mem [ACTIONS];
    logic [23:0]                 act_src_mem [ACTIONS];
    logic [47:0]                 act_smac_mem [ACTIONS];
    logic                        act_rd_mem [ACTIONS];     // a READ job, not an ACK
    logic                        act_rda_mem [ACTIONS];    // answers a READ or an ATOMIC
    logic [7:0]                  rda_cnt_reg;              // READs / ATOMICs of qpn_reg not yet answered
    logic [63:0]                 act_va_mem [ACTIONS];
    logic [33:0]                 act_span_first_mem [ACTIONS];
    logic [34:0]                 act_span_last_mem [ACTIONS];
    logic                        act_span_nz_mem [ACTIONS];
    logic                        act_plain_mem [ACTIONS];   // its ACK is a plain ACK (no NAK, no ATOMIC ACKNOWLEDGE)
    logic [31:0]                 act_rkey_mem [ACTIONS];
    logic [15:0]                 act_pd_mem [ACTIONS];
    logic [2:0]                  act_pmtu_mem [ACTIONS];
    logic [3:0]                  act_gen_mem [ACTIONS];
    logic [ACTION_DEPTH_LOG2:0]  act_wr_reg, act_rd_reg;
    wire act_full = rnic_gates_pkg::ring_full(32'(act_wr_reg), 32'(act_rd_reg), ACTION_DEPTH_LOG2);
    wire act_empty = act_wr_reg == act_rd_reg;

    logic          act_push;
    logic          act_push_send;
    logic [23:0]   act_push_psn;
    logic [7:0]    act_push_syn;
    logic [23:0]   act_push_msn;
    logic          act_push_cqe;
    logic [7:0]    act_push_opc;
    logic [7:0]    act_push_status;
    logic [31:0]   act_push_blen;
    logic [15:0]   act_push_widx;
    logic          act_push_rd;
    logic          act_push_atomic;  // an ATOMIC ACKNOWLEDGE with at_orig_reg

    logic [HB-1:0] addr_hdr;
    rnic_qp_hdr qp_hdr_inst (.qpc(qpc_reg), .hdr(addr_hdr));

    logic [HB-1:0] ack_hdr;
    always_comb begin
        ack_hdr = addr_hdr;
        ack_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = rnic_pkg::OP_ACKNOWLEDGE[7:0];
        ack_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = act_push_psn;
        ack_hdr[rnic_hdr_pkg::HDR_HAS_AETH_LSB] = 1'b1;
        ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W] = act_push_syn;
        ack_hdr[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W] = act_push_msn;
        if (act_push_atomic) begin
            ack_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] =
                rnic_pkg::OP_ATOMIC_ACKNOWLEDGE[7:0];
            ack_hdr[rnic_hdr_pkg::HDR_HAS_ATOMICACKETH_LSB] = 1'b1;
            ack_hdr[rnic_hdr_pkg::HDR_ATOMICACK_ORIG_LSB +: rnic_hdr_pkg::HDR_ATOMICACK_ORIG_W] = at_orig_reg;
        end
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
    // The PSN compares are taken in S_QPC, for S_PSN: the header and the QP
    // are in hand there, and nothing writes the expected PSN between the two
    // (no context write meets a taken packet, the engine's own is later);
    // the compare and its read's bypass stood in front of S_PSN's decision
    // (asserted against the compare of S_PSN's own cycle below)
    wire [64:0] psn_diff = psub(65'(h_psn), 65'(epsn_cur));
    logic       psn_eq_q, psn_behind_q;
    always_ff @(posedge clk) begin
        psn_eq_q <= h_psn == epsn_cur;
        psn_behind_q <= psn_diff[23];
    end
    // UD: no PSN sequence at all (every packet is taken as the next one)
    wire        psn_eq = psn_eq_q || qpc_ud;
    wire        psn_dup = psn_behind_q && !qpc_ud;    // behind the expected PSN (IBTA 9.7.5.1.2)
    logic       err_cur, werr_cur;   // err_mem, werr_mem at qpn_reg (below)
    wire        qp_err_any = err_cur || werr_cur || ext_err_val
                             || qpc_state == 4'(rnic_pkg::QPS_ERR);
    // The context's and the header's part of the verdict (and the UD Q_Key
    // check) are taken in S_QPC from the context read, as qpc_reg is: both
    // hold until the next packet's S_QPC, so S_PSN's decision starts from
    // a flop and the error flags' reads (asserted against the context's
    // fields below). Computed in S_PSN, behind the completion engine's
    // flag read, it was 9 levels to the state register.
    logic       qpc_ok_q, qkey_bad_q;
    wire [3:0]  qpc_nx_state = qpc_rd_data[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W];
    wire        qpc_nx_ud = qpc_rd_data[rnic_pkg::QPC_UD_LSB];
    always_ff @(posedge clk) begin
        if (state_reg == S_QPC) begin
            qpc_ok_q <= (qpc_nx_state == 4'(rnic_pkg::QPS_RTR) || qpc_nx_state == 4'(rnic_pkg::QPS_RTS))
                        && h_dqpn < 24'(NUM_QPS) && qpc_nx_ud == h_ud;
            qkey_bad_q <= qpc_nx_ud && h_qkey != qpc_rd_data[rnic_pkg::QPC_QKEY_LSB +: rnic_pkg::QPC_QKEY_W];
        end
    end
    // (the state is RTR or RTS, so not QPS_ERR: the flags are the rest)
    wire        qp_ok = qpc_ok_q && !(err_cur || werr_cur || ext_err_val);
    wire        rq_empty = rq_ci_reg == rq_pi_reg;

    // The completion engine's error event is taken even while a context
    // write waits: that engine holds the event in a state in which it is
    // busy (its ctx_ready low), so the write could never be taken before the
    // event, and refusing the event would hold both forever. The event is
    // bounded (one at a time, and the completion engine takes nothing new
    // while the write waits), so the write is taken once it is done.
    //
    // An RQ doorbell (not DB_SRQ) is taken in any state but while a context
    // write waits (the per-QP tables' one write port is the context write's
    // then) and while the flush-check queue is full; a DB_SRQ doorbell
    // (rnic_srq_state's producer index) only in S_IDLE.
    localparam int FLCHK_LOG2 = 4;
    localparam int FLCHK_N = 2 ** FLCHK_LOG2;
    // the head's wait before it goes ahead of headers: 2^FLCHK_AGE_LOG2
    // cycles, longer than a QP's turn among 8 busy QPs (8 packets of 4 KiB,
    // 672 cycles at 512 bits), so a header of the same QP usually answers
    // the check first (below)
    localparam int FLCHK_AGE_LOG2 = 10;
    logic [QPN_WIDTH-1:0]  flchk_mem [FLCHK_N];
    logic [FLCHK_N-1:0]    flchk_vld_reg;     // the slot's check is still owed
    logic [FLCHK_LOG2-1:0] flchk_wp_reg, flchk_rp_reg;
    logic [FLCHK_N-1:0]    flchk_rp_oh_reg, flchk_rp1_oh_reg;  // rp and rp + 1, one-hot
    logic [FLCHK_LOG2:0]   flchk_cnt_reg;
    logic                  flchk_cnt0_reg, flchk_cnt1_reg;     // count is 0, 1
    logic [QPN_WIDTH-1:0]  flchk_last_reg;    // the newest entry's QPN
    logic                  flchk_join_reg;    // a doorbell of flchk_last_reg may join the newest entry
    // any: the head is owed (a check to take); dead: the head was answered
    // (popped without the engine); full: count == FLCHK_N; urgent: count >=
    // 3/4 FLCHK_N or the head is old
    logic                  flchk_any_reg, flchk_dead_reg, flchk_full_reg, flchk_urgent_reg;
    logic [FLCHK_AGE_LOG2:0] flchk_age_reg;   // cycles the head has waited (saturates)
    // A request header answers the checks of its QP queued before it was
    // taken: S_PSN sees the QP's error state of that time or later (error
    // is sticky until a new context, which makes an older check moot), and
    // a QP not in error then was not in error when the doorbell came, so the
    // check would find nothing to flush; a QP that enters error later is
    // flushed by that error. flchk_hit_reg: the entries of the header's QP
    // in S_IDLE (the header takes it with it); flchk_cancel_reg: those
    // answered, cleared a cycle after S_PSN.
    logic [FLCHK_N-1:0]    flchk_hit_reg, flchk_cancel_reg;
    wire srqdb_valid = s_rqdb_valid && s_rqdb_srq;
    wire take_srqdb = srqdb_valid && !ctx_pend;
    wire take_ev = !take_srqdb && s_errev_valid;
    wire hdr_first = !flchk_urgent_reg && s_hdr_valid;
    wire take_flchk = !srqdb_valid && !s_errev_valid && flchk_any_reg && !hdr_first && !ctx_pend;
    // nothing ahead of a request header: no SRQ doorbell, no error event, no
    // urgent flush check, no context write pending (s_hdr_ready and
    // take_hdr both)
    wire hdr_turn = !srqdb_valid && !s_errev_valid && !flchk_urgent_reg && !ctx_pend;
    wire take_hdr = hdr_turn && s_hdr_valid;
    // S_PUSH, the last state of a request, takes the next request's header
    // as S_IDLE would (and goes on to S_QPC without an S_IDLE between):
    // only a header, and only when S_IDLE would take it first. Not after a
    // READ or an ATOMIC: S_PSN counts the QP's READs and ATOMICs in the
    // action queue from flip-flops two cycles behind a push (rda_act_cnt),
    // so S_PSN comes at least three cycles after the push of one. Every
    // per-QP table S_PUSH writes is read again from S_QPC on, a cycle
    // later, but the receive queue's consumer index, read at the header's
    // QP in the take's cycle: its write of that cycle is forwarded
    // (rqci_fwd_q).
    wire push_take_ok = state_reg == S_PUSH && !(op_read || op_atomic);
    wire take_state = state_reg == S_IDLE || push_take_ok;
    assign s_rqdb_ready = s_rqdb_srq ? (state_reg == S_IDLE && !ctx_pend) : (!ctx_pend && !flchk_full_reg);
    assign s_errev_ready = state_reg == S_IDLE && !take_srqdb;
    assign s_hdr_ready = take_state && hdr_turn;
    assign qpc_rd_en = (state_reg == S_IDLE && (s_errev_valid || flchk_any_reg || s_hdr_valid))
                       || (push_take_ok && s_hdr_valid);
    assign qpc_rd_addr = s_errev_valid ? s_errev_qpn : (flchk_any_reg && !hdr_first) ? flchk_mem[flchk_rp_reg]
                         : s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: QPN_WIDTH];
    // the doorbell's index write, and the same to the request in hand: the
    // QP it serves past S_IDLE (from S_PSN on, a QP on an SRQ takes the SRQ's
    // indices instead)
    wire wr_db = s_rqdb_valid && s_rqdb_ready && !s_rqdb_srq;
    wire db_fwd = wr_db && s_rqdb_qpn == qpn_reg && (state_reg == S_QPC || (state_reg != S_IDLE && !on_srq));
    wire flchk_push = wr_db && !(flchk_join_reg && flchk_last_reg == s_rqdb_qpn);
    wire flchk_pop_live = state_reg == S_IDLE && take_flchk;
    wire flchk_pop = flchk_pop_live || flchk_dead_reg;
    wire [FLCHK_LOG2:0] flchk_cnt_next = flchk_cnt_reg + (FLCHK_LOG2+1)'(flchk_push) - (FLCHK_LOG2+1)'(flchk_pop);
    wire [FLCHK_N-1:0] flchk_vld_kept = flchk_vld_reg & ~flchk_cancel_reg;
    // the head after this cycle is owed: the next entry's (a push lands
    // there when it is the only one), or this one's (a push lands there
    // when the queue is empty)
    wire flchk_head_next = flchk_pop ? (|(flchk_vld_kept & flchk_rp1_oh_reg) || (flchk_push && flchk_cnt1_reg))
                                     : (|(flchk_vld_kept & flchk_rp_oh_reg) || (flchk_push && flchk_cnt0_reg));
    wire [QPN_WIDTH-1:0] hdr_qpn = s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: QPN_WIDTH];
    always_ff @(posedge clk) begin
        if (flchk_push) begin
            flchk_mem[flchk_wp_reg] <= s_rqdb_qpn;
            flchk_wp_reg <= flchk_wp_reg + 1'b1;
            flchk_last_reg <= s_rqdb_qpn;
        end
        flchk_vld_reg <= (flchk_vld_kept & ~(flchk_rp_oh_reg & {FLCHK_N{flchk_pop}}))
                         | (FLCHK_N'(flchk_push) << flchk_wp_reg);
        if (flchk_pop) begin
            flchk_rp_reg <= flchk_rp_reg + 1'b1;
            flchk_rp_oh_reg <= flchk_rp1_oh_reg;
            flchk_rp1_oh_reg <= {flchk_rp1_oh_reg[FLCHK_N-2:0], flchk_rp1_oh_reg[FLCHK_N-1]};
        end
        flchk_cnt_reg <= flchk_cnt_next;
        flchk_cnt0_reg <= flchk_cnt_next == '0;
        flchk_cnt1_reg <= flchk_cnt_next == (FLCHK_LOG2+1)'(1);
        flchk_any_reg <= flchk_head_next;
        flchk_dead_reg <= flchk_cnt_next != '0 && !flchk_head_next;
        flchk_full_reg <= flchk_cnt_next == (FLCHK_LOG2+1)'(FLCHK_N);
        flchk_urgent_reg <= flchk_cnt_next >= (FLCHK_LOG2+1)'(FLCHK_N * 3 / 4)
                            || (flchk_age_reg[FLCHK_AGE_LOG2] && !flchk_pop);
        if (flchk_pop || !flchk_any_reg) flchk_age_reg <= '0;
        else if (!flchk_age_reg[FLCHK_AGE_LOG2]) flchk_age_reg <= flchk_age_reg + 1'b1;
        // a doorbell joins the newest entry only while it is owed and no
        // header in hand has taken it (the header answers only what came
        // before it)
        if (flchk_push) flchk_join_reg <= 1'b1;
        else if (flchk_cnt_next == '0 || (take_state && take_hdr && hdr_qpn == flchk_last_reg))
            flchk_join_reg <= 1'b0;
        if (take_state)
            for (int i = 0; i < FLCHK_N; i++) flchk_hit_reg[i] <= flchk_vld_kept[i] && flchk_mem[i] == hdr_qpn;
        flchk_cancel_reg <= (state_reg == S_PSN && src_reg == 2'd0 && !qp_err_any) ? flchk_hit_reg : '0;
        if (rst) begin
            flchk_vld_reg <= '0;
            flchk_wp_reg <= '0;
            flchk_rp_reg <= '0;
            flchk_rp_oh_reg <= FLCHK_N'(1);
            flchk_rp1_oh_reg <= FLCHK_N'(2);
            flchk_cnt_reg <= '0;
            flchk_cnt0_reg <= 1'b1;
            flchk_cnt1_reg <= 1'b0;
            flchk_join_reg <= 1'b0;
            flchk_any_reg <= 1'b0;
            flchk_dead_reg <= 1'b0;
            flchk_full_reg <= 1'b0;
            flchk_urgent_reg <= 1'b0;
            flchk_age_reg <= '0;
            flchk_cancel_reg <= '0;
        end
    end
    // registered there: S_PSN and S_FLUSH, its users, come after S_QPC
    assign ext_err_qpn = qpn_reg;
    assign mpt_rd_en = state_reg == S_QPC || state_reg == S_PSN || state_reg == S_OP || state_reg == S_RLKEY_RD
                       || rload_last;
    // the receive SGE's key as the check takes it (ck_rlkey), else the
    // packet's R_Key
    assign mpt_rd_addr = ck_lkey_nx ? ck_rlkey[TAG_BITS +: MR_INDEX_WIDTH]
                         : w_cont ? wr_rkey_reg[TAG_BITS +: MR_INDEX_WIDTH] : h_rkey[TAG_BITS +: MR_INDEX_WIDTH];

    // ------------------------------------------------------------------
    // receive-WQE cache (rnic_rwqe_cache): a way per QP, filled on a miss
    // with the WQEs posted after the one waited for and read ahead while
    // the QP is served, so a stream of SENDs does not wait out a host round
    // trip every few messages. The ATOMIC read (S_ATRD) shares its DMA
    // reader and waits while the cache has a read in flight.
    // ------------------------------------------------------------------
    logic                  rc_hit, rc_hit_still, rc_err_hit, rc_busy;
    logic [DATA_WIDTH-1:0] rc_rd_data;
    logic [63:0]           rc_desc_addr;
    logic [31:0]           rc_desc_len;
    logic                  rc_desc_valid, rc_tready;
    wire rc_want = state_reg == S_RWQE_DESC || state_reg == S_RWQE_DATA;
    // serving a request of the QP past its context read: read ahead for it
    wire rc_ahead = src_reg == 2'd0 && state_reg != S_IDLE && state_reg != S_QPC && state_reg != S_PSN
                    && !rc_want;
    wire rc_rd_free = state_reg != S_ATRD && state_reg != S_ATDATA;
    // A flush check that finds its QP able to receive and WQEs posted, with
    // no packet waiting, has the cache read them (S_PREF): the receiver
    // posts its WQEs before the SENDs come, and a read in front of each
    // QP's first SEND would hold every packet behind it for a host round
    // trip (8 QPs starting a stream of 4 KiB SENDs at once: 8 of them,
    // 2,000 cycles, the link paused). Registered in S_FLUSH.
    logic       pref_ok_reg, rc_look_done;
    logic [2:0] pref_cnt_reg;
    always_ff @(posedge clk) begin
        if (state_reg == S_FLUSH)
            pref_ok_reg <= !qp_err_any && !on_srq && !rq_empty
                           && (qpc_state == 4'(rnic_pkg::QPS_RTR) || qpc_state == 4'(rnic_pkg::QPS_RTS));
        pref_cnt_reg <= (state_reg == S_PREF) ? pref_cnt_reg + 3'd1 : 3'd0;
    end
    wire rc_pref = state_reg == S_PREF && pref_ok_reg;
    // the WQE whose read failed completes in error
    wire rc_err_take = state_reg == S_RWQE_DATA && act_push;
    // a QP's own RQ is {0, QPN}, an SRQ {1, SRQN}: QPs on an SRQ share its way
    localparam int RC_KW = (QPN_WIDTH > SRQN_WIDTH) ? QPN_WIDTH : SRQN_WIDTH;
    wire [RC_KW:0] rc_key = on_srq ? {1'b1, RC_KW'(qpc_srqn)} : {1'b0, RC_KW'(qpn_reg)};
    // the cache takes it from a register: it follows qpc_reg (latched in
    // S_QPC) from S_OP on, and the cache looks up only from then (rc_ahead,
    // rc_want), so its compares start at flip-flops, not at the context's
    // SRQ number
    logic [RC_KW:0] rc_key_reg;
    always_ff @(posedge clk) rc_key_reg <= rc_key;
    // a new QP or SRQ context: its way is forgotten
    wire  rc_key_reset = qp_reset_valid || (srq_ctx_valid && srq_ctx_reset);
    wire [RC_KW:0] rc_key_reset_key = srq_ctx_valid ? {1'b1, RC_KW'(srq_ctx_srqn)} : {1'b0, RC_KW'(qp_reset_qpn)};
    rnic_rwqe_cache #(
        .DATA_WIDTH(DATA_WIDTH), .KEY_WIDTH(RC_KW + 1), .WAYS_LOG2(RQ_CACHE_WAYS_LOG2), .WQES_LOG2(RQ_CACHE_LOG2)
    ) rwqe_cache_inst (
        .clk, .rst,
        .key(rc_key_reg), .rq_ci(rq_ci_reg), .rq_pi(rq_pi_reg), .rq_base(on_srq ? srq_base : qpc_rq_base),
        .rq_log(on_srq ? srq_log : qpc_rq_log),
        .want(rc_want), .ahead(rc_ahead), .pref(rc_pref), .look_done(rc_look_done), .hit(rc_hit), .hit_still(rc_hit_still), .err_hit(rc_err_hit),
        .err_take(rc_err_take),
        .rd_beat(rwqe_beat_reg), .rd_data(rc_rd_data),
        .rd_free(rc_rd_free), .busy(rc_busy),
        .key_reset_valid(rc_key_reset), .key_reset(rc_key_reset_key),
        .m_axis_desc_addr(rc_desc_addr), .m_axis_desc_len(rc_desc_len), .m_axis_desc_valid(rc_desc_valid),
        .m_axis_desc_ready(m_axis_rwqe_desc_ready),
        .s_axis_tdata(s_axis_rwqe_tdata), .s_axis_tvalid(s_axis_rwqe_tvalid), .s_axis_tready(rc_tready),
        .s_status_valid(s_rwqe_status_valid), .s_status_error(s_rwqe_status_error)
    );

    // A WQE whose read failed is completed a cycle after the cache says so:
    // the answer is registered while the engine waits in S_RWQE_DATA, where
    // neither the cache's key nor the index changes, and the way's error
    // stays until it is taken (err_take) or the key is reset (not taken
    // then). The cache's settle and fill compares were in front of the
    // action queue's push and the engine's state.
    logic rc_err_hit_reg;
    always_ff @(posedge clk)
        rc_err_hit_reg <= rc_err_hit && state_reg == S_RWQE_DATA && !act_push
                          && !(rc_key_reset && rc_key_reset_key == rc_key_reg);
    // the WQE is held: load it (unless S_RWQE_DATA completes it in error).
    // The cache's key and index do not change at the edge into or within
    // S_RWQE_DESC and S_RWQE_DATA (both settle by S_OP; asserted), so its
    // hit without the compare of this cycle's inputs serves
    wire rwqe_hit_go = rc_hit_still && (state_reg == S_RWQE_DESC
                                  || (state_reg == S_RWQE_DATA && !(rc_err_hit_reg && !act_full)));

    // the SRQs' indices and limits
    logic [15:0] srq_rd_pi, srq_rd_ci;
    logic        srq_take;
    logic [SRQN_WIDTH-1:0] srq_evt_srqn;
    rnic_srq_state #(.SRQN_WIDTH(SRQN_WIDTH)) srq_state_inst (
        .clk, .rst,
        .rd_srqn(srqc_rd_addr), .rd_pi(srq_rd_pi), .rd_ci(srq_rd_ci), .take_valid(srq_take),
        .db_valid(state_reg == S_IDLE && take_srqdb), .db_srqn(s_rqdb_qpn[SRQN_WIDTH-1:0]), .db_pi(s_rqdb_pi),
        .ctx_valid(srq_ctx_valid), .ctx_reset(srq_ctx_reset), .ctx_srqn(srq_ctx_srqn), .ctx_limit(srq_ctx_limit),
        .evt_valid(evt_srq_limit_valid), .evt_srqn(srq_evt_srqn)
    );
    assign evt_srq_limit_srqn = srq_evt_srqn;

    // the receive-WQE reader also reads an ATOMIC's 8 bytes, when the cache
    // has no read of its own
    wire at_rd = state_reg == S_ATRD && !rc_busy;
    assign m_axis_rwqe_desc_addr = at_rd ? pa_reg : rc_desc_addr;
    assign m_axis_rwqe_desc_len = at_rd ? 32'd8 : rc_desc_len;
    assign m_axis_rwqe_desc_last = 1'b1;
    assign m_axis_rwqe_desc_valid = at_rd || rc_desc_valid;
    assign s_axis_rwqe_tready = rc_tready || state_reg == S_ATDATA;

    // the next write piece: all of a WRITE packet, or up to the end of the
    // current receive SGE for a SEND. A SEND's is planned in two register
    // stages behind rs_idx, rs_off, pkt_left and the SGEs, and used once
    // they have not changed for two cycles (settle_reg; the states that
    // change them are at least that far ahead of S_WDESC, except a piece
    // right after another or an SGE skipped, which wait)
    // (the room in the SGE as two 16-bit halves and a borrow, its bus
    // address through rnic_add_split: a 32- or 64-bit carry chain behind the
    // SGE select is past the logic-level budget)
    wire         msg_is_send = op_send;
    wire [31:0]  rs_len_cur = rs_len_reg[rs_idx_reg[1:0]];
    logic [31:0] room;
    logic [63:0] rpa;
    logic [31:0] plan_len_reg;
    logic        plan_nz_reg;      // plan_len_reg != 0, beside it (the zero test ran into the write's valid)
    logic [63:0] plan_pa_reg;
    logic [1:0]  settle_reg;
    logic        plan_chg;
    wire [31:0] piece_len = msg_is_send ? plan_len_reg : pkt_left_reg;
    wire [63:0] piece_pa = msg_is_send ? plan_pa_reg : pa_reg;
    wire        plan_ok = !msg_is_send || settle_reg == 2'd0;
    rnic_sub_split room_sub_inst (.clk, .en(1'b1), .a(rs_len_cur), .b(rs_off_reg), .diff(room));
    rnic_add_split rpa_add_inst (.clk, .en(1'b1), .a(rs_pa_reg[rs_idx_reg[1:0]]), .b(rs_off_reg), .sum(rpa));
    always_ff @(posedge clk) begin
        plan_len_reg <= (pkt_left_reg < room) ? pkt_left_reg : room;
        plan_nz_reg <= pkt_left_reg != 0 && room != 0;
        plan_pa_reg <= rpa;
        settle_reg <= plan_chg ? 2'd2 : (settle_reg != 2'd0) ? settle_reg - 2'd1 : 2'd0;
    end
    assign m_axis_wr_desc_addr = (state_reg == S_ATWR) ? pa_reg : piece_pa;
    assign m_axis_wr_desc_len = (state_reg == S_ATWR) ? 32'd8 : piece_len;
    wire        piece_nz = msg_is_send ? plan_nz_reg : pkt_left_reg != 0;
    assign m_axis_wr_desc_valid = (state_reg == S_WDESC && plan_ok && piece_nz) || state_reg == S_ATWR;
    assign plan_chg = state_reg == S_QPC || state_reg == S_RLKEY_RD || state_reg == S_RLKEY_CHKD
                      || (state_reg == S_WDESC && plan_ok && (!piece_nz || m_axis_wr_desc_ready));

    // cut the payload stream at piece ends: bytes [boff, boff + piece) of the
    // beat go out, the packer moves them to lane 0. The payload is dense (its
    // run starts at lane 0), so the run's end is the beat's byte count, which
    // comes with the beat; a piece of 2^CNT_W bytes or more runs past the beat.
    wire [CNT_W-1:0] beat_bytes = s_axis_payload_tbytes;
    // The piece is kept as its end in the beat (pend_reg) with a flag for
    // "beyond this beat", so the compares with the beat's byte count are a
    // few bits between registers; the lanes go to the packer as a run.
    wire             pe_big = pend_far_reg;
    wire [CNT_W-1:0] pe_lo = pend_reg[CNT_W-1:0];
    // (compared as gates: the carry chain was five levels in front of the
    // packer's run registers and this engine's next state)
    wire             pe_lt = rnic_gates_pkg::lt_gates(32'(pe_lo), 32'(beat_bytes));
    wire             pe_gt = rnic_gates_pkg::lt_gates(32'(beat_bytes), 32'(pe_lo));
    wire             piece_ends = !pe_big && !pe_gt;
    wire             beat_used = pe_big || !pe_lt;
    wire [CNT_W-1:0] run_end = piece_ends ? pe_lo : beat_bytes;
    wire [16:0]      pe_next = pend_reg - 17'(beat_bytes);
    wire [16:0]      pe_first = 17'(piece_len[15:0]) + 17'(boff_reg);
    // beyond the beat: a new piece when its length's high bits are set or
    // its low bits carry out with the lane; a piece beyond this beat is still
    // beyond the next when its end is 2^(CNT_W+1) or more, or its low bits
    // are at least the beat's bytes
    wire [CNT_W:0]   pf_near = {1'b0, piece_len[CNT_W-1:0]} + (CNT_W + 1)'(boff_reg);
    wire             pf_far = |piece_len[31:CNT_W] || pf_near[CNT_W];
    wire             pn_far = pe_big && (|pend_reg[16:CNT_W+1] || !pe_lt);

    logic pk_tvalid, pk_tready;
    logic [DATA_WIDTH-1:0] sc_tdata;
    logic [KEEP_WIDTH-1:0] sc_tkeep;
    logic                  sc_tvalid, sc_tready, sc_tlast;
    assign pk_tvalid = state_reg == S_WDATA && s_axis_payload_tvalid;
    assign s_axis_payload_tready = (state_reg == S_WDATA && pk_tready && beat_used) || state_reg == S_DRAIN;
    wire   wdata_end = pk_tvalid && pk_tready && piece_ends;

    axis_packer #(.DATA_WIDTH(DATA_WIDTH), .KEEP_RUN(0)) scatter_packer_inst (
        .clk, .rst,
        .s_axis_tdata(s_axis_payload_tdata), .s_axis_tkeep(s_axis_payload_tkeep), .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready), .s_axis_tlast(piece_ends),
        .s_axis_toff(boff_reg), .s_axis_tend(run_end),
        .m_axis_tdata(sc_tdata), .m_axis_tkeep(sc_tkeep),
        .m_axis_tvalid(sc_tvalid), .m_axis_tready(sc_tready),
        .m_axis_tlast(sc_tlast)
    );

    // write data: the scattered payload, or an ATOMIC's result (8 bytes, host order)
    // (state_reg == S_ATWD as a flip-flop of its own: the state's decode
    // reached the 512-bit write data's multiplexer and the DMA writer's
    // shift registers behind it)
    logic at_wd_reg;
    wire at_wd = at_wd_reg;
    assign m_axis_wr_data_tdata = at_wd ? DATA_WIDTH'(at_new_reg) : sc_tdata;
    assign m_axis_wr_data_tkeep = at_wd ? KEEP_WIDTH'(8'hff) : sc_tkeep;
    assign m_axis_wr_data_tvalid = at_wd || sc_tvalid;
    assign m_axis_wr_data_tlast = at_wd || sc_tlast;
    assign sc_tready = !at_wd && m_axis_wr_data_tready;

    // Two per-QP tables read explicitly a cycle ahead, without a bypass of
    // the cycle's write: read at qpn_reg (or, in S_IDLE, at the QP being
    // taken), their writes' enables are the engine's decision (upd,
    // upd_rq_ci), which ran through the bypass the synthesis tool adds to a
    // read at a register into its flip-flops (11 levels). No write meets
    // their reads:
    // - nak_sent_q, used from S_PSN on (qpn_reg holds from S_QPC): the
    //   engine writes it once per packet, at the decision that ends it, and
    //   a context write comes in S_IDLE (no take with one pending) or in
    //   S_INV, whose QP reset the invalidation's answer finds stale
    //   (inv_stale_reg: no update follows);
    // - rq_ci_rd_q, loaded in S_QPC from the read in S_IDLE at qpc_rd_addr:
    //   the engine writes it in no S_IDLE, and a context reset in that
    //   cycle is forwarded (rqci_rst_q). Both asserted.
    //   A header S_PUSH takes is read in S_PUSH, which may write the entry
    //   (a SEND's last packet): that write is forwarded (rqci_fwd_q), its
    //   enable from registers (S_PUSH's upd_rq_ci is the opcode's).
    logic        nak_sent_q, rqci_rst_q, rqci_fwd_q;
    logic [15:0] rq_ci_rd_q, rqci_fwd_val_q;
    always_ff @(posedge clk) begin
        nak_sent_q <= nak_sent_mem[qpn_reg];
        rq_ci_rd_q <= rq_ci_mem[qpc_rd_addr];
        rqci_rst_q <= qp_reset_valid && qp_reset_qpn == qpc_rd_addr;
        rqci_fwd_q <= state_reg == S_PUSH && op_ends && (op_send || op_imm) && !on_srq
                      && qpn_reg == qpc_rd_addr;
        rqci_fwd_val_q <= rq_ci_reg + 16'd1;
    end
    wire [15:0] rq_ci_rd_val = rqci_rst_q ? 16'd0 : rqci_fwd_q ? rqci_fwd_val_q : rq_ci_rd_q;

    // responder state updates, written once per accepted request
    logic        upd;
    logic        upd_commit;   // the packet is accepted: advance PSN, offsets, MSN
    logic        upd_err;
    logic        upd_nak_sent;
    logic        upd_rq_ci;    // the receive WQE at rq_ci is done
    logic        flush_rq_ci;  // ... flushed (S_FLUSH, an RQ's only: kept apart
                               // so the error flags it waits on are not in
                               // front of the SRQ's take)
    logic        flush_held;   // a QP on an SRQ: the WQE it holds is flushed
    // a QP on an SRQ: its SEND's first packet took the WQE (rs_widx)
    wire         srq_mid = on_srq && (s_middle || s_last);
    wire [15:0]  rs_widx_cur = rs_widx_mem[qpn_reg];
    wire         rs_held_cur = rs_held_mem[qpn_reg];

    always_comb begin
        act_push = 1'b0;
        act_push_send = 1'b1;
        act_push_psn = h_psn;
        act_push_syn = SYN_ACK;
        act_push_msn = msn_cur;
        act_push_cqe = 1'b0;
        act_push_opc = rnic_pkg::WC_RECV[7:0];
        act_push_status = rnic_pkg::WC_SUCCESS[7:0];
        act_push_blen = '0;
        act_push_widx = srq_mid ? rs_widx_cur : rq_ci_reg;
        act_push_rd = 1'b0;
        act_push_atomic = 1'b0;
        upd = 1'b0;
        upd_commit = 1'b0;
        upd_err = err_cur;
        upd_nak_sent = nak_sent_q;
        upd_rq_ci = 1'b0;
        flush_rq_ci = 1'b0;
        flush_held = 1'b0;
        case (state_reg)
            S_PSN: begin
                if (!qp_ok || psn_eq || act_full) begin
                    // in order: continue (or wait for room in the action queue)
                end else if (psn_dup && (op_read || op_atomic)) begin
                    // a duplicate READ is executed again (S_MPT on), a
                    // duplicate ATOMIC answered from its saved result
                end else if (psn_dup) begin
                    // duplicate: acknowledge the most recent request again
                    act_push = 1'b1;
                    act_push_psn = epsn_cur - 24'd1;
                end else if (!nak_sent_q) begin
                    act_push = 1'b1;
                    act_push_psn = epsn_cur;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR));
                    upd = 1'b1;
                    upd_nak_sent = 1'b1;
                end
            end
            S_OP: begin
                if (act_full) begin
                end else if (!(op_write || op_send || op_read || op_atomic) || in_msg_mem[qpn_reg] == op_starts
                             || (in_msg_mem[qpn_reg] && msg_send_mem[qpn_reg] != op_send)) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (op_write && (qpc_access & rnic_pkg::ACCESS_REMOTE_WRITE[7:0]) == 0) begin
                    // the QP does not take RDMA WRITE at all (as rxe: Class C, invalid request)
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (op_read && (qpc_access & rnic_pkg::ACCESS_REMOTE_READ[7:0]) == 0) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (op_atomic && ((qpc_access & rnic_pkg::ACCESS_REMOTE_ATOMIC[7:0]) == 0
                                           || h_va[2:0] != 3'd0)) begin
                    // no atomics on this QP, or not 8-byte aligned (IBTA 9.4.5)
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if ((op_read || op_atomic) && rda_cnt_reg >= 8'(rda_limit)) begin
                    // more READs / ATOMICs outstanding than max_dest_rd_atomic
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (needs_rwqe && rq_empty && !qpc_ud) begin
                    // receiver not ready: the requester retries this PSN later
                    // (UD has no RNR: the packet is dropped, S_OP)
                    act_push = 1'b1;
                    act_push_syn = {3'(rnic_pkg::AETH_KIND_RNR), qpc_rnr_timer};
                    upd = 1'b1;
                    upd_nak_sent = 1'b1;
                end
            end
            S_RLKEY_CHKD: begin
                if (!act_full && !lkey_ok) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
                    act_push_cqe = 1'b1;
                    act_push_status = rnic_pkg::WC_LOC_PROT_ERR[7:0];
                    upd = 1'b1;
                    upd_err = 1'b1;
                    upd_rq_ci = 1'b1;
                end
            end
            S_ATDATA: begin
                // the 8 bytes could not be read: remote operational error
                if (rwqe_beat_reg != 0 && rwqe_st_seen_reg && rwqe_err_reg && !act_full) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end
            end
            S_RWQE_DATA: begin
                // a receive WQE that cannot be read is a local QP operation error
                if (rc_err_hit_reg && !act_full) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
                    act_push_cqe = 1'b1;
                    act_push_status = rnic_pkg::WC_LOC_QP_OP_ERR[7:0];
                    upd = 1'b1;
                    upd_err = 1'b1;
                    upd_rq_ci = 1'b1;
                end
            end
            S_MPTD: begin
                if (act_full) begin
                end else if (mptd_acc_bad) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_REM_ACCESS_ERR));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (wfold_q && !len_ok_reg) begin
                    // S_EXEC's length verdict, for a WRITE that skips it
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end
            end
            S_INVD: begin
                // refused: invalid request (rkey not a bound type 2 window of
                // the QP's PD, IBA 9.9.3.1.3; the requester's WQE completes
                // with REM_INV_REQ_ERR) or, had the firmware failed, remote
                // operational error; the receive WQE completes with the
                // answer's status, as rxe's does
                if (!inv_stale_reg && inv_st_reg != rnic_pkg::WC_SUCCESS[7:0] && !act_full) begin
                    act_push = 1'b1;
                    act_push_syn = nak((inv_st_reg == rnic_pkg::WC_REM_INV_REQ_ERR[7:0])
                                       ? 5'(rnic_pkg::AETH_NAK_INVALID_REQ) : 5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
                    act_push_cqe = 1'b1;
                    act_push_status = inv_st_reg;
                    upd = 1'b1;
                    upd_err = 1'b1;
                    upd_rq_ci = 1'b1;
                end
            end
            S_EXEC: begin
                if (act_full) begin
                end else if (!len_ok_reg) begin
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    upd = 1'b1;
                    upd_err = 1'b1;
                end else if (op_send && !rbuf_ok_reg) begin
                    // the message does not fit the receive buffer
                    act_push = 1'b1;
                    act_push_syn = nak(5'(rnic_pkg::AETH_NAK_INVALID_REQ));
                    act_push_cqe = 1'b1;
                    act_push_status = rnic_pkg::WC_LOC_LEN_ERR[7:0];
                    upd = 1'b1;
                    upd_err = 1'b1;
                    upd_rq_ci = 1'b1;
                end
            end
            S_PUSH: begin
                act_push = 1'b1;
                if (dup_reg) begin
                    // answered again (a READ from host memory, an ATOMIC from
                    // its saved result); the QP state stays
                    act_push_send = op_atomic;
                    act_push_atomic = op_atomic;
                    act_push_rd = op_read;
                end else begin
                    upd = 1'b1;
                    upd_commit = 1'b1;
                    upd_nak_sent = 1'b0;
                    act_push_msn = op_ends ? msn_nx_reg : msn_cur;
                    // the READ's responses carry the acknowledgement
                    act_push_send = !op_read && (h_ackreq || op_ends || since_cur + 8'd1 >= 8'(ACK_EVERY));
                    act_push_rd = op_read;
                    act_push_atomic = op_atomic;
                end
                if (op_ends && (op_send || op_imm)) begin
                    act_push_cqe = 1'b1;
                    act_push_opc = op_send ? rnic_pkg::WC_RECV[7:0] : rnic_pkg::WC_RECV_RDMA_WITH_IMM[7:0];
                    act_push_blen = op_send ? rs_bytes_reg + plen : (w_only ? h_dlen : msg_len_reg);
                    upd_rq_ci = 1'b1;
                end
            end
            S_FLUSH: begin
                if (on_srq) begin
                    // the SRQ's WQEs stay for its other QPs; only the one
                    // this QP's SEND holds is flushed
                    if (!act_full && qp_err_any && rs_held_cur) begin
                        act_push = 1'b1;
                        act_push_send = 1'b0;
                        act_push_cqe = 1'b1;
                        act_push_status = rnic_pkg::WC_WR_FLUSH_ERR[7:0];
                        act_push_widx = rs_widx_cur;
                        flush_held = 1'b1;
                    end
                end else if (!act_full && qp_err_any && !rq_empty) begin
                    act_push = 1'b1;
                    act_push_send = 1'b0;
                    act_push_cqe = 1'b1;
                    act_push_status = rnic_pkg::WC_WR_FLUSH_ERR[7:0];
                    flush_rq_ci = 1'b1;
                end
            end
            default: ;
        endcase
        // UD: no ACK or NAK ever goes back
        if (qpc_ud) act_push_send = 1'b0;
    end

    // A QP on an SRQ takes the WQE at the SRQ's consumer index with its
    // SEND's first packet (or the WQE's completion, for a single packet or
    // a WRITE with immediate), so the index moves on at once for the
    // SRQ's other QPs. Once it is in error and holds no WQE, it will take
    // none again: last WQE reached, once.
    // (S_FLUSH moves an RQ's index only, never an SRQ's: by flush_rq_ci,
    // not upd_rq_ci, so the error flags S_FLUSH reads are not in front of
    // the SRQ's tables)
    assign srq_take = on_srq && ((upd_rq_ci && !srq_mid)
                                 || (state_reg == S_PUSH && !dup_reg && s_first));
    wire ci_adv = on_srq ? srq_take : (upd_rq_ci || flush_rq_ci);
    wire held_clr = (upd_rq_ci && srq_mid) || flush_held;
    wire last_wqe_now = state_reg == S_FLUSH && on_srq && qp_err_any && !rs_held_cur && !last_wqe_mem[qpn_reg];
    always_ff @(posedge clk) begin
        evt_last_wqe_valid <= last_wqe_now;
        evt_last_wqe_qpn <= qpn_reg;
        if (rst) evt_last_wqe_valid <= 1'b0;
    end

    // an error verdict flushes the receive queue once the request's payload
    // has been drained
    wire err_now = upd && upd_err && !err_cur;
    logic flush_after_reg;
    state_t after_drop;
    always_comb begin
        if (drop_plen != 0) after_drop = S_DRAIN;
        else if (err_now || flush_after_reg) after_drop = S_FLUSH;
        else after_drop = S_IDLE;
    end

    // a duplicate ATOMIC's saved result
    wire [ATOMIC_SAVED_LOG2-1:0] adup_slot = adup_reg[ATOMIC_SAVED_LOG2-1:0];
    // Slot adup_reg is looked at in three cycles (a duplicate ATOMIC is
    // rare): phase 0 reads its saved PSN and result (registered block-RAM
    // reads), phase 1 compares the PSN into adup_hit_reg, phase 2 acts on it.
    // The compare gets a cycle of its own because a block RAM without its
    // output register (ECP5's DP16KD) answers late in the cycle.
    logic [23:0] asave_psn_rd_reg;
    logic [63:0] asave_orig_rd_reg;
    logic [1:0]  adup_ph_reg;
    logic        adup_hit_reg;
    always_ff @(posedge clk) begin
        asave_psn_rd_reg <= asave_psn_mem[{qpn_reg, adup_slot}];
        asave_orig_rd_reg <= asave_orig_mem[{qpn_reg, adup_slot}];
        adup_hit_reg <= asave_vld_mem[qpn_reg][adup_slot] && asave_psn_rd_reg == h_psn;
    end
    wire adup_rd_ok = adup_ph_reg == 2'd2;

    // The action queue's entries of the QP in hand, from per-entry bits
    // registered a cycle ahead (no action enters in the cycle before they
    // are used: S_QPC or S_PSN before S_PSN, S_EXEC or S_ATWAIT before
    // S_ATWAIT; qpn_reg holds from S_QPC on):
    // - rda_act_cnt: its READs and ATOMICs accepted and not yet answered, of
    //   the current read generation (older ones are being dropped); with the
    //   READ jobs at the generator, latched in S_PSN for S_OP (responder
    //   resources);
    // - rd_act_of_qp: any READ of it still queued, which an ATOMIC must not
    //   overtake (see at_clear).
    // An entry that leaves in between is out of act_vld_reg at once.
    // The generator's READ jobs of qpn_reg, counted a cycle after they are
    // asked for (S_QPC for S_PSN): qpn_reg holds, and rgen_cur is its
    // generation from S_QPC on.
    assign rdcnt_rd_qpn = qpn_reg;
    assign rdcnt_rd_gen = rgen_cur;
    logic [ACTIONS-1:0] act_vld_reg;     // entry i lies in [act_rd, act_wr) (a cycle late for a push)
    logic                 act_vld_set;
    logic [ACTION_DEPTH_LOG2-1:0] act_vld_slot;
    logic [ACTIONS-1:0] act_rda_qp_reg;  // entry i answers a READ or an ATOMIC of qpn_reg
    logic [ACTIONS-1:0] act_rd_qp_reg;   // entry i is a READ job of qpn_reg
    always_ff @(posedge clk) begin
        for (int i = 0; i < ACTIONS; i++) begin
            act_rda_qp_reg[i] <= act_qpn_mem[i] == qpn_reg && act_rda_mem[i];
            act_rd_qp_reg[i] <= act_qpn_mem[i] == qpn_reg && act_rd_mem[i];
        end
    end
    // the generation match too, against rgen_cur and rgen_cur + 1: the one
    // a QP reset of qpn_reg in that cycle moved it to (the engine's own new
    // round is written in S_PUSH, never the cycle before S_PSN)
    logic [ACTIONS-1:0] act_gen0_reg, act_gen1_reg;
    logic               rgen_bumped_reg;
    always_ff @(posedge clk) begin
        for (int i = 0; i < ACTIONS; i++) begin
            act_gen0_reg[i] <= act_gen_mem[i] == rgen_cur;
            act_gen1_reg[i] <= act_gen_mem[i] - 4'd1 == rgen_cur;
        end
        rgen_bumped_reg <= qp_reset_valid && qp_reset_qpn == qpn_reg;
    end
    logic [ACTIONS-1:0] rda_hit;
    always_comb
        for (int i = 0; i < ACTIONS; i++)
            rda_hit[i] = act_vld_reg[i] && act_rda_qp_reg[i] && (rgen_bumped_reg ? act_gen1_reg[i] : act_gen0_reg[i]);
    wire rd_act_of_qp = |(act_vld_reg & act_rd_qp_reg);

    // their count, as a balanced tree
    logic [ACTION_DEPTH_LOG2:0] rda_sum;
    rnic_popcount #(.N(ACTIONS)) rda_popcount_inst (.bits(rda_hit), .count(rda_sum));
    wire [7:0] rda_act_cnt = 8'(rda_sum);

    // A READ's span of host memory, queued with its job for the ATOMICs
    // behind it: the 64-byte lines of its first byte (pa_reg, set in S_MPTD)
    // and last byte in the low 40 bits of the bus address (the last one's
    // bit 34: past 2^40, wrapped), registered on the way from S_MPTD
    // through S_EXEC to S_PUSH (pa_reg holds from S_EXEC on, the header
    // from S_QPC on), so the add is not in front of the action queue.
    logic [31:0] rd_dlen_m1_reg;
    logic [34:0] rd_span_last_reg;
    logic        rd_span_nz_reg;
    always_ff @(posedge clk) begin
        rd_dlen_m1_reg <= h_dlen - 32'd1;
        rd_span_nz_reg <= h_dlen != 32'd0;
        rd_span_last_reg <= 35'(({1'b0, pa_reg[39:0]} + 41'(rd_dlen_m1_reg)) >> 6);
    end

    // An ATOMIC reads only once no earlier host write of this engine is
    // outstanding (none may land between its read and its write) and every
    // earlier READ of its QP whose bytes share a 64-byte line with its 8
    // has had its responses built and those bytes read (a READ sees memory
    // as it was before a later ATOMIC of its QP). A READ of other memory
    // cannot tell which ran first, so it does not hold the ATOMIC: its
    // responses may wait for a paused link, and the receive path with them.
    // Other QPs' READ responses and queued ACKs do not hold it either.
    logic [7:0] wr_out_reg;
    wire        wr_issue = m_axis_wr_desc_valid && m_axis_wr_desc_ready;
    always_ff @(posedge clk) begin
        wr_out_reg <= wr_out_reg + 8'(wr_issue) - 8'(s_wr_status_valid);
        if (rst) wr_out_reg <= '0;
    end
    assign pend_at_qpn = qpn_reg;
    assign pend_at_line = pa_reg[39:6];
    assign pend_at_mr = h_rkey[TAG_BITS +: MR_INDEX_WIDTH];
    wire at_clear = wr_out_reg == 8'd0 && !rd_act_of_qp && !pend_at_val;
    // registered, as seen in S_ATWAIT (so not before its second cycle): the
    // READ queues' QP compares and their OR ran on into state_reg. Nothing
    // of the QP is queued anew while its ATOMIC waits, so once clear it
    // stays clear (asserted).
    logic at_clear_q;
    always_ff @(posedge clk) at_clear_q <= state_reg == S_ATWAIT && at_clear;

    // a duplicate READ's generation
    wire [23:0] dup_back = dup_psn_mem[qpn_reg] - h_psn;
    wire        new_round = !dup_mode_mem[qpn_reg] || dup_back < 24'h800000;
    wire [3:0]  push_gen = rgen_cur + 4'(dup_reg && op_read && new_round);

    // SEND with invalidate (docs/mw.md, Invalidation): the request waits in
    // S_INV, where context writes are taken (ctx_ready) as in S_IDLE: the
    // firmware may be running a command whose context write waits for
    // this engine before it serves the request. A write of this QP's
    // context meanwhile (reset, RTR) makes the packet stale: it is drained,
    // nothing is written or recorded for it.
    assign m_inv_valid = inv_wait_reg;
    // the wait given up (see the header): the firmware runs a command whose
    // QP context write waits for the completion engine, which waits for
    // this engine to take its error event. Only a request the firmware has
    // not taken (s_inv_taken: it read MW_REQ while the request was shown)
    // is withdrawn; one it serves is answered (a firmware inside a command
    // has taken none: it serves requests between commands)
    wire inv_give_up = inv_wait_reg && !s_inv_ans_valid && !s_inv_taken && ctx_pend && s_errev_valid;
    assign m_inv_qpn = qpn_reg;
    assign m_inv_rkey = h_rkey;
    always_ff @(posedge clk) begin
        if (state_reg != S_INV && state_reg != S_INVD) inv_stale_reg <= 1'b0;
        else if ((qp_reset_valid || qp_rtr_valid) && qp_reset_qpn == qpn_reg) inv_stale_reg <= 1'b1;
        else if (inv_give_up) inv_stale_reg <= 1'b1;
    end

    // the action's packet is written in npieces_reg pieces (S_PUSH only)
    wire [2:0] act_push_nwait = (state_reg == S_PUSH) ? npieces_reg : 3'd0;

    always_ff @(posedge clk) begin
        stat_drop_qpn <= 1'b0;
        stat_qkey_drop <= 1'b0;
        stat_ud_no_wqe <= 1'b0;
        stat_psn_err <= 1'b0;
        stat_duplicate <= 1'b0;
        stat_access_err <= 1'b0;
        stat_tx_rnr <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (take_srqdb) begin
                    // DB_SRQ: the producer index only (rnic_srq_state)
                end else if (take_ev) begin
                    src_reg <= 2'd2;
                    qpn_reg <= s_errev_qpn;
                    state_reg <= S_QPC;
                end else if (take_flchk) begin
                    src_reg <= 2'd1;
                    qpn_reg <= flchk_mem[flchk_rp_reg];
                    state_reg <= S_QPC;
                end
                // (a request header: take_hdr, below the case)
            end
            S_QPC: begin
                qpc_reg <= qpc_rd_data;
                pa_reg <= wr_pa_mem[qpn_reg];
                rem_reg <= wr_rem_mem[qpn_reg];
                msg_len_reg <= msg_len_mem[qpn_reg];
                wr_rkey_reg <= wr_rkey_mem[qpn_reg];
                wr_va_reg <= wr_va_mem[qpn_reg];
                rq_ci_reg <= rq_ci_rd_val;
                rq_pi_reg <= rq_pi_mem[qpn_reg];
                for (int i = 0; i < NSGE; i++) begin
                    rs_pa_reg[i] <= rs_sge_cur[RS_BITS*i +: 64];
                    rs_len_reg[i] <= rs_sge_cur[RS_BITS*i + 64 +: 32];
                end
                rs_idx_reg <= rs_idx_mem[qpn_reg];
                rs_off_reg <= rs_off_mem[qpn_reg];
                rs_bytes_reg <= rs_bytes_mem[qpn_reg];
                // (set here, not in S_EXEC, for the piece plan below)
                pkt_left_reg <= plen;
                state_reg <= (src_reg == 2'd0) ? S_PSN : S_FLUSH;
            end
            S_PSN: begin
                rda_cnt_reg <= rda_act_cnt + rdcnt_rd_val;
                if (on_srq) begin
                    rq_ci_reg <= srq_rd_ci;
                    rq_pi_reg <= srq_rd_pi;
                end
                if (!qp_ok) begin
                    stat_drop_qpn <= 1'b1;
                    state_reg <= after_drop;
                end else if (qkey_bad_q) begin
                    // UD: a foreign Q_Key (IBA 10.2.5); the packet is dropped
                    stat_qkey_drop <= 1'b1;
                    state_reg <= after_drop;
                end else if (psn_eq) begin
                    state_reg <= S_OP;
                end else if (psn_dup && op_atomic && plen != 0) begin
                    // a duplicate ATOMIC with a payload (it carries none) is
                    // malformed: dropped, its payload drained (S_ADUP answers
                    // from the saved result and would leave it in the stream)
                    state_reg <= after_drop;
                end else if (psn_dup && (op_read || op_atomic)) begin
                    if (!act_full) begin
                        stat_duplicate <= 1'b1;
                        dup_reg <= 1'b1;
                        adup_reg <= '0;
                        adup_ph_reg <= 2'd0;
                        state_reg <= op_atomic ? S_ADUP : S_MPT;
                    end
                end else if (!act_full) begin
                    if (psn_dup) stat_duplicate <= 1'b1;
                    else stat_psn_err <= 1'b1;
                    state_reg <= after_drop;
                end
            end
            S_OP: begin
                if (act_push) begin
                    if (act_push_syn[7:5] == 3'(rnic_pkg::AETH_KIND_RNR)) stat_tx_rnr <= 1'b1;
                    state_reg <= after_drop;
                end else if (qpc_ud && rq_empty) begin
                    // UD: no receive WQE posted, the packet is dropped
                    stat_ud_no_wqe <= 1'b1;
                    state_reg <= after_drop;
                end else if (!act_full) begin
                    if (s_first || s_only) state_reg <= S_RWQE_DESC;
                    else if (op_mpt) state_reg <= S_MPTD;   // checked in S_PSN and S_OP
                    else if (op_write) state_reg <= S_MPT2; // its first stage in S_OP
                    else state_reg <= S_EXEC;
                end
                // the message's length, loaded here for S_EXEC's registered
                // length check, as S_MPT does (kept only if the request is
                // accepted; a MIDDLE or LAST keeps what S_QPC loaded)
                if (op_mpt) begin
                    rem_reg <= h_dlen;
                    msg_len_reg <= h_dlen;
                end
            end
            S_RWQE_DESC: begin
                rwqe_beat_reg <= '0;
                // a fresh receive WQE: nothing received yet; its SGE
                // lengths are filled in as their keys pass (S_RLKEY_CHKD),
                // so the receive room's sum (rbuf_ok) has settled by S_EXEC
                for (int i = 0; i < NSGE; i++) rs_len_reg[i] <= '0;
                rs_bytes_reg <= '0;
                state_reg <= S_RWQE_DATA;    // (or S_RWQE_LOAD: rwqe_hit_go)
            end
            S_RWQE_DATA: begin
                // the cache reads it (or its read failed: act_push)
                rwqe_beat_reg <= '0;
                if (act_push) state_reg <= after_drop;
                // (on to S_RWQE_LOAD: rwqe_hit_go)
            end
            S_RWQE_LOAD: begin
                // one cycle behind the address: beat n arrives when rwqe_beat_reg is n + 1
                // (each beat's slot by a constant compare: a subtract in
                // the index ran into the slots' enables; DATA_WIDTH, a power
                // of two in 64..512, divides the WQE's 512 bits)
                for (int b = 0; b < RWQE_BEATS; b++)
                    if (rwqe_beat_reg == 8'(b + 1)) rwqe_reg[DATA_WIDTH * b +: DATA_WIDTH] <= rc_rd_data;
                if (rwqe_beat_reg == 8'(RWQE_BEATS)) begin
                    rsge_reg <= '0;
                    // 0 again for the next WQE's look-up (below)
                    rwqe_beat_reg <= '0;
                    state_reg <= S_RLKEY_RD;
                end else begin
                    rwqe_beat_reg <= rwqe_beat_reg + 8'd1;
                end
            end
            S_RLKEY_RD: begin
                if (rsge_end) begin
                    // the SGEs from here on stay empty (S_RWQE_DESC)
                    rs_idx_reg <= '0;
                    rs_off_reg <= '0;
                    state_reg <= S_EXEC0;
                end else if (cur_rlen_z) begin
                    // an empty SGE: its length stays 0
                    rsge_reg <= rsge_reg + 3'd1;
                end else begin
                    // (the first SGE's first stage runs in this cycle)
                    state_reg <= rlkey_pre_reg ? S_RLKEY_C2 : S_RLKEY_CHK;
                end
            end
            S_RLKEY_CHK: state_reg <= S_RLKEY_C2;
            S_RLKEY_C2: state_reg <= S_RLKEY_CHKD;
            S_RLKEY_CHKD: begin
                // (a failed check is what pushes here: the SGE's registers
                // take the check's verdict alone, not the push's decision)
                if (lkey_ok) begin
                    rs_pa_reg[rsge_reg[1:0]] <= lkey_pa;
                    rs_len_reg[rsge_reg[1:0]] <= cur_rlen;
                    rsge_reg <= rsge_reg + 3'd1;
                    state_reg <= S_RLKEY_RD;
                end else if (act_push) begin
                    state_reg <= after_drop;
                end
            end
            S_MPT: begin
                // (a duplicate READ) the message's length, as S_OP loads it
                if (!w_cont) begin
                    rem_reg <= h_dlen;
                    msg_len_reg <= h_dlen;
                end
                state_reg <= S_MPT2;
            end
            S_MPT2: state_reg <= S_MPTD;
            S_MPTD: begin
                if (act_push) begin
                    stat_access_err <= mptd_acc_bad;
                    state_reg <= after_drop;
                end else if (dup_reg && !access_ok && h_dlen != 0) begin
                    // the MR is gone since the original: nothing to answer with
                    stat_access_err <= 1'b1;
                    state_reg <= after_drop;
                end else if (!act_full) begin
                    state_reg <= wfold_q ? S_WDESC : S_EXEC;
                end
                // (S_EXEC's, for a WRITE that skips it; S_EXEC sets them again)
                npieces_reg <= '0;
                boff_reg <= '0;
                // (taken in every S_MPTD cycle: a request dropped here
                // commits nothing, and the next one loads pa_reg in S_QPC;
                // as the accept's enable, the key check's verdict and the
                // action queue's room were in front of 64 flip-flops)
                pa_reg <= cb_pa;
            end
            S_EXEC0: state_reg <= S_EXEC;
            S_EXEC: begin
                npieces_reg <= '0;
                boff_reg <= '0;
                if (act_push) state_reg <= after_drop;
                else if (!act_full) state_reg <= op_atomic ? S_ATWAIT : h_ieth ? S_INV : (plen != 0) ? S_WDESC : S_PUSH;
            end
            S_INV: begin
                // the firmware invalidates (or refuses) before anything of the
                // packet is written: a refused SEND writes nothing more
                if (s_inv_ans_valid) begin
                    inv_st_reg <= s_inv_ans_status;
                    state_reg <= S_INVD;
                end else if (inv_give_up) begin
                    // dropped in S_INVD (inv_stale_reg)
                    state_reg <= S_INVD;
                end
            end
            S_INVD: begin
                if (inv_stale_reg || act_push) state_reg <= after_drop;
                else if (inv_st_reg == rnic_pkg::WC_SUCCESS[7:0]) state_reg <= (plen != 0) ? S_WDESC : S_PUSH;
            end
            S_WDESC: begin
                if (!plan_ok) begin
                    // a SEND's plan is settling
                end else if (!piece_nz) begin
                    // this receive SGE is full (or empty): the next one
                    rs_idx_reg <= rs_idx_reg + 3'd1;
                    rs_off_reg <= '0;
                end else if (m_axis_wr_desc_ready) begin
                    pend_reg <= pe_first;
                    pend_far_reg <= pf_far;
                    pkt_left_reg <= pkt_left_reg - piece_len;
                    npieces_reg <= npieces_reg + 3'd1;
                    if (msg_is_send) rs_off_reg <= rs_off_reg + piece_len;
                    state_reg <= S_WDATA;
                end
            end
            S_WDATA: begin
                if (pk_tvalid && pk_tready) begin
                    if (piece_ends) begin
                        boff_reg <= beat_used ? '0 : OFF_W'(pend_reg);
                        pend_reg <= '0;
                        pend_far_reg <= 1'b0;
                        // (the state: wdata_end, after the case)
                    end else begin
                        boff_reg <= '0;
                        pend_reg <= pe_next;
                        pend_far_reg <= pn_far;
                    end
                end
            end
            S_PUSH: begin
                // (or the next request's header: take_hdr, below the case)
                state_reg <= S_IDLE;
            end
            S_ATWAIT: begin
                rwqe_beat_reg <= '0;
                rwqe_err_reg <= 1'b0;
                rwqe_st_seen_reg <= 1'b0;
                if (at_clear_q) state_reg <= S_ATRD;
            end
            S_ATRD: begin
                if (at_rd && m_axis_rwqe_desc_ready) state_reg <= S_ATDATA;
            end
            S_ATDATA: begin
                if (s_axis_rwqe_tvalid && rwqe_beat_reg == 0) begin
                    at_orig_reg <= s_axis_rwqe_tdata[63:0];
                    rwqe_beat_reg <= 8'd1;
                end
                if (act_push) begin
                    state_reg <= after_drop;
                end else if (rwqe_beat_reg != 0 && rwqe_st_seen_reg && !rwqe_err_reg) begin
                    state_reg <= (!op_cas || at_orig_reg == h_cmp) ? S_ATWR : S_PUSH;
                end
            end
            S_ATWR: begin
                // (a compare and swap comes here only when it swaps)
                at_new_reg <= op_cas ? h_swap : at_sum;
                if (m_axis_wr_desc_ready) begin
                    npieces_reg <= 3'd1;
                    state_reg <= S_ATWD;
                    at_wd_reg <= 1'b1;
                end
            end
            S_ATWD: begin
                if (m_axis_wr_data_tready) begin
                    state_reg <= S_PUSH;
                    at_wd_reg <= 1'b0;
                end
            end
            S_ADUP: if (adup_rd_ok) begin
                // the slot's saved result, taken whether or not it is the
                // one (the PSN compare is not in front of its 64 enables);
                // only a hit goes on to use it
                at_orig_reg <= asave_orig_rd_reg;
                if (adup_reg == (ATOMIC_SAVED_LOG2+1)'(ASAVE)) begin
                    // no longer kept: nothing to answer with
                    state_reg <= after_drop;
                end else if (adup_hit_reg) begin
                    if (!act_full) begin
                        // nothing written for it: the ACK waits for no write
                        // response (S_EXEC, which clears this, is skipped)
                        npieces_reg <= '0;
                        state_reg <= S_PUSH;
                    end
                end else begin
                    adup_reg <= adup_reg + 1'b1;
                    adup_ph_reg <= 2'd0;
                end
            end else begin
                adup_ph_reg <= adup_ph_reg + 2'd1;
            end
            S_DRAIN: begin
                if (s_axis_payload_tvalid && s_axis_payload_tready && s_axis_payload_tlast)
                    state_reg <= flush_after_reg ? S_FLUSH : S_IDLE;
            end
            S_FLUSH: begin
                if (!act_push && !act_full) state_reg <= (src_reg == 2'd1 && !s_hdr_valid) ? S_PREF : S_IDLE;
            end
            S_PREF: begin
                // the cache has settled on the QP (a read started if one was
                // due), is busy with a read, or the QP needs none. The cache's
                // key and index are still from the second cycle on (the key
                // register follows S_QPC's context a cycle late), so its
                // look_done, without the compare of its inputs, serves then
                if (!pref_ok_reg || (pref_cnt_reg != 3'd0 && rc_look_done) || rc_busy || pref_cnt_reg == 3'd7)
                    state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        // a request header, taken in S_IDLE or S_PUSH (take_state); take_hdr
        // excludes the doorbell, event and flush-check takes of S_IDLE
        if (take_state && take_hdr) begin
            src_reg <= 2'd0;
            dup_reg <= 1'b0;
            hdr_reg <= s_hdr;
            opf_reg <= op_decode(s_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W]);
            qpn_reg <= s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: QPN_WIDTH];
            drop_plen <= s_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];
            state_reg <= S_QPC;
        end
        // a piece's last beat ends S_WDATA: its end compare with the beat's
        // byte count arrives late, so it chooses last, between this and the
        // case's next state, instead of running through the case's decode
        if (wdata_end) state_reg <= (pkt_left_reg == 0) ? S_PUSH : S_WDESC;
        // the same for the cache's hit, from its compares of this cycle's
        // key and index
        if (rwqe_hit_go) begin
            state_reg <= S_RWQE_LOAD;
            // In the hit's cycle the cache reads beat 0 of the WQE (its way,
            // rq_ci, rwqe_beat_reg 0: S_RWQE_DESC sets it, the last load
            // left it so): the load takes that beat in its first cycle.
            // (After an ATOMIC's read it is 1: the load starts at beat 0.)
            if (rwqe_beat_reg == '0) rwqe_beat_reg <= 8'd1;
        end
        if (ci_adv) rq_ci_reg <= rq_ci_reg + 16'd1;
        // a doorbell of the QP in hand: its index, also over S_QPC's read
        // (an SRQ's indices, read in S_PSN, are the SRQ's)
        if (db_fwd) rq_pi_reg <= s_rqdb_pi;
        if (err_now) flush_after_reg <= 1'b1;
        else if (state_reg == S_FLUSH || state_reg == S_IDLE) flush_after_reg <= 1'b0;
        // the ATOMIC's read status (the cache takes its own)
        if (rwqe_st_seen_reg == 1'b0 && s_rwqe_status_valid && state_reg == S_ATDATA) begin
            rwqe_st_seen_reg <= 1'b1;
            rwqe_err_reg <= s_rwqe_status_error;
        end
        if (rst) at_wd_reg <= 1'b0;
        if (rst) begin
            state_reg <= S_IDLE;
            stat_drop_qpn <= 1'b0;
            stat_psn_err <= 1'b0;
            stat_duplicate <= 1'b0;
            stat_access_err <= 1'b0;
            stat_tx_rnr <= 1'b0;
            flush_after_reg <= 1'b0;
            // (so that a duplicate is a READ's or an ATOMIC's from reset on:
            // asserted)
            dup_reg <= 1'b0;
        end
    end


    // ------------------------------------------------------------------
    // action queue
    // ------------------------------------------------------------------
    wire [ACTION_DEPTH_LOG2-1:0] head = act_rd_reg[ACTION_DEPTH_LOG2-1:0];

    // write responses come back in request order, one per piece; they queue
    // here until the action they belong to reaches the head
    logic                       st_err_mem [2**ST_LOG2];
    logic [ST_LOG2:0]           st_wr_reg, st_rd_reg;
    wire st_empty = st_wr_reg == st_rd_reg;
    logic [2:0]                 head_got_reg;    // statuses collected for the head
    logic                       head_err_reg;    // one of them failed
    logic                       ack_done_reg, cqe_done_reg, job_done_reg;

    // The head's control fields are read from the queue a cycle ahead into
    // registers, exact from the second cycle an action is the head
    // (pend_fresh_reg: the head has not moved since), and the head does
    // nothing before: it collects no status, offers nothing and does not
    // leave. So what the head offers (the READ engine's job, the ACK, the
    // CQE) and its pop start at flops, not at a 16-way read of the queue
    // (which put the job's valid 9 levels in front of the READ engine's
    // coalescing writes). An action stays two cycles at the head at the
    // least; the engine takes four or more per packet.
    logic pend_rd_reg, pend_fresh_reg;
    logic head_send_reg, head_cqe_reg, head_rd_reg, head_plain_reg;
    logic [2:0] head_nwait_reg;
    wire head_collecting = pend_fresh_reg && head_got_reg != head_nwait_reg;
    wire head_ready = pend_fresh_reg && !head_collecting;
    wire head_failed = head_err_reg;
    wire head_ack = head_send_reg || head_failed;
    wire head_cqe = head_cqe_reg;
    wire head_job = head_rd_reg && !head_failed;
    // whether the head is a plain ACK the READ engine may coalesce (not
    // one a failed write made a NAK), as a flip-flop: its ready takes it,
    // and the AND in front put the action queue's pop 9 levels behind
    // head_err_reg at 512 bits. Set from the next cycle's head fields and
    // error flag; exact while the head is fresh (asserted), the only
    // cycles the head offers anything or leaves.
    logic rdjob_plain_reg;
    wire head_err_set = head_collecting && !st_empty && st_err_mem[st_rd_reg[ST_LOG2-1:0]];
    // The head's QPN, exact from its first cycle (the pending-READ and
    // coalescing searches run then, for the second cycle) and one LUT level
    // behind flip-flops: a 16-way read of the queue in front of the
    // searches' compares and ORs was 9 levels at 512 bits. Two registers
    // read a cycle ahead, the slot at the head and the one behind it, each
    // with the value the slot holds after the clock edge (the free slot at
    // act_wr takes qpn_reg in every cycle the queue has room: the head's
    // when the queue is empty, the next one's when it holds one action);
    // after a pop the one behind is the head.
    logic [QPN_WIDTH-1:0] head_qpn_cur_reg, head_qpn_nxt_reg;
    logic                 head_popped_reg;
    wire [ACTION_DEPTH_LOG2-1:0] head_p1 = head + 1'b1;
    wire [QPN_WIDTH-1:0] head_qpn = head_popped_reg ? head_qpn_nxt_reg : head_qpn_cur_reg;

    // a failed host write turns the ACK into a remote operational error NAK
    logic [HB-1:0] head_hdr;
    logic [ACK_W-1:0] ack_hdr_packed;
    rnic_hdr_unpack #(.MASK(ACK_MASK), .W(ACK_W)) head_hdr_unpack_inst (
        .packed_hdr(act_hdr_mem[head]), .hdr(head_hdr)
    );
    rnic_hdr_pack #(.MASK(ACK_MASK), .W(ACK_W)) ack_hdr_pack_inst (
        .hdr(ack_hdr), .packed_hdr(ack_hdr_packed)
    );
    always_comb begin
        m_ack_hdr = head_hdr;
        if (head_failed)
            m_ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W] =
                nak(5'(rnic_pkg::AETH_NAK_REM_OP_ERR));
    end
    assign m_cqe_valid = head_ready && head_cqe && !cqe_done_reg;
    // An ACK of a QP with READ responses still queued goes behind them.
    // Whether there are any is a search of the READ engine's queues (a
    // compare per entry, an OR); it is registered, and an ACK leaves from
    // the second cycle its action is the head (pend_fresh_reg), so the
    // search is not in front of the ACK slice's and the job queue's write
    // enables. The registered answer is never too low: jobs are queued only
    // by the head, an ACK head queues none but its own ACK (after the
    // decision), and a job that leaves meanwhile only sends the ACK behind
    // the queue, in order either way (asserted below).
    // The head's QPN leaves as its two registers and their select: the
    // READ engine compares both with each entry and selects after the OR,
    // so the select is not in front of 48 compares (the searches' paths
    // are at the 8-level budget at 512 bits).
    assign pend_rd_qpn_a = head_qpn_cur_reg;
    assign pend_rd_qpn_b = head_qpn_nxt_reg;
    assign pend_rd_sel = head_popped_reg;
    // (whether the head is a plain ACK is one of the registered fields: the
    // READ engine's ready takes it, a plain ACK it coalesces needing no room)
    //
    // The receive path must not wait for the transmit path (a paused link
    // holds the builder; two NICs pausing each other would wait for good).
    // So an ACK that meets the builder's slice full (m_ack_ready, from
    // flip-flops; the slice also refuses while a header of the READ engine
    // waits for it to empty) is queued in the READ engine as a raw job
    // instead, where
    // the QP's later plain ACKs coalesce into it or into its READs
    // (pend_rd) without a slot: what a QP holds there is bounded by its
    // READs and ATOMICs. Order per QP: a later ACK never passes a queued
    // one (pend_rd keeps it behind), and a queued ACK (no payload) leaves
    // the READ engine's header queue only while the slice is empty
    // (rnic_core), so it never passes one the slice still holds. Only a
    // full slice sends ACKs this way: the READ engine serves its jobs in
    // order, and an ATOMIC ACKNOWLEDGE queued there would wait behind
    // every other QP's READ responses.
    wire ack_by_job = head_ack && (pend_rd_reg || !m_ack_ready);
    wire ack_go = head_ready && head_ack && !ack_done_reg;
    assign m_rdjob_valid = (head_ready && head_job && !job_done_reg) || (ack_go && ack_by_job);
    assign m_rdjob_raw = !head_job;
    // (a failed write makes it a NAK)
    assign m_rdjob_plain = rdjob_plain_reg;
    assign m_rdjob_hdr = head_job ? head_hdr : m_ack_hdr;
    assign m_rdjob_va = act_va_mem[head];
    assign m_rdjob_span_first = act_span_first_mem[head];
    assign m_rdjob_span_last = act_span_last_mem[head];
    assign m_rdjob_span_nz = act_span_nz_mem[head];
    assign m_rdjob_rkey = act_rkey_mem[head];
    assign m_rdjob_pd = act_pd_mem[head];
    assign m_rdjob_len = act_blen_mem[head];
    assign m_rdjob_pmtu = act_pmtu_mem[head];
    assign m_rdjob_qpn_a = head_qpn_cur_reg;
    assign m_rdjob_qpn_b = head_qpn_nxt_reg;
    assign m_rdjob_qpn_sel = head_popped_reg;
    assign m_rdjob_gen = act_gen_mem[head];
    assign m_cqe_cqn = act_cqn_mem[head];
    assign m_cqe_qpn = 24'(head_qpn);
    assign m_cqe_wqe_counter = act_widx_mem[head];
    assign m_cqe_opcode = act_opc_mem[head];
    assign m_cqe_status = (head_failed && act_status_mem[head] == rnic_pkg::WC_SUCCESS[7:0])
                          ? rnic_pkg::WC_GENERAL_ERR[7:0] : act_status_mem[head];
    assign m_cqe_byte_len = act_blen_mem[head];
    assign m_cqe_imm = act_imm_mem[head];
    assign m_cqe_flags = act_flags_mem[head];
    assign m_cqe_src_qp = act_src_mem[head];
    assign m_cqe_smac = act_smac_mem[head];

    assign m_ack_valid = ack_go && !ack_by_job;
    wire ack_ok = !head_ack || ack_done_reg || (ack_by_job ? m_rdjob_ready : m_ack_ready);
    wire cqe_ok = !head_cqe || cqe_done_reg || m_cqe_ready;
    wire job_ok = !head_job || job_done_reg || m_rdjob_ready;
    // a failed write's QP error flag is written as its action leaves, which
    // waits while the engine idles for a context write (ctx_ready)
    wire head_hold = ctx_pend && head_failed && (state_reg == S_IDLE || state_reg == S_INV);
    wire head_pop = head_ready && ack_ok && cqe_ok && job_ok && !head_hold;
    wire [2:0] sent_kind = m_ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB + 5 +: 3];
    wire [4:0] sent_code = m_ack_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: 5];

    // A QP error this engine answers with a NAK and no CQE (a request
    // refused as invalid, by its key or access, or a host write or read
    // that failed) is an event for the firmware, which moves the QP to ERR
    // and gives the host IBV_EVENT_QP_REQ_ERR, _QP_ACCESS_ERR or _QP_FATAL
    // (an error with a CQE is reported by the CQE's own event). Raised a
    // cycle after the NAK's action leaves: the pop alone and the head's
    // fields are registered apart, so neither is behind the other (the pop
    // is deep).
    logic rerr_pop_q, rerr_head_q;
    always_ff @(posedge clk) begin
        rerr_pop_q <= head_pop;
        rerr_head_q <= head_ack && !head_cqe && sent_kind == 3'(rnic_pkg::AETH_KIND_NAK)
                       && sent_code != 5'(rnic_pkg::AETH_NAK_PSN_SEQ_ERR);
        evt_resp_err_type <= (sent_code == 5'(rnic_pkg::AETH_NAK_INVALID_REQ)) ? 4'(rnic_pkg::EVT_QP_REQ_ERR) :
                             (sent_code == 5'(rnic_pkg::AETH_NAK_REM_ACCESS_ERR)) ? 4'(rnic_pkg::EVT_QP_ACCESS_ERR) :
                             4'(rnic_pkg::EVT_QP_OP_ERR);
        evt_resp_err_qpn <= head_qpn;
        if (rst) rerr_pop_q <= 1'b0;
    end
    assign evt_resp_err_valid = rerr_pop_q && rerr_head_q;

    always_ff @(posedge clk) begin
        stat_tx_ack <= 1'b0;
        stat_tx_nak <= 1'b0;
        stat_recv_cqe <= 1'b0;
        // The free slot at act_wr takes the action's fields in every cycle
        // the queue has room: their write enables are the pointers' compare,
        // not act_push, which is the end of the engine's decision. The slot
        // counts once act_vld_reg is set (every search over the entries is
        // gated by it, and by the pointers in the assertions).
        if (!act_full) begin
            act_hdr_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= ack_hdr_packed;
            act_nwait_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_nwait;
            act_send_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_send;
            act_cqe_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_cqe;
            act_qpn_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= qpn_reg;
            act_cqn_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= qpc_rcqn;
            act_widx_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_widx;
            act_opc_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_opc;
            act_status_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_status;
            act_blen_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_rd ? h_dlen : act_push_blen;
            act_rd_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_rd;
            act_rda_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_rd || act_push_atomic;
            act_va_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= h_va;
            act_span_first_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= pa_reg[39:6];
            act_span_last_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= rd_span_last_reg;
            act_span_nz_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= rd_span_nz_reg;
            act_plain_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= act_push_syn == SYN_ACK && !act_push_atomic;
            act_rkey_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= h_rkey;
            act_pd_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= qpc_pd;
            act_pmtu_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= pmtu_code;
            act_gen_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= push_gen;
            // the CQE's immediate, or with WITH_INV the rkey invalidated
            act_imm_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <=
                (act_push_status != rnic_pkg::WC_SUCCESS[7:0]) ? 32'h0 : op_imm ? h_imm : h_ieth ? h_rkey : 32'h0;
            act_flags_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <=
                ((op_imm && act_push_status == rnic_pkg::WC_SUCCESS[7:0]) ? rnic_pkg::WC_FLAG_WITH_IMM[7:0] : 8'h0)
                | ((h_ieth && act_push_status == rnic_pkg::WC_SUCCESS[7:0]) ? rnic_pkg::WC_FLAG_WITH_INV[7:0] : 8'h0)
                | (qpc_ud && h_ud ? rnic_pkg::WC_FLAG_GRH[7:0] : 8'h0);
            // UD: the sender is the DETH's source QP
            act_src_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <= (qpc_ud && h_ud) ? h_sqpn : qpc_dqpn;
            // and its frame's Ethernet source (a CM answers to it); none
            // for a flush, which has no frame
            act_smac_mem[act_wr_reg[ACTION_DEPTH_LOG2-1:0]] <=
                (qpc_ud && h_ud && act_push_status != rnic_pkg::WC_WR_FLUSH_ERR[7:0]) ? h_smac : 48'h0;
        end
        // an entry counts in the searches from the cycle after the next
        // (act_vld_set: the decision in front of the 16 bits' enables was
        // 10 levels); no action enters in the two cycles before a search
        // (asserted), and a pop in between clears the bit after
        act_vld_set <= act_push;
        act_vld_slot <= act_wr_reg[ACTION_DEPTH_LOG2-1:0];
        if (act_vld_set) act_vld_reg[act_vld_slot] <= 1'b1;
        if (act_push) act_wr_reg <= act_wr_reg + 1'b1;
        if (s_wr_status_valid) begin
            st_err_mem[st_wr_reg[ST_LOG2-1:0]] <= s_wr_status_error;
            st_wr_reg <= st_wr_reg + 1'b1;
        end
        rdjob_plain_reg <= !act_rd_mem[head] && act_plain_mem[head] && !head_err_reg && !head_err_set;
        if (head_collecting && !st_empty) begin
            if (head_err_set) head_err_reg <= 1'b1;
            st_rd_reg <= st_rd_reg + 1'b1;
            head_got_reg <= head_got_reg + 3'd1;
        end
        if ((m_ack_valid && m_ack_ready) || (m_rdjob_valid && m_rdjob_ready && !head_job)) begin
            ack_done_reg <= 1'b1;
            if (sent_kind == 3'(rnic_pkg::AETH_KIND_ACK)) stat_tx_ack <= 1'b1;
            else stat_tx_nak <= 1'b1;
        end
        // a receive completion counts when the CQE writer takes it (the
        // action may leave the head later, waiting for its ACK)
        if (m_cqe_valid && m_cqe_ready) begin
            cqe_done_reg <= 1'b1;
            stat_recv_cqe <= 1'b1;
        end
        if (m_rdjob_valid && m_rdjob_ready && head_job) job_done_reg <= 1'b1;
        pend_rd_reg <= pend_rd_val;
        pend_fresh_reg <= !act_empty && !head_pop;
        head_send_reg <= act_send_mem[head];
        head_cqe_reg <= act_cqe_mem[head];
        head_rd_reg <= act_rd_mem[head];
        head_plain_reg <= !act_rd_mem[head] && act_plain_mem[head];
        head_nwait_reg <= act_nwait_mem[head];
        head_qpn_cur_reg <= act_empty ? qpn_reg : act_qpn_mem[head];
        head_qpn_nxt_reg <= (act_wr_reg == act_rd_reg + 1'b1) ? qpn_reg : act_qpn_mem[head_p1];
        head_popped_reg <= head_pop;
        if (head_pop) begin
            act_vld_reg[head] <= 1'b0;
            act_rd_reg <= act_rd_reg + 1'b1;
            head_got_reg <= '0;
            head_err_reg <= 1'b0;
            ack_done_reg <= 1'b0;
            cqe_done_reg <= 1'b0;
            job_done_reg <= 1'b0;
        end
        if (rst) begin
            act_wr_reg <= '0;
            act_rd_reg <= '0;
            act_vld_reg <= '0;
            act_vld_set <= 1'b0;
            st_wr_reg <= '0;
            st_rd_reg <= '0;
            head_got_reg <= '0;
            head_err_reg <= 1'b0;
            ack_done_reg <= 1'b0;
            cqe_done_reg <= 1'b0;
            job_done_reg <= 1'b0;
            pend_fresh_reg <= 1'b0;
            head_popped_reg <= 1'b0;
            stat_tx_ack <= 1'b0;
            stat_tx_nak <= 1'b0;
            stat_recv_cqe <= 1'b0;
        end
    end


`ifndef __ICARUS__
`ifndef SYNTHESIS
    // every write has a queued or coming action, so its response finds room
    always_ff @(posedge clk) begin
        if (!rst && s_wr_status_valid)
            assert ((st_wr_reg - st_rd_reg) < (ST_LOG2+1)'(2**ST_LOG2));
        // one response per write issued (the ATOMIC's wait counts on it)
        if (!rst && s_wr_status_valid) assert (wr_out_reg != 8'd0);
        if (!rst && wr_issue) assert (wr_out_reg != 8'hff);
        // the verdict's parts taken in S_QPC are the context's and header's
        if (!rst && state_reg == S_PSN) begin
            assert (qpc_ok_q == ((qpc_state == 4'(rnic_pkg::QPS_RTR) || qpc_state == 4'(rnic_pkg::QPS_RTS))
                                 && h_dqpn < 24'(NUM_QPS) && qpc_ud == h_ud));
            assert (qkey_bad_q == (qpc_ud && h_qkey != qpc_qkey));
        end
        // the registered search answer is never too low (see pend_rd_reg)
        if (!rst && m_ack_valid) assert (!pend_rd_val);
        // the head's registered fields (ACK, CQE, READ job, statuses
        // awaited, plain ACK) are the queue head's, from its second cycle on
        if (!rst && pend_fresh_reg) begin
            assert (!act_empty);
            assert (head_send_reg == act_send_mem[head] && head_cqe_reg == act_cqe_mem[head]
                    && head_rd_reg == act_rd_mem[head] && head_nwait_reg == act_nwait_mem[head]);
            assert (head_plain_reg == (!act_rd_mem[head] && act_plain_mem[head]));
            assert (rdjob_plain_reg == (head_plain_reg && !head_err_reg));
        end
        // the head's QPN is the queue head's from its first cycle on
        if (!rst && !act_empty) assert (head_qpn == act_qpn_mem[head]);
        // nothing is offered, collected or popped in a head's first cycle
        if (!rst && !pend_fresh_reg) assert (!head_pop && !m_ack_valid && !m_rdjob_valid && !m_cqe_valid);
        if (!rst && state_reg == S_ATWAIT && at_clear_q) assert (at_clear);
        if (!rst) assert (at_wd_reg == (state_reg == S_ATWD));
        // an action is pushed only with room: its fields were written into the free slot
        if (!rst && act_push) assert (!act_full);
        // the header take below the case: none of S_IDLE's other takes with it
        if (!rst && take_state && take_hdr) assert (!take_srqdb && !take_ev && !take_flchk);
        // a duplicate is a READ's or an ATOMIC's (rqci_fwd_q needs no !dup_reg)
        if (!rst && dup_reg) assert (op_read || op_atomic);
        // a flush check is queued only with room, and taken only when queued
        if (!rst && flchk_push && !flchk_pop) assert (!flchk_full_reg);
        if (!rst && flchk_pop_live) assert (flchk_any_reg && !flchk_dead_reg);
        // an entry is owed only in a slot the queue holds; the head flags
        // say what the head slot is
        if (!rst) begin
            for (int i = 0; i < FLCHK_N; i++)
                if (FLCHK_LOG2'(i - int'(flchk_rp_reg)) >= FLCHK_LOG2'(flchk_cnt_reg) && !flchk_full_reg)
                    assert (!flchk_vld_reg[i]);
            assert (flchk_rp_oh_reg == FLCHK_N'(1) << flchk_rp_reg);
            assert (flchk_any_reg == (flchk_cnt_reg != '0 && flchk_vld_reg[flchk_rp_reg]));
            assert (flchk_dead_reg == (flchk_cnt_reg != '0 && !flchk_vld_reg[flchk_rp_reg]));
        end
    end
`endif
`endif

    // Per-QP state: one write port per array. The engine writes it with an
    // accepted request's update, a receive WQE done, a duplicate READ's new
    // round (all in states after S_IDLE), an RQ doorbell (any state) and a
    // failed write reported by the action queue. A context write waits for
    // the engine to idle: it takes nothing new but the completion engine's
    // error event (taken only while that engine is busy, so never in the
    // cycle a context write is taken) and holds a failed action
    // while ctx_pend, so ctx_ready is a register compare and none of these
    // writes comes in the cycle a context write is taken. (Deriving
    // ctx_ready from the writes themselves put the engine's whole decision
    // logic in front of every context table's write enable.) A SEND with
    // invalidate waiting for the firmware (S_INV) writes none of them
    // either, so the write is taken there too (see S_INV).
    wire wr_dup_rd = state_reg == S_PUSH && dup_reg && op_read;
    wire wr_werr = head_pop && head_failed;
    // (rnic_core writes a cycle after ctx_ready, so an invalidation answered
    // or given up in this cycle, which leaves S_INV, is not ready)
    assign ctx_ready = (state_reg == S_IDLE || (inv_wait_reg && !s_inv_ans_valid && !inv_give_up)) && ctx_pend;
    // set where S_EXEC goes to S_INV, cleared where S_INV is left
    always_ff @(posedge clk) begin
        if (state_reg == S_EXEC && !act_push && !act_full && !op_atomic && h_ieth) inv_wait_reg <= 1'b1;
        if (inv_wait_reg && (s_inv_ans_valid || inv_give_up)) inv_wait_reg <= 1'b0;
        if (rst) inv_wait_reg <= 1'b0;
    end

    // Read generations in block RAM: every read port is registered. A QP
    // reset's increment reads the old value in the reset's cycle and writes
    // it in the next (pw_*: the pending write); until then every reader
    // takes the QP's value from pw_val. The engine's own write (a duplicate
    // READ's round, S_PUSH) is computed from rgen_cur, which includes a
    // pending increment: to the same QP it replaces it, to another it takes
    // the port and the increment waits one more cycle (no reset comes in a
    // cycle the engine writes: ctx_ready).
    wire                  rg_dup_we = wr_dup_rd && !qp_reset_valid && !qp_rtr_valid;
    logic                 pw_vld, pw_held;
    logic [QPN_WIDTH-1:0] pw_addr;
    logic [3:0]           pw_hold_val;
    logic [3:0]           pw_rd, pw_fwd_val;   // the reset's read, and the write it missed
    logic                 pw_fwd;
    wire  [3:0]           pw_val = pw_held ? pw_hold_val : (pw_fwd ? pw_fwd_val : pw_rd) + 4'd1;
    wire                  rg_we = rg_dup_we || pw_vld;
    wire  [QPN_WIDTH-1:0] rg_waddr = rg_dup_we ? qpn_reg : pw_addr;
    wire  [3:0]           rg_wdata = rg_dup_we ? push_gen : pw_val;
    always_ff @(posedge clk) begin
        if (rg_we) rgen_mem[rg_waddr] <= rg_wdata;
    end
    always_ff @(posedge clk) begin
        pw_rd <= rgen_mem[qp_reset_qpn];
        pw_fwd <= pw_vld && pw_addr == qp_reset_qpn;
        pw_fwd_val <= pw_val;
        pw_vld <= qp_reset_valid || (pw_vld && rg_dup_we && pw_addr != qpn_reg);
        pw_held <= !qp_reset_valid;
        pw_hold_val <= pw_val;
        if (qp_reset_valid) pw_addr <= qp_reset_qpn;
        if (rst) pw_vld <= 1'b0;
    end

    // qpn_reg's generation: read in S_IDLE at the QPN being taken (the
    // written value forwarded), for S_QPC; kept in rgen_cur_reg after that
    // The pending increment's address is compared a cycle ahead too, with
    // the pending write's next address and validity (rgq_pw): S_QPC, one
    // cycle long, follows the take (qpc_rd_addr is then the new qpn_reg).
    // The compare behind the choice ran into the generator's per-job
    // generation flags (rdcnt_rd_gen).
    logic [3:0] rgq_rd, rgq_fwd_val;
    logic       rgq_fwd, rgq_pw;
    always_ff @(posedge clk) begin
        rgq_rd <= rgen_mem[qpc_rd_addr];
        rgq_fwd <= rg_we && rg_waddr == qpc_rd_addr;
        rgq_fwd_val <= rg_wdata;
        rgq_pw <= qp_reset_valid ? qp_reset_qpn == qpc_rd_addr
                : pw_vld && rg_dup_we && pw_addr != qpn_reg && pw_addr == qpc_rd_addr;
    end
    wire [3:0] rgen_qpc = rgq_pw ? pw_val : rgq_fwd ? rgq_fwd_val : rgq_rd;
    assign rgen_cur = (state_reg == S_QPC) ? rgen_qpc : rgen_cur_reg;
    always_ff @(posedge clk) begin
        if (qp_reset_valid && qp_reset_qpn == qpn_reg) rgen_cur_reg <= rgen_cur + 4'd1;
        else if (rg_dup_we) rgen_cur_reg <= push_gen;
        else rgen_cur_reg <= rgen_cur;
    end

    // the generator's read
    logic [3:0]           rgg_rd, rgg_fwd_val;
    logic                 rgg_fwd;
    logic [QPN_WIDTH-1:0] rgg_addr;
    always_ff @(posedge clk) begin
        rgg_rd <= rgen_mem[rgen_rd_qpn];
        rgg_addr <= rgen_rd_qpn;
        rgg_fwd <= rg_we && rg_waddr == rgen_rd_qpn;
        rgg_fwd_val <= rg_wdata;
    end
    assign rgen_rd_val = (pw_vld && pw_addr == rgg_addr) ? pw_val : rgg_fwd ? rgg_fwd_val : rgg_rd;

    logic [NSGE*RS_BITS-1:0] rs_sge_next;
    always_comb
        for (int i = 0; i < NSGE; i++) rs_sge_next[RS_BITS*i +: RS_BITS] = {rs_len_reg[i], rs_pa_reg[i]};
    wire [ATOMIC_SAVED_LOG2-1:0] asave_wp = asave_wp_mem[qpn_reg];
    logic [ASAVE-1:0] asave_vld_next;
    always_comb begin
        asave_vld_next = asave_vld_mem[qpn_reg];
        asave_vld_next[asave_wp] = 1'b1;
    end

    // The QP state S_PUSH commits, summed a cycle ahead from registers that
    // hold from S_EXEC (or earlier) on: the 64-bit addresses through
    // rnic_add_split, the bytes left as two halves and a borrow, the next
    // PSN as one 25-bit carry chain (the READ's packet count as a quotient
    // and a round-up bit), the MSN's increment. A sum in the cycle of the
    // write put a 64-bit carry chain in front of the tables' write ports.
    // (Asserted against the direct sums at S_PUSH.)
    wire [63:0] wr_va_cur = w_cont ? wr_va_reg : h_va;
    logic [63:0] wr_pa_next, wr_va_next;
    rnic_add_split wr_pa_add_inst (.clk, .en(1'b1), .a(pa_reg), .b(plen), .sum(wr_pa_next));
    rnic_add_split wr_va_add_inst (.clk, .en(1'b1), .a(wr_va_cur), .b(plen), .sum(wr_va_next));
    // (a packet's payload is under 2^16 bytes)
    logic [31:0] wr_rem_next;
    rnic_sub_split wr_rem_sub_inst (.clk, .en(1'b1), .a(rem_reg), .b(32'(plen[15:0])), .diff(wr_rem_next));
    logic [23:0] epsn_nx_reg, msn_nx_reg;
    always_ff @(posedge clk) begin
        epsn_nx_reg <= 24'(({epsn_cur, 1'b1} + {req_q_reg, req_rnz_reg}) >> 1);
        msn_nx_reg <= msn_cur + 24'd1;
    end
    always_ff @(posedge clk) begin
        if (qp_reset_valid) begin
            epsn_mem[qp_reset_qpn] <= qp_reset_rq_psn;
            msn_mem[qp_reset_qpn] <= '0;
            in_msg_mem[qp_reset_qpn] <= 1'b0;
            msg_send_mem[qp_reset_qpn] <= 1'b0;
            wr_pa_mem[qp_reset_qpn] <= '0;
            wr_rem_mem[qp_reset_qpn] <= '0;
            msg_len_mem[qp_reset_qpn] <= '0;
            wr_rkey_mem[qp_reset_qpn] <= '0;
            wr_va_mem[qp_reset_qpn] <= '0;
            nak_sent_mem[qp_reset_qpn] <= 1'b0;
            since_ack_mem[qp_reset_qpn] <= '0;
            rq_ci_mem[qp_reset_qpn] <= '0;
            rq_pi_mem[qp_reset_qpn] <= '0;
            rs_idx_mem[qp_reset_qpn] <= '0;
            rs_off_mem[qp_reset_qpn] <= '0;
            rs_bytes_mem[qp_reset_qpn] <= '0;
            rs_widx_mem[qp_reset_qpn] <= '0;
            rs_held_mem[qp_reset_qpn] <= 1'b0;
            last_wqe_mem[qp_reset_qpn] <= 1'b0;
            // (and a new read generation, below: READ jobs still queued
            // for the QP are dropped at their next packet boundary)
            dup_mode_mem[qp_reset_qpn] <= 1'b0;
            dup_psn_mem[qp_reset_qpn] <= '0;
            asave_vld_mem[qp_reset_qpn] <= '0;
            asave_wp_mem[qp_reset_qpn] <= '0;
        end else if (qp_rtr_valid) begin
            epsn_mem[qp_reset_qpn] <= qp_reset_rq_psn;
            msn_mem[qp_reset_qpn] <= '0;
            nak_sent_mem[qp_reset_qpn] <= 1'b0;
            since_ack_mem[qp_reset_qpn] <= '0;
        end else begin
            if (upd) begin
                nak_sent_mem[qpn_reg] <= upd_nak_sent;
            end
            if (upd_commit) begin
                epsn_mem[qpn_reg] <= epsn_nx_reg;
                msn_mem[qpn_reg] <= op_ends ? msn_nx_reg : msn_cur;
                in_msg_mem[qpn_reg] <= !op_ends;
                msg_send_mem[qpn_reg] <= op_send;
                wr_pa_mem[qpn_reg] <= wr_pa_next;
                wr_rem_mem[qpn_reg] <= wr_rem_next;
                msg_len_mem[qpn_reg] <= msg_len_reg;
                wr_va_mem[qpn_reg] <= wr_va_next;
                if (!w_cont) wr_rkey_mem[qpn_reg] <= h_rkey;
                since_ack_mem[qpn_reg] <= (act_push_send || op_read) ? 8'd0 : since_cur + 8'd1;
                rs_sge_mem[qpn_reg] <= rs_sge_next;
                rs_idx_mem[qpn_reg] <= rs_idx_reg;
                rs_off_mem[qpn_reg] <= rs_off_reg;
                rs_bytes_mem[qpn_reg] <= rs_bytes_reg + plen;
            end
            if ((upd_rq_ci || flush_rq_ci) && !on_srq) rq_ci_mem[qpn_reg] <= rq_ci_reg + 16'd1;
            if (upd_commit && s_first) rs_widx_mem[qpn_reg] <= rq_ci_reg;
            if (upd_commit && s_first && on_srq) rs_held_mem[qpn_reg] <= 1'b1;
            else if (held_clr) rs_held_mem[qpn_reg] <= 1'b0;
            if (last_wqe_now) last_wqe_mem[qpn_reg] <= 1'b1;
            if (upd_commit && op_atomic) begin
                asave_psn_mem[{qpn_reg, asave_wp}] <= h_psn;
                asave_orig_mem[{qpn_reg, asave_wp}] <= at_orig_reg;
                asave_vld_mem[qpn_reg] <= asave_vld_next;
                asave_wp_mem[qpn_reg] <= asave_wp + 1'b1;
            end
            if (wr_dup_rd) begin
                dup_mode_mem[qpn_reg] <= 1'b1;
                dup_psn_mem[qpn_reg] <= h_psn;
            end else if (upd_commit) begin
                dup_mode_mem[qpn_reg] <= 1'b0;
            end
            if (wr_db) rq_pi_mem[s_rqdb_qpn] <= s_rqdb_pi;
        end
    end

    // the error flags, each with one write port: enable, address, data (a
    // failed payload write puts the QP in error: later requests are dropped)
    wire                 err_we = qp_reset_valid || (!qp_rtr_valid && upd);
    wire [QPN_WIDTH-1:0] err_wa = qp_reset_valid ? qp_reset_qpn : qpn_reg;
    wire                 err_wd = !qp_reset_valid && upd_err;
    // A failed write is written a cycle after its pop, from registers: the
    // pop waits for the READ engine's, the ACK slice's and the CQE writer's
    // room, and a write match behind it was 9 levels at 512 bits
    // (docs/hw.md). Seen a cycle later is the same as the failure reported
    // a cycle later, which the engine takes at any time. No context write
    // comes in that cycle (a failed head is held while ctx_pend in the
    // states where ctx_ready is given, asserted below); a reset would win.
    logic                 failed_wr_v;
    logic [QPN_WIDTH-1:0] failed_wr_qpn;
    always_ff @(posedge clk) begin
        failed_wr_v <= wr_werr;
        failed_wr_qpn <= head_qpn;
        if (rst) failed_wr_v <= 1'b0;
    end
    wire                 werr_we = qp_reset_valid || (!qp_rtr_valid && failed_wr_v);
    wire [QPN_WIDTH-1:0] werr_wa = qp_reset_valid ? qp_reset_qpn : failed_wr_qpn;
    wire                 werr_wd = !qp_reset_valid;
    always_ff @(posedge clk) begin
        if (err_we) err_mem[err_wa] <= err_wd;
        if (werr_we) werr_mem[werr_wa] <= werr_wd;
    end
    // The engine's own reads at qpn_reg, registered, with the context
    // reset's and the action queue's writes of the cycle forwarded: the
    // engine's write (upd, which ends a packet) is read again from the
    // QP's next packet on, two cycles later at the least, or by S_FLUSH
    // right after it (flush_after_reg). Used from
    // S_PSN on (qpn_reg holds from S_QPC), asserted. (Read at the register,
    // the synthesis tool's bypass of a write in the read's cycle put the
    // engine's decision in front of its flip-flops: 11 levels.)
    logic err_q_ram, werr_q_ram, err_q_rst, werr_q_fwd;
    always_ff @(posedge clk) begin
        err_q_ram <= err_mem[qpn_reg];
        werr_q_ram <= werr_mem[qpn_reg];
        err_q_rst <= qp_reset_valid && qp_reset_qpn == qpn_reg;
        werr_q_fwd <= werr_we && werr_wa == qpn_reg;
    end
    // (a reset writes both flags to 0; a failed write sets werr; the engine
    // only sets err, and flush_after_reg holds from the cycle after it did
    // until S_FLUSH or S_IDLE, which S_FLUSH's first cycle may need)
    assign err_cur = (!err_q_rst && err_q_ram) || flush_after_reg;
    assign werr_cur = werr_q_fwd ? werr_wd_reg : werr_q_ram;
    // The requester's read, registered at err_rd_qpn (the QPN it works on
    // in the next cycle); a write to that entry in the cycle of the read
    // reaches the RAM only after it, so its data is forwarded.
    logic err_rd_ram, werr_rd_ram, err_fwd_reg, werr_fwd_reg, err_wd_reg, werr_wd_reg;
    always_ff @(posedge clk) begin
        err_rd_ram <= err_mem[err_rd_qpn];
        werr_rd_ram <= werr_mem[err_rd_qpn];
        err_fwd_reg <= err_we && err_wa == err_rd_qpn;
        werr_fwd_reg <= werr_we && werr_wa == err_rd_qpn;
        err_wd_reg <= err_wd;
        werr_wd_reg <= werr_wd;
    end
    assign err_rd_val = (err_fwd_reg ? err_wd_reg : err_rd_ram) || (werr_fwd_reg ? werr_wd_reg : werr_rd_ram);

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the context write never meets the engine's own update
    always_ff @(posedge clk) begin
        if (!rst) assert (!((qp_reset_valid || qp_rtr_valid) && !(state_reg == S_IDLE || state_reg == S_INV)));
        if (!rst) assert (inv_wait_reg == (state_reg == S_INV));
        // and the engine writes none of its per-QP state then
        if (!rst && (qp_reset_valid || qp_rtr_valid))
            assert (!(upd || upd_commit || upd_rq_ci || flush_rq_ci || wr_dup_rd || wr_db || wr_werr || srq_take || flush_held
                      || last_wqe_now));
        // the failed write, a cycle after its pop, never meets a context write
        if (!rst && failed_wr_v) assert (!qp_reset_valid && !qp_rtr_valid);
        if (!rst && srq_ctx_valid) assert ((state_reg == S_IDLE || state_reg == S_INV) && !(wr_db || srq_take));
    end

    // The registered forms give what a direct read would: the generations
    // as one table written in place, and a scan of the action queue.
    // (in reset it follows the table's writes: whatever they hold)
    logic [3:0] rgen_ref [NUM_QPS];
    initial for (int q = 0; q < NUM_QPS; q++) rgen_ref[q] = rgen_mem[q];
    always_ff @(posedge clk) begin
        if (rst) begin
            if (rg_we) rgen_ref[rg_waddr] <= rg_wdata;
        end else if (qp_reset_valid) begin
            rgen_ref[qp_reset_qpn] <= rgen_ref[qp_reset_qpn] + 4'd1;
        end else if (!qp_rtr_valid && wr_dup_rd) begin
            rgen_ref[qpn_reg] <= push_gen;
        end
    end
    logic [7:0] scan_cnt;
    logic       scan_rd;
    logic [ACTION_DEPTH_LOG2-1:0] scan_rel;
    always_comb begin
        scan_cnt = '0;
        scan_rd = 1'b0;
        for (int i = 0; i < ACTIONS; i++) begin
            scan_rel = ACTION_DEPTH_LOG2'(i) - act_rd_reg[ACTION_DEPTH_LOG2-1:0];
            if ((ACTION_DEPTH_LOG2+1)'(scan_rel) < act_wr_reg - act_rd_reg && act_qpn_mem[i] == qpn_reg) begin
                if (act_rda_mem[i] && act_gen_mem[i] == rgen_ref[qpn_reg]) scan_cnt = scan_cnt + 8'd1;
                if (act_rd_mem[i]) scan_rd = 1'b1;
            end
        end
    end
    logic rst_q, act_push_q, act_push_qq;
    logic [MR_INDEX_WIDTH-1:0] mpt_addr_q;   // the MPT entry read last
    always_ff @(posedge clk) begin
        if (mpt_rd_en) mpt_addr_q <= mpt_rd_addr;
        rst_q <= rst;
        act_push_q <= act_push && (act_push_rd || act_push_atomic);
        act_push_qq <= act_push_q;
        if (!rst && !rst_q) begin
            assert (rgen_rd_val == rgen_ref[rgg_addr]);
            if (state_reg != S_IDLE) assert (rgen_cur == rgen_ref[qpn_reg]);
            if (state_reg == S_PSN) assert (rda_act_cnt == scan_cnt && rgen_cur_reg == rgen_ref[qpn_reg]);
            // the key check's operands, registered a cycle ahead
            if (state_reg == S_RLKEY_CHK)
                assert (ck_lkey && ck_key == cur_rlkey && ck_va == cur_raddr && ck_len == cur_rlen && ck_pd == rq_pd);
            // ... or two cycles ahead, with the entry, for the first SGE
            if (state_reg == S_RLKEY_RD && rlkey_pre_reg)
                assert (rsge_reg == '0 && ck_lkey && ck_key == cur_rlkey && ck_va == cur_raddr && ck_len == cur_rlen
                        && ck_pd == rq_pd && mpt_addr_q == cur_rlkey[TAG_BITS +: MR_INDEX_WIDTH]);
            // ... and the MPT entry read for them: the request's in each
            // cycle its first stage takes (S_MPT; S_PSN and S_OP for a key
            // the header carries, S_OP for a MIDDLE or LAST)
            if (state_reg == S_MPT || ((state_reg == S_PSN || state_reg == S_OP) && op_mpt)
                || (state_reg == S_OP && w_cont && op_write))
                assert (!ck_lkey && ck_key == (w_cont ? wr_rkey_reg : h_rkey) && ck_va == (w_cont ? wr_va_reg : h_va)
                        && ck_len == chk_len && ck_pd == qpc_pd
                        && ck_need == (op_read ? rnic_pkg::ACCESS_REMOTE_READ[7:0] :
                                       op_atomic ? rnic_pkg::ACCESS_REMOTE_ATOMIC[7:0] : rnic_pkg::ACCESS_REMOTE_WRITE[7:0])
                        && mpt_addr_q == (w_cont ? wr_rkey_reg[TAG_BITS +: MR_INDEX_WIDTH] : h_rkey[TAG_BITS +: MR_INDEX_WIDTH]));
            // the tables read a cycle ahead
            if (state_reg == S_PSN || state_reg == S_FLUSH || upd)
                assert (err_cur == err_mem[qpn_reg] && werr_cur == werr_mem[qpn_reg]);
            if (state_reg == S_PSN || upd) assert (nak_sent_q == nak_sent_mem[qpn_reg]);
            if (state_reg == S_QPC) assert (rq_ci_rd_val == rq_ci_mem[qpn_reg]);
            // the pending increment's compare, made a cycle ahead
            if (state_reg == S_QPC) assert (rgq_pw == (pw_vld && pw_addr == qpn_reg));
            if (state_reg == S_ATWAIT) assert (rd_act_of_qp == scan_rd);
            // (no READ or ATOMIC pushed in the two cycles before: the
            // queue's flip-flops that count them have caught up)
            if (state_reg == S_PSN || state_reg == S_ATWAIT) assert (!act_push_q && !act_push_qq);
        end
    end
`endif
`endif

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // The values registered ahead equal their direct definitions where used.
    logic        ref_mr_ok;
    logic [63:0] ref_mr_pa;
    rnic_mr_check ref_check_inst (
        .mpt(mpt_rd_data), .key(ck_key), .va(ck_va), .len(ck_len), .pd(ck_pd),
        .need_access(ck_need), .remote(!ck_lkey), .qpn(24'(qpn_reg)), .ok(ref_mr_ok), .pa(ref_mr_pa)
    );
    logic        ref_a_ok, ref_b_ok;
    logic [63:0] ref_a_pa, ref_b_pa;
    always_ff @(posedge clk) begin
        if (ck_en) begin
            ref_a_ok <= ref_mr_ok;
            ref_a_pa <= ref_mr_pa;
            ref_b_ok <= ref_a_ok;
            ref_b_pa <= ref_a_pa;
        end
    end
    wire [7:0]  ref_opcode = hdr_reg[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W];
    wire [31:0] ref_mtu = mtu_bytes;
    wire [32:0] ref_dlen_up = 33'(h_dlen) + 33'(ref_mtu) - 33'd1;
    wire [23:0] ref_req_psns = !op_read ? 24'd1 : (h_dlen == 0) ? 24'd1
                                        : 24'(ref_dlen_up >> (32'(pmtu_code) + 32'd7));
    logic ref_len_ok;
    always_comb begin
        if (op_read) ref_len_ok = plen == 0 && h_dlen <= 32'h8000_0000;
        else if (op_atomic) ref_len_ok = plen == 0;
        else if (w_first || w_middle) ref_len_ok = plen == ref_mtu && plen < rem_reg;
        else if (w_last) ref_len_ok = plen != 0 && plen <= ref_mtu && plen == rem_reg;
        else if (w_only) ref_len_ok = plen <= ref_mtu && plen == rem_reg;
        else if (s_first || s_middle) ref_len_ok = plen == ref_mtu;
        else if (s_last) ref_len_ok = plen != 0 && plen <= ref_mtu;
        else if (qpc_ud) ref_len_ok = plen <= ref_mtu + 32'(rnic_pkg::GRH_BYTES);
        else ref_len_ok = plen <= ref_mtu;
    end
    logic [34:0] ref_rs_total;
    always_comb begin
        ref_rs_total = '0;
        for (int i = 0; i < NSGE; i++) ref_rs_total = ref_rs_total + 35'(rs_len_reg[i]);
    end
    wire ref_rbuf_ok = 35'(rs_bytes_reg) + 35'(plen) <= ref_rs_total;
    wire [31:0] ref_room = rs_len_reg[rs_idx_reg[1:0]] - rs_off_reg;
    wire [31:0] ref_piece_len = (pkt_left_reg < ref_room) ? pkt_left_reg : ref_room;
    wire [63:0] ref_piece_pa = rs_pa_reg[rs_idx_reg[1:0]] + 64'(rs_off_reg);
    wire [23:0] ref_psn_diff = h_psn - epsn_cur;
    logic [31:0] ref_piece_left;
    always_ff @(posedge clk) begin
        if (state_reg == S_WDESC && plan_ok && piece_len != 0 && m_axis_wr_desc_ready)
            ref_piece_left <= piece_len;
        else if (pk_tvalid && pk_tready)
            ref_piece_left <= piece_ends ? 32'd0 : ref_piece_left - (32'(beat_bytes) - 32'(boff_reg));
    end
    logic rst_q2;
    logic [RC_KW:0] rc_key_prev;
    logic [15:0]    rq_ci_prev;
    always_ff @(posedge clk) begin
        rc_key_prev <= rc_key_reg;
        rq_ci_prev <= rq_ci_reg;
    end
    always_ff @(posedge clk) begin
        rst_q2 <= rst;
        if (!rst && !rst_q2) begin
            if (state_reg != S_IDLE && src_reg == 2'd0) assert (opf_reg == op_decode(ref_opcode));
            // the receive-WQE cache looks up the QP's own key
            if (rc_want || rc_ahead) assert (rc_key_reg == rc_key);
            // S_RLKEY_CHKD pushes only on a failed check
            if (state_reg == S_RLKEY_CHKD && lkey_ok) assert (!act_push);
            // the cache's inputs hold at the edge into these states (hit_still)
            if (rc_want) assert (rc_key_reg == rc_key_prev && rq_ci_reg == rq_ci_prev && rc_hit_still == rc_hit);
            // S_PREF takes the cache's look_done from its second cycle on:
            // the cache's key and index no longer change then
            if (state_reg == S_PREF && pref_cnt_reg != 3'd0)
                assert (rc_key_reg == rc_key_prev && rq_ci_reg == rq_ci_prev);
            // rwqe_hit_go's term for S_RWQE_DATA's push
            if (state_reg == S_RWQE_DATA) assert (act_push == (rc_err_hit_reg && !act_full));
            if (state_reg == S_PSN && !qpc_ud) assert (psn_dup == ref_psn_diff[23] && psn_eq == (ref_psn_diff == 24'd0));
            if (state_reg == S_MPTD || state_reg == S_RLKEY_CHKD) assert (cb_ok == ref_b_ok && cb_pa == ref_b_pa);
            if (state_reg == S_EXEC) assert (len_ok_reg == ref_len_ok && rbuf_ok_reg == ref_rbuf_ok);
            if (state_reg == S_MPTD && wfold_q) assert (len_ok_reg == ref_len_ok && op_write && plen != 0);
            // the SGE flags S_RLKEY_RD decides by are those of the WQE it holds
            if (state_reg == S_RLKEY_RD && rsge_reg < 3'(NSGE))
                assert (cur_rlen_z == (cur_rlen == 32'd0) && rsge_end == (cur_rlkey == rnic_pkg::INVALID_LKEY));
            if (state_reg == S_PUSH) begin
                assert (24'(req_q_reg + 24'(req_rnz_reg)) == ref_req_psns);
                assert (epsn_nx_reg == epsn_cur + ref_req_psns && msn_nx_reg == msn_cur + 24'd1);
                assert (wr_pa_next == pa_reg + 64'(plen) && wr_va_next == wr_va_cur + 64'(plen));
                assert (wr_rem_next == rem_reg - plen);
                // a READ's span, as its job takes it
                if (op_read) assert (rd_span_nz_reg == (h_dlen != 0) && (h_dlen == 0
                                     || rd_span_last_reg == 35'(({1'b0, pa_reg[39:0]} + 41'(h_dlen) - 41'd1) >> 6)));
            end
            if (state_reg == S_ATWR) assert (at_sum == at_orig_reg + h_swap);
            if (state_reg == S_WDESC && plan_ok && msg_is_send)
                assert (plan_len_reg == ref_piece_len && plan_pa_reg == ref_piece_pa);
            if (!rst) assert (plan_nz_reg == (plan_len_reg != 0));
            if (state_reg == S_WDATA) assert (32'(pend_reg) == ref_piece_left + 32'(boff_reg)
                                              && pend_far_reg == (pend_reg >= 17'(1 << CNT_W)));
            // the piece end's compares stated as gates are the operators'
            assert (pe_lt == (pe_lo < beat_bytes) && pe_gt == (pe_lo > beat_bytes));
            // a piece is at most a packet's payload
            if (state_reg == S_WDESC) assert (piece_len < 32'h10000);
            // the payload is dense: its run starts at lane 0
            if (state_reg == S_WDATA && s_axis_payload_tvalid)
                assert (s_axis_payload_tkeep == KEEP_WIDTH'((65'd1 << beat_bytes) - 65'd1));
        end
    end
`endif
`endif

    wire unused_ok = ^{qpc_reg, srqc_reg, qpc_srqn_full, hdr_reg, s_axis_rwqe_tkeep, s_axis_rwqe_tlast, psn_diff, pf_near, rb_sum};

endmodule

`resetall
