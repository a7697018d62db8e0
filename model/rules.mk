# C reference model of the RC transport (model/README.md).
#
#   make model-tests   build/model/test_codec, test_qp, test_qp_errors,
#                      test_scoreboard: the model alone (ASan/UBSan, no simulator)
#   make model-peer    build/model/peer_write: the RTL NIC (simulator, host
#                      library) against the model as a software peer (rc_peer)
#   make model-tools   build/model/rc-scoreboard: checks captures against the
#                      model (rc_scoreboard)
#
# The model's sources are freestanding C11: rc_codec (frames), rc_qp (QP state
# machines), rc_link (lossy in-memory link of the tests). They are compiled
# with $(SAN) into build/model/librc_model-san.a.

MODEL_DIR := $(ROOT)/model
MODEL_BUILD := $(BUILD)/model
MODEL_CFLAGS := $(CFLAGS_COMMON) $(SAN) -I$(MODEL_DIR) -I$(ROOT)/tests/model -I$(ROOT)/sim/include
MODEL_CORE := rc_codec rc_qp rc_link
MODEL_OBJS := $(patsubst %,$(MODEL_BUILD)/obj/%.o,$(MODEL_CORE))
MODEL_LIB := $(MODEL_BUILD)/librc_model-san.a

MODEL_TESTS := test_codec test_qp test_qp_errors test_scoreboard
MODEL_TEST_BINS := $(patsubst %,$(MODEL_BUILD)/%,$(MODEL_TESTS))

.PHONY: model-lib model-tests model-peer model-tools

$(MODEL_BUILD)/obj/%.o: $(MODEL_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) -c $< -o $@

$(MODEL_LIB): $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(MODEL_TEST_BINS): $(MODEL_BUILD)/%: $(ROOT)/tests/model/%.c $(MODEL_BUILD)/obj/rc_scoreboard.o $(MODEL_LIB)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) $< $(MODEL_BUILD)/obj/rc_scoreboard.o $(MODEL_LIB) -lpcap -o $@

# The peer links the simulator (the Verilator models of the RTL): built by its
# own test entry, not by test-build, so an unfinished core fails one test.
MODEL_PEER_BIN := $(MODEL_BUILD)/peer_write
$(MODEL_PEER_BIN): $(ROOT)/tests/model/peer_write.c $(MODEL_BUILD)/obj/rc_peer.o $(MODEL_LIB) \
		$(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) $< $(MODEL_BUILD)/obj/rc_peer.o $(MODEL_LIB) $(HOST_SAN_LIB) $(SIM_SAN_LIB) \
		$(SIM_LDLIBS) -o $@

MODEL_SB_BIN := $(MODEL_BUILD)/rc-scoreboard
$(MODEL_SB_BIN): $(MODEL_DIR)/rc_scoreboard_main.c $(MODEL_BUILD)/obj/rc_scoreboard.o $(MODEL_LIB)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) $< $(MODEL_BUILD)/obj/rc_scoreboard.o $(MODEL_LIB) -lpcap -o $@

model-lib: $(MODEL_LIB)
model-tests: $(MODEL_TEST_BINS)
model-peer: $(MODEL_PEER_BIN)
model-tools: $(MODEL_SB_BIN)

-include $(MODEL_OBJS:.o=.d) $(MODEL_TEST_BINS:=.d) $(MODEL_BUILD)/obj/rc_peer.d $(MODEL_PEER_BIN).d
-include $(MODEL_BUILD)/obj/rc_scoreboard.d $(MODEL_SB_BIN).d

TEST_BUILD_DEPS += $(MODEL_TEST_BINS) $(MODEL_SB_BIN) $(MODEL_PEER_BIN)
