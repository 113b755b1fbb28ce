/*
 * bench_bloom.c - the core's cuckoo filter lookup against a blocked Bloom
 * filter of the SAME number of bits (issue 47: "how it compares with a
 * blocked Bloom filter of the same bits"), for a run-time join filter's use:
 * a filter of the build side's N keys, probed by a stream of 64-bit keys of
 * which 1% or 50% are present.
 *
 * Cuckoo: a filter of capacity N, buckets of 4, expansion 0, at the rate that
 * gives fingerprints of f bits (-f; default 8, 12 and 16 bits), N keys added
 * with cf_add(cf_hash_int64_inline(key)).  Two lookups: cf_probe_int64 (the
 * lookup inlined into the loop, cuckoo.h's cf_probe) and cf_contains_many
 * over blocks of 256 hashed keys (several lookups' loads in flight).
 *
 * Bloom: the filter's bytes (header included) x 8 bits, rounded down to
 * 512-bit blocks; block = top 32 bits of the same 64-bit hash (multiply-
 * shift), k bit positions of 9 bits each cut from the hash multiplied by an
 * odd constant (remixed every 7 positions), k = round(ln 2 x bits / N) in
 * 1..16.  Two lookups as well: one at a time (branch-free test of the k
 * bits, k a constant in the loop) and in blocks of 32 with the blocks
 * prefetched first.
 *
 * Every lookup hashes its key inside the timed loop (the same hash on both
 * sides); present keys are key_at(i < N), absent ones key_at(2^62 + i),
 * shuffled together (fixed seed).  Time is the thread's CPU time, best of -r
 * repetitions (default 3), the four forms interleaved; ns per lookup.  The
 * false-positive rate is measured on 2M absent keys; every present key must
 * be found (exit 1 otherwise).
 *
 * Usage: bench_bloom [-r reps] [-l lookups] [-q] [-f bits]...
 *   -q   N = 1M only, fingerprints of 12 bits
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo_view.h"
#include "bench_keys.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

/* ---- the blocked Bloom filter ---- */
typedef struct bloom
{
	uint64_t   *w;			/* nblocks x 8 words */
	uint64_t	nblocks;
	int			k;
} bloom;

#define BLOOM_REMIX UINT64_C(0x9e3779b97f4a7c15)

static inline const uint64_t *
bloom_block(const bloom *b, uint64_t h)
{
	return b->w + (((h >> 32) * b->nblocks) >> 32) * 8;
}

static void
bloom_add(bloom *b, uint64_t h)
{
	uint64_t   *blk = (uint64_t *) bloom_block(b, h);
	uint64_t	g = h * BLOOM_REMIX;

	for (int i = 0; i < b->k; i++)
	{
		unsigned	bit;

		if (i > 0 && i % 7 == 0)
			g = (g ^ (g >> 29)) * BLOOM_REMIX;
		bit = (unsigned) (g >> (64 - 9 * (i % 7 + 1))) & 511;
		blk[bit >> 6] |= UINT64_C(1) << (bit & 63);
	}
}

static inline __attribute__((always_inline)) int
bloom_test(const uint64_t *blk, uint64_t h, int k)
{
	uint64_t	g = h * BLOOM_REMIX;
	uint64_t	ok = 1;

	/* k is a constant here (the loops below): unrolled, i % 7 and the shifts folded */
#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		unsigned	bit;

		if (i > 0 && i % 7 == 0)
			g = (g ^ (g >> 29)) * BLOOM_REMIX;
		bit = (unsigned) (g >> (64 - 9 * (i % 7 + 1))) & 511;
		ok &= blk[bit >> 6] >> (bit & 63);
	}
	return (int) (ok & 1);
}

/* ---- the timed loops: hits over keys[0 .. n) ---- */
static uint64_t
run_probe(const cf_filter *f, const uint64_t *keys, size_t n)
{
	const cf_probe p = cf_probe_of(f);
	uint64_t	hits = 0;

	if (p.bucket_bytes)
		for (size_t i = 0; i < n; i++)
			hits += cf_probe_int64(&p, (int64_t) keys[i]);
	else
		for (size_t i = 0; i < n; i++)
			hits += cf_contains_int64(f, (int64_t) keys[i]);
	return hits;
}

static uint64_t
run_many(const cf_filter *f, const uint64_t *keys, size_t n)
{
	uint64_t	h[256];
	bool		found[256];
	uint64_t	hits = 0;

	for (size_t b = 0; b < n; b += 256)
	{
		size_t		m = n - b < 256 ? n - b : 256;

		for (size_t j = 0; j < m; j++)
			h[j] = cf_hash_int64_inline((int64_t) keys[b + j]);
		hits += cf_contains_many(f, h, m, found);
	}
	return hits;
}

/*
 * k as a constant in each loop (one loop per k, the test unrolled): the loop
 * a real implementation would have, and 2-3x faster than a variable k
 */
#define BLOOM_CASE(K, BODY) case K: BODY(K); break;
#define BLOOM_SWITCH(k, BODY) \
	switch (k) { \
		BLOOM_CASE(1, BODY) BLOOM_CASE(2, BODY) BLOOM_CASE(3, BODY) BLOOM_CASE(4, BODY) \
		BLOOM_CASE(5, BODY) BLOOM_CASE(6, BODY) BLOOM_CASE(7, BODY) BLOOM_CASE(8, BODY) \
		BLOOM_CASE(9, BODY) BLOOM_CASE(10, BODY) BLOOM_CASE(11, BODY) BLOOM_CASE(12, BODY) \
		BLOOM_CASE(13, BODY) BLOOM_CASE(14, BODY) BLOOM_CASE(15, BODY) default: BODY(16); break; \
	}

static uint64_t
run_bloom(const bloom *bf, const uint64_t *keys, size_t n)
{
	uint64_t	hits = 0;

#define ONE_AT_A_TIME(K) \
	for (size_t i = 0; i < n; i++) \
	{ \
		uint64_t	h = cf_hash_int64_inline((int64_t) keys[i]); \
		hits += bloom_test(bloom_block(bf, h), h, K); \
	}
	BLOOM_SWITCH(bf->k, ONE_AT_A_TIME)
	return hits;
}

static uint64_t
run_bloom_batch(const bloom *bf, const uint64_t *keys, size_t n)
{
	uint64_t	h[32];
	const uint64_t *blk[32];
	uint64_t	hits = 0;

	for (size_t b = 0; b < n; b += 32)
	{
		size_t		m = n - b < 32 ? n - b : 32;

		for (size_t j = 0; j < m; j++)
		{
			h[j] = cf_hash_int64_inline((int64_t) keys[b + j]);
			blk[j] = bloom_block(bf, h[j]);
			__builtin_prefetch(blk[j]);
		}
#define BATCH(K) \
		for (size_t j = 0; j < m; j++) \
			hits += bloom_test(blk[j], h[j], K);
		BLOOM_SWITCH(bf->k, BATCH)
	}
	return hits;
}

/* the rate that gives fingerprints of fp bits with buckets of 4 */
static double
fpr_for_bits(int fp)
{
	double		e = 8.0 / (double) (UINT64_C(1) << fp);

	while (cf_fpbits_for(e, 4) > fp)
		e *= 1.0001;
	while (cf_fpbits_for(e, 4) < fp)
		e /= 1.0001;
	return e;
}

static uint64_t rng_state = UINT64_C(0x5eed5eed5eed5eed);

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int
bench(uint64_t n, int fp, int reps, size_t nlook)
{
	cf_params	p = {0};
	char		err[CF_ERRLEN];
	size_t		size;
	uint8_t    *buf;
	cf_filter	f;
	cf_stats	st;
	bloom		bf;
	uint64_t	bits;
	double		t,
				tb_c,
				tb_b;
	uint64_t   *keys = malloc(nlook * sizeof(uint64_t));
	static const double hitrates[] = {0.01, 0.50};

	p.capacity = n;
	p.fpr = fpr_for_bits(fp);
	p.bucket_size = 4;
	p.max_kicks = CF_DEFAULT_MAX_KICKS;
	p.expansion = 0;
	p.encoding = CF_ENC_PACKED;
	size = cf_create_size(&p, err, sizeof(err));
	if (size == 0)
	{
		fprintf(stderr, "cf_create_size: %s\n", err);
		exit(1);
	}
	buf = malloc(size);
	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
	{
		fprintf(stderr, "cf_open: %s\n", err);
		exit(1);
	}
	t = cpu_now();
	for (uint64_t i = 0; i < n; i++)
		if (cf_add(&f, cf_hash_int64_inline((int64_t) key_at(i))) != CF_OK)
		{
			fprintf(stderr, "cf_add: full at %llu of %llu\n", (unsigned long long) i, (unsigned long long) n);
			exit(1);
		}
	tb_c = (cpu_now() - t) / n * 1e9;
	cf_get_stats(&f, &st);

	bits = (uint64_t) size * 8;
	bf.nblocks = bits / 512 ? bits / 512 : 1;
	bf.k = (int) lround(log(2.0) * (double) (bf.nblocks * 512) / (double) n);
	bf.k = bf.k < 1 ? 1 : bf.k > 16 ? 16 : bf.k;
	bf.w = aligned_alloc(64, bf.nblocks * 64);
	memset(bf.w, 0, bf.nblocks * 64);
	t = cpu_now();
	for (uint64_t i = 0; i < n; i++)
		bloom_add(&bf, cf_hash_int64_inline((int64_t) key_at(i)));
	tb_b = (cpu_now() - t) / n * 1e9;

	/* false positives on 2M absent keys, every present key found */
	{
		uint64_t	fc = 0,
					fb = 0,
					m = 2000000;

		for (uint64_t i = 0; i < m; i++)
		{
			uint64_t	k = key_at((UINT64_C(1) << 62) + i);
			uint64_t	h = cf_hash_int64_inline((int64_t) k);

			fc += cf_contains(&f, h);
			fb += bloom_test(bloom_block(&bf, h), h, bf.k);
		}
		for (uint64_t i = 0; i < n; i++)
		{
			uint64_t	h = cf_hash_int64_inline((int64_t) key_at(i));

			if (!cf_contains(&f, h) || !bloom_test(bloom_block(&bf, h), h, bf.k))
			{
				fprintf(stderr, "FALSE NEGATIVE: key %llu of N = %llu\n", (unsigned long long) i,
						(unsigned long long) n);
				exit(1);
			}
		}
		printf("%9llu %3d %6.2f %2d %7.4f%% %7.4f%% %5.1f %5.1f",
			   (unsigned long long) n, fp, (double) bits / n, bf.k,
			   100.0 * fc / m, 100.0 * fb / m, tb_c, tb_b);
	}

	for (int hr = 0; hr < 2; hr++)
	{
		double		best[4] = {1e30, 1e30, 1e30, 1e30};
		uint64_t	present = 0,
					hits[4];

		/* the stream: hitrate present (random present keys), the rest absent */
		for (size_t i = 0; i < nlook; i++)
		{
			if ((double) (rng() >> 11) / 9007199254740992.0 < hitrates[hr])
			{
				keys[i] = key_at(rng() % n);
				present++;
			}
			else
				keys[i] = key_at((UINT64_C(1) << 62) + (UINT64_C(1) << 40) + i);
		}
		for (int r = 0; r < reps; r++)
		{
			for (int w = 0; w < 4; w++)
			{
				int			which = (w + r) % 4;	/* a different order each repetition */
				double		t0 = cpu_now();

				switch (which)
				{
					case 0: hits[0] = run_probe(&f, keys, nlook); break;
					case 1: hits[1] = run_many(&f, keys, nlook); break;
					case 2: hits[2] = run_bloom(&bf, keys, nlook); break;
					default: hits[3] = run_bloom_batch(&bf, keys, nlook); break;
				}
				t0 = (cpu_now() - t0) / nlook * 1e9;
				if (t0 < best[which])
					best[which] = t0;
				sink += hits[which];
			}
		}
		if (hits[0] != hits[1] || hits[2] != hits[3] || hits[0] < present || hits[2] < present)
		{
			fprintf(stderr, "\nhits disagree: probe %llu many %llu bloom %llu batch %llu present %llu\n",
					(unsigned long long) hits[0], (unsigned long long) hits[1],
					(unsigned long long) hits[2], (unsigned long long) hits[3],
					(unsigned long long) present);
			exit(1);
		}
		printf(" | %3.0f%% %6.2f %6.2f %6.2f %6.2f %5.2f",
			   100 * hitrates[hr], best[0], best[1], best[2], best[3],
			   (best[0] < best[1] ? best[0] : best[1]) / (best[2] < best[3] ? best[2] : best[3]));
	}
	printf("\n");
	fflush(stdout);
	free(buf);
	free(bf.w);
	free(keys);
	return 0;
}

int
main(int argc, char **argv)
{
	int			reps = 3;
	size_t		nlook = 2000000;
	int			quick = 0;
	int			fps[8],
				nfp = 0;
	static const uint64_t sizes[] = {10000, 100000, 1000000, 4000000};
	time_t		now = time(NULL);
	char		when[64];

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
			nlook = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc && nfp < 8)
			fps[nfp++] = atoi(argv[++i]);
		else if (strcmp(argv[i], "-q") == 0)
			quick = 1;
		else
		{
			fprintf(stderr, "usage: bench_bloom [-r reps] [-l lookups] [-q] [-f fingerprint_bits]...\n");
			return 2;
		}
	}
	if (nfp == 0)
	{
		if (quick)
			fps[nfp++] = 12;
		else
		{
			fps[nfp++] = 8;
			fps[nfp++] = 12;
			fps[nfp++] = 16;
		}
	}
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	printf("cuckoo core vs blocked Bloom (512-bit blocks) of the same bits -- %s, compiled with: %s\n",
		   when, BENCH_CFLAGS);
	printf("ns per lookup (thread CPU time, best of %d, %zu lookups, key hashed in the loop); "
		   "fpr measured on 2M absent keys\n", reps, nlook);
	printf("probe = cf_probe_int64 (inlined), many = cf_contains_many (256 at a time), "
		   "bloom = one at a time, batch = 32 at a time with prefetch; c/b = best cuckoo / best bloom\n\n");
	printf("%9s %3s %6s %2s %8s %8s %5s %5s | %4s %6s %6s %6s %6s %5s | %4s %6s %6s %6s %6s %5s\n",
		   "N", "fp", "bits/N", "k", "c fpr", "b fpr", "c add", "b add",
		   "hit", "probe", "many", "bloom", "batch", "c/b",
		   "hit", "probe", "many", "bloom", "batch", "c/b");
	for (int j = 0; j < nfp; j++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		{
			if (quick && sizes[i] != 1000000)
				continue;
			bench(sizes[i], fps[j], reps, nlook);
		}
	return 0;
}
