`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Requester transmit engine.
 *
 * Takes a QP from the scheduler and serves its send WQEs: reads the QP
 * context, takes each WQE from the WQE cache (below) or from the doorbell
 * page's WQE window when the host put it there (see rnic_regs), checks every
 * SGE against the MPT
 * (key, PD, bounds), cuts the message into path-MTU packets and, for each,
 * hands a packet-header record to the packet builder and the DMA reads of its
 * payload (gathered across SGEs) to the payload read engine. When the last
 * packet is out it records the WQE in the in-flight table (last PSN, CQ,
 * signaled flag) for the completion engine. A WQE that fails a local check,
 * or any WQE of a QP in the error state, is recorded with its error status
 * and sends nothing, so completions stay in order.
 *
 * WQE cache: one read fetches up to 2^WQE_CACHE_LOG2 consecutive WQEs of
 * the QP (up to its producer index, the end of the ring, or the WQE the
 * window holds), so one host-memory round trip serves many small messages.
 * A turn goes on with the QP's next WQE while the cache or the window holds
 * it, its in-flight window has room, nothing asks for a restart and, when
 * other QPs wait, it has sent fewer than TURN_PKTS packets. The QP's send
 * window (rnic_cwnd, in PSNs) bounds what is outstanding: a WQE starts, and a
 * message goes on with its next packet, only while fewer PSNs than the
 * window are unacknowledged; else the turn ends and the QP is requeued (the
 * window shrinks at a go-back-N restart and grows with ACKs), as long as the
 * ACK timer runs for the QP (a recorded WQE is outstanding). While no other
 * QP waits, the next WQEs are read ahead as the current ones are sent. The
 * cache holds one QP's WQEs; a QP reset or another QP's miss replaces them,
 * and a go-back-N restart behind the cached range reads the ring again.
 *
 * Operations: RDMA WRITE, RDMA WRITE with immediate, SEND, SEND with
 * immediate, SEND with invalidate (RC: an IETH with the WQE's rkey on the
 * last packet); payload gathered from up to MAX_SEND_SGE SGEs or, with
 * WQE_FLAG_INLINE, taken from the WQE's own SGE area, which this engine
 * already holds: the payload descriptor carries the bytes (m_axis_pay_desc_
 * inline), so an inline message costs no host-memory read besides the WQE,
 * and none at all when the WQE came through the window.
 * RDMA READ: one request packet with a RETH that takes as many PSNs as the
 * response has packets; its SGEs are checked for LOCAL_WRITE here and
 * written by the placement engine when the responses come. At most
 * max_rd_atomic READs are outstanding per QP; a fenced WQE waits until none
 * is. A READ resumed mid-message asks for the rest only (RETH address and
 * length advanced by the packets already received). ATOMIC compare-and-swap
 * and fetch-and-add: one request with an AtomicETH (operands from the WQE),
 * one 8-byte local SGE checked for LOCAL_WRITE, counted against
 * max_rd_atomic like a READ. Other opcodes complete with LOC_QP_OP_ERR.
 *
 * Memory windows (docs/mw.md): BIND_MW and LOCAL_INV send nothing. A bind's
 * range is checked against the MR its bind_lkey names as an SGE is (key,
 * PD, range inside the MR; a failure completes with MW_BIND_ERR); then the
 * request goes to the firmware (mw_req, the MW_REQ registers) and the whole
 * engine waits for its answer (S_MW_WAIT; context writes may be taken
 * meanwhile), which is the WQE's status. The WQE is recorded like any
 * other, its last PSN the PSN before it, and the completion engine is asked
 * to walk: it completes in order behind the WQEs before it. A WQE sent again
 * by a go-back-N restart was answered with success before (else the QP is
 * in error): it is recorded so again without asking twice.
 *
 * UD QPs (QPC ud): SEND and SEND with immediate only (else LOC_QP_OP_ERR),
 * one packet per message (more than the path MTU: LOC_LEN_ERR), BTH (UD
 * SEND ONLY opcode, no AckReq) + DETH (the WQE's Q_Key, or the QP's when its
 * bit 31 is set; this QP as source) + ImmDt; the addressing comes from the
 * address handle the WQE names (AH table, read in S_PARSE), which must be
 * valid and of the QP's PD (else LOC_QP_OP_ERR), and the destination QP
 * from the WQE. rnic_ud_txdone reports each UD frame handed to the MAC to
 * the completion engine, which retires the WQE then (no ACK comes); the
 * record is written two cycles after the packet's header is queued, long
 * before its frame can leave the packet builder.
 */
module rnic_req_tx #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int INFLIGHT_LOG2 = 4,
    parameter int INF_BITS = 113,
    // set the BTH AckReq bit at least every this many packets of a message
    parameter int ACKREQ_EVERY = 16,
    // a turn ends after this many packets when other QPs are waiting: a long
    // message yields and resumes at its next PSN on the QP's next turn
    parameter int TURN_PKTS = 32,
    // WQEs the cache holds (and one read fetches at most)
    parameter int WQE_CACHE_LOG2 = 5,
    // address handles (UD)
    parameter int AH_INDEX_WIDTH = 10
) (
    input  wire logic                             clk,
    input  wire logic                             rst,

    input  wire logic [47:0]                      now,

    // scheduler
    input  wire logic                             s_qp_valid,
    output      logic                             s_qp_ready,
    input  wire logic [QPN_WIDTH-1:0]             s_qp_qpn,
    input  wire logic [15:0]                      s_qp_pi,
    output      logic                             m_done_valid,
    output      logic [QPN_WIDTH-1:0]             m_done_qpn,
    output      logic [15:0]                      m_done_ci,
    output      logic                             m_done_requeue,

    // context reads (registered RAM ports)
    output      logic                             qpc_rd_en,
    output      logic [QPN_WIDTH-1:0]             qpc_rd_addr,
    input  wire logic [rnic_pkg::QPC_BITS-1:0]    qpc_rd_data,
    output      logic                             mpt_rd_en,
    output      logic [MR_INDEX_WIDTH-1:0]        mpt_rd_addr,
    input  wire logic [rnic_pkg::MPT_BITS-1:0]    mpt_rd_data,

    // address handles of UD sends (registered RAM port)
    output      logic                             ah_rd_en,
    output      logic [AH_INDEX_WIDTH-1:0]        ah_rd_addr,
    input  wire logic [rnic_pkg::AH_BITS-1:0]     ah_rd_data,

    // QP context written with CTX_OP_WRITE (reset this QP's send state) or
    // CTX_OP_QP_RTS (load the next PSN)
    input  wire logic                             qp_reset_valid,
    input  wire logic                             qp_rts_valid,
    input  wire logic [QPN_WIDTH-1:0]             qp_reset_qpn,
    input  wire logic [23:0]                      qp_reset_sq_psn,
    // a QP context write waits: take no new QP, so the engine is soon idle;
    // ctx_ready (a register compare) says it is, and then writes none of its
    // per-QP state until the write is taken
    input  wire logic                             ctx_pend,
    output      logic                             ctx_ready,

    // QP error state held by the completion and responder engines, both
    // read (registered) at una_rd_qpn
    input  wire logic                             err_rd_val,
    // completion engine: oldest WQE not yet completed, last PSN acknowledged,
    // restart requests (a new value asks for a go-back-N restart), RNR wait.
    // Registered reads: una_rd_qpn is the QPN this engine works on in the
    // next cycle (qpn_reg, or s_qp_qpn while idle), the data come then.
    output      logic [QPN_WIDTH-1:0]             una_rd_qpn,
    input  wire logic [15:0]                      una_rd_idx,
    input  wire logic [23:0]                      una_rd_acked_psn,
    input  wire logic [1:0]                       una_rd_rewind,
    input  wire logic                             una_rd_gap,      // the responder took the unacknowledged WQE
    input  wire logic                             una_rd_rnr_wait,
    // highest SQ index and PSN sent, and when the window last went busy,
    // read by the completion engine: registered, the data a cycle after the
    // address
    input  wire logic [QPN_WIDTH-1:0]             hi_rd_qpn,
    output      logic [15:0]                      hi_rd_idx,
    output      logic [23:0]                      hi_rd_psn,
    input  wire logic [QPN_WIDTH-1:0]             hi2_rd_qpn,
    output      logic [15:0]                      hi2_rd_idx,
    output      logic [47:0]                      hi2_rd_sent_time,

    // WQE fetch
    output      logic [63:0]                      m_axis_wqe_desc_addr,
    output      logic [31:0]                      m_axis_wqe_desc_len,
    output      logic                             m_axis_wqe_desc_last,
    output      logic                             m_axis_wqe_desc_valid,
    input  wire logic                             m_axis_wqe_desc_ready,
    input  wire logic [DATA_WIDTH-1:0]            s_axis_wqe_tdata,
    input  wire logic [KEEP_WIDTH-1:0]            s_axis_wqe_tkeep,
    input  wire logic                             s_axis_wqe_tvalid,
    output      logic                             s_axis_wqe_tready,
    input  wire logic                             s_axis_wqe_tlast,
    input  wire logic                             s_axis_wqe_tuser,   // the beat's read failed
    input  wire logic                             s_wqe_status_valid,
    input  wire logic                             s_wqe_status_error,

    // WQE window in the doorbell page: the WQE at SQ index win_idx of QP
    // win_qpn; taken (win_take) instead of the fetch of that WQE
    input  wire logic                             win_valid,
    input  wire logic                             win_new,     // set in the last cycle
    input  wire logic [15:0]                      win_qpn,
    input  wire logic [15:0]                      win_idx,
    input  wire logic [rnic_pkg::WQE_BYTES_TOTAL*8-1:0] win_data,
    output      logic                             win_take,

    // payload reads
    output      logic [63:0]                      m_axis_pay_desc_addr,
    output      logic [31:0]                      m_axis_pay_desc_len,
    output      logic                             m_axis_pay_desc_last,
    output      logic                             m_axis_pay_desc_valid,
    input  wire logic                             m_axis_pay_desc_ready,
    // an inline payload: the bytes travel with the descriptor (len of them,
    // always the whole packet, last set), nothing is read
    output      logic                             m_axis_pay_desc_inline,
    output      logic [8*rnic_pkg::MAX_INLINE_BYTES-1:0] m_axis_pay_desc_inl_data,

    // packet headers toward the builder
    output      logic                             m_hdr_valid,
    input  wire logic                             m_hdr_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_hdr,
    output      logic [QPN_WIDTH-1:0]             m_hdr_qpn,
    output      logic                             m_hdr_pay,   // the packet carries payload (length not 0)
    // a go-back-N restart of a QP: its packets queued for the builder are
    // stale (the restart sends them again)
    output      logic                             m_restart_valid,
    output      logic [QPN_WIDTH-1:0]             m_restart_qpn,

    // in-flight table write and completion trigger
    output      logic                             inf_wr_en,
    output      logic [QPN_WIDTH+INFLIGHT_LOG2-1:0] inf_wr_addr,
    output      logic [INF_BITS-1:0]              inf_wr_data,
    output      logic                             m_local_valid,
    input  wire logic                             m_local_ready,
    output      logic [QPN_WIDTH-1:0]             m_local_qpn,
    output      logic                             m_local_force,  // the QP is in error: flush the window

    // a READ or ATOMIC request went out: its WQE (SGE list) for the
    // placement engine's table, so responses are placed without a WQE fetch
    output      logic                             m_rd_wqe_valid,
    output      logic [QPN_WIDTH-1:0]             m_rd_wqe_qpn,
    output      logic [15:0]                      m_rd_wqe_idx,
    output      logic [7:0]                       m_rd_wqe_num_sge,
    output      logic [8*rnic_pkg::MAX_SEND_SGE*rnic_pkg::SGE_BYTES-1:0] m_rd_wqe_sges,

    // memory-window requests to the firmware (rnic_regs MW_REQ / MW_ANSWER):
    // the request holds while mw_req_valid; mw_ans_valid pulses with the
    // WQE's WC status
    output      logic                             mw_req_valid,
    output      logic [rnic_pkg::MW_REQ_BITS-1:0] mw_req_data,
    input  wire logic                             mw_ans_valid,
    input  wire logic [7:0]                       mw_ans_status,

    output      logic                             stat_loc_prot_err
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;
    localparam int WQE_BITS = rnic_pkg::WQE_BYTES_TOTAL * 8;
    localparam int WQE_BEATS = rnic_pkg::WQE_BYTES_TOTAL / KEEP_WIDTH;
    localparam int BEAT_W = (WQE_BEATS > 1) ? $clog2(WQE_BEATS) : 1;
    localparam int CACHE_WQES = 2 ** WQE_CACHE_LOG2;
    localparam int MAX_SGE = rnic_pkg::MAX_SEND_SGE;
    localparam int TAG_BITS = rnic_pkg::MKEY_TAG_BITS;

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("rnic_req_tx: DATA_WIDTH must be 64..512 (%m)");
            $finish;
        end
        if (rnic_pkg::WQE_BYTES_TOTAL % KEEP_WIDTH != 0) begin
            $error("rnic_req_tx: a WQE must be a whole number of bus words (%m)");
            $finish;
        end
        if (MAX_SGE < 1 || MAX_SGE > 4) begin
            $error("rnic_req_tx: the SGE-sum tree takes 1..4 send SGEs (%m)");
            $finish;
        end
        if (INF_BITS != 113) begin
            $error("rnic_req_tx: in-flight record layout is 113 bits (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // per-QP send state
    // ------------------------------------------------------------------
    logic [15:0] sq_ci_mem [NUM_QPS];     // next WQE to send
    logic [23:0] next_psn_mem [NUM_QPS];  // its PSN
    logic [15:0] sq_hi_mem [NUM_QPS];     // one past the highest WQE ever sent
    logic [23:0] hi_psn_mem [NUM_QPS];    // one past the highest PSN ever sent
    logic [47:0] sent_time_mem [NUM_QPS]; // when a WQE went out into an empty window
    logic [1:0]  rewind_ack_mem [NUM_QPS];// last restart request served
    logic        started_mem [NUM_QPS];   // the WQE at sq_hi was begun (its first PSN is known)
    logic        tx_err_mem [NUM_QPS];    // a local error stopped this SQ
    // first PSN of each WQE in the window, for a restart in the middle of it
    logic [23:0] first_psn_mem [NUM_QPS * (2 ** INFLIGHT_LOG2)];

    // Every read of these tables by this engine is registered (block RAM):
    // port s reads at s_qp_qpn each cycle, so the QP at the head of the
    // scheduler has its send index, PSN and restart count at hand when it is
    // taken (s_fresh: read at this very QP); port q reads at qpn_reg, valid
    // from the second cycle of a turn. The completion engine's hi ports read
    // at the address it gave in the previous cycle. A write in the cycle of
    // a read is forwarded (its data registered beside the RAM's).
    logic [QPN_WIDTH-1:0] s_addr_reg;
    wire                  s_fresh = s_addr_reg == s_qp_qpn;
    logic [15:0] s_sq_ci, s_sq_ci_ram;
    logic [23:0] s_next_psn, s_next_psn_ram;
    logic [1:0]  s_rewind_ack, s_rewind_ack_ram;
    logic [15:0] q_sq_hi, q_sq_hi_ram;
    logic [23:0] q_hi_psn, q_hi_psn_ram;
    logic [1:0]  q_rewind_ack, q_rewind_ack_ram;
    logic [15:0] hi_idx_ram, hi2_idx_ram;
    logic [23:0] hi_psn_ram;
    logic [47:0] hi2_sent_time_ram;
    // the forwards: the write each read missed, and its data
    logic        s_sq_ci_fwd, s_next_psn_fwd, s_rewind_ack_fwd, q_sq_hi_fwd, q_hi_psn_fwd, q_rewind_ack_fwd;
    logic        hi_idx_fwd, hi_psn_fwd, hi2_idx_fwd, hi2_sent_time_fwd;
    logic [15:0] sq_ci_wd_reg, sq_hi_wd_reg;
    logic [23:0] next_psn_wd_reg, hi_psn_wd_reg;
    logic [1:0]  rewind_ack_wd_reg;
    logic [47:0] sent_time_wd_reg;
    // the one write port of each: enable, address, data
    logic                 sq_ci_we, next_psn_we, sq_hi_we, hi_psn_we, rewind_ack_we, sent_time_we;
    logic [QPN_WIDTH-1:0] sq_ci_wa, next_psn_wa, sq_hi_wa, hi_psn_wa, rewind_ack_wa, sent_time_wa;
    logic [15:0]          sq_ci_wd, sq_hi_wd;
    logic [23:0]          next_psn_wd, hi_psn_wd;
    logic [1:0]           rewind_ack_wd;
    logic [47:0]          sent_time_wd;

    typedef enum logic [4:0] {
        S_IDLE,       // wait for a QP from the scheduler (restart it if asked)
        S_QPC,        // context and dynamic state available: decide
        S_WQE_DESC,   // find the WQE: window, cache, or fetch (and wait for) it
        S_WQE_LOAD,   // copy it out of the cache
        S_PARSE,      // check opcode, flags and lengths
        S_LKEY_RD,    // read the MPT entry of the next SGE
        S_LKEY_CHK,   // check it and translate the SGE address: the
        S_LKEY_C2,    // ... check's two register stages
        S_LKEY_CHKD,  // ... and its result (a single SGE's: S_PKT_HDR takes it)
        S_SKIP,       // a restart mid-message: skip the bytes already acknowledged
        S_PKT_HDR,    // hand the packet header to the builder
        S_PAY_DESC,   // issue the payload reads of this packet
        S_PKT_NEXT,   // advance to the next packet or finish
        S_NOTIFY,     // ask the completion engine to walk the QP: in error with
                      // WQEs in flight (from S_QPC), or after a record that needs it
        S_FLUSH,      // a WQE of a QP in error: its record, flushed, is next
        S_RECORD,     // write the in-flight record
        S_MW_WAIT,    // a window request waits for the firmware's answer
        S_DONE        // hand the QP back to the scheduler
    } state_t;

    // Recoded as synthesis sees fit (fsm_encoding "auto": yosys makes an
    // FSM of fewer than 32 states one-hot, as Vivado's FSM extraction
    // does): each state's decode is then one flip-flop, not a compare of
    // the code in front of every decision. yosys's own heuristic leaves this
    // register binary.
    (* fsm_encoding = "auto" *) state_t state_reg;

    logic [QPN_WIDTH-1:0]          qpn_reg;
    logic [15:0]                   pi_reg;
    logic [15:0]                   ci_reg;
    logic [23:0]                   psn_reg;          // PSN of the next packet
    logic [rnic_pkg::QPC_BITS-1:0] qpc_reg;
    logic [WQE_BITS-1:0]           wqe_reg;
    logic [4:0]                    beat_reg;
    logic                          direct_reg;       // the read of this WQE fills wqe_reg directly
    logic [4:0]                    dbeat_reg;        // ... this many beats so far
    logic                          wqe_rd_err_reg;   // the read of this WQE failed
    logic                          wqe_st_seen_reg;  // wqe_reg holds the WQE (or wqe_rd_err_reg)
    logic [2:0]                    sge_idx_reg;
    logic [63:0]                   sge_pa_reg [MAX_SGE];
    logic [31:0]                   remaining_reg;    // message bytes not yet cut into packets
    logic [31:0]                   seg_left_reg;     // payload bytes of this packet not yet requested
    logic [31:0]                   sge_off_reg;      // offset inside the current SGE
    logic [31:0]                   pkt_idx_reg;
    logic [7:0]                    status_reg;       // ibv_wc_status of the WQE
    logic                          requeue_reg;
    logic                          inline_reg;       // payload is inline in the WQE
    logic [23:0]                   first_psn_reg;    // first PSN of this WQE
    logic [31:0]                   skip_reg;         // payload bytes to skip (restart)
    logic                          resend_reg;       // this WQE was (partly) sent before
    logic [15:0]                   turn_pkts_reg;    // packets sent in this turn
    logic [31:0]                   reth_off_reg;     // message bytes before this request's RETH
    logic [7:0]                    mw_mr_access_reg; // BIND_MW: the MR's access (its MPT entry)
    logic [63:0]                   mw_pa_reg;        // BIND_MW: the MR's pa for the window's first byte
    logic                          mw_stale_reg;     // the QP was reset while its request waited
    logic                          rd_part_reg;      // this READ request asks for a piece of the rest
    logic [23:0]                   head_psn_reg;     // first unacknowledged PSN at the take
    logic                          head_gap_reg;     // the responder took the request holding it

    // ------------------------------------------------------------------
    // field views
    // ------------------------------------------------------------------
    wire [3:0]   qpc_state    = qpc_reg[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W];
    wire [2:0]   qpc_pmtu     = qpc_reg[rnic_pkg::QPC_PMTU_LSB +: rnic_pkg::QPC_PMTU_W];
    wire [23:0]  qpc_dest_qpn = qpc_reg[rnic_pkg::QPC_DEST_QPN_LSB +: rnic_pkg::QPC_DEST_QPN_W];
    wire [15:0]  qpc_pd       = qpc_reg[rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W];
    wire [15:0]  qpc_send_cqn = qpc_reg[rnic_pkg::QPC_SEND_CQN_LSB +: rnic_pkg::QPC_SEND_CQN_W];
    wire         qpc_ud       = qpc_reg[rnic_pkg::QPC_UD_LSB];
    wire [31:0]  qpc_qkey     = qpc_reg[rnic_pkg::QPC_QKEY_LSB +: rnic_pkg::QPC_QKEY_W];

    wire [7:0]   wqe_flags   = wqe_reg[8*rnic_pkg::WQE_FLAGS_OFF +: 8];
    wire [7:0]   wqe_num_sge = wqe_reg[8*rnic_pkg::WQE_NUM_SGE_OFF +: 8];
    wire [7:0]   wqe_inl_len = wqe_reg[8*rnic_pkg::WQE_INLINE_LEN_OFF +: 8];
    // immediate data is kept in network order in the WQE: byte 0 is the MSB
    wire [31:0]  wqe_imm     = {wqe_reg[8*rnic_pkg::WQE_IMM_DATA_OFF +: 8], wqe_reg[8*rnic_pkg::WQE_IMM_DATA_OFF+8 +: 8],
                                wqe_reg[8*rnic_pkg::WQE_IMM_DATA_OFF+16 +: 8], wqe_reg[8*rnic_pkg::WQE_IMM_DATA_OFF+24 +: 8]};
    wire [63:0]  wqe_raddr   = wqe_reg[8*rnic_pkg::WQE_REMOTE_ADDR_OFF +: 64];
    wire [31:0]  wqe_rkey    = wqe_reg[8*rnic_pkg::WQE_RKEY_OFF +: 32];
    wire [31:0]  wqe_length  = wqe_reg[8*rnic_pkg::WQE_LENGTH_OFF +: 32];
    // UD: address handle, destination QP, Q_Key
    wire [31:0]  wqe_ud_ah   = wqe_reg[8*rnic_pkg::WQE_UD_AH_OFF +: 32];
    wire [31:0]  wqe_ud_qpn  = wqe_reg[8*rnic_pkg::WQE_UD_REMOTE_QPN_OFF +: 32];
    wire [31:0]  wqe_ud_qkey = wqe_reg[8*rnic_pkg::WQE_UD_REMOTE_QKEY_OFF +: 32];
    wire [31:0]  ud_qkey     = (wqe_ud_qkey & rnic_pkg::UD_QKEY_USE_QP) != 0 ? qpc_qkey : wqe_ud_qkey;
    // BIND_MW: the window's length (in compare_add), new key, MR key, rights
    wire [63:0]  bind_len    = wqe_reg[8*rnic_pkg::WQE_COMPARE_ADD_OFF +: 64];
    wire [31:0]  bind_new_rkey = wqe_reg[8*rnic_pkg::WQE_MW_NEW_RKEY_OFF +: 32];
    wire [31:0]  bind_lkey   = wqe_reg[8*rnic_pkg::WQE_BIND_LKEY_OFF +: 32];
    wire [31:0]  bind_access = wqe_reg[8*rnic_pkg::WQE_BIND_ACCESS_OFF +: 32];

    function automatic logic [63:0] sge_addr(input logic [WQE_BITS-1:0] w, input int i);
        sge_addr = w[8 * (rnic_pkg::WQE_SGE_OFF + i * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_ADDR_OFF) +: 64];
    endfunction
    function automatic logic [31:0] sge_len(input logic [WQE_BITS-1:0] w, input int i);
        sge_len = w[8 * (rnic_pkg::WQE_SGE_OFF + i * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LENGTH_OFF) +: 32];
    endfunction
    function automatic logic [31:0] sge_lkey(input logic [WQE_BITS-1:0] w, input int i);
        sge_lkey = w[8 * (rnic_pkg::WQE_SGE_OFF + i * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LKEY_OFF) +: 32];
    endfunction

    // current SGE
    wire [2:0]   cur = sge_idx_reg;
    wire [63:0]  cur_addr = sge_addr(wqe_reg, 32'(cur));
    wire [31:0]  cur_len = sge_len(wqe_reg, 32'(cur));
    wire [31:0]  cur_lkey = sge_lkey(wqe_reg, 32'(cur));

    // SGE lengths must add up to the WQE length (35-bit sums catch
    // overflow). Without a carry chain: the lengths, ~length and 1 are
    // carry-saved to two addends X, Y (wqe_dec_ss_*, registered beside
    // wqe_reg), and X + Y == 0 (mod 2^35) exactly when X ^ Y == (X | Y) << 1
    wire  [34:0] wqe_dec_ss_x, wqe_dec_ss_y;
    wire         sge_sum_ok = (wqe_dec_ss_x ^ wqe_dec_ss_y) == ((wqe_dec_ss_x | wqe_dec_ss_y) << 1);

    // path MTU in bytes (IB enum: 128 << code), clamped to 256..4096,
    // registered behind qpc_reg (loaded in S_QPC; the states right after it
    // cut no packet): from the context register through the clamp and the
    // shift it ran into S_PARSE's and S_PKT_HDR's choices (13 levels)
    logic [2:0]  pmtu_code_reg;
    logic [31:0] mtu_bytes_reg;
    logic [4:0]  pmtu_onehot_reg;   // bit i: 256 << i
    always_ff @(posedge clk) begin : pmtu_regs
        logic [2:0] c;
        c = (qpc_pmtu < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256)
            : (qpc_pmtu > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096) : qpc_pmtu;
        pmtu_code_reg <= c;
        mtu_bytes_reg <= 32'(128) << c;
        pmtu_onehot_reg <= 5'((32'(128) << c) >> 8);
    end

    // this packet. The opcode's decode is flip-flops (wqe_dec_reg, below)
    wire        op_read, op_cas, op_faa, op_send, op_send_inv, op_imm, op_write, op_bind, op_local_inv;
    wire        op_atomic = op_cas || op_faa;
    // requests answered with data: READ and ATOMIC
    wire        op_rd_atomic = op_read || op_atomic;
    // Whether what is left fits one packet and is not empty: flip-flops
    // (rem_le_mtu_reg, rem_nz_reg) that follow remaining_reg a cycle
    // behind, set ahead where it is written right before S_PKT_HDR: from
    // rem_nx_reg in S_PKT_NEXT, and in S_PARSE for an inline WQE (which goes
    // on to S_PKT_HDR; at most MAX_INLINE_BYTES, below any MTU). Every
    // other way into S_PKT_HDR passes a state between S_PARSE's write and
    // it. As compares of remaining_reg they were a carry chain in front of
    // the packet's opcode, header flags and S_PKT_HDR's decision (12
    // levels). Asserted equal to the compares from S_PKT_HDR to S_PKT_NEXT.
    logic       rem_le_mtu_reg, rem_nz_reg;
    wire [31:0] seg_len = op_rd_atomic ? 32'd0 : rem_le_mtu_reg ? remaining_reg : mtu_bytes_reg;
    // what is left after this packet, registered a cycle ahead (remaining_reg
    // moves only in S_PKT_NEXT and S_PARSE, and S_PKT_HDR comes between
    // either and S_PKT_NEXT): every packet but the last is one MTU, 2^k
    // bytes (k = 8..12), so it is the bytes above bit 8 less 2^(k-8), not a
    // subtract behind the MTU compare
    logic [31:0] rem_nx_reg;
    always_ff @(posedge clk)
        rem_nx_reg <= op_rd_atomic ? remaining_reg
                    : (remaining_reg > mtu_bytes_reg) ? {remaining_reg[31:8] - (24'd1 << (pmtu_code_reg - 3'd1)), remaining_reg[7:0]}
                                                  : 32'd0;
    wire        pkt_first = pkt_idx_reg == 0;
    wire        pkt_last = op_rd_atomic || rem_le_mtu_reg;
    wire [63:0] wqe_cmp_add = wqe_reg[8*rnic_pkg::WQE_COMPARE_ADD_OFF +: 64];
    wire [63:0] wqe_swap = wqe_reg[8*rnic_pkg::WQE_SWAP_OFF +: 64];
    // PSNs this packet takes: a READ request one per response packet,
    // ceil(remaining / MTU) (1 for a zero-length READ), registered in two
    // steps behind remaining_reg (the quotient and whether a part is left,
    // then their sum): a READ is one packet, and S_PKT_NEXT comes at least
    // three cycles after S_PARSE sets remaining_reg
    logic [23:0] rd_quot_reg, rd_psns_reg;
    logic        rd_frac_reg, rd_zero_reg;
    always_ff @(posedge clk) begin
        rd_quot_reg <= 24'(remaining_reg >> (32'(pmtu_code_reg) + 32'd7));
        rd_frac_reg <= (remaining_reg & (mtu_bytes_reg - 32'd1)) != 32'd0;
        rd_zero_reg <= remaining_reg == 32'd0;
        rd_psns_reg <= rd_zero_reg ? 24'd1 : rd_quot_reg + 24'(rd_frac_reg);
    end
    wire [23:0] pkt_psns = op_read ? rd_psns_reg : 24'd1;
    // memory-window operations: handed to the firmware, nothing sent
    wire        op_mw = op_bind || op_local_inv;
    // (UD has no SEND with invalidate: IBA 9.3.8, the IETH is RC's; a SEND
    // with invalidate's last packet carries an IETH with the WQE's rkey)
    wire        op_supported = (op_send && !(qpc_ud && op_send_inv)) || op_rd_atomic || op_write || op_mw;
    wire        wqe_inline = (wqe_flags & rnic_pkg::WQE_FLAG_INLINE[7:0]) != 0;
    wire        wqe_solicited = (wqe_flags & rnic_pkg::WQE_FLAG_SOLICITED[7:0]) != 0;
    logic [7:0] pkt_opcode;
    always_comb begin
        if (qpc_ud) begin
            pkt_opcode = op_imm ? rnic_pkg::OP_UD_SEND_ONLY_IMM[7:0] : rnic_pkg::OP_UD_SEND_ONLY[7:0];
        end else if (op_read) begin
            pkt_opcode = rnic_pkg::OP_RDMA_READ_REQUEST[7:0];
        end else if (op_atomic) begin
            pkt_opcode = op_cas ? rnic_pkg::OP_COMPARE_SWAP[7:0] : rnic_pkg::OP_FETCH_ADD[7:0];
        end else if (op_send) begin
            if (pkt_first && pkt_last)
                pkt_opcode = op_imm ? rnic_pkg::OP_SEND_ONLY_IMM[7:0]
                           : op_send_inv ? rnic_pkg::OP_SEND_ONLY_INV[7:0] : rnic_pkg::OP_SEND_ONLY[7:0];
            else if (pkt_first) pkt_opcode = rnic_pkg::OP_SEND_FIRST[7:0];
            else if (pkt_last)
                pkt_opcode = op_imm ? rnic_pkg::OP_SEND_LAST_IMM[7:0]
                           : op_send_inv ? rnic_pkg::OP_SEND_LAST_INV[7:0] : rnic_pkg::OP_SEND_LAST[7:0];
            else pkt_opcode = rnic_pkg::OP_SEND_MIDDLE[7:0];
        end else begin
            if (pkt_first && pkt_last)
                pkt_opcode = op_imm ? rnic_pkg::OP_RDMA_WRITE_ONLY_IMM[7:0] : rnic_pkg::OP_RDMA_WRITE_ONLY[7:0];
            else if (pkt_first) pkt_opcode = rnic_pkg::OP_RDMA_WRITE_FIRST[7:0];
            else if (pkt_last)
                pkt_opcode = op_imm ? rnic_pkg::OP_RDMA_WRITE_LAST_IMM[7:0] : rnic_pkg::OP_RDMA_WRITE_LAST[7:0];
            else pkt_opcode = rnic_pkg::OP_RDMA_WRITE_MIDDLE[7:0];
        end
    end

    // The RETH's address and length, summed over registers (rnic_add_split;
    // the length as two 16-bit halves and a borrow): a 64-bit carry chain in
    // front of the header queue was past the logic-level budget. The WQE's
    // fields hold from S_PARSE on and the offset from the state after it,
    // but for an inline WQE, which goes from S_PARSE straight to S_PKT_HDR:
    // its offset is 0 (one packet, sent whole; asserted), so S_PARSE sums
    // with 0.
    wire [31:0]  reth_off_nx = (state_reg == S_PARSE) ? 32'd0 : reth_off_reg;
    logic [63:0] reth_va;
    rnic_add_split reth_va_inst (.clk, .en(1'b1), .a(wqe_raddr), .b(reth_off_nx), .sum(reth_va));
    logic [31:0] reth_len;
    rnic_sub_split reth_len_inst (.clk, .en(1'b1), .a(wqe_length), .b(reth_off_nx), .diff(reth_len));

    logic [rnic_hdr_pkg::HDR_BITS-1:0] addr_hdr, qp_addr_hdr, ah_addr_hdr;
    rnic_qp_hdr qp_hdr_inst (.qpc(qpc_reg), .hdr(qp_addr_hdr));
    rnic_ah_hdr ah_hdr_inst (
        .ah(ah_rd_data), .pkey(qpc_reg[rnic_pkg::QPC_PKEY_LSB +: rnic_pkg::QPC_PKEY_W]),
        .dest_qpn(wqe_ud_qpn[23:0]), .hdr(ah_addr_hdr));
    assign addr_hdr = qpc_ud ? ah_addr_hdr : qp_addr_hdr;

    // UD: the AH the WQE names (read in S_PARSE, held since) must be in
    // use and of the QP's PD
    assign ah_rd_en = state_reg == S_PARSE;
    assign ah_rd_addr = wqe_ud_ah[AH_INDEX_WIDTH-1:0];
    wire   ah_ok = (wqe_ud_ah >> AH_INDEX_WIDTH) == 32'd0 && ah_rd_data[rnic_pkg::AH_VALID_LSB]
                   && ah_rd_data[rnic_pkg::AH_PD_LSB +: rnic_pkg::AH_PD_W] == qpc_pd;
    // The check is registered (ah_ok_reg, a cycle after the entry is on
    // ah_rd_data): the header queue's push, and its tag and dead bits
    // behind it, start from flip-flops instead of the AH's PD compare. A UD
    // packet whose S_PKT_HDR comes right after S_PARSE (inline) waits that
    // cycle (ah_wait_reg); an RC QP never waits.
    logic  ah_ok_reg, ah_wait_reg;
    always_ff @(posedge clk) begin
        ah_ok_reg <= ah_ok;
        ah_wait_reg <= ah_rd_en;
    end
    wire   ah_pending = qpc_ud && ah_wait_reg;
    wire   ud_bad_ah = qpc_ud && !ah_wait_reg && !ah_ok_reg;

    always_comb begin
        m_hdr = addr_hdr;
        m_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = pkt_opcode;
        // solicited event on the last packet of a SEND or WRITE with immediate
        m_hdr[rnic_hdr_pkg::HDR_BTH_SE_LSB] = wqe_solicited && pkt_last && (op_send || op_imm);
        m_hdr[rnic_hdr_pkg::HDR_BTH_MIGREQ_LSB] = 1'b0;
        m_hdr[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W] = 2'(3'd4 - 3'(seg_len[1:0]));
        m_hdr[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB] = pkt_last || (pkt_idx_reg % ACKREQ_EVERY == ACKREQ_EVERY - 1);
        m_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = psn_reg;
        m_hdr[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = op_read || (pkt_first && !op_send);
        m_hdr[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W] = reth_va;
        m_hdr[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W] = wqe_rkey;
        // a READ asks for what is left of it (remaining_reg: a piece of it
        // when the send window cuts a re-read short)
        m_hdr[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W] = op_read ? remaining_reg
                                                                                      : reth_len;
        m_hdr[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB] = op_imm && pkt_last;
        m_hdr[rnic_hdr_pkg::HDR_IMMDT_LSB +: rnic_hdr_pkg::HDR_IMMDT_W] = wqe_imm;
        // IETH: the key to invalidate, in the RETH rkey field
        m_hdr[rnic_hdr_pkg::HDR_HAS_IETH_LSB] = op_send_inv && pkt_last;
        m_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = seg_len[15:0];
        // AtomicETH: address and rkey in the RETH fields
        m_hdr[rnic_hdr_pkg::HDR_HAS_ATOMICETH_LSB] = op_atomic;
        m_hdr[rnic_hdr_pkg::HDR_ATOMIC_SWAP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_SWAP_W] = op_cas ? wqe_swap : wqe_cmp_add;
        m_hdr[rnic_hdr_pkg::HDR_ATOMIC_CMP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_CMP_W] = op_cas ? wqe_cmp_add : 64'h0;
        if (op_atomic) begin
            m_hdr[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = 1'b0;
            m_hdr[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W] = wqe_raddr;
            m_hdr[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W] = 32'h0;
        end
        // UD: DETH, no RETH, no ACK asked for
        m_hdr[rnic_hdr_pkg::HDR_HAS_DETH_LSB] = qpc_ud;
        m_hdr[rnic_hdr_pkg::HDR_DETH_QKEY_LSB +: rnic_hdr_pkg::HDR_DETH_QKEY_W] = ud_qkey;
        m_hdr[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W] = 24'(qpn_reg);
        if (qpc_ud) begin
            m_hdr[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = 1'b0;
            m_hdr[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB] = 1'b0;
        end
    end

    // payload piece of the current SGE for this packet; an inline payload
    // (at most MAX_INLINE_BYTES, less than the smallest MTU) is one piece, the
    // whole packet, taken from the SGE area of the WQE held here
    // The room left in the SGE is registered a cycle behind the SGE index
    // and offset (room_ok says it is up to date: neither moved in the last
    // cycle), so the subtract, the compare with what the packet still needs
    // and the offset's add are not one path. A packet's first piece finds
    // it up to date (S_PKT_HDR moves neither); a packet gathered from
    // several SGEs waits a cycle before each further piece.
    // The room is registered as two 16-bit halves and a borrow, and so is
    // what the offset and the packet's bytes become after the piece: a
    // 32-bit carry chain behind the SGE select, or behind the piece's
    // compare, was past the logic-level budget. A piece is at most a
    // packet's payload (under 2^16 bytes, asserted), so the packet's rest
    // after it and the offset's low half are 16-bit sums; a piece that takes
    // the SGE's whole room leaves the offset at the SGE's end.
    wire [31:0]  room_end = inline_reg ? wqe_length : cur_len;   // offset + room
    logic [31:0] sge_room;
    logic [15:0] off_hi_p1_reg;
    logic [31:0] room_end_reg;
    logic [2:0]  room_idx_reg;
    logic [31:0] room_off_reg;
    // (and whether it is empty, as a compare of the operands, valid with
    // room_ok: the zero test behind the subtract's halves ran into the
    // SGE index and the state, 10 levels)
    logic        room_zero_reg;
    always_ff @(posedge clk) begin
        room_zero_reg <= room_end == sge_off_reg;
        room_end_reg <= room_end;
        off_hi_p1_reg <= sge_off_reg[31:16] + 16'd1;
        room_idx_reg <= sge_idx_reg;
        room_off_reg <= sge_off_reg;
    end
    wire        room_ok = room_idx_reg == sge_idx_reg && room_off_reg == sge_off_reg;
    rnic_sub_split room_sub_inst (.clk, .en(1'b1), .a(room_end), .b(sge_off_reg), .diff(sge_room));
    // S_SKIP (a restart skipping what was sent) compares the bytes to skip
    // with the room registered too, a cycle later: the 32-bit compare behind
    // the room's halves into the SGE index was 9 levels at 512 bits. Valid
    // (skip_cmp_ok) when the last cycle had the room up to date and did not
    // act, so neither the room nor skip_reg moved since.
    logic skip_ge_reg, skip_eq_reg, skip_cmp_reg;
    wire  skip_cmp_ok = room_ok && skip_cmp_reg;
    always_ff @(posedge clk) begin
        skip_ge_reg <= skip_reg >= sge_room;
        skip_eq_reg <= skip_reg == sge_room;
        skip_cmp_reg <= state_reg == S_SKIP && room_ok && !skip_cmp_reg;
    end
    // the packet's rest fits in the room: the piece is all of it
    wire        left_fits = seg_left_reg <= sge_room;
    wire [31:0] piece = left_fits ? seg_left_reg : sge_room;
    wire [16:0] off_lo_sum = {1'b0, sge_off_reg[15:0]} + {1'b0, seg_left_reg[15:0]};
    wire [31:0] off_after = left_fits ? {off_lo_sum[16] ? off_hi_p1_reg : sge_off_reg[31:16], off_lo_sum[15:0]}
                                      : room_end_reg;
    wire [15:0] left_after_lo = seg_left_reg[15:0] - sge_room[15:0];
    wire [31:0] left_after = left_fits ? 32'd0 : 32'(left_after_lo);
    // the piece's address, over a register as the room is (room_ok says
    // its inputs held since the last cycle; the SGE addresses are set
    // before S_PKT_HDR): a 64-bit add in one cycle is too deep
    logic [63:0] pay_addr_sum;
    rnic_add_split pay_addr_inst (.clk, .en(1'b1), .a(chk_pend_reg ? lkey_pa : sge_pa_reg[cur[1:0]]), .b(sge_off_reg),
                                  .sum(pay_addr_sum));
    assign m_axis_pay_desc_addr = inline_reg ? 64'd0 : pay_addr_sum;
    assign m_axis_pay_desc_len = piece;
    assign m_axis_pay_desc_last = left_fits;
    assign m_axis_pay_desc_valid = state_reg == S_PAY_DESC && room_ok && !room_zero_reg;
    assign m_axis_pay_desc_inline = inline_reg;
    assign m_axis_pay_desc_inl_data = wqe_reg[8*rnic_pkg::WQE_SGE_OFF +: 8*rnic_pkg::MAX_INLINE_BYTES];

    // ------------------------------------------------------------------
    // WQE cache, two ways: the way of the QP being served (cur_way_reg) and
    // the way that reads ahead for the QP at the head of the scheduler, so
    // the next turn finds its WQEs at hand. Way w holds WQEs [c_lo, c_hi) of
    // QP c_qpn; [c_hi, c_req) are being read (a read per way at a time, so
    // the next QP's read need not wait for the last beats of the current
    // one's); SQ index i is in slot i mod CACHE_WQES. c_hi moves on as each
    // WQE's last beat arrives whole and read OKAY (the read engine marks a
    // failed beat), so a turn starts on the first WQEs of a read while the
    // rest still come: a turn's WQEs then wait for the read's latency, not
    // for its whole transfer as well (4 KiB at 54 B a cycle, 76 cycles).
    // A failed read leaves c_err set for the WQE at c_hi: the first that
    // did not arrive whole and OKAY.
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] cache_mem [2 * CACHE_WQES * WQE_BEATS];
    logic [DATA_WIDTH-1:0] cache_rd_data;
    logic [QPN_WIDTH-1:0]  c_qpn_reg [2];
    logic [15:0]           c_lo_reg [2], c_hi_reg [2], c_req_reg [2];
    logic [1:0]            c_err_reg;
    logic                  cur_way_reg;
    logic [1:0]            rd_act_reg;        // way w has a read decided and not over
    logic [1:0]            rd_stale_reg;      // ... whose WQEs are no longer wanted
    logic [1:0]            rd_bad_reg;        // ... a beat of which failed: c_hi stays
    logic [1:0]            rd_data_reg;       // ... whose last beat arrived
    logic [1:0]            rd_st_reg;         // ... whose status arrived
    logic [1:0]            rd_err_reg;        // ... with an error
    logic [QPN_WIDTH-1:0]  rd_qpn_reg [2];    // ... for this QP
    logic [QPN_WIDTH-1:0]  fetch_qpn_reg;     // the read being sized: its QP
    // Reads answer in the order they were asked (one engine): the way whose
    // beats come next (dw) and how many reads still have beats to come
    // (dn); the same for the statuses (sw, sn). Beats go to fill_ptr; the
    // start of the read behind is kept in fill_nptr.
    logic                  dw_reg, sw_reg;
    logic [1:0]            dn_reg, sn_reg;
    logic [WQE_CACHE_LOG2+BEAT_W:0] fill_ptr_reg, fill_nptr_reg;
    wire                   fetch_busy = |rd_act_reg;
    wire                   fd_idle = fd_state_reg == FD_IDLE;

    wire        cw = cur_way_reg;
    wire        nw = !cur_way_reg;
    wire        c_mine = c_qpn_reg[cw] == qpn_reg;
    wire [15:0] c_held = c_hi_reg[cw] - c_lo_reg[cw];
    wire [15:0] next_idx = ci_reg + 16'd1;
    // where the WQE at look_idx[k] is (k = 0: ci_reg; k = 1: the next one,
    // ci_reg + 1): the window holds it, the way holds it, is reading it, or
    // failed to read it
    wire [15:0] look_idx [2];
    assign look_idx[0] = ci_reg;
    assign look_idx[1] = next_idx;
    logic [1:0] win_at, c_at, c_pend_at, c_err_at;
    for (genvar k = 0; k < 2; k++) begin : g_look
        assign win_at[k] = win_valid && win_qpn == 16'(qpn_reg) && win_idx == look_idx[k];
        assign c_at[k] = c_mine && 16'(look_idx[k] - c_lo_reg[cw]) < c_held;
        assign c_pend_at[k] = c_mine && 16'(look_idx[k] - c_hi_reg[cw]) < 16'(c_req_reg[cw] - c_hi_reg[cw]);
        assign c_err_at[k] = c_mine && c_err_reg[cw] && look_idx[k] == c_hi_reg[cw];
    end

    // S_WQE_DESC decides from these, registered a cycle before: for ci_reg,
    // or for ci_reg + 1 when S_RECORD moved ci_reg on in that cycle (the
    // turn's next WQE; ci_reg changes only in S_IDLE, a cycle before S_QPC,
    // and in S_RECORD). The compares are then not on the paths into the
    // WQE register and the cache's state. Where the way or the window
    // changed in that cycle (a read decided, taken by its way, sized or
    // finished, a context reset, the window set anew), the lookups are a
    // cycle old and S_WQE_DESC waits a cycle (wd_go); a window since
    // cleared or written is not valid now.
    logic [1:0] wd_win_q, wd_hit_q, wd_pend_q, wd_err_q;
    logic       wd_moved_q, wd_cache_chg_q;
    wire        wd_go = !wd_cache_chg_q && !win_new;
    wire        win_hit = wd_win_q[wd_moved_q] && win_valid;
    wire        c_hit = wd_hit_q[wd_moved_q];
    wire        c_pend = wd_pend_q[wd_moved_q];
    wire        c_err_hit = wd_err_q[wd_moved_q];
    // The turn's next WQE (ci_reg + 1) is in the way, not in the window,
    // as seen in the cycle before S_RECORD, and neither the way nor the
    // window changed since: S_RECORD goes on to S_WQE_LOAD itself. (A WQE
    // the way held stays held while the QP is served: a read into the way
    // only adds WQEs past c_req, a failed one keeps [c_lo, c_hi), and a
    // reset of the QP ends the turn: chain.)
    wire        ld_ahead = wd_hit_q[1] && !wd_win_q[1] && !wd_cache_chg_q && !win_new;
    // the window holds this very WQE: take it, nothing to fetch
    assign win_take = state_reg == S_WQE_DESC && wd_go && win_hit;
    // a read on a miss, for the WQE the engine waits for
    wire        miss_fetch = state_reg == S_WQE_DESC && wd_go && !win_hit && !c_hit && !c_pend && !c_err_hit
                             && !fetch_busy;
    wire        serving = state_reg == S_PARSE || state_reg == S_LKEY_RD || state_reg == S_LKEY_CHK
                          || state_reg == S_LKEY_C2 || state_reg == S_LKEY_CHKD
                          || state_reg == S_SKIP || state_reg == S_PKT_HDR || state_reg == S_PAY_DESC
                          || state_reg == S_PKT_NEXT || state_reg == S_RECORD;
    // no other QP waits: read this QP's next WQEs while the current ones are
    // sent, once the cache running from this WQE has room for half of it
    // Its compares of the way's indices are registered (own_ok_reg) and
    // used when their inputs held since the last cycle (none of them changes
    // in a serving state but at S_RECORD, a read decided or finished, or a
    // context reset): they were the head of the path through the read's
    // decision into the way's registers.
    wire [15:0] ahead = c_req_reg[cw] - ci_reg;
    wire        own_ok = !c_err_reg[cw] && c_mine
                         && 16'(ci_reg - c_lo_reg[cw]) < c_held && c_req_reg[cw] != pi_reg
                         && 16'(pi_reg - c_req_reg[cw]) <= 16'(pi_reg - ci_reg)
                         && ahead <= 16'(CACHE_WQES / 2);
    logic       own_ok_reg, own_chg_q;
    wire        own_fetch = serving && !s_qp_valid && fd_idle && !rd_act_reg[cw] && !own_chg_q && own_ok_reg;
    // another QP waits: look up the one at the head of the scheduler (its
    // context and send index), then read its first WQEs into the other way
    logic                 nq_look_reg;    // its context is on qpc_rd_data
    logic                 nq_tried_reg;   // looked up during this turn
    logic [QPN_WIDTH-1:0] nq_qpn_reg;
    // in a turn, past its context read and before the scheduler is answered
    wire                  in_turn = state_reg != S_IDLE && state_reg != S_QPC && state_reg != S_DONE;
    // nq_same implies s_qp_qpn == nq_qpn_reg, read by port s since nq_look
    wire [15:0]           nq_ci = s_sq_ci;
    wire                  nq_held = c_qpn_reg[nw] == s_qp_qpn && !c_err_reg[nw]
                                    && 16'(s_sq_ci - c_lo_reg[nw]) < 16'(c_req_reg[nw] - c_lo_reg[nw]);
    wire                  nq_look = in_turn && s_qp_valid && s_fresh && fd_idle && !rd_act_reg[nw] && !nq_look_reg
                                    && !(nq_tried_reg && nq_qpn_reg == s_qp_qpn) && !nq_held;
    wire                  nq_same = nq_look_reg && s_qp_valid && s_qp_qpn == nq_qpn_reg && in_turn;
    wire                  nq_fetch = nq_same && fd_idle && !rd_act_reg[nw] && s_qp_pi != nq_ci && !tx_err_mem[nq_qpn_reg]
                                     && qpc_rd_data[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W] == 4'(rnic_pkg::QPS_RTS)
                                     && !(win_valid && win_qpn == 16'(nq_qpn_reg) && win_idx == nq_ci);

    // the read: which QP, ring and index, into which way, with what room
    wire                  f_nq = !miss_fetch && !own_fetch;
    wire [QPN_WIDTH-1:0]  f_qpn = f_nq ? nq_qpn_reg : qpn_reg;
    wire                  f_way = f_nq ? nw : cw;
    wire [15:0]           f_idx = miss_fetch ? ci_reg : own_fetch ? c_req_reg[cw] : nq_ci;
    wire [15:0]           f_pi = f_nq ? s_qp_pi : pi_reg;
    wire [15:0]           f_room = own_fetch ? 16'(CACHE_WQES) - ahead : 16'(CACHE_WQES);
    wire [4:0]            f_sq_log = f_nq ? qpc_rd_data[rnic_pkg::QPC_SQ_LOG_SIZE_LSB +: rnic_pkg::QPC_SQ_LOG_SIZE_W]
                                          : qpc_reg[rnic_pkg::QPC_SQ_LOG_SIZE_LSB +: rnic_pkg::QPC_SQ_LOG_SIZE_W];
    wire [63:0]           f_sq_base = f_nq ? qpc_rd_data[rnic_pkg::QPC_SQ_BASE_LSB +: rnic_pkg::QPC_SQ_BASE_W]
                                           : qpc_reg[rnic_pkg::QPC_SQ_BASE_LSB +: rnic_pkg::QPC_SQ_BASE_W];

    // The read is decided here (fetch_start) and sized and addressed in two
    // register stages after it (fd_state_reg), so the decision, the size
    // and the 64-bit address are not one path: the read goes out three
    // cycles after its decision. The decision takes the engine (fetch_busy)
    // at once; the way's pending range (c_req) is set when the size is
    // known, a cycle before the read goes out.
    typedef enum logic [1:0] {FD_IDLE, FD_SIZE, FD_SIZE2, FD_DESC} fdstate_t;
    fdstate_t             fd_state_reg;
    logic                 fd_way_reg;
    logic [15:0]          fd_idx_reg, fd_pi_reg, fd_room_reg;
    logic [4:0]           fd_sq_log_reg;
    logic [63:0]          fd_sq_base_reg;
    logic [15:0]          fd_to_pi_reg, fd_to_end_reg, fd_to_win_reg;
    logic [15:0]          fd_n_reg;
    // The way's range and QP are set in FD_SIZE, from registers, not in the
    // decision's cycle: the decision (a miss, the next QP's index compares)
    // ran into the 2 x 48 range flip-flops' selects. Nothing looks at the
    // way in between: every fetch decision waits for the engine
    // (fetch_busy), S_WQE_DESC's lookups wait for FD_SIZE's as well
    // (wd_cache_chg_q), and a turn is taken two cycles after a decision at
    // the earliest. A reset of the QP meanwhile (fetch_stale) leaves the
    // way alone.
    logic [15:0]          fd_lo_reg;
    logic                 fd_own_reg;
    wire                  fd_take = fd_state_reg == FD_SIZE && !rd_stale_reg[fd_way_reg];
    logic [63:0]          fd_addr_reg;
    logic                 fd_carry_reg;

    // WQEs one read fetches: up to the producer index, the end of the ring,
    // the room in the way, and not the WQE the window holds
    wire [15:0] ring_mask = (16'd1 << fd_sq_log_reg) - 16'd1;
    wire [15:0] sq_slot = fd_idx_reg & ring_mask;
    wire [15:0] to_win = win_idx - fd_idx_reg;
    wire [15:0] fd_to_pi = fd_pi_reg - fd_idx_reg;
    wire        win_ahead = win_valid && win_qpn == 16'(fetch_qpn_reg) && to_win != 0 && to_win < fd_to_pi;
    // the least of them, every pair compared at once (a chain of three
    // compare-and-select steps was twice as deep)
    wire pi_lt_room = fd_to_pi_reg < fd_room_reg, end_lt_room = fd_to_end_reg < fd_room_reg;
    wire win_lt_room = fd_to_win_reg < fd_room_reg;
    wire end_lt_pi = fd_to_end_reg < fd_to_pi_reg, win_lt_pi = fd_to_win_reg < fd_to_pi_reg;
    wire win_lt_end = fd_to_win_reg < fd_to_end_reg;
    wire fn_win = win_lt_room && win_lt_pi && win_lt_end, fn_end = end_lt_room && end_lt_pi;
    wire [15:0] fetch_n = fn_win ? fd_to_win_reg : fn_end ? fd_to_end_reg : pi_lt_room ? fd_to_pi_reg : fd_room_reg;
    // the end of the way's pending range, index + fetch_n: the four sums
    // formed beside the compares and chosen as fetch_n is (an adder after
    // the choice ran into the way's registers, 9 levels)
    wire [15:0] fetch_end = fn_win ? fd_idx_reg + fd_to_win_reg : fn_end ? fd_idx_reg + fd_to_end_reg
                          : pi_lt_room ? fd_idx_reg + fd_to_pi_reg : fd_idx_reg + fd_room_reg;
    // the ring address, its low and high halves a cycle apart
    wire [32:0] fd_addr_lo = 33'(fd_sq_base_reg[31:0]) + (33'(sq_slot) << rnic_pkg::WQE_LOG_BYTES);

    assign m_axis_wqe_desc_addr = fd_addr_reg;
    assign m_axis_wqe_desc_len = 32'(fd_n_reg) << rnic_pkg::WQE_LOG_BYTES;
    assign m_axis_wqe_desc_last = 1'b1;
    assign m_axis_wqe_desc_valid = fd_state_reg == FD_DESC;
    assign s_axis_wqe_tready = dn_reg != 2'd0;
    // a read is decided (each of the three asks for a free engine)
    wire   fetch_start = miss_fetch || own_fetch || nq_fetch;
    // the last beat of a WQE of the read arrives, it and every beat before
    // it read OKAY, and the read is still wanted
    wire   fill_beat = s_axis_wqe_tvalid && s_axis_wqe_tready;
    wire   fill_wqe_ok = fill_beat && !s_axis_wqe_tuser && !rd_bad_reg[dw_reg] && !rd_stale_reg[dw_reg]
                         && (WQE_BEATS == 1 || fill_ptr_reg[BEAT_W-1:0] == BEAT_W'(WQE_BEATS - 1));
    // the read is over: sized and sent, its data and status in
    // way w's read is over: sized and sent, its data and status in
    wire [1:0] rd_done = rd_act_reg & rd_data_reg & rd_st_reg;
    wire   fetch_done = |rd_done;
    wire   fetch_done_err = |(rd_done & rd_err_reg);

    // the WQE at ci_reg is copied out one bus word per cycle. S_RECORD
    // reads the first word of the next one (ci_reg + 1) whatever follows:
    // where the turn goes on with it from the cache (ld_ahead), S_WQE_LOAD
    // takes that word in its first cycle; elsewhere nothing uses the word.
    // After a message's last packet (S_PKT_NEXT, then S_RECORD) the first
    // word is read a cycle earlier, in S_PKT_NEXT: S_RECORD writes it into
    // wqe_reg (the record reads the old value in that cycle) and reads the
    // second, so S_WQE_LOAD starts a word later (one cycle per WQE less; at
    // 512 bits a WQE is two words and S_WQE_LOAD takes one cycle). Where the
    // turn does not go on from the cache, wqe_reg is loaded anew before
    // anything reads it again.
    wire [WQE_CACHE_LOG2-1:0] ci_slot = ci_reg[WQE_CACHE_LOG2-1:0];
    wire [WQE_CACHE_LOG2-1:0] next_slot = next_idx[WQE_CACHE_LOG2-1:0];
    wire [BEAT_W-1:0]         ld_beat = beat_reg[BEAT_W-1:0];
    logic                     rec_w0_reg;   // S_PKT_NEXT read the next WQE's first word
    wire                      rd_ahead0 = state_reg == S_PKT_NEXT;
    wire                      rd_ahead = state_reg == S_RECORD;
    wire [BEAT_W-1:0]         ahead_beat = (WQE_BEATS > 1 && rec_w0_reg) ? BEAT_W'(1) : BEAT_W'(0);
    always_ff @(posedge clk) begin
        rec_w0_reg <= rd_ahead0;
        if (s_axis_wqe_tvalid && s_axis_wqe_tready) cache_mem[fill_ptr_reg] <= s_axis_wqe_tdata;
        cache_rd_data <= cache_mem[rd_ahead0 ? {cw, next_slot, BEAT_W'(0)}
                                 : rd_ahead ? {cw, next_slot, ahead_beat} : {cw, ci_slot, ld_beat}];
    end

    // a new context: nothing held or being read for the QP is valid. A
    // reset in the read's own decision cycle forgets it if it is of either
    // QP the read may be for (the one in hand or the next one): the choice
    // between them is not in front of the flag; a read forgotten needlessly
    // is read again when its WQE is wanted.
    wire rs_f_qpn = qp_reset_qpn == nq_qpn_reg || qp_reset_qpn == qpn_reg;
    // (the read being sized: no other read is decided while one is)
    wire reset_hit_fetch = qp_reset_valid && qp_reset_qpn == fetch_qpn_reg;
    // the start of the read decided now, in the way
    wire [WQE_CACHE_LOG2+BEAT_W:0] f_ptr = {f_way, f_idx[WQE_CACHE_LOG2-1:0], BEAT_W'(0)};

    always_ff @(posedge clk) begin
        // a turn for the QP the other way read ahead for: that way serves it
        if (s_qp_valid && s_qp_ready && c_qpn_reg[nw] == s_qp_qpn && c_req_reg[nw] != c_lo_reg[nw])
            cur_way_reg <= nw;
        if (s_qp_valid && s_qp_ready) nq_tried_reg <= 1'b0;
        if (nq_look) begin
            nq_look_reg <= 1'b1;
            nq_tried_reg <= 1'b1;
            nq_qpn_reg <= s_qp_qpn;
        end
        if (nq_look_reg && (!nq_same || fetch_start || !nq_fetch)) nq_look_reg <= 1'b0;

        if (fetch_start) begin
            fd_lo_reg <= own_fetch ? ci_reg : f_idx;
            fd_own_reg <= own_fetch;
            rd_act_reg[f_way] <= 1'b1;
            rd_qpn_reg[f_way] <= f_qpn;
            rd_bad_reg[f_way] <= 1'b0;
            rd_data_reg[f_way] <= 1'b0;
            rd_st_reg[f_way] <= 1'b0;
            rd_err_reg[f_way] <= 1'b0;
            fetch_qpn_reg <= f_qpn;
            fd_state_reg <= FD_SIZE;
            fd_way_reg <= f_way;
            fd_idx_reg <= f_idx;
            fd_pi_reg <= f_pi;
            fd_room_reg <= f_room;
            fd_sq_log_reg <= f_sq_log;
            fd_sq_base_reg <= f_sq_base;
        end
        case (fd_state_reg)
            FD_SIZE: begin
                // the way takes the read (a cycle after its decision)
                if (fd_take) begin
                    c_qpn_reg[fd_way_reg] <= fetch_qpn_reg;
                    c_err_reg[fd_way_reg] <= 1'b0;
                    c_lo_reg[fd_way_reg] <= fd_lo_reg;
                    if (!fd_own_reg) c_hi_reg[fd_way_reg] <= fd_idx_reg;
                end
                fd_to_pi_reg <= fd_to_pi;
                fd_to_end_reg <= (~fd_idx_reg & ring_mask) + 16'd1;
                fd_to_win_reg <= win_ahead ? to_win : 16'hffff;
                fd_addr_reg[31:0] <= fd_addr_lo[31:0];
                fd_carry_reg <= fd_addr_lo[32];
                fd_state_reg <= FD_SIZE2;
            end
            FD_SIZE2: begin
                fd_n_reg <= fetch_n;
                fd_addr_reg[63:32] <= fd_sq_base_reg[63:32] + 32'(fd_carry_reg);
                // the way's pending range, unless a reset forgot the read
                if (!rd_stale_reg[fd_way_reg] && !reset_hit_fetch) c_req_reg[fd_way_reg] <= fetch_end;
                fd_state_reg <= FD_DESC;
            end
            FD_DESC: if (m_axis_wqe_desc_ready) fd_state_reg <= FD_IDLE;
            default: ;
        endcase
        // the beats, in the order the reads were asked for
        if (fill_beat) begin
            // wraps within the way
            fill_ptr_reg[WQE_CACHE_LOG2+BEAT_W-1:0] <= fill_ptr_reg[WQE_CACHE_LOG2+BEAT_W-1:0] + 1'b1;
            if (s_axis_wqe_tuser) rd_bad_reg[dw_reg] <= 1'b1;
            if (s_axis_wqe_tlast) rd_data_reg[dw_reg] <= 1'b1;
        end
        // a WQE in whole: the way holds it (a read the QP's reset made stale
        // fills nothing; the reset below wins over it in its own cycle)
        if (fill_wqe_ok) c_hi_reg[dw_reg] <= c_hi_reg[dw_reg] + 16'd1;
        // the next read's beats: this one's after the last read's end, or a
        // read behind it once the one in front has its last beat
        if (fill_beat && s_axis_wqe_tlast) begin
            if (fetch_start && dn_reg == 2'd1) begin
                dw_reg <= f_way;
                fill_ptr_reg <= f_ptr;
            end else begin
                dw_reg <= !dw_reg;
                fill_ptr_reg <= fill_nptr_reg;
                dn_reg <= dn_reg - 2'd1;
            end
        end else if (fetch_start) begin
            dn_reg <= dn_reg + 2'd1;
            if (dn_reg == 2'd0) begin
                dw_reg <= f_way;
                fill_ptr_reg <= f_ptr;
            end
        end
        if (fetch_start) fill_nptr_reg <= f_ptr;
        // the statuses, in the same order: one may come before or after its
        // read's last beat, and before the last beat of the read in front
        if (s_wqe_status_valid) begin
            rd_st_reg[sw_reg] <= 1'b1;
            rd_err_reg[sw_reg] <= s_wqe_status_error;
            if (fetch_start && sn_reg == 2'd1) begin
                sw_reg <= f_way;
            end else begin
                sw_reg <= !sw_reg;
                sn_reg <= sn_reg - 2'd1;
            end
        end else if (fetch_start) begin
            sn_reg <= sn_reg + 2'd1;
            if (sn_reg == 2'd0) sw_reg <= f_way;
        end
        for (int w = 0; w < 2; w++) begin
            if (rd_done[w]) begin
                rd_act_reg[w] <= 1'b0;
                if (!rd_stale_reg[w] && rd_err_reg[w]) begin
                    c_req_reg[w] <= c_hi_reg[w];
                    c_err_reg[w] <= 1'b1;
                end
                // (done and OKAY: c_hi has reached c_req, WQE by WQE)
            end
        end
        // the failed WQE is taken (completes in error): forget the read
        if (state_reg == S_WQE_DESC && wd_go && !win_hit && c_err_hit) c_err_reg[cw] <= 1'b0;
        for (int w = 0; w < 2; w++) begin
            if (qp_reset_valid && ((fd_take && fd_way_reg == 1'(w)) ? qp_reset_qpn == fetch_qpn_reg
                                                                   : qp_reset_qpn == c_qpn_reg[w])) begin
                c_lo_reg[w] <= '0;
                c_hi_reg[w] <= '0;
                c_req_reg[w] <= '0;
                c_err_reg[w] <= 1'b0;
            end
        end
        // a read's QP reset: its WQEs are not wanted (one decided in the
        // reset's own cycle by either QP it may be for: see rs_f_qpn)
        for (int w = 0; w < 2; w++)
            if ((fetch_start && f_way == 1'(w)) ? qp_reset_valid && rs_f_qpn
                                                : rd_act_reg[w] && qp_reset_valid && qp_reset_qpn == rd_qpn_reg[w])
                rd_stale_reg[w] <= 1'b1;
            else if (fetch_start && f_way == 1'(w))
                rd_stale_reg[w] <= 1'b0;
        if (rst) begin
            for (int w = 0; w < 2; w++) begin
                c_lo_reg[w] <= '0;
                c_hi_reg[w] <= '0;
                c_req_reg[w] <= '0;
            end
            c_err_reg <= '0;
            cur_way_reg <= 1'b0;
            nq_look_reg <= 1'b0;
            nq_tried_reg <= 1'b0;
            rd_act_reg <= '0;
            rd_stale_reg <= '0;
            rd_bad_reg <= '0;
            dn_reg <= '0;
            sn_reg <= '0;
            fd_state_reg <= FD_IDLE;
        end
    end

    // a QP is taken once port s has read its state
    assign s_qp_ready = state_reg == S_IDLE && s_fresh && !ctx_pend;
    // The context is read at s_qp_qpn in every cycle: its two users (S_QPC
    // after a take, the cycle after nq_look) take the read of the cycle
    // before, which was at that QP. (Enabled by the take or the look, the
    // compares of the next QP's index with the way's range were in front
    // of the block RAM's enable.)
    assign qpc_rd_en = 1'b1;
    assign qpc_rd_addr = s_qp_qpn;
    // S_DONE and S_IDLE are followed by S_IDLE (the QP at s_qp_qpn, used
    // once s_fresh says it is the same QP) or by S_QPC with that QP taken
    assign una_rd_qpn = (rst || state_reg == S_IDLE || state_reg == S_DONE) ? s_qp_qpn : qpn_reg;

    // S_PARSE reads the first SGE's entry, so a WQE whose first SGE is not
    // empty goes straight on to its check. A WQE copied out of the cache has
    // that entry read a cycle earlier, in S_WQE_LOAD's last cycle (its first
    // SGE's key is then in wqe_last_beat): S_PARSE runs the check's first
    // stage itself and goes on to its second (mpt_pre_reg says the entry of
    // the last cycle's read is the first SGE's: that read, or S_PARSE's own
    // when it waited).
    // the WQE as its last word comes out of the cache (decoded in that cycle:
    // wqe_dec_reg, below)
    logic [WQE_BITS-1:0] wqe_last_beat;
    always_comb begin
        wqe_last_beat = wqe_reg;
        wqe_last_beat[DATA_WIDTH * (WQE_BEATS - 1) +: DATA_WIDTH] = cache_rd_data;
    end
    wire        wload_last = state_reg == S_WQE_LOAD && beat_reg == 5'(WQE_BEATS);
    assign mpt_rd_en = state_reg == S_LKEY_RD || state_reg == S_PARSE || wload_last;
    wire [31:0] sge0_lkey = sge_lkey(wqe_reg, 0);
    wire [31:0] sge0_lkey_ld = sge_lkey(wqe_last_beat, 0);
    assign mpt_rd_addr = (state_reg == S_PARSE) ? (op_bind ? bind_lkey[TAG_BITS +: MR_INDEX_WIDTH]
                                                           : sge0_lkey[TAG_BITS +: MR_INDEX_WIDTH])
                       : wload_last ? sge0_lkey_ld[TAG_BITS +: MR_INDEX_WIDTH]
                       : cur_lkey[TAG_BITS +: MR_INDEX_WIDTH];
    logic       mpt_pre_reg;
    always_ff @(posedge clk) mpt_pre_reg <= wload_last || state_reg == S_PARSE;

    // (what holds the header is one flip-flop: hdr_hold_reg, below)
    assign m_hdr_valid = state_reg == S_PKT_HDR && !hdr_hold_reg;
    assign m_hdr_qpn = qpn_reg;
    // the transmit arbiter's payload-order decision takes this flag, not a
    // compare of the header's 16-bit length behind its grant (the MTU is
    // never 0)
    assign m_hdr_pay = !op_rd_atomic && rem_nz_reg;

    assign m_done_valid = state_reg == S_DONE;
    assign m_done_qpn = qpn_reg;
    assign m_done_ci = ci_reg;
    assign m_done_requeue = requeue_reg;

    // in-flight record: {src_qp, cqn, byte_len, opcode, status, signaled, last_psn}
    // an error record also tells the completion engine to look at the QP
    // a QP that went to the error state while this WQE was being sent (NAK,
    // responder error, modify to ERR) gets its window flushed right away
    wire qp_in_err = qpc_state == 4'(rnic_pkg::QPS_ERR) || err_rd_val || tx_err_mem[qpn_reg];
    // The record's walk decision takes it a cycle old (qp_in_err_q): from
    // the completion engine's error table it ran through the record's write
    // enable into every table and forward register behind it (14 levels).
    // An error of the last cycle is then as one a cycle later, which the
    // engine meets anyway (errors come from the other engines at any time):
    // a QP not chained on is requeued after its record, and its next turn
    // (S_QPC) flushes its window. qp_in_err changes with qpn_reg only in
    // S_IDLE, and tx_err_mem only at a record with an error status, which
    // walks and is not chained on.
    logic qp_in_err_q;
    always_ff @(posedge clk) qp_in_err_q <= qp_in_err;
    // a window operation sends no packet: the completion engine is asked to
    // walk, so it completes as soon as the WQEs before it have
    wire need_walk = status_reg != rnic_pkg::WC_SUCCESS[7:0] || qp_in_err_q || op_mw;
    // The record is written in S_RECORD's one cycle; a record that needs a
    // walk then asks for it in S_NOTIFY. (Writing it only once the
    // completion engine took the request put that engine's readiness, and
    // through it the ACK stream's valid, in front of every table and
    // forward register the record writes: 12 levels.)
    wire record = state_reg == S_RECORD;
    // S_NOTIFY after a record: the walk's force as it was at the record
    logic note_rec_reg, note_force_reg;
    wire signaled = (wqe_flags & rnic_pkg::WQE_FLAG_SIGNALED[7:0]) != 0;
    assign inf_wr_en = record;
    assign inf_wr_addr = {qpn_reg, ci_reg[INFLIGHT_LOG2-1:0]};
    wire [7:0] wc_opcode = op_send ? rnic_pkg::WC_SEND[7:0] : op_read ? rnic_pkg::WC_RDMA_READ[7:0]
                         : op_cas ? rnic_pkg::WC_COMP_SWAP[7:0] : op_atomic ? rnic_pkg::WC_FETCH_ADD[7:0]
                         : op_bind ? rnic_pkg::WC_BIND_MW[7:0] : op_local_inv ? rnic_pkg::WC_LOCAL_INV[7:0]
                         : rnic_pkg::WC_RDMA_WRITE[7:0];
    // a window operation moves no bytes (and takes no PSN)
    wire [31:0] rec_len = op_mw ? 32'd0 : wqe_length;
    assign inf_wr_data = {qpc_ud ? wqe_ud_qpn[23:0] : qpc_dest_qpn, qpc_send_cqn, rec_len, wc_opcode, status_reg,
                          signaled || status_reg != rnic_pkg::WC_SUCCESS[7:0], psn_reg - 24'd1};
    assign m_local_valid = state_reg == S_NOTIFY;
    assign m_rd_wqe_valid = record && op_rd_atomic && status_reg == rnic_pkg::WC_SUCCESS[7:0];
    assign m_rd_wqe_qpn = qpn_reg;
    assign m_rd_wqe_idx = ci_reg;
    assign m_rd_wqe_num_sge = wqe_num_sge;
    assign m_rd_wqe_sges = wqe_reg[8*rnic_pkg::WQE_SGE_OFF +: 8*MAX_SGE*rnic_pkg::SGE_BYTES];
    assign m_local_qpn = qpn_reg;
    // (S_NOTIFY from S_QPC has the QP's context in qpc_reg only from its
    // own cycle on; after a record, the force is the one of the record's
    // cycle, as the walk decision's)
    assign m_local_force = note_rec_reg ? note_force_reg : qp_in_err;

    // the window request: held while the engine waits in S_MW_WAIT
    wire mw_reset_hit = qp_reset_valid && qp_reset_qpn == qpn_reg;
    assign mw_req_valid = state_reg == S_MW_WAIT;
    always_comb begin
        mw_req_data = '0;
        mw_req_data[rnic_pkg::MW_REQ_PENDING_LSB] = 1'b1;
        mw_req_data[rnic_pkg::MW_REQ_OP_LSB +: rnic_pkg::MW_REQ_OP_W] =
            op_bind ? rnic_pkg::MW_REQ_OP_BIND[rnic_pkg::MW_REQ_OP_W-1:0] : rnic_pkg::MW_REQ_OP_LOCAL_INV[rnic_pkg::MW_REQ_OP_W-1:0];
        mw_req_data[rnic_pkg::MW_REQ_QPN_LSB +: rnic_pkg::MW_REQ_QPN_W] = 24'(qpn_reg);
        mw_req_data[rnic_pkg::MW_REQ_MW_RKEY_LSB +: rnic_pkg::MW_REQ_MW_RKEY_W] = wqe_rkey;
        mw_req_data[rnic_pkg::MW_REQ_NEW_RKEY_LSB +: rnic_pkg::MW_REQ_NEW_RKEY_W] = bind_new_rkey;
        mw_req_data[rnic_pkg::MW_REQ_MR_KEY_LSB +: rnic_pkg::MW_REQ_MR_KEY_W] = bind_lkey;
        mw_req_data[rnic_pkg::MW_REQ_ACCESS_LSB +: rnic_pkg::MW_REQ_ACCESS_W] = bind_access[7:0];
        mw_req_data[rnic_pkg::MW_REQ_MR_ACCESS_LSB +: rnic_pkg::MW_REQ_MR_ACCESS_W] = mw_mr_access_reg;
        mw_req_data[rnic_pkg::MW_REQ_ADDR_LSB +: rnic_pkg::MW_REQ_ADDR_W] = wqe_raddr;
        mw_req_data[rnic_pkg::MW_REQ_LENGTH_LSB +: rnic_pkg::MW_REQ_LENGTH_W] = bind_len;
        mw_req_data[rnic_pkg::MW_REQ_PA_LSB +: rnic_pkg::MW_REQ_PA_W] = mw_pa_reg;
        // bits a bind of length 0 or an invalidation does not use are still
        // the WQE's: the firmware reads only the fields of its op
    end

    // the MR must cover the SGE; reading local memory needs no access flag
    logic        lkey_ok;
    logic [63:0] lkey_pa;
    logic        lkey_ok_next;
    // A WQE of one SGE (nothing to skip, no bind) goes from S_LKEY_C2 to
    // S_PKT_HDR, which takes the check's result in S_LKEY_CHKD's place: a
    // failed check holds the header and records the WQE with LOC_PROT_ERR,
    // and the SGE's address goes into sge_pa_reg[0] and, in the same cycle,
    // into the piece's address sum. One cycle a WQE less.
    logic        chk_pend_reg;
    wire         chk_fast = state_reg == S_LKEY_C2 && !len_err_reg && !op_bind && sge_idx_reg == '0
                            && wqe_num_sge == 8'd1 && !(skip_reg != 0 && !op_rd_atomic);
    // What holds S_PKT_HDR's header, as one flip-flop set a cycle ahead:
    // the UD address handle's check pending or failed (ah_pending,
    // ud_bad_ah: their registers' next values) or the fast key check
    // failed. (The check's result and its pending flag beside the AH's
    // terms were one input too many in front of the header queue's push:
    // 9 levels into its dead bits.) qpc_ud holds from S_QPC, which never
    // goes straight to S_PKT_HDR.
    logic        hdr_hold_reg;
    always_ff @(posedge clk)
        hdr_hold_reg <= (qpc_ud && (ah_rd_en || !ah_ok)) || (chk_fast && !lkey_ok_next);
    // in two register stages (rnic_mr_check_pipe): S_LKEY_CHK and S_LKEY_C2
    // present the SGE, S_LKEY_CHKD takes the result; or S_PARSE (the first
    // SGE, its entry read ahead: sge_idx_reg is 0 from S_WQE_DESC and
    // S_WQE_LOAD on) and S_LKEY_C2. Where S_PARSE goes elsewhere, the two
    // stages are filled again before anything reads them.
    // a bind checks its range against the MR as an SGE would be: the
    // inputs come from the WQE's bind fields (a bind has no SGE)
    wire [31:0] chk_key = op_bind ? bind_lkey : cur_lkey;
    wire [63:0] chk_va = op_bind ? wqe_raddr : cur_addr;
    wire [31:0] chk_len = op_bind ? bind_len[31:0] : cur_len;
    rnic_mr_check_pipe lkey_check_inst (
        .clk, .en(state_reg == S_PARSE || state_reg == S_LKEY_CHK || state_reg == S_LKEY_C2), .mpt(mpt_rd_data), .key(chk_key), .va(chk_va), .len(chk_len), .pd(qpc_pd),
        .need_access(op_rd_atomic ? rnic_pkg::ACCESS_LOCAL_WRITE[7:0] : 8'h0), .remote(1'b0), .qpn(24'h0),
        .ok(lkey_ok), .pa(lkey_pa), .ok_next(lkey_ok_next)
    );

    wire [15:0] inflight = ci_reg - una_rd_idx;
    // S_QPC's view of the window, from the take in S_IDLE (una as read
    // then, the new ci): in S_QPC the difference's carry chain after the
    // ACK index's read ran on through the decision into state_reg. Should
    // the completion engine move una in between (the compare in S_QPC,
    // una_moved), the turn ends with the QP handed back to be taken again.
    logic       infl_nz_q, infl_block_q;
    logic [15:0] una_take_q;
    wire  [15:0] infl_take = s_sq_ci - una_rd_idx;
    always_ff @(posedge clk) begin
        if (state_reg == S_IDLE) begin
            // a rewind starts at una: nothing in flight
            infl_nz_q <= !rewind && infl_take != 0;
            infl_block_q <= !rewind && infl_take >= 16'(1 << INFLIGHT_LOG2);
            una_take_q <= una_rd_idx;
        end
    end
    wire        una_moved = una_rd_idx != una_take_q;
    wire        restart_pending = una_rd_rewind != q_rewind_ack || una_rd_rnr_wait;
    // other QPs wait at the scheduler and this turn has had its share
    // (the counts against the share are flip-flops, set as the count is:
    // the add and compare were the head of a path into state_reg)
    logic       turn_last_reg, turn_over_reg;   // turn_pkts_reg + 1 >= TURN_PKTS, turn_pkts_reg >= TURN_PKTS
    wire        yield = s_qp_valid && turn_last_reg;
    // the turn goes on with the next WQE when it is at hand and may be sent
    // at once: a first send (a resend ends the turn, as does anything that
    // S_QPC would stop at), with room in the in-flight window
    // Its index part is registered, a cycle old: ci + 1 against the cache's
    // range, the window, pi and una was three carry chains in a row into
    // state_reg. ci_reg and pi_reg change only in S_IDLE and S_RECORD, at
    // least two cycles before the next S_RECORD, so "posted" is exact and
    // the window has at least the room seen (una only moves on); "at hand"
    // may miss a fill of the last cycle (the turn then ends, and the QP's
    // next turn finds it).
    // A READ or ATOMIC stream also ends its turn while it may still send
    // one more (rd_room_q, below): the QP is requeued and comes back with
    // room, where a WQE stopped at max_rd_atomic in S_PARSE would wait for
    // the kick of the first READ to retire and then send one at a time.
    // "At hand" is the lookup of ci_reg + 1 registered a cycle before
    // (wd_hit_q[1], wd_win_q[1]), so it is two cycles old here: it only
    // decides whether the turn goes on, and S_WQE_DESC looks the WQE up
    // again (ci + 1 through the way's range compare was three carry chains
    // into this register); "posted" and the window's room stay exact.
    logic       chain_idx_q, rd_room_q;
    always_ff @(posedge clk)
        chain_idx_q <= (wd_hit_q[1] || wd_win_q[1]) && pi_reg - ci_reg != 16'd1
                       && !inflight[15] && inflight <= 16'((1 << INFLIGHT_LOG2) - 2);
    wire        chain = chain_idx_q && rd_room_q && !need_walk && !resend_reg && !restart_pending
                        && !(s_qp_valid && turn_over_reg)
                        && !(qp_reset_valid && qp_reset_qpn == qpn_reg);
    // Whether the packet moves the QP's highest PSN on (psn_reg + pkt_psns -
    // q_hi_psn, 24 bits, positive: its three addends and the negation's 1
    // carry-saved to two, so it is one carry chain) and the packet's next PSN,
    // registered a cycle ahead of S_PKT_NEXT, which uses them: psn_reg and
    // pkt_psns hold from S_PKT_HDR on, and the QP's highest PSN is written only
    // in S_PKT_NEXT (forwarded in the next cycle) or by a context write, which
    // waits for the engine's idle states. The sums were in front of the PSN
    // tables' write ports. Both are taken from the READ's packet count's first
    // register step (quotient, and a part left or a zero length: + 1), as
    // rd_psns_reg is not current until S_PKT_NEXT itself; the + 1 is the carry
    // in of one carry chain.
    logic        hi_adv_reg;
    logic [23:0] psn_nx_reg;
    wire  [23:0] nx_q = op_read ? rd_quot_reg : 24'd0;
    wire         nx_c = op_read ? (rd_frac_reg || rd_zero_reg) : 1'b1;
    wire  [23:0] ng_s = psn_reg ^ nx_q ^ ~q_hi_psn;
    wire  [23:0] ng_c = {((psn_reg[22:0] & nx_q[22:0]) | (psn_reg[22:0] & ~q_hi_psn[22:0])
                          | (nx_q[22:0] & ~q_hi_psn[22:0])), 1'b1};
    wire  [23:0] nx_gap = 24'(({ng_s, nx_c} + {ng_c, nx_c}) >> 1);   // its sign only (zero: below)
    wire         unused_nx_gap = ^nx_gap[22:0];
    // the gap is zero, tested without the carry chain: A + B + c == 0
    // (mod 2^24) when A ^ B ^ K == ((A & B) | ((A | B) & ~K)) << 1, K = -c
    // (the zero test after the adder was 10 levels)
    wire  [23:0] ng_k = {24{nx_c}};
    wire         gap_zero = (ng_s ^ ng_c ^ ng_k) == (((ng_s & ng_c) | ((ng_s | ng_c) & ~ng_k)) << 1);
    always_ff @(posedge clk) begin
        hi_adv_reg <= !gap_zero && !nx_gap[23];
        psn_nx_reg <= 24'(({psn_reg, nx_c} + {nx_q, nx_c}) >> 1);
    end

    // The send window (rnic_cwnd): updated when a QP is taken, its value
    // for this QP from the second cycle of the turn. wnd_used_reg: PSNs
    // outstanding before psn_reg; wnd_full_reg: the window has no room for a
    // packet at psn_reg; wnd_last_reg: not for one after it. Each registered
    // behind the last, so the subtract and the compare are not one path;
    // S_PARSE, their first user in a turn or after a WQE, comes late enough
    // (two cycles after psn_reg and the window are current), and a message's
    // next packet at least two cycles after its last. "Negative" (the ACKs
    // ahead of psn_reg) is no PSN outstanding; an all-ones window, no limit.
    logic [15:0] cwnd, cwnd_m1;
    rnic_cwnd #(.QPN_WIDTH(QPN_WIDTH), .WND_W(16), .WND_MIN(2 * ACKREQ_EVERY)) cwnd_inst (
        .clk, .rst,
        .rd_qpn(s_qp_qpn), .take(s_qp_valid && s_qp_ready), .take_loss(una_rd_rewind != s_rewind_ack),
        .take_acked_psn(una_rd_acked_psn), .take_next_psn(s_next_psn),
        .wnd(cwnd), .wnd_m1(cwnd_m1),
        .reset_valid(qp_reset_valid || qp_rts_valid), .reset_qpn(qp_reset_qpn), .reset_psn(qp_reset_sq_psn)
    );
    logic [23:0] wnd_used_reg;
    logic        wnd_full_reg, wnd_last_reg;
    always_ff @(posedge clk) begin
        wnd_used_reg <= psn_reg + ~una_rd_acked_psn;
        wnd_full_reg <= cwnd != 16'hffff && !wnd_used_reg[23]
                        && (wnd_used_reg[22:16] != '0 || wnd_used_reg[15:0] >= cwnd);
        wnd_last_reg <= cwnd != 16'hffff && !wnd_used_reg[23]
                        && (wnd_used_reg[22:16] != '0 || wnd_used_reg[15:0] >= cwnd_m1);
    end
    // The window holds the requester back only while the QP's ACK timer
    // runs: its timeout is not 0 and a recorded WQE is outstanding (una is
    // below the high-water mark). The timer watches recorded WQEs only, and
    // a message is recorded after its last packet: waiting mid-message with
    // nothing else outstanding, a lost NAK or ACK would leave the QP waiting
    // for room for good. Then the message goes on as without a window.
    // Registered: una_rd_idx, q_sq_hi and qpc_reg hold this QP's values from
    // the turn's third cycle, and S_PARSE comes in its fourth at the earliest.
    wire  wnd_timer_on = qpc_reg[rnic_pkg::QPC_TIMEOUT_LSB +: rnic_pkg::QPC_TIMEOUT_W] != '0;
    logic wnd_timed_reg;
    always_ff @(posedge clk) wnd_timed_reg <= wnd_timer_on && una_rd_idx != q_sq_hi;
    wire  wnd_stop_pkt = wnd_last_reg && wnd_timed_reg;   // no room after this packet

    // READs outstanding: window slots [una, ci) whose WQE is a READ, counted
    // by a tree (a serial count over the slots was the deepest path here).
    // A slot is in the window when it lies on the ring from una's slot up
    // to ci's: compares of each slot number with the two indices' low bits,
    // not the slot's distance from una (a subtract per slot after the ACK
    // index's read). When inflight reaches the window's size (or is
    // negative) every slot counts: that count is made beside the ring's and
    // chosen after both (the 16-bit inflight no longer runs into the
    // count's tree; 15 levels into rd_out_reg before).
    logic [2**INFLIGHT_LOG2-1:0] rd_mask_mem [NUM_QPS];
    wire  [2**INFLIGHT_LOG2-1:0] rd_mask = rd_mask_mem[qpn_reg];
    logic [2**INFLIGHT_LOG2-1:0] rd_in_ring;
    localparam int RC_W = INFLIGHT_LOG2 + 1;   // a count of 0..2^INFLIGHT_LOG2
    logic [RC_W-1:0] rd_out, rd_out_ring, rd_out_all;
    localparam int RL_W = RC_W > 5 ? RC_W : 5;   // the count against the 5-bit limit
    wire  [INFLIGHT_LOG2-1:0] ring_u = una_rd_idx[INFLIGHT_LOG2-1:0];
    wire  [INFLIGHT_LOG2-1:0] ring_c = ci_reg[INFLIGHT_LOG2-1:0];
    wire  ring_nowrap = ring_u <= ring_c;
    always_comb begin
        for (int i = 0; i < 2 ** INFLIGHT_LOG2; i++) begin
            rd_in_ring[i] = rd_mask[i] && (ring_nowrap ? (INFLIGHT_LOG2'(i) >= ring_u && INFLIGHT_LOG2'(i) < ring_c)
                                                       : (INFLIGHT_LOG2'(i) >= ring_u || INFLIGHT_LOG2'(i) < ring_c));
        end
    end
    // the whole window when inflight reaches its size (or is negative)
    wire rd_win_all = inflight[15:INFLIGHT_LOG2] != '0;
    // The slots are registered before the trees count them (rd_out_reg is
    // two register stages behind ci_reg, qpn_reg and the READ mask; see
    // rd_fresh_reg): the ring's compares and a 32-slot tree were 11 levels.
    logic [2**INFLIGHT_LOG2-1:0] rd_in_ring_q, rd_mask_q;
    logic                        rd_win_all_q;
    always_ff @(posedge clk) begin
        rd_in_ring_q <= rd_in_ring;
        rd_mask_q <= rd_mask;
        rd_win_all_q <= rd_win_all;
    end
    rnic_popcount #(.N(2 ** INFLIGHT_LOG2)) rd_out_count_inst (.bits(rd_in_ring_q), .count(rd_out_ring));
    rnic_popcount #(.N(2 ** INFLIGHT_LOG2)) rd_all_count_inst (.bits(rd_mask_q), .count(rd_out_all));
    assign rd_out = rd_win_all_q ? rd_out_all : rd_out_ring;
    wire [4:0] qpc_max_rd = qpc_reg[rnic_pkg::QPC_MAX_RD_ATOMIC_LSB +: rnic_pkg::QPC_MAX_RD_ATOMIC_W];
    wire [4:0] rd_limit = (qpc_max_rd == 0) ? 5'd1 : (qpc_max_rd > 5'(rnic_pkg::MAX_RD_ATOMIC))
                                          ? 5'(rnic_pkg::MAX_RD_ATOMIC) : qpc_max_rd;
    wire       wqe_fence = (wqe_flags & rnic_pkg::WQE_FLAG_FENCE[7:0]) != 0;
    // the count is registered, two stages behind its inputs: S_PARSE, its
    // only user, waits until the third cycle after qpn_reg, ci_reg and the
    // READ mask last changed (S_IDLE's take, S_RECORD, a context reset:
    // rd_fresh_reg); a READ retired in the two cycles before is still
    // counted (una only moves on, so the count is never short), and its
    // completion's kick (which comes after it, while the QP is in service)
    // brings the QP back. The limit is registered too: qpc_reg is loaded in
    // S_QPC, at least two cycles before S_PARSE.
    logic [RC_W-1:0] rd_out_reg;
    logic [4:0]      rd_limit_q;
    logic            rd_wait1_reg, rd_fresh_reg;
    wire             rd_chg = state_reg == S_IDLE || state_reg == S_RECORD || qp_reset_valid;
    always_ff @(posedge clk) begin
        rd_out_reg <= rd_out;
        rd_limit_q <= rd_limit;
        rd_wait1_reg <= !rd_chg;
        rd_fresh_reg <= rd_wait1_reg && !rd_chg;
    end
    // (READs outstanding before this WQE, plus it and one more, within the limit)
    always_ff @(posedge clk) rd_room_q <= RL_W'(rd_out_reg) + RL_W'(2) <= RL_W'(rd_limit_q);
    wire       rd_blocked = (op_rd_atomic && RL_W'(rd_out_reg) >= RL_W'(rd_limit_q)) || (wqe_fence && rd_out_reg != 0);

    // go-back-N: on a restart request, or when acknowledgements have passed
    // the send index, continue at the oldest unacknowledged WQE and PSN
    // (the ACK index against both the read send index and its forward, the
    // forward's flag choosing between the compares)
    wire [15:0] una_ahead_ram = una_rd_idx - s_sq_ci_ram, una_ahead_fwd = una_rd_idx - sq_ci_wd_reg;
    // (ahead by 1..2^15-1: "not equal" from the indices themselves, beside
    // the subtract, whose sign bit is all that is taken from it)
    wire        una_past = s_sq_ci_fwd ? una_rd_idx != sq_ci_wd_reg && !una_ahead_fwd[15]
                                       : una_rd_idx != s_sq_ci_ram && !una_ahead_ram[15];
    wire        rewind = una_rd_rewind != s_rewind_ack || una_past;
    wire        una_ahead_low_unused = ^{una_ahead_ram[14:0], una_ahead_fwd[14:0]};

    // a WQE below the high-water mark is being sent again: resume at psn_reg.
    // Registered, a cycle old: S_PARSE, its only user, follows S_WQE_DESC or
    // S_WQE_LOAD, where ci_reg and qpn_reg already hold their values; a
    // write of this QP's high-water mark in the last cycle (q_sq_hi_fwd: a
    // context reset) leaves it stale for that cycle, and S_PARSE waits it
    // out (resend_fresh). The compare and the forwarding mux are then not on
    // the parse's paths.
    logic       resend;       // this WQE went out before (some of it at least)
    always_ff @(posedge clk) resend <= ci_reg != q_sq_hi || started_mem[qpn_reg];
    wire        resend_fresh = !q_sq_hi_fwd;
    // first_psn_mem at {qpn_reg, ci_reg}, read one cycle ahead (a registered,
    // block-RAM read): S_PARSE, its only user, follows S_WQE_DESC or
    // S_WQE_LOAD, where qpn_reg and ci_reg already hold their values and
    // nothing writes the table
    logic [23:0] first_psn_rd_reg;
    always_ff @(posedge clk) first_psn_rd_reg <= first_psn_mem[{qpn_reg, ci_reg[INFLIGHT_LOG2-1:0]}];
    wire [23:0] wqe_first_psn = resend ? first_psn_rd_reg : psn_reg;
    wire [23:0] skip_pkts_raw = psn_reg - wqe_first_psn;
    wire [23:0] skip_pkts = skip_pkts_raw[23] ? 24'd0 : skip_pkts_raw;
    // A WQE sent before (resend) resumes at psn_reg: the packets and bytes
    // it skips, and what is left of it, are registered in three steps behind
    // S_PARSE's inputs (which hold while it waits for them: parse_wait_reg),
    // so the subtract, the shift and the length's subtract are not one path
    // into the parse. A first send skips nothing and does not wait.
    logic [2:0]  parse_wait_reg;
    logic [23:0] skip_pkts_q;
    logic [31:0] skip_bytes_q, rem_q;
    logic        skip_past_q;
    always_ff @(posedge clk) begin
        skip_pkts_q <= skip_pkts;
        skip_bytes_q <= 32'(skip_pkts_q) << (32'(pmtu_code_reg) + 32'd7);
        rem_q <= wqe_length - skip_bytes_q;
        skip_past_q <= skip_pkts_q != 0 && skip_bytes_q >= wqe_length;
        rd_clamp_q <= rem_q > rd_cap_bytes_reg;
        rd_mid_q <= skip_pkts_q != '0;
        if (state_reg == S_PARSE && wqe_st_seen_reg && resend_fresh && resend && parse_wait_reg != 3'd4)
            parse_wait_reg <= parse_wait_reg + 3'd1;
        if (state_reg != S_PARSE || rst) parse_wait_reg <= 3'd0;
    end
    logic       wqe_dec_rd_fence;   // (the WQE's decode, below)
    // (only a READ, an ATOMIC or a fenced WQE waits for the READ count: the
    // others do not look at it, and a WQE of the turn taken from the cache
    // comes to S_PARSE in the second cycle after its predecessor's record)
    wire        parse_go = wqe_st_seen_reg && resend_fresh && (rd_fresh_reg || !wqe_dec_rd_fence)
                           && (!resend || parse_wait_reg == 3'd4);
    // A READ sent before (its record written: below the high-water mark)
    // and re-read under a limited send window asks for no more than the
    // window's PSNs (rd_part: the rest on later turns, each once nothing is
    // outstanding, so no responder cuts a re-read short for the next); the
    // request's length is registered behind rem_q (parse_wait's fourth cycle),
    // as is whether it resumes mid-message
    logic [31:0] rd_cap_bytes_reg;
    logic        rd_clamp_q, rd_mid_q, rd_resent_reg, rd_busy_reg;
    // registered: the window is this QP's (updated) from the turn's third
    // cycle, qpc_reg too, and S_PARSE comes in its fourth at the earliest
    logic        wnd_lim_reg;
    always_ff @(posedge clk) begin
        wnd_lim_reg <= cwnd != 16'hffff && wnd_timer_on;
        rd_cap_bytes_reg <= 32'(cwnd) << (32'(pmtu_code_reg) + 32'd7);
        rd_resent_reg <= ci_reg != q_sq_hi;
        rd_busy_reg <= !wnd_used_reg[23] && wnd_used_reg != '0;
    end
    // Only when the responder took the READ's request, so every piece is a
    // duplicate to it: mid-message (a response of it came in order), or at
    // its first PSN when that is the first unacknowledged one and the
    // completion engine has seen a response past it since the last progress
    // (una_rd_gap; rd_head_q). Otherwise a READ resumed at its first PSN asks
    // for all of it (its request may have been lost, and a piece would be a
    // new, shorter READ to the responder).
    logic        rd_head_q;
    always_ff @(posedge clk) rd_head_q <= head_gap_reg && psn_reg == head_psn_reg;
    wire         rd_resent = op_read && resend && rd_resent_reg && wnd_lim_reg;
    wire         rd_again = rd_resent && (rd_mid_q || rd_head_q);
    wire         rd_part = rd_again && rd_clamp_q;
    // A re-sent READ asked for whole although it is larger than the window
    // (rd_resent && rd_clamp_q, not rd_again) waits, as each piece does, until
    // nothing is outstanding: behind other outstanding PSNs it would let out
    // more than the window allows (a responder answers it in full).
    wire         rd_wait_idle = rd_again || (rd_resent && rd_clamp_q);
    wire [23:0] p_skip_pkts = resend ? skip_pkts_q : 24'd0;
    wire [31:0] skip_bytes = resend ? skip_bytes_q : 32'd0;
    wire [31:0] p_remaining = resend ? rem_q : wqe_length;
    wire        p_skip_past = resend && skip_past_q;
    // rem_le_mtu_reg and rem_nz_reg (above)
    always_ff @(posedge clk) begin
        if (state_reg == S_PKT_NEXT) begin
            rem_le_mtu_reg <= rem_nx_reg <= mtu_bytes_reg;
            rem_nz_reg <= rem_nx_reg != 32'd0;
        end else if (state_reg == S_PARSE && wqe_inline) begin
            rem_le_mtu_reg <= 1'b1;
            rem_nz_reg <= p_remaining != 32'd0;
        end else begin
            rem_le_mtu_reg <= remaining_reg <= mtu_bytes_reg;
            rem_nz_reg <= remaining_reg != 32'd0;
        end
    end

    // wqe_reg's loads: the window's WQE, a beat of a direct read or (one
    // cycle behind the address: beat n arrives when beat_reg is n + 1) of
    // the cache, the flush's clear.
    wire wqe_ld_direct = state_reg == S_WQE_DESC && direct_reg && !win_take && s_axis_wqe_tvalid && s_axis_wqe_tready
                         && dbeat_reg < 5'(WQE_BEATS);
    wire wqe_ld_cache = state_reg == S_WQE_LOAD && beat_reg != 0;
    // A beat comes from the read stream or from the cache, in different
    // states: one multiplexer for the beat (DATA_WIDTH bits), not one per
    // bit of wqe_reg, where each bit then chooses between the window and
    // the beat (at 64 bits a WQE is 16 beats: a 3:1 choice on all of
    // wqe_reg was some 1,000 LUT4 more on ECP5).
    wire [DATA_WIDTH-1:0] wqe_beat_data = (state_reg == S_WQE_DESC) ? s_axis_wqe_tdata : cache_rd_data;
    logic [WQE_BEATS-1:0] wqe_beat_en;
    always_comb
        // (each beat's slot by a constant compare, not a computed index:
        // the subtract ran into the slots' enables; the next WQE's first
        // word is read in S_PKT_NEXT, above)
        for (int b = 0; b < WQE_BEATS; b++)
            wqe_beat_en[b] = (wqe_ld_direct && dbeat_reg == 5'(b)) || (wqe_ld_cache && beat_reg == 5'(b + 1))
                             || (WQE_BEATS > 1 && b == 0 && state_reg == S_RECORD && rec_w0_reg);
    always_ff @(posedge clk) begin
        for (int b = 0; b < WQE_BEATS; b++)
            if (win_take || wqe_beat_en[b])
                wqe_reg[DATA_WIDTH * b +: DATA_WIDTH] <= win_take ? win_data[DATA_WIDTH * b +: DATA_WIDTH] : wqe_beat_data;
        if (state_reg == S_FLUSH) wqe_reg <= '0;
    end

    // What S_PARSE decides on (the opcode, the length checks, the SGE sum's
    // carry-save addends) is a register beside wqe_reg, wqe_dec_reg: from
    // wqe_reg it ran into S_PARSE's choice of state, 14 levels at 512 bits.
    // It is the decode of wqe_reg a cycle late, but of the value wqe_reg
    // takes where S_PARSE or S_RECORD follows the load at once: the
    // window's WQE, the cache's last beat (over the rest of wqe_reg), the
    // flush's clear. A direct read's last beat comes at least a cycle
    // before S_WQE_DESC leaves. Each is decoded from its source, not after
    // the choice between them (decoded after the choice it was 13 levels).
    // Asserted equal to the decode of wqe_reg outside the loading states.
    localparam int D_READ = 0, D_CAS = 1, D_FAA = 2, D_SEND = 3, D_SEND_INV = 4, D_IMM = 5, D_WRITE = 6,
                   D_BIND = 7, D_LOCAL_INV = 8, D_SGE_OVER = 9, D_INL_BAD = 10, D_LEN_NOT8 = 11,
                   D_LEN_GT = 12,          // 5 bits: length > 256 << i, i = path MTU code - 1
                   D_BIND_NZ = 17, D_BIND_HI = 18, D_SGE0 = 19, D_SS_X = 20, D_SS_Y = 55, D_RD_FENCE = 90, D_W = 91;
    localparam int NSGE_LO_W = $clog2(MAX_SGE + 1);   // bits of an SGE count up to MAX_SGE
    // one 3:2 carry-save level: {carry << 1, sum}
    function automatic logic [69:0] csa35(input logic [34:0] x, input logic [34:0] y, input logic [34:0] z);
        csa35 = {((x & y) | (x & z) | (y & z)) << 1, x ^ y ^ z};
    endfunction
    function automatic logic [D_W-1:0] wqe_decode(input logic [WQE_BITS-1:0] w);
        logic [7:0]  op, nsge, inl;
        logic [31:0] len;
        logic [34:0] x, y, a_s, a_c, b_s, b_c, c_s, c_c;
        logic [34:0] t [4];
        logic [D_W-1:0] d;
        op = w[8 * rnic_pkg::WQE_OPCODE_OFF +: 8];
        nsge = w[8 * rnic_pkg::WQE_NUM_SGE_OFF +: 8];
        inl = w[8 * rnic_pkg::WQE_INLINE_LEN_OFF +: 8];
        len = w[8 * rnic_pkg::WQE_LENGTH_OFF +: 32];
        d = '0;
        d[D_READ] = op == rnic_pkg::WR_RDMA_READ[7:0];
        d[D_CAS] = op == rnic_pkg::WR_ATOMIC_CMP_AND_SWP[7:0];
        d[D_FAA] = op == rnic_pkg::WR_ATOMIC_FETCH_AND_ADD[7:0];
        d[D_SEND] = op == rnic_pkg::WR_SEND[7:0] || op == rnic_pkg::WR_SEND_WITH_IMM[7:0]
                    || op == rnic_pkg::WR_SEND_WITH_INV[7:0];
        d[D_SEND_INV] = op == rnic_pkg::WR_SEND_WITH_INV[7:0];
        d[D_IMM] = op == rnic_pkg::WR_SEND_WITH_IMM[7:0] || op == rnic_pkg::WR_RDMA_WRITE_WITH_IMM[7:0];
        d[D_WRITE] = op == rnic_pkg::WR_RDMA_WRITE[7:0] || op == rnic_pkg::WR_RDMA_WRITE_WITH_IMM[7:0];
        d[D_BIND] = op == rnic_pkg::WR_BIND_MW[7:0];
        d[D_LOCAL_INV] = op == rnic_pkg::WR_LOCAL_INV[7:0];
        d[D_SGE_OVER] = rnic_gates_pkg::gt_const(32'(nsge), 32'(MAX_SGE));
        d[D_INL_BAD] = rnic_gates_pkg::gt_const(32'(inl), rnic_pkg::MAX_INLINE_BYTES) || 32'(inl) != len;
        d[D_LEN_NOT8] = len != 32'd8;
        for (int i = 0; i < 5; i++) d[D_LEN_GT + i] = rnic_gates_pkg::gt_const(len, 32'd256 << i);
        d[D_BIND_NZ] = w[8 * rnic_pkg::WQE_COMPARE_ADD_OFF +: 64] != 64'd0;
        d[D_BIND_HI] = w[8 * rnic_pkg::WQE_COMPARE_ADD_OFF + 32 +: 32] != 32'd0;
        d[D_SGE0] = nsge != 8'd0 && sge_len(w, 0) != 32'd0;
        // a READ, an ATOMIC or a fenced WQE: S_PARSE looks at the READ count
        d[D_RD_FENCE] = d[D_READ] || d[D_CAS] || d[D_FAA]
                        || (w[8 * rnic_pkg::WQE_FLAGS_OFF +: 8] & rnic_pkg::WQE_FLAG_FENCE[7:0]) != 0;
        // ~length, 1 and the four (gated) lengths in a balanced 3:2 tree,
        // three adder levels deep (a chain of four was one more)
        // (each gated by the SGE count's low bits only: a count past
        // MAX_SGE fails the WQE (D_SGE_OVER) before the sum is looked at,
        // and the gate and the first 3:2 level then fit one LUT)
        for (int i = 0; i < 4; i++)
            t[i] = (i < MAX_SGE && NSGE_LO_W'(nsge) > NSGE_LO_W'(i)) ? 35'(sge_len(w, i)) : 35'd0;
        {a_c, a_s} = csa35(~{3'b000, len}, t[0], t[1]);
        {b_c, b_s} = csa35(t[2], t[3], 35'd1);
        {c_c, c_s} = csa35(a_s, a_c, b_s);
        {y, x} = csa35(c_s, c_c, b_c);
        d[D_SS_X +: 35] = x;
        d[D_SS_Y +: 35] = y;
        wqe_decode = d;
    endfunction
    wire  [D_W-1:0] dec_win = wqe_decode(win_data);
    wire  [D_W-1:0] dec_cache = wqe_decode(wqe_last_beat);
    wire  [D_W-1:0] dec_held = wqe_decode(wqe_reg);
    logic [D_W-1:0] wqe_dec_reg;
    always_ff @(posedge clk)
        wqe_dec_reg <= (state_reg == S_FLUSH) ? wqe_decode('0)
                     : win_take ? dec_win
                     : (state_reg == S_WQE_LOAD && beat_reg == 5'(WQE_BEATS)) ? dec_cache : dec_held;
    assign op_read = wqe_dec_reg[D_READ];
    assign op_cas = wqe_dec_reg[D_CAS];
    assign op_faa = wqe_dec_reg[D_FAA];
    assign op_send = wqe_dec_reg[D_SEND];
    assign op_send_inv = wqe_dec_reg[D_SEND_INV];
    assign op_imm = wqe_dec_reg[D_IMM];
    assign op_write = wqe_dec_reg[D_WRITE];
    assign op_bind = wqe_dec_reg[D_BIND];
    assign op_local_inv = wqe_dec_reg[D_LOCAL_INV];
    assign wqe_dec_ss_x = wqe_dec_reg[D_SS_X +: 35];
    assign wqe_dec_ss_y = wqe_dec_reg[D_SS_Y +: 35];
    wire        wqe_dec_sge_over = wqe_dec_reg[D_SGE_OVER];
    wire        wqe_dec_inl_bad = wqe_dec_reg[D_INL_BAD];
    wire        wqe_dec_len_not8 = wqe_dec_reg[D_LEN_NOT8];
    wire [4:0]  wqe_dec_len_gt = wqe_dec_reg[D_LEN_GT +: 5];
    // A gathered (not inline) WQE's length check, registered: the SGEs'
    // sum against the WQE's length, an ATOMIC's 8 bytes, a UD message
    // within the path MTU. S_PARSE goes on to S_LKEY_RD, S_LKEY_CHK or
    // S_LKEY_C2, which look at it first (wqe_dec_reg holds from S_PARSE on, so it is
    // current there; asserted); as one of S_PARSE's choices the 35-bit
    // compare ran through the whole priority chain into state_reg (12
    // levels). An MW operation, which also uses S_LKEY_CHK, has no such
    // check.
    logic        len_err_reg;
    wire         len_err = !op_mw && !wqe_inline
                           && (!sge_sum_ok || (op_atomic && wqe_dec_len_not8) || (qpc_ud && |(wqe_dec_len_gt & pmtu_onehot_reg)));
    always_ff @(posedge clk) len_err_reg <= len_err;
    wire        wqe_dec_bind_len_nz = wqe_dec_reg[D_BIND_NZ];
    wire        wqe_dec_bind_len_hi = wqe_dec_reg[D_BIND_HI];
    wire        wqe_dec_sge0 = wqe_dec_reg[D_SGE0];
    assign wqe_dec_rd_fence = wqe_dec_reg[D_RD_FENCE];

    // S_WQE_DESC's lookups, a cycle ahead (see wd_go)
    always_ff @(posedge clk) begin
        wd_win_q <= win_at;
        wd_hit_q <= c_at;
        wd_pend_q <= c_pend_at;
        wd_err_q <= c_err_at;
        wd_moved_q <= record;
        // (c_hi moving on as WQEs arrive only turns pending lookups into
        // hits: a lookup a cycle old is still right about what it saw, and
        // a read that ends OKAY changes nothing more)
        wd_cache_chg_q <= fetch_start || fd_state_reg == FD_SIZE || fd_state_reg == FD_SIZE2 || qp_reset_valid
                          || fetch_done_err;
        own_ok_reg <= own_ok;
        own_chg_q <= !serving || state_reg == S_RECORD || fetch_start || fd_state_reg == FD_SIZE || fetch_done
                     || qp_reset_valid;
    end

    always_ff @(posedge clk) begin
        stat_loc_prot_err <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (s_qp_valid && s_qp_ready) begin
                    qpn_reg <= s_qp_qpn;
                    pi_reg <= s_qp_pi;
                    ci_reg <= rewind ? una_rd_idx : s_sq_ci;
                    psn_reg <= rewind ? una_rd_acked_psn + 24'd1 : s_next_psn;
                    head_psn_reg <= una_rd_acked_psn + 24'd1;
                    head_gap_reg <= una_rd_gap;
                    state_reg <= S_QPC;
                end
            end
            S_QPC: begin
                qpc_reg <= qpc_rd_data;
                first_psn_reg <= psn_reg;
                turn_pkts_reg <= '0;
                turn_last_reg <= 16'd1 >= 16'(TURN_PKTS);
                turn_over_reg <= 1'b0;
                requeue_reg <= 1'b0;
                state_reg <= S_DONE;
                if (una_moved) begin
                    requeue_reg <= 1'b1;
                end else if (ci_reg == pi_reg && infl_nz_q && (err_rd_val || tx_err_mem[qpn_reg]
                    || qpc_rd_data[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W] == 4'(rnic_pkg::QPS_ERR))) begin
                    note_rec_reg <= 1'b0;
                    state_reg <= S_NOTIFY;
                end else if (ci_reg == pi_reg || infl_block_q || una_rd_rnr_wait) begin
                    // nothing to send, wait for completions to free the window,
                    // or wait for the RNR timer (the completion engine kicks)
                end else if (qpc_rd_data[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W] == 4'(rnic_pkg::QPS_ERR)
                             || err_rd_val || tx_err_mem[qpn_reg]) begin
                    // flush: every outstanding WQE completes with WR_FLUSH_ERR
                    status_reg <= rnic_pkg::WC_WR_FLUSH_ERR[7:0];
                    state_reg <= S_FLUSH;
                end else if (qpc_rd_data[rnic_pkg::QPC_STATE_LSB +: rnic_pkg::QPC_STATE_W] == 4'(rnic_pkg::QPS_RTS)) begin
                    state_reg <= S_WQE_DESC;
                end
            end
            S_WQE_DESC: begin
                beat_reg <= '0;
                sge_idx_reg <= '0;
                wqe_rd_err_reg <= 1'b0;
                wqe_st_seen_reg <= 1'b0;
                if (!wd_go) begin
                    // the lookups are a cycle old: look again
                end else if (win_hit) begin
                    // (wqe_reg loads the window's WQE: win_take)
                    wqe_st_seen_reg <= 1'b1;
                    state_reg <= S_PARSE;
                end else if (c_err_hit) begin
                    wqe_rd_err_reg <= 1'b1;
                    wqe_st_seen_reg <= 1'b1;
                    state_reg <= S_PARSE;
                end else if (c_hit && direct_reg && dbeat_reg == 5'(WQE_BEATS)) begin
                    // it came in with the read, straight into wqe_reg
                    wqe_st_seen_reg <= 1'b1;
                    state_reg <= S_PARSE;
                end else if (c_hit) begin
                    state_reg <= S_WQE_LOAD;
                end
                // otherwise the WQE is being read (or is asked for now): a
                // read that starts with it fills wqe_reg as it arrives
                if (miss_fetch && fetch_start) begin
                    direct_reg <= 1'b1;
                    dbeat_reg <= '0;
                end
                if (wqe_ld_direct) dbeat_reg <= dbeat_reg + 5'd1;
            end
            S_WQE_LOAD: begin
                direct_reg <= 1'b0;
                sge_idx_reg <= '0;
                if (beat_reg == 5'(WQE_BEATS)) begin
                    wqe_st_seen_reg <= 1'b1;
                    state_reg <= S_PARSE;
                end else begin
                    beat_reg <= beat_reg + 1'b1;
                end
            end
            S_PARSE: if (parse_go) begin
                direct_reg <= 1'b0;
                status_reg <= rnic_pkg::WC_SUCCESS[7:0];
                sge_idx_reg <= '0;
                sge_off_reg <= wqe_inline ? skip_bytes : 32'd0;
                remaining_reg <= rd_part ? rd_cap_bytes_reg : p_remaining;
                rd_part_reg <= rd_part;
                pkt_idx_reg <= 32'(p_skip_pkts);
                first_psn_reg <= wqe_first_psn;
                resend_reg <= resend;
                skip_reg <= skip_bytes;
                reth_off_reg <= skip_bytes;
                inline_reg <= wqe_inline;
                if (wqe_rd_err_reg) begin
                    status_reg <= rnic_pkg::WC_LOC_QP_OP_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (op_supported && rd_blocked) begin
                    // max_rd_atomic READs in flight (or a fence): the retiring
                    // READ kicks the QP back
                    state_reg <= S_DONE;
                end else if (op_supported && ((wnd_full_reg && wnd_timed_reg) || (rd_wait_idle && rd_busy_reg))) begin
                    // the send window is full (or a READ re-read in pieces
                    // waits for the last piece, or a re-sent READ larger than
                    // the window for the last PSN before it): the next turn
                    // tries again (ACKs that passed meanwhile have grown it)
                    requeue_reg <= 1'b1;
                    state_reg <= S_DONE;
                end else if (!op_supported || (!wqe_inline && wqe_dec_sge_over)
                             || (op_rd_atomic && wqe_inline) || (qpc_ud && !op_send)) begin
                    status_reg <= rnic_pkg::WC_LOC_QP_OP_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (op_mw) begin
                    if (resend) begin
                        // answered with success before (a refusal put the
                        // QP in error): recorded so again
                        state_reg <= S_RECORD;
                    end else if (op_bind && wqe_dec_bind_len_nz) begin
                        // the MR's entry was read in this state; a window
                        // is at most 4 GiB - 1 (the SGE check's length)
                        if (wqe_dec_bind_len_hi) begin
                            status_reg <= rnic_pkg::WC_MW_BIND_ERR[7:0];
                            state_reg <= S_RECORD;
                        end else begin
                            state_reg <= S_LKEY_CHK;
                        end
                    end else begin
                        state_reg <= S_MW_WAIT;
                    end
                end else if (wqe_inline && wqe_dec_inl_bad) begin
                    // (a gathered WQE's lengths are checked in S_LKEY_RD
                    // or S_LKEY_CHK, next: len_err_reg)
                    status_reg <= rnic_pkg::WC_LOC_LEN_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (p_skip_past) begin
                    // a restart PSN past this WQE: all its packets are
                    // acknowledged and the completion engine is retiring it
                    // (a READ's or ATOMIC's CQE waits for its placement
                    // writes), so the rewind read its index before it moved
                    // on. Nothing to send; try again once it has.
                    requeue_reg <= 1'b1;
                    state_reg <= S_DONE;
                end else if (wqe_inline) begin
                    state_reg <= S_PKT_HDR;
                end else if (wqe_dec_sge0) begin
                    // its MPT entry was read in this state, or before it
                    // (the check's first stage then ran in this state)
                    state_reg <= mpt_pre_reg ? S_LKEY_C2 : S_LKEY_CHK;
                end else begin
                    state_reg <= S_LKEY_RD;
                end
            end
            S_LKEY_RD: begin
                if (len_err_reg) begin
                    status_reg <= rnic_pkg::WC_LOC_LEN_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (8'(sge_idx_reg) >= wqe_num_sge) begin
                    sge_idx_reg <= '0;
                    state_reg <= (skip_reg != 0 && !op_rd_atomic) ? S_SKIP : S_PKT_HDR;
                end else if (cur_len == 0) begin
                    sge_idx_reg <= sge_idx_reg + 1'b1;
                end else begin
                    state_reg <= S_LKEY_CHK;
                end
            end
            S_LKEY_CHK: begin
                mw_mr_access_reg <= mpt_rd_data[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W];
                state_reg <= S_LKEY_C2;
                if (len_err_reg) begin
                    status_reg <= rnic_pkg::WC_LOC_LEN_ERR[7:0];
                    state_reg <= S_RECORD;
                end
            end
            S_LKEY_C2: begin
                state_reg <= S_LKEY_CHKD;
                // from S_PARSE, this is the lengths' first look
                if (len_err_reg) begin
                    status_reg <= rnic_pkg::WC_LOC_LEN_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (chk_fast) begin
                    // the only SGE: S_PKT_HDR takes the result
                    chk_pend_reg <= 1'b1;
                    state_reg <= S_PKT_HDR;
                end
            end
            S_LKEY_CHKD: begin
                if (op_bind) begin
                    // the bind's range: inside the MR, else refused here
                    mw_pa_reg <= lkey_pa;
                    if (lkey_ok) begin
                        state_reg <= S_MW_WAIT;
                    end else begin
                        status_reg <= rnic_pkg::WC_MW_BIND_ERR[7:0];
                        stat_loc_prot_err <= 1'b1;
                        state_reg <= S_RECORD;
                    end
                end else if (lkey_ok) begin
                    sge_pa_reg[cur[1:0]] <= lkey_pa;
                    sge_idx_reg <= sge_idx_reg + 1'b1;
                    state_reg <= S_LKEY_RD;
                    // the last SGE: on to the packets (as S_LKEY_RD would)
                    if (8'(sge_idx_reg) + 8'd1 >= wqe_num_sge) begin
                        sge_idx_reg <= '0;
                        state_reg <= (skip_reg != 0 && !op_rd_atomic) ? S_SKIP : S_PKT_HDR;
                    end
                end else begin
                    status_reg <= rnic_pkg::WC_LOC_PROT_ERR[7:0];
                    stat_loc_prot_err <= 1'b1;
                    state_reg <= S_RECORD;
                end
            end
            S_SKIP: if (skip_cmp_ok) begin
                if (skip_ge_reg) begin
                    skip_reg <= skip_reg - sge_room;
                    sge_idx_reg <= sge_idx_reg + 1'b1;
                    sge_off_reg <= '0;
                    if (skip_eq_reg) state_reg <= S_PKT_HDR;
                end else begin
                    sge_off_reg <= sge_off_reg + skip_reg;
                    skip_reg <= '0;
                    state_reg <= S_PKT_HDR;
                end
            end
            S_PKT_HDR: begin
                seg_left_reg <= seg_len;
                chk_pend_reg <= 1'b0;
                if (chk_pend_reg) sge_pa_reg[0] <= lkey_pa;
                if (chk_pend_reg && !lkey_ok) begin
                    status_reg <= rnic_pkg::WC_LOC_PROT_ERR[7:0];
                    stat_loc_prot_err <= 1'b1;
                    state_reg <= S_RECORD;
                end else if (ah_pending) begin
                    // the AH's check is registered next cycle
                end else if (ud_bad_ah) begin
                    // no such address handle (or another PD's): nothing sent
                    status_reg <= rnic_pkg::WC_LOC_QP_OP_ERR[7:0];
                    state_reg <= S_RECORD;
                end else if (m_hdr_ready) begin
                    // no payload (seg_len == 0) without seg_len's MTU compare
                    state_reg <= m_hdr_pay ? S_PAY_DESC : S_PKT_NEXT;
                end
            end
            S_PAY_DESC: begin
                if (!room_ok) begin
                    // the room of the SGE moved on: it is registered next cycle
                end else if (room_zero_reg && !inline_reg) begin
                    // this SGE is used up (or empty): move on
                    sge_idx_reg <= sge_idx_reg + 1'b1;
                    sge_off_reg <= '0;
                end else if (m_axis_pay_desc_ready) begin
                    sge_off_reg <= off_after;
                    seg_left_reg <= left_after;
                    if (left_fits) state_reg <= S_PKT_NEXT;
                end
            end
            S_PKT_NEXT: begin
                remaining_reg <= rem_nx_reg;
                pkt_idx_reg <= pkt_idx_reg + 1'b1;
                psn_reg <= psn_nx_reg;
                turn_pkts_reg <= turn_pkts_reg + 16'd1;
                turn_last_reg <= 16'(turn_pkts_reg + 16'd2) >= 16'(TURN_PKTS);
                turn_over_reg <= turn_last_reg;
                if (pkt_last && !rd_part_reg) begin
                    state_reg <= S_RECORD;
                end else if (restart_pending || yield || wnd_stop_pkt || rd_part_reg) begin
                    // a restart or RNR wait is pending: the rest of this WQE
                    // would be dropped by the responder; stop, the next turn
                    // resumes from the first unacknowledged PSN. Or the turn
                    // is used up, or the send window, or a piece of a READ
                    // was asked for: the next turn resumes at the next PSN.
                    requeue_reg <= 1'b1;
                    state_reg <= S_DONE;
                end else begin
                    state_reg <= S_PKT_HDR;
                end
            end
            S_NOTIFY: if (m_local_ready) state_reg <= S_DONE;
            S_FLUSH: begin
                // wqe_reg is cleared here, not in S_QPC: its load enable
                // (512+ flip-flops) then does not wait for S_QPC's window
                // arithmetic on the completion engine's ACK index
                state_reg <= S_RECORD;
            end
            S_MW_WAIT: begin
                if (mw_reset_hit) mw_stale_reg <= 1'b1;
                if (mw_ans_valid) begin
                    status_reg <= mw_ans_status;
                    mw_stale_reg <= 1'b0;
                    state_reg <= S_RECORD;
                    if (mw_stale_reg || mw_reset_hit) begin
                        // the QP was reset meanwhile: its send state is
                        // new, this WQE is not recorded
                        requeue_reg <= 1'b0;
                        state_reg <= S_DONE;
                    end
                end
            end
            S_RECORD: begin
                ci_reg <= next_idx;
                requeue_reg <= 1'b1;
                state_reg <= need_walk ? S_NOTIFY : S_DONE;
                note_rec_reg <= 1'b1;
                note_force_reg <= qp_in_err_q;
                if (chain) begin
                    requeue_reg <= 1'b0;
                    state_reg <= S_WQE_DESC;
                    if (ld_ahead) begin
                        // its first word is being read (rd_ahead): as
                        // S_WQE_DESC would on a cache hit, a cycle on (or
                        // two: the first word is in wqe_reg, the second
                        // being read)
                        beat_reg <= (WQE_BEATS > 1 && rec_w0_reg) ? 5'd2 : 5'd1;
                        wqe_rd_err_reg <= 1'b0;
                        wqe_st_seen_reg <= 1'b0;
                        state_reg <= S_WQE_LOAD;
                    end
                end
            end
            S_DONE: begin
                state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase

        if (rst) begin
            state_reg <= S_IDLE;
            direct_reg <= 1'b0;
            rd_part_reg <= 1'b0;
            stat_loc_prot_err <= 1'b0;
            mw_stale_reg <= 1'b0;
            chk_pend_reg <= 1'b0;
        end
    end

    // dynamic state: written when a WQE is recorded, reset with the context.
    // The context write is taken only in a cycle in which the engine writes
    // none of it (ctx_ready), so each array has one write port: all these
    // writes come after S_IDLE or with a QP taken in it, which waits while
    // the context write does.
    wire wr_parse = state_reg == S_PARSE && wqe_st_seen_reg && resend_fresh && !resend;
    wire wr_pkt = state_reg == S_PKT_NEXT;
    wire wr_rewind = s_qp_valid && s_qp_ready && rewind;
    // S_MW_WAIT writes nothing either: a context write need not wait for
    // the firmware's answer (the firmware may be busy with that very write)
    // (rnic_core writes a cycle after ctx_ready, so a window request
    // answered in this cycle, which leaves S_MW_WAIT, is not ready)
    assign ctx_ready = (state_reg == S_IDLE || (state_reg == S_MW_WAIT && !mw_ans_valid)) && ctx_pend;
    assign m_restart_valid = wr_rewind;
    assign m_restart_qpn = s_qp_qpn;
    // the READ mask of the QP with this WQE's bit set or cleared
    logic [2**INFLIGHT_LOG2-1:0] rd_mask_next;
    always_comb begin
        rd_mask_next = rd_mask;
        rd_mask_next[ci_reg[INFLIGHT_LOG2-1:0]] = op_rd_atomic && status_reg == rnic_pkg::WC_SUCCESS[7:0];
    end
    // Addresses and data by state (S_RECORD, S_PKT_NEXT, or else a context
    // write or a rewind, both in S_IDLE: the sources never meet, asserted
    // below), the enables from each source's decision: the decisions (the
    // record's walk, the rewind's ACK compares, a packet's) reach only the
    // enables and the forwards behind them
    wire ctx_wr = qp_reset_valid || qp_rts_valid;
    // a record moves the high-water mark past its WQE: a first send, or a
    // resend that reached the mark
    wire hi_adv = !resend_reg || ci_reg == q_sq_hi;
    // a packet's write of the next PSN: it stops mid-message, or a READ part ends
    wire npsn_pkt_we = (!pkt_last && (yield || wnd_stop_pkt)) || rd_part_reg;
    wire in_rec = state_reg == S_RECORD, in_pkt = state_reg == S_PKT_NEXT;
    always_comb begin
        sq_ci_we = qp_reset_valid || record || wr_rewind;
        sq_ci_wa = in_rec ? qpn_reg : qp_reset_valid ? qp_reset_qpn : s_qp_qpn;
        sq_ci_wd = in_rec ? ci_reg + 16'd1 : qp_reset_valid ? 16'd0 : una_rd_idx;
        next_psn_we = ctx_wr || record || (wr_pkt && npsn_pkt_we) || wr_rewind;
        next_psn_wa = (in_rec || in_pkt) ? qpn_reg : ctx_wr ? qp_reset_qpn : s_qp_qpn;
        next_psn_wd = in_rec ? psn_reg : in_pkt ? (rd_part_reg ? psn_nx_reg : psn_reg + 24'd1)
                    : ctx_wr ? qp_reset_sq_psn : una_rd_acked_psn + 24'd1;
        // every record writes the high-water mark: past this WQE when it
        // reaches it (hi_adv), else its value again. (As an enable, the
        // compare behind the forwarding mux ran into the forward flags of
        // the three read ports: 11 levels.)
        sq_hi_we = qp_reset_valid || record;
        sq_hi_wa = in_rec ? qpn_reg : qp_reset_qpn;
        sq_hi_wd = !in_rec ? 16'd0 : hi_adv ? ci_reg + 16'd1 : q_sq_hi;
        // the ACK window reaches the highest PSN on the wire
        hi_psn_we = ctx_wr || (wr_pkt && hi_adv_reg);
        hi_psn_wa = in_pkt ? qpn_reg : qp_reset_qpn;
        hi_psn_wd = in_pkt ? psn_nx_reg : qp_reset_sq_psn;
        rewind_ack_we = qp_reset_valid || wr_rewind;
        rewind_ack_wa = qp_reset_valid ? qp_reset_qpn : s_qp_qpn;
        rewind_ack_wd = qp_reset_valid ? 2'd0 : una_rd_rewind;
    end
    always_comb begin
        sent_time_we = qp_reset_valid || (record && !qp_rts_valid && ci_reg == una_rd_idx);
        sent_time_wa = qp_reset_valid ? qp_reset_qpn : qpn_reg;
        sent_time_wd = qp_reset_valid ? 48'd0 : now;
    end
    always_ff @(posedge clk) begin
        if (sent_time_we) sent_time_mem[sent_time_wa] <= sent_time_wd;
        if (sq_ci_we) sq_ci_mem[sq_ci_wa] <= sq_ci_wd;
        if (next_psn_we) next_psn_mem[next_psn_wa] <= next_psn_wd;
        if (sq_hi_we) sq_hi_mem[sq_hi_wa] <= sq_hi_wd;
        if (hi_psn_we) hi_psn_mem[hi_psn_wa] <= hi_psn_wd;
        if (rewind_ack_we) rewind_ack_mem[rewind_ack_wa] <= rewind_ack_wd;
    end

    // the registered reads (ports s and q, above)
    always_ff @(posedge clk) begin
        s_addr_reg <= s_qp_qpn;
        s_sq_ci_ram <= sq_ci_mem[s_qp_qpn];
        s_next_psn_ram <= next_psn_mem[s_qp_qpn];
        s_rewind_ack_ram <= rewind_ack_mem[s_qp_qpn];
        q_sq_hi_ram <= sq_hi_mem[qpn_reg];
        q_hi_psn_ram <= hi_psn_mem[qpn_reg];
        q_rewind_ack_ram <= rewind_ack_mem[qpn_reg];
        hi_idx_ram <= sq_hi_mem[hi_rd_qpn];
        hi_psn_ram <= hi_psn_mem[hi_rd_qpn];
        hi2_idx_ram <= sq_hi_mem[hi2_rd_qpn];
        hi2_sent_time_ram <= sent_time_mem[hi2_rd_qpn];
    end
    // ... and the write each missed: in the RAM only after the read (below)
    // Where a rewind writes (at the QP it takes, port s's address), the
    // forward is formed per source of the write, not from the write port's
    // address: the sources never meet (the context write never meets the
    // engine's own, asserted; record, wr_pkt and wr_rewind are in different
    // states), and the rewind's decision is deep (ACK index compares)
    wire rs_s = qp_reset_qpn == s_qp_qpn, rs_q = qp_reset_qpn == qpn_reg, cur_s = qpn_reg == s_qp_qpn;
    always_ff @(posedge clk) begin
        s_sq_ci_fwd <= (qp_reset_valid && rs_s) || (record && cur_s) || wr_rewind;
        s_next_psn_fwd <= ((qp_reset_valid || qp_rts_valid) && rs_s) || ((record || (wr_pkt && npsn_pkt_we)) && cur_s)
                          || wr_rewind;
        s_rewind_ack_fwd <= (qp_reset_valid && rs_s) || wr_rewind;
        q_sq_hi_fwd <= sq_hi_we && sq_hi_wa == qpn_reg;
        q_hi_psn_fwd <= hi_psn_we && hi_psn_wa == qpn_reg;
        q_rewind_ack_fwd <= (qp_reset_valid && rs_q) || (wr_rewind && cur_s);
        hi_idx_fwd <= sq_hi_we && sq_hi_wa == hi_rd_qpn;
        hi_psn_fwd <= hi_psn_we && hi_psn_wa == hi_rd_qpn;
        hi2_idx_fwd <= sq_hi_we && sq_hi_wa == hi2_rd_qpn;
        hi2_sent_time_fwd <= sent_time_we && sent_time_wa == hi2_rd_qpn;
        sq_ci_wd_reg <= sq_ci_wd;
        next_psn_wd_reg <= next_psn_wd;
        sq_hi_wd_reg <= sq_hi_wd;
        hi_psn_wd_reg <= hi_psn_wd;
        rewind_ack_wd_reg <= rewind_ack_wd;
        sent_time_wd_reg <= sent_time_wd;
    end
    assign s_sq_ci = s_sq_ci_fwd ? sq_ci_wd_reg : s_sq_ci_ram;
    assign s_next_psn = s_next_psn_fwd ? next_psn_wd_reg : s_next_psn_ram;
    assign s_rewind_ack = s_rewind_ack_fwd ? rewind_ack_wd_reg : s_rewind_ack_ram;
    assign q_sq_hi = q_sq_hi_fwd ? sq_hi_wd_reg : q_sq_hi_ram;
    assign q_hi_psn = q_hi_psn_fwd ? hi_psn_wd_reg : q_hi_psn_ram;
    assign q_rewind_ack = q_rewind_ack_fwd ? rewind_ack_wd_reg : q_rewind_ack_ram;
    assign hi_rd_idx = hi_idx_fwd ? sq_hi_wd_reg : hi_idx_ram;
    assign hi_rd_psn = hi_psn_fwd ? hi_psn_wd_reg : hi_psn_ram;
    assign hi2_rd_idx = hi2_idx_fwd ? sq_hi_wd_reg : hi2_idx_ram;
    assign hi2_rd_sent_time = hi2_sent_time_fwd ? sent_time_wd_reg : hi2_sent_time_ram;

    // the other per-QP state
    always_ff @(posedge clk) begin
        if (qp_reset_valid) begin
            tx_err_mem[qp_reset_qpn] <= 1'b0;
            started_mem[qp_reset_qpn] <= 1'b0;
            rd_mask_mem[qp_reset_qpn] <= '0;
        end else if (record && !qp_rts_valid) begin
            if (hi_adv) started_mem[qpn_reg] <= 1'b0;
            first_psn_mem[{qpn_reg, ci_reg[INFLIGHT_LOG2-1:0]}] <= first_psn_reg;
            rd_mask_mem[qpn_reg] <= rd_mask_next;
            if (status_reg != rnic_pkg::WC_SUCCESS[7:0]) tx_err_mem[qpn_reg] <= 1'b1;
        end else if (wr_parse && !qp_rts_valid) begin
            // a new WQE: remember where it starts, in case it is cut short
            first_psn_mem[{qpn_reg, ci_reg[INFLIGHT_LOG2-1:0]}] <= psn_reg;
            started_mem[qpn_reg] <= 1'b1;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    logic ref_s_sq_ci_fwd, ref_s_next_psn_fwd, ref_s_rewind_ack_fwd, ref_q_rewind_ack_fwd, ref_on_q, rec_w0_q;
    always_ff @(posedge clk) begin
        ref_on_q <= !rst;
        rec_w0_q <= WQE_BEATS > 1 && record && rec_w0_reg;
        ref_s_sq_ci_fwd <= sq_ci_we && sq_ci_wa == s_qp_qpn;
        ref_s_next_psn_fwd <= next_psn_we && next_psn_wa == s_qp_qpn;
        ref_s_rewind_ack_fwd <= rewind_ack_we && rewind_ack_wa == s_qp_qpn;
        ref_q_rewind_ack_fwd <= rewind_ack_we && rewind_ack_wa == qpn_reg;
    end
    wire [23:0] hi_psn_gap = psn_reg + pkt_psns - q_hi_psn;
    // the READ count against its definition: slots whose distance from una
    // is under inflight, or every slot when inflight is the window or more
    logic [RC_W-1:0] ref_rd_out;
    always_comb begin
        ref_rd_out = '0;
        for (int i = 0; i < 2 ** INFLIGHT_LOG2; i++)
            if (rd_mask[i] && (rd_win_all || INFLIGHT_LOG2'(INFLIGHT_LOG2'(i) - ring_u) < inflight[INFLIGHT_LOG2-1:0]))
                ref_rd_out = ref_rd_out + RC_W'(1);
    end
    logic [RC_W-1:0] ref_rd_out_q;
    always_ff @(posedge clk) ref_rd_out_q <= ref_rd_out;
    logic [34:0] ref_sge_sum;
    always_comb begin
        ref_sge_sum = '0;
        for (int i = 0; i < MAX_SGE; i++)
            if (32'(i) < 32'(wqe_num_sge)) ref_sge_sum = ref_sge_sum + 35'(sge_len(wqe_reg, i));
    end
    always_ff @(posedge clk) begin
        // (the trees count the slots registered in the cycle before)
        if (!rst) assert (rd_out == ref_rd_out_q);
        // a WQE read that ends OKAY has moved c_hi to its end, WQE by WQE;
        // its status fails exactly when a beat of it did
        for (int w = 0; w < 2; w++) begin
            if (!rst && rd_done[w] && !rd_stale_reg[w] && !rd_err_reg[w]) assert (c_hi_reg[w] == c_req_reg[w]);
            if (!rst && rd_done[w]) assert (rd_bad_reg[w] == rd_err_reg[w]);
        end
        // c_hi never passes the end of what is being read; beats come only
        // for a read whose descriptor went out, and in order
        if (!rst && fill_wqe_ok) assert (16'(c_hi_reg[dw_reg] - c_lo_reg[dw_reg]) < 16'(c_req_reg[dw_reg] - c_lo_reg[dw_reg]));
        if (!rst && fill_beat) assert (rd_act_reg[dw_reg] && !rd_data_reg[dw_reg] && !(fd_state_reg != FD_IDLE && fd_way_reg == dw_reg));
        if (!rst && s_wqe_status_valid) assert (sn_reg != 2'd0 && rd_act_reg[sw_reg] && !rd_st_reg[sw_reg]);
        if (!rst) assert (dn_reg <= 2'd2 && sn_reg <= 2'd2 && (dn_reg == 2'd2 || sn_reg == 2'd2 ? rd_act_reg == 2'b11 : 1'b1));
        // what S_PARSE compares is the count of its own cycle's ci, QP and
        // mask, or more (una moved on since); not where every slot counts
        // now (una past ci: nothing is outstanding then)
        if (!rst && state_reg == S_PARSE && parse_go && wqe_dec_rd_fence && !rd_win_all) assert (rd_out_reg >= ref_rd_out);
        // the registered AH check is the one on the entry read in S_PARSE
        if (!rst && state_reg == S_PKT_HDR && qpc_ud && !ah_wait_reg) assert (ah_ok_reg == ah_ok);
        // the header's hold, set a cycle ahead, is what its terms say now
        if (!rst && state_reg == S_PKT_HDR) assert (hdr_hold_reg == (ah_pending || ud_bad_ah || (chk_pend_reg && !lkey_ok)));
        // the fast check's result is the one of the SGE it went on with
        if (!rst && chk_pend_reg) assert (state_reg == S_PKT_HDR && sge_idx_reg == '0);
        // S_QPC's registered view of the window is the difference's, unless una moved
        if (!rst && state_reg == S_QPC && !una_moved)
            assert (infl_nz_q == (inflight != 0) && infl_block_q == (inflight >= 16'(1 << INFLIGHT_LOG2)));
        // a WQE chained on is posted, with room for it in the window (una
        // may have passed ci: go-back-N resends what ACKs then cover)
        if (!rst && record && chain) assert (next_idx != pi_reg && (inflight[15] || inflight <= 16'((1 << INFLIGHT_LOG2) - 2)));
        // the piece's address over its register is current
        if (!rst && m_axis_pay_desc_valid && !inline_reg)
            assert (pay_addr_sum == sge_pa_reg[cur[1:0]] + 64'(sge_off_reg));
        // an inline payload is one packet sent whole (the descriptor carries
        // the WQE's bytes from offset 0)
        if (!rst && m_axis_pay_desc_valid && inline_reg)
            assert (sge_off_reg == 0 && m_axis_pay_desc_last && piece <= 32'(rnic_pkg::MAX_INLINE_BYTES));
        // the room, the piece's sums and the next packet's rest over their
        // registers are current
        if (!rst && state_reg == S_PAY_DESC && room_ok) begin
            assert (sge_room == (inline_reg ? wqe_length : cur_len) - sge_off_reg && room_zero_reg == (sge_room == 0));
            assert (seg_left_reg < 32'h10000);
            assert (off_after == sge_off_reg + piece && left_after == seg_left_reg - piece);
        end
        // the skip's registered compares are of the current room and skip
        if (!rst && state_reg == S_SKIP && skip_cmp_ok)
            assert (sge_room == (inline_reg ? wqe_length : cur_len) - sge_off_reg
                    && skip_ge_reg == (skip_reg >= sge_room) && skip_eq_reg == (skip_reg == sge_room));
        if (!rst && (state_reg == S_PKT_HDR || state_reg == S_PAY_DESC || state_reg == S_PKT_NEXT))
            assert (rem_le_mtu_reg == (remaining_reg <= mtu_bytes_reg) && rem_nz_reg == (remaining_reg != 32'd0));
        if (!rst && state_reg == S_PKT_NEXT) begin
            assert (rem_nx_reg == remaining_reg - seg_len);
            assert (psn_nx_reg == psn_reg + pkt_psns && hi_adv_reg == (hi_psn_gap != 0 && !hi_psn_gap[23]));
        end
        if (!rst && state_reg == S_PKT_HDR)
            assert (reth_va == wqe_raddr + 64'(reth_off_reg) && reth_len == wqe_length - reth_off_reg);
        // the path MTU's registers are those of the QP in hand
        if (!rst && state_reg == S_PARSE)
            assert (mtu_bytes_reg == 32'(128) << pmtu_code_reg && pmtu_code_reg >= 3'(rnic_pkg::IB_MTU_256)
                    && pmtu_code_reg <= 3'(rnic_pkg::IB_MTU_4096)
                    && (qpc_pmtu < 3'(rnic_pkg::IB_MTU_256) || qpc_pmtu > 3'(rnic_pkg::IB_MTU_4096)
                        || pmtu_code_reg == qpc_pmtu));
        // ... and so is whether its window limits it
        // the turn's share flags are those of its count
        if (!rst && state_reg != S_IDLE && state_reg != S_QPC)
            assert (turn_last_reg == (turn_pkts_reg + 16'd1 >= 16'(TURN_PKTS))
                    && turn_over_reg == (turn_pkts_reg >= 16'(TURN_PKTS)));
        // the forwards formed per source are those of the write ports
        if (!rst && ref_on_q) assert (s_sq_ci_fwd == ref_s_sq_ci_fwd && s_next_psn_fwd == ref_s_next_psn_fwd
                          && s_rewind_ack_fwd == ref_s_rewind_ack_fwd && q_rewind_ack_fwd == ref_q_rewind_ack_fwd);
        // an own read-ahead is decided on its compares as they are now
        if (!rst && own_fetch) assert (own_ok);
        // one read per way at a time, one sized at a time
        if (!rst && fetch_start) assert (!rd_act_reg[f_way] && fd_state_reg == FD_IDLE);
        if (!rst && state_reg == S_PARSE) assert (wnd_lim_reg == (cwnd != 16'hffff && wnd_timer_on));
        // the WQE's decode is that of wqe_reg outside the loading states
        // (not in the cycle after a record that took the next WQE's first
        // word: the decode follows a cycle later, and the states after a
        // record that ends the turn read neither)
        if (!rst && state_reg != S_WQE_DESC && state_reg != S_WQE_LOAD && !rec_w0_q) assert (wqe_dec_reg == dec_held);
        // ... and its gate-level compares and carry-saved sum are the operators'
        if (!rst && state_reg == S_PARSE && wqe_st_seen_reg && !wqe_rd_err_reg) begin
            assert (wqe_dec_sge_over == (wqe_num_sge > 8'(MAX_SGE))
                    && wqe_dec_inl_bad == (wqe_inl_len > 8'(rnic_pkg::MAX_INLINE_BYTES) || 32'(wqe_inl_len) != wqe_length)
                    && |(wqe_dec_len_gt & pmtu_onehot_reg) == (wqe_length > mtu_bytes_reg));
            assert (wqe_dec_sge_over || sge_sum_ok == (ref_sge_sum == {3'b000, wqe_length}));
        end
        // the gathered WQE's length check is current where it is looked at
        if (!rst && (state_reg == S_LKEY_RD || state_reg == S_LKEY_CHK || state_reg == S_LKEY_C2))
            assert (len_err_reg == len_err);
        // S_PARSE presents the first SGE to the key check
        if (!rst && state_reg == S_PARSE) assert (sge_idx_reg == '0);
        // the context write never meets the engine's own update
        if (!rst) assert (!((qp_reset_valid || qp_rts_valid) && !(state_reg == S_IDLE || state_reg == S_MW_WAIT)));
        // and the engine writes none of its per-QP state then
        if (!rst && (qp_reset_valid || qp_rts_valid)) assert (!(record || wr_parse || wr_pkt || wr_rewind));
        // a READ's PSN count, registered behind remaining_reg, is current
        if (!rst && wr_pkt && op_read)
            assert (rd_psns_reg == ((remaining_reg == 0) ? 24'd1
                                    : 24'((33'(remaining_reg) + 33'(mtu_bytes_reg) - 33'd1) >> (32'(pmtu_code_reg) + 32'd7))));
    end
`endif
`endif

    // fields this engine does not use
    wire unused_ok = ^{qpc_state, s_axis_wqe_tkeep, qpc_reg, sge0_lkey, sge0_lkey_ld, wqe_ud_qpn[31:24], bind_access[31:8]};

endmodule

`resetall
