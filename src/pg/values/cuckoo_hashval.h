/*
 * cuckoo_hashval.h - value hashing: how a value of one SQL type becomes the
 * 64-bit hash the core takes, and the value kind a filter records for it.
 */
#ifndef CUCKOO_HASHVAL_H
#define CUCKOO_HASHVAL_H

#include "nodes/nodes.h"

#include "cuckoo_datum.h"

CFPG_HIDDEN_BEGIN

/*
 * How a type is hashed (CfHashInfo.kind).  Equal values hash equally across
 * int2/int4/int8, float4/float8, text/varchar, and the hash never depends
 * on the platform.
 */
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
	CFH_SEND,					/* through the type's binary send function */
	CFH_VALUE					/* by its row's function (cfpg_types), and nothing
								 * else switches on it: a new key type's kind */
} CfHashKind;

/* The value kind of values of type typid. */
extern int	cfpg_type_value_kind(Oid typid);

struct CfHashInfo;

/*
 * One row of the value kinds' table (cuckoo_hashval.c, cfpg_types): an SQL
 * type, how its values are hashed and what a filter records for them.  The
 * one place a key type is described: a new one is a row there, with its
 * canonical-bytes function (and its test for alternates, if it has any).
 */
typedef struct CfTypeRow
{
	Oid			typid;			/* its base type; InvalidOid: a kind hashed by
								 * structure (arrays, composites, ranges, any
								 * other type), found by cfpg_hashinfo_init */
	int			kind;			/* CfHashKind: what hashing and alternates switch on */
	int			vkind;			/* the value kind a filter records (CF_KIND_*) */
	/* the hash of a value's canonical bytes; NULL: by structure (cuckoo_hashval_hash.c) */
	uint64		(*hash) (struct CfHashInfo *hi, Datum value, int hashing);
	/*
	 * whether a value on its own may have alternates (hashes of values SQL
	 * calls equal: cuckoo_hashval_alt.c lists them); NULL: never, and a
	 * probe of it never leaves cfpg_find_value's inline path
	 */
	bool		(*may_alt) (const struct CfHashInfo *hi, Datum value);
	/* how to cast a parameter to this value kind, for errors' hints (first row of a kind) */
	const char *cast;
} CfTypeRow;

typedef struct CfHashInfo
{
	Oid			typid;			/* type this info was built for */
	Oid			basetype;		/* its base type (typid, or a domain's base) */
	int			kind;			/* CfHashKind: how the type is hashed */
	const CfTypeRow *row;		/* its row of the value kinds' table */
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
extern void cfpg_hashinfo_init(CfHashInfo *hi, Oid typid, Oid collid, MemoryContext mcxt);
/* Refuses a value that reached a call through an implicit relabeling cast
 * from a type whose = is not byte equality (citext to text). */
extern void cfpg_check_value_expr(Node *arg, Oid collid);
/* The argno-th argument expression of a function or operator call, or NULL. */
extern Node *cfpg_call_arg(Node *expr, int argno);
/*
 * The most alternates a probe tries (cfpg_hash_alternates); a value with more
 * is refused.
 */
#define CF_MAX_ALTERNATES 4096

/*
 * The hashes, besides cfpg_hash_datum's, under which a value SQL calls equal
 * to this one may be stored in a filter of value hashing hashing (integers
 * above 2^53 and floats, inet and cidr, text with trailing blanks, and parts
 * of composites, arrays and ranges: docs/hashing.md).  Returns their number,
 * 0 for most values, with *alts set (palloc'd) if there are any; raises a
 * clear error if there are more than CF_MAX_ALTERNATES.
 */
extern int	cfpg_hash_alternates(CfHashInfo *hi, Datum value, int hashing, uint64 **alts);

/*
 * The probes with alternates (cfpg_find_value, cfpg_value_hash,
 * cfpg_count_value: cuckoo_hashval_hash.h, inline) for a value whose row
 * says it may have some: the value's own hash and its alternates, through
 * the core's cf_contains_first.
 */
extern bool cfpg_find_alternates(const cf_filter *f, struct CfHashInfo *hi, Datum value, uint64 *h);
extern uint32 cfpg_count_alternates(const cf_filter *f, struct CfHashInfo *hi, Datum value);

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
				 f->kind != CF_KIND_ANY && f->hashing >= CF_HASHING_V2 &&
				 !cfpg_kind_accepts(f->kind, (uint32) hi->vkind)))
		cfpg_kind_mismatch(f, hi);
}

CFPG_HIDDEN_END

#endif							/* CUCKOO_HASHVAL_H */
