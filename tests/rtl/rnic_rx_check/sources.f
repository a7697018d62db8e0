rtl/rnic_pkg.sv
rtl/rnic_icrc_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/rnic_icrc.sv
rtl/axis_keep_run.sv
rtl/rnic_rx_check.sv
