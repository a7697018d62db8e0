# RTL lint (verilator, iverilog; scripts/lint.sh) and synthesis (yosys;
# scripts/synth.sh) and the table check (hw/table_check.py: every 256+ entry
# table in block RAM with one write port, at the default sizes).
lint: deps
	bash $(ROOT)/scripts/lint.sh
	bash $(ROOT)/scripts/synth.sh --full
	python3 $(ROOT)/hw/table_check.py
