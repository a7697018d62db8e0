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
 * With WR_DATA_ZERO_IN_CLEAR the writer keeps wr_data at zero while
 * init_done is low (a register it resets until the tables are clear), and
 * the clear writes wr_data: no zero multiplexer on every write-data bit of
 * every copy.
 */
module rnic_ram_1w1r #(
    parameter int WIDTH = 32,
    parameter int ADDR_WIDTH = 10,
    parameter int ZERO_UNWRITTEN = 1,
    parameter int WR_DATA_ZERO_IN_CLEAR = 0
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

    // The table is built of columns as wide as one 36 Kbit block RAM is at
    // this depth (512 x 72, 1K x 36, ... 32K x 1): each column is then one
    // block RAM deep (or, past 32K entries, the fewest possible), so no read
    // multiplexer in logic is needed to join block RAMs stacked in depth,
    // and the logic does not grow with the table. Left to itself, synthesis
    // packs the parity bits too (4K x 9 modes, 16 deep at 64K entries) and
    // builds a 16:1 multiplexer for every bit. An 18 Kbit block RAM (ECP5)
    // is two of these columns side by side.
    localparam int COL_BITS = ADDR_WIDTH <= 9  ? WIDTH :
                              ADDR_WIDTH == 10 ? 36 :
                              ADDR_WIDTH == 11 ? 18 :
                              ADDR_WIDTH == 12 ? 9 :
                              ADDR_WIDTH == 13 ? 4 :
                              ADDR_WIDTH == 14 ? 2 : 1;
    localparam int COLS = (WIDTH + COL_BITS - 1) / COL_BITS;

    logic [WIDTH-1:0] rd_data_reg;
    logic             we;
    logic [ADDR_WIDTH-1:0] wa;
    logic [WIDTH-1:0] wd;

    // Zeros after reset and from a read during the clear come from the read
    // register's synchronous reset, which block RAM has on its output (no
    // multiplexer in logic on the data).
    logic rd_rst;
    for (genvar c = 0; c < COLS; c++) begin : g_col
        localparam int LSB = c * COL_BITS;
        localparam int W = WIDTH - LSB < COL_BITS ? WIDTH - LSB : COL_BITS;
        logic [W-1:0] mem [2**ADDR_WIDTH];
        always_ff @(posedge clk) begin
            if (we) mem[wa] <= wd[LSB +: W];
            if (rd_rst) rd_data_reg[LSB +: W] <= '0;
            else if (rd_en) rd_data_reg[LSB +: W] <= mem[rd_addr];
        end
    end

    if (ZERO_UNWRITTEN != 0) begin : g_clear
        logic [ADDR_WIDTH:0] clear_ptr_reg;   // next entry to clear; MSB: done

        assign init_done = clear_ptr_reg[ADDR_WIDTH];
        assign we = init_done ? wr_en : 1'b1;
        assign wa = init_done ? wr_addr : clear_ptr_reg[ADDR_WIDTH-1:0];
        if (WR_DATA_ZERO_IN_CLEAR != 0) begin : g_wd_zero
            assign wd = wr_data;
        end else begin : g_wd_mux
            assign wd = init_done ? wr_data : '0;
        end
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
            if (!rst && !init_done && WR_DATA_ZERO_IN_CLEAR != 0)
                assert (wr_data == '0) else $error("rnic_ram_1w1r: write data not zero during the clear (%m)");
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
