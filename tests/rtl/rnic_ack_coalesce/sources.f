rtl/rnic_pkg.sv
rtl/rnic_ack_coalesce.sv
