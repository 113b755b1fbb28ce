/*
 * cuckoo_seen.h - what the seen recipes share: the three-column one
 * (cuckoo_seen3.c) takes every step the two-column one (cuckoo_seen.c) takes
 * with its code: reading the arguments, a column returned as it came, a
 * mark's new delta and the fold into base, an unsee from delta or base, a
 * lookup in delta or base and cf_unseen's probe of base.  What mid adds
 * stays in cuckoo_seen3.c.
 */
#ifndef CUCKOO_SEEN_H
#define CUCKOO_SEEN_H

#include "fmgr.h"
#include "utils/array.h"

#include "cuckoo_args.h"

CFPG_HIDDEN_BEGIN

/* what a call knows about its arguments */
typedef struct SeenArgs
{
	CfCallCache *c;
	Datum		base;			/* argument 0, untouched (maybe a toast pointer) */
	bool		basenull;
	Oid			elemtype;		/* the items' type */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	CfHashInfo *hi;
	/* delta's elements, newest first (NULL elements are never stored) */
	Datum	   *elems;
	bool	   *enulls;
	int			n;
} SeenArgs;

/* delta with a call's marks, before any fold (cfpg_seen_mark_prepare) */
typedef struct SeenMark
{
	Datum	   *elems;			/* the marks, newest first, then delta's elements */
	bool	   *nulls;			/* the separator */
	int			n;
	int			nfresh;			/* the elements before the separator */
	bool		full;			/* they outgrow delta's limit: delta is folded */
} SeenMark;

/* the arguments */
/* reads base (argument 0), delta (deltaarg) and the item(s)' hash info (itemarg) */
extern void cfpg_seen_args_at(FunctionCallInfo fcinfo, SeenArgs *a, Oid elemtype, bool isarray,
							  int deltaarg, int itemarg);
/* array argument argno deconstructed (none for NULL), checked as "what" */
extern void cfpg_seen_deconstruct(FunctionCallInfo fcinfo, SeenArgs *a, int argno,
								  const char *what, Datum **elems, bool **nulls, int *n);
/* the item type of argument argno (element or array), else delta's element type */
extern Oid	cfpg_seen_item_type_at(FunctionCallInfo fcinfo, int argno, bool isarray, int deltaarg);
/* base's raw size (0 for NULL), without fetching it */
extern Size cfpg_seen_base_bytes(SeenArgs *a);

/* a column's new value */
/* column argno as the call got it (base: the argument itself, an expanded one flattened) */
extern Datum cfpg_seen_same(FunctionCallInfo fcinfo, SeenArgs *a, int argno);
/* a one-dimensional array of elems (nulls: the separator), NULL if no item */
extern ArrayType *cfpg_seen_array(SeenArgs *a, Datum *elems, bool *nulls, int n);
/* an array column's value: r, or NULL for NULL */
extern Datum cfpg_seen_array_or_null(FunctionCallInfo fcinfo, ArrayType *r);

/* a mark */
/* the marks of argument argno prepended to delta; false if none */
extern bool cfpg_seen_mark_prepare(FunctionCallInfo fcinfo, SeenArgs *a, bool isarray, int argno,
								   SeenMark *m);
/* the fold of elems (newest first) into base: column base (wantbase) or delta */
extern Datum cfpg_seen_fold_column(FunctionCallInfo fcinfo, SeenArgs *a, Datum *elems,
								   bool *nulls, int n, bool wantbase);

/* an unsee, a lookup */
/* an item's hash as the arrays compare items (value hashing 2) */
extern uint64 cfpg_seen_hash(SeenArgs *a, Datum value);
/* the position of the first (newest) element of elems with hash h, or -1 */
extern int	cfpg_seen_find(SeenArgs *a, Datum *elems, bool *nulls, int n, uint64 h);
/* an array column after an unsee: elems without element pos */
extern Datum cfpg_seen_without(FunctionCallInfo fcinfo, SeenArgs *a, Datum *elems, bool *nulls,
							   int n, int pos);
/* column base after one unsee of item that no array holds */
extern Datum cfpg_seen_base_unsee(FunctionCallInfo fcinfo, SeenArgs *a, Datum item);
/* base to read (its kind checked), or NULL when it is NULL */
extern const cf_filter *cfpg_seen_read_base(FunctionCallInfo fcinfo, SeenArgs *a);
/* whether base reports item (false when it is NULL) */
extern bool cfpg_seen_base_has(FunctionCallInfo fcinfo, SeenArgs *a, Datum item);

/* cf_unseen */
/* whether the arrays hold candidate i (value), *h set to its hash (cfpg_seen_hash) */
typedef bool (*SeenHeldFn) (void *arg, int i, Datum value, uint64 *h);
/* the candidates el[0 .. m) that held does not report nor base, in order */
extern Datum cfpg_seen_unseen(FunctionCallInfo fcinfo, SeenArgs *a, Datum *el, bool *nulls, int m,
							  SeenHeldFn held, void *arg);
/* ascending uint64, for qsort and bsearch */
extern int	cfpg_seen_cmp_u64(const void *x, const void *y);

CFPG_HIDDEN_END

#endif							/* CUCKOO_SEEN_H */
