/*
 * ab_core.c - the core half of bench/ab.sh: one pass over the core
 * operations whose speed issue 35 must keep (lookups, growth, union, the
 * bulk build cf_agg uses), printed as machine-readable lines.  ab.sh builds
 * this one file against two revisions of src/core with the same flags and
 * runs the two programs in turn, several times; it compares the medians.
 *
 * Only the public API of cuckoo.h is used (cf_params, cf_create_size,
 * cf_create, cf_open, cf_add, cf_insert, cf_contains, cf_hash_int64,
 * cf_build_work_size, cf_build, cf_sort_hashes, cf_union_size, cf_union), so
 * one driver builds against both sides while that API stays the same.
 *
 * Usage: ab_core [-q] [-p passes]
 *   -q   quick: the small size only (1M keys), fewer lookups and unions
 *   -p   passes per measurement, the best is printed (default 3)
 * Output, one line each:
 *   m NAME VALUE UNIT   a time: the best of the passes, CPU time of this
 *                       thread (CLOCK_THREAD_CPUTIME_ID), lower is faster
 *   a NAME VALUE        an answer (false positives counted, items held):
 *                       ab.sh checks both sides give the same
 *   d NAME HEX          FNV-1a 64 of a filter's bytes: ab.sh checks both
 *                       sides build byte-identical filters (rule 4)
 * Exits 1 with a message if a present key is not found (a false negative)
 * or an operation fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>

#include "cuckoo_view.h"

static int	passes = 3;
static volatile uint64_t sink;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "ab_core: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void *
xalloc(size_t size, void *ctx)
{
	void	   *p = malloc(size);

	(void) ctx;
	if (p == NULL)
		die("out of memory", NULL);
	return p;
}

/* key i: splitmix64 of seed + i * gamma (a bijection: distinct i, distinct keys) */
static uint64_t
key_at(uint64_t i)
{
	uint64_t	z = UINT64_C(0x0123456789abcdef) + i * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* present keys: i < 2^40 (offset picks a disjoint range); absent: i >= 2^62 */
static int64_t *
keys(uint64_t first, uint64_t n)
{
	int64_t    *k = xalloc(n * sizeof(int64_t), NULL);

	for (uint64_t i = 0; i < n; i++)
		k[i] = (int64_t) key_at(first + i);
	return k;
}

static uint64_t
fnv(const uint8_t *p, size_t n)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void
put_time(const char *name, double v, const char *unit)
{
	printf("m %s %.4f %s\n", name, v, unit);
}

static void
put_digest(const char *name, const cf_filter *f)
{
	printf("d %s %016llx\n", name, (unsigned long long) fnv(f->buf, f->len));
}

/* an empty filter for p */
static cf_filter
empty(cf_params p)
{
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(&p, err, sizeof(err));
	uint8_t    *buf;
	cf_filter	f;

	if (size == 0)
		die("cf_create_size", err);
	buf = xalloc(size, NULL);
	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
		die("cf_open", err);
	return f;
}

/* adds k[0 .. n) with cf_insert (growing) or cf_add (fixed); CPU s */
static double
fill(cf_filter *f, const int64_t *k, uint64_t n, bool grow)
{
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i++)
	{
		uint8_t    *before = f->buf;
		cf_status	s = grow ? cf_insert(f, cf_hash_int64(k[i]), xalloc, NULL)
			: cf_add(f, cf_hash_int64(k[i]));

		if (s != CF_OK)
			die("an add failed", grow ? "cf_insert" : "cf_add");
		if (f->buf != before)
			free(before);
	}
	return cpu_now() - t;
}

/*
 * A filter of p holding k[0 .. n): built passes times (the best time goes
 * to metric name, ns per add, unless name is NULL); the last one is kept.
 */
static cf_filter
built(const char *name, cf_params p, const int64_t *k, uint64_t n, bool grow)
{
	double		best = 0;
	cf_filter	f;
	int			np = passes;

	for (int r = 0; r < np; r++)
	{
		double		t;

		f = empty(p);
		t = fill(&f, k, n, grow);
		best = (r == 0 || t < best) ? t : best;
		if (r < np - 1)
			free(f.buf);
	}
	if (name)
		put_time(name, best * 1e9 / n, "ns/add");
	return f;
}

/*
 * Lookups of m keys (present k[0 .. m), then absent a[0 .. m)), each
 * pass over every key, repeated so at least `total` lookups are timed;
 * metrics NAME.pos and NAME.neg in ns per lookup (the value hashed inside
 * the loop, as the extension does); answers NAME.fp.
 */
static void
lookups(const char *name, const cf_filter *f, const int64_t *k, const int64_t *a,
		uint64_t m, uint64_t total)
{
	uint64_t	rounds = (total + m - 1) / m;
	char		buf[128];

	for (int side = 0; side < 2; side++)
	{
		const int64_t *x = side ? a : k;
		double		best = 0;
		uint64_t	hits = 0;

		for (int r = 0; r < passes; r++)
		{
			double		t = cpu_now();

			hits = 0;
			for (uint64_t j = 0; j < rounds; j++)
				for (uint64_t i = 0; i < m; i++)
					hits += cf_contains(f, cf_hash_int64(x[i]));
			t = cpu_now() - t;
			best = (r == 0 || t < best) ? t : best;
		}
		sink += hits;
		if (side == 0 && hits != rounds * m)
			die("a false negative", name);
		snprintf(buf, sizeof(buf), "%s.%s", name, side ? "neg" : "pos");
		put_time(buf, best * 1e9 / (rounds * m), "ns/lookup");
		if (side)
			printf("a %s.fp %llu\n", name, (unsigned long long) (hits / rounds));
	}
}

/* cf_union of a and b, `times` times per pass; metric in us per union */
static void
unions(const char *name, const cf_filter *a, const cf_filter *b, int times)
{
	char		err[CF_ERRLEN];
	size_t		cap = cf_union_size(a, b, err, sizeof(err));
	uint8_t    *out;
	cf_filter	u;
	double		best = 0;

	if (cap == 0)
		die("cf_union_size", err);
	out = xalloc(cap, NULL);
	for (int r = 0; r < passes; r++)
	{
		double		t = cpu_now();

		for (int i = 0; i < times; i++)
		{
			size_t		n = cf_union(a, b, out, cap, &u, err, sizeof(err));

			if (n == 0)
				die("cf_union", err);
			sink += n;
		}
		t = cpu_now() - t;
		best = (r == 0 || t < best) ? t : best;
	}
	put_time(name, best * 1e6 / times, "us/union");
	put_digest(name, &u);
	free(out);
}

/* `times` small filters of p, n adds each from empty: ns per add (cf_create included) */
static void
small_adds(const char *name, cf_params p, const int64_t *k, uint64_t n, int times)
{
	double		best = 0;

	for (int r = 0; r < passes; r++)
	{
		double		t = cpu_now();

		for (int i = 0; i < times; i++)
		{
			cf_filter	f = empty(p);

			fill(&f, k + (uint64_t) i * n, n, true);
			sink += f.len;
			free(f.buf);
		}
		t = cpu_now() - t;
		best = (r == 0 || t < best) ? t : best;
	}
	put_time(name, best * 1e9 / ((double) n * times), "ns/add");
}

/* cf_build (cf_agg's bulk build) of n sorted distinct hashes, capacity n + n/16 */
static void
bulk(const char *name, const int64_t *k, uint64_t n)
{
	uint64_t   *h = xalloc(n * sizeof(uint64_t), NULL);
	uint64_t   *tmp = xalloc(n * sizeof(uint64_t), NULL);
	cf_params	p = {n + n / 16, 0.01, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, 0};
	cf_filter	f;
	double		best = 0;
	void	   *work;
	size_t		worklen;

	for (uint64_t i = 0; i < n; i++)
		h[i] = cf_hash_int64(k[i]);
	cf_sort_hashes(h, tmp, n);	/* distinct keys: distinct hashes, bar a 2^-24 chance */
	for (int r = 0; r < passes; r++)
	{
		double		t;

		f = empty(p);
		worklen = cf_build_work_size(&f, n);
		work = xalloc(worklen ? worklen : 1, NULL);
		t = cpu_now();
		if (!cf_build(&f, h, n, work, worklen))
			die("cf_build failed", name);
		t = cpu_now() - t;
		best = (r == 0 || t < best) ? t : best;
		free(work);
		if (r < passes - 1)
			free(f.buf);
	}
	put_time(name, best * 1e9 / n, "ns/item");
	put_digest(name, &f);
	for (uint64_t i = 0; i < n; i++)
		if (!cf_contains(&f, h[i]))
			die("a false negative", name);
	free(f.buf);
	free(h);
	free(tmp);
}

int
main(int argc, char **argv)
{
	bool		quick = false;
	uint64_t	sizes[2] = {1000000, 4000000};
	int			nsizes;
	uint64_t	nmax;
	int64_t    *pos,
			   *neg,
			   *pos2;
	double		t0 = cpu_now();

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-q") == 0)
			quick = true;
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
			passes = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: ab_core [-q] [-p passes]\n");
			return 2;
		}
	}
	nsizes = quick ? 1 : 2;
	nmax = sizes[nsizes - 1];
	pos = keys(0, nmax);
	neg = keys(UINT64_C(1) << 62, nmax);
	pos2 = keys(UINT64_C(1) << 40, nmax);	/* a second disjoint set, for unions */

	for (int s = 0; s < nsizes; s++)
	{
		uint64_t	n = sizes[s];
		uint64_t	total = quick ? 1000000 : 2000000;	/* lookups timed per pass */
		const char *sz = n >= 1000000 ? (n == 1000000 ? "1M" : "4M") : "?";
		char		name[96];
		/* fixed: one chain table of capacity n, expansion 0 (cf_add) */
		cf_params	fixed = {n, 0.01, 4, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_PACKED, 0};
		cf_params	semi = {n, 0.01, 4, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_SEMISORT, 0};
		/* grown: chain sub-filters from n/16 (5 of them); split from 1,000 */
		cf_params	chain = {n / 16, 0.01, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, CF_GEOM_CHAIN};
		cf_params	split = {1000, 0.01, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, CF_GEOM_SPLIT};
		cf_params	list = {1000, 0.01, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, CF_GEOM_LIST};
		cf_filter	f;

		snprintf(name, sizeof(name), "add.fixed.%s", sz);
		f = built(name, fixed, pos, n, false);
		snprintf(name, sizeof(name), "lookup.fixed.%s", sz);
		put_digest(name, &f);
		lookups(name, &f, pos, neg, n, total);
		free(f.buf);

		snprintf(name, sizeof(name), "add.semisort.%s", sz);
		f = built(name, semi, pos, n, false);
		snprintf(name, sizeof(name), "lookup.semisort.%s", sz);
		put_digest(name, &f);
		lookups(name, &f, pos, neg, n, total);
		free(f.buf);

		snprintf(name, sizeof(name), "grow.chain.%s", sz);
		f = built(name, chain, pos, n, true);
		snprintf(name, sizeof(name), "lookup.chain.%s", sz);
		put_digest(name, &f);
		lookups(name, &f, pos, neg, n, total);
		free(f.buf);

		snprintf(name, sizeof(name), "grow.split.%s", sz);
		f = built(name, split, pos, n, true);
		snprintf(name, sizeof(name), "lookup.split.%s", sz);
		put_digest(name, &f);
		lookups(name, &f, pos, neg, n, total);
		if (s == 0)
		{
			/* union of two split tables of n items each (disjoint keys) */
			cf_filter	g = built(NULL, split, pos2, n, true);

			unions("union.split.1M+1M", &f, &g, quick ? 3 : 5);
			free(g.buf);
		}
		free(f.buf);

		if (s == 0)
		{
			/* a list grown into split tables: the SQL default's path */
			f = built("grow.list.1M", list, pos, n, true);
			put_digest("grow.list.1M", &f);
			free(f.buf);
		}

		snprintf(name, sizeof(name), "build.%s", sz);
		bulk(name, pos, n);
	}

	/* lists: 200 values (a list at capacity 1000); lookups and a union of two */
	{
		cf_params	list = {1000, 0.01, 4, CF_DEFAULT_MAX_KICKS, 2, CF_ENC_PACKED, CF_GEOM_LIST};
		cf_filter	f = built(NULL, list, pos, 200, true),
					g = built(NULL, list, pos2, 200, true);
		cf_filter	a = built(NULL, list, pos, 100, true),
					b = built(NULL, list, pos2, 100, true);

		small_adds("add.list.200", list, pos, 200, quick ? 2000 : 5000);
		put_digest("lookup.list.200", &f);
		lookups("lookup.list.200", &f, pos, neg, 200, quick ? 1000000 : 2000000);
		unions("union.list.100+100", &a, &b, quick ? 20000 : 50000);
		unions("union.list.200+200", &f, &g, quick ? 5000 : 10000);
		free(f.buf);
		free(g.buf);
		free(a.buf);
		free(b.buf);
	}
	printf("# ab_core: %s, %d passes, %.1f s CPU, sink %llu\n", quick ? "quick" : "full",
		   passes, cpu_now() - t0, (unsigned long long) (sink & 1));
	free(pos);
	free(neg);
	free(pos2);
	return 0;
}
