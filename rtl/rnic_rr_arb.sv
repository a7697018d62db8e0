`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Round-robin arbiter: grants the lowest requesting port after the port
 * granted last, or else the lowest requesting port; `take` says the grant
 * was used, and the next search starts after it. The ports after the last
 * grant are kept as a mask, and the grant is one-hot (with its index), so
 * the choice is a couple of LUT levels; a search from a rotating index
 * through a modulo was a dozen.
 */
module rnic_rr_arb #(
    parameter int PORTS = 4,
    parameter int PW = (PORTS > 1) ? $clog2(PORTS) : 1
) (
    input  wire logic             clk,
    input  wire logic             rst,
    input  wire logic [PORTS-1:0] req,
    input  wire logic             take,
    output      logic             any,
    output      logic [PORTS-1:0] grant_oh,
    output      logic [PW-1:0]    grant
);

    logic [PORTS-1:0] after_reg;    // the ports after the last grant
    logic [PORTS-1:0] pick, after_next;

    always_comb begin
        pick = ((req & after_reg) != '0) ? (req & after_reg) : req;
        any = req != '0;
        grant = '0;
        for (int p = 0; p < PORTS; p++) begin
            // the lowest set bit of pick; the ports above it come next
            after_next[p] = p != 0 && (pick & PORTS'((1 << p) - 1)) != '0;
            grant_oh[p] = pick[p] && !after_next[p];
            if (grant_oh[p]) grant = grant | PW'(p);
        end
    end

    always_ff @(posedge clk) begin
        if (take) after_reg <= after_next;
        if (rst) after_reg <= '0;
    end

endmodule

`resetall
