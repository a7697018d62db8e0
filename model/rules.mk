# C reference model of the RC transport (model/README.md).
#
#   make model-tests   build/model/test_codec, test_qp, test_qp_errors: the model
#                      alone (ASan/UBSan, no simulator)
#
# The model's sources are freestanding C11: rc_codec (frames), rc_qp (QP state
# machines), rc_link (lossy in-memory link of the tests). They are compiled
# with $(SAN) into build/model/librc_model-san.a.

MODEL_DIR := $(ROOT)/model
MODEL_BUILD := $(BUILD)/model
MODEL_CFLAGS := $(CFLAGS_COMMON) $(SAN) -I$(MODEL_DIR) -I$(ROOT)/tests/model
MODEL_CORE := rc_codec rc_qp rc_link
MODEL_OBJS := $(patsubst %,$(MODEL_BUILD)/obj/%.o,$(MODEL_CORE))
MODEL_LIB := $(MODEL_BUILD)/librc_model-san.a

MODEL_TESTS := test_codec test_qp test_qp_errors
MODEL_TEST_BINS := $(patsubst %,$(MODEL_BUILD)/%,$(MODEL_TESTS))

.PHONY: model-lib model-tests

$(MODEL_BUILD)/obj/%.o: $(MODEL_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) -c $< -o $@

$(MODEL_LIB): $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(MODEL_TEST_BINS): $(MODEL_BUILD)/%: $(ROOT)/tests/model/%.c $(MODEL_LIB)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) $< $(MODEL_LIB) -lpcap -o $@

model-lib: $(MODEL_LIB)
model-tests: $(MODEL_TEST_BINS)

-include $(MODEL_OBJS:.o=.d) $(MODEL_TEST_BINS:=.d)

TEST_BUILD_DEPS += $(MODEL_TEST_BINS)
