# Alveo U250: vivado -mode batch -source boards/au250/build.tcl (through make bitstream BOARD=au250)
set board au250
set part xcu250-figd2104-2L-e
set top rnic_au250
set board_rtl [list boards/au250/rtl/rnic_au250.sv]
set board_ip ip.tcl
# configuration flash (MT25QU01G, SPI x4): make flash PERSIST=1
set flash_size_mb 128
set flash_interface SPIx4
source [file join [file dirname [info script]] .. common build.tcl]
