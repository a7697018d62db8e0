rtl/rnic_pkg.sv
rtl/rnic_pay_src.sv
