rtl/rnic_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/rnic_ud_txdone.sv
