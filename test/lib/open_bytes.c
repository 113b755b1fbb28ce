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
	for (int i = 0; i < nfilters; i++)
		cf_filter_free(filters[i]);
	printf("lib: %d golden filters opened, %ld golden answers agree, a built filter round-trips: %s\n",
		   nfilters, checked, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
