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
 */
module axis_cutter #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // next piece length in bytes (non-zero)
    input  wire logic                  s_len_valid,
    output      logic                  s_len_ready,
    input  wire logic [31:0]           s_len,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
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

    logic             active_reg;
    logic [31:0]      left_reg;   // bytes of the piece not yet taken
    logic [OFF_W-1:0] boff_reg;   // first byte lane of the input beat not yet taken

    // bytes in the beat: its run starts at lane 0, so they are its end
    logic [CNT_W-1:0] beat_bytes;
    logic [OFF_W-1:0] beat_first_unused;
    axis_keep_run #(.KEEP_WIDTH(KEEP_WIDTH)) beat_run_inst (
        .keep(s_axis_tkeep), .first(beat_first_unused), .run_end(beat_bytes)
    );
    wire [CNT_W-1:0] beat_avail = beat_bytes - CNT_W'(boff_reg);
    wire             piece_ends = left_reg <= 32'(beat_avail);
    wire             beat_used = left_reg >= 32'(beat_avail);

    logic [KEEP_WIDTH-1:0] cut_keep;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++)
            cut_keep[i] = s_axis_tkeep[i] && 32'(i) >= 32'(boff_reg) && 32'(i) < 32'(boff_reg) + left_reg;
    end

    logic pk_tvalid, pk_tready;
    assign pk_tvalid = active_reg && s_axis_tvalid;
    assign s_axis_tready = active_reg && pk_tready && beat_used;
    assign s_len_ready = !active_reg;
    assign busy = active_reg;

    axis_packer #(.DATA_WIDTH(DATA_WIDTH)) packer_inst (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep(cut_keep), .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready), .s_axis_tlast(piece_ends),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast
    );

    always_ff @(posedge clk) begin
        if (!active_reg) begin
            if (s_len_valid) begin
                left_reg <= s_len;
                active_reg <= 1'b1;
            end
        end else if (pk_tvalid && pk_tready) begin
            if (piece_ends) begin
                boff_reg <= beat_used ? '0 : boff_reg + OFF_W'(left_reg);
                left_reg <= '0;
                active_reg <= 1'b0;
            end else begin
                boff_reg <= '0;
                left_reg <= left_reg - 32'(beat_avail);
            end
        end
        if (rst) begin
            active_reg <= 1'b0;
            left_reg <= '0;
            boff_reg <= '0;
        end
    end

endmodule

`resetall
