rtl/rnic_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/rnic_hdr_pack.sv
rtl/rnic_hdr_unpack.sv
