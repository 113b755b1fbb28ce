/*
 * cuckoo_datum.h - the glue's ground floor: the cuckoofilter varlena, how a
 * stored filter is opened, made, checked and combined, and core errors.
 */
#ifndef CUCKOO_DATUM_H
#define CUCKOO_DATUM_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "cuckoo_compat.h"

CFPG_HIDDEN_BEGIN

#include "cuckoo_view.h"

/*
 * A cuckoofilter datum is a plain varlena whose payload is the core's byte
 * format (FORMAT.md); there is no PostgreSQL-specific header in front.
 */
#define CF_VARDATA(v)		((uint8 *) VARDATA(v))
#define CF_VARSIZE(v)		((size_t) (VARSIZE(v) - VARHDRSZ))

#define DatumGetCuckooFilterP(X)	((struct varlena *) PG_DETOAST_DATUM(X))
#define PG_GETARG_CUCKOOFILTER_P(n)	DatumGetCuckooFilterP(PG_GETARG_DATUM(n))
#define PG_RETURN_CUCKOOFILTER_P(x)	PG_RETURN_POINTER(x)

/* capacity of the filter cf_add(NULL, v) and cf_add_all(NULL, a) create */
#define CFPG_DEFAULT_CAPACITY	1000

/*
 * Value kinds a version-2 filter records (header byte 10, FORMAT.md): the
 * families within which SQL compares values across types.  A value of
 * another kind than the filter holds is refused, not silently missed.
 * The numbers are part of the byte format: the core's CF_KIND_* (cuckoo.h).
 */
typedef enum CfValueKind
{
	CFK_NUMBER = CF_KIND_NUMBER,	/* int2, int4, int8, float4, float8, numeric */
	CFK_TEXT = CF_KIND_TEXT,	/* text, varchar, bpchar, name, unknown literals */
	CFK_BYTEA = CF_KIND_BYTEA,
	CFK_UUID = CF_KIND_UUID,
	CFK_BOOL = CF_KIND_BOOL,
	CFK_DATETIME = CF_KIND_DATETIME,	/* date, timestamp, timestamptz (written by 1.1) */
	CFK_INTERVAL = CF_KIND_INTERVAL,
	CFK_JSONB = CF_KIND_JSONB,
	CFK_ARRAY = CF_KIND_ARRAY,
	CFK_RECORD = CF_KIND_RECORD,
	CFK_RANGE = CF_KIND_RANGE,
	CFK_MULTIRANGE = CF_KIND_MULTIRANGE,
	CFK_CHAR = CF_KIND_CHAR,	/* "char" */
	CFK_OTHER = CF_KIND_OTHER,	/* hashed through their binary send function */
	CFK_TIMESTAMP = CF_KIND_TIMESTAMP,	/* date, timestamp: wall-clock values (from 1.2) */
	CFK_TIMESTAMPTZ = CF_KIND_TIMESTAMPTZ	/* timestamptz: instants (from 1.2) */
} CfValueKind;

/*
 * Can a filter of value kind fkind take values of kind vkind?  The same
 * kind, or a filter of 1.1's datetime kind (which held dates, timestamps and
 * timestamptz alike) and a value of one of 1.2's two kinds that split it
 * (the core's rule, cf_kind_accepts).
 */
static inline bool
cfpg_kind_accepts(uint32 fkind, uint32 vkind)
{
	return fkind == vkind || cf_kind_accepts(fkind, vkind);
}

/* The SQL name of a value kind (CF_KIND_ANY: "any"), or NULL. */
extern const char *cfpg_kind_name(int kind);
/* The same for a message: never NULL ("unknown kind N"). */
extern const char *cfpg_kind_label(int kind);
/* The value kind of a name cfpg_kind_name gives, or -1. */
extern int	cfpg_kind_from_name(const char *name);

/* ---- opening, making and checking stored filters ---- */

/*
 * Opens a detoasted cuckoofilter varlena as a core view; raises
 * ERRCODE_DATA_CORRUPTED if its header is not a valid filter.
 */
extern void cfpg_open(cf_filter *f, struct varlena *v);
/* Fills p with capacity, fpr and the default bucket size, kicks and expansion. */
extern void cfpg_params(cf_params *p, uint64 capacity, double fpr);
/* A new varlena holding an empty filter for p (raises on bad parameters). */
extern void cfpg_check_capacity(int64 capacity);
extern size_t cfpg_check_params(const cf_params *p);
extern struct varlena *cfpg_create(const cf_params *p);
/* The table encoding named by a SQL argument, 'packed' or 'semisorted' (raises). */
extern int	cfpg_encoding(text *name);
/* The SQL name of a filter's table encoding: 'packed', 'semisorted' or 'mixed'. */
extern const char *cfpg_encoding_name(const cf_filter *f);
/*
 * Full validation of a filter's bytes for an input path: raises
 * INVALID_BINARY_REPRESENTATION (binary) or INVALID_TEXT_REPRESENTATION,
 * into escontext when the caller gave one (soft errors, 16+).
 */
extern bool cfpg_validate(const uint8 *buf, size_t len, bool binary, struct Node *escontext);
/* A detoasted private copy of filter d, rewritten as version 2 if it is version 1. */
extern struct varlena *cfpg_writable_copy(Datum d);
/* cf_alloc_fn for growth: the payload of a new palloc'd varlena. */
extern void *cfpg_alloc_varlena(size_t size, void *ctx);
/*
 * Inserts hash h into the writable filter f held by varlena *v (its own
 * copy), growing it into a new varlena (the old one freed) when full.
 */
extern cf_status cfpg_insert(cf_filter *f, struct varlena **v, uint64 h);
/* Items in all the sub-filters of f. */
extern uint64 cfpg_items_of(const cf_filter *f);

/* ---- unions ---- */

/* A new varlena with the union of a and b; errors say errmsg_text and why. */
extern struct varlena *cfpg_union(const cf_filter *a, const cf_filter *b,
								  const char *errmsg_text);
/* The false-positive rate f was designed for. */
extern double cfpg_target_fpr(const cf_filter *f);
/* NOTICE if union r of a and b is over twice its target rate. */
extern void cfpg_union_check_fpr(FmgrInfo *flinfo, const cf_filter *a, const cf_filter *b,
								 const cf_filter *r, bool only_on_crossing);
/* The NOTICE for a union whose expected rate is over twice its target. */
extern bool cfpg_union_notice(const cf_filter *r);

/* ---- messages and errors ---- */

/* A core message ("lower case, no period") as an errdetail sentence. */
extern char *cfpg_sentence(const char *msg);
/*
 * The bytes of base64 text str (len characters) as a new varlena of at most
 * maxlen payload bytes; NULL after reporting bad text of type typname to
 * escontext (soft input errors) or raising ("<what> text is too long").
 */
extern struct varlena *cfpg_base64_decode(const char *str, size_t len, size_t maxlen,
										  const char *typname, const char *what,
										  struct Node *escontext);
/* The base64 text of len bytes at buf; raises if it would pass 1 GB (what: "cuckoo filter"). */
extern char *cfpg_base64_encode(const uint8 *buf, size_t len, const char *what, const char *hint);
/* Appends a rate in (0, 1) as a percentage with two significant digits. */
extern void cfpg_append_percent(StringInfo buf, double rate);
/* Raises the error for a failed insert (CF_FULL or CF_CANNOT_GROW) into f. */
extern void cfpg_report_insert_failure(cf_filter *f, cf_status st) pg_attribute_noreturn();

CFPG_HIDDEN_END

#endif							/* CUCKOO_DATUM_H */
