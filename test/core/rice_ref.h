/*
 * rice_ref.h - a reference Rice writer for the tests and the fuzzer, written
 * from FORMAT.md ("cf_aggstate version 2") one bit at a time, independent of
 * src/core/cuckoo_rice.c: gaps d[0] = h[0], d[i] = h[i] - h[i-1] - 1; each
 * q = d >> k one-bits, a zero-bit, the k low bits of d lowest first; bit j of
 * the stream is bit j mod 8 of byte j div 8; zero padding.
 */
#ifndef CF_RICE_REF_H
#define CF_RICE_REF_H

#include <stdint.h>
#include <stdlib.h>

/* the stream's bits for h[0..n) (strictly ascending), UINT64_MAX past 2^40 */
static inline uint64_t
ref_rice_bits(const uint64_t *h, size_t n, int k)
{
	uint64_t	bits = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	d = i == 0 ? h[0] : h[i] - h[i - 1] - 1;

		if ((d >> k) > ((uint64_t) 1 << 40))
			return UINT64_MAX;
		bits += (d >> k) + 1 + (uint64_t) k;
		if (bits > ((uint64_t) 1 << 40))
			return UINT64_MAX;
	}
	return bits;
}

/* writes the stream into out (ceil(bits / 8) bytes, zeroed here) */
static inline void
ref_rice_encode(const uint64_t *h, size_t n, int k, uint8_t *out, size_t len)
{
	uint64_t	j = 0;

	for (size_t b = 0; b < len; b++)
		out[b] = 0;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	d = i == 0 ? h[0] : h[i] - h[i - 1] - 1;

		for (uint64_t q = d >> k; q > 0; q--, j++)
			out[j / 8] |= (uint8_t) (1u << (j % 8));
		j++;					/* the zero bit */
		for (int b = 0; b < k; b++, j++)
			if ((d >> b) & 1)
				out[j / 8] |= (uint8_t) (1u << (j % 8));
	}
}

#endif							/* CF_RICE_REF_H */
