/*
 * cuckoo_handle.c - filters the library owns, for callers outside the
 * server (libcuckoo, the Python module): a malloc'd view (cf_filter) over a
 * malloc'd buffer, which grows as cf_insert asks; what the extension's
 * cf_add, cf_delete, cf_union and cf_agg do to a stored filter, byte for
 * byte.  Plain C99.
 */
#include "cuckoo_view.h"
#include "cuckoo_util.h"

#include <stdlib.h>

/* cf_alloc_fn: malloc, which must not return NULL; ctx counts a failure */
static void *
cf_handle_alloc(size_t size, void *ctx)
{
	void	   *p = malloc(size > 0 ? size : 1);

	if (p == NULL)
	{
		/* cf_insert needs a buffer: stop here rather than write through NULL */
		(void) ctx;
		abort();
	}
	return p;
}

/* a new view of buf (owned: freed with the view) */
static cf_filter *
cf_handle_open(uint8_t *buf, size_t len, char *err, size_t errlen)
{
	cf_filter  *f = malloc(sizeof(cf_filter));

	if (f == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		free(buf);
		return NULL;
	}
	if (!cf_open(f, buf, len, err, errlen))
	{
		free(f);
		free(buf);
		return NULL;
	}
	return f;
}

/*
 * p as cf_create_size takes it: a field left 0 is its default
 * (cf_params_default), CF_NONE asks for no kicks or no growth, any other
 * value is checked by cf_create_size; the geometry as given (0 is
 * CF_BUILT_AT_ONCE: a chain table, growing by appended tables).  A zero-initialized struct is never a
 * silently different filter from SQL's cf_create(capacity).
 */
static void
cf_handle_params(const cf_params *in, cf_params *p)
{
	cf_params	d = cf_params_default(in->capacity);

	*p = *in;
	if (p->fpr == 0)
		p->fpr = d.fpr;
	if (p->bucket_size == 0)
		p->bucket_size = d.bucket_size;
	if (p->max_kicks == 0)
		p->max_kicks = d.max_kicks;
	else if (p->max_kicks == CF_NONE)
		p->max_kicks = 0;
	if (p->expansion == 0)
		p->expansion = d.expansion;
	else if (p->expansion == CF_NONE)
		p->expansion = 0;
}

cf_filter *
cf_filter_new(const cf_params *in, char *err, size_t errlen)
{
	cf_params	p;
	size_t		size;
	uint8_t    *buf;

	cf_handle_params(in, &p);
	size = cf_create_size(&p, err, errlen);
	if (size == 0)
		return NULL;
	buf = malloc(size);
	if (buf == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		return NULL;
	}
	cf_create(buf, &p);
	return cf_handle_open(buf, size, err, errlen);
}

cf_filter *
cf_filter_from_bytes(const uint8_t *bytes, size_t len, char *err, size_t errlen)
{
	uint8_t    *buf;

	if (!cf_validate(bytes, len, err, errlen))
		return NULL;
	buf = malloc(len > 0 ? len : 1);
	if (buf == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(buf, bytes, len);
	return cf_handle_open(buf, len, err, errlen);
}

cf_filter *
cf_filter_copy(const cf_filter *f)
{
	char		err[CF_ERRLEN];
	uint8_t    *buf = malloc(f->len > 0 ? f->len : 1);

	if (buf == NULL)
		return NULL;
	memcpy(buf, f->buf, f->len);
	return cf_handle_open(buf, f->len, err, sizeof(err));
}

void
cf_filter_free(cf_filter *f)
{
	if (f == NULL)
		return;
	free(f->buf);
	free(f);
}

const uint8_t *
cf_filter_bytes(const cf_filter *f, size_t *len)
{
	*len = f->len;
	return f->buf;
}

/* a version-1 filter rewritten as version 2 (writes need it), as the extension's writable copy */
static bool
cf_handle_writable(cf_filter *f)
{
	size_t		size;
	uint8_t    *buf;
	cf_filter	g;

	if (f->version >= 2)
		return true;
	size = cf_upgrade_size(f);
	buf = malloc(size);
	if (buf == NULL)
		return false;
	cf_upgrade(f, buf, &g);
	free(f->buf);
	*f = g;
	return true;
}

cf_status
cf_filter_insert(cf_filter *f, uint64_t h, bool unique, uint32_t kind)
{
	uint8_t    *before;
	cf_status	st;

	if (!cf_handle_writable(f))
		return CF_FULL;
	before = f->buf;
	st = unique ? cf_insert_unique(f, h, cf_handle_alloc, NULL) :
		cf_insert(f, h, cf_handle_alloc, NULL);
	if (f->buf != before)
		free(before);			/* it grew into a new buffer */
	if (st == CF_OK && f->kind == CF_KIND_NONE && f->hashing >= CF_HASHING_V2)
		cf_set_kind(f, kind);
	return st;
}

cf_status
cf_filter_remove(cf_filter *f, uint64_t h)
{
	if (!cf_contains(f, h))
		return CF_NOT_FOUND;	/* left as it is, as the extension leaves it */
	if (!cf_handle_writable(f))
		return CF_NOT_FOUND;
	return cf_delete(f, h);
}

cf_filter *
cf_filter_union(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	size_t		cap = cf_union_size(a, b, err, errlen);
	size_t		len;
	uint8_t    *buf;
	cf_filter	r;

	if (cap == 0)
		return NULL;
	buf = malloc(cap);
	if (buf == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		return NULL;
	}
	len = cf_union(a, b, buf, cap, &r, err, errlen);
	if (len == 0)
	{
		free(buf);
		return NULL;
	}
	return cf_handle_open(buf, len, err, errlen);
}

uint32_t
cf_filter_kind(const cf_filter *f)
{
	return f->kind;
}

uint32_t
cf_filter_hashing(const cf_filter *f)
{
	return f->hashing;
}

void
cf_filter_set_kind(cf_filter *f, uint32_t kind)
{
	if (cf_handle_writable(f))
		cf_set_kind(f, kind);
}

/*
 * cf_agg's sizes for n distinct hashes: capacity n + n/16 unless the call
 * gave one (a large filter then sits at 94% of the design load), and if
 * the bulk build does not fit that, n + n/16 + n/25 + 8 (src/pg's
 * cfpg_agg_build says why).
 */
int
cf_agg_capacities(uint64_t n, uint64_t capacity, uint64_t out[2])
{
	if (capacity > 0)
	{
		out[0] = capacity;
		return 1;
	}
	out[0] = n + n / 16;
	out[1] = n + n / 16 + n / 25 + 8;
	return 2;
}

/* cf_agg's parameters: the extension's defaults, chain tables */
static void
cf_agg_params(cf_params *p, uint64_t capacity, double fpr, int encoding)
{
	*p = cf_params_default(capacity);
	p->fpr = fpr;
	p->encoding = encoding;
	p->geometry = CF_BUILT_AT_ONCE;
}

/* a new empty filter for p, in mem's buffer; false with err set */
static bool
cf_agg_new(cf_filter *f, const cf_params *p, const cf_agg_mem *mem, char *err, size_t errlen)
{
	size_t		size = cf_create_size(p, err, errlen);
	uint8_t    *buf;

	if (size == 0)
		return false;
	buf = mem->alloc(size, mem->ctx);
	cf_create(buf, p);
	if (!cf_open(f, buf, size, err, errlen))
	{
		mem->release(buf, mem->ctx);
		return false;
	}
	return true;
}

/*
 * The filter for the sorted distinct hashes: capacity n + n/16 unless the
 * call gave one, so a large filter sits at 94% of the core's design load (a
 * load of 0.90 with buckets of 4).  That costs 6% more bytes than capacity
 * n, and buys a faster build (fewer items wait for a second round;
 * docs/performance.md, "cf_agg's design figures") and room for n/16 more
 * adds before the filter grows.  The bulk build (cf_build_runs) places them
 * all in one sub-filter; its input is the sorted set, so the filter depends
 * on the set alone.  Small filters (a few buckets) now and then do not fit
 * at the first size: 1 in 6,000 random sets of 1 to 3,000 values
 * (test_build_small_sets; 15 at capacity n), and none at n + n/16 + n/25 +
 * 8, so that is the one rebuild.  cf_agg writes chain tables, sized once (a
 * split table would pay the growth budget of a filter that starts empty up
 * front; parts of one capacity fold into one chain table as far as they
 * fit).  If the build fails, or a given capacity is too small, the hashes
 * go in one at a time and the filter grows into more sub-filters: no value
 * is ever lost.
 */
bool
cf_agg_build(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, uint64_t capacity,
			 double fpr, int encoding, const cf_agg_mem *mem, cf_params *p,
			 char *err, size_t errlen)
{
	uint64_t	sizes[2];
	int			nsizes = cf_agg_capacities(n, capacity, sizes);
	uint64_t	done = 0;

	for (int k = 0; k < nsizes; k++)
	{
		size_t		worklen;

		cf_agg_params(p, sizes[k], fpr, encoding);
		if (!cf_agg_new(f, p, mem, err, errlen))
			return false;
		worklen = cf_build_work_size(f, n);
		if (cf_build_runs(f, runs, nruns, mem->scratch(worklen > 0 ? worklen : 1, mem->ctx),
						  worklen))
			return true;
		mem->release(f->buf, mem->ctx);
	}
	/* one at a time, growing as needed: nothing is lost */
	if (!cf_agg_new(f, p, mem, err, errlen))
		return false;
	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++)
		{
			uint8_t    *before = f->buf;
			cf_status	st;

			if ((done++ & 4095) == 0 && cf_interrupt_hook)
				cf_interrupt_hook();
			st = cf_insert(f, runs[r].h[i], mem->alloc, mem->ctx);
			if (f->buf != before)
				mem->release(before, mem->ctx);	/* it grew into a new buffer */
			if (st != CF_OK)
			{
				if (cf_grow_size(f, err, errlen) != 0)
					cfi_set_err(err, errlen, "growth limit reached");
				mem->release(f->buf, mem->ctx);
				return false;
			}
		}
	return true;
}

/* cf_agg_mem over malloc: the scratch one block, grown as needed */
typedef struct cf_handle_scratch
{
	void	   *p;
	size_t		len;
} cf_handle_scratch;

static void
cf_handle_release(void *p, void *ctx)
{
	(void) ctx;
	free(p);
}

static void *
cf_handle_work(size_t size, void *ctx)
{
	cf_handle_scratch *s = ctx;

	if (size > s->len)
	{
		free(s->p);
		s->p = cf_handle_alloc(size, NULL);
		s->len = size;
	}
	return s->p;
}

cf_filter *
cf_filter_build(const uint64_t *h, size_t n, uint64_t capacity, double fpr, int encoding,
				uint32_t kind, char *err, size_t errlen)
{
	cf_handle_scratch scratch = {NULL, 0};
	cf_agg_mem	mem = {cf_handle_alloc, cf_handle_release, cf_handle_work, &scratch};
	cf_run		run = {h, n};
	cf_params	p;
	cf_filter  *f = malloc(sizeof(cf_filter));
	bool		ok;

	if (f == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		return NULL;
	}
	ok = cf_agg_build(f, &run, 1, n, capacity, fpr, encoding, &mem, &p, err, errlen);
	free(scratch.p);
	if (!ok)
	{
		free(f);
		return NULL;
	}
	cf_set_kind(f, kind);
	return f;
}
