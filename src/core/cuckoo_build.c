/*
 * cuckoo_build.c - the bulk build of a chain or legacy table: many sorted
 * hashes into one empty table in bucket order, with no step waiting on a
 * random memory access.  cf_build_runs (cuckoo_ops.c) checks the filter
 * and hands it to its geometry's build.
 */
#include "cuckoo_build.h"
#include "cuckoo_chain.h"

/* ---------------------------------------------------------------------
 * bulk build
 * ------------------------------------------------------------------- */

/*
 * An item waiting for a slot in a bulk build: the bucket it goes to next
 * (high 32 bits) and its fingerprint (low 32 bits).
 */
#define PENDING(bucket, fp)		(((uint64_t) (bucket) << 32) | (fp))
#define PENDING_BUCKET(x)		((uint32_t) ((x) >> 32))
#define PENDING_FP(x)			((uint32_t) (x))

/* below this many pending items a round visits them unsorted */
#define BUILD_SORT_MIN			4096

/*
 * Writes a table from its start as a stream of bits (the format's bit
 * order: little-endian), one unaligned 64-bit store per 64 bits.
 */
typedef struct bit_writer
{
	uint8_t    *p;				/* next byte to store */
	uint64_t	acc;			/* bits not stored yet */
	uint32_t	nbits;			/* how many: 0 .. 63 */
} bit_writer;

/* appends the low width bits of v (the rest zero), width <= 32 */
static inline void
bw_put(bit_writer *w, uint64_t v, uint32_t width)
{
	w->acc |= v << w->nbits;
	w->nbits += width;
	if (w->nbits >= 64)
	{
		put_le64(w->p, w->acc);
		w->p += 8;
		w->nbits -= 64;
		w->acc = v >> (width - w->nbits);
	}
}

static void
bw_zeros(bit_writer *w, uint64_t nbits)
{
	for (; nbits >= 32; nbits -= 32)
		bw_put(w, 0, 32);
	if (nbits > 0)
		bw_put(w, 0, (uint32_t) nbits);
}

/* stores the last, partial word byte by byte (the table may end there) */
static void
bw_flush(bit_writer *w)
{
	for (uint32_t k = 0; k < w->nbits; k += 8)
		*w->p++ = (uint8_t) (w->acc >> k);
	w->acc = 0;
	w->nbits = 0;
}

/*
 * Stable LSD radix sort of a[0 .. n) by bucket, buckets < 2^bits; tmp holds
 * n items.  Digits of at most 11 bits keep the counts in L1.
 */
static void
sort_pending(uint64_t *a, uint64_t *tmp, size_t n, uint32_t bits)
{
	uint32_t	passes = (bits + 10) / 11;
	uint32_t	width = passes ? (bits + passes - 1) / passes : 0;
	uint64_t   *src = a,
			   *dst = tmp;

	for (uint32_t p = 0; p < passes; p++)
	{
		size_t		count[1 << 11];
		uint32_t	shift = 32 + p * width;
		uint64_t	mask = (UINT64_C(1) << width) - 1;
		size_t		sum = 0;
		uint64_t   *swap;

		memset(count, 0, sizeof(count[0]) << width);
		for (size_t k = 0; k < n; k++)
			count[(src[k] >> shift) & mask]++;
		for (size_t d = 0; d < ((size_t) 1 << width); d++)
		{
			size_t		c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t k = 0; k < n; k++)
			dst[count[(src[k] >> shift) & mask]++] = src[k];
		check_interrupts(0);
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(uint64_t));
}

/* the build's bitmap of the buckets with a free slot */
static inline bool
room_has(const uint64_t *room, uint32_t i)
{
	return (room[i / 64] >> (i % 64)) & 1;
}

static inline void
room_clear(uint64_t *room, uint32_t i)
{
	room[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

/* pending items cf_build has room for, for n items */
static inline size_t
build_pending_cap(uint64_t n)
{
	return (size_t) (n / 4 + 64);
}

size_t
cf_build_work_size(const cf_filter *f, uint64_t n)
{
	return 2 * sizeof(uint64_t) * build_pending_cap(n) +
		sizeof(uint64_t) * (size_t) ((f->stages[0].nbuckets + 63) / 64);
}


/*
 * Ends the current bucket of round 0's stream, which holds used items: the
 * rest of a bit-packed bucket is empty slots; a semi-sorted one, whose
 * items wait in vals, is written whole.
 */
static void
stream_close(const cf_stage *st, uint32_t b, bit_writer *w, const uint32_t *vals,
			 uint32_t used)
{
	uint32_t	v[CF_SEMI_SLOTS] = {0, 0, 0, 0};
	uint64_t	bits[2];
	uint32_t	left = st->bucket_bits;

	if (!bucket_reorders(st))
	{
		bw_zeros(w, (uint64_t) (b - used) * st->fpbits);
		return;
	}
	memcpy(v, vals, used * sizeof(uint32_t));
	cf_semi_pack(v, st->fpbits, &bits[0], &bits[1]);
	for (uint32_t k = 0; left > 0; k++)
	{
		uint32_t	n = left < 32 ? left : 32;
		uint64_t	x = bits[k / 2] >> (32 * (k % 2));

		bw_put(w, x & ((UINT64_C(1) << n) - 1), n);
		left -= n;
	}
}

/* ends round 0's stream of bits: the rest of the current bucket is empty */
static void
build_stream_end(const cf_stage *st, uint32_t b, bit_writer *w, uint64_t *room,
				 uint32_t cur, const uint32_t *vals, uint32_t used)
{
	if (used == b)
		room_clear(room, cur);
	stream_close(st, b, w, vals, used);
	bw_flush(w);
}

/*
 * Round 0 writes the table as a stream of bits while the primary buckets
 * come in order, and puts items one by one from the first that does not
 * (input not sorted by hash).  An item whose primary bucket is full goes to
 * pend (at most cap of them) for its alternate bucket.  False if more than
 * cap are pending.
 */
static bool
build_round0(cf_stage *st, uint32_t b, const cf_run *runs, size_t nruns,
			 uint64_t *pend, size_t cap, size_t *npp, uint64_t *room)
{
	bit_writer	w = {st->table, 0, 0};
	uint32_t	cur = 0,
				used = 0;
	uint32_t	vals[CF_SEMI_SLOTS];	/* semi-sorted: the current bucket's items */
	bool		semi = bucket_reorders(st);
	bool		streaming = true;
	uint64_t	done = 0;
	size_t		np = 0;

	for (size_t r = 0; r < nruns; done += runs[r++].n)
	{
		const uint64_t *h = runs[r].h;
		size_t		m = runs[r].n,
					k = 0;

		for (; streaming && k < m; k++)
		{
			uint32_t	i = primary_bucket(st, h[k]);
			uint32_t	fp = fingerprint(st, h[k]);

			check_interrupts(done + k);
			if (i < cur)
			{
				build_stream_end(st, b, &w, room, cur, vals, used);
				streaming = false;
				break;
			}
			if (i > cur)
			{
				if (used == b)
					room_clear(room, cur);
				if (semi)
				{
					stream_close(st, b, &w, vals, used);
					bw_zeros(&w, (uint64_t) (i - cur - 1) * st->bucket_bits);
				}
				else
					bw_zeros(&w, (uint64_t) (b - used) * st->fpbits +
							 (uint64_t) (i - cur - 1) * st->bucket_bits);
				cur = i;
				used = 0;
			}
			if (used < b)
			{
				if (semi)
					vals[used] = fp;
				else
					bw_put(&w, fp, st->fpbits);
				used++;
				continue;
			}
			if (np == cap)
				return false;
			pend[np++] = PENDING(alt_bucket(st, i, fp), fp);
		}
		for (; k < m; k++)
		{
			uint32_t	i = primary_bucket(st, h[k]);
			uint32_t	fp = fingerprint(st, h[k]);
			int			left = bucket_fill(st, b, i, fp);

			check_interrupts(done + k);
			if (left == 0)
				room_clear(room, i);
			if (left >= 0)
				continue;
			if (np == cap)
				return false;
			pend[np++] = PENDING(alt_bucket(st, i, fp), fp);
		}
	}
	if (streaming)
		build_stream_end(st, b, &w, room, cur, vals, used);
	*npp = np;
	return true;
}

/*
 * One later round over the np pending items, sorted by bucket: each takes
 * a free slot or evicts an occupant (one whose other bucket has room, if
 * any), which is pending in its place.  Returns how many stay pending.
 */
static size_t
build_round(cf_stage *st, uint32_t b, uint64_t *pend, size_t np, uint64_t *room,
			uint32_t round)
{
	size_t		kept = 0;

	for (size_t k = 0; k < np; k++)
	{
		uint32_t	i = PENDING_BUCKET(pend[k]);
		uint32_t	fp = PENDING_FP(pend[k]);
		int			left;
		uint32_t	s,
					victim;
		uint32_t	occ[CFI_MAX_BUCKET];
		uint32_t	alt[CFI_MAX_BUCKET];

		/* the visits ahead are sparse late on: fetch their buckets early */
#if defined(__GNUC__)
		if (k + 16 < np)
			__builtin_prefetch(st->table +
							   (((uint64_t) PENDING_BUCKET(pend[k + 16]) * st->bucket_bits) >> 3));
#endif
		left = bucket_fill(st, b, i, fp);

		check_interrupts(k);
		if (left == 0)
			room_clear(room, i);
		if (left >= 0)
			continue;
		/*
		 * The occupants and their other buckets, as the lookahead reads
		 * them, are kept: the victim is one of those read (the first with
		 * room, else one drawn when none has), so its bucket is not
		 * computed twice.
		 */
		s = b;
		for (uint32_t t = 0; t < b; t++)
		{
			occ[t] = slot_get(st, b, i, t);
			alt[t] = alt_bucket(st, i, occ[t]);
			if (room_has(room, alt[t]))
			{
				s = t;
				break;
			}
		}
		if (s == b)
			s = (uint32_t) (draw(pend[k], round) >> 40) & (b - 1);
		victim = occ[s];
		slot_set(st, b, i, s, fp);
		pend[kept++] = PENDING(alt[s], victim);
	}
	return kept;
}

/*
 * Bulk build, in rounds that each visit the buckets in order, so that no
 * step waits for a cache miss.  Round 0 puts every item in its primary
 * bucket if there is room: on input sorted by hash that writes the table
 * front to back.  At the design load about 18% of the items find it full
 * (bucket size 4) and become pending for their alternate bucket.  Each
 * later round sorts the pending items by bucket and visits them in order:
 * an item takes a free slot, or evicts an occupant, which becomes pending
 * for its own other bucket.  The occupant is one whose other bucket has
 * room if there is one (the lookahead of cfi_stage_insert, answered by a bitmap
 * of the buckets with room, small enough to stay in cache), else one drawn
 * at random.  The pending list shrinks by the items that found room; after
 * max_kicks rounds any left finish with the one-at-a-time walk.
 */
bool
cfi_build_pairs(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work)
{
	cf_stage   *st = &f->stages[0];
	uint32_t	b = f->bucket_size;
	size_t		cap = build_pending_cap(n);
	uint64_t   *pend = work;
	uint64_t   *tmp = pend + cap;
	uint64_t   *room = tmp + cap;
	size_t		np = 0;
	uint32_t	bits = 0;

	while (bits < 32 && (UINT64_C(1) << bits) < st->nbuckets)
		bits++;
	memset(room, 0xFF, sizeof(uint64_t) * (size_t) ((st->nbuckets + 63) / 64));

	if (!build_round0(st, b, runs, nruns, pend, cap, &np, room))
		return false;
	for (uint32_t round = 0; round < f->max_kicks && np > 0; round++)
	{
		if (np >= BUILD_SORT_MIN)
			sort_pending(pend, tmp, np, bits);
		np = build_round(st, b, pend, np, room, round);
	}

	stage_set_nitems(st, (uint32_t) (n - np));
	for (size_t k = 0; k < np; k++)
		if (!cfi_stage_insert(st, b, f->max_kicks, PENDING_BUCKET(pend[k]), PENDING_FP(pend[k])))
			return false;
	return true;
}
