/*
 * cuckoo.c - the cuckoo filter core: bit-packed buckets of any count,
 * XXH3 hashing, kick-out insertion that never loses an item, growth by
 * sub-filters, union, validation and the base64 text form.  Plain C99.
 */
#include "cuckoo.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * Design load factor per bucket size, in thousandths: a sub-filter for
 * capacity c gets ceil(c / (bucket_size * load)) buckets.  Chosen below the
 * load that insertion (random walk with one-step lookahead, 500 kicks)
 * reaches reliably: about 87-89%, 97-98% and 99.5% (test/core measures
 * it), so a filter filled to its capacity does not need to grow.
 */
static uint32_t
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

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
set_err(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void		(*cf_interrupt_hook) (void) = NULL;

/* lets the caller cancel a long loop (every 64K slots or so) */
static inline void
check_interrupts(uint64_t counter)
{
	if ((counter & 0xFFFF) == 0 && cf_interrupt_hook)
		cf_interrupt_hook();
}

/* ---------------------------------------------------------------------
 * hashing
 * ------------------------------------------------------------------- */

uint64_t
cf_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits_withSeed(data, len, CF_HASH_SEED);
}

uint64_t
cf_hash_int64(int64_t v)
{
	uint8_t		b[8];

	put_le64(b, (uint64_t) v);
	return XXH3_64bits_withSeed(b, 8, CF_HASH_SEED);
}

static inline uint32_t
mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
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

	return g | ((uint32_t) ((g >> st->base_shift) == 0) << st->base_shift);
}

/* fingerprint in 1 .. fpmax */
static inline uint32_t
fingerprint(const cf_stage *st, uint64_t h)
{
	if (st->geom == CF_GEOM_CHAIN)
		return (uint32_t) ((uint64_t) chain_bits(st, h) >> st->fp_shift);
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
	a0 = reflect(i >> st->level, fp >> st->key_shift, st->base_nbuckets);
	return (a0 << st->level) | ((i ^ (fp >> st->mask_shift)) & st->lowmask);
}

/* ---------------------------------------------------------------------
 * slots and buckets
 * ------------------------------------------------------------------- */

static inline uint32_t
slot_get(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t s)
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
	slot_write(st, ((uint64_t) i * bucket_size + s) * st->fpbits, fp);
}

/*
 * The top bit of every empty lane of bucket x (exact, unlike the borrow
 * trick below): a lane's low bits plus all ones carry into its top bit
 * unless they are all zero, and never out of the lane.
 */
static inline uint64_t
swar_empty_lanes(const cf_stage *st, uint64_t x)
{
	uint64_t	low = ~st->lanes_hi & st->bucket_mask;

	return ~(((x & low) + low) | x) & st->lanes_hi;
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
	if (st->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	w = load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7);
		uint64_t	x = (w & st->bucket_mask) ^ (fp * st->lanes_lo);

		return ((x - st->lanes_lo) & ~x & st->lanes_hi) != 0;
	}
	for (uint32_t s = 0; s < bucket_size; s++)
		if (slot_get(st, bucket_size, i, s) == fp)
			return true;
	return false;
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

#if defined(__GNUC__)
	if (st->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	x = (load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7)) &
			st->bucket_mask;
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
		st->journal->save(st->journal, st->desc + 4, 4);
	st->nitems = n;
	put_le32(st->desc + 4, n);
}

/*
 * Inserts fingerprint fp with primary bucket i1 into one sub-filter.
 *
 * When both buckets are full, a random walk evicts a victim from a slot
 * drawn by a generator seeded from the item itself (deterministic), and
 * moves it to its other bucket, at most max_kicks times.  If the walk ends
 * without a free slot it is undone step by step: the draws are recomputed
 * from their index and alt_bucket is its own inverse, so walking back
 * restores every slot and no fingerprint is lost.
 */
static bool
stage_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
			 uint32_t i1, uint32_t fp)
{
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint64_t	seed;
	uint32_t	i,
				carry,
				k;

	if (bucket_put(st, bucket_size, i1, fp) || bucket_put(st, bucket_size, i2, fp))
	{
		stage_set_nitems(st, st->nitems + 1);
		return true;
	}
	if (max_kicks == 0)
		return false;

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
		carry = victim;
		i = alt_bucket(st, i, carry);
	}

	/* undo: walk back to the first bucket, restoring each evicted victim */
	while (k-- > 0)
	{
		uint32_t	s = (uint32_t) (draw(seed, k) >> 40) & (bucket_size - 1);
		uint32_t	placed;

		i = alt_bucket(st, i, carry);
		placed = slot_get(st, bucket_size, i, s);
		slot_set(st, bucket_size, i, s, carry);
		carry = placed;
	}
	return false;
}

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
 * Bulk build, in rounds that each visit the buckets in order, so that no
 * step waits for a cache miss.  Round 0 puts every item in its primary
 * bucket if there is room: on input sorted by hash that writes the table
 * front to back.  At the design load about 18% of the items find it full
 * (bucket size 4) and become pending for their alternate bucket.  Each
 * later round sorts the pending items by bucket and visits them in order:
 * an item takes a free slot, or evicts an occupant, which becomes pending
 * for its own other bucket.  The occupant is one whose other bucket has
 * room if there is one (the lookahead of stage_insert, answered by a bitmap
 * of the buckets with room, small enough to stay in cache), else one drawn
 * at random.  The pending list shrinks by the items that found room; after
 * max_kicks rounds any left finish with the one-at-a-time walk.
 */
bool
cf_build(cf_filter *f, const uint64_t *h, size_t n, void *work, size_t worklen)
{
	cf_run		run = {h, n};

	return cf_build_runs(f, &run, 1, work, worklen);
}

/* ends round 0's stream of bits: the rest of the current bucket is empty */
static void
build_stream_end(const cf_stage *st, uint32_t b, bit_writer *w, uint64_t *room,
				 uint32_t cur, uint32_t used)
{
	if (used == b)
		room_clear(room, cur);
	bw_zeros(w, (uint64_t) (b - used) * st->fpbits);
	bw_flush(w);
}

bool
cf_build_runs(cf_filter *f, const cf_run *runs, size_t nruns, void *work, size_t worklen)
{
	cf_stage   *st = &f->stages[0];
	uint32_t	b = f->bucket_size;
	uint64_t	n = 0;
	size_t		cap;
	uint64_t   *pend = work;
	uint64_t   *tmp;
	uint64_t   *room;
	size_t		np = 0;
	uint32_t	bits = 0;

	for (size_t r = 0; r < nruns; r++)
		n += runs[r].n;
	cap = build_pending_cap(n);
	tmp = pend + cap;
	room = tmp + cap;
	if (f->nstages != 1 || st->nitems != 0 || st->journal != NULL ||
		n > (uint64_t) st->nbuckets * b || worklen < cf_build_work_size(f, n))
		return false;
	while (bits < 32 && (UINT64_C(1) << bits) < st->nbuckets)
		bits++;
	memset(room, 0xFF, sizeof(uint64_t) * (size_t) ((st->nbuckets + 63) / 64));

	/*
	 * Round 0 writes the table as a stream of bits while the primary
	 * buckets come in order, and puts items one by one from the first that
	 * does not (input not sorted by hash).
	 */
	{
		bit_writer	w = {st->table, 0, 0};
		uint32_t	cur = 0,
					used = 0;
		bool		streaming = true;
		uint64_t	done = 0;

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
					build_stream_end(st, b, &w, room, cur, used);
					streaming = false;
					break;
				}
				if (i > cur)
				{
					if (used == b)
						room_clear(room, cur);
					bw_zeros(&w, (uint64_t) (b - used) * st->fpbits +
							 (uint64_t) (i - cur - 1) * st->bucket_bits);
					cur = i;
					used = 0;
				}
				if (used < b)
				{
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
			build_stream_end(st, b, &w, room, cur, used);
	}

	for (uint32_t round = 0; round < f->max_kicks && np > 0; round++)
	{
		size_t		kept = 0;

		if (np >= BUILD_SORT_MIN)
			sort_pending(pend, tmp, np, bits);
		for (size_t k = 0; k < np; k++)
		{
			uint32_t	i = PENDING_BUCKET(pend[k]);
			uint32_t	fp = PENDING_FP(pend[k]);
			int			left;
			uint32_t	s,
						victim;

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
			s = (uint32_t) (draw(pend[k], round) >> 40) & (b - 1);
			for (uint32_t t = 0; t < b; t++)
			{
				uint32_t	j = alt_bucket(st, i, slot_get(st, b, i, t));

				if (room_has(room, j))
				{
					s = t;
					break;
				}
			}
			victim = slot_get(st, b, i, s);
			slot_set(st, b, i, s, fp);
			pend[kept++] = PENDING(alt_bucket(st, i, victim), victim);
		}
		np = kept;
	}

	stage_set_nitems(st, (uint32_t) (n - np));
	for (size_t k = 0; k < np; k++)
		if (!stage_insert(st, b, f->max_kicks, PENDING_BUCKET(pend[k]), PENDING_FP(pend[k])))
			return false;
	return true;
}

/* ---------------------------------------------------------------------
 * layout and parameters
 * ------------------------------------------------------------------- */

static inline uint64_t
table_bytes_for(uint64_t nbuckets, uint32_t bucket_size, uint32_t fpbits)
{
	return (nbuckets * bucket_size * fpbits + 7) / 8;
}

/* Fills the derived fields of a stage from its descriptor fields. */
static void
stage_setup(cf_stage *st, uint32_t bucket_size)
{
	uint32_t	f = st->fpbits;

	st->fpmax = (uint32_t) ((UINT64_C(1) << f) - 1);
	st->bucket_bits = bucket_size * f;
	st->base_nbuckets = st->nbuckets >> st->level;
	st->lowmask = (uint32_t) ((UINT64_C(1) << st->level) - 1);
	st->fp_shift = 32 - f;
	st->base_shift = 32 - st->basebits;
	st->key_shift = f - st->basebits;
	st->mask_shift = st->key_shift - st->level;
	/*
	 * One 64-bit load reads a whole bucket if the bucket's bit offset within
	 * its first byte (a multiple of the largest power of two <= 8 dividing
	 * bucket_bits) plus bucket_bits never exceeds 64.
	 */
	{
		uint32_t	g = st->bucket_bits & (~st->bucket_bits + 1);

		st->swar = st->bucket_bits + 8 - (g < 8 ? g : 8) <= 64;
	}
	st->lanes_lo = 0;
	for (uint32_t s = 0; s < bucket_size && s * f < 64; s++)
		st->lanes_lo |= UINT64_C(1) << (s * f);
	st->lanes_hi = st->lanes_lo << (f - 1);
	st->bucket_mask = st->bucket_bits >= 64 ? UINT64_MAX :
		(UINT64_C(1) << st->bucket_bits) - 1;
	st->table_bytes = (size_t) table_bytes_for(st->nbuckets, bucket_size, f);
}

/*
 * The narrowest fingerprint cf_create uses for a bucket size.  With two
 * slots a bucket, 4- and 5-bit fingerprints key too few distinct alternate
 * buckets for the kick-out walks to reach the design load (0.3-0.9 of the
 * capacity was measured), so such filters get 6 bits: a lower rate than
 * asked, and a filter that holds its capacity.
 */
static int
min_fpbits(int bucket_size)
{
	return bucket_size == 2 ? 6 : CF_MIN_FPBITS;
}

int
cf_fpbits_for(double fpr, int bucket_size)
{
	/* smallest f with 2b / 2^f <= fpr; ldexp is exact, so no rounding */
	for (int f = min_fpbits(bucket_size); f <= CF_MAX_FPBITS; f++)
		if (ldexp(fpr, f) >= 2.0 * bucket_size)
			return f;
	return 0;
}

uint64_t
cf_nbuckets_for(uint64_t capacity, int bucket_size)
{
	uint64_t	per = (uint64_t) bucket_size * design_load_permille(bucket_size);
	uint64_t	m;

	if (capacity > UINT64_MAX / 1000)
		return UINT64_MAX;
	m = (capacity * 1000 + per - 1) / per;
	return m == 0 ? 1 : m;
}

/* 0 (fixed size) or a power of two up to CF_MAX_EXPANSION */
static bool
expansion_valid(uint32_t e)
{
	return e <= CF_MAX_EXPANSION && (e & (e - 1)) == 0;
}

size_t
cf_create_size(const cf_params *p, char *err, size_t errlen)
{
	uint64_t	m,
				bytes;
	int			f;

	if (p->bucket_size != 2 && p->bucket_size != 4 && p->bucket_size != 8)
	{
		set_err(err, errlen, "bucket size must be 2, 4 or 8, not %d", p->bucket_size);
		return 0;
	}
	if (!(p->fpr > 0.0 && p->fpr < 0.5))
	{
		set_err(err, errlen, "false-positive rate must be between 0 and 0.5 (exclusive), not %g", p->fpr);
		return 0;
	}
	f = cf_fpbits_for(p->fpr, p->bucket_size);
	if (f == 0)
	{
		set_err(err, errlen, "false-positive rate %g is below what %d-bit fingerprints give with bucket size %d (%g)",
				p->fpr, CF_MAX_FPBITS, p->bucket_size, ldexp(2.0 * p->bucket_size, -CF_MAX_FPBITS));
		return 0;
	}
	if (p->max_kicks < 0 || p->max_kicks > CF_MAX_KICKS_LIMIT)
	{
		set_err(err, errlen, "max_kicks must be between 0 and %d, not %d", CF_MAX_KICKS_LIMIT, p->max_kicks);
		return 0;
	}
	if (p->expansion < 0 || !expansion_valid((uint32_t) p->expansion))
	{
		set_err(err, errlen, "expansion must be 0 (fixed size) or 1, 2, 4, 8 or 16, not %d", p->expansion);
		return 0;
	}
	if (p->capacity < 1)
	{
		set_err(err, errlen, "capacity must be at least 1");
		return 0;
	}
	m = cf_nbuckets_for(p->capacity, p->bucket_size);
	bytes = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE;
	if (p->capacity > UINT32_MAX || m > UINT32_MAX ||
		(bytes += table_bytes_for(m, p->bucket_size, f)) > CF_MAX_SIZE)
	{
		set_err(err, errlen, "capacity %llu with false-positive rate %g needs more than the 1 GB a value can hold",
				(unsigned long long) p->capacity, p->fpr);
		return 0;
	}
	return (size_t) bytes;
}

static inline uint64_t
double_bits(double x)
{
	uint64_t	v;

	memcpy(&v, &x, sizeof(v));
	return v;
}

static inline double
bits_double(uint64_t v)
{
	double		x;

	memcpy(&x, &v, sizeof(x));
	return x;
}

/* a version-2 sub-filter descriptor */
static void
write_desc(uint8_t *d, const cf_stage *st)
{
	put_le32(d, st->nbuckets);
	put_le32(d + 4, st->nitems);
	d[8] = (uint8_t) st->fpbits;
	d[9] = (uint8_t) st->geom;
	d[10] = (uint8_t) st->level;
	d[11] = (uint8_t) st->basebits;
	d[12] = CF_ENC_PACKED;
	d[13] = d[14] = d[15] = 0;
}

/* the version-2 header of f, except nstages (byte 5) */
static void
write_header(uint8_t *buf, const cf_filter *f)
{
	buf[0] = CF_MAGIC;
	buf[1] = 2;
	buf[2] = 0;
	buf[3] = (uint8_t) f->bucket_size;
	buf[4] = (uint8_t) f->fpbits;
	buf[6] = (uint8_t) f->expansion;
	buf[7] = (uint8_t) f->hashing;
	put_le16(buf + 8, (uint16_t) f->max_kicks);
	buf[10] = (uint8_t) f->kind;
	buf[11] = 0;
	put_le32(buf + 12, f->capacity);
	put_le64(buf + 16, double_bits(f->target_fpr));
	put_le64(buf + 24, f->deletes);
	put_le64(buf + 32, f->retained);
}

void
cf_create(uint8_t *buf, const cf_params *p)
{
	cf_filter	f;
	cf_stage	st;

	memset(&f, 0, sizeof(f));
	f.bucket_size = (uint32_t) p->bucket_size;
	f.fpbits = (uint32_t) cf_fpbits_for(p->fpr, p->bucket_size);
	f.expansion = (uint32_t) p->expansion;
	f.hashing = CF_HASHING_V2;
	f.max_kicks = (uint32_t) p->max_kicks;
	f.capacity = (uint32_t) p->capacity;
	f.target_fpr = p->fpr;
	memset(&st, 0, sizeof(st));
	st.nbuckets = (uint32_t) cf_nbuckets_for(p->capacity, p->bucket_size);
	st.fpbits = f.fpbits;
	st.geom = CF_GEOM_CHAIN;
	st.basebits = f.fpbits < CF_CHAIN_KEY_MAX ? f.fpbits : CF_CHAIN_KEY_MAX;
	write_header(buf, &f);
	buf[5] = 1;
	write_desc(buf + CF_V2_HEADER_SIZE, &st);
	memset(buf + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0,
		   (size_t) table_bytes_for(st.nbuckets, f.bucket_size, st.fpbits));
}

/* ---------------------------------------------------------------------
 * opening and validation
 * ------------------------------------------------------------------- */

/* checks what both versions require of the header fields in f */
static bool
check_header(const cf_filter *f, char *err, size_t errlen)
{
	if (f->bucket_size != 2 && f->bucket_size != 4 && f->bucket_size != 8)
	{
		set_err(err, errlen, "bucket size %u is not 2, 4 or 8", f->bucket_size);
		return false;
	}
	if (f->fpbits < CF_MIN_FPBITS || f->fpbits > CF_MAX_FPBITS)
	{
		set_err(err, errlen, "fingerprint width %u is not between %d and %d bits",
				f->fpbits, CF_MIN_FPBITS, CF_MAX_FPBITS);
		return false;
	}
	if (f->nstages < 1 || f->nstages > CF_MAX_STAGES)
	{
		set_err(err, errlen, "sub-filter count %u is not between 1 and %d", f->nstages, CF_MAX_STAGES);
		return false;
	}
	if (f->expansion > CF_MAX_EXPANSION)
	{
		set_err(err, errlen, "expansion %u is above %d", f->expansion, CF_MAX_EXPANSION);
		return false;
	}
	if (f->capacity < 1)
	{
		set_err(err, errlen, "capacity is zero");
		return false;
	}
	return true;
}

/* checks one parsed descriptor of sub-filter k and sets it up */
static bool
check_stage(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (st->nbuckets < 1)
	{
		set_err(err, errlen, "sub-filter %u has no buckets", k);
		return false;
	}
	if (st->fpbits < CF_MIN_FPBITS || st->fpbits > CF_MAX_FPBITS)
	{
		set_err(err, errlen, "sub-filter %u has fingerprint width %u, not between %d and %d bits",
				k, st->fpbits, CF_MIN_FPBITS, CF_MAX_FPBITS);
		return false;
	}
	if ((uint64_t) st->nitems > (uint64_t) st->nbuckets * f->bucket_size)
	{
		set_err(err, errlen, "sub-filter %u has an item count of %u but only %llu slots", k,
				st->nitems, (unsigned long long) st->nbuckets * f->bucket_size);
		return false;
	}
	if (st->geom == CF_GEOM_CHAIN)
	{
		if (st->level > 31 || (st->nbuckets & (uint32_t) ((UINT64_C(1) << st->level) - 1)) != 0)
		{
			set_err(err, errlen, "sub-filter %u has %u buckets, not a multiple of 2^%u for its level",
					k, st->nbuckets, st->level);
			return false;
		}
		if (st->basebits < CF_MIN_FPBITS || st->basebits + st->level > st->fpbits)
		{
			set_err(err, errlen, "sub-filter %u has base width %u, level %u and width %u (the base width must be at least %d and at most the width less the level)",
					k, st->basebits, st->level, st->fpbits, CF_MIN_FPBITS);
			return false;
		}
	}
	else if (st->geom != CF_GEOM_LEGACY || st->level != 0 || st->basebits != st->fpbits)
	{
		set_err(err, errlen, "sub-filter %u has an unknown geometry (%u, level %u, base width %u)",
				k, st->geom, st->level, st->basebits);
		return false;
	}
	stage_setup(st, f->bucket_size);
	return true;
}

/* the header and descriptors of version 1 */
static bool
open_v1(cf_filter *f, uint8_t *buf, size_t len, char *err, size_t errlen)
{
	if (len < CF_V1_HEADER_SIZE)
	{
		set_err(err, errlen, "value is shorter than the %d-byte header (length %zu)", CF_V1_HEADER_SIZE, len);
		return false;
	}
	if (buf[2] != 0 || buf[7] != 0 || get_le16(buf + 10) != 0)
	{
		set_err(err, errlen, "reserved header fields are not zero");
		return false;
	}
	f->bucket_size = buf[3];
	f->fpbits = buf[4];
	f->nstages = buf[5];
	f->expansion = buf[6];
	f->max_kicks = get_le16(buf + 8);
	f->capacity = get_le32(buf + 12);
	f->hashing = CF_HASHING_V1;
	f->kind = CF_KIND_NONE;
	f->target_fpr = fmin(ldexp(2.0 * f->bucket_size, -(int) f->fpbits), 1.0);
	f->deletes = f->retained = 0;
	f->hdrlen = CF_V1_HEADER_SIZE + CF_V1_STAGE_SIZE * f->nstages;
	if (!check_header(f, err, errlen))
		return false;
	if (len < f->hdrlen)
	{
		set_err(err, errlen, "value has %zu bytes, but its header and sub-filter descriptors take %u",
				len, f->hdrlen);
		return false;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];
		uint8_t    *d = buf + CF_V1_HEADER_SIZE + (size_t) CF_V1_STAGE_SIZE * k;

		st->desc = d;
		st->nbuckets = get_le32(d);
		st->nitems = get_le32(d + 4);
		st->fpbits = st->basebits = d[8];
		st->geom = CF_GEOM_LEGACY;
		st->level = 0;
		if (d[9] != 0 || d[10] != 0 || d[11] != 0)
		{
			set_err(err, errlen, "reserved bytes of sub-filter %u are not zero", k);
			return false;
		}
		if (!check_stage(f, st, k, err, errlen))
			return false;
	}
	return true;
}

/* the header and descriptors of version 2 */
static bool
open_v2(cf_filter *f, uint8_t *buf, size_t len, char *err, size_t errlen)
{
	if (len < CF_V2_HEADER_SIZE)
	{
		set_err(err, errlen, "value is shorter than the %d-byte header (length %zu)", CF_V2_HEADER_SIZE, len);
		return false;
	}
	if (buf[2] != 0 || buf[11] != 0)
	{
		set_err(err, errlen, "reserved header fields are not zero");
		return false;
	}
	f->bucket_size = buf[3];
	f->fpbits = buf[4];
	f->nstages = buf[5];
	f->expansion = buf[6];
	f->hashing = buf[7];
	f->max_kicks = get_le16(buf + 8);
	f->kind = buf[10];
	f->capacity = get_le32(buf + 12);
	f->target_fpr = bits_double(get_le64(buf + 16));
	f->deletes = get_le64(buf + 24);
	f->retained = get_le64(buf + 32);
	f->hdrlen = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE * f->nstages;
	if (!check_header(f, err, errlen))
		return false;
	if (!expansion_valid(f->expansion))
	{
		set_err(err, errlen, "expansion %u is not 0 or a power of two", f->expansion);
		return false;
	}
	if (f->hashing != CF_HASHING_V1 && f->hashing != CF_HASHING_V2)
	{
		set_err(err, errlen, "value hashing %u is not 1 or 2", f->hashing);
		return false;
	}
	if (!(f->target_fpr > 0.0 && f->target_fpr <= 1.0))
	{
		set_err(err, errlen, "target false-positive rate %g is not in (0, 1]", f->target_fpr);
		return false;
	}
	if (len < f->hdrlen)
	{
		set_err(err, errlen, "value has %zu bytes, but its header and sub-filter descriptors take %u",
				len, f->hdrlen);
		return false;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];
		uint8_t    *d = buf + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * k;

		st->desc = d;
		st->nbuckets = get_le32(d);
		st->nitems = get_le32(d + 4);
		st->fpbits = d[8];
		st->geom = d[9];
		st->level = d[10];
		st->basebits = d[11];
		if (d[12] != CF_ENC_PACKED)
		{
			set_err(err, errlen, "sub-filter %u uses table encoding %u, which this version does not read",
					k, d[12]);
			return false;
		}
		if (d[13] != 0 || d[14] != 0 || d[15] != 0)
		{
			set_err(err, errlen, "reserved bytes of sub-filter %u are not zero", k);
			return false;
		}
		if (!check_stage(f, st, k, err, errlen))
			return false;
	}
	return true;
}

bool
cf_open(cf_filter *f, uint8_t *buf, size_t len, char *err, size_t errlen)
{
	size_t		off;
	bool		ok;

	if (len < 2)
	{
		set_err(err, errlen, "value is shorter than the %d-byte header (length %zu)", CF_V1_HEADER_SIZE, len);
		return false;
	}
	if (buf[0] != CF_MAGIC)
	{
		set_err(err, errlen, "value does not start with the cuckoo filter magic byte");
		return false;
	}
	f->buf = buf;
	f->len = len;
	f->journal = NULL;
	f->version = buf[1];
	if (buf[1] == 1)
		ok = open_v1(f, buf, len, err, errlen);
	else if (buf[1] == 2)
		ok = open_v2(f, buf, len, err, errlen);
	else
	{
		set_err(err, errlen, "format version %u is not supported (this build reads versions 1 and 2)",
				buf[1]);
		return false;
	}
	if (!ok)
		return false;
	off = f->hdrlen;
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];

		st->journal = NULL;
		if (st->table_bytes > len - off)
		{
			set_err(err, errlen, "value has %zu bytes, too short for the table of sub-filter %u (%zu bytes at offset %zu)",
					len, k, st->table_bytes, off);
			return false;
		}
		st->table = buf + off;
		off += st->table_bytes;
	}
	if (off != len)
	{
		set_err(err, errlen, "value has %zu bytes but its header describes %zu", len, off);
		return false;
	}
	return true;
}

bool
cf_validate(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	cf_filter	f;

	/* cf_open only reads; the cast lets the one parser serve both */
	if (!cf_open(&f, (uint8_t *) buf, len, err, errlen))
		return false;
	for (uint32_t k = 0; k < f.nstages; k++)
	{
		const cf_stage *st = &f.stages[k];
		uint64_t	used_bits = (uint64_t) st->nbuckets * f.bucket_size * st->fpbits;
		uint64_t	n = 0;

		for (uint32_t i = 0; i < st->nbuckets; i++)
		{
			check_interrupts(i);
			for (uint32_t s = 0; s < f.bucket_size; s++)
				n += slot_get(st, f.bucket_size, i, s) != 0;
		}
		if (n != st->nitems)
		{
			set_err(err, errlen, "sub-filter %u has an item count of %u but %llu occupied slots",
					k, st->nitems, (unsigned long long) n);
			return false;
		}
		if ((used_bits & 7) != 0 &&
			(st->table[st->table_bytes - 1] >> (used_bits & 7)) != 0)
		{
			set_err(err, errlen, "unused bits at the end of sub-filter %u are not zero", k);
			return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------
 * version 1 rewritten as version 2
 * ------------------------------------------------------------------- */

size_t
cf_upgrade_size(const cf_filter *f)
{
	return f->len - f->hdrlen + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * f->nstages;
}

void
cf_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result)
{
	size_t		hdr = CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * f->nstages;

	write_header(out, f);
	out[5] = (uint8_t) f->nstages;
	/* version 1 allows any expansion up to 16; version 2 powers of two */
	if (!expansion_valid(f->expansion))
	{
		uint32_t	e = 1;

		while (e < f->expansion)
			e <<= 1;
		out[6] = (uint8_t) e;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
		write_desc(out + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * k, &f->stages[k]);
	memcpy(out + hdr, f->buf + f->hdrlen, f->len - f->hdrlen);
	if (!cf_open(result, out, hdr + f->len - f->hdrlen, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

/* ---------------------------------------------------------------------
 * operations
 * ------------------------------------------------------------------- */

void
cf_set_journal(cf_filter *f, cf_journal *j)
{
	f->journal = j;
	for (uint32_t k = 0; k < f->nstages; k++)
		f->stages[k].journal = j;
}

/* writes a 64-bit header field (a counter) at off, through the journal */
static void
header_put64(cf_filter *f, size_t off, uint64_t v)
{
	if (f->journal)
		f->journal->save(f->journal, f->buf + off, 8);
	put_le64(f->buf + off, v);
}

void
cf_set_kind(cf_filter *f, uint32_t kind)
{
	if (f->version < 2 || f->kind == kind)
		return;
	if (f->journal)
		f->journal->save(f->journal, f->buf + 10, 1);
	f->buf[10] = (uint8_t) kind;
	f->kind = kind;
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
 * Does a bucket of h's pair in st hold h's fingerprint?  One branch on the
 * geometry, then straight-line code: a level-0 chain table (every new
 * filter's) needs no low digits.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
stage_has(const cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	fp,
				i2;

	if (st->geom == CF_GEOM_CHAIN)
	{
		fp = (uint32_t) ((uint64_t) chain_bits(st, h) >> st->fp_shift);
		if (st->level == 0)
			i2 = reflect(i1, fp >> st->key_shift, st->nbuckets);
		else
			i2 = (reflect(i1 >> st->level, fp >> st->key_shift, st->base_nbuckets) << st->level) |
				((i1 ^ (fp >> st->mask_shift)) & st->lowmask);
	}
	else
	{
		fp = (uint32_t) (((h & 0xFFFFFFFFu) * (uint64_t) st->fpmax) >> 32) + 1;
		i2 = reflect(i1, fp, st->nbuckets);
	}
	return pair_has(st, bucket_size, i1, i2, fp);
}

/*
 * Newest (largest) sub-filter first.  The tables of a chain family share
 * the base key fp0 (the top basebits bits of g), so H(fp0) is computed once
 * per family, not once per table: a grown filter's probes cost a multiply
 * and a few shifts each beyond the bucket reads.
 */
bool
cf_contains(const cf_filter *f, uint64_t h)
{
	uint32_t	fam_m0 = 0,
				fam_bits = 0,
				g = 0,
				hm = 0;

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	i1,
					fp,
					j,
					a0;

		if (st->geom != CF_GEOM_CHAIN)
		{
			if (stage_has(st, f->bucket_size, h))
				return true;
			continue;
		}
		if (st->base_nbuckets != fam_m0 || st->basebits != fam_bits)
		{
			fam_m0 = st->base_nbuckets;
			fam_bits = st->basebits;
			g = chain_bits(st, h);
			hm = (uint32_t) (((uint64_t) mix32(g >> st->base_shift) * fam_m0) >> 32);
		}
		i1 = primary_bucket(st, h);
		fp = (uint32_t) ((uint64_t) g >> st->fp_shift);
		j = i1 >> st->level;
		a0 = hm >= j ? hm - j : hm + fam_m0 - j;
		if (pair_has(st, f->bucket_size, i1,
					 (a0 << st->level) | ((i1 ^ (fp >> st->mask_shift)) & st->lowmask), fp))
			return true;
	}
	return false;
}

uint32_t
cf_count(const cf_filter *f, uint64_t h)
{
	uint32_t	n = 0;

	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	fp = fingerprint(st, h);
		uint32_t	i1 = primary_bucket(st, h);
		uint32_t	i2 = alt_bucket(st, i1, fp);

		n += bucket_count(st, f->bucket_size, i1, fp);
		if (i2 != i1)
			n += bucket_count(st, f->bucket_size, i2, fp);
	}
	return n;
}

/* a sub-filter's load: adds go to the least loaded first */
static double
stage_load(const cf_stage *st, uint32_t bucket_size)
{
	return (double) st->nitems / ((double) st->nbuckets * bucket_size);
}

/*
 * Fills order[] with the sub-filter indexes from the least loaded to the
 * most, the newest first among equal loads (a stable insertion sort: at
 * most 32).
 */
static void
order_by_load(const cf_filter *f, uint32_t *order)
{
	double		keys[CF_MAX_STAGES];
	uint32_t	n = f->nstages;

	for (uint32_t k = 0; k < n; k++)
	{
		double		kk = stage_load(&f->stages[n - 1 - k], f->bucket_size);
		uint32_t	j = k;

		for (; j > 0 && keys[j - 1] > kk; j--)
		{
			keys[j] = keys[j - 1];
			order[j] = order[j - 1];
		}
		keys[j] = kk;
		order[j] = n - 1 - k;
	}
}

/*
 * Adds one copy of h: into the least loaded sub-filter (the newest after
 * growth), with a kick-out walk if its two buckets are full; failing that,
 * into a free slot of its two buckets in any other sub-filter.  Only one
 * walk, so a failed add costs at most max_kicks steps however many
 * sub-filters there are.  *walked is set to the sub-filter walked in.
 */
static cf_status
add_hash(cf_filter *f, uint64_t h, uint32_t *walked)
{
	uint32_t	order[CF_MAX_STAGES];
	uint32_t	b = f->bucket_size;
	cf_stage   *st;

	if (f->version < 2)
		return CF_READ_ONLY;
	*walked = 0;
	if (f->nstages > 1)
	{
		order_by_load(f, order);
		*walked = order[0];
	}
	st = &f->stages[*walked];
	if (stage_insert(st, b, f->max_kicks, primary_bucket(st, h), fingerprint(st, h)))
		return CF_OK;
	for (uint32_t k = 1; k < f->nstages; k++)
	{
		uint32_t	fp,
					i1;

		st = &f->stages[order[k]];
		fp = fingerprint(st, h);
		i1 = primary_bucket(st, h);
		if (bucket_put(st, b, i1, fp) || bucket_put(st, b, alt_bucket(st, i1, fp), fp))
		{
			stage_set_nitems(st, st->nitems + 1);
			return CF_OK;
		}
	}
	return CF_FULL;
}

cf_status
cf_add(cf_filter *f, uint64_t h)
{
	uint32_t	walked;

	return add_hash(f, h, &walked);
}

/*
 * Are both buckets of h in sub-filter k filled with copies of h alone?  Then
 * the add failed for want of room for yet another copy, not for want of
 * space in general.
 */
static bool
saturated_by_copies(const cf_filter *f, uint32_t k, uint64_t h)
{
	const cf_stage *st = &f->stages[k];
	uint32_t	fp = fingerprint(st, h);
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint32_t	n = bucket_count(st, f->bucket_size, i1, fp);

	if (i2 == i1)
		return n == f->bucket_size;
	return n + bucket_count(st, f->bucket_size, i2, fp) == 2 * f->bucket_size;
}

static size_t grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen);
static void grow(cf_filter *f, uint8_t *newbuf, bool same_size);

cf_status
cf_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	uint32_t	walked;
	cf_status	st = add_hash(f, h, &walked);
	size_t		newlen;
	bool		copies;

	if (st != CF_FULL || f->expansion == 0)
		return st;

	/*
	 * One value fits 2 * bucket_size times into a sub-filter (its copies can
	 * only live in its two buckets).  When that is why the add failed, the
	 * new sub-filter is as large as the largest one, not expansion times
	 * larger: a value added hundreds of times then costs kilobytes, not a
	 * filter that doubles every few copies.
	 */
	copies = saturated_by_copies(f, walked, h);
	newlen = grow_size(f, copies, NULL, 0);
	if (newlen == 0)
		return CF_CANNOT_GROW;
	grow(f, alloc(newlen, ctx), copies);
	/* the fresh sub-filter is the least loaded, with two empty buckets for h */
	return cf_add(f, h);
}

cf_status
cf_insert_unique(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx)
{
	if (f->version < 2)
		return CF_READ_ONLY;
	if (cf_contains(f, h))
		return CF_OK;
	return cf_insert(f, h, alloc, ctx);
}

/*
 * Does sub-filter s refine sub-filter t: do two values that collide in s
 * (same fingerprint, same bucket pair) always collide in t?  True for the
 * same table, for tables of one geometry, and in a chain family for a
 * table of no lower level and no narrower fingerprint (FORMAT.md).
 */
static bool
refines(const cf_stage *s, const cf_stage *t)
{
	if (s == t)
		return true;
	if (s->geom != t->geom)
		return false;
	if (s->geom == CF_GEOM_LEGACY)
		return s->nbuckets == t->nbuckets && s->fpbits == t->fpbits;
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

/*
 * Removes one copy of h from the sub-filter with a match that refines every
 * other sub-filter with a match.  If h was added, a copy of it owns some
 * matching entry e_h in a sub-filter t; if the entry removed belongs to
 * another value z, z collides with h in the chosen sub-filter, hence in t,
 * so z can own e_h instead: no value loses its last match (FORMAT.md,
 * "Deletes").  Without such a sub-filter the value stays, and is counted.
 */
cf_status
cf_delete(cf_filter *f, uint64_t h)
{
	uint32_t	match[CF_MAX_STAGES];
	uint32_t	n = 0;

	if (f->version < 2)
		return CF_READ_ONLY;
	for (uint32_t k = f->nstages; k-- > 0;)
		if (stage_has(&f->stages[k], f->bucket_size, h))
			match[n++] = k;
	if (n == 0)
		return CF_NOT_FOUND;
	for (uint32_t a = 0; a < n; a++)
	{
		cf_stage   *st = &f->stages[match[a]];
		uint32_t	fp,
					i1;
		bool		finest = true;

		for (uint32_t c = 0; c < n && finest; c++)
			finest = refines(st, &f->stages[match[c]]);
		if (!finest)
			continue;
		fp = fingerprint(st, h);
		i1 = primary_bucket(st, h);
		if (!bucket_remove(st, f->bucket_size, i1, fp) &&
			!bucket_remove(st, f->bucket_size, alt_bucket(st, i1, fp), fp))
			abort();			/* cannot happen: stage_has found it */
		stage_set_nitems(st, st->nitems - 1);
		f->deletes++;
		header_put64(f, 24, f->deletes);
		return CF_OK;
	}
	f->retained++;
	header_put64(f, 32, f->retained);
	return CF_RETAINED;
}

/* ---------------------------------------------------------------------
 * growth
 * ------------------------------------------------------------------- */

/*
 * The chain family growth extends: stage 0's, else the first chain
 * sub-filter's (a version-1 filter that grew), else none.
 */
static const cf_stage *
home_family(const cf_filter *f)
{
	for (uint32_t k = 0; k < f->nstages; k++)
		if (f->stages[k].geom == CF_GEOM_CHAIN)
			return &f->stages[k];
	return NULL;
}

/*
 * The sub-filter growth appends.  In the home family: expansion times the
 * buckets of its largest table (log2(expansion) levels up; as many when
 * same_size) and one fingerprint bit more than its widest (at least the
 * width its level needs), so false-positive rates form a halving series.
 * A filter with no chain table (version 1) starts a family: expansion times
 * its largest sub-filter, one bit wider than its widest.  Returns false
 * with err set if that exceeds a limit.
 */
static bool
next_stage(const cf_filter *f, bool same_size, cf_stage *out, char *err, size_t errlen)
{
	const cf_stage *home = home_family(f);
	uint64_t	m = 0;
	uint32_t	level = 0,
				width = 0,
				step = 0;

	memset(out, 0, sizeof(*out));
	out->geom = CF_GEOM_CHAIN;
	while ((1u << step) < f->expansion)
		step++;
	if (home == NULL)
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			m = f->stages[k].nbuckets > m ? f->stages[k].nbuckets : m;
			width = f->stages[k].fpbits > width ? f->stages[k].fpbits : width;
		}
		m = same_size ? f->stages[f->nstages - 1].nbuckets : m * f->expansion;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		out->basebits = width < CF_CHAIN_KEY_MAX ? width : CF_CHAIN_KEY_MAX;
	}
	else
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			const cf_stage *st = &f->stages[k];

			if (st->geom != CF_GEOM_CHAIN || st->base_nbuckets != home->base_nbuckets ||
				st->basebits != home->basebits)
				continue;
			level = st->level > level ? st->level : level;
			width = st->fpbits > width ? st->fpbits : width;
		}
		level += same_size ? 0 : step;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		if (width < home->basebits + level)
			width = home->basebits + level;
		out->basebits = home->basebits;
		m = level > 31 ? UINT64_MAX : (uint64_t) home->base_nbuckets << level;
	}
	out->level = level;
	out->fpbits = width;
	if (width > CF_MAX_FPBITS)
	{
		set_err(err, errlen, "growing the filter would need fingerprints wider than %d bits",
				CF_MAX_FPBITS);
		return false;
	}
	if (m > UINT32_MAX)
	{
		set_err(err, errlen, "growing the filter would need a sub-filter of more than 2^32 buckets");
		return false;
	}
	out->nbuckets = (uint32_t) m;
	return true;
}

static size_t
grow_size(const cf_filter *f, bool same_size, char *err, size_t errlen)
{
	cf_stage	st;
	uint64_t	len;

	if (f->expansion == 0)
	{
		set_err(err, errlen, "filter was created with expansion 0 and cannot grow");
		return 0;
	}
	if (f->nstages >= CF_MAX_STAGES)
	{
		set_err(err, errlen, "filter already has the maximum of %d sub-filters", CF_MAX_STAGES);
		return 0;
	}
	if (!next_stage(f, same_size, &st, err, errlen))
		return 0;
	len = f->len + CF_V2_STAGE_SIZE + table_bytes_for(st.nbuckets, f->bucket_size, st.fpbits);
	if (len > CF_MAX_SIZE)
	{
		set_err(err, errlen, "growing the filter would exceed the 1 GB a value can hold");
		return 0;
	}
	return (size_t) len;
}

/*
 * Writes f (version 2) plus 'extra' sub-filters into out and re-opens f on
 * out: the header, f's descriptors, the new descriptors (descs), f's
 * tables, then the new tables (tables[k], or zeros when tables is NULL).
 * out may be f->buf itself when it has room: the tables are moved before
 * anything overwrites them.
 */
static void
splice_stages(cf_filter *f, uint8_t *out, uint32_t extra,
			  const uint8_t *descs, const uint8_t *const *tables)
{
	size_t		hdr = f->hdrlen;
	size_t		body = f->len - hdr;
	size_t		off = hdr + (size_t) CF_V2_STAGE_SIZE * extra;

	memmove(out + off, f->buf + hdr, body);
	if (out != f->buf)
		memcpy(out, f->buf, hdr);
	memcpy(out + hdr, descs, (size_t) CF_V2_STAGE_SIZE * extra);
	out[5] = (uint8_t) (f->nstages + extra);
	off += body;
	for (uint32_t k = 0; k < extra; k++)
	{
		const uint8_t *d = descs + (size_t) CF_V2_STAGE_SIZE * k;
		size_t		tb = (size_t) table_bytes_for(get_le32(d), f->bucket_size, d[8]);

		if (tables)
			memcpy(out + off, tables[k], tb);
		else
			memset(out + off, 0, tb);
		off += tb;
	}
	if (!cf_open(f, out, off, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

size_t
cf_grow_size(const cf_filter *f, char *err, size_t errlen)
{
	if (f->version < 2)
	{
		set_err(err, errlen, "a version-1 filter must be upgraded before it can grow");
		return 0;
	}
	return grow_size(f, false, err, errlen);
}

static void
grow(cf_filter *f, uint8_t *newbuf, bool same_size)
{
	uint8_t		desc[CF_V2_STAGE_SIZE];
	cf_stage	st;

	if (!next_stage(f, same_size, &st, NULL, 0))
		abort();				/* cannot happen: grow_size checked it */
	write_desc(desc, &st);
	splice_stages(f, newbuf, 1, desc, NULL);
}

void
cf_grow(cf_filter *f, uint8_t *newbuf)
{
	grow(f, newbuf, false);
}

/* ---------------------------------------------------------------------
 * union
 * ------------------------------------------------------------------- */

/* the bytes of x as version 2 */
static size_t
v2_len(const cf_filter *x)
{
	return x->version < 2 ? cf_upgrade_size(x) : x->len;
}

size_t
cf_union_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen)
{
	size_t		len;

	if (a->bucket_size != b->bucket_size)
	{
		set_err(err, errlen, "filters have different bucket sizes (%u and %u)",
				a->bucket_size, b->bucket_size);
		return 0;
	}
	if (a->fpbits != b->fpbits)
	{
		set_err(err, errlen, "filters have different fingerprint widths (%u and %u bits): they were created with different false-positive rates",
				a->fpbits, b->fpbits);
		return 0;
	}
	if (a->hashing != b->hashing)
	{
		set_err(err, errlen, "filters hash values differently (value hashing %u and %u): one was written by cuckoo 1.0",
				a->hashing, b->hashing);
		return 0;
	}
	if (a->kind != b->kind && a->kind != CF_KIND_NONE && b->kind != CF_KIND_NONE &&
		a->kind != CF_KIND_ANY && b->kind != CF_KIND_ANY)
	{
		set_err(err, errlen, "filters hold values of different kinds (%u and %u)", a->kind, b->kind);
		return 0;
	}
	len = v2_len(a) + v2_len(b) - CF_V2_HEADER_SIZE;
	if (len > CF_MAX_SIZE)
	{
		set_err(err, errlen, "the union would exceed the 1 GB a value can hold");
		return 0;
	}
	return len;
}

/*
 * Moves every fingerprint of src into dst (same geometry): a slot's bucket
 * and fingerprint are all an insert needs, so no original value is required.
 * Returns false, with dst partly filled, if one does not fit.
 */
static bool
fold_stage(cf_stage *dst, const cf_stage *src, uint32_t bucket_size, uint32_t max_kicks)
{
	for (uint32_t i = 0; i < src->nbuckets; i++)
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	fp = slot_get(src, bucket_size, i, s);

			check_interrupts((uint64_t) i * bucket_size + s);

			if (fp != 0 && !stage_insert(dst, bucket_size, max_kicks, i, fp))
				return false;
		}
	return true;
}

/* same geometry: the same fingerprints and bucket pairs for every hash */
static bool
same_geometry(const cf_stage *s, const cf_stage *t)
{
	return s->geom == t->geom && s->nbuckets == t->nbuckets && s->fpbits == t->fpbits &&
		s->level == t->level && s->basebits == t->basebits;
}

size_t
cf_union(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
		 cf_filter *result, char *err, size_t errlen)
{
	uint8_t		descs[CF_MAX_STAGES * CF_V2_STAGE_SIZE];
	const uint8_t *tables[CF_MAX_STAGES];
	uint32_t	extra = 0;
	size_t		alen = v2_len(a);
	cf_filter	r;

	if (cf_union_size(a, b, err, errlen) == 0)
		return 0;
	if (outcap < alen + v2_len(b) - CF_V2_HEADER_SIZE)
	{
		set_err(err, errlen, "union buffer too small");
		return 0;
	}
	if (a->version < 2)
		cf_upgrade(a, out, &r);
	else
	{
		memcpy(out, a->buf, alen);
		if (!cf_open(&r, out, alen, err, errlen))
			return 0;
	}
	if (r.kind == CF_KIND_NONE || b->kind == CF_KIND_ANY)
		r.kind = b->kind;
	r.deletes += b->deletes;
	r.retained += b->retained;
	out[10] = (uint8_t) r.kind;
	put_le64(out + 24, r.deletes);
	put_le64(out + 32, r.retained);

	/*
	 * Fold each sub-filter of b into one of a's sub-filters of the same
	 * geometry when all of it fits.  The free tail of out (at least b's size)
	 * holds a copy of the target table so that a failed fold is rolled back.
	 * What does not fold is appended as a sub-filter of its own.
	 */
	for (uint32_t kb = 0; kb < b->nstages; kb++)
	{
		const cf_stage *sb = &b->stages[kb];
		bool		folded = sb->nitems == 0;	/* an empty one adds nothing */

		for (uint32_t ka = 0; ka < a->nstages && !folded; ka++)
		{
			cf_stage   *sr = &r.stages[ka];
			uint32_t	saved_items = sr->nitems;
			uint8_t    *saved = out + r.len;

			if (!same_geometry(sr, sb) ||
				(uint64_t) sr->nitems + sb->nitems > (uint64_t) sr->nbuckets * r.bucket_size)
				continue;
			memcpy(saved, sr->table, sr->table_bytes);
			folded = fold_stage(sr, sb, r.bucket_size, r.max_kicks);
			if (!folded)
			{
				memcpy(sr->table, saved, sr->table_bytes);
				stage_set_nitems(sr, saved_items);
			}
		}
		if (!folded)
		{
			if (r.nstages + extra >= CF_MAX_STAGES)
			{
				set_err(err, errlen, "the union would need more than %d sub-filters", CF_MAX_STAGES);
				return 0;
			}
			write_desc(descs + (size_t) CF_V2_STAGE_SIZE * extra, sb);
			tables[extra++] = sb->table;
		}
	}
	if (extra > 0)
		splice_stages(&r, out, extra, descs, tables);
	*result = r;
	return r.len;
}

/* ---------------------------------------------------------------------
 * statistics
 * ------------------------------------------------------------------- */

void
cf_get_stats(const cf_filter *f, cf_stats *s)
{
	uint64_t	slots = 0;
	double		fpr_miss = 1.0;

	memset(s, 0, sizeof(*s));
	s->bucket_size = f->bucket_size;
	s->fingerprint_bits = f->fpbits;
	s->bytes = f->len;
	s->subfilters = f->nstages;
	s->target_fpr = f->target_fpr;
	s->expansion = f->expansion;
	s->max_kicks = f->max_kicks;
	s->version = f->version;
	s->hashing = f->hashing;
	s->kind = f->kind;
	s->deletes = f->deletes;
	s->retained = f->retained;
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		const cf_stage *st = &f->stages[k];
		uint64_t	n = (uint64_t) st->nbuckets * f->bucket_size;
		double		load = (double) st->nitems / (double) n;
		bool		new_family = true;

		for (uint32_t j = 0; j < k && new_family; j++)
			new_family = !(refines(st, &f->stages[j]) || refines(&f->stages[j], st));
		s->families += new_family;
		s->items += st->nitems;
		s->buckets += st->nbuckets;
		slots += n;
		s->capacity += k == 0 ? f->capacity :
			n * design_load_permille(f->bucket_size) / 1000;
		/* a miss in this sub-filter: no occupied slot of 2 buckets matches */
		fpr_miss *= pow(1.0 - 1.0 / (double) st->fpmax, 2.0 * f->bucket_size * load);
	}
	s->load_factor = slots ? (double) s->items / (double) slots : 0.0;
	s->fpr = 1.0 - fpr_miss;
}

/* ---------------------------------------------------------------------
 * base64 text form (RFC 4648, padded, nothing else allowed)
 * ------------------------------------------------------------------- */

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
cf_base64_len(size_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void
cf_base64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= n; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = b64chars[v & 63];
	}
	if (n - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (n - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = '=';
	}
	*dst = '\0';
}

size_t
cf_base64_decoded_len(const char *src, size_t len)
{
	size_t		n;

	if (len == 0 || len % 4 != 0)
		return SIZE_MAX;
	n = len / 4 * 3;
	if (src[len - 1] == '=')
		n--;
	if (src[len - 2] == '=')
		n--;
	return n;
}

static inline int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
cf_base64_decode(const char *src, size_t len, uint8_t *dst, char *err, size_t errlen)
{
	size_t		out = 0;

	if (len == 0 || len % 4 != 0)
	{
		set_err(err, errlen, "base64 text has %zu characters, not a positive multiple of 4", len);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			pad = 0;
		bool		last = i + 4 == len;

		for (int k = 0; k < 4; k++)
		{
			unsigned char c = (unsigned char) src[i + k];

			if (c == '=' && last && k >= 2)
			{
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad > 0 || (v[k] = b64val(c)) < 0)
			{
				set_err(err, errlen, "invalid base64 character at position %zu", i + k + 1);
				return SIZE_MAX;
			}
		}
		if ((pad == 1 && (v[2] & 3) != 0) || (pad == 2 && (v[1] & 15) != 0))
		{
			set_err(err, errlen, "base64 text has non-zero bits in its padding");
			return SIZE_MAX;
		}
		dst[out++] = (uint8_t) ((v[0] << 2) | (v[1] >> 4));
		if (pad < 2)
			dst[out++] = (uint8_t) (((v[1] & 15) << 4) | (v[2] >> 2));
		if (pad < 1)
			dst[out++] = (uint8_t) (((v[2] & 3) << 6) | v[3]);
	}
	return out;
}
