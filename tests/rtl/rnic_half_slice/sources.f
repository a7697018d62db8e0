rtl/rnic_half_slice.sv
