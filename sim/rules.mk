# Simulator: the Verilator models of rnic_core and the C harness around them.
#
#   make sim-models    Verilate and compile rnic_core at DATA_WIDTH 64 and 512
#                      (build/sim/obj_w64, build/sim/obj_w512)
#   make sim-lib       build/sim/librnic_sim.a: harness + shim + both models +
#                      the Verilator runtime (and librnic_sim-san.a, the same
#                      with the harness built with $(SAN))
#   make rnic-sim      build/bin/rnic-sim
#   make sim-probe     the receive-path probe of rnic-sim --frames-json
#                      (sim/replay/rnic_rx_probe.sv) at 64 and 512 bits
#                      (build/sim/replay/obj_w64, build/sim/replay/obj_w512)
#   make sim-unit-tests  build/sim/tests/test_*: the C models alone, no
#                      Verilator, plus test_world against a small test-only
#                      core (tests/sim/dut/rnic_core.sv, same ports)
#
# A program using the simulator links $(SIM_LIB) (or $(SIM_SAN_LIB)) and
# $(SIM_LDLIBS), with the C compiler:
#   $(CC) prog.o $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) -o prog
#
# Verilator gets absolute source paths (5.006 fails on relative ones with a
# nested --Mdir); a model is re-verilated when a file listed in its
# Verilator-generated __ver.d changes (or a new rtl/*.sv appears).

SIM_DIR := $(ROOT)/sim
SIM_BUILD := $(BUILD)/sim
SIM_LIB := $(SIM_BUILD)/librnic_sim.a
SIM_SAN_LIB := $(SIM_BUILD)/librnic_sim-san.a
SIM_LDLIBS := -lpcap -lz -lpthread -lstdc++ -lm
RNIC_SIM_BIN := $(BUILD)/bin/rnic-sim

VERILATOR ?= verilator
SIM_VL_ROOT := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
SIM_VFLAGS := --cc -Wall --assert --x-assign unique --x-initial unique --trace-fst
SIM_VL_MAKEFLAGS := OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2
SIM_VL_CXXFLAGS := -I$(SIM_VL_ROOT)/include -I$(SIM_VL_ROOT)/include/vltstd \
	-DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 \
	-faligned-new -O2 -g -MMD -MP
SIM_VL_RT := verilated verilated_fst_c verilated_threads
SIM_VL_RT_OBJS := $(patsubst %,$(SIM_BUILD)/vlrt/%.o,$(SIM_VL_RT))

# rnic_core sources, in the order the lint uses: waivers, packages, the rest
SIM_RTL_PKGS := $(ROOT)/rtl/rnic_pkg.sv $(ROOT)/rtl/rnic_hdr_pkg.sv $(ROOT)/rtl/rnic_icrc_pkg.sv $(ROOT)/rtl/rnic_gates_pkg.sv
# the control processor's core comes from the pinned pythondata-cpu-picorv32
# package (scripts/picorv32-path.sh), not from the tree
PICORV32_V := $(shell bash $(ROOT)/scripts/picorv32-path.sh 2>/dev/null)
SIM_RTL_SRCS := $(ROOT)/rtl/lint.vlt $(SIM_RTL_PKGS) \
	$(filter-out $(SIM_RTL_PKGS),$(sort $(wildcard $(ROOT)/rtl/*.sv))) $(PICORV32_V)
SIM_TDUT_SRCS := $(ROOT)/tests/sim/dut/rnic_core.sv

SIM_CFLAGS := $(CFLAGS_COMMON) -I$(SIM_DIR)/include -I$(SIM_DIR)
SIM_CORE_SRCS := hostmem.c bar.c link.c link_socket.c pcap_cap.c memcheck.c world.c model_opts.c
SIM_OBJS := $(patsubst %.c,$(SIM_BUILD)/obj/%.o,$(SIM_CORE_SRCS))
SIM_SAN_OBJS := $(patsubst %.c,$(SIM_BUILD)/obj-san/%.o,$(SIM_CORE_SRCS))
# the models without the world (what the unit tests link)
SIM_MODEL_SAN_OBJS := $(filter-out %/world.o,$(SIM_SAN_OBJS))

.PHONY: sim-models sim-lib rnic-sim sim-probe sim-unit-tests

$(SIM_BUILD)/obj/%.o: $(SIM_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) -c $< -o $@

$(SIM_BUILD)/obj-san/%.o: $(SIM_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) $(SAN) -c $< -o $@

$(SIM_BUILD)/vlrt/%.o: $(SIM_VL_ROOT)/include/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) -w -c $< -o $@

# $(call sim_verilate,OBJDIR,PREFIX,DATA_WIDTH,SOURCES[,FLAGS]) (DATA_WIDTH
# empty: the top has none)
# Verilate into OBJDIR (stamp), compile the model into OBJDIR/PREFIX__model.o.
# FLAGS: the top module and any more Verilator options (default: rnic_core).
define sim_verilate
$(1)/vl.stamp: $(4) $(SIM_DIR)/rules.mk
	@mkdir -p $(1)
	$(VERILATOR) $(SIM_VFLAGS) $(or $(5),--top-module rnic_core) $(if $(3),-GDATA_WIDTH=$(3)) \
		--prefix $(2) --Mdir $(1) $(4)
	@deps=$$$$(sed 's/^.*: *//' $(1)/$(2)__ver.d); \
	{ echo "$(1)/vl.stamp: $$$$deps"; for d in $$$$deps; do echo "$$$$d:"; done; } > $(1)/vl.d
	@touch $$@

# A large model compiles to several objects in __ALL.a; merge them into one
# relocatable object so the library archive holds every part. The merged
# object must not be called __ALL.o: Verilator compiles a small model into
# its own __ALL.o and archives whatever file has that name, so a merged copy
# left there would be linked twice (a tree built before the rename still has
# one, hence the rm).
$(1)/$(2)__model.o: $(1)/vl.stamp
	rm -f $(1)/$(2)__ALL.o
	+$(MAKE) -s -C $(1) -f $(2).mk $(2)__ALL.a $(SIM_VL_MAKEFLAGS)
	$(LD) -r -o $$@ --whole-archive $(1)/$(2)__ALL.a

-include $(1)/vl.d
endef

SIM_OBJ_W64 := $(SIM_BUILD)/obj_w64
SIM_OBJ_W512 := $(SIM_BUILD)/obj_w512
SIM_TDUT_W64 := $(SIM_BUILD)/tdut_w64
SIM_TDUT_W512 := $(SIM_BUILD)/tdut_w512
# The control processor boots the firmware image (firmware/rules.mk builds it
# there; $readmemh reads it when a world starts, so a new image needs no new
# model, only the file).
SIM_FW_HEX := $(BUILD)/firmware/rnic_fw.hex
SIM_CORE_VFLAGS := --top-module rnic_core -GFW_HEX='"$(SIM_FW_HEX)"'
$(eval $(call sim_verilate,$(SIM_OBJ_W64),Vrnic_core_w64,64,$(SIM_RTL_SRCS),$(SIM_CORE_VFLAGS)))
$(eval $(call sim_verilate,$(SIM_OBJ_W512),Vrnic_core_w512,512,$(SIM_RTL_SRCS),$(SIM_CORE_VFLAGS)))
$(eval $(call sim_verilate,$(SIM_TDUT_W64),Vrnic_core_w64,64,$(SIM_TDUT_SRCS)))
$(eval $(call sim_verilate,$(SIM_TDUT_W512),Vrnic_core_w512,512,$(SIM_TDUT_SRCS)))

SIM_MODEL_OBJS := $(SIM_OBJ_W64)/Vrnic_core_w64__model.o $(SIM_OBJ_W512)/Vrnic_core_w512__model.o
SIM_TDUT_OBJS := $(SIM_TDUT_W64)/Vrnic_core_w64__model.o $(SIM_TDUT_W512)/Vrnic_core_w512__model.o

# The shim, once per pair of models it is compiled against.
SIM_SHIM_FLAGS := -DRNIC_SIM_HAVE_W64=1 -DRNIC_SIM_HAVE_W512=1 -I$(SIM_DIR) \
	$(CWARN) -Wno-unused-parameter

$(SIM_BUILD)/obj/rnic_model.o: $(SIM_DIR)/rnic_model.cpp $(SIM_MODEL_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) $(SIM_SHIM_FLAGS) -I$(SIM_OBJ_W64) -I$(SIM_OBJ_W512) -c $< -o $@

$(SIM_BUILD)/tdut/rnic_model.o: $(SIM_DIR)/rnic_model.cpp $(SIM_TDUT_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) $(SIM_SHIM_FLAGS) -I$(SIM_TDUT_W64) -I$(SIM_TDUT_W512) -c $< -o $@

SIM_VL_PARTS := $(SIM_BUILD)/obj/rnic_model.o $(SIM_MODEL_OBJS) $(SIM_VL_RT_OBJS)
SIM_TDUT_PARTS := $(SIM_BUILD)/tdut/rnic_model.o $(SIM_TDUT_OBJS) $(SIM_VL_RT_OBJS)
SIM_TDUT_LIB := $(SIM_BUILD)/tdut/librnic_sim_tdut.a

$(SIM_LIB): $(SIM_OBJS) $(SIM_VL_PARTS) | $(SIM_FW_HEX)
	rm -f $@
	$(AR) rcs $@ $^

$(SIM_SAN_LIB): $(SIM_SAN_OBJS) $(SIM_VL_PARTS) | $(SIM_FW_HEX)
	rm -f $@
	$(AR) rcs $@ $^

$(SIM_TDUT_LIB): $(SIM_SAN_OBJS) $(SIM_TDUT_PARTS)
	rm -f $@
	$(AR) rcs $@ $^

# The board designs (boards/sim/rnic_board_sim.sv around the board's top,
# which boards/<board>/sim/rnic_sim_board.sv instantiates, with the models of
# its vendor IP in boards/sim/), one model per board, in a library of their
# own: only programs that simulate boards (rnic-soak-board) wait for them.
# The models reach the simulation top's ports through `RNIC_SIM_TOP; the
# bridge's AXI width and lane count, the core's width and the LEDs are the
# board's.
SIM_BOARD_BUILD := $(SIM_BUILD)/boards
SIM_BOARD_LIB := $(SIM_BOARD_BUILD)/librnic_sim_boards.a
SIM_BOARD_MODEL_SRCS := $(ROOT)/boards/sim/lint.vlt $(sort $(filter-out %/lint.vlt,$(wildcard $(ROOT)/boards/sim/*.sv)))
# Each board's top and model directory may be given on the command line:
# tests/boards/planted_miswiring.py builds a board model from an altered
# copy of a top beside the real one.
SIM_BOARD_TOP_au250 ?= $(ROOT)/boards/au250/rtl/rnic_au250.sv
SIM_BOARD_TOP_kcu105 ?= $(ROOT)/boards/kcu105/rtl/rnic_kcu105.sv
SIM_BOARD_OBJ_au250 ?= $(SIM_BOARD_BUILD)/obj_au250
SIM_BOARD_OBJ_kcu105 ?= $(SIM_BOARD_BUILD)/obj_kcu105
# $(call sim_board_srcs,BOARD)
sim_board_srcs = $(ROOT)/rtl/lint.vlt $(SIM_BOARD_MODEL_SRCS) $(filter-out $(ROOT)/rtl/lint.vlt,$(SIM_RTL_SRCS)) \
	$(SIM_BOARD_TOP_$(1)) $(ROOT)/boards/$(1)/sim/rnic_sim_board.sv
# $(call sim_board_flags,PCIE_DW,PCIE_LANES,CORE_DW,LEDS)
sim_board_flags = --top-module rnic_board_sim -GFW_HEX='"$(SIM_FW_HEX)"' +define+RNIC_SIM_TOP=rnic_board_sim \
	+define+RNIC_SIM_PCIE_DW=$(1) +define+RNIC_SIM_PCIE_LANES=$(2) +define+RNIC_SIM_CORE_DW=$(3) \
	+define+RNIC_SIM_LEDS=$(4)
$(eval $(call sim_verilate,$(SIM_BOARD_OBJ_au250),Vrnic_board_au250,,$(call sim_board_srcs,au250),$(call sim_board_flags,512,16,512,3)))
$(eval $(call sim_verilate,$(SIM_BOARD_OBJ_kcu105),Vrnic_board_kcu105,,$(call sim_board_srcs,kcu105),$(call sim_board_flags,256,8,64,4)))
SIM_BOARD_MODEL_OBJS := $(SIM_BOARD_OBJ_au250)/Vrnic_board_au250__model.o \
	$(SIM_BOARD_OBJ_kcu105)/Vrnic_board_kcu105__model.o

$(SIM_BOARD_BUILD)/rnic_model.o: $(SIM_DIR)/rnic_model.cpp $(SIM_MODEL_OBJS) $(SIM_BOARD_MODEL_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) $(SIM_SHIM_FLAGS) -DRNIC_SIM_HAVE_BOARDS=1 -I$(SIM_OBJ_W64) -I$(SIM_OBJ_W512) \
		-I$(SIM_BOARD_OBJ_au250) -I$(SIM_BOARD_OBJ_kcu105) -c $< -o $@

$(SIM_BOARD_LIB): $(SIM_OBJS) $(SIM_BOARD_BUILD)/rnic_model.o $(SIM_MODEL_OBJS) $(SIM_BOARD_MODEL_OBJS) \
		$(SIM_VL_RT_OBJS) | $(SIM_FW_HEX)
	rm -f $@
	$(AR) rcs $@ $^

.PHONY: sim-boards
sim-boards: $(SIM_BOARD_LIB)

sim-models: $(SIM_MODEL_OBJS)
sim-lib: $(SIM_LIB) $(SIM_SAN_LIB)
rnic-sim: $(RNIC_SIM_BIN)

# The receive-path probe of rnic-sim --frames-json: rnic_rx_check and
# rnic_pkt_rx as in rnic_core (Verilator finds them and what they
# instantiate in rtl/ with -y), its own small models and shim, linked into
# rnic-sim only. The test-core rnic-sim gets the shim without models.
SIM_PROBE_BUILD := $(SIM_BUILD)/replay
SIM_PROBE_SRCS := $(ROOT)/rtl/lint.vlt $(SIM_RTL_PKGS) $(SIM_DIR)/replay/rnic_rx_probe.sv
SIM_PROBE_VFLAGS := --top-module rnic_rx_probe -y $(ROOT)/rtl
SIM_PROBE_W64 := $(SIM_PROBE_BUILD)/obj_w64
SIM_PROBE_W512 := $(SIM_PROBE_BUILD)/obj_w512
$(eval $(call sim_verilate,$(SIM_PROBE_W64),Vrnic_rx_probe_w64,64,$(SIM_PROBE_SRCS),$(SIM_PROBE_VFLAGS)))
$(eval $(call sim_verilate,$(SIM_PROBE_W512),Vrnic_rx_probe_w512,512,$(SIM_PROBE_SRCS),$(SIM_PROBE_VFLAGS)))
SIM_PROBE_MODEL_OBJS := $(SIM_PROBE_W64)/Vrnic_rx_probe_w64__model.o \
	$(SIM_PROBE_W512)/Vrnic_rx_probe_w512__model.o

$(SIM_PROBE_BUILD)/probe_model.o: $(SIM_DIR)/replay/probe_model.cpp $(SIM_PROBE_MODEL_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) $(CWARN) -Wno-unused-parameter \
		-DRNIC_PROBE_HAVE_W64=1 -DRNIC_PROBE_HAVE_W512=1 \
		-I$(SIM_PROBE_W64) -I$(SIM_PROBE_W512) -c $< -o $@

$(SIM_PROBE_BUILD)/stub/probe_model.o: $(SIM_DIR)/replay/probe_model.cpp
	@mkdir -p $(@D)
	$(CXX) $(SIM_VL_CXXFLAGS) $(CWARN) -Wno-unused-parameter -c $< -o $@

SIM_PROBE_PARTS := $(SIM_BUILD)/obj/replay/replay.o $(SIM_PROBE_BUILD)/probe_model.o \
	$(SIM_PROBE_MODEL_OBJS)

sim-probe: $(SIM_PROBE_MODEL_OBJS)

$(RNIC_SIM_BIN): $(SIM_BUILD)/obj/rnic_sim_main.o $(SIM_PROBE_PARTS) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(SIM_LIB) $(SIM_LDLIBS) -o $@

# ------------------------------------------------------------------ tests

SIM_TEST_DIR := $(ROOT)/tests/sim
SIM_UNIT_TESTS := hostmem link link_socket pcap bar memcheck
SIM_UNIT_BINS := $(patsubst %,$(SIM_BUILD)/tests/test_%,$(SIM_UNIT_TESTS))
SIM_WORLD_TEST := $(SIM_BUILD)/tests/test_world

$(SIM_UNIT_BINS): $(SIM_BUILD)/tests/test_%: $(SIM_TEST_DIR)/test_%.c $(SIM_MODEL_SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) $(SAN) -I$(SIM_TEST_DIR) $< $(SIM_MODEL_SAN_OBJS) -lpcap -o $@

$(SIM_WORLD_TEST): $(SIM_TEST_DIR)/test_world.c $(SIM_TDUT_LIB)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) $(SAN) -I$(SIM_TEST_DIR) $< $(SIM_TDUT_LIB) $(SIM_LDLIBS) -o $@

# rnic-sim against the test core: checks the program without rnic_core
SIM_TDUT_BIN := $(SIM_BUILD)/tdut/rnic-sim
$(SIM_TDUT_BIN): $(SIM_BUILD)/obj/rnic_sim_main.o $(SIM_BUILD)/obj/replay/replay.o \
		$(SIM_PROBE_BUILD)/stub/probe_model.o $(SIM_TDUT_LIB)
	$(CC) $(SAN) $(filter %.o,$^) $(SIM_TDUT_LIB) $(SIM_LDLIBS) -o $@

sim-unit-tests: $(SIM_UNIT_BINS) $(SIM_WORLD_TEST) $(SIM_TDUT_BIN)

-include $(SIM_OBJS:.o=.d) $(SIM_SAN_OBJS:.o=.d) $(SIM_VL_RT_OBJS:.o=.d)
-include $(SIM_BUILD)/obj/rnic_model.d $(SIM_BUILD)/tdut/rnic_model.d
-include $(SIM_BUILD)/obj/rnic_sim_main.d $(SIM_UNIT_BINS:=.d) $(SIM_WORLD_TEST).d
-include $(SIM_BUILD)/obj/replay/replay.d $(SIM_PROBE_BUILD)/probe_model.d
-include $(SIM_PROBE_BUILD)/stub/probe_model.d

# The unit tests and the harness self-test need no rnic_core; the real-core
# library and rnic-sim are built by their own test entry (tests/list.d/20-sim.list)
# so that an unfinished core fails one test, not the whole test build.
TEST_BUILD_DEPS += $(SIM_UNIT_BINS) $(SIM_WORLD_TEST) $(SIM_TDUT_BIN)
