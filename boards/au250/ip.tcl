# Vendor IP of the U250 design, from Tcl (sourced by boards/common/build.tcl).
set pcie_lanes X16
set pcie_axi_width 512_bit
source [file join $root boards common pcie_ip.tcl]

# 100G MAC on QSFP28 cage 0 (GTY quad 231, X1Y44..X1Y47; the CMAC block
# beside it), RS-FEC, AXI4-Stream 512 bits, global PAUSE both ways
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name rnic_cmac -dir $ip_dir
set_property -dict [list \
    CONFIG.CMAC_CAUI4_MODE {1} \
    CONFIG.NUM_LANES {4x25} \
    CONFIG.GT_REF_CLK_FREQ {161.1328125} \
    CONFIG.GT_DRP_CLK {100} \
    CONFIG.USER_INTERFACE {AXIS} \
    CONFIG.CMAC_CORE_SELECT {CMACE4_X0Y8} \
    CONFIG.GT_GROUP_SELECT {X1Y44~X1Y47} \
    CONFIG.LANE1_GT_LOC {X1Y44} \
    CONFIG.LANE2_GT_LOC {X1Y45} \
    CONFIG.LANE3_GT_LOC {X1Y46} \
    CONFIG.LANE4_GT_LOC {X1Y47} \
    CONFIG.INCLUDE_RS_FEC {1} \
    CONFIG.TX_FLOW_CONTROL {1} \
    CONFIG.RX_FLOW_CONTROL {1} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
    CONFIG.RX_MAX_PACKET_LEN {9600} \
] [get_ips rnic_cmac]
