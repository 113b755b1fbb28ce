/*
 * cuckoo_codec_packed.h - the bit-packed codec (table encoding 0, FORMAT.md
 * "Table data"): slot s of bucket i at bit (i * b + s) * w, all inline;
 * where one 64-bit load reads a whole bucket, its slots are compared at
 * once (SWAR lanes, set up by cfi_stage_setup).
 */
#ifndef CUCKOO_CODEC_PACKED_H
#define CUCKOO_CODEC_PACKED_H

#include "cuckoo_layout.h"

static inline uint32_t
packed_slot_get(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s)
{
	uint64_t	bit = ((uint64_t) i * bucket_size + s) * st->fpbits;

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

/* Writes fp into the slot that starts at bit of the table. */
static inline void
packed_slot_write(cf_stage *st, uint64_t bit, uint32_t fp)
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
packed_slot_set(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s, uint32_t fp)
{
	packed_slot_write(st, ((uint64_t) i * bucket_size + s) * st->fpbits, fp);
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
 * Does bucket i hold fp?  When one 64-bit load covers the bucket, all its
 * slots are compared at once: x has a zero lane exactly where a slot equals
 * fp, and (x - lo) & ~x & hi is non-zero iff some lane of x is zero.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
packed_bucket_has(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	if (ENG(st)->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	w = load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7);
		uint64_t	x = (w & ENG(st)->bucket_mask) ^ (fp * ENG(st)->lanes_lo);

		return ((x - ENG(st)->lanes_lo) & ~x & ENG(st)->lanes_hi) != 0;
	}
	for (uint32_t s = 0; s < bucket_size; s++)
		if (packed_slot_get(st, bucket_size, i, s) == fp)
			return true;
	return false;
}

/*
 * Bucket i of a swar stage as a 64-bit word, its first slot at bit 0 (the
 * bits above it belong to the next bucket).  The load ends with the
 * bucket's last byte instead of starting with its first, so it never reads
 * past the table's end and needs no bounds test: what it reads before the
 * table belongs to the header or an earlier table, which always precede it
 * in the buffer.  bucket_word_bits: the stage's bucket_bits given (a
 * constant in a lookup path specialized for its width).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
bucket_word_bits(const cf_stage *st, uint32_t i, const uint32_t bucket_bits)
{
	uint64_t	bit = (uint64_t) i * bucket_bits;
	uint64_t	end = (bit + bucket_bits + 7) >> 3;

	return get_le64(st->table + (ptrdiff_t) end - 8) >> (bit + 64 - (end << 3));
}

/* the same, the bucket's bits read from the stage (bucket_word_bits: a constant) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
bucket_word(const cf_stage *st, uint32_t i)
{
	return bucket_word_bits(st, i, st->bucket_bits);
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

/*
 * Puts fp into the first free slot of bucket i.  Returns 1 if the bucket
 * still has room after it, 0 if that filled it, -1 if it was full.
 */
static inline int
packed_bucket_fill(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	int			nfree = 0,
				first = -1;

#if defined(__GNUC__)
	if (ENG(st)->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	x = (load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7)) &
			ENG(st)->bucket_mask;
		uint64_t	z = swar_empty_lanes(st, x);

		if (z == 0)
			return -1;
		packed_slot_write(st, bit + (uint32_t) __builtin_ctzll(z) - (st->fpbits - 1), fp);
		return (z & (z - 1)) != 0;
	}
#endif
	for (uint32_t s = 0; s < bucket_size; s++)
		if (packed_slot_get(st, bucket_size, i, s) == 0)
		{
			if (first < 0)
				first = (int) s;
			nfree++;
		}
	if (first < 0)
		return -1;
	packed_slot_set(st, bucket_size, i, (uint32_t) first, fp);
	return nfree > 1;
}

/* Clears one slot of bucket i holding fp; false if there is none. */
static inline bool
packed_bucket_remove(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	for (uint32_t s = 0; s < bucket_size; s++)
	{
		if (packed_slot_get(st, bucket_size, i, s) == fp)
		{
			packed_slot_set(st, bucket_size, i, s, 0);
			return true;
		}
	}
	return false;
}

static inline uint32_t
packed_bucket_count(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	uint32_t	n = 0;

	for (uint32_t s = 0; s < bucket_size; s++)
		n += packed_slot_get(st, bucket_size, i, s) == fp;
	return n;
}

/* bytes of a table of nbuckets buckets of bucket_size slots of width fpbits */
static inline uint64_t
packed_table_bytes(uint64_t nbuckets, uint32_t bucket_size, uint32_t fpbits)
{
	return (nbuckets * bucket_size * fpbits + 7) / 8;
}

#endif							/* CUCKOO_CODEC_PACKED_H */
