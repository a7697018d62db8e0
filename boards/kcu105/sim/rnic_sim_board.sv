`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The AMD KCU105 in the board simulation (boards/sim/rnic_board_sim.sv): its
 * top, rnic_kcu105, with the pins the simulation drives (the PCIe reference
 * clock and PERST#, the MAC's reference clock; the serial lanes idle: the
 * IP models stand for them) and the MAC model's line side read from its
 * instance.
 */
module rnic_sim_board #(
    parameter FW_HEX = "",
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int CQN_WIDTH = 10,
    parameter int MTT_INDEX_WIDTH = 14,
    parameter int DW = 64,
    parameter int NLED = 3
) (
    input  wire logic            clk,
    input  wire logic            mac_clk,
    input  wire logic            ref_clk,
    input  wire logic            rst,
    output      logic [NLED-1:0] led,
    output      logic [DW-1:0]   h_tx_tdata,
    output      logic [DW/8-1:0] h_tx_tkeep,
    output      logic            h_tx_tvalid,
    output      logic            h_tx_tlast,
    output      logic            h_tx_tuser,
    output      logic            h_pause_req
);

    rnic_kcu105 #(
        .FW_HEX(FW_HEX), .QPN_WIDTH(QPN_WIDTH), .MR_INDEX_WIDTH(MR_INDEX_WIDTH), .CQN_WIDTH(CQN_WIDTH),
        .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH)
    ) dut (
        .pcie_refclk_p(ref_clk), .pcie_refclk_n(!ref_clk), .pcie_reset_n(!rst),
        .pcie_rx_p('0), .pcie_rx_n('1), .pcie_tx_p(), .pcie_tx_n(),
        .sfp_refclk_p(mac_clk), .sfp_refclk_n(!mac_clk), .sfp0_rx_p(1'b0), .sfp0_rx_n(1'b1),
        .sfp0_tx_p(), .sfp0_tx_n(), .sfp0_tx_disable_b(),
        .led
    );

    assign h_tx_tdata = dut.xxv_inst.mac_inst.h_tx_tdata;
    assign h_tx_tkeep = dut.xxv_inst.mac_inst.h_tx_tkeep;
    assign h_tx_tvalid = dut.xxv_inst.mac_inst.h_tx_tvalid;
    assign h_tx_tlast = dut.xxv_inst.mac_inst.h_tx_tlast;
    assign h_tx_tuser = dut.xxv_inst.mac_inst.h_tx_tuser;
    assign h_pause_req = dut.xxv_inst.mac_inst.h_pause_req;

    wire unused_ok = &{1'b0, clk};

endmodule

`resetall
