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

/* The MPT record of an MR (all zero for an invalid entry). */
static void mpt_encode(uint32_t w[RNIC_MPT_WORDS], const struct rnic_mr_priv *m, int access)
{
	memset(w, 0, RNIC_MPT_WORDS * sizeof(uint32_t));
	RNIC_CTX_SET(w, MPT, VALID, 1);
	RNIC_CTX_SET(w, MPT, ACCESS, (uint64_t)access);
	RNIC_CTX_SET(w, MPT, PD, m->mr.pd->handle);
	RNIC_CTX_SET(w, MPT, KEY, m->mr.lkey);
	RNIC_CTX_SET(w, MPT, VA, (uint64_t)(uintptr_t)m->mr.addr);
	RNIC_CTX_SET(w, MPT, LENGTH, (uint64_t)m->mr.length);
	RNIC_CTX_SET(w, MPT, PA, m->bus_addr);
}

#define ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
		    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

struct rnic_mr *rnic_reg_mr(struct rnic_pd *pd, void *addr, size_t length, int access)
{
	struct rnic_device *d;
	struct rnic_mr_priv *m;
	uint32_t w[RNIC_MPT_WORDS], idx, key;
	int64_t h;
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
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	h = rnic_idx_alloc(&d->mr_idx);
	if (h < 0) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	idx = (uint32_t)h;
	/* A new tag per registration: a stale key of an earlier MR at this index
	 * no longer matches. The all-ones key is INVALID_LKEY: skip it. */
	do {
		d->mr_tag[idx]++;
		key = idx << RNIC_MKEY_TAG_BITS | d->mr_tag[idx];
	} while (key == RNIC_INVALID_LKEY);

	err = d->ops->dma_map(d->priv, addr, length, &m->bus_addr);
	if (err)
		goto fail_idx;
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = idx;
	m->mr.lkey = key;
	m->mr.rkey = key;
	mpt_encode(w, m, access);
	err = rnic_ctx_write(d, RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, idx, w, RNIC_MPT_WORDS);
	if (err)
		goto fail_map;
	pd_priv(pd)->refcnt++;
	d->n_mr++;
	return &m->mr;

fail_map:
	d->ops->dma_unmap(d->priv, addr, length);
fail_idx:
	rnic_idx_free(&d->mr_idx, idx);
	free(m);
	errno = err;
	return NULL;
}

int rnic_dereg_mr(struct rnic_mr *mr)
{
	struct rnic_device *d;
	uint32_t w[RNIC_MPT_WORDS] = {0};
	int err;

	if (!mr)
		return EINVAL;
	d = rnic_dev(mr->context);
	/* Invalidate the entry before the memory may be unmapped. */
	err = rnic_ctx_write(d, RNIC_CTX_TABLE_MPT, RNIC_CTX_OP_WRITE, mr->handle, w, RNIC_MPT_WORDS);
	if (err)
		return err;
	d->ops->dma_unmap(d->priv, mr->addr, mr->length);
	rnic_idx_free(&d->mr_idx, mr->handle);
	pd_priv(mr->pd)->refcnt--;
	d->n_mr--;
	free(mr_priv(mr));
	return 0;
}
