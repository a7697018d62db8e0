# The memory-protection checker's test and the fuzzers (docs/memcheck.md).
#
#   build/bin/rnic-memcheck-test  planted bad DMAs must be reported by the
#                                 simulator's checker (ASan/UBSan)
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
