rtl/rnic_add_split.sv
