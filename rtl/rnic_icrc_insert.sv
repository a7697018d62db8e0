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
 * one extra beat (the only cycle the input is held). The output is
 * registered; the input is taken every cycle the output register is free.
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

    localparam int CNT_WIDTH = $clog2(KEEP_WIDTH + 1);

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

    logic        load;
    logic        take;
    logic [31:0] crc_next;
    logic [31:0] crc_reg_unused;
    logic        icrc_ok_unused;

    assign load = !m_axis_tvalid_reg || m_axis_tready;
    assign s_axis_tready = load && !extra_reg;
    assign take = s_axis_tvalid && s_axis_tready;

    rnic_icrc #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH)
    ) icrc_inst (
        .clk(clk),
        .rst(rst),
        .tdata(s_axis_tdata),
        .tkeep(s_axis_tkeep),
        .beat_valid(take),
        .tlast(s_axis_tlast),
        .crc_next(crc_next),
        .crc_reg(crc_reg_unused),
        .icrc_ok(icrc_ok_unused)
    );

    // last beat: ICRC placed right after the frame's bytes, in a beat plus 4 lanes
    logic [CNT_WIDTH-1:0]      in_cnt;
    logic [DATA_WIDTH+31:0]    icrc_shifted;
    logic [KEEP_WIDTH+3:0]     icrc_keep;
    logic [DATA_WIDTH+31:0]    last_data;
    logic [KEEP_WIDTH+3:0]     last_keep;

    always_comb begin
        in_cnt = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            in_cnt = in_cnt + CNT_WIDTH'(s_axis_tkeep[i]);
        end
        icrc_shifted = {{DATA_WIDTH{1'b0}}, ~crc_next} << {in_cnt, 3'b000};
        icrc_keep = {{KEEP_WIDTH{1'b0}}, 4'hf} << in_cnt;
        for (int i = 0; i < KEEP_WIDTH + 4; i++) begin
            if (i < KEEP_WIDTH && s_axis_tkeep[i % KEEP_WIDTH]) begin
                last_data[8*i +: 8] = s_axis_tdata[8*(i % KEEP_WIDTH) +: 8];
            end else begin
                last_data[8*i +: 8] = icrc_shifted[8*i +: 8];
            end
        end
        last_keep = {4'h0, s_axis_tkeep} | icrc_keep;
    end

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
            end else if (take) begin
                m_axis_tvalid_next = 1'b1;
                if (s_axis_tlast) begin
                    m_axis_tdata_next = last_beat_data;
                    m_axis_tkeep_next = last_beat_keep;
                    m_axis_tlast_next = last_over_keep == 4'h0;
                    extra_next = last_over_keep != 4'h0;
                    extra_data_next = last_over_data;
                    extra_keep_next = last_over_keep;
                end else begin
                    m_axis_tdata_next = s_axis_tdata;
                    m_axis_tkeep_next = s_axis_tkeep;
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
