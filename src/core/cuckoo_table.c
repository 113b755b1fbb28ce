/*
 * cuckoo_table.c - one table (sub-filter): setting up its view, and the
 * kick-out insertion that never loses an item.  Plain C99.
 */
#include "cuckoo_table.h"

/*
 * Inserts fingerprint fp with primary bucket i1 into one sub-filter.
 *
 * When both buckets are full, a random walk evicts a victim from a slot
 * drawn by a generator seeded from the item itself (deterministic), and
 * moves it to its other bucket, at most max_kicks times.  If the walk ends
 * without a free slot it is undone step by step: the draws are recomputed
 * from their index and alt_bucket is its own inverse, so walking back
 * restores every slot and no fingerprint is lost.  A semi-sorted bucket
 * sorts its values when written, so a slot's position does not tell which
 * value the walk put there: such a walk logs the values it placed (at most
 * SEMI_WALK_MAX steps) and the undo replaces each by its victim.
 */
#define SEMI_WALK_MAX	4096

bool
cfi_stage_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
			 uint32_t i1, uint32_t fp)
{
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint64_t	seed;
	uint32_t	i,
				carry,
				k;
	uint32_t	placed_log[SEMI_WALK_MAX];
	bool		semi = st->enc != CF_ENC_PACKED;

	if (bucket_put(st, bucket_size, i1, fp) || bucket_put(st, bucket_size, i2, fp))
	{
		stage_set_nitems(st, st->nitems + 1);
		return true;
	}
	if (max_kicks == 0)
		return false;
	if (semi && max_kicks > SEMI_WALK_MAX)
		max_kicks = SEMI_WALK_MAX;

	seed = ((uint64_t) fp << 32) | i1;
	i = (draw(seed, UINT32_MAX) & 1) ? i2 : i1;
	carry = fp;
	for (k = 0; k < max_kicks; k++)
	{
		uint32_t	s = (uint32_t) (draw(seed, k) >> 40) & (bucket_size - 1);
		uint32_t	victim;

		/*
		 * Look one step ahead first: if an occupant of this full bucket has
		 * room in its other bucket, move it there and take its slot.  This
		 * ends most walks early and lifts the load reachable with a bounded
		 * number of kicks.
		 */
		for (uint32_t t = 0; t < bucket_size; t++)
		{
			uint32_t	v = slot_get(st, bucket_size, i, t);
			uint32_t	j = alt_bucket(st, i, v);

			if (j != i && bucket_put(st, bucket_size, j, v))
			{
				slot_set(st, bucket_size, i, t, carry);
				stage_set_nitems(st, st->nitems + 1);
				return true;
			}
		}
		victim = slot_get(st, bucket_size, i, s);

		/*
		 * Evict: the victim moves on to its other bucket.  That bucket is
		 * full (the lookahead just failed to put the victim there, or it is
		 * this one), so the next step starts with its lookahead at once.
		 */
		slot_set(st, bucket_size, i, s, carry);
		if (semi)
			placed_log[k] = carry;
		carry = victim;
		i = alt_bucket(st, i, carry);
	}

	/* undo: walk back to the first bucket, restoring each evicted victim */
	while (k-- > 0)
	{
		uint32_t	s = (uint32_t) (draw(seed, k) >> 40) & (bucket_size - 1);
		uint32_t	placed;

		i = alt_bucket(st, i, carry);
		if (semi)
		{
			placed = placed_log[k];
			semi_replace(st, i, placed, carry);
		}
		else
		{
			placed = slot_get(st, bucket_size, i, s);
			slot_set(st, bucket_size, i, s, carry);
		}
		carry = placed;
	}
	return false;
}

/* Fills the derived fields of a stage from its descriptor fields. */
void
cfi_stage_setup(cf_stage *st, uint32_t bucket_size)
{
	uint32_t	f = st->fpbits;

	st->fpmax = (uint32_t) ((UINT64_C(1) << f) - 1);
	st->bucket_bits = bucket_size * f;
	st->base_nbuckets = st->nbuckets >> st->level;
	ENG(st)->lowmask = (uint32_t) ((UINT64_C(1) << st->level) - 1);
	ENG(st)->fp_shift = 32 - f;
	ENG(st)->base_shift = 32 - st->basebits;
	ENG(st)->key_shift = f - st->basebits;
	ENG(st)->mask_shift = ENG(st)->key_shift - st->level;
	st->extbits = st->geom == CF_GEOM_SPLIT ? f - 1 - st->basebits : 0;
	/*
	 * One 64-bit load reads a whole bucket if the bucket's bit offset within
	 * its first byte (a multiple of the largest power of two <= 8 dividing
	 * bucket_bits) plus bucket_bits never exceeds 64.
	 */
	{
		uint32_t	g = st->bucket_bits & (~st->bucket_bits + 1);

		ENG(st)->swar = st->bucket_bits + 8 - (g < 8 ? g : 8) <= 64;
	}
	ENG(st)->lanes_lo = 0;
	for (uint32_t s = 0; s < bucket_size && s * f < 64; s++)
		ENG(st)->lanes_lo |= UINT64_C(1) << (s * f);
	ENG(st)->lanes_hi = ENG(st)->lanes_lo << (f - 1);
	ENG(st)->bucket_mask = st->bucket_bits >= 64 ? UINT64_MAX :
		(UINT64_C(1) << st->bucket_bits) - 1;
	st->table_bytes = (size_t) table_bytes_for(st->nbuckets, bucket_size, f, st->enc);
	if (st->enc == CF_ENC_SEMISORT)
	{
		/* whole buckets through the codec: no lane tricks */
		st->bucket_bits = cf_semi_bucket_bits(f);
		ENG(st)->swar = false;
		ENG(st)->bucket_mask = st->bucket_bits >= 64 ? UINT64_MAX :
			(UINT64_C(1) << st->bucket_bits) - 1;
	}
}
