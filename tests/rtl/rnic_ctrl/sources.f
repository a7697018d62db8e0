rtl/rnic_pkg.sv
rtl/rnic_gates_pkg.sv
rtl/rnic_regs.sv
rtl/rnic_stat_ram.sv
rtl/rnic_ctrl.sv
@picorv32
