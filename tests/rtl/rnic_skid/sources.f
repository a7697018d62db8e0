rtl/rnic_skid.sv
rtl/rnic_half_slice.sv
