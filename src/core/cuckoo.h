/*
 * cuckoo.h - libcuckoo's API: cuckoo filters in the byte format of the
 * cuckoo PostgreSQL extension (FORMAT.md), for programs outside the server.
 * Plain C99, no PostgreSQL.  Installed by make install-libcuckoo; the
 * shared library exports what this header declares and nothing else.
 *
 * A filter *is* its bytes: the same on every platform, stored by the
 * extension as a cuckoofilter value, built here into the very bytes cf_agg
 * builds.  Read top to bottom:
 *
 *   1. a filter (cf_filter, opaque), the status of a write (cf_status),
 *      the parameters of a new filter (cf_params, cf_params_default);
 *   2. values' hashes: what the extension hashes a SQL value to;
 *   3. a filter's life: build, read, write, add, contains, delete, count,
 *      union, verify;
 *   4. what a filter says about itself; its text form.
 *
 *     cf_params   p = cf_params_default(1000);
 *     char        err[CF_ERRLEN];
 *     cf_filter  *f = cf_filter_new(&p, err, sizeof(err));
 *
 *     cf_filter_insert(f, cf_hash_int64(42), false, CF_KIND_NUMBER);
 *     if (cf_contains(f, cf_hash_int64(42))) ...
 *     cf_filter_free(f);
 *
 * docs/python.md ("The C library") has a whole program, built and run by
 * the tests.  The format's constants and the core's inline fast paths are
 * in cuckoo_int.h, not installed.
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

/* ==== 1. a filter, a status, parameters ==== */

/* a filter: an opaque view of its bytes */
typedef struct cf_filter cf_filter;

/* what a write to a filter gives */
typedef enum cf_status
{
	CF_OK = 0,
	CF_FULL,            /* no room; the filter is unchanged */
	CF_NOT_FOUND,       /* delete of an absent value; the filter is unchanged */
	CF_CANNOT_GROW,     /* growth would exceed a limit; the filter is unchanged */
	CF_RETAINED,        /* delete left the value in place: which sub-filter holds
						 * it is ambiguous (counted in the header) */
	CF_READ_ONLY,       /* a version-1 filter: cf_upgrade it before writing */
	CF_TOO_MANY_COPIES  /* split table: the copies of one value fill its bucket
						 * pair and the stash; the filter is unchanged */
} cf_status;

/* a status's name ("CF_FULL", ...); "unknown status" for any other number */
const char *cf_status_str(cf_status st);

/* size of the buffer the functions below write their error messages into */
#define CF_ERRLEN           160

/*
 * The geometries a new filter can ask for (cf_params.geometry; FORMAT.md,
 * "Table descriptor").  CHAIN: one table sized once, growing by more tables
 * of one family (deletes across them exact).  SPLIT: one table that doubles
 * in place (FORMAT.md, "Split tables").  LIST: a split table that starts as
 * the sorted list of its values' hashes while it is small (FORMAT.md, "List
 * sub-filters"): CF_GEOM_DEFAULT, what SQL's cf_create and cf_add make.
 * cf_agg (cf_filter_build) builds a chain table.  A rate too low for the
 * split schedule keeps a chain table.
 */
#define CF_GEOM_CHAIN       2
#define CF_GEOM_SPLIT       3
#define CF_GEOM_LIST        4
/*
 * What a caller asks for by what its filter does; the core chooses the
 * geometry (cf_create): a table built at once, or of a fixed size, or one
 * that grows by appended tables (a chain table), or a growing filter
 * (CF_GROWING: with expansion > 0, a list of hashes that becomes a split
 * table, as CF_GEOM_LIST asks).
 */
#define CF_BUILT_AT_ONCE    0
#define CF_GROWING          256
#define CF_GEOM_DEFAULT     CF_GROWING

/* table encodings (cf_params.encoding) */
#define CF_ENC_PACKED       0       /* bucket_size slots of w bits each */
#define CF_ENC_SEMISORT     1       /* semi-sorted: 4 slots in 4w - 4 bits (bucket size 4) */
#define CF_ENC_MIXED        (-1)    /* cf_encoding_of: sub-filters of both encodings */

/* the defaults: SQL's cf_create(capacity) */
#define CF_DEFAULT_FPR          0.01
#define CF_DEFAULT_BUCKET_SIZE  4
#define CF_DEFAULT_MAX_KICKS    500
#define CF_DEFAULT_EXPANSION    2
/* the limits */
#define CF_MAX_KICKS_LIMIT  65535
#define CF_MAX_EXPANSION    16
/* cf_params.max_kicks and .expansion: none at all (0 means the default) */
#define CF_NONE             (-1)

/*
 * What a caller asks for when creating a filter.  Start from
 * cf_params_default(capacity) and change what you need.  cf_filter_new
 * reads a field left 0 as its default, the geometry aside (0 is
 * CF_BUILT_AT_ONCE, a chain table: a zero-initialized struct with a
 * capacity is SQL's cf_create(capacity) in a chain table that grows by
 * appended tables); max_kicks = CF_NONE asks for no kick-outs, expansion
 * = CF_NONE for a filter that never grows.
 * cf_create_size and cf_create (a filter in the caller's buffer) take every
 * field as it is: 0 kicks, expansion 0 for a fixed size.
 */
typedef struct cf_params
{
	uint64_t    capacity;       /* items it must hold at its design load (>= 1) */
	double      fpr;            /* target false-positive rate, in (0, 0.5) */
	int         bucket_size;    /* 2, 4 or 8 slots */
	int         max_kicks;      /* 0 .. CF_MAX_KICKS_LIMIT */
	int         expansion;      /* growth factor: 1, 2, 4, 8 or 16 (0: fixed size,
								 * cf_create_size; CF_NONE in cf_filter_new) */
	int         encoding;       /* CF_ENC_PACKED (0) or CF_ENC_SEMISORT (bucket size 4) */
	int         geometry;       /* with expansion > 0: CF_GROWING (or CF_GEOM_LIST),
								 * CF_GEOM_SPLIT, or CF_BUILT_AT_ONCE (0) / CF_GEOM_CHAIN:
								 * a chain table; any other value is a chain table */
} cf_params;

/* SQL's cf_create(capacity): the default rate, bucket size, kicks, growth and geometry */
cf_params	cf_params_default(uint64_t capacity);

/* ==== 2. values' hashes (cuckoo_canon.c, docs/hashing.md) ==== */
/*
 * A filter holds 64-bit hashes of values.  The extension hashes a SQL value
 * to one of these; hash a value as it does and the filter answers as in
 * SQL.  Integers (int2/4/8, numeric integers in int64's range): the hash of
 * the integer; bytea: cf_hash_bytes of its bytes.
 */
uint64_t	cf_hash_bytes(const void *data, size_t len);
uint64_t	cf_hash_int64(int64_t v);      /* hashes the 8-byte little-endian form */
/* a float8's IEEE bits, -0 as 0, every NaN as one NaN (value hashing 1's floats) */
uint64_t	cf_hash_float8(double v);
/* a number as a float8 (float4, float8, other numerics) under value hashing hashing */
uint64_t	cf_hash_number(double v, int hashing);
/* text of len bytes: its length without trailing blanks */
size_t		cf_text_trim(const char *p, size_t len);
/* text in UTF-8 (value hashing 2: strip_blanks; char(n): always) */
uint64_t	cf_hash_text(const char *utf8, size_t len, bool strip_blanks);
/* a boolean (0 or 1) or a "char" */
uint64_t	cf_hash_byte(uint8_t b);
/* a uuid's 16 bytes */
uint64_t	cf_hash_uuid(const uint8_t *u);
/* dates and timestamps as PostgreSQL counts them: from 2000-01-01 */
#define CF_USECS_PER_DAY    INT64_C(86400000000)
#define CF_DATE_NOBEGIN     INT32_MIN                       /* date '-infinity' */
#define CF_DATE_NOEND       INT32_MAX                       /* date 'infinity' */
#define CF_TIMESTAMP_MIN    INT64_C(-211813488000000000)    /* 4714-11-24 BC */
#define CF_TIMESTAMP_END    INT64_C(9223371331200000000)    /* 294277-01-01, excluded */
/* a date: days since 2000-01-01 */
uint64_t	cf_hash_date(int32_t day, int hashing);
/* a timestamp (wall clock) or timestamptz (UTC): microseconds since 2000-01-01 */
uint64_t	cf_hash_timestamp(int64_t usecs);

/*
 * Values SQL calls equal under other hashes (an integer beyond 2^53 and the
 * float8 it rounds to): a probe tries the value's own hash, then these
 * (cf_contains_first).
 */
/* the most alternates cf_number_alternates gives */
#define CF_NUMBER_ALTERNATES_MAX 4097
/* integer v beyond +-2^53 (hashing 2): *h = the hash of the float8 it rounds to */
bool		cf_int64_alternate(int64_t v, int hashing, uint64_t *h);
/* float8 v an integer of magnitude 2^53 .. 2^63 (hashing 2): the int64s that round to it */
size_t		cf_number_alternates(double v, int hashing, uint64_t *out);

/* value hashing recorded in a filter's header (cf_filter_hashing) */
#define CF_HASHING_V1       1       /* cuckoo 1.0's (a version-1 filter rewritten) */
#define CF_HASHING_V2       2       /* SQL-equal values hash equal */

/*
 * value kinds recorded in a filter's header (cf_filter_kind; FORMAT.md):
 * the families within which SQL compares values across types; a value of
 * another kind than a filter holds is refused (cf_kind_mismatch)
 */
#define CF_KIND_NONE        0       /* nothing added yet, or not recorded */
#define CF_KIND_NUMBER      1       /* int2, int4, int8, float4, float8, numeric */
#define CF_KIND_TEXT        2       /* text, varchar, bpchar, name, unknown literals */
#define CF_KIND_BYTEA       3
#define CF_KIND_UUID        4
#define CF_KIND_BOOL        5
#define CF_KIND_DATETIME    6       /* date, timestamp, timestamptz (written by 1.1) */
#define CF_KIND_INTERVAL    7
#define CF_KIND_JSONB       8
#define CF_KIND_ARRAY       9
#define CF_KIND_RECORD      10
#define CF_KIND_RANGE       11
#define CF_KIND_MULTIRANGE  12
#define CF_KIND_CHAR        13      /* "char" */
#define CF_KIND_OTHER       14      /* hashed through their binary send function */
#define CF_KIND_TIMESTAMP   15      /* date, timestamp: wall-clock values (from 1.2) */
#define CF_KIND_TIMESTAMPTZ 16      /* timestamptz: instants (from 1.2) */
#define CF_KIND_ANY         255     /* the owner opted out of kind checks */
/* a value kind's name ("number", ..., "any"), or NULL */
const char *cf_kind_name(uint32_t kind);
/* can a filter of kind fkind take values of kind vkind (same, or 1.1's datetime)? */
bool		cf_kind_accepts(uint32_t fkind, uint32_t vkind);
/* is a value of kind vkind refused by a filter of kind fkind and value hashing fhashing? */
bool		cf_kind_mismatch(uint32_t fkind, uint32_t fhashing, uint32_t vkind);

/* ==== 3. a filter's life ==== */

/* ---- build ---- */
/*
 * A new empty filter for p (fields left 0: their defaults); NULL with err
 * set if p is bad (or out of memory).  Free it with cf_filter_free.
 */
cf_filter  *cf_filter_new(const cf_params *p, char *err, size_t errlen);
/*
 * What the extension's cf_agg(value, fpr [, capacity]) builds from the
 * sorted distinct hashes h[0 .. n) (capacity 0: sized to n), with value
 * kind kind: the same bytes.  NULL with err set if it cannot be built.
 */
cf_filter  *cf_filter_build(const uint64_t *h, size_t n, uint64_t capacity, double fpr,
							int encoding, uint32_t kind, char *err, size_t errlen);
/* The capacities cf_agg tries for n distinct hashes (capacity 0: its own two); how many. */
int			cf_agg_capacities(uint64_t n, uint64_t capacity, uint64_t out[2]);

/* ---- read ---- */
/* A filter of a copy of buf, fully validated (cf_validate); NULL with err set. */
cf_filter  *cf_filter_from_bytes(const uint8_t *buf, size_t len, char *err, size_t errlen);
cf_filter  *cf_filter_copy(const cf_filter *f);
void		cf_filter_free(cf_filter *f);

/* ---- write ---- */
/* The filter's bytes (valid until the next write to it). */
const uint8_t *cf_filter_bytes(const cf_filter *f, size_t *len);

/* ---- add ---- */
/*
 * Adds h (the value's hash), growing when full (a version-1 filter is first
 * rewritten as version 2); unique: only if not reported present.  Then
 * records kind in a filter that has none (value hashing 2), as the
 * extension's cf_add does.  The add; cf_add (below, "a view's own
 * operations") never grows.
 */
cf_status	cf_filter_insert(cf_filter *f, uint64_t h, bool unique, uint32_t kind);

/* ---- contains ---- */
bool		cf_contains(const cf_filter *f, uint64_t h);
/* cf_contains(f, cf_hash_int64(v)) in one call: the hash inlined into the path */
bool		cf_contains_int64(const cf_filter *f, int64_t v);
/*
 * cf_contains of h[0 .. n) into found[0 .. n); returns how many were found.
 * Faster than n calls on a large filter: the bucket loads of several
 * lookups are in flight at once.
 */
size_t		cf_contains_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found);
/*
 * The probe of one value with alternates: h[0] its own hash, h[1 .. n)
 * the hashes of values SQL calls equal to it.  Returns the index of the
 * first one f holds, or n if none: the hash to delete (or to count as
 * present), else h[0], the one to add.
 */
size_t		cf_contains_first(const cf_filter *f, const uint64_t *h, size_t n);

/* ---- delete ---- */
/*
 * Removes one copy of a value that was added (a version-1 filter is first
 * rewritten as version 2): from the sub-filter that refines every other
 * sub-filter with a match (FORMAT.md, "Deletes"), so no other value loses
 * its last match.  When no such sub-filter exists the value is left in
 * place, the header's retained count goes up and CF_RETAINED is returned.
 * CF_NOT_FOUND leaves f unchanged.
 */
cf_status	cf_filter_remove(cf_filter *f, uint64_t h);

/* ---- count ---- */
/* the copies of h f holds (a false positive counts too) */
uint32_t	cf_count(const cf_filter *f, uint64_t h);
/* the items f holds: occupied slots (copies included) and stash records */
uint64_t	cf_item_count(const cf_filter *f);

/* ---- union ---- */
/* A new filter, the union of a and b (every item of both kept); NULL with err set. */
cf_filter  *cf_filter_union(const cf_filter *a, const cf_filter *b, char *err, size_t errlen);

/* ---- verify ---- */
/*
 * Full validation, safe on any bytes: the header, every sub-filter's
 * descriptor, item counts that match the tables and unused trailing bits
 * that are zero.  cf_filter_from_bytes runs it.
 */
bool		cf_validate(const uint8_t *buf, size_t len, char *err, size_t errlen);

/* what cf_verify found: at most CF_VERIFY_MAX problems are kept, all are counted */
#define CF_VERIFY_MAX       16
#define CF_VERIFY_MSGLEN    200
typedef struct cf_verify_result
{
	bool		ok;             /* no problem found */
	uint32_t	version;        /* the format version (0 when not even that is readable) */
	uint32_t	nstages;        /* sub-filters read (0 when the header was refused) */
	uint32_t	nproblems;      /* problems found */
	uint64_t	items;          /* items (slots, stash records, list hashes) of the sub-filters whose scan passed */
	char		problems[CF_VERIFY_MAX][CF_VERIFY_MSGLEN];
} cf_verify_result;
/*
 * The full check of the bytes of a filter, safe on any bytes: its header
 * and descriptors (check bytes of version 3), then every sub-filter's table
 * scanned on its own (every slot valid for its encoding and geometry, the
 * stash, counts against contents, lists sorted and in range), each problem
 * reported.  ok exactly when cf_validate accepts the bytes.  Returns r->ok.
 */
bool		cf_verify(const uint8_t *buf, size_t len, cf_verify_result *r);

/* ==== 4. what a filter says about itself ==== */

/* statistics, as the extension's cf_info reports them */
typedef struct cf_stats
{
	uint64_t    capacity;       /* items all sub-filters hold at design load */
	uint64_t    items;
	uint64_t    buckets;
	uint32_t    bucket_size;
	uint32_t    fingerprint_bits;   /* base width */
	double      load_factor;    /* items / slots */
	double      fpr;            /* expected false-positive rate now */
	uint64_t    bytes;          /* serialized size */
	uint32_t    subfilters;
	double      target_fpr;     /* the rate asked for at creation */
	uint32_t    expansion;
	uint32_t    max_kicks;
	uint32_t    version;        /* format version */
	uint32_t    hashing;        /* value hashing */
	uint32_t    kind;
	uint64_t    deletes;        /* deletes done */
	uint64_t    retained;       /* deletes left in place (ambiguous) */
	uint32_t    families;       /* groups of sub-filters that refine each other */
	uint32_t    semisorted;     /* sub-filters of encoding CF_ENC_SEMISORT */
} cf_stats;

void		cf_get_stats(const cf_filter *f, cf_stats *s);

/* header fields: value kind (CF_KIND_*) and value hashing (CF_HASHING_*) */
uint32_t	cf_filter_kind(const cf_filter *f);
uint32_t	cf_filter_hashing(const cf_filter *f);
void		cf_filter_set_kind(cf_filter *f, uint32_t kind);

/*
 * The table encoding of f's sub-filters: CF_ENC_PACKED, CF_ENC_SEMISORT, or
 * CF_ENC_MIXED when they have both (a union of filters of both).
 */
int			cf_encoding_of(const cf_filter *f);
/* Is enc a table encoding cf_params can ask for (CF_ENC_PACKED or CF_ENC_SEMISORT)? */
bool		cf_encoding_valid(int enc);
/* Is f a list (a growing filter's start, CF_GEOM_LIST)? */
bool		cf_is_list(const cf_filter *f);
/*
 * For a list: the most hashes it holds before an add turns it into a table
 * (FORMAT.md, "List sub-filters", LIST_MAX).  0 when f is not a list.
 */
uint32_t	cf_list_bound(const cf_filter *f);

/* ---- text form: strict base64 of the bytes, as the extension's output ---- */
size_t		cf_base64_len(size_t nbytes);                 /* chars, without NUL */
void		cf_base64_encode(const uint8_t *src, size_t n, char *dst);  /* writes NUL */
/* Decoded size of a valid text of len chars, or SIZE_MAX if len is not valid. */
size_t		cf_base64_decoded_len(const char *src, size_t len);
/* Decodes; returns bytes written or SIZE_MAX (with err) on a bad character / padding. */
size_t		cf_base64_decode(const char *src, size_t len, uint8_t *dst, char *err, size_t errlen);

/* ==== a filter in the caller's buffer, and a view's own operations ==== */
/*
 * For callers that keep a filter's bytes themselves (the extension does):
 * cf_create_size checks p, every field taken as it is (no defaults), and
 * returns the byte size of the new filter, or 0 with err set; cf_create
 * writes the empty filter into buf of that size.
 */
size_t		cf_create_size(const cf_params *p, char *err, size_t errlen);
void		cf_create(uint8_t *buf, const cf_params *p);
/*
 * An add that never grows (CF_FULL leaves f unchanged) and a delete that
 * refuses a version-1 filter (CF_READ_ONLY), on any filter: what
 * cf_filter_insert and cf_filter_remove do after growth and rewriting.
 */
cf_status	cf_add(cf_filter *f, uint64_t h);
cf_status	cf_delete(cf_filter *f, uint64_t h);

/*
 * Called now and then from loops that can run for seconds (validation,
 * union), so a caller can cancel them; it may longjmp out (the core holds
 * no resources and leaves the filters it was given unchanged).
 */
extern void (*cf_interrupt_hook) (void);

#endif							/* CUCKOO_H */
