`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4-Stream packer: removes gaps from a stream.
 *
 * Each input beat carries one contiguous run of valid bytes anywhere in the
 * beat (tkeep == 0 is allowed and carries nothing). The output is dense: every
 * beat is full except the tlast beat, whose bytes start at lane 0; a frame of
 * zero bytes leaves as one beat with tkeep == 0 and tlast.
 *
 * The input run is shifted down to lane 0 and appended to an accumulator of
 * two beats. A full beat leaves only once a byte beyond it is known (in the
 * accumulator or on the input this cycle) or tlast has arrived, so a frame
 * never ends with an empty tlast beat after a full one. With a free output the
 * input is taken every cycle, aligned or not, across frame boundaries too; the
 * input stalls only while a frame's last input beat turns into two output
 * beats.
 */
module axis_packer #(
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

    localparam int CNT_WIDTH = $clog2(2 * KEEP_WIDTH + 1);
    localparam int OFF_WIDTH = $clog2(KEEP_WIDTH);
    localparam logic [CNT_WIDTH-1:0] KW = CNT_WIDTH'(KEEP_WIDTH);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 2 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("axis_packer: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two of 16 or more bits (%m)");
            $finish;
        end
    end

    // accumulator: bytes 0 .. cnt-1 valid, byte 0 is the next output byte
    logic [2*DATA_WIDTH-1:0] acc_reg, acc_next;
    logic [CNT_WIDTH-1:0]    cnt_reg, cnt_next;
    logic                    last_reg, last_next;   // the frame's tlast is in the accumulator

    // input beat: first valid lane and number of valid bytes
    logic [OFF_WIDTH-1:0]    in_off;
    logic [CNT_WIDTH-1:0]    in_cnt;
    logic [DATA_WIDTH-1:0]   in_shifted;

    always_comb begin
        in_off = '0;
        for (int i = KEEP_WIDTH - 1; i >= 0; i--) begin
            if (s_axis_tkeep[i]) in_off = OFF_WIDTH'(i);
        end
        in_cnt = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            in_cnt = in_cnt + CNT_WIDTH'(s_axis_tkeep[i]);
        end
        in_shifted = s_axis_tdata >> {in_off, 3'b000};
    end

    // output side, straight from the accumulator
    logic [KEEP_WIDTH-1:0] out_keep_last;

    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            out_keep_last[i] = CNT_WIDTH'(i) < cnt_reg;
        end
        m_axis_tvalid = cnt_reg > KW || last_reg || (cnt_reg == KW && s_axis_tvalid && |s_axis_tkeep);
        m_axis_tlast = last_reg && cnt_reg <= KW;
        m_axis_tkeep = m_axis_tlast ? out_keep_last : {KEEP_WIDTH{1'b1}};
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            m_axis_tdata[8*i +: 8] = m_axis_tkeep[i] ? acc_reg[8*i +: 8] : 8'h00;
        end
    end

    // state after this cycle's output, then append the input
    logic                    pop;
    logic [CNT_WIDTH-1:0]    cnt_pop;
    logic                    last_pop;
    logic [2*DATA_WIDTH-1:0] acc_pop;
    logic [2*DATA_WIDTH-1:0] ins;
    logic                    take;

    always_comb begin
        pop = m_axis_tvalid && m_axis_tready;
        cnt_pop = cnt_reg;
        last_pop = last_reg;
        acc_pop = acc_reg;
        if (pop) begin
            acc_pop = acc_reg >> DATA_WIDTH;
            if (m_axis_tlast) begin
                cnt_pop = '0;
                last_pop = 1'b0;
            end else begin
                cnt_pop = cnt_reg - KW;
            end
        end

        s_axis_tready = !last_pop && cnt_pop <= KW;
        take = s_axis_tvalid && s_axis_tready;

        ins = {{DATA_WIDTH{1'b0}}, in_shifted} << {cnt_pop, 3'b000};
        acc_next = acc_pop;
        cnt_next = cnt_pop;
        last_next = last_pop;
        if (take) begin
            for (int i = 0; i < 2 * KEEP_WIDTH; i++) begin
                if (CNT_WIDTH'(i) >= cnt_pop) acc_next[8*i +: 8] = ins[8*i +: 8];
            end
            cnt_next = cnt_pop + in_cnt;
            last_next = s_axis_tlast;
        end
    end

    always_ff @(posedge clk) begin
        acc_reg <= acc_next;
        cnt_reg <= cnt_next;
        last_reg <= last_next;
        if (rst) begin
            cnt_reg <= '0;
            last_reg <= 1'b0;
        end
    end

endmodule

`resetall
