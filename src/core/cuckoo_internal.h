/*
 * cuckoo_internal.h - what the core's files share and no caller sees, all
 * inline: little-endian helpers, hash to buckets and fingerprint, slots.
 */
#ifndef CUCKOO_INTERNAL_H
#define CUCKOO_INTERNAL_H

#include "cuckoo.h"
#include "cuckoo_semisort.h"
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
	const struct cf_geom_ops *ops;	/* the sub-filter's geometry (cuckoo_geom_ops.h),
									 * chosen when its filter is opened */
	const struct cfi_lookup_path *path;	/* sub-filter 0: its filter's lookup path
										 * (cuckoo_geom_ops.h), chosen at open */
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

/*
 * A sub-filter maps the value's hash h to a fingerprint and a bucket pair
 * in one of two ways (FORMAT.md, "Hashing").
 *
 * LEGACY (format version 1): fp = ((h mod 2^32) * fpmax) div 2^32 + 1,
 * alt(i, fp) = (H(fp) - i) mod m.  Each size and width is unrelated to the
 * others, so a match in one sub-filter says nothing about another.
 *
 * CHAIN (format version 2): a family of tables of m0 << L buckets (level L)
 * and widths w >= f0 + L.  The fingerprint is the top w bits of g, the low
 * 32 bits of h with its top f0 bits made non-zero, so a narrower
 * fingerprint is the wider one shifted right.  The bucket pair refines:
 *   alt(i, fp) = (alt0(i >> L, fp0) << L) | ((i ^ fp >> (w - f0 - L)) & (2^L - 1))
 *   alt0(j, fp0) = (H(fp0) - j) mod m0,  fp0 = fp >> (w - f0)
 * is its own inverse, and dropping k low digits of a bucket and k low bits
 * of the fingerprint gives the pair and fingerprint at level L - k.  Two
 * values that collide in a table therefore collide in every table of the
 * family with a level and width no larger, which makes deletes exact.
 */

/* g: the low 32 bits of h, its top basebits made non-zero (never an empty slot) */
static inline uint32_t
chain_bits(const cf_stage *st, uint64_t h)
{
	uint32_t	g = (uint32_t) h;

	return g | ((uint32_t) ((g >> ENG(st)->base_shift) == 0) << ENG(st)->base_shift);
}

/* fingerprint in 1 .. fpmax */
static inline uint32_t
fingerprint(const cf_stage *st, uint64_t h)
{
	if (st->geom == CF_GEOM_CHAIN)
		return (uint32_t) ((uint64_t) chain_bits(st, h) >> ENG(st)->fp_shift);
	return (uint32_t) (((h & 0xFFFFFFFFu) * (uint64_t) st->fpmax) >> 32) + 1;
}

/* primary bucket from the high 32 bits of h (nested for every level) */
static inline uint32_t
primary_bucket(const cf_stage *st, uint64_t h)
{
	return (uint32_t) (((h >> 32) * (uint64_t) st->nbuckets) >> 32);
}

/* (H(key) - i) mod m with H(key) = mix32(key) scaled to m: its own inverse */
static inline uint32_t
reflect(uint32_t i, uint32_t key, uint32_t m)
{
	uint32_t	hm = (uint32_t) (((uint64_t) mix32(key) * m) >> 32);

	return hm >= i ? hm - i : hm + m - i;
}

/* the other bucket of fp */
static inline uint32_t
alt_bucket(const cf_stage *st, uint32_t i, uint32_t fp)
{
	uint32_t	a0;

	if (st->geom != CF_GEOM_CHAIN)
		return reflect(i, fp, st->nbuckets);
	a0 = reflect(i >> st->level, fp >> ENG(st)->key_shift, st->base_nbuckets);
	return (a0 << st->level) | ((i ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask);
}

/* ---------------------------------------------------------------------
 * semi-sorted tables (encoding 1)
 *
 * Read and written a whole bucket at a time, through the codec of
 * cuckoo_semisort.h.  The slot and bucket accessors below (slot_get,
 * slot_set, bucket_has, bucket_fill, bucket_remove, bucket_count) start
 * with one test of st->enc and hand such a table to these, so every
 * operation built on them (adds, walks, lookups, counts, deletes, union,
 * the build's later rounds) reads and writes both encodings.  Slot s of a
 * semi-sorted bucket is its s-th smallest value (empty slots first), and
 * writing a slot sorts the bucket again.
 * ------------------------------------------------------------------- */

/* bits [bit, bit + n) of table t, 1 <= n <= 64, zeros past its end */
static inline uint64_t
get_bits(const uint8_t *t, size_t tbytes, uint64_t bit, uint32_t n)
{
	size_t		off = bit >> 3;
	unsigned	sh = bit & 7;
	uint64_t	x = load_window(t, tbytes, off) >> sh;

	if (sh + n > 64)
		x |= load_window(t, tbytes, off + 8) << (64 - sh);
	return n >= 64 ? x : x & ((UINT64_C(1) << n) - 1);
}

/* sets bits [bit, bit + n) of table t to v, 1 <= n <= 64 */
static inline void
put_bits(uint8_t *t, size_t tbytes, uint64_t bit, uint32_t n, uint64_t v)
{
	size_t		off = bit >> 3;
	unsigned	sh = bit & 7;
	uint64_t	mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
	uint64_t	w = load_window(t, tbytes, off);

	v &= mask;
	store_window(t, tbytes, off, (w & ~(mask << sh)) | (v << sh));
	if (sh + n > 64)
	{
		w = load_window(t, tbytes, off + 8);
		store_window(t, tbytes, off + 8, (w & ~(mask >> (64 - sh))) | (v >> (64 - sh)));
	}
}

/* the bits of bucket i: the first 64 in *lo, the rest (w > 17) in *hi */
static inline void
semi_load(const cf_stage *st, uint32_t i, uint64_t *lo, uint64_t *hi)
{
	uint64_t	bit = (uint64_t) i * st->bucket_bits;

	if (st->bucket_bits <= 64)
	{
		*lo = get_bits(st->table, st->table_bytes, bit, st->bucket_bits);
		*hi = 0;
		return;
	}
	*lo = get_bits(st->table, st->table_bytes, bit, 64);
	*hi = get_bits(st->table, st->table_bytes, bit + 64, st->bucket_bits - 64);
}

/* the values of bucket i, ascending */
static inline void
semi_read(const cf_stage *st, uint32_t i, uint32_t v[4])
{
	uint64_t	lo,
				hi;

	semi_load(st, i, &lo, &hi);
	cf_semi_unpack(lo, hi, st->fpbits, v);
}

/* writes the values v (any order) as bucket i, through the journal */
static inline void
semi_write(cf_stage *st, uint32_t i, const uint32_t v[4])
{
	uint64_t	bit = (uint64_t) i * st->bucket_bits;
	uint64_t	lo,
				hi;

	cf_semi_pack(v, st->fpbits, &lo, &hi);
	if (st->journal)
	{
		size_t		off = bit >> 3;
		size_t		end = (size_t) ((bit + st->bucket_bits + 7) >> 3);

		st->journal->save(st->journal, st->table + off,
						  (end < st->table_bytes ? end : st->table_bytes) - off);
	}
	if (st->bucket_bits <= 64)
		put_bits(st->table, st->table_bytes, bit, st->bucket_bits, lo);
	else
	{
		put_bits(st->table, st->table_bytes, bit, 64, lo);
		put_bits(st->table, st->table_bytes, bit + 64, st->bucket_bits - 64, hi);
	}
}

/*
 * The lookup paths' view of a semi-sorted table of width w <= 16 (buckets
 * of at most 60 bits, each starting at an even nibble): bucket i as one
 * word, from the load that ends with its last byte (what that load reads
 * before the table is the header or an earlier table, as bucket_word).
 */
#define SEMI_WORD_MAX_W		16
#define SEMI_LANES_LO		UINT64_C(0x0001000100010001)
#define SEMI_LANES_HI		UINT64_C(0x8000800080008000)

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
semi_word(const cf_stage *st, uint32_t i)
{
	uint64_t	bit = (uint64_t) i * st->bucket_bits;
	uint64_t	end = (bit + st->bucket_bits + 7) >> 3;

	return (get_le64(st->table + (ptrdiff_t) end - 8) >> (bit + 64 - (end << 3))) &
		ENG(st)->bucket_mask;
}

/*
 * Does bucket word x (width lw + 4, lw low bits) hold fp?  Non-zero iff it
 * does.  Its four values are rebuilt in 16-bit lanes (the multiset's
 * nibbles over the low parts) and compared at once: fpl = fp *
 * SEMI_LANES_LO, fp never 0.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
semi_word_has(uint64_t x, uint32_t lw, uint64_t fpl)
{
	uint64_t	y = x >> CF_SEMI_INDEX_BITS;
	uint64_t	m = (UINT64_C(1) << lw) - 1;
	uint64_t	v;

	v = (cf_semi_lanes[x & ((1u << CF_SEMI_INDEX_BITS) - 1)] >> (12 - lw)) |
		(y & m) | ((y << (16 - lw)) & (m << 16)) |
		((y << (32 - 2 * lw)) & (m << 32)) | ((y << (48 - 3 * lw)) & (m << 48));
	v ^= fpl;
	return (v - SEMI_LANES_LO) & ~v & SEMI_LANES_HI;
}

static inline bool
semi_has(const cf_stage *st, uint32_t i, uint32_t fp)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	return (v[0] == fp) | (v[1] == fp) | (v[2] == fp) | (v[3] == fp);
}

/* as bucket_fill: 1 room left after it, 0 that filled it, -1 it was full */
static inline int
semi_fill(cf_stage *st, uint32_t i, uint32_t fp)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	if (v[0] != 0)
		return -1;
	v[0] = fp;
	semi_write(st, i, v);
	return v[1] == 0;
}

/* replaces one value old of bucket i by repl (0 removes); false if none */
static inline bool
semi_replace(cf_stage *st, uint32_t i, uint32_t old, uint32_t repl)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	for (uint32_t s = 0; s < 4; s++)
		if (v[s] == old)
		{
			v[s] = repl;
			semi_write(st, i, v);
			return true;
		}
	return false;
}

static inline uint32_t
semi_count(const cf_stage *st, uint32_t i, uint32_t fp)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	return (uint32_t) (v[0] == fp) + (v[1] == fp) + (v[2] == fp) + (v[3] == fp);
}

/* ---------------------------------------------------------------------
 * slots and buckets
 * ------------------------------------------------------------------- */

static inline uint32_t
slot_get(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s)
{
	uint64_t	bit = ((uint64_t) i * bucket_size + s) * st->fpbits;

	if (st->enc != CF_ENC_PACKED)
	{
		uint32_t	v[4];

		semi_read(st, i, v);
		return v[s];
	}
	switch (st->fpbits)
	{
		case 8:
			return st->table[bit >> 3];
		case 16:
			return get_le16(st->table + (bit >> 3));
		case 32:
			return get_le32(st->table + (bit >> 3));
		default:
			return (uint32_t) (load_window(st->table, st->table_bytes, bit >> 3)
							   >> (bit & 7)) & st->fpmax;
	}
}

/* the most slots a bucket has (cf_params.bucket_size: 2, 4 or 8) */
#define CFI_MAX_BUCKET		8

/* the values of bucket i, slot by slot (bucket_size <= CFI_MAX_BUCKET of them) */
static inline void
bucket_read(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t *v)
{
	if (st->enc != CF_ENC_PACKED)
	{
		semi_read(st, i, v);
		return;
	}
	for (uint32_t s = 0; s < bucket_size; s++)
		v[s] = slot_get(st, bucket_size, i, s);
}

/*
 * Does writing a slot reorder its bucket (a semi-sorted one keeps its
 * values sorted), so that a slot's position does not tell which value it
 * holds after a write?
 */
static inline bool
bucket_reorders(const cf_stage *st)
{
	return st->enc != CF_ENC_PACKED;
}

/* Writes fp into the slot that starts at bit of the table. */
static inline void
slot_write(cf_stage *st, uint64_t bit, uint32_t fp)
{
	size_t		off = bit >> 3;
	unsigned	shift = bit & 7;
	uint64_t	w;

	if (st->journal)
	{
		size_t		n = st->fpbits == 8 ? 1 : st->fpbits == 16 ? 2 : st->fpbits == 32 ? 4 : 8;

		if (n > st->table_bytes - off)
			n = st->table_bytes - off;
		st->journal->save(st->journal, st->table + off, n);
	}
	switch (st->fpbits)
	{
		case 8:
			st->table[off] = (uint8_t) fp;
			return;
		case 16:
			put_le16(st->table + off, (uint16_t) fp);
			return;
		case 32:
			put_le32(st->table + off, fp);
			return;
		default:
			w = load_window(st->table, st->table_bytes, off);
			w &= ~((uint64_t) st->fpmax << shift);
			w |= (uint64_t) fp << shift;
			store_window(st->table, st->table_bytes, off, w);
	}
}

static inline void
slot_set(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
	{
		uint32_t	v[4];

		semi_read(st, i, v);
		v[s] = fp;
		semi_write(st, i, v);
		return;
	}
	slot_write(st, ((uint64_t) i * bucket_size + s) * st->fpbits, fp);
}

/*
 * Replaces the value old of bucket i, in slot s, by repl: in a bucket that
 * reorders, one copy of old wherever it sits now.
 */
static inline void
bucket_replace(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s, uint32_t old,
			   uint32_t repl)
{
	if (st->enc != CF_ENC_PACKED)
		semi_replace(st, i, old, repl);
	else
		slot_set(st, bucket_size, i, s, repl);
}

/*
 * The top bit of every empty lane of bucket x (exact, unlike the borrow
 * trick below): a lane's low bits plus all ones carry into its top bit
 * unless they are all zero, and never out of the lane.
 */
static inline uint64_t
swar_empty_lanes(const cf_stage *st, uint64_t x)
{
	uint64_t	low = ~ENG(st)->lanes_hi & ENG(st)->bucket_mask;

	return ~(((x & low) + low) | x) & ENG(st)->lanes_hi;
}

/*
 * Split tables, a bucket in one word w: non-zero iff a lane matches ql (the
 * query times lanes_lo).  Lane-wise w - 1 (the top bit of each lane set
 * first so no borrow leaves it) gives each lane's marker-and-below mask; a
 * lane matches when nothing above its marker differs from the query and it
 * is not empty; then bad has a zero lane, which the borrow test detects
 * exactly (it may misplace which lane, never whether one is).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
split_word_match(const cf_stage *st, uint64_t w, uint64_t ql)
{
	uint64_t	lo = ENG(st)->lanes_lo,
				hi = ENG(st)->lanes_hi,
				m = ENG(st)->bucket_mask;
	uint64_t	x = w & m;
	uint64_t	below = x ^ (((x | hi) - lo) ^ (~x & hi));
	uint64_t	bad = ((x ^ ql) & ~below & m) | swar_empty_lanes(st, x);

	return (bad - lo) & ~bad & hi;
}

/*
 * Does bucket i hold fp?  When one 64-bit load covers the bucket, all its
 * slots are compared at once: x has a zero lane exactly where a slot equals
 * fp, and (x - lo) & ~x & hi is non-zero iff some lane of x is zero.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
bucket_has(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
		return semi_has(st, i, fp);
	if (ENG(st)->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	w = load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7);
		uint64_t	x = (w & ENG(st)->bucket_mask) ^ (fp * ENG(st)->lanes_lo);

		return ((x - ENG(st)->lanes_lo) & ~x & ENG(st)->lanes_hi) != 0;
	}
	for (uint32_t s = 0; s < bucket_size; s++)
		if (slot_get(st, bucket_size, i, s) == fp)
			return true;
	return false;
}

/*
 * Bucket i of a swar stage as a 64-bit word, its first slot at bit 0 (the
 * bits above it belong to the next bucket).  The load ends with the
 * bucket's last byte instead of starting with its first, so it never reads
 * past the table's end and needs no bounds test: what it reads before the
 * table belongs to the header or an earlier table, which always precede it
 * in the buffer.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
bucket_word(const cf_stage *st, uint32_t i)
{
	uint64_t	bit = (uint64_t) i * st->bucket_bits;
	uint64_t	end = (bit + st->bucket_bits + 7) >> 3;

	return get_le64(st->table + (ptrdiff_t) end - 8) >> (bit + 64 - (end << 3));
}

/*
 * The lookup paths' bucket_word: shorter where buckets take whole bytes
 * (even widths with bucket size 4, all with 8): the 8 bytes that end with
 * the bucket, shifted down by a per-table constant.  A branch every lookup
 * takes the same way.  stage_word_setup sets its constants (a geometry's
 * lookup, when the filter is opened).
 */
static inline void
stage_word_setup(cf_stage *st)
{
	ENG(st)->bucket_bytes = ENG(st)->swar && st->bucket_bits % 8 == 0 ? st->bucket_bits / 8 : 0;
	ENG(st)->word_shift = 64 - st->bucket_bits;
	/* before the table: the header or an earlier table (see bucket_word) */
	ENG(st)->word_base = ENG(st)->bucket_bytes ? st->table + (ptrdiff_t) ENG(st)->bucket_bytes - 8 : NULL;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
stage_word(const cf_stage *st, uint32_t i)
{
	if (ENG(st)->bucket_bytes)
		return get_le64(ENG(st)->word_base + (size_t) i * ENG(st)->bucket_bytes) >> ENG(st)->word_shift;
	return bucket_word(st, i);
}

/* non-zero iff a slot of bucket word w equals fp (fpl = fp * lanes_lo) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
bucket_match(const cf_stage *st, uint64_t w, uint64_t fpl)
{
	uint64_t	x = (w & ENG(st)->bucket_mask) ^ fpl;

	return (x - ENG(st)->lanes_lo) & ~x & ENG(st)->lanes_hi;
}

/* does a bucket of h's pair in st hold h's fingerprint fp, first bucket i1? */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
pair_has(const cf_stage *st, uint32_t bucket_size, uint32_t i1, uint32_t i2, uint32_t fp)
{
#if defined(__GNUC__)
	/* start loading the second bucket while the first is tested */
	__builtin_prefetch(st->table + (((uint64_t) i2 * st->bucket_bits) >> 3));
#endif
	return bucket_has(st, bucket_size, i1, fp) || bucket_has(st, bucket_size, i2, fp);
}


/*
 * Puts fp into the first free slot of bucket i.  Returns 1 if the bucket
 * still has room after it, 0 if that filled it, -1 if it was full.
 */
static inline int
bucket_fill(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	int			nfree = 0,
				first = -1;

	if (st->enc != CF_ENC_PACKED)
		return semi_fill(st, i, fp);
#if defined(__GNUC__)
	if (ENG(st)->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	x = (load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7)) &
			ENG(st)->bucket_mask;
		uint64_t	z = swar_empty_lanes(st, x);

		if (z == 0)
			return -1;
		slot_write(st, bit + (uint32_t) __builtin_ctzll(z) - (st->fpbits - 1), fp);
		return (z & (z - 1)) != 0;
	}
#endif
	for (uint32_t s = 0; s < bucket_size; s++)
		if (slot_get(st, bucket_size, i, s) == 0)
		{
			if (first < 0)
				first = (int) s;
			nfree++;
		}
	if (first < 0)
		return -1;
	slot_set(st, bucket_size, i, (uint32_t) first, fp);
	return nfree > 1;
}

/* Puts fp into a free slot of bucket i; false if the bucket is full. */
static inline bool
bucket_put(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	return bucket_fill(st, bucket_size, i, fp) >= 0;
}

/* Clears one slot of bucket i holding fp; false if there is none. */
static inline bool
bucket_remove(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
		return semi_replace(st, i, fp, 0);
	for (uint32_t s = 0; s < bucket_size; s++)
	{
		if (slot_get(st, bucket_size, i, s) == fp)
		{
			slot_set(st, bucket_size, i, s, 0);
			return true;
		}
	}
	return false;
}

static inline uint32_t
bucket_count(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	uint32_t	n = 0;

	if (st->enc != CF_ENC_PACKED)
		return semi_count(st, i, fp);
	for (uint32_t s = 0; s < bucket_size; s++)
		n += slot_get(st, bucket_size, i, s) == fp;
	return n;
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

/* bytes of a table of nbuckets buckets in encoding enc */
static inline uint64_t
table_bytes_for(uint64_t nbuckets, uint32_t bucket_size, uint32_t fpbits, uint32_t enc)
{
	if (enc == CF_ENC_SEMISORT)
		return (nbuckets * cf_semi_bucket_bits(fpbits) + 7) / 8;
	return (nbuckets * bucket_size * fpbits + 7) / 8;
}

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

/* ---------------------------------------------------------------------
 * lists (geometry 4, FORMAT.md "List sub-filters"): nbuckets slots of 8
 * bytes, the first nitems hashes non-decreasing, the rest zero
 * ------------------------------------------------------------------- */

/* is f a list (a list is always a filter's only sub-filter) */
static inline bool
filter_is_list(const cf_filter *f)
{
	return f->nstages == 1 && f->stages[0].geom == CF_GEOM_LIST;
}

static inline uint64_t
list_get(const cf_stage *st, uint32_t i)
{
	return get_le64(st->table + (size_t) i * 8);
}

/*
 * the first position whose hash is >= h (nitems if none): binary search
 * without a branch on the data (the answer lies in [base, base + n]; a
 * select, not a jump, narrows it), since a lookup's comparisons are coin
 * flips a branch predictor gets half wrong
 */
static inline uint32_t
list_lower(const cf_stage *st, uint64_t h)
{
	uint32_t	base = 0,
				n = st->nitems;

	if (n == 0)
		return 0;
	while (n > 1)
	{
		uint32_t	half = n / 2;

		base = list_get(st, base + half) < h ? base + half : base;
		n -= half;
	}
	return base + (list_get(st, base) < h);
}

static inline bool
list_has(const cf_stage *st, uint64_t h)
{
	uint32_t	i = list_lower(st, h);

	return i < st->nitems && list_get(st, i) == h;
}

#endif							/* CUCKOO_INTERNAL_H */
