/*
 * cuckoo_operators.c - filters as SQL values: equality, ordering and hashing of
 * the stored bytes, the cast from bytea, and cf_describe.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "cuckoo_args.h"

/* ---------------------------------------------------------------------
 * equality, order and hashing of the stored bytes
 *
 * Two filters are equal when their bytes are: the same values added in the
 * same order to filters created alike give equal filters, but equal sets
 * built differently (another order, capacity, a union) usually do not.
 * The order is that of the bytes as bytea: memcmp of the common length,
 * then the shorter first.  It is a total order, good for sorting, btree
 * indexes, DISTINCT and merge joins, and means nothing about the sets.
 * ------------------------------------------------------------------- */

/* the stored bytes of a filter datum (detoasted, expanded ones flattened) */
static inline struct varlena *
cfpg_bytes(Datum d)
{
	return (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
}

static int
cfpg_cmp(FunctionCallInfo fcinfo)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	struct varlena *b = cfpg_bytes(PG_GETARG_DATUM(1));
	size_t		la = VARSIZE_ANY_EXHDR(a);
	size_t		lb = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	if (c == 0 && la != lb)
		c = la < lb ? -1 : 1;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

/* true if the filters' bytes are equal; different sizes are told apart unread */
static bool
cfpg_equal(FunctionCallInfo fcinfo)
{
	Datum		da = PG_GETARG_DATUM(0);
	Datum		db = PG_GETARG_DATUM(1);
	struct varlena *a,
			   *b;
	bool		eq;

	if (toast_raw_datum_size(da) != toast_raw_datum_size(db))
		return false;
	a = cfpg_bytes(da);
	b = cfpg_bytes(db);
	eq = VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return eq;
}

/* a = b: the same bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_eq);
Datum
cuckoofilter_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_equal(fcinfo));
}

/* a <> b: different bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_ne);
Datum
cuckoofilter_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!cfpg_equal(fcinfo));
}

/* a < b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_lt);
Datum
cuckoofilter_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) < 0);
}

/* a <= b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_le);
Datum
cuckoofilter_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) <= 0);
}

/* a >= b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_ge);
Datum
cuckoofilter_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) >= 0);
}

/* a > b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_gt);
Datum
cuckoofilter_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) > 0);
}

/* btree support: -1, 0 or 1 in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_cmp);
Datum
cuckoofilter_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(cfpg_cmp(fcinfo));
}

/* hash support: a 32-bit hash of the bytes (never stored, so hash_any serves) */
PG_FUNCTION_INFO_V1(cuckoofilter_hash);
Datum
cuckoofilter_hash(PG_FUNCTION_ARGS)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	Datum		h = hash_any((const unsigned char *) VARDATA_ANY(a),
							 (int) VARSIZE_ANY_EXHDR(a));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

/* hash support: a seeded 64-bit hash of the bytes (hash partitioning) */
PG_FUNCTION_INFO_V1(cuckoofilter_hash_extended);
Datum
cuckoofilter_hash_extended(PG_FUNCTION_ARGS)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	Datum		h = hash_any_extended((const unsigned char *) VARDATA_ANY(a),
									  (int) VARSIZE_ANY_EXHDR(a), PG_GETARG_INT64(1));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

/* ---------------------------------------------------------------------
 * casts
 * ------------------------------------------------------------------- */

/* cuckoofilter(bytea), the cast from bytea: the bytes, validated as binary input is */
PG_FUNCTION_INFO_V1(cuckoofilter_from_bytea);
Datum
cuckoofilter_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	size_t		n = VARSIZE(b) - VARHDRSZ;
	struct varlena *v;

	(void) cfpg_validate((const uint8 *) VARDATA(b), n, true, NULL);
	v = (struct varlena *) palloc(VARHDRSZ + n);
	SET_VARSIZE(v, VARHDRSZ + n);
	memcpy(VARDATA(v), VARDATA(b), n);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* ---------------------------------------------------------------------
 * cf_describe
 * ------------------------------------------------------------------- */

/*
 * cf_describe(filter): one line for people, for example
 * "cuckoo filter: 1234 items, capacity 10000 (12% full), expected fpr
 * 0.096% (target 0.78%), 1 sub-filter, 13 kB"; a list, for example
 * "cuckoo filter: list of 3 hashes (exact up to 213 items, then a table at
 * target fpr 1.0%), capacity 1000, 68 bytes"
 */
PG_FUNCTION_INFO_V1(cuckoo_describe);
Datum
cuckoo_describe(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;
	cf_stats	s;
	StringInfoData buf;
	char	   *size;

	cfpg_open_datum(&d, &f);
	cf_get_stats(&f, &s);
	size = text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) (s.bytes + VARHDRSZ)))));
	initStringInfo(&buf);
	if (cf_list_bound(&f) > 0)
	{
		/*
		 * a list (a growing filter's start): its values' 64-bit hashes, exact
		 * but for hash collisions, until an add past its bound makes it the
		 * table its header describes
		 */
		appendStringInfo(&buf, "cuckoo filter: list of %llu hash%s (exact up to %u items, then a%s table at target fpr ",
						 (unsigned long long) s.items, s.items == 1 ? "" : "es",
						 cf_list_bound(&f), cf_encoding_of(&f) == CF_ENC_SEMISORT ? " semisorted" : "");
		cfpg_append_percent(&buf, cfpg_target_fpr(&f));
		appendStringInfo(&buf, "), capacity %llu, %s",
						 (unsigned long long) s.capacity, size);
		PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
	}
	appendStringInfo(&buf, "cuckoo filter: %llu item%s, capacity %llu (",
					 (unsigned long long) s.items, s.items == 1 ? "" : "s",
					 (unsigned long long) s.capacity);
	appendStringInfo(&buf, "%.0f%% full), expected fpr ",
					 s.capacity ? floor(100.0 * (double) s.items / (double) s.capacity + 0.5) : 0.0);
	cfpg_append_percent(&buf, s.fpr);
	appendStringInfoString(&buf, " (target ");
	cfpg_append_percent(&buf, cfpg_target_fpr(&f));
	appendStringInfo(&buf, "), %u sub-filter%s, %s", s.subfilters,
					 s.subfilters == 1 ? "" : "s", size);
	/* bit-packed tables go unsaid, as before encodings had names */
	if (cf_encoding_of(&f) != CF_ENC_PACKED)
		appendStringInfo(&buf, ", %s tables", cfpg_encoding_name(&f));
	/* deletes left in place (1.2): their values stay reported, and take slots */
	if (s.retained > 0)
		appendStringInfo(&buf, "; %llu of %llu deletes retained (left in place)",
						 (unsigned long long) s.retained, (unsigned long long) s.deletes + s.retained);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}
