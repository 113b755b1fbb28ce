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

cf_filter *
cf_filter_new(const cf_params *p, char *err, size_t errlen)
{
	size_t		size = cf_create_size(p, err, errlen);
	uint8_t    *buf;

	if (size == 0)
		return NULL;
	buf = malloc(size);
	if (buf == NULL)
	{
		cfi_set_err(err, errlen, "out of memory");
		return NULL;
	}
	cf_create(buf, p);
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
cf_handle_agg_params(cf_params *p, uint64_t capacity, double fpr, int encoding)
{
	p->capacity = capacity;
	p->fpr = fpr;
	p->bucket_size = CF_DEFAULT_BUCKET_SIZE;
	p->max_kicks = CF_DEFAULT_MAX_KICKS;
	p->expansion = CF_DEFAULT_EXPANSION;
	p->encoding = encoding;
	p->geometry = CF_BUILT_AT_ONCE;
}

cf_filter *
cf_filter_build(const uint64_t *h, size_t n, uint64_t capacity, double fpr, int encoding,
				uint32_t kind, char *err, size_t errlen)
{
	uint64_t	sizes[2];
	int			nsizes = cf_agg_capacities(n, capacity, sizes);
	cf_params	p;
	cf_filter  *f;

	for (int k = 0; k < nsizes; k++)
	{
		size_t		worklen;
		void	   *work;
		cf_run		run;
		bool		ok;

		cf_handle_agg_params(&p, sizes[k], fpr, encoding);
		f = cf_filter_new(&p, err, errlen);
		if (f == NULL)
			return NULL;
		worklen = cf_build_work_size(f, n);
		work = malloc(worklen > 0 ? worklen : 1);
		if (work == NULL)
		{
			cf_filter_free(f);
			cfi_set_err(err, errlen, "out of memory");
			return NULL;
		}
		run.h = h;
		run.n = n;
		ok = cf_build_runs(f, &run, 1, work, worklen);
		free(work);
		if (ok)
		{
			cf_set_kind(f, kind);
			return f;
		}
		cf_filter_free(f);
	}
	/* one at a time, growing as needed: nothing is lost */
	cf_handle_agg_params(&p, sizes[nsizes - 1], fpr, encoding);
	f = cf_filter_new(&p, err, errlen);
	if (f == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		uint8_t    *before = f->buf;
		cf_status	st = cf_insert(f, h[i], cf_handle_alloc, NULL);

		if (f->buf != before)
			free(before);
		if (st != CF_OK)
		{
			if (cf_grow_size(f, err, errlen) != 0)
				cfi_set_err(err, errlen, "growth limit reached");
			cf_filter_free(f);
			return NULL;
		}
	}
	cf_set_kind(f, kind);
	return f;
}
