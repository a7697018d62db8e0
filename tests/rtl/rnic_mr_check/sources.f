rtl/rnic_pkg.sv
rtl/rnic_mr_check.sv
rtl/rnic_mr_check_pipe.sv
