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
 * data path through stat_inc (one 16-bit increment per counter per cycle).
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
 * priority; a firmware access takes the decoder in a cycle the host leaves
 * free and completes one cycle later (fw_ready).
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

    // ------------------------------------------------------------------
    // state
    // ------------------------------------------------------------------
    logic [31:0] scratch_reg;
    logic [47:0] port_mac_reg;
    logic        fc_en_reg;
    logic [31:0] fc_xoff_reg, fc_xon_reg, fc_stall_reg;
    logic [2:0]  ud_mtu_reg;     // PORT_UD_MTU: read by the firmware for UD QPCs
    logic [31:0] gid_reg [GIDS*4];
    logic [31:0] ctx_data_reg [CTX_WORDS];
    logic        ctx_err_reg;
    // CTX_OP_MTT_RUN: CTX_COUNT MTT entries from CTX_DATA, one per cycle
    localparam int RUN_MAX = CTX_WORDS / rnic_pkg::MTT_WORDS;
    localparam int RUN_W = $clog2(RUN_MAX + 1);
    logic [RUN_W-1:0] ctx_count_reg;
    logic [RUN_W-1:0] run_left_reg, run_i_reg;
    logic [23:0]      run_index_reg;
    logic             run_pulse_reg;          // ctx_wr_valid is a run's entry ...
    logic [RUN_W-1:0] run_sel_reg;            // ... this one
    localparam int STAT_IW = $clog2(STAT_COUNT);
    logic [31:0] stat_reg [STAT_COUNT];
    // command mailbox
    logic [31:0] cmd_in_reg [CMD_WORDS];
    logic [31:0] cmd_out_reg [CMD_WORDS];
    logic        cmd_busy_reg;
    logic        cmd_overrun_reg;
    logic [7:0]  cmd_st_reg;
    logic [31:0] cmd_word_reg;   // opcode and token as written to CMD_CTRL
    logic [31:0] fw_state_reg;
    // asynchronous event ring, written by the firmware, read by the host
    localparam int EQ_WORDS = rnic_pkg::REG_EQ_ENTRY_COUNT;
    logic [31:0] eq_entry_reg [EQ_WORDS];
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

    logic        rvalid_reg;
    logic [31:0] rdata_reg;
    logic [1:0]  rresp_reg;

    // a context write not yet taken holds every register write back: its
    // data, the CTX_DATA words, must not change under it; and until it is in
    // its table (ctx_wr_busy) no doorbell may overtake it. Both are registers
    // here, so the data path's readiness never reaches the write decoder.
    wire ctx_wait = ctx_wr_valid && !ctx_wr_ready;
    wire ctx_hold = ctx_wr_valid || ctx_wr_busy;
    wire wr_fire = s_axil_awvalid && s_axil_wvalid && !bvalid_reg && !db_pending_reg && !ctx_hold;
    // the firmware writes in cycles the host does not, and reads while the
    // host's read channel is idle (ra below is shared)
    logic fw_busy_reg;           // fw_ready is being presented
    logic [31:0] rd_val;         // the read decoder's answer for ra (below)
    logic        rd_hit;
    wire fw_wr_fire = fw_valid && fw_we && !fw_busy_reg && !wr_fire && !ctx_hold;
    wire fw_rd_fire = fw_valid && !fw_we && !fw_busy_reg && !(s_axil_arvalid && s_axil_arready);
    wire [13:0] wa = s_axil_awaddr[AXIL_ADDR_WIDTH-1:2];
    wire [13:0] fwa = fw_addr[15:2];
    wire [31:0] wdata = wr_fire ? s_axil_wdata : fw_wdata;

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

    logic        ctx_cmd_ok;
    logic [3:0]  cmd_table;
    logic [3:0]  cmd_op;
    logic [23:0] cmd_index;
    always_comb begin
        cmd_table = 4'(wdata & rnic_pkg::CTX_CMD_TABLE_MASK);
        cmd_op = 4'((wdata >> rnic_pkg::CTX_CMD_OP_SHIFT) & rnic_pkg::CTX_CMD_OP_MASK);
        cmd_index = 24'((wdata >> rnic_pkg::CTX_CMD_INDEX_SHIFT) & rnic_pkg::CTX_CMD_INDEX_MASK);
        ctx_cmd_ok = 1'b0;
        if (cmd_op == rnic_pkg::CTX_OP_WRITE[3:0] || cmd_op == rnic_pkg::CTX_OP_MODIFY[3:0]) begin
            if (cmd_table == rnic_pkg::CTX_TABLE_QPC[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << QPN_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_MPT[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << MR_INDEX_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_MTT[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << MTT_INDEX_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_CQC[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << CQN_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_SRQC[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << SRQN_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_AH[3:0])
                ctx_cmd_ok = cmd_index < 24'(1 << AH_INDEX_WIDTH);
            else if (cmd_table == rnic_pkg::CTX_TABLE_MCG[3:0])
                ctx_cmd_ok = cmd_op == rnic_pkg::CTX_OP_WRITE[3:0]
                             && cmd_index < 24'(rnic_pkg::MCAST_WAYS << rnic_pkg::MCAST_BUCKET_BITS);
        end else if (cmd_op == rnic_pkg::CTX_OP_QP_RTR[3:0] || cmd_op == rnic_pkg::CTX_OP_QP_RTS[3:0]) begin
            ctx_cmd_ok = cmd_table == rnic_pkg::CTX_TABLE_QPC[3:0] && cmd_index < 24'(1 << QPN_WIDTH);
        end else if (cmd_op == rnic_pkg::CTX_OP_MTT_RUN[3:0]) begin
            ctx_cmd_ok = cmd_table == rnic_pkg::CTX_TABLE_MTT[3:0] && ctx_count_reg != '0
                         && 32'(ctx_count_reg) <= 32'(RUN_MAX)
                         && 32'(cmd_index) + 32'(ctx_count_reg) <= 32'(1 << MTT_INDEX_WIDTH);
        end
        // one command at a time: a run in progress refuses the next
        if (run_left_reg != '0) ctx_cmd_ok = 1'b0;
    end

    always_comb begin
        for (int i = 0; i < CTX_WORDS; i++) ctx_wr_data[32*i +: 32] = ctx_data_reg[i];
        if (run_pulse_reg)
            for (int w = 0; w < rnic_pkg::MTT_WORDS; w++)
                ctx_wr_data[32*w +: 32] = ctx_data_reg[5'(32'(run_sel_reg) * rnic_pkg::MTT_WORDS + 32'(w))];
        for (int i = 0; i < GIDS * 4; i++) begin
            // word 0 of an entry holds the most significant 32 bits
            cfg_gid[128 * (i / 4) + 32 * (3 - (i % 4)) +: 32] = gid_reg[i];
        end
    end
    assign cfg_port_mac = port_mac_reg;
    assign cfg_fc_en = fc_en_reg;
    assign cfg_fc_xoff = fc_xoff_reg;
    assign cfg_fc_xon = fc_xon_reg;
    assign cfg_fc_stall = fc_stall_reg;

    // one write decoder for both ports
    wire        any_wr = wr_fire || fw_wr_fire;
    wire [13:0] wsel = wr_fire ? wa : fwa;
    wire        by_fw = !wr_fire;
    wire        w_cmd_in = wsel >= waddr(rnic_pkg::REG_CMD_IN)
                           && wsel < waddr(rnic_pkg::REG_CMD_IN) + 14'(CMD_WORDS);
    wire        w_cmd_out = wsel >= waddr(rnic_pkg::REG_CMD_OUT)
                            && wsel < waddr(rnic_pkg::REG_CMD_OUT) + 14'(CMD_WORDS);
    wire        w_win = wsel >= waddr(rnic_pkg::REG_DB_WQE) && wsel < waddr(rnic_pkg::REG_DB_WQE) + 14'(WIN_WORDS);
    wire        w_db_wait = wsel == waddr(rnic_pkg::REG_DB_SQ) || wsel == waddr(rnic_pkg::REG_DB_RQ)
                            || wsel == waddr(rnic_pkg::REG_DB_SRQ)
                            || wsel == waddr(rnic_pkg::REG_DB_SQ_WQE);

    always_ff @(posedge clk) begin
        logic wr_ok;
        if (!ctx_wait) begin
            ctx_wr_valid <= 1'b0;
            run_pulse_reg <= 1'b0;
        end
        db_cq_valid <= 1'b0;
        fw_busy_reg <= 1'b0;
        mw_ans_valid <= 1'b0;
        if (!mw_req_valid) mw_answered_reg <= 1'b0;
        if (!mw_req_valid) mw_taken <= 1'b0;
        else if (fw_rd_fire && fwa == waddr(rnic_pkg::REG_MW_REQ) && mw_pending) mw_taken <= 1'b1;
        if (run_left_reg != '0 && !ctx_wait) begin
            ctx_wr_valid <= 1'b1;
            ctx_wr_table <= rnic_pkg::CTX_TABLE_MTT[3:0];
            ctx_wr_op <= rnic_pkg::CTX_OP_WRITE[3:0];
            ctx_wr_index <= run_index_reg + 24'(run_i_reg);
            run_pulse_reg <= 1'b1;
            run_sel_reg <= run_i_reg;
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

        wr_ok = 1'b1;
        if (any_wr) begin
            if (wsel == waddr(rnic_pkg::REG_DEV_SCRATCH)) begin
                scratch_reg <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_PORT_MAC_LO)) begin
                port_mac_reg[31:0] <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_PORT_MAC_HI)) begin
                port_mac_reg[47:32] <= wdata[15:0];
            end else if (wsel == waddr(rnic_pkg::REG_PORT_FC_CTRL)) begin
                fc_en_reg <= wdata[0];
            end else if (wsel == waddr(rnic_pkg::REG_PORT_FC_XOFF)) begin
                fc_xoff_reg <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_PORT_FC_XON)) begin
                fc_xon_reg <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_PORT_FC_STALL)) begin
                fc_stall_reg <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_PORT_UD_MTU)) begin
                ud_mtu_reg <= wdata[2:0];
            end else if (wsel >= waddr(rnic_pkg::REG_PORT_GID)
                         && wsel < waddr(rnic_pkg::REG_PORT_GID) + 14'(GIDS * 4)) begin
                gid_reg[4'(wsel - waddr(rnic_pkg::REG_PORT_GID))] <= wdata;
            end else if (wsel >= waddr(rnic_pkg::REG_CTX_DATA)
                         && wsel < waddr(rnic_pkg::REG_CTX_DATA) + 14'(CTX_WORDS)) begin
                ctx_data_reg[5'(wsel - waddr(rnic_pkg::REG_CTX_DATA))] <= wdata;
            end else if (wsel == waddr(rnic_pkg::REG_CTX_COUNT)) begin
                ctx_count_reg <= RUN_W'(wdata);
                if (wdata > 32'(RUN_MAX)) ctx_count_reg <= '0; // refused at the CTX_CMD
            end else if (wsel == waddr(rnic_pkg::REG_CTX_CMD)) begin
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
            end else if (!by_fw && w_cmd_in) begin
                // the command in progress keeps its input
                if (cmd_busy_reg) cmd_overrun_reg <= 1'b1;
                else cmd_in_reg[5'(wsel - waddr(rnic_pkg::REG_CMD_IN))] <= wdata;
            end else if (!by_fw && wsel == waddr(rnic_pkg::REG_CMD_CTRL)) begin
                if (cmd_busy_reg) begin
                    cmd_overrun_reg <= 1'b1;
                end else begin
                    cmd_busy_reg <= 1'b1;
                    cmd_overrun_reg <= 1'b0;
                    cmd_word_reg <= wdata;
                end
            end else if (by_fw && w_cmd_out) begin
                cmd_out_reg[5'(wsel - waddr(rnic_pkg::REG_CMD_OUT))] <= wdata;
            end else if (by_fw && wsel == waddr(rnic_pkg::REG_CMD_DONE)) begin
                cmd_busy_reg <= 1'b0;
                cmd_st_reg <= wdata[15:8];
            end else if (by_fw && wsel == waddr(rnic_pkg::REG_FW_STATE)) begin
                fw_state_reg <= wdata;
            end else if (by_fw && wsel >= waddr(rnic_pkg::REG_EQ_ENTRY)
                         && wsel < waddr(rnic_pkg::REG_EQ_ENTRY) + 14'(EQ_WORDS)) begin
                eq_entry_reg[$clog2(EQ_WORDS)'(wsel - waddr(rnic_pkg::REG_EQ_ENTRY))] <= wdata;
            end else if (by_fw && wsel == waddr(rnic_pkg::REG_EQ_PI)) begin
                eq_pi_reg <= wdata;
            end else if (by_fw && wsel == waddr(rnic_pkg::REG_EQ_LOST)) begin
                eq_lost_reg <= wdata;
            end else if (by_fw && wsel == waddr(rnic_pkg::REG_MW_ANSWER)) begin
                // an answer with no request waiting is refused
                if (mw_pending) begin
                    mw_ans_valid <= 1'b1;
                    mw_ans_status <= wdata[7:0];
                    mw_answered_reg <= 1'b1;
                end else begin
                    wr_ok = 1'b0;
                end
            end else if (!by_fw && wsel == waddr(rnic_pkg::REG_EQ_CI)) begin
                eq_ci_reg <= wdata;
            end else if (!by_fw && (wsel == waddr(rnic_pkg::REG_DB_SQ)
                                    || wsel == waddr(rnic_pkg::REG_DB_SQ_WQE))) begin
                // the response waits until the scheduler has taken the doorbell
                db_pending_reg <= 1'b1;
                db_is_rq_reg <= 1'b0;
                db_is_srq_reg <= 1'b0;
                db_word_reg <= wdata;
                if (wsel == waddr(rnic_pkg::REG_DB_SQ_WQE)) begin
                    // ... and the window holds the WQE before that producer index
                    win_valid_reg <= 1'b1;
                    win_new_reg <= 1'b1;
                    win_qpn_reg <= wdata[31:16];
                    win_idx_reg <= wdata[15:0] - 16'd1;
                end
            end else if (!by_fw && w_win) begin
                win_reg[$clog2(WIN_WORDS)'(wsel - waddr(rnic_pkg::REG_DB_WQE))] <= wdata;
                win_valid_reg <= 1'b0;
            end else if (!by_fw && (wsel == waddr(rnic_pkg::REG_DB_RQ) || wsel == waddr(rnic_pkg::REG_DB_SRQ))) begin
                db_pending_reg <= 1'b1;
                db_is_rq_reg <= 1'b1;
                db_is_srq_reg <= wsel == waddr(rnic_pkg::REG_DB_SRQ);
                db_word_reg <= wdata;
            end else if (!by_fw && wsel == waddr(rnic_pkg::REG_DB_CQ)) begin
                db_cq_valid <= 1'b1;
                db_cq_cqn <= wdata[31:16];
                db_cq_ci <= wdata[15:0];
            end else begin
                // read-only, unmapped, or the other port's register
                wr_ok = 1'b0;
            end
            if (by_fw) begin
                fw_busy_reg <= 1'b1;
                fw_rdata <= '0;
                fw_err <= !wr_ok;
            end else begin
                bvalid_reg <= !(wr_ok && w_db_wait);
                bresp_reg <= wr_ok ? RESP_OKAY : RESP_SLVERR;
            end
        end

        if (fw_rd_fire) begin
            fw_busy_reg <= 1'b1;
            fw_rdata <= rd_val;
            fw_err <= !rd_hit;
        end

        for (int i = 0; i < STAT_COUNT; i++) stat_reg[i] <= stat_reg[i] + 32'(stat_inc[16*i +: 16]);

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
            fc_stall_reg <= 32'd1024;
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
            for (int i = 0; i < STAT_COUNT; i++) stat_reg[i] <= '0;
        end
    end
    assign fw_ready = fw_busy_reg;

    // ------------------------------------------------------------------
    // read channel
    // ------------------------------------------------------------------
    // the host's read address, or the firmware's in a cycle the host does not read
    wire        host_rd = s_axil_arvalid && s_axil_arready;
    wire [13:0] ra = host_rd ? s_axil_araddr[AXIL_ADDR_WIDTH-1:2] : fwa;
    assign evt_pop = fw_rd_fire && fwa == waddr(rnic_pkg::REG_EVT_POP);
    assign s_axil_arready = !rvalid_reg;
    assign s_axil_rvalid = rvalid_reg;
    assign s_axil_rdata = rdata_reg;
    assign s_axil_rresp = rresp_reg;

    // the TYPE/VERSION/NEXT words of a block: {hit, value}
    function automatic logic [32:0] blk_hdr(input logic [13:0] a, input logic [31:0] base,
                                             input logic [31:0] typ, input logic [31:0] ver,
                                             input logic [31:0] nxt);
        blk_hdr = 33'h0;
        if (a == waddr(base + rnic_pkg::REG_BLK_TYPE)) blk_hdr = {1'b1, typ};
        if (a == waddr(base + rnic_pkg::REG_BLK_VERSION)) blk_hdr = {1'b1, ver};
        if (a == waddr(base + rnic_pkg::REG_BLK_NEXT)) blk_hdr = {1'b1, nxt};
    endfunction

    logic [32:0] hdr_dev, hdr_port, hdr_ctx, hdr_stat, hdr_cmd, hdr_db;
    assign hdr_dev = blk_hdr(ra, rnic_pkg::BLK_DEV_BASE, rnic_pkg::BLK_TYPE_DEV, rnic_pkg::BLK_DEV_VERSION,
                             rnic_pkg::BLK_DEV_NEXT);
    assign hdr_port = blk_hdr(ra, rnic_pkg::BLK_PORT_BASE, rnic_pkg::BLK_TYPE_PORT, rnic_pkg::BLK_PORT_VERSION,
                              rnic_pkg::BLK_PORT_NEXT);
    assign hdr_ctx = blk_hdr(ra, rnic_pkg::BLK_CTX_BASE, rnic_pkg::BLK_TYPE_CTX, rnic_pkg::BLK_CTX_VERSION,
                             rnic_pkg::BLK_CTX_NEXT);
    assign hdr_stat = blk_hdr(ra, rnic_pkg::BLK_STAT_BASE, rnic_pkg::BLK_TYPE_STAT, rnic_pkg::BLK_STAT_VERSION,
                              rnic_pkg::BLK_STAT_NEXT);
    assign hdr_cmd = blk_hdr(ra, rnic_pkg::BLK_CMD_BASE, rnic_pkg::BLK_TYPE_CMD, rnic_pkg::BLK_CMD_VERSION,
                             rnic_pkg::BLK_CMD_NEXT);
    assign hdr_db = blk_hdr(ra, rnic_pkg::BLK_DB_BASE, rnic_pkg::BLK_TYPE_DB, rnic_pkg::BLK_DB_VERSION,
                            rnic_pkg::BLK_DB_NEXT);

    always_comb begin
        rd_val = 32'h0;
        rd_hit = 1'b0;
        if (hdr_dev[32]) begin rd_val = hdr_dev[31:0]; rd_hit = 1'b1; end
        if (hdr_port[32]) begin rd_val = hdr_port[31:0]; rd_hit = 1'b1; end
        if (hdr_ctx[32]) begin rd_val = hdr_ctx[31:0]; rd_hit = 1'b1; end
        if (hdr_stat[32]) begin rd_val = hdr_stat[31:0]; rd_hit = 1'b1; end
        if (hdr_cmd[32]) begin rd_val = hdr_cmd[31:0]; rd_hit = 1'b1; end
        if (hdr_db[32]) begin rd_val = hdr_db[31:0]; rd_hit = 1'b1; end

        if (ra == waddr(rnic_pkg::REG_DEV_ID)) begin
            rd_val = {rnic_pkg::PCI_VENDOR_ID[15:0], rnic_pkg::PCI_DEVICE_ID[15:0]}; rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_DEV_DATA_WIDTH)) begin rd_val = 32'(DATA_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_CLOCK_MHZ)) begin rd_val = rnic_pkg::CLOCK_MHZ; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_QPS)) begin rd_val = 32'(1 << QPN_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_MRS)) begin rd_val = 32'(1 << MR_INDEX_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_MTT)) begin rd_val = 32'(1 << MTT_INDEX_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_CQS)) begin rd_val = 32'(1 << CQN_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_SRQS)) begin rd_val = 32'(1 << SRQN_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_AHS)) begin rd_val = 32'(1 << AH_INDEX_WIDTH); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_NUM_MCGS)) begin
            rd_val = 32'(rnic_pkg::MCAST_WAYS << rnic_pkg::MCAST_BUCKET_BITS);
            rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_DEV_MAX_INFLIGHT)) begin rd_val = 32'(1 << INFLIGHT_LOG2); rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_DEV_SCRATCH)) begin rd_val = scratch_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_MAC_LO)) begin rd_val = port_mac_reg[31:0]; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_MAC_HI)) begin rd_val = {16'h0, port_mac_reg[47:32]}; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_FC_CTRL)) begin rd_val = {31'h0, fc_en_reg}; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_FC_XOFF)) begin rd_val = fc_xoff_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_FC_XON)) begin rd_val = fc_xon_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_FC_STALL)) begin rd_val = fc_stall_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_UD_MTU)) begin rd_val = {29'h0, ud_mtu_reg}; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_PORT_RX_FIFO_BYTES)) begin rd_val = 32'(RX_FIFO_BYTES); rd_hit = 1'b1; end
        if (ra >= waddr(rnic_pkg::REG_PORT_GID) && ra < waddr(rnic_pkg::REG_PORT_GID) + 14'(GIDS * 4)) begin
            rd_val = gid_reg[4'(ra - waddr(rnic_pkg::REG_PORT_GID))]; rd_hit = 1'b1;
        end
        if (ra >= waddr(rnic_pkg::REG_CTX_DATA) && ra < waddr(rnic_pkg::REG_CTX_DATA) + 14'(CTX_WORDS)) begin
            rd_val = ctx_data_reg[5'(ra - waddr(rnic_pkg::REG_CTX_DATA))]; rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_CTX_STATUS)) begin
            // busy until the data path has the write in its table (a run: each of its CTX_COUNT writes)
            rd_val = (mw_pending ? rnic_pkg::CTX_STATUS_MW_REQ : 32'h0)
                   | (ctx_err_reg ? rnic_pkg::CTX_STATUS_ERROR : 32'h0)
                   | ((ctx_wr_valid || ctx_wr_busy || run_left_reg != '0) ? rnic_pkg::CTX_STATUS_BUSY : 32'h0);
            rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_CTX_COUNT)) begin
            rd_val = 32'(ctx_count_reg); rd_hit = 1'b1;
        end
        if (ra >= waddr(rnic_pkg::REG_STAT_TX_FRAMES) && ra < waddr(rnic_pkg::REG_STAT_TX_FRAMES) + 14'(STAT_COUNT)) begin
            rd_val = stat_reg[STAT_IW'(ra - waddr(rnic_pkg::REG_STAT_TX_FRAMES))]; rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_CMD_STATUS)) begin
            rd_val = {cmd_word_reg[31:16], cmd_st_reg, 5'h0, fw_halted, cmd_overrun_reg, cmd_busy_reg};
            rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_CMD_OPCODE)) begin rd_val = cmd_word_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_FW_STATE)) begin rd_val = fw_state_reg; rd_hit = 1'b1; end
        // EVT_POP takes an event: the firmware's alone
        if (ra == waddr(rnic_pkg::REG_EVT_POP) && !host_rd) begin rd_val = evt_word; rd_hit = 1'b1; end
        // the window request: the firmware's alone
        if (ra >= waddr(rnic_pkg::REG_MW_REQ) && ra < waddr(rnic_pkg::REG_MW_REQ) + 14'(MW_WORDS) && !host_rd) begin
            rd_val = mw_words[32 * 32'(MW_IW'(ra - waddr(rnic_pkg::REG_MW_REQ))) +: 32]; rd_hit = 1'b1;
        end
        if (ra == waddr(rnic_pkg::REG_EQ_PI)) begin rd_val = eq_pi_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_EQ_CI)) begin rd_val = eq_ci_reg; rd_hit = 1'b1; end
        if (ra == waddr(rnic_pkg::REG_EQ_LOST)) begin rd_val = eq_lost_reg; rd_hit = 1'b1; end
        if (ra >= waddr(rnic_pkg::REG_EQ_ENTRY) && ra < waddr(rnic_pkg::REG_EQ_ENTRY) + 14'(EQ_WORDS)) begin
            rd_val = eq_entry_reg[$clog2(EQ_WORDS)'(ra - waddr(rnic_pkg::REG_EQ_ENTRY))]; rd_hit = 1'b1;
        end
        if (ra >= waddr(rnic_pkg::REG_CMD_IN) && ra < waddr(rnic_pkg::REG_CMD_IN) + 14'(CMD_WORDS)) begin
            rd_val = cmd_in_reg[5'(ra - waddr(rnic_pkg::REG_CMD_IN))]; rd_hit = 1'b1;
        end
        if (ra >= waddr(rnic_pkg::REG_CMD_OUT) && ra < waddr(rnic_pkg::REG_CMD_OUT) + 14'(CMD_WORDS)) begin
            rd_val = cmd_out_reg[5'(ra - waddr(rnic_pkg::REG_CMD_OUT))]; rd_hit = 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_rvalid && s_axil_rready) rvalid_reg <= 1'b0;
        if (s_axil_arvalid && s_axil_arready) begin
            rvalid_reg <= 1'b1;
            rdata_reg <= rd_val;
            rresp_reg <= rd_hit ? RESP_OKAY : RESP_SLVERR;
        end
        if (rst) rvalid_reg <= 1'b0;
    end

    wire unused_ok = ^{unused_prot, s_axil_wstrb, s_axil_awaddr[1:0], s_axil_araddr[1:0], fw_addr[1:0]};

endmodule

`resetall
