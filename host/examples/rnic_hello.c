/* The smallest OpenRNIC program: open the first card, say what it is.
 *
 *   cc rnic_hello.c $(pkg-config --cflags --libs rnic) -o rnic_hello
 *
 * With no card it says so and exits 0: finding none is not an error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rnic/pci.h>
#include <rnic/verbs.h>

int main(void)
{
	struct rnic_pci_device **list;
	struct rnic_device_attr attr;
	struct rnic_context *ctx;
	int n, err;

	list = rnic_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "rnic_hello: cannot scan the PCI bus: %s\n", strerror(errno));
		return 1;
	}
	if (n == 0) {
		printf("rnic_hello: no OpenRNIC device found on this machine\n");
		rnic_free_device_list(list);
		return 0;
	}
	ctx = rnic_open_pci(list[0]->bdf);
	if (!ctx) {
		fprintf(stderr, "rnic_hello: %s: %s\n", list[0]->bdf, strerror(errno));
		rnic_free_device_list(list);
		return 1;
	}
	err = rnic_query_device(ctx, &attr);
	if (!err)
		printf("rnic_hello: %s: OpenRNIC %04x:%04x, firmware %s, %u-bit data path at %u MHz, %d QPs, %d MRs\n",
		       list[0]->bdf, attr.vendor_id, attr.vendor_part_id, attr.fw_ver, attr.data_width,
		       attr.clock_mhz, attr.max_qp, attr.max_mr);
	else
		fprintf(stderr, "rnic_hello: rnic_query_device: %s\n", strerror(err));
	rnic_close_device(ctx);
	rnic_free_device_list(list);
	return err ? 1 : 0;
}
