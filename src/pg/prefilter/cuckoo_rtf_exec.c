/*
 * cuckoo_rtf_exec.c - run-time join filters: the builder and checker
 * executor nodes, their EXPLAIN, and the ExecutorStart hook that connects
 * them (cuckoo_rtf.h; docs/prefilter.md, "Run-time filters").
 *
 * Builder ("CuckooFilterBuild", between a Hash node and its child): passes
 * every tuple up unchanged and, for each of its keys, hashes the key with
 * the hash opfamily's function for the build side's type (the 64-bit
 * extended one with seed 0, else the standard one) and keeps the hash; NULL
 * keys are never kept.  When the child is exhausted it sorts the distinct
 * hashes and builds a cuckoo filter from them in bulk (a sorted array for a
 * few); past cuckoo.join_prefilter_runtime_max_keys it gives up (its
 * checkers pass everything).  A rescan starts it over.
 *
 * Checker ("CuckooFilter", where the probe key is produced): hashes the
 * key with the function for the probe side's type (the opfamily's contract:
 * equal values hash alike across its types) and drops the row when the
 * filter does not have it; a NULL key is dropped when the operator is
 * strict (the hash join drops it then too).  A row passes while the filter
 * is not complete for the hash table the join is using: the builder has not
 * finished, or the join's hash table does not exist (PostgreSQL may fetch an
 * outer row before it builds or rebuilds it).  After
 * cuckoo.join_prefilter_runtime_sample rows, a filter that removed less
 * than cuckoo.join_prefilter_runtime_min_removed of them switches off.
 *
 * The two are connected per execution, never globally: after the executor
 * has initialized the plan, the ExecutorStart hook walks the plan state,
 * gives each builder its hash join's state and each checker its builder
 * (same id).  A checker left unconnected (a plan started without the
 * hook, as EvalPlanQual's) passes every row.
 */
#include "postgres.h"

#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif
#include "executor/executor.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "cuckoo.h"
#include "cuckoo_view.h"
#include "cuckoo_rtf.h"

/* sizes up to this are kept as a sorted array, exact */
#define CFPG_RTF_ARRAY_MAX	64
/*
 * A build side of more keys than an exact array holds is made a filter only
 * once one of its checks has passed CFPG_RTF_WARMUP rows unchecked: a plan
 * that stops early (a LIMIT, an outer side nearly empty) never pays for the
 * sort and the build, and any other loses a few hundred checks.
 */
#define CFPG_RTF_LAZY_KEYS	CFPG_RTF_ARRAY_MAX
#define CFPG_RTF_WARMUP		512
/* the rate that gives 8-bit fingerprints in buckets of 4, probed in line (cf_probe_hash); a false positive costs one probe */
#define CFPG_RTF_FPR		0.04

typedef enum CfpgRtfMode
{
	CFPG_RTF_BUILDING = 0,		/* not complete: pass */
	CFPG_RTF_COLLECTED,			/* complete, the filter not built yet (lazy) */
	CFPG_RTF_EMPTY,				/* no key: remove every row */
	CFPG_RTF_ARRAY,				/* sorted distinct hashes */
	CFPG_RTF_FILTER,			/* a cuckoo filter */
	CFPG_RTF_GAVE_UP			/* too many keys, or no filter could be built: pass */
} CfpgRtfMode;

/* one key's hashing, either side */
typedef struct CfpgRtfHashing
{
	int			filterno;
	FmgrInfo	fn;
	Oid			coll;
	int			method;			/* CFPG_RTF_HASH_* */
	bool		strict;
	AttrNumber	attno;			/* > 0: the key is the child's column attno */
} CfpgRtfHashing;

/* a builder's key and its filter */
typedef struct CfpgRtfKey
{
	CfpgRtfHashing hs;
	ExprState  *expr;
	CfpgRtfMode mode;
	uint64	   *hashes;			/* collected (BUILDING), or the array (ARRAY) */
	size_t		n;
	size_t		cap;
	uint64		distinct;		/* after the build */
	cf_filter  *filter;			/* FILTER: malloc'd by the core */
	cf_probe	probe;
	size_t		bytes;
	uint64		builds;			/* builds done (rescans) */
} CfpgRtfKey;

typedef struct CfpgRtfBuild
{
	CustomScanState css;
	int			id;
	int			nkeys;
	int			max_keys;
	HashJoinState *hj;			/* the join: set by the ExecutorStart hook */
	bool		disabled;		/* the settings were off when the plan started */
	bool		complete;
	bool		freed;
	CfpgRtfKey *keys;
} CfpgRtfBuild;

typedef struct CfpgRtfCheck
{
	CustomScanState css;
	int			id;
	int			keyno;
	CfpgRtfHashing hs;
	ExprState  *expr;
	CfpgRtfBuild *b;			/* set by the ExecutorStart hook */
	uint64		checked;
	uint64		removed;
	uint64		unready;		/* rows passed before the filter was complete,
								 * or during the warm-up of a lazy build */
	uint64		sample;
	double		min_removed;
	bool		off;			/* switched itself off, or disabled */
	bool		disabled;		/* the settings were off when the plan started */
	uint64		off_at;
} CfpgRtfCheck;

static const CustomExecMethods cfpg_rtf_build_xm;
static const CustomExecMethods cfpg_rtf_check_xm;

static ExecutorStart_hook_type cfpg_rtf_prev_start = NULL;
/* nodes begun by this backend: the hook walks a plan only if some were */
static uint64 cfpg_rtf_begun = 0;

/* the murmur3 finalizer: the 64 bits a filter needs from any hash function */
static inline uint64
cfpg_rtf_mix(uint64 h)
{
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static inline uint64
cfpg_rtf_hash(CfpgRtfHashing *hs, Datum d)
{
	switch (hs->method)
	{
		case CFPG_RTF_HASH_INT8:
			return cf_hash_int64_inline(DatumGetInt64(d));
		case CFPG_RTF_HASH_INT4:
			return cf_hash_int64_inline((int64) DatumGetInt32(d));
		case CFPG_RTF_HASH_INT2:
			return cf_hash_int64_inline((int64) DatumGetInt16(d));
		case CFPG_RTF_HASH_EXTENDED:
			return cfpg_rtf_mix(DatumGetUInt64(FunctionCall2Coll(&hs->fn, hs->coll, d,
																 UInt64GetDatum(0))));
		default:
			return cfpg_rtf_mix((uint64) DatumGetUInt32(FunctionCall1Coll(&hs->fn, hs->coll, d)));
	}
}

/* the key of the child's tuple in slot: a column read directly, or the expression */
static inline Datum
cfpg_rtf_key(CfpgRtfHashing *hs, ExprState *expr, ExprContext *econtext,
			 TupleTableSlot *slot, bool *isnull)
{
	if (hs->attno > 0)
		return slot_getattr(slot, hs->attno, isnull);
	ResetExprContext(econtext);
	econtext->ecxt_outertuple = slot;
	return ExecEvalExprSwitchContext(expr, econtext, isnull);
}

/* a key that is a column of the child: read directly */
static void
cfpg_rtf_direct(CfpgRtfHashing *hs, Expr *e)
{
	hs->attno = 0;
	if (IsA(e, Var) && ((Var *) e)->varno == OUTER_VAR && ((Var *) e)->varattno > 0)
		hs->attno = ((Var *) e)->varattno;
}

static void
cfpg_rtf_read_hashing(CfpgRtfHashing *hs, ListCell **lc, List *l, MemoryContext cxt)
{
	Oid			proc;

	hs->filterno = intVal(lfirst(*lc));
	*lc = lnext(l, *lc);
	proc = (Oid) intVal(lfirst(*lc));
	*lc = lnext(l, *lc);
	hs->coll = (Oid) intVal(lfirst(*lc));
	*lc = lnext(l, *lc);
	hs->method = intVal(lfirst(*lc));
	*lc = lnext(l, *lc);
	hs->strict = intVal(lfirst(*lc)) != 0;
	*lc = lnext(l, *lc);
	if (hs->method == CFPG_RTF_HASH_STANDARD || hs->method == CFPG_RTF_HASH_EXTENDED)
		fmgr_info_cxt(proc, &hs->fn, cxt);
}

/* the node passes its child's tuples up as they are: its result is the child's slot */
static void
cfpg_rtf_begin_child(CustomScanState *node, EState *estate, int eflags)
{
	PlanState  *child = ExecInitNode(outerPlan(node->ss.ps.plan), estate, eflags);

	outerPlanState(node) = child;
	node->ss.ps.resultops = ExecGetResultSlotOps(child, &node->ss.ps.resultopsfixed);
	node->ss.ps.resultopsset = true;
	cfpg_rtf_begun++;
}

/* ---- the builder ---- */

static void
cfpg_rtf_free_key(CfpgRtfKey *k)
{
	if (k->filter != NULL)
		cf_filter_free(k->filter);
	k->filter = NULL;
	if (k->hashes != NULL)
		pfree(k->hashes);
	k->hashes = NULL;
	k->n = k->cap = 0;
	k->mode = CFPG_RTF_BUILDING;
}

/* frees the core's filters when the query's memory goes, an error included */
static void
cfpg_rtf_build_free(void *arg)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) arg;

	for (int i = 0; i < b->nkeys; i++)
		if (b->keys[i].filter != NULL)
		{
			cf_filter_free(b->keys[i].filter);
			b->keys[i].filter = NULL;
		}
	b->freed = true;
}

static Node *
cfpg_rtf_build_create(CustomScan *cscan)
{
	CfpgRtfBuild *b = palloc0(sizeof(CfpgRtfBuild));

	NodeSetTag(b, T_CustomScanState);
	b->css.methods = &cfpg_rtf_build_xm;
	return (Node *) b;
}

static void
cfpg_rtf_build_begin(CustomScanState *node, EState *estate, int eflags)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cs->custom_private;
	ListCell   *lc = list_head(priv);
	ListCell   *le;
	int			i = 0;
	MemoryContextCallback *cb;

	cfpg_rtf_begin_child(node, estate, eflags);
	lc = lnext(priv, lc);		/* the kind */
	b->id = intVal(lfirst(lc));
	lc = lnext(priv, lc);
	b->nkeys = intVal(lfirst(lc));
	lc = lnext(priv, lc);
	b->max_keys = cfpg_rtf_max_keys;
	/* a cached plan run with the settings off: pass everything */
	b->disabled = !cfpg_rtf_active();
	b->keys = palloc0(sizeof(CfpgRtfKey) * b->nkeys);
	foreach(le, cs->custom_exprs)
	{
		CfpgRtfKey *k = &b->keys[i++];

		cfpg_rtf_read_hashing(&k->hs, &lc, priv, estate->es_query_cxt);
		k->expr = ExecInitExpr((Expr *) lfirst(le), &node->ss.ps);
		cfpg_rtf_direct(&k->hs, (Expr *) lfirst(le));
	}
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = cfpg_rtf_build_free;
	cb->arg = b;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, cb);
}

static int
cfpg_rtf_cmp_u64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y;
}

static void
cfpg_rtf_finish_key(CfpgRtfKey *k)
{
	size_t		n = k->n;

	k->builds++;
	if (k->mode == CFPG_RTF_GAVE_UP)
		return;
	if (n == 0)
	{
		k->mode = CFPG_RTF_EMPTY;
		k->distinct = 0;
		return;
	}
	if (n <= 256)
		qsort(k->hashes, n, sizeof(uint64), cfpg_rtf_cmp_u64);
	else
	{
		uint64	   *tmp = MemoryContextAllocHuge(GetMemoryChunkContext(k->hashes),
												 n * sizeof(uint64));

		cf_sort_hashes(k->hashes, tmp, n);
		pfree(tmp);
	}
	n = cf_unique_hashes(k->hashes, n);
	k->distinct = n;
	k->n = n;
	if (n <= CFPG_RTF_ARRAY_MAX)
	{
		k->mode = CFPG_RTF_ARRAY;
		k->bytes = n * sizeof(uint64);
		return;
	}
	{
		char		err[256];
		size_t		len;

		k->filter = cf_filter_build(k->hashes, n, 0, CFPG_RTF_FPR, CF_ENC_PACKED, 0,
									err, sizeof(err));
		pfree(k->hashes);
		k->hashes = NULL;
		k->n = k->cap = 0;
		if (k->filter == NULL)
		{
			k->mode = CFPG_RTF_GAVE_UP;
			return;
		}
		(void) cf_filter_bytes(k->filter, &len);
		k->bytes = len;
		k->probe = cf_probe_of(k->filter);
		k->mode = CFPG_RTF_FILTER;
	}
}

static TupleTableSlot *
cfpg_rtf_build_next(CustomScanState *node)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) node;
	TupleTableSlot *slot = ExecProcNode(outerPlanState(node));
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	if (TupIsNull(slot))
	{
		if (!b->complete)
		{
			for (int i = 0; i < b->nkeys; i++)
			{
				/* nothing collected: a check passes every row */
				if (b->disabled)
					b->keys[i].mode = CFPG_RTF_GAVE_UP;
				if (b->keys[i].mode == CFPG_RTF_BUILDING && b->keys[i].n > CFPG_RTF_LAZY_KEYS)
					b->keys[i].mode = CFPG_RTF_COLLECTED;
				else
					cfpg_rtf_finish_key(&b->keys[i]);
			}
			b->complete = true;
		}
		return slot;
	}
	if (b->complete || b->disabled)
		return slot;
	for (int i = 0; i < b->nkeys; i++)
	{
		CfpgRtfKey *k = &b->keys[i];
		bool		isnull;
		Datum		d;

		if (k->mode == CFPG_RTF_GAVE_UP)
			continue;
		d = cfpg_rtf_key(&k->hs, k->expr, econtext, slot, &isnull);
		if (isnull)
			continue;
		if (unlikely(k->n >= (size_t) b->max_keys))
		{
			/* over the bound: give up, pass everything */
			if (k->hashes)
				pfree(k->hashes);
			k->hashes = NULL;
			k->n = k->cap = 0;
			k->mode = CFPG_RTF_GAVE_UP;
			continue;
		}
		if (k->n == k->cap)
		{
			if (k->hashes == NULL)
			{
				k->cap = 1024;
				k->hashes = MemoryContextAllocHuge(node->ss.ps.state->es_query_cxt,
												   k->cap * sizeof(uint64));
			}
			else
			{
				k->cap = Min(k->cap * 2, (size_t) Max(b->max_keys, 1024));
				k->hashes = repalloc_huge(k->hashes, k->cap * sizeof(uint64));
			}
		}
		k->hashes[k->n++] = cfpg_rtf_hash(&k->hs, d);
	}
	return slot;
}

static void
cfpg_rtf_build_end(CustomScanState *node)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) node;

	if (!b->freed)
		for (int i = 0; i < b->nkeys; i++)
			cfpg_rtf_free_key(&b->keys[i]);
	ExecEndNode(outerPlanState(node));
}

static void
cfpg_rtf_build_rescan(CustomScanState *node)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) node;
	PlanState  *child = outerPlanState(node);

	b->complete = false;
	for (int i = 0; i < b->nkeys; i++)
		cfpg_rtf_free_key(&b->keys[i]);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* ---- the checker ---- */

static Node *
cfpg_rtf_check_create(CustomScan *cscan)
{
	CfpgRtfCheck *c = palloc0(sizeof(CfpgRtfCheck));

	NodeSetTag(c, T_CustomScanState);
	c->css.methods = &cfpg_rtf_check_xm;
	return (Node *) c;
}

static void
cfpg_rtf_check_begin(CustomScanState *node, EState *estate, int eflags)
{
	CfpgRtfCheck *c = (CfpgRtfCheck *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cs->custom_private;
	ListCell   *lc = list_head(priv);

	cfpg_rtf_begin_child(node, estate, eflags);
	lc = lnext(priv, lc);		/* the kind */
	c->id = intVal(lfirst(lc));
	lc = lnext(priv, lc);
	c->keyno = intVal(lfirst(lc));
	lc = lnext(priv, lc);
	cfpg_rtf_read_hashing(&c->hs, &lc, priv, estate->es_query_cxt);
	c->expr = ExecInitExpr((Expr *) linitial(cs->custom_exprs), &node->ss.ps);
	cfpg_rtf_direct(&c->hs, (Expr *) linitial(cs->custom_exprs));
	c->sample = (uint64) cfpg_rtf_sample;
	c->min_removed = cfpg_rtf_min_removed;
	c->disabled = c->off = !cfpg_rtf_active();
}

static inline bool
cfpg_rtf_array_has(const uint64 *a, size_t n, uint64 h)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (a[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == h;
}

static TupleTableSlot *
cfpg_rtf_check_next(CustomScanState *node)
{
	CfpgRtfCheck *c = (CfpgRtfCheck *) node;
	PlanState  *child = outerPlanState(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);
		CfpgRtfBuild *b = c->b;
		CfpgRtfKey *k;
		bool		isnull;
		bool		keep;
		Datum		d;

		if (TupIsNull(slot) || c->off)
			return slot;
		/* complete for the hash table the join uses now */
		if (b == NULL || !b->complete || b->hj == NULL || b->hj->hj_HashTable == NULL)
		{
			c->unready++;
			return slot;
		}
		k = &b->keys[c->keyno];
		if (unlikely(k->mode == CFPG_RTF_COLLECTED))
		{
			/* a large build side: the filter once this check has passed its warm-up */
			if (c->unready < CFPG_RTF_WARMUP)
			{
				c->unready++;
				return slot;
			}
			cfpg_rtf_finish_key(k);
		}
		if (k->mode == CFPG_RTF_GAVE_UP)
			return slot;
		d = cfpg_rtf_key(&c->hs, c->expr, econtext, slot, &isnull);
		c->checked++;
		if (isnull)
			keep = !c->hs.strict;
		else
		{
			uint64		h = cfpg_rtf_hash(&c->hs, d);

			switch (k->mode)
			{
				case CFPG_RTF_EMPTY:
					keep = false;
					break;
				case CFPG_RTF_ARRAY:
					keep = cfpg_rtf_array_has(k->hashes, k->n, h);
					break;
				case CFPG_RTF_FILTER:
					keep = cf_probe_hash(&k->probe, h);
					break;
				default:
					keep = true;
					break;
			}
		}
		if (!keep)
			c->removed++;
		if (c->checked == c->sample &&
			(double) c->removed < c->min_removed * (double) c->checked)
		{
			/* removes too little to pay for itself */
			c->off = true;
			c->off_at = c->checked;
		}
		if (keep)
			return slot;
		/* the row is dropped: the next one */
		CHECK_FOR_INTERRUPTS();
	}
}

static void
cfpg_rtf_check_end(CustomScanState *node)
{
	ExecEndNode(outerPlanState(node));
}

static void
cfpg_rtf_check_rescan(CustomScanState *node)
{
	PlanState  *child = outerPlanState(node);

	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* a merge join may mark and restore its inner side: the child does */
static void
cfpg_rtf_mark(CustomScanState *node)
{
	ExecMarkPos(outerPlanState(node));
}

static void
cfpg_rtf_restore(CustomScanState *node)
{
	ExecRestrPos(outerPlanState(node));
}

/* ---- EXPLAIN ---- */

static char *
cfpg_rtf_deparse(CustomScanState *node, Expr *e, List *ancestors, ExplainState *es)
{
	List	   *context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);

	return deparse_expression((Node *) e, context, list_length(es->rtable) > 1 || es->verbose, false);
}

static void
cfpg_rtf_build_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CfpgRtfBuild *b = (CfpgRtfBuild *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	StringInfoData s;
	ListCell   *le;
	int			i = 0;

	initStringInfo(&s);
	foreach(le, cs->custom_exprs)
	{
		appendStringInfo(&s, "%s%d (%s)", i > 0 ? ", " : "", b->keys[i].hs.filterno,
						 cfpg_rtf_deparse(node, (Expr *) lfirst(le), ancestors, es));
		i++;
	}
	ExplainPropertyText("Builds Run-time Filter", s.data, es);
	if (es->analyze)
	{
		resetStringInfo(&s);
		for (i = 0; i < b->nkeys; i++)
		{
			CfpgRtfKey *k = &b->keys[i];

			if (i > 0)
				appendStringInfoString(&s, "; ");
			appendStringInfo(&s, "%d: ", k->hs.filterno);
			if (b->disabled)
				appendStringInfoString(&s, "off by the settings");
			else if (k->mode == CFPG_RTF_COLLECTED)
				appendStringInfo(&s, "%zu keys collected, no filter built (no check got past its warm-up)",
								 k->n);
			else if (k->builds == 0 && k->mode == CFPG_RTF_BUILDING)
				appendStringInfoString(&s, "not built");
			else if (k->mode == CFPG_RTF_GAVE_UP)
				appendStringInfo(&s, "gave up (over %d keys)", b->max_keys);
			else
				appendStringInfo(&s, "%llu keys, %zu bytes",
								 (unsigned long long) k->distinct, k->bytes);
		}
		ExplainPropertyText("Run-time Filter Keys", s.data, es);
	}
	pfree(s.data);
}

static void
cfpg_rtf_check_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CfpgRtfCheck *c = (CfpgRtfCheck *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfo(&s, "%d (%s)", c->hs.filterno,
					 cfpg_rtf_deparse(node, (Expr *) linitial(cs->custom_exprs), ancestors, es));
	ExplainPropertyText("Checks Run-time Filter", s.data, es);
	if (es->analyze)
	{
		resetStringInfo(&s);
		appendStringInfo(&s, "checked %llu, removed %llu",
						 (unsigned long long) c->checked, (unsigned long long) c->removed);
		if (c->disabled)
			appendStringInfoString(&s, ", off by the settings");
		else if (c->off)
			appendStringInfo(&s, ", switched off after %llu", (unsigned long long) c->off_at);
		if (!c->disabled && c->b != NULL && c->b->keys[c->keyno].mode == CFPG_RTF_GAVE_UP)
			appendStringInfoString(&s, ", filter gave up");
		if (c->b == NULL)
			appendStringInfoString(&s, ", not connected");
		if (c->unready > 0 && !c->disabled)
			appendStringInfo(&s, ", passed before the filter was ready %llu",
							 (unsigned long long) c->unready);
		ExplainPropertyText("Run-time Filter Rows", s.data, es);
	}
	pfree(s.data);
}

/* ---- connecting them: the ExecutorStart hook ---- */

typedef struct CfpgRtfLink
{
	List	   *builders;
	List	   *checkers;
} CfpgRtfLink;

static bool
cfpg_rtf_link_walk(PlanState *ps, void *arg)
{
	CfpgRtfLink *l = (CfpgRtfLink *) arg;

	if (ps == NULL)
		return false;
	if (IsA(ps, HashJoinState))
	{
		PlanState  *h = innerPlanState(ps);
		PlanState  *bs = h ? outerPlanState(h) : NULL;

		if (bs != NULL && IsA(bs, CustomScanState) &&
			((CustomScanState *) bs)->methods == &cfpg_rtf_build_xm)
			((CfpgRtfBuild *) bs)->hj = (HashJoinState *) ps;
	}
	else if (IsA(ps, CustomScanState))
	{
		CustomScanState *css = (CustomScanState *) ps;

		if (css->methods == &cfpg_rtf_build_xm)
			l->builders = lappend(l->builders, css);
		else if (css->methods == &cfpg_rtf_check_xm)
			l->checkers = lappend(l->checkers, css);
	}
	return planstate_tree_walker(ps, cfpg_rtf_link_walk, arg);
}

static void
cfpg_rtf_executor_start(QueryDesc *queryDesc, int eflags)
{
	uint64		before = cfpg_rtf_begun;
	CfpgRtfLink l = {NIL, NIL};
	ListCell   *lc,
			   *lb;

	if (cfpg_rtf_prev_start)
		cfpg_rtf_prev_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (cfpg_rtf_begun == before || queryDesc->planstate == NULL ||
		(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		return;
	(void) cfpg_rtf_link_walk(queryDesc->planstate, &l);
	foreach(lc, queryDesc->estate->es_subplanstates)
		(void) cfpg_rtf_link_walk((PlanState *) lfirst(lc), &l);
	foreach(lc, l.checkers)
	{
		CfpgRtfCheck *c = (CfpgRtfCheck *) lfirst(lc);

		foreach(lb, l.builders)
		{
			CfpgRtfBuild *b = (CfpgRtfBuild *) lfirst(lb);

			if (b->id == c->id && c->keyno < b->nkeys && b->hj != NULL &&
				b->keys[c->keyno].hs.filterno == c->hs.filterno)
			{
				c->b = b;
				break;
			}
		}
	}
	list_free(l.builders);
	list_free(l.checkers);
}

/* ---- the methods ---- */

static const CustomExecMethods cfpg_rtf_build_xm = {
	.CustomName = "CuckooFilterBuild",
	.BeginCustomScan = cfpg_rtf_build_begin,
	.ExecCustomScan = cfpg_rtf_build_next,
	.EndCustomScan = cfpg_rtf_build_end,
	.ReScanCustomScan = cfpg_rtf_build_rescan,
	.MarkPosCustomScan = cfpg_rtf_mark,
	.RestrPosCustomScan = cfpg_rtf_restore,
	.ExplainCustomScan = cfpg_rtf_build_explain,
};

static const CustomExecMethods cfpg_rtf_check_xm = {
	.CustomName = "CuckooFilter",
	.BeginCustomScan = cfpg_rtf_check_begin,
	.ExecCustomScan = cfpg_rtf_check_next,
	.EndCustomScan = cfpg_rtf_check_end,
	.ReScanCustomScan = cfpg_rtf_check_rescan,
	.MarkPosCustomScan = cfpg_rtf_mark,
	.RestrPosCustomScan = cfpg_rtf_restore,
	.ExplainCustomScan = cfpg_rtf_check_explain,
};

const CustomScanMethods cfpg_rtf_build_methods = {
	.CustomName = "CuckooFilterBuild",
	.CreateCustomScanState = cfpg_rtf_build_create,
};

const CustomScanMethods cfpg_rtf_check_methods = {
	.CustomName = "CuckooFilter",
	.CreateCustomScanState = cfpg_rtf_check_create,
};

void
cfpg_rtf_exec_init(void)
{
	RegisterCustomScanMethods(&cfpg_rtf_build_methods);
	RegisterCustomScanMethods(&cfpg_rtf_check_methods);
	cfpg_rtf_prev_start = ExecutorStart_hook;
	ExecutorStart_hook = cfpg_rtf_executor_start;
}
