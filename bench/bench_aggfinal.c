/*
 * bench_aggfinal.c - the final step of an all-distinct cf_agg, outside
 * PostgreSQL: what it costs to sort and deduplicate the hashes and to bulk
 * build the filter, timed apart, with the filter's bytes summarized so that
 * two revisions can be checked to build the same filter.
 *
 * The n hashes are cf_hash_int64(1 .. n) (what cf_agg(bigint) of 1 .. n
 * holds), split into 256 parts by their top 8 bits as cf_agg's state splits
 * them.  Each repetition then does what cf_agg's final function does with
 * such a state: every part copied out, sorted (cf_sort_hashes_below) and
 * deduplicated (cf_unique_hashes) in cache and written back, then one
 * cf_build_runs of the parts into a chain table of capacity n + n/16 at the
 * rate given, with a fresh work area (as a query has).  CPU time of the
 * thread; min / median / max over the repetitions.
 *
 * Usage: bench_aggfinal [-n N] [-r reps] [-e fpr] [-s]   (5000000, 7, 0.01;
 *   -s: semi-sorted buckets)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo_view.h"

#define NPARTS	256

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *
xmalloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "bench_aggfinal: out of memory\n");
		exit(1);
	}
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* prints min / median / max of v[0 .. n) (sorts v) */
static void
report(const char *what, double *v, int n, uint64_t items)
{
	qsort(v, (size_t) n, sizeof(double), cmp_double);
	printf("  %-26s %9.1f %9.1f %9.1f ms   %6.2f ns an item (median)\n", what,
		   v[0] * 1e3, v[n / 2] * 1e3, v[n - 1] * 1e3, v[n / 2] * 1e9 / (double) items);
}

int
main(int argc, char **argv)
{
	uint64_t	n = 5000000;
	int			reps = 7;
	double		fpr = 0.01;
	int			enc = CF_ENC_PACKED;
	size_t		start[NPARTS + 1];
	size_t		pos[NPARTS];
	size_t		largest = 0;
	uint64_t   *orig,
			   *parts,
			   *buf;
	double	   *tsort,
			   *tbuild;
	uint64_t	digest = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc)
			fpr = atof(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0)
			enc = CF_ENC_SEMISORT;
		else
		{
			fprintf(stderr, "usage: bench_aggfinal [-n N] [-r reps] [-e fpr] [-s]\n");
			return 2;
		}
	}
	if (n == 0 || reps < 1)
		return 2;

	/* the state's parts, as cf_agg's transition leaves them (unsorted) */
	orig = xmalloc(n * sizeof(uint64_t));
	parts = xmalloc(n * sizeof(uint64_t));
	memset(start, 0, sizeof(start));
	for (uint64_t i = 0; i < n; i++)
		start[(cf_hash_int64((int64_t) (i + 1)) >> 56) + 1]++;
	for (int p = 0; p < NPARTS; p++)
	{
		if (start[p + 1] > largest)
			largest = start[p + 1];
		start[p + 1] += start[p];
	}
	memcpy(pos, start, sizeof(pos));
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	h = cf_hash_int64((int64_t) (i + 1));

		orig[pos[h >> 56]++] = h;
	}
	buf = xmalloc(2 * largest * sizeof(uint64_t));
	tsort = xmalloc((size_t) reps * sizeof(double));
	tbuild = xmalloc((size_t) reps * sizeof(double));

	printf("bench_aggfinal: %llu hashes (cf_hash_int64 of 1 .. n) in %d parts, fpr %g, %s buckets, %d reps\n",
		   (unsigned long long) n, NPARTS, fpr, enc == CF_ENC_PACKED ? "packed" : "semi-sorted", reps);
	for (int r = 0; r < reps; r++)
	{
		cf_run		runs[NPARTS];
		uint64_t	kept = 0;
		cf_params	p;
		cf_filter	f;
		size_t		size,
					worklen;
		uint8_t    *fb;
		void	   *work;
		double		t0,
					t1;
		uint64_t	fnv = UINT64_C(1469598103934665603);

		memcpy(parts, orig, n * sizeof(uint64_t));
		t0 = cpu_now();
		for (int k = 0; k < NPARTS; k++)
		{
			size_t		m = start[k + 1] - start[k],
						u;

			memcpy(buf, parts + start[k], m * sizeof(uint64_t));
			cf_sort_hashes_below(buf, buf + m, m, 64 - 8);
			u = cf_unique_hashes(buf + m, m);
			memcpy(parts + start[k], buf + m, u * sizeof(uint64_t));
			runs[k].h = parts + start[k];
			runs[k].n = u;
			kept += u;
		}
		tsort[r] = cpu_now() - t0;

		p.capacity = kept + kept / 16;
		p.fpr = fpr;
		p.bucket_size = CF_DEFAULT_BUCKET_SIZE;
		p.max_kicks = CF_DEFAULT_MAX_KICKS;
		p.expansion = CF_DEFAULT_EXPANSION;
		p.encoding = enc;
		p.geometry = CF_GEOM_CHAIN;
		size = cf_create_size(&p, NULL, 0);
		if (size == 0)
		{
			fprintf(stderr, "bench_aggfinal: no filter for these parameters\n");
			return 1;
		}
		fb = xmalloc(size);
		cf_create(fb, &p);
		if (!cf_open(&f, fb, size, NULL, 0))
			return 1;
		worklen = cf_build_work_size(&f, kept);
		work = xmalloc(worklen);
		t0 = cpu_now();
		if (!cf_build_runs(&f, runs, NPARTS, work, worklen))
		{
			fprintf(stderr, "bench_aggfinal: the build failed\n");
			return 1;
		}
		t1 = cpu_now();
		tbuild[r] = t1 - t0;
		for (size_t i = 0; i < size; i++)
		{
			fnv ^= fb[i];
			fnv *= UINT64_C(1099511628211);
		}
		if (r > 0 && fnv != digest)
		{
			fprintf(stderr, "bench_aggfinal: repetitions built different filters\n");
			return 1;
		}
		digest = fnv;
		if (r == 0)
			printf("  %llu distinct, filter %zu bytes, FNV-1a %016llx\n",
				   (unsigned long long) kept, size, (unsigned long long) fnv);
		free(work);
		free(fb);
	}
	printf("  %-26s %9s %9s %9s\n", "CPU time", "min", "median", "max");
	report("sort + dedup (256 parts)", tsort, reps, n);
	report("cf_build_runs", tbuild, reps, n);
	free(orig);
	free(parts);
	free(buf);
	free(tsort);
	free(tbuild);
	return 0;
}
