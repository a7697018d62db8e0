rtl/rnic_updown.sv
