/*
 * cuckoo_geom_chain.c - the geometries of one cuckoo table with a bucket
 * pair per value: chain (geometry 2, FORMAT.md "Hashing": a family of
 * tables whose pairs refine, so deletes are exact) and legacy (geometry 1,
 * version-1 tables, read only).  Their kick-out insertion is
 * cuckoo_table.c's; a filter of them grows by appending a chain table.
 * Plain C99.
 */
#include "cuckoo_geom.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * reading one table (FORMAT.md, "Table descriptor")
 * ------------------------------------------------------------------- */

/* a chain table: a level its buckets allow, a base key within its width */
static bool
chain_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (!cfi_check_slots(f, st, k, err, errlen))
		return false;
	if (st->level > 31 || (st->nbuckets & (uint32_t) ((UINT64_C(1) << st->level) - 1)) != 0)
	{
		cfi_set_err(err, errlen, "sub-filter %u has %u buckets, not a multiple of 2^%u for its level",
				k, st->nbuckets, st->level);
		return false;
	}
	if (st->basebits < CF_MIN_FPBITS || st->basebits + st->level > st->fpbits)
	{
		cfi_set_err(err, errlen, "sub-filter %u has base width %u, level %u and width %u (the base width must be at least %d and at most the width less the level)",
				k, st->basebits, st->level, st->fpbits, CF_MIN_FPBITS);
		return false;
	}
	cfi_stage_setup(st, f->bucket_size);
	return true;
}

/* a legacy table: level 0, its base key the whole fingerprint (else no geometry this build reads) */
static bool
legacy_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (!cfi_check_slots(f, st, k, err, errlen))
		return false;
	if (st->level != 0 || st->basebits != st->fpbits)
		return cfi_unknown_geometry(st, k, err, errlen);
	cfi_stage_setup(st, f->bucket_size);
	return true;
}

/* every entry is a fingerprint: any nonzero slot value */
static bool
chain_scan(const cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	return cfi_scan_table(f, k, UINT32_MAX, err, errlen);
}

/* ---------------------------------------------------------------------
 * one table
 * ------------------------------------------------------------------- */

/* stage_has (cuckoo_split.h) reads both geometries */
static bool
chain_has(const cf_stage *st, uint32_t b, uint64_t h)
{
	return stage_has(st, b, h);
}

static uint32_t
chain_count(const cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h),
				i1 = primary_bucket(st, h),
				i2 = alt_bucket(st, i1, fp),
				n = bucket_count(st, b, i1, fp);

	if (i2 != i1)
		n += bucket_count(st, b, i2, fp);
	return n;
}

/* a kick-out walk of at most max_kicks steps (0: a free slot of the pair or nothing) */
static bool
chain_add(cf_stage *st, uint32_t b, uint32_t max_kicks, uint64_t h)
{
	return cfi_stage_insert(st, b, max_kicks, primary_bucket(st, h), fingerprint(st, h));
}

static bool
chain_remove(cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h),
				i1 = primary_bucket(st, h);

	if (!bucket_remove(st, b, i1, fp) && !bucket_remove(st, b, alt_bucket(st, i1, fp), fp))
		return false;
	stage_set_nitems(st, st->nitems - 1);
	return true;
}

/* version-1 tables: each size and width unrelated to the others */
static bool
legacy_refines(const cf_stage *s, const cf_stage *t)
{
	return s->nbuckets == t->nbuckets && s->fpbits == t->fpbits;
}

/*
 * Does sub-filter s refine sub-filter t: do two values that collide in s
 * (same fingerprint, same bucket pair) always collide in t?  In a chain
 * family for a table of no lower level and no narrower fingerprint
 * (FORMAT.md).
 */
static bool
chain_refines(const cf_stage *s, const cf_stage *t)
{
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

/*
 * Are both buckets of h in sub-filter st filled with copies of h alone?  Then
 * the add failed for want of room for yet another copy, not for want of
 * space in general.
 */
static bool
chain_full_of_copies(const cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h);
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint32_t	n = bucket_count(st, b, i1, fp);

	if (i2 == i1)
		return n == b;
	return n + bucket_count(st, b, i2, fp) == 2 * b;
}

/*
 * Moves every fingerprint of src into dst (same geometry): a slot's bucket
 * and fingerprint are all an insert needs, so no original value is required.
 * Returns false, with dst partly filled, if one does not fit.
 */
static bool
chain_fold(cf_stage *dst, const cf_stage *src, uint32_t bucket_size, uint32_t max_kicks)
{
	for (uint32_t i = 0; i < src->nbuckets; i++)
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	fp = slot_get(src, bucket_size, i, s);

			check_interrupts((uint64_t) i * bucket_size + s);

			if (fp != 0 && !cfi_stage_insert(dst, bucket_size, max_kicks, i, fp))
				return false;
		}
	return true;
}

/* the bulk build of cuckoo_build.c */
static bool
chain_build(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work)
{
	return cfi_build_pairs(f, runs, nruns, n, work);
}

static uint64_t
chain_items(const cf_stage *st)
{
	return st->nitems;
}

static void
chain_stats(const cf_filter *f, uint32_t k, cf_stats *s, uint64_t *slots, double *miss)
{
	const cf_stage *st = &f->stages[k];
	uint64_t	n = (uint64_t) st->nbuckets * f->bucket_size;
	double		load = (double) st->nitems / (double) n;

	s->items += st->nitems;
	s->buckets += st->nbuckets;
	*slots += n;
	s->capacity += k == 0 ? f->capacity :
		n * design_load_permille(f->bucket_size) / 1000;
	/* a miss in this sub-filter: no occupied slot of 2 buckets matches */
	*miss *= pow(1.0 - 1.0 / (double) st->fpmax, 2.0 * f->bucket_size * load);
}

/* ---------------------------------------------------------------------
 * growth: a filter without a sub-filter that grows in place (chain and
 * legacy tables only) grows by a new chain table
 * ------------------------------------------------------------------- */

/*
 * The chain family growth extends: stage 0's, else the first chain
 * sub-filter's (a version-1 filter that grew), else none.
 */
static const cf_stage *
home_family(const cf_filter *f)
{
	for (uint32_t k = 0; k < f->nstages; k++)
		if (f->stages[k].geom == CF_GEOM_CHAIN)
			return &f->stages[k];
	return NULL;
}

/*
 * The sub-filter growth appends.  In the home family: expansion times the
 * buckets of its largest table (log2(expansion) levels up; as many when
 * same_size) and one fingerprint bit more than its widest (at least the
 * width its level needs), so false-positive rates form a halving series.
 * A filter with no chain table (version 1) starts a family: expansion times
 * its largest sub-filter, one bit wider than its widest.  Returns false
 * with err set if that exceeds a limit.
 */
static bool
next_stage(const cf_filter *f, bool same_size, cf_stage *out, char *err, size_t errlen)
{
	const cf_stage *home = home_family(f);
	uint64_t	m = 0;
	uint32_t	level = 0,
				width = 0,
				step = 0;

	memset(out, 0, sizeof(*out));
	out->geom = CF_GEOM_CHAIN;
	/* a filter grows in the encoding of its first table (FORMAT.md, "Growth") */
	out->enc = f->stages[0].enc;
	while ((1u << step) < f->expansion)
		step++;
	if (home == NULL)
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			m = f->stages[k].nbuckets > m ? f->stages[k].nbuckets : m;
			width = f->stages[k].fpbits > width ? f->stages[k].fpbits : width;
		}
		m = same_size ? f->stages[f->nstages - 1].nbuckets : m * f->expansion;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		out->basebits = width < CF_CHAIN_KEY_MAX ? width : CF_CHAIN_KEY_MAX;
	}
	else
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			const cf_stage *st = &f->stages[k];

			if (st->geom != CF_GEOM_CHAIN || st->base_nbuckets != home->base_nbuckets ||
				st->basebits != home->basebits)
				continue;
			level = st->level > level ? st->level : level;
			width = st->fpbits > width ? st->fpbits : width;
		}
		level += same_size ? 0 : step;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		if (width < home->basebits + level)
			width = home->basebits + level;
		out->basebits = home->basebits;
		m = level > 31 ? UINT64_MAX : (uint64_t) home->base_nbuckets << level;
	}
	out->level = level;
	out->fpbits = width;
	if (width > CF_MAX_FPBITS)
	{
		cfi_set_err(err, errlen, "growing the filter would need fingerprints wider than %d bits",
				CF_MAX_FPBITS);
		return false;
	}
	if (m > UINT32_MAX)
	{
		cfi_set_err(err, errlen, "growing the filter would need a sub-filter of more than 2^32 buckets");
		return false;
	}
	out->nbuckets = (uint32_t) m;
	return true;
}

/* the filter with one more sub-filter (next_stage) */
static size_t
chain_grow_size(const cf_filter *f, uint32_t k, bool same_size, char *err, size_t errlen)
{
	cf_stage	st;
	uint64_t	len;

	(void) k;
	if (f->nstages >= CF_MAX_STAGES)
	{
		cfi_set_err(err, errlen, "filter already has the maximum of %d sub-filters", CF_MAX_STAGES);
		return 0;
	}
	if (!next_stage(f, same_size, &st, err, errlen))
		return 0;
	len = f->len + CF_V2_STAGE_SIZE + table_bytes_for(st.nbuckets, f->bucket_size, st.fpbits, st.enc);
	if (len > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "growing the filter would exceed the 1 GB a value can hold");
		return 0;
	}
	return (size_t) len;
}

static void
chain_grow(cf_filter *f, uint32_t k, uint8_t *out, bool same_size)
{
	uint8_t		desc[CF_V2_STAGE_SIZE];
	cf_stage	st;

	(void) k;
	if (!next_stage(f, same_size, &st, NULL, 0))
		abort();				/* cannot happen: grow_size checked it */
	cfi_write_desc(desc, &st);
	cfi_splice_stages(f, out, 1, desc, NULL, &cfi_geom_chain);
}

/* ---------------------------------------------------------------------
 * the operations tables
 * ------------------------------------------------------------------- */

const cf_geom_ops cfi_geom_chain = {
	.name = "chain",
	.geom = CF_GEOM_CHAIN,
	.below = &cfi_geom_legacy,
	.stash = false,
	.check = chain_check,
	.attach = NULL,
	.scan = chain_scan,
	.has = chain_has,
	.count = chain_count,
	.add = chain_add,
	.remove = chain_remove,
	.refines = chain_refines,
	.full_of_copies = chain_full_of_copies,
	.fold = chain_fold,
	.items = chain_items,
	.build = chain_build,
	.stats = chain_stats,
	.grow_size = chain_grow_size,
	.grow = chain_grow,
};

/* legacy tables: chain's operations but for refines; a legacy filter grows by chain tables */
const cf_geom_ops cfi_geom_legacy = {
	.name = "legacy",
	.geom = CF_GEOM_LEGACY,
	.below = NULL,
	.stash = false,
	.check = legacy_check,
	.attach = NULL,
	.scan = chain_scan,
	.has = chain_has,
	.count = chain_count,
	.add = chain_add,
	.remove = chain_remove,
	.refines = legacy_refines,
	.full_of_copies = chain_full_of_copies,
	.fold = chain_fold,
	.items = chain_items,
	.build = chain_build,
	.stats = chain_stats,
};
