# RTL lint (verilator, iverilog; scripts/lint.sh) and synthesis (yosys;
# scripts/synth.sh).
lint: deps
	bash $(ROOT)/scripts/lint.sh
	bash $(ROOT)/scripts/synth.sh
