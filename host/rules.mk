# Host library: build/host/librnic.a (and an ASan/UBSan twin for the tests).
#
#   make host-lib     build/host/librnic.a        (CFLAGS_COMMON)
#   make host-tests   build/host/tests/test_*     (unit tests, sanitizers, fake backend)
#   make host-so      build/host/librnic.so.$(RNIC_LIB_VERSION) (PIC, soname librnic.so.$(RNIC_SO_MAJOR))
#   make rnic-info    build/bin/rnic-info
#   make install      PREFIX=/usr/local (DESTDIR honoured): librnic.a, librnic.so,
#                     include/rnic/*.h, bin/rnic-info, bin/rnic-perf, lib/pkgconfig/rnic.pc
#
# The pci backend (backend_pci.c, pci_dma.c, pci_util.c) needs libpciaccess: a
# program calling rnic_open_pci or rnic_get_device_list against librnic.a also
# links -lpciaccess (`pkg-config --static --libs rnic`). The installed
# libraries leave the sim backend out; librnic.so exports only the calls of
# the public headers (host/librnic.map).
#
# The sim backend (host/src/backend_sim.c, rnic_open_sim) is compiled into the
# library when the simulator's header sim/include/rnic_sim.h exists. A program
# that calls rnic_open_sim links build/host/librnic.a, build/sim/librnic_sim.a
# and what the simulator needs (see sim/rules.mk), e.g.
#   $(CC) prog.o $(HOST_LIB) $(SIM_LIB) ... -lstdc++
# The unit tests use a fake backend and never need the simulator.

HOST_DIR := $(ROOT)/host
HOST_BUILD := $(BUILD)/host
HOST_LIB := $(HOST_BUILD)/librnic.a
HOST_SAN_LIB := $(HOST_BUILD)/librnic-san.a

HOST_SIM_HEADER := $(wildcard $(ROOT)/sim/include/rnic_sim.h)
HOST_SRCS := $(filter-out $(HOST_DIR)/src/backend_sim.c,$(wildcard $(HOST_DIR)/src/*.c))
ifneq ($(HOST_SIM_HEADER),)
HOST_SRCS += $(HOST_DIR)/src/backend_sim.c
endif

HOST_CFLAGS := $(CFLAGS_COMMON) -I$(HOST_DIR)/src -I$(ROOT)/sim/include
HOST_OBJS := $(patsubst $(HOST_DIR)/src/%.c,$(HOST_BUILD)/obj/%.o,$(HOST_SRCS))
HOST_SAN_OBJS := $(patsubst $(HOST_DIR)/src/%.c,$(HOST_BUILD)/obj-san/%.o,$(HOST_SRCS))

HOST_TEST_SRCS := $(wildcard $(ROOT)/tests/host/test_*.c)
HOST_TEST_BINS := $(patsubst $(ROOT)/tests/host/%.c,$(HOST_BUILD)/tests/%,$(HOST_TEST_SRCS))
HOST_TEST_BINS += $(HOST_BUILD)/tests/test_pci_sys-nosan $(HOST_BUILD)/tests/fastpath_bench
HOST_LDLIBS := -lpciaccess -lpthread

.PHONY: host-lib host-tests
host-lib: $(HOST_LIB)
host-tests: $(HOST_TEST_BINS)

$(HOST_BUILD)/obj/%.o: $(HOST_DIR)/src/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(HOST_BUILD)/obj-san/%.o: $(HOST_DIR)/src/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(SAN) -c $< -o $@

$(HOST_LIB): $(HOST_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(HOST_SAN_LIB): $(HOST_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Unit tests link only the library's backend-independent objects: the
# archive member backend_sim.o is never pulled in by a fake-backend test.
# The fake device (tests/host/fake_backend.h) runs the real firmware core,
# compiled natively (firmware/rules.mk) with tests/host/fake_fw.c as its
# register access layer.
HOST_TEST_FW_OBJS := $(patsubst $(ROOT)/%.c,$(BUILD)/firmware/native/%.o,$(wildcard $(ROOT)/firmware/core/*.c))
HOST_TEST_CFLAGS := $(HOST_CFLAGS) $(SAN) -DFW_MOCK_MMIO -I$(ROOT)/firmware -I$(ROOT)/tests/host

$(HOST_BUILD)/tests/fake_fw.o: $(ROOT)/tests/host/fake_fw.c
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_CFLAGS) -c $< -o $@

$(HOST_BUILD)/tests/%: $(ROOT)/tests/host/%.c $(HOST_SAN_LIB) $(HOST_BUILD)/tests/fake_fw.o $(HOST_TEST_FW_OBJS)
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_CFLAGS) $< $(HOST_BUILD)/tests/fake_fw.o $(HOST_TEST_FW_OBJS) $(HOST_SAN_LIB) $(HOST_LDLIBS) -o $@

# The pci system test once more without sanitizers: AddressSanitizer makes
# mlock a no-op, so only this build can see the pagemap path's pins.
# Its fake device's firmware is built without sanitizers as well.
HOST_TEST_FW_NOSAN := $(patsubst $(ROOT)/firmware/core/%.c,$(HOST_BUILD)/tests/fw-nosan/%.o,$(wildcard $(ROOT)/firmware/core/*.c)) \
	$(HOST_BUILD)/tests/fw-nosan/fake_fw.o
HOST_TEST_NOSAN_CFLAGS := $(HOST_CFLAGS) -DFW_MOCK_MMIO -I$(ROOT)/firmware -I$(ROOT)/tests/host

$(HOST_BUILD)/tests/fw-nosan/%.o: $(ROOT)/firmware/core/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_NOSAN_CFLAGS) -c $< -o $@

$(HOST_BUILD)/tests/fw-nosan/fake_fw.o: $(ROOT)/tests/host/fake_fw.c
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_NOSAN_CFLAGS) -c $< -o $@

# The fast-path micro-benchmark (make bench runs it under callgrind): no
# sanitizers, so the instruction counts are the library's own.
HOST_FASTPATH_BENCH := $(HOST_BUILD)/tests/fastpath_bench
$(HOST_FASTPATH_BENCH): $(ROOT)/tests/host/fastpath_bench.c $(HOST_LIB) $(HOST_TEST_FW_NOSAN)
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_NOSAN_CFLAGS) $< $(HOST_TEST_FW_NOSAN) $(HOST_LIB) $(HOST_LDLIBS) -o $@

$(HOST_BUILD)/tests/test_pci_sys-nosan: $(ROOT)/tests/host/test_pci_sys.c $(HOST_LIB) $(HOST_TEST_FW_NOSAN)
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_NOSAN_CFLAGS) $< $(HOST_TEST_FW_NOSAN) $(HOST_LIB) $(HOST_LDLIBS) -o $@

# ---------------------------------------------------------------- install
# What is installed: the library without the sim backend, as a static archive
# and as a shared library with a soname.
RNIC_LIB_VERSION := 0.1.0
RNIC_SO_MAJOR := $(firstword $(subst ., ,$(RNIC_LIB_VERSION)))
HOST_DIST_SRCS := $(filter-out $(HOST_DIR)/src/backend_sim.c,$(HOST_SRCS))
HOST_PIC_OBJS := $(patsubst $(HOST_DIR)/src/%.c,$(HOST_BUILD)/obj-pic/%.o,$(HOST_DIST_SRCS))
HOST_DIST_OBJS := $(patsubst $(HOST_DIR)/src/%.c,$(HOST_BUILD)/obj/%.o,$(HOST_DIST_SRCS))
HOST_SO := $(HOST_BUILD)/librnic.so.$(RNIC_LIB_VERSION)
HOST_DIST_LIB := $(HOST_BUILD)/dist/librnic.a
HOST_MAP := $(HOST_DIR)/librnic.map
RNIC_INFO_BIN := $(BUILD)/bin/rnic-info
# built by tests/rules.mk (PERF_BIN), named here because that file comes later
RNIC_PERF_INST := $(BUILD)/bin/rnic-perf
# rnic-rping's rule is tests/rules.mk's (RPING_BIN)
RNIC_RPING_INST := $(BUILD)/bin/rnic-rping

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

.PHONY: host-so rnic-info install
host-so: $(HOST_SO)
rnic-info: $(RNIC_INFO_BIN) $(HOST_BUILD)/tests/rnic_info_check

$(HOST_BUILD)/obj-pic/%.o: $(HOST_DIR)/src/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -fPIC -c $< -o $@

$(HOST_SO): $(HOST_PIC_OBJS) $(HOST_MAP)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,librnic.so.$(RNIC_SO_MAJOR) -Wl,--version-script=$(HOST_MAP) \
		-Wl,--no-undefined $(HOST_PIC_OBJS) $(HOST_LDLIBS) -o $@
	ln -sf $(@F) $(HOST_BUILD)/librnic.so.$(RNIC_SO_MAJOR)
	ln -sf librnic.so.$(RNIC_SO_MAJOR) $(HOST_BUILD)/librnic.so

$(HOST_DIST_LIB): $(HOST_DIST_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# rnic-info talks to cards and, with --sim, to the simulator (both linked in).
$(HOST_BUILD)/tools/%.o: $(HOST_DIR)/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -I$(ROOT)/sim/include -I$(HOST_DIR)/tools -c $< -o $@

$(RNIC_INFO_BIN): $(HOST_BUILD)/tools/rnic_info.o $(HOST_BUILD)/tools/sim_pair.o $(HOST_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(HOST_LIB) $(SIM_LIB) $(SIM_LDLIBS) $(HOST_LDLIBS) -o $@

# tests/host/rnic_info_sim.py holds rnic-info --sim against this reader of the
# simulated DEV block (the simulator only, no host library).
$(HOST_BUILD)/tests/rnic_info_check: $(ROOT)/tests/host/rnic_info_check.c $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -I$(ROOT)/sim/include $< $(SIM_LIB) $(SIM_LDLIBS) -o $@

install: $(HOST_SO) $(HOST_DIST_LIB) $(RNIC_INFO_BIN) $(RNIC_PERF_INST) $(RNIC_RPING_INST)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/rnic $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(HOST_DIST_LIB) $(DESTDIR)$(LIBDIR)/librnic.a
	install -m 755 $(HOST_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf librnic.so.$(RNIC_LIB_VERSION) $(DESTDIR)$(LIBDIR)/librnic.so.$(RNIC_SO_MAJOR)
	ln -sf librnic.so.$(RNIC_SO_MAJOR) $(DESTDIR)$(LIBDIR)/librnic.so
	install -m 644 $(wildcard $(HOST_DIR)/include/rnic/*.h) $(DESTDIR)$(INCLUDEDIR)/rnic/
	install -m 755 $(RNIC_INFO_BIN) $(DESTDIR)$(BINDIR)/rnic-info
	install -m 755 $(RNIC_PERF_INST) $(DESTDIR)$(BINDIR)/rnic-perf
	install -m 755 $(RNIC_RPING_INST) $(DESTDIR)$(BINDIR)/rnic-rping
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(RNIC_LIB_VERSION)|' $(HOST_DIR)/rnic.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/rnic.pc

-include $(HOST_OBJS:.o=.d) $(HOST_SAN_OBJS:.o=.d) $(HOST_PIC_OBJS:.o=.d) $(HOST_TEST_BINS:=.d)
-include $(wildcard $(HOST_BUILD)/tools/*.d)
-include $(wildcard $(HOST_BUILD)/tests/*.d $(HOST_BUILD)/tests/fw-nosan/*.d)

TEST_BUILD_DEPS += $(HOST_LIB) $(HOST_TEST_BINS) $(HOST_SO) $(HOST_DIST_LIB) $(RNIC_INFO_BIN) \
	$(HOST_BUILD)/tests/rnic_info_check
