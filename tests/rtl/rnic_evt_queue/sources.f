rtl/rnic_pkg.sv
rtl/rnic_evt_queue.sv
