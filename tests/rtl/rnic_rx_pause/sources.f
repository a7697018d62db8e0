rtl/rnic_rx_pause.sv
