/*
 * cuckoo_seen3.c - the "seen" recipe in three columns (1.4): a large filter
 * (base), a middle array of items (mid) and the small array of the newest
 * marks (delta).  A mark prepends to delta (as in two columns, with the
 * same code: cfpg_seen_mark_prepare in cuckoo_seen.c); when delta outgrows
 * its limit (the same limit) its items move to mid, a plain array of items,
 * newest first, that only a delta fold writes; when mid would take more
 * bytes than base's / CF_SEEN3_MID_RATIO, mid and delta are folded into base
 * with cf_add, oldest first (the two-column fold, the same code,
 * cfpg_seen_fold_column: base is byte for byte what one cf_add per mark
 * gives, and items base already reports twice stay in delta after the
 * separator).  base is thus written once per (base's bytes /
 * CF_SEEN3_MID_RATIO / item size) marks instead of once per (delta's limit /
 * item size) marks.
 *
 * Every function takes (base, mid, delta, ...): the old values of all three
 * columns, so that one UPDATE sets all three.  A column a mark does not
 * change is returned as its argument itself (a toast pointer stays the same
 * pointer: PostgreSQL writes none of it again).
 *
 * mid holds items, not a filter: folding a filter into base could not keep
 * base's precision (a union of tables is never better than its parts) nor
 * its bytes; an array folds exactly and is not a source of false positives.
 * docs/seen.md, "Three columns", has the model behind CF_SEEN3_MID_RATIO.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "cuckoo_args.h"
#include "cuckoo_hashval_hash.h"
#include "cuckoo_seen.h"

/*
 * mid is folded into base when it would take more bytes than base's bytes
 * / CF_SEEN3_MID_RATIO.  Per mark, with items of s bytes, base of B bytes,
 * delta's limit D and mid's limit B / R: base is written every B / (R s)
 * marks (s R bytes a mark) and mid, B / (2 R) bytes on average, every D / s
 * marks (B s / (2 R D) bytes a mark); the sum is least at R = sqrt(2 D / B)^-1,
 * about 4 for the 55 kB base of a user of 20,000 bigint items (D = 1,600):
 * 32 + 34 bytes a mark, against 275 for two columns.
 */
#define CF_SEEN3_MID_RATIO	4

/* the arguments: base 0, mid 1, delta 2, the item(s) 3 */
#define S3_MID		1
#define S3_DELTA	2
#define S3_ITEM		3

typedef struct Seen3Args
{
	SeenArgs	a;				/* base, delta, the items' type and hashing */
	bool		midread;		/* mid deconstructed (on first need) */
	Datum	   *melems;			/* mid's items, newest first */
	bool	   *mnulls;
	int			mn;
} Seen3Args;

static void
seen3_args(FunctionCallInfo fcinfo, Seen3Args *s, bool isarray)
{
	Oid			t = cfpg_seen_item_type_at(fcinfo, S3_ITEM, isarray, S3_DELTA);

	if (!OidIsValid(t))
	{
		t = get_fn_expr_argtype(fcinfo->flinfo, S3_MID);
		if (OidIsValid(t))
			t = get_element_type(t);
	}
	cfpg_seen_args_at(fcinfo, &s->a, t, isarray, S3_DELTA, S3_ITEM);
	s->midread = false;
	s->melems = NULL;
	s->mnulls = NULL;
	s->mn = 0;
}

/* mid's elements (it is read only when a call needs them) */
static void
seen3_read_mid(FunctionCallInfo fcinfo, Seen3Args *s)
{
	if (s->midread)
		return;
	cfpg_seen_deconstruct(fcinfo, &s->a, S3_MID, "mid", &s->melems, &s->mnulls, &s->mn);
	s->midread = true;
}

/*
 * A mark (isarray: of a page of items) for column which (0: base, 1: mid,
 * 2: delta): the new value of that column.
 */
static Datum
seen3_mark(FunctionCallInfo fcinfo, bool isarray, int which)
{
	Seen3Args	s;
	SeenArgs   *a = &s.a;
	SeenMark	m;
	int			nm = 0;
	Datum	   *seq;
	bool	   *seqnulls;
	ArrayType  *newmid;

	seen3_args(fcinfo, &s, isarray);
	if (!cfpg_seen_mark_prepare(fcinfo, a, isarray, S3_ITEM, &m))
		return cfpg_seen_same(fcinfo, a, which);	/* nothing to mark */
	if (!m.full)
	{
		if (which == 2)
			PG_RETURN_ARRAYTYPE_P(cfpg_seen_array(a, m.elems, m.nulls, m.n));
		return cfpg_seen_same(fcinfo, a, which);	/* mid is not even read */
	}

	/*
	 * delta is folded into mid: the sequence, newest first, of the fresh
	 * marks, mid's items, then delta's separator and the items kept back
	 */
	seen3_read_mid(fcinfo, &s);
	seq = palloc(sizeof(Datum) * (m.n + s.mn + 1));
	seqnulls = palloc(sizeof(bool) * (m.n + s.mn + 1));
	for (int i = 0; i < m.nfresh; i++)
	{
		seq[nm] = m.elems[i];
		seqnulls[nm++] = false;
	}
	for (int i = 0; i < s.mn; i++)
		if (!s.mnulls[i])
		{
			seq[nm] = s.melems[i];
			seqnulls[nm++] = false;
		}
	newmid = cfpg_seen_array(a, seq, NULL, nm);
	if (VARSIZE(newmid) <= cfpg_seen_base_bytes(a) / CF_SEEN3_MID_RATIO)
	{
		if (which == 0)
			return cfpg_seen_same(fcinfo, a, 0);
		if (which == 1)
			PG_RETURN_ARRAYTYPE_P(newmid);
		/* delta keeps its separator and the items kept back, if any */
		return cfpg_seen_array_or_null(fcinfo, cfpg_seen_array(a, m.elems + m.nfresh,
															   m.nulls + m.nfresh, m.n - m.nfresh));
	}

	/* mid is folded into base, with delta: the two-column fold */
	if (which == 1)
		PG_RETURN_NULL();
	for (int i = m.nfresh; i < m.n; i++)
	{
		seq[nm] = m.elems[i];
		seqnulls[nm++] = m.nulls[i];
	}
	return cfpg_seen_fold_column(fcinfo, a, seq, seqnulls, nm, which == 0);
}

/* cf_mark_base(base, mid, delta, item): base after marking item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_base);
Datum
cuckoo_mark3_base(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, false, 0);
}

/* cf_mark_mid(base, mid, delta, item): mid after marking item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_mid);
Datum
cuckoo_mark3_mid(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, false, 1);
}

/* cf_mark_delta(base, mid, delta, item): delta after marking item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_delta);
Datum
cuckoo_mark3_delta(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, false, 2);
}

/* cf_mark_all_base(base, mid, delta, items): base after marking every item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_all_base);
Datum
cuckoo_mark3_all_base(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, true, 0);
}

/* cf_mark_all_mid(base, mid, delta, items): mid after marking every item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_all_mid);
Datum
cuckoo_mark3_all_mid(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, true, 1);
}

/* cf_mark_all_delta(base, mid, delta, items): delta after marking every item */
PG_FUNCTION_INFO_V1(cuckoo_mark3_all_delta);
Datum
cuckoo_mark3_all_delta(PG_FUNCTION_ARGS)
{
	return seen3_mark(fcinfo, true, 2);
}

/*
 * An unsee of argument 3 for column which: one copy less, the newest: from
 * delta if it holds the item, else from mid, else from base.
 */
static Datum
seen3_unsee(FunctionCallInfo fcinfo, int which)
{
	Seen3Args	s;
	SeenArgs   *a = &s.a;
	int			pos;
	uint64		h;

	seen3_args(fcinfo, &s, false);
	if (PG_ARGISNULL(S3_ITEM))
		return cfpg_seen_same(fcinfo, a, which);
	h = cfpg_seen_hash(a, PG_GETARG_DATUM(S3_ITEM));
	pos = cfpg_seen_find(a, a->elems, a->enulls, a->n, h);
	if (pos >= 0)
	{
		if (which == 2)
			return cfpg_seen_without(fcinfo, a, a->elems, a->enulls, a->n, pos);
		return cfpg_seen_same(fcinfo, a, which);
	}
	if (which == 2)
		return cfpg_seen_same(fcinfo, a, 2);
	seen3_read_mid(fcinfo, &s);
	pos = cfpg_seen_find(a, s.melems, s.mnulls, s.mn, h);
	if (pos >= 0)
	{
		if (which == 1)
			return cfpg_seen_without(fcinfo, a, s.melems, s.mnulls, s.mn, pos);
		return cfpg_seen_same(fcinfo, a, 0);
	}
	if (which == 1)
		return cfpg_seen_same(fcinfo, a, 1);
	/* base: changed only when it reports the item */
	return cfpg_seen_base_unsee(fcinfo, a, PG_GETARG_DATUM(S3_ITEM));
}

/* cf_unsee_base(base, mid, delta, item): base after one unsee of item */
PG_FUNCTION_INFO_V1(cuckoo_unsee3_base);
Datum
cuckoo_unsee3_base(PG_FUNCTION_ARGS)
{
	return seen3_unsee(fcinfo, 0);
}

/* cf_unsee_mid(base, mid, delta, item): mid after one unsee of item */
PG_FUNCTION_INFO_V1(cuckoo_unsee3_mid);
Datum
cuckoo_unsee3_mid(PG_FUNCTION_ARGS)
{
	return seen3_unsee(fcinfo, 1);
}

/* cf_unsee_delta(base, mid, delta, item): delta after one unsee of item */
PG_FUNCTION_INFO_V1(cuckoo_unsee3_delta);
Datum
cuckoo_unsee3_delta(PG_FUNCTION_ARGS)
{
	return seen3_unsee(fcinfo, 2);
}

/*
 * The candidates' distinct hashes in an open-addressing set (slot: an index
 * into hs, -1 for empty; at most half full), so that each element of mid
 * (thousands of items) costs one hash and about one probe.
 */
typedef struct Seen3Set
{
	const uint64 *hs;
	int		   *slot;
	uint32		mask;
} Seen3Set;

static void
seen3_set_init(Seen3Set *set, const uint64 *hs, int n)
{
	uint32		size = 16;

	while (size < (uint32) n * 2)
		size <<= 1;
	set->hs = hs;
	set->mask = size - 1;
	set->slot = palloc(sizeof(int) * size);
	memset(set->slot, -1, sizeof(int) * size);
	for (int i = 0; i < n; i++)
	{
		uint32		j = (uint32) (hs[i] >> 32) & set->mask;

		while (set->slot[j] >= 0 && hs[set->slot[j]] != hs[i])
			j = (j + 1) & set->mask;
		set->slot[j] = i;
	}
}

/* the index in hs of h, or -1 */
static int
seen3_set_find(const Seen3Set *set, uint64 h)
{
	uint32		j = (uint32) (h >> 32) & set->mask;

	while (set->slot[j] >= 0)
	{
		if (set->hs[set->slot[j]] == h)
			return set->slot[j];
		j = (j + 1) & set->mask;
	}
	return -1;
}

/* marks in held[] the hashes of set that one of elems[0 .. ne) has */
static void
seen3_mark_held(SeenArgs *a, Datum *elems, bool *nulls, int ne, const Seen3Set *set, bool *held)
{
	for (int i = 0; i < ne; i++)
	{
		int			k;

		if (nulls[i])
			continue;
		k = seen3_set_find(set, cfpg_seen_hash(a, elems[i]));
		if (k >= 0)
			held[k] = true;
	}
}

/* cf_seen(base, mid, delta, item): whether item is reported seen (NULL item: NULL) */
PG_FUNCTION_INFO_V1(cuckoo_seen3);
Datum
cuckoo_seen3(PG_FUNCTION_ARGS)
{
	Seen3Args	s;
	SeenArgs   *a = &s.a;
	uint64		h;

	if (PG_ARGISNULL(S3_ITEM))
		PG_RETURN_NULL();
	seen3_args(fcinfo, &s, false);
	h = cfpg_seen_hash(a, PG_GETARG_DATUM(S3_ITEM));
	if (cfpg_seen_find(a, a->elems, a->enulls, a->n, h) >= 0)
		PG_RETURN_BOOL(true);
	seen3_read_mid(fcinfo, &s);
	if (cfpg_seen_find(a, s.melems, s.mnulls, s.mn, h) >= 0)
		PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(cfpg_seen_base_has(fcinfo, a, PG_GETARG_DATUM(S3_ITEM)));
}

/* the candidates' hashes and which of them delta or mid holds */
typedef struct Seen3Held
{
	const uint64 *ch;			/* the candidates' hashes, in their order */
	const int  *ci;				/* their index in the set of distinct ones */
	const bool *held;			/* held[k]: the set's k-th is in delta or mid */
} Seen3Held;

/* SeenHeldFn: whether delta or mid holds candidate i */
static bool
seen3_held(void *arg, int i, Datum value, uint64 *h)
{
	const Seen3Held *sh = arg;

	*h = sh->ch[i];
	return sh->held[sh->ci[i]];
}

/*
 * cf_unseen(base, mid, delta, candidates): the candidates not reported
 * seen, in their order (repeats kept, NULL elements dropped); NULL
 * candidates: NULL.
 */
PG_FUNCTION_INFO_V1(cuckoo_unseen3);
Datum
cuckoo_unseen3(PG_FUNCTION_ARGS)
{
	Seen3Args	s;
	SeenArgs   *a = &s.a;
	ArrayType  *arr;
	Datum	   *el;
	bool	   *nulls;
	int			m,
				nh = 0,
				nu = 0;
	uint64	   *ch;				/* the candidates' hashes, in their order */
	int		   *ci;				/* their index in set */
	Seen3Set	set;			/* the distinct ones */
	uint64	   *uh;
	bool	   *held;			/* uh[i] is in delta or mid */
	Seen3Held	sh;

	if (PG_ARGISNULL(S3_ITEM))
		PG_RETURN_NULL();
	seen3_args(fcinfo, &s, true);
	arr = PG_GETARG_ARRAYTYPE_P(S3_ITEM);
	deconstruct_array(arr, a->elemtype, a->elmlen, a->elmbyval, a->elmalign, &el, &nulls, &m);
	ch = palloc(sizeof(uint64) * Max(m, 1));
	ci = palloc(sizeof(int) * Max(m, 1));
	uh = palloc(sizeof(uint64) * Max(m, 1));
	for (int i = 0; i < m; i++)
		if (!nulls[i])
			uh[nh++] = ch[i] = cfpg_seen_hash(a, el[i]);
	qsort(uh, nh, sizeof(uint64), cfpg_seen_cmp_u64);
	for (int i = 0; i < nh; i++)
		if (nu == 0 || uh[nu - 1] != uh[i])
			uh[nu++] = uh[i];
	seen3_set_init(&set, uh, nu);
	for (int i = 0; i < m; i++)
		ci[i] = nulls[i] ? -1 : seen3_set_find(&set, ch[i]);
	held = palloc0(sizeof(bool) * Max(nu, 1));
	seen3_mark_held(a, a->elems, a->enulls, a->n, &set, held);
	if (nu > 0)
	{
		seen3_read_mid(fcinfo, &s);
		seen3_mark_held(a, s.melems, s.mnulls, s.mn, &set, held);
	}
	sh.ch = ch;
	sh.ci = ci;
	sh.held = held;
	return cfpg_seen_unseen(fcinfo, a, el, nulls, m, seen3_held, &sh);
}
