# tclsh tests/boards/tcl_check.tcl BOARD ROOT
# Runs boards/BOARD/build.tcl under plain tclsh against vivado_stub.tcl (from
# ROOT, the repository or a planted copy of it) and checks what it asked
# Vivado to do: every RTL source and the board's sources read, the board's
# XDC and the crossing constraints read before synthesis, every pin of the
# top placed and no constraint on a port the top lacks, every vendor IP the
# top instantiates created from Tcl with the PCI IDs, class code and BAR0
# size of boards/common/rnic_formats.tcl (or RNIC_PCI_VENDOR_ID /
# RNIC_PCI_DEVICE_ID), synthesis of the top with the firmware image, the
# reports and the bitstream written into the build folder. Exit 0 and a
# summary line, or 1 and what is wrong.
lassign $argv board root
set root [file normalize $root]
set here [file dirname [file normalize [info script]]]
set fails 0
proc fail {msg} { global board; puts "FAIL $board: $msg"; incr ::fails }

set ::env(RNIC_ROOT) $root
set out [file join $root build boards-tclcheck $board]
file mkdir $out
set ::env(RNIC_BUILD_DIR) $out

# `exit` inside the build ends the run: keep its code
rename exit stub_real_exit
proc exit {{code 0}} { return -code error -errorcode [list STUB_EXIT $code] "exit $code" }

source [file join $here vivado_stub.tcl]
set rc [catch {source [file join $root boards $board build.tcl]} err opts]
if {$rc} {
    set ec [dict get $opts -errorcode]
    if {[lindex $ec 0] eq "STUB_EXIT" && [lindex $ec 1] != 0} {
        puts "FAIL $board: the build stopped (exit [lindex $ec 1])"; stub_real_exit 1
    } elseif {[lindex $ec 0] ne "STUB_EXIT"} {
        puts "FAIL $board: Tcl error: $err"; stub_real_exit 1
    }
}

proc calls_of {cmd} {
    set r {}
    foreach c $::stub_calls { if {[lindex $c 0] eq $cmd} { lappend r [lrange $c 1 end] } }
    return $r
}
proc index_of {cmd} {
    set i 0
    foreach c $::stub_calls { if {[lindex $c 0] eq $cmd} { return $i }; incr i }
    return -1
}

# ---------------------------------------------------------------- sources
set read {}
foreach c [calls_of read_verilog] { foreach f $c { if {![string match -* $f]} { lappend read [file normalize $f] } } }
set want {}
foreach f [glob -directory [file join $root rtl] *.sv] { lappend want [file normalize $f] }
foreach f $board_rtl { lappend want [file normalize [file join $root $f]] }
lappend want [file normalize $::env(RNIC_PICORV32)]
foreach f $want { if {[lsearch -exact $read $f] < 0} { fail "source not read: $f" } }
foreach f [glob -nocomplain -directory [file join $root boards $board rtl] *.sv] {
    if {[lsearch -exact $read [file normalize $f]] < 0} { fail "board source not read: $f" }
}
# the packages first
if {[llength $read] < 3 || ![string match *rnic_pkg.sv [lindex $read 0]]} { fail "rnic_pkg.sv is not read first" }

# ---------------------------------------------------------------- constraints
set xdcs {}
foreach c [calls_of read_xdc] { foreach f $c { if {![string match -* $f]} { lappend xdcs [file normalize $f] } } }
foreach f [list [file join $root constraints $board.xdc] [file join $root boards common rnic_cdc.tcl]] {
    if {[lsearch -exact $xdcs [file normalize $f]] < 0} { fail "constraint file not read: $f" }
}
if {[index_of read_xdc] < 0 || [index_of read_xdc] > [index_of synth_design]} { fail "constraints read after synthesis" }

# the top's ports against the XDC
set fh [open [file join $root [lindex $board_rtl 0]]]
set src [read $fh]
close $fh
regexp "module\\s+$top\\s*#\\s*\\(.*?\\)\\s*\\((.*?)\\);" $src -> header
set ports {}
foreach {_ dir width name} [regexp -all -inline {(input|output)\s+(?:wire\s+)?logic\s*(\[[^\]]+\])?\s*(\w+)} $header] {
    set n 1
    if {$width ne "" && [regexp {\[(\d+):0\]} $width -> hi]} { set n [expr {$hi + 1}] }
    dict set ports $name $n
}
if {[dict size $ports] < 5} { fail "cannot read the ports of $top" }
set placed {}
foreach p $::stub_xdc_ports {
    regexp {^(\w+)(?:\[(\d+)\])?$} $p -> base idx
    if {![dict exists $ports $base]} { fail "constraint on port $p, which $top lacks"; continue }
    if {$idx ne "" && $idx >= [dict get $ports $base]} { fail "constraint on $p beyond the port's width" }
    lappend placed $p
}
dict for {name n} $ports {
    # the negative leg of a differential pair is placed with its positive one
    if {[regexp {^(\w+)_n$} $name -> stem] && [dict exists $ports ${stem}_p]} { continue }
    if {[regexp {^(\w+)_n(\[|$)} $name]} { continue }
    for {set i 0} {$i < $n} {incr i} {
        set p [expr {$n == 1 && ![regexp {\[} [dict get $ports $name]] ? $name : "$name\[$i\]"}]
        if {$n == 1} { set p $name }
        if {[lsearch -exact $placed $p] < 0} { fail "port $p of $top has no constraint (pin)" }
    }
}

# ---------------------------------------------------------------- IP
set rtl_mods {}
foreach f $want {
    set fh [open $f]; set t [read $fh]; close $fh
    foreach {_ m} [regexp -all -inline {(?:^|\n)\s*module\s+(\w+)} $t] { lappend rtl_mods $m }
}
set prims {IBUFDS_GTE3 IBUFDS_GTE4 BUFG_GT IBUF}
foreach {_ m} [regexp -all -inline {\n    (\w+)\s+(?:#\s*\([^;]*?\)\s*)?\w+_(?:inst|buf)\s*\(} $src] {
    if {$m in $rtl_mods || $m in $prims} { continue }
    if {$m ni $::stub_ips} { fail "$top instantiates $m, which no create_ip makes" }
}
foreach ip $::stub_ips {
    if {[llength [calls_of generate_target]] == 0} { fail "no IP generated" }
    if {[index_of synth_ip] > [index_of synth_design]} { fail "IP synthesized after the design" }
}
source [file join $root boards common rnic_formats.tcl]
set vid $rnic_pci_vendor_id
set did $rnic_pci_device_id
if {[info exists ::env(RNIC_PCI_VENDOR_ID)] && $::env(RNIC_PCI_VENDOR_ID) ne ""} { set vid [string tolower $::env(RNIC_PCI_VENDOR_ID)] }
if {[info exists ::env(RNIC_PCI_DEVICE_ID)] && $::env(RNIC_PCI_DEVICE_ID) ne ""} { set did [string tolower $::env(RNIC_PCI_DEVICE_ID)] }
if {"rnic_xdma" ni $::stub_ips} {
    fail "no PCIe bridge IP (rnic_xdma)"
} else {
    set cfg [dict get $::stub_ip_config rnic_xdma]
    foreach {k v} [list CONFIG.vendor_id $vid CONFIG.pf0_device_id $did CONFIG.pf0_subsystem_vendor_id $vid \
                       CONFIG.pf0_subsystem_id $did CONFIG.pf0_class_code $rnic_pci_class_code \
                       CONFIG.pf0_bar0_size [expr {$rnic_bar0_bytes / 1024}] CONFIG.pf0_bar0_scale Kilobytes \
                       CONFIG.functional_mode AXI_Bridge CONFIG.axisten_freq $rnic_clock_mhz] {
        if {![dict exists $cfg $k]} { fail "rnic_xdma: $k not set" } elseif {[string tolower [dict get $cfg $k]] ne [string tolower $v]} {
            fail "rnic_xdma: $k is [dict get $cfg $k], want $v"
        }
    }
}

# ---------------------------------------------------------------- synthesis and outputs
set syn [lindex [calls_of synth_design] 0]
if {$syn eq ""} { fail "no synth_design" } else {
    if {[dict get $syn -top] ne $top} { fail "synth_design -top [dict get $syn -top], want $top" }
    if {[lsearch -glob $syn "FW_HEX=*"] < 0} { fail "synth_design without the firmware image (FW_HEX)" }
}
foreach c {opt_design place_design route_design} { if {[index_of $c] < 0} { fail "no $c" } }
set files {}
foreach c [concat [calls_of report_utilization] [calls_of report_timing_summary]] {
    if {[dict exists $c -file]} { lappend files [file normalize [dict get $c -file]] }
}
foreach f {utilization.rpt timing_summary.rpt} {
    if {[lsearch -exact $files [file normalize [file join $out $f]]] < 0} { fail "no $f written to $out" }
}
set bit [lindex [calls_of write_bitstream] 0 end]
if {[file normalize $bit] ne [file normalize [file join $out $top.bit]]} { fail "bitstream written to '$bit'" }
if {[llength [calls_of write_cfgmem]] == 0} { fail "no configuration flash image (write_cfgmem)" }

if {$fails} { stub_real_exit 1 }
puts "tcl-check $board: [llength $::stub_calls] vendor commands; [llength $read] sources, [llength $xdcs] constraint files ([llength $placed] port constraints), IPs [join $::stub_ips {, }] (PCI $vid:$did), reports and bitstream in build/boards-tclcheck/$board"
stub_real_exit 0
