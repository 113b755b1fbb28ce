/*
 * test_rice.c - the Rice code of cf_aggstate version 2 (src/core/cuckoo_rice.c):
 * the writer's parameter, exact round trips of edge sequences for every
 * parameter the format allows, golden bytes of FORMAT.md's worked example,
 * truncated / padded / garbage streams refused, and a model-based random test
 * against the bit-at-a-time reference writer of rice_ref.h.
 */
#include "harness.h"
#include "rice_ref.h"
#include "tests.h"
#include "cuckoo_rice.h"

/* largest stream a round trip here encodes */
#define RT_MAX_BYTES	((size_t) 1 << 20)

/*
 * Encodes h[0..n) with k, compares the bytes with the reference writer's,
 * decodes them back and compares the hashes; then checks that the stream is
 * refused one byte short, one zero byte longer, with a padding bit set, and
 * as n + 1 hashes.  Returns 0 when the stream would be too large to test.
 */
static int
round_trip(const uint64_t *h, size_t n, int k, const char *what)
{
	size_t		len = 0;
	char		err[CF_ERRLEN];
	uint64_t	bits = ref_rice_bits(h, n, k);
	uint8_t    *enc;
	uint8_t    *ref;
	uint64_t   *back;

	if (bits == UINT64_MAX || bits / 8 + 1 > RT_MAX_BYTES)
		return 0;
	err[0] = '\0';
	if (!cf_rice_encoded_len(h, n, k, &len, err, sizeof(err)))
	{
		CHECKF(0, "%s k=%d: %s", what, k, err);
		return 1;
	}
	CHECKF(len == (size_t) ((bits + 7) / 8), "%s k=%d: length %zu, the reference %llu bits",
		   what, k, len, (unsigned long long) bits);
	enc = malloc(len + 1);
	ref = malloc(len + 1);
	back = malloc((n + 1) * sizeof(uint64_t));
	memset(enc, 0xA5, len + 1);
	cf_rice_encode(h, n, k, enc, len);
	ref_rice_encode(h, n, k, ref, len);
	CHECKF(memcmp(enc, ref, len) == 0, "%s k=%d: bytes differ from the reference writer", what, k);
	CHECKF(enc[len] == 0xA5, "%s k=%d: encode wrote past len", what, k);
	CHECKF(cf_rice_decode(enc, len, k, n, back, err, sizeof(err)), "%s k=%d: decode: %s", what, k, err);
	for (size_t i = 0; i < n && !BAILED(); i++)
		CHECKF(back[i] == h[i], "%s k=%d: hash %zu decoded as %llx, not %llx", what, k, i,
			   (unsigned long long) back[i], (unsigned long long) h[i]);
	/* one byte short, one byte more, n + 1 hashes: refused with a message */
	if (len > 0)
	{
		err[0] = '\0';
		CHECKF(!cf_rice_decode(enc, len - 1, k, n, back, err, sizeof(err)) && err[0] != '\0',
			   "%s k=%d: a stream one byte short decoded", what, k);
	}
	enc[len] = 0;
	err[0] = '\0';
	CHECKF(!cf_rice_decode(enc, len + 1, k, n, back, err, sizeof(err)) && err[0] != '\0',
		   "%s k=%d: a stream with a zero byte more decoded", what, k);
	/* as n + 1 hashes (unless the padding could hold one more: k + 1 zero bits) */
	err[0] = '\0';
	if ((uint64_t) len * 8 - bits < (uint64_t) k + 1)
		CHECKF(!cf_rice_decode(enc, len, k, n + 1, back, err, sizeof(err)) && err[0] != '\0',
			   "%s k=%d: the stream of %zu hashes decoded as %zu", what, k, n, n + 1);
	/* a padding bit set */
	if (bits % 8 != 0)
	{
		enc[len - 1] |= (uint8_t) (0x80);
		err[0] = '\0';
		CHECKF(!cf_rice_decode(enc, len, k, n, back, err, sizeof(err)) && err[0] != '\0',
			   "%s k=%d: a padding bit set decoded", what, k);
	}
	free(enc);
	free(ref);
	free(back);
	return 1;
}

void
test_rice_param(void)
{
	CHECK(cf_rice_param(0) == 0);
	CHECK(cf_rice_param(1) == 63);
	CHECK(cf_rice_param(2) == 62);
	CHECK(cf_rice_param(3) == 62);
	CHECK(cf_rice_param(4) == 61);
	CHECK(cf_rice_param(15000) == 50);
	CHECK(cf_rice_param(UINT64_C(0xFFFFFFFF)) == 32);
	CHECK(cf_rice_param(UINT64_C(1) << 32) == 31);
	CHECK(cf_rice_param(UINT64_MAX) == 0);
	for (int b = 0; b < 64; b++)
		CHECKF(cf_rice_param(UINT64_C(1) << b) == 63 - b, "bitlen %d", b + 1);
}

void
test_rice_edges(void)
{
	uint64_t	h[64];
	char		err[CF_ERRLEN];
	size_t		len;
	int			tested = 0;

	for (int k = 0; k <= CF_RICE_MAX_K && !BAILED(); k++)
	{
		uint64_t	top = k == 0 ? 0 : UINT64_MAX >> (64 - k);	/* the largest d with q = 0 */

		/* empty: no bytes at all */
		CHECK(cf_rice_encoded_len(h, 0, k, &len, err, sizeof(err)) && len == 0);
		tested += round_trip(h, 0, k, "empty");
		/* one value: 0, the largest with q = 0, the smallest with q = 1 */
		h[0] = 0;
		tested += round_trip(h, 1, k, "zero");
		h[0] = top;
		tested += round_trip(h, 1, k, "q=0 max");
		if (k < 63)
		{
			h[0] = top + 1;
			tested += round_trip(h, 1, k, "q=1");
		}
		/* consecutive values: gaps of 0, across byte boundaries */
		for (int i = 0; i < 64; i++)
			h[i] = UINT64_C(1000) + (uint64_t) i;
		tested += round_trip(h, 64, k, "consecutive");
		/* the top of the range: ..., 2^64 - 2, 2^64 - 1 */
		for (int i = 0; i < 64; i++)
			h[i] = UINT64_MAX - 63 + (uint64_t) i;
		tested += round_trip(h, 64, k, "top consecutive");
		/* max deltas: 0 then 2^64 - 1 (a gap of 2^64 - 2), feasible for k >= 44 */
		h[0] = 0;
		h[1] = UINT64_MAX;
		tested += round_trip(h, 2, k, "max delta");
		h[0] = UINT64_MAX;
		tested += round_trip(h, 1, k, "max first");
		/* gaps of each q from 0 up, as many as fit below 2^64 */
		{
			size_t		m = 0;

			for (uint64_t q = 0; q < 41; q++)
			{
				uint64_t	d = (q << k) + (k ? q % 2 : 0);
				uint64_t	prev = m == 0 ? 0 : h[m - 1] + 1;

				if ((q << k) >> k != q || d > UINT64_MAX - prev)
					break;
				h[m++] = prev + d;
			}
			tested += round_trip(h, m, k, "each q");
		}
		/* repeated and descending values are refused by the writer */
		h[0] = 7;
		h[1] = 7;
		err[0] = '\0';
		CHECKF(!cf_rice_encoded_len(h, 2, k, &len, err, sizeof(err)) && err[0] != '\0',
			   "k=%d: equal hashes encoded", k);
		h[1] = 6;
		err[0] = '\0';
		CHECKF(!cf_rice_encoded_len(h, 2, k, &len, err, sizeof(err)) && err[0] != '\0',
			   "k=%d: descending hashes encoded", k);
	}
	/* parameters out of the format's range */
	h[0] = 1;
	err[0] = '\0';
	CHECK(!cf_rice_encoded_len(h, 1, 64, &len, err, sizeof(err)) && err[0] != '\0');
	CHECK(!cf_rice_encoded_len(h, 1, -1, &len, err, sizeof(err)));
	CHECK(!cf_rice_decode((const uint8_t *) "\0\0\0\0\0\0\0\0\0", 9, 64, 1, h, err, sizeof(err)));
	/* a size no buffer can hold is refused, not wrapped */
	h[0] = 0;
	h[1] = UINT64_MAX;
	CHECK(!cf_rice_encoded_len(h, 2, 0, &len, err, sizeof(err)));
	t_note("%d edge round trips over k = 0..%d", tested, CF_RICE_MAX_K);
	CHECK(tested > 400);
}

/*
 * FORMAT.md's worked example: the hashes 5 and 2^62 + 7 (n = 2, so k = 62).
 * d[0] = 5: a zero-bit, then 5 in 62 bits; d[1] = 2^62 + 1: q = 1, so the
 * bits 1, 0, then 1 in 62 bits.  127 bits, 16 bytes: 0x0A (bits 1 and 3),
 * six zero bytes, 0x80 (bit 63, q's one), 0x02 (bit 65), seven zero bytes.
 * And k = 2 over 1, 2, 9 (d = 1, 0, 6): 0 10 | 0 00 | 10 01, bits 1, 6
 * and 9 set: 0x42 0x02.
 */
void
test_rice_golden(void)
{
	static const uint8_t want62[16] = {0x0A, 0, 0, 0, 0, 0, 0, 0x80, 0x02, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t want2[2] = {0x42, 0x02};
	uint64_t	h[3] = {5, (UINT64_C(1) << 62) + 7, 0};
	uint64_t	back[3];
	uint8_t		out[16];
	size_t		len = 0;
	char		err[CF_ERRLEN];

	CHECK(cf_rice_param(2) == 62);
	CHECK(cf_rice_encoded_len(h, 2, 62, &len, err, sizeof(err)) && len == 16);
	cf_rice_encode(h, 2, 62, out, len);
	CHECK(memcmp(out, want62, 16) == 0);
	CHECK(cf_rice_decode(want62, 16, 62, 2, back, err, sizeof(err)) && back[0] == h[0] && back[1] == h[1]);

	h[0] = 1;
	h[1] = 2;
	h[2] = 9;
	CHECK(cf_rice_encoded_len(h, 3, 2, &len, err, sizeof(err)) && len == 2);
	cf_rice_encode(h, 3, 2, out, len);
	CHECK(memcmp(out, want2, 2) == 0);
	CHECK(cf_rice_decode(want2, 2, 2, 3, back, err, sizeof(err)) &&
		  back[0] == 1 && back[1] == 2 && back[2] == 9);
}

/* refusals of hostile streams, with the messages the glue shows */
void
test_rice_hostile(void)
{
	uint64_t	h[8];
	char		err[CF_ERRLEN];
	uint8_t		b[24];

	/* a stream that ends inside a hash: k = 40, the first with q = 12 (53 bits), 88 bits */
	memset(b, 0, sizeof(b));
	b[0] = 0xFF;
	b[1] = 0x0F;
	CHECK(!cf_rice_decode(b, 11, 40, 2, h, err, sizeof(err)));
	CHECKF(strcmp(err, "the encoded hashes end after 1 of 2 hashes") == 0, "%s", err);
	/* a quotient of all ones to the end */
	memset(b, 0xFF, sizeof(b));
	CHECK(!cf_rice_decode(b, 16, 62, 2, h, err, sizeof(err)));
	CHECKF(strcmp(err, "the encoded hashes end after 0 of 2 hashes") == 0, "%s", err);
	/* too many hashes for the bytes: refused before any is written */
	CHECK(!cf_rice_decode(b, 16, 62, 3, h, err, sizeof(err)));
	CHECKF(strcmp(err, "3 hashes with Rice parameter 62 cannot fit in 16 bytes") == 0, "%s", err);
	CHECK(!cf_rice_decode(b, 0, 0, 1, h, err, sizeof(err)));
	CHECK(!cf_rice_decode(NULL, 0, 0, UINT64_MAX, h, err, sizeof(err)));
	/* the first hash 2^64 - 1 (k = 63: q = 1, low bits all ones), the second one more */
	memset(b, 0, sizeof(b));
	b[0] = 0xFD;				/* bit 0: q one; bit 1: the zero; bits 2..: ones */
	memset(b + 1, 0xFF, 7);
	b[8] = 0x01;				/* bit 64: the 63rd low bit; then d[1] = 0 */
	CHECK(cf_rice_decode(b, 9, 63, 1, h, err, sizeof(err)) && h[0] == UINT64_MAX);
	CHECK(!cf_rice_decode(b, 17, 63, 2, h, err, sizeof(err)));
	CHECKF(strcmp(err, "hash 2 of the state is past 2^64 - 1") == 0, "%s", err);
	/* a quotient past 64 - k bits: k = 60, q = 16 */
	memset(b, 0, sizeof(b));
	b[0] = 0xFF;
	b[1] = 0xFF;
	CHECK(!cf_rice_decode(b, 16, 60, 1, h, err, sizeof(err)));
	CHECKF(strcmp(err, "hash 1 of the state is past 2^64 - 1") == 0, "%s", err);
	/* a padding bit, a whole byte more */
	memset(b, 0, sizeof(b));
	b[7] = 0x80;
	CHECK(!cf_rice_decode(b, 8, 62, 1, h, err, sizeof(err)));
	CHECKF(strcmp(err, "bits other than the last byte's zero padding follow the 1 encoded hashes") == 0,
		   "%s", err);
	CHECK(!cf_rice_decode(b, 9, 63, 1, h, err, sizeof(err)));
	CHECK(!cf_rice_decode(b, 1, 0, 0, h, err, sizeof(err)));
	CHECK(cf_rice_decode(b, 0, 0, 0, h, err, sizeof(err)));

	/*
	 * Garbage: every stream the decoder accepts is the one the writer makes
	 * of what it decoded (one encoding per set), and nothing is read past len
	 * (the buffer is exactly len bytes: ASan and valgrind would see it).
	 */
	{
		uint64_t	seed = 35;
		uint64_t	accepted = 0;
		uint64_t	rounds = t_iters(200000, 2000);

		for (uint64_t r = 0; r < rounds && !BAILED(); r++)
		{
			size_t		len = (size_t) rnd_below(&seed, 17);
			int			k = (int) rnd_below(&seed, 64);
			uint64_t	n = rnd_below(&seed, 4);
			uint8_t    *in = malloc(len ? len : 1);
			uint64_t	got[4];

			for (size_t i = 0; i < len; i++)
			{
				uint64_t	x = splitmix64(&seed);

				in[i] = (uint8_t) (x % 3 == 0 ? 0 : x % 3 == 1 ? 0xFF : x >> 8);
			}
			err[0] = '\0';
			if (cf_rice_decode(in, len, k, n, got, err, sizeof(err)))
			{
				size_t		elen = 0;
				uint8_t		enc[17];

				accepted++;
				CHECK(cf_rice_encoded_len(got, (size_t) n, k, &elen, err, sizeof(err)));
				CHECKF(elen == len, "accepted %zu bytes that re-encode to %zu", len, elen);
				if (elen == len)
				{
					cf_rice_encode(got, (size_t) n, k, enc, elen);
					CHECK(memcmp(enc, in, len) == 0);
				}
			}
			else
				CHECK(err[0] != '\0');
			free(in);
		}
		t_note("%llu of %llu garbage streams accepted (each re-encodes to itself)",
			   (unsigned long long) accepted, (unsigned long long) rounds);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * Model-based: random sorted distinct sets (the model: an array of hashes,
 * sorted and deduplicated here) of random sizes and spreads, each with the
 * writer's k and a random k whose stream stays small; bytes checked against
 * the reference writer, hashes against the model.
 */
void
test_rice_model(void)
{
	uint64_t	seed = 0x72696365;
	uint64_t	rounds = t_iters(3000, 100);
	uint64_t   *h = malloc(5000 * sizeof(uint64_t));
	uint64_t	tested = 0;

	for (uint64_t r = 0; r < rounds && !BAILED(); r++)
	{
		size_t		n = (size_t) rnd_below(&seed, r % 10 == 0 ? 5000 : 60);
		int			spread = (int) rnd_below(&seed, 65);	/* hashes below 2^spread */
		size_t		m = 0;

		for (size_t i = 0; i < n; i++)
			h[i] = spread == 64 ? splitmix64(&seed) : (spread == 0 ? 0 : splitmix64(&seed) >> (64 - spread));
		qsort(h, n, sizeof(uint64_t), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (m == 0 || h[i] != h[m - 1])
				h[m++] = h[i];
		tested += round_trip(h, m, cf_rice_param(m), "model (writer's k)");
		tested += round_trip(h, m, (int) rnd_below(&seed, 64), "model (any k)");
	}
	free(h);
	t_note("%llu random sets round-tripped", (unsigned long long) tested);
	CHECK(tested > rounds / 2);
}
