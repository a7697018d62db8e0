rtl/rnic_pkg.sv
rtl/rnic_hdr_pkg.sv
rtl/rnic_mr_check.sv
rtl/rnic_mr_check_pipe.sv
rtl/rnic_rd_resp.sv
rtl/rnic_popcount.sv
rtl/rnic_hdr_pack.sv
rtl/rnic_hdr_unpack.sv
