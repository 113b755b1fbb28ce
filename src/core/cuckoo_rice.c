/*
 * cuckoo_rice.c - the Rice code of sorted distinct 64-bit hashes, the bit
 * stream of cf_aggstate version 2 (see cuckoo_rice.h and FORMAT.md).  Plain
 * C99; uses only cuckoo_util (error messages).
 */
#include "cuckoo_rice.h"

#include "cuckoo_util.h"

int
cf_rice_param(uint64_t n)
{
	int			bits = 0;

	if (n == 0)
		return 0;
	while (bits < 64 && (n >> bits) != 0)
		bits++;
	return 64 - bits;			/* 2^k near the mean gap 2^64 / n */
}

bool
cf_rice_encoded_len(const uint64_t *h, size_t n, int k, size_t *len, char *err, size_t errlen)
{
	uint64_t	nbits = 0;

	if (k < 0 || k > CF_RICE_MAX_K)
	{
		cfi_set_err(err, errlen, "Rice parameter %d is not between 0 and %d", k, CF_RICE_MAX_K);
		return false;
	}
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	d = i == 0 ? h[0] : h[i] - h[i - 1] - 1;
		uint64_t	bits;

		if (i > 0 && h[i] <= h[i - 1])
		{
			cfi_set_err(err, errlen, "hashes %zu and %zu are not strictly ascending", i, i + 1);
			return false;
		}
		/* q + 1 + k bits; a sum past what a size_t of bytes can count is refused */
		bits = (d >> k) + 1 + (uint64_t) k;
		if (bits < (d >> k) || nbits > UINT64_MAX - bits ||
			(nbits + bits + 7) / 8 > (uint64_t) (SIZE_MAX / 2))
		{
			cfi_set_err(err, errlen, "the coded hashes are too large for Rice parameter %d", k);
			return false;
		}
		nbits += bits;
	}
	*len = (size_t) ((nbits + 7) / 8);
	return true;
}

typedef struct rice_writer
{
	uint8_t    *p;
	size_t		pos;			/* bytes written */
	uint64_t	acc;			/* bits not yet written, the first lowest */
	int			nacc;
} rice_writer;

/* appends the nbits (at most 32) low bits of x, the lowest first */
static inline void
put_bits(rice_writer *w, uint64_t x, int nbits)
{
	if (nbits == 0)
		return;
	w->acc |= (x & (((uint64_t) 1 << nbits) - 1)) << w->nacc;
	w->nacc += nbits;
	while (w->nacc >= 8)
	{
		w->p[w->pos++] = (uint8_t) w->acc;
		w->acc >>= 8;
		w->nacc -= 8;
	}
}

void
cf_rice_encode(const uint64_t *h, size_t n, int k, uint8_t *out, size_t len)
{
	rice_writer w = {0};

	w.p = out;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	d = i == 0 ? h[0] : h[i] - h[i - 1] - 1;
		uint64_t	q = d >> k;

		for (; q >= 32; q -= 32)
			put_bits(&w, 0xFFFFFFFF, 32);
		put_bits(&w, ((uint64_t) 1 << q) - 1, (int) q + 1);	/* q ones, a zero */
		if (k > 32)
		{
			put_bits(&w, d, 32);
			put_bits(&w, d >> 32, k - 32);
		}
		else
			put_bits(&w, d, k);
	}
	if (w.nacc > 0)
		w.p[w.pos++] = (uint8_t) w.acc;
	/* zero the rest (none when len is the encoded length) */
	for (; w.pos < len; w.pos++)
		w.p[w.pos] = 0;
}

bool
cf_rice_decode(const uint8_t *in, size_t len, int k, uint64_t n, uint64_t *h,
			   char *err, size_t errlen)
{
	uint64_t	total;
	uint64_t	pos = 0;
	uint64_t	prev = 0;

	if (k < 0 || k > CF_RICE_MAX_K)
	{
		cfi_set_err(err, errlen, "Rice parameter %d is not between 0 and %d", k, CF_RICE_MAX_K);
		return false;
	}
	if (len > UINT64_MAX / 8)
	{
		cfi_set_err(err, errlen, "the encoded hashes are too long");
		return false;
	}
	total = (uint64_t) len * 8;
	/* every hash takes at least k + 1 bits */
	if (n > total / (uint64_t) (k + 1))
	{
		cfi_set_err(err, errlen, "%llu hashes with Rice parameter %d cannot fit in %zu bytes",
					(unsigned long long) n, k, len);
		return false;
	}
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	q = 0;
		uint64_t	d = 0;

		/* q one bits, then a zero bit */
		for (;;)
		{
			if (pos >= total)
			{
				cfi_set_err(err, errlen, "the encoded hashes end after %llu of %llu hashes",
							(unsigned long long) i, (unsigned long long) n);
				return false;
			}
			if ((pos & 7) == 0 && in[pos >> 3] == 0xFF && pos + 8 < total)
			{
				q += 8;
				pos += 8;
				continue;
			}
			if (((in[pos >> 3] >> (pos & 7)) & 1) == 0)
				break;
			q++;
			pos++;
		}
		pos++;
		if (total - pos < (uint64_t) k)
		{
			cfi_set_err(err, errlen, "the encoded hashes end after %llu of %llu hashes",
						(unsigned long long) i, (unsigned long long) n);
			return false;
		}
		for (int got = 0; got < k;)
		{
			int			off = (int) (pos & 7);
			int			take = 8 - off < k - got ? 8 - off : k - got;

			d |= (uint64_t) ((in[pos >> 3] >> off) & ((1u << take) - 1)) << got;
			got += take;
			pos += take;
		}
		if (q > (UINT64_MAX >> k))
		{
			cfi_set_err(err, errlen, "hash %llu of the state is past 2^64 - 1",
						(unsigned long long) i + 1);
			return false;
		}
		d |= q << k;
		if (i > 0)
		{
			if (prev == UINT64_MAX || d > UINT64_MAX - prev - 1)
			{
				cfi_set_err(err, errlen, "hash %llu of the state is past 2^64 - 1",
							(unsigned long long) i + 1);
				return false;
			}
			d = prev + 1 + d;
		}
		h[i] = d;
		prev = d;
	}
	/* what is left is the last byte's padding, zero bits */
	if (total - pos >= 8 || (pos < total && (in[pos >> 3] >> (pos & 7)) != 0))
	{
		cfi_set_err(err, errlen,
					"bits other than the last byte's zero padding follow the %llu encoded hashes",
					(unsigned long long) n);
		return false;
	}
	return true;
}
