/*
 * cuckoo_ops.c - operations on a whole filter: counts, adds, the exact
 * delete rule, growth by chain tables, union and statistics (lookups are
 * in cuckoo_lookup.c).
 */
#include "cuckoo_table.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * operations
 * ------------------------------------------------------------------- */

void
cf_set_journal(cf_filter *f, cf_journal *j)
{
	f->journal = j;
	for (uint32_t k = 0; k < f->nstages; k++)
		f->stages[k].journal = j;
}

/* writes a 64-bit header field (a counter) at off, through the journal */
static void
header_put64(cf_filter *f, size_t off, uint64_t v)
{
	if (f->journal)
		f->journal->save(f->journal, f->buf + off, 8);
	put_le64(f->buf + off, v);
}

void
cf_set_kind(cf_filter *f, uint32_t kind)
{
	if (f->version < 2 || f->kind == kind)
		return;
	if (f->journal)
		f->journal->save(f->journal, f->buf + 10, 1);
	f->buf[10] = (uint8_t) kind;
	f->kind = kind;
}

uint32_t
cf_count(const cf_filter *f, uint64_t h)
{
	uint32_t	n = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	fp = fingerprint(st, h);
		uint32_t	i1 = primary_bucket(st, h);
		uint32_t	i2 = alt_bucket(st, i1, fp);

		n += bucket_count(st, f->bucket_size, i1, fp);
		if (i2 != i1)
			n += bucket_count(st, f->bucket_size, i2, fp);
	}
	return n;
}

/* a sub-filter's load: adds go to the least loaded first */
static double
stage_load(const cf_stage *st, uint32_t bucket_size)
{
	return (double) st->nitems / ((double) st->nbuckets * bucket_size);
}

/*
 * Fills order[] with the sub-filter indexes from the least loaded to the
 * most, the newest first among equal loads (a stable insertion sort: at
 * most 32).
 */
static void
order_by_load(const cf_filter *f, uint32_t *order)
{
	double		keys[CF_MAX_STAGES];
	uint32_t	n = f->nstages;

	for (uint32_t k = 0; k < n; k++)
	{
		double		kk = stage_load(&f->stages[n - 1 - k], f->bucket_size);
		uint32_t	j = k;

		for (; j > 0 && keys[j - 1] > kk; j--)
		{
			keys[j] = keys[j - 1];
			order[j] = order[j - 1];
		}
		keys[j] = kk;
		order[j] = n - 1 - k;
	}
}

/*
 * Adds one copy of h: into the least loaded sub-filter (the newest after
 * growth), with a kick-out walk if its two buckets are full; failing that,
 * into a free slot of its two buckets in any other sub-filter.  Only one
 * walk, so a failed add costs at most max_kicks steps however many
 * sub-filters there are.  *walked is set to the sub-filter walked in.
 */
static cf_status
add_hash(cf_filter *f, uint64_t h, uint32_t *walked)
{
	uint32_t	order[CF_MAX_STAGES];
	uint32_t	b = f->bucket_size;
	cf_stage   *st;

	if (f->version < 2)
		return CF_READ_ONLY;
	*walked = 0;
	if (f->nstages > 1)
	{
		order_by_load(f, order);
		*walked = order[0];
	}
	st = &f->stages[*walked];
	if (cfi_stage_insert(st, b, f->max_kicks, primary_bucket(st, h), fingerprint(st, h)))
		return CF_OK;
	for (uint32_t k = 1; k < f->nstages; k++)
	{
		uint32_t	fp,
					i1;

		st = &f->stages[order[k]];
		fp = fingerprint(st, h);
		i1 = primary_bucket(st, h);
		if (bucket_put(st, b, i1, fp) || bucket_put(st, b, alt_bucket(st, i1, fp), fp))
		{
			stage_set_nitems(st, st->nitems + 1);
			return CF_OK;
		}
	}
	return CF_FULL;
}

cf_status
cf_add(cf_filter *f, uint64_t h)
{
	uint32_t	walked;

	return add_hash(f, h, &walked);
}

/*
 * Are both buckets of h in sub-filter k filled with copies of h alone?  Then
 * the add failed for want of room for yet another copy, not for want of
 * space in general.
 */
static bool
saturated_by_copies(const cf_filter *f, uint32_t k, uint64_t h)
{
	const cf_stage *st = &f->stages[k];
	uint32_t	fp = fingerprint(st, h);
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint32_t	n = bucket_count(st, f->bucket_size, i1, fp);

	if (i2 == i1)
		return n == f->bucket_size;
	return n + bucket_count(st, f->bucket_size, i2, fp) == 2 * f->bucket_size;
}

static size_t grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen);
static void grow(cf_filter *f, uint8_t *newbuf, bool same_size);

cf_status
cf_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	walked;
	cf_status	st = add_hash(f, h, &walked);
	size_t		newlen;
	bool		copies;

	if (st != CF_FULL || f->expansion == 0)
		return st;

	/*
	 * One value fits 2 * bucket_size times into a sub-filter (its copies can
	 * only live in its two buckets).  When that is why the add failed, the
	 * new sub-filter is as large as the largest one, not expansion times
	 * larger: a value added hundreds of times then costs kilobytes, not a
	 * filter that doubles every few copies.
	 */
	copies = saturated_by_copies(f, walked, h);
	newlen = grow_size(f, copies, NULL, 0);
	if (newlen == 0)
		return CF_CANNOT_GROW;
	grow(f, alloc(newlen, ctx), copies);
	/* the fresh sub-filter is the least loaded, with two empty buckets for h */
	return cf_add(f, h);
}

cf_status
cf_insert_unique(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	if (f->version < 2)
		return CF_READ_ONLY;
	if (cf_contains(f, h))
		return CF_OK;
	return cf_insert(f, h, alloc, ctx);
}

/*
 * Does sub-filter s refine sub-filter t: do two values that collide in s
 * (same fingerprint, same bucket pair) always collide in t?  True for the
 * same table, for tables of one geometry, and in a chain family for a
 * table of no lower level and no narrower fingerprint (FORMAT.md).
 */
static bool
refines(const cf_stage *s, const cf_stage *t)
{
	if (s == t)
		return true;
	if (s->geom != t->geom)
		return false;
	if (s->geom == CF_GEOM_LEGACY)
		return s->nbuckets == t->nbuckets && s->fpbits == t->fpbits;
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

/*
 * Removes one copy of h from the sub-filter with a match that refines every
 * other sub-filter with a match.  If h was added, a copy of it owns some
 * matching entry e_h in a sub-filter t; if the entry removed belongs to
 * another value z, z collides with h in the chosen sub-filter, hence in t,
 * so z can own e_h instead: no value loses its last match (FORMAT.md,
 * "Deletes").  Without such a sub-filter the value stays, and is counted.
 */
cf_status
cf_delete(cf_filter *f, uint64_t h)
{
	uint32_t	match[CF_MAX_STAGES];
	uint32_t	n = 0;

	if (f->version < 2)
		return CF_READ_ONLY;
	for (uint32_t k = f->nstages; k-- > 0;)
		if (stage_has(&f->stages[k], f->bucket_size, h))
			match[n++] = k;
	if (n == 0)
		return CF_NOT_FOUND;
	for (uint32_t a = 0; a < n; a++)
	{
		cf_stage   *st = &f->stages[match[a]];
		uint32_t	fp,
					i1;
		bool		finest = true;

		for (uint32_t c = 0; c < n && finest; c++)
			finest = refines(st, &f->stages[match[c]]);
		if (!finest)
			continue;
		fp = fingerprint(st, h);
		i1 = primary_bucket(st, h);
		if (!bucket_remove(st, f->bucket_size, i1, fp) &&
			!bucket_remove(st, f->bucket_size, alt_bucket(st, i1, fp), fp))
			abort();			/* cannot happen: stage_has found it */
		stage_set_nitems(st, st->nitems - 1);
		f->deletes++;
		header_put64(f, 24, f->deletes);
		return CF_OK;
	}
	f->retained++;
	header_put64(f, 32, f->retained);
	return CF_RETAINED;
}

/* ---------------------------------------------------------------------
 * growth
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

static size_t
grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen)
{
	cf_stage	st;
	uint64_t	len;

	if (f->expansion == 0)
	{
		cfi_set_err(err, errlen, "filter was created with expansion 0 and cannot grow");
		return 0;
	}
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

/*
 * Writes f (version 2) plus 'extra' sub-filters into out and re-opens f on
 * out: the header, f's descriptors, the new descriptors (descs), f's
 * tables, then the new tables (tables[k], or zeros when tables is NULL).
 * out may be f->buf itself when it has room: the tables are moved before
 * anything overwrites them.
 */
static void
splice_stages(cf_filter *f, uint8_t *out, uint32_t extra,
			  const uint8_t *descs, const uint8_t *const *tables)
{
	size_t		hdr = f->hdrlen;
	size_t		body = f->len - hdr;
	size_t		off = hdr + (size_t) CF_V2_STAGE_SIZE * extra;

	memmove(out + off, f->buf + hdr, body);
	if (out != f->buf)
		memcpy(out, f->buf, hdr);
	memcpy(out + hdr, descs, (size_t) CF_V2_STAGE_SIZE * extra);
	out[5] = (uint8_t) (f->nstages + extra);
	off += body;
	for (uint32_t k = 0; k < extra; k++)
	{
		const uint8_t *d = descs + (size_t) CF_V2_STAGE_SIZE * k;
		size_t		tb = (size_t) table_bytes_for(get_le32(d), f->bucket_size, d[8], d[12]);

		if (tables)
			memcpy(out + off, tables[k], tb);
		else
			memset(out + off, 0, tb);
		off += tb;
	}
	if (!cf_open(f, out, off, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

size_t
cf_grow_size(const cf_filter *f, char *err, size_t errlen)
{
	if (f->version < 2)
	{
		cfi_set_err(err, errlen, "a version-1 filter must be upgraded before it can grow");
		return 0;
	}
	return grow_size(f, false, err, errlen);
}

static void
grow(cf_filter *f, uint8_t *newbuf, bool same_size)
{
	uint8_t		desc[CF_V2_STAGE_SIZE];
	cf_stage	st;

	if (!next_stage(f, same_size, &st, NULL, 0))
		abort();				/* cannot happen: grow_size checked it */
	cfi_write_desc(desc, &st);
	splice_stages(f, newbuf, 1, desc, NULL);
}

void
cf_grow(cf_filter *f, uint8_t *newbuf)
{
	grow(f, newbuf, false);
}

/* ---------------------------------------------------------------------
 * union
 * ------------------------------------------------------------------- */

/* the bytes of x as version 2 */
static size_t
v2_len(const cf_filter *x)
{
	return x->version < 2 ? cf_upgrade_size(x) : x->len;
}

size_t
cf_union_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	size_t		len;

	if (a->bucket_size != b->bucket_size)
	{
		cfi_set_err(err, errlen, "filters have different bucket sizes (%u and %u)",
				a->bucket_size, b->bucket_size);
		return 0;
	}
	if (a->fpbits != b->fpbits)
	{
		cfi_set_err(err, errlen, "filters have different fingerprint widths (%u and %u bits): they were created with different false-positive rates",
				a->fpbits, b->fpbits);
		return 0;
	}
	if (a->hashing != b->hashing)
	{
		cfi_set_err(err, errlen, "filters hash values differently (value hashing %u and %u): one was written by cuckoo 1.0",
				a->hashing, b->hashing);
		return 0;
	}
	if (a->kind != b->kind && a->kind != CF_KIND_NONE && b->kind != CF_KIND_NONE &&
		a->kind != CF_KIND_ANY && b->kind != CF_KIND_ANY)
	{
		cfi_set_err(err, errlen, "filters hold values of different kinds (%u and %u)", a->kind, b->kind);
		return 0;
	}
	len = v2_len(a) + v2_len(b) - CF_V2_HEADER_SIZE;
	if (len > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "the union would exceed the 1 GB a value can hold");
		return 0;
	}
	return len;
}

/*
 * Moves every fingerprint of src into dst (same geometry): a slot's bucket
 * and fingerprint are all an insert needs, so no original value is required.
 * Returns false, with dst partly filled, if one does not fit.
 */
static bool
fold_stage(cf_stage *dst, const cf_stage *src, uint32_t bucket_size, uint32_t max_kicks)
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

/* same geometry: the same fingerprints and bucket pairs for every hash */
static bool
same_geometry(const cf_stage *s, const cf_stage *t)
{
	return s->geom == t->geom && s->nbuckets == t->nbuckets && s->fpbits == t->fpbits &&
		s->level == t->level && s->basebits == t->basebits;
}

size_t
cf_union(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
		 cf_filter *result, char *err, size_t errlen)
{
	uint8_t		descs[CF_MAX_STAGES * CF_V2_STAGE_SIZE];
	const uint8_t *tables[CF_MAX_STAGES];
	uint32_t	extra = 0;
	size_t		alen = v2_len(a);
	cf_filter	r;

	if (cf_union_size(a, b, err, errlen) == 0)
		return 0;
	if (outcap < alen + v2_len(b) - CF_V2_HEADER_SIZE)
	{
		cfi_set_err(err, errlen, "union buffer too small");
		return 0;
	}
	if (a->version < 2)
		cf_upgrade(a, out, &r);
	else
	{
		memcpy(out, a->buf, alen);
		if (!cf_open(&r, out, alen, err, errlen))
			return 0;
	}
	if (r.kind == CF_KIND_NONE || b->kind == CF_KIND_ANY)
		r.kind = b->kind;
	r.deletes += b->deletes;
	r.retained += b->retained;
	out[10] = (uint8_t) r.kind;
	put_le64(out + 24, r.deletes);
	put_le64(out + 32, r.retained);

	/*
	 * Fold each sub-filter of b into one of a's sub-filters of the same
	 * geometry when all of it fits.  The free tail of out (at least b's size)
	 * holds a copy of the target table so that a failed fold is rolled back.
	 * What does not fold is appended as a sub-filter of its own.
	 */
	for (uint32_t kb = 0; kb < b->nstages; kb++)
	{
		const cf_stage *sb = &b->stages[kb];
		bool		folded = sb->nitems == 0;	/* an empty one adds nothing */

		for (uint32_t ka = 0; ka < a->nstages && !folded; ka++)
		{
			cf_stage   *sr = &r.stages[ka];
			uint32_t	saved_items = sr->nitems;
			uint8_t    *saved = out + r.len;

			if (!same_geometry(sr, sb) ||
				(uint64_t) sr->nitems + sb->nitems > (uint64_t) sr->nbuckets * r.bucket_size)
				continue;
			memcpy(saved, sr->table, sr->table_bytes);
			folded = fold_stage(sr, sb, r.bucket_size, r.max_kicks);
			if (!folded)
			{
				memcpy(sr->table, saved, sr->table_bytes);
				stage_set_nitems(sr, saved_items);
			}
		}
		if (!folded)
		{
			if (r.nstages + extra >= CF_MAX_STAGES)
			{
				cfi_set_err(err, errlen, "the union would need more than %d sub-filters", CF_MAX_STAGES);
				return 0;
			}
			cfi_write_desc(descs + (size_t) CF_V2_STAGE_SIZE * extra, sb);
			tables[extra++] = sb->table;
		}
	}
	if (extra > 0)
		splice_stages(&r, out, extra, descs, tables);
	*result = r;
	return r.len;
}

/* ---------------------------------------------------------------------
 * statistics
 * ------------------------------------------------------------------- */

void
cf_get_stats(const cf_filter *f, cf_stats *s)
{
	uint64_t	slots = 0;
	double		fpr_miss = 1.0;

	memset(s, 0, sizeof(*s));
	s->bucket_size = f->bucket_size;
	s->fingerprint_bits = f->fpbits;
	s->bytes = f->len;
	s->subfilters = f->nstages;
	s->target_fpr = f->target_fpr;
	s->expansion = f->expansion;
	s->max_kicks = f->max_kicks;
	s->version = f->version;
	s->hashing = f->hashing;
	s->kind = f->kind;
	s->deletes = f->deletes;
	s->retained = f->retained;
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		uint64_t	n = (uint64_t) st->nbuckets * f->bucket_size;
		double		load = (double) st->nitems / (double) n;
		bool		new_family = true;

		for (uint32_t j = 0; j < k && new_family; j++)
			new_family = !(refines(st, &f->stages[j]) || refines(&f->stages[j], st));
		s->families += new_family;
		s->semisorted += st->enc == CF_ENC_SEMISORT;
		s->items += st->nitems;
		s->buckets += st->nbuckets;
		slots += n;
		s->capacity += k == 0 ? f->capacity :
			n * design_load_permille(f->bucket_size) / 1000;
		/* a miss in this sub-filter: no occupied slot of 2 buckets matches */
		fpr_miss *= pow(1.0 - 1.0 / (double) st->fpmax, 2.0 * f->bucket_size * load);
	}
	s->load_factor = slots ? (double) s->items / (double) slots : 0.0;
	s->fpr = 1.0 - fpr_miss;
}
