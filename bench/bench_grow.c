/*
 * bench_grow.c - lookups in a grown filter against a one-table filter that
 * holds the same items at the same target rate, side by side in one
 * process, and the space growth costs.
 *
 * Grown: capacity n / 16, expansion 2, the n items added one by one with
 * cf_insert (it grows to 5 sub-filters).  One table: capacity n.  Present
 * and absent keys are probed in interleaved repetitions (one, grown, one,
 * grown, ...) and the ratio grown / one table of the time per lookup is
 * printed per repetition (min / median / max).  Then bits per item of a
 * filter grown from capacity 1,000 to 1M items against one table of 1M.
 *
 * Usage: bench_grow [-r reps] [-n keys] [-e fpr]   (default 7, 1000000, 0.01)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo.h"
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

static void *
alloc(size_t size, void *ctx)
{
	void	   *p = malloc(size);

	(void) ctx;
	if (p == NULL)
	{
		fprintf(stderr, "bench_grow: out of memory\n");
		exit(2);
	}
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* min / median / max of v[0 .. n) */
static void
print_row(const char *what, double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	printf("  %-40s %8.2f %8.2f %8.2f\n", what, v[0],
		   n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1]);
}

/* a filter of capacity cap at rate fpr (bucket 4, expansion 2) holding h[0 .. n) */
static cf_filter
filled(uint64_t cap, double fpr, const uint64_t *h, uint64_t n)
{
	cf_params	p = {cap, fpr, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED};
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(&p, err, sizeof(err));
	uint8_t    *buf;
	cf_filter	f;

	if (size == 0)
	{
		fprintf(stderr, "cf_create_size: %s\n", err);
		exit(1);
	}
	buf = alloc(size, NULL);
	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
	{
		fprintf(stderr, "cf_open: %s\n", err);
		exit(1);
	}
	for (uint64_t i = 0; i < n; i++)
	{
		uint8_t    *before = f.buf;

		if (cf_insert(&f, h[i], alloc, NULL) != CF_OK)
		{
			fprintf(stderr, "cf_insert failed at %llu\n", (unsigned long long) i);
			exit(1);
		}
		if (f.buf != before)
			free(before);
	}
	return f;
}

static volatile uint64_t sink;

/* ns per lookup of the hashes h[0 .. n) in f; *hits gets the count */
static double
probe(const cf_filter *f, const uint64_t *h, uint64_t n, uint64_t *hits)
{
	uint64_t	c = 0;
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i++)
		c += cf_contains(f, h[i]);
	t = cpu_now() - t;
	*hits = c;
	sink += c;
	return t * 1e9 / n;
}

int
main(int argc, char **argv)
{
	int			reps = 7;
	uint64_t	n = 1000000;
	double		fpr = 0.01;
	uint64_t   *pos,
			   *neg,
				hits;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc)
			fpr = atof(argv[++i]);
		else
		{
			fprintf(stderr, "usage: bench_grow [-r reps] [-n keys] [-e fpr]\n");
			return 2;
		}
	}
	if (reps < 1 || n < 16000)
	{
		fprintf(stderr, "bench_grow: need -r >= 1 and -n >= 16000\n");
		return 2;
	}
	pos = alloc(n * sizeof(uint64_t), NULL);
	neg = alloc(n * sizeof(uint64_t), NULL);
	for (uint64_t i = 0; i < n; i++)
	{
		pos[i] = cf_hash_int64((int64_t) key_at(i));
		neg[i] = cf_hash_int64((int64_t) key_at((UINT64_C(1) << 62) + i));
	}
	printf("bench_grow: %llu items, target fpr %g, bucket 4, %d interleaved reps\n",
		   (unsigned long long) n, fpr, reps);
	printf("flags: %s\n", BENCH_CFLAGS);

	{
		cf_filter	one = filled(n, fpr, pos, n);
		cf_filter	grown = filled(n / 16, fpr, pos, n);
		double	   *v = alloc(6 * reps * sizeof(double), NULL);
		double	   *op = v, *gp = v + reps, *oa = v + 2 * reps, *ga = v + 3 * reps,
				   *rp = v + 4 * reps, *ra = v + 5 * reps;
		uint64_t	fp_one = 0,
					fp_grown = 0;

		printf("one table: %u sub-filter, %zu bytes; grown 16x: %u sub-filters, %zu bytes\n",
			   one.nstages, one.len, grown.nstages, grown.len);
		probe(&one, pos, n, &hits);
		probe(&grown, pos, n, &hits);
		for (int r = 0; r < reps; r++)
		{
			op[r] = probe(&one, pos, n, &hits);
			if (hits != n)
				fprintf(stderr, "one table: %llu of %llu found\n", (unsigned long long) hits,
						(unsigned long long) n);
			gp[r] = probe(&grown, pos, n, &hits);
			if (hits != n)
				fprintf(stderr, "grown: %llu of %llu found\n", (unsigned long long) hits,
						(unsigned long long) n);
			oa[r] = probe(&one, neg, n, &fp_one);
			ga[r] = probe(&grown, neg, n, &fp_grown);
			rp[r] = gp[r] / op[r];
			ra[r] = ga[r] / oa[r];
		}
		printf("  %-40s %8s %8s %8s\n", "ns per lookup (hash precomputed)", "min", "median", "max");
		print_row("one table, present", op, reps);
		print_row("grown 16x, present", gp, reps);
		print_row("grown / one table, present (per rep)", rp, reps);
		print_row("one table, absent", oa, reps);
		print_row("grown 16x, absent", ga, reps);
		print_row("grown / one table, absent (per rep)", ra, reps);
		printf("  measured fpr: one table %.5f, grown %.5f\n", (double) fp_one / n,
			   (double) fp_grown / n);
		free(one.buf);
		free(grown.buf);
		free(v);
	}

	/* space: grown from capacity 1,000 against one table, same items */
	{
		cf_filter	one = filled(n, fpr, pos, n);
		cf_filter	grown = filled(1000, fpr, pos, n);
		uint64_t	slots = 0;

		for (uint32_t k = 0; k < grown.nstages; k++)
			slots += (uint64_t) grown.stages[k].nbuckets * grown.bucket_size;
		printf("\nspace, %llu items: one table %.2f bits/item (%zu bytes); grown from capacity 1000: "
			   "%.2f bits/item (%zu bytes, %u sub-filters, load %.3f); ratio %.2f\n",
			   (unsigned long long) n, 8.0 * one.len / n, one.len, 8.0 * grown.len / n, grown.len,
			   grown.nstages, (double) n / slots, (double) grown.len / one.len);
		printf("  %-5s %10s %10s %6s %7s\n", "table", "buckets", "items", "bits", "load");
		for (uint32_t k = 0; k < grown.nstages; k++)
		{
			const cf_stage *st = &grown.stages[k];

			printf("  %-5u %10u %10u %6u %7.3f\n", k, st->nbuckets, st->nitems, st->fpbits,
				   (double) st->nitems / ((double) st->nbuckets * grown.bucket_size));
		}
		free(one.buf);
		free(grown.buf);
	}
	free(pos);
	free(neg);
	return 0;
}
