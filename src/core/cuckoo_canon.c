/*
 * cuckoo_canon.c - the canonical forms of values, and their hashes: the one
 * implementation of how a number, a text, a uuid, a date or a timestamp
 * becomes the 64-bit hash a filter stores (docs/hashing.md).  The
 * PostgreSQL glue (src/pg/values/cuckoo_hashval*.c) calls it for SQL values, the
 * Python module (python/) for Python values, so the rules are written once.
 * Plain C99; declared in cuckoo.h; nothing here depends on the machine's
 * byte order.
 */
#include "cuckoo.h"

#include <math.h>

/*
 * A float8's IEEE bits as 8 little-endian bytes; -0 is hashed as 0 and
 * every NaN as one NaN (value hashing 1's floats, and value hashing 2's
 * numbers that are not integers in int64's range).
 */
uint64_t
cf_hash_float8(double v)
{
	uint64_t	bits;
	uint8_t		b[8];

	if (isnan(v))
		bits = UINT64_C(0x7FF8000000000000);
	else
	{
		if (v == 0.0)
			v = 0.0;			/* -0 becomes +0 */
		memcpy(&bits, &v, sizeof(bits));
	}
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t) (bits >> (8 * i));
	return cf_hash_bytes(b, sizeof(b));
}

/*
 * A number given as a float8 (float4, float8, a numeric that is not an
 * integer in int64's range): under value hashing 2, an integer in int64's
 * range hashes as that integer, any other as its float8 bits, so 1::int8,
 * 1.0::float8 and 1.00::numeric agree; under value hashing 1, the bits.
 */
uint64_t
cf_hash_number(double v, int hashing)
{
	if (hashing >= CF_HASHING_V2 &&
		v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == floor(v))
		return cf_hash_int64((int64_t) v);
	return cf_hash_float8(v);
}

/*
 * The alternate of an integer v (int8, or a numeric integer in int64's
 * range) under value hashing 2: above 2^53 in magnitude, the hash of the
 * float8 it rounds to (int8 = float8 compares as float8).
 */
bool
cf_int64_alternate(int64_t v, int hashing, uint64_t *h)
{
	if (hashing < CF_HASHING_V2 ||
		(v <= (INT64_C(1) << 53) && v >= -(INT64_C(1) << 53)))
		return false;
	*h = cf_hash_number((double) v, hashing);
	return true;
}

/*
 * The alternates of a float8 v under value hashing 2: when v is an integer
 * of magnitude 2^53 .. 2^63, the hashes of every int64 that rounds to it
 * (at most CF_NUMBER_ALTERNATES_MAX), into out; returns how many.
 */
size_t
cf_number_alternates(double v, int hashing, uint64_t *out)
{
	int64_t		c;
	size_t		n = 0;

	if (hashing < CF_HASHING_V2 || isnan(v) || v != floor(v) ||
		fabs(v) < 9007199254740992.0 || fabs(v) > 9223372036854775808.0)
		return 0;
	/* the spacing of float8 values is at most 2048 below 2^64 */
	c = v >= 9223372036854775808.0 ? INT64_MAX : (int64_t) v;
	for (int64_t k = -2048; k <= 2048; k++)
	{
		int64_t		i;

		if ((k > 0 && c > INT64_MAX - k) || (k < 0 && c < INT64_MIN - k))
			continue;
		i = c + k;
		if ((double) i == v)
			out[n++] = cf_hash_int64(i);
	}
	return n;
}

/* text of len bytes without its trailing blanks: the length that is left */
size_t
cf_text_trim(const char *p, size_t len)
{
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/*
 * Text in UTF-8 (the caller converts from any other encoding), without its
 * trailing blanks when strip_blanks: value hashing 2 strips text, varchar,
 * name and untyped literals (char(n) always), so 'abc'::char(5) finds
 * 'abc '::varchar.
 */
uint64_t
cf_hash_text(const char *utf8, size_t len, bool strip_blanks)
{
	if (strip_blanks)
		len = cf_text_trim(utf8, len);
	return cf_hash_bytes(utf8, len);
}

/* a one-byte value: a boolean as 0 or 1, a "char" */
uint64_t
cf_hash_byte(uint8_t b)
{
	return cf_hash_bytes(&b, 1);
}

/* a uuid: its 16 bytes */
uint64_t
cf_hash_uuid(const uint8_t *u)
{
	return cf_hash_bytes(u, 16);
}

/* a timestamp (wall clock) or timestamptz (UTC instant): microseconds since 2000-01-01 */
uint64_t
cf_hash_timestamp(int64_t usecs)
{
	return cf_hash_int64(usecs);
}

/*
 * A date (days since 2000-01-01; CF_DATE_NOBEGIN / CF_DATE_NOEND are
 * -infinity / infinity).  Value hashing 2: the timestamp of its midnight
 * (SQL calls them equal); a date beyond timestamp's range, which equals no
 * timestamp, by its day number under a tag of its own.  Value hashing 1:
 * the day number.
 */
uint64_t
cf_hash_date(int32_t day, int hashing)
{
	uint8_t		b[5];
	int64_t		t = (int64_t) day * CF_USECS_PER_DAY;

	if (hashing < CF_HASHING_V2)
		return cf_hash_int64((int64_t) day);
	if (day == CF_DATE_NOBEGIN)
		return cf_hash_int64(INT64_MIN);
	if (day == CF_DATE_NOEND)
		return cf_hash_int64(INT64_MAX);
	if (t >= CF_TIMESTAMP_MIN && t < CF_TIMESTAMP_END)
		return cf_hash_int64(t);
	b[0] = 'D';
	for (int i = 0; i < 4; i++)
		b[i + 1] = (uint8_t) ((uint32_t) day >> (8 * i));
	return cf_hash_bytes(b, sizeof(b));
}

/* the names of the value kinds (header byte 10), as cf_info and errors say them */
static const char *const cf_kind_names[] = {
	NULL, "number", "text", "bytea", "uuid", "boolean", "datetime", "interval",
	"jsonb", "array", "record", "range", "multirange", "char", "other",
	"timestamp", "timestamptz"
};

const char *
cf_kind_name(uint32_t kind)
{
	if (kind == CF_KIND_ANY)
		return "any";
	if (kind > 0 && kind < sizeof(cf_kind_names) / sizeof(cf_kind_names[0]))
		return cf_kind_names[kind];
	return NULL;
}

bool
cf_kind_accepts(uint32_t fkind, uint32_t vkind)
{
	return fkind == vkind ||
		(fkind == CF_KIND_DATETIME && (vkind == CF_KIND_TIMESTAMP || vkind == CF_KIND_TIMESTAMPTZ));
}

bool
cf_kind_mismatch(uint32_t fkind, uint32_t fhashing, uint32_t vkind)
{
	return fkind != vkind && fkind != CF_KIND_NONE && fkind != CF_KIND_ANY &&
		fhashing >= CF_HASHING_V2 && !cf_kind_accepts(fkind, vkind);
}
