rtl/rnic_pkg.sv
rtl/rnic_gates_pkg.sv
rtl/rnic_rwqe_cache.sv
