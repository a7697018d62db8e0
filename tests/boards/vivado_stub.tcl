# A recording stand-in for the Vivado Tcl commands the board builds call, so
# that boards/<board>/build.tcl runs under plain tclsh (tests/boards/):
# every call is appended to ::stub_calls; a command naming a file that must
# exist (sources, constraints, the firmware image) stops the run when it
# does not; constraint files are checked for complete Tcl commands and known
# XDC commands, and rnic_cdc.tcl runs against empty netlist queries. What it
# cannot know (the IP's CONFIG names, the netlist) is left to Vivado.

set ::stub_calls {}
set ::stub_ips {}
set ::stub_ip_config [dict create]
set ::stub_xdc_ports {}

proc stub_fail {msg} {
    puts stderr "vivado-stub: $msg"
    exit 3
}
proc stub_rec {args} { lappend ::stub_calls $args }
proc stub_need {cmd f} {
    if {![file exists $f]} { stub_fail "$cmd: no such file: $f" }
}
proc stub_files {argl} {
    # the arguments that are not options (options of these commands take no value)
    set out {}
    foreach a $argl { if {![string match -* $a]} { lappend out $a } }
    return $out
}

proc create_project {args} { stub_rec create_project {*}$args }
proc current_project {args} { return stub_project }
proc current_design {args} { return stub_design }

proc create_ip {args} {
    stub_rec create_ip {*}$args
    set name [dict get $args -module_name]
    if {[dict exists $args -dir] && ![file isdirectory [dict get $args -dir]]} {
        stub_fail "create_ip: -dir [dict get $args -dir] is not a directory"
    }
    foreach k {-name -vendor -library} {
        if {![dict exists $args $k]} { stub_fail "create_ip $name: no $k" }
    }
    if {[lsearch -exact $::stub_ips $name] >= 0} { stub_fail "create_ip: $name created twice" }
    lappend ::stub_ips $name
    dict set ::stub_ip_config $name [dict create]
}
proc get_ips {args} {
    if {[llength $args] == 0} { return $::stub_ips }
    set n [lindex $args end]
    if {[lsearch -exact $::stub_ips $n] < 0} { stub_fail "get_ips $n: no such IP" }
    return $n
}
proc set_property {args} {
    stub_rec set_property {*}$args
    if {[lindex $args 0] eq "-dict"} {
        set d [lindex $args 1]
        set obj [lindex $args 2]
        if {[llength $d] % 2} { stub_fail "set_property -dict: odd list on $obj" }
        if {[lsearch -exact $::stub_ips $obj] >= 0} {
            foreach {k v} $d {
                if {[dict exists $::stub_ip_config $obj $k]} { stub_fail "set_property: $k set twice on $obj" }
                dict set ::stub_ip_config $obj $k $v
            }
        }
    }
}
proc generate_target {args} {
    set ip [lindex $args end]
    if {[lsearch -exact $::stub_ips $ip] < 0} { stub_fail "generate_target: no IP $ip" }
    stub_rec generate_target {*}$args
}
proc synth_ip {args} { stub_rec synth_ip {*}$args }

proc read_verilog {args} {
    foreach f [stub_files $args] { stub_need read_verilog $f }
    stub_rec read_verilog {*}$args
}

set ::stub_xdc_cmds {set_property create_clock create_generated_clock set_false_path set_input_delay
    set_output_delay set_max_delay set_min_delay set_clock_groups set_multicycle_path
    set_operating_conditions}
proc stub_const {v args} { return $v }
proc stub_xdc_port {args} {
    foreach p [lindex $args end] { lappend ::stub_xdc_ports $p }
    return [lindex $args end]
}
proc read_xdc {args} {
    foreach f [stub_files $args] {
        stub_need read_xdc $f
        set fh [open $f]
        set text [read $fh]
        close $fh
        if {![info complete $text]} { stub_fail "read_xdc: $f: an incomplete Tcl command" }
        # evaluated in an interpreter that knows the XDC commands only (a
        # .tcl constraint script also Tcl's own), the netlist queries empty
        # but for get_ports, which records the ports named
        set i [interp create]
        if {[string match *.xdc $f]} {
            foreach c [interp eval $i {info commands}] {
                if {$c ni {rename if expr set list lindex llength string}} { interp eval $i [list rename $c {}] }
            }
            interp eval $i {rename rename {}}
        }
        foreach q $::stub_xdc_cmds { interp alias $i $q {} stub_rec $q }
        foreach q {get_cells get_pins get_clocks get_nets} { interp alias $i $q {} stub_const {} }
        interp alias $i get_ports {} stub_xdc_port
        interp alias $i current_design {} stub_const stub_design
        interp alias $i get_property {} stub_const 1.0
        if {[catch {interp eval $i $text} err]} { stub_fail "read_xdc: $f: $err" }
        interp delete $i
    }
    stub_rec read_xdc {*}$args
}

proc synth_design {args} {
    set top [dict get [lrange $args 0 end] -top]
    foreach {k v} $args {
        if {$k eq "-generic" && [regexp {^FW_HEX="?([^"]*)"?$} $v -> hex]} { stub_need synth_design $hex }
    }
    stub_rec synth_design {*}$args
}
foreach c {opt_design place_design phys_opt_design route_design report_clock_interaction report_cdc} {
    proc $c {args} "stub_rec $c {*}\$args"
}
proc stub_out {cmd args} {
    set f [expr {[dict exists $args -file] ? [dict get $args -file] : [lindex $args end]}]
    if {![file isdirectory [file dirname $f]]} { stub_fail "$cmd: no directory for $f" }
    stub_rec $cmd {*}$args
}
proc write_checkpoint {args} { stub_out write_checkpoint {*}$args }
proc write_bitstream {args} { stub_out write_bitstream {*}$args }
proc write_cfgmem {args} {
    foreach k {-format -size -interface -loadbit} {
        if {[lsearch -exact $args $k] < 0} { stub_fail "write_cfgmem: no $k" }
    }
    stub_out write_cfgmem {*}$args
}
proc report_utilization {args} { stub_out report_utilization {*}$args }
proc report_timing_summary {args} { stub_out report_timing_summary {*}$args }
proc get_timing_paths {args} { return stub_path }
proc get_property {name obj} {
    if {$name eq "SLACK"} {
        return [expr {[info exists ::env(STUB_SLACK)] ? $::env(STUB_SLACK) : 0.125}]
    }
    return ""
}
