/*
 * cuckoo.h - the cuckoo filter core's public API: parameters, the portable
 * byte format's constants, value hashing (the canonical forms of values the
 * PostgreSQL extension hashes), lookups, adds and deletes, statistics, and
 * filters owned by the library (cf_filter_new, cf_filter_from_bytes, ...).
 * Plain C99, no PostgreSQL.  What libcuckoo exports (make lib).
 *
 * A filter *is* its serialized bytes: every operation works directly on a
 * flat little-endian buffer (see FORMAT.md), through a parsed view
 * (cf_filter, opaque here) that points into it.  The view's layout and the
 * calls that fill a caller's view or grow its buffer are the core's and the
 * PostgreSQL glue's own: cuckoo_view.h.
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

/* ---- format constants (part of the on-disk contract, FORMAT.md) ---- */
#define CF_MAGIC            0xCF
#define CF_FORMAT_VERSION   3       /* what the writers write; versions 1 and 2 are read too */
#define CF_V1_HEADER_SIZE   16      /* version 1: fixed header ... */
#define CF_V1_STAGE_SIZE    12      /* ... and one sub-filter descriptor */
#define CF_V2_HEADER_SIZE   40      /* version 2: fixed header ... */
#define CF_V2_STAGE_SIZE    16      /* ... and one sub-filter descriptor */
/* the sizes of the version cf_create writes */
#define CF_HEADER_SIZE      CF_V2_HEADER_SIZE
#define CF_STAGE_SIZE       CF_V2_STAGE_SIZE
/* the most bytes a header with all its descriptors can take, any version */
#define CF_MAX_HEADER_BYTES (CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE * CF_MAX_STAGES)
#define CF_MAX_STAGES       32      /* sub-filters in one filter */
#define CF_MIN_FPBITS       4
#define CF_MAX_FPBITS       32
#define CF_MAX_KICKS_LIMIT  65535
#define CF_MAX_EXPANSION    16
/* largest payload: it must fit a PostgreSQL varlena (1 GB less its header) */
#define CF_MAX_SIZE         ((size_t) 0x3FFFFFFF - 4)

/*
 * How a sub-filter maps a 64-bit hash to a fingerprint and a bucket pair
 * (FORMAT.md, "Hashing").  LEGACY is version 1's; CHAIN is version 2's, in
 * which a table of level L refines every table of its family with a lower
 * level and a narrower fingerprint, so deletes across sub-filters are exact.
 */
#define CF_GEOM_LEGACY      1
#define CF_GEOM_CHAIN       2
/*
 * SPLIT (format version 2, cuckoo 1.2): one table of m0 << L buckets that
 * doubles in place by moving one stored bit of every entry into the bucket
 * address; slots hold a base key f0, a variable-length extension and a
 * unary end marker (FORMAT.md, "Split tables").
 */
#define CF_GEOM_SPLIT       3
/*
 * LIST (format version 2, cuckoo 1.2): a growing filter's start, the sorted
 * 64-bit hashes of its values (a multiset), at most CF_LIST_MAX of them and
 * never more bytes than the level-0 split table it becomes when it would
 * outgrow that (FORMAT.md, "List sub-filters").  As cf_params.geometry it
 * asks for a split table that starts as a list.
 */
#define CF_GEOM_LIST        4
/* lists: the most hashes one holds (also bounded by its table's bytes / 8) */
#define CF_LIST_MAX         256

/* split tables: the base key width new tables get, and what a reader allows */
#define CF_SPLIT_F0         5
#define CF_SPLIT_F0_MIN     4
#define CF_SPLIT_F0_MAX     6
/* split tables: most stash records (entries no doubling can place) */
#define CF_SPLIT_STASH_MAX  256
/* split tables: bytes of one stash record */
#define CF_SPLIT_STASH_REC  12
/* split tables: the narrowest slot a schedule gives (at least 6 extension bits) */
#define CF_SPLIT_MIN_WIDTH  12

/*
 * Widest base key of a chain family: a filter's first table keys its
 * alternate buckets by at most this many top fingerprint bits, so that a
 * filter with wide fingerprints still has bits for 32 - 20 levels of growth.
 */
#define CF_CHAIN_KEY_MAX    20

/* table encodings (descriptor byte 12, FORMAT.md "Tables") */
#define CF_ENC_PACKED       0       /* bucket_size slots of w bits each */
#define CF_ENC_SEMISORT     1       /* semi-sorted: 4 slots in 4w - 4 bits (bucket size 4) */
#define CF_ENC_MIXED        (-1)    /* cf_encoding_of: sub-filters of both encodings */

/* value hashing recorded in the header: which hash a value of SQL gets */
#define CF_HASHING_V1       1       /* cuckoo 1.0's (a version-1 filter rewritten) */
#define CF_HASHING_V2       2       /* SQL-equal values hash equal */

/*
 * value kinds recorded in the header (header byte 10, FORMAT.md): the
 * families within which SQL compares values across types; a value of
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

/* ---- defaults ---- */
#define CF_DEFAULT_FPR          0.01
#define CF_DEFAULT_BUCKET_SIZE  4
#define CF_DEFAULT_MAX_KICKS    500
#define CF_DEFAULT_EXPANSION    2

/* seed of the one XXH3 hash computed per value; never change it */
#define CF_HASH_SEED        UINT64_C(0x6375636b6f6f2131)   /* "cuckoo!1" */

/* size of the buffer the functions below write their error messages into */
#define CF_ERRLEN           160

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
						 * pair and the stash (CF_SPLIT_STASH_MAX); the filter
						 * is unchanged */
} cf_status;

/* what a caller asks for when creating a filter */
typedef struct cf_params
{
	uint64_t    capacity;       /* items it must hold at its design load */
	double      fpr;            /* target false-positive rate, in (0, 0.5) */
	int         bucket_size;    /* 2, 4 or 8 slots */
	int         max_kicks;      /* 0 .. CF_MAX_KICKS_LIMIT */
	int         expansion;      /* 0 (fixed size), 1, 2, 4, 8 or 16 */
	int         encoding;       /* CF_ENC_PACKED (0) or CF_ENC_SEMISORT (bucket size 4) */
	int         geometry;       /* with expansion > 0: CF_GEOM_SPLIT for a split
								 * table (FORMAT.md), CF_GEOM_LIST for a split
								 * table that starts as a list of hashes,
								 * anything else a chain table; a rate too low
								 * for the split schedule keeps a chain table */
} cf_params;


/* a filter: a parsed view of its bytes (cuckoo_view.h has its layout) */
typedef struct cf_filter cf_filter;

/* statistics, as cf_info reports them */
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


/*
 * Called now and then from loops that can run for seconds (validation,
 * union), so a caller can cancel them; it may longjmp out (the core holds
 * no resources and leaves the filters it was given unchanged).
 */
extern void (*cf_interrupt_hook) (void);

/* ---- hashing ---- */
uint64_t	cf_hash_bytes(const void *data, size_t len);
uint64_t	cf_hash_int64(int64_t v);      /* hashes the 8-byte little-endian form */

/*
 * cf_hash_int64 written out for its one length, for callers' loops: XXH3-64
 * of 8 bytes with CF_HASH_SEED (the 4-to-8-byte path of the XXH3
 * specification).  CF_HASH8_FLIP folds the seed into XXH3's default secret
 * (bytes 8 .. 23); test_hash checks the result against libxxhash.
 */
#define CF_HASH8_FLIP       UINT64_C(0x74e6a570567db471)

static inline uint64_t
cf_hash_int64_inline(int64_t v)
{
	uint64_t	x = (uint64_t) v;

	/* the two little-endian halves swapped, keyed */
	x = ((x << 32) | (x >> 32)) ^ CF_HASH8_FLIP;
	x ^= ((x << 49) | (x >> 15)) ^ ((x << 24) | (x >> 40));
	x *= UINT64_C(0x9FB21C651E98DF25);
	x ^= (x >> 35) + 8;
	x *= UINT64_C(0x9FB21C651E98DF25);
	return x ^ (x >> 28);
}

/* ---- creation ---- */
/* Checks p; returns the byte size of the new filter, or 0 with err set. */
size_t		cf_create_size(const cf_params *p, char *err, size_t errlen);
/* Writes an empty filter for p (already checked) into buf of that size. */
void		cf_create(uint8_t *buf, const cf_params *p);
/* Fingerprint width cf_create uses for (fpr, bucket_size); 0 if none fits. */
int			cf_fpbits_for(double fpr, int bucket_size);
/*
 * Slot width of a split table at a level for (fpr, bucket_size): the
 * family's schedule, a pure function of both (0 if none fits in 32 bits).
 */
uint32_t	cf_split_width(double fpr, uint32_t bucket_size, uint32_t level);
/* Buckets for a sub-filter that must hold capacity items at design load. */
uint64_t	cf_nbuckets_for(uint64_t capacity, int bucket_size);

/* ---- reading ---- */
/*
 * Full validation, safe on any bytes: cf_open plus item counts that match
 * the tables and unused trailing bits that are zero.
 */
bool		cf_validate(const uint8_t *buf, size_t len, char *err, size_t errlen);


/* ---- operations (h = the value's 64-bit hash) ---- */
bool		cf_contains(const cf_filter *f, uint64_t h);
/* cf_contains(f, cf_hash_int64(v)) in one call: the hash inlined into the path */
bool		cf_contains_int64(const cf_filter *f, int64_t v);

/*
 * A filter's lookup inlined into the caller's loop, for loops that probe one
 * filter many times (the filter must not change meanwhile):
 *
 *     cf_probe p = cf_probe_of(&f);
 *     for (...) n += cf_probe_int64(&p, key);     (or cf_probe_hash(&p, h))
 *
 * (Testing p.bucket_bytes once outside the loop, and calling
 * cf_contains_int64 in a second loop when it is 0, lets the compiler keep p
 * in registers: bench/bench_cmu.cc does.)
 *
 * Where f is one level-0 table with whole-byte buckets of one load (every
 * filter cf_create makes at even fingerprint widths up to 16 with buckets
 * of 4, and more), the lookup runs in line with its constants in registers;
 * any other filter goes through cf_contains.  Same answers as cf_contains.
 */
typedef struct cf_probe
{
	const cf_filter *f;
	const uint8_t *base;        /* table + bucket bytes - 8: the word that ends with bucket 0 */
	uint64_t    nbuckets;
	uint64_t    lanes_lo;       /* lane low bits, in the word's top bucket bits */
	uint64_t    lanes_hi;
	uint32_t    bucket_bytes;   /* 0: not inline, use cf_contains */
	uint32_t    fp_shift;       /* 32 - fingerprint width */
	/* cf_contains and cf_contains_int64, for filters not inlined */
	bool		(*contains) (const cf_filter *f, uint64_t h);
	bool		(*contains_int64) (const cf_filter *f, int64_t v);
} cf_probe;

cf_probe	cf_probe_of(const cf_filter *f);

/* H(key) of the alternate bucket (FORMAT.md, "Hashing") */
static inline uint32_t
cf_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

static inline bool
cf_probe_hash(const cf_probe *p, uint64_t h)
{
	uint32_t	fp,
				i1,
				hm,
				i2;
	uint64_t	x1,
				x2,
				fpl;

	if (p->bucket_bytes == 0)
		return p->contains(p->f, h);
	fp = (uint32_t) h >> p->fp_shift;
	fp += fp == 0;
	i1 = (uint32_t) (((h >> 32) * p->nbuckets) >> 32);
	hm = (uint32_t) (((uint64_t) cf_mix32(fp) * p->nbuckets) >> 32);
	/* (hm - i1) mod nbuckets, without a branch */
	i2 = hm - i1 + ((uint32_t) p->nbuckets & (0u - (uint32_t) (hm < i1)));
	fpl = fp * p->lanes_lo;
	/* little-endian loads (cf_probe_of declines big-endian hosts) */
	memcpy(&x1, p->base + (size_t) i1 * p->bucket_bytes, 8);
	memcpy(&x2, p->base + (size_t) i2 * p->bucket_bytes, 8);
	x1 ^= fpl;
	x2 ^= fpl;
	return (((x1 - p->lanes_lo) & ~x1) | ((x2 - p->lanes_lo) & ~x2)) & p->lanes_hi;
}

static inline bool
cf_probe_int64(const cf_probe *p, int64_t v)
{
	if (p->bucket_bytes == 0)
		return p->contains_int64(p->f, v);
	return cf_probe_hash(p, cf_hash_int64_inline(v));
}

/*
 * cf_contains of h[0 .. n) into found[0 .. n); returns how many were found.
 * Faster than n calls on a large filter: the bucket loads of several
 * lookups are in flight at once.
 */
size_t		cf_contains_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found);
uint32_t	cf_count(const cf_filter *f, uint64_t h);
/* Adds one copy (least loaded sub-filter first); CF_FULL leaves f unchanged. */
cf_status	cf_add(cf_filter *f, uint64_t h);
/*
 * Removes one copy of a value that was added: from the sub-filter that
 * refines every other sub-filter with a match (FORMAT.md, "Deletes"), so no
 * other value loses its last match.  When no such sub-filter exists (tables
 * of unrelated geometry both match) the value is left in place, the
 * header's retained count goes up and CF_RETAINED is returned.
 * CF_NOT_FOUND leaves f unchanged.
 */
cf_status	cf_delete(cf_filter *f, uint64_t h);





/* ---- statistics ---- */
void		cf_get_stats(const cf_filter *f, cf_stats *s);

/* the items f holds: occupied slots (copies included) and stash records */
uint64_t	cf_item_count(const cf_filter *f);

/*
 * For a list (a growing filter's start, CF_GEOM_LIST): the most hashes it
 * holds before an add turns it into a table (FORMAT.md, "List sub-filters",
 * LIST_MAX).  0 when f is not a list.
 */
uint32_t	cf_list_bound(const cf_filter *f);

/* Is f a list (a growing filter's start, CF_GEOM_LIST)? */
bool		cf_is_list(const cf_filter *f);


/*
 * The table encoding of f's sub-filters: CF_ENC_PACKED, CF_ENC_SEMISORT, or
 * CF_ENC_MIXED when they have both (a union of filters of both).
 */
int			cf_encoding_of(const cf_filter *f);
/* Is enc a table encoding cf_params can ask for (CF_ENC_PACKED or CF_ENC_SEMISORT)? */
bool		cf_encoding_valid(int enc);

/* ---- text form: strict base64 of the bytes ---- */
size_t		cf_base64_len(size_t nbytes);                 /* chars, without NUL */
void		cf_base64_encode(const uint8_t *src, size_t n, char *dst);  /* writes NUL */
/* Decoded size of a valid text of len chars, or SIZE_MAX if len is not valid. */
size_t		cf_base64_decoded_len(const char *src, size_t len);
/* Decodes; returns bytes written or SIZE_MAX (with err) on a bad character / padding. */
size_t		cf_base64_decode(const char *src, size_t len, uint8_t *dst, char *err, size_t errlen);

/* ---- values: their canonical forms and hashes (cuckoo_canon.c, docs/hashing.md) ---- */
/* dates and timestamps as PostgreSQL counts them: from 2000-01-01 */
#define CF_USECS_PER_DAY    INT64_C(86400000000)
#define CF_DATE_NOBEGIN     INT32_MIN                       /* date '-infinity' */
#define CF_DATE_NOEND       INT32_MAX                       /* date 'infinity' */
#define CF_TIMESTAMP_MIN    INT64_C(-211813488000000000)    /* 4714-11-24 BC */
#define CF_TIMESTAMP_END    INT64_C(9223371331200000000)    /* 294277-01-01, excluded */
/* the most alternates cf_number_alternates gives */
#define CF_NUMBER_ALTERNATES_MAX 4097

/* integers (int2/4/8, numeric integers in int64's range): cf_hash_int64 */
/* a float8's IEEE bits, -0 as 0, every NaN as one NaN (value hashing 1's floats) */
uint64_t	cf_hash_float8(double v);
/* a number as a float8 (float4, float8, other numerics) under value hashing hashing */
uint64_t	cf_hash_number(double v, int hashing);
/* integer v beyond +-2^53 (hashing 2): *h = the hash of the float8 it rounds to */
bool		cf_int64_alternate(int64_t v, int hashing, uint64_t *h);
/* float8 v an integer of magnitude 2^53 .. 2^63 (hashing 2): the int64s that round to it */
size_t		cf_number_alternates(double v, int hashing, uint64_t *out);
/* text of len bytes: its length without trailing blanks */
size_t		cf_text_trim(const char *p, size_t len);
/* text in UTF-8 (value hashing 2: strip_blanks; char(n): always) */
uint64_t	cf_hash_text(const char *utf8, size_t len, bool strip_blanks);
/* bytea: cf_hash_bytes of its bytes */
/* a boolean (0 or 1) or a "char" */
uint64_t	cf_hash_byte(uint8_t b);
/* a uuid's 16 bytes */
uint64_t	cf_hash_uuid(const uint8_t *u);
/* a date: days since 2000-01-01 */
uint64_t	cf_hash_date(int32_t day, int hashing);
/* a timestamp (wall clock) or timestamptz (UTC): microseconds since 2000-01-01 */
uint64_t	cf_hash_timestamp(int64_t usecs);
/* a value kind's name ("number", ..., "any"), or NULL */
const char *cf_kind_name(uint32_t kind);
/* can a filter of kind fkind take values of kind vkind (same, or 1.1's datetime)? */
bool		cf_kind_accepts(uint32_t fkind, uint32_t vkind);
/* is a value of kind vkind refused by a filter of kind fkind and value hashing fhashing? */
bool		cf_kind_mismatch(uint32_t fkind, uint32_t fhashing, uint32_t vkind);

/* ---- filters the library owns (cuckoo_handle.c): malloc'd, growing as needed ---- */
/* A new empty filter for p; NULL with err set if p is bad (or out of memory). */
cf_filter  *cf_filter_new(const cf_params *p, char *err, size_t errlen);
/* A filter of a copy of buf, fully validated (cf_validate); NULL with err set. */
cf_filter  *cf_filter_from_bytes(const uint8_t *buf, size_t len, char *err, size_t errlen);
cf_filter  *cf_filter_copy(const cf_filter *f);
void		cf_filter_free(cf_filter *f);
/* The filter's bytes (valid until the next write). */
const uint8_t *cf_filter_bytes(const cf_filter *f, size_t *len);
/*
 * Adds h, growing when full (a version-1 filter is first rewritten as
 * version 2); unique: only if not reported present.  Then records kind in
 * a filter that has none (value hashing 2), as the extension's cf_add does.
 */
cf_status	cf_filter_insert(cf_filter *f, uint64_t h, bool unique, uint32_t kind);
/* cf_delete, a version-1 filter first rewritten as version 2. */
cf_status	cf_filter_remove(cf_filter *f, uint64_t h);
/* A new filter, the union of a and b (cf_union); NULL with err set. */
cf_filter  *cf_filter_union(const cf_filter *a, const cf_filter *b, char *err, size_t errlen);
/* header fields */
uint32_t	cf_filter_kind(const cf_filter *f);
uint32_t	cf_filter_hashing(const cf_filter *f);
void		cf_filter_set_kind(cf_filter *f, uint32_t kind);
/*
 * What the extension's cf_agg(value, fpr [, capacity]) builds from the
 * sorted distinct hashes h[0 .. n) (capacity 0: sized to n), with value
 * kind kind: the same bytes.  NULL with err set if it cannot be built.
 */
cf_filter  *cf_filter_build(const uint64_t *h, size_t n, uint64_t capacity, double fpr,
							int encoding, uint32_t kind, char *err, size_t errlen);
/* The capacities cf_agg tries for n distinct hashes (capacity 0: its own two); how many. */
int			cf_agg_capacities(uint64_t n, uint64_t capacity, uint64_t out[2]);

/* ---- integrity (issue 48): format version 3's check bytes, cf_verify (cuckoo_verify.c) ---- */
/*
 * Version 3 (cuckoo 1.5; FORMAT.md "Version 3") is version 2's layout with
 * two check bytes: header byte 11 (hcheck) and descriptor byte +15
 * (dcheck), CRC-8/AUTOSAR of the fields they cover.
 */
#define CF_V3_HCHECK        11      /* header byte: CRC-8 of bytes 0..10, 12..23 */
#define CF_V3_DCHECK        15      /* descriptor byte: CRC-8 of +0..+3, +8..+12 */
/* the first words of every message of damage a version-3 check finds */
#define CF_CORRUPT_PREFIX   "cuckoo filter is corrupt: "
/* does err (a core message) report damage (CF_CORRUPT_PREFIX)? */
bool		cf_err_is_corrupt(const char *err);
/* CRC-8/AUTOSAR (poly 0x2F, init 0xFF, xorout 0xFF) of n bytes */
uint8_t		cf_crc8(const uint8_t *p, size_t n);

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

#endif							/* CUCKOO_H */
