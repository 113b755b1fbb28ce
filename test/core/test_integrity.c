/*
 * test_integrity.c - issue 48: what one flipped bit does to a filter that
 * this build writes (format version 3), for every geometry x encoding the
 * writers produce today (list, split grown from a list and created so,
 * chain fixed and grown, bucket sizes 2/4/8, bit-packed and semi-sorted,
 * unions side by side and merged, cf_agg's build, a version-1 filter
 * rewritten on write).
 *
 *   test_flip_header  every single-bit flip of the header and descriptors:
 *                     refused by cf_validate, or accepted with 0 false
 *                     negatives over every value held; and accepted only in
 *                     the counters no lookup reads (deletes, retained: bytes
 *                     24..39).  cf_verify agrees with cf_validate on each.
 *   test_flip_table   random flips of the tables (1,000 per filter; 10,000
 *                     with CF_TEST_FULL=1): false negatives per accepted flip
 *                     at most the entries of the slots the bit touches (1 for
 *                     a bit-packed slot, a list hash or a stash record; 4 for
 *                     a semi-sorted bucket); the measurement is printed.
 */
#include "harness.h"
#include "tests.h"
#include "ref.h"

#include <stdlib.h>
#include <string.h>

typedef struct ifilter
{
	const char *name;
	uint8_t    *buf;
	size_t		len;
	uint64_t   *h;				/* the hashes held */
	size_t		n;
	int			semi;			/* some sub-filter is semi-sorted */
} ifilter;

#define NF_MAX 24
static ifilter ifs[NF_MAX];
static int	nif = 0;

static cf_params
ip(uint64_t cap, int b, int expansion, int enc, int geom)
{
	cf_params	p = t_params(cap, 0.01, b, 500, expansion);

	p.encoding = enc;
	p.geometry = geom;
	return p;
}

static void
keep(const char *name, cf_filter *f, uint64_t *h, size_t n, int semi)
{
	size_t		len;
	const uint8_t *b = cf_filter_bytes(f, &len);
	ifilter    *x = &ifs[nif++];

	x->name = name;
	x->buf = malloc(len);
	memcpy(x->buf, b, len);
	x->len = len;
	x->h = malloc(n * sizeof(uint64_t));
	memcpy(x->h, h, n * sizeof(uint64_t));
	x->n = n;
	x->semi = semi;
	cf_filter_free(f);
}

static uint64_t *
hashes(uint64_t seed, size_t n)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));

	for (size_t i = 0; i < n; i++)
		h[i] = splitmix64(&seed);
	return h;
}

static cf_filter *
filled(const cf_params *p, const uint64_t *h, size_t n)
{
	char		err[CF_ERRLEN];
	cf_filter  *f = cf_filter_new(p, err, sizeof(err));

	if (f == NULL)
	{
		CHECKF(0, "cf_filter_new: %s", err);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (cf_filter_insert(f, h[i], false, CF_KIND_NUMBER) != CF_OK)
		{
			CHECKF(0, "insert %zu failed", i);
			break;
		}
	return f;
}

static int
cmp64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void
make_filters(void)
{
	uint64_t   *h,
			   *g;
	char		err[CF_ERRLEN];
	cf_params	p;
	cf_filter  *a,
			   *b,
			   *u;

	if (nif > 0)
		return;
	h = hashes(48, 20000);
	g = hashes(4848, 4000);
	for (int enc = 0; enc <= 1; enc++)
	{
		p = ip(1000, 4, 2, enc, CF_GEOM_LIST);
		keep(enc ? "list, semi-sorted" : "list, bit-packed", filled(&p, h, 150), h, 150, 0);
		p = ip(100, 4, 2, enc, CF_GEOM_LIST);
		keep(enc ? "split grown from a list, semi-sorted" : "split grown from a list, bit-packed",
			 filled(&p, h, 5000), h, 5000, enc);
		p = ip(15000, 4, 2, enc, CF_GEOM_SPLIT);
		keep(enc ? "split of 15,000, semi-sorted" : "split of 15,000, bit-packed",
			 filled(&p, h, 15000), h, 15000, enc);
		p = ip(15000, 4, 0, enc, CF_GEOM_CHAIN);
		keep(enc ? "chain of 15,000, semi-sorted" : "chain of 15,000, bit-packed",
			 filled(&p, h, 15000), h, 15000, enc);
		p = ip(100, 4, 2, enc, CF_GEOM_CHAIN);
		keep(enc ? "chain grown 100 -> 5,000, semi-sorted" : "chain grown 100 -> 5,000, bit-packed",
			 filled(&p, h, 5000), h, 5000, enc);
	}
	p = ip(5000, 2, 0, 0, CF_GEOM_CHAIN);
	keep("chain b=2", filled(&p, h, 4000), h, 4000, 0);
	p = ip(5000, 8, 0, 0, CF_GEOM_CHAIN);
	keep("chain b=8", filled(&p, h, 5000), h, 5000, 0);
	p = ip(300, 8, 2, 0, CF_GEOM_LIST);
	keep("split b=8 grown", filled(&p, h, 3000), h, 3000, 0);

	/* unions: two chain families side by side; one split family merged; two lists */
	{
		uint64_t   *both = malloc(8000 * sizeof(uint64_t));

		memcpy(both, h, 4000 * sizeof(uint64_t));
		memcpy(both + 4000, g, 4000 * sizeof(uint64_t));
		p = ip(4000, 4, 0, 0, CF_GEOM_CHAIN);
		a = filled(&p, h, 4000);
		p = ip(3000, 4, 0, 1, CF_GEOM_CHAIN);
		b = filled(&p, g, 3000);
		u = cf_filter_union(a, b, err, sizeof(err));
		CHECKF(u != NULL, "union: %s", err);
		if (u)
		{
			memcpy(both + 4000, g, 3000 * sizeof(uint64_t));
			keep("union of two chain families (side by side)", u, both, 7000, 1);
		}
		cf_filter_free(a);
		cf_filter_free(b);
		p = ip(2000, 4, 2, 0, CF_GEOM_LIST);
		a = filled(&p, h, 1500);
		b = filled(&p, g, 1500);
		u = cf_filter_union(a, b, err, sizeof(err));
		CHECKF(u != NULL, "union: %s", err);
		if (u)
		{
			memcpy(both, h, 1500 * sizeof(uint64_t));
			memcpy(both + 1500, g, 1500 * sizeof(uint64_t));
			keep("union of one split family", u, both, 3000, 0);
		}
		cf_filter_free(a);
		cf_filter_free(b);
		p = ip(1000, 4, 2, 0, CF_GEOM_LIST);
		a = filled(&p, h, 60);
		b = filled(&p, g, 70);
		u = cf_filter_union(a, b, err, sizeof(err));
		CHECKF(u != NULL, "union: %s", err);
		if (u)
		{
			memcpy(both, h, 60 * sizeof(uint64_t));
			memcpy(both + 60, g, 70 * sizeof(uint64_t));
			keep("union of two lists", u, both, 130, 0);
		}
		cf_filter_free(a);
		cf_filter_free(b);
		free(both);
	}
	/* cf_agg's build: sorted distinct hashes */
	{
		uint64_t   *s = malloc(10000 * sizeof(uint64_t));

		memcpy(s, h, 10000 * sizeof(uint64_t));
		qsort(s, 10000, sizeof(uint64_t), cmp64);
		for (int enc = 0; enc <= 1; enc++)
		{
			u = cf_filter_build(s, 10000, 0, 0.01, enc, CF_KIND_NUMBER, err, sizeof(err));
			CHECKF(u != NULL, "build: %s", err);
			if (u)
				keep(enc ? "cf_agg build, semi-sorted" : "cf_agg build, bit-packed", u, s, 10000, enc);
		}
		free(s);
	}
	/* a version-1 filter (the reference writer), rewritten as version 3 by an add */
	{
		ref_desc	d = {600, 0, 12, 0, 0, 0};
		size_t		hl = ref_header_len_v(1, 1),
					len = hl + ref_table_bytes(600, 4, 12);
		uint8_t    *v1 = calloc(1, len);
		cf_filter  *f;

		ref_write_header_v(v1, 1, 4, 12, 1, 2, 500, 2000, &d);
		f = cf_filter_from_bytes(v1, len, err, sizeof(err));
		CHECKF(f != NULL, "version 1: %s", err);
		if (f)
		{
			for (size_t i = 0; i < 1500; i++)
				CHECK(cf_filter_insert(f, h[i], false, CF_KIND_NUMBER) == CF_OK);
			keep("version 1 rewritten (legacy tables)", f, h, 1500, 0);
		}
		free(v1);
	}
	free(h);
	free(g);
}

/* false negatives of buf (a valid filter) over the n hashes */
static size_t
false_negatives(uint8_t *buf, size_t len, const uint64_t *h, size_t n)
{
	cf_filter	f;
	size_t		fn = 0;

	if (!cf_open(&f, buf, len, NULL, 0))
		return (size_t) -1;
	for (size_t i = 0; i < n; i++)
		fn += !cf_contains(&f, h[i]);
	return fn;
}

/* cf_validate's verdict on buf, checked against cf_verify's */
static int
accepted(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	cf_verify_result r;
	int			ok = cf_validate(buf, len, err, errlen);

	CHECKF(cf_verify(buf, len, &r) == (ok != 0), "cf_verify says %d, cf_validate %d", r.ok, ok);
	CHECKF(ok || (r.nproblems >= 1 && strcmp(r.problems[0], err) == 0),
		   "cf_verify's first problem \"%s\", cf_validate's \"%s\"", r.nproblems ? r.problems[0] : "", err);
	return ok;
}

void
test_flip_header(void)
{
	uint64_t	flips = 0,
				refused = 0,
				harmless = 0,
				v2_lossy = 0;

	make_filters();
	for (int i = 0; i < nif && !BAILED(); i++)
	{
		ifilter    *x = &ifs[i];
		cf_filter	f;
		size_t		hl;
		uint8_t    *c = malloc(x->len);
		uint64_t	r = 0,
					a = 0;
		char		err[CF_ERRLEN];

		CHECKF(x->buf[1] == 3, "%s: version %u", x->name, x->buf[1]);
		if (!cf_open(&f, x->buf, x->len, err, sizeof(err)))
		{
			CHECKF(0, "%s: %s", x->name, err);
			continue;
		}
		CHECKF(false_negatives(x->buf, x->len, x->h, x->n) == 0, "%s: false negatives unflipped", x->name);
		hl = f.hdrlen;
		for (size_t bit = 0; bit < hl * 8; bit++)
		{
			memcpy(c, x->buf, x->len);
			c[bit / 8] ^= (uint8_t) (1u << (bit % 8));
			flips++;
			if (!accepted(c, x->len, err, sizeof(err)))
			{
				r++;
				/*
				 * the magic and the version byte are read before the checks:
				 * their flips are refused as another version's or no filter
				 * (a version byte 2 reads the same layout alike)
				 */
				CHECKF(bit / 8 < 2 || strncmp(err, CF_CORRUPT_PREFIX, strlen(CF_CORRUPT_PREFIX)) == 0,
					   "%s: byte %zu bit %zu refused without saying corrupt: %s", x->name, bit / 8, bit % 8, err);
				continue;
			}
			a++;
			CHECKF(bit / 8 >= 24 && bit / 8 < 40, "%s: flip of byte %zu bit %zu accepted", x->name,
				   bit / 8, bit % 8);
			CHECKF(false_negatives(c, x->len, x->h, x->n) == 0, "%s: flip of byte %zu bit %zu loses values",
				   x->name, bit / 8, bit % 8);
		}
		t_note("%-45s %2u sub-filters, %5zu bytes: %4zu flips, %4llu refused, %3llu accepted (counters), 0 false negatives",
			   x->name, f.nstages, x->len, hl * 8, (unsigned long long) r, (unsigned long long) a);
		{
			/* the same bytes as version 2 (no check bytes): what 1.4 accepted, measured */
			uint8_t    *v2 = malloc(x->len);
			uint64_t	lossy = 0,
						lost = 0,
						worst = 0;

			memcpy(v2, x->buf, x->len);
			v2[1] = 2;
			v2[11] = 0;
			for (uint32_t k = 0; k < f.nstages; k++)
				v2[40 + 16 * k + 15] = 0;
			CHECKF(cf_validate(v2, x->len, err, sizeof(err)), "%s as version 2: %s", x->name, err);
			for (size_t bit = 16; bit < hl * 8; bit++)
			{
				size_t		fn;

				memcpy(c, v2, x->len);
				c[bit / 8] ^= (uint8_t) (1u << (bit % 8));
				if (!cf_validate(c, x->len, NULL, 0))
					continue;
				fn = false_negatives(c, x->len, x->h, x->n);
				lossy += fn > 0;
				lost += fn;
				if (fn > worst)
					worst = fn;
			}
			v2_lossy += lossy;
			t_note("%-45s   as version 2: %llu flips accepted that lose values (%llu in all, at most %llu of %zu)",
				   "", (unsigned long long) lossy, (unsigned long long) lost, (unsigned long long) worst, x->n);
			free(v2);
		}
		refused += r;
		harmless += a;
		free(c);
	}
	t_note("%d filters: %llu header and descriptor flips, %llu refused, %llu accepted in deletes/retained with 0 false negatives",
		   nif, (unsigned long long) flips, (unsigned long long) refused, (unsigned long long) harmless);
	t_note("the same filters as version 2 (1.4's checks): %llu flips (past the magic and version) accepted that lose values",
		   (unsigned long long) v2_lossy);
}

void
test_flip_table(void)
{
	int			per = t_full ? 10000 : 1000;
	uint64_t	seed = 480048;

	make_filters();
	for (int i = 0; i < nif && !BAILED(); i++)
	{
		ifilter    *x = &ifs[i];
		cf_filter	f;
		uint8_t    *c = malloc(x->len);
		size_t		hl,
					fn_total = 0,
					fn_max = 0,
					with_fn = 0,
					acc = 0,
					bound = x->semi ? 4 : 1;
		char		err[CF_ERRLEN];

		if (!cf_open(&f, x->buf, x->len, NULL, 0))
			continue;
		hl = f.hdrlen;
		if (x->len == hl)
			continue;
		for (int k = 0; k < per; k++)
		{
			uint64_t	bit = hl * 8 + rnd_below(&seed, (x->len - hl) * 8);
			size_t		fn;

			memcpy(c, x->buf, x->len);
			c[bit / 8] ^= (uint8_t) (1u << (bit % 8));
			if (!accepted(c, x->len, err, sizeof(err)))
				continue;
			acc++;
			fn = false_negatives(c, x->len, x->h, x->n);
			CHECKF(fn <= bound, "%s: flip of byte %llu bit %llu loses %zu values (bound %zu)", x->name,
				   (unsigned long long) (bit / 8), (unsigned long long) (bit % 8), fn, bound);
			fn_total += fn;
			with_fn += fn > 0;
			if (fn > fn_max)
				fn_max = fn;
		}
		t_note("%-45s %5d table flips: %5.1f%% refused, %5zu accepted, %4zu lose values (%zu in all, at most %zu per flip; bound %zu)",
			   x->name, per, 100.0 * (per - (int) acc) / per, acc, with_fn, fn_total, fn_max, bound);
		free(c);
	}
}
