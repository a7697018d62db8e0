`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Where a beat's bytes lie: a stream beat's tkeep is one contiguous run of
 * lanes, and this gives its first lane and its end (last lane + 1, which is
 * the byte count when the run starts at lane 0). An all-zero tkeep gives 0
 * and 0.
 *
 * The run's edges are one-hot, so each bit of the two lane numbers is an OR
 * over the lanes whose edge has that bit set: a few logic levels at any
 * width, where a count or a priority search over the lanes is a chain as long
 * as the beat. Every module that needs a beat's byte count or offset takes
 * it from here.
 */
module axis_keep_run #(
    parameter int KEEP_WIDTH = 8   // 2 or more
) (
    input  wire logic [KEEP_WIDTH-1:0]             keep,
    output      logic [$clog2(KEEP_WIDTH)-1:0]     first,   // lowest kept lane
    output      logic [$clog2(KEEP_WIDTH + 1)-1:0] run_end  // highest kept lane + 1
);

    localparam int OFF_WIDTH = $clog2(KEEP_WIDTH);
    localparam int END_WIDTH = $clog2(KEEP_WIDTH + 1);

    logic [KEEP_WIDTH-1:0] rise, fall;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            rise[i] = keep[i] && (i == 0 || !keep[(i == 0) ? 0 : i - 1]);
            fall[i] = keep[i] && (i == KEEP_WIDTH - 1 || !keep[(i == KEEP_WIDTH - 1) ? i : i + 1]);
        end
        first = '0;
        run_end = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            first = first | (rise[i] ? OFF_WIDTH'(i) : '0);
            run_end = run_end | (fall[i] ? END_WIDTH'(i + 1) : '0);
        end
    end

endmodule

`resetall
