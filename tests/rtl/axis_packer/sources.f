rtl/axis_keep_run.sv
rtl/axis_packer.sv
