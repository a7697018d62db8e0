rtl/rnic_pkg.sv
rtl/axis_keep_run.sv
rtl/axis_packer.sv
rtl/dma_wr.sv
rtl/axis_fifo.sv
rtl/dma_rd.sv
rtl/axi_wr_mux.sv
rtl/axi_rd_mux.sv
