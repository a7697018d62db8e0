boards/sim/rnic_sim_queue.sv
boards/sim/rnic_sim_delay.sv
