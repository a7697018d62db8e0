`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The bookkeeping the IP models share: a queue of DEPTH entries (a power of
 * two) of what they have accepted on one AXI channel and not yet finished on
 * another (a burst's ID, its next lane, the beats left). The head entry may
 * be rewritten in place while a burst is under way (set_head), and is taken
 * off with pop. push needs !full; pop and set_head need !empty; a pop and a
 * set_head in one cycle pop.
 */
module rnic_sim_queue #(
    parameter int W = 8,
    parameter int DEPTH = 4
) (
    input  wire logic                      clk,
    input  wire logic                      rst_n,
    input  wire logic                      push,
    input  wire logic [W-1:0]              push_data,
    input  wire logic                      pop,
    input  wire logic                      set_head,
    input  wire logic [W-1:0]              set_data,
    output      logic [W-1:0]              head,
    output      logic                      empty,
    output      logic                      full
);

    localparam int QB = $clog2(DEPTH);

    logic [W-1:0]  q [DEPTH];
    logic [QB-1:0] rd, wr;
    logic [QB:0]   count;

    assign head = q[rd];
    assign empty = count == '0;
    assign full = count == (QB + 1)'(DEPTH);

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rd <= '0;
            wr <= '0;
            count <= '0;
        end else begin
            if (push) begin
                q[wr] <= push_data;
                wr <= wr + 1'b1;
            end
            if (set_head && !pop) q[rd] <= set_data;
            if (pop) rd <= rd + 1'b1;
            count <= count + (QB + 1)'(push) - (QB + 1)'(pop);
        end
    end

`ifndef SYNTHESIS
    initial if (DEPTH < 2 || (1 << QB) != DEPTH) $error("rnic_sim_queue: DEPTH %0d is not a power of two", DEPTH);
    always_ff @(posedge clk) begin
        if (rst_n) begin
            if (push && full && !pop) $error("rnic_sim_queue: push into a full queue");
            if ((pop || set_head) && empty) $error("rnic_sim_queue: pop or set_head of an empty queue");
        end
    end
`endif

endmodule

`resetall
