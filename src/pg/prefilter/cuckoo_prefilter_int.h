/*
 * cuckoo_prefilter_int.h - what the join pre-filter's two files share: a
 * candidate join (found in the query tree by cuckoo_prefilter_find.c, with
 * the estimates and the decision of cuckoo_prefilter.c) and the settings the
 * search reads.
 */
#ifndef CUCKOO_PREFILTER_INT_H
#define CUCKOO_PREFILTER_INT_H

#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"

#include "cuckoo_compat.h"

CFPG_HIDDEN_BEGIN

/* the settings (docs/prefilter.md) the search reads; cuckoo_prefilter.c defines them */
extern double cfpg_prefilter_min_big_rows;
extern int	cfpg_prefilter_msglevel;
extern int	cfpg_prefilter_max_array_keys;

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
	struct PfCitus *citus;		/* a Citus distributed side, or NULL
								 * (cuckoo_prefilter_citus.c) */
} PfCand;

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
/* decides a candidate with c->citus set (sets c->removed), or *why */
extern bool cfpg_pf_citus_decide(PfCand *c, double fpr, double min_removed,
								 double max_small_rows, const char **why);
/* replaces B by (SELECT its columns FROM B WHERE qual) in q, or *why */
extern bool cfpg_pf_citus_wrap(Query *q, PfCand *c, Node *qual, const char **why);
/* of two candidates filtering each other's side, keeps one */
extern void cfpg_pf_citus_mirrors(List *cands);

CFPG_HIDDEN_END

#endif							/* CUCKOO_PREFILTER_INT_H */
