/*
 * bench_rtf_probe.c - the run-time join filter's probe (src/pg/prefilter,
 * issue 47) against a split-block Bloom filter of the same bits.
 *
 * For n build keys (random 64-bit hashes, as the glue's mixed hashes are),
 * the filter the run-time form builds (cf_filter_build at fpr 0.03, probed
 * in line with cf_probe_hash) and a split-block Bloom filter (Parquet's:
 * 256-bit blocks of eight 32-bit words, one bit per word, eight odd
 * multipliers) given as many bits as the cuckoo filter's bytes; both probed
 * with the same 4M hashes, 10% of them build keys.  Prints ns per probe
 * (best of 5 rounds) and the false-positive rate measured on the misses.
 *
 *   make -C bench rtfprobe-run
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo.h"

#define NPROBES		(4u << 20)
#define ROUNDS		5

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- split-block Bloom filter ---- */
static const uint32_t SALT[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U
};

typedef struct
{
	uint32_t   *words;
	uint64_t	nblocks;
} sbbf;

static inline void
sbbf_add(sbbf *f, uint64_t h)
{
	uint32_t   *b = f->words + 8 * (((h >> 32) * f->nblocks) >> 32);
	uint32_t	x = (uint32_t) h;

	for (int i = 0; i < 8; i++)
		b[i] |= 1U << ((x * SALT[i]) >> 27);
}

static inline int
sbbf_has(const sbbf *f, uint64_t h)
{
	const uint32_t *b = f->words + 8 * (((h >> 32) * f->nblocks) >> 32);
	uint32_t	x = (uint32_t) h;
	uint32_t	ok = 1;

	for (int i = 0; i < 8; i++)
		ok &= (b[i] >> ((x * SALT[i]) >> 27)) & 1;
	return (int) ok;
}

int
main(void)
{
	static const size_t sizes[] = {1000, 10000, 100000, 1000000, 4000000};
	uint64_t	seed = 47;
	uint64_t   *probes = malloc(NPROBES * sizeof(uint64_t));
	unsigned char *is_key = malloc(NPROBES);

	printf("| build keys | filter | bytes | bits/key | ns/probe (best of %d) | false positives |\n", ROUNDS);
	printf("|---|---|---|---|---|---|\n");
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		size_t		n = sizes[si];
		uint64_t   *keys = malloc(n * sizeof(uint64_t));
		char		err[256];
		cf_filter  *f;
		size_t		len;
		cf_probe	p;
		sbbf		bf;
		double		best_c = 1e30,
					best_b = 1e30;
		size_t		fp_c = 0,
					fp_b = 0,
					misses = 0;
		volatile size_t sink = 0;

		for (size_t i = 0; i < n; i++)
			keys[i] = splitmix(&seed);
		for (size_t i = 0; i < NPROBES; i++)
		{
			is_key[i] = (splitmix(&seed) % 10) == 0;
			probes[i] = is_key[i] ? keys[splitmix(&seed) % n] : splitmix(&seed);
			misses += !is_key[i];
		}
		qsort(keys, n, sizeof(uint64_t), cmp_u64);
		f = cf_filter_build(keys, n, 0, 0.04, CF_ENC_PACKED, 0, err, sizeof(err));
		if (f == NULL)
		{
			fprintf(stderr, "build: %s\n", err);
			return 1;
		}
		(void) cf_filter_bytes(f, &len);
		p = cf_probe_of(f);
		bf.nblocks = (len * 8 + 255) / 256;
		bf.words = calloc(bf.nblocks * 8, sizeof(uint32_t));
		for (size_t i = 0; i < n; i++)
			sbbf_add(&bf, keys[i]);
		for (int r = 0; r < ROUNDS; r++)
		{
			double		t0 = now_ns();
			size_t		c = 0;

			for (size_t i = 0; i < NPROBES; i++)
				c += cf_probe_hash(&p, probes[i]);
			t0 = now_ns() - t0;
			if (t0 < best_c)
				best_c = t0;
			sink += c;
			t0 = now_ns();
			c = 0;
			for (size_t i = 0; i < NPROBES; i++)
				c += sbbf_has(&bf, probes[i]);
			t0 = now_ns() - t0;
			if (t0 < best_b)
				best_b = t0;
			sink += c;
		}
		for (size_t i = 0; i < NPROBES; i++)
			if (!is_key[i])
			{
				fp_c += cf_probe_hash(&p, probes[i]);
				fp_b += sbbf_has(&bf, probes[i]);
			}
			else if (!cf_probe_hash(&p, probes[i]) || !sbbf_has(&bf, probes[i]))
			{
				fprintf(stderr, "a false negative\n");
				return 1;
			}
		printf("| %zu | cuckoo (inline %s) | %zu | %.1f | %.2f | %.2f%% |\n", n,
			   p.bucket_bytes ? "yes" : "no", len, len * 8.0 / n, best_c / NPROBES,
			   100.0 * fp_c / misses);
		printf("| | split-block Bloom | %zu | %.1f | %.2f | %.2f%% |\n",
			   (size_t) bf.nblocks * 32, bf.nblocks * 256.0 / n, best_b / NPROBES,
			   100.0 * fp_b / misses);
		(void) sink;
		free(bf.words);
		cf_filter_free(f);
		free(keys);
	}
	free(probes);
	free(is_key);
	return 0;
}
