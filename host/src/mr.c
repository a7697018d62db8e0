/* OpenRNIC host library: protection domains and memory regions (MPT). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

struct rnic_pd *rnic_alloc_pd(struct rnic_context *context)
{
	struct rnic_device *d;
	struct rnic_pd_priv *p;
	int64_t h;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(context);
	p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	h = rnic_idx_alloc(&d->pd_idx);
	if (h < 0) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->pd.context = context;
	p->pd.handle = (uint32_t)h;
	d->n_pd++;
	return &p->pd;
}

int rnic_dealloc_pd(struct rnic_pd *pd)
{
	struct rnic_device *d;

	if (!pd)
		return EINVAL;
	if (pd_priv(pd)->refcnt)
		return EBUSY;
	d = rnic_dev(pd->context);
	rnic_idx_free(&d->pd_idx, pd->handle);
	d->n_pd--;
	free(pd_priv(pd));
	return 0;
}

/* The MPT record of an MR (all zero for an invalid entry). The MR's bytes are
 * reached through its MTT entries: pa names the first byte in MTT space. */
static void mpt_encode(uint32_t w[RNIC_MPT_WORDS], const struct rnic_mr_priv *m, int access)
{
	uint64_t va = (uint64_t)(uintptr_t)m->mr.addr;

	memset(w, 0, RNIC_MPT_WORDS * sizeof(uint32_t));
	RNIC_CTX_SET(w, MPT, VALID, 1);
	RNIC_CTX_SET(w, MPT, ACCESS, (uint64_t)access);
	RNIC_CTX_SET(w, MPT, PD, m->mr.pd->handle);
	RNIC_CTX_SET(w, MPT, KEY, m->mr.lkey);
	RNIC_CTX_SET(w, MPT, VA, va);
	RNIC_CTX_SET(w, MPT, LENGTH, (uint64_t)m->mr.length);
	RNIC_CTX_SET(w, MPT, PA, 1ull << RNIC_MPT_PA_MTT_BIT |
		     (uint64_t)m->mtt_base << RNIC_MTT_PAGE_SHIFT |
		     (va & ((1ull << RNIC_MTT_PAGE_SHIFT) - 1)));
}

#define ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
		    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* Pin [addr, addr + length) for the device and fill pages[] with the bus
 * address of each of its npages 4 KiB pages. */
static int map_pages(struct rnic_device *d, void *addr, size_t length, uint64_t *pages,
		     uint32_t npages)
{
	uint64_t bus;
	int err;

	if (d->ops->dma_map_pages)
		return d->ops->dma_map_pages(d->priv, addr, length, pages);
	err = d->ops->dma_map(d->priv, addr, length, &bus);
	if (err)
		return err;
	bus &= ~((1ull << RNIC_MTT_PAGE_SHIFT) - 1);
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = bus + ((uint64_t)i << RNIC_MTT_PAGE_SHIFT);
	return 0;
}

/* Write MTT entries [base, base + npages); 0 or an errno. */
static int mtt_write(struct rnic_device *d, uint32_t base, const uint64_t *pages, uint32_t npages)
{
	uint32_t w[RNIC_MTT_WORDS];
	int err;

	for (uint32_t i = 0; i < npages; i++) {
		memset(w, 0, sizeof(w));
		RNIC_CTX_SET(w, MTT, PAGE, pages[i] >> RNIC_MTT_PAGE_SHIFT);
		err = rnic_ctx_write(d, RNIC_CTX_TABLE_MTT, RNIC_CTX_OP_WRITE, base + i, w,
				     RNIC_MTT_WORDS);
		if (err)
			return err;
	}
	return 0;
}

struct rnic_mr *rnic_reg_mr(struct rnic_pd *pd, void *addr, size_t length, int access)
{
	struct rnic_device *d;
	struct rnic_mr_priv *m;
	uint32_t w[RNIC_MPT_WORDS], idx, key;
	uint64_t *pages = NULL, first, last;
	int64_t h, base;
	int err;

	if (!pd || !addr || length == 0 || (access & ~ACCESS_ALL)) {
		errno = EINVAL;
		return NULL;
	}
	/* As ibv_reg_mr: remote write or atomic access needs local write. */
	if ((access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & RNIC_ACCESS_LOCAL_WRITE)) {
		errno = EINVAL;
		return NULL;
	}
	if ((uintptr_t)addr + length - 1 < (uintptr_t)addr) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	first = (uintptr_t)addr >> RNIC_MTT_PAGE_SHIFT;
	last = ((uintptr_t)addr + length - 1) >> RNIC_MTT_PAGE_SHIFT;
	if (last - first + 1 > d->num_mtt) {
		errno = EINVAL; /* larger than max_mr_size */
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->npages = (uint32_t)(last - first + 1);
	pages = malloc(m->npages * sizeof(*pages));
	h = rnic_idx_alloc(&d->mr_idx);
	base = rnic_span_alloc(&d->mtt, m->npages);
	if (!pages || h < 0 || base < 0) {
		err = ENOMEM;
		goto fail_idx;
	}
	idx = (uint32_t)h;
	m->mtt_base = (uint32_t)base;
	/* A new tag per registration: a stale key of an earlier MR at this index
	 * no longer matches. The all-ones key is INVALID_LKEY: skip it. */
	do {
		d->mr_tag[idx]++;
		key = idx << RNIC_MKEY_TAG_BITS | d->mr_tag[idx];
	} while (key == RNIC_INVALID_LKEY);

	err = map_pages(d, addr, length, pages, m->npages);
	if (err)
		goto fail_idx;
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = idx;
	m->mr.lkey = key;
	m->mr.rkey = key;
	/* The page list first: the MPT entry makes the MR live. */
	err = mtt_write(d, m->mtt_base, pages, m->npages);
	if (err)
		goto fail_map;
	mpt_encode(w, m, access);
	err = rnic_ctx_write(d, RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
	if (err)
		goto fail_map;
	free(pages);
	pd_priv(pd)->refcnt++;
	d->n_mr++;
	return &m->mr;

fail_map:
	d->ops->dma_unmap(d->priv, addr, length);
fail_idx:
	if (base >= 0)
		rnic_span_free(&d->mtt, (uint32_t)base, m->npages);
	if (h >= 0)
		rnic_idx_free(&d->mr_idx, (uint32_t)h);
	free(pages);
	free(m);
	errno = err;
	return NULL;
}

int rnic_dereg_mr(struct rnic_mr *mr)
{
	struct rnic_device *d;
	struct rnic_mr_priv *m;
	uint32_t w[RNIC_MPT_WORDS] = {0};
	int err;

	if (!mr)
		return EINVAL;
	d = rnic_dev(mr->context);
	m = mr_priv(mr);
	/* Invalidate the entry before the memory may be unmapped and its MTT
	 * entries reused. */
	err = rnic_ctx_write(d, RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, mr->handle, w, RNIC_MPT_WORDS);
	if (err)
		return err;
	d->ops->dma_unmap(d->priv, mr->addr, mr->length);
	rnic_span_free(&d->mtt, m->mtt_base, m->npages);
	rnic_idx_free(&d->mr_idx, mr->handle);
	pd_priv(mr->pd)->refcnt--;
	d->n_mr--;
	free(m);
	return 0;
}
