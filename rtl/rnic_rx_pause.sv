`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Link flow control, the receiver's half: when to ask the MAC to pause the
 * link peer (IEEE 802.3 Annex 31B; the MAC sends the PAUSE frames).
 *
 * The receive frame FIFO drains at the data path's pace (host writes,
 * per-packet work), which may be slower than the line. pause_req rises when
 * the FIFO holds cfg_xoff bytes or more and falls when it holds cfg_xon or
 * fewer; the space above XOFF takes what is already on its way when the
 * peer's MAC obeys (the frame it is sending, the cable, our PAUSE frame
 * waiting behind the frame we send).
 *
 * The receive path can wait for the transmit path (READ jobs queue for the
 * packet builder, with the ACKs coalesced into them). If the peer pauses our transmit while we
 * pause it, and its receive path waits the same way, neither FIFO drains
 * and both links stay paused. So a request held while the FIFO gives no
 * beat for cfg_stall cycles (0: no limit) falls and stays down until the
 * FIFO has drained to XON: the peer's traffic resumes, what meets a full
 * FIFO is dropped (the transport retransmits it) and the loop is broken.
 *
 * stat_rise pulses when the request rises, stat_stall when it is given up.
 */
module rnic_rx_pause #(
    parameter int LEVEL_WIDTH = 16
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic                   cfg_en,
    input  wire logic [31:0]            cfg_xoff,   // bytes
    input  wire logic [31:0]            cfg_xon,    // bytes
    input  wire logic [31:0]            cfg_stall,  // cycles

    input  wire logic [LEVEL_WIDTH-1:0] fifo_level_bytes,
    input  wire logic                   fifo_drain, // a beat left the FIFO

    output      logic                   pause_req,
    output      logic                   stat_rise,
    output      logic                   stat_stall
);

    logic        req_reg, stalled_reg;
    logic [31:0] idle_reg;   // cycles the request has been high with no beat out

    wire [31:0] level = 32'(fifo_level_bytes);
    assign stat_rise = cfg_en && !req_reg && !stalled_reg && level >= cfg_xoff;
    assign stat_stall = req_reg && cfg_stall != 0 && idle_reg >= cfg_stall;
    assign pause_req = req_reg;

    always_ff @(posedge clk) begin
        if (!cfg_en) req_reg <= 1'b0;
        else if (stat_rise) req_reg <= 1'b1;
        else if (level <= cfg_xon || stat_stall) req_reg <= 1'b0;
        if (stat_stall) stalled_reg <= 1'b1;
        else if (level <= cfg_xon) stalled_reg <= 1'b0;
        if (!req_reg || fifo_drain) idle_reg <= '0;
        else if (idle_reg != '1) idle_reg <= idle_reg + 1'b1;
        if (rst) begin
            req_reg <= 1'b0;
            stalled_reg <= 1'b0;
            idle_reg <= '0;
        end
    end

endmodule

`resetall
