`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4-Stream FIFO, optionally a frame FIFO.
 *
 * FRAME_FIFO = 0: plain FIFO with back-pressure; status_good_frame pulses for
 * each tlast written.
 * FRAME_FIFO = 1: a frame becomes visible at the output only after its tlast
 * has entered. A frame larger than the FIFO is dropped (status_overflow).
 *   DROP_BAD_FRAME = 1: a frame whose last beat has tuser[0] set is dropped
 *   (status_bad_frame), and the input never stalls (an RX MAC cannot be held
 *   back): a frame that meets a full FIFO is dropped (status_overflow).
 *   DROP_BAD_FRAME = 0: bad frames pass with their tuser; a full FIFO
 *   back-pressures unless the frame alone is larger than the FIFO.
 * Each status output pulses for one cycle once per frame; every frame gets
 * exactly one of good, bad, overflow. status_level is the number of beats
 * held in the storage, the frame being written included (what a receiver
 * watches to ask its link peer for a pause before the FIFO overflows).
 *
 * Storage: DEPTH_BYTES / KEEP_WIDTH beats in an array with a registered read
 * (block RAM), followed by an output register; one beat per cycle.
 */
module axis_fifo #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int DEPTH_BYTES = 16384,
    parameter int FRAME_FIFO = 1,
    parameter int DROP_BAD_FRAME = 1,
    parameter int USER_WIDTH = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0] s_axis_tuser,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,
    output      logic [USER_WIDTH-1:0] m_axis_tuser,

    output      logic                  status_overflow,
    output      logic                  status_bad_frame,
    output      logic                  status_good_frame,
    output      logic [$clog2(DEPTH_BYTES / KEEP_WIDTH):0] status_level
);

    localparam int DEPTH = DEPTH_BYTES / KEEP_WIDTH;
    localparam int ADDR_WIDTH = $clog2(DEPTH);
    localparam int WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;
    localparam bit FRAME = FRAME_FIFO != 0;
    localparam bit DROP_BAD = FRAME_FIFO != 0 && DROP_BAD_FRAME != 0;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("axis_fifo: DATA_WIDTH must be 8 * KEEP_WIDTH (%m)");
            $finish;
        end
        if (DEPTH < 4 || (1 << ADDR_WIDTH) != DEPTH || DEPTH * KEEP_WIDTH != DEPTH_BYTES) begin
            $error("axis_fifo: DEPTH_BYTES / KEEP_WIDTH must be a power of two of 4 or more (%m)");
            $finish;
        end
        if (USER_WIDTH < 1) begin
            $error("axis_fifo: USER_WIDTH must be 1 or more (%m)");
            $finish;
        end
    end

    logic [WIDTH-1:0] mem [DEPTH];

    logic [ADDR_WIDTH:0] wr_ptr_reg, wr_ptr_next;          // end of the committed frames
    logic [ADDR_WIDTH:0] wr_ptr_cur_reg, wr_ptr_cur_next;  // next write (frame being written)
    logic [ADDR_WIDTH:0] rd_ptr_reg, rd_ptr_next;
    logic                drop_frame_reg, drop_frame_next;  // dropping the rest of this frame

    logic status_overflow_reg, status_overflow_next;
    logic status_bad_frame_reg, status_bad_frame_next;
    logic status_good_frame_reg, status_good_frame_next;

    assign status_overflow = status_overflow_reg;
    assign status_bad_frame = status_bad_frame_reg;
    assign status_good_frame = status_good_frame_reg;
    assign status_level = wr_ptr_cur_reg - rd_ptr_reg;

    // full: the FIFO holds DEPTH beats; full_wr: the frame being written alone fills it
    wire full_cur = wr_ptr_cur_reg == {~rd_ptr_reg[ADDR_WIDTH], rd_ptr_reg[ADDR_WIDTH-1:0]};
    wire full_wr = wr_ptr_cur_reg == {~wr_ptr_reg[ADDR_WIDTH], wr_ptr_reg[ADDR_WIDTH-1:0]};
    wire empty = wr_ptr_reg == rd_ptr_reg;

    logic             wr_en;
    logic [WIDTH-1:0] wr_data;

    assign wr_data = {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};

    always_comb begin
        if (!FRAME) s_axis_tready = !full_cur;
        else if (DROP_BAD) s_axis_tready = 1'b1;
        else s_axis_tready = !full_cur || full_wr || drop_frame_reg;

        wr_ptr_next = wr_ptr_reg;
        wr_ptr_cur_next = wr_ptr_cur_reg;
        drop_frame_next = drop_frame_reg;
        status_overflow_next = 1'b0;
        status_bad_frame_next = 1'b0;
        status_good_frame_next = 1'b0;
        wr_en = 1'b0;

        if (s_axis_tvalid && s_axis_tready) begin
            if (!FRAME) begin
                wr_en = 1'b1;
                wr_ptr_cur_next = wr_ptr_cur_reg + 1'b1;
                wr_ptr_next = wr_ptr_cur_next;
                status_good_frame_next = s_axis_tlast;
            end else if (drop_frame_reg || full_cur) begin
                // frame too large or (drop mode) FIFO full: forget it
                wr_ptr_cur_next = wr_ptr_reg;
                drop_frame_next = !s_axis_tlast;
                status_overflow_next = s_axis_tlast;
            end else begin
                wr_en = 1'b1;
                wr_ptr_cur_next = wr_ptr_cur_reg + 1'b1;
                if (s_axis_tlast) begin
                    if (DROP_BAD && s_axis_tuser[0]) begin
                        wr_ptr_cur_next = wr_ptr_reg;
                        status_bad_frame_next = 1'b1;
                    end else begin
                        wr_ptr_next = wr_ptr_cur_next;
                        status_good_frame_next = 1'b1;
                    end
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (wr_en) mem[wr_ptr_cur_reg[ADDR_WIDTH-1:0]] <= wr_data;
    end

    // read: RAM output register (mem_rd_*) then output register (m_axis_*)
    logic [WIDTH-1:0] mem_rd_data_reg;
    logic             mem_rd_valid_reg, mem_rd_valid_next;
    logic [WIDTH-1:0] m_data_reg;
    logic             m_valid_reg, m_valid_next;
    logic             out_ready;
    logic             rd_en;

    assign out_ready = !m_valid_reg || m_axis_tready;
    assign rd_en = !empty && (!mem_rd_valid_reg || out_ready);

    always_comb begin
        rd_ptr_next = rd_ptr_reg;
        mem_rd_valid_next = mem_rd_valid_reg;
        m_valid_next = m_valid_reg;
        if (out_ready) begin
            m_valid_next = mem_rd_valid_reg;
            mem_rd_valid_next = 1'b0;
        end
        if (rd_en) begin
            rd_ptr_next = rd_ptr_reg + 1'b1;
            mem_rd_valid_next = 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_en) mem_rd_data_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
        if (out_ready) m_data_reg <= mem_rd_data_reg;
    end

    assign m_axis_tvalid = m_valid_reg;
    assign m_axis_tdata = m_data_reg[DATA_WIDTH-1:0];
    assign m_axis_tkeep = m_data_reg[DATA_WIDTH +: KEEP_WIDTH];
    assign m_axis_tlast = m_data_reg[DATA_WIDTH + KEEP_WIDTH];
    assign m_axis_tuser = m_data_reg[DATA_WIDTH + KEEP_WIDTH + 1 +: USER_WIDTH];

    always_ff @(posedge clk) begin
        wr_ptr_reg <= wr_ptr_next;
        wr_ptr_cur_reg <= wr_ptr_cur_next;
        rd_ptr_reg <= rd_ptr_next;
        drop_frame_reg <= drop_frame_next;
        mem_rd_valid_reg <= mem_rd_valid_next;
        m_valid_reg <= m_valid_next;
        status_overflow_reg <= status_overflow_next;
        status_bad_frame_reg <= status_bad_frame_next;
        status_good_frame_reg <= status_good_frame_next;
        if (rst) begin
            wr_ptr_reg <= '0;
            wr_ptr_cur_reg <= '0;
            rd_ptr_reg <= '0;
            drop_frame_reg <= 1'b0;
            mem_rd_valid_reg <= 1'b0;
            m_valid_reg <= 1'b0;
            status_overflow_reg <= 1'b0;
            status_bad_frame_reg <= 1'b0;
            status_good_frame_reg <= 1'b0;
        end
    end

endmodule

`resetall
