`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Stream cutter: takes the next `s_len` bytes of the input stream, wherever
 * they start inside a beat, and sends them out as one packet starting at
 * byte lane 0 with tlast on its last byte. A write engine that scatters one
 * payload over several host buffers feeds each buffer's piece through here.
 *
 * The input is dense (tkeep contiguous from lane 0; only a packet's last
 * beat is partial); its tlast does not end a piece, the lengths do. A beat
 * shared by two pieces is held until the second piece takes the rest.
 *
 * Each beat comes with its byte count (s_axis_tbytes, its tkeep's run end)
 * from a register upstream, and the piece is kept as where it ends counted
 * from the current beat's lane 0 (bytes left + first lane not yet taken)
 * with a flag for "beyond this beat": so whether the piece ends in this
 * beat, whether the beat is used up and the lanes it takes are compares of
 * a few bits between registers, not a count over tkeep followed by a
 * subtraction and a 16-bit compare; the lanes go to the packer as a run
 * (first lane, end), tkeep itself is not looked at.
 * A piece takes one idle cycle to load, as its end is its length plus the
 * lane where the previous piece stopped.
 */
module axis_cutter #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int LEN_WIDTH = 16
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // next piece length in bytes (non-zero)
    input  wire logic                  s_len_valid,
    output      logic                  s_len_ready,
    input  wire logic [LEN_WIDTH-1:0]  s_len,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    // bytes in the beat (1 .. KEEP_WIDTH), $clog2(KEEP_WIDTH) + 1 bits
    input  wire logic [((KEEP_WIDTH > 1) ? $clog2(KEEP_WIDTH) : 1):0] s_axis_tbytes,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,

    // a piece is being cut (its input bytes are not all taken yet)
    output      logic                  busy
);

    localparam int OFF_W = (KEEP_WIDTH > 1) ? $clog2(KEEP_WIDTH) : 1;
    localparam int CNT_W = OFF_W + 1;
    localparam int END_W = LEN_WIDTH + 1;   // a length plus a lane

    logic             active_reg;
    logic [END_W-1:0] end_reg;    // the piece's end in bytes from the beat's lane 0
    logic [OFF_W-1:0] boff_reg;   // first byte lane of the input beat not yet taken
    // beyond this beat: the end is 2^CNT_W (> KEEP_WIDTH) or more
    logic             end_far_reg;

    wire             end_far = end_far_reg;
    wire [CNT_W-1:0] end_near = end_reg[CNT_W-1:0];
    // a new piece's end is beyond the beat when its length's high bits are
    // set or its low bits carry out with the lane
    wire [CNT_W:0]   load_near = {1'b0, s_len[CNT_W-1:0]} + (CNT_W + 1)'(boff_reg);
    wire             load_far = |s_len[LEN_WIDTH-1:CNT_W] || load_near[CNT_W];
    // a piece beyond this beat is still beyond the next one (end - bytes >=
    // 2^CNT_W) when its end is 2^(CNT_W+1) or more, or its low bits are at
    // least the beat's bytes
    // (the end against the beat's bytes as gates: as a carry chain it was
    // five levels in front of the packer's run registers)
    wire             near_lt = rnic_gates_pkg::lt_gates(32'(end_near), 32'(s_axis_tbytes));
    wire             near_gt = rnic_gates_pkg::lt_gates(32'(s_axis_tbytes), 32'(end_near));
    wire             next_far = end_far && (|end_reg[END_W-1:CNT_W+1] || !near_lt);
    wire             piece_ends = !end_far && !near_gt;
    wire             beat_used = end_far || !near_lt;

    // the piece's bytes in this beat: from the first lane not yet taken to
    // its end or the beat's, handed to the packer as the run (no lane mask)
    wire [CNT_W-1:0] run_end = piece_ends ? end_near : s_axis_tbytes;

    logic pk_tvalid, pk_tready;
    assign pk_tvalid = active_reg && s_axis_tvalid;
    assign s_axis_tready = active_reg && pk_tready && beat_used;
    assign s_len_ready = !active_reg;
    assign busy = active_reg;

    axis_packer #(.DATA_WIDTH(DATA_WIDTH), .KEEP_RUN(0)) packer_inst (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready), .s_axis_tlast(piece_ends),
        .s_axis_toff(boff_reg), .s_axis_tend(run_end),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast
    );

    always_ff @(posedge clk) begin
        if (!active_reg) begin
            if (s_len_valid) begin
                end_reg <= END_W'(s_len) + END_W'(boff_reg);
                end_far_reg <= load_far;
                active_reg <= 1'b1;
            end
        end else if (pk_tvalid && pk_tready) begin
            if (piece_ends) begin
                // the piece ended inside the beat: the next one starts there
                boff_reg <= beat_used ? '0 : end_near[OFF_W-1:0];
                active_reg <= 1'b0;
            end else begin
                boff_reg <= '0;
                end_reg <= end_reg - END_W'(s_axis_tbytes);
                end_far_reg <= next_far;
            end
        end
        if (rst) begin
            active_reg <= 1'b0;
            end_reg <= '0;
            end_far_reg <= 1'b0;
            boff_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && active_reg && s_axis_tvalid) begin
            // the byte count is the beat's: its tkeep is one run from lane 0
            assert (s_axis_tbytes != '0 && 32'(s_axis_tbytes) <= KEEP_WIDTH
                    && s_axis_tkeep == KEEP_WIDTH'((65'd1 << s_axis_tbytes) - 65'd1));
            assert (end_far_reg == (end_reg >= END_W'(1 << CNT_W)));
            // the compares stated as gates are the operators'
            assert (near_lt == (end_near < s_axis_tbytes) && near_gt == (end_near > s_axis_tbytes));
            // the piece has bytes in this beat
            assert (end_reg > END_W'(boff_reg) && CNT_W'(boff_reg) < s_axis_tbytes);
        end
    end
`endif
`endif

endmodule

`resetall
