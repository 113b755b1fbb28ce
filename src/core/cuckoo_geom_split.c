/*
 * cuckoo_geom_split.c - the split geometry (geometry 3, FORMAT.md "Split
 * tables") as a sub-filter's operations: a table that doubles in place,
 * its stash, and the union of two filters of one split family into one
 * table.  The table arithmetic (probes, walks, doubling, stash records) is
 * cuckoo_split.c's; this file creates a filter with a split table,
 * decides when it grows, by how much, and lays the grown filter out.
 * Plain C99.
 */
#include "cuckoo_split.h"
#include "cuckoo_check.h"

#include <stdlib.h>

/* ---------------------------------------------------------------------
 * reading a split table (FORMAT.md, "Split tables")
 * ------------------------------------------------------------------- */

/* m0 << level buckets, m0 odd; base width, width and level the schedule allows; a stash of bounded size */
static bool
split_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (!cfi_check_slots(f, st, k, err, errlen))
		return false;
	if (st->level > 31 || (st->nbuckets & (uint32_t) ((UINT64_C(1) << st->level) - 1)) != 0 ||
		((st->nbuckets >> st->level) & 1) == 0)
	{
		cfi_set_err(err, errlen, "sub-filter %u has %u buckets, not an odd multiple of 2^%u for its level",
				k, st->nbuckets, st->level);
		return false;
	}
	if (st->basebits < CF_SPLIT_F0_MIN || st->basebits > CF_SPLIT_F0_MAX ||
		st->fpbits < st->basebits + 2 ||
		st->level + st->fpbits - 1 - st->basebits > 64 - st->basebits)
	{
		cfi_set_err(err, errlen, "split sub-filter %u has base width %u, level %u and width %u (needs base width %d to %d, width >= base + 2, level + width <= 65)",
				k, st->basebits, st->level, st->fpbits, CF_SPLIT_F0_MIN, CF_SPLIT_F0_MAX);
		return false;
	}
	if (st->nstash > CF_SPLIT_STASH_MAX)
	{
		cfi_set_err(err, errlen, "sub-filter %u has %u stash records, more than %d",
				k, st->nstash, CF_SPLIT_STASH_MAX);
		return false;
	}
	split_stage_setup(st, f->bucket_size);
	return true;
}

/*
 * The stash records of split sub-filter k, after its table: each free (all
 * zero), or an entry with a marker in a bucket of a level no higher than
 * the table's.  The first split sub-filter takes f's adds (f->split).
 */
static bool
split_attach(cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	cf_stage   *st = &f->stages[k];

	st->stash = st->nstash ? st->table + st->table_bytes : NULL;
	for (uint32_t j = 0; j < st->nstash; j++)
	{
		const uint8_t *r = st->stash + (size_t) j * CF_SPLIT_STASH_REC;
		uint32_t	x = get_le32(r),
					e = get_le32(r + 4),
					lev = r[8];
		bool		ok;

		if (e == 0)
			ok = x == 0 && lev == 0;
		else
			ok = lev <= st->level && x < (st->base_nbuckets << lev) &&
				(e & ((UINT32_C(1) << (32 - st->basebits)) - 1)) != 0;
		if (!ok || r[9] != 0 || r[10] != 0 || r[11] != 0)
		{
			cfi_set_err(err, errlen, "stash record %u of sub-filter %u is not valid", j, k);
			return false;
		}
	}
	if (f->split < 0)
		f->split = (int32_t) k;
	return true;
}

/* every entry ends with a marker: a bit set in its low R + 1 bits */
static bool
split_scan(const cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	return cfi_scan_table(f, k, (uint32_t) ((UINT64_C(1) << (f->stages[k].extbits + 1)) - 1),
						  err, errlen);
}

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
	split_stage_setup(&nw, b);
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
	cfi_seal(out);
	if (!cfi_open(f, out, len, cfi_registry_of(f), NULL, 0))
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
	split_pair	pr;
	uint32_t	R = st->extbits;

	split_pair_read(st, b, h, &pr);
	for (int side = 0; side < 2; side++)
	{
		uint32_t	q = split_pair_query(&pr, side);

		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	v = pr.v[side][s];

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
	split_pair	pr;
	uint32_t	R = st->extbits;

	split_pair_read(st, b, h, &pr);
	for (int side = 0; side < 2; side++)
		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	v = pr.v[side][s];

			if (v == 0 || (v >> (R + 1)) != (pr.p.q1 >> (R + 1)))
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
	split_pair	pr;
	uint32_t	R = st->extbits;

	split_pair_read(st, b, h, &pr);
	for (int side = 0; side < 2; side++)
	{
		uint32_t	q = split_pair_query(&pr, side);
		uint32_t	n = 0;

		for (uint32_t s = 0; s < b; s++)
		{
			uint32_t	v = pr.v[side][s];

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


/* ---------------------------------------------------------------------
 * unions of two filters of one split family: one table
 * ------------------------------------------------------------------- */

/*
 * Two filters of one split family: one split table each, with the same
 * base buckets, base width, bucket size and target rate (so the same
 * width schedule).  Their entries can go into one table.
 */
static bool
split_family(const cf_filter *a, const cf_filter *b)
{
	return a->nstages == 1 && b->nstages == 1 && a->split == 0 && b->split == 0 &&
		a->bucket_size == b->bucket_size && cfi_split_same_schedule(a, b) &&
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
	split_stage_setup(&nw, b);
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
			split_stage_setup(&mid, b);
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
		 * side instead (split_unite).
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
		cfi_seal(out);
		if (!cfi_open(result, out, len, cfi_registry_of(a), err, errlen))
			abort();			/* cannot happen: built from valid filters */
		return len;
	}
	cfi_set_err(err, errlen, "the union of two filters of %llu and %llu items does not fit a table of four times the larger one's size",
			(unsigned long long) a->stages[0].nitems, (unsigned long long) b->stages[0].nitems);
	return 0;
}

/* ---------------------------------------------------------------------
 * the operations table
 * ------------------------------------------------------------------- */

/* the live records of a split table's stash (a free record is all zero) */
static uint64_t
stash_items(const cf_stage *st)
{
	uint64_t	n = 0;

	for (uint32_t j = 0; j < st->nstash; j++)
		n += get_le32(st->stash + (size_t) j * CF_SPLIT_STASH_REC + 4) != 0;
	return n;
}


static uint64_t
split_items(const cf_stage *st)
{
	return st->nitems + (st->nstash > 0 ? stash_items(st) : 0);
}

/*
 * A split table: one kick-out insert after another (no bulk path yet; the
 * result depends only on h and its order).  A stash is never used here, so
 * a table that does not take them all fails.
 */
static bool
split_build(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work)
{
	cf_stage   *st = &f->stages[0];

	(void) n;
	(void) work;
	if (st->nstash != 0)
		return false;
	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++)
		{
			check_interrupts(i);
			if (!cfi_split_insert(st, f->bucket_size, f->max_kicks, runs[r].h[i]))
				return false;
		}
	return true;
}

/* two split tables of one filter, taken one by one: unrelated (deletes use the family below) */
static bool
split_refines(const cf_stage *s, const cf_stage *t)
{
	(void) s;
	(void) t;
	return false;
}

/*
 * Split tables of one family: the same base buckets and base width, so the
 * same bucket pairs and keys at every level; their entries nest by virtual
 * level whatever table holds them (FORMAT.md, "Deletes in split tables").
 */
static bool
split_same_family(const cf_stage *s, const cf_stage *t)
{
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits;
}

/* a split table: the design load of its present size, its rate summed per slot */
static void
split_stats(const cf_filter *f, uint32_t k, cf_stats *s, uint64_t *slots, double *miss)
{
	const cf_stage *st = &f->stages[k];
	uint64_t	n = (uint64_t) st->nbuckets * f->bucket_size;

	s->items += st->nitems;
	s->buckets += st->nbuckets;
	*slots += n;
	s->capacity += k == 0 && st->level == 0 ? f->capacity :
		n * design_load_permille(f->bucket_size) / 1000;
	*miss *= 1.0 - cfi_split_fpr(st, f->bucket_size);
	s->items += stash_items(st);
}

static cf_status
split_insert_grow(cf_filter *f, uint32_t k, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	(void) k;					/* f->split */
	return split_insert(f, h, alloc, ctx);
}

/* one doubling of split sub-filter k */
static size_t
split_grow_size(const cf_filter *f, uint32_t k, bool same_size, char *err, size_t errlen)
{
	const cf_stage *sp = &f->stages[k];

	(void) same_size;

	if (!split_can_double(f, k, err, errlen))
		return 0;
	return (size_t) split_layout_len(f, k, sp->level + 1,
									 split_next_width(f, sp, sp->level + 1), sp->nstash);
}

static void
split_grow(cf_filter *f, uint32_t k, uint8_t *out, bool same_size)
{
	const cf_stage *sp = &f->stages[k];
	uint32_t	L = sp->level + 1;

	(void) same_size;
	split_relayout(f, k, out, L, split_next_width(f, sp, L), sp->nstash);
}

/* the side-by-side bound, or the split union's when larger */
static size_t
split_union_size(const cf_filter *a, const cf_filter *b, const cf_union_again *again,
				 char *err, size_t errlen)
{
	size_t		len = again->side_size(a, b, err, errlen);
	uint64_t	bound;

	if (len == 0)
		return 0;
	bound = split_union_bound(a, b);
	if (bound > len)
	{
		if (bound > CF_MAX_SIZE)
		{
			cfi_set_err(err, errlen, "the union would exceed the 1 GB a value can hold");
			return 0;
		}
		len = (size_t) bound;
	}
	return len;
}

static size_t
split_unite(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
			cf_filter *result, const cf_union_again *again, char *err, size_t errlen)
{
	cf_filter	r;
	size_t		len = split_union(a, b, out, outcap, &r, NULL, 0);

	/*
	 * Copies of one value from many parts share one bucket pair, which no
	 * doubling splits: past its slots and the stash they cannot fold into
	 * one table.  The tables then stand side by side, as tables of two
	 * families do: no entry is lost, and a delete that matches in both is
	 * left in place.
	 */
	if (len == 0)
		return again->side(a, b, out, outcap, result, err, errlen);
	cfi_union_counters(a, b, out, &r);
	*result = r;
	return len;
}

/* ---------------------------------------------------------------------
 * a new filter: one split table (FORMAT.md, "Split tables"), m0 odd, the
 * schedule's width at level 0
 * ------------------------------------------------------------------- */

/* a filter that grows, with a rate the split schedule can keep (else cf_create takes chain) */
static bool
split_takes(const cf_params *p)
{
	return p->expansion > 0 && cf_split_width(p->fpr, (uint32_t) p->bucket_size, 0) != 0;
}

static size_t
split_create_size(const cf_params *p, char *err, size_t errlen)
{
	return cfi_create_len(p, cf_nbuckets_for(p->capacity, p->bucket_size) | 1,
						  cf_split_width(p->fpr, (uint32_t) p->bucket_size, 0), err, errlen);
}

static void
split_create(uint8_t *buf, const cf_params *p)
{
	cf_stage	st;

	memset(&st, 0, sizeof(st));
	st.nbuckets = (uint32_t) cf_nbuckets_for(p->capacity, p->bucket_size) | 1;
	st.fpbits = cf_split_width(p->fpr, (uint32_t) p->bucket_size, 0);
	st.geom = CF_GEOM_SPLIT;
	st.basebits = CF_SPLIT_F0;
	st.enc = (uint32_t) p->encoding;
	cfi_create_header(buf, p, st.fpbits);
	cfi_write_desc(buf + CF_V2_HEADER_SIZE, &st);
	/* an empty table is all zeros in either encoding (index 0 is {0, 0, 0, 0}) */
	memset(buf + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0,
		   (size_t) table_bytes_for(st.nbuckets, (uint32_t) p->bucket_size, st.fpbits, st.enc));
	cfi_seal(buf);
}

/* ---------------------------------------------------------------------
 * the tables
 * ------------------------------------------------------------------- */

static const cfi_growth split_growth = {
	.grow_size = split_grow_size,
	.grow = split_grow,
	.insert_grow = split_insert_grow,
	.unites = split_family,
	.union_size = split_union_size,
	.unite = split_unite,
	.filter_stats = NULL,
};

const cfi_geometry cfi_geom_split = {
	.name = "split",
	.geom = CF_GEOM_SPLIT,
	.stash = true,
	.check = split_check,
	.attach = split_attach,
	.scan = split_scan,
	.has = cfi_split_has,
	.count = cfi_split_count,
	.add = cfi_split_insert,
	.remove = cfi_split_delete,
	.refines = split_refines,
	.same_family = split_same_family,
	.precision = cfi_split_finest,
	.full_of_copies = NULL,
	.fold = NULL,
	.items = split_items,
	.build = split_build,
	.stats = split_stats,
	.lookup = cfi_split_lookup,
	.takes = split_takes,
	.create_size = split_create_size,
	.create = split_create,
	.growth = &split_growth,
};
