rtl/rnic_pkg.sv
rtl/rnic_icrc_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/axis_keep_run.sv
rtl/axis_packer.sv
rtl/rnic_icrc.sv
rtl/rnic_icrc_insert.sv
rtl/rnic_pkt_tx.sv
