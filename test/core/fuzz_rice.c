/*
 * fuzz_rice.c - libFuzzer target for the Rice code of cf_aggstate version 2
 * (src/core/cuckoo_rice.c).  The first byte picks the mode:
 *   below 0x80: decode hostile bytes.  k is that byte (64..127 must be
 *     refused), n the next 4 bytes (little-endian), the stream the rest; an
 *     accepted stream decodes to strictly ascending hashes whose encoding is
 *     exactly the stream (one encoding per set); a refusal has a message.
 *   0x80 and up: a round trip.  k is the next byte mod 64, then each 8 bytes
 *     a gap (shifted to about 2^(k+1)); the hashes are encoded, compared
 *     with the bit-at-a-time reference writer, and decoded back exactly.
 * The decoder's output buffer holds exactly n hashes and its input exactly
 * the stream's bytes, so ASan sees any access out of bounds.
 */
#include "fuzz_common.h"
#include "rice_ref.h"
#include "cuckoo_rice.h"

static void
decode_hostile(const uint8_t *data, size_t size)
{
	int			k = data[0];
	uint64_t	n = 0;
	size_t		len;
	uint8_t    *in;
	uint64_t   *h;
	char		err[CF_ERRLEN];
	bool		ok;

	if (size < 5)
		return;
	n = (uint64_t) data[1] | (uint64_t) data[2] << 8 | (uint64_t) data[3] << 16 | (uint64_t) data[4] << 24;
	len = size - 5;
	in = malloc(len ? len : 1);
	memcpy(in, data + 5, len);
	/* room for exactly n hashes when n could fit; else none (it must be refused first) */
	h = malloc(n <= (uint64_t) len * 8 && n > 0 ? (size_t) n * sizeof(uint64_t) : 1);
	err[0] = '\0';
	ok = cf_rice_decode(in, len, k, n, h, err, sizeof(err));
	if (!ok)
		FUZZ_ASSERT(err[0] != '\0', "refused without a message");
	else
	{
		size_t		elen = SIZE_MAX;
		uint8_t    *enc;

		FUZZ_ASSERT(k <= CF_RICE_MAX_K, "k %d accepted", k);
		FUZZ_ASSERT(n <= (uint64_t) len * 8, "%llu hashes accepted from %zu bytes", (unsigned long long) n, len);
		for (uint64_t i = 1; i < n; i++)
			FUZZ_ASSERT(h[i - 1] < h[i], "hashes %llu, %llu not ascending", (unsigned long long) i,
						(unsigned long long) i + 1);
		FUZZ_ASSERT(cf_rice_encoded_len(h, (size_t) n, k, &elen, err, sizeof(err)),
					"decoded hashes do not encode: %s", err);
		FUZZ_ASSERT(elen == len, "%zu bytes accepted re-encode to %zu", len, elen);
		enc = malloc(len ? len : 1);
		cf_rice_encode(h, (size_t) n, k, enc, elen);
		FUZZ_ASSERT(memcmp(enc, in, len) == 0, "an accepted stream is not its hashes' encoding");
		free(enc);
	}
	free(h);
	free(in);
}

static void
round_trip(const uint8_t *data, size_t size)
{
	int			k;
	size_t		n = 0;
	uint64_t   *h;
	size_t		len = 0;
	uint8_t    *enc;
	uint8_t    *ref;
	uint64_t   *back;
	uint64_t	bits;
	char		err[CF_ERRLEN];

	if (size < 2)
		return;
	k = data[1] % 64;
	h = malloc((size / 8 + 1) * sizeof(uint64_t));
	for (size_t off = 2; off + 8 <= size; off += 8)
	{
		uint64_t	g = 0;
		uint64_t	prev = n == 0 ? 0 : h[n - 1] + 1;

		for (int b = 0; b < 8; b++)
			g |= (uint64_t) data[off + b] << (8 * b);
		g = k + 2 >= 64 ? g : g >> (64 - (k + 2));
		if ((n > 0 && h[n - 1] == UINT64_MAX) || g > UINT64_MAX - prev)
			break;
		h[n++] = prev + g;
	}
	bits = ref_rice_bits(h, n, k);
	FUZZ_ASSERT(bits != UINT64_MAX, "the gaps were bounded");
	FUZZ_ASSERT(cf_rice_encoded_len(h, n, k, &len, err, sizeof(err)), "encoded_len: %s", err);
	FUZZ_ASSERT(len == (bits + 7) / 8, "length %zu, the reference %llu bits", len, (unsigned long long) bits);
	enc = malloc(len ? len : 1);
	ref = malloc(len ? len : 1);
	back = malloc(n ? n * sizeof(uint64_t) : 1);
	cf_rice_encode(h, n, k, enc, len);
	ref_rice_encode(h, n, k, ref, len);
	FUZZ_ASSERT(memcmp(enc, ref, len) == 0, "bytes differ from the reference writer (k %d, n %zu)", k, n);
	FUZZ_ASSERT(cf_rice_decode(enc, len, k, n, back, err, sizeof(err)), "decode: %s", err);
	FUZZ_ASSERT(n == 0 || memcmp(back, h, n * sizeof(uint64_t)) == 0, "hashes differ after a round trip");
	free(back);
	free(ref);
	free(enc);
	free(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] < 0x80)
		decode_hostile(data, size);
	else
		round_trip(data, size);
	return 0;
}
