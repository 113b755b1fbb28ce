/*
 * fuzz_ops.c - libFuzzer target: the input is an operation program (add,
 * delete, lookup, union, grow on small filters with parameters from the
 * input), checked against an exact multiset model after every operation.
 * Any false negative or broken invariant aborts.
 *
 * Program: b, width, capacity, expansion, max_kicks, key seed, then ops;
 * each op is one opcode byte (% FOP_COUNT) and its operand bytes.
 */
#include "fuzz_common.h"

typedef struct prog
{
	const uint8_t *p;
	size_t		n,
				pos;
} prog;

static int
next(prog *g)
{
	return g->pos < g->n ? g->p[g->pos++] : -1;
}

static int
next0(prog *g)
{
	int			v = next(g);

	return v < 0 ? 0 : v;
}

typedef struct fstate
{
	cf_filter	f;
	model		m;
	uint64_t	keys[256];
	int			b;
	double		fpr;
} fstate;

/* the params bytes -> a valid cf_params */
static cf_params
read_params(prog *g, int b_fixed, double fpr_fixed)
{
	static const int bs[] = {2, 4, 8};
	static const int kicks[] = {0, 1, 3, 20, 50, 200};
	int			b = b_fixed ? b_fixed : bs[next0(g) % 3];
	int			wmin = ref_fpbits_for(0.4999, b);
	int			wbyte = next0(g);
	double		fpr = fpr_fixed > 0 ? fpr_fixed : t_fpr_for_width(wmin + wbyte % (33 - wmin), b);
	uint64_t	cap = 1 + (uint64_t) next0(g) % 48;
	static const int exps[] = {0, 1, 2, 4, 16, 0};
	int			exp = exps[next0(g) % 5];
	int			mk = kicks[next0(g) % 6];
	cf_params	p = t_params(cap, fpr, b, mk, exp);

	/* bucket size 4: the width byte's top bit asks for semi-sorted buckets */
	if (b == 4 && (wbyte & 0x80))
		p.encoding = CF_ENC_SEMISORT;
	/*
	 * growing filters: chain tables, split tables (geometry 3) and split
	 * tables that start as lists (geometry 4), a third each, either encoding
	 */
	{
		static const int geoms[] = {0, CF_GEOM_SPLIT, CF_GEOM_LIST};

		p.geometry = geoms[next0(g) % 3];
	}
	return p;
}

static void
check_all(fstate *s, const char *when)
{
	size_t		i;
	cf_stats	st;
	char		err[CF_ERRLEN];

	for (i = 0; i < s->m.n; i++)
	{
		FUZZ_ASSERT(cf_contains(&s->f, s->m.keys[i]), "false negative %s", when);
		FUZZ_ASSERT(cf_count(&s->f, s->m.keys[i]) >= s->m.cnt[i], "count below model %s", when);
	}
	cf_get_stats(&s->f, &st);
	FUZZ_ASSERT(s->f.split >= 0 ? st.items >= s->m.total + st.retained :
				st.items == s->m.total + st.retained, "stats.items %llu, model %llu + %llu retained %s",
				(unsigned long long) st.items, (unsigned long long) s->m.total,
				(unsigned long long) st.retained, when);
	FUZZ_ASSERT(cf_validate(s->f.buf, s->f.len, err, sizeof(err)), "invalid %s: %s", when, err);
}

/* adds h to s through cf_insert (or cf_add); checks the failure contract */
static void
do_add(fstate *s, uint64_t h, int use_add)
{
	uint8_t    *snap = malloc(s->f.len);
	uint8_t    *before = s->f.buf;
	size_t		blen = s->f.len;
	alloc_ctx	ac = {0, 0};
	cf_status	rc;

	memcpy(snap, s->f.buf, s->f.len);
	if (!use_add && s->f.expansion > 0)
	{
		/*
		 * Keep filters small: repeated values grow a filter exponentially
		 * (a known core issue, see README.md), so past 16 KB only cf_add.
		 */
		char		err[CF_ERRLEN];
		size_t		gs = cf_grow_size(&s->f, err, sizeof(err));

		if (gs > 16384)
			use_add = 1;
	}
	rc = use_add ? cf_add(&s->f, h) : cf_insert(&s->f, h, t_alloc, &ac);
	if (rc == CF_OK)
	{
		model_add(&s->m, h);
		if (s->f.buf != before)
			free(before);
	}
	else
	{
		FUZZ_ASSERT(rc == CF_FULL || ((rc == CF_CANNOT_GROW || rc == CF_TOO_MANY_COPIES) && !use_add),
					"add returned %d", rc);
		FUZZ_ASSERT(use_add || rc != CF_FULL || s->f.expansion == 0, "CF_FULL from a growable filter");
		FUZZ_ASSERT(s->f.buf == before && s->f.len == blen && ac.calls == 0, "failed add moved the filter");
		FUZZ_ASSERT(memcmp(snap, s->f.buf, blen) == 0, "failed add changed the bytes");
	}
	free(snap);
}

static void
init_state(fstate *s, cf_params p, uint64_t keyseed)
{
	size_t		len;
	uint8_t    *buf = t_create(&p, &len);
	char		err[CF_ERRLEN];
	int			i;

	FUZZ_ASSERT(buf != NULL, "cannot create");
	FUZZ_ASSERT(cf_open(&s->f, buf, len, err, sizeof(err)), "new filter does not open: %s", err);
	model_init(&s->m);
	s->b = p.bucket_size;
	s->fpr = p.fpr;
	for (i = 0; i < 256; i++)
		s->keys[i] = splitmix64(&keyseed);
}

static void
free_state(fstate *s)
{
	free(s->f.buf);
	model_free(&s->m);
}

/* one key from an operand byte and an op kind */
static uint64_t
key_for(const fstate *s, int op, int k)
{
	switch (op)
	{
		case FOP_ADD_SAME_FP:
			/* same low 32 bits: the same fingerprint in every sub-filter */
			return (s->keys[k] & UINT64_C(0xFFFFFFFF00000000)) | 0x9E3779B9u;
		case FOP_ADD_SAME_BUCKET:
			/* same high 32 bits: the same primary bucket in every sub-filter */
			return (UINT64_C(0x7F4A7C15) << 32) | (s->keys[k] & 0xFFFFFFFFu);
		default:
			return s->keys[k];
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	prog		g = {data, size, 0};
	fstate		s;
	cf_params	p;
	uint64_t	keyseed;
	int			ops = 0;

	if (size < 6)
		return 0;
	p = read_params(&g, 0, 0);
	keyseed = (uint64_t) next0(&g) * UINT64_C(0x9E3779B97F4A7C15);
	init_state(&s, p, keyseed);

	/* small filters only: each op copies and compares the whole buffer */
	while (g.pos < g.n && ops++ < 600 && s.f.len <= 16384)
	{
		int			op = next0(&g) % FOP_COUNT;
		int			k = next0(&g);
		uint64_t	h;

		switch (op)
		{
			case FOP_ADD:
			case FOP_ADD_SAME_FP:
			case FOP_ADD_SAME_BUCKET:
				/* both kinds alternate with the key byte's low bit */
				h = key_for(&s, op, k >> 1);
				do_add(&s, h, k & 1);
				FUZZ_ASSERT(model_get(&s.m, h) == 0 || cf_contains(&s.f, h), "added value absent");
				break;
			case FOP_ADD_RAW:
				{
					uint64_t	raw = (uint64_t) k;
					int			j;

					for (j = 0; j < 7; j++)
						raw = (raw << 8) | (uint64_t) next0(&g);
					do_add(&s, raw, 0);
				}
				break;
			case FOP_DELETE:
				if (s.m.n > 0)
				{
					cf_status	rc;
					cf_stats	st;

					/* every delete of a present value, in grown and merged filters too */
					h = s.m.keys[(size_t) k % s.m.n];
					rc = cf_delete(&s.f, h);
					cf_get_stats(&s.f, &st);
					FUZZ_ASSERT(rc == CF_OK || (rc == CF_RETAINED && !t_one_chain(&s.f)),
								"delete of a present value gave %d (%u families)", rc, st.families);
					model_del(&s.m, h);
				}
				break;
			case FOP_DELETE_ABSENT:
				h = s.keys[k];
				if (model_get(&s.m, h) == 0 && !cf_contains(&s.f, h))
				{
					uint8_t    *snap = malloc(s.f.len);

					memcpy(snap, s.f.buf, s.f.len);
					FUZZ_ASSERT(cf_delete(&s.f, h) == CF_NOT_FOUND, "delete of an absent value");
					FUZZ_ASSERT(memcmp(snap, s.f.buf, s.f.len) == 0, "CF_NOT_FOUND changed the bytes");
					free(snap);
				}
				break;
			case FOP_CONTAINS:
				h = s.keys[k];
				if (model_get(&s.m, h))
					FUZZ_ASSERT(cf_contains(&s.f, h), "false negative on lookup");
				break;
			case FOP_GROW:
				{
					char		err[CF_ERRLEN] = "";
					size_t		n = cf_grow_size(&s.f, err, sizeof(err));

					if (n == 0)
						FUZZ_ASSERT(err[0] != '\0' &&
									(s.f.expansion == 0 || s.f.nstages == CF_MAX_STAGES ||
									 strstr(err, "wider than") || strstr(err, "2^32") ||
									 strstr(err, "hash bits") || strstr(err, "1 GB")),
									"cannot grow: %s", err);
					else if (n > 16384)
						break;	/* empty growth multiplies the size: keep runs fast */
					else
					{
						uint8_t    *old = s.f.buf;
						uint8_t    *nb = malloc(n);

						cf_grow(&s.f, nb);
						FUZZ_ASSERT(s.f.buf == nb && s.f.len == n, "grow view");
						free(old);
					}
				}
				break;
			case FOP_UNION:
				{
					/* a partner of the same geometry, n of its own adds, some shared */
					fstate		t;
					cf_params	q = read_params(&g, s.b, s.fpr);
					int			n = next0(&g) % 64,
								j;
					char		err[CF_ERRLEN] = "";
					size_t		ucap;

					init_state(&t, q, keyseed ^ (uint64_t) k);
					for (j = 0; j < n && g.pos < g.n; j++)
					{
						int			kk = next0(&g);

						do_add(&t, (kk & 1) ? s.keys[kk] : t.keys[kk], 0);
					}
					check_all(&t, "in the union partner");
					ucap = cf_union_size(&s.f, &t.f, err, sizeof(err));
					FUZZ_ASSERT(ucap > 0, "union size refused: %s", err);
					{
						uint8_t    *out = malloc(ucap);
						cf_filter	r;
						size_t		used = cf_union(&s.f, &t.f, out, ucap, &r, err, sizeof(err));

						if (used == 0)
						{
							FUZZ_ASSERT((s.f.nstages + t.f.nstages > CF_MAX_STAGES || strstr(err, "does not fit")) &&
										err[0],
										"union refused: %s", err);
							free(out);
						}
						else
						{
							FUZZ_ASSERT(used <= ucap && r.buf == out && r.len == used, "union view");
							free(s.f.buf);
							s.f = r;
							model_merge(&s.m, &t.m);
						}
					}
					free_state(&t);
				}
				break;
		}
		/* cheap checks after every op, everything every 32 ops and at the end */
		{
			cf_stats	st;

			cf_get_stats(&s.f, &st);
			/* each delete left in place (retained) leaves one entry more */
			FUZZ_ASSERT(s.f.split >= 0 ? st.items >= s.m.total + st.retained :
						st.items == s.m.total + st.retained, "stats.items %llu, model %llu + %llu retained",
						(unsigned long long) st.items, (unsigned long long) s.m.total,
						(unsigned long long) st.retained);
			if (s.m.n)
				FUZZ_ASSERT(cf_contains(&s.f, s.m.keys[(size_t) k % s.m.n]), "false negative");
			if (ops % 32 == 0)
				check_all(&s, "after an op");
		}
	}
	check_all(&s, "at the end");
	free_state(&s);
	return 0;
}
