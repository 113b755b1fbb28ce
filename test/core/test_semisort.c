/*
 * test_semisort.c - semi-sorted buckets (table encoding 1): the codec on
 * every multiset and width, and filters of that encoding through every
 * operation, checked against bit-packed filters and FORMAT.md (ref.h).
 */
#include "harness.h"
#include "ref.h"
#include "tests.h"

#include "cuckoo_semisort.h"

static int
open_ok(cf_filter *f, uint8_t *buf, size_t len)
{
	char		err[CF_ERRLEN] = "";

	if (!cf_open(f, buf, len, err, sizeof(err)))
	{
		CHECKF(0, "cf_open failed: %s", err);
		return 0;
	}
	return 1;
}

static void
validate_ok(const uint8_t *buf, size_t len, const char *what)
{
	char		err[CF_ERRLEN] = "";

	CHECKF(cf_validate(buf, len, err, sizeof(err)), "cf_validate(%s): %s", what, err);
}

/* cf_validate refuses buf with a message containing want */
static void
validate_bad(const uint8_t *buf, size_t len, const char *want, const char *what)
{
	char		err[CF_ERRLEN] = "";

	CHECKF(!cf_validate(buf, len, err, sizeof(err)), "cf_validate accepted %s", what);
	CHECKF(strstr(err, want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, err, want);
}

static cf_params
semi_params(uint64_t cap, double fpr, int expansion)
{
	cf_params	p = t_params(cap, fpr, 4, 500, expansion);

	p.encoding = CF_ENC_SEMISORT;
	return p;
}

/* cf_insert, freeing the old buffer when it grows */
static cf_status
insert_free(cf_filter *f, uint64_t h)
{
	alloc_ctx	ac = {0, 0};
	uint8_t    *old = f->buf;
	cf_status	rc = cf_insert(f, h, t_alloc, &ac);

	if (f->buf != old)
		free(old);
	return rc;
}

/*
 * cf_contains and cf_contains_many (the lookup paths) against cf_count (the
 * slot accessors) on random values and every copy of the table's values
 */
static void
check_lookups(const cf_filter *f, uint64_t *seed, const char *what)
{
	enum
	{
		N = 4096
	};
	static uint64_t h[N];
	static bool found[N];
	size_t		hits = 0;

	for (int round = 0; round < 8; round++)
	{
		for (int k = 0; k < N; k++)
			h[k] = splitmix64(seed);
		CHECK(cf_contains_many(f, h, N, found) <= N);
		for (int k = 0; k < N; k++)
		{
			bool		c = cf_contains(f, h[k]);

			CHECKF(c == (cf_count(f, h[k]) > 0), "%s: cf_contains %d, cf_count %u", what, c,
				   cf_count(f, h[k]));
			CHECKF(found[k] == c, "%s: cf_contains_many differs", what);
			hits += c;
		}
	}
	(void) hits;
}

/* ---- the codec ---- */

/*
 * The table is the lexicographic numbering written out (ref.h enumerates
 * it independently), cf_semi_index its inverse, and every (multiset, width)
 * round-trips through pack/unpack with low parts 0, all ones and random.
 */
void
test_semisort_codec(void)
{
	uint64_t	seed = 26;
	uint32_t	idx = 0;

	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++, idx++)
				{
					uint32_t	m[4];

					CHECKF(cf_semi_index(a, b, c, d) == idx, "index of %u %u %u %u", a, b, c, d);
					CHECKF(cf_semi_nibbles[idx] == (a | b << 4 | c << 8 | d << 12), "table at %u", idx);
					CHECK(ref_multiset(idx, m) && m[0] == a && m[1] == b && m[2] == c && m[3] == d);
					for (uint32_t w = 4; w <= 32 && !BAILED(); w++)
					{
						uint32_t	lw = w - 4;
						uint32_t	lmax = (uint32_t) ((UINT64_C(1) << lw) - 1);

						for (int form = 0; form < 3; form++)
						{
							uint32_t	v[4],
										in[4],
										out[4];
							uint64_t	lo,
										hi;
							uint32_t	nib[4] = {a, b, c, d};

							for (int k = 0; k < 4; k++)
							{
								uint32_t	low = form == 0 ? 0 : form == 1 ? lmax :
									(uint32_t) splitmix64(&seed) & lmax;

								v[k] = (nib[k] << lw) | low;
							}
							/* any order in; sorted values out */
							memcpy(in, v, sizeof(v));
							for (int k = 3; k > 0; k--)
							{
								int			j = (int) rnd_below(&seed, (uint64_t) k + 1);
								uint32_t	t = in[k];

								in[k] = in[j];
								in[j] = t;
							}
							cf_semi_sort4(v);
							cf_semi_pack(in, w, &lo, &hi);
							CHECKF((lo & 0xFFF) == idx, "w=%u: index %u, not %u", w,
								   (unsigned) (lo & 0xFFF), idx);
							if (w <= 17)
								CHECKF(hi == 0, "w=%u: bits past 64", w);
							else
								CHECKF((hi >> (4 * w - 4 - 64)) == 0, "w=%u: bits past the bucket", w);
							if (w < 17)
								CHECKF((lo >> (4 * w - 4)) == 0, "w=%u: bits past the bucket", w);
							cf_semi_unpack(lo, hi, w, out);
							CHECKF(memcmp(out, v, sizeof(v)) == 0, "w=%u index %u: round trip", w, idx);
							CHECK(cf_semi_canonical(lo, hi, w));
						}
					}
				}
	CHECK(idx == CF_SEMI_INDEXES);
	/* the lookup paths' lane table is the same multisets */
	for (uint32_t x = 0; x < 4096; x++)
	{
		uint64_t	n = cf_semi_nibbles[x];
		uint64_t	want = ((n & 15) << 12) | (((n >> 4) & 15) << 28) |
			(((n >> 8) & 15) << 44) | (((n >> 12) & 15) << 60);

		CHECKF(cf_semi_lanes[x] == want, "cf_semi_lanes[%u]", x);
	}
	/*
	 * the generated tables are byte for byte the literal ones cuckoo 1.2
	 * carried: FNV-1a 64 over nibbles then lanes, little-endian, recorded
	 * from the literal tables of 1e430aa
	 */
	{
		uint64_t	h = UINT64_C(0xcbf29ce484222325);

		for (uint32_t x = 0; x < 4096; x++)
			for (int k = 0; k < 2; k++)
				h = (h ^ ((cf_semi_nibbles[x] >> (8 * k)) & 0xff)) * UINT64_C(0x100000001b3);
		for (uint32_t x = 0; x < 4096; x++)
			for (int k = 0; k < 8; k++)
				h = (h ^ ((cf_semi_lanes[x] >> (8 * k)) & 0xff)) * UINT64_C(0x100000001b3);
		CHECKF(h == UINT64_C(0x6a25e6c7e0e03d9d), "semi-sorted tables checksum %016llx",
			   (unsigned long long) h);
	}
	/* not multisets: read as 0, never canonical */
	for (uint32_t x = CF_SEMI_INDEXES; x < 4096; x++)
	{
		CHECK(cf_semi_nibbles[x] == 0);
		CHECK(!cf_semi_canonical(x, 0, 10));
	}
	/* equal top bits with low parts out of order: not canonical */
	{
		uint64_t	lo = cf_semi_index(3, 3, 7, 7) | (UINT64_C(5) << 12) | (UINT64_C(2) << 18);

		CHECK(!cf_semi_canonical(lo, 0, 10));
		lo = cf_semi_index(3, 3, 7, 7) | (UINT64_C(2) << 12) | (UINT64_C(5) << 18);
		CHECK(cf_semi_canonical(lo, 0, 10));
	}
}

/* ---- filters of encoding 1 ---- */

/* parameters: refused where they must be, sizes as FORMAT.md says */
void
test_semisort_params(void)
{
	char		err[CF_ERRLEN] = "";
	cf_params	p = semi_params(1000, 0.01, 2);
	size_t		len;

	for (int b = 2; b <= 8; b *= 2)
	{
		p.bucket_size = b;
		len = cf_create_size(&p, err, sizeof(err));
		if (b == 4)
			CHECKF(len > 0, "bucket size 4: %s", err);
		else
			CHECKF(len == 0 && strstr(err, "semi-sorted buckets need bucket size 4"),
				   "bucket size %d: %zu, %s", b, len, err);
	}
	p.bucket_size = 4;
	p.encoding = 2;
	CHECK(cf_create_size(&p, err, sizeof(err)) == 0 && strstr(err, "table encoding must be 0"));
	p.encoding = -1;
	CHECK(cf_create_size(&p, err, sizeof(err)) == 0);
	/* every width cf_create makes (5 .. 32; 4 only from bytes): 4w - 4 bits a bucket */
	for (int w = 5; w <= 32; w++)
	{
		cf_params	q = semi_params(1000, t_fpr_for_width(w, 4), 0);
		uint8_t    *buf = t_create(&q, &len);
		uint64_t	nb;

		if (!buf)
		{
			CHECKF(0, "width %d", w);
			continue;
		}
		nb = cf_nbuckets_for(1000, 4);
		CHECKF(buf[4] == w && buf[40 + 12] == CF_ENC_SEMISORT, "width %d: header", w);
		CHECKF(len == 40 + 16 + (nb * (4 * (uint64_t) w - 4) + 7) / 8, "width %d: %zu bytes", w, len);
		validate_ok(buf, len, "new semi-sorted filter");
		free(buf);
	}
}

/*
 * Without kicks a semi-sorted filter holds, bucket by bucket, the same
 * values as a bit-packed one fed the same adds and deletes: the encodings
 * differ only in how a bucket is stored.
 */
void
test_semisort_same_sets(void)
{
	int			widths[] = {5, 8, 10, 13, 16, 17, 18, 24, 31, 32};
	uint64_t	seed = 2601;

	for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
	{
		int			w = widths[wi];
		cf_params	p0 = t_params(2000, t_fpr_for_width(w, 4), 4, 0, 0);
		cf_params	p1 = p0;
		size_t		l0,
					l1;
		uint8_t    *b0,
				   *b1;
		cf_filter	f0,
					f1;
		ref_filter	r0,
					r1;
		model		m;
		char		why_buf[8];
		const char *why = why_buf;

		p1.encoding = CF_ENC_SEMISORT;
		b0 = t_create(&p0, &l0);
		b1 = t_create(&p1, &l1);
		if (!b0 || !b1 || !open_ok(&f0, b0, l0) || !open_ok(&f1, b1, l1))
			return;
		CHECK(l1 < l0);
		model_init(&m);
		for (int i = 0; i < 2400 && !BAILED(); i++)
		{
			uint64_t	h = splitmix64(&seed);
			cf_status	s0,
						s1;

			if (i % 5 == 4 && m.n)
			{
				h = m.keys[rnd_below(&seed, m.n)];
				CHECK(cf_delete(&f0, h) == CF_OK);
				CHECK(cf_delete(&f1, h) == CF_OK);
				model_del(&m, h);
				continue;
			}
			if (i % 7 == 6 && m.n)	/* copies too */
				h = m.keys[rnd_below(&seed, m.n)];
			s0 = cf_add(&f0, h);
			s1 = cf_add(&f1, h);
			CHECKF(s0 == s1, "w=%d: cf_add %d vs %d", w, s0, s1);
			if (s0 == CF_OK)
				model_add(&m, h);
		}
		CHECK(ref_parse(&r0, b0, l0, 1, &why));
		CHECKF(ref_parse(&r1, b1, l1, 1, &why), "w=%d: FORMAT.md rejects it: %s", w, why);
		for (uint32_t i = 0; i < r0.st[0].nbuckets && !BAILED(); i++)
		{
			uint32_t	v0[4],
						v1[4];

			for (uint32_t k = 0; k < 4; k++)
				v0[k] = ref_slot(b0 + r0.st[0].table_off, r0.st[0].table_bytes,
								 (uint64_t) i * 4 + k, (uint32_t) w);
			cf_semi_sort4(v0);
			CHECK(ref_semi_bucket(b1 + r1.st[0].table_off, r1.st[0].table_bytes, i, (uint32_t) w, v1));
			CHECKF(memcmp(v0, v1, sizeof(v0)) == 0, "w=%d bucket %u differs", w, i);
		}
		for (size_t k = 0; k < m.n; k++)
		{
			CHECK(cf_contains(&f1, m.keys[k]));
			CHECK(cf_count(&f1, m.keys[k]) == cf_count(&f0, m.keys[k]));
		}
		CHECK(f0.stages[0].nitems == f1.stages[0].nitems);
		/* the lookup paths agree with the slot accessors, on any value */
		check_lookups(&f1, &seed, "one table");
		validate_ok(b1, l1, "semi-sorted after adds and deletes");
		model_free(&m);
		free(b0);
		free(b1);
	}
}

/* a full semi-sorted filter: a failed add (its walk undone) changes no byte */
void
test_semisort_full_unchanged(void)
{
	int			kicks[] = {1, 10, 500, CF_MAX_KICKS_LIMIT};
	uint64_t	seed = 2602;

	for (int ki = 0; ki < 4; ki++)
		for (int w = 5; w <= 32; w += 9)
		{
			cf_params	p = semi_params(ki == 3 ? 20 : 300, t_fpr_for_width(w, 4), 0);
			size_t		len;
			uint8_t    *buf,
					   *snap;
			cf_filter	f;
			model		m;
			int			fulls = 0;

			p.max_kicks = kicks[ki];
			buf = t_create(&p, &len);
			snap = malloc(len);
			if (!buf || !snap || !open_ok(&f, buf, len))
				return;
			model_init(&m);
			for (int i = 0; i < (ki == 3 ? 40 : 1500) && !BAILED(); i++)
			{
				uint64_t	h = splitmix64(&seed);
				cf_status	rc;

				memcpy(snap, buf, len);
				rc = cf_add(&f, h);
				if (rc == CF_OK)
					model_add(&m, h);
				else
				{
					CHECK(rc == CF_FULL);
					fulls++;
					CHECKF(memcmp(snap, buf, len) == 0, "w=%d kicks=%d: CF_FULL changed the filter",
						   w, kicks[ki]);
				}
			}
			CHECK(fulls > 0);
			for (size_t k = 0; k < m.n; k++)
				CHECKF(cf_contains(&f, m.keys[k]), "w=%d kicks=%d: false negative", w, kicks[ki]);
			validate_ok(buf, len, "full semi-sorted filter");
			model_free(&m);
			free(snap);
			free(buf);
		}
}

/*
 * Growth keeps the encoding; unions of the two encodings keep every item;
 * cf_build of a semi-sorted table finds every key and validates; the same
 * operations twice give the same bytes.
 */
void
test_semisort_grow_union_build(void)
{
	uint64_t	seed = 2603;
	cf_params	p = semi_params(500, 0.001, 2);
	cf_params	q = t_params(500, 0.001, 4, 500, 2);
	size_t		len,
				qlen;
	uint8_t    *buf = t_create(&p, &len),
			   *qbuf = t_create(&q, &qlen),
			   *again = t_create(&p, &len);
	cf_filter	f,
				g,
				f2,
				u;
	model		m;
	char		err[CF_ERRLEN] = "";
	cf_stats	st;
	uint64_t	gkeys[400];

	if (!open_ok(&f, buf, len) || !open_ok(&g, qbuf, qlen) || !open_ok(&f2, again, len))
		return;
	model_init(&m);
	for (int i = 0; i < 5000; i++)
	{
		uint64_t	h = splitmix64(&seed);

		CHECK(insert_free(&f, h) == CF_OK);
		CHECK(insert_free(&f2, h) == CF_OK);
		model_add(&m, h);
		if (i < 400)
		{
			gkeys[i] = h ^ 1;
			CHECK(insert_free(&g, h ^ 1) == CF_OK);
		}
	}
	CHECK(f.nstages > 1);
	for (uint32_t k = 0; k < f.nstages; k++)
		CHECKF(f.stages[k].enc == CF_ENC_SEMISORT && f.buf[40 + 16 * k + 12] == 1,
			   "grown sub-filter %u is not semi-sorted", k);
	CHECK(f.len == f2.len && memcmp(f.buf, f2.buf, f.len) == 0);
	validate_ok(f.buf, f.len, "grown semi-sorted");
	cf_get_stats(&f, &st);
	CHECK(st.semisorted == f.nstages && st.items == m.total);
	for (size_t k = 0; k < m.n; k++)
		CHECK(cf_contains(&f, m.keys[k]));
	check_lookups(&f, &seed, "grown");

	/* union both ways: every item of both, each table keeps its encoding */
	for (int dir = 0; dir < 2; dir++)
	{
		const cf_filter *a = dir ? &g : &f,
				   *b = dir ? &f : &g;
		size_t		ucap = cf_union_size(a, b, err, sizeof(err));
		uint8_t    *out = malloc(ucap);
		size_t		used = cf_union(a, b, out, ucap, &u, err, sizeof(err));

		CHECKF(used > 0, "union: %s", err);
		if (used == 0)
			continue;
		validate_ok(out, used, "union of the two encodings");
		for (size_t k = 0; k < m.n; k++)
			CHECK(cf_contains(&u, m.keys[k]));
		for (int k = 0; k < 400; k++)
			CHECK(cf_contains(&u, gkeys[k]));
		check_lookups(&u, &seed, "union");
		CHECK(u.stages[0].enc == a->stages[0].enc);
		free(out);
	}

	/* bulk build into a semi-sorted table, sorted and unsorted input */
	for (int sorted = 0; sorted < 2; sorted++)
		for (int w = 5; w <= 32; w += 3)
		{
			uint64_t	n = 20000;
			cf_params	bp = semi_params(n, t_fpr_for_width(w, 4), 2);
			size_t		blen;
			uint8_t    *bbuf = t_create(&bp, &blen);
			uint64_t   *h = malloc(n * sizeof(uint64_t));
			cf_filter	bf;
			size_t		wl;
			void	   *work;

			if (!bbuf || !h || !open_ok(&bf, bbuf, blen))
				return;
			for (uint64_t k = 0; k < n; k++)
				h[k] = splitmix64(&seed);
			if (sorted)
				qsort(h, n, sizeof(uint64_t), t_cmp_u64);
			wl = cf_build_work_size(&bf, n);
			work = malloc(wl);
			CHECKF(cf_build(&bf, h, n, work, wl), "cf_build w=%d sorted=%d", w, sorted);
			validate_ok(bbuf, blen, "built semi-sorted");
			CHECK(bf.stages[0].nitems == n);
			for (uint64_t k = 0; k < n; k++)
				CHECKF(cf_contains(&bf, h[k]), "built w=%d: false negative", w);
			check_lookups(&bf, &seed, "built");
			{
				bool	   *found = malloc(n * sizeof(bool));

				CHECK(cf_contains_many(&bf, h, n, found) == n);
				free(found);
			}
			free(work);
			free(h);
			free(bbuf);
		}
	model_free(&m);
	free(f.buf);
	free(f2.buf);
	free(g.buf);
}

/* hostile bytes: what cf_validate (text and binary input) refuses */
void
test_semisort_validate(void)
{
	cf_params	p = semi_params(100, 0.01, 2);	/* width 10: 36-bit buckets */
	size_t		len;
	uint8_t    *buf = t_create(&p, &len),
			   *bad;
	cf_filter	f;
	uint64_t	seed = 2604;
	char		err[CF_ERRLEN] = "";

	if (!open_ok(&f, buf, len))
		return;
	for (int i = 0; i < 60; i++)
		CHECK(cf_add(&f, splitmix64(&seed)) == CF_OK);
	validate_ok(buf, len, "semi-sorted with 60 items");
	bad = malloc(len);

	/* bucket 0's index (bits 0..11) set to 3876 .. 4095 */
	for (uint32_t x = CF_SEMI_INDEXES; x < 4096; x += 73)
	{
		memcpy(bad, buf, len);
		bad[56] = (uint8_t) x;
		bad[57] = (uint8_t) ((bad[57] & 0xF0) | (x >> 8));
		validate_bad(bad, len, "multiset index", "index >= 3876");
		/* cf_open does not scan tables: operations on it stay in bounds */
		if (cf_open(&f, bad, len, err, sizeof(err)))
			(void) cf_contains(&f, splitmix64(&seed));
	}
	/* a bucket whose values tie on the top bits with low parts out of order */
	{
		uint64_t	lo = cf_semi_index(0, 0, 1, 1) | (UINT64_C(3) << 12) | (UINT64_C(1) << 18) |
			(UINT64_C(1) << 24) | (UINT64_C(2) << 30);

		memcpy(bad, buf, len);
		for (int k = 0; k < 4; k++)
			bad[56 + k] = (uint8_t) (lo >> (8 * k));
		bad[60] = (uint8_t) ((bad[60] & 0xF0) | ((lo >> 32) & 0xF));
		validate_bad(bad, len, "not in sorted order", "unsorted low parts");
	}
	/* nitems one off */
	memcpy(bad, buf, len);
	bad[44]++;
	validate_bad(bad, len, "item count", "nitems + 1");
	/* bits past the last bucket: nbuckets * 36 bits, a multiple of 4 */
	if ((f.stages[0].nbuckets * 36) % 8 != 0)
	{
		memcpy(bad, buf, len);
		bad[len - 1] |= 0x80;
		validate_bad(bad, len, "unused bits", "trailing bits");
	}
	/* unknown encoding, and encoding 1 with another bucket size */
	memcpy(bad, buf, len);
	bad[40 + 12] = 2;
	t_reseal(bad, len);
	validate_bad(bad, len, "table encoding 2", "encoding 2");
	memcpy(bad, buf, len);
	bad[3] = 8;
	t_reseal(bad, len);
	validate_bad(bad, len, "needs bucket size 4", "encoding 1, bucket size 8");
	/* a table one byte short or long */
	validate_bad(buf, len - 1, "bytes", "short");
	free(bad);
	free(buf);
}

/*
 * cf_encoding_of: packed, semi-sorted, mixed (a union of the two, side by
 * side), for tables, grown filters and lists, as cf_get_stats counts them;
 * cf_encoding_valid: the two encodings cf_params takes, nothing else.
 */
void
test_semisort_encoding_of(void)
{
	uint64_t	seed = 3535;
	cf_params	ps = semi_params(500, 0.01, 2),
				pp = t_params(2000, 0.01, 4, 500, 2);
	cf_params	ls = ps,
				lp = pp;
	size_t		slen,
				plen,
				lslen,
				lplen;
	uint8_t    *sbuf = t_create(&ps, &slen),
			   *pbuf = t_create(&pp, &plen);
	uint8_t    *lsbuf,
			   *lpbuf;
	cf_filter	s,
				p,
				u,
				l1,
				l2;
	char		err[CF_ERRLEN] = "";
	cf_stats	st;

	ls.geometry = lp.geometry = CF_GEOM_LIST;
	lsbuf = t_create(&ls, &lslen);
	lpbuf = t_create(&lp, &lplen);
	if (!open_ok(&s, sbuf, slen) || !open_ok(&p, pbuf, plen) ||
		!open_ok(&l1, lsbuf, lslen) || !open_ok(&l2, lpbuf, lplen))
		return;
	CHECK(cf_encoding_of(&s) == CF_ENC_SEMISORT && cf_encoding_of(&p) == CF_ENC_PACKED);
	CHECK(cf_is_list(&l1) && cf_encoding_of(&l1) == CF_ENC_SEMISORT);
	CHECK(cf_is_list(&l2) && cf_encoding_of(&l2) == CF_ENC_PACKED);
	for (int i = 0; i < 3000; i++)
		CHECK(insert_free(&s, splitmix64(&seed)) == CF_OK);
	for (int i = 0; i < 300; i++)
		CHECK(insert_free(&p, splitmix64(&seed)) == CF_OK);
	CHECK(s.nstages > 1 && cf_encoding_of(&s) == CF_ENC_SEMISORT);
	CHECK(cf_encoding_of(&p) == CF_ENC_PACKED);
	for (int dir = 0; dir < 2; dir++)
	{
		const cf_filter *a = dir ? &p : &s,
				   *b = dir ? &s : &p;
		size_t		ucap = cf_union_size(a, b, err, sizeof(err));
		uint8_t    *out = ucap ? malloc(ucap) : NULL;

		CHECKF(out && cf_union(a, b, out, ucap, &u, err, sizeof(err)) > 0, "union: %s", err);
		if (!out)
			continue;
		cf_get_stats(&u, &st);
		CHECKF(st.semisorted > 0 && st.semisorted < u.nstages && cf_encoding_of(&u) == CF_ENC_MIXED,
			   "union %d: %u of %u sub-filters semi-sorted, encoding %d", dir, st.semisorted,
			   u.nstages, cf_encoding_of(&u));
		free(out);
	}
	CHECK(cf_encoding_valid(CF_ENC_PACKED) && cf_encoding_valid(CF_ENC_SEMISORT));
	CHECK(!cf_encoding_valid(CF_ENC_MIXED) && !cf_encoding_valid(2) && !cf_encoding_valid(255) &&
		  !cf_encoding_valid(256));
	free(s.buf);
	free(p.buf);
	free(l1.buf);
	free(l2.buf);
}
