# Program a board through the vendor's hardware manager, batch mode:
#   vivado -mode batch -source boards/common/flash.tcl -tclargs BIT [MCS FLASH_PART]
# With MCS and FLASH_PART, the configuration flash is written (the board
# then loads the design at power-up); else the FPGA only, until power-off.
set bit [lindex $argv 0]
set mcs [lindex $argv 1]
set flash_part [lindex $argv 2]
if {![file exists $bit]} { puts stderr "flash.tcl: $bit does not exist (make bitstream first)"; exit 1 }
open_hw_manager
connect_hw_server
open_hw_target
set dev [lindex [get_hw_devices -filter {NAME =~ xc*}] 0]
if {$dev eq ""} { puts stderr "flash.tcl: no FPGA on the JTAG chain"; exit 1 }
current_hw_device $dev
if {$mcs ne ""} {
    create_hw_cfgmem -hw_device $dev [lindex [get_cfgmem_parts $flash_part] 0]
    set mem [get_property PROGRAM.HW_CFGMEM $dev]
    set_property PROGRAM.FILES [list $mcs] $mem
    set_property PROGRAM.ADDRESS_RANGE {use_file} $mem
    set_property PROGRAM.ERASE 1 $mem
    set_property PROGRAM.BLANK_CHECK 0 $mem
    set_property PROGRAM.CFG_PROGRAM 1 $mem
    set_property PROGRAM.VERIFY 1 $mem
    create_hw_bitstream -hw_device $dev [get_property PROGRAM.HW_CFGMEM_BITFILE $dev]
    program_hw_devices $dev
    program_hw_cfgmem -hw_cfgmem $mem
    puts "flash.tcl: configuration flash written ($mcs); power-cycle or reboot the host to load it"
} else {
    set_property PROGRAM.FILE $bit $dev
    program_hw_devices $dev
    puts "flash.tcl: $bit loaded; rescan the PCI bus (echo 1 > /sys/bus/pci/rescan) or reboot"
}
close_hw_target
