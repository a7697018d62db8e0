rtl/rnic_ram_1w1r.sv
