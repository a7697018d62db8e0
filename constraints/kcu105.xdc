# KCU105 (xcku040-ffva1156-2-e): the pins, I/O standards and clocks of
# boards/kcu105/rtl/rnic_kcu105.sv. Pin facts from the KCU105 user guide
# (UG917) and its schematics; GT pins carry no I/O standard. The clock-domain
# crossings' timing is boards/common/rnic_cdc.tcl (read after this file).

# configuration: dual SPI flash (x8) at 1.8 V
set_property CFGBVS GND [current_design]
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN {DIV-1} [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 8 [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP [current_design]

# LEDs DS7, DS6, DS8, DS9: link, PCIe, traffic, heartbeat
set_property -dict {PACKAGE_PIN AP8 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN H23 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN P20 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN P21 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports {led[3]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]

# PCIe x8 (GTH quads 224, 225), 100 MHz reference (MGTREFCLK0 of quad 225), PERST#
set_property PACKAGE_PIN AB2 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AC4 [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AD2 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AE4 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AF2 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AG4 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AH2 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AH6 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AJ4 [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AK6 [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AK2 [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AL4 [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AM2 [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AM6 [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AP2 [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AN4 [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AB6 [get_ports pcie_refclk_p]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN K22 IOSTANDARD LVCMOS18 PULLUP TRUE} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# SFP+ cage P3 (sfp0: GTH X0Y10, quad 226); 156.25 MHz reference from the
# Si570 through the Si53340 (MGTREFCLK0 of quad 227)
set_property PACKAGE_PIN T2 [get_ports sfp0_rx_p]
set_property PACKAGE_PIN U4 [get_ports sfp0_tx_p]
set_property PACKAGE_PIN P6 [get_ports sfp_refclk_p]
create_clock -period 6.400 -name sfp_refclk [get_ports sfp_refclk_p]
set_property -dict {PACKAGE_PIN AL8 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports sfp0_tx_disable_b]
set_false_path -to [get_ports sfp0_tx_disable_b]
set_output_delay 0 [get_ports sfp0_tx_disable_b]

# The PCIe user clock (core), the MAC clock and the init clock meet only in
# rnic_board_glue's synchronizers; boards/common/rnic_cdc.tcl bounds each of
# those paths (set_max_delay -datapath_only on the Gray pointers), so no
# clock group here: it would take precedence and leave them unbounded.
