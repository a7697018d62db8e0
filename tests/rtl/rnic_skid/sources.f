rtl/rnic_skid.sv
