# RTL lint (verilator, iverilog, yosys); see scripts/lint.sh.
lint: deps
	bash $(ROOT)/scripts/lint.sh
