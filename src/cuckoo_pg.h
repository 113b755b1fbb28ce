/*
 * cuckoo_pg.h - PostgreSQL glue shared by the type, function and aggregate
 * files: the cuckoofilter varlena, value hashing and error reporting.
 */
#ifndef CUCKOO_PG_H
#define CUCKOO_PG_H

#include "postgres.h"
#include "fmgr.h"

#include "cuckoo_compat.h"

/*
 * Everything declared from here on is internal to cuckoo.so: hidden, so
 * that calls between its files (the glue into the core, the aggregates
 * into the value hashing) bind directly instead of through the PLT.  The
 * fmgr entry points, declared by PG_FUNCTION_INFO_V1 in the .c files, stay
 * visible.
 */
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility push(hidden)
#endif

#include "cuckoo.h"

/*
 * A cuckoofilter datum is a plain varlena whose payload is the core's byte
 * format (FORMAT.md); there is no PostgreSQL-specific header in front.
 */
#define CF_VARDATA(v)		((uint8 *) VARDATA(v))
#define CF_VARSIZE(v)		((size_t) (VARSIZE(v) - VARHDRSZ))

#define DatumGetCuckooFilterP(X)	((struct varlena *) PG_DETOAST_DATUM(X))
#define PG_GETARG_CUCKOOFILTER_P(n)	DatumGetCuckooFilterP(PG_GETARG_DATUM(n))
#define PG_RETURN_CUCKOOFILTER_P(x)	PG_RETURN_POINTER(x)

/*
 * Opens a detoasted cuckoofilter datum as a core view; raises
 * ERRCODE_DATA_CORRUPTED if its header is not a valid filter.
 */
extern void cfpg_open(cf_filter *f, struct varlena *v);

/* Fills p with capacity, fpr and the default bucket size, kicks and expansion. */
extern void cfpg_params(cf_params *p, uint64 capacity, double fpr);

/* A core message ("lower case, no period") as an errdetail sentence. */
extern char *cfpg_sentence(const char *msg);

/* A new varlena with the union of a and b; errors say errmsg_text and why. */
extern struct varlena *cfpg_union(const cf_filter *a, const cf_filter *b,
								  const char *errmsg_text);

/* Items in all the sub-filters of f. */
extern uint64 cfpg_items_of(const cf_filter *f);

/* A detoasted private copy of filter d, rewritten as version 2 if it is version 1. */
extern struct varlena *cfpg_writable_copy(Datum d);

/* cf_alloc_fn for growth: the payload of a new palloc'd varlena. */
extern void *cfpg_alloc_varlena(size_t size, void *ctx);

/* A new varlena holding an empty filter for p (raises on bad parameters). */
extern struct varlena *cfpg_create(const cf_params *p);

/* capacity of the filter cf_add(NULL, v) and cf_add_all(NULL, a) create */
#define CFPG_DEFAULT_CAPACITY	1000

/*
 * Full validation of a filter's bytes for an input path: raises
 * INVALID_BINARY_REPRESENTATION (binary) or INVALID_TEXT_REPRESENTATION.
 */
extern bool cfpg_validate(const uint8 *buf, size_t len, bool binary, struct Node *escontext);

/* filters as values (cuckoo_values.c) */
/* The false-positive rate f was designed for. */
extern double cfpg_target_fpr(const cf_filter *f);
/* NOTICE if union r of a and b is over twice its target rate. */
extern void cfpg_union_check_fpr(FmgrInfo *flinfo, const cf_filter *a, const cf_filter *b,
								 const cf_filter *r, bool only_on_crossing);
/* base64 text str without white space (str itself if it has none). */
extern char *cfpg_base64_strip(const char *str, size_t *len);
/* Join selectivity of filter @> value for the two arguments of a call. */
struct PlannerInfo;
struct List;
struct SpecialJoinInfo;
extern double cfpg_contains_joinsel(struct PlannerInfo *root, struct List *args,
									int jointype, struct SpecialJoinInfo *sjinfo);

/*
 * Value hashing: how one SQL type is turned into the 64-bit hash the core
 * takes.  Equal values hash equally across int2/int4/int8, float4/float8,
 * text/varchar, and the hash never depends on the platform.
 */
/* values of CfHashInfo.kind */
typedef enum CfHashKind
{
	CFH_INT2 = 1,
	CFH_INT4,
	CFH_INT8,
	CFH_FLOAT4,
	CFH_FLOAT8,
	CFH_NUMERIC,
	CFH_VARLENA,				/* text, varchar: the payload bytes (UTF-8) */
	CFH_BYTEA,					/* bytea: the payload bytes */
	CFH_BPCHAR,
	CFH_NAME,
	CFH_CHAR,
	CFH_UUID,
	CFH_DATE,
	CFH_TIMESTAMP,				/* timestamp and timestamptz */
	CFH_BOOL,
	CFH_CSTRING,				/* unknown (a literal inside ROW()): its bytes */
	CFH_ARRAY,					/* element by element */
	CFH_RECORD,					/* column by column */
	CFH_INTERVAL,				/* by the span interval equality compares */
	CFH_JSONB,					/* token by token, numbers by value */
	CFH_RANGE,					/* bound by bound */
	CFH_MULTIRANGE,				/* range by range */
	CFH_SEND					/* through the type's binary send function */
} CfHashKind;

/*
 * Value kinds a version-2 filter records (header byte 10, FORMAT.md): the
 * families within which SQL compares values across types.  A value of
 * another kind than the filter holds is refused, not silently missed.
 * The numbers are part of the byte format.
 */
typedef enum CfValueKind
{
	CFK_NUMBER = 1,				/* int2, int4, int8, float4, float8, numeric */
	CFK_TEXT,					/* text, varchar, bpchar, name, unknown literals */
	CFK_BYTEA,
	CFK_UUID,
	CFK_BOOL,
	CFK_DATETIME,				/* date, timestamp, timestamptz */
	CFK_INTERVAL,
	CFK_JSONB,
	CFK_ARRAY,
	CFK_RECORD,
	CFK_RANGE,
	CFK_MULTIRANGE,
	CFK_CHAR,					/* "char" */
	CFK_OTHER					/* hashed through their binary send function */
} CfValueKind;

/* The value kind of a CfHashKind. */
extern int	cf_value_kind(int hashkind);
/* The SQL name of a value kind (CF_KIND_ANY: "any"), or NULL. */
extern const char *cf_kind_name(int kind);
/* The value kind of a name cf_kind_name gives, or -1. */
extern int	cf_kind_from_name(const char *name);
/* The value kind of values of type typid. */
extern int	cf_type_value_kind(Oid typid);

typedef struct CfHashInfo
{
	Oid			typid;			/* type this info was built for */
	int			kind;			/* CfHashKind: how the type is hashed */
	int			vkind;			/* CfValueKind of the type */
	bool		typbyval;
	int16		typlen;
	FmgrInfo	sendfn;			/* for types hashed through their send bytes */
	bool		to_utf8;		/* text: convert to UTF-8 before hashing */
	MemoryContext mcxt;			/* where the infos below live */
	/* arrays: hashed element by element */
	struct CfHashInfo *elem;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	/* composites and records: hashed column by column, for one row type */
	Oid			rectype;
	int32		rectypmod;
	int			ncols;
	struct CfHashInfo *cols;	/* ncols entries; kind 0 for dropped columns */
	/* ranges and multiranges: bound by bound (elem: the element/range type) */
	struct TypeCacheEntry *rngcache;	/* the type's own type cache entry */
} CfHashInfo;

/*
 * Fills hi for typid, whose values come under collation collid (InvalidOid:
 * none); raises a clear error if the type cannot be hashed, or if collid is
 * nondeterministic (values it calls equal have different bytes, so a filter
 * would report them absent).
 */
extern void cf_hashinfo_init(CfHashInfo *hi, Oid typid, Oid collid, MemoryContext mcxt);
/*
 * The 64-bit hash of a non-NULL value of hi->typid under value hashing
 * hashing (CF_HASHING_V1 or CF_HASHING_V2: the filter's, FORMAT.md).
 */
extern uint64 cf_hash_datum_any(CfHashInfo *hi, Datum value, int hashing);

/*
 * The same, with the integer types (the most common keys, hashed alike by
 * both value hashings) hashed without a call into the dispatcher: per-row
 * cf_contains and cf_agg feel it.
 */
static inline uint64
cf_hash_datum(CfHashInfo *hi, Datum value, int hashing)
{
	switch (hi->kind)
	{
		case CFH_INT8:
			return cf_hash_int64(DatumGetInt64(value));
		case CFH_INT4:
			return cf_hash_int64((int64) DatumGetInt32(value));
		default:
			return cf_hash_datum_any(hi, value, hashing);
	}
}

/*
 * Raises a clear error if a value of hi's kind cannot be looked up in (or
 * added to) f: f records another kind (value hashing 2 only).  Cheap when
 * they agree: per-row cf_contains calls it.
 */
extern void cfpg_kind_mismatch(const cf_filter *f, const CfHashInfo *hi) pg_attribute_noreturn();

static inline void
cfpg_check_kind(const cf_filter *f, const CfHashInfo *hi)
{
	if (unlikely(f->kind != (uint32) hi->vkind && f->kind != CF_KIND_NONE &&
				 f->kind != CF_KIND_ANY && f->hashing >= CF_HASHING_V2))
		cfpg_kind_mismatch(f, hi);
}

/*
 * The per-call-site cache of cuckoo_pg.c (in fn_extra): the value type's
 * hash info and the detoasted filter argument.
 */
typedef struct CfCallCache CfCallCache;

/* The cache of this call site (made on first use); raises without one. */
extern CfCallCache *cfpg_call_cache(FunctionCallInfo fcinfo);
/*
 * A read-only view of filter datum d, detoasted at most once per distinct
 * stored value; valid until the next call.
 */
extern const cf_filter *cfpg_read_filter(FunctionCallInfo fcinfo, CfCallCache *c, Datum d);
/* The cache's hash info, for values of typid (set up on first use). */
extern CfHashInfo *cfpg_type_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, Oid typid);

/* cuckoo.agg_probe_limit (cuckoo_agg.c) */
extern int	cfagg_probe_limit;

/* Raises the error for a failed insert (CF_FULL or CF_CANNOT_GROW) into f. */
extern void cfpg_report_insert_failure(cf_filter *f, cf_status st) pg_attribute_noreturn();

/*
 * Expanded objects (cuckoo_expanded.c): cf_add / cf_delete return them so a
 * PL/pgSQL loop does not copy the filter per call.
 */
typedef enum CfxOp
{
	CFX_ADD,					/* one more copy */
	CFX_DELETE,					/* one copy less, if any */
	CFX_ADD_UNIQUE				/* one copy, unless it is already reported present */
} CfxOp;

/*
 * Applies op with hash h to d (or to a new filter for defaults when
 * isnull); an add records value kind kind in a filter that has none yet.
 */
extern Datum cfx_modify(Datum d, bool isnull, const cf_params *defaults, uint64 h,
						CfxOp op, int kind);
/* Opens d in place if it is the newest state of an expanded filter. */
extern bool cfx_open_current(Datum d, cf_filter *f);

/*
 * Batches (cuckoo_batch.c): op applied to filter argument 0 for each
 * non-NULL element of array argument 1, with one copy of the filter for the
 * whole array (none if nothing changes).
 */
extern Datum cfpg_modify_many(FunctionCallInfo fcinfo, CfxOp op);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#endif							/* CUCKOO_PG_H */
