rtl/axis_fifo.sv
