# RTL lint (verilator, iverilog; scripts/lint.sh) and synthesis (yosys;
# scripts/synth.sh) and the RAM check of the per-QP tables (scripts/ramcheck.py).
lint: deps
	bash $(ROOT)/scripts/lint.sh
	bash $(ROOT)/scripts/synth.sh --full
	python3 $(ROOT)/scripts/ramcheck.py
