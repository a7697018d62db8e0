rtl/rnic_pkg.sv
rtl/rnic_icrc_pkg.sv
rtl/rnic_icrc.sv
rtl/rnic_icrc_insert.sv
