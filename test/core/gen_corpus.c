/*
 * gen_corpus.c - writes the committed seed corpus of the fuzz targets:
 * valid filters of several geometries (and truncations) for fuzz_bytes,
 * their base64 text (and bad texts) for fuzz_text, op programs for fuzz_ops,
 * Rice streams and gap lists for fuzz_rice.
 * Usage: gen_corpus DIR   (writes DIR/fuzz_bytes, DIR/fuzz_text, DIR/fuzz_ops,
 * DIR/fuzz_rice)
 */
#include "fuzz_common.h"
#include "cuckoo_rice.h"

static const char *outdir;

static void
put(const char *target, const char *name, const void *data, size_t n)
{
	char		path[512];
	FILE	   *fp;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, n, fp) != n || fclose(fp) != 0)
	{
		perror(path);
		exit(1);
	}
}

/* a filter for params p with n random items added through cf_insert */
static uint8_t *
filter(cf_params p, int n, uint64_t seed, size_t *len)
{
	size_t		l;
	uint8_t    *buf = t_create(&p, &l);
	cf_filter	f;
	char		err[CF_ERRLEN];
	int			i;

	if (!buf || !cf_open(&f, buf, l, err, sizeof(err)))
		exit(1);
	for (i = 0; i < n; i++)
	{
		uint8_t    *before = f.buf;

		cf_insert(&f, splitmix64(&seed), t_alloc, NULL);
		if (f.buf != before)
			free(before);
	}
	if (!cf_validate(f.buf, f.len, err, sizeof(err)))
	{
		fprintf(stderr, "gen_corpus: invalid filter: %s\n", err);
		exit(1);
	}
	*len = f.len;
	return f.buf;
}

static void
emit_filter(const char *name, const uint8_t *buf, size_t len, int truncations)
{
	char		nm[128];
	char	   *txt = malloc(cf_base64_len(len) + 1);

	put("fuzz_bytes", name, buf, len);
	cf_base64_encode(buf, len, txt);
	put("fuzz_text", name, txt, strlen(txt));
	if (truncations)
	{
		snprintf(nm, sizeof(nm), "%s-header", name);
		put("fuzz_bytes", nm, buf, len < 28 ? len : 28);
		snprintf(nm, sizeof(nm), "%s-short", name);
		put("fuzz_bytes", nm, buf, len - 1);
		snprintf(nm, sizeof(nm), "%s-text-short", name);
		put("fuzz_text", nm, txt, strlen(txt) - 4);
	}
	free(txt);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * fuzz_rice seeds: the writer's streams of random sets (first byte k, then
 * n, then the stream: decode mode), and gap lists (0x80, k, gaps: round-trip
 * mode).
 */
static void
emit_rice(uint64_t *seed)
{
	static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 200};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		size_t		n = sizes[s],
					m = 0,
					len = 0;
		uint64_t	h[200];
		uint8_t		buf[5 + 200 * 9];
		char		name[32];
		char		err[CF_ERRLEN];
		int			k;

		for (size_t i = 0; i < n; i++)
			h[i] = splitmix64(seed);
		qsort(h, n, sizeof(uint64_t), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (m == 0 || h[i] != h[m - 1])
				h[m++] = h[i];
		k = cf_rice_param(m);
		if (!cf_rice_encoded_len(h, m, k, &len, err, sizeof(err)) || 5 + len > sizeof(buf))
			exit(1);
		buf[0] = (uint8_t) k;
		for (int b = 0; b < 4; b++)
			buf[1 + b] = (uint8_t) (m >> (8 * b));
		cf_rice_encode(h, m, k, buf + 5, len);
		snprintf(name, sizeof(name), "stream-%zu", m);
		put("fuzz_rice", name, buf, 5 + len);
		/* round trip: k from 0 to 63 over the same bytes */
		buf[0] = 0x80;
		buf[1] = (uint8_t) (s * 9);
		for (size_t i = 2; i < 2 + 8 * (m < 20 ? m : 20); i++)
			buf[i] = (uint8_t) splitmix64(seed);
		snprintf(name, sizeof(name), "gaps-k%d", buf[1] % 64);
		put("fuzz_rice", name, buf, 2 + 8 * (m < 20 ? m : 20));
	}
	/* a stream past 2^64 - 1, a padding bit, k = 64 */
	put("fuzz_rice", "bad-past", "\x3f\x02\0\0\0\xfd\xff\xff\xff\xff\xff\xff\xff\x01\0\0\0\0\0\0\0\0", 22);
	put("fuzz_rice", "bad-padding", "\x3e\x01\0\0\0\0\0\0\0\0\0\0\x80", 13);
	put("fuzz_rice", "bad-k", "\x40\x01\0\0\0\0\0\0\0\0\0\0\0\0", 14);
}

int
main(int argc, char **argv)
{
	struct
	{
		const char *name;
		cf_params	p;
		int			n;
	}			shapes[] = {
		{"b2-f4-empty", {8, 0.3, 2, 500, 0, 0, 0}, 0},
		{"b2-f5-full", {10, 0.2, 2, 20, 0, 0, 0}, 20},
		{"b4-f10", {20, 0.01, 4, 500, 2, 0, 0}, 15},
		{"b4-f10-grown", {10, 0.01, 4, 500, 2, 0, 0}, 60},
		{"b8-f32", {5, 2.0 * 8 / 4294967296.0 * 1.01, 8, 500, 4, 0, 0}, 12},
		{"b8-f13-exp1", {3, 0.003, 8, 5, 1, 0, 0}, 40},
		{"b2-f23-grown", {2, 1e-6, 2, 100, 2, 0, 0}, 30},
		{"b4-f17", {30, 1e-4, 4, 0, 0, 0, 0}, 25},
		{"b4-f10-semi", {20, 0.01, 4, 500, 2, 1, 0}, 15},
		{"b4-f10-semi-grown", {10, 0.01, 4, 500, 2, 1, 0}, 60},
		{"b4-f20-semi", {30, 1e-5, 4, 100, 0, 1, 0}, 25},
		{"b4-f13-split", {20, 0.01, 4, 500, 2, 0, CF_GEOM_SPLIT}, 60},
		{"b4-f13-semi-split", {20, 0.01, 4, 500, 2, 1, CF_GEOM_SPLIT}, 60},
		{"b4-f13-list", {1000, 0.01, 4, 500, 2, 0, CF_GEOM_LIST}, 20},
		{"b2-list", {300, 0.001, 2, 500, 2, 0, CF_GEOM_LIST}, 3},
	};
	size_t		i;
	uint64_t	seed = 77;

	if (argc != 2)
	{
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	outdir = argv[1];

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
	{
		size_t		len;
		uint8_t    *buf = filter(shapes[i].p, shapes[i].n, 1000 + i, &len);

		emit_filter(shapes[i].name, buf, len, i % 2 == 0);
		free(buf);
	}

	/* a union of two filters of different capacities */
	{
		size_t		la,
					lb;
		uint8_t    *a = filter((cf_params) {10, 0.01, 4, 500, 2, 0, 0}, 8, 1, &la);
		uint8_t    *b = filter((cf_params) {25, 0.01, 4, 500, 2, 0, 0}, 20, 2, &lb);
		cf_filter	fa,
					fb,
					r;
		char		err[CF_ERRLEN];
		size_t		cap,
					used;
		uint8_t    *out;

		cf_open(&fa, a, la, err, sizeof(err));
		cf_open(&fb, b, lb, err, sizeof(err));
		cap = cf_union_size(&fa, &fb, err, sizeof(err));
		out = malloc(cap);
		used = cf_union(&fa, &fb, out, cap, &r, err, sizeof(err));
		if (used == 0)
			return 1;
		emit_filter("union", out, used, 0);
		free(out);
		free(a);
		free(b);
	}

	/* texts the decoder must refuse */
	put("fuzz_text", "bad-char", "zw==*AAA", 8);
	put("fuzz_text", "bad-pad", "z8==", 4);
	put("fuzz_text", "space", "AAAA AAA", 8);

	/* op programs: params, key seed, then ops with a bias per program */
	for (i = 0; i < 10; i++)
	{
		uint8_t		prog[600];
		size_t		n = 64 + (size_t) rnd_below(&seed, 400),
					k;
		char		name[32];

		for (k = 0; k < n; k++)
			prog[k] = (uint8_t) splitmix64(&seed);
		prog[0] = (uint8_t) i;	/* bucket size */
		prog[1] = (uint8_t) (i * 3);	/* width */
		prog[3] = (uint8_t) (i % 5);	/* expansion */
		/* some programs mostly add (to fill and grow), some add the same fingerprint */
		for (k = 6; k + 1 < n; k += 2)
		{
			if (i < 4 && prog[k] % FOP_COUNT >= FOP_DELETE && rnd_below(&seed, 3))
				prog[k] = FOP_ADD;
			if (i == 5 && rnd_below(&seed, 2))
				prog[k] = FOP_ADD_SAME_FP;
			if (i == 6 && rnd_below(&seed, 2))
				prog[k] = FOP_ADD_SAME_BUCKET;
		}
		snprintf(name, sizeof(name), "prog-%02zu", i);
		put("fuzz_ops", name, prog, n);
	}

	emit_rice(&seed);
	return 0;
}
