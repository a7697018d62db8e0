/* OpenRNIC host library: protection domains and memory regions (MPT). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

struct rnic_pd *rnic_alloc_pd(struct rnic_context *context)
{
	uint32_t out[RNIC_CMD_ALLOC_PD_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_pd_priv *p;
	int err;

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
	err = rnic_cmd(d, RNIC_CMD_OP_ALLOC_PD, NULL, 0, out, RNIC_CMD_ALLOC_PD_OUT_WORDS);
	if (err) {
		free(p);
		errno = err;
		return NULL;
	}
	p->pd.context = context;
	p->pd.handle = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_PD_OUT, PD);
	d->n_pd++;
	return &p->pd;
}

int rnic_dealloc_pd(struct rnic_pd *pd)
{
	uint32_t in[RNIC_CMD_DEALLOC_PD_IN_WORDS] = {0};
	struct rnic_device *d;
	int err;

	if (!pd)
		return EINVAL;
	if (pd_priv(pd)->refcnt)
		return EBUSY;
	d = rnic_dev(pd->context);
	RNIC_CTX_SET(in, CMD_DEALLOC_PD_IN, PD, pd->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DEALLOC_PD, in, RNIC_CMD_DEALLOC_PD_IN_WORDS, NULL, 0);
	if (err)
		return err;
	d->n_pd--;
	free(pd_priv(pd));
	return 0;
}

#define ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
		    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC | RNIC_ACCESS_MW_BIND)

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

/* WRITE_MTT: the page list in chunks; the last chunk makes the MR valid. */
static int mtt_write(struct rnic_device *d, const struct rnic_mr_priv *m, const uint64_t *pages)
{
	uint32_t in[RNIC_CMD_WRITE_MTT_IN_WORDS], out[RNIC_CMD_WRITE_MTT_OUT_WORDS];
	int err;

	for (uint32_t off = 0; off < m->npages; off += RNIC_LIB_MTT_CHUNK) {
		uint32_t n = m->npages - off < RNIC_LIB_MTT_CHUNK ? m->npages - off : RNIC_LIB_MTT_CHUNK;

		memset(in, 0, sizeof(in));
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, KEY, m->mr.lkey);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, PD, m->mr.pd->handle);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, OFFSET, off);
		RNIC_CTX_SET(in, CMD_WRITE_MTT_IN, COUNT, n);
		for (uint32_t i = 0; i < n; i++)
			RNIC_CTX_SET_I(in, CMD_WRITE_MTT_IN, PAGE, i, pages[off + i]);
		/* Only the words this chunk uses: the rest are not read. */
		err = rnic_cmd(d, RNIC_CMD_OP_WRITE_MTT, in,
			       (RNIC_CMD_WRITE_MTT_IN_PAGE_LSB + RNIC_CMD_WRITE_MTT_IN_PAGE_W * n + 31) / 32, out,
			       RNIC_CMD_WRITE_MTT_OUT_WORDS);
		if (err)
			return err;
		if (RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, WRITTEN) != off + n ||
		    RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, VALID) != (off + n == m->npages)) {
			rnic_log("WRITE_MTT of pages %u..%u answered written %u valid %u", off,
				 off + n - 1, (unsigned int)RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, WRITTEN),
				 (unsigned int)RNIC_CTX_GET(out, CMD_WRITE_MTT_OUT, VALID));
			return EIO;
		}
	}
	return 0;
}

static int dereg_cmd(struct rnic_device *d, uint32_t key, uint32_t pd)
{
	uint32_t in[RNIC_CMD_DEREG_MR_IN_WORDS] = {0};

	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, KEY, key);
	RNIC_CTX_SET(in, CMD_DEREG_MR_IN, PD, pd);
	return rnic_cmd(d, RNIC_CMD_OP_DEREG_MR, in, RNIC_CMD_DEREG_MR_IN_WORDS, NULL, 0);
}

struct rnic_mr *rnic_reg_mr(struct rnic_pd *pd, void *addr, size_t length, int access)
{
	uint32_t in[RNIC_CMD_REG_MR_IN_WORDS] = {0}, out[RNIC_CMD_REG_MR_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_mr_priv *m;
	uint64_t *pages = NULL, first, last;
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
	if (!pages) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	err = map_pages(d, addr, length, pages, m->npages);
	if (err)
		goto fail_free;

	/* REG_MR: the firmware picks the MPT index, key and MTT run. */
	RNIC_CTX_SET(in, CMD_REG_MR_IN, PD, pd->handle);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, ACCESS, (uint32_t)access);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, VA, (uint64_t)(uintptr_t)addr);
	RNIC_CTX_SET(in, CMD_REG_MR_IN, LENGTH, (uint64_t)length);
	err = rnic_cmd(d, RNIC_CMD_OP_REG_MR, in, RNIC_CMD_REG_MR_IN_WORDS, out,
		       RNIC_CMD_REG_MR_OUT_WORDS);
	if (err)
		goto fail_map;
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.lkey = (uint32_t)RNIC_CTX_GET(out, CMD_REG_MR_OUT, KEY);
	m->mr.rkey = m->mr.lkey;
	m->mr.handle = m->mr.lkey >> RNIC_MKEY_TAG_BITS;
	if (RNIC_CTX_GET(out, CMD_REG_MR_OUT, NPAGES) != m->npages) {
		rnic_log("REG_MR: the firmware counts %u pages, the library %u",
			 (unsigned int)RNIC_CTX_GET(out, CMD_REG_MR_OUT, NPAGES), m->npages);
		err = EIO;
	} else {
		err = mtt_write(d, m, pages);
	}
	if (err) {
		if (dereg_cmd(d, m->mr.lkey, pd->handle))
			rnic_log("DEREG_MR of a half-registered MR (key 0x%08x) failed", m->mr.lkey);
		goto fail_map;
	}
	free(pages);
	pd_priv(pd)->refcnt++;
	d->n_mr++;
	return &m->mr;

fail_map:
	d->ops->dma_unmap(d->priv, addr, length);
fail_free:
	free(pages);
	free(m);
	errno = err;
	return NULL;
}

int rnic_dereg_mr(struct rnic_mr *mr)
{
	struct rnic_device *d;
	int err;

	if (!mr)
		return EINVAL;
	d = rnic_dev(mr->context);
	/* The firmware invalidates the MPT entry before the memory may be
	 * unmapped and its MTT entries reused. */
	err = dereg_cmd(d, mr->lkey, mr->pd->handle);
	if (err)
		return err;
	d->ops->dma_unmap(d->priv, mr->addr, mr->length);
	pd_priv(mr->pd)->refcnt--;
	d->n_mr--;
	free(mr_priv(mr));
	return 0;
}

/* ---------------------------------------------------------------- memory windows */

struct rnic_mw *rnic_alloc_mw(struct rnic_pd *pd, int type)
{
	uint32_t in[RNIC_CMD_ALLOC_MW_IN_WORDS] = {0}, out[RNIC_CMD_ALLOC_MW_OUT_WORDS];
	struct rnic_device *d;
	struct rnic_mw *mw;
	int err;

	if (!pd || (type != RNIC_MW_TYPE_1 && type != RNIC_MW_TYPE_2)) {
		errno = EINVAL;
		return NULL;
	}
	d = rnic_dev(pd->context);
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, PD, pd->handle);
	RNIC_CTX_SET(in, CMD_ALLOC_MW_IN, TYPE, (uint32_t)type);
	err = rnic_cmd(d, RNIC_CMD_OP_ALLOC_MW, in, RNIC_CMD_ALLOC_MW_IN_WORDS, out,
		       RNIC_CMD_ALLOC_MW_OUT_WORDS);
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->rkey = (uint32_t)RNIC_CTX_GET(out, CMD_ALLOC_MW_OUT, RKEY);
	mw->handle = mw->rkey >> RNIC_MKEY_TAG_BITS;
	pd_priv(pd)->refcnt++;
	d->n_mw++;
	return mw;
}

int rnic_dealloc_mw(struct rnic_mw *mw)
{
	uint32_t in[RNIC_CMD_DEALLOC_MW_IN_WORDS] = {0};
	struct rnic_device *d;
	int err;

	if (!mw)
		return EINVAL;
	d = rnic_dev(mw->context);
	/* a bound window is invalidated first, by the firmware */
	RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, RKEY, mw->rkey);
	RNIC_CTX_SET(in, CMD_DEALLOC_MW_IN, PD, mw->pd->handle);
	err = rnic_cmd(d, RNIC_CMD_OP_DEALLOC_MW, in, RNIC_CMD_DEALLOC_MW_IN_WORDS, NULL, 0);
	if (err)
		return err;
	pd_priv(mw->pd)->refcnt--;
	d->n_mw--;
	free(mw);
	return 0;
}
