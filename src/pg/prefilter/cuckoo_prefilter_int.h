/*
 * cuckoo_prefilter_int.h - what the stages of the query-level join
 * pre-filter share: a candidate join (found in the query tree by
 * cuckoo_prefilter_find.c, estimated by cuckoo_prefilter_estimate.c, decided
 * by cuckoo_prefilter_decide.c, built by cuckoo_prefilter_build.c and put into
 * the query by cuckoo_prefilter_splice.c; cuckoo_prefilter.c runs them), the
 * settings and the facts the decision reads.
 */
#ifndef CUCKOO_PREFILTER_INT_H
#define CUCKOO_PREFILTER_INT_H

#include "nodes/params.h"
#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"

#include "cuckoo_compat.h"

CFPG_HIDDEN_BEGIN

/* cuckoo.join_prefilter_query: where the query-level form applies */
typedef enum PfQueryMode
{
	PF_QUERY_OFF,				/* nowhere */
	PF_QUERY_REMOTE,			/* where the filter crosses a network only */
	PF_QUERY_AUTO,				/* remote, and local plans costed to pay */
	PF_QUERY_ALWAYS				/* wherever the thresholds accept (1.4's rule) */
} PfQueryMode;

/* the settings (docs/prefilter.md); cuckoo_prefilter.c defines them */
typedef struct PfSettings
{
	int			mode;			/* PfQueryMode */
	double		min_big_rows;
	double		max_small_rows; /* -1: no limit */
	double		min_removed;
	double		max_small_ratio;	/* -1: no limit */
	int			max_array_keys;
	/* the planner's cost units, for the filter's own cost (set each planning) */
	double		seq_page_cost;
	double		cpu_tuple_cost;
	double		cpu_operator_cost;
} PfSettings;

extern PfSettings cfpg_pf_set;
extern int	cfpg_prefilter_msglevel;

#define PF_MSG "cuckoo.join_prefilter"

typedef enum PfKind
{
	PF_INNER,					/* an inner join's clause */
	PF_SEMI,					/* IN (SELECT ...) or EXISTS (...) */
	PF_NULLABLE					/* the nullable side of a LEFT / RIGHT join */
} PfKind;

/* "inner join", "semi join", ...: for the messages */
extern const char *const cfpg_pf_kind_names[];

/* one side of a candidate, and what the first planning estimated for it */
typedef struct PfSide
{
	RangeTblEntry *rte;			/* the RTE of the query planned first, or NULL
								 * (a sublink's relation: matched by name) */
	Oid			relid;
	char	   *alias;
	Index		rti;			/* in its own query's range table */
	AttrNumber	attno;			/* the key column */
	Oid			type;
	int32		typmod;
	Oid			coll;
	bool		seen;			/* estimates captured */
	bool		exact;			/* ... from the RTE itself */
	double		rows;			/* rows after its own conditions */
	double		tuples;			/* rows in the relation */
	double		pages;			/* its pages */
	double		nd;				/* distinct keys in the relation */
	bool		nd_default;		/* nd is a guess: no statistics */
	bool		inh;			/* its statistics are the inheritance tree's */
} PfSide;

typedef struct PfCand
{
	PfKind		kind;
	PfSide		b;				/* the side filtered */
	PfSide		s;				/* the side the filter is built from */
	RangeTblEntry *s_rte;		/* S's RTE; for the candidates kept, a copy
								 * for the subquery (cuckoo_prefilter.c) */
#if PG_VERSION_NUM >= 160000
	RTEPermissionInfo *s_perm;	/* a copy of its permissions, or NULL */
#endif
	List	   *s_quals;		/* S's usable conditions (copies, S = s.rti) */
	int			s_dropped;		/* conditions of S left out */
	int			qlevel;			/* the query level (cfpg_pf_levels' index) */
	int			join_rtindex;	/* PF_NULLABLE: the JoinExpr's rtindex */
	Oid			eqop;			/* the join's equality as (B's key type, S's), or
								 * InvalidOid: no = ANY form */
	Oid			eqcoll;			/* its input collation */
	double		removed;		/* expected fraction of B's rows removed */
	bool		apply;
	bool		costed;			/* applies only if the plan with it costs less */
	bool		remote;			/* B is a postgres_fdw foreign table */
	bool		reported;		/* its one message is out */
	const char *why;			/* why it was declined, or NULL */
	Oid			probe_op;		/* the @> of its filter, once built */
	bool		any_form;		/* built as = ANY (its keys) */
	SubLink    *filter_sl;		/* its filter's sublink, once built (not = ANY) */
	Oid			filter_type;	/* the cuckoofilter type */
	int			shared_cte;		/* > 0: its filter is this WITH query's, built once */
	struct PfCitus *citus;		/* a Citus distributed side, or NULL
								 * (cuckoo_prefilter_citus.c) */
} PfCand;

/*
 * The decision (cuckoo_prefilter_decide.c): pure functions of a candidate's
 * facts and the settings, which hold every threshold of the query-level form.
 */
typedef enum PfWhere
{
	PF_LOCAL,					/* B is a local table */
	PF_FDW,						/* B is a postgres_fdw foreign table */
	PF_CITUS					/* B or S is a Citus distributed table */
} PfWhere;

typedef struct PfFacts
{
	PfWhere		where;
	bool		seen;			/* both sides' estimates are there */
	double		b_rows;			/* B's rows after its conditions */
	double		s_rows;			/* S's rows after the conditions the filter keeps */
	double		s_tuples;		/* S's rows */
	double		s_pages;		/* S's pages */
	double		b_nd;			/* B's distinct keys */
	double		s_nd;			/* S's distinct keys */
	bool		nd_default;		/* a distinct count is a guess */
	bool		ranges_known;	/* s_in and b_in are set (asked for: PF_NEED_RANGES) */
	double		s_in;			/* fraction of S's keys within B's range */
	double		b_in;			/* fraction of B's keys within S's range */
	bool		s_rescan_same;	/* a second scan of S sees the first one's rows */
	bool		limit;			/* a LIMIT, OFFSET or cursor plans for few rows */
	/* Citus */
	bool		b_dist;			/* B is distributed */
	bool		s_dist;			/* S is distributed */
	bool		colocated_keys; /* co-located on both keys (hash) */
	bool		s_sel_seen;
	double		s_sel;			/* the selectivity of S's kept conditions */
	int			s_nshards;
} PfFacts;

typedef enum PfVerdict
{
	PF_DECLINE,
	PF_APPLY,					/* apply */
	PF_APPLY_IF_COSTED,			/* apply if the plan with it is estimated cheaper */
	PF_NEED_RANGES				/* ask again with the key ranges (s_in, b_in) */
} PfVerdict;

/* the false-positive rate of cf_agg's filters, counted as rows kept */
#define PF_FPR 0.01

/* the verdict on f under s; *removed the expected fraction of B's rows removed */
extern PfVerdict cfpg_pf_decide(const PfFacts *f, const PfSettings *s,
								double *removed, const char **why);
/* Is a table of this many rows too small to be the filtered side? */
extern bool cfpg_pf_too_few_rows(double tuples, const PfSettings *s);

/* what the plan with the filters shows */
typedef struct PfPlanFacts
{
	Cost		cost_without;	/* the plan as written */
	Cost		cost_with;		/* the plan with the filters, their InitPlans included */
	bool		on_param_inner; /* a filter on a nested loop's parameterized inner side */
} PfPlanFacts;

/* Does the plan with the filters keep them?  Else *why says why not. */
extern bool cfpg_pf_decide_plan(const PfPlanFacts *pf, bool costed, const char **why);

/*
 * The estimates (cuckoo_prefilter_estimate.c): the first planning's
 * set_rel_pathlist_hook notes each side's rows and distinct keys; the
 * second's brings the filtered side's rows to the decision's estimate.
 */
extern void cfpg_pf_estimate_init(void);
/* the candidates the first planning estimates (NIL: none) */
extern void cfpg_pf_capture_set(List *cands);
extern List *cfpg_pf_capture_get(void);
/* the candidates applied in the planning under way (NIL: none) */
extern void cfpg_pf_adjust_set(List *cands);
extern List *cfpg_pf_adjust_get(void);
/* before the first planning: the declines table statistics alone decide */
extern List *cfpg_pf_predecide(List *cands, bool limit);
/* c's facts, from its estimates and the catalog */
extern void cfpg_pf_facts(PfCand *c, bool limit, PfFacts *f);
/* the verdict on c (its facts f, the key ranges looked up only if asked for) */
extern PfVerdict cfpg_pf_decide_cand(PfCand *c, PfFacts *f, double *removed, const char **why);

/*
 * Build and splice (cuckoo_prefilter_build.c, cuckoo_prefilter_splice.c):
 * the filter's condition, put into a copy of the query, planned again.
 */
extern Node *cfpg_pf_build(PfCand *c, Oid *nsp, const char **why);
extern bool cfpg_pf_splice(List *levels, PfCand *c, Node *qual, const char **why);
/* Do c and o build the same filter at the same level? */
extern bool cfpg_pf_same_filter(const PfCand *c, const PfCand *o);
/* c's filter and o's (spliced) built once: a MATERIALIZED WITH query of their level */
extern void cfpg_pf_share(List *levels, PfCand *o, PfCand *c, int *ncte);
/* the planner hook after ours */
extern void cfpg_pf_set_next_planner(planner_hook_type next);
/* plans q with capture and adjustment as given, restored after */
extern PlannedStmt *cfpg_pf_plan_capturing(List *capture, List *adjust, Query *parse,
												  const char *query_string, int cursorOptions,
												  ParamListInfo boundParams);
/* plans q with the filters applied (adjust), or NULL if that fails */
extern PlannedStmt *cfpg_pf_plan_or_null(List *adjust, Query *q, const char *query_string,
												int cursorOptions,
												ParamListInfo boundParams);
/* the facts of the plan with filters; *bad: the candidates on a parameterized inner scan */
extern void cfpg_pf_plan_facts(PlannedStmt *first, PlannedStmt *with,
							   List *applied, PfPlanFacts *pf, List **bad);

/*
 * The query levels the rule looks into, in a fixed order (the same for a
 * query and its copy): q, then each subquery of its range table (FROM,
 * views but security-barrier ones, UNION branches) and each non-recursive
 * WITH query, each followed by its own.
 */
extern void cfpg_pf_levels(Query *q, List **levels);
/*
 * The candidate joins of a plain SELECT q and the SELECTs of its levels
 * (PfCand *), each checked for what makes its filter safe (types,
 * collations, conditions, sides, no volatile function at its level); the
 * others are reported (cfpg_prefilter_msglevel) and left out.
 */
extern List *cfpg_pf_find(Query *q);
/* Does any query level lock rows (FOR UPDATE / SHARE in a subquery too)? */
extern bool cfpg_pf_locks_rows(Node *n, void *context);
/* Does a second scan of relid (and its inheritors) see the rows the first saw? */
extern bool cfpg_pf_rescan_same(Oid relid, bool inh);
/* a column's name for the messages ("?" for none: a whole-row reference) */
extern const char *cfpg_pf_attname(Oid relid, AttrNumber attno);

/*
 * The form for a few keys (cuckoo_prefilter_any.c): does c take it, and its
 * condition, b.k = ANY (ARRAY(<S's keys>)) OR <S has more of them>.
 */
extern bool cfpg_pf_any_fits(const PfCand *c);
/* SELECT <tlexpr> FROM S s WHERE <S's usable conditions>, S renumbered 1 */
extern Query *cfpg_pf_s_query(const PfCand *c, Expr *tlexpr, const char *name);
/* an uncorrelated sublink of type over sq */
extern SubLink *cfpg_pf_make_sublink(SubLinkType type, Query *sq);
extern Node *cfpg_pf_any_qual(const PfCand *c);

/*
 * The key ranges (cuckoo_prefilter_range.c): *s_in, the fraction of S's
 * distinct keys within B's range of values, *b_in, B's within S's (both 1
 * where statistics or an ordering are missing); the init registers the
 * invalidations of its per-backend cache.
 */
extern void cfpg_pf_clip(PfCand *c, double *s_in, double *b_in);
extern void cfpg_pf_range_init(void);
extern void cfpg_pf_find_init(void);
extern void cfpg_pf_citus_init(void);

/*
 * Citus (cuckoo_prefilter_citus.c): a distributed big side is taken as big
 * and filtered in a derived table around it, which Citus carries into the
 * worker tasks of a join it cannot push down.
 */
/* forget what the last planning looked up */
extern void cfpg_pf_citus_reset(void);
/* Is relid a Citus distributed (hash, append, range) table? */
extern bool cfpg_pf_citus_dist(Oid relid);
/* sets c->citus where a side is a Citus distributed table */
extern void cfpg_pf_citus_note(PfCand *c);
/* the set_rel_pathlist_hook's part: the selectivity of S's conditions */
extern void cfpg_pf_citus_capture(PlannerInfo *root, RelOptInfo *rel, Index rti,
								  RangeTblEntry *rte, PfCand *c);
/* the Citus facts of a candidate with c->citus set */
extern void cfpg_pf_citus_facts(const PfCand *c, PfFacts *f);
/* replaces B by (SELECT its columns FROM B WHERE qual) in q, or *why */
extern bool cfpg_pf_citus_wrap(Query *q, PfCand *c, Node *qual, const char **why);
/* of two candidates filtering each other's side, keeps one */
extern void cfpg_pf_citus_mirrors(List *cands);

CFPG_HIDDEN_END

#endif							/* CUCKOO_PREFILTER_INT_H */
