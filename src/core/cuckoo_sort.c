/*
 * cuckoo_sort.c - sorting 64-bit hashes ascending, for the bulk build's
 * input and cf_agg's duplicates.  Plain C99.
 *
 * cf_build wants the hashes by bucket, and cf_agg drops duplicates from
 * sorted runs.  The sorts are radix sorts on the top bits first (a split
 * into parts of about one cache's worth), then each part in cache: a second
 * split and one insertion pass over the nearly sorted result, or LSD radix
 * passes.
 * Random hashes never make them slow; chosen ones (many equal top bits)
 * take the LSD path, whose cost does not depend on the values.  A part that
 * is a few sorted runs one after the other (cf_agg's parts after a parallel
 * plan's combine: one run a worker) is merged instead.
 */
#include "cuckoo_view.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SORT_SMALL			32		/* insertion sort up to this many */
#define SORT_L1_MAXBITS		11		/* first split: at most 2048 parts */
#define SORT_L2_MAXBITS		12		/* second split: at most 4096 parts */
#define SORT_CHUNK			65536	/* elements between interrupt checks */
#define SORT_MERGE_MAX_RUNS	8		/* merge parts of at most this many runs */

#define SORT_MIN(a, b)		((a) < (b) ? (a) : (b))
#define SORT_MAX(a, b)		((a) > (b) ? (a) : (b))

static void
sort_interrupt(void)
{
	if (cf_interrupt_hook)
		cf_interrupt_hook();
}

/*
 * Insertion sort that gives up after budget moves (a few per element on
 * nearly sorted input; chosen values could make it quadratic).  Returns
 * false if it gave up: a is then in some order, to sort another way.
 */
static bool
insertion_sort_budget(uint64_t *a, size_t n, size_t budget)
{
	for (size_t i = 1; i < n; i++)
	{
		uint64_t	v = a[i];
		size_t		j = i;

		while (j > 0 && a[j - 1] > v)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
		if (i - j > budget)
			return false;
		budget -= i - j;
	}
	return true;
}

static void
insertion_sort(uint64_t *a, size_t n)
{
	(void) insertion_sort_budget(a, n, SIZE_MAX);
}

/*
 * After a pass that read *from and wrote *to: the next pass reads what this
 * one wrote, and may write over what it read.
 */
static inline void
next_pass(uint64_t **from, uint64_t **to)
{
	uint64_t   *t = *from;

	sort_interrupt();
	*from = *to;
	*to = t;
}

static int
log2_floor(size_t x)
{
	int			b = 0;

	while (x >>= 1)
		b++;
	return b;
}

/*
 * Sorts a[0 .. n) stably by bits lo .. lo + nbits - 1 with an LSD radix
 * sort, 8 bits a pass; tmp has room for n.  (lo = 0 and the bits above
 * equal: sorted.)  A pass whose digit is the same everywhere is skipped, so
 * runs of one repeated hash cost one counting pass.
 */
static void
lsd_sort(uint64_t *a, uint64_t *tmp, size_t n, int lo, int nbits)
{
	int			passes = (nbits + 7) / 8;
	size_t		count[8][256];
	uint64_t   *src = a,
			   *dst = tmp;

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	v = a[i];

		for (int d = 0; d < passes; d++)
			count[d][(v >> (lo + 8 * d)) & 0xFF]++;
	}
	for (int d = 0; d < passes; d++)
	{
		size_t	   *c = count[d];
		size_t		sum = 0;

		if (c[(src[0] >> (lo + 8 * d)) & 0xFF] == n)
			continue;
		for (int k = 0; k < 256; k++)
		{
			size_t		x = c[k];

			c[k] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
		{
			uint64_t	v = src[i];

			dst[c[(v >> (lo + 8 * d)) & 0xFF]++] = v;
		}
		next_pass(&src, &dst);
	}
	if (src != a)
		memcpy(a, src, n * sizeof(uint64_t));
}

/*
 * Finds the ascending runs of a[0 .. n): run r is a[start[r] .. start[r + 1]).
 * Returns how many, or 0 if there are more than SORT_MERGE_MAX_RUNS, which
 * random input shows within a few dozen elements.
 */
static size_t
find_runs(const uint64_t *a, size_t n, size_t *start)
{
	size_t		nruns = 1;

	start[0] = 0;
	for (size_t i = 1; i < n; i++)
		if (a[i] < a[i - 1])
		{
			if (nruns == SORT_MERGE_MAX_RUNS)
				return 0;
			start[nruns++] = i;
		}
	start[nruns] = n;
	return nruns;
}

/* merges ascending a[0 .. na) and b[0 .. nb) into out, without branching on the values */
static void
merge_two(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
	size_t		i = 0,
				j = 0;

	while (i < na && j < nb)
	{
		uint64_t	x = a[i],
					y = b[j];
		bool		take_b = y < x;

		*out++ = take_b ? y : x;
		j += take_b;
		i += !take_b;
	}
	memcpy(out, a + i, (na - i) * sizeof(uint64_t));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(uint64_t));
}

/*
 * Sorts src[0 .. m), the nruns ascending runs that start[] marks, into dst
 * by merging neighbouring runs in pairs until one is left; src is
 * clobbered, start[] too.
 */
static void
merge_runs(uint64_t *src, uint64_t *dst, size_t m, size_t *start, size_t nruns)
{
	uint64_t   *from = src,
			   *to = dst;

	while (nruns > 1)
	{
		size_t		kept = 0;

		for (size_t r = 0; r < nruns; r += 2)
		{
			size_t		lo = start[r],
						mid = start[SORT_MIN(r + 1, nruns)],
						hi = start[SORT_MIN(r + 2, nruns)];

			merge_two(from + lo, mid - lo, from + mid, hi - mid, to + lo);
			start[kept++] = lo;
		}
		start[kept] = m;
		nruns = kept;
		next_pass(&from, &to);
	}
	if (from != dst)
		memcpy(dst, from, m * sizeof(uint64_t));
}

/*
 * One radix pass: the m values of src into dst by their b bits above
 * shift, part after part.  Part k then ends at pos[k].  Returns the size of
 * the largest part.
 */
static size_t
split_parts(const uint64_t *src, uint64_t *dst, size_t m, int shift, int b, size_t *pos)
{
	uint64_t	mask = ((uint64_t) 1 << b) - 1;
	size_t		nparts = (size_t) 1 << b;
	size_t		largest = 0,
				sum = 0;

	memset(pos, 0, sizeof(size_t) * nparts);
	for (size_t i = 0; i < m; i++)
		pos[(src[i] >> shift) & mask]++;
	for (size_t k = 0; k < nparts; k++)
	{
		size_t		c = pos[k];

		largest = SORT_MAX(largest, c);
		pos[k] = sum;
		sum += c;
	}
	for (size_t i = 0; i < m; i++)
	{
		uint64_t	v = src[i];

		dst[pos[(v >> shift) & mask]++] = v;
	}
	return largest;
}

void
cf_sort_hashes_below(uint64_t *src, uint64_t *dst, size_t m, int nbits)
{
	size_t		start[SORT_MERGE_MAX_RUNS + 1],
				nruns;
	size_t		pos[1 << SORT_L2_MAXBITS];
	size_t		largest;
	size_t		nparts;
	int			b,
				shift;

	if (m <= SORT_SMALL || nbits <= 0)
	{
		memcpy(dst, src, m * sizeof(uint64_t));
		insertion_sort(dst, m);
		return;
	}
	if ((nruns = find_runs(src, m, start)) > 0)
	{
		merge_runs(src, dst, m, start, nruns);
		return;
	}
	if (m > ((size_t) 1 << SORT_L2_MAXBITS) && nbits >= 16)
	{
		/*
		 * Too many for one split in cache (a part of cf_agg's large state):
		 * two radix passes on the next 16 bits, which leave random hashes
		 * about one to a run of equal 16 bits, then an insertion pass.
		 */
		lsd_sort(src, dst, m, nbits - 16, 16);
		if (!insertion_sort_budget(src, m, 4 * m))
			lsd_sort(src, dst, m, 0, nbits);
		memcpy(dst, src, m * sizeof(uint64_t));
		return;
	}
	b = SORT_MIN(log2_floor(m) + 1, SORT_L2_MAXBITS);
	b = SORT_MIN(b, nbits);
	shift = nbits - b;
	nparts = (size_t) 1 << b;
	largest = split_parts(src, dst, m, shift, b, pos);

	/*
	 * A few elements a part (random hashes): one insertion pass over the
	 * whole, now nearly sorted, beats thousands of tiny sorts, as long as no
	 * part is large (chosen values could make one).  Part k now ends at
	 * pos[k].
	 */
	if (largest <= SORT_SMALL && m < ((size_t) 4 << b))
	{
		insertion_sort(dst, m);
		return;
	}
	for (size_t k = 0; k < nparts; k++)
	{
		size_t		lo = k == 0 ? 0 : pos[k - 1],
					sz = pos[k] - lo;

		if (sz <= 1)
			continue;
		if (sz <= SORT_SMALL)
			insertion_sort(dst + lo, sz);
		else if (shift > 0)
			lsd_sort(dst + lo, src + lo, sz, 0, shift);
	}
}

void
cf_sort_hashes(uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t		start[(1 << SORT_L1_MAXBITS) + 1];
	size_t		pos[1 << SORT_L1_MAXBITS];
	int			b,
				shift;
	size_t		nparts;

	if (n <= SORT_SMALL)
	{
		insertion_sort(a, n);
		return;
	}
	if (n <= ((size_t) 1 << SORT_L2_MAXBITS))
	{
		memcpy(tmp, a, n * sizeof(uint64_t));
		cf_sort_hashes_below(tmp, a, n, 64);
		return;
	}

	/* parts of about 1024 elements (8 kB), so each is sorted in cache */
	b = log2_floor(n / 1024);
	b = SORT_MAX(b, 1);
	b = SORT_MIN(b, SORT_L1_MAXBITS);
	shift = 64 - b;
	nparts = (size_t) 1 << b;
	memset(start, 0, sizeof(size_t) * (nparts + 1));
	for (size_t i = 0; i < n; i++)
	{
		start[(a[i] >> shift) + 1]++;
		if ((i & (SORT_CHUNK - 1)) == 0)
			sort_interrupt();
	}
	for (size_t k = 0; k < nparts; k++)
		start[k + 1] += start[k];
	memcpy(pos, start, sizeof(size_t) * nparts);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	v = a[i];

		tmp[pos[v >> shift]++] = v;
		if ((i & (SORT_CHUNK - 1)) == 0)
			sort_interrupt();
	}
	for (size_t k = 0; k < nparts; k++)
	{
		cf_sort_hashes_below(tmp + start[k], a + start[k], start[k + 1] - start[k], shift);
		sort_interrupt();
	}
}

size_t
cf_unique_hashes(uint64_t *a, size_t n)
{
	size_t		w;

	if (n == 0)
		return 0;
	w = 1;
	for (size_t i = 1; i < n; i++)
		if (a[i] != a[w - 1])
			a[w++] = a[i];
	return w;
}
