`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simulation model of the 100G Ethernet MAC (cmac_usplus, AXI4-Stream user
 * interface, RS-FEC) as rnic_au250.sv instantiates it: rnic_sim_mac with the
 * IP's port list. The settings the core relies on are checked: receiver
 * enabled, RS-FEC on both ways or neither (the link partner runs 100GBASE-SR4
 * with RS-FEC), global PAUSE (class 8) enabled both ways, no test pattern,
 * no forced idle or local fault, loopback off.
 */
module rnic_cmac (
    input  wire logic          gt_ref_clk_p,
    input  wire logic          gt_ref_clk_n,
    input  wire logic [3:0]    gt_rxp_in,
    input  wire logic [3:0]    gt_rxn_in,
    output      logic [3:0]    gt_txp_out,
    output      logic [3:0]    gt_txn_out,
    input  wire logic          init_clk,
    input  wire logic          sys_reset,
    input  wire logic          drp_clk,
    input  wire logic          core_drp_reset,
    input  wire logic          core_rx_reset,
    input  wire logic          core_tx_reset,
    input  wire logic          gtwiz_reset_tx_datapath,
    input  wire logic          gtwiz_reset_rx_datapath,
    input  wire logic [11:0]   gt_loopback_in,
    output      logic          gt_txusrclk2,
    output      logic          gt_rxusrclk2,
    input  wire logic          rx_clk,
    output      logic          usr_tx_reset,
    output      logic          usr_rx_reset,
    input  wire logic [511:0]  tx_axis_tdata,
    input  wire logic [63:0]   tx_axis_tkeep,
    input  wire logic          tx_axis_tvalid,
    output      logic          tx_axis_tready,
    input  wire logic          tx_axis_tlast,
    input  wire logic          tx_axis_tuser,
    output      logic [511:0]  rx_axis_tdata,
    output      logic [63:0]   rx_axis_tkeep,
    output      logic          rx_axis_tvalid,
    output      logic          rx_axis_tlast,
    output      logic          rx_axis_tuser,
    output      logic          stat_rx_aligned,
    input  wire logic          ctl_rx_enable,
    input  wire logic          ctl_rx_force_resync,
    input  wire logic          ctl_rx_test_pattern,
    input  wire logic          ctl_tx_enable,
    input  wire logic          ctl_tx_send_rfi,
    input  wire logic          ctl_tx_send_lfi,
    input  wire logic          ctl_tx_send_idle,
    input  wire logic          ctl_tx_test_pattern,
    input  wire logic          ctl_rsfec_ieee_error_indication_mode,
    input  wire logic          ctl_rx_rsfec_enable,
    input  wire logic          ctl_rx_rsfec_enable_correction,
    input  wire logic          ctl_rx_rsfec_enable_indication,
    input  wire logic          ctl_tx_rsfec_enable,
    input  wire logic [8:0]    ctl_tx_pause_enable,
    input  wire logic [8:0]    ctl_tx_pause_req,
    input  wire logic          ctl_tx_resend_pause,
    input  wire logic [15:0]   ctl_tx_pause_quanta8,
    input  wire logic [15:0]   ctl_tx_pause_refresh_timer8,
    input  wire logic [8:0]    ctl_rx_pause_enable,
    input  wire logic          ctl_rx_enable_gcp,
    input  wire logic          ctl_rx_check_mcast_gcp,
    input  wire logic          ctl_rx_check_ucast_gcp,
    input  wire logic          ctl_rx_check_sa_gcp,
    input  wire logic          ctl_rx_check_etype_gcp,
    input  wire logic          ctl_rx_check_opcode_gcp,
    input  wire logic [8:0]    ctl_rx_pause_ack
);

    logic mac_clk, rx_locked, underflow;

    wire config_ok = ctl_rx_enable && !ctl_rx_force_resync && !ctl_rx_test_pattern &&
                     !ctl_tx_send_lfi && !ctl_tx_send_idle && !ctl_tx_test_pattern &&
                     ctl_rx_rsfec_enable == ctl_tx_rsfec_enable &&
                     ctl_tx_pause_enable == 9'h100 && ctl_rx_pause_enable == 9'h100 && ctl_tx_pause_req[7:0] == 8'd0 && ctl_rx_enable_gcp &&
                     ctl_tx_pause_quanta8 != 16'd0 && ctl_tx_pause_refresh_timer8 != 16'd0 &&
                     ctl_tx_pause_refresh_timer8 < ctl_tx_pause_quanta8 &&
                     gt_loopback_in == 12'd0 && !core_rx_reset && !core_tx_reset &&
                     !gtwiz_reset_tx_datapath && !gtwiz_reset_rx_datapath;

    // Pipeline latencies at 322.27 MHz. RS-FEC (PG203, "RS-FEC Engine
    // Latency"): transmit 7 cycles, receive 37 (sub-mode 1, correction and
    // indication). The MAC, PCS and GTY transceiver add about 25 cycles out
    // and 35 in, the order of the figures the vendor gives for its Ethernet
    // subsystems' MAC + PCS + GT paths (about 80-200 ns). So about 99 ns
    // from the core's handshake to the line and 223 ns back.
    rnic_sim_mac #(.DW(512), .NAME("rnic_cmac"), .TX_LAT(7 + 25), .RX_LAT(37 + 35)) mac_inst (
        .mac_clk, .sys_reset(sys_reset || core_drp_reset), .usr_tx_reset, .usr_rx_reset, .rx_locked,
        // the MAC sends remote fault instead of frames while ctl_tx_send_rfi
        .tx_enable(ctl_tx_enable && !ctl_tx_send_rfi), .rx_enable(ctl_rx_enable), .config_ok,
        .pause_enable(ctl_tx_pause_enable[8]), .pause_req(ctl_tx_pause_req[8]),
        .tx_tdata(tx_axis_tdata), .tx_tkeep(tx_axis_tkeep), .tx_tvalid(tx_axis_tvalid),
        .tx_tready(tx_axis_tready), .tx_tlast(tx_axis_tlast), .tx_tuser(tx_axis_tuser),
        .tx_underflow(underflow),
        .rx_tdata(rx_axis_tdata), .rx_tkeep(rx_axis_tkeep), .rx_tvalid(rx_axis_tvalid),
        .rx_tlast(rx_axis_tlast), .rx_tuser(rx_axis_tuser)
    );

    assign gt_txusrclk2 = mac_clk;
    assign gt_rxusrclk2 = mac_clk;
    assign stat_rx_aligned = rx_locked;
    assign gt_txp_out = '0;
    assign gt_txn_out = '1;

    wire unused_ok = &{1'b0, gt_ref_clk_p, gt_ref_clk_n, gt_rxp_in, gt_rxn_in, init_clk, drp_clk,
                       rx_clk, underflow, ctl_rsfec_ieee_error_indication_mode,
                       ctl_rx_rsfec_enable_correction, ctl_rx_rsfec_enable_indication,
                       ctl_tx_resend_pause, ctl_rx_check_mcast_gcp, ctl_rx_check_ucast_gcp,
                       ctl_rx_check_sa_gcp, ctl_rx_check_etype_gcp, ctl_rx_check_opcode_gcp,
                       ctl_rx_pause_ack};

endmodule

`resetall
