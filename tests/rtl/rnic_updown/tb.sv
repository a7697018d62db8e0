`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_updown testbench: a 3-bit and an 8-bit counter, each driven by its
 * own random up and down steps at random densities that change every 200
 * cycles (so runs to the top and down to zero come up), within the range
 * the module asks of its user (no up step at the top, no down step at
 * zero), a step in both directions at once, and a reset in the middle.
 * Every cycle each count and its nonzero flag are checked against a
 * reference count. DATA_WIDTH does not apply (the module has none).
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 40000;
    integer errors = 0, seed = 1, cycles = 0, ups = 0, downs = 0, both = 0;
    integer tops3 = 0, zeros3 = 0, tops8 = 0, zeros8 = 0;

    logic clk = 1'b0, rst = 1'b1;
    logic up3 = 1'b0, down3 = 1'b0, up8 = 1'b0, down8 = 1'b0;
    logic [2:0] c3;
    logic [7:0] c8;
    logic       nz3, nz8;
    logic [2:0] ref3 = '0;
    logic [7:0] ref8 = '0;
    rnic_updown #(.W(3)) u3 (.clk, .rst, .up(up3), .down(down3), .count(c3), .nonzero(nz3));
    rnic_updown #(.W(8)) u8 (.clk, .rst, .up(up8), .down(down8), .count(c8), .nonzero(nz8));

    always #5 clk = !clk;

    task automatic check;
        if (c3 !== ref3 || nz3 !== (ref3 != 0) || c8 !== ref8 || nz8 !== (ref8 != 0)) begin
            if (errors < 10)
                $display("ERROR: cycle %0d: counts %0d/%0d nonzero %0d/%0d, expected %0d/%0d",
                         cycles, c3, c8, nz3, nz8, ref3, ref8);
            errors = errors + 1;
        end
    endtask

    initial begin
        int pu, pd;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;
        check();
        pu = 8; pd = 8;
        for (int i = 0; i < CYCLES; i++) begin
            if (i % 200 == 0) begin
                pu = $unsigned($random(seed)) % 17;
                pd = $unsigned($random(seed)) % 17;
            end
            up3 = ($unsigned($random(seed)) % 16) < pu && ref3 != 3'd7;
            down3 = ($unsigned($random(seed)) % 16) < pd && ref3 != 3'd0;
            up8 = ($unsigned($random(seed)) % 16) < pu && ref8 != 8'hff;
            down8 = ($unsigned($random(seed)) % 16) < pd && ref8 != 8'h00;
            if (i == CYCLES / 2) rst = 1'b1;
            @(posedge clk);
            #1;
            if (rst) begin
                ref3 = '0; ref8 = '0;
                rst = 1'b0;
            end else begin
                if (up3 && down3) both = both + 1;
                if (up3 && !down3) begin ups = ups + 1; ref3 = ref3 + 1'b1; end
                if (down3 && !up3) begin downs = downs + 1; ref3 = ref3 - 1'b1; end
                if (up8 && !down8) ref8 = ref8 + 1'b1;
                if (down8 && !up8) ref8 = ref8 - 1'b1;
            end
            if (ref3 == 0) zeros3 = zeros3 + 1;
            if (ref3 == 7) tops3 = tops3 + 1;
            if (ref8 == 0) zeros8 = zeros8 + 1;
            if (ref8 == 8'hff) tops8 = tops8 + 1;
            cycles = cycles + 1;
            check();
        end
        $display("%0d cycles; 3-bit: %0d up, %0d down, %0d both at once, %0d cycles at zero, %0d at the top; 8-bit: %0d at zero, %0d at the top",
                 cycles, ups, downs, both, zeros3, tops3, zeros8, tops8);
        if (ups < 1000 || downs < 1000 || both < 1000 || zeros3 < 100 || tops3 < 100 || zeros8 < 100 || tops8 < 10) begin
            $display("ERROR: the random walk did not cover the counters' range");
            errors = errors + 1;
        end
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
