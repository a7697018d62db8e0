rtl/dma_burst_plan.sv
