`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * CQE writer.
 *
 * Writes one 32-byte CQE per request into the CQ ring in host memory, in two
 * DMA writes: bytes 0..30 (the body), then, only after the body's write
 * response, byte 31 (the owner byte, bit 0 = phase). A host that sees the
 * owner bit flip may therefore read the body (the owner-bit contract of
 * docs/ARCHITECTURE.md). The phase is 1 on the first pass over the ring and
 * flips at each wrap. A CQE for an invalid CQ is dropped; so is one for a full
 * CQ (producer index - consumer index from DB_CQ == size), counted as overrun.
 *
 * Pipelined: the bodies of later CQEs are written while earlier ones wait
 * for their write responses. Each written body queues its owner write
 * (2^OWN_LOG2 of them); the write engine reports one status per write, in
 * order, and a queue of one bit per write says whether a status is a body's
 * (its owner may go) or an owner's (the CQE is done). Owner writes go first
 * and in CQE order. The producer index advances when a CQE is taken, so the
 * overrun check counts the CQEs still being written.
 *
 * The data of each write go into a small FIFO in front of the write engine,
 * which takes a write's data only once its burst is out on AW (through the
 * write multiplexer): the engine goes on to the next CQE or owner byte
 * meanwhile instead of waiting out that round (a receive CQE per 64 B SEND
 * made this engine the SEND path's bound).
 */
module rnic_cqe_wr #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int CQN_WIDTH = 10,
    // CQEs whose owner byte is not yet written
    parameter int OWN_LOG2 = 3
) (
    input  wire logic                          clk,
    input  wire logic                          rst,

    input  wire logic                          s_cqe_valid,
    output      logic                          s_cqe_ready,
    input  wire logic [15:0]                   s_cqe_cqn,
    input  wire logic [23:0]                   s_cqe_qpn,
    input  wire logic [15:0]                   s_cqe_wqe_counter,
    input  wire logic [7:0]                    s_cqe_opcode,
    input  wire logic [7:0]                    s_cqe_status,
    input  wire logic [31:0]                   s_cqe_byte_len,
    input  wire logic [23:0]                   s_cqe_src_qp,
    input  wire logic [7:0]                    s_cqe_syndrome,
    input  wire logic [31:0]                   s_cqe_imm,      // network order: bits 31:24 go first;
                                                               // with WC_FLAG_WITH_INV the invalidated rkey
    input  wire logic [7:0]                    s_cqe_flags,
    input  wire logic [47:0]                   s_cqe_smac,     // UD receive: source MAC, bits 47:40 first on the wire

    output      logic                          cqc_rd_en,
    output      logic [CQN_WIDTH-1:0]          cqc_rd_addr,
    input  wire logic [rnic_pkg::CQC_BITS-1:0] cqc_rd_data,

    input  wire logic                          cq_reset_valid,
    input  wire logic [CQN_WIDTH-1:0]          cq_reset_cqn,
    output      logic                          ctx_ready,   // a CQ context write may be taken now
    input  wire logic                          db_cq_valid,
    input  wire logic [15:0]                   db_cq_cqn,
    input  wire logic [15:0]                   db_cq_ci,

    output      logic [63:0]                   m_axis_desc_addr,
    output      logic [31:0]                   m_axis_desc_len,
    output      logic                          m_axis_desc_valid,
    input  wire logic                          m_axis_desc_ready,
    output      logic [DATA_WIDTH-1:0]         m_axis_data_tdata,
    output      logic [KEEP_WIDTH-1:0]         m_axis_data_tkeep,
    output      logic                          m_axis_data_tvalid,
    input  wire logic                          m_axis_data_tready,
    output      logic                          m_axis_data_tlast,
    input  wire logic                          s_status_valid,
    input  wire logic                          s_status_error,

    output      logic                          stat_cqe,
    output      logic                          stat_cq_overrun,
    output      logic [15:0]                   stat_cq_overrun_cqn  // with stat_cq_overrun
);

    localparam int NUM_CQS = 2 ** CQN_WIDTH;
    localparam int CQE_BYTES = rnic_pkg::CQE_BYTES_TOTAL;
    localparam int BODY_BYTES = rnic_pkg::CQE_OWNER_OFF;
    localparam int BODY_BEATS = (BODY_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int IMG_BITS = BODY_BEATS * DATA_WIDTH;
    // the data FIFO: room for the writes of two CQEs (body and owner byte)
    localparam int DFIFO_BEATS = 1 << $clog2(2 * (BODY_BEATS + 1));

    initial begin
        if (rnic_pkg::CQE_OWNER_OFF != CQE_BYTES - 1) begin
            $error("rnic_cqe_wr: the owner byte must be the last byte of the CQE (%m)");
            $finish;
        end
    end

    // Per CQ: the producer index and its phase (one table: a CQE and the
    // CQ's reset write both) and the consumer index (a CQ doorbell and the
    // reset). Block RAM with a registered read: read at the CQE's take (its
    // CQ number is the read address), used in S_CQC, the next cycle. The
    // RAM returns the entry as it was before that cycle's write; a write
    // to the same CQ in the take cycle is forwarded from registers, whose
    // compare is of registers (left to synthesis, the forward ran behind
    // the reset's write enable, 12 levels at 512 bits).
    logic [16:0] pp_rd;              // {phase, producer index}
    logic [15:0] ci_rd;
    logic        pp_fwd_reset_reg;   // the CQ was reset in the take cycle
    logic        ci_fwd_reg;         // ... or its consumer index written
    logic [15:0] ci_fwd_val_reg;
    wire  [15:0] pi_cur = pp_fwd_reset_reg ? 16'h0 : pp_rd[15:0];
    wire         phase_cur = pp_fwd_reset_reg ? 1'b1 : pp_rd[16];
    wire  [15:0] ci_cur = ci_fwd_reg ? ci_fwd_val_reg : ci_rd;

    typedef enum logic [2:0] {
        S_IDLE,       // write an owner byte whose body is written, or take a request
        S_CQC,        // check the CQ, compute the slot
        S_BODY_DESC,  // write bytes 0..30
        S_BODY_DATA,
        S_OWN_DESC,   // the owner byte of the oldest CQE
        S_OWN_DATA
    } state_t;

    state_t               state_reg;
    logic [CQN_WIDTH-1:0] cqn_reg;
    logic [IMG_BITS-1:0]  img_reg;       // CQE body, little-endian bytes
    logic [4:0]           beat_reg;
    logic [63:0]          addr;          // the CQE's address (S_CQC on)
    logic [63:0]          own_byte_addr; // its owner byte's
    logic                 phase_reg;

    wire        cqc_valid = cqc_rd_data[rnic_pkg::CQC_VALID_LSB +: rnic_pkg::CQC_VALID_W];
    wire [4:0]  cqc_log   = cqc_rd_data[rnic_pkg::CQC_LOG_SIZE_LSB +: rnic_pkg::CQC_LOG_SIZE_W];
    wire [63:0] cqc_base  = cqc_rd_data[rnic_pkg::CQC_BASE_LSB +: rnic_pkg::CQC_BASE_W];
    wire [15:0] cq_mask   = (16'd1 << cqc_log) - 16'd1;
    wire [15:0] cq_used   = pi_cur - ci_cur;
    wire [15:0] cq_slot   = pi_cur & cq_mask;
    logic       cqn_bad_reg;   // the requested CQ number is beyond the table

    // the CQE's and its owner byte's bus addresses, each added over S_CQC's
    // register (the slot's offset has its low CQE_LOG_BYTES bits zero, so
    // the owner byte's offset inside the CQE is ORed in)
    wire [31:0] cq_off = 32'(cq_slot) << rnic_pkg::CQE_LOG_BYTES;
    rnic_add_split addr_add_inst (
        .clk, .en(state_reg == S_CQC), .a(cqc_base), .b(cq_off), .sum(addr)
    );
    rnic_add_split own_add_inst (
        .clk, .en(state_reg == S_CQC), .a(cqc_base), .b(cq_off | 32'(BODY_BYTES)), .sum(own_byte_addr)
    );

    // owner writes waiting: {address of the owner byte, phase}, in CQE order
    localparam int OWN = 2 ** OWN_LOG2;
    logic [63:0]       own_addr_mem [OWN];
    logic              own_phase_mem [OWN];
    logic [OWN_LOG2:0] own_wr_reg, own_rd_reg;
    logic [OWN_LOG2:0] bodies_done_reg;   // queued owners whose body is written
    wire               own_full = rnic_gates_pkg::ring_full(32'(own_wr_reg), 32'(own_rd_reg), OWN_LOG2);
    // writes issued and not yet reported: 1 = an owner byte, 0 = a body
    logic              kind_mem [2 * OWN];
    logic [OWN_LOG2+1:0] kind_wr_reg, kind_rd_reg;
    wire               kind_head = kind_mem[kind_rd_reg[OWN_LOG2:0]];
    wire [OWN_LOG2+1:0] kind_used = kind_wr_reg - kind_rd_reg;
    wire [63:0]        own_addr = own_addr_mem[own_rd_reg[OWN_LOG2-1:0]];
    wire               own_phase = own_phase_mem[own_rd_reg[OWN_LOG2-1:0]];
    // The queues' levels as flags, registered from the next pointers (the
    // pointer differences and their compares ran through s_cqe_ready into
    // the CQ context read and the CQE's registers, 12 levels): bodies
    // written, the owner queue full, room for one write or for two
    logic              bodies_nz_reg, own_full_reg, kind_room1_reg, kind_room2_reg;
    wire               own_go = bodies_nz_reg && kind_room1_reg;

    // a CQE is taken with room for both its writes
    assign s_cqe_ready = state_reg == S_IDLE && !own_go && !own_full_reg && kind_room2_reg;
    wire take = s_cqe_valid && s_cqe_ready;
    assign cqc_rd_en = take;
    assign cqc_rd_addr = s_cqe_cqn[CQN_WIDTH-1:0];

    assign m_axis_desc_valid = state_reg == S_BODY_DESC || state_reg == S_OWN_DESC;
    assign m_axis_desc_addr = (state_reg == S_OWN_DESC) ? own_addr : addr;
    assign m_axis_desc_len = (state_reg == S_OWN_DESC) ? 32'd1 : 32'(BODY_BYTES);
    wire desc_fire = m_axis_desc_valid && m_axis_desc_ready;
    // the pointers and the count as the block's always_ff below sets them
    wire               own_inc = state_reg == S_BODY_DESC && desc_fire;
    wire               own_dec = state_reg == S_OWN_DATA && q_tready;
    wire [OWN_LOG2:0]  own_wr_next = own_wr_reg + (OWN_LOG2 + 1)'(own_inc);
    wire [OWN_LOG2:0]  own_rd_next = own_rd_reg + (OWN_LOG2 + 1)'(own_dec);
    wire [OWN_LOG2:0]  own_used = own_wr_reg - own_rd_reg;
    wire [OWN_LOG2:0]  bodies_next = bodies_done_reg + (OWN_LOG2 + 1)'(s_status_valid && !kind_head)
                                     - (OWN_LOG2 + 1)'(state_reg == S_OWN_DESC && desc_fire);

    // the write data, into the FIFO
    logic [DATA_WIDTH-1:0] q_tdata;
    logic [KEEP_WIDTH-1:0] q_tkeep;
    logic                  q_tvalid, q_tready, q_tlast;
    always_comb begin
        q_tvalid = 1'b0;
        q_tdata = '0;
        q_tkeep = '0;
        q_tlast = 1'b0;
        if (state_reg == S_BODY_DATA) begin
            q_tvalid = 1'b1;
            q_tdata = img_reg[DATA_WIDTH * 32'(beat_reg) +: DATA_WIDTH];
            for (int i = 0; i < KEEP_WIDTH; i++)
                q_tkeep[i] = 32'(beat_reg) * KEEP_WIDTH + i < BODY_BYTES;
            q_tlast = 32'(beat_reg) == BODY_BEATS - 1;
        end else if (state_reg == S_OWN_DATA) begin
            q_tvalid = 1'b1;
            q_tdata[7:0] = {7'h0, own_phase};
            q_tkeep[0] = 1'b1;
            q_tlast = 1'b1;
        end
    end

    logic                       dfifo_tuser_unused, dfifo_ovf_unused, dfifo_bad_unused, dfifo_good_unused;
    logic [$clog2(DFIFO_BEATS):0] dfifo_level_unused;
    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DEPTH_BYTES(DFIFO_BEATS * KEEP_WIDTH),
        .FRAME_FIFO(0), .DROP_BAD_FRAME(0)
    ) data_fifo_inst (
        .clk, .rst,
        .s_axis_tdata(q_tdata), .s_axis_tkeep(q_tkeep), .s_axis_tvalid(q_tvalid), .s_axis_tready(q_tready),
        .s_axis_tlast(q_tlast), .s_axis_tuser(1'b0),
        .m_axis_tdata(m_axis_data_tdata), .m_axis_tkeep(m_axis_data_tkeep), .m_axis_tvalid(m_axis_data_tvalid),
        .m_axis_tready(m_axis_data_tready), .m_axis_tlast(m_axis_data_tlast), .m_axis_tuser(dfifo_tuser_unused),
        .status_overflow(dfifo_ovf_unused), .status_bad_frame(dfifo_bad_unused),
        .status_good_frame(dfifo_good_unused), .status_level(dfifo_level_unused)
    );

    always_ff @(posedge clk) begin
        stat_cqe <= 1'b0;
        stat_cq_overrun <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (own_go) begin
                    state_reg <= S_OWN_DESC;
                end else if (s_cqe_valid && s_cqe_ready) begin
                    cqn_reg <= s_cqe_cqn[CQN_WIDTH-1:0];
                    cqn_bad_reg <= (s_cqe_cqn >> CQN_WIDTH) != 16'h0;
                    img_reg <= '0;
                    img_reg[8 * rnic_pkg::CQE_QPN_OFF +: 32] <= {8'h0, s_cqe_qpn};
                    img_reg[8 * rnic_pkg::CQE_WQE_COUNTER_OFF +: 16] <= s_cqe_wqe_counter;
                    img_reg[8 * rnic_pkg::CQE_OPCODE_OFF +: 8] <= s_cqe_opcode;
                    img_reg[8 * rnic_pkg::CQE_STATUS_OFF +: 8] <= s_cqe_status;
                    img_reg[8 * rnic_pkg::CQE_BYTE_LEN_OFF +: 32] <= s_cqe_byte_len;
                    img_reg[8 * rnic_pkg::CQE_SRC_QP_OFF +: 32] <= {8'h0, s_cqe_src_qp};
                    img_reg[8 * rnic_pkg::CQE_SYNDROME_OFF +: 8] <= s_cqe_syndrome;
                    // s_cqe_imm carries the invalidated rkey with WC_FLAG_WITH_INV
                    // (a SEND with invalidate has no immediate): network order
                    // either way, as ibv_wc's union of the two
                    img_reg[8 * rnic_pkg::CQE_IMM_DATA_OFF +: 32] <=
                        {s_cqe_imm[7:0], s_cqe_imm[15:8], s_cqe_imm[23:16], s_cqe_imm[31:24]};
                    for (int i = 0; i < 6; i++)
                        img_reg[8 * (rnic_pkg::CQE_SMAC_OFF + 32'(i)) +: 8] <= s_cqe_smac[8 * (5 - i) +: 8];
                    img_reg[8 * rnic_pkg::CQE_WC_FLAGS_OFF +: 8] <= s_cqe_flags;
                    state_reg <= S_CQC;
                end
            end
            S_CQC: begin
                phase_reg <= phase_cur;
                beat_reg <= '0;
                if (!cqc_valid || cqn_bad_reg) begin
                    state_reg <= S_IDLE;
                end else if (32'(cq_used) >= (32'd1 << cqc_log)) begin
                    stat_cq_overrun <= 1'b1;
                    state_reg <= S_IDLE;
                end else begin
                    state_reg <= S_BODY_DESC;
                end
            end
            S_BODY_DESC: if (m_axis_desc_ready) state_reg <= S_BODY_DATA;
            S_BODY_DATA: begin
                if (q_tready) begin
                    beat_reg <= beat_reg + 1'b1;
                    if (q_tlast) state_reg <= S_IDLE;
                end
            end
            S_OWN_DESC: if (m_axis_desc_ready) state_reg <= S_OWN_DATA;
            S_OWN_DATA: if (q_tready) state_reg <= S_IDLE;
            default: state_reg <= S_IDLE;
        endcase
        // the body's descriptor queues its owner write; each status says
        // which of the two it reports
        if (state_reg == S_BODY_DESC && desc_fire) begin
            own_addr_mem[own_wr_reg[OWN_LOG2-1:0]] <= own_byte_addr;
            own_phase_mem[own_wr_reg[OWN_LOG2-1:0]] <= phase_reg;
        end
        own_wr_reg <= own_wr_next;
        own_rd_reg <= own_rd_next;
        if (desc_fire) begin
            kind_mem[kind_wr_reg[OWN_LOG2:0]] <= state_reg == S_OWN_DESC;
            kind_wr_reg <= kind_wr_reg + 1'b1;
        end
        if (s_status_valid) kind_rd_reg <= kind_rd_reg + 1'b1;
        if (s_status_valid && kind_head) stat_cqe <= 1'b1;
        bodies_done_reg <= bodies_next;
        bodies_nz_reg <= bodies_next != 0;
        // full after this cycle, from the count before it and the two
        // moves (the moves' handshakes were in front of a subtract and a
        // compare of the moved pointers: 10 levels)
        own_full_reg <= (own_inc && !own_dec) ? own_used == (OWN_LOG2 + 1)'(OWN - 1)
                      : (own_dec && !own_inc) ? 1'b0 : own_used == (OWN_LOG2 + 1)'(OWN);
        // (the same way: the count's compares beside the moves)
        kind_room1_reg <= (desc_fire && !s_status_valid) ? kind_used < (OWN_LOG2 + 2)'(2 * OWN - 1)
                        : (s_status_valid && !desc_fire) ? kind_used <= (OWN_LOG2 + 2)'(2 * OWN)
                        : kind_used < (OWN_LOG2 + 2)'(2 * OWN);
        kind_room2_reg <= (desc_fire && !s_status_valid) ? kind_used <= (OWN_LOG2 + 2)'(2 * OWN - 3)
                        : (s_status_valid && !desc_fire) ? kind_used <= (OWN_LOG2 + 2)'(2 * OWN - 1)
                        : kind_used <= (OWN_LOG2 + 2)'(2 * OWN - 2);
        if (rst) begin
            state_reg <= S_IDLE;
            stat_cqe <= 1'b0;
            stat_cq_overrun <= 1'b0;
            own_wr_reg <= '0;
            own_rd_reg <= '0;
            kind_wr_reg <= '0;
            kind_rd_reg <= '0;
            bodies_done_reg <= '0;
            bodies_nz_reg <= 1'b0;
            own_full_reg <= 1'b0;
            kind_room1_reg <= 1'b1;
            kind_room2_reg <= 1'b1;
        end
    end

    // cqn_reg changes only after the cycle the overrun pulse is out
    assign stat_cq_overrun_cqn = 16'(cqn_reg);

    // producer index and phase advance when the CQE is taken
    wire cqe_done = state_reg == S_CQC && cqc_valid && !cqn_bad_reg && 32'(cq_used) < (32'd1 << cqc_log);
    wire [15:0] pi_next = pi_cur + 16'd1;
    // One write port per array: a CQ context write is taken only in a cycle
    // in which no CQE can be taken (ctx_ready: not in S_CQC, a register
    // decode; whether the CQE is taken there is deep in the CQ's state),
    // and never beside a CQ doorbell (both come from register writes, one
    // per cycle).
    assign ctx_ready = state_reg != S_CQC;
    wire [CQN_WIDTH-1:0] take_cqn = s_cqe_cqn[CQN_WIDTH-1:0];
    logic pp_init_unused, ci_init_unused;  // no clear: an entry is used only after its CQ's reset
    rnic_ram_1w1r #(.WIDTH(17), .ADDR_WIDTH(CQN_WIDTH), .ZERO_UNWRITTEN(0)) pp_ram (
        .clk, .rst,
        .wr_en(cq_reset_valid || cqe_done),
        .wr_addr(cq_reset_valid ? cq_reset_cqn : cqn_reg),
        .wr_data(cq_reset_valid ? {1'b1, 16'h0}
                                : {((pi_next & cq_mask) == 0) ? !phase_cur : phase_cur, pi_next}),
        .rd_en(take), .rd_addr(take_cqn), .rd_data(pp_rd), .init_done(pp_init_unused)
    );
    wire db_cq_in = db_cq_valid && (db_cq_cqn >> CQN_WIDTH) == 16'h0;
    rnic_ram_1w1r #(.WIDTH(16), .ADDR_WIDTH(CQN_WIDTH), .ZERO_UNWRITTEN(0)) ci_ram (
        .clk, .rst,
        .wr_en(cq_reset_valid || db_cq_in),
        .wr_addr(cq_reset_valid ? cq_reset_cqn : db_cq_cqn[CQN_WIDTH-1:0]),
        .wr_data(cq_reset_valid ? 16'h0 : db_cq_ci),
        .rd_en(take), .rd_addr(take_cqn), .rd_data(ci_rd), .init_done(ci_init_unused)
    );
    // S_CQC follows the take by one cycle, so these hold the take cycle's writes
    always_ff @(posedge clk) begin
        pp_fwd_reset_reg <= cq_reset_valid && cq_reset_cqn == take_cqn;
        ci_fwd_reg <= (cq_reset_valid && cq_reset_cqn == take_cqn) || (db_cq_in && db_cq_cqn == s_cqe_cqn);
        ci_fwd_val_reg <= cq_reset_valid ? 16'h0 : db_cq_ci;
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // every status reports a write this engine issued
    always_ff @(posedge clk) begin
        if (!rst && s_status_valid) assert (kind_used != 0);
        if (!rst) assert (bodies_done_reg <= own_wr_reg - own_rd_reg);
        // the registered flags are those of the pointers
        if (!rst) assert (bodies_nz_reg == (bodies_done_reg != 0) && own_full_reg == own_full
                          && kind_room1_reg == (kind_used < (OWN_LOG2 + 2)'(2 * OWN))
                          && kind_room2_reg == (kind_used <= (OWN_LOG2 + 2)'(2 * OWN - 2)));
        if (!rst) assert (!(cq_reset_valid && (cqe_done || db_cq_valid)));
        // the RAMs with their forwards read as the tables do
        if (!rst && state_reg == S_CQC && model_set[cqn_reg])
            assert (pi_cur == model_pi[cqn_reg] && phase_cur == model_phase[cqn_reg] && ci_cur == model_ci[cqn_reg]);
    end
    logic [15:0] model_pi [NUM_CQS];
    logic        model_phase [NUM_CQS];
    logic [15:0] model_ci [NUM_CQS];
    logic [NUM_CQS-1:0] model_set;      // reset since the core's reset
    always_ff @(posedge clk) begin
        if (cq_reset_valid) begin
            model_pi[cq_reset_cqn] <= '0;
            model_phase[cq_reset_cqn] <= 1'b1;
            model_ci[cq_reset_cqn] <= '0;
            model_set[cq_reset_cqn] <= 1'b1;
        end else begin
            if (cqe_done) begin
                model_pi[cqn_reg] <= model_pi[cqn_reg] + 16'd1;
                if (((model_pi[cqn_reg] + 16'd1) & cq_mask) == 0) model_phase[cqn_reg] <= !model_phase[cqn_reg];
            end
            if (db_cq_valid && db_cq_cqn < 16'(NUM_CQS)) model_ci[db_cq_cqn[CQN_WIDTH-1:0]] <= db_cq_ci;
        end
        if (rst) model_set <= '0;
    end
`endif
`endif

    // a failed host write cannot be reported through the CQ it targets;
    // the memory model and a real root complex log it
    wire unused_ok = ^{s_status_error, cqc_rd_data, dfifo_tuser_unused, dfifo_ovf_unused, dfifo_bad_unused,
                       dfifo_good_unused, dfifo_level_unused};

endmodule

`resetall
