rtl/rnic_pkg.sv
rtl/rnic_ram_1w1r.sv
rtl/rnic_axi_xlate_chan.sv
rtl/rnic_axi_xlate.sv
