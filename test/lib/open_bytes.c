/*
 * open_bytes.c - a program outside PostgreSQL that links libcuckoo and uses
 * only the public cuckoo.h: it opens the frozen golden filters that
 * cuckoo 1.0 wrote (test/golden/filters.txt, base64) and checks the answers
 * 1.0 gave for their integer values (values.txt), then builds a filter,
 * takes its bytes, opens them again and checks every answer.
 *
 *   open_bytes TOP      (TOP: the repository, for test/golden)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo.h"

static int failures = 0;

#define CHECK(cond, ...) \
	do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define MAXF 64

static char names[MAXF][64];
static cf_filter *filters[MAXF];
static int nfilters = 0;

static cf_filter *
find(const char *name)
{
	for (int i = 0; i < nfilters; i++)
		if (strcmp(names[i], name) == 0)
			return filters[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	char		path[4096];
	char		line[1 << 16];
	char		err[CF_ERRLEN];
	FILE	   *fp;
	long		checked = 0;

	if (argc != 2)
	{
		fprintf(stderr, "usage: open_bytes TOP\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/test/golden/filters.txt", argv[1]);
	fp = fopen(path, "r");
	if (fp == NULL)
	{
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), fp) != NULL && nfilters < MAXF)
	{
		char	   *tab = strchr(line, '\t');
		size_t		len,
					n;
		uint8_t    *buf;

		if (tab == NULL)
			continue;
		*tab++ = '\0';
		len = strcspn(tab, "\r\n");
		n = cf_base64_decoded_len(tab, len);
		CHECK(n != SIZE_MAX, "%s: bad base64", line);
		if (n == SIZE_MAX)
			continue;
		buf = malloc(n + 1);
		CHECK(cf_base64_decode(tab, len, buf, err, sizeof(err)) == n, "%s: %s", line, err);
		filters[nfilters] = cf_filter_from_bytes(buf, n, err, sizeof(err));
		CHECK(filters[nfilters] != NULL, "%s does not open: %s", line, err);
		free(buf);
		if (filters[nfilters] != NULL)
		{
			strncpy(names[nfilters], line, sizeof(names[0]) - 1);
			names[nfilters][sizeof(names[0]) - 1] = '\0';
			nfilters++;
		}
	}
	fclose(fp);
	CHECK(nfilters >= 10, "only %d golden filters opened", nfilters);

	/* the integer values' answers, as 1.0 recorded them */
	snprintf(path, sizeof(path), "%s/test/golden/values.txt", argv[1]);
	fp = fopen(path, "r");
	if (fp == NULL)
	{
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), fp) != NULL)
	{
		char		name[64],
					type[32],
					value[256],
					contains[8];
		long long	copies,
					count;
		cf_filter  *f;

		if (sscanf(line, "%63s\t%31s\t%255s\t%lld\t%7s\t%lld", name, type, value, &copies,
				   contains, &count) != 6)
			continue;
		if (strcmp(type, "int2") != 0 && strcmp(type, "int4") != 0 && strcmp(type, "int8") != 0)
			continue;
		f = find(name);
		if (f == NULL)
			continue;
		CHECK(cf_contains(f, cf_hash_int64(atoll(value))) == (contains[0] == 't'),
			  "%s %s: contains", name, value);
		CHECK(cf_count(f, cf_hash_int64(atoll(value))) == (uint32_t) count,
			  "%s %s: count", name, value);
		checked++;
	}
	fclose(fp);
	CHECK(checked >= 100, "only %ld golden integer answers checked", checked);

	/* a new filter: adds, its bytes, opened again */
	{
		cf_params	p = {10000, 0.01, 4, 500, 2, CF_ENC_PACKED, CF_GEOM_LIST};
		cf_filter  *f = cf_filter_new(&p, err, sizeof(err));
		cf_filter  *g;
		const uint8_t *b;
		size_t		len;
		cf_stats	s;

		CHECK(f != NULL, "cf_filter_new: %s", err);
		for (int64_t i = 0; i < 50000; i++)
			CHECK(cf_filter_insert(f, cf_hash_int64(i * 7), false, CF_KIND_NUMBER) == CF_OK,
				  "add %lld", (long long) i);
		b = cf_filter_bytes(f, &len);
		g = cf_filter_from_bytes(b, len, err, sizeof(err));
		CHECK(g != NULL, "its bytes do not open: %s", err);
		for (int64_t i = 0; i < 50000 && g != NULL; i++)
			CHECK(cf_contains(g, cf_hash_int64(i * 7)), "lost %lld", (long long) i);
		cf_get_stats(g, &s);
		CHECK(s.items == 50000 && s.kind == CF_KIND_NUMBER,
			  "stats: %llu items, kind %u", (unsigned long long) s.items, s.kind);
		CHECK(cf_filter_remove(g, cf_hash_int64(7)) == CF_OK, "delete");
		CHECK(cf_filter_from_bytes((const uint8_t *) "\xCF\x02garbage", 9, err, sizeof(err)) == NULL,
			  "garbage opened");
		cf_filter_free(f);
		cf_filter_free(g);
	}
	/*
	 * cf_params: a field left 0 is its default (a zero-initialized struct
	 * with a capacity is cf_params_default's filter in the geometry 0 names,
	 * CF_BUILT_AT_ONCE, byte for byte), CF_NONE
	 * asks for no growth; cf_status_str names statuses; cf_contains_first
	 * finds the first hash held
	 */
	{
		cf_params	z = {0};
		cf_params	d = cf_params_default(10);
		cf_params	fixed = {0};
		cf_filter  *a,
				   *b,
				   *c;
		const uint8_t *ab,
				   *bb;
		size_t		alen,
					blen;
		int			full_at = -1;
		uint64_t	probe[3];

		z.capacity = 10;
		d.geometry = CF_BUILT_AT_ONCE;	/* a zero geometry: a chain table */
		fixed.capacity = 10;
		fixed.expansion = CF_NONE;
		CHECK(d.fpr == CF_DEFAULT_FPR && d.bucket_size == CF_DEFAULT_BUCKET_SIZE &&
			  d.max_kicks == CF_DEFAULT_MAX_KICKS && d.expansion == CF_DEFAULT_EXPANSION &&
			  d.encoding == CF_ENC_PACKED && d.capacity == 10, "cf_params_default");
		CHECK(cf_params_default(1).geometry == CF_GEOM_DEFAULT, "cf_params_default: geometry");
		a = cf_filter_new(&z, err, sizeof(err));
		CHECK(a != NULL, "zero-initialized params: %s", err);
		b = cf_filter_new(&d, err, sizeof(err));
		CHECK(b != NULL, "default params: %s", err);
		c = cf_filter_new(&fixed, err, sizeof(err));
		CHECK(c != NULL, "fixed params: %s", err);
		if (a != NULL && b != NULL && c != NULL)
		{
			for (int64_t i = 0; i < 10000; i++)
			{
				CHECK(cf_filter_insert(a, cf_hash_int64(i), false, CF_KIND_NUMBER) == CF_OK,
					  "zero-initialized params: add %lld not CF_OK", (long long) i);
				CHECK(cf_filter_insert(b, cf_hash_int64(i), false, CF_KIND_NUMBER) == CF_OK,
					  "default params: add %lld not CF_OK", (long long) i);
				if (full_at < 0 && cf_filter_insert(c, cf_hash_int64(i), false, CF_KIND_NUMBER) == CF_FULL)
					full_at = (int) i;
			}
			ab = cf_filter_bytes(a, &alen);
			bb = cf_filter_bytes(b, &blen);
			CHECK(alen == blen && memcmp(ab, bb, alen) == 0,
				  "zero-initialized params give other bytes than cf_params_default");
			CHECK(full_at >= 10 && full_at < 100, "expansion CF_NONE: full after %d adds", full_at);
			probe[0] = cf_hash_int64(-1);
			probe[1] = cf_hash_int64(20000);
			probe[2] = cf_hash_int64(77);
			CHECK(cf_contains_first(a, probe, 3) == 2, "cf_contains_first: %zu",
				  cf_contains_first(a, probe, 3));
			CHECK(cf_contains_first(a, probe, 2) == 2, "cf_contains_first of absent hashes");
			CHECK(cf_contains_first(a, probe + 2, 1) == 0, "cf_contains_first of its own hash");
		}
		z.bucket_size = 3;
		CHECK(cf_filter_new(&z, err, sizeof(err)) == NULL && strstr(err, "bucket size") != NULL,
			  "bucket size 3 taken: %s", err);
		CHECK(strcmp(cf_status_str(CF_FULL), "CF_FULL") == 0 &&
			  strcmp(cf_status_str(CF_TOO_MANY_COPIES), "CF_TOO_MANY_COPIES") == 0 &&
			  strcmp(cf_status_str((cf_status) 99), "unknown status") == 0, "cf_status_str");
		cf_filter_free(a);
		cf_filter_free(b);
		cf_filter_free(c);
	}
	for (int i = 0; i < nfilters; i++)
		cf_filter_free(filters[i]);
	printf("lib: %d golden filters opened, %ld golden answers agree, a built filter round-trips: %s\n",
		   nfilters, checked, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
