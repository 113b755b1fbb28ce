/*
 * diff_core.c - the differential run of two revisions of the core: the same
 * operations over every geometry, encoding and bucket size, printed as text
 * (filter bytes as digests, lookup paths, answers, statistics, errors), so
 * that two revisions that behave the same print the same lines.
 *
 *   bash bench/diff_core.sh BASE [HEAD]    (builds this against each side's src/core)
 *
 * Plain C99 over the core's API (cuckoo.h) and, where a side has it, the
 * filter view's layout (cuckoo_view.h: cf_filter's fields, cf_open), which
 * older cores kept in cuckoo.h.
 */
#include "cuckoo.h"
#if defined(__has_include)
#if __has_include("cuckoo_view.h")
#include "cuckoo_view.h"
#endif
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t
fnv(const uint8_t *p, size_t n)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static uint64_t
next(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static void *
xalloc(size_t n, void *ctx)
{
	void	   *p = calloc(1, n ? n : 1);

	(void) ctx;
	if (p == NULL)
		abort();
	return p;
}

/* the filter's bytes, path and statistics, and a digest of its answers */
static void
show(const char *tag, const cf_filter *f, const uint64_t *added, size_t n, uint64_t seed)
{
	cf_stats	s;
	uint64_t	ans = UINT64_C(0xcbf29ce484222325);
	uint64_t	hs[777];
	bool		found[777];
	size_t		hits;
	char		err[CF_ERRLEN];

	cf_get_stats(f, &s);
	for (size_t i = 0; i < n; i++)
		if (!cf_contains(f, added[i]))
			printf("%s FALSE NEGATIVE %zu\n", tag, i);
	for (int i = 0; i < 20000; i++)
	{
		uint64_t	h = next(&seed);
		uint32_t	c = cf_count(f, h);

		ans = (ans ^ ((uint64_t) cf_contains(f, h) | (uint64_t) cf_contains_int64(f, (int64_t) h) << 1 |
					  (uint64_t) c << 2)) * UINT64_C(0x100000001b3);
	}
	for (int i = 0; i < 777; i++)
		hs[i] = i % 3 == 0 && n ? added[(size_t) i % n] : next(&seed);
	hits = cf_contains_many(f, hs, 777, found);
	for (int i = 0; i < 777; i++)
		ans = (ans ^ found[i]) * UINT64_C(0x100000001b3);
	printf("%s bytes %016llx len %zu path %u answers %016llx many %zu valid %d items %llu\n",
		   tag, (unsigned long long) fnv(f->buf, f->len), f->len, f->lookup,
		   (unsigned long long) ans, hits, cf_validate(f->buf, f->len, err, sizeof(err)),
		   (unsigned long long) cf_item_count(f));
	printf("%s stats cap %llu items %llu buckets %llu b %u w %u load %.9g fpr %.9g bytes %llu sub %u fam %u semi %u enc %d list %d bound %u\n",
		   tag, (unsigned long long) s.capacity, (unsigned long long) s.items,
		   (unsigned long long) s.buckets, s.bucket_size, s.fingerprint_bits, s.load_factor, s.fpr,
		   (unsigned long long) s.bytes, s.subfilters, s.families, s.semisorted, cf_encoding_of(f),
		   cf_is_list(f), cf_list_bound(f));
}

static bool
make(const cf_params *p, cf_filter *f, const char *tag)
{
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(p, err, sizeof(err));
	uint8_t    *buf;

	if (size == 0)
	{
		printf("%s create refused: %s\n", tag, err);
		return false;
	}
	buf = xalloc(size, NULL);
	cf_create(buf, p);
	if (!cf_open(f, buf, size, err, sizeof(err)))
	{
		printf("%s open refused: %s\n", tag, err);
		free(buf);
		return false;
	}
	return true;
}

/* n inserts (growing), a digest now and then, deletes of every third, a union */
static void
run(const cf_params *p, uint32_t n, const char *tag)
{
	cf_filter	f,
				g,
				u;
	uint64_t   *added = xalloc(sizeof(uint64_t) * (n ? n : 1), NULL);
	uint64_t	seed = fnv((const uint8_t *) tag, strlen(tag));
	uint32_t	fails = 0;
	char		t[200],
				err[CF_ERRLEN];
	size_t		ulen;

	if (!make(p, &f, tag))
	{
		free(added);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		uint8_t    *before = f.buf;
		cf_status	r;

		added[i] = next(&seed);
		r = p->expansion ? cf_insert(&f, added[i], xalloc, NULL) : cf_add(&f, added[i]);
		if (f.buf != before)
			free(before);
		if (r != CF_OK)
		{
			fails++;
			added[i] = added[0];
		}
		if ((i & (i + 1)) == 0 && i >= 63)
		{
			snprintf(t, sizeof(t), "%s @%u fails %u", tag, i + 1, fails);
			show(t, &f, added, i + 1, seed);
		}
	}
	snprintf(t, sizeof(t), "%s full fails %u", tag, fails);
	show(t, &f, added, n, seed);
	for (uint32_t i = 0; i < n; i += 3)
		printf("%s del %u %d\n", tag, i, (int) cf_delete(&f, added[i]));
	snprintf(t, sizeof(t), "%s deleted", tag);
	show(t, &f, added, 0, seed);
	/* a union with a fresh filter of the same parameters */
	if (make(p, &g, tag))
	{
		for (uint32_t i = 0; i < n / 2; i++)
		{
			uint8_t    *before = g.buf;

			if (p->expansion)
				(void) cf_insert(&g, next(&seed), xalloc, NULL);
			else
				(void) cf_add(&g, next(&seed));
			if (g.buf != before)
				free(before);
		}
		ulen = cf_union_size(&f, &g, err, sizeof(err));
		if (ulen == 0)
			printf("%s union refused: %s\n", tag, err);
		else
		{
			uint8_t    *out = xalloc(ulen, NULL);
			size_t		got = cf_union(&f, &g, out, ulen, &u, err, sizeof(err));

			if (got == 0)
				printf("%s union failed: %s\n", tag, err);
			else
			{
				snprintf(t, sizeof(t), "%s union", tag);
				show(t, &u, NULL, 0, seed);
			}
			free(out);
		}
		free(g.buf);
	}
	free(f.buf);
	free(added);
}

/* a bulk build of n hashes into a fresh filter */
static void
build(const cf_params *p, uint32_t n, const char *tag)
{
	cf_filter	f;
	uint64_t   *h = xalloc(sizeof(uint64_t) * (n ? n : 1), NULL);
	uint64_t	seed = fnv((const uint8_t *) tag, strlen(tag)) ^ 7;
	size_t		wl;
	void	   *work;
	char		t[200];

	if (!make(p, &f, tag))
	{
		free(h);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		h[i] = next(&seed);
	wl = cf_build_work_size(&f, n);
	work = xalloc(wl, NULL);
	snprintf(t, sizeof(t), "%s build %d", tag, (int) cf_build(&f, h, n, work, wl));
	show(t, &f, h, 0, seed);
	free(work);
	free(f.buf);
	free(h);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* cf_agg's build (cf_filter_build): n sorted distinct hashes, a capacity (0: its own) */
static void
agg(uint32_t n, uint64_t capacity, double fpr, int enc)
{
	uint64_t   *h = xalloc(sizeof(uint64_t) * (n ? n : 1), NULL);
	uint64_t	seed = n * UINT64_C(31) + capacity;
	size_t		m = 0,
				len;
	char		err[CF_ERRLEN] = "";
	cf_filter  *f;

	for (uint32_t i = 0; i < n; i++)
		h[i] = next(&seed) >> (i % 3 == 0 ? 40 : 0);	/* repeats among the small ones */
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		if (m == 0 || h[m - 1] != h[i])
			h[m++] = h[i];
	f = cf_filter_build(h, m, capacity, fpr, enc, CF_KIND_NUMBER, err, sizeof(err));
	if (f == NULL)
		printf("agg n%u c%llu fpr%g e%d: NULL %s\n", n, (unsigned long long) capacity, fpr, enc, err);
	else
	{
		const uint8_t *b = cf_filter_bytes(f, &len);
		cf_stats	st;

		cf_get_stats(f, &st);
		printf("agg n%u c%llu fpr%g e%d: %zu bytes %016llx, %u sub-filters\n", n,
			   (unsigned long long) capacity, fpr, enc, len, (unsigned long long) fnv(b, len),
			   st.subfilters);
		cf_filter_free(f);
	}
	free(h);
}

int
main(void)
{
	static const int bsizes[] = {2, 4, 8};
	static const double fprs[] = {0.2, 0.03, 0.01, 0.001, 0.0001, 0.00001, 0.0000001};
	static const int geoms[] = {CF_GEOM_CHAIN, CF_GEOM_SPLIT, CF_GEOM_LIST};
	static const int expansions[] = {0, 1, 2};

	for (int bi = 0; bi < 3; bi++)
		for (int enc = 0; enc <= 1; enc++)
			for (int fi = 0; fi < 7; fi++)
				for (int gi = 0; gi < 3; gi++)
					for (int ei = 0; ei < 3; ei++)
					{
						cf_params	p;
						char		tag[100];

						if (ei == 0 && gi > 0)
							continue;
						if (enc == 1 && bsizes[bi] != 4)
							continue;
						memset(&p, 0, sizeof(p));
						p.capacity = 1000;
						p.fpr = fprs[fi];
						p.bucket_size = bsizes[bi];
						p.max_kicks = 500;
						p.expansion = expansions[ei];
						p.encoding = enc;
						p.geometry = geoms[gi];
						snprintf(tag, sizeof(tag), "b%d e%d fpr%g g%d x%d", bsizes[bi], enc, fprs[fi],
								 geoms[gi], expansions[ei]);
						run(&p, ei ? 6000 : 950, tag);
						build(&p, 900, tag);
					}
	{
		static const uint32_t ns[] = {0, 1, 5, 100, 1000, 2999, 20000};
		static const uint64_t caps[] = {0, 10, 1000, 100000};

		for (int ni = 0; ni < 7; ni++)
			for (int ci = 0; ci < 4; ci++)
				for (int enc = 0; enc <= 1; enc++)
				{
					agg(ns[ni], caps[ci], 0.01, enc);
					agg(ns[ni], caps[ci], 0.0001, enc);
				}
	}
	return 0;
}
