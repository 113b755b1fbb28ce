/*
 * cuckoo_lookup.c - cf_contains: the lookup path each filter takes, chosen
 * once when it is opened (its geometry's, else the general path below).
 */
#include "cuckoo_lookup.h"

/*
 * The general path, for a filter of mixed geometries (or one whose
 * geometry has no path of its own): newest (largest) sub-filter first,
 * each asked through its geometry's has, stopping at the first match.
 */
static bool
contains_any(const cf_filter *f, uint64_t h)
{
	for (uint32_t k = f->nstages; k-- > 0;)
	{
		const cf_stage *st = &f->stages[k];

		if (cfi_geometry_of(st)->has(st, f->bucket_size, h))
			return true;
	}
	return false;
}

static const cfi_lookup_path general = {"any", 0, false, contains_any, NULL, NULL};

/* the path f was opened with (sub-filter 0's engine state holds it) */
#define PATH_OF(f)	(ENG(&(f)->stages[0])->path)

bool
cf_contains(const cf_filter *f, uint64_t h)
{
	return PATH_OF(f)->contains(f, h);
}

/* the paths without a bigint form take the value's hash */
bool
cf_contains_int64(const cf_filter *f, int64_t v)
{
	const cfi_lookup_path *p = PATH_OF(f);

	if (p->contains_int64 != NULL)
		return p->contains_int64(f, v);
	return p->contains(f, cf_hash_int64_inline(v));
}

/* the paths without a batch form: one lookup after another */
size_t
cf_contains_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	const cfi_lookup_path *p = PATH_OF(f);
	size_t		hits = 0;

	if (p->many != NULL)
		return p->many(f, h, n, found);
	for (size_t j = 0; j < n; j++)
	{
		found[j] = p->contains(f, h[j]);
		hits += found[j];
	}
	return hits;
}

/*
 * The probe of a value with alternates (cuckoo.h): its own hash, then the
 * others, the first one held wins.  The one loop the glue's and the Python
 * module's probes share.
 */
size_t
cf_contains_first(const cf_filter *f, const uint64_t *h, size_t n)
{
	const cfi_lookup_path *p = PATH_OF(f);

	for (size_t j = 0; j < n; j++)
		if (p->contains(f, h[j]))
			return j;
	return n;
}

cf_probe
cf_probe_of(const cf_filter *f)
{
	cf_probe	p;
	const cf_stage *st = &f->stages[0];
	const uint32_t bb = st->bucket_bits;

	memset(&p, 0, sizeof(p));
	p.f = f;
	p.contains = cf_contains;
	p.contains_int64 = cf_contains_int64;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return p;
#endif
	/* the one-table paths' filters (one level-0 table, base key = fingerprint), whole bytes */
	if (f->nstages != 1 || !PATH_OF(f)->table || bb % 8 != 0 || bb > 64)
		return p;
	p.bucket_bytes = bb / 8;
	p.base = st->table + (ptrdiff_t) p.bucket_bytes - 8;
	p.nbuckets = st->nbuckets;
	p.lanes_lo = ENG(st)->lanes_lo << (64 - bb);
	p.lanes_hi = ENG(st)->lanes_hi << (64 - bb);
	p.fp_shift = 32 - st->fpbits;
	return p;
}

void
cfi_setup_lookup(cf_filter *f)
{
	const cfi_geometry *ops = cfi_geometry_of(&f->stages[0]);
	const cfi_lookup_path *p = NULL;

	for (uint32_t k = 1; k < f->nstages; k++)
		if (cfi_geometry_of(&f->stages[k]) != ops)
			ops = NULL;
	if (ops != NULL && ops->lookup != NULL)
		p = ops->lookup(f);
	if (p == NULL)
		p = &general;
	PATH_OF(f) = p;
	f->lookup = p->id;
}
