# Interop: Linux Soft-RoCE (rdma_rxe) in QEMU against the simulated NIC.
#
#   make interop-image  build/interop/vmlinuz, build/interop/initrd.cpio.gz:
#                       the kernel linux-image-amd64 depends on (apt-get
#                       download, cached in build/interop/cache) and an
#                       initramfs with rdma_rxe, sch_netem, busybox, perftest,
#                       rdma-core's tools, iproute2's rdma and tc
#   make interop        the full matrix (docs/interop.md): guest perftest
#                       ib_{write,read,send,atomic}_bw, ib_{write,read}_lat,
#                       as server and as client, IB MTU 1024 and 4096, and
#                       every case again with 1% loss in the guest; stock
#                       rping (rdmacm-utils) against rnic-rping in both
#                       roles, 300 pings; a pass/fail matrix and "N passed,
#                       N failed"
# `make test` runs a reduced matrix (tests/list.d/60-interop.list).

INTEROP_DIR := $(ROOT)/interop
INTEROP_BUILD := $(BUILD)/interop
INTEROP_IMAGE := $(INTEROP_BUILD)/initrd.cpio.gz

.PHONY: interop interop-image

$(INTEROP_IMAGE): $(INTEROP_DIR)/build_initramfs.sh $(INTEROP_DIR)/init
	bash $(INTEROP_DIR)/build_initramfs.sh $(INTEROP_BUILD)

interop-image: $(INTEROP_IMAGE)

interop: deps
	$(MAKE) -C $(ROOT) $(PERF_BIN) $(RPING_BIN) $(INTEROP_IMAGE)
	python3 $(INTEROP_DIR)/interop.py
