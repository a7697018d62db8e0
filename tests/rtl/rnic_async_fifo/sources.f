rtl/rnic_cdc_sync.sv
rtl/rnic_axis_async_fifo.sv
rtl/rnic_reset_sync.sv
