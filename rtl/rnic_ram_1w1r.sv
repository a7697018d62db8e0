`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simple dual-port RAM: one write port, one read port with a registered
 * output (block-RAM style). Context tables instantiate one copy per reader.
 *
 * With ZERO_UNWRITTEN, every entry reads as zeros until it is written (a QP
 * in RESET, an invalid MR or CQ): RAM contents are undefined at power-up,
 * so after reset the RAM clears itself, one entry per cycle through its one
 * write port (2^ADDR_WIDTH cycles); meanwhile reads return zeros and
 * init_done is low. A write while init_done is low is a design error (the
 * core holds context writes back until every table is clear). Tables whose
 * readers only read written entries leave it off (init_done is then 1).
 */
module rnic_ram_1w1r #(
    parameter int WIDTH = 32,
    parameter int ADDR_WIDTH = 10,
    parameter int ZERO_UNWRITTEN = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  wr_en,
    input  wire logic [ADDR_WIDTH-1:0] wr_addr,
    input  wire logic [WIDTH-1:0]      wr_data,

    input  wire logic                  rd_en,
    input  wire logic [ADDR_WIDTH-1:0] rd_addr,
    output      logic [WIDTH-1:0]      rd_data,

    output      logic                  init_done
);

    logic [WIDTH-1:0] mem [2**ADDR_WIDTH];
    logic [WIDTH-1:0] rd_data_reg;
    logic             we;
    logic [ADDR_WIDTH-1:0] wa;
    logic [WIDTH-1:0] wd;

    // Zeros after reset and from a read during the clear come from the read
    // register's synchronous reset, which block RAM has on its output (no
    // multiplexer in logic on the data).
    logic rd_rst;
    always_ff @(posedge clk) begin
        if (we) mem[wa] <= wd;
        if (rd_rst) rd_data_reg <= '0;
        else if (rd_en) rd_data_reg <= mem[rd_addr];
    end

    if (ZERO_UNWRITTEN != 0) begin : g_clear
        logic [ADDR_WIDTH:0] clear_ptr_reg;   // next entry to clear; MSB: done

        assign init_done = clear_ptr_reg[ADDR_WIDTH];
        assign we = init_done ? wr_en : 1'b1;
        assign wa = init_done ? wr_addr : clear_ptr_reg[ADDR_WIDTH-1:0];
        assign wd = init_done ? wr_data : '0;
        assign rd_rst = rst || (rd_en && !init_done);

        always_ff @(posedge clk) begin
            if (!init_done) clear_ptr_reg <= clear_ptr_reg + 1'b1;
            if (rst) clear_ptr_reg <= '0;
        end
        assign rd_data = rd_data_reg;

`ifndef __ICARUS__
`ifndef SYNTHESIS
        always_ff @(posedge clk) begin
            if (!rst && wr_en) assert (init_done) else $error("rnic_ram_1w1r: write during the clear after reset (%m)");
        end
`endif
`endif
    end else begin : g_plain
        assign init_done = 1'b1;
        assign we = wr_en;
        assign wa = wr_addr;
        assign wd = wr_data;
        assign rd_rst = 1'b0;
        assign rd_data = rd_data_reg;
        wire unused_ok = rst;
    end

endmodule

`resetall
