/*
 * bench_cmu.cc - lookups of our core against CMU's reference cuckoo filter
 * (github.com/efficient/cuckoofilter, CuckooFilter<uint64_t, 12>), in one
 * process, on the same keys, built with the same flags.
 *
 * The peer is not part of this project: bench/Makefile builds this file only
 * when CMU_CUCKOO_DIR points at a checkout of it (see bench/README.md).
 *
 * Ours: cf_contains(f, cf_hash_int64(key)), the filter created for n keys at
 * an fpr that gives 12-bit fingerprints with 4-slot buckets, as a SQL
 * cf_contains on a bigint pays it.  CMU's: Contain(key), which hashes the
 * key itself (two-independent multiply-shift).  Repetitions are
 * interleaved (ours present, CMU present, ours absent, CMU absent, ours
 * batched present and absent, then again) and min / median / max are
 * printed, with the ratio of ours to CMU in throughput per repetition.
 * "Batched" is cf_contains_many over blocks of 256 hashed keys (the loads
 * of several lookups in flight at once), for callers that hold many values.
 * Two more one-call-per-key forms: cf_contains_int64(f, key), which takes
 * the key as Contain does, and cf_probe_int64, the lookup inlined into this
 * loop as CMU's header-only Contain is (cuckoo.h, cf_probe).  Every form must
 * find every present key and give cf_contains's false positives.
 *
 * Usage: bench_cmu [-r reps] [-n keys]   (default: 7 reps, 1M and 10M keys)
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "cuckoofilter.h"

extern "C"
{
#include "cuckoo_view.h"
}
#include "bench_keys.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Stat
{
	std::vector<double> v;
	void add(double x) { v.push_back(x); }
	double min() { std::sort(v.begin(), v.end()); return v.front(); }
	double med() { std::sort(v.begin(), v.end()); size_t n = v.size(); return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; }
	double max() { std::sort(v.begin(), v.end()); return v.back(); }
};

static volatile uint64_t sink;

/* Mlookups/s of ours over keys */
static double
run_ours(const cf_filter *f, const std::vector<uint64_t> &keys, uint64_t *hits)
{
	uint64_t	n = 0;
	double		t = now();

	for (uint64_t k : keys)
		n += cf_contains(f, cf_hash_int64((int64_t) k));
	t = now() - t;
	*hits = n;
	sink += n;
	return keys.size() / t / 1e6;
}

/* Mlookups/s of ours, one call per key that takes the key (as CMU's Contain) */
static double
run_ours_key(const cf_filter *f, const std::vector<uint64_t> &keys, uint64_t *hits)
{
	uint64_t	n = 0;
	double		t = now();

	for (uint64_t k : keys)
		n += cf_contains_int64(f, (int64_t) k);
	t = now() - t;
	*hits = n;
	sink += n;
	return keys.size() / t / 1e6;
}

/* the same with the lookup inlined into this loop (cf_probe), as CMU's is */
static double
run_ours_probe(const cf_filter *f, const std::vector<uint64_t> &keys, uint64_t *hits)
{
	uint64_t	n = 0;
	const cf_probe p = cf_probe_of(f);
	double		t = now();

	/* the test outside the loop, so that the loop keeps p in registers */
	if (p.bucket_bytes)
		for (uint64_t k : keys)
			n += cf_probe_int64(&p, (int64_t) k);
	else
		for (uint64_t k : keys)
			n += cf_contains_int64(f, (int64_t) k);
	t = now() - t;
	*hits = n;
	sink += n;
	return keys.size() / t / 1e6;
}

/* the same through cf_contains_many, 256 keys hashed and looked up at a time */
static double
run_ours_many(const cf_filter *f, const std::vector<uint64_t> &keys, uint64_t *hits)
{
	uint64_t	n = 0;
	uint64_t	h[256];
	bool		found[256];
	double		t = now();

	for (size_t b = 0; b < keys.size(); b += 256)
	{
		size_t		m = std::min<size_t>(256, keys.size() - b);

		for (size_t j = 0; j < m; j++)
			h[j] = cf_hash_int64((int64_t) keys[b + j]);
		n += cf_contains_many(f, h, m, found);
	}
	t = now() - t;
	*hits = n;
	sink += n;
	return keys.size() / t / 1e6;
}

typedef cuckoofilter::CuckooFilter<uint64_t, 12> Cmu;

static double
run_cmu(const Cmu &cf, const std::vector<uint64_t> &keys, uint64_t *hits)
{
	uint64_t	n = 0;
	double		t = now();

	for (uint64_t k : keys)
		n += cf.Contain(k) == cuckoofilter::Ok;
	t = now() - t;
	*hits = n;
	sink += n;
	return keys.size() / t / 1e6;
}

/*
 * The largest fpr on a fine grid for which our core picks 12-bit
 * fingerprints with 4-slot buckets.  Everything else here uses only
 * cf_create_size / cf_create / cf_open / cf_add / cf_contains /
 * cf_hash_int64, which the core keeps across its rewrite; if cf_fpbits_for
 * goes, this is the one function to change.
 */
static double
fpr_for_12_bits(void)
{
	for (double x = 0.01; x > 0.0001; x *= 0.99)
		if (cf_fpbits_for(x, 4) == 12)
			return x;
	fprintf(stderr, "no fpr gives 12-bit fingerprints\n");
	exit(1);
}

static void
print_row(const char *what, Stat &s)
{
	printf("  %-34s %8.2f %8.2f %8.2f\n", what, s.min(), s.med(), s.max());
}

static void
bench(uint64_t n, int reps)
{
	std::vector<uint64_t> pos(n), neg(n);
	double		fpr = 0;
	cf_params	p;
	char		err[CF_ERRLEN];
	size_t		size;
	uint8_t    *buf;
	cf_filter	f;
	uint64_t	hits;

	for (uint64_t i = 0; i < n; i++)
	{
		pos[i] = key_at(i);
		neg[i] = key_at((UINT64_C(1) << 62) + i);
	}
	fpr = fpr_for_12_bits();
	p.capacity = n;
	p.fpr = fpr;
	p.bucket_size = 4;
	p.max_kicks = CF_DEFAULT_MAX_KICKS;
	p.expansion = 0;			/* sized for the n keys: it must not grow */
	p.encoding = CF_ENC_PACKED;
	p.geometry = 0;
	size = cf_create_size(&p, err, sizeof(err));
	if (size == 0)
	{
		fprintf(stderr, "cf_create_size: %s\n", err);
		exit(1);
	}
	buf = (uint8_t *) malloc(size);
	cf_create(buf, &p);
	if (!cf_open(&f, buf, size, err, sizeof(err)))
	{
		fprintf(stderr, "cf_open: %s\n", err);
		exit(1);
	}
	for (uint64_t k : pos)
		if (cf_add(&f, cf_hash_int64((int64_t) k)) != CF_OK)
		{
			fprintf(stderr, "ours: the filter for %llu keys is full before the last\n",
					(unsigned long long) n);
			exit(1);
		}

	Cmu		   *cmu = new Cmu(n);
	uint64_t	cmu_failed = 0;

	for (uint64_t k : pos)
		if (cmu->Add(k) != cuckoofilter::Ok)
			cmu_failed++;

	printf("\n%llu keys: ours %.2f MB (12-bit fingerprints: fpr %.5f, bucket 4, expansion 0), "
		   "CMU %.2f MB%s\n",
		   (unsigned long long) n, size / 1e6, fpr, cmu->SizeInBytes() / 1e6,
		   cmu_failed ? " (some adds failed!)" : "");

	Stat		op, cp, oa, ca, rp, ra, mp, ma, rmp, rma, kp, ka, rkp, rka, ip, ia, rip, ria;
	uint64_t	fp_ours = 0,
				fp_cmu = 0;

	/* one untimed pass of each, to fault in and warm up */
	run_ours(&f, pos, &hits);
	run_cmu(*cmu, pos, &hits);
	for (int r = 0; r < reps; r++)
	{
		double		a = run_ours(&f, pos, &hits);

		if (hits != n)
		{
			fprintf(stderr, "ours: %llu of %llu present keys found\n",
					(unsigned long long) hits, (unsigned long long) n);
			exit(1);
		}
		double		b = run_cmu(*cmu, pos, &hits);

		if (hits != n - cmu_failed)
			fprintf(stderr, "CMU: %llu of %llu present keys found\n",
					(unsigned long long) hits, (unsigned long long) n);
		double		c = run_ours(&f, neg, &fp_ours);
		double		d = run_cmu(*cmu, neg, &fp_cmu);
		uint64_t	fp_many;
		double		e = run_ours_many(&f, pos, &hits);

		if (hits != n)
		{
			fprintf(stderr, "ours (many): %llu of %llu present keys found\n",
					(unsigned long long) hits, (unsigned long long) n);
			exit(1);
		}
		double		g = run_ours_many(&f, neg, &fp_many);

		if (fp_many != fp_ours)
		{
			fprintf(stderr, "ours (many): %llu false positives, one by one %llu\n",
					(unsigned long long) fp_many, (unsigned long long) fp_ours);
			exit(1);
		}
		uint64_t	fp_key;
		double		kpv = run_ours_key(&f, pos, &hits);

		if (hits != n)
		{
			fprintf(stderr, "ours (int64): %llu of %llu present keys found\n",
					(unsigned long long) hits, (unsigned long long) n);
			exit(1);
		}
		double		kav = run_ours_key(&f, neg, &fp_key);

		if (fp_key != fp_ours)
		{
			fprintf(stderr, "ours (int64): %llu false positives, cf_contains %llu\n",
					(unsigned long long) fp_key, (unsigned long long) fp_ours);
			exit(1);
		}
		uint64_t	fp_inl;
		double		ipv = run_ours_probe(&f, pos, &hits);

		if (hits != n)
		{
			fprintf(stderr, "ours (cf_probe): %llu of %llu present keys found\n",
					(unsigned long long) hits, (unsigned long long) n);
			exit(1);
		}
		double		iav = run_ours_probe(&f, neg, &fp_inl);

		if (fp_inl != fp_ours)
		{
			fprintf(stderr, "ours (cf_probe): %llu false positives, cf_contains %llu\n",
					(unsigned long long) fp_inl, (unsigned long long) fp_ours);
			exit(1);
		}
		ip.add(ipv);
		ia.add(iav);
		rip.add(ipv / b);
		ria.add(iav / d);
		kp.add(kpv);
		ka.add(kav);
		rkp.add(kpv / b);
		rka.add(kav / d);
		mp.add(e);
		ma.add(g);
		rmp.add(e / b);
		rma.add(g / d);

		op.add(a);
		cp.add(b);
		oa.add(c);
		ca.add(d);
		rp.add(a / b);
		ra.add(c / d);
	}
	printf("  %-34s %8s %8s %8s\n", "Mlookups/s", "min", "median", "max");
	print_row("ours, present keys", op);
	print_row("CMU, present keys", cp);
	print_row("ours / CMU, present (per rep)", rp);
	print_row("ours, absent keys", oa);
	print_row("CMU, absent keys", ca);
	print_row("ours / CMU, absent (per rep)", ra);
	print_row("ours cf_contains_int64, present", kp);
	print_row("  int64 / CMU, present (per rep)", rkp);
	print_row("ours cf_contains_int64, absent", ka);
	print_row("  int64 / CMU, absent (per rep)", rka);
	print_row("ours cf_probe_int64 (inline), present", ip);
	print_row("  inline / CMU, present (per rep)", rip);
	print_row("ours cf_probe_int64 (inline), absent", ia);
	print_row("  inline / CMU, absent (per rep)", ria);
	print_row("ours batched (cf_contains_many), present", mp);
	print_row("  batched / CMU, present (per rep)", rmp);
	print_row("ours batched (cf_contains_many), absent", ma);
	print_row("  batched / CMU, absent (per rep)", rma);
	printf("  measured fpr: ours %.5f, CMU %.5f\n", (double) fp_ours / n, (double) fp_cmu / n);

	/* the hash alone, for the profile's split */
	{
		Stat		h;

		for (int r = 0; r < reps; r++)
		{
			uint64_t	s = 0;
			double		t = now();

			for (uint64_t k : neg)
				s += cf_hash_int64((int64_t) k);
			t = now() - t;
			sink += s;
			h.add(n / t / 1e6);
		}
		print_row("cf_hash_int64 alone (Mhashes/s)", h);
	}
	delete cmu;
	free(buf);
}

int
main(int argc, char **argv)
{
	int			reps = 7;
	uint64_t	only = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			only = strtoull(argv[++i], NULL, 10);
		else
		{
			fprintf(stderr, "usage: bench_cmu [-r reps] [-n keys]\n");
			return 2;
		}
	}
	printf("bench_cmu: ours vs CMU CuckooFilter<uint64_t, 12>, %d interleaved reps\n", reps);
	printf("flags: %s\n", BENCH_CFLAGS);
	if (only)
		bench(only, reps);
	else
	{
		bench(1000000, reps);
		bench(10000000, reps);
	}
	return 0;
}
