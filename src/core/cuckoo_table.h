/*
 * cuckoo_table.h - what cuckoo_table.c gives the rest of the core: setting
 * up a sub-filter's view, and kick-out insertion into one sub-filter.
 */
#ifndef CUCKOO_TABLE_H
#define CUCKOO_TABLE_H

#include "cuckoo_codec.h"

/*
 * The other bucket of value v sitting in bucket i, and (*v2) v as it reads
 * there: a geometry's bucket pair, its own inverse (chain and legacy
 * tables store the same fingerprint in both buckets; a split table's entry
 * changes with its bucket).
 */
typedef uint32_t (*cf_alt_fn) (const cf_stage *st, uint32_t i, uint32_t v, uint32_t *v2);

/* a semi-sorted walk logs what it placed: at most this many steps */
#define CF_SEMI_WALK_MAX	4096

/*
 * The one kick-out walk, for every geometry with a bucket pair: puts value
 * v1 (as it reads in bucket i1) into one of its two buckets, else walks at
 * most max_kicks steps drawn from seed, undone step by step when it fails,
 * so the table is then unchanged.
 *
 * A walk evicts a victim from a slot drawn by a generator seeded from the
 * item itself (deterministic) and moves it to its other bucket.  Each step
 * first looks one step ahead: if an occupant of the full bucket has room
 * in its other bucket, it moves there and the value in hand takes its
 * slot, which ends most walks early and lifts the load reachable with a
 * bounded number of kicks.  The undo recomputes the draws from their index
 * and walks back with alt (its own inverse), restoring every slot: no
 * value is lost.  A semi-sorted bucket sorts its values when written, so a
 * slot's position does not tell which value the walk put there: such a
 * walk logs the values it placed (at most CF_SEMI_WALK_MAX steps) and the
 * undo replaces each by its victim, which restores the same multiset, so
 * the same bytes.
 *
 * Inline, so that each geometry's alt (a constant at each call) is
 * inlined into its own copy of the loop.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
cf_walk_place(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
			  uint32_t i1, uint32_t v1, uint64_t seed, cf_alt_fn alt)
{
	uint32_t	v2;
	uint32_t	i2 = alt(st, i1, v1, &v2);
	uint32_t	i,
				carry,
				k;
	uint32_t	placed_log[CF_SEMI_WALK_MAX];
	bool		semi = bucket_reorders(st);

	if (bucket_put(st, bucket_size, i1, v1) || bucket_put(st, bucket_size, i2, v2))
	{
		stage_set_nitems(st, st->nitems + 1);
		return true;
	}
	if (max_kicks == 0)
		return false;
	if (semi && max_kicks > CF_SEMI_WALK_MAX)
		max_kicks = CF_SEMI_WALK_MAX;
	if (draw(seed, UINT32_MAX) & 1)
	{
		i = i2;
		carry = v2;
	}
	else
	{
		i = i1;
		carry = v1;
	}
	for (k = 0; k < max_kicks; k++)
	{
		uint32_t	s = (uint32_t) (draw(seed, k) >> 40) & (bucket_size - 1);
		uint32_t	victim;

		/* one step ahead: an occupant with room in its other bucket moves */
		for (uint32_t t = 0; t < bucket_size; t++)
		{
			uint32_t	v = slot_get(st, bucket_size, i, t),
						w;
			uint32_t	j = alt(st, i, v, &w);

			if (j != i && bucket_put(st, bucket_size, j, w))
			{
				slot_set(st, bucket_size, i, t, carry);
				stage_set_nitems(st, st->nitems + 1);
				return true;
			}
		}

		/*
		 * Evict: the victim moves on to its other bucket.  That bucket is
		 * full (the lookahead just failed to put the victim there, or it is
		 * this one), so the next step starts with its lookahead at once.
		 */
		victim = slot_get(st, bucket_size, i, s);
		slot_set(st, bucket_size, i, s, carry);
		if (semi)
			placed_log[k] = carry;
		i = alt(st, i, victim, &carry);
	}
	/* undo: (i, carry) is the value in hand as it reads in bucket i */
	while (k-- > 0)
	{
		uint32_t	s = (uint32_t) (draw(seed, k) >> 40) & (bucket_size - 1);
		uint32_t	back;
		uint32_t	j = alt(st, i, carry, &back);

		carry = semi ? placed_log[k] : slot_get(st, bucket_size, j, s);
		bucket_replace(st, bucket_size, j, s, carry, back);
		i = j;
	}
	return false;
}

/*
 * Inserts fingerprint fp with primary bucket i1 into one chain or legacy
 * sub-filter, with the kick-out walk (seeded from fp and i1).
 */
bool		cfi_stage_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							 uint32_t i1, uint32_t fp);
/* Fills the derived fields of a stage from its descriptor fields. */
void		cfi_stage_setup(cf_stage *st, uint32_t bucket_size);

#endif							/* CUCKOO_TABLE_H */
