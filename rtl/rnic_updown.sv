`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Up/down counter whose step only chooses among registers: the count one
 * up and one down are kept in registers beside it, so an up or down step
 * loads one of them instead of adding to the count. A handshake that drives
 * `up` or `down` from deep in a pipeline then stands in front of a
 * multiplexer, not in front of an adder's carry chain. `nonzero` is a
 * flip-flop of its own, set a cycle ahead like the count. An up and a down
 * in the same cycle cancel. The user keeps the count within 0..2**W - 1:
 * no up step at the top, no down step at zero (asserted).
 */
module rnic_updown #(
    parameter int W = 8
) (
    input  wire logic         clk,
    input  wire logic         rst,
    input  wire logic         up,
    input  wire logic         down,
    output      logic [W-1:0] count,
    output      logic         nonzero
);

    logic [W-1:0] count_reg, p1_reg, m1_reg;
    logic         nonzero_reg;
    wire          step_up = up && !down;
    wire          step_down = down && !up;

    always_ff @(posedge clk) begin
        if (step_up) begin
            count_reg <= p1_reg;
            p1_reg <= p1_reg + 1'b1;
            m1_reg <= count_reg;
        end else if (step_down) begin
            count_reg <= m1_reg;
            p1_reg <= count_reg;
            m1_reg <= m1_reg - 1'b1;
        end
        // an up step leaves it nonzero (the user never steps past the top)
        nonzero_reg <= step_up || (step_down ? m1_reg != '0 : nonzero_reg);
        if (rst) begin
            count_reg <= '0;
            p1_reg <= W'(1);
            m1_reg <= '1;
            nonzero_reg <= 1'b0;
        end
    end

    assign count = count_reg;
    assign nonzero = nonzero_reg;

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk)
        if (!rst) begin
            assert (p1_reg == count_reg + 1'b1 && m1_reg == count_reg - 1'b1
                    && nonzero_reg == (count_reg != '0));
            assert (!(step_up && count_reg == '1) && !(step_down && count_reg == '0));
        end
`endif
`endif

endmodule

`resetall
