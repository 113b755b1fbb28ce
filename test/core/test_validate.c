/*
 * test_validate.c - adversarial tests of cf_open / cf_validate: truncation,
 * every single-byte corruption of the header, crafted bad headers, tables.
 * The verdict is compared with an independent reading of FORMAT.md (ref.h).
 */
#include <math.h>

#include "harness.h"
#include "ref.h"
#include "tests.h"

/* a small filter with items in two sub-filters; odd width so bits trail */
static uint8_t *
small_filter(size_t *len, int b, double fpr, int nstages_wanted, uint64_t seed)
{
	cf_params	p = t_params(10, fpr, b, 100, 2);
	uint8_t    *buf = t_create(&p, len);
	cf_filter	f;
	char		err[CF_ERRLEN];

	if (!buf || !cf_open(&f, buf, *len, err, sizeof(err)))
		abort();
	while ((int) f.nstages < nstages_wanted)
	{
		uint8_t    *before = f.buf;

		if (cf_insert(&f, splitmix64(&seed), t_alloc, NULL) != CF_OK)
			abort();
		if (f.buf != before)
			free(before);
	}
	/* a few items in the newest one too */
	cf_add(&f, splitmix64(&seed));
	cf_add(&f, splitmix64(&seed));
	*len = f.len;
	return f.buf;
}

/* runs cf_validate on an exact-size heap copy (so ASan sees over-reads) */
static int
validate_copy(const uint8_t *src, size_t len, char *err, size_t errlen)
{
	uint8_t    *c = malloc(len ? len : 1);
	int			ok;

	if (!c)
		abort();
	memcpy(c, src, len);
	err[0] = '\0';
	ok = cf_validate(c, len, err, errlen);
	free(c);
	return ok;
}

/* compares the core's verdict with ref.h; exercises a filter that passes */
static void
judge(const uint8_t *buf, size_t len, const char *what, int *shown, int show_max)
{
	char		err[CF_ERRLEN];
	int			core = validate_copy(buf, len, err, sizeof(err));
	ref_filter	r;
	const char *why = "";
	int			ref = ref_parse(&r, buf, len, 1, &why);

	if (!core)
		CHECKF(err[0] != '\0', "%s: rejected without a message", what);
	if (core != ref && !(r.ambiguous && ref && !core))
		CHECKF(0, "%s: cf_validate says %s, FORMAT.md says %s (%s)", what,
			   core ? "valid" : err, ref ? "valid" : "invalid", why);
	else if (core != ref)
	{
		/*
		 * The one point FORMAT.md leaves open (ref.h, "ambiguous"): the core
		 * rejects a header width other than the first table's.  With that
		 * width in the header the core must accept: nothing else was wrong.
		 */
		uint8_t    *c = malloc(len);
		char		err2[CF_ERRLEN];

		if (!c)
			abort();
		memcpy(c, buf, len);
		c[4] = (uint8_t) r.st[0].fpbits;
		CHECKF(validate_copy(c, len, err2, sizeof(err2)),
			   "%s: cf_validate rejects it (%s), and with the header width %u of the first table too (%s)",
			   what, err, r.st[0].fpbits, err2);
		free(c);
	}
	if (!core && shown && *shown < show_max)
	{
		t_note("%s -> \"%s\"", what, err);
		(*shown)++;
	}
	if (core)
	{
		/* a valid filter opens and answers */
		uint8_t    *c = malloc(len);
		cf_filter	f;
		cf_stats	s;

		memcpy(c, buf, len);
		CHECKF(cf_open(&f, c, len, err, sizeof(err)), "%s: validates but does not open: %s", what, err);
		cf_contains(&f, 1);
		cf_count(&f, 2);
		cf_get_stats(&f, &s);
		CHECK(s.bytes == len);
		free(c);
	}
}

void
test_validate_truncated(void)
{
	struct
	{
		int			b;
		double		fpr;
		int			nstages;
	}			shapes[] = {{2, 0.2, 1}, {4, 0.01, 3}, {8, 0.001, 2}, {4, t_fpr_for_width(32, 4), 2},
	{2, t_fpr_for_width(5, 2), 4}};
	size_t		si;
	int			shown = 0;

	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
	{
		size_t		len,
					l;
		uint8_t    *buf = small_filter(&len, shapes[si].b, shapes[si].fpr, shapes[si].nstages, 20 + si);
		char		err[CF_ERRLEN];
		uint8_t    *longer;

		CHECKF(validate_copy(buf, len, err, sizeof(err)), "shape %zu: %s", si, err);
		for (l = 0; l < len && !BAILED(); l++)
		{
			uint8_t    *c = malloc(l ? l : 1);
			cf_filter	f;

			memcpy(c, buf, l);
			err[0] = '\0';
			CHECKF(!cf_validate(c, l, err, sizeof(err)), "shape %zu: truncated to %zu of %zu validates",
				   si, l, len);
			CHECKF(err[0] != '\0', "shape %zu: truncated to %zu: no message", si, l);
			err[0] = '\0';
			CHECKF(!cf_open(&f, c, l, err, sizeof(err)), "shape %zu: truncated to %zu opens", si, l);
			CHECK(err[0] != '\0');
			if ((l == 0 || l == 15 || l == 20 || l == len - 1) && shown < 6 && si == 1)
			{
				t_note("truncated to %zu of %zu -> \"%s\"", l, len, err);
				shown++;
			}
			free(c);
		}
		/* one byte too many */
		longer = calloc(len + 1, 1);
		memcpy(longer, buf, len);
		err[0] = '\0';
		CHECK(!cf_validate(longer, len + 1, err, sizeof(err)));
		CHECK(err[0] != '\0');
		free(longer);
		free(buf);
	}
}

void
test_validate_byte_corruption(void)
{
	struct
	{
		int			b;
		double		fpr;
		int			nstages;
	}			shapes[] = {{4, 0.01, 2}, {2, t_fpr_for_width(5, 2), 3}, {8, t_fpr_for_width(32, 8), 2}};
	size_t		si;
	int			shown = 0;
	long		accepted = 0,
				rejected = 0;

	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
	{
		size_t		len,
					pos;
		uint8_t    *buf = small_filter(&len, shapes[si].b, shapes[si].fpr, shapes[si].nstages, 30 + si);
		uint8_t    *c = malloc(len);
		size_t		hdr = ref_header_len(buf[5]);
		char		what[80];

		for (pos = 0; pos < hdr && !BAILED(); pos++)
		{
			int			v;

			for (v = 0; v < 256; v++)
			{
				char		err[CF_ERRLEN];

				if (v == buf[pos])
					continue;
				memcpy(c, buf, len);
				c[pos] = (uint8_t) v;
				snprintf(what, sizeof(what), "shape %zu byte %zu = 0x%02x", si, pos, v);
				judge(c, len, what, si == 0 && (v == 0x00 || v == 0xff) ? &shown : NULL, 12);
				if (validate_copy(c, len, err, sizeof(err)))
					accepted++;
				else
					rejected++;
			}
		}
		free(c);
		free(buf);
	}
	t_note("%ld header corruptions rejected, %ld accepted (harmless fields: max_kicks, capacity, expansion)",
		   rejected, accepted);
	CHECK(rejected > accepted);
}

static void
expect_invalid(const uint8_t *buf, size_t len, const char *what, int expect_open)
{
	char		err[CF_ERRLEN] = "";
	uint8_t    *c = malloc(len ? len : 1);
	cf_filter	f;
	int			opened;

	memcpy(c, buf, len);
	CHECKF(!cf_validate(c, len, err, sizeof(err)), "%s: validates", what);
	CHECKF(err[0] != '\0', "%s: no message", what);
	t_note("%-34s -> \"%s\"", what, err);
	err[0] = '\0';
	opened = cf_open(&f, c, len, err, sizeof(err));
	CHECKF(opened == expect_open, "%s: cf_open %s", what, opened ? "accepts" : "rejects");
	free(c);
}

void
test_validate_crafted(void)
{
	/* a valid base: b=2, f=5, 1 stage of 3 buckets: 30 bits -> 4 bytes, 2 bits trail */
	ref_desc	d1 = {3, 0, 5, 0, 0, 0};
	size_t		len = ref_header_len_v(1, 1) + 4;
	uint8_t		base[96],
				c[96];
	char		err[CF_ERRLEN];

	/* version 1, as cuckoo 1.0 wrote it */
	memset(base, 0, sizeof(base));
	ref_write_header_v(base, 1, 2, 5, 1, 2, 500, 5, &d1);
	CHECKF(cf_validate(base, len, err, sizeof(err)), "hand-written version-1 filter: %s", err);
	CHECK(ref_parse(&(ref_filter) {0}, base, len, 1, NULL));

#define MUT(stmt, what, opens) do { memcpy(c, base, sizeof(c)); stmt; expect_invalid(c, len, what, opens); } while (0)
	MUT(c[0] = 0xCE, "v1: wrong magic", 0);
	MUT(c[1] = 0, "version 0", 0);
	MUT(c[1] = 2, "v1 bytes as version 2", 0);
	MUT(c[1] = 3, "version 3", 0);
	MUT(c[2] = 1, "v1: flags 1", 0);
	MUT(c[2] = 0x80, "v1: flags 0x80", 0);
	MUT(c[3] = 3, "v1: bucket size 3", 0);
	MUT(c[3] = 0, "v1: bucket size 0", 0);
	MUT(c[3] = 16, "v1: bucket size 16", 0);
	MUT(c[4] = 3, "v1: header fpbits 3", 0);
	MUT(c[4] = 33, "v1: header fpbits 33", 0);
	MUT(c[5] = 0, "v1: nstages 0", 0);
	MUT(c[5] = 33, "v1: nstages 33", 0);
	MUT(c[6] = 17, "v1: expansion 17", 0);
	MUT(c[7] = 1, "v1: reserved byte 7", 0);
	MUT(c[10] = 1, "v1: reserved byte 10", 0);
	MUT(c[11] = 0x80, "v1: reserved byte 11", 0);
	MUT(ref_wr32(c + 12, 0), "v1: capacity 0", 0);
	MUT(ref_wr32(c + 16, 0), "v1: nbuckets 0", 0);
	MUT(ref_wr32(c + 16, UINT32_MAX), "v1: nbuckets 2^32-1", 0);
	MUT(ref_wr32(c + 20, 7), "v1: nitems 7 > 6 slots", 0);
	MUT(c[24] = 3, "v1: stage fpbits 3", 0);
	MUT(c[24] = 33, "v1: stage fpbits 33", 0);
	MUT(c[24] = 255, "v1: stage fpbits 255", 0);
	MUT(c[25] = 1, "v1: stage reserved byte", 0);
	MUT(c[27] = 1, "v1: stage reserved byte 3", 0);
	MUT(ref_wr32(c + 20, 1), "v1: nitems 1, empty table", 1);
	MUT(c[28] = 1, "v1: nitems 0, one item in table", 1);
	MUT(c[31] = 0x40, "v1: trailing bit set", 1);
	MUT(c[31] = 0x80, "v1: last trailing bit set", 1);
	expect_invalid(base, len - 1, "v1: one byte short", 0);

	/* version 2 */
	len = ref_header_len_v(2, 1) + 4;
	memset(base, 0, sizeof(base));
	ref_write_header_v(base, 2, 2, 5, 1, 2, 500, 5, &d1);
	CHECKF(cf_validate(base, len, err, sizeof(err)), "hand-written version-2 filter: %s", err);
	CHECK(ref_parse(&(ref_filter) {0}, base, len, 1, NULL));
	MUT(c[0] = 0xCE, "wrong magic", 0);
	MUT(c[1] = 1, "v2 bytes as version 1", 0);
	MUT(c[2] = 1, "flags 1", 0);
	MUT(c[3] = 3, "bucket size 3", 0);
	MUT(c[4] = 3, "header fpbits 3", 0);
	MUT(c[4] = 33, "header fpbits 33", 0);
	MUT(c[5] = 0, "nstages 0", 0);
	MUT(c[5] = 33, "nstages 33", 0);
	MUT(c[6] = 3, "expansion 3", 0);
	MUT(c[6] = 17, "expansion 17", 0);
	MUT(c[7] = 0, "value hashing 0", 0);
	MUT(c[7] = 3, "value hashing 3", 0);
	MUT(c[11] = 1, "reserved byte 11", 0);
	MUT(ref_wr32(c + 12, 0), "capacity 0", 0);
	MUT(memset(c + 16, 0, 8), "target fpr 0", 0);
	MUT(c[23] = 0x7F; c[22] = 0xF8, "target fpr NaN", 0);
	MUT(c[23] = 0x40, "target fpr 2", 0);
	MUT(c[23] = 0xBF, "target fpr negative", 0);
	MUT(ref_wr32(c + 40, 0), "nbuckets 0", 0);
	MUT(ref_wr32(c + 40, UINT32_MAX), "nbuckets 2^32-1", 0);
	MUT(ref_wr32(c + 44, 7), "nitems 7 > 6 slots", 0);
	MUT(c[48] = 3, "stage fpbits 3", 0);
	MUT(c[48] = 33, "stage fpbits 33", 0);
	MUT(c[49] = 0, "geometry 0", 0);
	MUT(c[49] = 3, "geometry 3", 0);
	MUT(c[50] = 1, "level 1 with 3 buckets", 0);
	MUT(c[51] = 3, "base width 3", 0);
	MUT(c[51] = 6, "base width 6 > width 5", 0);
	MUT(c[52] = 1, "table encoding 1", 0);
	MUT(c[53] = 1, "stage reserved byte 13", 0);
	MUT(c[55] = 1, "stage reserved byte 15", 0);
	MUT(ref_wr32(c + 44, 1), "nitems 1, empty table", 1);
	MUT(c[56] = 1, "nitems 0, one item in table", 1);
	MUT(c[59] = 0x40, "trailing bit set", 1);
	MUT(c[59] = 0x80, "last trailing bit set", 1);
#undef MUT

	/* lengths */
	expect_invalid(base, len - 1, "one byte short", 0);
	{
		uint8_t		l2[96];

		memcpy(l2, base, len);
		l2[len] = 0;
		expect_invalid(l2, len + 1, "one byte long", 0);
	}

	/* 32 sub-filters of 2^32-1 buckets of 8 x 32 bits: ~4 TB, no overflow */
	{
		ref_desc	d[32];
		uint8_t    *h = malloc(ref_header_len(32) + 64);
		int			i;

		for (i = 0; i < 32; i++)
		{
			d[i].nbuckets = UINT32_MAX;
			d[i].nitems = 0;
			d[i].fpbits = 32;
		}
		ref_write_header(h, 8, 32, 32, 2, 500, 1, d);
		expect_invalid(h, ref_header_len(32) + 64, "32 x 2^32-1 buckets (4 TB)", 0);
		/* nitems at the slot limit: 2^32-1 buckets * 8 slots exceeds 32 bits */
		d[0].nitems = UINT32_MAX;
		ref_write_header(h, 8, 32, 1, 2, 500, 1, d);
		expect_invalid(h, ref_header_len(1) + 64, "nitems 2^32-1, huge table", 0);
		free(h);
	}

	/*
	 * header width differs from stage 0's: FORMAT.md leaves this open
	 * (ref.h, "ambiguous"), so the core may reject it, but only for that;
	 * with a second defect (an item count of 1 over an empty table) both
	 * must reject it
	 */
	{
		ref_desc	d = {3, 0, 6, 0, 0, 0};
		uint8_t		h[64];
		size_t		l = ref_header_len(1) + ref_table_bytes(3, 2, 6);
		ref_filter	r;

		memset(h, 0, sizeof(h));
		ref_write_header(h, 2, 5, 1, 2, 500, 5, &d);
		CHECK(ref_parse(&r, h, l, 1, NULL) && r.ambiguous);
		t_note("header fpbits 5, stage 0 fpbits 6: cf_validate says %s",
			   cf_validate(h, l, err, sizeof(err)) ? "valid" : err);
		judge(h, l, "header fpbits 5, stage 0 fpbits 6", NULL, 0);
		h[44] = 1;
		CHECK(!ref_parse(&r, h, l, 1, NULL) && r.ambiguous);
		judge(h, l, "header fpbits 5, stage 0 fpbits 6, nitems 1, empty table", NULL, 0);
	}

	/* ref.h's W(0) (FORMAT.md, "Width schedule") is the core's, rates 1 to 1e-10 */
	for (uint32_t b = 2; b <= 8; b *= 2)
		for (int e = 0; e <= 400; e++)
		{
			double		fpr = pow(10.0, -e / 40.0);

			CHECKF(ref_split_width0(fpr, b) == cf_split_width(fpr, b, 0),
				   "W(0) at %g, b %u: ref.h %u, core %u", fpr, b,
				   ref_split_width0(fpr, b), cf_split_width(fpr, b, 0));
		}
	/* a list (geometry 4): valid with the header width W(0), invalid with W(0) + 1 */
	{
		cf_params	p = t_params(1000, 0.01, 4, 500, 2);
		size_t		l;
		uint8_t    *lb;

		p.geometry = CF_GEOM_LIST;
		lb = t_create(&p, &l);
		CHECK(lb && lb[49] == CF_GEOM_LIST && lb[4] == ref_split_width0(0.01, 4));
		judge(lb, l, "a list", NULL, 0);
		CHECK(validate_copy(lb, l, err, sizeof(err)));
		lb[4]++;
		judge(lb, l, "a list, header width W(0) + 1", NULL, 0);
		CHECK(!validate_copy(lb, l, err, sizeof(err)));
		free(lb);
	}

	/* NULL-free garbage of every small length never crashes */
	{
		uint64_t	seed = 40;
		int			n;

		for (n = 0; n < 20000 && !BAILED(); n++)
		{
			size_t		l = rnd_below(&seed, 120);
			uint8_t		g[128];
			size_t		k;

			for (k = 0; k < l; k++)
				g[k] = (uint8_t) splitmix64(&seed);
			if (l > 0 && rnd_below(&seed, 2))
				g[0] = CF_MAGIC;
			if (l > 1 && rnd_below(&seed, 2))
				g[1] = 1;
			if (l > 2 && rnd_below(&seed, 2))
				g[2] = 0;
			judge(g, l, "random bytes", NULL, 0);
		}
	}
}

/* every table byte of a small filter, a few values each */
void
test_validate_table_corruption(void)
{
	size_t		len,
				pos;
	uint8_t    *buf = small_filter(&len, 2, t_fpr_for_width(5, 2), 2, 50);
	uint8_t    *c = malloc(len);
	size_t		hdr = ref_header_len(buf[5]);
	int			vals[] = {0x00, 0x01, 0x10, 0x80, 0xFF};
	long		n = 0;

	for (pos = hdr; pos < len && !BAILED(); pos++)
	{
		size_t		vi;

		for (vi = 0; vi < sizeof(vals) / sizeof(vals[0]); vi++)
		{
			char		what[64];

			memcpy(c, buf, len);
			c[pos] ^= (uint8_t) vals[vi];
			if (vals[vi] == 0)
				c[pos] = 0;
			if (memcmp(c, buf, len) == 0)
				continue;
			snprintf(what, sizeof(what), "table byte %zu ^ 0x%02x", pos, vals[vi]);
			judge(c, len, what, NULL, 0);
			n++;
		}
	}
	CHECK(n > 100);
	free(c);
	free(buf);
}
