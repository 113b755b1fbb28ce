/*
 * cuckoo_base64.c - the text form of a filter: strict base64 of its bytes
 * (RFC 4648, padded, nothing else allowed; FORMAT.md, first lines).
 */
#include "cuckoo.h"
#include "cuckoo_util.h"

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
cf_base64_len(size_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void
cf_base64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= n; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = b64chars[v & 63];
	}
	if (n - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (n - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = '=';
	}
	*dst = '\0';
}

size_t
cf_base64_decoded_len(const char *src, size_t len)
{
	size_t		n;

	if (len == 0 || len % 4 != 0)
		return SIZE_MAX;
	n = len / 4 * 3;
	if (src[len - 1] == '=')
		n--;
	if (src[len - 2] == '=')
		n--;
	return n;
}

static inline int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
cf_base64_decode(const char *src, size_t len, uint8_t *dst, char *err, size_t errlen)
{
	size_t		out = 0;

	if (len == 0 || len % 4 != 0)
	{
		cfi_set_err(err, errlen, "base64 text has %zu characters, not a positive multiple of 4", len);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			pad = 0;
		bool		last = i + 4 == len;

		for (int k = 0; k < 4; k++)
		{
			unsigned char c = (unsigned char) src[i + k];

			if (c == '=' && last && k >= 2)
			{
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad > 0 || (v[k] = b64val(c)) < 0)
			{
				cfi_set_err(err, errlen, "invalid base64 character at position %zu", i + k + 1);
				return SIZE_MAX;
			}
		}
		if ((pad == 1 && (v[2] & 3) != 0) || (pad == 2 && (v[1] & 15) != 0))
		{
			cfi_set_err(err, errlen, "base64 text has non-zero bits in its padding");
			return SIZE_MAX;
		}
		dst[out++] = (uint8_t) ((v[0] << 2) | (v[1] >> 4));
		if (pad < 2)
			dst[out++] = (uint8_t) (((v[1] & 15) << 4) | (v[2] >> 2));
		if (pad < 1)
			dst[out++] = (uint8_t) (((v[2] & 3) << 6) | v[3]);
	}
	return out;
}
