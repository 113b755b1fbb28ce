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
 * Usage: bench_grow [-r reps] [-n keys] [-e fpr] [-x growth] [-g split|list|chain] [-s]
 *   (default 7, 1000000, 0.01, 16, split).  -g: the geometry of the grown
 *   filter (split: geometry 3, one table that doubles in place; list: the
 *   default of a growing filter, a list of hashes that becomes a split
 *   table; chain: the format-2 chain of sub-filters).  Lookups are timed one call per key and
 *   batched (cf_contains_many).  -s: the space sweep instead: bits per item
 *   and measured rate of a filter grown from capacity 1,000 at 41
 *   log-spaced sizes up to n, against one table built for each size.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdbool.h>
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

static volatile uint64_t sink2;
static int	geometry = CF_GEOM_SPLIT;
static double max_pause;		/* longest single insert of the last filled() (s) */

/* a filter of capacity cap at rate fpr (bucket 4, expansion 2) holding h[0 .. n) */
static cf_filter
filled_geom(uint64_t cap, double fpr, const uint64_t *h, uint64_t n, int geom)
{
	cf_params	p = {cap, fpr, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, geom};
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
	max_pause = 0;
	for (uint64_t i = 0; i < n; i++)
	{
		uint8_t    *before = f.buf;
		double		t = cpu_now();

		if (cf_insert(&f, h[i], alloc, NULL) != CF_OK)
		{
			fprintf(stderr, "cf_insert failed at %llu\n", (unsigned long long) i);
			exit(1);
		}
		if (f.buf != before)
		{
			free(before);
			t = cpu_now() - t;
			max_pause = t > max_pause ? t : max_pause;
		}
	}
	return f;
}

/* the grown filter: the geometry chosen with -g */
static cf_filter
filled(uint64_t cap, double fpr, const uint64_t *h, uint64_t n)
{
	return filled_geom(cap, fpr, h, n, geometry);
}

/* the comparator: one table built for n items (a chain table of level 0) */
static cf_filter
one_table(double fpr, const uint64_t *h, uint64_t n)
{
	return filled_geom(n, fpr, h, n, 0);
}

/* ns per lookup of h[0 .. n) through cf_contains_many */
static double
probe_many(const cf_filter *f, const uint64_t *h, uint64_t n, bool *found, uint64_t *hits)
{
	double		t = cpu_now();
	uint64_t	c = cf_contains_many(f, h, n, found);

	t = cpu_now() - t;
	*hits = c;
	sink2 += c;
	return t * 1e9 / n;
}

/*
 * Space sweep: a filter grown from capacity 1,000 (one insert at a time)
 * measured at 41 log-spaced sizes from 1,000 to n, against one table built
 * for each size (its bytes from cf_create_size); the rate measured with
 * 200,000 absent keys.
 */
static void
space_sweep(double fpr, const uint64_t *pos, const uint64_t *neg, uint64_t n)
{
	cf_params	p = {1000, fpr, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, geometry};
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(&p, err, sizeof(err));
	cf_filter	f;
	uint64_t	done = 0;
	double		logsum = 0,
				worst = 0,
				worst_full = 0,
				worst_fpr = 0;
	int			steps = 41,
				nfull = 0;

	uint8_t    *buf = alloc(size, NULL);

	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
		exit(1);
	printf("space sweep, %s, target %g: size, bits/item grown, one table, ratio, load, measured rate\n",
		   geometry == CF_GEOM_SPLIT ? "split" : geometry == CF_GEOM_LIST ? "list" : "chain", fpr);
	for (int k = 0; k < steps; k++)
	{
		uint64_t	target = (uint64_t) (1000.0 * pow((double) n / 1000.0, (double) k / (steps - 1)) + 0.5);
		cf_params	q = {target, fpr, 4, CF_DEFAULT_MAX_KICKS, 0, 0, 0};
		double		one_bits,
					bits,
					load;
		uint64_t	fp = 0,
					slots = 0,
					used = 0;

		for (; done < target; done++)
		{
			uint8_t    *before = f.buf;

			if (cf_insert(&f, pos[done], alloc, NULL) != CF_OK)
				exit(1);
			if (f.buf != before)
				free(before);
		}
		for (uint64_t i = 0; i < 200000; i++)
			fp += cf_contains(&f, neg[i]);
		for (uint32_t j = 0; j < f.nstages; j++)
		{
			slots += (uint64_t) f.stages[j].nbuckets * 4;
			used += f.stages[j].nitems;
		}
		load = (double) used / slots;
		one_bits = 8.0 * cf_create_size(&q, err, sizeof(err)) / target;
		bits = 8.0 * f.len / target;
		logsum += log(bits / one_bits);
		worst = bits / one_bits > worst ? bits / one_bits : worst;
		if (load >= 0.9)
		{
			nfull++;
			worst_full = bits / one_bits > worst_full ? bits / one_bits : worst_full;
		}
		worst_fpr = fp / 200000.0 > worst_fpr ? fp / 200000.0 : worst_fpr;
		printf("  %9llu %7.2f %7.2f %6.3f %6.3f %8.4f%%\n", (unsigned long long) target, bits, one_bits,
			   bits / one_bits, load, 100.0 * fp / 200000.0);
	}
	printf("  geometric mean %.3f, worst %.3f, worst where load >= 0.9 (%d sizes) %.3f, worst rate %.4f%% (%.2fx target)\n",
		   exp(logsum / steps), worst, nfull, worst_full, 100 * worst_fpr, worst_fpr / fpr);
	free(f.buf);
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
	uint64_t	growth = 16;
	int			sweep = 0;
	bool	   *found;
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
		else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc)
			growth = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc)
		{
			i++;
			geometry = strcmp(argv[i], "chain") == 0 ? 0 :
				strcmp(argv[i], "list") == 0 ? CF_GEOM_LIST : CF_GEOM_SPLIT;
		}
		else if (strcmp(argv[i], "-s") == 0)
			sweep = 1;
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
	found = alloc(n * sizeof(bool), NULL);
	if (sweep)
	{
		space_sweep(fpr, pos, neg, n);
		return 0;
	}
	printf("bench_grow: %llu items, target fpr %g, bucket 4, %d interleaved reps, grown %llux, %s\n",
		   (unsigned long long) n, fpr, reps, (unsigned long long) growth,
		   geometry == CF_GEOM_SPLIT ? "split (geometry 3)" :
		   geometry == CF_GEOM_LIST ? "list, then split (geometries 4, 3)" : "chain (geometry 2)");
	printf("flags: %s\n", BENCH_CFLAGS);

	{
		cf_filter	one = one_table(fpr, pos, n);
		cf_filter	grown = filled(n / growth, fpr, pos, n);
		double	   *v = alloc(12 * reps * sizeof(double), NULL);
		double	   *op = v, *gp = v + reps, *oa = v + 2 * reps, *ga = v + 3 * reps,
				   *rp = v + 4 * reps, *ra = v + 5 * reps, *mo = v + 6 * reps, *mg = v + 7 * reps,
				   *mr = v + 8 * reps, *no = v + 9 * reps, *ng = v + 10 * reps, *nr = v + 11 * reps;
		uint64_t	fp_one = 0,
					fp_grown = 0;
		double		pause = max_pause;

		printf("one table: %u sub-filter, %zu bytes, lookup path %d; grown %llux: %u sub-filters (level %u, width %u), %zu bytes, lookup path %d; longest insert that grew it %.1f ms\n",
			   one.nstages, one.len, one.lookup, (unsigned long long) growth, grown.nstages,
			   grown.stages[0].level, grown.stages[0].fpbits, grown.len, grown.lookup, pause * 1e3);
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
			mo[r] = probe_many(&one, pos, n, found, &hits);
			mg[r] = probe_many(&grown, pos, n, found, &hits);
			if (hits != n)
				fprintf(stderr, "grown, batched: %llu of %llu found\n", (unsigned long long) hits,
						(unsigned long long) n);
			no[r] = probe_many(&one, neg, n, found, &hits);
			ng[r] = probe_many(&grown, neg, n, found, &hits);
			rp[r] = gp[r] / op[r];
			ra[r] = ga[r] / oa[r];
			mr[r] = mg[r] / mo[r];
			nr[r] = ng[r] / no[r];
		}
		printf("  %-40s %8s %8s %8s\n", "ns per lookup (hash precomputed)", "min", "median", "max");
		print_row("one table, present", op, reps);
		print_row("grown, present", gp, reps);
		print_row("grown / one table, present (per rep)", rp, reps);
		print_row("one table, absent", oa, reps);
		print_row("grown, absent", ga, reps);
		print_row("grown / one table, absent (per rep)", ra, reps);
		print_row("batched: one table, present", mo, reps);
		print_row("batched: grown, present", mg, reps);
		print_row("batched: grown / one, present", mr, reps);
		print_row("batched: one table, absent", no, reps);
		print_row("batched: grown, absent", ng, reps);
		print_row("batched: grown / one, absent", nr, reps);
		printf("  measured fpr: one table %.5f, grown %.5f\n", (double) fp_one / n,
			   (double) fp_grown / n);
		free(one.buf);
		free(grown.buf);
		free(v);
	}
	free(pos);
	free(neg);
	return 0;
}
