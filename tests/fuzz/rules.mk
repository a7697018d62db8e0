# The memory-protection checker's test and the fuzzers (docs/memcheck.md).
#
#   build/bin/rnic-memcheck-test  planted bad DMAs must be reported by the
#                                 simulator's checker (ASan/UBSan)
#   build/bin/rnic-fuzz-rx        the receive-path fuzzer (ASan/UBSan)
#   build/fuzz/fuzz-cmd-native    the firmware command fuzzer against
#                                 firmware/core and the mock registers
#   build/bin/rnic-fuzz-cmd       the same through the simulated mailbox
#   make fuzz                     the long runs (scripts/fuzz.sh)
#
# They link the reference model's codec (frames with a valid ICRC), the
# simulator and e2e_common (results, options).

FUZZ_DIR := $(ROOT)/tests/fuzz
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_CFLAGS := $(TOOLS_CFLAGS) $(SAN) -I$(FUZZ_DIR) -I$(ROOT)/tests/e2e -I$(MODEL_DIR)
MEMCHECK_TEST_BIN := $(BUILD)/bin/rnic-memcheck-test
FUZZ_E2E_OBJS := $(FUZZ_BUILD)/obj/fz_common.o $(TOOLS_BUILD)/obj-san/e2e_common.o \
	$(TOOLS_BUILD)/obj-san/sim_pair.o
FUZZ_SIM_LIBS := $(MODEL_LIB) $(HOST_SAN_LIB) $(SIM_SAN_LIB)

$(FUZZ_BUILD)/obj/%.o: $(FUZZ_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CFLAGS) -c $< -o $@

$(MEMCHECK_TEST_BIN): $(FUZZ_BUILD)/obj/memcheck_test.o $(FUZZ_E2E_OBJS) $(FUZZ_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(FUZZ_SIM_LIBS) $(SIM_LDLIBS) -o $@

.PHONY: rnic-memcheck-test
rnic-memcheck-test: $(MEMCHECK_TEST_BIN)

-include $(wildcard $(FUZZ_BUILD)/obj/*.d)

TEST_BUILD_DEPS += $(MEMCHECK_TEST_BIN)

# The receive-path fuzzer: build/bin/rnic-fuzz-rx (ASan/UBSan on our C code)
FUZZ_RX_BIN := $(BUILD)/bin/rnic-fuzz-rx
$(FUZZ_RX_BIN): $(FUZZ_BUILD)/obj/fuzz_rx.o $(FUZZ_BUILD)/obj/fz_common.o $(FUZZ_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(FUZZ_SIM_LIBS) $(SIM_LDLIBS) -lpcap -o $@

.PHONY: rnic-fuzz-rx
rnic-fuzz-rx: $(FUZZ_RX_BIN)
TEST_BUILD_DEPS += $(FUZZ_RX_BIN)

# The firmware command fuzzer, twice: natively against firmware/core and the
# mock register file (build/fuzz/fuzz-cmd-native, ASan/UBSan), and through
# the BAR mailbox of the simulated control processor (build/bin/rnic-fuzz-cmd)
FUZZ_CMD_NATIVE_BIN := $(FUZZ_BUILD)/fuzz-cmd-native
FUZZ_CMD_BIN := $(BUILD)/bin/rnic-fuzz-cmd
FUZZ_FW_CORE_OBJS := $(filter-out %/fw_test.o,$(FW_NATIVE_OBJS))

$(FUZZ_BUILD)/native/fuzz_cmd.o: $(FUZZ_DIR)/fuzz_cmd.c
	@mkdir -p $(@D)
	$(CC) $(FW_NATIVE_CFLAGS) -DFZ_NATIVE -c $< -o $@

$(FUZZ_CMD_NATIVE_BIN): $(FUZZ_BUILD)/native/fuzz_cmd.o $(FUZZ_FW_CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $^ -o $@

$(FUZZ_BUILD)/obj/fuzz_cmd_sim.o: $(FUZZ_DIR)/fuzz_cmd.c
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CFLAGS) -DFZ_SIM -c $< -o $@

$(FUZZ_CMD_BIN): $(FUZZ_BUILD)/obj/fuzz_cmd_sim.o $(FUZZ_BUILD)/obj/fz_common.o $(FUZZ_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(FUZZ_SIM_LIBS) $(SIM_LDLIBS) -o $@

.PHONY: fuzz-cmd-native rnic-fuzz-cmd
fuzz-cmd-native: $(FUZZ_CMD_NATIVE_BIN)
rnic-fuzz-cmd: $(FUZZ_CMD_BIN)
-include $(wildcard $(FUZZ_BUILD)/native/*.d)
TEST_BUILD_DEPS += $(FUZZ_CMD_NATIVE_BIN) $(FUZZ_CMD_BIN)


# make fuzz: the long runs (scripts/fuzz.sh; FUZZ_FRAMES, FUZZ_JOBS, FUZZ_SEED,
# FUZZ_CMDS, FUZZ_SIM_CMDS)
fuzz: deps
	$(MAKE) -C $(ROOT) $(FUZZ_RX_BIN) $(FUZZ_CMD_NATIVE_BIN) $(FUZZ_CMD_BIN)
	bash $(ROOT)/scripts/fuzz.sh

# Regression of the QP-reset bug the fuzzer found (docs/memcheck.md)
QP_RESET_RACE_BIN := $(BUILD)/bin/rnic-qp-reset-race
$(QP_RESET_RACE_BIN): $(FUZZ_BUILD)/obj/qp_reset_race.o $(FUZZ_BUILD)/obj/fz_common.o $(FUZZ_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(FUZZ_SIM_LIBS) $(SIM_LDLIBS) -o $@
.PHONY: rnic-qp-reset-race
rnic-qp-reset-race: $(QP_RESET_RACE_BIN)
TEST_BUILD_DEPS += $(QP_RESET_RACE_BIN)
