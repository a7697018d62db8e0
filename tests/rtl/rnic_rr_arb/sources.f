rtl/rnic_rr_arb.sv
