`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * BAR0 register file behind an AXI4-Lite slave (32-bit data).
 *
 * Self-describing blocks (TYPE, VERSION, NEXT at +0/+4/+8 of each block; the
 * layout comes from docs/formats.toml via rnic_pkg): device identity and
 * capabilities, port MAC and GID table, the context window, the counters and
 * the doorbells. Doorbell writes become single-beat pulses toward the
 * scheduler; a doorbell that cannot be accepted holds the write response, so
 * no doorbell is ever lost. Counters are 32-bit, wrapping, incremented by the
 * data path through stat_inc (one increment per counter per cycle: up to a
 * beat's bytes for the byte counters, up to two events for the others),
 * kept in a RAM by rnic_stat_ram; a read misses at most the increments of the
 * last STAT_COUNT + 2 cycles.
 *
 * The WQE window (DB_WQE) holds one send WQE written by the host; DB_SQ_WQE
 * rings the SQ doorbell and names the WQE (QPN, SQ index) that the window
 * holds, so the requester can take it instead of fetching it from the ring.
 * A write to any word of the window forgets the WQE it held (the requester
 * then fetches that one from the ring), so a half-written window is never
 * taken.
 *
 * A second, simple port (fw_*) gives the control processor the same register
 * file at the same offsets: it serves the command mailbox (CMD block: the
 * host fills CMD_IN and writes CMD_CTRL, the firmware answers through CMD_OUT
 * and CMD_DONE) and may use the context window. The host's AXI4-Lite port has
 * priority; a firmware write takes the decoder in a cycle the host leaves
 * free and completes one cycle later (fw_ready). A read (either port's)
 * waits one cycle in a register stage and is decoded from there: the host's
 * response comes two cycles after the address is taken, the firmware's
 * fw_ready two cycles after it is presented.
 */
module rnic_regs #(
    parameter int AXIL_ADDR_WIDTH = 16,
    parameter int DATA_WIDTH = 64,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int MTT_INDEX_WIDTH = 16,
    parameter int CQN_WIDTH = 10,
    parameter int SRQN_WIDTH = 8,
    // address handles of UD sends: 2^AH_INDEX_WIDTH entries
    parameter int AH_INDEX_WIDTH = 10,
    parameter int INFLIGHT_LOG2 = 4,
    // counters: STAT_TX_FRAMES to the end of the stat block, one word each
    parameter int STAT_COUNT = (rnic_pkg::BLK_STAT_END - rnic_pkg::REG_STAT_TX_FRAMES) / 4,
    parameter int CTX_BITS = 32 * 32,
    // receive frame FIFO capacity: the flow-control thresholds' reset values
    parameter int RX_FIFO_BYTES = 32768
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire logic [2:0]                 s_axil_awprot,
    input  wire logic                       s_axil_awvalid,
    output      logic                       s_axil_awready,
    input  wire logic [31:0]                s_axil_wdata,
    input  wire logic [3:0]                 s_axil_wstrb,
    input  wire logic                       s_axil_wvalid,
    output      logic                       s_axil_wready,
    output      logic [1:0]                 s_axil_bresp,
    output      logic                       s_axil_bvalid,
    input  wire logic                       s_axil_bready,
    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire logic [2:0]                 s_axil_arprot,
    input  wire logic                       s_axil_arvalid,
    output      logic                       s_axil_arready,
    output      logic [31:0]                s_axil_rdata,
    output      logic [1:0]                 s_axil_rresp,
    output      logic                       s_axil_rvalid,
    input  wire logic                       s_axil_rready,

    // port configuration
    output      logic [47:0]                cfg_port_mac,
    output      logic [4*128-1:0]           cfg_gid,
    output      logic                       cfg_fc_en,
    output      logic [31:0]                cfg_fc_xoff,
    output      logic [31:0]                cfg_fc_xon,
    output      logic [31:0]                cfg_fc_stall,

    // context window: one write per CTX_CMD, held until ctx_wr_ready (the
    // data path takes a QP or CQ context write in a cycle in which its
    // engines write none of their per-QP state, so each state RAM has a
    // single write port); register writes wait meanwhile, and until the
    // write is in its table (ctx_wr_busy)
    output      logic                       ctx_wr_valid,
    input  wire logic                       ctx_wr_ready,
    output      logic [3:0]                 ctx_wr_table,
    output      logic [3:0]                 ctx_wr_op,
    output      logic [23:0]                ctx_wr_index,
    output      logic [CTX_BITS-1:0]        ctx_wr_data,
    input  wire logic                       ctx_wr_busy,    // a write taken is not yet in its table

    // doorbells
    output      logic                       db_sq_valid,
    input  wire logic                       db_sq_ready,
    output      logic [15:0]                db_sq_qpn,
    output      logic [15:0]                db_sq_pi,
    output      logic                       db_rq_valid,
    input  wire logic                       db_rq_ready,
    output      logic [15:0]                db_rq_qpn,
    output      logic [15:0]                db_rq_pi,
    output      logic                       db_rq_srq,    // DB_SRQ: db_rq_qpn is an SRQN
    output      logic                       db_cq_valid,
    output      logic [15:0]                db_cq_cqn,
    output      logic [15:0]                db_cq_ci,
    // WQE window: valid from DB_SQ_WQE until a window write or wqe_win_clear
    output      logic                       wqe_win_valid,
    output      logic [15:0]                wqe_win_qpn,
    output      logic [15:0]                wqe_win_idx,
    output      logic [rnic_pkg::WQE_BYTES_TOTAL*8-1:0] wqe_win_data,
    // the window was set in the last cycle (its QP and index are new)
    output      logic                       wqe_win_new,
    input  wire logic                       wqe_win_clear,

    input  wire logic [STAT_COUNT*16-1:0]   stat_inc,

    // control processor port: one access at a time, fw_ready for one cycle
    input  wire logic                       fw_valid,
    input  wire logic                       fw_we,
    input  wire logic [15:0]                fw_addr,
    input  wire logic [31:0]                fw_wdata,
    output      logic                       fw_ready,
    output      logic                       fw_err,     // unmapped or read-only (with fw_ready)
    output      logic [31:0]                fw_rdata,
    input  wire logic                       fw_halted,  // the control processor stopped (CMD_STATUS bit 2)

    // data-path events: the head of the queue (EVT_POP); a firmware read of
    // EVT_POP takes it
    input  wire logic [31:0]                evt_word,
    output      logic                       evt_pop,

    // the requester's memory-window request (MW_REQ, firmware only) and the
    // firmware's answer (MW_ANSWER): mw_ans_valid pulses once per request
    input  wire logic                       mw_req_valid,
    input  wire logic [rnic_pkg::MW_REQ_BITS-1:0] mw_req_data,
    output      logic                       mw_ans_valid,
    output      logic [7:0]                 mw_ans_status,
    // the firmware has read word 0 of the request shown while it was
    // pending: it serves it (until the source drops it)
    output      logic                       mw_taken
);

    localparam int GIDS = 4;
    localparam int CTX_WORDS = CTX_BITS / 32;
    localparam int CMD_WORDS = 32;
    localparam int WIN_WORDS = rnic_pkg::WQE_BYTES_TOTAL / 4;
    localparam int MW_WORDS = rnic_pkg::REG_MW_REQ_COUNT;
    localparam int MW_IW = $clog2(MW_WORDS);
    localparam logic [1:0] RESP_OKAY = 2'b00;
    localparam logic [1:0] RESP_SLVERR = 2'b10;

    initial begin
        if (rnic_pkg::GID_TABLE_SIZE != GIDS || rnic_pkg::CTX_WORDS != CTX_WORDS) begin
            $error("rnic_regs: GID table or context window size differs from rnic_pkg (%m)");
            $finish;
        end
        if (rnic_pkg::REG_CMD_IN_COUNT != CMD_WORDS || rnic_pkg::REG_CMD_OUT_COUNT != CMD_WORDS) begin
            $error("rnic_regs: mailbox size differs from rnic_pkg (%m)");
            $finish;
        end
        if (rnic_pkg::MW_REQ_WORDS > MW_WORDS) begin
            $error("rnic_regs: MW_REQ has fewer words than the mw_req record (%m)");
            $finish;
        end
        if (rnic_pkg::REG_DB_WQE_COUNT != WIN_WORDS) begin
            $error("rnic_regs: the WQE window is not one send WQE (%m)");
            $finish;
        end
        if ((rnic_pkg::BLK_STAT_END - rnic_pkg::REG_STAT_TX_FRAMES) / 4 != STAT_COUNT) begin
            $error("rnic_regs: STAT_COUNT differs from the counter block in rnic_pkg (%m)");
            $finish;
        end
    end

    // word address of a register; BAR0 is 64 KiB
    function automatic logic [13:0] waddr(input logic [31:0] byte_addr);
        logic unused_bits;
        unused_bits = ^{byte_addr[31:16], byte_addr[1:0]};
        waddr = byte_addr[15:2];
    endfunction


    // word a is one of the n words from byte address base, as gates (see
    // above): a >= lo and a <= hi, from the least significant bit up
    function automatic logic in_win(input logic [13:0] a, input logic [31:0] base, input int n);
        logic [13:0] lo, hi;
        logic        ge, le;
        lo = waddr(base);
        hi = lo + 14'(n - 1);
        ge = 1'b1;
        le = 1'b1;
        for (int k = 0; k < 14; k++) begin
            ge = lo[k] ? a[k] && ge : a[k] || ge;
            le = hi[k] ? !a[k] || le : !a[k] && le;
        end
        in_win = ge && le;
    endfunction

    // A window's words are kept at the slot given by the address's low bits
    // (no subtraction of the base): word i of a window of 2^iw words from
    // word address w0 is in slot (w0 + i) mod 2^iw. The context data and the
    // WQE window are read out as a whole, in order, so their bases are
    // aligned to their size.
    localparam int GID_IW = $clog2(GIDS * 4);
    localparam int CTX_IW = $clog2(CTX_WORDS);
    localparam int WIN_IW = $clog2(WIN_WORDS);
    localparam int EQ_WORDS = rnic_pkg::REG_EQ_ENTRY_COUNT;
    localparam int EQ_IW = $clog2(EQ_WORDS);
    localparam int STAT_IW = $clog2(STAT_COUNT);
    // the windows' first word addresses
    localparam int GID_W0 = rnic_pkg::REG_PORT_GID / 4;
    localparam int STAT_W0 = rnic_pkg::REG_STAT_TX_FRAMES / 4;
    localparam int MW_W0 = rnic_pkg::REG_MW_REQ / 4;

    initial begin
        if (GIDS * 4 != 1 << GID_IW || CTX_WORDS != 1 << CTX_IW || WIN_WORDS != 1 << WIN_IW
            || EQ_WORDS != 1 << EQ_IW) begin
            $error("rnic_regs: a register window's size is not a power of two (%m)");
            $finish;
        end
        if (waddr(rnic_pkg::REG_CTX_DATA) % 14'(CTX_WORDS) != 0
            || waddr(rnic_pkg::REG_DB_WQE) % 14'(WIN_WORDS) != 0) begin
            $error("rnic_regs: the context data or the WQE window is not aligned to its size (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // state
    // ------------------------------------------------------------------
    logic [31:0] scratch_reg;
    logic [47:0] port_mac_reg;
    logic        fc_en_reg;
    logic [31:0] fc_xoff_reg, fc_xon_reg, fc_stall_reg;
    logic [2:0]  ud_mtu_reg;     // PORT_UD_MTU: read by the firmware for UD QPCs
    logic [31:0] gid_reg [GIDS*4];           // by slot
    logic [31:0] ctx_data_reg [CTX_WORDS];
    logic        ctx_err_reg;
    // CTX_OP_MTT_RUN: CTX_COUNT MTT entries from CTX_DATA, one per cycle
    localparam int RUN_MAX = CTX_WORDS / rnic_pkg::MTT_WORDS;
    localparam int RUN_W = $clog2(RUN_MAX + 1);
    localparam int RUN_IW = $clog2(RUN_MAX);
    logic [RUN_W-1:0] ctx_count_reg;
    logic [RUN_W-1:0] run_left_reg, run_i_reg;
    logic [23:0]      run_index_reg;
    logic             run_pulse_reg;          // ctx_wr_valid is a run's entry ...
    logic [RUN_IW-1:0] run_sel_reg;           // ... this one
    // command mailbox (CMD_IN and CMD_OUT are in mb_mem, below)
    logic        cmd_busy_reg;
    logic        cmd_overrun_reg;
    logic [7:0]  cmd_st_reg;
    logic [31:0] cmd_word_reg;   // opcode and token as written to CMD_CTRL
    logic [31:0] fw_state_reg;
    // asynchronous event ring, written by the firmware, read by the host
    // (EQ_ENTRY is in mb_mem, below)
    logic [31:0] eq_pi_reg, eq_ci_reg, eq_lost_reg;
    // the window request in MW_REQ was answered (until the requester drops it)
    logic        mw_answered_reg;
    wire         mw_pending = mw_req_valid && !mw_answered_reg;
    logic [MW_WORDS*32-1:0] mw_words;
    always_comb begin
        mw_words = '0;
        mw_words[rnic_pkg::MW_REQ_BITS-1:0] = mw_req_data;
        mw_words[rnic_pkg::MW_REQ_PENDING_LSB] = mw_pending;
    end

    // write channel: AW and W are taken together, the response is held while a
    // doorbell waits for the scheduler
    logic        bvalid_reg;
    logic [1:0]  bresp_reg;
    logic        db_pending_reg;
    logic        db_is_rq_reg;    // the pending doorbell is DB_RQ (or DB_SRQ), else DB_SQ
    logic        db_is_srq_reg;   // ... DB_SRQ
    logic [31:0] db_word_reg;
    logic [31:0] win_reg [WIN_WORDS];
    logic        win_valid_reg;
    logic        win_new_reg;
    logic [15:0] win_qpn_reg, win_idx_reg;

    // read channel: an accepted read waits one cycle in a register stage
    // (its address, and whose it is), and is decoded from there
    logic        rq_host_reg;
    logic        rq_fw_reg;
    logic [13:0] ra_reg;
    logic        rvalid_reg;
    logic [31:0] rdata_reg;
    logic [1:0]  rresp_reg;
    logic [31:0] rd_val;         // the read decoder's answer for ra_reg (below)
    logic        rd_hit;

    // a context write not yet taken holds every register write back: its
    // data, the CTX_DATA words, must not change under it; and until it is in
    // its table (ctx_wr_busy) no doorbell may overtake it. Both are registers
    // here, so the data path's readiness never reaches the write decoder.
    wire ctx_wait = ctx_wr_valid && !ctx_wr_ready;
    wire ctx_hold = ctx_wr_valid || ctx_wr_busy;
    wire wr_fire = s_axil_awvalid && s_axil_wvalid && !bvalid_reg && !db_pending_reg && !ctx_hold;
    // the firmware writes in cycles the host does not, and reads into the
    // stage in cycles the host does not; one access at a time, so not while
    // its read is in the stage
    logic fw_busy_reg;           // fw_ready is being presented
    wire host_rd = s_axil_arvalid && s_axil_arready;
    wire fw_wr_fire = fw_valid && fw_we && !fw_busy_reg && !rq_fw_reg && !wr_fire && !ctx_hold;
    wire fw_rd_fire = fw_valid && !fw_we && !fw_busy_reg && !rq_fw_reg && !host_rd;
    wire [13:0] wa = s_axil_awaddr[AXIL_ADDR_WIDTH-1:2];
    wire [13:0] fwa = fw_addr[15:2];
    wire [31:0] wdata = wr_fire ? s_axil_wdata : fw_wdata;
    wire [13:0] ws = wr_fire ? wa : fwa;     // for a window's slot

    assign s_axil_awready = wr_fire;
    assign s_axil_wready = wr_fire;
    assign s_axil_bvalid = bvalid_reg;
    assign s_axil_bresp = bresp_reg;

    assign db_sq_valid = db_pending_reg && !db_is_rq_reg;
    assign db_sq_qpn = db_word_reg[31:16];
    assign db_sq_pi = db_word_reg[15:0];
    assign db_rq_valid = db_pending_reg && db_is_rq_reg;
    assign db_rq_qpn = db_word_reg[31:16];
    assign db_rq_pi = db_word_reg[15:0];
    assign db_rq_srq = db_is_srq_reg;
    wire db_taken = db_is_rq_reg ? db_rq_ready : db_sq_ready;

    assign wqe_win_valid = win_valid_reg;
    assign wqe_win_new = win_new_reg;
    assign wqe_win_qpn = win_qpn_reg;
    assign wqe_win_idx = win_idx_reg;
    always_comb for (int i = 0; i < WIN_WORDS; i++) wqe_win_data[32*i +: 32] = win_reg[i];

    // unused AXI4-Lite sideband
    wire unused_prot = ^{s_axil_awprot, s_axil_arprot};

    // idx + cnt <= 2^MTT_INDEX_WIDTH without an adder: below the top 2^L
    // entries any count fits; in them, the low L bits and the count decide
    localparam int RUN_L = MTT_INDEX_WIDTH < RUN_W ? MTT_INDEX_WIDTH : RUN_W;
    function automatic logic run_fits(input logic [23:0] idx, input logic [RUN_W-1:0] cnt);
        logic [23:0] top;
        logic        fit;
        top = 24'((1 << MTT_INDEX_WIDTH) - (1 << RUN_L));
        fit = 1'b0;
        for (int k = 0; k <= RUN_MAX; k++) begin
            logic f;
            f = k <= (1 << RUN_L) && !rnic_gates_pkg::gt_const(32'(idx) & 32'((1 << RUN_L) - 1), 32'((1 << RUN_L) - k));
            if (cnt == RUN_W'(k)) fit = f;
        end
        run_fits = (idx >> MTT_INDEX_WIDTH) == 24'd0 && ((idx & top) != top || fit);
    endfunction

    // a CTX_CMD word is accepted: computed from each port's own data, in
    // parallel, and chosen by wr_fire (the index checks are bit tests)
    function automatic logic ctx_ok(input logic [31:0] d, input logic [RUN_W-1:0] cnt, input logic run_busy);
        logic [3:0]  t, op;
        logic [23:0] idx;
        logic        ok, mcg_ok, run_ok;
        t = 4'(d & rnic_pkg::CTX_CMD_TABLE_MASK);
        op = 4'((d >> rnic_pkg::CTX_CMD_OP_SHIFT) & rnic_pkg::CTX_CMD_OP_MASK);
        idx = 24'((d >> rnic_pkg::CTX_CMD_INDEX_SHIFT) & rnic_pkg::CTX_CMD_INDEX_MASK);
        // (the calls outside the branches: yosys would keep their loop counters in latches)
        mcg_ok = !rnic_gates_pkg::gt_const(32'(idx), 32'(rnic_pkg::MCAST_WAYS << rnic_pkg::MCAST_BUCKET_BITS) - 32'd1);
        run_ok = cnt != '0 && !rnic_gates_pkg::gt_const(32'(cnt), 32'(RUN_MAX)) && run_fits(idx, cnt);
        ok = 1'b0;
        if (op == rnic_pkg::CTX_OP_WRITE[3:0] || op == rnic_pkg::CTX_OP_MODIFY[3:0]) begin
            if (t == rnic_pkg::CTX_TABLE_QPC[3:0]) ok = (idx >> QPN_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_MPT[3:0]) ok = (idx >> MR_INDEX_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_MTT[3:0]) ok = (idx >> MTT_INDEX_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_CQC[3:0]) ok = (idx >> CQN_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_SRQC[3:0]) ok = (idx >> SRQN_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_AH[3:0]) ok = (idx >> AH_INDEX_WIDTH) == 24'd0;
            if (t == rnic_pkg::CTX_TABLE_MCG[3:0])
                ok = op == rnic_pkg::CTX_OP_WRITE[3:0] && mcg_ok;
        end
        if (op == rnic_pkg::CTX_OP_QP_RTR[3:0] || op == rnic_pkg::CTX_OP_QP_RTS[3:0])
            ok = t == rnic_pkg::CTX_TABLE_QPC[3:0] && (idx >> QPN_WIDTH) == 24'd0;
        if (op == rnic_pkg::CTX_OP_MTT_RUN[3:0])
            ok = t == rnic_pkg::CTX_TABLE_MTT[3:0] && run_ok;
        // one command at a time: a run in progress refuses the next
        ctx_ok = ok && !run_busy;
    endfunction

    wire         ctx_ok_host = ctx_ok(s_axil_wdata, ctx_count_reg, run_left_reg != '0);
    wire         ctx_ok_fw = ctx_ok(fw_wdata, ctx_count_reg, run_left_reg != '0);
    wire         ctx_cmd_ok = wr_fire ? ctx_ok_host : ctx_ok_fw;
    wire         ctx_count_big = rnic_gates_pkg::gt_const(wdata, 32'(RUN_MAX));
    wire [3:0]   cmd_table = 4'(wdata & rnic_pkg::CTX_CMD_TABLE_MASK);
    wire [3:0]   cmd_op = 4'((wdata >> rnic_pkg::CTX_CMD_OP_SHIFT) & rnic_pkg::CTX_CMD_OP_MASK);
    wire [23:0]  cmd_index = 24'((wdata >> rnic_pkg::CTX_CMD_INDEX_SHIFT) & rnic_pkg::CTX_CMD_INDEX_MASK);

    // An MTT run's entries come from copies of CTX_DATA by entry: word w of
    // entry e (CTX_DATA word e * MTT_WORDS + w) in LUT RAM w at e, written
    // with ctx_data_reg (which no write changes during a run: ctx_hold), read
    // at run_sel_reg (a RUN_MAX-way multiplexer of ctx_data_reg's words was
    // some 800 LUT4 on ECP5; the RAMs are below the write decoder).
    logic [31:0] run_word [rnic_pkg::MTT_WORDS];

    always_comb begin
        for (int i = 0; i < CTX_WORDS; i++) ctx_wr_data[32*i +: 32] = ctx_data_reg[i];
        if (run_pulse_reg)
            for (int w = 0; w < rnic_pkg::MTT_WORDS; w++) ctx_wr_data[32*w +: 32] = run_word[w];
        for (int i = 0; i < GIDS * 4; i++) begin
            // word 0 of an entry holds the most significant 32 bits
            cfg_gid[128 * (i / 4) + 32 * (3 - (i % 4)) +: 32] = gid_reg[(GID_W0 + i) % (1 << GID_IW)];
        end
    end
    assign cfg_port_mac = port_mac_reg;
    assign cfg_fc_en = fc_en_reg;
    assign cfg_fc_xoff = fc_xoff_reg;
    assign cfg_fc_xon = fc_xon_reg;
    assign cfg_fc_stall = fc_stall_reg;

    // ------------------------------------------------------------------
    // the register decoder: one table of the registers and windows that
    // hold state, with who may write and who may read each; one copy per
    // port on its own address (neither waits for wr_fire) and one for the
    // read address stage. The windows are disjoint, so no priority between
    // them. The registers are ordered by access so each mask is a few
    // ranges:
    //   both write, both read     SCRATCH .. CTX_COUNT
    //   both write, write only    CTX_CMD
    //   host writes, both read    CMD_IN, EQ_CI
    //   host writes, write only   CMD_CTRL, the doorbells
    //   firmware writes, both read  CMD_OUT, FW_STATE, EQ_ENTRY, EQ_PI, EQ_LOST
    //   firmware writes, write only CMD_DONE, MW_ANSWER
    //   read only, both read      CTX_STATUS, STAT, CMD_STATUS, CMD_OPCODE
    //   read only, firmware reads EVT_POP (a read takes an event), MW_REQ
    // (the constant registers are rd_const's, above)
    // ------------------------------------------------------------------
    localparam int R_SCRATCH = 0, R_MAC_LO = 1, R_MAC_HI = 2, R_FC_CTRL = 3, R_FC_XOFF = 4, R_FC_XON = 5,
                   R_FC_STALL = 6, R_UD_MTU = 7, R_GID = 8, R_CTX_DATA = 9, R_CTX_COUNT = 10,
                   R_CTX_CMD = 11,
                   R_CMD_IN = 12, R_EQ_CI = 13,
                   R_CMD_CTRL = 14, R_DB_SQ = 15, R_DB_SQ_WQE = 16, R_DB_WQE = 17, R_DB_RQ = 18, R_DB_SRQ = 19,
                   R_DB_CQ = 20,
                   R_CMD_OUT = 21, R_FW_STATE = 22, R_EQ_ENTRY = 23, R_EQ_PI = 24, R_EQ_LOST = 25,
                   R_CMD_DONE = 26, R_MW_ANSWER = 27,
                   R_CTX_STATUS = 28, R_STAT = 29, R_CMD_STATUS = 30, R_CMD_OPCODE = 31,
                   R_EVT_POP = 32, R_MW_REQ = 33, R_N = 34;
    // bits lo .. hi - 1
    function automatic logic [R_N-1:0] r_range(input int lo, input int hi);
        r_range = R_N'(((64'd1 << hi) - 64'd1) ^ ((64'd1 << lo) - 64'd1));
    endfunction
    localparam logic [R_N-1:0] R_WR_HOST = r_range(R_SCRATCH, R_CMD_OUT);
    localparam logic [R_N-1:0] R_WR_FW = r_range(R_SCRATCH, R_CMD_IN) | r_range(R_CMD_OUT, R_CTX_STATUS);
    // (CTX_DATA is write-only: a 32-way read of its words was some 400
    // LUT4 of the read decoder, for a readback nobody needs)
    localparam logic [R_N-1:0] R_RD_HOST = r_range(R_SCRATCH, R_CTX_DATA) | r_range(R_CTX_COUNT, R_CTX_CMD)
                                           | r_range(R_CMD_IN, R_CMD_CTRL)
                                           | r_range(R_CMD_OUT, R_CMD_DONE) | r_range(R_CTX_STATUS, R_EVT_POP);
    localparam logic [R_N-1:0] R_RD_FW = R_RD_HOST | r_range(R_EVT_POP, R_N);

    function automatic logic [R_N-1:0] reg_dec(input logic [13:0] a);
        logic [R_N-1:0] d;
        d[R_SCRATCH] = a == waddr(rnic_pkg::REG_DEV_SCRATCH);
        d[R_MAC_LO] = a == waddr(rnic_pkg::REG_PORT_MAC_LO);
        d[R_MAC_HI] = a == waddr(rnic_pkg::REG_PORT_MAC_HI);
        d[R_FC_CTRL] = a == waddr(rnic_pkg::REG_PORT_FC_CTRL);
        d[R_FC_XOFF] = a == waddr(rnic_pkg::REG_PORT_FC_XOFF);
        d[R_FC_XON] = a == waddr(rnic_pkg::REG_PORT_FC_XON);
        d[R_FC_STALL] = a == waddr(rnic_pkg::REG_PORT_FC_STALL);
        d[R_UD_MTU] = a == waddr(rnic_pkg::REG_PORT_UD_MTU);
        d[R_GID] = in_win(a, rnic_pkg::REG_PORT_GID, GIDS * 4);
        d[R_CTX_DATA] = in_win(a, rnic_pkg::REG_CTX_DATA, CTX_WORDS);
        d[R_CTX_COUNT] = a == waddr(rnic_pkg::REG_CTX_COUNT);
        d[R_CTX_CMD] = a == waddr(rnic_pkg::REG_CTX_CMD);
        d[R_CMD_IN] = in_win(a, rnic_pkg::REG_CMD_IN, CMD_WORDS);
        d[R_EQ_CI] = a == waddr(rnic_pkg::REG_EQ_CI);
        d[R_CMD_CTRL] = a == waddr(rnic_pkg::REG_CMD_CTRL);
        d[R_DB_SQ] = a == waddr(rnic_pkg::REG_DB_SQ);
        d[R_DB_SQ_WQE] = a == waddr(rnic_pkg::REG_DB_SQ_WQE);
        d[R_DB_WQE] = in_win(a, rnic_pkg::REG_DB_WQE, WIN_WORDS);
        d[R_DB_RQ] = a == waddr(rnic_pkg::REG_DB_RQ);
        d[R_DB_SRQ] = a == waddr(rnic_pkg::REG_DB_SRQ);
        d[R_DB_CQ] = a == waddr(rnic_pkg::REG_DB_CQ);
        d[R_CMD_OUT] = in_win(a, rnic_pkg::REG_CMD_OUT, CMD_WORDS);
        d[R_FW_STATE] = a == waddr(rnic_pkg::REG_FW_STATE);
        d[R_EQ_ENTRY] = in_win(a, rnic_pkg::REG_EQ_ENTRY, EQ_WORDS);
        d[R_EQ_PI] = a == waddr(rnic_pkg::REG_EQ_PI);
        d[R_EQ_LOST] = a == waddr(rnic_pkg::REG_EQ_LOST);
        d[R_CMD_DONE] = a == waddr(rnic_pkg::REG_CMD_DONE);
        d[R_MW_ANSWER] = a == waddr(rnic_pkg::REG_MW_ANSWER);
        d[R_CTX_STATUS] = a == waddr(rnic_pkg::REG_CTX_STATUS);
        d[R_STAT] = in_win(a, rnic_pkg::REG_STAT_TX_FRAMES, STAT_COUNT);
        d[R_CMD_STATUS] = a == waddr(rnic_pkg::REG_CMD_STATUS);
        d[R_CMD_OPCODE] = a == waddr(rnic_pkg::REG_CMD_OPCODE);
        d[R_EVT_POP] = a == waddr(rnic_pkg::REG_EVT_POP);
        d[R_MW_REQ] = in_win(a, rnic_pkg::REG_MW_REQ, MW_WORDS);
        reg_dec = d;
    endfunction

    // each port's hits among the registers it may write: the rest (read-only,
    // unmapped, the other port's) answer SLVERR (host) or fw_err
    wire [R_N-1:0] wr_h = reg_dec(wa) & R_WR_HOST;
    wire [R_N-1:0] wr_f = reg_dec(fwa) & R_WR_FW;
    wire [R_N-1:0] we = (wr_fire ? wr_h : '0) | (fw_wr_fire ? wr_f : '0);

    // the MTT runs' copies of CTX_DATA (run_word, above)
    localparam int MTT_LOG2 = $clog2(rnic_pkg::MTT_WORDS);
    for (genvar w = 0; w < rnic_pkg::MTT_WORDS; w++) begin : g_run_mem
        logic [31:0] mem [RUN_MAX];
        always_ff @(posedge clk)
            if (we[R_CTX_DATA] && 32'(ws[MTT_LOG2-1:0]) == w) mem[ws[CTX_IW-1:MTT_LOG2]] <= wdata;
        assign run_word[w] = mem[run_sel_reg];
    end
    initial begin
        if (rnic_pkg::MTT_WORDS != 1 << MTT_LOG2 || RUN_MAX != 1 << RUN_IW || MTT_LOG2 < 1) begin
            $error("rnic_regs: MTT_WORDS or CTX_WORDS / MTT_WORDS is not a power of two (%m)");
            $finish;
        end
    end

    wire host_wr_ok = wr_h != '0;
    // an answer with no request waiting is refused
    wire fw_wr_ok = wr_f != '0 && !(wr_f[R_MW_ANSWER] && !mw_pending);
    // the response waits until the scheduler has taken the doorbell
    wire host_db_wait = wr_h[R_DB_SQ] || wr_h[R_DB_SQ_WQE] || wr_h[R_DB_RQ] || wr_h[R_DB_SRQ];

    always_ff @(posedge clk) begin
        if (!ctx_wait) begin
            ctx_wr_valid <= 1'b0;
            run_pulse_reg <= 1'b0;
        end
        db_cq_valid <= 1'b0;
        fw_busy_reg <= 1'b0;
        mw_ans_valid <= 1'b0;
        if (!mw_req_valid) mw_answered_reg <= 1'b0;
        // the firmware's read of MW_REQ word 0, decoded from the stage
        if (!mw_req_valid) mw_taken <= 1'b0;
        else if (rq_fw_reg && ra_reg == waddr(rnic_pkg::REG_MW_REQ) && mw_pending) mw_taken <= 1'b1;
        if (run_left_reg != '0 && !ctx_wait) begin
            ctx_wr_valid <= 1'b1;
            ctx_wr_table <= rnic_pkg::CTX_TABLE_MTT[3:0];
            ctx_wr_op <= rnic_pkg::CTX_OP_WRITE[3:0];
            ctx_wr_index <= run_index_reg;
            run_index_reg <= run_index_reg + 24'd1;
            run_pulse_reg <= 1'b1;
            run_sel_reg <= RUN_IW'(run_i_reg);   // below RUN_MAX: the run's count is at most RUN_MAX
            run_i_reg <= run_i_reg + 1'b1;
            run_left_reg <= run_left_reg - 1'b1;
        end

        if (s_axil_bvalid && s_axil_bready) bvalid_reg <= 1'b0;
        if (wqe_win_clear) win_valid_reg <= 1'b0;
        win_new_reg <= 1'b0;
        if (db_pending_reg && db_taken) begin
            db_pending_reg <= 1'b0;
            bvalid_reg <= 1'b1;
            bresp_reg <= RESP_OKAY;
        end

        if (we[R_SCRATCH]) scratch_reg <= wdata;
        if (we[R_MAC_LO]) port_mac_reg[31:0] <= wdata;
        if (we[R_MAC_HI]) port_mac_reg[47:32] <= wdata[15:0];
        if (we[R_FC_CTRL]) fc_en_reg <= wdata[0];
        if (we[R_FC_XOFF]) fc_xoff_reg <= wdata;
        if (we[R_FC_XON]) fc_xon_reg <= wdata;
        if (we[R_FC_STALL]) fc_stall_reg <= wdata;
        if (we[R_UD_MTU]) ud_mtu_reg <= wdata[2:0];
        if (we[R_GID]) gid_reg[ws[GID_IW-1:0]] <= wdata;
        if (we[R_CTX_DATA]) ctx_data_reg[ws[CTX_IW-1:0]] <= wdata;
        // a count above RUN_MAX is refused at the CTX_CMD
        if (we[R_CTX_COUNT]) ctx_count_reg <= ctx_count_big ? '0 : RUN_W'(wdata);
        if (we[R_CTX_CMD]) begin
            ctx_err_reg <= !ctx_cmd_ok;
            if (ctx_cmd_ok && cmd_op == rnic_pkg::CTX_OP_MTT_RUN[3:0]) begin
                run_left_reg <= ctx_count_reg;
                run_i_reg <= '0;
                run_index_reg <= cmd_index;
            end else if (ctx_cmd_ok) begin
                ctx_wr_valid <= 1'b1;
                ctx_wr_table <= cmd_table;
                ctx_wr_op <= cmd_op;
                ctx_wr_index <= cmd_index;
            end
        end
        // the command in progress keeps its input
        if (we[R_CMD_IN]) begin
            if (cmd_busy_reg) cmd_overrun_reg <= 1'b1;
        end
        if (we[R_CMD_CTRL]) begin
            if (cmd_busy_reg) begin
                cmd_overrun_reg <= 1'b1;
            end else begin
                cmd_busy_reg <= 1'b1;
                cmd_overrun_reg <= 1'b0;
                cmd_word_reg <= wdata;
            end
        end
        if (we[R_CMD_DONE]) begin
            cmd_busy_reg <= 1'b0;
            cmd_st_reg <= wdata[15:8];
        end
        if (we[R_FW_STATE]) fw_state_reg <= wdata;
        if (we[R_EQ_PI]) eq_pi_reg <= wdata;
        if (we[R_EQ_LOST]) eq_lost_reg <= wdata;
        if (we[R_MW_ANSWER] && mw_pending) begin
            mw_ans_valid <= 1'b1;
            mw_ans_status <= wdata[7:0];
            mw_answered_reg <= 1'b1;
        end
        if (we[R_EQ_CI]) eq_ci_reg <= wdata;
        if (we[R_DB_SQ] || we[R_DB_SQ_WQE]) begin
            db_pending_reg <= 1'b1;
            db_is_rq_reg <= 1'b0;
            db_is_srq_reg <= 1'b0;
            db_word_reg <= wdata;
        end
        // ... and the window holds the WQE before that producer index
        if (we[R_DB_SQ_WQE]) begin
            win_valid_reg <= 1'b1;
            win_new_reg <= 1'b1;
            win_qpn_reg <= wdata[31:16];
            win_idx_reg <= wdata[15:0] - 16'd1;
        end
        if (we[R_DB_WQE]) begin
            win_reg[ws[WIN_IW-1:0]] <= wdata;
            win_valid_reg <= 1'b0;
        end
        if (we[R_DB_RQ] || we[R_DB_SRQ]) begin
            db_pending_reg <= 1'b1;
            db_is_rq_reg <= 1'b1;
            db_is_srq_reg <= we[R_DB_SRQ];
            db_word_reg <= wdata;
        end
        if (we[R_DB_CQ]) begin
            db_cq_valid <= 1'b1;
            db_cq_cqn <= wdata[31:16];
            db_cq_ci <= wdata[15:0];
        end

        if (fw_wr_fire) begin
            fw_busy_reg <= 1'b1;
            fw_rdata <= '0;
            fw_err <= !fw_wr_ok;
        end
        if (wr_fire) begin
            bvalid_reg <= !host_db_wait;
            bresp_reg <= host_wr_ok ? RESP_OKAY : RESP_SLVERR;
        end

        // the firmware's read, decoded from the stage
        if (rq_fw_reg) begin
            fw_busy_reg <= 1'b1;
            fw_rdata <= rd_val;
            fw_err <= !rd_hit;
        end

        if (rst) begin
            bvalid_reg <= 1'b0;
            bresp_reg <= RESP_OKAY;
            db_pending_reg <= 1'b0;
            win_valid_reg <= 1'b0;
            ctx_wr_valid <= 1'b0;
            ctx_err_reg <= 1'b0;
            ctx_count_reg <= RUN_W'(1);
            run_left_reg <= '0;
            run_i_reg <= '0;
            run_pulse_reg <= 1'b0;
            db_cq_valid <= 1'b0;
            scratch_reg <= '0;
            port_mac_reg <= '0;
            fc_en_reg <= 1'b1;
            fc_xoff_reg <= 32'(RX_FIFO_BYTES / 2);
            fc_xon_reg <= 32'(RX_FIFO_BYTES / 4);
            fc_stall_reg <= rnic_pkg::FC_STALL_RESET;
            ud_mtu_reg <= 3'(rnic_pkg::IB_MTU_4096);
            cmd_busy_reg <= 1'b0;
            cmd_overrun_reg <= 1'b0;
            cmd_st_reg <= '0;
            cmd_word_reg <= '0;
            fw_state_reg <= '0;
            eq_pi_reg <= '0;
            eq_ci_reg <= '0;
            eq_lost_reg <= '0;
            fw_busy_reg <= 1'b0;
            fw_err <= 1'b0;
            mw_ans_valid <= 1'b0;
            mw_answered_reg <= 1'b0;
            mw_taken <= 1'b0;
            for (int i = 0; i < GIDS * 4; i++) gid_reg[i] <= '0;
        end
    end
    assign fw_ready = fw_busy_reg;

    // ------------------------------------------------------------------
    // read channel
    // ------------------------------------------------------------------
    // the host's read enters the stage when no response of its is held or
    // staged; the firmware's in a cycle the host's does not
    assign s_axil_arready = !rvalid_reg && !rq_host_reg;
    assign s_axil_rvalid = rvalid_reg;
    assign s_axil_rdata = rdata_reg;
    assign s_axil_rresp = rresp_reg;
    // EVT_POP pops the event it returns: in the cycle evt_word is read
    assign evt_pop = rq_fw_reg && ra_reg == waddr(rnic_pkg::REG_EVT_POP);

    wire [13:0] ra_next = host_rd ? s_axil_araddr[AXIL_ADDR_WIDTH-1:2] : fwa;   // the stage's next address
    always_ff @(posedge clk) begin
        rq_host_reg <= host_rd;
        rq_fw_reg <= fw_rd_fire;
        ra_reg <= ra_next;
        if (s_axil_rvalid && s_axil_rready) rvalid_reg <= 1'b0;
        if (rq_host_reg) begin
            rvalid_reg <= 1'b1;
            rdata_reg <= rd_val;
            rresp_reg <= rd_hit ? RESP_OKAY : RESP_SLVERR;
        end
        if (rst) begin
            rq_host_reg <= 1'b0;
            rq_fw_reg <= 1'b0;
            rvalid_reg <= 1'b0;
        end
    end

    // The mailbox and event-ring windows (CMD_IN, CMD_OUT, EQ_ENTRY) and a
    // copy of the GID table for the decoder (the data path reads gid_reg):
    // one RAM with one write port and a registered read, at the word
    // address's low MB_AW bits, where the four windows are disjoint (checked
    // below). Its read takes the address the stage takes, so the word is
    // there when the stage decodes; a write in that same cycle is passed on,
    // so the decoder answers with every write made before the stage, as it
    // does for registers. A GID word not written since reset reads as zero,
    // as gid_reg does (gid_wr_reg).
    localparam int MB_AW = 8;
    logic [31:0] mb_mem [2**MB_AW];
    logic [31:0] mb_q;
    logic        mb_byp_reg;
    logic [31:0] mb_byp_data_reg;
    logic [GIDS*4-1:0] gid_wr_reg;        // by slot
    logic        gid_ok_reg;                // the stage's GID word was written
    wire         mb_we = (we[R_CMD_IN] && !cmd_busy_reg) || we[R_CMD_OUT] || we[R_EQ_ENTRY] || we[R_GID];
    wire [31:0]  mb_word = mb_byp_reg ? mb_byp_data_reg : mb_q;
    always_ff @(posedge clk) begin
        if (mb_we) mb_mem[ws[MB_AW-1:0]] <= wdata;
        mb_q <= mb_mem[ra_next[MB_AW-1:0]];
        mb_byp_reg <= mb_we && ws[MB_AW-1:0] == ra_next[MB_AW-1:0];
        mb_byp_data_reg <= wdata;
        gid_ok_reg <= gid_wr_reg[ra_next[GID_IW-1:0]]
                      || (we[R_GID] && ws[GID_IW-1:0] == ra_next[GID_IW-1:0]);
        if (we[R_GID]) gid_wr_reg[ws[GID_IW-1:0]] <= 1'b1;
        if (rst) gid_wr_reg <= '0;
    end

    function automatic int mb_lo(input logic [31:0] base);
        mb_lo = 32'(waddr(base)) % (1 << MB_AW);
    endfunction
    initial begin
        if (mb_lo(rnic_pkg::REG_PORT_GID) + GIDS * 4 > mb_lo(rnic_pkg::REG_EQ_ENTRY)
            || mb_lo(rnic_pkg::REG_EQ_ENTRY) + EQ_WORDS > mb_lo(rnic_pkg::REG_CMD_IN)
            || mb_lo(rnic_pkg::REG_CMD_IN) + CMD_WORDS > mb_lo(rnic_pkg::REG_CMD_OUT)
            || mb_lo(rnic_pkg::REG_CMD_OUT) + CMD_WORDS > (1 << MB_AW)) begin
            $error("rnic_regs: PORT_GID, EQ_ENTRY, CMD_IN and CMD_OUT overlap in the mailbox RAM's address bits (%m)");
            $finish;
        end
    end

    // The counters, in a RAM (rnic_stat_ram: a read misses at most the
    // increments of the last STAT_COUNT + 2 cycles). Its read, like the
    // mailbox's, takes the stage's address: counter (slot - STAT_W0) of the
    // window. The byte counters take up to a beat's bytes per cycle, the
    // others up to two events.
    localparam logic [STAT_COUNT-1:0] STAT_WIDE =
        STAT_COUNT'(1) << ((rnic_pkg::REG_STAT_TX_BYTES - rnic_pkg::REG_STAT_TX_FRAMES) / 4)
        | STAT_COUNT'(1) << ((rnic_pkg::REG_STAT_RX_BYTES - rnic_pkg::REG_STAT_TX_FRAMES) / 4);
    logic [31:0] stat_word;
    rnic_stat_ram #(
        .COUNT(STAT_COUNT), .INC_W(16), .NARROW_INC_W(2), .WIDE_INC_W($clog2(DATA_WIDTH / 8 + 1)),
        .WIDE(STAT_WIDE), .AW(STAT_IW)
    ) stat_inst (
        .clk, .rst, .inc(stat_inc),
        .rd_addr(STAT_IW'(ra_next[STAT_IW-1:0] - STAT_IW'(STAT_W0))), .rd_data(stat_word)
    );

    // a window's words by slot, for the read decoder (empty slots read 0)
    logic [31:0] mw_slot [1 << MW_IW];
    for (genvar p = 0; p < (1 << MW_IW); p++) begin : g_mw_slot
        localparam int I = (p + (1 << MW_IW) - MW_W0 % (1 << MW_IW)) % (1 << MW_IW);
        assign mw_slot[p] = I < MW_WORDS ? mw_words[32 * (I % MW_WORDS) +: 32] : 32'h0;
    end

    // the read decoder, from the stage. The windows are disjoint, so each
    // hit's value is ORed in. The words that are constants (the blocks'
    // TYPE/VERSION/NEXT, the device's limits) depend on the address alone:
    // {count of hits, hit, value}, the count only for the assertion below.
    function automatic logic [40:0] rd_add(input logic [40:0] acc, input logic hit, input logic [31:0] v);
        rd_add = {acc[40:33] + 8'(hit), acc[32] | hit, acc[31:0] | (hit ? v : 32'h0)};
    endfunction
    function automatic logic [40:0] rd_hdr(input logic [40:0] acc, input logic [13:0] a, input logic [31:0] base,
                                           input logic [31:0] typ, input logic [31:0] ver, input logic [31:0] nxt);
        rd_hdr = rd_add(rd_add(rd_add(acc, a == waddr(base + rnic_pkg::REG_BLK_TYPE), typ),
                               a == waddr(base + rnic_pkg::REG_BLK_VERSION), ver),
                        a == waddr(base + rnic_pkg::REG_BLK_NEXT), nxt);
    endfunction
    function automatic logic [40:0] rd_const(input logic [13:0] a);
        logic [40:0] r;
        r = '0;
        r = rd_hdr(r, a, rnic_pkg::BLK_DEV_BASE, rnic_pkg::BLK_TYPE_DEV, rnic_pkg::BLK_DEV_VERSION,
                   rnic_pkg::BLK_DEV_NEXT);
        r = rd_hdr(r, a, rnic_pkg::BLK_PORT_BASE, rnic_pkg::BLK_TYPE_PORT, rnic_pkg::BLK_PORT_VERSION,
                   rnic_pkg::BLK_PORT_NEXT);
        r = rd_hdr(r, a, rnic_pkg::BLK_CTX_BASE, rnic_pkg::BLK_TYPE_CTX, rnic_pkg::BLK_CTX_VERSION,
                   rnic_pkg::BLK_CTX_NEXT);
        r = rd_hdr(r, a, rnic_pkg::BLK_STAT_BASE, rnic_pkg::BLK_TYPE_STAT, rnic_pkg::BLK_STAT_VERSION,
                   rnic_pkg::BLK_STAT_NEXT);
        r = rd_hdr(r, a, rnic_pkg::BLK_CMD_BASE, rnic_pkg::BLK_TYPE_CMD, rnic_pkg::BLK_CMD_VERSION,
                   rnic_pkg::BLK_CMD_NEXT);
        r = rd_hdr(r, a, rnic_pkg::BLK_DB_BASE, rnic_pkg::BLK_TYPE_DB, rnic_pkg::BLK_DB_VERSION,
                   rnic_pkg::BLK_DB_NEXT);
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_ID), {rnic_pkg::PCI_VENDOR_ID[15:0], rnic_pkg::PCI_DEVICE_ID[15:0]});
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_DATA_WIDTH), 32'(DATA_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_CLOCK_MHZ), rnic_pkg::CLOCK_MHZ);
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_QPS), 32'(1 << QPN_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_MRS), 32'(1 << MR_INDEX_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_MTT), 32'(1 << MTT_INDEX_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_CQS), 32'(1 << CQN_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_SRQS), 32'(1 << SRQN_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_AHS), 32'(1 << AH_INDEX_WIDTH));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_NUM_MCGS), 32'(rnic_pkg::MCAST_WAYS << rnic_pkg::MCAST_BUCKET_BITS));
        r = rd_add(r, a == waddr(rnic_pkg::REG_DEV_MAX_INFLIGHT), 32'(1 << INFLIGHT_LOG2));
        r = rd_add(r, a == waddr(rnic_pkg::REG_PORT_RX_FIFO_BYTES), 32'(RX_FIFO_BYTES));
        rd_const = r;
    endfunction

    wire [40:0]     rd_fixed = rd_const(ra_reg);
    wire [R_N-1:0]  rh = reg_dec(ra_reg) & (rq_fw_reg ? R_RD_FW : R_RD_HOST);
    // busy until the data path has the write in its table (a run: each of its CTX_COUNT writes)
    wire [31:0]     ctx_status = (mw_pending ? rnic_pkg::CTX_STATUS_MW_REQ : 32'h0)
                                 | (ctx_err_reg ? rnic_pkg::CTX_STATUS_ERROR : 32'h0)
                                 | ((ctx_wr_valid || ctx_wr_busy || run_left_reg != '0) ? rnic_pkg::CTX_STATUS_BUSY
                                                                                         : 32'h0);
    assign rd_val = rd_fixed[31:0]
                    | ({32{rh[R_SCRATCH]}} & scratch_reg)
                    | ({32{rh[R_MAC_LO]}} & port_mac_reg[31:0])
                    | ({32{rh[R_MAC_HI]}} & {16'h0, port_mac_reg[47:32]})
                    | ({32{rh[R_FC_CTRL]}} & {31'h0, fc_en_reg})
                    | ({32{rh[R_FC_XOFF]}} & fc_xoff_reg)
                    | ({32{rh[R_FC_XON]}} & fc_xon_reg)
                    | ({32{rh[R_FC_STALL]}} & fc_stall_reg)
                    | ({32{rh[R_UD_MTU]}} & {29'h0, ud_mtu_reg})
                    | ({32{rh[R_GID] && gid_ok_reg}} & mb_word)
                    | ({32{rh[R_CTX_STATUS]}} & ctx_status)
                    | ({32{rh[R_CTX_COUNT]}} & 32'(ctx_count_reg))
                    | ({32{rh[R_STAT]}} & stat_word)
                    | ({32{rh[R_CMD_STATUS]}}
                       & {cmd_word_reg[31:16], cmd_st_reg, 5'h0, fw_halted, cmd_overrun_reg, cmd_busy_reg})
                    | ({32{rh[R_CMD_OPCODE]}} & cmd_word_reg)
                    | ({32{rh[R_FW_STATE]}} & fw_state_reg)
                    | ({32{rh[R_EQ_PI]}} & eq_pi_reg)
                    | ({32{rh[R_EQ_CI]}} & eq_ci_reg)
                    | ({32{rh[R_EQ_LOST]}} & eq_lost_reg)
                    | ({32{rh[R_EQ_ENTRY] | rh[R_CMD_IN] | rh[R_CMD_OUT]}} & mb_word)
                    | ({32{rh[R_EVT_POP]}} & evt_word)
                    | ({32{rh[R_MW_REQ]}} & mw_slot[ra_reg[MW_IW-1:0]]);
    assign rd_hit = rd_fixed[32] || rh != '0;

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the read decoder's windows are disjoint
    always_ff @(posedge clk) begin
        if (!rst && (rq_host_reg || rq_fw_reg)) assert (32'(rd_fixed[40:33]) + $countones(rh) <= 1);
    end
`endif
`endif

    wire unused_ok = ^{unused_prot, s_axil_wstrb, s_axil_awaddr[1:0], s_axil_araddr[1:0], fw_addr[1:0], ws};

endmodule

`resetall
