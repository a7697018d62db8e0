rtl/rnic_ram_1w1r.sv
rtl/rnic_cwnd.sv
