# OpenRNIC board build, Vivado batch mode (non-project flow), shared by the
# boards. A board's build.tcl sets, then sources this file:
#   board        name (au250, kcu105): constraints/$board.xdc, boards/$board/
#   part         the FPGA part
#   top          the board top module
#   board_rtl    the board's own sources, relative to the repository root
#   board_ip     its IP script (create_ip and CONFIG of every vendor IP)
# From the environment (boards/<board>/Makefile sets them):
#   RNIC_ROOT        the repository
#   RNIC_BUILD_DIR   where the IP, checkpoints, reports and bitstream go
#   RNIC_FW_HEX      the firmware image for the control processor's RAM
#   RNIC_PICORV32    the control processor's core (scripts/picorv32-path.sh)
#   RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID   optional, hexadecimal: other PCI
#                    IDs than docs/formats.toml's (boards/common/rnic_formats.tcl)
#   RNIC_JOBS        parallel jobs for the IP synthesis (default 2)

foreach v {RNIC_ROOT RNIC_BUILD_DIR RNIC_FW_HEX RNIC_PICORV32} {
    if {![info exists ::env($v)] || $::env($v) eq ""} {
        puts stderr "build.tcl: $v is not set (run through `make bitstream BOARD=$board`)"
        exit 1
    }
}
set root $::env(RNIC_ROOT)
set out $::env(RNIC_BUILD_DIR)
set fw_hex $::env(RNIC_FW_HEX)
set jobs 2
if {[info exists ::env(RNIC_JOBS)]} { set jobs $::env(RNIC_JOBS) }
file mkdir $out

# device constants from docs/formats.toml, then the build-time PCI IDs
source [file join $root boards common rnic_formats.tcl]
foreach {var envname} {rnic_pci_vendor_id RNIC_PCI_VENDOR_ID rnic_pci_device_id RNIC_PCI_DEVICE_ID} {
    if {[info exists ::env($envname)] && $::env($envname) ne ""} {
        set val [string tolower [string map {0x ""} $::env($envname)]]
        if {![regexp {^[0-9a-f]{4}$} $val] || $val eq "ffff"} {
            puts stderr "build.tcl: $envname=$::env($envname) is not a 16-bit PCI ID (four hexadecimal digits)"
            exit 1
        }
        set $var $val
    }
}
# the subsystem IDs follow the IDs
set rnic_pci_subsystem_vendor_id $rnic_pci_vendor_id
set rnic_pci_subsystem_id $rnic_pci_device_id
puts "build.tcl: $board ($part), PCI $rnic_pci_vendor_id:$rnic_pci_device_id class $rnic_pci_class_code, BAR0 $rnic_bar0_bytes bytes"

create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# ---------------------------------------------------------------- IP
# every IP from Tcl (no binary IP file is kept in the tree)
set ip_dir [file join $out ip]
file mkdir $ip_dir
source [file join $root boards $board $board_ip]
foreach ip [get_ips] {
    generate_target all $ip
    synth_ip $ip
}

# ---------------------------------------------------------------- sources
set pkgs [list rtl/rnic_pkg.sv rtl/rnic_hdr_pkg.sv rtl/rnic_icrc_pkg.sv rtl/rnic_gates_pkg.sv]
set mods {}
foreach f [lsort [glob -directory [file join $root rtl] *.sv]] {
    set rel [string range $f [expr {[string length $root] + 1}] end]
    if {[lsearch -exact $pkgs $rel] < 0} { lappend mods $rel }
}
foreach f [concat $pkgs $mods $board_rtl] {
    read_verilog -sv [file join $root $f]
}
read_verilog $::env(RNIC_PICORV32)

# ---------------------------------------------------------------- constraints
read_xdc [file join $root constraints $board.xdc]
# the clock-domain crossings' timing, applied to every instance (scoped)
read_xdc -unmanaged [file join $root boards common rnic_cdc.tcl]

# ---------------------------------------------------------------- implementation
synth_design -top $top -part $part -generic FW_HEX="$fw_hex"
write_checkpoint -force [file join $out post_synth.dcp]
report_utilization -file [file join $out utilization_synth.rpt]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out post_route.dcp]
report_utilization -file [file join $out utilization.rpt]
report_utilization -hierarchical -file [file join $out utilization_hier.rpt]
report_timing_summary -max_paths 20 -file [file join $out timing_summary.rpt]
report_clock_interaction -file [file join $out clock_interaction.rpt]
report_cdc -details -file [file join $out cdc.rpt]
write_bitstream -force [file join $out $top.bit]
# the configuration flash image (make flash PERSIST=1)
write_cfgmem -force -format mcs -size $flash_size_mb -interface $flash_interface \
    -loadbit [list up 0x0 [file join $out $top.bit]] [file join $out $top.mcs]

# timing: a failing design is a failed build
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts "build.tcl: $board: WNS $wns ns, WHS $whs ns; reports in $out"
if {$wns < 0 || $whs < 0} {
    puts stderr "build.tcl: $board: timing not met (WNS $wns ns, WHS $whs ns): see $out/timing_summary.rpt"
    exit 1
}
