/*
 * test_build.c - the bulk build (cf_build): every item placed exactly once
 * or a clean "no", on every geometry, sorted or not, and hostile input.
 */
#include "harness.h"
#include "ref.h"
#include "tests.h"

/* n distinct random hashes, sorted ascending */
static uint64_t *
distinct_hashes(uint64_t *rng, size_t n)
{
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	size_t		k = 0;

	if (!h)
		abort();
	while (k < n)
	{
		for (; k < n; k++)
			h[k] = splitmix64(rng);
		qsort(h, n, sizeof(uint64_t), t_cmp_u64);
		/* drop the (astronomically rare) repeats and draw again */
		for (size_t i = k = 1; i < n; i++)
			if (h[i] != h[k - 1])
				h[k++] = h[i];
		if (n == 0)
			k = 0;
	}
	return h;
}

/* runs cf_build on a fresh filter for p; *out gets the malloc'd buffer */
static int
try_build(const cf_params *p, const uint64_t *h, size_t n, uint8_t **out, size_t *len)
{
	cf_filter	f;
	char		err[CF_ERRLEN] = "";
	uint8_t    *buf = t_create(p, len);
	size_t		wl;
	void	   *work;
	int			ok;

	if (!cf_open(&f, buf, *len, err, sizeof(err)))
	{
		CHECKF(0, "cf_open: %s", err);
		free(buf);
		return 0;
	}
	wl = cf_build_work_size(&f, n);
	work = malloc(wl);
	if (!work)
		abort();
	ok = cf_build(&f, h, n, work, wl);
	free(work);
	*out = buf;
	return ok;
}

/*
 * What a successful build must be: a valid filter (by the core and by the
 * independent FORMAT.md reader) holding n items, each hash present, and
 * nothing else: deleting every hash once empties it.
 */
static void
check_built(const char *what, uint8_t *buf, size_t len, const uint64_t *h, size_t n)
{
	cf_filter	f;
	cf_stats	s;
	ref_filter	r;
	char		err[CF_ERRLEN] = "";
	size_t		missing = 0,
				undeletable = 0;

	CHECKF(cf_validate(buf, len, err, sizeof(err)), "%s: cf_validate: %s", what, err);
	CHECKF(ref_parse(&r, buf, len, 1, NULL), "%s: FORMAT.md reader rejects it", what);
	if (!cf_open(&f, buf, len, err, sizeof(err)))
		return;
	cf_get_stats(&f, &s);
	CHECKF(s.items == n && s.subfilters == 1, "%s: %llu items in %u sub-filters, want %zu in 1",
		   what, (unsigned long long) s.items, s.subfilters, n);
	for (size_t k = 0; k < n; k++)
	{
		if (!cf_contains(&f, h[k]))
			missing++;
		if (k % 7 == 0)
			CHECKF(ref_count(&r, h[k]) == cf_count(&f, h[k]), "%s: counts differ", what);
	}
	CHECKF(missing == 0, "%s: %zu of %zu hashes missing (FALSE NEGATIVES)", what, missing, n);
	for (size_t k = 0; k < n; k++)
		if (cf_delete(&f, h[k]) != CF_OK)
			undeletable++;
	cf_get_stats(&f, &s);
	CHECKF(undeletable == 0 && s.items == 0, "%s: %zu deletes failed, %llu items left", what,
		   undeletable, (unsigned long long) s.items);
}

/*
 * Every bucket size, fingerprint widths from 4 to 32 bits (word-parallel
 * and per-slot paths), filters from 1 bucket up, at capacity n (the design
 * load) and below it.  Failures are allowed only where the one-at-a-time
 * walk struggles too (tiny filters, bucket size 2 with short
 * fingerprints): they are counted, and must leave a clean "false".
 */
void
test_build_geometries(void)
{
	static const int bs[] = {2, 4, 8};
	static const int widths[] = {4, 6, 7, 8, 10, 12, 13, 16, 17, 20, 24, 32};
	uint64_t	rng = 7001;
	uint64_t	builds = 0,
				failed = 0,
				failed_big = 0;

	for (size_t bi = 0; bi < 3; bi++)
		for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]) && !BAILED(); wi++)
		{
			size_t		sizes[] = {0, 1, 2, 3, 5, 17, 100, 1000, 4097, 20000,
				(size_t) t_iters(150000, 6000)};
			double		fpr = t_fpr_for_width(widths[wi], bs[bi]);

			if (!(fpr > 0 && fpr < 0.5))
				continue;		/* no rate gives this width for this bucket size */

			for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
				for (int slack = 0; slack < 2; slack++)
				{
					size_t		n = sizes[si];
					uint64_t	cap = slack ? n + n / 5 + 1 : (n ? n : 1);
					cf_params	p = t_params(cap, fpr, bs[bi], 500, 2);
					uint64_t   *h = distinct_hashes(&rng, n);
					uint8_t    *buf;
					size_t		len;
					char		what[96];

					snprintf(what, sizeof(what), "b=%d f=%d n=%zu cap=%llu", bs[bi], widths[wi], n,
							 (unsigned long long) cap);
					builds++;
					if (try_build(&p, h, n, &buf, &len))
						check_built(what, buf, len, h, n);
					else
					{
						failed++;
						/* a large filter with room to spare must always build */
						if (n >= 1000 && !(bs[bi] == 2 && widths[wi] < 6))
						{
							failed_big++;
							CHECKF(0, "%s: cf_build failed", what);
						}
					}
					free(buf);
					free(h);
				}
		}
	t_note("%llu builds, %llu returned false (all small or bucket size 2 with < 6-bit fingerprints)",
		   (unsigned long long) builds, (unsigned long long) failed);
	CHECK(failed_big == 0);
}

/*
 * The same hashes in random order: the streaming first round stops at the
 * first bucket out of order and the rest go in one by one; the result is
 * just as complete (though not the same bytes).
 */
void
test_build_unsorted(void)
{
	uint64_t	rng = 7002;

	for (int round = 0; round < 20 && !BAILED(); round++)
	{
		size_t		n = (size_t) rnd_below(&rng, 30000) + 1;
		int			b = 2 << rnd_below(&rng, 3);
		cf_params	p = t_params(n + n / 10 + 8, 0.01, b, 500, 2);
		uint64_t   *h = distinct_hashes(&rng, n);
		uint8_t    *buf;
		size_t		len;
		char		what[64];

		/* shuffle, or swap one pair only (out of order late in the input) */
		if (round % 2 == 0)
			for (size_t k = n; k > 1; k--)
			{
				size_t		j = (size_t) rnd_below(&rng, k);
				uint64_t	t = h[k - 1];

				h[k - 1] = h[j];
				h[j] = t;
			}
		else if (n > 1)
		{
			uint64_t	t = h[n - 1];

			h[n - 1] = h[n / 2];
			h[n / 2] = t;
		}
		snprintf(what, sizeof(what), "unsorted b=%d n=%zu", b, n);
		CHECKF(try_build(&p, h, n, &buf, &len), "%s: cf_build failed", what);
		check_built(what, buf, len, h, n);
		free(buf);
		free(h);
	}
}

/* same input, same bytes; and the result depends on the order given */
void
test_build_deterministic(void)
{
	uint64_t	rng = 7003;
	size_t		n = 50000;
	uint64_t   *h = distinct_hashes(&rng, n);
	cf_params	p = t_params(n, 0.01, 4, 500, 2);
	uint8_t    *a,
			   *b;
	size_t		la,
				lb;

	CHECK(try_build(&p, h, n, &a, &la));
	CHECK(try_build(&p, h, n, &b, &lb));
	CHECKF(la == lb && memcmp(a, b, la) == 0, "two builds of the same input differ");
	free(a);
	free(b);
	free(h);
}

/*
 * cf_build_runs over the same hashes cut into runs (empty ones, single
 * items, a cut inside a bucket) gives cf_build's bytes exactly, sorted or
 * not; and it counts every run against the filter's size.
 */
void
test_build_runs(void)
{
	uint64_t	rng = 7005;

	for (int round = 0; round < 40 && !BAILED(); round++)
	{
		size_t		n = (size_t) rnd_below(&rng, 20000) + (round == 0 ? 0 : 1);
		int			b = 2 << rnd_below(&rng, 3);
		cf_params	p = t_params(n + n / 10 + 8, 0.01, b, 500, 2);
		uint64_t   *h = distinct_hashes(&rng, n);
		cf_run	   *runs = malloc((2 * n + 2) * sizeof(cf_run));
		size_t		nruns = 0;
		uint8_t    *want,
				   *buf;
		size_t		len,
					wl;
		cf_filter	f;
		char		err[CF_ERRLEN] = "";
		void	   *work;
		int			ok;

		if (!runs)
			abort();
		if (round % 4 == 3 && n > 1)
		{
			/* one pair out of order: the stream ends inside some run */
			uint64_t	t = h[n - 1];

			h[n - 1] = h[n / 3];
			h[n / 3] = t;
		}
		for (size_t k = 0; k < n;)
		{
			size_t		m = (size_t) rnd_below(&rng, round % 2 ? 4 : 3000);

			m = m > n - k ? n - k : m;
			runs[nruns].h = h + k;
			runs[nruns++].n = m;
			k += m;
		}
		runs[nruns].h = h;
		runs[nruns++].n = 0;

		ok = try_build(&p, h, n, &want, &len);
		buf = t_create(&p, &len);
		CHECK(cf_open(&f, buf, len, err, sizeof(err)));
		wl = cf_build_work_size(&f, n);
		work = malloc(wl);
		if (!work)
			abort();
		CHECKF(cf_build_runs(&f, runs, nruns, work, wl) == ok,
			   "b=%d n=%zu in %zu runs: cf_build_runs and cf_build disagree", b, n, nruns);
		CHECKF(!ok || memcmp(want, buf, len) == 0,
			   "b=%d n=%zu in %zu runs: bytes differ from cf_build", b, n, nruns);
		if (n > 0)
		{
			/* twice the items in runs: more than the work was sized for */
			runs[nruns - 1].n = n;
			memset(buf, 0, len);
			cf_create(buf, &p);
			CHECK(cf_open(&f, buf, len, err, sizeof(err)));
			CHECK(!cf_build_runs(&f, runs, nruns, work, wl));
		}
		free(work);
		free(want);
		free(buf);
		free(runs);
		free(h);
	}
}

/* what cf_build refuses, cleanly, and hostile inputs */
void
test_build_refusals(void)
{
	uint64_t	rng = 7004;
	cf_params	p = t_params(1000, 0.01, 4, 500, 2);
	uint64_t   *h = distinct_hashes(&rng, 5000);
	alloc_ctx	ac = {0};
	cf_filter	f;
	char		err[CF_ERRLEN] = "";
	size_t		len,
				wl;
	uint8_t    *buf = t_create(&p, &len);
	void	   *work;
	uint64_t	same[9];

	CHECK(cf_open(&f, buf, len, err, sizeof(err)));
	wl = cf_build_work_size(&f, 5000);
	work = malloc(wl);
	if (!work)
		abort();

	/* more items than slots */
	CHECK(!cf_build(&f, h, (size_t) f.stages[0].nbuckets * 4 + 1, work, wl));
	/* too little work space */
	CHECK(!cf_build(&f, h, 900, work, cf_build_work_size(&f, 900) - 1));
	/* nothing to do */
	CHECK(cf_build(&f, h, 0, work, wl));
	/* a filter that is not empty */
	CHECK(cf_add(&f, h[4000]) == CF_OK);
	CHECK(!cf_build(&f, h, 10, work, wl));
	CHECK(cf_delete(&f, h[4000]) == CF_OK);
	/* a filter of two sub-filters */
	for (int k = 0; k < 5000 && f.nstages == 1; k++)
		CHECK(cf_insert(&f, h[k], t_alloc, &ac) == CF_OK);
	CHECK(f.nstages == 2);
	{
		cf_filter	g;
		uint8_t    *gbuf = t_create(&p, &len);

		CHECK(cf_open(&g, gbuf, len, err, sizeof(err)));
		/*
		 * hashes that all share one primary bucket (their top 32 bits): a
		 * few go to their other buckets and build; a thousand leave more
		 * items pending than the work space allows for, a clean "false"
		 */
		uint64_t   *one = malloc(1000 * sizeof(uint64_t));

		if (!one)
			abort();
		for (int k = 0; k < 1000; k++)
			one[k] = (UINT64_C(0xABCD1234) << 32) | (splitmix64(&rng) >> 32);
		qsort(one, 1000, sizeof(uint64_t), t_cmp_u64);
		for (int k = 1; k < 1000; k++)
			CHECK(one[k] != one[k - 1]);
		CHECK(cf_build(&g, one, 40, work, wl));
		check_built("40 in one bucket", gbuf, len, one, 40);
		free(gbuf);
		gbuf = t_create(&p, &len);
		CHECK(cf_open(&g, gbuf, len, err, sizeof(err)));
		CHECK(!cf_build(&g, one, 1000, work, wl));
		free(one);
		free(gbuf);

		/* the same hash many times: 2b copies fit, 2b + 1 cannot */
		gbuf = t_create(&p, &len);
		CHECK(cf_open(&g, gbuf, len, err, sizeof(err)));
		for (int k = 0; k < 9; k++)
			same[k] = h[0];
		CHECK(!cf_build(&g, same, 9, work, wl));
		free(gbuf);
		gbuf = t_create(&p, &len);
		CHECK(cf_open(&g, gbuf, len, err, sizeof(err)));
		CHECK(cf_build(&g, same, 8, work, wl));
		CHECK(cf_count(&g, h[0]) == 8);
		free(gbuf);
	}
	if (f.buf != buf)
		free(f.buf);
	free(buf);
	free(work);
	free(h);
}

/*
 * How often a filter of cf_agg's first size, capacity n + n/16 (94% of the
 * design load), does not build, for sets of 1 to 3,000 hashes, and never at
 * n + n/16 + n/25 + 8 (the size cf_agg retries with).
 */
void
test_build_small_sets(void)
{
	uint64_t	rng = 7005;
	uint64_t	sets = t_iters(6000, 300),
				fail_n = 0,
				fail_retry = 0;

	for (uint64_t i = 0; i < sets && !BAILED(); i++)
	{
		size_t		n = (size_t) rnd_below(&rng, 3000) + 1;
		uint64_t   *h = distinct_hashes(&rng, n);
		cf_params	p = t_params(n + n / 16, 0.01, 4, 500, 2);
		uint8_t    *buf;
		size_t		len;

		if (!try_build(&p, h, n, &buf, &len))
		{
			fail_n++;
			free(buf);
			p = t_params(n + n / 16 + n / 25 + 8, 0.01, 4, 500, 2);
			if (!try_build(&p, h, n, &buf, &len))
				fail_retry++;
		}
		free(buf);
		free(h);
	}
	t_note("%llu sets of 1..3000: %llu did not fit at capacity n + n/16, %llu at n + n/16 + n/25 + 8",
		   (unsigned long long) sets, (unsigned long long) fail_n, (unsigned long long) fail_retry);
	CHECK(fail_retry == 0);
}
