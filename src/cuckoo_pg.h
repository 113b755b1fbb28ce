/*
 * cuckoo_pg.h - PostgreSQL glue shared by the type, function and aggregate
 * files: the cuckoofilter varlena, value hashing and error reporting.
 */
#ifndef CUCKOO_PG_H
#define CUCKOO_PG_H

#include "postgres.h"
#include "fmgr.h"

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

/* A new varlena holding an empty filter for p (raises on bad parameters). */
extern struct varlena *cfpg_create(const cf_params *p);

/*
 * Value hashing: how one SQL type is turned into the 64-bit hash the core
 * takes.  Equal values hash equally across int2/int4/int8, float4/float8,
 * text/varchar, and the hash never depends on the platform.
 */
typedef struct CfHashInfo
{
	Oid			typid;			/* type this info was built for */
	int			kind;			/* internal dispatch code */
	bool		typbyval;
	int16		typlen;
	FmgrInfo	sendfn;			/* for types hashed through their send bytes */
} CfHashInfo;

/* Fills hi for typid; raises a clear error if the type cannot be hashed. */
extern void cf_hashinfo_init(CfHashInfo *hi, Oid typid, MemoryContext mcxt);
/* The 64-bit hash of a non-NULL value of hi->typid. */
extern uint64 cf_hash_datum(CfHashInfo *hi, Datum value);

#endif							/* CUCKOO_PG_H */
