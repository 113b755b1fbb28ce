/*
 * fuzz_build.c - libFuzzer target for the bulk build (cf_build): the input
 * chooses a geometry and a list of hashes (random, crowded into one bucket,
 * sharing one fingerprint, repeated, or raw bytes), sorted or not.  A build
 * that says yes must hold exactly those hashes: each present, counts no
 * lower than its copies, a valid filter that every delete empties, and the
 * same bytes when built again, from the same hashes cut into runs
 * (cf_build_runs).  Sorted input is sorted by cf_sort_hashes, checked
 * against qsort.  A build that says no must not crash or
 * write outside its buffers (ASan), whatever the input or work space.
 *
 * Input: b, width, capacity (2 bytes), max_kicks, flags, then items: one
 * kind byte and one operand byte each (raw: 8 operand bytes).
 */
#include "fuzz_common.h"

#define MAX_ITEMS	2048

/*
 * A fresh filter for p and cf_build of h, or, if cut > 0, cf_build_runs of h
 * in runs of 0, 1, .. cut hashes in turn; *out gets the buffer.
 */
static int
build(const cf_params *p, const uint64_t *h, size_t n, int short_work, int cut,
	  uint8_t **out, size_t *len)
{
	cf_run		runs[2 * MAX_ITEMS + 2];
	size_t		nruns = 0;
	cf_filter	f;
	char		err[CF_ERRLEN];
	uint8_t    *buf = t_create(p, len);
	size_t		wl;
	void	   *work;
	int			ok;

	FUZZ_ASSERT(buf != NULL, "cannot create");
	FUZZ_ASSERT(cf_open(&f, buf, *len, err, sizeof(err)), "new filter does not open: %s", err);
	wl = cf_build_work_size(&f, n);
	if (short_work)
		wl = wl / 2;
	work = malloc(wl ? wl : 1);
	if (cut > 0)
	{
		for (size_t k = 0; k < n || nruns == 0;)
		{
			size_t		m = nruns % ((size_t) cut + 1);

			m = m > n - k ? n - k : m;
			runs[nruns].h = h + k;
			runs[nruns++].n = m;
			k += m;
		}
		ok = cf_build_runs(&f, runs, nruns, work, wl);
	}
	else
		ok = cf_build(&f, h, n, work, wl);
	FUZZ_ASSERT(!(ok && short_work && n > 0 && wl < cf_build_work_size(&f, n)),
				"built with too little work space");
	free(work);
	*out = buf;
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int bs[] = {2, 4, 8};
	static const int kicks[] = {0, 1, 5, 50, 500, 0};
	uint64_t   *h;
	size_t		n = 0,
				pos = 6;
	uint64_t	seed;
	int			b,
				wmin,
				flags;
	cf_params	p;
	uint8_t    *a,
			   *a2;
	size_t		la,
				la2;

	if (size < 6)
		return 0;
	b = bs[data[0] % 3];
	wmin = ref_fpbits_for(0.4999, b);
	p = t_params(1 + ((size_t) data[2] | (size_t) data[3] << 8) % 1024,
				 t_fpr_for_width(wmin + data[1] % (33 - wmin), b), b, kicks[data[4] % 5], 2);
	/* bucket size 4: the kicks byte's top bit asks for semi-sorted buckets */
	if (b == 4 && (data[4] & 0x80))
		p.encoding = CF_ENC_SEMISORT;
	flags = data[5];
	seed = UINT64_C(0x9E3779B97F4A7C15) * (1 + data[1]);
	h = malloc(MAX_ITEMS * sizeof(uint64_t));
	FUZZ_ASSERT(h != NULL, "malloc");

	while (pos + 1 < size && n < MAX_ITEMS)
	{
		int			kind = data[pos] % 5;
		uint64_t	k = data[pos + 1];
		uint64_t	s = seed ^ (k * UINT64_C(0xBF58476D1CE4E5B9));

		pos += 2;
		switch (kind)
		{
			case 0:				/* a random hash */
				h[n++] = splitmix64(&s);
				break;
			case 1:				/* one primary bucket for all */
				h[n++] = (UINT64_C(0x7F4A7C15) << 32) | (splitmix64(&s) & 0xFFFFFFFFu);
				break;
			case 2:				/* one fingerprint for all */
				h[n++] = (splitmix64(&s) & UINT64_C(0xFFFFFFFF00000000)) | 0x9E3779B9u;
				break;
			case 3:				/* a copy of an earlier one */
				if (n > 0)
				{
					h[n] = h[k % n];
					n++;
				}
				break;
			case 4:				/* raw bytes */
				{
					uint64_t	raw = k;

					for (int j = 0; j < 7 && pos < size; j++)
						raw = (raw << 8) | data[pos++];
					h[n++] = raw;
				}
				break;
		}
	}
	if (flags & 1)
	{
		/* sorted the way cf_agg sorts, which must agree with qsort */
		uint64_t   *want = malloc((n + 1) * sizeof(uint64_t));
		uint64_t   *tmp = malloc((n + 1) * sizeof(uint64_t));

		FUZZ_ASSERT(want != NULL && tmp != NULL, "malloc");
		memcpy(want, h, n * sizeof(uint64_t));
		qsort(want, n, sizeof(uint64_t), t_cmp_u64);
		cf_sort_hashes(h, tmp, n);
		FUZZ_ASSERT(n == 0 || memcmp(h, want, n * sizeof(uint64_t)) == 0,
					"cf_sort_hashes differs from qsort");
		free(want);
		free(tmp);
	}

	if (build(&p, h, n, (flags & 6) == 6, 0, &a, &la))
	{
		cf_filter	f;
		cf_stats	st;
		model		m;
		char		err[CF_ERRLEN];

		FUZZ_ASSERT(cf_validate(a, la, err, sizeof(err)), "built filter invalid: %s", err);
		FUZZ_ASSERT(cf_open(&f, a, la, err, sizeof(err)), "built filter does not open: %s", err);
		model_init(&m);
		for (size_t i = 0; i < n; i++)
			model_add(&m, h[i]);
		for (size_t i = 0; i < m.n; i++)
		{
			FUZZ_ASSERT(cf_contains(&f, m.keys[i]), "false negative after cf_build");
			FUZZ_ASSERT(cf_count(&f, m.keys[i]) >= m.cnt[i], "count below the copies built");
		}
		cf_get_stats(&f, &st);
		FUZZ_ASSERT(st.items == n && st.subfilters == 1, "items %llu, built %zu",
					(unsigned long long) st.items, n);

		/* the same input builds the same bytes, in runs too */
		FUZZ_ASSERT(build(&p, h, n, 0, 1 + (flags >> 3) % 7, &a2, &la2), "second build failed");
		FUZZ_ASSERT(la == la2 && memcmp(a, a2, la) == 0, "two builds differ");
		free(a2);

		/* and holds nothing else: deleting every copy empties it */
		for (size_t i = 0; i < n; i++)
			FUZZ_ASSERT(cf_delete(&f, h[i]) == CF_OK, "delete after cf_build failed");
		cf_get_stats(&f, &st);
		FUZZ_ASSERT(st.items == 0, "items left after deleting all");
		model_free(&m);
	}
	free(a);
	free(h);
	return 0;
}
