/*
 * fuzz_bytes.c - libFuzzer target: any bytes -> cf_validate (checked against
 * FORMAT.md, ref.h); a valid filter is opened and every operation run on it.
 */
#include "fuzz_common.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static void
check_ops(const uint8_t *data, size_t size)
{
	uint8_t    *buf = malloc(size);
	cf_filter	f;
	ref_filter	r;
	char		err[CF_ERRLEN];
	cf_stats	st;
	uint64_t	seed = XXH3_64bits(data, size);
	uint64_t	added[16];
	int			nadded = 0,
				i;

	memcpy(buf, data, size);
	/*
	 * At most 500 kicks: a full filter of many sub-filters with max_kicks
	 * 65535 (valid) costs ~0.5 s per failed add natively, and the sanitizers
	 * would turn that into timeouts.  (Undoing long walks is unit-tested.)
	 */
	if (ref_rd16(buf + 8) > 500)
		ref_wr16(buf + 8, 500);
	FUZZ_ASSERT(cf_open(&f, buf, size, err, sizeof(err)), "valid but does not open: %s", err);
	FUZZ_ASSERT(ref_parse(&r, buf, size, 1, NULL), "core accepts what FORMAT.md rejects");
	cf_get_stats(&f, &st);
	FUZZ_ASSERT(st.bytes == size && st.subfilters == f.nstages, "stats");
	FUZZ_ASSERT(st.load_factor >= 0 && st.load_factor <= 1 && st.fpr >= 0 && st.fpr <= 1, "stats range");

	/* lookups agree with FORMAT.md */
	for (i = 0; i < 32; i++)
	{
		uint64_t	h = splitmix64(&seed);
		uint32_t	rc = ref_count(&r, h);

		FUZZ_ASSERT(cf_count(&f, h) == rc, "cf_count %u, FORMAT.md %u", cf_count(&f, h), rc);
		FUZZ_ASSERT(cf_contains(&f, h) == (rc > 0), "cf_contains");
	}

	/* a version-1 filter is written as version 2 first, answering the same */
	if (f.version < 2)
	{
		size_t		usize = cf_upgrade_size(&f);
		uint8_t    *ub = malloc(usize);
		cf_filter	u;

		FUZZ_ASSERT(cf_add(&f, 1) == CF_READ_ONLY && cf_delete(&f, 1) == CF_READ_ONLY,
					"a version-1 filter was written");
		cf_upgrade(&f, ub, &u);
		FUZZ_ASSERT(cf_validate(ub, usize, err, sizeof(err)), "upgraded filter invalid: %s", err);
		for (i = 0; i < 32; i++)
		{
			uint64_t	h = splitmix64(&seed);

			FUZZ_ASSERT(cf_count(&u, h) == cf_count(&f, h), "upgrade changed an answer");
		}
		free(buf);
		buf = ub;
		size = usize;
		f = u;
	}

	/* adds into the copy: present after CF_OK, bytes unchanged after CF_FULL */
	for (i = 0; i < 16; i++)
	{
		uint64_t	h = splitmix64(&seed);
		uint8_t    *snap = malloc(size);
		cf_status	rc;

		memcpy(snap, buf, size);
		rc = cf_add(&f, h);
		if (rc == CF_OK)
		{
			FUZZ_ASSERT(cf_contains(&f, h), "added value absent");
			added[nadded++] = h;
		}
		else
		{
			FUZZ_ASSERT(rc == CF_FULL, "cf_add returned %d", rc);
			FUZZ_ASSERT(memcmp(snap, buf, size) == 0, "CF_FULL changed the bytes");
		}
		free(snap);
	}
	FUZZ_ASSERT(cf_validate(buf, size, err, sizeof(err)), "invalid after adds: %s", err);
	cf_get_stats(&f, &st);

	/*
	 * Deletes of what was added, every other one: a delete is done or, where
	 * sub-filters of unrelated geometry both match, left in place; either
	 * way every added value not deleted is still found (FORMAT.md).
	 */
	for (i = 0; i < nadded; i += 2)
	{
		cf_status	rc = cf_delete(&f, added[i]);

		FUZZ_ASSERT(rc == CF_OK || rc == CF_RETAINED, "delete of an added value gave %d", rc);
	}
	for (i = 1; i < nadded; i += 2)
		FUZZ_ASSERT(cf_contains(&f, added[i]), "an added value was lost by deletes of others");
	FUZZ_ASSERT(cf_validate(buf, size, err, sizeof(err)), "invalid after deletes: %s", err);

	/* growth through cf_insert */
	{
		cf_filter	g;
		uint8_t    *gbuf = malloc(size);
		int			k;

		memcpy(gbuf, buf, size);
		FUZZ_ASSERT(cf_open(&g, gbuf, size, err, sizeof(err)), "reopen");
		for (k = 0; k < 64; k++)
		{
			uint8_t    *before = g.buf;
			uint64_t	h = splitmix64(&seed);
			cf_status	rc = cf_insert(&g, h, t_alloc, NULL);

			if (rc == CF_OK)
				FUZZ_ASSERT(cf_contains(&g, h), "inserted value absent");
			else
				FUZZ_ASSERT(g.buf == before, "failed insert moved the filter");
			if (g.buf != before)
			{
				FUZZ_ASSERT(cf_validate(g.buf, g.len, err, sizeof(err)), "invalid after growth: %s", err);
				free(before);
			}
			if (rc != CF_OK)
				break;
		}
		free(g.buf);
	}

	/* union with itself: every item twice */
	{
		size_t		cap = cf_union_size(&f, &f, err, sizeof(err));

		FUZZ_ASSERT(cap > 0, "self-union refused: %s", err);
		if (cap > 0)
		{
			uint8_t    *out = malloc(cap);
			cf_filter	u;
			size_t		used = cf_union(&f, &f, out, cap, &u, err, sizeof(err));

			if (used == 0)
				FUZZ_ASSERT((2 * f.nstages > CF_MAX_STAGES || strstr(err, "does not fit")) && err[0],
							"self-union failed: %s", err);
			else
			{
				cf_stats	us;

				FUZZ_ASSERT(used <= cap, "union overran its bound");
				FUZZ_ASSERT(cf_validate(out, used, err, sizeof(err)), "union invalid: %s", err);
				cf_get_stats(&f, &st);
				cf_get_stats(&u, &us);
				/* a split union may lift entries out of bits: copies in both children */
				FUZZ_ASSERT(f.split >= 0 ? us.items >= 2 * st.items : us.items == 2 * st.items,
							"union has %llu items, want %llu",
							(unsigned long long) us.items, 2 * (unsigned long long) st.items);
				for (i = 0; i < 16; i++)
				{
					uint64_t	h = splitmix64(&seed);

					FUZZ_ASSERT(cf_count(&u, h) >= 2 * cf_count(&f, h), "union lost copies");
				}
			}
			free(out);
		}
	}
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf = malloc(size ? size : 1);
	char		err[CF_ERRLEN];
	ref_filter	r;
	const char *why = "";
	int			ref_ok;
	bool		ok;
	cf_filter	f;

	memcpy(buf, data, size);
	err[0] = '\0';
	ok = cf_validate(buf, size, err, sizeof(err));
	FUZZ_ASSERT(memcmp(buf, data, size) == 0, "cf_validate wrote to its input");
	ref_ok = ref_parse(&r, buf, size, 1, &why);
	/* where FORMAT.md leaves the header width open (ref.h, "ambiguous"), only a
	 * core that rejects that width agrees: with the first table's, it accepts */
	FUZZ_ASSERT(ok == ref_ok || (r.ambiguous && ref_ok && !ok), "cf_validate %s, FORMAT.md %s (%s)",
				ok ? "valid" : err, ref_ok ? "valid" : "invalid", why);
	if (ok != ref_ok)
	{
		char		err2[CF_ERRLEN];

		buf[4] = (uint8_t) r.st[0].fpbits;
		FUZZ_ASSERT(cf_validate(buf, size, err2, sizeof(err2)),
					"cf_validate rejects a header width FORMAT.md leaves open (%s), and the first table's too (%s)",
					err, err2);
		memcpy(buf, data, size);
	}
	if (!ok)
		FUZZ_ASSERT(err[0] != '\0', "rejected without a message");

	/* opened but not validated: lookups must still be memory-safe */
	if (cf_open(&f, buf, size, err, sizeof(err)))
	{
		cf_stats	st;

		cf_contains(&f, size);
		cf_count(&f, ~(uint64_t) size);
		cf_get_stats(&f, &st);
	}
	if (ok)
		check_ops(data, size);
	free(buf);
	return 0;
}
