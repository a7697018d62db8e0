rtl/rnic_pkg.sv
rtl/rnic_mr_check.sv
