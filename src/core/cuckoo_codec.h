/*
 * cuckoo_codec.h - the one interface to a table's encoding (FORMAT.md,
 * "Table data"): slot and bucket access, inline, handed to the encoding's
 * codec (cuckoo_codec_packed.h, cuckoo_codec_semi.h), and each encoding's
 * table of what is not inline (cf_codec, cuckoo_codec.c), found by the
 * descriptor's encoding byte when a filter is opened.  No other file of the
 * core tests an encoding: every geometry, the kick-out walk, the build and
 * the lookups read and write both through these.
 */
#ifndef CUCKOO_CODEC_H
#define CUCKOO_CODEC_H

#include "cuckoo_codec_packed.h"
#include "cuckoo_codec_semi.h"

/* what an encoding gives beyond its inline slot access */
typedef struct cf_codec
{
	const char *name;			/* as FORMAT.md and the errors name it: bit-packed, semi-sorted */
	uint32_t	enc;			/* CF_ENC_*: the descriptor's encoding byte */
	uint32_t	bucket_size;	/* the one bucket size it takes (0: any) */
	/* derived fields of st (cfi_stage_setup, after the bit-packed ones) */
	void		(*setup) (cf_stage *st, uint32_t bucket_size);
	/*
	 * cf_validate's scan of table k: every bucket as the codec writes it,
	 * each entry with one of the bits 'markers' set; adds the entries to
	 * *n; false, err set, if not
	 */
	bool		(*scan) (const cf_stage *st, uint32_t bucket_size, uint32_t k, uint32_t markers,
						 uint64_t *n, char *err, size_t errlen);
} cf_codec;

/* the codec of encoding byte enc, or NULL if this version reads no such encoding */
const cf_codec *cfi_codec_of(int enc);

/* is st semi-sorted (cf_stats.semisorted, cf_encoding_of) */
static inline bool
codec_is_semisorted(const cf_stage *st)
{
	return st->enc == CF_ENC_SEMISORT;
}

/* bytes of a table of nbuckets buckets in encoding enc */
static inline uint64_t
table_bytes_for(uint64_t nbuckets, uint32_t bucket_size, uint32_t fpbits, uint32_t enc)
{
	if (enc == CF_ENC_SEMISORT)
		return semi_table_bytes(nbuckets, fpbits);
	return packed_table_bytes(nbuckets, bucket_size, fpbits);
}

/* ---------------------------------------------------------------------
 * slots and buckets: one test of the encoding, then its codec
 * ------------------------------------------------------------------- */

static inline uint32_t
slot_get(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s)
{
	if (st->enc != CF_ENC_PACKED)
		return semi_slot_get(st, i, s);
	return packed_slot_get(st, bucket_size, i, s);
}

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
		v[s] = packed_slot_get(st, bucket_size, i, s);
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

static inline void
slot_set(cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
		semi_slot_set(st, i, s, fp);
	else
		packed_slot_set(st, bucket_size, i, s, fp);
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
		packed_slot_set(st, bucket_size, i, s, repl);
}

/* Does bucket i hold fp? */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
bucket_has(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
		return semi_has(st, i, fp);
	return packed_bucket_has(st, bucket_size, i, fp);
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
	if (st->enc != CF_ENC_PACKED)
		return semi_fill(st, i, fp);
	return packed_bucket_fill(st, bucket_size, i, fp);
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
	return packed_bucket_remove(st, bucket_size, i, fp);
}

static inline uint32_t
bucket_count(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t fp)
{
	if (st->enc != CF_ENC_PACKED)
		return semi_count(st, i, fp);
	return packed_bucket_count(st, bucket_size, i, fp);
}

#endif							/* CUCKOO_CODEC_H */
