# make hw-report: rnic_core on FPGA fabric (hw/report.py; docs/hw.md).
# HW_RUNS=name,name limits it to some of hw/runs.json's runs.
.PHONY: hw-report
hw-report: deps
	python3 $(ROOT)/hw/report.py $(if $(HW_RUNS),--only $(HW_RUNS))
