/*
 * cuckoo_prefilter_range.c - the join pre-filter's key ranges: how much of
 * each key's distinct values lies within the other key's range of values,
 * from the statistics' histograms and most common values, so that the
 * expected fraction removed counts only the small side's keys the big side
 * can hold (docs/prefilter.md, "The expected fraction removed").  Computed
 * once per backend for a pair of columns, forgotten when statistics,
 * functions or operator classes change.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "cuckoo_prefilter_int.h"

/* ---- the key ranges (docs/prefilter.md, "The expected fraction removed") ---- */

/* the comparisons of the two keys' values, in one btree operator family */
typedef struct PfOrder
{
	FmgrInfo	lt_bb;			/* b < b */
	FmgrInfo	lt_ss;			/* s < s */
	FmgrInfo	lt_bs;			/* b < s */
	FmgrInfo	lt_sb;			/* s < b */
	Oid			ss_op;			/* s's "<": its histogram's order */
	Oid			bb_op;			/* b's "<" */
} PfOrder;

/* the statistics of one key column */
typedef struct PfKeyStats
{
	HeapTuple	tup;
	AttStatsSlot hist;			/* nvalues 0: none */
	AttStatsSlot mcv;			/* nvalues 0: none */
	bool		has_hist;
	bool		has_mcv;
} PfKeyStats;

/*
 * Can the statistics' values of the two key columns be compared?  Only in
 * one btree operator family holding "<" for both types and across them
 * (cross-type only through the family's own operator), each function
 * leakproof (it raises no error and reveals nothing), or, for one type
 * compared with itself, read by a user who may read both columns (as
 * selfuncs.c's statistic_proc_security_check).
 */
static bool
cfpg_pf_order(PfCand *c, Oid bt, Oid st, PfOrder *o, bool *leakproof_out)
{
	TypeCacheEntry *tb = lookup_type_cache(bt, TYPECACHE_BTREE_OPFAMILY);
	TypeCacheEntry *ts = lookup_type_cache(st, TYPECACHE_BTREE_OPFAMILY);
	Oid			ops[4];
	int			i;
	bool		leakproof = true;

	if (!OidIsValid(tb->btree_opf) || tb->btree_opf != ts->btree_opf)
		return false;
	bt = tb->btree_opintype;
	st = ts->btree_opintype;
	ops[0] = get_opfamily_member(tb->btree_opf, bt, bt, BTLessStrategyNumber);
	ops[1] = get_opfamily_member(tb->btree_opf, st, st, BTLessStrategyNumber);
	ops[2] = get_opfamily_member(tb->btree_opf, bt, st, BTLessStrategyNumber);
	ops[3] = get_opfamily_member(tb->btree_opf, st, bt, BTLessStrategyNumber);
	for (i = 0; i < 4; i++)
	{
		if (!OidIsValid(ops[i]))
			return false;
		if (!get_func_leakproof(get_opcode(ops[i])))
			leakproof = false;
	}
	if (!leakproof)
	{
		Oid			user = GetUserId();
		Oid			rels[2] = {c->b.relid, c->s.relid};
		AttrNumber	atts[2] = {c->b.attno, c->s.attno};

		if (bt != st)
			return false;
		for (i = 0; i < 2; i++)
			if (check_enable_rls(rels[i], InvalidOid, true) == RLS_ENABLED ||
				(pg_class_aclcheck(rels[i], user, ACL_SELECT) != ACLCHECK_OK &&
				 pg_attribute_aclcheck(rels[i], atts[i], user, ACL_SELECT) != ACLCHECK_OK))
				return false;
	}
	*leakproof_out = leakproof;
	fmgr_info(get_opcode(ops[0]), &o->lt_bb);
	fmgr_info(get_opcode(ops[1]), &o->lt_ss);
	fmgr_info(get_opcode(ops[2]), &o->lt_bs);
	fmgr_info(get_opcode(ops[3]), &o->lt_sb);
	o->bb_op = ops[0];
	o->ss_op = ops[1];
	return true;
}

/* the histogram (in the order of op) and the MCVs of a side's key, or false */
static bool
cfpg_pf_key_stats(PfSide *sd, Oid op, PfKeyStats *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(sd->relid),
							  Int16GetDatum(sd->attno), BoolGetDatum(sd->inh));
	if (!HeapTupleIsValid(ks->tup))
		return false;
	if (get_attstatsslot(&ks->hist, ks->tup, STATISTIC_KIND_HISTOGRAM, op,
						 ATTSTATSSLOT_VALUES))
	{
		ks->has_hist = ks->hist.nvalues >= 2;
		if (!ks->has_hist)
			free_attstatsslot(&ks->hist);
	}
	if (get_attstatsslot(&ks->mcv, ks->tup, STATISTIC_KIND_MCV, InvalidOid,
						 ATTSTATSSLOT_VALUES))
	{
		ks->has_mcv = ks->mcv.nvalues >= 1;
		if (!ks->has_mcv)
			free_attstatsslot(&ks->mcv);
	}
	return ks->has_hist || ks->has_mcv;
}

static void
cfpg_pf_key_stats_free(PfKeyStats *ks)
{
	if (ks->has_hist)
		free_attstatsslot(&ks->hist);
	if (ks->has_mcv)
		free_attstatsslot(&ks->mcv);
	if (HeapTupleIsValid(ks->tup))
		ReleaseSysCache(ks->tup);
}

static inline bool
cfpg_pf_lt(FmgrInfo *f, Oid coll, Datum a, Datum b)
{
	return DatumGetBool(FunctionCall2Coll(f, coll, a, b));
}

/* the smallest and the largest value the statistics hold (histogram bounds, MCVs) */
static void
cfpg_pf_bounds(PfKeyStats *ks, FmgrInfo *lt, Oid coll, Datum *lo, Datum *hi)
{
	int			i = 0;

	if (ks->has_hist)
	{
		*lo = ks->hist.values[0];
		*hi = ks->hist.values[ks->hist.nvalues - 1];
	}
	else
	{
		*lo = *hi = ks->mcv.values[0];
		i = 1;
	}
	for (; ks->has_mcv && i < ks->mcv.nvalues; i++)
	{
		if (cfpg_pf_lt(lt, coll, ks->mcv.values[i], *lo))
			*lo = ks->mcv.values[i];
		if (cfpg_pf_lt(lt, coll, *hi, ks->mcv.values[i]))
			*hi = ks->mcv.values[i];
	}
}

/*
 * Where x's distinct values lie against [lo, hi], the other side's range
 * (lt_xo: x < other, lt_ox: other < x): its MCVs in the range, counted one
 * by one, and the fraction of its histogram's buckets that overlap the range
 * (a bucket that overlaps it counts whole: never more removed than the
 * statistics show; without a histogram, 1).
 */
typedef struct PfClipPart
{
	double		mcv_in;			/* MCVs in the range */
	double		mcv;			/* MCVs */
	double		buckets_in;		/* the fraction of the buckets */
} PfClipPart;

static void
cfpg_pf_part(PfKeyStats *ks, FmgrInfo *lt_xo, FmgrInfo *lt_ox, Oid coll,
			 Datum lo, Datum hi, PfClipPart *p)
{
	int			i;

	p->mcv_in = 0.0;
	p->mcv = ks->has_mcv ? ks->mcv.nvalues : 0;
	p->buckets_in = 1.0;
	for (i = 0; ks->has_mcv && i < ks->mcv.nvalues; i++)
		if (!cfpg_pf_lt(lt_xo, coll, ks->mcv.values[i], lo) &&
			!cfpg_pf_lt(lt_ox, coll, hi, ks->mcv.values[i]))
			p->mcv_in += 1.0;
	if (ks->has_hist)
	{
		int			nb = ks->hist.nvalues - 1;
		int			over = 0;

		for (i = 0; i < nb; i++)
			if (!cfpg_pf_lt(lt_xo, coll, ks->hist.values[i + 1], lo) &&
				!cfpg_pf_lt(lt_ox, coll, hi, ks->hist.values[i]))
				over++;
		p->buckets_in = (double) over / nb;
	}
}

/*
 * The fraction of x's nd distinct values in the range: its MCVs in it, and
 * the others spread over the histogram's buckets as its rows are.
 */
static double
cfpg_pf_part_frac(PfClipPart *p, double nd)
{
	if (nd <= 0)
		return 1.0;
	return Min(1.0, (p->mcv_in + Max(0.0, nd - p->mcv) * p->buckets_in) / nd);
}

/*
 * The clip of a pair of key columns, kept per backend (the statistics'
 * arrays are read and compared once, not at each planning) when its
 * comparisons are leakproof (it then depends on no user); emptied when
 * pg_statistic, pg_proc, pg_amop or pg_opclass change.
 */
typedef struct PfClipKey
{
	Oid			brel;
	Oid			srel;
	Oid			btype;
	Oid			stype;
	int16		batt;
	int16		satt;
	bool		binh;
	bool		sinh;
} PfClipKey;

typedef struct PfClipEnt
{
	PfClipKey	key;
	bool		ok;				/* a clip (else no statistics or ordering) */
	PfClipPart	s;				/* S's keys against B's range */
	PfClipPart	b;				/* B's keys against S's range */
} PfClipEnt;

static HTAB *cfpg_pf_clips = NULL;
static bool cfpg_pf_clips_stale = false;

static void
cfpg_pf_clips_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	cfpg_pf_clips_stale = true;
}

/* the clip of c's keys into *e (e->key set); false: none (statistics or an ordering missing) */
static bool
cfpg_pf_clip_compute(PfCand *c, PfClipEnt *e, bool *cacheable)
{
	PfOrder		o;
	PfKeyStats	bk;
	PfKeyStats	sk;
	Oid			coll = InvalidOid;
	Datum		blo,
				bhi,
				slo,
				shi;
	bool		ok;

	*cacheable = false;
	if (!cfpg_pf_order(c, e->key.btype, e->key.stype, &o, cacheable))
		return false;
	ok = cfpg_pf_key_stats(&c->b, o.bb_op, &bk);
	ok = cfpg_pf_key_stats(&c->s, o.ss_op, &sk) && ok;
	if (ok)
	{
		/* every value ordered in one collation (that of ANALYZE) */
		AttStatsSlot *slots[4] = {
			bk.has_hist ? &bk.hist : NULL, bk.has_mcv ? &bk.mcv : NULL,
			sk.has_hist ? &sk.hist : NULL, sk.has_mcv ? &sk.mcv : NULL};
		int			i;

		if (type_is_collatable(e->key.btype) || type_is_collatable(e->key.stype))
			for (i = 0; i < 4; i++)
			{
				if (slots[i] == NULL)
					continue;
				if (!OidIsValid(slots[i]->stacoll) ||
					(OidIsValid(coll) && slots[i]->stacoll != coll))
					ok = false;
				coll = slots[i]->stacoll;
			}
	}
	if (ok)
	{
		cfpg_pf_bounds(&bk, &o.lt_bb, coll, &blo, &bhi);
		cfpg_pf_bounds(&sk, &o.lt_ss, coll, &slo, &shi);
		cfpg_pf_part(&sk, &o.lt_sb, &o.lt_bs, coll, blo, bhi, &e->s);
		cfpg_pf_part(&bk, &o.lt_bs, &o.lt_sb, coll, slo, shi, &e->b);
	}
	cfpg_pf_key_stats_free(&bk);
	cfpg_pf_key_stats_free(&sk);
	return ok;
}

/*
 * The ranges of the two keys clipped by each other: *s_in, the fraction of
 * S's distinct keys within B's range of values, *b_in, B's within S's.  Both
 * 1 (no clip) where the statistics or an ordering are missing.
 */
void
cfpg_pf_clip(PfCand *c, double *s_in, double *b_in)
{
	PfClipEnt	e;
	PfClipEnt  *found = NULL;
	bool		cacheable;

	*s_in = *b_in = 1.0;
	memset(&e, 0, sizeof(e));
	e.key.brel = c->b.relid;
	e.key.srel = c->s.relid;
	/* getBaseType, but a built-in type is never a domain */
	e.key.btype = c->b.type < FirstGenbkiObjectId ? c->b.type : getBaseType(c->b.type);
	e.key.stype = c->s.type < FirstGenbkiObjectId ? c->s.type : getBaseType(c->s.type);
	e.key.batt = c->b.attno;
	e.key.satt = c->s.attno;
	e.key.binh = c->b.inh;
	e.key.sinh = c->s.inh;
	if (cfpg_pf_clips_stale && cfpg_pf_clips != NULL)
	{
		hash_destroy(cfpg_pf_clips);
		cfpg_pf_clips = NULL;
	}
	cfpg_pf_clips_stale = false;
	if (cfpg_pf_clips != NULL)
		found = hash_search(cfpg_pf_clips, &e.key, HASH_FIND, NULL);
	if (found == NULL)
	{
		e.ok = cfpg_pf_clip_compute(c, &e, &cacheable);
		if (cacheable && !cfpg_pf_clips_stale)
		{
			if (cfpg_pf_clips == NULL)
			{
				HASHCTL		ctl;

				ctl.keysize = sizeof(PfClipKey);
				ctl.entrysize = sizeof(PfClipEnt);
				cfpg_pf_clips = hash_create("cuckoo prefilter clips", 64, &ctl,
											HASH_ELEM | HASH_BLOBS);
			}
			if (hash_get_num_entries(cfpg_pf_clips) < 10000)
				*(PfClipEnt *) hash_search(cfpg_pf_clips, &e.key, HASH_ENTER, NULL) = e;
		}
		found = &e;
	}
	if (found->ok)
	{
		*s_in = cfpg_pf_part_frac(&found->s, c->s.nd);
		*b_in = cfpg_pf_part_frac(&found->b, c->b.nd);
	}
}

void
cfpg_pf_range_init(void)
{
	CacheRegisterSyscacheCallback(STATRELATTINH, cfpg_pf_clips_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(PROCOID, cfpg_pf_clips_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(AMOPSTRATEGY, cfpg_pf_clips_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(CLAOID, cfpg_pf_clips_inval, (Datum) 0);
}
