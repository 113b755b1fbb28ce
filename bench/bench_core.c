/*
 * bench_core.c - micro-benchmark of the cuckoo core against Debian's libbloom:
 * throughput, bits per item and measured false-positive rate, side by side.
 *
 * Not a test: it prints figures and a verdict per target, and always exits 0
 * unless it cannot run at all.  See bench/README.md for what each column means.
 *
 * Usage: bench_core [-q] [-r reps]
 *   -q       quick run: N = 1M only, one repetition
 *   -r reps  repetitions per throughput figure (default 3, the best is kept)
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
#ifndef BENCH_CORE_REV
#define BENCH_CORE_REV "?"
#endif

#define NEG_KEYS    10000000    /* absent keys probed for the measured rate */
#define MAX_KEYS    12300000    /* largest capacity in the space table */
#define LN2_SQ      0.480453013918201   /* ln(2)^2 */

static const double targets[] = {0.01, 0.005, 0.001};
#define NTARGETS ((int) (sizeof(targets) / sizeof(targets[0])))
static const uint64_t sizes[] = {1000000, 10000000};
#define NSIZES ((int) (sizeof(sizes) / sizeof(sizes[0])))
static const uint64_t space_caps[] = {1000, 1000000, 10000000, 12300000};
#define NSPACE ((int) (sizeof(space_caps) / sizeof(space_caps[0])))

/*
 * Every target <= 0.5%: a filter depends on the target only through its
 * fingerprint width, so one target per width covers them all (0.5% gives 11
 * bits with bucket size 4, each next one a bit more; 17+ leaves the one-load
 * bucket compare).
 */
static const double width_targets[] = {0.005, 0.003, 0.0015, 0.00075, 0.0004, 0.0002, 0.0001};
#define NWIDTHS ((int) (sizeof(width_targets) / sizeof(width_targets[0])))
#define WIDTH_N 1000000
#define SCAN_MAX 13000000		/* capacities checked one by one for space */
#define HEADROOM_MAX 1000000	/* largest capacity filled past capacity */

static int	reps = 3;
static int	nsizes = NSIZES;

/* ---- keys (bench_keys.h) ---- */

static uint64_t *pos_keys;		/* MAX_KEYS present keys */
static uint64_t *neg_keys;		/* NEG_KEYS absent keys */

/*
 * Timed loops use this thread's CPU time, not the wall clock: on a shared
 * machine the time the scheduler gives other processes must not count.
 */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n);

	if (p == NULL)
	{
		fprintf(stderr, "bench_core: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* ---- one measured configuration ---- */

typedef struct result
{
	double		ins;			/* best insert M ops/s */
	double		pos;			/* best positive lookup M ops/s */
	double		neg;			/* best negative lookup M ops/s */
	double		bits;			/* bits per item */
	double		fpr;			/* measured false-positive rate */
	uint64_t	full;			/* inserts that failed (CF_FULL) */
	uint64_t	fneg;			/* present keys reported absent: must be 0 */
	int			fpbits;			/* cuckoo only */
	double		load;			/* cuckoo only */
	uint64_t	buckets;		/* cuckoo only */
	uint64_t	bytes;			/* cuckoo only */
	double		max_load;		/* cuckoo only: load at the first CF_FULL */
} result;

static double
best(double cur, double n, double secs)
{
	double		mops = n / secs / 1e6;

	return mops > cur ? mops : cur;
}

/*
 * One configuration: a cuckoo filter (capacity n, default bucket size,
 * expansion 0 so the space is honest) and a libbloom filter (entries n,
 * same error), timed in alternation, rep by rep, so background load on a
 * shared machine hits both sides alike.
 */
typedef struct pair
{
	cf_params	p;
	size_t		size;
	uint8_t    *buf;
	cf_filter	f;
	struct bloom b;
} pair;

static void
pair_open(pair *x, uint64_t n, double fpr)
{
	char		err[CF_ERRLEN];
	cf_params	p = {n, fpr, CF_DEFAULT_BUCKET_SIZE, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_PACKED, 0};

	x->p = p;
	x->size = cf_create_size(&x->p, err, sizeof(err));
	if (x->size == 0)
	{
		fprintf(stderr, "bench_core: cf_create_size: %s\n", err);
		exit(2);
	}
	x->buf = xmalloc(x->size);
	if (bloom_init(&x->b, (int) n, fpr) != 0)
	{
		fprintf(stderr, "bench_core: bloom_init(%llu, %g) failed\n",
				(unsigned long long) n, fpr);
		exit(2);
	}
}

static void
pair_close(pair *x)
{
	free(x->buf);
	bloom_free(&x->b);
}

/* empties the cuckoo filter and inserts keys[0..n); returns seconds */
static double
cuckoo_fill(pair *x, const uint64_t *keys, uint64_t n, uint64_t *full)
{
	char		err[CF_ERRLEN];
	uint64_t	nfull = 0;
	double		t;

	memset(x->buf, 0, x->size);	/* faults the pages in before timing */
	cf_create(x->buf, &x->p);
	if (!cf_open(&x->f, x->buf, x->size, err, sizeof(err)))
	{
		fprintf(stderr, "bench_core: cf_open: %s\n", err);
		exit(2);
	}
	t = cpu_now();
	for (uint64_t i = 0; i < n; i++)
		nfull += cf_add(&x->f, cf_hash_int64((int64_t) keys[i])) != CF_OK;
	t = cpu_now() - t;
	*full = nfull;
	return t;
}

static double
cuckoo_probe(pair *x, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	uint64_t	h = 0;
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i++)
		h += cf_contains(&x->f, cf_hash_int64((int64_t) keys[i]));
	t = cpu_now() - t;
	*hits = h;
	return t;
}

/* libbloom hashes the 8 key bytes itself (murmur2) */
static double
bloom_fill(pair *x, const uint64_t *keys, uint64_t n)
{
	double		t;

	bloom_reset(&x->b);			/* also faults the pages in before timing */
	t = cpu_now();
	for (uint64_t i = 0; i < n; i++)
		bloom_add(&x->b, &keys[i], 8);
	return cpu_now() - t;
}

static double
bloom_probe(pair *x, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	uint64_t	h = 0;
	double		t = cpu_now();

	for (uint64_t i = 0; i < n; i++)
		h += bloom_check(&x->b, &keys[i], 8) == 1;
	t = cpu_now() - t;
	*hits = h;
	return t;
}

/*
 * Headroom of a filter holding keys 0 .. n-1: keeps inserting fresh keys
 * until the first CF_FULL and returns the load then; 0 (not measured) above
 * HEADROOM_MAX, where near full every insert walks hundreds of kicks.
 */
static double
headroom(cf_filter *f, uint64_t n)
{
	cf_stats	st;

	if (n > HEADROOM_MAX)
		return 0;
	for (uint64_t i = n;; i++)
		if (cf_add(f, cf_hash_int64((int64_t) key_at(i))) != CF_OK)
			break;
	cf_get_stats(f, &st);
	return st.load_factor;
}

static void
run_pair(uint64_t n, double fpr, result *c, result *b)
{
	pair		x;
	cf_stats	st;
	uint64_t	hits;

	memset(c, 0, sizeof(*c));
	memset(b, 0, sizeof(*b));
	pair_open(&x, n, fpr);
	for (int rep = 0; rep < reps; rep++)
	{
		c->ins = best(c->ins, n, cuckoo_fill(&x, pos_keys, n, &c->full));
		b->ins = best(b->ins, n, bloom_fill(&x, pos_keys, n));
	}
	for (int rep = 0; rep < reps; rep++)
	{
		c->pos = best(c->pos, n, cuckoo_probe(&x, pos_keys, n, &hits));
		/* a failed insert is not a false negative */
		c->fneg = n - hits > c->full ? n - hits - c->full : 0;
		b->pos = best(b->pos, n, bloom_probe(&x, pos_keys, n, &hits));
		b->fneg = n - hits;
	}
	for (int rep = 0; rep < reps; rep++)
	{
		c->neg = best(c->neg, NEG_KEYS, cuckoo_probe(&x, neg_keys, NEG_KEYS, &hits));
		c->fpr = (double) hits / NEG_KEYS;
		b->neg = best(b->neg, NEG_KEYS, bloom_probe(&x, neg_keys, NEG_KEYS, &hits));
		b->fpr = (double) hits / NEG_KEYS;
	}
	cf_get_stats(&x.f, &st);
	c->bits = (double) st.bytes * 8 / n;
	c->fpbits = st.fingerprint_bits;
	c->load = st.load_factor;
	c->buckets = st.buckets;
	c->bytes = st.bytes;
	b->bits = (double) x.b.bits / n;
	c->max_load = c->full ? 0 : headroom(&x.f, n);
	pair_close(&x);
}

/* ---- the bounds we must meet ---- */

/* space bound for any capacity: ceil(log2(2b/eps)) / 0.95 + 0.5 bits/item */
static double
space_bound(double fpr)
{
	return ceil(log2(2.0 * CF_DEFAULT_BUCKET_SIZE / fpr)) / 0.95 + 0.5;
}

/* bits per item an optimal Bloom filter needs for rate eps */
static double
bloom_bits_for(double fpr)
{
	return -log(fpr) / LN2_SQ;
}

/* ---- space at any capacity ---- */

typedef struct space_row
{
	uint64_t	cap;
	double		fpr;
	int			fpbits;
	uint64_t	buckets;
	uint64_t	bytes;
	double		bits;
	double		load;
	uint64_t	failed;
	uint64_t	first_fail;		/* index of the first failed insert */
	double		max_load;		/* load when an insert first failed */
} space_row;

static void
run_space(uint64_t cap, double fpr, space_row *s)
{
	cf_params	p = {cap, fpr, CF_DEFAULT_BUCKET_SIZE, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_PACKED, 0};
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(&p, err, sizeof(err));
	uint8_t    *buf;
	cf_filter	f;
	cf_stats	st;

	memset(s, 0, sizeof(*s));
	s->cap = cap;
	s->fpr = fpr;
	if (size == 0)
	{
		fprintf(stderr, "bench_core: cf_create_size: %s\n", err);
		exit(2);
	}
	buf = xmalloc(size);
	memset(buf, 0, size);
	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
	{
		fprintf(stderr, "bench_core: cf_open: %s\n", err);
		exit(2);
	}
	for (uint64_t i = 0; i < cap; i++)
		if (cf_add(&f, cf_hash_int64((int64_t) pos_keys[i])) != CF_OK)
		{
			if (s->failed++ == 0)
				s->first_fail = i;
		}
	cf_get_stats(&f, &st);
	s->fpbits = st.fingerprint_bits;
	s->buckets = st.buckets;
	s->bytes = st.bytes;
	s->bits = (double) st.bytes * 8 / cap;
	s->load = st.load_factor;

	if (s->failed == 0)
		s->max_load = headroom(&f, cap);
	free(buf);
}

/* ---- output ---- */

static void
print_machine(void)
{
	FILE	   *fp = fopen("/proc/cpuinfo", "r");
	char		line[512];
	char		model[256] = "?";
	int			ncpu = 0;
	time_t		t = time(NULL);
	char		date[64];

	if (fp)
	{
		while (fgets(line, sizeof(line), fp))
		{
			if (strncmp(line, "processor", 9) == 0)
				ncpu++;
			else if (strncmp(line, "model name", 10) == 0 && model[0] == '?')
			{
				char	   *c = strchr(line, ':');

				if (c)
				{
					snprintf(model, sizeof(model), "%s", c + 2);
					model[strcspn(model, "\n")] = '\0';
				}
			}
		}
		fclose(fp);
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("cuckoo core vs libbloom %s -- %s, %d CPUs, %s\n",
		   bloom_version(), model, ncpu, date);
	printf("src/core: commit %s; compiled with: %s\n", BENCH_CORE_REV, BENCH_CFLAGS);
	printf("keys: random 64-bit (splitmix64, fixed seed); absent keys disjoint by construction; "
		   "measured eps on %d absent keys\n", NEG_KEYS);
	printf("hashing: cuckoo = cf_hash_int64 (XXH3-64) per key, inside the timed loop; "
		   "libbloom = its own murmur2 over the same 8 bytes (two passes per key)\n");
	printf("cuckoo: bucket size %d, max kicks %d, expansion 0 (fixed size); throughput = M ops per "
		   "second of CPU time (CLOCK_THREAD_CPUTIME_ID), best of %d runs\n\n",
		   CF_DEFAULT_BUCKET_SIZE, CF_DEFAULT_MAX_KICKS, reps);
}


/* ---- bulk build ---- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * n distinct sorted hashes into a filter of capacity n (the design load) or
 * n + n/16 (cf_agg's size, load 0.90 with buckets of 4): cf_build against
 * one cf_add each in the same sorted order.  Best CPU seconds of reps;
 * every hash is checked present afterwards.
 */
static void
bench_build(uint64_t n, double eps, bool agg_size)
{
	cf_params	p = {agg_size ? n + n / 16 : n, eps, CF_DEFAULT_BUCKET_SIZE, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_PACKED, 0};
	size_t		len = cf_create_size(&p, NULL, 0);
	uint64_t   *h = xmalloc(n * sizeof(uint64_t));
	uint8_t    *buf = xmalloc(len);
	double		t_add = INFINITY,
				t_build = INFINITY;
	uint64_t	failed = 0,
				missing = 0;

	for (uint64_t i = 0; i < n; i++)
		h[i] = cf_hash_int64((int64_t) pos_keys[i]);
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	for (int r = 0; r < reps; r++)
	{
		for (int way = 0; way < 2; way++)
		{
			cf_filter	f;
			double		t;

			cf_create(buf, &p);
			if (!cf_open(&f, buf, len, NULL, 0))
				exit(2);
			if (way == 0)
			{
				t = cpu_now();
				for (uint64_t i = 0; i < n; i++)
					failed += cf_add(&f, h[i]) != CF_OK;
				t_add = fmin(t_add, cpu_now() - t);
			}
			else
			{
				size_t		wl = cf_build_work_size(&f, n);
				void	   *work = xmalloc(wl);

				t = cpu_now();
				failed += !cf_build(&f, h, n, work, wl);
				t_build = fmin(t_build, cpu_now() - t);
				free(work);
			}
			for (uint64_t i = 0; i < n; i++)
				missing += !cf_contains(&f, h[i]);
		}
	}
	printf("%5.2f%% %3lluM %-8s | %8.3f %8.3f %6.2fx | %6llu %7llu\n", eps * 100,
		   (unsigned long long) (n / 1000000), agg_size ? "n+n/16" : "n", t_add, t_build, t_add / t_build,
		   (unsigned long long) failed, (unsigned long long) missing);
	free(h);
	free(buf);
}

int
main(int argc, char **argv)
{
	result		cr[NTARGETS][NSIZES];
	result		br[NTARGETS][NSIZES];
	space_row	sp[NTARGETS][NSPACE];
	double		wr_bits[NWIDTHS];
	double		wr_ratio[NWIDTHS];
	uint64_t	scan_last[NTARGETS];
	double		t0 = wall_now();

	for (int a = 1; a < argc; a++)
	{
		if (strcmp(argv[a], "-q") == 0)
		{
			reps = 1;
			nsizes = 1;
		}
		else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc && atoi(argv[a + 1]) > 0)
			reps = atoi(argv[++a]);
		else
		{
			fprintf(stderr, "usage: bench_core [-q] [-r repetitions]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	pos_keys = xmalloc(sizeof(uint64_t) * MAX_KEYS);
	neg_keys = xmalloc(sizeof(uint64_t) * NEG_KEYS);
	for (uint64_t i = 0; i < MAX_KEYS; i++)
		pos_keys[i] = key_at(i);
	for (uint64_t i = 0; i < NEG_KEYS; i++)
		neg_keys[i] = key_at((UINT64_C(1) << 62) + i);

	print_machine();

	/* ---- throughput, space and rate ---- */
	printf("%-6s %4s | %-19s | %-19s | %-19s | %-19s | %-17s | %s\n",
		   "target", "N", "insert M/s", "pos lookup M/s", "neg lookup M/s",
		   "bits/item", "measured eps", "cuckoo");
	printf("%-6s %4s | %6s %6s %5s | %6s %6s %5s | %6s %6s %5s | %6s %6s %5s | %8s %8s | %2s %5s %4s\n",
		   "eps", "", "cuckoo", "bloom", "c/b", "cuckoo", "bloom", "c/b",
		   "cuckoo", "bloom", "c/b", "cuckoo", "bloom", "c/b",
		   "cuckoo", "bloom", "fp", "load", "full");
	for (int e = 0; e < NTARGETS; e++)
	{
		for (int s = 0; s < nsizes; s++)
		{
			result	   *c = &cr[e][s];
			result	   *b = &br[e][s];

			run_pair(sizes[s], targets[e], c, b);
			printf("%5.2f%% %3lluM | %6.2f %6.2f %5.2f | %6.2f %6.2f %5.2f | %6.2f %6.2f %5.2f | "
				   "%6.2f %6.2f %5.2f | %7.4f%% %7.4f%% | %2d %5.3f %4llu\n",
				   targets[e] * 100, (unsigned long long) (sizes[s] / 1000000),
				   c->ins, b->ins, c->ins / b->ins,
				   c->pos, b->pos, c->pos / b->pos,
				   c->neg, b->neg, c->neg / b->neg,
				   c->bits, b->bits, c->bits / b->bits,
				   c->fpr * 100, b->fpr * 100,
				   c->fpbits, c->load, (unsigned long long) c->full);
			if (c->fneg || b->fneg)
				printf("  !! false negatives: cuckoo %llu, bloom %llu\n",
					   (unsigned long long) c->fneg, (unsigned long long) b->fneg);
		}
	}

	/* ---- bits at the rate actually measured ---- */
	printf("\nbits/item at the measured rate (optimal Bloom needs -ln(eps)/ln(2)^2 bits/item)\n");
	printf("%-6s %4s | %9s %7s %10s %6s | %9s %10s %7s\n",
		   "target", "N", "cuckoo", "cuckoo", "Bloom need", "c/need",
		   "bloom", "bloom need", "libbloom");
	printf("%-6s %4s | %9s %7s %10s %6s | %9s %10s %7s\n",
		   "eps", "", "meas. eps", "bits", "at c eps", "",
		   "meas. eps", "at b eps", "bits");
	for (int e = 0; e < NTARGETS; e++)
		for (int s = 0; s < nsizes; s++)
		{
			result	   *c = &cr[e][s];
			result	   *b = &br[e][s];
			double		need = bloom_bits_for(c->fpr);

			printf("%5.2f%% %3lluM | %8.4f%% %7.2f %10.2f %6.3f | %8.4f%% %10.2f %7.2f\n",
				   targets[e] * 100, (unsigned long long) (sizes[s] / 1000000),
				   c->fpr * 100, c->bits, need, c->bits / need,
				   b->fpr * 100, bloom_bits_for(b->fpr), b->bits);
		}

	/* ---- every fingerprint width a target <= 0.5% gives ---- */
	printf("\nevery target eps <= 0.5%%: one per fingerprint width, capacity %d, filled "
		   "(one run; throughput is indicative)\n", WIDTH_N);
	printf("%-7s %2s | %7s %9s %10s %6s %3s | %9s %9s\n",
		   "target", "fp", "bits", "meas. eps", "Bloom need", "c/need", "ok",
		   "pos M/s", "neg M/s");
	for (int w = 0; w < NWIDTHS; w++)
	{
		pair		x;
		cf_stats	st;
		uint64_t	full,
					hits;
		double		pt,
					nt,
					fpr;

		pair_open(&x, WIDTH_N, width_targets[w]);
		cuckoo_fill(&x, pos_keys, WIDTH_N, &full);
		pt = cuckoo_probe(&x, pos_keys, WIDTH_N, &hits);
		nt = cuckoo_probe(&x, neg_keys, NEG_KEYS, &hits);
		fpr = (double) hits / NEG_KEYS;
		cf_get_stats(&x.f, &st);
		wr_bits[w] = (double) st.bytes * 8 / WIDTH_N;
		wr_ratio[w] = wr_bits[w] / bloom_bits_for(fpr);
		if (full)
			wr_ratio[w] = INFINITY;
		printf("%6.3f%% %2u | %7.3f %8.5f%% %10.3f %6.3f %3s | %9.2f %9.2f%s\n",
			   width_targets[w] * 100, st.fingerprint_bits, wr_bits[w], fpr * 100,
			   bloom_bits_for(fpr), wr_ratio[w], wr_ratio[w] < 1 ? "yes" : "NO",
			   WIDTH_N / pt / 1e6, NEG_KEYS / nt / 1e6, full ? "  (inserts failed)" : "");
		pair_close(&x);
	}

	/* ---- space at any capacity ---- */
	printf("\nspace at any capacity (cuckoo filled to capacity; bound = ceil(log2(2b/eps))/0.95 + 0.5)\n");
	printf("%-6s %10s | %2s %9s %10s | %9s %6s %4s | %5s %6s %8s\n",
		   "eps", "capacity", "fp", "buckets", "bytes", "bits/item", "bound", "ok",
		   "load", "failed", "max load");
	for (int e = 0; e < NTARGETS; e++)
		for (int k = 0; k < NSPACE; k++)
		{
			space_row  *s = &sp[e][k];

			int			m = -1;

			/* a capacity the main table filled is not filled again */
			for (int z = 0; z < nsizes; z++)
				if (sizes[z] == space_caps[k])
					m = z;
			if (m >= 0)
			{
				result	   *c = &cr[e][m];

				s->cap = space_caps[k];
				s->fpr = targets[e];
				s->fpbits = c->fpbits;
				s->buckets = c->buckets;
				s->bytes = c->bytes;
				s->bits = c->bits;
				s->load = c->load;
				s->failed = c->full;
				s->first_fail = 0;	/* not recorded by the main table */
				s->max_load = c->max_load;
			}
			else
				run_space(space_caps[k], targets[e], s);
			printf("%5.2f%% %10llu | %2d %9llu %10llu | %9.3f %6.3f %4s | %5.3f %6llu ",
				   targets[e] * 100, (unsigned long long) s->cap, s->fpbits,
				   (unsigned long long) s->buckets, (unsigned long long) s->bytes,
				   s->bits, space_bound(targets[e]),
				   s->bits <= space_bound(targets[e]) ? "yes" : "NO",
				   s->load, (unsigned long long) s->failed);
			if (s->failed && s->first_fail)
				printf("first failure at %.1f%% of capacity\n", 100.0 * s->first_fail / s->cap);
			else if (s->max_load > 0)
				printf("%8.4f\n", s->max_load);
			else
				printf("%8s\n", "-");
		}

	/*
	 * Bits per item at capacity depend only on the size cf_create_size
	 * gives (inserts aside), so every capacity up to SCAN_MAX is checked.
	 */
	printf("\nspace bound over every capacity 1 .. %d (size from cf_create_size, no inserts)\n",
		   SCAN_MAX);
	printf("%-6s | %6s | %-22s | %s\n", "eps", "bound", "capacities over it",
		   "closest approach at capacity >= 1000 (bits/item - bound)");
	for (int e = 0; e < NTARGETS; e++)
	{
		cf_params	p = {1, targets[e], CF_DEFAULT_BUCKET_SIZE, CF_DEFAULT_MAX_KICKS, 0, CF_ENC_PACKED, 0};
		double		bound = space_bound(targets[e]);
		uint64_t	over = 0,
					last_over = 0,
					worst_cap = 0;
		double		worst = -INFINITY;

		for (uint64_t c = 1; c <= SCAN_MAX; c++)
		{
			double		bits;

			p.capacity = c;
			bits = (double) cf_create_size(&p, NULL, 0) * 8 / c;
			if (bits > bound)
			{
				over++;
				last_over = c;
			}
			if (c >= 1000 && bits - bound > worst)
			{
				worst = bits - bound;
				worst_cap = c;
			}
		}
		scan_last[e] = last_over;
		printf("%5.2f%% | %6.3f | %5llu, all <= %-8llu | %+.3f at %llu\n",
			   targets[e] * 100, bound, (unsigned long long) over,
			   (unsigned long long) last_over, worst, (unsigned long long) worst_cap);
	}

	printf("\nbulk build: n sorted distinct hashes into a filter of capacity n (load 0.955) or\n"
		   "n + n/16 (cf_agg's, load 0.90), CPU s, best of %d\n", reps);
	printf("%-6s %4s %-8s | %8s %8s %7s | %6s %7s\n", "eps", "N", "capacity", "cf_add", "cf_build",
		   "ratio", "failed", "missing");
	for (int s = 0; s < nsizes; s++)
		for (int agg = 0; agg < 2; agg++)
			bench_build(sizes[s], targets[0], agg);

	/* ---- verdicts ---- */
	printf("\nverdict (targets: space <= bound at any capacity, no failed insert; fewer bits than Bloom\n"
		   "at the measured eps for eps <= 0.5%%; positive and negative lookups at 10M >= bloom)\n");
	for (int e = 0; e < NTARGETS; e++)
	{
		bool		space_ok = true;
		bool		bits_ok = true;
		double		worst_bits = 0;
		int			l = nsizes - 1;
		double		pr = cr[e][l].pos / br[e][l].pos;
		double		nr = cr[e][l].neg / br[e][l].neg;

		for (int k = 0; k < NSPACE; k++)
			if (sp[e][k].bits > space_bound(targets[e]) || sp[e][k].failed)
				space_ok = false;
		for (int s = 0; s < nsizes; s++)
		{
			double		ratio = cr[e][s].bits / bloom_bits_for(cr[e][s].fpr);

			if (cr[e][s].full || cr[e][s].bits > space_bound(targets[e]))
				space_ok = false;
			if (ratio >= 1)
				bits_ok = false;
			if (ratio > worst_bits)
				worst_bits = ratio;
		}
		if (scan_last[e] >= 1000)
			space_ok = false;
		printf("eps %5.2f%%: space %s (every capacity >= %llu) | bits/Bloom at meas. eps %.3f: %s%s | "
			   "lookup at %lluM %s bloom (pos %.2fx, neg %.2fx)\n",
			   targets[e] * 100, space_ok ? "MET" : "NOT MET",
			   (unsigned long long) scan_last[e] + 1, worst_bits,
			   bits_ok ? "fewer" : "NOT fewer",
			   targets[e] <= 0.005 ? "" : " (not required)",
			   (unsigned long long) (sizes[l] / 1000000),
			   pr >= 1 && nr >= 1 ? ">=" : "BELOW", pr, nr);
	}
	{
		int			worst = 0;

		for (int w = 1; w < NWIDTHS; w++)
			if (wr_ratio[w] > wr_ratio[worst])
				worst = w;
		printf("every eps <= 0.5%%: %s than Bloom at the measured eps (worst: target %.3f%%, %.3fx)\n",
			   wr_ratio[worst] < 1 ? "fewer bits" : "NOT fewer bits",
			   width_targets[worst] * 100, wr_ratio[worst]);
	}
	printf("\ntotal time %.0f s (wall clock)\n", wall_now() - t0);
	free(pos_keys);
	free(neg_keys);
	return 0;
}
