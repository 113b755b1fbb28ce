/*
 * bench_lookup.c - the C core's batch lookup rate, for test/python/bench.py:
 * reads a filter's bytes and int64 keys (little-endian) from files, then
 * times cf_hash_int64 + cf_contains_many over the keys in blocks of 256 (the
 * blocks the Python module's contains_many uses), best of 5 runs.  Prints
 * "keys found seconds".  Public API only (cuckoo.h).
 *
 *   bench_lookup FILTER_FILE KEYS_FILE
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuckoo.h"

static void *
slurp(const char *path, size_t *len)
{
	FILE	   *fp = fopen(path, "rb");
	void	   *buf;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0)
		return NULL;
	*len = (size_t) ftell(fp);
	rewind(fp);
	buf = malloc(*len + 1);
	if (buf == NULL || fread(buf, 1, *len, fp) != *len)
		return NULL;
	fclose(fp);
	return buf;
}

int
main(int argc, char **argv)
{
	size_t		flen,
				klen,
				n,
				found = 0;
	uint8_t    *fbuf;
	int64_t    *keys;
	cf_filter  *f;
	char		err[CF_ERRLEN];
	double		best = 1e30;

	if (argc != 3)
		return 2;
	fbuf = slurp(argv[1], &flen);
	keys = slurp(argv[2], &klen);
	if (fbuf == NULL || keys == NULL)
		return 2;
	f = cf_filter_from_bytes(fbuf, flen, err, sizeof(err));
	if (f == NULL)
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	n = klen / 8;
	for (int run = 0; run < 5; run++)
	{
		struct timespec t0,
					t1;
		uint64_t	h[256];
		bool		hit[256];
		double		s;

		found = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i0 = 0; i0 < n; i0 += 256)
		{
			size_t		m = n - i0 < 256 ? n - i0 : 256;

			for (size_t i = 0; i < m; i++)
				h[i] = cf_hash_int64(keys[i0 + i]);
			found += cf_contains_many(f, h, m, hit);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	printf("%zu %zu %.6f\n", n, found, best);
	cf_filter_free(f);
	return 0;
}
