/*
 * cuckoo_geom_list.c - the list geometry (geometry 4, FORMAT.md "List
 * sub-filters"): a growing filter's start as its sorted 64-bit hashes, the
 * only sub-filter of its filter.  It grows to twice its slots up to its
 * bound, then converts to the level-0 split table of its header (hll's
 * EXPLICIT turning SPARSE); a union with a list merges two lists, or turns
 * each list into a split table and unites the tables.  Plain C99.
 */
#include "cuckoo_geom.h"
#include "cuckoo_check.h"
#include "cuckoo_list.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * sizing: a list's bound and the split table it becomes, from its header
 * (the split schedule's width at level 0)
 * ------------------------------------------------------------------- */

/* m0 of these parameters (cuckoo_format.h): cf_create's split table for the capacity */
uint64_t
cfi_list_m0(uint64_t capacity, uint32_t bucket_size)
{
	return cf_nbuckets_for(capacity, (int) bucket_size) | 1;
}

/*
 * The base buckets (odd) of the split table a list of these header
 * parameters converts into: m0 halved k times (rounded up, made odd) for
 * the largest k <= R(0) = W(0) - 1 - F0 whose level-0 table still takes at
 * least the bytes of a full list (8 * CF_LIST_MAX), else m0 itself.  Its
 * table doubled k times has at least m0 buckets, so the filter holds its
 * capacity at level k, where an entry written at level 0 still has (R(0) -
 * k >= 0) extension bits: no entry runs out of bits (and is copied by a
 * doubling) before the capacity, as in a table created at m0.  A list of a
 * large capacity so becomes a table of a few kilobytes, not the table of
 * its whole capacity.  0 when they give no split table.
 */
uint32_t
cfi_list_base(uint32_t capacity, double fpr, uint32_t bucket_size, uint32_t enc)
{
	uint64_t	m0 = cfi_list_m0(capacity, bucket_size);
	uint32_t	w = cf_split_width(fpr, bucket_size, 0);
	uint64_t	best = m0;

	if (w == 0 || m0 > UINT32_MAX)
		return 0;
	for (uint32_t k = 1; k <= w - 1 - CF_SPLIT_F0 && k < 32; k++)
	{
		uint64_t	m = ((m0 + ((uint64_t) 1 << k) - 1) >> k) | 1;

		if (table_bytes_for(m, bucket_size, w, enc) < (uint64_t) 8 * CF_LIST_MAX)
			break;
		best = m;
	}
	return (uint32_t) best;
}

uint32_t
cfi_list_max(uint32_t capacity, double fpr, uint32_t bucket_size, uint32_t enc)
{
	uint64_t	m0 = cfi_list_m0(capacity, bucket_size);
	uint32_t	w = cf_split_width(fpr, bucket_size, 0);
	uint64_t	n;

	if (w == 0 || m0 > UINT32_MAX)
		return 0;
	n = table_bytes_for(m0, bucket_size, w, enc) / 8;
	return n < CF_LIST_MAX ? (uint32_t) n : CF_LIST_MAX;
}

uint32_t
cf_list_bound(const cf_filter *f)
{
	if (!filter_is_list(f))
		return 0;
	return cfi_list_max(f->capacity, f->target_fpr, f->bucket_size, f->stages[0].enc);
}

/* bytes of the level-0 split table filter a list f becomes */
/* the level-0 split table a list becomes: cfi_list_base buckets, the header's width */
static void
list_table_stage(const cf_filter *f, cf_stage *st)
{
	memset(st, 0, sizeof(*st));
	st->nbuckets = cfi_list_base(f->capacity, f->target_fpr, f->bucket_size,
								 f->stages[0].enc);
	st->fpbits = f->fpbits;
	st->geom = CF_GEOM_SPLIT;
	st->basebits = CF_SPLIT_F0;
	st->enc = f->stages[0].enc;
}

static size_t
list_table_len(const cf_filter *f)
{
	cf_stage	st;

	list_table_stage(f, &st);
	return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE +
		(size_t) table_bytes_for(st.nbuckets, f->bucket_size, st.fpbits, st.enc);
}

/*
 * Writes the level-0 split table filter of list f (list_table_len bytes,
 * f's header) into out, empty, and opens it as r.
 */
static void
list_table(const cf_filter *f, uint8_t *out, cf_filter *r)
{
	cf_stage	st;
	size_t		len = list_table_len(f);

	list_table_stage(f, &st);
	memcpy(out, f->buf, CF_V2_HEADER_SIZE);
	out[HDR_NSTAGES] = 1;
	cfi_write_desc(out + CF_V2_HEADER_SIZE, &st);
	memset(out + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0, len - CF_V2_HEADER_SIZE - CF_V2_STAGE_SIZE);
	cfi_seal(out);
	if (!cfi_open(r, out, len, cfi_registry_of(f), NULL, 0))
		abort();				/* cannot happen: the header was valid */
}


/* h at its sorted position (after its equals) in a free slot; else CF_FULL */
static cf_status
list_add(cf_stage *st, uint64_t h)
{
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
list_remove(cf_stage *st, uint64_t h)
{
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
	cfi_seal(out);
	if (!cfi_open(f, out, hdr + (size_t) nslots * 8, cfi_registry_of(f), NULL, 0))
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

static void list_view(const cf_filter *l, uint32_t L, uint32_t W, cf_filter *v);

/* largest level-0 table a conversion first builds on the stack (a dry run) */
#define LIST_DRY_RUN_MAX	16384

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
	size_t		tl = list_table_len(f);
	uint8_t    *out;
	cf_filter	r;

	if (nslots != 0)
	{
		list_relayout(f, alloc(CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) nslots * 8, ctx),
					  nslots);
		return list_add(&f->stages[0], h);
	}
	for (uint32_t i = 0; i < n; i++)
		hs[i] = list_get(&f->stages[0], i);
	hs[n++] = h;
	if (tl <= LIST_DRY_RUN_MAX)
	{
		uint64_t	dry[(LIST_DRY_RUN_MAX + 7) / 8];

		list_table(f, (uint8_t *) dry, &r);
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
		nstash = cfi_split_group_excess(&t.stages[0], f->bucket_size, hs, n);
		out = alloc(tl + (size_t) nstash * CF_SPLIT_STASH_REC, ctx);
		list_table(f, out, &r);
		for (uint32_t i = 0; i < n; i++)
			if (!cfi_split_insert(&r.stages[0], r.bucket_size, r.max_kicks, hs[i]))
				rest[nrest++] = hs[i];
	}
	if (nstash > CF_SPLIT_STASH_MAX)
		nstash = CF_SPLIT_STASH_MAX;
	memset(out + tl, 0, (size_t) nstash * CF_SPLIT_STASH_REC);
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) nstash);
	cfi_seal(out);
	if (!cfi_open(&r, out, tl + (size_t) nstash * CF_SPLIT_STASH_REC, cfi_registry_of(f), NULL, 0))
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
		cf_status	st = cfi_geom_split.growth->insert_grow(f, 0, rest[i], alloc, ctx);

		if (st != CF_OK)
			return st;
	}
	return CF_OK;
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
	size_t		tl = list_table_len(f);
	cf_filter	r;

	if (nslots != 0)
	{
		list_relayout(f, out, nslots);
		return;
	}
	list_table(f, out, &r);
	list_place(&f->stages[0], &r, rest, &nrest);
	/* the stash: n records (the descriptor's count), the first nrest used */
	memset(out + tl, 0, (size_t) n * CF_SPLIT_STASH_REC);
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) n);
	cfi_seal(out);
	if (!cfi_open(&r, out, tl + (size_t) n * CF_SPLIT_STASH_REC, cfi_registry_of(f), NULL, 0))
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
	split_stage_setup(st, l->bucket_size);
	ENG(st)->ops = &cfi_geom_split;
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
	if (cfi_geom_split.growth->unites(v, o))
		list_view(l, o->stages[0].level, o->stages[0].fpbits, v);
	else if (o->nstages == 1 && o->split == 0 && o->stages[0].base_nbuckets == m0)
	{
		cf_filter	w;

		list_view_at(l, (uint32_t) m0, 0, l->fpbits, &w);
		if (cfi_geom_split.growth->unites(&w, o))
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
	cfi_seal(out);
	if (!cfi_open(r, out, tl, cfi_registry_of(l), NULL, 0))
		abort();				/* cannot happen: a valid header */
	list_place(&l->stages[0], r, rest, &nrest);
	if (nrest == 0)
		return tl;
	put_le16(out + CF_V2_HEADER_SIZE + DESC_NSTASH, (uint16_t) nrest);
	memset(out + tl, 0, (size_t) nrest * CF_SPLIT_STASH_REC);
	cfi_seal(out);
	if (!cfi_open(r, out, tl + (size_t) nrest * CF_SPLIT_STASH_REC, cfi_registry_of(l), NULL, 0))
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
list_result_bound(const cf_filter *a, const cf_filter *b, bool av, bool bv,
				  const cf_union_again *again, char *err, size_t errlen)
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
		len = (m & 4) ? again->size(&y, &x, err, errlen) : again->size(&x, &y, err, errlen);
		if (len == 0)
			return 0;
		best = len > best ? len : best;
	}
	return best;
}

/*
 * The split-table views of whichever of a and b are lists (va, vb), and
 * the bound of the union of the two as tables (0, err set, if none).
 */
static size_t
list_views_bound(const cf_filter *a, const cf_filter *b, cf_filter *va, cf_filter *vb,
				 const cf_union_again *again, char *err, size_t errlen)
{
	if (filter_is_list(a))
		list_view_for(a, b, va);
	if (filter_is_list(b))
		list_view_for(b, a, vb);
	return list_result_bound(filter_is_list(a) ? va : a, filter_is_list(b) ? vb : b,
							 filter_is_list(a), filter_is_list(b), again, err, errlen);
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
list_union_size(const cf_filter *a, const cf_filter *b, const cf_union_again *again,
				char *err, size_t errlen)
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
		len = s == a ? list_union_size(&x, b, again, err, errlen) :
			list_union_size(a, &x, again, err, errlen);
		return len == 0 ? 0 : len + s->len;
	}
	slots = list_merged_slots(a, b);
	if (slots != 0)
		return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) slots * 8;
	len = list_views_bound(a, b, &va, &vb, again, err, errlen);
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
		   cf_filter *result, const cf_union_again *again, char *err, size_t errlen)
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
		cfi_seal(tail);
		if (!cfi_open(&c, tail, s->len, cfi_registry_of(s), NULL, 0))
			abort();			/* cannot happen: a list's bound grows with its capacity */
		return s == a ? list_union(&c, b, out, outcap - s->len, result, again, err, errlen) :
			list_union(a, &c, out, outcap - s->len, result, again, err, errlen);
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
		cfi_seal(out);
		if (!cfi_open(&r, out, hdr + (size_t) slots * 8, cfi_registry_of(a), err, errlen))
			abort();			/* cannot happen: built from valid lists */
		cfi_union_counters(a, b, out, &r);
		*result = r;
		return r.len;
	}
	rb = list_views_bound(a, b, &va, &vb, again, err, errlen);
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
	return again->unite(filter_is_list(a) ? &ta : a, filter_is_list(b) ? &tb : b, out, rb,
						result, err, errlen);
}

/* ---------------------------------------------------------------------
 * reading a list (FORMAT.md, "List sub-filters")
 * ------------------------------------------------------------------- */

/* a list sub-filter's descriptor and header (FORMAT.md, "List sub-filters") */
static bool
list_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	uint32_t	max;

	if (f->version < 2 || f->nstages != 1)
	{
		cfi_set_err(err, errlen, "sub-filter %u is a list, which must be a filter's only sub-filter", k);
		return false;
	}
	if (st->fpbits != 64 || st->level != 0 || st->basebits != 0 || st->nstash != 0)
	{
		cfi_set_err(err, errlen, "list sub-filter %u has width %u, level %u, base width %u and %u stash records (needs 64, 0, 0 and 0)",
				k, st->fpbits, st->level, st->basebits, st->nstash);
		return false;
	}
	if (f->expansion == 0)
	{
		cfi_set_err(err, errlen, "list sub-filter %u is in a filter of expansion 0 (a list is a growing filter's start)", k);
		return false;
	}
	if (f->fpbits != cf_split_width(f->target_fpr, f->bucket_size, 0))
	{
		cfi_set_err(err, errlen, "list sub-filter %u has a header width of %u bits, not the %u of the split table it becomes",
				k, f->fpbits, cf_split_width(f->target_fpr, f->bucket_size, 0));
		return false;
	}
	if (CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE +
		table_bytes_for(cfi_list_m0(f->capacity, f->bucket_size), f->bucket_size,
						f->fpbits, st->enc) > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "list sub-filter %u would become a table of more than the 1 GB a value can hold", k);
		return false;
	}
	max = cfi_list_max(f->capacity, f->target_fpr, f->bucket_size, st->enc);
	if (st->nbuckets < 1 || st->nbuckets > max)
	{
		cfi_set_err(err, errlen, "list sub-filter %u has %u slots, not between 1 and its bound of %u",
				k, st->nbuckets, max);
		return false;
	}
	if (st->nitems > st->nbuckets)
	{
		cfi_set_err(err, errlen, "list sub-filter %u has an item count of %u but only %u slots",
				k, st->nitems, st->nbuckets);
		return false;
	}
	st->table_bytes = (size_t) st->nbuckets * 8;
	st->stash = NULL;
	return true;
}

/* its hashes in order, its free slots zero */
static bool
list_scan(const cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	const cf_stage *st = &f->stages[k];

	for (uint32_t i = 1; i < st->nitems; i++)
		if (list_get(st, i) < list_get(st, i - 1))
		{
			cfi_set_err(err, errlen, "list sub-filter %u is not sorted at position %u", k, i);
			return false;
		}
	for (uint32_t i = st->nitems; i < st->nbuckets; i++)
		if (list_get(st, i) != 0)
		{
			cfi_set_err(err, errlen, "free slot %u of list sub-filter %u is not zero", i, k);
			return false;
		}
	return true;
}

/* ---------------------------------------------------------------------
 * the operations table
 * ------------------------------------------------------------------- */

static bool
list_stage_has(const cf_stage *st, uint32_t b, uint64_t h)
{
	(void) b;
	return list_has(st, h);
}

/* a list's lookup path (number 40): binary search of its sorted hashes, never read as a table */
static bool
list_contains(const cf_filter *f, uint64_t h)
{
	return list_has(&f->stages[0], h);
}

static const cfi_lookup_path list_path = {"list", 40, false, list_contains, NULL, NULL};

static const cfi_lookup_path *
list_lookup(cf_filter *f)
{
	(void) f;
	return &list_path;
}

static uint32_t
list_count(const cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	n = 0;

	(void) b;
	for (uint32_t i = list_lower(st, h); i < st->nitems && list_get(st, i) == h; i++)
		n++;
	return n;
}

/* no walk: a free slot or nothing */
static bool
list_stage_add(cf_stage *st, uint32_t b, uint32_t max_kicks, uint64_t h)
{
	(void) b;
	(void) max_kicks;
	return list_add(st, h) == CF_OK;
}

/* exact: the hash itself */
static bool
list_stage_remove(cf_stage *st, uint32_t b, uint64_t h)
{
	(void) b;
	return list_remove(st, h);
}

/* a list is its filter's only sub-filter: never compared with another */
static bool
list_refines(const cf_stage *s, const cf_stage *t)
{
	return s == t;
}

static uint64_t
list_items(const cf_stage *st)
{
	return st->nitems;
}

static cf_status
list_insert_grow(cf_filter *f, uint32_t k, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	(void) k;					/* 0 */
	return list_insert(f, h, alloc, ctx);
}

/* a larger list, or its level-0 table with a stash record per hash */
static size_t
list_grow_size(const cf_filter *f, uint32_t k, bool same_size, char *err, size_t errlen)
{
	uint32_t	nslots = list_next_slots(f);

	(void) k;
	(void) same_size;
	(void) err;
	(void) errlen;
	if (nslots != 0)
		return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + (size_t) nslots * 8;
	return list_table_len(f) + (size_t) f->stages[0].nitems * CF_SPLIT_STASH_REC;
}

static void
list_grow_into(cf_filter *f, uint32_t k, uint8_t *out, bool same_size)
{
	(void) k;
	(void) same_size;
	list_grow(f, out);
}

/* a union with a list on either side is the list's */
static bool
list_unites(const cf_filter *a, const cf_filter *b)
{
	return filter_is_list(a) || filter_is_list(b);
}

/*
 * a list: its hashes; buckets = its hash slots, load the share of them
 * used; a false match needs an equal 64-bit hash
 */
static void
list_filter_stats(const cf_filter *f, cf_stats *s)
{
	s->families = 1;
	s->items = f->stages[0].nitems;
	s->buckets = f->stages[0].nbuckets;
	s->semisorted = codec_is_semisorted(&f->stages[0]);
	s->capacity = f->capacity;
	s->load_factor = (double) s->items / (double) f->stages[0].nbuckets;
	s->fpr = -expm1((double) s->items * log1p(-ldexp(1.0, -64)));
}

/* ---------------------------------------------------------------------
 * a new filter: a list of one free slot, with the header of the split
 * table it becomes
 * ------------------------------------------------------------------- */

/* a growing filter's start, where the split table it becomes has room for a list of at least one hash */
static bool
list_takes(const cf_params *p)
{
	return cfi_geom_split.takes(p) && p->capacity <= UINT32_MAX &&
		cfi_list_max((uint32_t) p->capacity, p->fpr, (uint32_t) p->bucket_size,
					 (uint32_t) p->encoding) >= 1;
}

/* the list's bytes, where the split table's fit a value (its message otherwise) */
static size_t
list_create_size(const cf_params *p, char *err, size_t errlen)
{
	if (cfi_geom_split.create_size(p, err, errlen) == 0)
		return 0;
	return CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE + 8;
}

static void
list_create(uint8_t *buf, const cf_params *p)
{
	cf_stage	st;

	memset(&st, 0, sizeof(st));
	st.nbuckets = 1;
	st.fpbits = 64;
	st.geom = CF_GEOM_LIST;
	st.enc = (uint32_t) p->encoding;
	cfi_create_header(buf, p, cf_split_width(p->fpr, (uint32_t) p->bucket_size, 0));
	cfi_write_desc(buf + CF_V2_HEADER_SIZE, &st);
	memset(buf + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0, 8);
	cfi_seal(buf);
}

/* ---------------------------------------------------------------------
 * the tables
 * ------------------------------------------------------------------- */

static const cfi_growth list_growth = {
	.grow_size = list_grow_size,
	.grow = list_grow_into,
	.insert_grow = list_insert_grow,
	.unites = list_unites,
	.union_size = list_union_size,
	.unite = list_union,
	.filter_stats = list_filter_stats,
};

const cfi_geometry cfi_geom_list = {
	.name = "list",
	.geom = CF_GEOM_LIST,
	.stash = false,
	.check = list_check,
	.attach = NULL,
	.scan = list_scan,
	.has = list_stage_has,
	.count = list_count,
	.add = list_stage_add,
	.remove = list_stage_remove,
	.refines = list_refines,
	.full_of_copies = NULL,
	.fold = NULL,
	.items = list_items,
	.build = NULL,
	.stats = NULL,
	.lookup = list_lookup,
	.takes = list_takes,
	.create_size = list_create_size,
	.create = list_create,
	.growth = &list_growth,
};
