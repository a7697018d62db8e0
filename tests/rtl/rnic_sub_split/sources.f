rtl/rnic_sub_split.sv
