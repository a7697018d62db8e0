`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_ram_1w1r testbench: one table per depth that changes how the RAM is
 * built of block-RAM columns (512 entries: one piece; 1K..32K: 36..1-bit
 * columns; 64K: 1-bit columns two block RAMs deep), with widths that are
 * not a multiple of the column, one whose writer keeps the write data zero
 * during the clear (the clear writes it), one without the clear. Random
 * writes and reads (random enables) on a few hot addresses and the whole
 * range, every read checked against a model one cycle later: zeros during
 * the clear after reset and for entries never written, else the last write;
 * the read register holds its value while rd_en is low; a reset in the
 * middle clears the table again.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int NT = 9;
    // depth log2 and width of each table (widths follow the data width so
    // the two runs cover different column remainders)
    localparam int WX = DATA_WIDTH / 64;   // 1 or 8
    function automatic int aw_of(input int t);
        case (t)
            0: aw_of = 9;   1: aw_of = 10;  2: aw_of = 11;  3: aw_of = 12;
            4: aw_of = 13;  5: aw_of = 14;  6: aw_of = 16;  7: aw_of = 11;  default: aw_of = 10;
        endcase
    endfunction
    function automatic int w_of(input int t);
        case (t)
            0: w_of = 70 + WX;  1: w_of = 37 + WX;  2: w_of = 19 + WX;  3: w_of = 10 + WX;
            4: w_of = 5 + WX;   5: w_of = 3 + WX;   6: w_of = 2 + WX;   7: w_of = 30 + WX;  default: w_of = 40 + WX;
        endcase
    endfunction
    localparam int CYCLES = 200000;

    logic clk = 1'b0, rst = 1'b1;
    integer errors = 0, seed = 1, reads = 0, nonzero_reads = 0;
    always #2 clk = !clk;

    for (genvar t = 0; t < NT; t++) begin : g_t
        localparam int AW = aw_of(t);
        localparam int W = w_of(t);
        localparam int ZU = t == NT - 1 ? 0 : 1;
        localparam int WZ = t == NT - 2 ? 1 : 0;   // the writer keeps wr_data zero during the clear
        logic          wr_en = 1'b0, rd_en = 1'b0, init_done;
        logic [AW-1:0] wr_addr = '0, rd_addr = '0;
        logic [W-1:0]  wr_data = '0, rd_data;
        logic [W-1:0]  model [2**AW];
        logic          written [2**AW];
        logic [W-1:0]  expect_q = '0;
        logic          check_q = 1'b0;

        rnic_ram_1w1r #(.WIDTH(W), .ADDR_WIDTH(AW), .ZERO_UNWRITTEN(ZU), .WR_DATA_ZERO_IN_CLEAR(WZ)) dut (
            .clk, .rst, .wr_en, .wr_addr, .wr_data, .rd_en, .rd_addr, .rd_data, .init_done);

        function automatic logic [AW-1:0] pick_addr(input integer r);
            // half the accesses on 8 hot entries, so reads hit fresh writes
            pick_addr = (r & 1) ? AW'((r >>> 1) & 7) : AW'(r >>> 1);
        endfunction


        logic known_q = 1'b0;   // expect_q is defined (else a table without the clear read an unwritten entry)
        always @(posedge clk) begin
            integer r;
            // check the read register: the last read, or held since
            if (!rst && known_q) begin
                if (check_q) reads = reads + 1;
                if (check_q && rd_data != '0) nonzero_reads = nonzero_reads + 1;
                if (rd_data !== expect_q) begin
                    errors = errors + 1;
                    if (errors < 10) $display("table %0d (%0d x %0d): read %h, expected %h%s", t, 2**AW, W, rd_data,
                                              expect_q, check_q ? "" : " (held)");
                end
            end
            if (rst) begin
                check_q <= 1'b0;
                // the read register's reset (tables with the clear)
                expect_q <= '0;
                known_q <= ZU != 0;
                if (ZU != 0) for (int i = 0; i < 2**AW; i++) written[i] = 1'b0;
            end else begin
                // the model: a read sees the memory before this cycle's write
                check_q <= rd_en;
                if (rd_en) begin
                    expect_q <= (ZU != 0 && (!written[rd_addr] || !init_done)) ? '0 : model[rd_addr];
                    known_q <= ZU != 0 || written[rd_addr];
                end
                if (wr_en) begin
                    model[wr_addr] <= wr_data;
                    written[wr_addr] <= 1'b1;
                end
            end
            // next stimulus; no writes during the clear (a design error)
            r = $random(seed);
            wr_en <= !rst && init_done && r[0] && r[1];
            wr_addr <= pick_addr($random(seed));
            wr_data <= (WZ != 0 && (rst || !init_done)) ? '0 : W'({$random(seed), $random(seed), $random(seed)});
            rd_en <= r[2] | r[3];
            rd_addr <= pick_addr($random(seed));
        end

        initial for (int i = 0; i < 2**AW; i++) written[i] = 1'b0;
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        repeat (CYCLES / 2) @(posedge clk);
        // a reset in the middle: the tables clear again
        rst <= 1'b1;
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        repeat (CYCLES / 2) @(posedge clk);
        if (reads < CYCLES || nonzero_reads < CYCLES / 8) begin
            errors = errors + 1;
            $display("too few reads checked: %0d (%0d not zero)", reads, nonzero_reads);
        end
        if (errors == 0) $display("TB PASS: %0d reads checked (%0d not zero)", reads, nonzero_reads);
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
