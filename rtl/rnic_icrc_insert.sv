`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 ICRC inserter.
 *
 * Input: dense Ethernet frames (header first, BTH pad included, no ICRC).
 * Output: the same frames, dense, with the 4 ICRC bytes appended: ~crc, least
 * significant byte first (as Linux rxe stores it). The ICRC goes into the
 * last beat when it has 4 free lanes, otherwise what does not fit leaves in
 * one extra beat (the only cycle the input is held). The frames go through
 * the rnic_icrc pipeline, which advances with the input: every cycle the
 * output register is free the input is taken and the beat at the pipeline's
 * end moves into the output register (with its frame's ICRC at the last
 * beat): a beat leaves 6 cycles after it entered when nothing holds it.
 * tkeep: lanes 0..n-1, all lanes but on the last beat.
 */
module rnic_icrc_insert #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_icrc_insert: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two of 64 or more bits (%m)");
            $finish;
        end
    end

    logic [DATA_WIDTH-1:0] m_axis_tdata_reg, m_axis_tdata_next;
    logic [KEEP_WIDTH-1:0] m_axis_tkeep_reg, m_axis_tkeep_next;
    logic                  m_axis_tvalid_reg, m_axis_tvalid_next;
    logic                  m_axis_tlast_reg, m_axis_tlast_next;
    // ICRC bytes that did not fit in the frame's last beat
    logic                  extra_reg, extra_next;
    logic [31:0]           extra_data_reg, extra_data_next;
    logic [3:0]            extra_keep_reg, extra_keep_next;

    assign m_axis_tdata = m_axis_tdata_reg;
    assign m_axis_tkeep = m_axis_tkeep_reg;
    assign m_axis_tvalid = m_axis_tvalid_reg;
    assign m_axis_tlast = m_axis_tlast_reg;

    logic load;

    assign load = !m_axis_tvalid_reg || m_axis_tready;
    // the pipeline holds while the output register is full or the extra beat leaves
    assign s_axis_tready = load && !extra_reg;

    // n % 4 for a beat whose lanes 0..n-1 are kept
    function automatic logic [1:0] keep_count_mod4(input logic [KEEP_WIDTH-1:0] keep);
        logic [KEEP_WIDTH:0] k;
        logic [1:0] n;
        k = {1'b0, keep};
        n = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            if (k[i] && !k[i+1]) n = n | 2'((i + 1) % 4);    // the last kept lane
        end
        keep_count_mod4 = n;
    endfunction

    // the frame at the pipeline's end, with its keep and (on the last beat) CRC
    logic [DATA_WIDTH-1:0] p_tdata;
    logic [KEEP_WIDTH-1:0] p_tkeep;
    logic [1:0]            p_cnt_lo;     // n % 4
    logic                  p_tvalid, p_tlast;
    logic [31:0]           p_crc;
    logic                  p_icrc_ok_unused;

    rnic_icrc #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .USER_WIDTH(KEEP_WIDTH + 2)
    ) icrc_inst (
        .clk(clk),
        .rst(rst),
        .ce(s_axis_tready),
        .tdata(s_axis_tdata),
        .tkeep(s_axis_tkeep),
        .tvalid(s_axis_tvalid),
        .tlast(s_axis_tlast),
        .tuser({keep_count_mod4(s_axis_tkeep), s_axis_tkeep}),
        .m_tdata(p_tdata),
        .m_tvalid(p_tvalid),
        .m_tlast(p_tlast),
        .m_tuser({p_cnt_lo, p_tkeep}),
        .m_crc(p_crc),
        .m_icrc_ok(p_icrc_ok_unused)
    );

    // the last beat with ICRC byte k in lane n + k (n = frame bytes in the beat), in a beat plus
    // 4 lanes: lane j takes byte (j - n) % 4 of the ICRC rotated by n % 4 bytes and repeated
    function automatic logic [DATA_WIDTH+31:0] lane_bits(input logic [KEEP_WIDTH+3:0] m);
        logic [DATA_WIDTH+31:0] v;
        for (int i = 0; i < KEEP_WIDTH + 4; i++) v[8*i +: 8] = {8{m[i]}};
        lane_bits = v;
    endfunction

    wire [KEEP_WIDTH+3:0]   last_keep = {p_tkeep, 4'hf};
    wire [KEEP_WIDTH+3:0]   icrc_lanes = last_keep & ~{4'h0, p_tkeep};
    wire [63:0]             icrc2 = {2{~p_crc}};
    wire [31:0]             icrc_rot = icrc2[32 - 8 * p_cnt_lo +: 32];
    wire [DATA_WIDTH+31:0]  last_data = ({32'h0, p_tdata} & lane_bits({4'h0, p_tkeep})) |
                                        ({(DATA_WIDTH/32+1){icrc_rot}} & lane_bits(icrc_lanes));

    // last beat split into this beat and the 4 lanes past it
    wire [DATA_WIDTH-1:0] last_beat_data = last_data[DATA_WIDTH-1:0];
    wire [KEEP_WIDTH-1:0] last_beat_keep = last_keep[KEEP_WIDTH-1:0];
    wire [31:0]           last_over_data = last_data[DATA_WIDTH+31:DATA_WIDTH];
    wire [3:0]            last_over_keep = last_keep[KEEP_WIDTH+3:KEEP_WIDTH];
    wire [DATA_WIDTH-1:0] extra_beat_data = {{(DATA_WIDTH-32){1'b0}}, extra_data_reg};
    wire [KEEP_WIDTH-1:0] extra_beat_keep = {{(KEEP_WIDTH-4){1'b0}}, extra_keep_reg};

    always_comb begin
        m_axis_tdata_next = m_axis_tdata_reg;
        m_axis_tkeep_next = m_axis_tkeep_reg;
        m_axis_tvalid_next = m_axis_tvalid_reg;
        m_axis_tlast_next = m_axis_tlast_reg;
        extra_next = extra_reg;
        extra_data_next = extra_data_reg;
        extra_keep_next = extra_keep_reg;

        if (load) begin
            m_axis_tvalid_next = 1'b0;
            if (extra_reg) begin
                m_axis_tdata_next = extra_beat_data;
                m_axis_tkeep_next = extra_beat_keep;
                m_axis_tvalid_next = 1'b1;
                m_axis_tlast_next = 1'b1;
                extra_next = 1'b0;
            end else if (p_tvalid) begin
                m_axis_tvalid_next = 1'b1;
                if (p_tlast) begin
                    m_axis_tdata_next = last_beat_data;
                    m_axis_tkeep_next = last_beat_keep;
                    m_axis_tlast_next = last_over_keep == 4'h0;
                    extra_next = last_over_keep != 4'h0;
                    extra_data_next = last_over_data;
                    extra_keep_next = last_over_keep;
                end else begin
                    m_axis_tdata_next = p_tdata;
                    m_axis_tkeep_next = p_tkeep;
                    m_axis_tlast_next = 1'b0;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        m_axis_tdata_reg <= m_axis_tdata_next;
        m_axis_tkeep_reg <= m_axis_tkeep_next;
        m_axis_tvalid_reg <= m_axis_tvalid_next;
        m_axis_tlast_reg <= m_axis_tlast_next;
        extra_reg <= extra_next;
        extra_data_reg <= extra_data_next;
        extra_keep_reg <= extra_keep_next;
        if (rst) begin
            m_axis_tvalid_reg <= 1'b0;
            extra_reg <= 1'b0;
        end
    end

endmodule

`resetall
