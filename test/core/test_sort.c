/*
 * test_sort.c - sorting hashes for the bulk build (cuckoo_sort.c): the
 * result is qsort's, whatever the sizes, repeats or chosen bit patterns
 * (which push the radix sorts off their fast paths), and cf_unique_hashes
 * keeps exactly one of each.
 */
#include "harness.h"
#include "tests.h"

/* sorts a copy of h with cf_sort_hashes and compares it with qsort's */
static void
check_sort(const char *what, const uint64_t *h, size_t n)
{
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t   *tmp = malloc((n + 1) * sizeof(uint64_t));
	uint64_t   *want = malloc((n + 1) * sizeof(uint64_t));
	size_t		distinct = 0,
				kept;

	if (!a || !tmp || !want)
		abort();
	memcpy(a, h, n * sizeof(uint64_t));
	memcpy(want, h, n * sizeof(uint64_t));
	qsort(want, n, sizeof(uint64_t), t_cmp_u64);
	cf_sort_hashes(a, tmp, n);
	CHECKF(n == 0 || memcmp(a, want, n * sizeof(uint64_t)) == 0,
		   "%s (n=%zu): cf_sort_hashes differs from qsort", what, n);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || want[i] != want[i - 1];
	kept = cf_unique_hashes(a, n);
	CHECKF(kept == distinct, "%s (n=%zu): cf_unique_hashes kept %zu of %zu distinct",
		   what, n, kept, distinct);
	for (size_t i = 1; i < kept; i++)
		if (a[i - 1] >= a[i])
		{
			CHECKF(0, "%s (n=%zu): not strictly ascending after cf_unique_hashes", what, n);
			break;
		}
	free(a);
	free(tmp);
	free(want);
}

/*
 * cf_sort_hashes_below on a part whose top 64 - nbits bits are equal (how
 * cf_agg sorts its parts); the part's bits are set from top.
 */
static void
check_sort_below(const char *what, const uint64_t *h, size_t n, int nbits, uint64_t top)
{
	uint64_t	low = nbits >= 64 ? UINT64_MAX : ((uint64_t) 1 << nbits) - 1;
	uint64_t   *src = malloc((n + 1) * sizeof(uint64_t));
	uint64_t   *dst = malloc((n + 1) * sizeof(uint64_t));
	uint64_t   *want = malloc((n + 1) * sizeof(uint64_t));

	if (!src || !dst || !want)
		abort();
	for (size_t i = 0; i < n; i++)
		src[i] = want[i] = (top & ~low) | (h[i] & low);
	qsort(want, n, sizeof(uint64_t), t_cmp_u64);
	cf_sort_hashes_below(src, dst, n, nbits);
	CHECKF(n == 0 || memcmp(dst, want, n * sizeof(uint64_t)) == 0,
		   "%s (n=%zu, nbits=%d): cf_sort_hashes_below differs from qsort", what, n, nbits);
	free(src);
	free(dst);
	free(want);
}

static uint64_t *
random_hashes(uint64_t *rng, size_t n)
{
	uint64_t   *h = malloc((n + 1) * sizeof(uint64_t));

	if (!h)
		abort();
	for (size_t i = 0; i < n; i++)
		h[i] = splitmix64(rng);
	return h;
}

/* random hashes of every size around the sorts' thresholds */
void
test_sort_random(void)
{
	static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 100, 1023, 4095, 4096, 4097,
	5000, 20000, 65537, 300000};
	uint64_t	rng = 8001;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint64_t   *h = random_hashes(&rng, sizes[s]);

		check_sort("random", h, sizes[s]);
		check_sort_below("random part", h, sizes[s], 56, UINT64_C(0xA5) << 56);
		check_sort_below("random, all bits", h, sizes[s], 64, 0);
		free(h);
	}
}

/* repeats: few distinct values, or each value twice */
void
test_sort_repeats(void)
{
	uint64_t	rng = 8002;
	static const size_t pools[] = {1, 2, 7, 1000, 50000};

	for (size_t p = 0; p < sizeof(pools) / sizeof(pools[0]); p++)
	{
		size_t		n = 100000;
		uint64_t   *pool = random_hashes(&rng, pools[p]);
		uint64_t   *h = malloc(n * sizeof(uint64_t));

		if (!h)
			abort();
		for (size_t i = 0; i < n; i++)
			h[i] = pool[rnd_below(&rng, pools[p])];
		check_sort("repeats", h, n);
		check_sort_below("repeats in a part", h, n, 56, 0);
		free(h);
		free(pool);
	}
}

/*
 * Chosen bit patterns: hashes that share their top 24 or 40 bits (one part,
 * one run of equal 16 bits: the insertion pass runs out of budget and the
 * LSD passes take over), that differ only in the low bit, already sorted,
 * or descending.
 */
void
test_sort_chosen(void)
{
	uint64_t	rng = 8003;
	size_t		n = 50000;
	uint64_t   *r = random_hashes(&rng, n);
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	static const int shared[] = {24, 40, 56, 63};

	if (!h)
		abort();
	for (size_t k = 0; k < sizeof(shared) / sizeof(shared[0]); k++)
	{
		uint64_t	low = ((uint64_t) 1 << (64 - shared[k])) - 1;
		char		what[64];

		for (size_t i = 0; i < n; i++)
			h[i] = (UINT64_C(0x9E3779B97F4A7C15) & ~low) | (r[i] & low);
		snprintf(what, sizeof(what), "top %d bits shared", shared[k]);
		check_sort(what, h, n);
		check_sort(what, h, 4097);
		check_sort(what, h, 600);
		check_sort_below(what, h, n, 56, UINT64_C(0x9E3779B97F4A7C15));
	}
	qsort(h, n, sizeof(uint64_t), t_cmp_u64);
	check_sort("sorted", h, n);
	for (size_t i = 0; i < n / 2; i++)
	{
		uint64_t	t = h[i];

		h[i] = h[n - 1 - i];
		h[n - 1 - i] = t;
	}
	check_sort("descending", h, n);
	check_sort_below("descending part", h, n, 56, 0);
	free(h);
	free(r);
}

/*
 * A part made of sorted runs one after the other, as cf_agg's parts are
 * after a parallel plan's combine (one run a worker): 1 to 8 runs take the
 * merge, 9 the radix path.  Runs of uneven and tiny lengths, the same
 * values in several runs, and runs that do not overlap at all.
 */
void
test_sort_runs(void)
{
	uint64_t	rng = 8004;
	size_t		n = 30000;
	uint64_t   *pool = random_hashes(&rng, n);
	uint64_t   *h = random_hashes(&rng, n);	/* overwritten run by run */

	for (size_t nruns = 1; nruns <= 9; nruns++)
	{
		for (int shape = 0; shape < 4; shape++)
		{
			uint64_t	cut[10];
			char		what[80];

			/* run boundaries: even, random, one long run and tiny ones, or near-empty */
			cut[0] = 0;
			cut[nruns] = n;
			for (size_t r = 1; r < nruns; r++)
				cut[r] = shape == 0 ? n * r / nruns :
					shape == 1 ? rnd_below(&rng, n) :
					shape == 2 ? n - (nruns - r) * 3 : r;
			qsort(cut + 1, nruns - 1, sizeof(uint64_t), t_cmp_u64);
			for (size_t r = 0; r < nruns; r++)
			{
				size_t		len = (size_t) (cut[r + 1] - cut[r]);

				/* odd runs draw from the whole pool, even ones from its first tenth: repeats across runs */
				for (size_t i = 0; i < len; i++)
					h[cut[r] + i] = pool[rnd_below(&rng, r % 2 ? n : n / 10)];
				qsort(h + cut[r], len, sizeof(uint64_t), t_cmp_u64);
			}
			snprintf(what, sizeof(what), "%zu sorted runs, shape %d", nruns, shape);
			check_sort_below(what, h, n, 64, 0);
			check_sort_below(what, h, 4097, 64, 0);
			check_sort_below(what, h, 40, 64, 0);
			check_sort(what, h, n);
		}
	}

	/* runs that do not overlap: already sorted, and sorted blocks in reverse */
	qsort(pool, n, sizeof(uint64_t), t_cmp_u64);
	for (size_t r = 0; r < 4; r++)
		memcpy(h + r * (n / 4), pool + (3 - r) * (n / 4), (n / 4) * sizeof(uint64_t));
	check_sort_below("4 disjoint runs in reverse", h, n, 64, 0);
	check_sort_below("one sorted run", pool, n, 64, 0);
	free(h);
	free(pool);
}
