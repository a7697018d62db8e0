rtl/rnic_popcount.sv
