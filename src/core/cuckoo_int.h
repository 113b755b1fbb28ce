/*
 * cuckoo_int.h - the core's internals that cuckoo.h's readers do not need:
 * the byte format's constants (header and descriptor sizes, limits, the
 * split table's and the list's constants), the sizing functions cf_create
 * uses, the one hash written out for callers' loops (cf_hash_int64_inline)
 * and the filter's lookup inlined into a caller's loop (cf_probe).  Not
 * installed: the core, the PostgreSQL glue, the Python module (built from
 * these sources), the tests and the benchmarks include it; cuckoo_view.h
 * includes it.  Nothing declared here is exported by libcuckoo.
 */
#ifndef CUCKOO_INT_H
#define CUCKOO_INT_H

#include "cuckoo.h"

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
/* largest payload: it must fit a PostgreSQL varlena (1 GB less its header) */
#define CF_MAX_SIZE         ((size_t) 0x3FFFFFFF - 4)

/*
 * LEGACY: how version 1 maps a 64-bit hash to a fingerprint and a bucket
 * pair (FORMAT.md, "Hashing"); read, never asked for (cf_params.geometry:
 * cuckoo.h has the geometries a caller asks for).
 */
#define CF_GEOM_LEGACY      1

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

/* seed of the one XXH3 hash computed per value; never change it */
#define CF_HASH_SEED        UINT64_C(0x6375636b6f6f2131)   /* "cuckoo!1" */

/* ---- sizing (cuckoo_format.c) ---- */
/* Fingerprint width cf_create uses for (fpr, bucket_size); 0 if none fits. */
int			cf_fpbits_for(double fpr, int bucket_size);
/*
 * Slot width of a split table at a level for (fpr, bucket_size): the
 * family's schedule, a pure function of both (0 if none fits in 32 bits).
 */
uint32_t	cf_split_width(double fpr, uint32_t bucket_size, uint32_t level);
/* Buckets for a sub-filter that must hold capacity items at design load. */
uint64_t	cf_nbuckets_for(uint64_t capacity, int bucket_size);

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

/* ---- format version 3's check bytes (cuckoo_check.c; issue 48) ---- */
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

#endif							/* CUCKOO_INT_H */
