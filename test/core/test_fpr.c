/*
 * test_fpr.c - measured false-positive rates per fingerprint width, after
 * growth, the load reached before the first CF_FULL, and bits per item.
 */
#include <math.h>

#include "harness.h"
#include "ref.h"
#include "tests.h"

/* largest count of false positives in q queries still consistent with rate p */
static double
allowed_hits(double q, double p)
{
	double		mean = q * p;

	return mean + 5.0 * sqrt(mean) + 10.0;
}

/* false positives among q fresh random values */
static uint64_t
measure(const cf_filter *f, uint64_t q, uint64_t seed)
{
	uint64_t	i,
				hits = 0;

	for (i = 0; i < q; i++)
		hits += cf_contains(f, splitmix64(&seed));
	return hits;
}

/* the design load the bits-per-item figure implies for bucket size b */
static double
design_load(int b)
{
	uint64_t	n = cf_nbuckets_for(1000000, b);

	return 1e6 / (double) (n * b);
}

void
test_fpr_widths(void)
{
	int			bs[] = {2, 4, 8};
	int			bi,
				f;
	uint64_t	q = t_iters(1000000, 20000);
	uint64_t	cap = t_iters(20000, 2000);
	uint64_t	seed = 500;

	t_note("capacity %llu, %llu absent queries per filter; bound = 2b/2^f",
		   (unsigned long long) cap, (unsigned long long) q);
	t_note("   b   f      target    measured    expected       bound   load");
	for (bi = 0; bi < 3; bi++)
	{
		int			b = bs[bi];

		for (f = ref_fpbits_for(0.4999, b); f <= CF_MAX_FPBITS && !BAILED(); f++)
		{
			double		eps = t_fpr_for_width(f, b);
			cf_params	p = t_params(cap, eps, b, 500, 0);
			size_t		len;
			uint8_t    *buf = t_create(&p, &len);
			cf_filter	cf;
			char		err[CF_ERRLEN];
			uint64_t	i,
						hits;
			double		bound = 2.0 * b / (double) (UINT64_C(1) << f),
						rate;
			cf_stats	st;

			if (!buf || !cf_open(&cf, buf, len, err, sizeof(err)))
			{
				CHECKF(0, "b=%d f=%d: cannot create", b, f);
				free(buf);
				continue;
			}
			CHECK(cf.fpbits == (uint32_t) f);
			for (i = 0; i < cap; i++)
				if (cf_add(&cf, splitmix64(&seed)) != CF_OK)
					break;
			CHECKF(i == cap, "b=%d f=%d: CF_FULL at %llu of capacity %llu", b, f,
				   (unsigned long long) i, (unsigned long long) cap);
			cf_get_stats(&cf, &st);
			hits = measure(&cf, q, seed ^ 0x5555);
			rate = (double) hits / (double) q;
			t_note("%4d %3d  %10.3g  %10.3g  %10.3g  %10.3g  %.3f", b, f, eps, rate, st.fpr, bound,
				   st.load_factor);
			CHECKF((double) hits <= allowed_hits((double) q, bound),
				   "b=%d f=%d: measured fpr %g above the bound %g", b, f, rate, bound);
			/* the expected rate cf_get_stats reports is honest too */
			CHECKF((double) hits <= allowed_hits((double) q, st.fpr) &&
				   (double) hits >= 0.9 * q * st.fpr - 5.0 * sqrt(q * st.fpr) - 10.0,
				   "b=%d f=%d: measured %g, cf_get_stats expects %g", b, f, rate, st.fpr);
			free(buf);
		}
	}
}

void
test_fpr_growth(void)
{
	int			bs[] = {2, 4, 8};
	double		fprs[] = {0.01, 0.001};
	int			bi,
				fi;
	uint64_t	q = t_iters(1000000, 20000);
	uint64_t	cap = t_iters(5000, 500);
	uint64_t	seed = 600;

	for (bi = 0; bi < 3; bi++)
		for (fi = 0; fi < 2; fi++)
		{
			int			b = bs[bi];
			cf_params	p = t_params(cap, fprs[fi], b, 500, 2);
			size_t		len;
			uint8_t    *buf = t_create(&p, &len);
			cf_filter	f;
			char		err[CF_ERRLEN];
			uint64_t	i,
						hits;
			cf_stats	st;
			double		rate;

			if (!buf || !cf_open(&f, buf, len, err, sizeof(err)))
				return;
			for (i = 0; i < 16 * cap; i++)
			{
				uint8_t    *before = f.buf;

				if (cf_insert(&f, splitmix64(&seed), t_alloc, NULL) != CF_OK)
				{
					CHECKF(0, "b=%d: cf_insert failed while growing", b);
					break;
				}
				if (f.buf != before)
					free(before);
			}
			cf_get_stats(&f, &st);
			hits = measure(&f, q, seed ^ 0x7777);
			rate = (double) hits / (double) q;
			t_note("b=%d target %g: %llu items (16x) in %u sub-filters: measured %.3g, expected %.3g, "
				   "limit 2x target %g", b, fprs[fi], (unsigned long long) st.items, st.subfilters, rate,
				   st.fpr, 2 * fprs[fi]);
			CHECKF((double) hits <= allowed_hits((double) q, 2 * fprs[fi]),
				   "b=%d: grown filter measured fpr %g above twice the target %g", b, rate, fprs[fi]);
			CHECK(st.items == 16 * cap);
			free(f.buf);
		}
}

void
test_load_factor(void)
{
	int			bs[] = {2, 4, 8};
	uint64_t	caps[] = {1000, 100000, 1000000};
	int			bi,
				ci;
	uint64_t	seed = 700;

	t_note("fixed filters (expansion 0, max_kicks 500), distinct keys until the first CF_FULL:");
	for (bi = 0; bi < 3; bi++)
		for (ci = 0; ci < 3; ci++)
		{
			int			b = bs[bi];
			uint64_t	cap = caps[ci];
			cf_params	p;
			size_t		len;
			uint8_t    *buf;
			cf_filter	f;
			char		err[CF_ERRLEN];
			uint64_t	n = 0;
			cf_stats	st;

			if (t_scale < 0.5 && cap > 100000)
				continue;
			p = t_params(cap, 0.01, b, 500, 0);
			buf = t_create(&p, &len);
			if (!buf || !cf_open(&f, buf, len, err, sizeof(err)))
				return;
			while (cf_add(&f, splitmix64(&seed)) == CF_OK)
				n++;
			cf_get_stats(&f, &st);
			CHECK(st.items == n);
			t_note("  b=%d capacity %7llu: first CF_FULL at %8llu items, load %.4f (%.3f x capacity)",
				   b, (unsigned long long) cap, (unsigned long long) n, st.load_factor,
				   (double) n / (double) cap);
			/* the capacity promise */
			CHECKF(n >= cap, "b=%d capacity %llu: full after only %llu items", b,
				   (unsigned long long) cap, (unsigned long long) n);
			free(buf);
		}

	/* the smallest widths of b=2: few fingerprints, so fewer alternate buckets */
	t_note("b=2, the largest rates (fpr 0.3 and 0.2 get the 6-bit minimum), 3 seeds each:");
	{
		double		fprs[] = {0.3, 0.2};
		uint64_t	cap = t_scale < 0.5 ? 20000 : 200000;
		int			fi,
					trial;

		for (fi = 0; fi < 2; fi++)
			for (trial = 0; trial < 3; trial++)
			{
				cf_params	p = t_params(cap, fprs[fi], 2, 500, 0);
				size_t		len;
				uint8_t    *buf = t_create(&p, &len);
				cf_filter	f;
				char		err[CF_ERRLEN];
				uint64_t	n = 0;
				cf_stats	st;

				if (!buf || !cf_open(&f, buf, len, err, sizeof(err)))
					return;
				while (cf_add(&f, splitmix64(&seed)) == CF_OK)
					n++;
				cf_get_stats(&f, &st);
				t_note("  b=2 f=%u capacity %llu: first CF_FULL at %llu items, load %.4f (%.3f x capacity)",
					   f.fpbits, (unsigned long long) cap, (unsigned long long) n, st.load_factor,
					   (double) n / (double) cap);
				CHECKF(n >= cap, "b=2 f=%u capacity %llu: full after only %llu items (%.3f x capacity)",
					   f.fpbits, (unsigned long long) cap, (unsigned long long) n, (double) n / (double) cap);
				free(buf);
			}
	}
}

void
test_bits_per_item(void)
{
	int			bs[] = {2, 4, 8};
	double		fprs[] = {0.1, 0.01, 0.001, 1e-4, 1e-6};
	uint64_t	caps[] = {1000, 100000, 1000000};
	int			bi,
				fi,
				ci;

	t_note("bits per item at capacity (bytes*8/capacity) vs ceil(log2(2b/eps))/0.95 + 0.5:");
	for (bi = 0; bi < 3; bi++)
	{
		int			b = bs[bi];
		double		load = design_load(b);

		for (fi = 0; fi < 5; fi++)
		{
			char		line[256];
			int			off;
			int			f = cf_fpbits_for(fprs[fi], b);
			double		bound95 = ceil(log2(2.0 * b / fprs[fi])) / 0.95 + 0.5;
			/* what the chosen design load allows */
			double		bound_design = ceil(log2(2.0 * b / fprs[fi])) / load + 0.5;

			off = snprintf(line, sizeof(line), "  b=%d eps=%-6g f=%2d bound %6.3f:", b, fprs[fi], f,
						   bound95);
			for (ci = 0; ci < 3; ci++)
			{
				cf_params	p = t_params(caps[ci], fprs[fi], b, 500, 0);
				char		err[CF_ERRLEN];
				size_t		n = cf_create_size(&p, err, sizeof(err));
				double		bpi = (double) n * 8.0 / (double) caps[ci];

				off += snprintf(line + off, sizeof(line) - (size_t) off, "  %7llu: %6.3f",
								(unsigned long long) caps[ci], bpi);
				if (b == 2)
				{
					/* b=2 cannot reach 95% load: held to its own design load */
					CHECKF(bpi <= bound_design, "b=%d eps=%g cap=%llu: %.3f bits/item > %.3f", b,
						   fprs[fi], (unsigned long long) caps[ci], bpi, bound_design);
				}
				else
					CHECKF(bpi <= bound95, "b=%d eps=%g cap=%llu: %.3f bits/item > %.3f", b,
						   fprs[fi], (unsigned long long) caps[ci], bpi, bound95);
			}
			t_note("%s%s", line, b == 2 && bound_design > bound95 ? "  (b=2: over the 0.95 bound by design)" : "");
		}
	}
}

/* a growing filter of n random items from capacity cap; NULL on failure */
static uint8_t *
grown_filter(uint64_t cap, double fpr, int b, uint64_t n, uint64_t *seed, cf_filter *f)
{
	cf_params	p = t_params(cap, fpr, b, 500, 2);
	size_t		len;
	uint8_t    *buf = t_create(&p, &len);
	char		err[CF_ERRLEN];

	if (!buf || !cf_open(f, buf, len, err, sizeof(err)))
		return NULL;
	for (uint64_t i = 0; i < n; i++)
	{
		uint8_t    *before = f->buf;

		if (cf_insert(f, splitmix64(seed), t_alloc, NULL) != CF_OK)
		{
			CHECKF(0, "cf_insert failed while growing to %llu", (unsigned long long) n);
			return NULL;
		}
		if (f->buf != before)
			free(before);
	}
	return f->buf;
}

/*
 * The shape of a grown filter: bits per item and false-positive rate after
 * growing from capacity 1,000 to 16x and to 1,000x (1M items), against a
 * one-table filter created for the same items.
 */
void
test_growth_shape(void)
{
	uint64_t	ns[] = {16000, 1000000};
	uint64_t	q = t_iters(1000000, 20000);
	uint64_t	seed = 900;

	for (int k = 0; k < 2 && !BAILED(); k++)
	{
		uint64_t	n = t_scale < 0.5 ? ns[k] / 50 : ns[k];
		cf_filter	g,
					o;
		uint8_t    *gb = grown_filter(t_scale < 0.5 ? 20 : 1000, 0.01, 4, n, &seed, &g);
		uint8_t    *ob = grown_filter(n, 0.01, 4, n, &seed, &o);
		cf_stats	gs,
					os;
		double		grate,
					orate;

		if (!gb || !ob)
			return;
		cf_get_stats(&g, &gs);
		cf_get_stats(&o, &os);
		grate = (double) measure(&g, q, seed) / (double) q;
		orate = (double) measure(&o, q, seed + 1) / (double) q;
		t_note("%llu items, fpr 0.01, b=4: grown from capacity %d: %u sub-filters, %.2f bits/item, "
			   "fpr %.4f; one table: %.2f bits/item, fpr %.4f; bits ratio %.2f",
			   (unsigned long long) n, t_scale < 0.5 ? 20 : 1000, gs.subfilters,
			   8.0 * gs.bytes / n, grate, 8.0 * os.bytes / n, orate,
			   (double) gs.bytes / (double) os.bytes);
		CHECKF(grate <= 2 * 0.01 * 1.1, "grown filter fpr %g above twice the target", grate);
		CHECK(os.subfilters == 1);
		free(gb);
		free(ob);
	}
}

/*
 * A sliding window on a filter that had to grow: each round adds a batch
 * of new values and deletes the batch that left the window.  Every live
 * value is found after every round (0 false negatives), the false-positive
 * rate stays within twice the target, and once the live set is flat the
 * filter's size is flat too.
 */
void
test_churn_window(void)
{
	uint64_t	batch = t_iters(1000, 100);
	int			window = 7,
				rounds = t_scale < 0.5 ? 20 : 60;
	uint64_t	q = t_iters(200000, 5000);
	cf_params	p = t_params(batch, 0.01, 4, 500, 2);
	size_t		len;
	uint8_t    *buf = t_create(&p, &len);
	cf_filter	f;
	char		err[CF_ERRLEN];
	uint64_t   *keys = malloc(sizeof(uint64_t) * batch * (uint64_t) rounds);
	uint64_t	seed = 1234,
				fn = 0;
	size_t		size_at_10 = 0;
	double		worst = 0;
	cf_stats	st;

	if (!buf || !keys || !cf_open(&f, buf, len, err, sizeof(err)))
		abort();
	for (int r = 0; r < rounds && !BAILED(); r++)
	{
		for (uint64_t i = 0; i < batch; i++)
		{
			uint8_t    *before = f.buf;

			keys[(uint64_t) r * batch + i] = splitmix64(&seed);
			CHECK(cf_insert(&f, keys[(uint64_t) r * batch + i], t_alloc, NULL) == CF_OK);
			if (f.buf != before)
				free(before);
		}
		if (r >= window)
			for (uint64_t i = 0; i < batch; i++)
				CHECK(cf_delete(&f, keys[(uint64_t) (r - window) * batch + i]) == CF_OK);
		for (int w = r >= window ? r - window + 1 : 0; w <= r; w++)
			for (uint64_t i = 0; i < batch; i++)
				fn += !cf_contains(&f, keys[(uint64_t) w * batch + i]);
		if (r == 10)
			size_at_10 = f.len;
		if (r >= window)
		{
			double		rate = (double) measure(&f, q, seed + (uint64_t) r) / (double) q;

			worst = rate > worst ? rate : worst;
		}
	}
	cf_get_stats(&f, &st);
	t_note("window of %d batches of %llu over %d rounds: %u sub-filters, %llu bytes (round 10: %zu), "
		   "%llu deletes, %llu retained, worst fpr %.4f, %llu false negatives",
		   window, (unsigned long long) batch, rounds, st.subfilters, (unsigned long long) st.bytes,
		   size_at_10, (unsigned long long) st.deletes, (unsigned long long) st.retained, worst,
		   (unsigned long long) fn);
	CHECK(fn == 0);
	CHECK(st.retained == 0);
	CHECKF(worst <= 2 * 0.01 * 1.1, "worst fpr %g above twice the target", worst);
	CHECKF(f.len == size_at_10, "size grew from %zu to %zu with a flat live set", size_at_10, f.len);
	CHECK(st.items == (uint64_t) window * batch);
	free(keys);
	free(f.buf);
}

/*
 * The cost of deletes left in place: a sliding window over the union of
 * two filters of different capacities (two families).  Each retained
 * delete holds a slot for a value already deleted; the test measures how
 * many accumulate and what they add to the false-positive rate, and checks
 * 0 false negatives and a rate within twice the target.
 */
void
test_churn_two_families(void)
{
	uint64_t	batch = t_iters(1000, 100);
	int			window = 5,
				rounds = t_scale < 0.5 ? 15 : 40;
	uint64_t	q = t_iters(200000, 5000);
	uint64_t	seed = 4321,
				fn = 0;
	uint64_t   *keys = malloc(sizeof(uint64_t) * batch * (uint64_t) rounds);
	cf_filter	a,
				b,
				f;
	uint8_t    *ab = grown_filter(batch * 3, 0.01, 4, batch, &seed, &a);
	uint8_t    *bb = grown_filter(batch * 2, 0.01, 4, batch, &seed, &b);
	char		err[CF_ERRLEN];
	size_t		cap;
	uint8_t    *ub;
	cf_stats	st;
	double		worst = 0;

	if (!ab || !bb || !keys)
		abort();
	cap = cf_union_size(&a, &b, err, sizeof(err));
	ub = malloc(cap);
	if (cf_union(&a, &b, ub, cap, &f, err, sizeof(err)) == 0)
		abort();
	free(ab);
	free(bb);
	/* the union's own 2 * batch items stay; the window churns on top */
	for (int r = 0; r < rounds && !BAILED(); r++)
	{
		for (uint64_t i = 0; i < batch; i++)
		{
			uint8_t    *before = f.buf;

			keys[(uint64_t) r * batch + i] = splitmix64(&seed);
			CHECK(cf_insert(&f, keys[(uint64_t) r * batch + i], t_alloc, NULL) == CF_OK);
			if (f.buf != before)
				free(before);
		}
		if (r >= window)
			for (uint64_t i = 0; i < batch; i++)
			{
				cf_status	rc = cf_delete(&f, keys[(uint64_t) (r - window) * batch + i]);

				CHECK(rc == CF_OK || rc == CF_RETAINED);
			}
		for (int w = r >= window ? r - window + 1 : 0; w <= r; w++)
			for (uint64_t i = 0; i < batch; i++)
				fn += !cf_contains(&f, keys[(uint64_t) w * batch + i]);
		if (r >= window)
		{
			double		rate = (double) measure(&f, q, seed + (uint64_t) r) / (double) q;

			worst = rate > worst ? rate : worst;
		}
	}
	cf_get_stats(&f, &st);
	t_note("two families, window of %d x %llu over %d rounds: %llu deletes, %llu retained (%.2f%%), "
		   "%llu slots held (%.2f%% of items), worst fpr %.4f, %u sub-filters, %llu false negatives",
		   window, (unsigned long long) batch, rounds, (unsigned long long) st.deletes,
		   (unsigned long long) st.retained,
		   100.0 * st.retained / (double) (st.deletes + st.retained), (unsigned long long) st.retained,
		   100.0 * st.retained / (double) st.items, worst, st.subfilters, (unsigned long long) fn);
	CHECK(fn == 0);
	CHECKF(worst <= 2 * 0.01 * 1.1, "worst fpr %g above twice the target", worst);
	free(keys);
	free(f.buf);
}
