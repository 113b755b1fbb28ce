/*
 * cuckoo_ops.c - operations on a whole filter: counts, adds, the exact
 * delete rule, growth by chain tables, union and statistics (lookups are
 * in cuckoo_lookup.c).
 */
#include "cuckoo_format.h"
#include "cuckoo_split.h"

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
		f->journal->save(f->journal, f->buf + HDR_KIND, 1);
	f->buf[HDR_KIND] = (uint8_t) kind;
	f->kind = kind;
}

uint32_t
cf_count(const cf_filter *f, uint64_t h)
{
	uint32_t	n = 0;

	if (filter_is_list(f))
	{
		const cf_stage *st = &f->stages[0];

		for (uint32_t i = list_lower(st, h); i < st->nitems && list_get(st, i) == h; i++)
			n++;
		return n;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	fp,
					i1,
					i2;

		if (st->geom == CF_GEOM_SPLIT)
		{
			n += cfi_split_count(st, f->bucket_size, h);
			continue;
		}
		fp = fingerprint(st, h);
		i1 = primary_bucket(st, h);
		i2 = alt_bucket(st, i1, fp);
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

/* ---------------------------------------------------------------------
 * lists (FORMAT.md, "List sub-filters")
 * ------------------------------------------------------------------- */

/* h at its sorted position (after its equals) in a free slot; else CF_FULL */
static cf_status
list_add(cf_filter *f, uint64_t h)
{
	cf_stage   *st = &f->stages[0];
	uint32_t	i = list_lower(st, h);

	if (st->nitems >= st->nbuckets)
		return CF_FULL;
	while (i < st->nitems && list_get(st, i) == h)
		i++;
	if (st->journal)
		st->journal->save(st->journal, st->table + (size_t) i * 8,
						  (size_t) (st->nitems + 1 - i) * 8);
	memmove(st->table + (size_t) i * 8 + 8, st->table + (size_t) i * 8,
			(size_t) (st->nitems - i) * 8);
	put_le64(st->table + (size_t) i * 8, h);
	stage_set_nitems(st, st->nitems + 1);
	return CF_OK;
}

/* removes one copy of h (the later ones shift down); false if none */
static bool
list_remove(cf_filter *f, uint64_t h)
{
	cf_stage   *st = &f->stages[0];
	uint32_t	i = list_lower(st, h);

	if (i >= st->nitems || list_get(st, i) != h)
		return false;
	if (st->journal)
		st->journal->save(st->journal, st->table + (size_t) i * 8,
						  (size_t) (st->nitems - i) * 8);
	memmove(st->table + (size_t) i * 8, st->table + (size_t) i * 8 + 8,
			(size_t) (st->nitems - 1 - i) * 8);
	put_le64(st->table + (size_t) (st->nitems - 1) * 8, 0);
	stage_set_nitems(st, st->nitems - 1);
	return true;
}

/* the slots a full list grows to: twice as many, at most its bound (0: convert) */
static uint32_t
list_next_slots(const cf_filter *f)
{
	const cf_stage *st = &f->stages[0];
	uint32_t	max = cfi_list_max(f->capacity, f->target_fpr, f->bucket_size, st->enc);

	if (st->nbuckets >= max)
		return 0;
	return st->nbuckets * 2 < max ? st->nbuckets * 2 : max;
}

/* f's list with nslots slots (>= its items) written into out, f re-opened on it */
static void
list_relayout(cf_filter *f, uint8_t *out, uint32_t nslots)
{
	const cf_stage *st = &f->stages[0];
	size_t		hdr = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE;
	size_t		used = (size_t) st->nitems * 8;

	memcpy(out, f->buf, hdr + used);
	memset(out + hdr + used, 0, (size_t) nslots * 8 - used);
	put_le32(out + CF_V2_HEADER_SIZE, nslots);
	if (!cf_open(f, out, hdr + (size_t) nslots * 8, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

/*
 * Puts the hashes of list l, in order, into the split table r (empty or
 * not) as new keys at r's level; the ones that do not fit are written to
 * rest (room for all) and counted in *nrest.
 */
static void
list_place(const cf_stage *l, cf_filter *r, uint64_t *rest, uint32_t *nrest)
{
	cf_stage   *st = &r->stages[0];

	for (uint32_t i = 0; i < l->nitems; i++)
	{
		uint64_t	h = list_get(l, i);

		if (!cfi_split_insert(st, r->bucket_size, r->max_kicks, h))
			rest[(*nrest)++] = h;
	}
}

static cf_status split_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx);
static void list_view(const cf_filter *l, uint32_t L, uint32_t W, cf_filter *v);

/* largest level-0 table a conversion first builds on the stack (a dry run) */
#define LIST_DRY_RUN_MAX	16384

/*
 * Stash records a conversion of the n hashes hs into split table t (level
 * 0, empty) needs at least: the members of a group of more than 2b hashes
 * with one base key and one bucket pair (copies of a value) beyond 2b.
 */
static uint32_t
list_group_excess(const cf_stage *t, uint32_t b, const uint64_t *hs, uint32_t n)
{
	uint32_t	need = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		split_probe pi;
		uint32_t	same = 0;

		split_probe_at(t->base_nbuckets, 0, t->basebits, t->extbits, hs[i], &pi);
		for (uint32_t j = 0; j < i; j++)
		{
			split_probe pj;

			split_probe_at(t->base_nbuckets, 0, t->basebits, t->extbits, hs[j], &pj);
			same += pj.q1 >> (t->extbits + 1) == pi.q1 >> (t->extbits + 1) &&
				((pj.i1 == pi.i1 && pj.i2 == pi.i2) || (pj.i1 == pi.i2 && pj.i2 == pi.i1));
		}
		need += same >= 2 * b;
	}
	return need;
}

/*
 * cf_insert into a full list: a list twice as large (up to its bound), or
 * at the bound the level-0 split table of its header with every hash of
 * the list, then h, inserted in order (the split insert, kick-out walks of
 * max_kicks), the ones that do not fit in as many stash records, in order.
 * One allocation: the table is first built on the stack when it is small
 * (then exact), else the stash is sized for the copies beyond 2b of a
 * group sharing one pair; should a walk still fail past that (distinct
 * values at under a fifth of the design load: not seen), those hashes go
 * through the split table's own insert, which allocates again.
 */
static cf_status
list_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	nslots = list_next_slots(f);
	uint64_t	hs[CF_LIST_MAX + 1],
				rest[CF_LIST_MAX + 1];
	uint32_t	n = f->stages[0].nitems,
				nrest = 0,
				nstash;
	size_t		tl = cfi_list_table_len(f);
	uint8_t    *out;
	cf_filter	r;

	if (nslots != 0)
	{
		list_relayout(f, alloc(CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) nslots * 8, ctx),
					  nslots);
		return list_add(f, h);
	}
	for (uint32_t i = 0; i < n; i++)
		hs[i] = list_get(&f->stages[0], i);
	hs[n++] = h;
	if (tl <= LIST_DRY_RUN_MAX)
	{
		uint64_t	dry[(LIST_DRY_RUN_MAX + 7) / 8];

		cfi_list_table(f, (uint8_t *) dry, &r);
		for (uint32_t i = 0; i < n; i++)
			if (!cfi_split_insert(&r.stages[0], r.bucket_size, r.max_kicks, hs[i]))
				rest[nrest++] = hs[i];
		nstash = nrest;
		out = alloc(tl + (size_t) nstash * CF_SPLIT_STASH_REC, ctx);
		memcpy(out, dry, tl);
	}
	else
	{
		cf_filter	t;

		/* the view of the table, for its probes: no data read */
		list_view(f, 0, f->fpbits, &t);
		nstash = list_group_excess(&t.stages[0], f->bucket_size, hs, n);
		out = alloc(tl + (size_t) nstash * CF_SPLIT_STASH_REC, ctx);
		cfi_list_table(f, out, &r);
		for (uint32_t i = 0; i < n; i++)
			if (!cfi_split_insert(&r.stages[0], r.bucket_size, r.max_kicks, hs[i]))
				rest[nrest++] = hs[i];
	}
	if (nstash > CF_SPLIT_STASH_MAX)
		nstash = CF_SPLIT_STASH_MAX;
	memset(out + tl, 0, (size_t) nstash * CF_SPLIT_STASH_REC);
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) nstash);
	if (!cf_open(&r, out, tl + (size_t) nstash * CF_SPLIT_STASH_REC, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
	for (uint32_t i = 0; i < nrest && i < nstash; i++)
	{
		uint32_t	x,
					e;

		cfi_split_stash_entry(&r.stages[0], rest[i], &x, &e);
		cfi_split_stash_put(&r.stages[0], i, x, 0, e);
	}
	*f = r;
	for (uint32_t i = nstash; i < nrest; i++)
	{
		cf_status	st = split_insert(f, rest[i], alloc, ctx);

		if (st != CF_OK)
			return st;
	}
	return CF_OK;
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
	if (filter_is_list(f))
		return list_add(f, h);
	if (f->split >= 0)
	{
		/* a filter with a split table adds into it alone: it grows in place */
		*walked = (uint32_t) f->split;
		return cfi_split_insert(&f->stages[f->split], b, f->max_kicks, h) ? CF_OK : CF_FULL;
	}
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

/* ---------------------------------------------------------------------
 * split tables: doubling in place, the stash
 * ------------------------------------------------------------------- */

/* bytes of f with split sub-filter k at (level, width) and nstash records */
static uint64_t
split_layout_len(const cf_filter *f, uint32_t k, uint32_t level, uint32_t width, uint32_t nstash)
{
	const cf_stage *st = &f->stages[k];
	uint64_t	nb = (uint64_t) st->base_nbuckets << level;

	return (uint64_t) f->len - stage_data_bytes(st) +
		table_bytes_for(nb, f->bucket_size, width, st->enc) + (uint64_t) nstash * CF_SPLIT_STASH_REC;
}

/* the width a split table has after doubling to level */
static uint32_t
split_next_width(const cf_filter *f, const cf_stage *st, uint32_t level)
{
	uint32_t	w = cf_split_width(f->target_fpr, f->bucket_size, level);

	return w > st->fpbits ? w : st->fpbits;
}

/* can split sub-filter k double?  Sets err when not. */
static bool
split_can_double(const cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	const cf_stage *st = &f->stages[k];
	uint32_t	L = st->level + 1;

	if (L > 31 || ((uint64_t) st->base_nbuckets << L) > UINT32_MAX)
	{
		cfi_set_err(err, errlen, "growing the filter would need a table of more than 2^32 buckets");
		return false;
	}
	if (L + (split_next_width(f, st, L) - 1 - st->basebits) > 64 - st->basebits)
	{
		cfi_set_err(err, errlen, "growing the filter would need more hash bits than a value has");
		return false;
	}
	if (split_layout_len(f, k, L, split_next_width(f, st, L), st->nstash) > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "growing the filter would exceed the 1 GB a value can hold");
		return false;
	}
	return true;
}

/*
 * Writes f into out (split_layout_len bytes, not f's buffer) with split
 * sub-filter k at (level, width) and nstash stash records, and re-opens f
 * on out.  level is k's level (the table copied; same width) or one more
 * (the table doubled).  Records past k's own are free (zero).
 */
static void
split_relayout(cf_filter *f, uint32_t k, uint8_t *out, uint32_t level, uint32_t width,
			   uint32_t nstash)
{
	cf_stage	old = f->stages[k];
	cf_stage	nw = old;
	uint32_t	b = f->bucket_size;
	size_t		start = (size_t) (old.table - f->buf);
	size_t		oldend = start + stage_data_bytes(&old);
	size_t		tb,
				len = (size_t) split_layout_len(f, k, level, width, nstash);

	nw.level = level;
	nw.nbuckets = old.base_nbuckets << level;
	nw.fpbits = width;
	nw.nstash = nstash;
	nw.journal = NULL;
	cfi_stage_setup(&nw, b);
	tb = nw.table_bytes;
	memcpy(out, f->buf, start);
	nw.desc = out + (old.desc - f->buf);
	nw.table = out + start;
	nw.stash = nw.table + tb;
	memcpy(nw.stash + (size_t) nstash * CF_SPLIT_STASH_REC, f->buf + oldend, f->len - oldend);
	cfi_write_desc(nw.desc, &nw);
	if (level == old.level)
	{
		memcpy(nw.table, old.table, tb);
		if (old.nstash)
			memcpy(nw.stash, old.stash, (size_t) old.nstash * CF_SPLIT_STASH_REC);
	}
	else
	{
		memset(nw.table, 0, tb);
		cfi_split_double(&old, &nw, b);
	}
	memset(nw.stash + (size_t) old.nstash * CF_SPLIT_STASH_REC, 0,
		   (size_t) (nstash - old.nstash) * CF_SPLIT_STASH_REC);
	if (!cf_open(f, out, len, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

/*
 * Would one doubling free a slot of h's pair?  Not when every slot holds an
 * entry with h's base key (its pair is h's) whose next extension bit, if
 * it has one, is h's: each child pair then takes them all again.
 */
static bool
split_pair_stuck(const cf_stage *st, uint32_t b, uint64_t h)
{
	split_probe p;
	uint32_t	R = st->extbits;

	split_probe_of(st, h, &p);
	for (int side = 0; side < 2; side++)
	{
		uint32_t	i = side ? p.i2 : p.i1;
		uint32_t	q = side ? p.q2 : p.q1;

		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	v = slot_get(st, b, i, s);

			if (v == 0 || (v >> (R + 1)) != (q >> (R + 1)))
				return false;
			/* r >= 1 and a first extension bit other than the query's: it leaves */
			if ((uint32_t) __builtin_ctz(v) < R && ((v ^ q) >> R & 1))
				return false;
		}
	}
	return true;
}

/* does every slot of h's pair hold an entry with h's base key (so h's pair)? */
static bool
split_pair_closed(const cf_stage *st, uint32_t b, uint64_t h)
{
	split_probe p;
	uint32_t	R = st->extbits;

	split_probe_of(st, h, &p);
	for (uint32_t s = 0; s < b; s++)
	{
		uint32_t	v1 = slot_get(st, b, p.i1, s),
					v2 = slot_get(st, b, p.i2, s);

		if (v1 == 0 || v2 == 0 || (v1 >> (R + 1)) != (p.q1 >> (R + 1)) ||
			(v2 >> (R + 1)) != (p.q1 >> (R + 1)))
			return false;
	}
	return true;
}

/* puts h into the stash of split sub-filter k: a free record, or one more */
static cf_status
split_stash_add(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	k = (uint32_t) f->split;
	cf_stage   *st = &f->stages[k];
	int			r = cfi_split_stash_free(st);
	uint32_t	x,
				e;

	if (r < 0)
	{
		uint64_t	len;

		if (st->nstash >= CF_SPLIT_STASH_MAX)
			return CF_TOO_MANY_COPIES;
		len = split_layout_len(f, k, st->level, st->fpbits, st->nstash + 1);
		if (len > CF_MAX_SIZE)
			return CF_CANNOT_GROW;
		split_relayout(f, k, alloc((size_t) len, ctx), st->level, st->fpbits, st->nstash + 1);
		st = &f->stages[k];
		r = (int) st->nstash - 1;
	}
	cfi_split_stash_entry(st, h, &x, &e);
	cfi_split_stash_put(st, (uint32_t) r, x, st->level, e);
	return CF_OK;
}

/*
 * Will h's entry have a free slot in one of its buckets once split table st
 * doubles?  A child bucket holds the entries of its parent whose next
 * extension bit names it, and the parent's entries with no bits left.
 */
static bool
split_child_has_room(const cf_stage *st, uint32_t b, uint64_t h)
{
	split_probe p;
	uint32_t	R = st->extbits;

	split_probe_of(st, h, &p);
	for (int side = 0; side < 2; side++)
	{
		uint32_t	i = side ? p.i2 : p.i1;
		uint32_t	q = side ? p.q2 : p.q1;
		uint32_t	n = 0;

		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	v = slot_get(st, b, i, s);

			/* v's first extension bit, and h's next address bit, are bit R of each */
			n += v != 0 && ((uint32_t) __builtin_ctz(v) >= R || ((v ^ q) >> R & 1) == 0);
		}
		if (n < b)
			return true;
	}
	return false;
}

/*
 * cf_insert into a filter with a split table whose add failed: the stash
 * when no doubling can free a slot of h's pair (copies of one value), else
 * one doubling (never fails, no kicks) and the add again.  When neither of
 * h's child buckets will have a free slot, the doubled filter gets one
 * stash record more, so that h has a place even if the kick-out walk
 * fails: one allocation whatever happens.
 */
static cf_status
split_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	k = (uint32_t) f->split;
	cf_stage   *st = &f->stages[k];
	uint32_t	L = st->level + 1;
	uint32_t	w,
				nstash = st->nstash;

	/*
	 * Entries with h's base key have h's pair: when they fill it (copies of
	 * h, or values that share its key), only they compete for it, and a
	 * doubling would cost the whole table to separate a few.  They go to
	 * the stash while it has room; past that a doubling, if one would
	 * separate them at all.  So does an add that fails in a table below
	 * 3/4 of its design load: a few buckets locked by copies that share
	 * their pairs (many copies of a few values, or bucket size 2), not a
	 * table that is full.
	 */
	if (split_pair_closed(st, f->bucket_size, h) ||
		(uint64_t) st->nitems * 4000 < (uint64_t) st->nbuckets * f->bucket_size *
		design_load_permille(f->bucket_size) * 3)
	{
		if (cfi_split_stash_free(st) >= 0 || st->nstash < CF_SPLIT_STASH_MAX ||
			split_pair_stuck(st, f->bucket_size, h))
			return split_stash_add(f, h, alloc, ctx);
	}
	if (!split_can_double(f, k, NULL, 0))
		return CF_CANNOT_GROW;
	if (!split_child_has_room(st, f->bucket_size, h) && cfi_split_stash_free(st) < 0)
	{
		if (nstash >= CF_SPLIT_STASH_MAX)
			return CF_TOO_MANY_COPIES;
		nstash++;
	}
	w = split_next_width(f, st, L);
	if (split_layout_len(f, k, L, w, nstash) > CF_MAX_SIZE)
		return CF_CANNOT_GROW;
	split_relayout(f, k, alloc((size_t) split_layout_len(f, k, L, w, nstash), ctx), L, w, nstash);
	st = &f->stages[k];
	if (cfi_split_insert(st, f->bucket_size, f->max_kicks, h))
		return CF_OK;
	{
		int			r = cfi_split_stash_free(st);
		uint32_t	x,
					e;

		if (r < 0)
			abort();			/* cannot happen: a record was made free above */
		cfi_split_stash_entry(st, h, &x, &e);
		cfi_split_stash_put(st, (uint32_t) r, x, st->level, e);
	}
	return CF_OK;
}

cf_status
cf_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	walked;
	cf_status	st = add_hash(f, h, &walked);
	size_t		newlen;
	bool		copies;

	if (st != CF_FULL || f->expansion == 0)
		return st;
	if (filter_is_list(f))
		return list_insert(f, h, alloc, ctx);
	if (f->split >= 0)
		return split_insert(f, h, alloc, ctx);

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
	if (s->geom == CF_GEOM_SPLIT)
		return false;			/* per table: one family's are split_one_family */
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

/*
 * Are the sub-filters match[0..n) split tables of one family: the same base
 * buckets and base width, so the same bucket pairs and keys at every level?
 * Their entries then nest by virtual level whatever table holds them.
 */
static bool
split_one_family(const cf_filter *f, const uint32_t *match, uint32_t n)
{
	const cf_stage *s = &f->stages[match[0]];

	for (uint32_t a = 0; a < n; a++)
	{
		const cf_stage *t = &f->stages[match[a]];

		if (t->geom != CF_GEOM_SPLIT || t->base_nbuckets != s->base_nbuckets ||
			t->basebits != s->basebits)
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
cf_status
cf_delete(cf_filter *f, uint64_t h)
{
	uint32_t	match[CF_MAX_STAGES];
	uint32_t	n = 0;

	if (f->version < 2)
		return CF_READ_ONLY;
	if (filter_is_list(f))
	{
		/* exact: the hash itself */
		if (!list_remove(f, h))
			return CF_NOT_FOUND;
		f->deletes++;
		header_put64(f, 24, f->deletes);
		return CF_OK;
	}
	for (uint32_t k = f->nstages; k-- > 0;)
		if (stage_has(&f->stages[k], f->bucket_size, h))
			match[n++] = k;
	if (n == 0)
		return CF_NOT_FOUND;
	if (n > 1 && split_one_family(f, match, n))
	{
		/*
		 * split tables of one family (base buckets and base width), side by
		 * side: h's match of the highest virtual level among all of them
		 * (FORMAT.md, "Deletes in split tables"); ties go to the last table
		 */
		uint32_t	k = match[0];
		int			best = cfi_split_finest(&f->stages[k], f->bucket_size, h);

		for (uint32_t a = 1; a < n; a++)
		{
			int			vl = cfi_split_finest(&f->stages[match[a]], f->bucket_size, h);

			if (vl > best)
			{
				best = vl;
				k = match[a];
			}
		}
		if (!cfi_split_delete(&f->stages[k], f->bucket_size, h))
			abort();			/* cannot happen: stage_has found it */
		f->deletes++;
		header_put64(f, 24, f->deletes);
		return CF_OK;
	}
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
		if (st->geom == CF_GEOM_SPLIT)
		{
			if (!cfi_split_delete(st, f->bucket_size, h))
				abort();		/* cannot happen: stage_has found it */
			f->deletes++;
			header_put64(f, 24, f->deletes);
			return CF_OK;
		}
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

/*
 * cf_grow of a list: a list twice as large (up to its bound), or at the
 * bound its level-0 split table with a stash record per hash, so that
 * every hash has a place in the size cf_grow_size gave (records left
 * unused stay free).
 */
static void
list_grow(cf_filter *f, uint8_t *out)
{
	uint32_t	nslots = list_next_slots(f);
	uint32_t	n = f->stages[0].nitems;
	uint64_t	rest[CF_LIST_MAX];
	uint32_t	nrest = 0;
	size_t		tl = cfi_list_table_len(f);
	cf_filter	r;

	if (nslots != 0)
	{
		list_relayout(f, out, nslots);
		return;
	}
	cfi_list_table(f, out, &r);
	list_place(&f->stages[0], &r, rest, &nrest);
	/* the stash: n records (the descriptor's count), the first nrest used */
	memset(out + tl, 0, (size_t) n * CF_SPLIT_STASH_REC);
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) n);
	if (!cf_open(&r, out, tl + (size_t) n * CF_SPLIT_STASH_REC, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
	for (uint32_t i = 0; i < nrest; i++)
	{
		uint32_t	x,
					e;

		cfi_split_stash_entry(&r.stages[0], rest[i], &x, &e);
		cfi_split_stash_put(&r.stages[0], i, x, 0, e);
	}
	*f = r;
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
	if (filter_is_list(f))
	{
		uint32_t	nslots = list_next_slots(f);

		/* a larger list, or its level-0 table with a stash record per hash */
		if (nslots != 0)
			return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) nslots * 8;
		return cfi_list_table_len(f) + (size_t) f->stages[0].nitems * CF_SPLIT_STASH_REC;
	}
	if (f->split >= 0)
	{
		const cf_stage *sp = &f->stages[f->split];

		if (!split_can_double(f, (uint32_t) f->split, err, errlen))
			return 0;
		return (size_t) split_layout_len(f, (uint32_t) f->split, sp->level + 1,
										 split_next_width(f, sp, sp->level + 1), sp->nstash);
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
	out[HDR_NSTAGES] = (uint8_t) (f->nstages + extra);
	off += body;
	for (uint32_t k = 0; k < extra; k++)
	{
		const uint8_t *d = descs + (size_t) CF_V2_STAGE_SIZE * k;
		size_t		tb = (size_t) table_bytes_for(get_le32(d), f->bucket_size, d[DESC_FPBITS], d[DESC_ENC]);

		if (d[DESC_GEOM] == CF_GEOM_SPLIT)
			tb += (size_t) get_le16(d + DESC_NSTASH) * CF_SPLIT_STASH_REC;

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

	if (filter_is_list(f))
	{
		list_grow(f, newbuf);
		return;
	}
	if (f->split >= 0)
	{
		const cf_stage *sp = &f->stages[f->split];
		uint32_t	L = sp->level + 1;

		split_relayout(f, (uint32_t) f->split, newbuf, L, split_next_width(f, sp, L), sp->nstash);
		return;
	}
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

/* do a and b's rates give split tables the same widths at every level? */
static bool
same_schedule(const cf_filter *a, const cf_filter *b)
{
	if (a->target_fpr == b->target_fpr)
		return true;
	for (uint32_t l = 0; l <= 31; l += 10)
		if (cf_split_width(a->target_fpr, a->bucket_size, l + (l > 0)) !=
			cf_split_width(b->target_fpr, b->bucket_size, l + (l > 0)))
			return false;
	return true;
}

/*
 * Two filters of one split family: one split table each, with the same
 * base buckets, base width, bucket size and target rate (so the same
 * width schedule).  Their entries can go into one table.
 */
static bool
split_family(const cf_filter *a, const cf_filter *b)
{
	return a->nstages == 1 && b->nstages == 1 && a->split == 0 && b->split == 0 &&
		a->bucket_size == b->bucket_size && same_schedule(a, b) &&
		a->stages[0].base_nbuckets == b->stages[0].base_nbuckets &&
		a->stages[0].basebits == b->stages[0].basebits;
}

/* levels a split union tries above the receiver's: it may double twice */
#define SPLIT_UNION_DOUBLINGS	2

/* width of a's split table after doubling from level 'from' to 'to' */
static uint32_t
split_width_at(const cf_filter *f, uint32_t w, uint32_t from, uint32_t to)
{
	for (uint32_t l = from + 1; l <= to; l++)
	{
		uint32_t	x = cf_split_width(f->target_fpr, f->bucket_size, l);

		w = x > w ? x : w;
	}
	return w;
}

/* the receiver of a split union: the higher level, else the more items */
static bool
split_receiver_is_b(const cf_filter *a, const cf_filter *b)
{
	const cf_stage *sa = &a->stages[0],
			   *sb = &b->stages[0];

	return sb->level > sa->level || (sb->level == sa->level && sb->nitems > sa->nitems);
}

/*
 * Bytes a split union may need: the receiver's table doubled once and
 * twice side by side (the second doubling reads the first), and a full
 * stash.
 */
static uint64_t
split_union_bound(const cf_filter *a, const cf_filter *b)
{
	const cf_filter *r = split_receiver_is_b(a, b) ? b : a;
	const cf_stage *sr = &r->stages[0];
	uint64_t	len = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE +
		(uint64_t) 2 * CF_SPLIT_STASH_MAX * CF_SPLIT_STASH_REC;

	for (uint32_t d = 0; d <= SPLIT_UNION_DOUBLINGS; d++)
	{
		uint32_t	L = sr->level + d;
		uint32_t	w = split_width_at(r, sr->fpbits, sr->level, L);

		if (L > 31 || ((uint64_t) sr->base_nbuckets << L) > UINT32_MAX)
			break;
		if (d > 0)
			len += table_bytes_for((uint64_t) sr->base_nbuckets << L, r->bucket_size, w, sr->enc);
	}
	return len + sr->table_bytes;
}

/* the state of one attempt at a split union */
typedef struct split_union_ctx
{
	cf_stage   *st;				/* the receiving table, in out */
	uint32_t	b;
	uint32_t	max_kicks;
	uint64_t	placed;			/* interrupt counter */
} split_union_ctx;

/* adds a stash record to the receiver (room was reserved); false if full */
static bool
split_union_stash(split_union_ctx *c, uint32_t x, uint32_t e)
{
	cf_stage   *st = c->st;

	if (st->nstash >= CF_SPLIT_STASH_MAX)
		return false;
	st->nstash++;
	cfi_split_stash_put(st, st->nstash - 1, x, st->level, e);
	return true;
}

/*
 * Places the 32-bit entry e of bucket x at level lev into the receiver:
 * lifted to its level (copied into both children where it runs out of
 * extension bits), then kicked in.  A copy that does not fit goes to the
 * stash if no doubling could place it; otherwise the attempt fails.
 */
static bool
split_union_place(split_union_ctx *c, uint32_t x, uint32_t lev, uint32_t e)
{
	cf_stage   *st = c->st;

	check_interrupts(++c->placed);
	while (lev < st->level)
	{
		uint32_t	sib;

		if (!cfi_split_lift(st->basebits, &x, &e))
		{
			sib = x + 1;
			if (!split_union_place(c, sib, lev + 1, e))
				return false;
		}
		lev++;
	}
	if (cfi_split_place32(st, c->b, c->max_kicks, x, e))
		return true;
	/* a few buckets locked by copies (the level was chosen with room): the stash */
	return split_union_stash(c, x, e);
}

/*
 * One attempt at the union of split filters r (receiver) and o at level
 * Lt: r's table copied or doubled into out, then every entry and stash
 * record of o placed.  Returns the bytes used, 0 if something did not fit.
 */
static size_t
split_union_at(const cf_filter *r, const cf_filter *o, uint32_t Lt, uint8_t *out, size_t outcap)
{
	const cf_stage *sr = &r->stages[0],
			   *so = &o->stages[0];
	size_t		hdr = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE;
	cf_stage	nw = *sr;
	split_union_ctx c;
	uint32_t	b = r->bucket_size;

	nw.level = Lt;
	nw.nbuckets = sr->base_nbuckets << Lt;
	nw.fpbits = split_width_at(r, sr->fpbits, sr->level, Lt);
	nw.journal = NULL;
	cfi_stage_setup(&nw, b);
	nw.desc = out + CF_V2_HEADER_SIZE;
	nw.table = out + hdr;
	nw.stash = nw.table + nw.table_bytes;
	if (hdr + nw.table_bytes + (size_t) CF_SPLIT_STASH_MAX * CF_SPLIT_STASH_REC > outcap)
		return 0;
	if (Lt == sr->level)
	{
		memcpy(nw.table, sr->table, stage_data_bytes(sr));
		nw.nitems = sr->nitems;
	}
	else
	{
		cf_stage	mid = *sr;
		const cf_stage *src = sr;

		if (Lt == sr->level + 2)
		{
			/* the first doubling into the room after the final table */
			mid.level = sr->level + 1;
			mid.nbuckets = sr->base_nbuckets << mid.level;
			mid.fpbits = split_width_at(r, sr->fpbits, sr->level, mid.level);
			cfi_stage_setup(&mid, b);
			mid.table = nw.stash + (size_t) CF_SPLIT_STASH_MAX * CF_SPLIT_STASH_REC;
			mid.stash = mid.table + mid.table_bytes;
			mid.desc = out;		/* scratch: the header is written below */
			mid.journal = NULL;
			if ((size_t) (mid.stash - out) + (size_t) sr->nstash * CF_SPLIT_STASH_REC > outcap)
				return 0;
			memset(mid.table, 0, mid.table_bytes);
			cfi_split_double(sr, &mid, b);
			src = &mid;
		}
		else if (Lt != sr->level + 1)
			return 0;
		memset(nw.table, 0, nw.table_bytes);
		cfi_split_double(src, &nw, b);
	}
	c.st = &nw;
	c.b = b;
	c.max_kicks = r->max_kicks;
	c.placed = 0;
	for (uint32_t x = 0; x < so->nbuckets; x++)
		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	e = cfi_split_entry32(so, b, x, s);

			if (e != 0 && !split_union_place(&c, x, so->level, e))
				return 0;
		}
	for (uint32_t k = 0; k < so->nstash; k++)
	{
		const uint8_t *rec = so->stash + (size_t) k * CF_SPLIT_STASH_REC;
		uint32_t	e = get_le32(rec + 4);

		if (e != 0 && !split_union_place(&c, get_le32(rec), rec[8], e))
			return 0;
	}
	/* the header: the receiver's, then the counts merged by the caller */
	memcpy(out, r->buf, CF_V2_HEADER_SIZE);
	out[HDR_NSTAGES] = 1;
	cfi_write_desc(nw.desc, &nw);
	return hdr + stage_data_bytes(&nw);
}

/*
 * The union of two filters of one split family: one table.  The receiver
 * (higher level) is copied, or doubled once or twice when the items of both
 * would not fit its size, and the other's entries are placed into it.
 */
static size_t
split_union(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
			cf_filter *result, char *err, size_t errlen)
{
	bool		rb = split_receiver_is_b(a, b);
	const cf_filter *r = rb ? b : a,
			   *o = rb ? a : b;
	const cf_stage *sr = &r->stages[0];
	uint64_t	need = (uint64_t) a->stages[0].nitems + b->stages[0].nitems;

	for (uint32_t d = 0; d <= SPLIT_UNION_DOUBLINGS; d++)
	{
		uint32_t	Lt = sr->level + d;
		uint64_t	slots = ((uint64_t) sr->base_nbuckets << Lt) * r->bucket_size;
		size_t		len;
		uint64_t	copies;

		if (Lt > 31 || ((uint64_t) sr->base_nbuckets << Lt) > UINT32_MAX)
			break;
		/*
		 * Entries lifted past the precision they were written with are copied
		 * into both children at every further level: slots, not information.
		 * A union that would take more than 1/8 of its items in such copies
		 * is past what its parts can tell apart in one table (it would double
		 * again and again); it is not folded, and the tables stand side by
		 * side instead (cf_union).
		 */
		copies = cfi_split_lift_copies(sr, r->bucket_size, Lt) +
			cfi_split_lift_copies(&o->stages[0], r->bucket_size, Lt);
		if (copies * 8 > need)
			break;
		/* sizes the items surely overfill are skipped */
		if (d < SPLIT_UNION_DOUBLINGS && (need + copies) * 100 > slots * 93)
			continue;
		len = split_union_at(r, o, Lt, out, outcap);
		if (len == 0)
			continue;
		if (!cf_open(result, out, len, err, errlen))
			abort();			/* cannot happen: built from valid filters */
		return len;
	}
	cfi_set_err(err, errlen, "the union of two filters of %llu and %llu items does not fit a table of four times the larger one's size",
			(unsigned long long) a->stages[0].nitems, (unsigned long long) b->stages[0].nitems);
	return 0;
}

/* ---------------------------------------------------------------------
 * unions with lists: a merged list, or each list as a split table (its
 * hashes placed as new keys, full precision) at the level of the other
 * filter's split table of its family (else level 0), then the union of
 * split tables
 * ------------------------------------------------------------------- */

/*
 * The view (no data) of list l as a split table of base buckets m, level L
 * and width W with a stash record per hash: the most bytes list_temp can
 * take.
 */
static void
list_view_at(const cf_filter *l, uint32_t m, uint32_t L, uint32_t W, cf_filter *v)
{
	cf_stage   *st = &v->stages[0];
	uint32_t	n = l->stages[0].nitems;

	*v = *l;
	st->nbuckets = m << L;
	st->fpbits = W;
	st->geom = CF_GEOM_SPLIT;
	st->level = L;
	st->basebits = CF_SPLIT_F0;
	st->nstash = n;
	cfi_stage_setup(st, l->bucket_size);
	v->split = 0;
	v->len = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + stage_data_bytes(st);
}

/* the view of list l as the table it converts into (base cfi_list_base) */
static void
list_view(const cf_filter *l, uint32_t L, uint32_t W, cf_filter *v)
{
	list_view_at(l, cfi_list_base(l->capacity, l->target_fpr, l->bucket_size, l->stages[0].enc),
				 L, W, v);
}

/*
 * The view of list l for its union with o: o's level if o is its split
 * family, at the list's base or at m0, the base cuckoo 1.2 converted every
 * list of l's header into (a list's hashes fit any base: FORMAT.md "List
 * sub-filters", Base), so that a list joins a table 1.2 wrote.
 */
static void
list_view_for(const cf_filter *l, const cf_filter *o, cf_filter *v)
{
	uint64_t	m0 = cfi_list_m0(l->capacity, l->bucket_size);

	list_view(l, 0, l->fpbits, v);
	if (filter_is_list(o))
		return;
	if (split_family(v, o))
		list_view(l, o->stages[0].level, o->stages[0].fpbits, v);
	else if (o->nstages == 1 && o->split == 0 && o->stages[0].base_nbuckets == m0)
	{
		cf_filter	w;

		list_view_at(l, (uint32_t) m0, 0, l->fpbits, &w);
		if (split_family(&w, o))
			list_view_at(l, (uint32_t) m0, o->stages[0].level, o->stages[0].fpbits, v);
	}
}

/*
 * Writes list l as the split table of view v into out (v->len bytes at
 * most): l's header, every hash placed in list order as a new key at v's
 * level, the ones that do not fit in stash records; opens it as r and
 * returns its bytes.
 */
static size_t
list_temp(const cf_filter *l, const cf_filter *v, uint8_t *out, cf_filter *r)
{
	cf_stage	st = v->stages[0];
	uint64_t	rest[CF_LIST_MAX];
	uint32_t	nrest = 0;
	size_t		tl = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + st.table_bytes;

	memcpy(out, l->buf, CF_V2_HEADER_SIZE);
	out[HDR_NSTAGES] = 1;
	st.nitems = 0;
	st.nstash = 0;
	cfi_write_desc(out + CF_V2_HEADER_SIZE, &st);
	memset(out + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0, st.table_bytes);
	if (!cf_open(r, out, tl, NULL, 0))
		abort();				/* cannot happen: a valid header */
	list_place(&l->stages[0], r, rest, &nrest);
	if (nrest == 0)
		return tl;
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) nrest);
	memset(out + tl, 0, (size_t) nrest * CF_SPLIT_STASH_REC);
	if (!cf_open(r, out, tl + (size_t) nrest * CF_SPLIT_STASH_REC, NULL, 0))
		abort();				/* cannot happen: room for every record */
	for (uint32_t i = 0; i < nrest; i++)
	{
		uint32_t	x,
					e;

		cfi_split_stash_entry(&r->stages[0], rest[i], &x, &e);
		cfi_split_stash_put(&r->stages[0], i, x, r->stages[0].level, e);
	}
	return r->len;
}

/* two lists of one family (same header parameters and encoding) */
static bool
list_family(const cf_filter *a, const cf_filter *b)
{
	return filter_is_list(a) && filter_is_list(b) && a->bucket_size == b->bucket_size &&
		a->capacity == b->capacity && a->target_fpr == b->target_fpr &&
		a->fpbits == b->fpbits && a->stages[0].enc == b->stages[0].enc;
}

/* the items of lists a and b as one list, if they fit a's bound; else 0 */
static uint32_t
list_merged_slots(const cf_filter *a, const cf_filter *b)
{
	uint64_t	n = (uint64_t) a->stages[0].nitems + b->stages[0].nitems;

	if (!list_family(a, b) ||
		n > cfi_list_max(a->capacity, a->target_fpr, a->bucket_size, a->stages[0].enc))
		return 0;
	return n == 0 ? 1 : (uint32_t) n;
}

/*
 * A bound of cf_union_size of the split tables list_temp makes of the
 * views among a and b: a view's table may hold any number of its hashes
 * up to all (the rest in its stash), which decides the receiver of a split
 * union, so every count from none to all and both orders are tried.
 */
static size_t
list_result_bound(const cf_filter *a, const cf_filter *b, bool av, bool bv, char *err, size_t errlen)
{
	size_t		best = 0;

	for (int m = 0; m < 8; m++)
	{
		cf_filter	x = *a,
					y = *b;
		size_t		len;

		if (av && (m & 1))
			x.stages[0].nitems = 0;
		if (bv && (m & 2))
			y.stages[0].nitems = 0;
		len = (m & 4) ? cf_union_size(&y, &x, err, errlen) : cf_union_size(&x, &y, err, errlen);
		if (len == 0)
			return 0;
		best = len > best ? len : best;
	}
	return best;
}

/*
 * The header fields of a union r of a and b written at out: the value kind
 * (b's where a has none or b holds any), deletes and retained summed.
 */
static void
union_counters(const cf_filter *a, const cf_filter *b, uint8_t *out, cf_filter *r)
{
	r->kind = a->kind == CF_KIND_NONE || b->kind == CF_KIND_ANY ? b->kind : a->kind;
	r->deletes = a->deletes + b->deletes;
	r->retained = a->retained + b->retained;
	out[HDR_KIND] = (uint8_t) r->kind;
	put_le64(out + HDR_DELETES, r->deletes);
	put_le64(out + HDR_RETAINED, r->retained);
}

/*
 * The split-table views of whichever of a and b are lists (va, vb), and
 * the bound of the union of the two as tables (0, err set, if none).
 */
static size_t
list_views_bound(const cf_filter *a, const cf_filter *b, cf_filter *va, cf_filter *vb,
				 char *err, size_t errlen)
{
	if (filter_is_list(a))
		list_view_for(a, b, va);
	if (filter_is_list(b))
		list_view_for(b, a, vb);
	return list_result_bound(filter_is_list(a) ? va : a, filter_is_list(b) ? vb : b,
							 filter_is_list(a), filter_is_list(b), err, errlen);
}

/*
 * Two lists of one family but for their capacities: the one of the smaller
 * capacity (returned), relabelled with the larger, joins the other's family
 * (a list's hashes do not depend on its capacity, and its bound only grows
 * with it), so that their union is one list or one table, whose deletes
 * are exact.  NULL if a and b are not such lists.
 */
static const cf_filter *
list_to_relabel(const cf_filter *a, const cf_filter *b)
{
	cf_filter	x = *a;

	if (!filter_is_list(a) || !filter_is_list(b) || a->capacity == b->capacity)
		return NULL;
	x.capacity = b->capacity;
	if (!list_family(&x, b))
		return NULL;
	return a->capacity < b->capacity ? a : b;
}

static size_t
list_union_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	const cf_filter *s = list_to_relabel(a, b);
	cf_filter	va,
				vb;
	size_t		len;
	uint32_t	slots;

	if (s != NULL)
	{
		/* the union of the relabelled view, and room for its bytes */
		cf_filter	x = *s;

		x.capacity = (s == a ? b : a)->capacity;
		len = s == a ? list_union_size(&x, b, err, errlen) : list_union_size(a, &x, err, errlen);
		return len == 0 ? 0 : len + s->len;
	}
	slots = list_merged_slots(a, b);
	if (slots != 0)
		return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) slots * 8;
	len = list_views_bound(a, b, &va, &vb, err, errlen);
	if (len == 0)
		return 0;
	/* the result first, then the split tables made of the lists */
	len += (filter_is_list(a) ? va.len : 0) + (filter_is_list(b) ? vb.len : 0);
	if (len > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "the union would exceed the 1 GB a value can hold");
		return 0;
	}
	return len;
}

static size_t
list_union(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
		   cf_filter *result, char *err, size_t errlen)
{
	cf_filter	va,
				vb,
				ta,
				tb;
	uint32_t	slots;
	size_t		rb,
				off;
	const cf_filter *s = list_to_relabel(a, b);

	if (s != NULL)
	{
		/* s relabelled in the tail of out, then the union of one family */
		cf_filter	c;
		uint8_t    *tail = out + outcap - s->len;

		memcpy(tail, s->buf, s->len);
		put_le32(tail + 12, (s == a ? b : a)->capacity);
		if (!cf_open(&c, tail, s->len, NULL, 0))
			abort();			/* cannot happen: a list's bound grows with its capacity */
		return s == a ? list_union(&c, b, out, outcap - s->len, result, err, errlen) :
			list_union(a, &c, out, outcap - s->len, result, err, errlen);
	}
	slots = list_merged_slots(a, b);
	if (slots != 0)
	{
		const cf_stage *sa = &a->stages[0],
				   *sb = &b->stages[0];
		size_t		hdr = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE;
		uint32_t	i = 0,
					j = 0,
					k = 0;
		cf_filter	r;

		/* a's header and descriptor, the merged hashes, the counters merged */
		memcpy(out, a->buf, hdr);
		while (i < sa->nitems || j < sb->nitems)
		{
			uint64_t	x;

			if (j >= sb->nitems || (i < sa->nitems && list_get(sa, i) <= list_get(sb, j)))
				x = list_get(sa, i++);
			else
				x = list_get(sb, j++);
			put_le64(out + hdr + (size_t) 8 * k++, x);
		}
		memset(out + hdr + (size_t) 8 * k, 0, (size_t) (slots - k) * 8);
		put_le32(out + CF_V2_HEADER_SIZE, slots);
		put_le32(out + CF_V2_HEADER_SIZE + DESC_NITEMS, k);
		if (!cf_open(&r, out, hdr + (size_t) slots * 8, err, errlen))
			abort();			/* cannot happen: built from valid lists */
		union_counters(a, b, out, &r);
		*result = r;
		return r.len;
	}
	rb = list_views_bound(a, b, &va, &vb, err, errlen);
	if (rb == 0)
		return 0;
	off = rb;
	if (filter_is_list(a))
	{
		if (off + va.len > outcap)
			abort();			/* cannot happen: cf_union_size counted it */
		list_temp(a, &va, out + off, &ta);
		off += va.len;
	}
	if (filter_is_list(b))
	{
		if (off + vb.len > outcap)
			abort();			/* cannot happen: cf_union_size counted it */
		list_temp(b, &vb, out + off, &tb);
	}
	return cf_union(filter_is_list(a) ? &ta : a, filter_is_list(b) ? &tb : b, out, rb,
					result, err, errlen);
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
	size_t		len;

	if (a->bucket_size != b->bucket_size)
	{
		cfi_set_err(err, errlen, "filters have different bucket sizes (%u and %u)",
				a->bucket_size, b->bucket_size);
		return 0;
	}
	if (a->split >= 0 || b->split >= 0 || filter_is_list(a) || filter_is_list(b))
	{
		if (!same_schedule(a, b))
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
	if (filter_is_list(a) || filter_is_list(b))
		return list_union_size(a, b, err, errlen);
	len = v2_len(a) + v2_len(b) - CF_V2_HEADER_SIZE;
	/*
	 * cf_union saves a table of a in the free tail (after a's bytes) before
	 * folding b's table of the same geometry into it; a bit-packed table is
	 * larger than a semi-sorted one of that geometry, so the tail may need
	 * more than b's bytes
	 */
	for (uint32_t k = 0; k < a->nstages; k++)
		if (v2_len(a) + a->stages[k].table_bytes > len)
			len = v2_len(a) + a->stages[k].table_bytes;
	if (split_family(a, b))
	{
		uint64_t	bound = split_union_bound(a, b);

		len = bound > len ? (bound > CF_MAX_SIZE ? CF_MAX_SIZE + 1 : (size_t) bound) : len;
	}
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
	if (outcap < cf_union_size(a, b, NULL, 0))
	{
		cfi_set_err(err, errlen, "union buffer too small");
		return 0;
	}
	if (filter_is_list(a) || filter_is_list(b))
		return list_union(a, b, out, outcap, result, err, errlen);
	if (split_family(a, b))
	{
		size_t		len = split_union(a, b, out, outcap, &r, NULL, 0);

		/*
		 * Copies of one value from many parts share one bucket pair, which no
		 * doubling splits: past its slots and the stash they cannot fold into
		 * one table.  The tables then stand side by side (below), as tables
		 * of two families do: no entry is lost, and a delete that matches in
		 * both is left in place.
		 */
		if (len == 0)
			goto side_by_side;
		union_counters(a, b, out, &r);
		*result = r;
		return len;
	}
side_by_side:
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

			if (!same_geometry(sr, sb) || sb->geom == CF_GEOM_SPLIT ||
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


/* the live records of a split table's stash (a free record is all zero) */
static uint64_t
stash_items(const cf_stage *st)
{
	uint64_t	n = 0;

	for (uint32_t j = 0; j < st->nstash; j++)
		n += get_le32(st->stash + (size_t) j * CF_SPLIT_STASH_REC + 4) != 0;
	return n;
}

uint64_t
cf_item_count(const cf_filter *f)
{
	uint64_t	n = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
	{
		n += f->stages[k].nitems;
		if (f->stages[k].geom == CF_GEOM_SPLIT && f->stages[k].nstash > 0)
			n += stash_items(&f->stages[k]);
	}
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
	if (filter_is_list(f))
	{
		/*
		 * a list: its hashes; buckets = its hash slots, load the share of
		 * them used; a false match needs an equal 64-bit hash
		 */
		s->families = 1;
		s->items = f->stages[0].nitems;
		s->buckets = f->stages[0].nbuckets;
		s->semisorted = f->stages[0].enc == CF_ENC_SEMISORT;
		s->capacity = f->capacity;
		s->load_factor = (double) s->items / (double) f->stages[0].nbuckets;
		s->fpr = -expm1((double) s->items * log1p(-ldexp(1.0, -64)));
		return;
	}
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
		if (st->geom == CF_GEOM_SPLIT)
		{
			/* a split table: the design load of its present size, its rate summed per slot */
			s->capacity += k == 0 && st->level == 0 ? f->capacity :
				n * design_load_permille(f->bucket_size) / 1000;
			fpr_miss *= 1.0 - cfi_split_fpr(st, f->bucket_size);
			s->items += stash_items(st);
			continue;
		}
		s->capacity += k == 0 ? f->capacity :
			n * design_load_permille(f->bucket_size) / 1000;
		/* a miss in this sub-filter: no occupied slot of 2 buckets matches */
		fpr_miss *= pow(1.0 - 1.0 / (double) st->fpmax, 2.0 * f->bucket_size * load);
	}
	/* stash records are items outside the slots: a full table with a stash stays at 1 */
	s->load_factor = slots ? (double) s->items / (double) slots : 0.0;
	if (s->load_factor > 1.0)
		s->load_factor = 1.0;
	s->fpr = 1.0 - fpr_miss;
}
