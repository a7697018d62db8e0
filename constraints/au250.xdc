# Alveo U250 (xcu250-figd2104-2L-e): the pins, I/O standards and clocks of
# boards/au250/rtl/rnic_au250.sv. Pin facts from the U250 user guide (UG1289)
# and its schematics; GT pins carry no I/O standard. The clock-domain
# crossings' timing is boards/common/rnic_cdc.tcl (read after this file).

# configuration: SPI x4 flash at 1.8 V
set_property CFGBVS GND [current_design]
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8 [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP [current_design]

# LEDs: link, PCIe, traffic
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]

# PCIe x16 (GTY quads 224..227), 100 MHz reference (MGTREFCLK0 of quad 226), PERST#
set_property PACKAGE_PIN AF2 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AF7 [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AG4 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AG9 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AH2 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AH7 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AJ4 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AJ9 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AK2 [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AK7 [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AL4 [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AL9 [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AM2 [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AM7 [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AN4 [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AN9 [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AP2 [get_ports {pcie_rx_p[8]}]
set_property PACKAGE_PIN AP7 [get_ports {pcie_tx_p[8]}]
set_property PACKAGE_PIN AR4 [get_ports {pcie_rx_p[9]}]
set_property PACKAGE_PIN AR9 [get_ports {pcie_tx_p[9]}]
set_property PACKAGE_PIN AT2 [get_ports {pcie_rx_p[10]}]
set_property PACKAGE_PIN AT7 [get_ports {pcie_tx_p[10]}]
set_property PACKAGE_PIN AU4 [get_ports {pcie_rx_p[11]}]
set_property PACKAGE_PIN AU9 [get_ports {pcie_tx_p[11]}]
set_property PACKAGE_PIN AV2 [get_ports {pcie_rx_p[12]}]
set_property PACKAGE_PIN AV7 [get_ports {pcie_tx_p[12]}]
set_property PACKAGE_PIN AW4 [get_ports {pcie_rx_p[13]}]
set_property PACKAGE_PIN BB5 [get_ports {pcie_tx_p[13]}]
set_property PACKAGE_PIN BA2 [get_ports {pcie_rx_p[14]}]
set_property PACKAGE_PIN BD5 [get_ports {pcie_tx_p[14]}]
set_property PACKAGE_PIN BC2 [get_ports {pcie_rx_p[15]}]
set_property PACKAGE_PIN BF5 [get_ports {pcie_tx_p[15]}]
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12 PULLUP TRUE} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28 cage 0 (GTY quad 231, X1Y44..X1Y47); 161.1328125 MHz reference from
# the SI5335 (MGTREFCLK1 of quad 231) with FS = 0b10
set_property PACKAGE_PIN N4 [get_ports {qsfp0_rx_p[0]}]
set_property PACKAGE_PIN N9 [get_ports {qsfp0_tx_p[0]}]
set_property PACKAGE_PIN M2 [get_ports {qsfp0_rx_p[1]}]
set_property PACKAGE_PIN M7 [get_ports {qsfp0_tx_p[1]}]
set_property PACKAGE_PIN L4 [get_ports {qsfp0_rx_p[2]}]
set_property PACKAGE_PIN L9 [get_ports {qsfp0_tx_p[2]}]
set_property PACKAGE_PIN K2 [get_ports {qsfp0_rx_p[3]}]
set_property PACKAGE_PIN K7 [get_ports {qsfp0_tx_p[3]}]
set_property PACKAGE_PIN K11 [get_ports qsfp0_refclk_p]
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_modsell]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_resetl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_lpmode]
set_property -dict {PACKAGE_PIN AT22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_reset]
set_property -dict {PACKAGE_PIN AT20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[0]}]
set_property -dict {PACKAGE_PIN AU22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[1]}]
set_false_path -to [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*]}]
set_output_delay 0 [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*]}]

# The PCIe user clock (core), the MAC clock and the init clock meet only in
# rnic_board_glue's synchronizers; boards/common/rnic_cdc.tcl bounds each of
# those paths (set_max_delay -datapath_only on the Gray pointers), so no
# clock group here: it would take precedence and leave them unbounded.
