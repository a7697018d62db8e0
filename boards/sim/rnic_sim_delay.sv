`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pipeline latency of a vendor IP block in its model: what the model
 * accepts in cycle t it offers from cycle t + LAT on, in order, one item a
 * cycle, so a stream that enters without gaps leaves without gaps (a MAC's
 * frame stays contiguous). LAT >= 1; LAT 1 behaves as a register slice.
 * Room for LAT + 1 items or more (the next power of two), so the rate is
 * one item a cycle while the far side takes them; when it does not, the
 * items wait and in_ready falls once the room is used.
 */
module rnic_sim_delay #(
    parameter int W = 8,
    parameter int LAT = 1
) (
    input  wire logic          clk,
    input  wire logic          rst_n,
    input  wire logic          in_valid,
    output      logic          in_ready,
    input  wire logic [W-1:0]  in_data,
    output      logic          out_valid,
    input  wire logic          out_ready,
    output      logic [W-1:0]  out_data
);

    localparam int DEPTH = 1 << $clog2(LAT + 2);

    logic [31:0]   now;          // this cycle's number; an item's due cycle beside it
    logic [W+31:0] head;
    logic          empty, full;

    always_ff @(posedge clk) begin
        if (!rst_n) now <= '0;
        else now <= now + 32'd1;
    end

    wire        [31:0] head_due = head[31:0];
    wire signed [31:0] past_due = $signed(now - head_due);   // >= 0: due

    assign in_ready = !full;
    assign out_valid = !empty && past_due >= 0;
    assign out_data = head[W+31:32];

    rnic_sim_queue #(.W(W + 32), .DEPTH(DEPTH)) items (
        .clk, .rst_n,
        .push(in_valid && !full), .push_data({in_data, now + 32'(LAT)}),
        .pop(out_valid && out_ready), .set_head(1'b0), .set_data('0),
        .head, .empty, .full
    );

`ifndef SYNTHESIS
    initial if (LAT < 1) $error("rnic_sim_delay: LAT %0d, at least 1", LAT);
`endif

endmodule

`resetall
