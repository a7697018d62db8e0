# Programs on top of the host library and the simulator: the demo (`make
# sim`), the end-to-end tests and the benchmark (`make bench`).
#
#   build/bin/rnic-demo   two NICs, 1 MiB RDMA WRITE, cycles/us/Gb/s, pcap
#   build/bin/rnic-e2e    end-to-end WRITE tests (ASan/UBSan on our C code)
#   build/bin/rnic-e2e-send  end-to-end SEND/RECV tests (ASan/UBSan on our C code)
#   build/bin/rnic-e2e-faults  reliability: lossy link, retry and RNR limits, PSN wrap
#   build/bin/rnic-e2e-read  end-to-end RDMA READ tests: sizes, scatter, ordering, errors, lossy link
#   build/bin/rnic-e2e-atomic  end-to-end ATOMIC tests: CAS/FAA, ordering, atomicity, errors, lossy link
#   build/bin/rnic-e2e-ipv6  RoCEv2 over IPv6: GID table, AV, header fields, foreign-GID drop
#   build/bin/rnic-bench  WRITE/READ/SEND goodput, WRITE message rate, goodput under
#                         loss, WRITE/READ latency; table + build/bench/results.json
#   build/bin/rnic-perf   perftest's tests and result table, --sim or against perftest
#   build/tools/perf-oob-tests  perftest's out-of-band messages and exchange (ASan/UBSan)
#   build/tools/wire-tests  the link's goodput limit per message (ASan/UBSan)
#   build/bin/rnic-rping-sim  rping between the two NICs, connected by the CM (ASan/UBSan)

TOOLS_DIR := $(ROOT)/host/tools
TOOLS_BUILD := $(BUILD)/tools
TOOLS_CFLAGS := $(CFLAGS_COMMON) -I$(ROOT)/sim/include -I$(TOOLS_DIR)
DEMO_BIN := $(BUILD)/bin/rnic-demo
E2E_BIN := $(BUILD)/bin/rnic-e2e
E2E_SEND_BIN := $(BUILD)/bin/rnic-e2e-send
E2E_FAULTS_BIN := $(BUILD)/bin/rnic-e2e-faults
E2E_READ_BIN := $(BUILD)/bin/rnic-e2e-read
E2E_FW_BIN := $(BUILD)/bin/rnic-e2e-fw
E2E_ATOMIC_BIN := $(BUILD)/bin/rnic-e2e-atomic
E2E_IPV6_BIN := $(BUILD)/bin/rnic-e2e-ipv6
E2E_UD_BIN := $(BUILD)/bin/rnic-e2e-ud
E2E_MCAST_BIN := $(BUILD)/bin/rnic-e2e-mcast
BENCH_BIN := $(BUILD)/bin/rnic-bench
PERF_OOB_TEST_BIN := $(BUILD)/tools/perf-oob-tests
PERF_BIN := $(BUILD)/bin/rnic-perf

$(TOOLS_BUILD)/obj/%.o: $(TOOLS_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -c $< -o $@

$(TOOLS_BUILD)/obj-san/%.o: $(TOOLS_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_write.o: $(ROOT)/tests/e2e/e2e_write.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_send.o: $(ROOT)/tests/e2e/e2e_send.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_faults.o: $(ROOT)/tests/e2e/e2e_faults.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_ipv6.o: $(ROOT)/tests/e2e/e2e_ipv6.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_mcast.o: $(ROOT)/tests/e2e/e2e_mcast.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_ud.o: $(ROOT)/tests/e2e/e2e_ud.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_read.o: $(ROOT)/tests/e2e/e2e_read.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_atomic.o: $(ROOT)/tests/e2e/e2e_atomic.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_fw.o: $(ROOT)/tests/e2e/e2e_fw.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_common.o: $(ROOT)/tests/e2e/e2e_common.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(TOOLS_BUILD)/obj-san/e2e_ops.o: $(ROOT)/tests/e2e/e2e_ops.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

# rnic-soak runs long: built without sanitizers (the e2e programs above
# have them, and make test runs a short soak too).
SOAK_BIN := $(BUILD)/bin/rnic-soak
$(TOOLS_BUILD)/obj/e2e_%.o: $(ROOT)/tests/e2e/e2e_%.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -c $< -o $@

$(SOAK_BIN): $(TOOLS_BUILD)/obj/e2e_soak.o $(TOOLS_BUILD)/obj/e2e_common.o $(TOOLS_BUILD)/obj/e2e_ops.o $(TOOLS_BUILD)/obj/sim_pair.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) -o $@

.PHONY: rnic-soak
rnic-soak: $(SOAK_BIN)
TEST_BUILD_DEPS += $(SOAK_BIN)

# The soak against board designs (--board au250|kcu105): the same program
# linked with the board models (sim/rules.mk).
SOAK_BOARD_BIN := $(BUILD)/bin/rnic-soak-board
$(SOAK_BOARD_BIN): $(TOOLS_BUILD)/obj/e2e_soak.o $(TOOLS_BUILD)/obj/e2e_common.o $(TOOLS_BUILD)/obj/e2e_ops.o \
		$(TOOLS_BUILD)/obj/sim_pair.o $(HOST_LIB) $(SIM_BOARD_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_BOARD_LIB) $(SIM_LDLIBS) -o $@

.PHONY: rnic-soak-board
rnic-soak-board: $(SOAK_BOARD_BIN)
# make test runs the board designs: two more full builds of the core (about
# 4.5 minutes on 2 cores).
TEST_BUILD_DEPS += $(SOAK_BOARD_BIN)

# make soak: 1 GiB over the faulty link at 512 bits (100 Gb/s); SOAK_ARGS
# adds or overrides options (--bytes, --width, --seed, --qps).
SOAK_ARGS ?=
soak: deps
	$(MAKE) -C $(ROOT) $(SOAK_BIN)
	$(SOAK_BIN) --width 512 --bytes 1G $(SOAK_ARGS)

$(DEMO_BIN): $(TOOLS_BUILD)/obj/rnic_demo.o $(TOOLS_BUILD)/obj/sim_pair.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) -o $@

$(BENCH_BIN): $(TOOLS_BUILD)/obj/rnic_bench.o $(TOOLS_BUILD)/obj/stream.o $(TOOLS_BUILD)/obj/sim_pair.o \
		$(TOOLS_BUILD)/obj/wire.o $(TOOLS_BUILD)/obj/latency.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) -o $@

$(E2E_BIN): $(TOOLS_BUILD)/obj-san/e2e_write.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_SEND_BIN): $(TOOLS_BUILD)/obj-san/e2e_send.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_FAULTS_BIN): $(TOOLS_BUILD)/obj-san/e2e_faults.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_IPV6_BIN): $(TOOLS_BUILD)/obj-san/e2e_ipv6.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_UD_BIN): $(TOOLS_BUILD)/obj-san/e2e_ud.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_MCAST_BIN): $(TOOLS_BUILD)/obj-san/e2e_mcast.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_READ_BIN): $(TOOLS_BUILD)/obj-san/e2e_read.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/e2e_ops.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

$(E2E_ATOMIC_BIN): $(TOOLS_BUILD)/obj-san/e2e_atomic.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/e2e_ops.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

# rnic-perf opens cards (the pci backend) and simulations
$(PERF_BIN): $(TOOLS_BUILD)/obj/rnic_perf.o $(TOOLS_BUILD)/obj/perf_oob.o $(TOOLS_BUILD)/obj/perf_link.o $(TOOLS_BUILD)/obj/perf_link_sim.o \
		$(TOOLS_BUILD)/obj/perf_link_card.o $(TOOLS_BUILD)/obj/stream.o \
		$(TOOLS_BUILD)/obj/sim_pair.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) $(HOST_LDLIBS) -lm -o $@

# rnic-rping (host/examples/rnic_rping.c): rping's peer on a card or a
# simulated NIC on a UDP link (perf_link_sim.c), the CM over the NIC's QP1
RPING_BIN := $(BUILD)/bin/rnic-rping
$(TOOLS_BUILD)/obj/rnic_rping.o: $(HOST_DIR)/examples/rnic_rping.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -c $< -o $@

$(RPING_BIN): $(TOOLS_BUILD)/obj/rnic_rping.o $(TOOLS_BUILD)/obj/rping.o $(TOOLS_BUILD)/obj/perf_link_sim.o \
		$(TOOLS_BUILD)/obj/perf_link_card.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) $(HOST_LDLIBS) -lm -o $@

.PHONY: rnic-rping
rnic-rping: $(RPING_BIN)
TEST_BUILD_DEPS += $(RPING_BIN)

$(TOOLS_BUILD)/obj-san/test_perf_oob.o: $(ROOT)/tests/host/perf_oob_test.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(PERF_OOB_TEST_BIN): $(TOOLS_BUILD)/obj-san/test_perf_oob.o $(TOOLS_BUILD)/obj-san/perf_oob.o
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) -lpthread -o $@

# the link's limit on goodput (host/tools/wire.c) against known figures
WIRE_TEST_BIN := $(TOOLS_BUILD)/wire-tests
$(TOOLS_BUILD)/obj-san/wire_test.o: $(ROOT)/tests/host/wire_test.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@

$(WIRE_TEST_BIN): $(TOOLS_BUILD)/obj-san/wire_test.o $(TOOLS_BUILD)/obj-san/wire.o
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) -lm -o $@

.PHONY: wire-tests
wire-tests: $(WIRE_TEST_BIN)
TEST_BUILD_DEPS += $(WIRE_TEST_BIN)

$(E2E_FW_BIN): $(TOOLS_BUILD)/obj-san/e2e_fw.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

-include $(wildcard $(TOOLS_BUILD)/obj/*.d $(TOOLS_BUILD)/obj-san/*.d)

.PHONY: rnic-perf perf-oob-tests
rnic-perf: $(PERF_BIN)
perf-oob-tests: $(PERF_OOB_TEST_BIN)

.PHONY: rnic-demo rnic-e2e rnic-e2e-send rnic-e2e-faults rnic-e2e-ipv6 rnic-e2e-ud rnic-e2e-mcast rnic-e2e-read rnic-e2e-atomic rnic-e2e-fw rnic-bench
rnic-demo: $(DEMO_BIN)
rnic-e2e: $(E2E_BIN)
rnic-e2e-send: $(E2E_SEND_BIN)
rnic-e2e-faults: $(E2E_FAULTS_BIN)
rnic-e2e-ipv6: $(E2E_IPV6_BIN)
rnic-e2e-ud: $(E2E_UD_BIN)
rnic-e2e-mcast: $(E2E_MCAST_BIN)
rnic-e2e-read: $(E2E_READ_BIN)
rnic-e2e-atomic: $(E2E_ATOMIC_BIN)
rnic-e2e-fw: $(E2E_FW_BIN)
rnic-bench: $(BENCH_BIN)

TEST_BUILD_DEPS += $(E2E_BIN) $(E2E_SEND_BIN) $(E2E_FAULTS_BIN) $(E2E_IPV6_BIN) $(E2E_UD_BIN) $(E2E_MCAST_BIN) $(E2E_READ_BIN) $(E2E_ATOMIC_BIN) $(E2E_FW_BIN) $(DEMO_BIN) $(BENCH_BIN) $(PERF_OOB_TEST_BIN) $(PERF_BIN)

# the main job: build everything and run the demo
sim: deps
	$(MAKE) -j$(JOBS) -C $(ROOT) $(DEMO_BIN) $(RNIC_SIM_BIN)
	@mkdir -p $(BUILD)/sim
	$(DEMO_BIN) --width 512 --pcap $(BUILD)/sim/demo.pcap

bench: deps
	$(MAKE) -C $(ROOT) $(BENCH_BIN) $(E2E_FW_BIN)
	@mkdir -p $(BUILD)/bench
	$(BENCH_BIN) --json $(BUILD)/bench/results.json
	$(MAKE) -C $(ROOT) $(HOST_FASTPATH_BENCH)
	@bash $(ROOT)/scripts/fastpath-callgrind.sh $(HOST_FASTPATH_BENCH) 1000
	@echo "firmware command latency (rnic-e2e-fw, 64-bit core, from CMD_CTRL to the status read that saw it done):"
	@$(E2E_FW_BIN) --width 64 | grep -E 'booted|QUERY_DEVICE:|CREATE_QP:|RESET -> RTS|reg_mr of'

# rping's exchange (host/tools/rping.c) between the two simulated NICs, the
# connection manager's MADs over each NIC's QP1 (ASan/UBSan)
RPING_SIM_BIN := $(BUILD)/bin/rnic-rping-sim
$(TOOLS_BUILD)/obj-san/rping_sim.o: $(ROOT)/tests/host/rping_sim.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -I$(ROOT)/tests/host -c $< -o $@

$(RPING_SIM_BIN): $(TOOLS_BUILD)/obj-san/rping_sim.o $(TOOLS_BUILD)/obj-san/rping.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@

.PHONY: rnic-rping-sim
rnic-rping-sim: $(RPING_SIM_BIN)
TEST_BUILD_DEPS += $(RPING_SIM_BIN)
# shared receive queues: build/bin/rnic-e2e-srq (tests/e2e/e2e_srq.c)
E2E_SRQ_BIN := $(BUILD)/bin/rnic-e2e-srq
$(E2E_SRQ_BIN): $(TOOLS_BUILD)/obj-san/e2e_srq.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@
.PHONY: rnic-e2e-srq
rnic-e2e-srq: $(E2E_SRQ_BIN)
TEST_BUILD_DEPS += $(E2E_SRQ_BIN)
$(TOOLS_BUILD)/obj-san/e2e_srq.o: $(ROOT)/tests/e2e/e2e_srq.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@
# memory windows: build/bin/rnic-e2e-mw (tests/e2e/e2e_mw.c)
E2E_MW_BIN := $(BUILD)/bin/rnic-e2e-mw
$(E2E_MW_BIN): $(TOOLS_BUILD)/obj-san/e2e_mw.o $(TOOLS_BUILD)/obj-san/e2e_common.o $(TOOLS_BUILD)/obj-san/e2e_ops.o $(TOOLS_BUILD)/obj-san/sim_pair.o $(HOST_SAN_LIB) $(SIM_SAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(filter %.o,$^) $(HOST_SAN_LIB) $(SIM_SAN_LIB) $(SIM_LDLIBS) -o $@
.PHONY: rnic-e2e-mw
rnic-e2e-mw: $(E2E_MW_BIN)
TEST_BUILD_DEPS += $(E2E_MW_BIN)
$(TOOLS_BUILD)/obj-san/e2e_mw.o: $(ROOT)/tests/e2e/e2e_mw.c
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN) -c $< -o $@
