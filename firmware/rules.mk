# Firmware of the NIC's control processor (PicoRV32, RV32IM), and its native
# unit tests.
#
#   make firmware        build/firmware/rnic_fw.elf, .bin, .hex ($readmemh:
#                        one 32-bit little-endian word per line, FW_RAM_BYTES/4
#                        lines); prints text/data/bss and fails when the image
#                        exceeds FW_IMAGE_MAX_BYTES or image + bss + stack
#                        exceed FW_RAM_BYTES
#   make firmware-tests  build/firmware/tests/test_*: core/ compiled natively
#                        with hal/mock_mmio.c, ASan/UBSan
#
# The memory map comes from host/include/rnic/rnic_hw.h (docs/formats.toml);
# FW_IMAGE_BUDGET and FW_RAM_BUDGET override its figures (the build test uses
# them to check that an over-budget image fails the build). FW_DEFS sizes the
# firmware's tables for a core built with smaller ones (for example
# "-DFW_MAX_QPS=16 -DFW_MAX_MRS=16", core/fw.h), with FW_BUILD elsewhere;
# `make hw-report` builds the ECP5 run's firmware so (hw/runs.json).

FW_DIR := $(ROOT)/firmware
FW_BUILD ?= $(BUILD)/firmware
FW_CROSS ?= riscv64-unknown-elf-
FW_CC := $(FW_CROSS)gcc
FW_OBJCOPY := $(FW_CROSS)objcopy
FW_SIZE := $(FW_CROSS)size
FW_ARCH := -march=rv32im -mabi=ilp32
FW_INC := -I$(FW_DIR) -I$(ROOT)/host/include
FW_CFLAGS := $(FW_ARCH) -ffreestanding -nostdlib -O2 -std=c11 -Wall -Wextra -Werror \
	-ffunction-sections -fdata-sections -MMD -MP $(FW_INC) $(FW_DEFS)

# A constant of the generated header, as the C preprocessor sees it.
fw_const = $(shell echo RNIC_$(1) | \
	$(CC) -E -P -include rnic/rnic_hw.h -I$(ROOT)/host/include -x c - | tail -n 1)
FW_IMAGE_BUDGET = $(call fw_const,FW_IMAGE_MAX_BYTES)
FW_RAM_BUDGET = $(call fw_const,FW_RAM_BYTES)

FW_SRCS := $(FW_DIR)/start.S $(FW_DIR)/main.c $(wildcard $(FW_DIR)/core/*.c) $(FW_DIR)/lib/mem.c
FW_OBJS := $(patsubst $(FW_DIR)/%,$(FW_BUILD)/obj/%.o,$(FW_SRCS))
FW_ELF := $(FW_BUILD)/rnic_fw.elf
FW_BIN := $(FW_BUILD)/rnic_fw.bin
FW_HEX := $(FW_BUILD)/rnic_fw.hex

.PHONY: firmware firmware-tests
firmware: $(FW_HEX) $(FW_BIN)
	@bash $(FW_DIR)/size.sh $(FW_SIZE) $(FW_ELF) $(FW_IMAGE_BUDGET) $(FW_RAM_BUDGET) \
		$(call fw_const,FW_STACK_BYTES)

$(FW_BUILD)/obj/%.c.o: $(FW_DIR)/%.c $(FW_DIR)/rules.mk
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -c $< -o $@

$(FW_BUILD)/obj/%.S.o: $(FW_DIR)/%.S $(FW_DIR)/rules.mk
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -c $< -o $@

$(FW_ELF): $(FW_OBJS) $(FW_DIR)/link.ld $(ROOT)/host/include/rnic/rnic_hw.h
	$(FW_CC) $(FW_ARCH) -nostdlib -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,-T,$(FW_DIR)/link.ld \
		-Wl,--defsym=FW_RAM_BASE=$(call fw_const,FW_RAM_BASE) \
		-Wl,--defsym=FW_RAM_BYTES=$(FW_RAM_BUDGET) \
		-Wl,--defsym=FW_STACK_BYTES=$(call fw_const,FW_STACK_BYTES) \
		-Wl,--defsym=FW_IMAGE_MAX_BYTES=$(FW_IMAGE_BUDGET) \
		-Wl,--defsym=FW_RESET_PC=$(call fw_const,FW_RESET_PC) \
		-Wl,-Map,$(FW_BUILD)/rnic_fw.map $(FW_OBJS) -lgcc -o $@

$(FW_BIN): $(FW_ELF)
	$(FW_OBJCOPY) -O binary $< $@

$(FW_HEX): $(FW_BIN) $(FW_DIR)/makehex.py
	python3 $(FW_DIR)/makehex.py $< $$(($(FW_RAM_BUDGET) / 4)) > $@.tmp && mv $@.tmp $@

# ---------------------------------------------------------------- native tests

FW_TEST_DIR := $(ROOT)/tests/firmware
FW_TEST_BUILD := $(FW_BUILD)/tests
FW_NATIVE_CFLAGS := $(CFLAGS_COMMON) $(SAN) -DFW_MOCK_MMIO -I$(FW_DIR) -I$(FW_TEST_DIR)
FW_NATIVE_SRCS := $(wildcard $(FW_DIR)/core/*.c) $(FW_DIR)/hal/mock_mmio.c $(FW_TEST_DIR)/fw_test.c
FW_NATIVE_OBJS := $(patsubst $(ROOT)/%.c,$(FW_BUILD)/native/%.o,$(FW_NATIVE_SRCS))
FW_TEST_SRCS := $(wildcard $(FW_TEST_DIR)/test_*.c)
FW_TEST_BINS := $(patsubst $(FW_TEST_DIR)/%.c,$(FW_TEST_BUILD)/%,$(FW_TEST_SRCS))

firmware-tests: $(FW_TEST_BINS)

$(FW_BUILD)/native/%.o: $(ROOT)/%.c
	@mkdir -p $(@D)
	$(CC) $(FW_NATIVE_CFLAGS) -c $< -o $@

$(FW_TEST_BUILD)/%: $(FW_BUILD)/native/tests/firmware/%.o $(FW_NATIVE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $^ -o $@

-include $(shell find $(FW_BUILD) -name '*.d' 2>/dev/null)

TEST_BUILD_DEPS += $(FW_HEX) $(FW_TEST_BINS)
