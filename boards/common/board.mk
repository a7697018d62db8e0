# Included by boards/<board>/Makefile after BOARD, and for `make flash`,
# FLASH_TOOL (openfpgaloader or vivado), FLASH_PART (the configuration
# flash as Vivado names it) and OFL_CABLE (openFPGALoader's cable).
#
#   make bitstream   Vivado in batch mode: boards/$(BOARD)/build.tcl; the
#                    bitstream, flash image, checkpoints and the utilization
#                    and timing reports in build/boards/$(BOARD)/
#   make flash       load the bitstream into the FPGA; PERSIST=1 writes the
#                    configuration flash instead (loaded at every power-up)
#
# Options: RNIC_PCI_VENDOR_ID=xxxx RNIC_PCI_DEVICE_ID=xxxx (other PCI IDs
# than docs/formats.toml's; the host then needs RNIC_PCI_ID=xxxx:xxxx),
# RNIC_JOBS=N.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
OUT := $(ROOT)/build/boards/$(BOARD)
TOP := rnic_$(BOARD)
BIT := $(OUT)/$(TOP).bit
MCS := $(OUT)/$(TOP).mcs
VIVADO ?= vivado
OPENFPGALOADER ?= openFPGALoader

.PHONY: bitstream flash
.DEFAULT_GOAL := bitstream

bitstream:
	@command -v $(VIVADO) >/dev/null 2>&1 || { echo "make bitstream BOARD=$(BOARD): '$(VIVADO)' is not on PATH: install AMD Vivado (with the $(BOARD) part) and source its settings64.sh"; exit 1; }
	$(MAKE) -C $(ROOT) firmware
	@mkdir -p $(OUT)
	cd $(OUT) && RNIC_ROOT=$(ROOT) RNIC_BUILD_DIR=$(OUT) RNIC_FW_HEX=$(ROOT)/build/firmware/rnic_fw.hex \
		RNIC_PICORV32=$$(bash $(ROOT)/scripts/picorv32-path.sh) \
		RNIC_PCI_VENDOR_ID=$(RNIC_PCI_VENDOR_ID) RNIC_PCI_DEVICE_ID=$(RNIC_PCI_DEVICE_ID) RNIC_JOBS=$(RNIC_JOBS) \
		$(VIVADO) -mode batch -nojournal -log $(OUT)/vivado.log -source $(ROOT)/boards/$(BOARD)/build.tcl
	@echo "bitstream: $(BIT); reports: $(OUT)/utilization.rpt $(OUT)/timing_summary.rpt"

# The FPGA (volatile) with openFPGALoader where Debian's supports the
# board's FPGA and cable, else, and for the configuration flash, Vivado's
# hardware manager in batch mode.
ifeq ($(PERSIST),1)
flash:
	@command -v $(VIVADO) >/dev/null 2>&1 || { echo "make flash BOARD=$(BOARD) PERSIST=1: '$(VIVADO)' is not on PATH: the configuration flash is written through Vivado's hardware manager (install Vivado Lab Edition or Vivado and source its settings64.sh)"; exit 1; }
	@[ -f $(MCS) ] || { echo "make flash BOARD=$(BOARD) PERSIST=1: $(MCS) does not exist: make bitstream BOARD=$(BOARD) first"; exit 1; }
	$(VIVADO) -mode batch -nojournal -log $(OUT)/flash.log -source $(ROOT)/boards/common/flash.tcl -tclargs $(BIT) $(MCS) $(FLASH_PART)
else ifeq ($(FLASH_TOOL),openfpgaloader)
flash:
	@command -v $(OPENFPGALOADER) >/dev/null 2>&1 || { echo "make flash BOARD=$(BOARD): '$(OPENFPGALOADER)' is not on PATH: apt-get install openfpgaloader (or make deps)"; exit 1; }
	@[ -f $(BIT) ] || { echo "make flash BOARD=$(BOARD): $(BIT) does not exist: make bitstream BOARD=$(BOARD) first"; exit 1; }
	$(OPENFPGALOADER) -c $(OFL_CABLE) $(BIT)
else
flash:
	@command -v $(VIVADO) >/dev/null 2>&1 || { echo "make flash BOARD=$(BOARD): '$(VIVADO)' is not on PATH: this board is programmed through Vivado's hardware manager (install Vivado Lab Edition or Vivado and source its settings64.sh)"; exit 1; }
	@[ -f $(BIT) ] || { echo "make flash BOARD=$(BOARD): $(BIT) does not exist: make bitstream BOARD=$(BOARD) first"; exit 1; }
	$(VIVADO) -mode batch -nojournal -log $(OUT)/flash.log -source $(ROOT)/boards/common/flash.tcl -tclargs $(BIT)
endif
