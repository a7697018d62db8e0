rtl/rnic_pkg.sv
rtl/rnic_ram_1w1r.sv
rtl/rnic_mr_check.sv
rtl/axis_keep_run.sv
rtl/axis_packer.sv
rtl/axis_cutter.sv
rtl/rnic_rd_place.sv
rtl/axis_fifo.sv
