/*
 * bench_semisort.c - semi-sorted buckets (table encoding 1) against
 * bit-packed ones (encoding 0) in one process, on the same keys: bits per
 * item at the measured false-positive rate against an optimal Bloom filter
 * for that rate, and lookups and adds as ratios of interleaved runs.
 *
 * Not a test: it prints figures (bench/README.md, "Semi-sorted buckets").
 * Usage: bench_semisort [-q] [-r runs]
 *   -q       1M items only
 *   -r runs  interleaved runs per timing (default 5; median, min and max)
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bloom.h>

#include "cuckoo_view.h"
#include "bench_keys.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

#define NEG_KEYS	10000000	/* absent keys probed for the measured rate */
#define PROBES		2000000		/* timed lookups of each kind per run */
#define BATCH		1024		/* cf_contains_many batch */
#define MAX_RUNS	15
#define LN2_SQ		0.480453013918201	/* ln(2)^2 */

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* median, min and max of r values */
static void
summary(double *v, int r, double *med, double *lo, double *hi)
{
	qsort(v, (size_t) r, sizeof(double), cmp_double);
	*med = r % 2 ? v[r / 2] : (v[r / 2 - 1] + v[r / 2]) / 2;
	*lo = v[0];
	*hi = v[r - 1];
}

typedef struct side
{
	cf_params	p;
	size_t		size;
	uint8_t    *buf;
	cf_filter	f;
} side;

static void
side_open(side *s, uint64_t n, double fpr, int enc)
{
	char		err[CF_ERRLEN];
	cf_params	p = {n, fpr, 4, CF_DEFAULT_MAX_KICKS, 0, enc, 0};

	s->p = p;
	s->size = cf_create_size(&p, err, sizeof(err));
	if (s->size == 0)
	{
		fprintf(stderr, "bench_semisort: %s\n", err);
		exit(1);
	}
	s->buf = malloc(s->size);
	if (!s->buf)
		exit(1);
}

/* a fresh filter holding keys[0 .. n); the CPU seconds the adds took */
static double
side_fill(side *s, const uint64_t *keys, uint64_t n)
{
	double		t;
	char		err[CF_ERRLEN];

	cf_create(s->buf, &s->p);
	if (!cf_open(&s->f, s->buf, s->size, err, sizeof(err)))
	{
		fprintf(stderr, "bench_semisort: %s\n", err);
		exit(1);
	}
	t = cpu_now();
	for (uint64_t i = 0; i < n; i++)
		if (cf_add(&s->f, keys[i]) != CF_OK)
		{
			fprintf(stderr, "bench_semisort: full at %llu of %llu\n",
					(unsigned long long) i, (unsigned long long) n);
			exit(1);
		}
	return cpu_now() - t;
}

static double
side_probe(const side *s, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	uint64_t	h = 0;
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i++)
		h += cf_contains(&s->f, keys[i]);
	t = cpu_now() - t;
	*hits = h;
	return t;
}

static double
side_probe_many(const side *s, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	static bool found[BATCH];
	uint64_t	h = 0;
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i += BATCH)
		h += cf_contains_many(&s->f, keys + i, n - i < BATCH ? n - i : BATCH, found);
	t = cpu_now() - t;
	*hits = h;
	return t;
}

/* bits per item of an optimal Bloom filter for rate p */
static double
bloom_bits_for(double p)
{
	return -log(p) / LN2_SQ;
}

static void
run(uint64_t n, double target, int runs, const uint64_t *pos, const uint64_t *neg)
{
	side		s[2];
	double		add[2][MAX_RUNS],
				ratio[6][MAX_RUNS],
				tns[2][5][MAX_RUNS];
	double		fpr[2],
				bits[2];
	const char *what[6] = {"add", "present", "absent", "present, batched", "absent, batched",
	"bits per item"};
	uint64_t	hits;
	int			r;

	for (int e = 0; e < 2; e++)
		side_open(&s[e], n, target, e);
	for (r = 0; r < runs; r++)
	{
		double		t[2][5];

		/* alternate which side goes first, so drift hits both alike */
		for (int k = 0; k < 2; k++)
		{
			int			e = (r + k) % 2;

			t[e][0] = add[e][r] = side_fill(&s[e], pos, n);
		}
		for (int kind = 1; kind < 5; kind++)
			for (int k = 0; k < 2; k++)
			{
				int			e = (r + k) % 2;
				const uint64_t *keys = kind % 2 ? pos : neg;
				uint64_t	m = PROBES < n ? PROBES : n;

				t[e][kind] = kind < 3 ? side_probe(&s[e], keys, m, &hits) :
					side_probe_many(&s[e], keys, m, &hits);
				if (kind % 2 && hits != m)
				{
					fprintf(stderr, "bench_semisort: false negative (encoding %d)\n", e);
					exit(1);
				}
			}
		for (int kind = 0; kind < 5; kind++)
		{
			ratio[kind][r] = t[1][kind] / t[0][kind];
			for (int e = 0; e < 2; e++)
				tns[e][kind][r] = t[e][kind] * 1e9 / (kind == 0 ? n : (PROBES < n ? PROBES : n));
		}
	}
	for (int e = 0; e < 2; e++)
	{
		uint64_t	fp = 0;

		for (uint64_t i = 0; i < NEG_KEYS; i++)
			fp += cf_contains(&s[e].f, neg[i]);
		fpr[e] = (double) fp / NEG_KEYS;
		bits[e] = 8.0 * s[e].size / n;
	}
	printf("\n%llu items, target %g (%u-bit fingerprints):\n", (unsigned long long) n, target,
		   s[0].f.stages[0].fpbits);
	for (int e = 0; e < 2; e++)
	{
		double		med,
					lo,
					hi;
		double		ns[MAX_RUNS];

		for (r = 0; r < runs; r++)
			ns[r] = add[e][r] / n * 1e9;
		summary(ns, runs, &med, &lo, &hi);
		printf("  encoding %d: %zu bytes, %.3f bits/item, measured fpr %.5f%%, optimal Bloom at that rate %.3f bits/item: %.3fx; add %.1f ns\n",
			   e, s[e].size, bits[e], 100 * fpr[e], bloom_bits_for(fpr[e]),
			   bits[e] / bloom_bits_for(fpr[e]), med);
	}
	{
		struct bloom b;
		uint64_t	fp = 0;

		if (bloom_init(&b, (int) n, target) == 0)
		{
			for (uint64_t i = 0; i < n; i++)
				bloom_add(&b, &pos[i], 8);
			for (uint64_t i = 0; i < NEG_KEYS; i++)
				fp += bloom_check(&b, &neg[i], 8) == 1;
			printf("  libbloom (target %g): %d bytes, %.3f bits/item, measured fpr %.5f%%, optimal Bloom at that rate %.3f bits/item: %.3fx\n",
				   target, b.bytes, 8.0 * b.bytes / n, 100.0 * fp / NEG_KEYS,
				   bloom_bits_for((double) fp / NEG_KEYS),
				   8.0 * b.bytes / n / bloom_bits_for((double) fp / NEG_KEYS));
			bloom_free(&b);
		}
	}
	printf("  encoding 1 / encoding 0 (time per operation, %d interleaved runs: median [min, max]):\n", runs);
	for (int kind = 0; kind < 5; kind++)
	{
		double		med,
					lo,
					hi;

		double		m0,
					m1,
					x;

		summary(ratio[kind], runs, &med, &lo, &hi);
		summary(tns[0][kind], runs, &m0, &x, &x);
		summary(tns[1][kind], runs, &m1, &x, &x);
		printf("    %-18s %.2fx [%.2f, %.2f]   (medians %.1f ns vs %.1f ns)\n", what[kind], med, lo, hi,
			   m1, m0);
	}
	for (int e = 0; e < 2; e++)
		free(s[e].buf);
}

int
main(int argc, char **argv)
{
	static const uint64_t sizes[] = {1000000, 10000000};
	static const double targets[] = {0.01, 0.001};
	int			nsizes = 2,
				runs = 5;
	uint64_t	maxn;
	uint64_t   *pos,
			   *neg;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-q") == 0)
			nsizes = 1;
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
	}
	if (runs < 1 || runs > MAX_RUNS)
		runs = 5;
	maxn = sizes[nsizes - 1];
	pos = malloc(maxn * sizeof(uint64_t));
	neg = malloc(NEG_KEYS * sizeof(uint64_t));
	if (!pos || !neg)
		return 1;
	for (uint64_t i = 0; i < maxn; i++)
		pos[i] = key_at(i);
	for (uint64_t i = 0; i < NEG_KEYS; i++)
		neg[i] = key_at((UINT64_C(1) << 62) + i);
	printf("bench_semisort: flags %s; keys are the hashes; bucket size 4, capacity = items, expansion 0\n",
		   BENCH_CFLAGS);
	for (int k = 0; k < nsizes; k++)
		for (int t = 0; t < 2; t++)
			run(sizes[k], targets[t], runs, pos, neg);
	free(pos);
	free(neg);
	return 0;
}
