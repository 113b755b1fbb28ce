/*
 * cuckoo_codec_semi.h - the semi-sorted codec (table encoding 1, FORMAT.md
 * "Semi-sorted buckets"): a bucket of four values in 4w - 4 bits, read and
 * written whole, all inline; cuckoo_codec.h hands such a table to it.
 */
#ifndef CUCKOO_CODEC_SEMI_H
#define CUCKOO_CODEC_SEMI_H

#include "cuckoo_layout.h"
#include "cuckoo_semisort.h"

/*
 * Read and written a whole bucket at a time, through the multiset tables
 * of cuckoo_semisort.h.  Slot s of a semi-sorted bucket is its s-th
 * smallest value (empty slots first), and writing a slot sorts the bucket
 * again.
 */

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

static inline uint32_t
semi_slot_get(const cf_stage *st, uint32_t i, uint32_t s)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	return v[s];
}

static inline void
semi_slot_set(cf_stage *st, uint32_t i, uint32_t s, uint32_t fp)
{
	uint32_t	v[4];

	semi_read(st, i, v);
	v[s] = fp;
	semi_write(st, i, v);
}

/* bytes of a table of nbuckets buckets of width fpbits */
static inline uint64_t
semi_table_bytes(uint64_t nbuckets, uint32_t fpbits)
{
	return (nbuckets * cf_semi_bucket_bits(fpbits) + 7) / 8;
}

#endif							/* CUCKOO_CODEC_SEMI_H */
