`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Read-response placement (requester side of RDMA READ).
 *
 * The completion engine decides, for each READ response packet in arrival
 * order, whether its payload is placed or dropped, and says where: the READ
 * WQE (QP, SQ index) and the byte offset of the packet inside the message.
 * This engine takes those commands in order together with the payloads from
 * the receive dispatcher, looks up the READ's SGE list, walks it to the
 * offset, checks each SGE it writes into against the MPT (key, PD,
 * LOCAL_WRITE, bounds) and writes the payload by DMA, one write per SGE
 * piece. Nothing of the data is kept on the card.
 *
 * Two stages, so the per-packet work of one packet overlaps the data of the
 * one before it and the payload streams at the rate the DMA writer takes it:
 *  - the planner takes a command, looks up the SGE list, walks it, checks
 *    each piece against the MPT and issues the piece's write descriptor,
 *    queueing an op for the mover with it (write n bytes; skip n bytes;
 *    drain the packet). It takes the next command as soon as the last op of
 *    the current one is queued, while the mover still moves earlier data.
 *  - the mover takes the ops in order: a write or skip hands its length to
 *    the stream cutter, whose output goes to the DMA writer (a skipped
 *    piece's output is swallowed); a drain takes the payload up to its
 *    tlast once the cutter has taken every earlier piece's bytes.
 * A descriptor is always issued before its op is queued, so the writer has
 * it before any of its bytes, and writes leave in command and SGE order.
 * The op queue is short (OPQ_LOG2), which bounds how far the checks run
 * ahead of the data. The payloads enter through a buffer of 2^PAY_LOG2
 * beats: the receive path hands over the next response's header only after
 * the current payload's last beat, and the buffer lets that happen while
 * the mover still has the current packet's bytes to move.
 *
 * SGE lists: the requester hands over the WQE of every READ and ATOMIC it
 * sends (s_rd_wqe_*), and this engine keeps its SGE list in a direct-mapped
 * table of 2^RDC_LOG2 entries indexed by the low bits of {QPN, SQ index mod
 * the in-flight window} and tagged with the QPN and the full 16-bit SQ
 * index, so the responses of outstanding READs are placed at line rate
 * without reading host memory. A response always belongs to a READ the
 * requester recorded (and so wrote into the table) after any earlier use of
 * its tag, so a hit is never stale; a QP context write needs no flush. An
 * entry lost to a conflict (more outstanding READs over the QPs than the
 * table holds) is a miss: the WQE is then fetched from the SQ ring, and the
 * last one fetched is kept, so a READ costs at most one fetch.
 *
 * The requester checked the same SGEs before it sent the READ, so a failing
 * check here means the MR changed under an outstanding READ: the rest of the
 * payload is dropped (never written outside a registered region) and counted
 * as a local protection error. If earlier pieces of the packet were written,
 * the rest goes through the cutter as a skipped piece (the cutter may hold a
 * beat shared with the written piece); else the packet is drained to its
 * tlast, as is the payload of a dropped command. `busy` stays up while a
 * command is being planned, an op is queued, the cutter or a drain still has
 * bytes to take or pass on, or a write has not been answered, so the
 * completion engine holds the READ's CQE until its data is in host memory.
 * An ATOMIC's original remote value comes with its command (no payload) and
 * is written the same way into the WQE's 8-byte SGE, in host byte order.
 *
 * `done_cnt` counts the commands (mod 2^16, in command order) whose writes
 * have all been answered: once its planning ends, a command's place in the
 * count of writes issued is queued (2^DONE_LOG2 of them; the planner waits
 * while the queue is full) and it is done when the answers reach it. The
 * completion engine writes a READ's CQE once done_cnt has passed the READ's
 * last response, and meanwhile goes on placing the responses after it
 * (waiting for `busy` to drop held the placement of every signaled READ's
 * successors for the last write's round trip).
 */
module rnic_rd_place #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int INFLIGHT_LOG2 = 4,
    // SGE-list table: 2^RDC_LOG2 entries (at most 2^(QPN_WIDTH+INFLIGHT_LOG2))
    parameter int RDC_LOG2 = 6,
    // mover ops queued: 2^OPQ_LOG2
    parameter int OPQ_LOG2 = 2,
    // payload buffer: 2^PAY_LOG2 beats
    parameter int PAY_LOG2 = 5,
    // commands planned whose writes are not all answered: 2^DONE_LOG2
    parameter int DONE_LOG2 = 6
) (
    input  wire logic                             clk,
    input  wire logic                             rst,

    // placement commands from the completion engine
    input  wire logic                             s_cmd_valid,
    output      logic                             s_cmd_ready,
    input  wire logic                             s_cmd_drop,
    input  wire logic [QPN_WIDTH-1:0]             s_cmd_qpn,
    input  wire logic [15:0]                      s_cmd_idx,
    input  wire logic [31:0]                      s_cmd_off,
    input  wire logic [15:0]                      s_cmd_len,    // payload bytes of the packet
    input  wire logic                             s_cmd_atomic, // write s_cmd_data (8 bytes), no payload
    input  wire logic [63:0]                      s_cmd_data,

    // READ response payloads, in the order of the commands
    input  wire logic [DATA_WIDTH-1:0]            s_axis_payload_tdata,
    input  wire logic [KEEP_WIDTH-1:0]            s_axis_payload_tkeep,
    input  wire logic                             s_axis_payload_tvalid,
    output      logic                             s_axis_payload_tready,
    input  wire logic                             s_axis_payload_tlast,

    output      logic                             qpc_rd_en,
    output      logic [QPN_WIDTH-1:0]             qpc_rd_addr,
    input  wire logic [rnic_pkg::QPC_BITS-1:0]    qpc_rd_data,
    output      logic                             mpt_rd_en,
    output      logic [MR_INDEX_WIDTH-1:0]        mpt_rd_addr,
    input  wire logic [rnic_pkg::MPT_BITS-1:0]    mpt_rd_data,

    // a QP context write forgets the kept WQE
    input  wire logic                             qp_reset_valid,

    // the WQE of each READ / ATOMIC the requester sends
    input  wire logic                             s_rd_wqe_valid,
    input  wire logic [QPN_WIDTH-1:0]             s_rd_wqe_qpn,
    input  wire logic [15:0]                      s_rd_wqe_idx,
    input  wire logic [7:0]                       s_rd_wqe_num_sge,
    input  wire logic [8*rnic_pkg::MAX_SEND_SGE*rnic_pkg::SGE_BYTES-1:0] s_rd_wqe_sges,

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
    input  wire logic                             s_wqe_status_valid,
    input  wire logic                             s_wqe_status_error,

    // payload writes
    output      logic [63:0]                      m_axis_wr_desc_addr,
    output      logic [31:0]                      m_axis_wr_desc_len,
    output      logic                             m_axis_wr_desc_valid,
    input  wire logic                             m_axis_wr_desc_ready,
    output      logic [DATA_WIDTH-1:0]            m_axis_wr_data_tdata,
    output      logic [KEEP_WIDTH-1:0]            m_axis_wr_data_tkeep,
    output      logic                             m_axis_wr_data_tvalid,
    input  wire logic                             m_axis_wr_data_tready,
    output      logic                             m_axis_wr_data_tlast,
    input  wire logic                             s_wr_status_valid,
    input  wire logic                             s_wr_status_error,

    output      logic                             busy,
    output      logic [15:0]                      done_cnt,     // commands whose writes are all answered
    output      logic                             stat_loc_prot_err,

    // the SGE-list table is clear after reset: no READ may be recorded
    // (s_rd_wqe_valid) before it is (rnic_core holds context writes, so
    // every QP, until then)
    output      logic                             init_done
);

    localparam int WQE_BITS = rnic_pkg::WQE_BYTES_TOTAL * 8;
    localparam int WQE_BEATS = (rnic_pkg::WQE_BYTES_TOTAL + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int MAX_SGE = rnic_pkg::MAX_SEND_SGE;
    localparam int TAG_BITS = rnic_pkg::MKEY_TAG_BITS;
    localparam int SGES_LSB = 8 * rnic_pkg::WQE_SGE_OFF;
    localparam int SGES_BITS = 8 * MAX_SGE * rnic_pkg::SGE_BYTES;
    localparam int NSGE_LSB = 8 * rnic_pkg::WQE_NUM_SGE_OFF;
    // table entry: {valid, QPN, SQ index, num_sge, SGEs}
    localparam int RDC_BITS = 1 + QPN_WIDTH + 16 + 8 + SGES_BITS;
    localparam int OPQ = 2 ** OPQ_LOG2;
    // pieces between the cutter's length input and its output's tlast: the
    // one being cut and at most two in its packer
    localparam int KQ_LOG2 = 2;
    localparam int KQ = 2 ** KQ_LOG2;

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("rnic_rd_place: DATA_WIDTH must be 64..512 (%m)");
            $finish;
        end
        if (RDC_LOG2 < 1 || RDC_LOG2 > QPN_WIDTH + INFLIGHT_LOG2) begin
            $error("rnic_rd_place: RDC_LOG2 must be 1..QPN_WIDTH+INFLIGHT_LOG2 (%m)");
            $finish;
        end
        if (OPQ_LOG2 < 1 || OPQ_LOG2 > 4) begin
            $error("rnic_rd_place: OPQ_LOG2 must be 1..4 (%m)");
            $finish;
        end
        if (PAY_LOG2 < 2) begin
            $error("rnic_rd_place: PAY_LOG2 must be 2 or more (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // planner
    // ------------------------------------------------------------------
    typedef enum logic [3:0] {
        S_IDLE,      // take a command
        S_QPC,       // the QP context is read: look the SGE list up
        S_WQE_DESC,  // not in the table: fetch the WQE
        S_WQE_DATA,  // collect the WQE and its DMA status
        S_FIND,      // walk the SGEs to the offset: off - len of the current SGE into
                     // registers; read its MPT entry
        S_MPT_CHK,   // past it: on to the next SGE; else check it, translate (the
                     // check's two register stages)
        S_MPT_C2,
        S_MPT_CHKD,  // ... and its result
        S_WDESC,     // issue the piece's write and queue its op
        S_FAIL       // a check failed: queue what drops the rest of the payload
    } state_t;

    // mover ops
    localparam logic [1:0] OP_WRITE = 2'd0;  // cut the next len bytes into the write issued with it
    localparam logic [1:0] OP_SKIP = 2'd1;   // cut the next len bytes and drop them
    localparam logic [1:0] OP_DRAIN = 2'd2;  // drop the payload up to its tlast

    // Recoded as synthesis sees fit (fsm_encoding "auto": yosys makes an
    // FSM of fewer than 32 states one-hot, as Vivado's FSM extraction
    // does): each state's decode is then one flip-flop, not a compare of
    // the code in front of every decision. yosys's own heuristic leaves this
    // register binary.
    (* fsm_encoding = "auto" *) state_t state_reg;
    logic [QPN_WIDTH-1:0]          qpn_reg;
    logic [15:0]                   idx_reg;
    logic [31:0]                   off_reg;       // offset inside the current SGE (after S_FIND)
    logic [31:0]                   len_reg;       // the current SGE's length
    logic [15:0]                   left_reg;      // payload bytes not yet handed to the mover
    logic [16:0]                   room_lo_reg;   // low half of len - off, with its borrow (S_MPT_CHK on)
    logic [15:0]                   room_hi_reg;   // high half of len - off, before the low half's borrow
    // off - len in halves (S_MPT_CHK): the low half with its borrow, the high
    // half for either borrow with its own
    logic [16:0]                   fd_lo_reg, fd_hi0_reg, fd_hi1_reg;
    logic                          room_big_reg;  // len - off >= 64 KiB (S_MPT_CHKD on)
    logic [15:0]                   piece_reg;     // bytes of the piece (S_WDESC)
    logic                          all_reg;       // the piece is the rest of the packet (S_WDESC)
    logic                          started_reg;   // a piece of this command was handed on
    logic [rnic_pkg::QPC_BITS-1:0] qpc_reg;
    logic [WQE_BITS-1:0]           wqe_reg;
    logic [4:0]                    beat_reg;
    logic                          wqe_st_seen_reg;
    logic                          wqe_err_reg;
    logic [2:0]                    sge_reg;
    logic                          cache_valid_reg;
    logic [QPN_WIDTH-1:0]          cache_qpn_reg;
    logic [15:0]                   cache_idx_reg;
    logic                          atomic_reg;
    logic [63:0]                   data_reg;

    wire [15:0]  qpc_pd     = qpc_reg[rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W];
    wire [4:0]   qpc_sq_log = qpc_rd_data[rnic_pkg::QPC_SQ_LOG_SIZE_LSB +: rnic_pkg::QPC_SQ_LOG_SIZE_W];
    wire [63:0]  qpc_sq_base = qpc_rd_data[rnic_pkg::QPC_SQ_BASE_LSB +: rnic_pkg::QPC_SQ_BASE_W];
    wire [15:0]  sq_slot = idx_reg & ((16'd1 << qpc_sq_log) - 16'd1);
    // the WQE's bus address: the SQ base plus the slot's offset, added over
    // S_QPC's register
    logic [63:0] wqe_pa;
    rnic_add_split wqe_pa_add_inst (
        .clk, .en(state_reg == S_QPC), .a(qpc_sq_base), .b(32'(sq_slot) << rnic_pkg::WQE_LOG_BYTES), .sum(wqe_pa)
    );

    // SGE-list table
    function automatic logic [RDC_LOG2-1:0] rdc_index(input logic [QPN_WIDTH-1:0] q,
                                                      input logic [INFLIGHT_LOG2-1:0] i);
        rdc_index = RDC_LOG2'({q, i});
    endfunction
    logic [RDC_BITS-1:0] rdc_rd_data;
    rnic_ram_1w1r #(.WIDTH(RDC_BITS), .ADDR_WIDTH(RDC_LOG2), .ZERO_UNWRITTEN(1)) rdc_ram (
        .clk, .rst,
        .wr_en(s_rd_wqe_valid), .wr_addr(rdc_index(s_rd_wqe_qpn, s_rd_wqe_idx[INFLIGHT_LOG2-1:0])),
        .wr_data({1'b1, s_rd_wqe_qpn, s_rd_wqe_idx, s_rd_wqe_num_sge, s_rd_wqe_sges}),
        .rd_en(s_cmd_valid && s_cmd_ready), .rd_addr(rdc_index(s_cmd_qpn, s_cmd_idx[INFLIGHT_LOG2-1:0])), .rd_data(rdc_rd_data),
        .init_done(init_done)
    );
    wire [SGES_BITS-1:0] rdc_sges = rdc_rd_data[0 +: SGES_BITS];
    wire [7:0]           rdc_nsge = rdc_rd_data[SGES_BITS +: 8];
    wire [15:0]          rdc_idx = rdc_rd_data[SGES_BITS + 8 +: 16];
    wire [QPN_WIDTH-1:0] rdc_qpn = rdc_rd_data[SGES_BITS + 24 +: QPN_WIDTH];
    wire                 rdc_valid = rdc_rd_data[RDC_BITS-1];
    wire                 rdc_hit = rdc_valid && rdc_qpn == qpn_reg && rdc_idx == idx_reg;

    wire [7:0]   wqe_num_sge = wqe_reg[NSGE_LSB +: 8];
    function automatic logic [63:0] sge_addr(input logic [WQE_BITS-1:0] w, input logic [2:0] i);
        sge_addr = w[8 * (rnic_pkg::WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_ADDR_OFF) +: 64];
    endfunction
    function automatic logic [31:0] sge_len(input logic [WQE_BITS-1:0] w, input logic [2:0] i);
        sge_len = w[8 * (rnic_pkg::WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LENGTH_OFF) +: 32];
    endfunction
    function automatic logic [31:0] sge_lkey(input logic [WQE_BITS-1:0] w, input logic [2:0] i);
        sge_lkey = w[8 * (rnic_pkg::WQE_SGE_OFF + 32'(i) * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LKEY_OFF) +: 32];
    endfunction
    wire [63:0] cur_addr = sge_addr(wqe_reg, sge_reg);
    wire [31:0] cur_lkey = sge_lkey(wqe_reg, sge_reg);
    wire        sge_in_list = 8'(sge_reg) < wqe_num_sge && sge_reg < 3'(MAX_SGE);

    logic        lkey_ok;
    logic [63:0] lkey_pa;
    logic        lkey_ok_next_unused;
    // in two register stages (rnic_mr_check_pipe): S_MPT_CHK and S_MPT_C2
    // present the SGE, S_MPT_CHKD takes the result (a step to the next SGE
    // from S_MPT_CHK reads and checks again)
    rnic_mr_check_pipe lkey_check_inst (
        .clk, .en(state_reg == S_MPT_CHK || state_reg == S_MPT_C2),
        .mpt(mpt_rd_data), .key(cur_lkey), .va(cur_addr), .len(len_reg), .pd(qpc_pd),
        .need_access(rnic_pkg::ACCESS_LOCAL_WRITE[7:0]), .remote(1'b0), .qpn(24'h0), .ok(lkey_ok), .pa(lkey_pa),
        .ok_next(lkey_ok_next_unused)
    );

    // off >= len (the offset lies past the current SGE) and off - len, from
    // the halves: the high half's difference made for both borrows of the low
    wire [16:0] fd_lo  = {1'b0, off_reg[15:0]} - {1'b0, len_reg[15:0]};
    wire [16:0] fd_hi0 = {1'b0, off_reg[31:16]} - {1'b0, len_reg[31:16]};
    wire [16:0] fd_hi1 = {1'b0, off_reg[31:16]} - {1'b0, len_reg[31:16]} - 17'd1;
    wire [16:0] fd_hi  = fd_lo_reg[16] ? fd_hi1_reg : fd_hi0_reg;
    wire        off_past = !fd_hi[16];
    wire [31:0] off_minus_len = {fd_hi[15:0], fd_lo_reg[15:0]};
    // the piece: min(left, len - off), once off < len; len - off in halves
    // over S_FIND and S_MPT_C2, the compare with left in S_MPT_CHKD. Off and
    // len hold from S_FIND until S_WDESC or the step to the next SGE (which
    // goes back to S_FIND), so these registers follow them every cycle.
    always_ff @(posedge clk) begin
        fd_lo_reg <= fd_lo;
        fd_hi0_reg <= fd_hi0;
        fd_hi1_reg <= fd_hi1;
        room_lo_reg <= {1'b0, len_reg[15:0]} - {1'b0, off_reg[15:0]};
        room_hi_reg <= len_reg[31:16] - off_reg[31:16];
    end
    wire        left_fits = room_big_reg || {1'b0, left_reg} <= {1'b0, room_lo_reg[15:0]};

    // op queue between planner and mover: {kind, atomic, len, atomic value}
    localparam int OP_BITS = 2 + 1 + 16 + 64;
    logic [OP_BITS-1:0] opq_mem [OPQ];
    logic [OPQ_LOG2:0]  opq_wr_reg, opq_rd_reg;
    wire opq_empty = opq_wr_reg == opq_rd_reg;
    wire opq_full = rnic_gates_pkg::ring_full(32'(opq_wr_reg), 32'(opq_rd_reg), OPQ_LOG2);

    logic dq_full_reg;
    assign s_cmd_ready = state_reg == S_IDLE && !opq_full && !dq_full_reg;
    assign qpc_rd_en = s_cmd_valid && s_cmd_ready;
    assign qpc_rd_addr = s_cmd_qpn;
    // read in S_FIND for the SGE it settles on, checked from S_MPT_CHK on
    assign mpt_rd_en = state_reg == S_FIND;
    assign mpt_rd_addr = cur_lkey[TAG_BITS +: MR_INDEX_WIDTH];

    assign m_axis_wqe_desc_addr = wqe_pa;
    assign m_axis_wqe_desc_len = rnic_pkg::WQE_BYTES_TOTAL;
    assign m_axis_wqe_desc_last = 1'b1;
    assign m_axis_wqe_desc_valid = state_reg == S_WQE_DESC;
    assign s_axis_wqe_tready = state_reg == S_WQE_DATA;

    // the descriptor and its op go together
    // the piece's bus address: the SGE's translated address plus the offset
    // into it, added over S_MPT_CHKD's register
    rnic_add_split wr_addr_add_inst (
        .clk, .en(state_reg == S_MPT_CHKD), .a(lkey_pa), .b(off_reg), .sum(m_axis_wr_desc_addr)
    );
    assign m_axis_wr_desc_len = 32'(piece_reg);
    assign m_axis_wr_desc_valid = state_reg == S_WDESC && !opq_full;
    wire wdesc_fire = m_axis_wr_desc_valid && m_axis_wr_desc_ready;

    // what a failed check queues: the rest through the cutter once a piece
    // of the command went there, else a drain (no payload for an ATOMIC)
    wire fail_push = state_reg == S_FAIL && !opq_full && (started_reg || !atomic_reg);
    wire drop_push = s_cmd_valid && s_cmd_ready && s_cmd_drop && s_cmd_len != 0;

    wire                opq_push = drop_push || wdesc_fire || fail_push;
    wire [1:0]          opq_in_kind = drop_push ? OP_DRAIN : wdesc_fire ? OP_WRITE
                                      : started_reg ? OP_SKIP : OP_DRAIN;
    // pieces and what is left fit in 16 bits: a packet carries at most 64 KiB - 1
    wire [15:0]         opq_in_len = wdesc_fire ? piece_reg : left_reg;
    wire [OP_BITS-1:0]  opq_in = {opq_in_kind, atomic_reg && !drop_push, opq_in_len, data_reg};

    // wqe_reg's loads: a hit in the READ cache (only the SGE list and its
    // count are read from wqe_reg; the rest is left 0) or the WQE's beats
    // as they arrive. Each beat's slot has one enable and each bit one
    // choice: written in the state machine, the loads became a hold
    // multiplexer on every bit (some 1,400 LUT4 at 64 bits on ECP5).
    wire wqe_rdc_ld = state_reg == S_QPC && rdc_hit;
    logic [WQE_BITS-1:0] wqe_rdc;
    always_comb begin
        wqe_rdc = '0;
        wqe_rdc[NSGE_LSB +: 8] = rdc_nsge;
        wqe_rdc[SGES_LSB +: SGES_BITS] = rdc_sges;
    end
    always_ff @(posedge clk)
        for (int b = 0; b < WQE_BEATS; b++)
            if (wqe_rdc_ld || (state_reg == S_WQE_DATA && s_axis_wqe_tvalid && beat_reg == 5'(b)))
                wqe_reg[DATA_WIDTH * b +: DATA_WIDTH] <= wqe_rdc_ld ? wqe_rdc[DATA_WIDTH * b +: DATA_WIDTH]
                                                                    : s_axis_wqe_tdata;

    always_ff @(posedge clk) begin
        stat_loc_prot_err <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (s_cmd_valid && s_cmd_ready) begin
                    qpn_reg <= s_cmd_qpn;
                    idx_reg <= s_cmd_idx;
                    off_reg <= s_cmd_off;
                    left_reg <= s_cmd_len;
                    started_reg <= 1'b0;
                    sge_reg <= '0;
                    atomic_reg <= s_cmd_atomic;
                    data_reg <= s_cmd_data;
                    // a dropped command's drain is queued as it is taken
                    if (!s_cmd_drop && s_cmd_len != 0) state_reg <= S_QPC;
                end
            end
            S_QPC: begin
                qpc_reg <= qpc_rd_data;
                len_reg <= rdc_hit ? rdc_sges[8 * rnic_pkg::SGE_LENGTH_OFF +: 32] : sge_len(wqe_reg, 3'd0);
                if (rdc_hit) begin
                    // (wqe_reg takes the cached SGE list: wqe_rdc_ld, above)
                    cache_valid_reg <= 1'b1;
                    cache_qpn_reg <= qpn_reg;
                    cache_idx_reg <= idx_reg;
                    state_reg <= S_FIND;
                end else if (cache_valid_reg && cache_qpn_reg == qpn_reg && cache_idx_reg == idx_reg) begin
                    state_reg <= S_FIND;
                end else begin
                    state_reg <= S_WQE_DESC;
                end
            end
            S_WQE_DESC: begin
                beat_reg <= '0;
                wqe_st_seen_reg <= 1'b0;
                wqe_err_reg <= 1'b0;
                cache_valid_reg <= 1'b0;
                if (m_axis_wqe_desc_ready) state_reg <= S_WQE_DATA;
            end
            S_WQE_DATA: begin
                if (s_axis_wqe_tvalid) beat_reg <= beat_reg + 5'd1;
                if (beat_reg >= 5'(WQE_BEATS) && wqe_st_seen_reg) begin
                    len_reg <= sge_len(wqe_reg, 3'd0);
                    if (wqe_err_reg) begin
                        stat_loc_prot_err <= 1'b1;
                        state_reg <= S_FAIL;
                    end else begin
                        cache_valid_reg <= 1'b1;
                        cache_qpn_reg <= qpn_reg;
                        cache_idx_reg <= idx_reg;
                        state_reg <= S_FIND;
                    end
                end
            end
            S_FIND: begin
                if (!sge_in_list) begin
                    // the offset lies beyond the SGEs
                    stat_loc_prot_err <= 1'b1;
                    state_reg <= S_FAIL;
                end else begin
                    state_reg <= S_MPT_CHK;
                end
            end
            S_MPT_CHK: begin
                if (off_past) begin
                    off_reg <= off_minus_len;
                    sge_reg <= sge_reg + 3'd1;
                    len_reg <= sge_len(wqe_reg, sge_reg + 3'd1);
                    state_reg <= S_FIND;
                end else begin
                    state_reg <= S_MPT_C2;
                end
            end
            S_MPT_C2: begin
                room_big_reg <= room_lo_reg[16] ? room_hi_reg != 16'd1 : room_hi_reg != 16'd0;
                state_reg <= S_MPT_CHKD;
            end
            S_MPT_CHKD: begin
                piece_reg <= left_fits ? left_reg : room_lo_reg[15:0];
                all_reg <= left_fits;
                if (lkey_ok) begin
                    state_reg <= S_WDESC;
                end else begin
                    stat_loc_prot_err <= 1'b1;
                    state_reg <= S_FAIL;
                end
            end
            S_WDESC: begin
                if (wdesc_fire) begin
                    started_reg <= 1'b1;
                    left_reg <= left_reg - piece_reg;
                    if (all_reg) begin
                        state_reg <= S_IDLE;
                    end else begin
                        sge_reg <= sge_reg + 3'd1;
                        len_reg <= sge_len(wqe_reg, sge_reg + 3'd1);
                        off_reg <= '0;
                        state_reg <= S_FIND;
                    end
                end
            end
            S_FAIL: begin
                if (!opq_full) state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        // the status may come before or after the data's last beat
        if (s_wqe_status_valid && state_reg != S_WQE_DESC) begin
            wqe_st_seen_reg <= 1'b1;
            if (s_wqe_status_error) wqe_err_reg <= 1'b1;
        end
        // a failed write is the host bus failing under a granted buffer
        if (s_wr_status_valid && s_wr_status_error) stat_loc_prot_err <= 1'b1;
        // a QP context write, or a new send of the kept tag (the SQ index
        // wrapped), forgets the kept WQE
        if (qp_reset_valid || (s_rd_wqe_valid && s_rd_wqe_qpn == cache_qpn_reg && s_rd_wqe_idx == cache_idx_reg))
            cache_valid_reg <= 1'b0;
        if (rst) begin
            state_reg <= S_IDLE;
            cache_valid_reg <= 1'b0;
            stat_loc_prot_err <= 1'b0;
        end
    end

    // ------------------------------------------------------------------
    // mover
    // ------------------------------------------------------------------
    // The receive path hands over the next response's header only after this
    // payload's last beat, so the payloads are buffered: the next command
    // then arrives while the buffer still feeds the current packet's bytes.
    // The buffer holds no command's state, so `busy` does not look at it.
    logic [DATA_WIDTH-1:0] pay_tdata;
    logic [KEEP_WIDTH-1:0] pay_tkeep;
    logic                  pay_tvalid, pay_tready, pay_tlast;
    logic                  pay_tuser, pay_st_ovf, pay_st_bad, pay_st_good;
    logic [PAY_LOG2:0]     pay_st_level;
    logic [DATA_WIDTH-1:0] pf_tdata;
    logic [KEEP_WIDTH-1:0] pf_tkeep;
    logic                  pf_tvalid, pf_tready, pf_tlast;
    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH),
        .DEPTH_BYTES((2 ** PAY_LOG2) * KEEP_WIDTH),
        .FRAME_FIFO(0),
        .DROP_BAD_FRAME(0)
    ) pay_fifo_inst (
        .clk, .rst,
        .s_axis_tdata(s_axis_payload_tdata), .s_axis_tkeep(s_axis_payload_tkeep),
        .s_axis_tvalid(s_axis_payload_tvalid), .s_axis_tready(s_axis_payload_tready),
        .s_axis_tlast(s_axis_payload_tlast), .s_axis_tuser(1'b0),
        .m_axis_tdata(pf_tdata), .m_axis_tkeep(pf_tkeep), .m_axis_tvalid(pf_tvalid),
        .m_axis_tready(pf_tready), .m_axis_tlast(pf_tlast), .m_axis_tuser(pay_tuser),
        .status_overflow(pay_st_ovf), .status_bad_frame(pay_st_bad), .status_good_frame(pay_st_good),
        .status_level(pay_st_level)
    );

    // Each beat leaves the buffer through a register slice that carries its
    // byte count: the cutter's decisions then start at registers (no count
    // over tkeep in front of them), and its ready does not reach back into
    // the buffer's read side.
    localparam int CNT_W = $clog2(KEEP_WIDTH) + 1;
    logic [CNT_W-1:0] pf_bytes, pay_bytes;
    logic [$clog2(KEEP_WIDTH)-1:0] pf_first_unused;
    axis_keep_run #(.KEEP_WIDTH(KEEP_WIDTH)) pay_run_inst (
        .keep(pf_tkeep), .first(pf_first_unused), .run_end(pf_bytes)
    );
    rnic_skid #(.WIDTH(DATA_WIDTH + KEEP_WIDTH + 1 + CNT_W)) pay_skid_inst (
        .clk, .rst,
        .s_valid(pf_tvalid), .s_ready(pf_tready), .s_data({pf_tdata, pf_tkeep, pf_tlast, pf_bytes}),
        .m_valid(pay_tvalid), .m_ready(pay_tready), .m_data({pay_tdata, pay_tkeep, pay_tlast, pay_bytes})
    );

    wire [OP_BITS-1:0] opq_head = opq_mem[opq_rd_reg[OPQ_LOG2-1:0]];
    wire [1:0]         h_kind = opq_head[OP_BITS-1 -: 2];
    wire               h_atomic = opq_head[64 + 16];
    wire [15:0]        h_len = opq_head[64 +: 16];
    wire [63:0]        h_data = opq_head[63:0];

    // kinds of the pieces handed to the cutter whose output has not ended:
    // 1 = skipped
    logic              kq_mem [KQ];
    logic [KQ_LOG2:0]  kq_wr_reg, kq_rd_reg;
    wire kq_empty = kq_wr_reg == kq_rd_reg;
    wire kq_full = rnic_gates_pkg::ring_full(32'(kq_wr_reg), 32'(kq_rd_reg), KQ_LOG2);
    wire kq_skip = kq_mem[kq_rd_reg[KQ_LOG2-1:0]];

    logic        drain_reg;       // dropping the payload up to its tlast
    logic        cur_atomic_reg;  // the piece being cut takes the atomic value
    logic [63:0] cur_data_reg;
    logic        data_taken_reg;  // the atomic value went into the cutter

    logic cut_len_ready, cut_busy, cut_in_tready;
    logic cut_out_tvalid, cut_out_tready, cut_out_tlast;
    wire  cut_len_valid = !opq_empty && h_kind != OP_DRAIN && !drain_reg && !kq_full;
    wire  cut_len_fire = cut_len_valid && cut_len_ready;
    // a drain starts once the cutter has taken the bytes of every earlier piece
    wire  drain_start = !opq_empty && h_kind == OP_DRAIN && !drain_reg && !cut_busy;
    wire  opq_pop = cut_len_fire || drain_start;

    // the cutter's input: the payload, or the atomic value as one 8-byte beat
    wire [DATA_WIDTH-1:0] cut_in_tdata = cur_atomic_reg ? DATA_WIDTH'(cur_data_reg) : pay_tdata;
    wire [KEEP_WIDTH-1:0] cut_in_tkeep = cur_atomic_reg ? KEEP_WIDTH'(8'hff) : pay_tkeep;
    wire [CNT_W-1:0]      cut_in_tbytes = cur_atomic_reg ? CNT_W'(8) : pay_bytes;
    wire                  cut_in_tvalid = cur_atomic_reg ? !data_taken_reg : pay_tvalid;
    axis_cutter #(.DATA_WIDTH(DATA_WIDTH), .LEN_WIDTH(16)) cutter_inst (
        .clk, .rst,
        .s_len_valid(cut_len_valid), .s_len_ready(cut_len_ready), .s_len(h_len),
        .s_axis_tdata(cut_in_tdata), .s_axis_tkeep(cut_in_tkeep), .s_axis_tbytes(cut_in_tbytes),
        .s_axis_tvalid(cut_in_tvalid), .s_axis_tready(cut_in_tready),
        .m_axis_tdata(m_axis_wr_data_tdata), .m_axis_tkeep(m_axis_wr_data_tkeep),
        .m_axis_tvalid(cut_out_tvalid), .m_axis_tready(cut_out_tready),
        .m_axis_tlast(cut_out_tlast),
        .busy(cut_busy)
    );
    assign pay_tready = (!cur_atomic_reg && cut_in_tready) || drain_reg;
    // a skipped piece's bytes go nowhere
    assign m_axis_wr_data_tvalid = cut_out_tvalid && !kq_empty && !kq_skip;
    assign cut_out_tready = !kq_empty && (kq_skip || m_axis_wr_data_tready);
    assign m_axis_wr_data_tlast = cut_out_tlast;

    always_ff @(posedge clk) begin
        if (opq_push) begin
            opq_mem[opq_wr_reg[OPQ_LOG2-1:0]] <= opq_in;
            opq_wr_reg <= opq_wr_reg + 1'b1;
        end
        if (opq_pop) opq_rd_reg <= opq_rd_reg + 1'b1;
        if (cut_len_fire) begin
            kq_mem[kq_wr_reg[KQ_LOG2-1:0]] <= h_kind == OP_SKIP;
            kq_wr_reg <= kq_wr_reg + 1'b1;
            cur_atomic_reg <= h_atomic;
            cur_data_reg <= h_data;
            // a new atomic value, unless this piece continues a beat not yet taken
            if (h_atomic) data_taken_reg <= 1'b0;
        end
        if (cut_out_tvalid && cut_out_tready && cut_out_tlast) kq_rd_reg <= kq_rd_reg + 1'b1;
        if (cut_in_tvalid && cut_in_tready && cur_atomic_reg) data_taken_reg <= 1'b1;
        if (drain_start) drain_reg <= 1'b1;
        if (drain_reg && pay_tvalid && pay_tlast) drain_reg <= 1'b0;
        if (rst) begin
            opq_wr_reg <= '0;
            opq_rd_reg <= '0;
            kq_wr_reg <= '0;
            kq_rd_reg <= '0;
            drain_reg <= 1'b0;
            cur_atomic_reg <= 1'b0;
            data_taken_reg <= 1'b0;
        end
    end

    // Commands done: a command's planning ends as it is taken (dropped, or
    // no payload), with its last write's descriptor, or leaving S_FAIL; it
    // then queues the count of writes issued up to it, and leaves the queue
    // when that many writes are answered (writes are answered in order).
    localparam int DQ = 2 ** DONE_LOG2;
    wire plan_end = (state_reg == S_IDLE && s_cmd_valid && s_cmd_ready && (s_cmd_drop || s_cmd_len == 0))
                    || (state_reg == S_WDESC && wdesc_fire && all_reg)
                    || (state_reg == S_FAIL && !opq_full);
    logic [15:0]          wr_issued_reg, wr_answered_reg, done_cnt_reg;
    logic [15:0]          dq_mem [DQ];
    logic [DONE_LOG2:0]   dq_wr_reg, dq_rd_reg;
    wire  [15:0]          wr_issued_next = wr_issued_reg + 16'(wdesc_fire);
    wire  [15:0]          wr_unanswered = wr_issued_reg - wr_answered_reg;
    wire                  dq_empty = dq_wr_reg == dq_rd_reg;
    // The head is read through two registers: the memory's registered read
    // (block RAM on some fabrics, whose answer comes late in the cycle) and
    // a flip-flop copy that the compare below uses. dq_age_reg counts the
    // cycles the head slot has been filled and in place; the copy is the
    // head's from 2 on (a command takes many cycles, so a pop every third
    // cycle keeps up).
    logic [15:0]          dq_rd_data_reg, dq_head_reg;
    logic [1:0]           dq_age_reg;
    always_ff @(posedge clk) begin
        dq_rd_data_reg <= dq_mem[dq_rd_reg[DONE_LOG2-1:0]];
        dq_head_reg <= dq_rd_data_reg;
    end
    // the head's writes are all answered (at most 2^15 writes in flight)
    // (with this cycle's answer: done in the cycle after it)
    wire  [15:0]          wr_answered_next = wr_answered_reg + 16'(s_wr_status_valid);
    wire  [15:0]          dq_behind = wr_answered_next - dq_head_reg;
    wire                  dq_pop = !dq_empty && dq_age_reg == 2'd2 && dq_behind < 16'h8000;
    wire  [DONE_LOG2:0]   dq_wr_next = dq_wr_reg + (DONE_LOG2+1)'(plan_end);
    wire  [DONE_LOG2:0]   dq_rd_next = dq_rd_reg + (DONE_LOG2+1)'(dq_pop);
    always_ff @(posedge clk) begin
        wr_issued_reg <= wr_issued_next;
        wr_answered_reg <= wr_answered_next;
        if (plan_end) dq_mem[dq_wr_reg[DONE_LOG2-1:0]] <= wr_issued_next;
        dq_wr_reg <= dq_wr_next;
        dq_rd_reg <= dq_rd_next;
        if (dq_empty || dq_pop) dq_age_reg <= 2'd0;
        else if (dq_age_reg != 2'd2) dq_age_reg <= dq_age_reg + 2'd1;
        // from the registered pointers, one short of full: the command taken
        // while it was clear pushes one entry, and the next is taken after
        // that (so no decision of this cycle reaches the flag)
        dq_full_reg <= (dq_wr_reg - dq_rd_reg) >= (DONE_LOG2+1)'(DQ - 1);
        if (dq_pop) done_cnt_reg <= done_cnt_reg + 16'd1;
        if (rst) begin
            wr_issued_reg <= '0;
            wr_answered_reg <= '0;
            dq_wr_reg <= '0;
            dq_rd_reg <= '0;
            dq_full_reg <= 1'b0;
            dq_age_reg <= 2'd0;
            done_cnt_reg <= '0;
        end
    end
    assign done_cnt = done_cnt_reg;
    // (and while a write issued is not yet answered or a command not yet
    // counted done)
    assign busy = state_reg != S_IDLE || !opq_empty || cut_busy || drain_reg || !kq_empty
                  || wr_issued_reg != wr_answered_reg || !dq_empty;

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) begin
            // the planner queues at most one op a cycle, and only with room
            assert (!(opq_push && opq_full));
            assert (32'(drop_push) + 32'(wdesc_fire) + 32'(fail_push) <= 1);
            // the cutter's output always belongs to a piece handed to it
            if (cut_out_tvalid) assert (!kq_empty);
            // a drain never runs beside a piece being cut
            if (drain_reg) assert (!cut_busy);
            // a command's planning ends once, and only with room in the queue
            if (plan_end) assert ((dq_wr_reg - dq_rd_reg) < (DONE_LOG2+1)'(DQ));
            // nothing answered that was not issued
            assert (wr_unanswered < 16'h8000);
        end
    end
    // every command taken is done once the engine is idle and the queue
    // has drained (the count the completion engine relies on)
    logic [15:0] taken_cnt_reg;
    always_ff @(posedge clk) begin
        if (s_cmd_valid && s_cmd_ready) taken_cnt_reg <= taken_cnt_reg + 16'd1;
        if (rst) taken_cnt_reg <= '0;
        if (!rst && !busy && dq_empty && !(s_cmd_valid && s_cmd_ready)) begin
            assert (done_cnt_reg == taken_cnt_reg);
        end
    end
`endif
`endif

    wire unused_ok = ^{s_axis_wqe_tkeep, pf_first_unused, s_axis_wqe_tlast, qpc_reg, pay_tuser, pay_st_ovf, pay_st_bad, pay_st_good, pay_st_level};

endmodule

`resetall
