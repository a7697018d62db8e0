/* OpenRNIC host library: pinned DMA memory for the pci backend.
 *
 * Two ways to give the device bus addresses of user memory:
 *   vfio     the IOMMU through VFIO (type 1): each mapped range gets an IOVA
 *            range from the library's allocator, VFIO_IOMMU_MAP_DMA pins the
 *            pages and maps them; the device sees only mapped memory;
 *   pagemap  no IOMMU translation: pages are pinned with mlock and their
 *            physical addresses read from /proc/self/pagemap (needs
 *            CAP_SYS_ADMIN). A multi-page dma_map needs physically
 *            contiguous pages (hugepages); dma_map_pages works page by page.
 * A range mapped twice (same pages) shares one mapping, counted.
 * Bus addresses stay inside the library: they go to the device only.
 */
#ifndef RNIC_PCI_DMA_H
#define RNIC_PCI_DMA_H

#include <stddef.h>
#include <stdint.h>

#include "pci_util.h"

struct rnic_pci_dma;

/* VFIO: container, the device's group (number group), the device itself
 * (bdf: opening it lets vfio-pci enable the device), the type-1 IOMMU and the
 * IOVA window. 0 or an errno value (printed with its cause). */
int rnic_dma_open_vfio(struct rnic_pci_dma **out, const char *bdf, int group);
/* pagemap: checks that physical addresses are readable. 0 or an errno. */
int rnic_dma_open_pagemap(struct rnic_pci_dma **out);
void rnic_dma_close(struct rnic_pci_dma *m);

/* The backend ops (contracts in rnic/backend.h); 0 or an errno value. */
int rnic_dma_map(struct rnic_pci_dma *m, void *va, size_t len, uint64_t *bus);
int rnic_dma_map_pages(struct rnic_pci_dma *m, void *va, size_t len, uint64_t *bus_pages);
int rnic_dma_unmap(struct rnic_pci_dma *m, void *va, size_t len);
/* Ring memory (dma_alloc / dma_free): page-aligned heap memory with VFIO
 * (the IOMMU makes it contiguous) and for a single page; in pagemap mode a
 * larger ring gets its own hugepages (MAP_HUGETLB, 2 MiB, physically
 * contiguous up to one hugepage), or NULL with ENOMEM and the remedy
 * printed when none is reserved. Zeroed. */
void *rnic_dma_ring_alloc(struct rnic_pci_dma *m, size_t bytes, size_t *alloc_bytes);
void rnic_dma_ring_free(struct rnic_pci_dma *m, void *va, size_t alloc_bytes);

enum rnic_dma_mode rnic_dma_mode_of(const struct rnic_pci_dma *m);
/* Ranges mapped now (for tests). */
unsigned int rnic_dma_nmaps(const struct rnic_pci_dma *m);

/* Can this machine do VFIO at all? 0, or an errno with a reason in why
 * (opens /dev/vfio/vfio, checks the API version and the type-1 IOMMU). */
int rnic_vfio_probe(char *why, size_t n);

#endif /* RNIC_PCI_DMA_H */
