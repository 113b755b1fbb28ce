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
 * The 64-bit hash of a non-NULL value of hi->typid (see cfpg_hash_datum):
 * its row's canonical-bytes function (cuckoo_hashval.c's table), or, for
 * the kinds hashed by structure, one case each.
 */
uint64
cfpg_hash_datum_any(CfHashInfo *hi, Datum value, int hashing)
{
	if (hi->row->hash != NULL)
		return hi->row->hash(hi, value, hashing);
	switch (hi->kind)
	{
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
		default:
			break;
	}
	elog(ERROR, "unrecognized cuckoo hash kind %d", hi->kind);
	return 0;					/* keep compiler quiet */
}
