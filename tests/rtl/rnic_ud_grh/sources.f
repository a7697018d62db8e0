rtl/rnic_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/axis_keep_run.sv
rtl/axis_packer.sv
rtl/rnic_ud_grh.sv
