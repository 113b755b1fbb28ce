/*
 * cuckoo_layout.h - the byte layout and engine state every core file
 * shares, all inline: the header and descriptor field offsets, the lookup
 * engine's state of a sub-filter, little-endian helpers, table windows.
 */
#ifndef CUCKOO_LAYOUT_H
#define CUCKOO_LAYOUT_H

#include "cuckoo_view.h"
#include "cuckoo_util.h"

#include <stddef.h>
#include <string.h>

/*
 * Design load factor per bucket size, in thousandths: a sub-filter for
 * capacity c gets ceil(c / (bucket_size * load)) buckets.  Chosen below the
 * load that insertion (random walk with one-step lookahead, 500 kicks)
 * reaches reliably: about 87-89%, 97-98% and 99.5% (test/core measures
 * it), so a filter filled to its capacity does not need to grow.
 */
static inline uint32_t
design_load_permille(uint32_t bucket_size)
{
	switch (bucket_size)
	{
		case 2:
			return 850;
		case 4:
			return 955;
		default:
			return 980;
	}
}

/* ---------------------------------------------------------------------
 * the engine state of a sub-filter (cf_stage.engine, which the public
 * header leaves opaque): the lookup engine's, derived from its descriptor
 * by cfi_stage_setup and cfi_setup_lookup, and its geometry's operations,
 * chosen by cfi_open; read through ENG(st)
 * ------------------------------------------------------------------- */
typedef struct
#if defined(__GNUC__)
__attribute__((may_alias))
#endif
cf_engine
{
	uint32_t    lowmask;        /* chain: (1 << level) - 1 */
	uint32_t    fp_shift;       /* chain: 32 - fpbits (fp = g' >> fp_shift) */
	uint32_t    base_shift;     /* chain: 32 - basebits */
	uint32_t    key_shift;      /* chain: fpbits - basebits (fp0 = fp >> key_shift) */
	uint32_t    mask_shift;     /* chain: key_shift - level */
	bool        swar;           /* one 64-bit load reads a whole bucket */
	bool        rekey;          /* chain: first of a run of one family in lookup
								 * order (newest first): computes what the run
								 * shares (g, H(fp0), the primary bucket) */
	uint32_t    run_level;      /* chain, rekey: the highest level of its run */
	uint32_t    drop;           /* chain: run_level - level (primary bucket =
								 * the run's top-level one >> drop) */
	uint32_t    bucket_bytes;   /* swar, whole-byte buckets: bytes a bucket
								 * takes; 0 otherwise */
	uint32_t    word_shift;     /* with bucket_bytes: 64 - bucket_bits */
	const uint8_t *word_base;   /* with bucket_bytes: table + bucket_bytes - 8 */
	uint64_t    lanes_lo;       /* 1 in the low bit of every slot */
	uint64_t    lanes_hi;       /* 1 in the high bit of every slot */
	uint64_t    bucket_mask;    /* low bucket_bits bits */
	const struct cfi_geometry *ops;	/* the sub-filter's geometry (cuckoo_geom_iface.h),
									 * chosen when its filter is opened */
	const struct cfi_lookup_path *path;	/* sub-filter 0: its filter's lookup path
										 * (cuckoo_geom_iface.h), chosen at open */
	const struct cfi_registry *geoms;	/* sub-filter 0: the registry its filter
										 * was opened with (cfi_reopen) */
} cf_engine;

/* the engine state fits cf_stage.engine (a negative array size if not) */
typedef char cf_engine_fits[sizeof(cf_engine) <= sizeof(((cf_stage *) 0)->engine) ? 1 : -1];

#define ENG(st)		((cf_engine *) (st)->engine)

/* ---------------------------------------------------------------------
 * byte offsets of the header fields (FORMAT.md "Header"; version 1 uses
 * the same offsets for the fields it has) and of a version-2 sub-filter
 * descriptor's fields ("Table descriptor"): every reader and writer of the
 * core names them here
 * ------------------------------------------------------------------- */
#define HDR_MAGIC			0
#define HDR_VERSION			1
#define HDR_FLAGS			2
#define HDR_BUCKET_SIZE		3
#define HDR_FPBITS			4
#define HDR_NSTAGES			5
#define HDR_EXPANSION		6
#define HDR_HASHING			7		/* version 1: reserved */
#define HDR_MAX_KICKS		8		/* 2 bytes */
#define HDR_KIND			10		/* version 1: reserved (2 bytes with 11) */
#define HDR_RESERVED		11
#define HDR_CAPACITY		12		/* 4 bytes */
#define HDR_TARGET_FPR		16		/* 8 bytes, version 2 on */
#define HDR_DELETES			24		/* 8 bytes */
#define HDR_RETAINED		32		/* 8 bytes */

#define DESC_NBUCKETS		0		/* 4 bytes */
#define DESC_NITEMS			4		/* 4 bytes */
#define DESC_FPBITS			8
#define DESC_GEOM			9		/* version 1: reserved */
#define DESC_LEVEL			10		/* version 1: reserved */
#define DESC_BASEBITS		11		/* version 1: reserved */
#define DESC_ENC			12
#define DESC_NSTASH			13		/* 2 bytes; else reserved */
#define DESC_RESERVED		15

/* ---------------------------------------------------------------------
 * little-endian helpers: every multi-byte field and table word goes through
 * these, so the bytes are the same on every platform
 * ------------------------------------------------------------------- */

static inline uint16_t
get_le16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline void
put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static inline uint64_t
get_le64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void
put_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* Reads 64 bits from byte off of a table, with zeros past its end. */
static inline uint64_t
load_window(const uint8_t *t, size_t tbytes, size_t off)
{
	uint64_t	v = 0;

	if (off + 8 <= tbytes)
		return get_le64(t + off);
	for (size_t k = 0; off + k < tbytes; k++)
		v |= (uint64_t) t[off + k] << (8 * k);
	return v;
}

/* Writes back a 64-bit window, never past the table's end. */
static inline void
store_window(uint8_t *t, size_t tbytes, size_t off, uint64_t v)
{
	if (off + 8 <= tbytes)
	{
		put_le64(t + off, v);
		return;
	}
	for (size_t k = 0; off + k < tbytes; k++)
		t[off + k] = (uint8_t) (v >> (8 * k));
}

/* lets the caller cancel a long loop (every 64K slots or so) */
static inline void
check_interrupts(uint64_t counter)
{
	if ((counter & 0xFFFF) == 0 && cf_interrupt_hook)
		cf_interrupt_hook();
}

static inline uint32_t
mix32(uint32_t x)
{
	return cf_mix32(x);
}

/* counter-based generator: the k-th draw of an insertion seeded with seed */
static inline uint64_t
draw(uint64_t seed, uint64_t k)
{
	uint64_t	z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline void
stage_set_nitems(cf_stage *st, uint32_t n)
{
	if (st->journal)
		st->journal->save(st->journal, st->desc + DESC_NITEMS, 4);
	st->nitems = n;
	put_le32(st->desc + DESC_NITEMS, n);
}

/* ---------------------------------------------------------------------
 * layout and parameters
 * ------------------------------------------------------------------- */

/* bytes a sub-filter's data takes: its table, then (split) its stash records */
static inline size_t
stage_data_bytes(const cf_stage *st)
{
	return st->table_bytes + (size_t) st->nstash * CF_SPLIT_STASH_REC;
}

/* 0 (fixed size) or a power of two up to CF_MAX_EXPANSION */
static inline bool
expansion_valid(uint32_t e)
{
	return e <= CF_MAX_EXPANSION && (e & (e - 1)) == 0;
}

/* the most slots a bucket has (cf_params.bucket_size: 2, 4 or 8) */
#define CFI_MAX_BUCKET		8

#endif							/* CUCKOO_LAYOUT_H */
