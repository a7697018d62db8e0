# OpenRNIC top-level build. `make help` lists the targets.
#
# Each directory adds its own rules in <dir>/rules.mk; tests register
# themselves in tests/list.d/*.list (one "name | command" per line) and
# scripts/run-tests.sh runs them all with a closing "N passed, N failed" line.

SHELL := /bin/bash
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(ROOT)/build
JOBS ?= $(shell nproc)

# Compiler settings shared by host/, sim/ and the native firmware build.
CC ?= cc
CXX ?= c++
CWARN := -Wall -Wextra -Werror
CSTD := -std=c11
SAN ?= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_COMMON := $(CSTD) $(CWARN) -O2 -g -MMD -MP -I$(ROOT)/host/include

.PHONY: all help deps formats formats-check lint sim test bench soak fuzz clean interop fresh-check hw-report
.DEFAULT_GOAL := help

help:
	@echo "OpenRNIC make targets"
	@echo "  make sim      install missing deps, build everything, run the two-NIC demo"
	@echo "  make test     install missing deps, run every test, JOBS at a time (closing line: N passed, N failed);"
	@echo "               TESTS='a b' runs only the tests whose name contains a or b"
	@echo "  make test-long  make test plus the full forms and the [long] tests (both widths of every e2e program, boards, interop/quick): over an hour"
	@echo "  make fresh-check  a bare Debian 12 root (debootstrap): clone, make sim, a slice of make test there"
	@echo "  make lint     verilator -Wall, iverilog -g2012 and yosys synth on rtl/"
	@echo "  make hw-report  yosys synth_xilinx (UltraScale+) and synth_ecp5 + nextpnr of the core: resources, logic levels, fmax; docs/hw.md"
	@echo "  make bench    WRITE/READ/SEND goodput, message rate, loss, latency; build/bench/results.json"
	@echo "  make soak     two NICs, every RC operation on 3 QP pairs, 1 GiB over a faulty link (SOAK_ARGS=...)"
	@echo "  make interop  Linux rdma_rxe in QEMU against the simulated NIC: perftest matrix (docs/interop.md)"
	@echo "  make fuzz     10^7 fuzzed frames into the receive path, firmware command fuzzing (hours; docs/memcheck.md)"
	@echo "  make install  librnic (static, shared), headers, rnic-info, rnic-perf, rnic-rping, rnic.pc under PREFIX (/usr/local)"
	@echo "  make firmware build the control processor firmware (build/firmware/rnic_fw.hex), check its size"
	@echo "  make formats  regenerate rtl/rnic_pkg.sv, rtl/rnic_icrc_pkg.sv, host/include/rnic/rnic_hw.h, docs/regs.md, boards/common/rnic_formats.tcl"
	@echo "  make bitstream BOARD=au250|kcu105  Vivado in batch mode: the board's bitstream and reports in build/boards/BOARD"
	@echo "  make flash BOARD=au250|kcu105 [PERSIST=1]  program the FPGA (PERSIST=1: its configuration flash)"
	@echo "  make deps     install missing Debian and pinned Python packages"
	@echo "  make clean    remove build/"

deps:
	@bash $(ROOT)/scripts/install-deps.sh

formats:
	python3 $(ROOT)/scripts/genformats.py

formats-check:
	python3 $(ROOT)/scripts/genformats.py --check

clean:
	rm -rf $(BUILD)

-include $(ROOT)/rtl/rules.mk
-include $(ROOT)/sim/rules.mk
-include $(ROOT)/host/rules.mk
-include $(ROOT)/firmware/rules.mk
-include $(ROOT)/tests/rules.mk
-include $(ROOT)/model/rules.mk
-include $(ROOT)/interop/rules.mk
-include $(ROOT)/hw/rules.mk
-include $(ROOT)/tests/fuzz/rules.mk

# `make test` builds what the registered tests need, then runs them, JOBS
# (the number of CPUs) at a time each: the quick forms (QUICK=--quick, no
# "[long]" test). `make test-long` runs the full forms and the long tests.
# The closing wall time counts from the start of the dependency check.
define run_tests
	start=$$(date +%s) && bash $(ROOT)/scripts/install-deps.sh && \
	$(MAKE) -j$(JOBS) -C $(ROOT) test-build && \
	RUN_START=$$start TEST_LONG=$(1) TEST_JOBS=$(JOBS) bash $(ROOT)/scripts/run-tests.sh $(TESTS)
endef
.PHONY: test-long
test:
	$(call run_tests,0)
test-long:
	$(call run_tests,1)

# A bare Debian 12 root (debootstrap), this repository's HEAD cloned into it,
# `make sim` and a slice of `make test` there: the dependency list is complete.
.PHONY: fresh-check
fresh-check:
	bash $(ROOT)/scripts/fresh-check.sh

.PHONY: test-build
test-build: $(TEST_BUILD_DEPS)

# FPGA boards (boards/<board>/Makefile; docs/boards.md, docs/bringup.md)
BOARDS := au250 kcu105
.PHONY: bitstream flash
bitstream flash:
	@case " $(BOARDS) " in *" $(BOARD) "*) ;; *) echo "make $@: BOARD=au250 or BOARD=kcu105 (got '$(BOARD)')"; exit 2 ;; esac
	@$(MAKE) --no-print-directory -C $(ROOT)/boards/$(BOARD) $@
