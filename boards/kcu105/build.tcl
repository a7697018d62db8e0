# KCU105: vivado -mode batch -source boards/kcu105/build.tcl (through make bitstream BOARD=kcu105)
set board kcu105
set part xcku040-ffva1156-2-e
set top rnic_kcu105
set board_rtl [list boards/kcu105/rtl/rnic_kcu105.sv]
set board_ip ip.tcl
# configuration flash (two MT25QU256 in SPI x8): make flash PERSIST=1
set flash_size_mb 64
set flash_interface SPIx8
source [file join [file dirname [info script]] .. common build.tcl]
