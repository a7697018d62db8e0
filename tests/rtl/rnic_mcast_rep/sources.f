rtl/rnic_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/rnic_ram_1w1r.sv
rtl/rnic_mcast_rep.sv
