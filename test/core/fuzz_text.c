/*
 * fuzz_text.c - libFuzzer target: any bytes as base64 text -> decode ->
 * cf_validate; a decoded text re-encodes to exactly itself.
 */
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *txt = malloc(size ? size : 1);	/* no NUL: decode must respect len */
	size_t		dl,
				n;
	uint8_t    *dst;
	char		err[CF_ERRLEN];

	memcpy(txt, data, size);
	dl = cf_base64_decoded_len(txt, size);
	if (dl == SIZE_MAX)
	{
		/* decode must refuse the length too (given room for any output) */
		dst = malloc(size + 3);
		err[0] = '\0';
		n = cf_base64_decode(txt, size, dst, err, sizeof(err));
		FUZZ_ASSERT(n == SIZE_MAX && err[0] != '\0', "decode accepted a text decoded_len refused");
		free(dst);
		free(txt);
		return 0;
	}
	FUZZ_ASSERT(dl <= size / 4 * 3 && size % 4 == 0, "decoded_len %zu for %zu chars", dl, size);
	dst = malloc(dl ? dl : 1);	/* exactly what decoded_len promised */
	err[0] = '\0';
	n = cf_base64_decode(txt, size, dst, err, sizeof(err));
	if (n == SIZE_MAX)
		FUZZ_ASSERT(err[0] != '\0', "rejected without a message");
	else
	{
		char	   *back = malloc(cf_base64_len(n) + 1);

		FUZZ_ASSERT(n == dl, "decode wrote %zu, decoded_len said %zu", n, dl);
		/* strict base64: one text per byte string */
		FUZZ_ASSERT(cf_base64_len(n) == size, "encoded length");
		cf_base64_encode(dst, n, back);
		FUZZ_ASSERT(memcmp(back, txt, size) == 0 && back[size] == '\0',
					"text does not round-trip (non-canonical text accepted)");
		free(back);
		if (cf_validate(dst, n, err, sizeof(err)))
		{
			cf_filter	f;
			cf_stats	st;

			FUZZ_ASSERT(cf_open(&f, dst, n, err, sizeof(err)), "valid but does not open");
			cf_get_stats(&f, &st);
			FUZZ_ASSERT(st.bytes == n, "stats.bytes");
		}
		else
			FUZZ_ASSERT(err[0] != '\0', "invalid filter without a message");
	}
	free(dst);
	free(txt);
	return 0;
}
