`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Payload source of the requester's transmit path.
 *
 * The requester issues payload descriptors packet by packet, in the order of
 * its packet headers. A descriptor either asks the DMA read engine for host
 * memory (SGE pieces, several per packet, the last one marked last), or, for
 * an inline message, carries the packet's bytes itself (taken from the WQE
 * the requester already holds: one descriptor, the whole packet). This block
 * passes the first kind to the DMA engine, keeps the second in a small FIFO,
 * and merges both into one stream in packet order: a FIFO of one bit per
 * packet, pushed at the packet's first descriptor, says where each packet's
 * bytes come from. Pushing at the first descriptor (not the last) lets a DMA
 * packet's data leave as soon as it arrives, so the DMA engine's buffer never
 * waits for descriptors that are stuck behind it.
 *
 * The output is packed like the DMA engine's: bytes from lane 0, every beat
 * but the last full, tlast on the packet's final byte.
 */
module rnic_pay_src #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int INL_BYTES = rnic_pkg::MAX_INLINE_BYTES,
    // packets between the descriptor side and the output
    parameter int ORDER_LOG2 = 4,
    // inline packets held
    parameter int INL_LOG2 = 1
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [63:0]              s_desc_addr,
    input  wire logic [31:0]              s_desc_len,
    input  wire logic                     s_desc_last,
    input  wire logic                     s_desc_inline,
    input  wire logic [8*INL_BYTES-1:0]   s_desc_inl_data,
    input  wire logic                     s_desc_valid,
    output      logic                     s_desc_ready,

    // toward the DMA read engine
    output      logic [63:0]              m_dma_desc_addr,
    output      logic [31:0]              m_dma_desc_len,
    output      logic                     m_dma_desc_last,
    output      logic                     m_dma_desc_valid,
    input  wire logic                     m_dma_desc_ready,
    input  wire logic [DATA_WIDTH-1:0]    s_dma_tdata,
    input  wire logic [KEEP_WIDTH-1:0]    s_dma_tkeep,
    input  wire logic                     s_dma_tvalid,
    output      logic                     s_dma_tready,
    input  wire logic                     s_dma_tlast,

    output      logic [DATA_WIDTH-1:0]    m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0]    m_axis_tkeep,
    output      logic                     m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output      logic                     m_axis_tlast
);

    localparam int INL_BEATS = (INL_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int BEAT_W = $clog2(INL_BEATS + 1);
    localparam int LEN_W = $clog2(INL_BYTES + 1);

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("rnic_pay_src: DATA_WIDTH must be 64..512 (%m)");
            $finish;
        end
    end

    // packet order: 1 = inline
    logic                  ord_mem [2**ORDER_LOG2];
    logic [ORDER_LOG2:0]   ord_wr_reg, ord_rd_reg;
    wire                   ord_full = ord_wr_reg - ord_rd_reg == (ORDER_LOG2+1)'(2**ORDER_LOG2);
    wire                   ord_empty = ord_wr_reg == ord_rd_reg;
    wire                   head_inline = ord_mem[ord_rd_reg[ORDER_LOG2-1:0]];
    // !ord_empty as a flip-flop of its own: the pointers' compare stood in
    // front of the output's tlast, which runs on through the transmit
    // payload's order queue in rnic_core (10 levels)
    logic                  ord_any_reg;

    // inline packets: bytes and length
    logic [INL_BEATS*DATA_WIDTH-1:0] inl_data_mem [2**INL_LOG2];
    logic [LEN_W-1:0]      inl_len_mem [2**INL_LOG2];
    // the packet's last beat, (len - 1) / KEEP_WIDTH, stored with it: its
    // tlast is then a compare with the beat counter, not a subtract and
    // compare of the bytes left
    logic [BEAT_W-1:0]     inl_lastb_mem [2**INL_LOG2];
    logic [INL_LOG2:0]     inl_wr_reg, inl_rd_reg;
    wire                   inl_full = inl_wr_reg - inl_rd_reg == (INL_LOG2+1)'(2**INL_LOG2);

    logic                  in_pkt_reg;   // a DMA packet's later descriptors are coming
    logic [BEAT_W-1:0]     beat_reg;     // beat of the inline packet at the head

    // descriptor side
    wire dma_ok = m_dma_desc_ready && (in_pkt_reg || !ord_full);
    wire inl_ok = !ord_full && !inl_full;
    assign s_desc_ready = s_desc_inline ? inl_ok : dma_ok;
    assign m_dma_desc_addr = s_desc_addr;
    assign m_dma_desc_len = s_desc_len;
    assign m_dma_desc_last = s_desc_last;
    assign m_dma_desc_valid = s_desc_valid && !s_desc_inline && (in_pkt_reg || !ord_full);
    wire desc_fire = s_desc_valid && s_desc_ready;
    wire ord_push = desc_fire && (s_desc_inline || !in_pkt_reg);

    // output side
    wire [LEN_W-1:0]       inl_len = inl_len_mem[inl_rd_reg[INL_LOG2-1:0]];
    wire [31:0]            inl_left = 32'(inl_len) - 32'(beat_reg) * 32'(KEEP_WIDTH);
    wire                   inl_last = beat_reg == inl_lastb_mem[inl_rd_reg[INL_LOG2-1:0]];
    logic [KEEP_WIDTH-1:0] inl_keep;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) inl_keep[i] = 32'(i) < inl_left;
    end
    wire sel_inl = ord_any_reg && head_inline;
    wire sel_dma = ord_any_reg && !head_inline;
    assign m_axis_tdata = sel_inl ? inl_data_mem[inl_rd_reg[INL_LOG2-1:0]][DATA_WIDTH * 32'(beat_reg) +: DATA_WIDTH]
                                  : s_dma_tdata;
    assign m_axis_tkeep = sel_inl ? inl_keep : s_dma_tkeep;
    assign m_axis_tlast = sel_inl ? inl_last : s_dma_tlast;
    assign m_axis_tvalid = sel_inl || (sel_dma && s_dma_tvalid);
    assign s_dma_tready = sel_dma && m_axis_tready;
    wire out_fire = m_axis_tvalid && m_axis_tready;

    always_ff @(posedge clk) begin
        if (ord_push) begin
            ord_mem[ord_wr_reg[ORDER_LOG2-1:0]] <= s_desc_inline;
            ord_wr_reg <= ord_wr_reg + 1'b1;
        end
        if (desc_fire && !s_desc_inline) in_pkt_reg <= !s_desc_last;
        if (desc_fire && s_desc_inline) begin
            inl_data_mem[inl_wr_reg[INL_LOG2-1:0]] <= (INL_BEATS*DATA_WIDTH)'(s_desc_inl_data);
            inl_len_mem[inl_wr_reg[INL_LOG2-1:0]] <= LEN_W'(s_desc_len);
            inl_lastb_mem[inl_wr_reg[INL_LOG2-1:0]] <= BEAT_W'((LEN_W'(s_desc_len) - 1'b1) / LEN_W'(KEEP_WIDTH));
            inl_wr_reg <= inl_wr_reg + 1'b1;
        end
        if (out_fire) begin
            if (sel_inl) beat_reg <= inl_last ? '0 : beat_reg + 1'b1;
            if (m_axis_tlast) begin
                ord_rd_reg <= ord_rd_reg + 1'b1;
                if (sel_inl) inl_rd_reg <= inl_rd_reg + 1'b1;
            end
        end
        // the queue holds a packet after this cycle: a push, or one left
        // after a pop (the pointers as they will be)
        ord_any_reg <= ord_push || ((ord_wr_reg - ord_rd_reg) != (ORDER_LOG2+1)'(out_fire && m_axis_tlast));
        if (rst) begin
            ord_any_reg <= 1'b0;
            ord_wr_reg <= '0;
            ord_rd_reg <= '0;
            inl_wr_reg <= '0;
            inl_rd_reg <= '0;
            in_pkt_reg <= 1'b0;
            beat_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // an inline descriptor is a whole packet of 1..INL_BYTES bytes, never in
    // the middle of a DMA packet
    always_ff @(posedge clk) begin
        if (!rst) assert (ord_any_reg == !ord_empty);
        if (!rst && sel_inl) assert (inl_last == (inl_left <= 32'(KEEP_WIDTH)));
        if (!rst && s_desc_valid && s_desc_inline)
            assert (!in_pkt_reg && s_desc_last && s_desc_len != 0 && s_desc_len <= 32'(INL_BYTES));
    end
`endif
`endif

endmodule

`resetall
