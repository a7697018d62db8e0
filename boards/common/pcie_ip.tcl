# The PCIe bridge of every board: the DMA/Bridge Subsystem (xdma) in AXI
# bridge mode. Expects: ip_dir, pcie_lanes (X8, X16), pcie_axi_width
# (256_bit, 512_bit), and the device constants of rnic_formats.tcl (with the
# build-time IDs applied by build.tcl). BAR0 (rnic_bar0_bytes) goes to the
# AXI4 master m_axib at address 0; the core's DMA master reaches host memory
# through the slave bridge s_axib, one-to-one (AXI address = bus address).
create_ip -name xdma -vendor xilinx.com -library ip -module_name rnic_xdma -dir $ip_dir
set_property -dict [list \
    CONFIG.functional_mode {AXI_Bridge} \
    CONFIG.mode_selection {Advanced} \
    CONFIG.device_port_type {PCI_Express_Endpoint_device} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.pl_link_cap_max_link_width $pcie_lanes \
    CONFIG.axi_data_width $pcie_axi_width \
    CONFIG.axisten_freq {250} \
    CONFIG.ref_clk_freq {100_MHz} \
    CONFIG.pf0_device_id $rnic_pci_device_id \
    CONFIG.PF0_DEVICE_ID_mqdma $rnic_pci_device_id \
    CONFIG.pf0_subsystem_vendor_id $rnic_pci_subsystem_vendor_id \
    CONFIG.pf0_subsystem_id $rnic_pci_subsystem_id \
    CONFIG.pf0_revision_id $rnic_pci_revision_id \
    CONFIG.vendor_id $rnic_pci_vendor_id \
    CONFIG.pf0_base_class_menu {Network_controller} \
    CONFIG.pf0_class_code_base [string range $rnic_pci_class_code 0 1] \
    CONFIG.pf0_class_code_sub [string range $rnic_pci_class_code 2 3] \
    CONFIG.pf0_class_code_interface [string range $rnic_pci_class_code 4 5] \
    CONFIG.pf0_class_code $rnic_pci_class_code \
    CONFIG.pf0_bar0_enabled {true} \
    CONFIG.pf0_bar0_type {Memory} \
    CONFIG.pf0_bar0_64bit {false} \
    CONFIG.pf0_bar0_prefetchable {false} \
    CONFIG.pf0_bar0_scale {Kilobytes} \
    CONFIG.pf0_bar0_size [expr {$rnic_bar0_bytes / 1024}] \
    CONFIG.pciebar2axibar_0 {0x0000000000000000} \
    CONFIG.en_axi_slave_if {true} \
    CONFIG.en_axi_master_if {true} \
    CONFIG.axibar_num {1} \
    CONFIG.axibar_0 {0x0000000000000000} \
    CONFIG.axibar_highaddr_0 {0xFFFFFFFFFFFFFFFF} \
    CONFIG.axibar2pciebar_0 {0x0000000000000000} \
    CONFIG.pf0_msi_enabled {false} \
    CONFIG.pf0_interrupt_pin {NONE} \
    CONFIG.cfg_mgmt_if {false} \
] [get_ips rnic_xdma]

# BAR0 to the core's AXI4-Lite slave: narrowed to 32 bits, then AXI4-Lite
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name rnic_bar_dwidth -dir $ip_dir
set_property -dict [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.SI_DATA_WIDTH [string map {_bit ""} $pcie_axi_width] \
    CONFIG.MI_DATA_WIDTH {32} \
    CONFIG.SI_ID_WIDTH {4} \
] [get_ips rnic_bar_dwidth]
create_ip -name axi_protocol_converter -vendor xilinx.com -library ip -module_name rnic_bar_protoconv -dir $ip_dir
set_property -dict [list \
    CONFIG.SI_PROTOCOL {AXI4} \
    CONFIG.MI_PROTOCOL {AXI4LITE} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.DATA_WIDTH {32} \
    CONFIG.ID_WIDTH {0} \
    CONFIG.TRANSLATION_MODE {2} \
] [get_ips rnic_bar_protoconv]
