rtl/rnic_req_hdrq.sv
