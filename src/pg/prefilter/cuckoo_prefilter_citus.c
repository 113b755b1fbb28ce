/*
 * cuckoo_prefilter_citus.c - the join pre-filter (docs/prefilter.md) where
 * the filtered side is a Citus distributed table.
 *
 * On the coordinator a distributed table is an empty shell: the planner's
 * estimates of its rows and distinct keys are those of the shell, a handful
 * of rows, and its rows live in shards on the workers.  The rule takes such
 * a table as big (it passes cuckoo.join_prefilter_min_big_rows and
 * _max_small_ratio: its size is unknown without asking the workers, which
 * planning does not do) and expects the filter to remove what the small
 * side's own conditions remove (the selectivity the planner gives them, as
 * if the small side held every key of the big one); the other thresholds
 * apply as elsewhere.  A distributed small side must in addition be expected
 * to keep at most 1 / its shard count (cuckoo_prefilter_decide.c); a small side
 * distributed with a big side that is not, or a co-located join on both
 * distribution columns, is declined.
 *
 * Citus does not carry a condition with a subquery into the worker tasks of
 * a join it cannot push down (it refuses one in the WHERE of a repartition
 * join), but it does plan a derived table whose WHERE holds one: so the
 * big side's range-table entry is replaced by
 *
 *     (SELECT <its columns, in order> FROM big WHERE <filter> @> key) big
 *
 * whose columns keep their numbers, so the query's references to it hold
 * (those it does not read are NULL there).
 *
 * Citus is not linked: a relation is distributed when the citus extension
 * exists in the database and pg_catalog.pg_dist_partition has a row for it
 * with a hash, append or range method (not a reference table, not a Citus
 * local table).  The answers are cached for one planning.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#endif

#include "cuckoo_prefilter_int.h"

/* what pg_dist_partition says of a relation */
typedef struct PfCitusRel
{
	Oid			relid;
	bool		dist;			/* hash, append or range distributed */
	char		method;			/* partmethod, or 0: not Citus's */
	int32		colocationid;
	AttrNumber	distattno;		/* the distribution column, or 0 */
	int			nshards;		/* its shards (pg_dist_shard) */
} PfCitusRel;

/* the candidate's Citus side, when the citus extension exists */
struct PfCitus
{
	PfCitusRel	b;
	PfCitusRel	s;
	bool		s_sel_seen;
	double		s_sel;			/* the selectivity of S's kept conditions */
};

/* ---- the cache of one planning ---- */

#define PF_CITUS_CACHE 16

static int	pf_citus_ext = -1;	/* -1 unknown, 0 no citus, 1 citus */
static uint64 pf_citus_inval_n = 0;	/* invalidations seen */
static int	pf_citus_n = 0;
static PfCitusRel pf_citus_cache[PF_CITUS_CACHE];

/* each planning: pg_dist_partition's rows may have changed */
void
cfpg_pf_citus_reset(void)
{
	pf_citus_n = 0;
}

/* whether Citus exists is kept until pg_class changes (CREATE / DROP EXTENSION) */
static void
cfpg_pf_citus_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	pf_citus_ext = -1;
	pf_citus_inval_n++;
}

void
cfpg_pf_citus_init(void)
{
	CacheRegisterSyscacheCallback(RELNAMENSP, cfpg_pf_citus_inval, (Datum) 0);
}

/*
 * Whether the citus extension exists: first its catalog pg_dist_partition,
 * a look-up in the syscache, so that a database without Citus pays no scan
 * of pg_extension (get_extension_oid: it cost a declined join's planning
 * ~10%); the answer is kept until pg_class changes
 */
static bool
cfpg_pf_citus_exists(void)
{
	uint64		inval = pf_citus_inval_n;
	int			exists;

	if (pf_citus_ext >= 0)
		return pf_citus_ext == 1;
	exists = OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)) &&
		OidIsValid(get_extension_oid("citus", true)) ? 1 : 0;
	/* kept only if no change of pg_class came in while it was looked up */
	if (inval == pf_citus_inval_n)
		pf_citus_ext = exists;
	return exists == 1;
}

/* the distribution column's number from partkey, a Var as nodeToString */
static AttrNumber
cfpg_pf_citus_distattno(const char *partkey)
{
	Node	   *n;

	if (partkey == NULL || partkey[0] != '{')
		return 0;
	n = stringToNode(partkey);
	if (n && IsA(n, Var) && ((Var *) n)->varattno > 0)
		return ((Var *) n)->varattno;
	return 0;
}

/* the rows of pg_catalog.pg_dist_shard for relid: its shards */
static int
cfpg_pf_citus_nshards(Oid relid)
{
	Oid			catoid = get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE);
	Oid			idxoid;
	Relation	cat;
	ScanKeyData key;
	SysScanDesc scan;
	int			n = 0;

	if (!OidIsValid(catoid))
		return 0;
	idxoid = get_relname_relid("pg_dist_shard_logical_relid_index", PG_CATALOG_NAMESPACE);
	cat = table_open(catoid, AccessShareLock);
	ScanKeyInit(&key, 1 /* logicalrelid */ , BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(cat, idxoid, OidIsValid(idxoid), NULL, 1, &key);
	while (HeapTupleIsValid(systable_getnext(scan)))
		n++;
	systable_endscan(scan);
	table_close(cat, AccessShareLock);
	return n;
}

static void
cfpg_pf_citus_lookup(Oid relid, PfCitusRel *out)
{
	Oid			catoid;
	Oid			idxoid;
	Relation	cat;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	int			i;

	memset(out, 0, sizeof(*out));
	out->relid = relid;
	if (!OidIsValid(relid) || !cfpg_pf_citus_exists())
		return;
	for (i = 0; i < pf_citus_n; i++)
		if (pf_citus_cache[i].relid == relid)
		{
			*out = pf_citus_cache[i];
			return;
		}
	catoid = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	if (OidIsValid(catoid))
	{
		idxoid = get_relname_relid("pg_dist_partition_logical_relid_index",
								   PG_CATALOG_NAMESPACE);
		cat = table_open(catoid, AccessShareLock);
		ScanKeyInit(&key, 1 /* logicalrelid */ , BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(relid));
		scan = systable_beginscan(cat, idxoid, OidIsValid(idxoid), NULL, 1, &key);
		tup = systable_getnext(scan);
		if (HeapTupleIsValid(tup) && RelationGetDescr(cat)->natts >= 4)
		{
			TupleDesc	desc = RelationGetDescr(cat);
			bool		isnull;
			Datum		d;

			d = heap_getattr(tup, 2 /* partmethod */ , desc, &isnull);
			out->method = isnull ? 0 : DatumGetChar(d);
			out->dist = out->method == 'h' || out->method == 'a' || out->method == 'r';
			d = heap_getattr(tup, 4 /* colocationid */ , desc, &isnull);
			out->colocationid = isnull ? 0 : DatumGetInt32(d);
			d = heap_getattr(tup, 3 /* partkey */ , desc, &isnull);
			if (!isnull)
				out->distattno = cfpg_pf_citus_distattno(TextDatumGetCString(d));
		}
		systable_endscan(scan);
		table_close(cat, AccessShareLock);
		if (out->dist)
			out->nshards = cfpg_pf_citus_nshards(relid);
	}
	if (pf_citus_n < PF_CITUS_CACHE)
		pf_citus_cache[pf_citus_n++] = *out;
}

bool
cfpg_pf_citus_dist(Oid relid)
{
	PfCitusRel	r;

	if (!cfpg_pf_citus_exists())
		return false;
	cfpg_pf_citus_lookup(relid, &r);
	return r.dist;
}

void
cfpg_pf_citus_note(PfCand *c)
{
	struct PfCitus *ct;

	c->citus = NULL;
	if (!cfpg_pf_citus_exists())
		return;
	ct = palloc0(sizeof(struct PfCitus));
	cfpg_pf_citus_lookup(c->b.relid, &ct->b);
	cfpg_pf_citus_lookup(c->s.relid, &ct->s);
	if (ct->b.dist || ct->s.dist)
		c->citus = ct;
	else
		pfree(ct);
}

/* ---- the estimates ---- */

void
cfpg_pf_citus_capture(PlannerInfo *root, RelOptInfo *rel, Index rti,
					  RangeTblEntry *rte, PfCand *c)
{
	struct PfCitus *ct = c->citus;
	List	   *kept;

	if (ct == NULL || !ct->b.dist)
		return;
	if (c->s.rte != NULL ? c->s.rte != rte :
		(rte->relid != c->s.relid || strcmp(rte->eref->aliasname, c->s.alias) != 0))
		return;
	kept = copyObject(c->s_quals);
	ChangeVarNodes((Node *) kept, (int) c->s.rti, (int) rti, 0);
	ct->s_sel = kept ? clauselist_selectivity(root, kept, 0, JOIN_INNER, NULL) : 1.0;
	CLAMP_PROBABILITY(ct->s_sel);
	ct->s_sel_seen = true;
	(void) rel;
}

/*
 * The Citus facts of a candidate with c->citus set; the thresholds are
 * cuckoo_prefilter_decide.c's.
 */
void
cfpg_pf_citus_facts(const PfCand *c, PfFacts *f)
{
	struct PfCitus *ct = c->citus;

	Assert(ct != NULL);
	f->where = PF_CITUS;
	f->b_dist = ct->b.dist;
	f->s_dist = ct->s.dist;
	f->colocated_keys = ct->s.dist && ct->s.colocationid != 0 &&
		ct->s.colocationid == ct->b.colocationid &&
		ct->b.method == 'h' && ct->s.method == 'h' &&
		ct->b.distattno == c->b.attno && ct->s.distattno == c->s.attno;
	f->s_sel_seen = ct->s_sel_seen;
	f->s_sel = ct->s_sel;
	f->s_nshards = ct->s.nshards;
}

/* ---- the rewrite ---- */

typedef struct PfCitusRefs
{
	int			rti;			/* the relation, in queries' first */
	int			depth;
	List	   *queries;		/* the Query at each depth */
	bool		bad;
	Bitmapset  *used;			/* the columns the query reads */
} PfCitusRefs;

/*
 * The relation's columns the query reads, at any level, also through a
 * join's alias; bad: a system column or a whole-row reference.
 */
static bool
cfpg_pf_citus_refs_walker(Node *n, PfCitusRefs *ctx)
{
	if (n == NULL)
		return false;
	if (IsA(n, Var))
	{
		Var		   *v = (Var *) n;
		int			lvl = ctx->depth - (int) v->varlevelsup;
		Query	   *vq;
		RangeTblEntry *j;

		if (lvl < 0 || lvl >= list_length(ctx->queries))
			return false;
		vq = list_nth(ctx->queries, lvl);
		if (v->varno < 1 || v->varno > list_length(vq->rtable))
			return false;
		if (lvl == 0 && v->varno == ctx->rti)
		{
			if (v->varattno <= 0)
				ctx->bad = true;
			else
				ctx->used = bms_add_member(ctx->used, v->varattno);
		}
		else if ((j = rt_fetch(v->varno, vq->rtable))->rtekind == RTE_JOIN)
		{
			/* what the join's column (or whole row) stands for, at its level */
			int			saved = ctx->depth;
			ListCell   *lc;
			int			i = 0;

			ctx->depth = lvl;
			foreach(lc, j->joinaliasvars)
			{
				i++;
				if ((v->varattno <= 0 || v->varattno == i) &&
					cfpg_pf_citus_refs_walker(lfirst(lc), ctx))
					break;
			}
			ctx->depth = saved;
		}
		return ctx->bad;
	}
	if (IsA(n, Query))
	{
		bool		r;

		ctx->depth++;
		ctx->queries = lappend(ctx->queries, n);
		r = query_tree_walker((Query *) n, cfpg_pf_citus_refs_walker, ctx,
							  QTW_IGNORE_JOINALIASES);
		ctx->queries = list_delete_last(ctx->queries);
		ctx->depth--;
		return r;
	}
	return expression_tree_walker(n, cfpg_pf_citus_refs_walker, ctx);
}

/*
 * Replaces relation B of query q (c->b.rti) by a derived table of its
 * columns filtered by qual; false (*why set, q unchanged) where that is not
 * plainly the same relation to the rest of the query.
 */
bool
cfpg_pf_citus_wrap(Query *q, PfCand *c, Node *qual, const char **why)
{
	RangeTblEntry *brte = rt_fetch(c->b.rti, q->rtable);
	RangeTblEntry *inner;
	RangeTblEntry *sub;
	Query	   *sq;
	Relation	rel;
	TupleDesc	desc;
	List	   *tlist = NIL;
	PfCitusRefs refs;
	RangeTblRef *ref;
	int			i;

	if (brte->rtekind != RTE_RELATION || brte->relid != c->b.relid)
	{
		*why = "the filtered side is not a table at its place in the query";
		return false;
	}
	if (brte->tablesample || brte->securityQuals)
	{
		*why = "the filtered side has TABLESAMPLE or row-level security";
		return false;
	}
	refs.rti = (int) c->b.rti;
	refs.depth = 0;
	refs.queries = list_make1(q);
	refs.bad = false;
	refs.used = NULL;
	query_tree_walker(q, cfpg_pf_citus_refs_walker, &refs, QTW_IGNORE_JOINALIASES);
	if (refs.bad)
	{
		*why = "the query uses the filtered side's system columns or whole rows";
		return false;
	}

	/*
	 * SELECT <its columns> FROM b WHERE qual, the columns the query does not
	 * read (and dropped ones) as NULL: they are neither fetched from the
	 * workers nor checked against column privileges the query did not need
	 */
	inner = copyObject(brte);
	rel = table_open(brte->relid, NoLock);	/* locked by the parser */
	desc = RelationGetDescr(rel);
	if (list_length(brte->eref->colnames) != desc->natts)
	{
		table_close(rel, NoLock);
		*why = "the filtered side's columns changed";
		return false;
	}
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Expr	   *e;

		if (att->attisdropped)
			e = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
		else if (!bms_is_member(att->attnum, refs.used) && att->attnum != c->b.attno)
			e = (Expr *) makeNullConst(att->atttypid, att->atttypmod, att->attcollation);
		else
			e = (Expr *) makeVar(1, att->attnum, att->atttypid, att->atttypmod,
								 att->attcollation, 0);
		tlist = lappend(tlist, makeTargetEntry(e, (AttrNumber) (i + 1),
											   pstrdup(att->attisdropped ? "" :
													   NameStr(att->attname)),
											   false));
	}
	table_close(rel, NoLock);

	qual = copyObject(qual);
	ChangeVarNodes(qual, (int) c->b.rti, 1, 0);

	sq = makeNode(Query);
	sq->commandType = CMD_SELECT;
	sq->querySource = QSRC_ORIGINAL;
	sq->canSetTag = true;
	sq->rtable = list_make1(inner);
	ref = makeNode(RangeTblRef);
	ref->rtindex = 1;
	sq->jointree = makeFromExpr(list_make1(ref), qual);
	sq->targetList = tlist;
	sq->hasSubLinks = true;

	sub = makeNode(RangeTblEntry);
	sub->rtekind = RTE_SUBQUERY;
	sub->subquery = sq;
	sub->security_barrier = false;
	sub->alias = brte->alias ? copyObject(brte->alias) :
		makeAlias(brte->eref->aliasname, NIL);
	sub->eref = copyObject(brte->eref);
	sub->lateral = false;
	sub->inh = false;
	sub->inFromCl = brte->inFromCl;

#if PG_VERSION_NUM >= 160000
	/* the permissions move with the relation into the derived table */
	if (brte->perminfoindex > 0)
	{
		Index		idx = brte->perminfoindex;
		ListCell   *lc;

		sq->rteperminfos = list_make1(copyObject(getRTEPermissionInfo(q->rteperminfos, brte)));
		inner->perminfoindex = 1;
		q->rteperminfos = list_delete_nth_cell(q->rteperminfos, (int) idx - 1);
		foreach(lc, q->rtable)
		{
			RangeTblEntry *r = lfirst(lc);

			if (r->perminfoindex > idx)
				r->perminfoindex--;
		}
	}
	sub->perminfoindex = 0;
#endif

	lfirst(list_nth_cell(q->rtable, (int) c->b.rti - 1)) = sub;
	return true;
}

/*
 * Of two candidates that filter each other's side (each the other's mirror)
 * with a Citus side, keeps the one expected to remove more: the other's
 * filter would be built from the side being filtered.
 */
void
cfpg_pf_citus_mirrors(List *cands)
{
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);

		if (!c->apply || c->citus == NULL)
			continue;
		foreach(lc2, cands)
		{
			PfCand	   *o = lfirst(lc2);

			if (o == c || !o->apply || o->qlevel != c->qlevel ||
				c->kind != PF_INNER || o->kind != PF_INNER ||
				o->b.rti != c->s.rti || o->s.rti != c->b.rti ||
				o->b.relid != c->s.relid || o->s.relid != c->b.relid)
				continue;
			/* the other direction's decline is silent: one of the two applies */
			if (o->removed > c->removed)
			{
				c->apply = false;
				c->reported = true;
			}
			else
			{
				o->apply = false;
				o->reported = true;
			}
			break;
		}
	}
}
