# Vendor IP of the KCU105 design, from Tcl (sourced by boards/common/build.tcl).
set pcie_lanes X8
set pcie_axi_width 256_bit
source [file join $root boards common pcie_ip.tcl]

# the core's 64-bit DMA master to the bridge's 256-bit slave
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name rnic_dma_upsize -dir $ip_dir
set_property -dict [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.SI_DATA_WIDTH {64} \
    CONFIG.MI_DATA_WIDTH {256} \
    CONFIG.SI_ID_WIDTH {4} \
    CONFIG.FIFO_MODE {0} \
] [get_ips rnic_dma_upsize]

# 10GBASE-R MAC and PCS on SFP+ cage 0 (P3): GTH X0Y10 of quad 226, the
# 156.25 MHz reference of quad 227 (MGTREFCLK0), AXI4-Stream 64 bits,
# global PAUSE both ways
create_ip -name xxv_ethernet -vendor xilinx.com -library ip -module_name rnic_xxv -dir $ip_dir
set_property -dict [list \
    CONFIG.LINE_RATE {10} \
    CONFIG.NUM_OF_CORES {1} \
    CONFIG.BASE_R_KR {BASE-R} \
    CONFIG.CORE {Ethernet MAC+PCS/PMA 64-bit} \
    CONFIG.DATA_PATH_INTERFACE {AXI Stream} \
    CONFIG.INCLUDE_AXI4_INTERFACE {0} \
    CONFIG.INCLUDE_USER_FIFO {1} \
    CONFIG.ENABLE_TX_FLOW_CONTROL_LOGIC {1} \
    CONFIG.ENABLE_RX_FLOW_CONTROL_LOGIC {1} \
    CONFIG.GT_REF_CLK_FREQ {156.25} \
    CONFIG.GT_DRP_CLK {100} \
    CONFIG.GT_GROUP_SELECT {Quad_X0Y2} \
    CONFIG.LANE1_GT_LOC {X0Y10} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
] [get_ips rnic_xxv]
