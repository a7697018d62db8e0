`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The user side of an Ethernet MAC as the vendor's 100G (cmac_usplus) and
 * 10G/25G (xxv_ethernet) subsystems present it, for the board simulation;
 * rnic_cmac and rnic_xxv wrap it in their IP's port lists. The line itself
 * (serialization at the line rate, inter-frame gap, flight, PAUSE frames
 * sent and obeyed) is the simulator's link model, which plays this MAC's
 * PCS/PMA and the cable: it reads the transmit stream here and drives the
 * receive stream, both at `RNIC_SIM_TOP.mac_clk.
 *
 *   clock   mac_clk is the simulator's MAC clock (the IP's transmit user
 *           clock; the board tops clock the receive side from it as well).
 *   reset   sys_reset (asynchronous) high holds usr_tx_reset and
 *           usr_rx_reset; after it falls the transceivers take
 *           GT_RESET_CYCLES, then both user resets fall; the receiver
 *           reports lock (CMAC: aligned, 10G: block lock) LOCK_CYCLES later.
 *   transmit tx_tready is the transmit pipeline's room (below), only while
 *           the transmitter is enabled (tx_enable) and out of reset; the
 *           pipeline drains at the line's pace. Checked as the IP
 *           requires: TVALID stays high from a frame's first beat to its
 *           last (a gap is an underflow: the IP would abort the frame), TKEEP
 *           is all ones on every beat but the last and contiguous from lane
 *           0 on the last; nothing is offered in reset.
 *   receive the line's frames (without FCS: the IP strips it) pass while the
 *           receiver is locked and enabled; a frame the link delivers
 *           before then is lost on the line, as it would be.
 *   latency what the core offers reaches the link model TX_LAT cycles
 *           after its handshake, and what the link delivers reaches the
 *           core RX_LAT cycles later (rnic_sim_delay): the IP's MAC, PCS,
 *           FEC and transceiver pipelines. The wrappers set them from the
 *           product guides' figures; the cable's flight is the link model's
 *           --link-latency.
 *   pause   pause_req with pause_enable (the IP's class 8, global PAUSE) is
 *           the request the link model turns into PAUSE frames.
 *   config  config_ok: the wrapper's check that the static settings the top
 *           ties (FCS insertion and stripping, receiver enabled, ...) are
 *           the ones the core needs; a wrong tie is reported once.
 */
module rnic_sim_mac #(
    parameter int DW = 64,
    parameter NAME = "mac",
    parameter int GT_RESET_CYCLES = 64,
    parameter int LOCK_CYCLES = 100,
    parameter int TX_LAT = 1,   // each wrapper sets its IP's (rnic_cmac, rnic_xxv)
    parameter int RX_LAT = 1
) (
    output      logic            mac_clk,
    input  wire logic            sys_reset,
    output      logic            usr_tx_reset,
    output      logic            usr_rx_reset,
    output      logic            rx_locked,

    input  wire logic            tx_enable,
    input  wire logic            rx_enable,
    input  wire logic            config_ok,
    input  wire logic            pause_enable,   // global PAUSE (class 8) sent
    input  wire logic            pause_req,

    input  wire logic [DW-1:0]   tx_tdata,
    input  wire logic [DW/8-1:0] tx_tkeep,
    input  wire logic            tx_tvalid,
    output      logic            tx_tready,
    input  wire logic            tx_tlast,
    input  wire logic            tx_tuser,
    output      logic            tx_underflow,

    output      logic [DW-1:0]   rx_tdata,
    output      logic [DW/8-1:0] rx_tkeep,
    output      logic            rx_tvalid,
    output      logic            rx_tlast,
    output      logic            rx_tuser
);

    assign mac_clk = `RNIC_SIM_TOP.mac_clk;

    // power-up values, as the IP's own registers have them
    logic [1:0]  sys_sync = 2'b11;
    logic [15:0] count = '0;
    logic        tx_rst = 1'b1, rx_rst = 1'b1;   // the user resets as this model sees them
    logic        locked_q = 1'b0;
    assign rx_locked = locked_q;

    always_ff @(posedge mac_clk or posedge sys_reset) begin
        if (sys_reset) begin
            sys_sync <= 2'b11;
        end else begin
            sys_sync <= {sys_sync[0], 1'b0};
        end
    end

    always_ff @(posedge mac_clk) begin
        if (sys_sync[1]) begin
            count <= '0;
            tx_rst <= 1'b1;
            rx_rst <= 1'b1;
            locked_q <= 1'b0;
        end else begin
            if (count != 16'hffff) count <= count + 16'd1;
            if (count == 16'(GT_RESET_CYCLES)) begin
                tx_rst <= 1'b0;
                rx_rst <= 1'b0;
            end
            if (count == 16'(GT_RESET_CYCLES + LOCK_CYCLES)) locked_q <= 1'b1;
        end
    end

    assign usr_tx_reset = tx_rst;
    assign usr_rx_reset = rx_rst;

    // ------------------------------------------------------------------
    // transmit: the line's ready while enabled; what the link model reads
    // ------------------------------------------------------------------
    wire tx_on = tx_enable && !tx_rst;

    logic [DW-1:0]   h_tx_tdata;
    logic [DW/8-1:0] h_tx_tkeep;
    logic            h_tx_tvalid, h_tx_tlast, h_tx_tuser, h_pause_req;
    logic            txd_in_ready;
    assign tx_tready = tx_on && txd_in_ready;
    assign h_pause_req = pause_enable && pause_req && !tx_rst;

    // the MAC's, PCS's and transceiver's transmit pipeline
    rnic_sim_delay #(.W(DW + DW / 8 + 2), .LAT(TX_LAT)) tx_pipe (
        .clk(mac_clk), .rst_n(!tx_rst),
        .in_valid(tx_tvalid && tx_on), .in_ready(txd_in_ready),
        .in_data({tx_tdata, tx_tkeep, tx_tlast, tx_tuser}),
        .out_valid(h_tx_tvalid), .out_ready(`RNIC_SIM_TOP.m_axis_tx_tready),
        .out_data({h_tx_tdata, h_tx_tkeep, h_tx_tlast, h_tx_tuser})
    );

    logic in_frame = 1'b0, underflow = 1'b0;
    assign tx_underflow = underflow;

    always_ff @(posedge mac_clk) begin
        if (tx_rst) begin
            in_frame <= 1'b0;
            underflow <= 1'b0;
        end else begin
            underflow <= in_frame && !tx_tvalid;
            if (tx_tvalid && tx_tready) in_frame <= !tx_tlast;
        end
    end

    // ------------------------------------------------------------------
    // receive
    // ------------------------------------------------------------------
    wire rx_on = rx_locked && rx_enable && !rx_rst;
    logic rxd_in_ready;

    // the transceiver's, PCS's (and FEC's) and MAC's receive pipeline: the
    // line cannot wait, so its room (RX_LAT + 1) is never used up
    rnic_sim_delay #(.W(DW + DW / 8 + 2), .LAT(RX_LAT)) rx_pipe (
        .clk(mac_clk), .rst_n(!rx_rst),
        .in_valid(`RNIC_SIM_TOP.s_axis_rx_tvalid && rx_on), .in_ready(rxd_in_ready),
        .in_data({`RNIC_SIM_TOP.s_axis_rx_tdata, `RNIC_SIM_TOP.s_axis_rx_tkeep,
                  `RNIC_SIM_TOP.s_axis_rx_tlast, `RNIC_SIM_TOP.s_axis_rx_tuser}),
        .out_valid(rx_tvalid), .out_ready(1'b1),
        .out_data({rx_tdata, rx_tkeep, rx_tlast, rx_tuser})
    );

`ifndef SYNTHESIS
    always_ff @(posedge mac_clk) begin
        if (`RNIC_SIM_TOP.s_axis_rx_tvalid && rx_on && !rxd_in_ready)
            $error("%s model: receive pipeline full (the line cannot wait)", NAME);
    end

    function automatic logic keep_ok(input logic [DW/8-1:0] keep, input logic last);
        if (!last) return &keep;
        return keep[0] && ((keep & (keep + 1'b1)) == '0);
    endfunction

    logic config_reported = 1'b0;
    always_ff @(posedge mac_clk) begin
        if (tx_rst) begin
            config_reported <= 1'b0;
            if (tx_tvalid && sys_sync == 2'b00 && count > 16'd2)
                $error("%s model: frame offered while the transmitter is in reset", NAME);
        end else begin
            if (in_frame && !tx_tvalid)
                $error("%s model: transmit underflow (TVALID fell inside a frame)", NAME);
            if (tx_tvalid && tx_tready && !keep_ok(tx_tkeep, tx_tlast))
                $error("%s model: TKEEP %h on a %s beat", NAME, tx_tkeep, tx_tlast ? "last" : "middle");
            if (!config_ok && !config_reported) begin
                $error("%s model: the top ties a setting the core cannot work with", NAME);
                config_reported <= 1'b1;
            end
        end
    end
`endif

endmodule

`resetall
