/*
 * cuckoo_rice.h - the Rice (Golomb power-of-two) code of sorted distinct
 * 64-bit hashes: the bit stream of cf_aggstate version 2 (FORMAT.md,
 * "cf_aggstate version 2").  Plain C99, no table layout: buffers, sizes and
 * an error message into the caller's buffer.
 *
 * The hashes h[0] < h[1] < ... < h[n-1] are written as gaps d[0] = h[0],
 * d[i] = h[i] - h[i-1] - 1; each gap as q = d >> k one-bits, a zero-bit, then
 * the k low bits of d, least significant first; bits fill each byte from its
 * least significant bit up, and the last byte is padded with zero bits.
 */
#ifndef CUCKOO_RICE_H
#define CUCKOO_RICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CF_RICE_MAX_K	63		/* the largest Rice parameter the format allows */

/* the writer's parameter for n hashes: 64 - bitlen(n) (0 when n = 0) */
int			cf_rice_param(uint64_t n);

/*
 * The exact size in bytes of the stream that codes h[0..n) with parameter
 * k into *len; false (and a message in err) if k is past CF_RICE_MAX_K, the
 * hashes are not strictly ascending, or the stream is too large to address.
 */
bool		cf_rice_encoded_len(const uint64_t *h, size_t n, int k, size_t *len,
								char *err, size_t errlen);

/*
 * Writes the stream of h[0..n) with parameter k into out, which has the
 * len bytes cf_rice_encoded_len reported for the same hashes and k.
 */
void		cf_rice_encode(const uint64_t *h, size_t n, int k, uint8_t *out, size_t len);

/*
 * Decodes n hashes coded with parameter k from in[0..len) into h (room for
 * n): true, or false with a message in err ("lower case, no period") and
 * nothing read outside in[0..len) nor written outside h[0..n).  Refuses a k
 * past CF_RICE_MAX_K, an n the bytes cannot hold (every hash takes at least
 * k + 1 bits), a stream that ends inside a hash, a gap whose quotient does
 * not fit in 64 - k bits or a hash past 2^64 - 1, and anything after the
 * n-th hash but zero padding up to the end of its byte.
 */
bool		cf_rice_decode(const uint8_t *in, size_t len, int k, uint64_t n, uint64_t *h,
						   char *err, size_t errlen);

#endif							/* CUCKOO_RICE_H */
