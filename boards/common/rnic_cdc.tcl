# Timing of the clock-domain crossings of the board tops, read by
# boards/common/build.tcl as an unmanaged constraint file (after synthesis
# every instance below exists). For each crossing the path into the first
# synchronizer stage is bounded to the faster clock's period, data path only
# (the Gray pointers must arrive within one period of each other, so they
# are not cut), as the field does; asynchronous resets are cut.

proc rnic_min_period {cells_a cells_b} {
    set p {}
    foreach c [list $cells_a $cells_b] {
        set clk [get_clocks -quiet -of_objects [get_cells $c]]
        if {[llength $clk] > 0} { lappend p [get_property PERIOD [lindex $clk 0]] }
    }
    if {[llength $p] == 0} { return 2.0 }
    return [tcl::mathfunc::min {*}$p]
}

# rnic_axis_async_fifo: Gray pointers into the other side's rnic_cdc_sync
foreach fifo [get_cells -quiet -hier -filter {REF_NAME == rnic_axis_async_fifo || ORIG_REF_NAME == rnic_axis_async_fifo}] {
    foreach {src sync} {wr_gray_reg_reg wr_ptr_sync_inst rd_gray_reg_reg rd_ptr_sync_inst} {
        set from [get_cells -quiet "$fifo/${src}[*]"]
        set to [get_cells -quiet "$fifo/$sync/meta_reg_reg[*]"]
        if {[llength $from] && [llength $to]} {
            set_max_delay -datapath_only -from $from -to $to [rnic_min_period [lindex $from 0] [lindex $to 0]]
        }
    }
    # the storage is written in one clock and read in the other: block RAM
    # has no fabric path, LUT RAM would (read register in the read clock)
    set from [get_cells -quiet "$fifo/mem_reg*"]
    set to [get_cells -quiet "$fifo/mem_rd_reg_reg[*]"]
    if {[llength $from] && [llength $to]} {
        set_max_delay -datapath_only -from $from -to $to [rnic_min_period [lindex $from 0] [lindex $to 0]]
    }
    # the other side's reset, a level into rnic_cdc_sync
    foreach sync {m_rst_sync_inst s_rst_sync_inst} {
        set to [get_cells -quiet "$fifo/$sync/meta_reg_reg[*]"]
        if {[llength $to] == 0} { set to [get_cells -quiet "$fifo/$sync/meta_reg_reg"] }
        if {[llength $to]} { set_false_path -to $to }
    }
}

# rnic_cdc_sync used alone (the pause request, the status levels)
foreach sync [get_cells -quiet -hier -filter {REF_NAME == rnic_cdc_sync || ORIG_REF_NAME == rnic_cdc_sync}] {
    if {[string match "*_ptr_sync_inst" $sync]} { continue }
    set to [get_cells -quiet -regexp "$sync/meta_reg_reg(\\\[\\d+\\\])?"]
    if {[llength $to]} { set_false_path -to $to }
}

# rnic_reset_sync: the asynchronous preset of the chain
foreach rs [get_cells -quiet -hier -filter {REF_NAME == rnic_reset_sync || ORIG_REF_NAME == rnic_reset_sync}] {
    set pins [get_pins -quiet -of_objects [get_cells -quiet "$rs/rst_sync_reg_reg[*]"] -filter {REF_PIN_NAME == PRE}]
    if {[llength $pins]} { set_false_path -to $pins }
}
