/*
 * cuckoo_hashval_hash.c - turns one SQL value into the 64-bit hash the cuckoo
 * core takes, through a canonical, platform-independent byte form.
 *
 * Equal values must hash equally, on every platform and in every version,
 * or a filter would answer "absent" for a value it holds.  A filter records
 * which value hashing wrote it (FORMAT.md): 1 for filters of cuckoo 1.0,
 * 2 for new ones.  Value hashing 1:
 *
 *   int2, int4, int8          cf_hash_int64 of the value (all three agree)
 *   float4, float8            the float8 value's IEEE bits, 8 little-endian
 *                             bytes; -0 is hashed as 0, every NaN as one NaN
 *   numeric                   the text of numeric_normalize (1.0 = 1.00)
 *   text, varchar             their bytes in UTF-8 (converted from the
 *                             database encoding unless it is UTF8 or
 *                             SQL_ASCII), so a filter survives a move to a
 *                             database of another encoding
 *   bytea                     its bytes
 *   bpchar                    as text, without trailing blanks
 *   name, unknown             as text; "char" its one byte
 *   uuid                      its 16 bytes
 *   date                      cf_hash_int64 of the day number
 *   timestamp, timestamptz    cf_hash_int64 of the microseconds
 *   bool                      one byte, 0 or 1
 *   interval                  its span as days and microseconds (1 day =
 *                             24 hours, 1 month = 30 days, as = says)
 *   jsonb                     its tokens, numbers by value
 *   domains                   as their base type
 *   arrays                    dimensions, lower bounds, then each element's
 *                             NULL flag and hash, in 64 kB chunks (so int4[]
 *                             agrees with int8[], and no type OID is
 *                             involved)
 *   composites, records       each column's NULL flag and hash
 *   ranges, multiranges       flags and each finite bound's hash; each
 *                             range's hash
 *   anything else             the bytes of its binary send function, with
 *                             text in UTF-8; this is only
 *                             right for types whose equality is binary
 *                             equality of that form
 *
 * Value hashing 2 is the same except that values SQL calls equal across
 * types hash equally: a number (int2/4/8, float4/8, numeric) that is an
 * integer in int64's range hashes as that integer, any other number as its
 * float8 value; a date as the timestamp of its midnight.
 *
 * Nothing here depends on the machine's byte order.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/tupdesc.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "commands/defrem.h"
#include "nodes/nodeFuncs.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/numeric.h"
#include "utils/rangetypes.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "cuckoo_hashval_int.h"

/* the canonical forms are the core's (cuckoo_canon.c): dates and timestamps count alike */
StaticAssertDecl(CF_USECS_PER_DAY == USECS_PER_DAY &&
				 CF_DATE_NOBEGIN == DATEVAL_NOBEGIN && CF_DATE_NOEND == DATEVAL_NOEND &&
				 CF_TIMESTAMP_MIN == MIN_TIMESTAMP && CF_TIMESTAMP_END == END_TIMESTAMP,
				 "the core counts dates and timestamps as PostgreSQL does");

/*
 * Hashes len bytes of text in the database encoding as their UTF-8 form
 * when to_utf8 (a database that is neither UTF8 nor SQL_ASCII), so that a
 * filter answers the same after a move to a database of another encoding.
 */
uint64
cfpg_hash_text(const char *p, size_t len, bool to_utf8)
{
	char	   *u;
	uint64		h;

	if (!to_utf8)
		return cf_hash_text(p, len, false);
	u = pg_server_to_any(p, (int) len, PG_UTF8);
	if (u == p)
		return cf_hash_text(p, len, false);
	h = cf_hash_text(u, strlen(u), false);
	pfree(u);
	return h;
}

/*
 * Text without its trailing blanks when strip_blanks: value hashing 2 from
 * 1.3 hashes text, varchar, name and unknown so (char(n) always was), since
 * SQL's = calls 'abc'::char(5) equal to 'abc '::varchar; filters written
 * before 1.3 may hold the form with the blanks, which probes also try
 * (cfpg_hash_alternates).
 */
uint64
cfpg_hash_text_blanks(const char *p, size_t len, bool strip_blanks, bool to_utf8)
{
	if (strip_blanks)
		len = cf_text_trim(p, len);
	return cfpg_hash_text(p, len, to_utf8);
}

/* hashes a varlena's payload; no copy unless it is compressed or external */
static inline uint64
cfpg_hash_varlena(Datum value, bool strip_blanks, bool to_utf8)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);
	const char *p = VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	uint64		h;

	if (strip_blanks)
		len = cf_text_trim(p, len);
	h = cfpg_hash_text(p, len, to_utf8);
	if (v != raw)
		pfree(v);
	return h;
}


/*
 * The binary send form of value, with any text in it in UTF-8 (or as it is
 * in a SQL_ASCII database).  Send functions convert text (enum labels, json,
 * ...) to the client encoding, which differs between sessions and even
 * between a parallel leader (the session's client_encoding) and its workers
 * (the database encoding); and the database encoding differs between the
 * databases a filter is restored or shipped into.  So the client encoding is
 * set to UTF-8 around the call, and restored afterwards, also on error.
 */
bytea *
cfpg_send_utf8(CfHashInfo *hi, Datum value)
{
	int			client = pg_get_client_encoding();
	int			target = GetDatabaseEncoding() == PG_SQL_ASCII ? PG_SQL_ASCII : PG_UTF8;
	bytea	   *volatile out = NULL;

	if (client == target)
		return SendFunctionCall(&hi->sendfn, value);

	if (PrepareClientEncoding(target) < 0 || SetClientEncoding(target) < 0)
		elog(ERROR, "could not set the client encoding to %s", pg_encoding_to_char(target));
	PG_TRY();
	{
		out = SendFunctionCall(&hi->sendfn, value);
	}
	PG_FINALLY();
	{
		if (SetClientEncoding(client) < 0)
			elog(WARNING, "could not restore the client encoding %s",
				 pg_encoding_to_char(client));
	}
	PG_END_TRY();
	return out;
}

/* appends a little-endian 32- or 64-bit integer to buf */
void
cfpg_append_le(StringInfo buf, uint64 v, int nbytes)
{
	char		b[8];

	for (int i = 0; i < nbytes; i++)
		b[i] = (char) (v >> (8 * i));
	appendBinaryStringInfo(buf, b, nbytes);
}

/* appends one element or column: a NULL flag, then its hash if not NULL */
static void
cfpg_append_item(StringInfo buf, CfHashInfo *hi, Datum value, bool isnull, int hashing)
{
	appendStringInfoChar(buf, isnull ? 0 : 1);
	if (!isnull)
		cfpg_append_le(buf, cfpg_hash_datum(hi, value, hashing), 8);
}

/* when buf has grown to CFH_CHUNK bytes, replaces it by 'C' and its hash */
void
cfpg_fold_chunk(StringInfo buf)
{
	if (buf->len >= CFH_CHUNK)
	{
		uint64		ch = cf_hash_bytes(buf->data, buf->len);

		resetStringInfo(buf);
		appendStringInfoChar(buf, CFH_TAG_CHUNK);
		cfpg_append_le(buf, ch, 8);
	}
}

/* the hash of the canonical bytes in buf, which it frees */
uint64
cfpg_hash_buf(StringInfo buf)
{
	uint64		h = cf_hash_bytes(buf->data, buf->len);

	pfree(buf->data);
	return h;
}

/*
 * An array: 'A', the number of dimensions, each dimension's length and
 * lower bound (array equality compares them), then every element.
 */
uint64
cfpg_hash_array(CfHashInfo *hi, Datum value, int hashing)
{
	AnyArrayType *arr = DatumGetAnyArrayP(value);
	int			ndim = AARR_NDIM(arr);
	const int  *dims = AARR_DIMS(arr);
	const int  *lbs = AARR_LBOUND(arr);
	array_iter	it;
	int			nitems = ArrayGetNItems(ndim, dims);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_ARRAY);
	cfpg_append_le(&buf, (uint32) ndim, 4);
	for (int d = 0; d < ndim; d++)
	{
		cfpg_append_le(&buf, (uint32) dims[d], 4);
		cfpg_append_le(&buf, (uint32) lbs[d], 4);
	}
	array_iter_setup(&it, arr);
	for (int i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		elem = array_iter_next(&it, &isnull, i,
										   hi->elmlen, hi->elmbyval, hi->elmalign);

		cfpg_append_item(&buf, hi->elem, elem, isnull, hashing);
		cfpg_fold_chunk(&buf);
	}
	return cfpg_hash_buf(&buf);
}

/* a new row type for hi: the hash infos of its columns (the old ones stay in mcxt) */
static void
cfpg_record_columns(CfHashInfo *hi, TupleDesc td, Oid tuptype, int32 tuptypmod)
{
	CfHashInfo *cols = MemoryContextAllocZero(hi->mcxt,
											  sizeof(CfHashInfo) * Max(td->natts, 1));

	for (int i = 0; i < td->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(td, i);

		/* a column comes under its own collation (refused if nondeterministic) */
		if (!att->attisdropped)
			cfpg_hashinfo_init(&cols[i], att->atttypid, att->attcollation, hi->mcxt);
	}
	hi->cols = cols;
	hi->ncols = td->natts;
	hi->rectype = tuptype;
	hi->rectypmod = tuptypmod;
}

/*
 * The columns of composite value: its row type's descriptor (pinned, the
 * caller releases it), hi->cols made that type's, and *values / *nulls
 * (palloc'd) the deformed columns
 */
TupleDesc
cfpg_record_open(CfHashInfo *hi, Datum value, Datum **values, bool **nulls)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	Oid			tuptype = HeapTupleHeaderGetTypeId(th);
	int32		tuptypmod = HeapTupleHeaderGetTypMod(th);
	TupleDesc	td = lookup_rowtype_tupdesc(tuptype, tuptypmod);
	HeapTupleData tuple;

	if (hi->cols == NULL || hi->rectype != tuptype || hi->rectypmod != tuptypmod ||
		hi->ncols != td->natts)
		cfpg_record_columns(hi, td, tuptype, tuptypmod);
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	*values = palloc(sizeof(Datum) * Max(td->natts, 1));
	*nulls = palloc(sizeof(bool) * Max(td->natts, 1));
	heap_deform_tuple(&tuple, td, *values, *nulls);
	return td;
}

/*
 * A composite value or record: 'R', the number of (not dropped) columns,
 * then every column.  Column names and type OIDs play no part, so a named
 * composite agrees with ROW(...) of the same values.
 */
uint64
cfpg_hash_record(CfHashInfo *hi, Datum value, int hashing)
{
	Datum	   *values;
	bool	   *nulls;
	TupleDesc	td = cfpg_record_open(hi, value, &values, &nulls);
	int			ncols = 0;
	StringInfoData buf;

	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			ncols++;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_RECORD);
	cfpg_append_le(&buf, (uint32) ncols, 4);
	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			cfpg_append_item(&buf, &hi->cols[i], values[i], nulls[i], hashing);
	ReleaseTupleDesc(td);
	pfree(values);
	pfree(nulls);
	return cfpg_hash_buf(&buf);
}

/*
 * An interval: 'I', then the span interval equality compares (30-day
 * months, 24-hour days) as whole days and a microsecond remainder in
 * [0, 1 day), so '1 day' = '24 hours' = '1440 minutes'.
 */
uint64
cfpg_hash_interval(Datum value)
{
	Interval   *iv = DatumGetIntervalP(value);
	int64		days = (int64) iv->month * 30 + iv->day + iv->time / USECS_PER_DAY;
	int64		frac = iv->time % USECS_PER_DAY;
	StringInfoData buf;

	if (frac < 0)
	{
		frac += USECS_PER_DAY;
		days--;
	}
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_INTERVAL);
	cfpg_append_le(&buf, (uint64) days, 8);
	cfpg_append_le(&buf, (uint64) frac, 8);
	return cfpg_hash_buf(&buf);
}

/*
 * A jsonb: 'J', then its tokens in storage order (object keys are stored
 * sorted and unique), each scalar with its type and canonical bytes:
 * numbers by value (numeric_normalize), as jsonb equality compares them.
 */
static uint64
cfpg_hash_jsonb(Datum value)
{
	Jsonb	   *jb = DatumGetJsonbP(value);
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_JSONB);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		appendStringInfoChar(&buf, (char) tok);
		if (tok == WJB_BEGIN_ARRAY)
			appendStringInfoChar(&buf, v.val.array.rawScalar ? 1 : 0);
		else if (tok == WJB_KEY || tok == WJB_VALUE || tok == WJB_ELEM)
		{
			appendStringInfoChar(&buf, (char) v.type);
			switch (v.type)
			{
				case jbvNull:
					break;
				case jbvBool:
					appendStringInfoChar(&buf, v.val.boolean ? 1 : 0);
					break;
				case jbvString:
					cfpg_append_le(&buf, (uint32) v.val.string.len, 4);
					appendBinaryStringInfo(&buf, v.val.string.val, v.val.string.len);
					break;
				case jbvNumeric:
					{
						char	   *num = numeric_normalize(v.val.numeric);
						size_t		len = strlen(num);

						cfpg_append_le(&buf, (uint32) len, 4);
						appendBinaryStringInfo(&buf, num, (int) len);
						pfree(num);
					}
					break;
				default:
					elog(ERROR, "unexpected jsonb value type %d", (int) v.type);
			}
		}
		cfpg_fold_chunk(&buf);
	}
	return cfpg_hash_buf(&buf);
}

/*
 * A range: 'G', a flags byte (empty; lower, upper infinite; lower, upper
 * inclusive), then the hash of each finite bound.
 */
uint64
cfpg_hash_range(CfHashInfo *hi, Datum value, int hashing)
{
	RangeType  *r = DatumGetRangeTypeP(value);
	RangeBound	lower,
				upper;
	bool		empty;
	uint8		flags;
	StringInfoData buf;

	range_deserialize(hi->rngcache, r, &lower, &upper, &empty);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_RANGE);
	if (empty)
		flags = 1;
	else
		flags = (lower.infinite ? 2 : 0) | (upper.infinite ? 4 : 0) |
			(!lower.infinite && lower.inclusive ? 8 : 0) |
			(!upper.infinite && upper.inclusive ? 16 : 0);
	appendStringInfoChar(&buf, (char) flags);
	if (!empty && !lower.infinite)
		cfpg_append_le(&buf, cfpg_hash_datum(hi->elem, lower.val, hashing), 8);
	if (!empty && !upper.infinite)
		cfpg_append_le(&buf, cfpg_hash_datum(hi->elem, upper.val, hashing), 8);
	return cfpg_hash_buf(&buf);
}

/* A multirange: 'M', the number of ranges, then each range's hash. */
uint64
cfpg_hash_multirange(CfHashInfo *hi, Datum value, int hashing)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	int32		n;
	RangeType **ranges;
	StringInfoData buf;

	multirange_deserialize(hi->rngcache->rngtype, mr, &n, &ranges);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_MULTIRANGE);
	cfpg_append_le(&buf, (uint32) n, 4);
	for (int i = 0; i < n; i++)
	{
		cfpg_append_le(&buf, cfpg_hash_datum(hi->elem, RangeTypePGetDatum(ranges[i]), hashing), 8);
		cfpg_fold_chunk(&buf);
	}
	return cfpg_hash_buf(&buf);
}

/*
 * Value hashing 2 (filters written by 1.1 on): a number that is an integer
 * in int64's range hashes as that integer, any other as its float8 value,
 * so 1::int8, 1::numeric, 1.0::float8 and 1.00::numeric agree, and so do
 * 1.5::numeric and 1.5::float8 (SQL compares a numeric with a float8 as
 * float8).
 */
uint64
cfpg_hash_number_v2(float8 v)
{
	return cf_hash_number(v, CF_HASHING_V2);
}

static uint64
cfpg_hash_numeric_v2(Numeric num)
{
	if (!numeric_is_nan(num))
	{
		Datum		d = NumericGetDatum(num);
		Datum		t = DirectFunctionCall2(numeric_trunc, d, Int32GetDatum(0));

		if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, d, t)) == 0 &&
			DatumGetInt32(DirectFunctionCall2(numeric_cmp, d,
											  NumericGetDatum(int64_to_numeric(PG_INT64_MIN)))) >= 0 &&
			DatumGetInt32(DirectFunctionCall2(numeric_cmp, d,
											  NumericGetDatum(int64_to_numeric(PG_INT64_MAX)))) <= 0)
			return cf_hash_int64(DatumGetInt64(DirectFunctionCall1(numeric_int8, d)));
	}
	/* NaN, infinities, fractions and integers beyond int64: as float8 */
	return cfpg_hash_number_v2(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																NumericGetDatum(num))));
}

/*
 * A numeric under value hashing 1: the text of numeric_normalize (1.0 =
 * 1.00); under value hashing 2, as cfpg_hash_numeric_v2 says.
 */
static uint64
cfpg_hash_numeric(Datum value, int hashing)
{
	Numeric		num = DatumGetNumeric(value);
	uint64		h;

	if (hashing >= CF_HASHING_V2)
		h = cfpg_hash_numeric_v2(num);
	else
	{
		char	   *s = numeric_normalize(num);

		h = cf_hash_bytes(s, strlen(s));
		pfree(s);
	}
	if ((Pointer) num != DatumGetPointer(value))
		pfree(num);
	return h;
}

/* a one-byte value: "char", or a boolean as 0 or 1 */
uint64
cfpg_hash_byte(uint8 b)
{
	return cf_hash_byte(b);
}

/* any other type: the bytes of its binary send function (cfpg_send_utf8) */
static uint64
cfpg_hash_send(CfHashInfo *hi, Datum value)
{
	bytea	   *out = cfpg_send_utf8(hi, value);
	uint64		h = cf_hash_bytes(VARDATA(out), VARSIZE(out) - VARHDRSZ);

	pfree(out);
	return h;
}

/*
 * The 64-bit hash of a non-NULL value of hi->typid (see cfpg_hash_datum): one
 * case per CfHashKind, numbers and dates as value hashing 2 says when the
 * filter's is 2, everything else alike in both.
 */
uint64
cfpg_hash_datum_any(CfHashInfo *hi, Datum value, int hashing)
{
	bool		v2 = hashing >= CF_HASHING_V2;

	switch (hi->kind)
	{
		case CFH_INT2:
			return cf_hash_int64((int64) DatumGetInt16(value));
		case CFH_INT4:
			return cf_hash_int64((int64) DatumGetInt32(value));
		case CFH_INT8:
			return cf_hash_int64(DatumGetInt64(value));
		case CFH_FLOAT4:
			return cf_hash_number((float8) DatumGetFloat4(value), hashing);
		case CFH_FLOAT8:
			return cf_hash_number(DatumGetFloat8(value), hashing);
		case CFH_NUMERIC:
			return cfpg_hash_numeric(value, hashing);
		case CFH_VARLENA:
			return cfpg_hash_varlena(value, v2, hi->to_utf8);
		case CFH_BYTEA:
			return cfpg_hash_varlena(value, false, false);
		case CFH_BPCHAR:
			return cfpg_hash_varlena(value, true, hi->to_utf8);
		case CFH_NAME:
			return cfpg_hash_text_blanks(NameStr(*DatumGetName(value)),
									   strnlen(NameStr(*DatumGetName(value)), NAMEDATALEN),
									   v2, hi->to_utf8);
		case CFH_CHAR:
			return cfpg_hash_byte((uint8) DatumGetChar(value));
		case CFH_UUID:
			return cf_hash_uuid(DatumGetUUIDP(value)->data);
		case CFH_DATE:
			return cf_hash_date(DatumGetDateADT(value), hashing);
		case CFH_TIMESTAMP:
			return cf_hash_timestamp(DatumGetInt64(value));
		case CFH_BOOL:
			return cf_hash_byte(DatumGetBool(value) ? 1 : 0);
		case CFH_CSTRING:
			return cfpg_hash_text_blanks(DatumGetCString(value), strlen(DatumGetCString(value)),
									   v2, hi->to_utf8);
		case CFH_ARRAY:
			return cfpg_hash_array(hi, value, hashing);
		case CFH_RECORD:
			return cfpg_hash_record(hi, value, hashing);
		case CFH_INTERVAL:
			return cfpg_hash_interval(value);
		case CFH_JSONB:
			return cfpg_hash_jsonb(value);
		case CFH_RANGE:
			return cfpg_hash_range(hi, value, hashing);
		case CFH_MULTIRANGE:
			return cfpg_hash_multirange(hi, value, hashing);
		case CFH_SEND:
			return cfpg_hash_send(hi, value);
	}
	elog(ERROR, "unrecognized cuckoo hash kind %d", hi->kind);
	return 0;					/* keep compiler quiet */
}
