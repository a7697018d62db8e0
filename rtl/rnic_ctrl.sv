`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The control processor: a PicoRV32 (RV32IM, taken from the
 * pythondata-cpu-picorv32 package at build time) with one RAM for code, data
 * and stack, loaded from the firmware image (FW_HEX, $readmemh, one 32-bit
 * word per line), and a port into the BAR0 register file (rnic_regs fw_*)
 * at FW_REG_BASE. The firmware serves the host's command mailbox and
 * programs the data path's contexts through the context window.
 *
 * Memory map (rnic_pkg fw constants): [FW_RAM_BASE, + RAM_BYTES) RAM, one
 * cycle; [FW_REG_BASE, + 64 KiB) the register file, 32-bit accesses, a few
 * cycles. Any other address, or a register access the file refuses, is a
 * bus error: reads return zero, writes are dropped, status_bus_err is set
 * and stays set. status_trap follows the CPU's trap output (an illegal
 * instruction or misaligned access halts it).
 */
module rnic_ctrl #(
    parameter int RAM_BYTES = 65536,
    // 1: the RAM's read data is registered once more before the CPU takes
    // it, one wait state per RAM access. For fabrics whose block RAM
    // answers late in the cycle (an ECP5 DP16KD: about 4.2 ns of an 8 ns
    // period), where that answer cannot also run through PicoRV32's load
    // path; 0 (no wait state) where it can
    parameter int RAM_RD_STAGE = 0,
    parameter FW_HEX = ""
) (
    input  wire logic        clk,
    input  wire logic        rst,

    output      logic        fw_valid,
    output      logic        fw_we,
    output      logic [15:0] fw_addr,
    output      logic [31:0] fw_wdata,
    input  wire logic        fw_ready,
    input  wire logic        fw_err,
    input  wire logic [31:0] fw_rdata,

    output      logic        status_trap,
    output      logic        status_bus_err
);

    localparam int RAM_WORDS = RAM_BYTES / 4;
    localparam int RAM_AW = $clog2(RAM_WORDS);

    initial begin
        if (RAM_BYTES < 1024 || (RAM_BYTES & (RAM_BYTES - 1)) != 0 || RAM_BYTES > rnic_pkg::FW_RAM_BYTES) begin
            $error("rnic_ctrl: RAM_BYTES must be a power of two in 1 KiB .. FW_RAM_BYTES (%m)");
            $finish;
        end
        if (rnic_pkg::FW_RAM_BASE != 0 || rnic_pkg::FW_RESET_PC != rnic_pkg::FW_RAM_BASE) begin
            $error("rnic_ctrl: the RAM is expected at address 0, holding the reset vector (%m)");
            $finish;
        end
        if (rnic_pkg::FW_REG_BASE[15:0] != 16'd0) begin
            $error("rnic_ctrl: the register window is expected 64 KiB-aligned (%m)");
            $finish;
        end
    end

    logic        mem_valid, mem_instr, mem_ready, trap;
    logic [31:0] mem_addr, mem_wdata, mem_rdata;
    logic [3:0]  mem_wstrb;
    // CPU outputs this subsystem does not use (look-ahead bus, PCPI, IRQ, trace)
    logic        la_read, la_write, pcpi_valid, eoi_unused, trace_valid;
    logic [31:0] la_addr, la_wdata, pcpi_insn, pcpi_rs1, pcpi_rs2, eoi;
    logic [3:0]  la_wstrb;
    logic [35:0] trace_data;

    picorv32 #(
        .ENABLE_COUNTERS(0),
        .ENABLE_REGS_DUALPORT(1),
        .BARREL_SHIFTER(1),
        .COMPRESSED_ISA(0),
        .ENABLE_MUL(1),
        .ENABLE_DIV(1),
        .ENABLE_IRQ(0),
        .CATCH_MISALIGN(1),
        .CATCH_ILLINSN(1),
        .PROGADDR_RESET(rnic_pkg::FW_RESET_PC),
        .STACKADDR(32'(RAM_BYTES))
    ) cpu (
        .clk, .resetn(!rst), .trap,
        .mem_valid, .mem_instr, .mem_ready, .mem_addr, .mem_wdata, .mem_wstrb, .mem_rdata,
        .mem_la_read(la_read), .mem_la_write(la_write), .mem_la_addr(la_addr), .mem_la_wdata(la_wdata),
        .mem_la_wstrb(la_wstrb),
        .pcpi_valid, .pcpi_insn, .pcpi_rs1, .pcpi_rs2,
        .pcpi_wr(1'b0), .pcpi_rd(32'h0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq(32'h0), .eoi,
        .trace_valid, .trace_data
    );

    // ---------------------------------------------------------------- RAM
    // The CPU names each access on its look-ahead bus one cycle before
    // mem_valid: the RAM reads (or writes) then, and answers in the cycle
    // mem_valid rises, with no wait state. An access that came without a
    // look-ahead pulse is served one cycle later instead.
    logic [31:0] ram [RAM_WORDS];
    logic [31:0] ram_rdata_reg;
    logic        ram_ack_reg;   // the late path answers
    logic        la_hit_reg;    // the look-ahead path holds this access

    initial begin
        if (FW_HEX != "") $readmemh(FW_HEX, ram);
    end

    // the windows as bit tests (RAM_BYTES a power of two, the register
    // window 64 KiB-aligned): compares become carry chains, and these run
    // through mem_ready into the CPU (12 levels)
    localparam int RAM_LOG2 = $clog2(RAM_BYTES);
    wire in_ram = (mem_addr >> RAM_LOG2) == 32'd0;
    wire in_regs = mem_addr[31:16] == rnic_pkg::FW_REG_BASE[31:16];
    wire [RAM_AW-1:0] ram_idx = mem_addr[2 +: RAM_AW];
    wire la_any = la_read || la_write;
    wire la_in_ram = la_any && (la_addr >> RAM_LOG2) == 32'd0;
    wire [RAM_AW-1:0] la_idx = la_addr[2 +: RAM_AW];
    // the CPU's look-ahead names an access the cycle before it presents it
    // (mem_la_* only while no access is presented), so a presented access
    // after a look-ahead hit in RAM is that access: no decode of mem_addr
    // on mem_ready (asserted below)
    wire ram_fast = mem_valid && la_hit_reg;

    // one address, one write and one registered read per cycle: a single
    // block-RAM port with byte write enables. The CPU gives no look-ahead
    // while it presents an access (asserted below), so the look-ahead's
    // pulse alone picks the address and data, and only the writes wait for
    // the address decode (it ran into the block RAM's address: on ECP5 the
    // block's slowest path)
    wire ram_late = mem_valid && !mem_ready && in_ram && !ram_ack_reg && !ram_fast;
    wire [RAM_AW-1:0] ram_addr = la_any ? la_idx : ram_idx;
    wire [3:0] ram_wstrb = la_any ? (la_write && la_in_ram ? la_wstrb : 4'h0) : mem_wstrb;
    wire [31:0] ram_wdata = la_any ? la_wdata : mem_wdata;

    always_ff @(posedge clk) begin
        if (la_any || ram_late) begin
            for (int b = 0; b < 4; b++)
                if (ram_wstrb[b]) ram[ram_addr][8*b +: 8] <= ram_wdata[8*b +: 8];
            ram_rdata_reg <= ram[ram_addr];
        end
    end

    always_ff @(posedge clk) begin
        la_hit_reg <= la_in_ram;
        ram_ack_reg <= ram_late;
        if (rst) begin
            ram_ack_reg <= 1'b0;
            la_hit_reg <= 1'b0;
        end
    end

    // the RAM's answer as the CPU takes it: at once, or a cycle later from
    // a register (RAM_RD_STAGE); in the waiting cycle the access is held
    // (no look-ahead while one is presented, no late read: !ram_fast and
    // !ram_ack_reg above)
    logic        ram_done;
    logic [31:0] ram_answer;
    if (RAM_RD_STAGE != 0) begin : g_rd_stage
        logic        ram_done_q;
        logic [31:0] ram_rdata_q;
        always_ff @(posedge clk) begin
            ram_done_q <= (ram_fast || ram_ack_reg) && !rst;
            ram_rdata_q <= ram_rdata_reg;
        end
        assign ram_done = ram_done_q;
        assign ram_answer = ram_rdata_q;
    end else begin : g_no_rd_stage
        assign ram_done = ram_fast || ram_ack_reg;
        assign ram_answer = ram_rdata_reg;
    end

    // ----------------------------------------------------- register port
    logic fw_pending_reg;    // the access is presented to rnic_regs
    // its answer, a cycle after rnic_regs gives it: the CPU's load path
    // (alignment and sign of the loaded word, into reg_out) and its
    // mem_ready decisions then start at these flip-flops, not at the
    // register file's answer (9 levels)
    logic fw_ack_reg;
    logic [31:0] fw_rdata_reg;
    logic bad_ack_reg;       // an unmapped access, answered at once
    logic bus_err_reg;

    assign fw_valid = fw_pending_reg;
    assign fw_we = mem_wstrb != 4'h0;
    assign fw_addr = mem_addr[15:0];
    assign fw_wdata = mem_wdata;

    always_ff @(posedge clk) begin
        bad_ack_reg <= 1'b0;
        fw_ack_reg <= fw_pending_reg && fw_ready;
        fw_rdata_reg <= (fw_ready && !fw_err) ? fw_rdata : 32'h0;
        if (fw_ready) fw_pending_reg <= 1'b0;
        else if (mem_valid && !mem_ready && in_regs && !fw_pending_reg) fw_pending_reg <= 1'b1;
        if (mem_valid && !mem_ready && !in_ram && !in_regs && !bad_ack_reg) bad_ack_reg <= 1'b1;
        // a narrow register write or an unmapped address is a firmware bug
        if ((fw_ready && fw_err) || bad_ack_reg || (fw_pending_reg && fw_we && mem_wstrb != 4'hf))
            bus_err_reg <= 1'b1;
        if (rst) begin
            fw_pending_reg <= 1'b0;
            fw_ack_reg <= 1'b0;
            bad_ack_reg <= 1'b0;
            bus_err_reg <= 1'b0;
        end
    end

    assign mem_ready = ram_done || fw_ack_reg || bad_ack_reg;
    // the read data chosen by flip-flops only (it is taken on mem_ready): a
    // register access is pending, an unmapped one answered, else the RAM's
    // (choosing by the RAM's answer put mem_ready's terms in front of the
    // CPU's load path: 9 levels)
    assign mem_rdata = fw_ack_reg ? fw_rdata_reg : bad_ack_reg ? 32'h0 : ram_answer;
`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the look-ahead's access is the one presented next
    logic [31:0] la_addr_q;
    always_ff @(posedge clk) begin
        la_addr_q <= la_addr;
        if (!rst && ram_fast) assert (in_ram && mem_addr == la_addr_q);
        // no look-ahead while an access is presented (the RAM port's choice)
        if (!rst) assert (!(la_any && mem_valid));
        // a RAM answer meets no register or unmapped access (mem_rdata)
        if (!rst && (ram_fast || ram_ack_reg)) assert (!fw_pending_reg && !fw_ack_reg && !bad_ack_reg);
    end
`endif
`endif
    assign status_trap = trap;
    assign status_bus_err = bus_err_reg;

    assign eoi_unused = ^eoi;
    wire unused_ok = ^{mem_instr, pcpi_valid, pcpi_insn,
                       pcpi_rs1, pcpi_rs2, eoi_unused, trace_valid, trace_data};

endmodule

`resetall
