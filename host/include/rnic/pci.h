/* OpenRNIC host library: real cards on PCI Express (the `pci` backend).
 *
 * rnic_get_device_list finds OpenRNICs by their PCI IDs (libpciaccess);
 * rnic_open_pci opens one: BAR0 mapped uncached, DMA through VFIO and the
 * IOMMU or, without an IOMMU, pinned pages and their physical addresses.
 * Calls returning a pointer return NULL and set errno; the library prints
 * the cause of a failure and what to do about it on stderr ("rnic: ...").
 * docs/api.md is the reference.
 */
#ifndef RNIC_PCI_H
#define RNIC_PCI_H

#include <stdint.h>

#include "rnic/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One OpenRNIC found on the PCI bus. */
struct rnic_pci_device {
	char bdf[16];          /* "dddd:bb:dd.f", what rnic_open_pci takes */
	uint16_t vendor_id;    /* the IDs of rnic_pci_ids */
	uint16_t device_id;
	uint16_t subvendor_id;
	uint16_t subdevice_id;
	uint8_t revision;
	char driver[32];       /* bound kernel driver ("vfio-pci"), "" when none */
	int iommu_group;       /* -1 when the device has none */
};

/* The PCI IDs the library looks for: RNIC_PCI_VENDOR_ID:RNIC_PCI_DEVICE_ID
 * of <rnic/rnic_hw.h>, or the value of the environment variable RNIC_PCI_ID
 * ("vvvv:dddd", hexadecimal) for a bitstream built with other IDs. Returns 0,
 * or EINVAL (and prints why) when RNIC_PCI_ID is malformed; then
 * rnic_get_device_list and rnic_open_pci fail with EINVAL as well. */
int rnic_pci_ids(uint16_t *vendor_id, uint16_t *device_id);

/* NULL-terminated array of the OpenRNICs on this machine, in bus order; the
 * count in *num_devices when not NULL. No card is an empty list (count 0),
 * not an error; NULL with errno only when the bus cannot be scanned (ENOMEM,
 * an unreadable sysfs). Free with rnic_free_device_list. */
struct rnic_pci_device **rnic_get_device_list(int *num_devices);
void rnic_free_device_list(struct rnic_pci_device **list);

/* Open the OpenRNIC at bdf ("dddd:bb:dd.f" or "bb:dd.f"), or the first one
 * found when bdf is NULL. Returns NULL and sets errno:
 *   EINVAL      bdf is malformed
 *   ENODEV      no OpenRNIC (none on the bus, nothing at bdf, another device
 *               at bdf), or the register blocks say it is not one
 *   EACCES      BAR0 or the DMA setup needs root (or the VFIO group node)
 *   EPERM       pagemap mode: physical addresses are hidden (no CAP_SYS_ADMIN)
 *   EBUSY       bound to another kernel driver, or its VFIO group is in use
 *   ENXIO       BAR0 is unassigned, not a memory BAR, or smaller than the
 *               register map
 *   EOPNOTSUPP  the IOMMU translates the device's DMA but it is not bound to
 *               vfio-pci
 *   ENOENT      VFIO is needed but missing (/dev/vfio/vfio, /dev/vfio/N)
 *   and every error of rnic_open_backend. */
struct rnic_context *rnic_open_pci(const char *bdf);

/* How an open pci context reaches its card. */
struct rnic_pci_attr {
	char bdf[16];
	uint64_t bar0_size;     /* bytes */
	int db_bar;             /* BAR holding the doorbells (0 today) */
	int db_write_combined;  /* 1: the doorbell mapping is write-combined */
	const char *db_mapping; /* "uncached" or "write-combined" */
	const char *dma_mode;   /* "vfio" or "pagemap" */
	int iommu_group;        /* -1 when none */
};

/* 0, or EINVAL (NULL argument, or not a pci context). */
int rnic_pci_query(struct rnic_context *context, struct rnic_pci_attr *attr);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_PCI_H */
