/*
 * cuckoo_ops.c - operations on a whole filter, the policy over its
 * sub-filters: which sub-filter takes an add (the least loaded, or the one
 * that grows in place), when and how the filter grows, the exact delete
 * rule, union (one geometry's merge, else side by side), the header
 * counters and statistics.  What a sub-filter does is its geometry's
 * (cuckoo_geom_iface.h), whose table it carries from the moment it is opened
 * (cf_open, here: with the registry, cfi_geometries); lookups take the path
 * cuckoo_lookup.c chose at open (each geometry's module holds its own).
 */
#include "cuckoo_geom.h"
#include "cuckoo_check.h"
#include "cuckoo_list.h"

#include <stdlib.h>

/* ---------------------------------------------------------------------
 * the geometries
 * ------------------------------------------------------------------- */

/* the operations of sub-filter st, chosen when its filter was opened */
static inline const cfi_geometry *
ops_of(const cf_stage *st)
{
	return cfi_geometry_of(st);
}

bool
cf_open(cf_filter *f, uint8_t *buf, size_t len, char *err, size_t errlen)
{
	return cfi_open(f, buf, len, &cfi_geometries, err, errlen);
}

bool
cf_validate(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	return cfi_validate(buf, len, &cfi_geometries, err, errlen);
}

void
cf_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result)
{
	cfi_upgrade(f, out, result, &cfi_geometries);
}

/*
 * The sub-filter of f that grows in place and takes every add (a split
 * table, a list), or -1: then f grows by a new chain table.
 */
static int
in_place_stage(const cf_filter *f)
{
	if (f->split >= 0)
		return f->split;
	for (uint32_t k = 0; k < f->nstages; k++)
		if (ops_of(&f->stages[k])->growth != NULL && ops_of(&f->stages[k])->growth->insert_grow != NULL)
			return (int) k;
	return -1;
}

/* how f grows: by its in-place sub-filter's geometry, else by an appended sub-filter */
static const cfi_growth *
growth_ops(const cf_filter *f, uint32_t *k)
{
	int			g = in_place_stage(f);

	*k = g < 0 ? 0 : (uint32_t) g;
	return g < 0 ? cfi_geom_appended->growth : ops_of(&f->stages[g])->growth;
}

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

/*
 * A version-2 filter about to be changed becomes version 3 in place (the
 * same layout: its version and check bytes written, journaled); a
 * version-3 one only gets its header's check byte again (after a change
 * of a covered header field).  FORMAT.md "Version 3".
 */
static void
reseal(cf_filter *f)
{
	if (f->version < 2)
		return;
	if (f->journal)
		f->journal->save(f->journal, f->buf, f->version == 2 ? f->hdrlen : CF_V2_HEADER_SIZE);
	if (f->version == 2)
		cfi_seal(f->buf);
	else
		f->buf[CF_V3_HCHECK] = cfi_hcheck(f->buf);
	f->version = 3;
}

void
cf_set_kind(cf_filter *f, uint32_t kind)
{
	if (f->version < 2 || f->kind == kind)
		return;
	if (f->journal)
		f->journal->save(f->journal, f->buf + HDR_KIND, 1);
	f->buf[HDR_KIND] = (uint8_t) kind;
	f->kind = kind;
	reseal(f);
}

uint32_t
cf_count(const cf_filter *f, uint64_t h)
{
	uint32_t	n = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
		n += ops_of(&f->stages[k])->count(&f->stages[k], f->bucket_size, h);
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
 * Adds one copy of h: into the sub-filter that grows in place if f has one
 * (it alone takes adds), else into the least loaded sub-filter (the newest
 * after growth), with a kick-out walk if its two buckets are full; failing
 * that, into a free slot of its two buckets in any other sub-filter.  Only
 * one walk, so a failed add costs at most max_kicks steps however many
 * sub-filters there are.  *walked is set to the sub-filter walked in.
 */
static cf_status
add_hash_into(cf_filter *f, uint64_t h, uint32_t *walked)
{
	uint32_t	order[CF_MAX_STAGES];
	uint32_t	b = f->bucket_size;
	int			g;
	cf_stage   *st;

	if (f->version < 2)
		return CF_READ_ONLY;
	g = in_place_stage(f);
	if (g >= 0)
	{
		st = &f->stages[g];
		*walked = (uint32_t) g;
		return ops_of(st)->add(st, b, f->max_kicks, h) ? CF_OK : CF_FULL;
	}
	*walked = 0;
	if (f->nstages > 1)
	{
		order_by_load(f, order);
		*walked = order[0];
	}
	st = &f->stages[*walked];
	if (ops_of(st)->add(st, b, f->max_kicks, h))
		return CF_OK;
	for (uint32_t k = 1; k < f->nstages; k++)
	{
		st = &f->stages[order[k]];
		if (ops_of(st)->add(st, b, 0, h))
			return CF_OK;
	}
	return CF_FULL;
}

/*
 * add_hash_into, and a version-2 filter becomes version 3 (its check bytes
 * set) only when the add changed it: a failed add leaves every byte as it
 * was, the version's included.
 */
static cf_status
add_hash(cf_filter *f, uint64_t h, uint32_t *walked)
{
	bool		v2 = f->version == 2;
	cf_status	r = add_hash_into(f, h, walked);

	if (v2 && r == CF_OK)
		reseal(f);
	return r;
}

cf_status
cf_add(cf_filter *f, uint64_t h)
{
	uint32_t	walked;

	return add_hash(f, h, &walked);
}

static size_t grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen);
static void grow(cf_filter *f, uint8_t *newbuf, bool same_size);

cf_status
cf_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	walked;
	cf_status	st = add_hash(f, h, &walked);
	const cf_stage *ws;
	size_t		newlen;
	bool		copies;
	int			g;

	if (st != CF_FULL || f->expansion == 0)
		return st;
	/* a sub-filter that grows in place grows its own way */
	g = in_place_stage(f);
	if (g >= 0)
		return ops_of(&f->stages[g])->growth->insert_grow(f, (uint32_t) g, h, alloc, ctx);

	/*
	 * One value fits 2 * bucket_size times into a sub-filter (its copies can
	 * only live in its two buckets).  When that is why the add failed, the
	 * new sub-filter is as large as the largest one, not expansion times
	 * larger: a value added hundreds of times then costs kilobytes, not a
	 * filter that doubles every few copies.
	 */
	ws = &f->stages[walked];
	copies = ops_of(ws)->full_of_copies(ws, f->bucket_size, h);
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


/* does sub-filter s refine t (the geometry's rule; any table refines itself) */
static bool
refines(const cf_stage *s, const cf_stage *t)
{
	return s == t || (s->geom == t->geom && ops_of(s)->refines(s, t));
}

/*
 * Are the sub-filters match[0..n) one family of a geometry whose entries
 * nest by precision whatever sub-filter holds them (split tables of one
 * base, side by side after a union)?
 */
static bool
one_family(const cf_filter *f, const uint32_t *match, uint32_t n)
{
	const cf_stage *s = &f->stages[match[0]];
	const cfi_geometry *o = ops_of(s);

	if (o->same_family == NULL)
		return false;
	for (uint32_t a = 1; a < n; a++)
	{
		const cf_stage *t = &f->stages[match[a]];

		if (t->geom != s->geom || !o->same_family(s, t))
			return false;
	}
	return true;
}

/*
 * Removes one copy of h from the sub-filter with a match that refines every
 * other sub-filter with a match.  If h was added, a copy of it owns some
 * matching entry e_h in a sub-filter t; if the entry removed belongs to
 * another value z, z collides with h in the chosen sub-filter, hence in t,
 * so z can own e_h instead: no value loses its last match (FORMAT.md,
 * "Deletes").  Without such a sub-filter the value stays, and is counted.
 */
static cf_status
delete_hash(cf_filter *f, uint64_t h)
{
	uint32_t	match[CF_MAX_STAGES];
	uint32_t	n = 0;

	if (f->version < 2)
		return CF_READ_ONLY;
	for (uint32_t k = f->nstages; k-- > 0;)
		if (ops_of(&f->stages[k])->has(&f->stages[k], f->bucket_size, h))
			match[n++] = k;
	if (n == 0)
		return CF_NOT_FOUND;
	if (n > 1 && one_family(f, match, n))
	{
		/* h's finest match among all of them; ties go to the last sub-filter */
		const cfi_geometry *o = ops_of(&f->stages[match[0]]);
		uint32_t	k = match[0];
		int			best = o->precision(&f->stages[k], f->bucket_size, h);

		for (uint32_t a = 1; a < n; a++)
		{
			int			p = o->precision(&f->stages[match[a]], f->bucket_size, h);

			if (p > best)
			{
				best = p;
				k = match[a];
			}
		}
		if (!o->remove(&f->stages[k], f->bucket_size, h))
			abort();			/* cannot happen: has found it */
		f->deletes++;
		header_put64(f, HDR_DELETES, f->deletes);
		return CF_OK;
	}
	for (uint32_t a = 0; a < n; a++)
	{
		cf_stage   *st = &f->stages[match[a]];
		bool		finest = true;

		for (uint32_t c = 0; c < n && finest; c++)
			finest = refines(st, &f->stages[match[c]]);
		if (!finest)
			continue;
		if (!ops_of(st)->remove(st, f->bucket_size, h))
			abort();			/* cannot happen: has found it */
		f->deletes++;
		header_put64(f, HDR_DELETES, f->deletes);
		return CF_OK;
	}
	f->retained++;
	header_put64(f, HDR_RETAINED, f->retained);
	return CF_RETAINED;
}

/* delete_hash; a version-2 filter becomes version 3 only when the delete changed it */
cf_status
cf_delete(cf_filter *f, uint64_t h)
{
	bool		v2 = f->version == 2;
	cf_status	r = delete_hash(f, h);

	if (v2 && (r == CF_OK || r == CF_RETAINED))
		reseal(f);
	return r;
}


/* ---------------------------------------------------------------------
 * bulk build (cuckoo_build.c for chain tables)
 * ------------------------------------------------------------------- */

bool
cf_build_runs(cf_filter *f, const cf_run *runs, size_t nruns, void *work, size_t worklen)
{
	cf_stage   *st = &f->stages[0];
	const cfi_geometry *g = ops_of(st);
	uint64_t	n = 0;

	if (g->build == NULL)
		return false;			/* a list is no table: the caller builds a table */
	for (size_t r = 0; r < nruns; r++)
		n += runs[r].n;
	if (f->nstages != 1 || st->nitems != 0 || st->journal != NULL ||
		n > (uint64_t) st->nbuckets * f->bucket_size || worklen < cf_build_work_size(f, n))
		return false;
	return g->build(f, runs, nruns, n, work);
}

bool
cf_build(cf_filter *f, const uint64_t *h, size_t n, void *work, size_t worklen)
{
	cf_run		run = {h, n};

	return cf_build_runs(f, &run, 1, work, worklen);
}

/* ---------------------------------------------------------------------
 * growth
 * ------------------------------------------------------------------- */

static size_t
grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen)
{
	uint32_t	k;
	const cfi_growth *g = growth_ops(f, &k);

	if (f->expansion == 0)
	{
		cfi_set_err(err, errlen, "filter was created with expansion 0 and cannot grow");
		return 0;
	}
	return g->grow_size(f, k, same_size, err, errlen);
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
	uint32_t	k;
	const cfi_growth *g = growth_ops(f, &k);

	g->grow(f, k, newbuf, same_size);
}

void
cf_grow(cf_filter *f, uint8_t *newbuf)
{
	grow(f, newbuf, false);
}

/* ---------------------------------------------------------------------
 * union
 * ------------------------------------------------------------------- */

static size_t side_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen);
static size_t side(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
				   cf_filter *result, char *err, size_t errlen);

/* what a geometry's union calls back for */
static const cf_union_again again = {
	.size = cf_union_size,
	.unite = cf_union,
	.side_size = side_size,
	.side = side,
};

/*
 * The geometry that takes the union of a and b: a list's (either side), or
 * a split table's for two filters of one split family; NULL: a and b stand
 * side by side.
 */
static const cfi_growth *
union_ops(const cf_filter *a, const cf_filter *b)
{
	int			ga = in_place_stage(a),
				gb = in_place_stage(b);
	const cfi_growth *oa = ga < 0 ? NULL : ops_of(&a->stages[ga])->growth,
			   *ob = gb < 0 ? NULL : ops_of(&b->stages[gb])->growth;

	if (oa != NULL && oa->unites(a, b))
		return oa;
	if (ob != NULL && ob->unites(a, b))
		return ob;
	return NULL;
}

/* the bytes of x as version 2 */
static size_t
v2_len(const cf_filter *x)
{
	return x->version < 2 ? cf_upgrade_size(x) : x->len;
}

size_t
cf_union_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	const cfi_growth *u;

	if (a->bucket_size != b->bucket_size)
	{
		cfi_set_err(err, errlen, "filters have different bucket sizes (%u and %u)",
				a->bucket_size, b->bucket_size);
		return 0;
	}
	if (in_place_stage(a) >= 0 || in_place_stage(b) >= 0)
	{
		if (!cfi_split_same_schedule(a, b))
		{
			cfi_set_err(err, errlen, "filters were created with false-positive rates that give different fingerprint widths (%g and %g)",
					a->target_fpr, b->target_fpr);
			return 0;
		}
	}
	else if (a->fpbits != b->fpbits)
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
	u = union_ops(a, b);
	if (u != NULL)
		return u->union_size(a, b, &again, err, errlen);
	return side_size(a, b, err, errlen);
}

/*
 * The bytes of a and b side by side: a's sub-filters, then b's that do not
 * fold into one of them.
 */
static size_t
side_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	size_t		len = v2_len(a) + v2_len(b) - CF_V2_HEADER_SIZE;

	/*
	 * cf_union saves a table of a in the free tail (after a's bytes) before
	 * folding b's table of the same geometry into it; a bit-packed table is
	 * larger than a semi-sorted one of that geometry, so the tail may need
	 * more than b's bytes
	 */
	for (uint32_t k = 0; k < a->nstages; k++)
		if (v2_len(a) + a->stages[k].table_bytes > len)
			len = v2_len(a) + a->stages[k].table_bytes;
	if (len > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "the union would exceed the 1 GB a value can hold");
		return 0;
	}
	return len;
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
	const cfi_growth *u;

	if (cf_union_size(a, b, err, errlen) == 0)
		return 0;
	if (outcap < cf_union_size(a, b, NULL, 0))
	{
		cfi_set_err(err, errlen, "union buffer too small");
		return 0;
	}
	u = union_ops(a, b);
	if (u != NULL)
		return u->unite(a, b, out, outcap, result, &again, err, errlen);
	return side(a, b, out, outcap, result, err, errlen);
}

/*
 * a and b side by side: a's sub-filters (upgraded to version 2), then b's,
 * each folded into one of a's of the same geometry when its geometry folds
 * and all of it fits
 */
static size_t
side(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
	 cf_filter *result, char *err, size_t errlen)
{
	uint8_t		descs[CF_MAX_STAGES * CF_V2_STAGE_SIZE];
	const uint8_t *tables[CF_MAX_STAGES];
	uint32_t	extra = 0;
	size_t		alen = v2_len(a);
	cf_filter	r;

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
	out[HDR_KIND] = (uint8_t) r.kind;
	put_le64(out + HDR_DELETES, r.deletes);
	put_le64(out + HDR_RETAINED, r.retained);
	cfi_seal(out);
	r.version = 3;

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

			if (!same_geometry(sr, sb) || ops_of(sb)->fold == NULL ||
				(uint64_t) sr->nitems + sb->nitems > (uint64_t) sr->nbuckets * r.bucket_size)
				continue;
			memcpy(saved, sr->table, sr->table_bytes);
			folded = ops_of(sb)->fold(sr, sb, r.bucket_size, r.max_kicks);
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
		cfi_splice_stages(&r, out, extra, descs, tables);
	*result = r;
	return r.len;
}


uint64_t
cf_item_count(const cf_filter *f)
{
	uint64_t	n = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
		n += ops_of(&f->stages[k])->items(&f->stages[k]);
	return n;
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
	if (f->nstages == 1 && ops_of(&f->stages[0])->growth != NULL &&
		ops_of(&f->stages[0])->growth->filter_stats != NULL)
	{
		ops_of(&f->stages[0])->growth->filter_stats(f, s);
		return;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		bool		new_family = true;

		for (uint32_t j = 0; j < k && new_family; j++)
			new_family = !(refines(st, &f->stages[j]) || refines(&f->stages[j], st));
		s->families += new_family;
		s->semisorted += codec_is_semisorted(st);
		ops_of(st)->stats(f, k, s, &slots, &fpr_miss);
	}
	/* stash records are items outside the slots: a full table with a stash stays at 1 */
	s->load_factor = slots ? (double) s->items / (double) slots : 0.0;
	if (s->load_factor > 1.0)
		s->load_factor = 1.0;
	s->fpr = 1.0 - fpr_miss;
}

/* ---------------------------------------------------------------------
 * what a filter is, for callers that must not read its sub-filters
 * ------------------------------------------------------------------- */

bool
cf_is_list(const cf_filter *f)
{
	return filter_is_list(f);
}

size_t
cf_list_hashes(const cf_filter *f, uint64_t *out, size_t max)
{
	const cf_stage *st = &f->stages[0];

	if (!filter_is_list(f))
		return 0;
	for (uint32_t i = 0; i < st->nitems && i < max; i++)
		out[i] = list_get(st, i);
	return st->nitems;
}

int
cf_encoding_of(const cf_filter *f)
{
	uint32_t	semi = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
		semi += codec_is_semisorted(&f->stages[k]);
	if (semi == 0)
		return CF_ENC_PACKED;
	return semi == f->nstages ? CF_ENC_SEMISORT : CF_ENC_MIXED;
}

bool
cf_encoding_valid(int enc)
{
	return cfi_codec_of(enc) != NULL;
}

void
cf_set_counters(cf_filter *f, uint64_t deletes, uint64_t retained)
{
	if (f->version < 2)
		return;
	if (f->journal)
		f->journal->save(f->journal, f->buf + HDR_DELETES, 16);
	put_le64(f->buf + HDR_DELETES, deletes);
	put_le64(f->buf + HDR_RETAINED, retained);
	f->deletes = deletes;
	f->retained = retained;
}
