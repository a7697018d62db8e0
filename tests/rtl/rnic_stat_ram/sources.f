rtl/rnic_stat_ram.sv
