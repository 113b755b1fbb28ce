/*
 * cuckoo_hashval.c - turns one SQL value into the 64-bit hash the cuckoo
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

#include "cuckoo_hashval.h"

/* tags that start the canonical bytes of the values hashed by structure */
#define CFH_TAG_ARRAY	'A'
#define CFH_TAG_RECORD	'R'
#define CFH_TAG_RANGE	'G'
#define CFH_TAG_INTERVAL 'I'
#define CFH_TAG_JSONB	'J'
#define CFH_TAG_MULTIRANGE 'M'
/*
 * A big array's canonical bytes are hashed in chunks: when they reach
 * CFH_CHUNK bytes they are replaced by 'C' and their 64-bit hash, so the
 * buffer stays small whatever the array's size.
 */
#define CFH_TAG_CHUNK	'C'
#define CFH_CHUNK		65536

/* the CfHashKind of a scalar type hashed by its value, or 0 for any other */
static int
cf_scalar_kind(Oid basetype)
{
	switch (basetype)
	{
		case INT2OID:
			return CFH_INT2;
		case INT4OID:
			return CFH_INT4;
		case INT8OID:
			return CFH_INT8;
		case FLOAT4OID:
			return CFH_FLOAT4;
		case FLOAT8OID:
			return CFH_FLOAT8;
		case NUMERICOID:
			return CFH_NUMERIC;
		case TEXTOID:
		case VARCHAROID:
			return CFH_VARLENA;
		case BYTEAOID:
			return CFH_BYTEA;
		case BPCHAROID:
			return CFH_BPCHAR;
		case NAMEOID:
			return CFH_NAME;
		case CHAROID:
			return CFH_CHAR;
		case UUIDOID:
			return CFH_UUID;
		case DATEOID:
			return CFH_DATE;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return CFH_TIMESTAMP;
		case BOOLOID:
			return CFH_BOOL;
		case UNKNOWNOID:
		case CSTRINGOID:
			return CFH_CSTRING;
		case INTERVALOID:
			return CFH_INTERVAL;
		case JSONBOID:
			return CFH_JSONB;
		default:
			return 0;
	}
}

/*
 * A true array, hashed element by element: its send form would carry type
 * OIDs.  Its elements come under the array's collation.
 */
static void
cf_hashinfo_array(CfHashInfo *hi, Oid elemtype, Oid collid, MemoryContext mcxt)
{
	CfHashInfo *elem = MemoryContextAllocZero(mcxt, sizeof(CfHashInfo));

	cf_hashinfo_init(elem, elemtype, collid, mcxt);
	get_typlenbyvalalign(elemtype, &hi->elmlen, &hi->elmbyval, &hi->elmalign);
	hi->elem = elem;
	hi->kind = CFH_ARRAY;
}

/*
 * A range or multirange, hashed bound by bound: equal ranges can differ in
 * their send bytes (numrange [1.0,2) = [1.00,2), floats' -0 = 0).
 */
static void
cf_hashinfo_range(CfHashInfo *hi, Oid basetype, bool multi, MemoryContext mcxt)
{
	TypeCacheEntry *tc = lookup_type_cache(basetype, multi ?
										   TYPECACHE_MULTIRANGE_INFO :
										   TYPECACHE_RANGE_INFO);
	CfHashInfo *elem = MemoryContextAllocZero(mcxt, sizeof(CfHashInfo));

	/* a range's bounds come under its subtype collation */
	cf_hashinfo_init(elem, multi ? tc->rngtype->type_id :
					 tc->rngelemtype->type_id,
					 multi ? InvalidOid : tc->rng_collation, mcxt);
	hi->elem = elem;
	hi->rngcache = tc;
	hi->kind = multi ? CFH_MULTIRANGE : CFH_RANGE;
}

/*
 * Refuses values of type typid (shown as shown) if SQL's equality for them
 * under collation collid is not equality of their bytes: its default btree
 * operator class declares no "equalimage" support function, or that says
 * no (citext, whose = ignores case, is one).  Such values, hashed by their
 * bytes, would be reported absent when an equal one with other bytes was
 * added.  A type without a btree operator class has no = to disagree with.
 */
static void
cf_check_equality_is_image(Oid typid, Oid collid)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);
	Oid			opcintype;
	Oid			proc;

	if (!OidIsValid(opclass))
		return;
	opcintype = get_opclass_input_type(opclass);
	proc = get_opfamily_proc(get_opclass_family(opclass), opcintype, opcintype,
							 BTEQUALIMAGE_PROC);
	if (OidIsValid(proc) &&
		DatumGetBool(OidFunctionCall1Coll(proc, collid, ObjectIdGetDatum(opcintype))))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cuckoo filters cannot hash values of type %s", format_type_be(typid)),
			 errdetail("Its = operator can call values with different bytes equal, so a filter would report a value it holds absent."),
			 errhint("Hash a form in which equal values have equal bytes: lower(value::text) for citext; value::text for a type whose text form is canonical (hstore, for example).")));
}

/*
 * Checks the expression arg that a cuckoo function hashes: a value that
 * reached it through an implicit cast that only relabels it (citext passed
 * to the text form of cf_contains or cf_agg) must come from a type whose
 * equality is byte equality too.  An explicit cast (value::text) is the
 * caller's choice of text equality, and is accepted.
 */
void
cf_check_value_expr(Node *arg, Oid collid)
{
	while (arg != NULL && IsA(arg, RelabelType) &&
		   ((RelabelType *) arg)->relabelformat == COERCE_IMPLICIT_CAST)
	{
		arg = (Node *) ((RelabelType *) arg)->arg;
		if (getBaseType(exprType(arg)) >= FirstNormalObjectId)
			cf_check_equality_is_image(getBaseType(exprType(arg)), collid);
	}
}

/* the argno-th argument expression of a function or operator call, or NULL */
Node *
cf_call_arg(Node *expr, int argno)
{
	List	   *args = NIL;

	if (expr == NULL)
		return NULL;
	if (IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	else if (IsA(expr, OpExpr))
		args = ((OpExpr *) expr)->args;
	else if (IsA(expr, ScalarArrayOpExpr))
		args = ((ScalarArrayOpExpr *) expr)->args;
	if (argno < 0 || argno >= list_length(args))
		return NULL;
	return (Node *) list_nth(args, argno);
}

/*
 * Any other type, hashed through the bytes of its binary send function;
 * one without (a pseudo-type among them) cannot be hashed.
 */
static void
cf_hashinfo_send(CfHashInfo *hi, Oid basetype, Oid typid, Oid collid, MemoryContext mcxt)
{
	HeapTuple	tup;
	Form_pg_type pt;
	Oid			sendfn;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(basetype));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", basetype);
	pt = (Form_pg_type) GETSTRUCT(tup);
	sendfn = pt->typsend;
	if (pt->typtype == TYPTYPE_PSEUDO)
		sendfn = InvalidOid;
	ReleaseSysCache(tup);

	if (!OidIsValid(sendfn))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot hash values of type %s",
						format_type_be(typid)),
				 errdetail("Values of a type without a binary send function cannot be added to or looked up in a cuckoo filter."),
				 errhint("Cast the value to text or to another supported type.")));
	/* a type of an extension must have byte equality (the built-in ones do) */
	if (basetype >= FirstNormalObjectId)
		cf_check_equality_is_image(basetype, collid);
	fmgr_info_cxt(sendfn, &hi->sendfn, mcxt);
	hi->kind = CFH_SEND;
}

/*
 * Fills hi for typid, values under collation collid.  The send function, if
 * one is needed, is looked up into mcxt so that hi can live in fn_extra.
 */
void
cf_hashinfo_init(CfHashInfo *hi, Oid typid, Oid collid, MemoryContext mcxt)
{
	Oid			basetype;
	char		typtype;

	if (OidIsValid(collid) && !get_collation_isdeterministic(collid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo filters do not support nondeterministic collations"),
				 errdetail("Values that collation \"%s\" calls equal can differ in their bytes, so a filter would report them absent.",
						   get_collation_name(collid)),
				 errhint("Use a deterministic collation, for example value COLLATE \"C\", or normalize the value first, for example lower(value).")));

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the data type of the value to hash"),
				 errhint("Add an explicit cast to the value.")));

	/* hi->typid stays invalid until hi is complete, in case we fail */
	memset(hi, 0, sizeof(CfHashInfo));
	hi->mcxt = mcxt;
	basetype = getBaseType(typid);
	/*
	 * The geometric types whose = is not equality: boxes and circles of
	 * equal area, paths of as many points, lines and segments equal within a
	 * tolerance.  No hash can find every value such an = calls equal.
	 */
	if (basetype == BOXOID || basetype == CIRCLEOID || basetype == PATHOID ||
		basetype == LINEOID || basetype == LSEGOID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo filters cannot hash values of type %s", format_type_be(typid)),
				 errdetail("Its = operator calls values with different coordinates equal (boxes and circles of equal area, paths of as many points, lines and segments within a tolerance), so a filter would report a value it holds absent."),
				 errhint("Hash a form whose equality is the one you mean, for example value::text for the exact coordinates.")));
	hi->basetype = basetype;
	get_typlenbyval(basetype, &hi->typlen, &hi->typbyval);

	hi->kind = cf_scalar_kind(basetype);
	if (hi->kind == 0)
	{
		typtype = get_typtype(basetype);
		if (OidIsValid(get_element_type(basetype)))
			cf_hashinfo_array(hi, get_element_type(basetype), collid, mcxt);
		else if (typtype == TYPTYPE_RANGE || typtype == TYPTYPE_MULTIRANGE)
			cf_hashinfo_range(hi, basetype, typtype == TYPTYPE_MULTIRANGE, mcxt);
		else if (basetype == RECORDOID || typtype == TYPTYPE_COMPOSITE)
		{
			/* columns are looked up per row type, on first use */
			hi->rectype = InvalidOid;
			hi->kind = CFH_RECORD;
		}
		else
			cf_hashinfo_send(hi, basetype, typid, collid, mcxt);
	}
	/* text is hashed as UTF-8, so filters do not depend on the database encoding */
	hi->to_utf8 = (hi->kind == CFH_VARLENA || hi->kind == CFH_BPCHAR ||
				   hi->kind == CFH_NAME || hi->kind == CFH_CSTRING) &&
		GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII;
	hi->vkind = cf_value_kind(hi->kind);
	/*
	 * Whether a timestamptz equals a timestamp or date depends on the
	 * session's TimeZone; a filter's answers must not, so new filters keep
	 * the two apart (value kinds timestamp and timestamptz).  The hashes are
	 * as 1.1's: a 1.1 filter (kind datetime) answers as before.
	 */
	if (basetype == TIMESTAMPTZOID)
		hi->vkind = CFK_TIMESTAMPTZ;
	hi->typid = typid;
}

/* the hash of a float8, after folding -0 into 0 and every NaN into one */
static inline uint64
cf_hash_float8(float8 v)
{
	uint64		bits;
	uint8		b[8];
	int			i;

	if (isnan(v))
		bits = UINT64CONST(0x7FF8000000000000);
	else
	{
		if (v == 0.0)
			v = 0.0;			/* -0 becomes +0 */
		memcpy(&bits, &v, sizeof(bits));
	}
	for (i = 0; i < 8; i++)
		b[i] = (uint8) (bits >> (8 * i));
	return cf_hash_bytes(b, sizeof(b));
}

/*
 * Hashes len bytes of text in the database encoding as their UTF-8 form
 * when to_utf8 (a database that is neither UTF8 nor SQL_ASCII), so that a
 * filter answers the same after a move to a database of another encoding.
 */
static uint64
cf_hash_text(const char *p, size_t len, bool to_utf8)
{
	char	   *u;
	uint64		h;

	if (!to_utf8)
		return cf_hash_bytes(p, len);
	u = pg_server_to_any(p, (int) len, PG_UTF8);
	if (u == p)
		return cf_hash_bytes(p, len);
	h = cf_hash_bytes(u, strlen(u));
	pfree(u);
	return h;
}

/*
 * Text without its trailing blanks when strip_blanks: value hashing 2 from
 * 1.3 hashes text, varchar, name and unknown so (char(n) always was), since
 * SQL's = calls 'abc'::char(5) equal to 'abc '::varchar; filters written
 * before 1.3 may hold the form with the blanks, which probes also try
 * (cf_hash_alternates).
 */
static uint64
cf_hash_text_blanks(const char *p, size_t len, bool strip_blanks, bool to_utf8)
{
	if (strip_blanks)
		while (len > 0 && p[len - 1] == ' ')
			len--;
	return cf_hash_text(p, len, to_utf8);
}

/* hashes a varlena's payload; no copy unless it is compressed or external */
static inline uint64
cf_hash_varlena(Datum value, bool strip_blanks, bool to_utf8)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);
	const char *p = VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	uint64		h;

	if (strip_blanks)
		while (len > 0 && p[len - 1] == ' ')
			len--;
	h = cf_hash_text(p, len, to_utf8);
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
static bytea *
cf_send_utf8(CfHashInfo *hi, Datum value)
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
static void
cf_append_le(StringInfo buf, uint64 v, int nbytes)
{
	char		b[8];

	for (int i = 0; i < nbytes; i++)
		b[i] = (char) (v >> (8 * i));
	appendBinaryStringInfo(buf, b, nbytes);
}

/* appends one element or column: a NULL flag, then its hash if not NULL */
static void
cf_append_item(StringInfo buf, CfHashInfo *hi, Datum value, bool isnull, int hashing)
{
	appendStringInfoChar(buf, isnull ? 0 : 1);
	if (!isnull)
		cf_append_le(buf, cf_hash_datum(hi, value, hashing), 8);
}

/* when buf has grown to CFH_CHUNK bytes, replaces it by 'C' and its hash */
static inline void
cf_fold_chunk(StringInfo buf)
{
	if (buf->len >= CFH_CHUNK)
	{
		uint64		ch = cf_hash_bytes(buf->data, buf->len);

		resetStringInfo(buf);
		appendStringInfoChar(buf, CFH_TAG_CHUNK);
		cf_append_le(buf, ch, 8);
	}
}

/* the hash of the canonical bytes in buf, which it frees */
static uint64
cf_hash_buf(StringInfo buf)
{
	uint64		h = cf_hash_bytes(buf->data, buf->len);

	pfree(buf->data);
	return h;
}

/*
 * An array: 'A', the number of dimensions, each dimension's length and
 * lower bound (array equality compares them), then every element.
 */
static uint64
cf_hash_array(CfHashInfo *hi, Datum value, int hashing)
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
	cf_append_le(&buf, (uint32) ndim, 4);
	for (int d = 0; d < ndim; d++)
	{
		cf_append_le(&buf, (uint32) dims[d], 4);
		cf_append_le(&buf, (uint32) lbs[d], 4);
	}
	array_iter_setup(&it, arr);
	for (int i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		elem = array_iter_next(&it, &isnull, i,
										   hi->elmlen, hi->elmbyval, hi->elmalign);

		cf_append_item(&buf, hi->elem, elem, isnull, hashing);
		cf_fold_chunk(&buf);
	}
	return cf_hash_buf(&buf);
}

/* a new row type for hi: the hash infos of its columns (the old ones stay in mcxt) */
static void
cf_record_columns(CfHashInfo *hi, TupleDesc td, Oid tuptype, int32 tuptypmod)
{
	CfHashInfo *cols = MemoryContextAllocZero(hi->mcxt,
											  sizeof(CfHashInfo) * Max(td->natts, 1));

	for (int i = 0; i < td->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(td, i);

		/* a column comes under its own collation (refused if nondeterministic) */
		if (!att->attisdropped)
			cf_hashinfo_init(&cols[i], att->atttypid, att->attcollation, hi->mcxt);
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
static TupleDesc
cf_record_open(CfHashInfo *hi, Datum value, Datum **values, bool **nulls)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	Oid			tuptype = HeapTupleHeaderGetTypeId(th);
	int32		tuptypmod = HeapTupleHeaderGetTypMod(th);
	TupleDesc	td = lookup_rowtype_tupdesc(tuptype, tuptypmod);
	HeapTupleData tuple;

	if (hi->cols == NULL || hi->rectype != tuptype || hi->rectypmod != tuptypmod ||
		hi->ncols != td->natts)
		cf_record_columns(hi, td, tuptype, tuptypmod);
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
static uint64
cf_hash_record(CfHashInfo *hi, Datum value, int hashing)
{
	Datum	   *values;
	bool	   *nulls;
	TupleDesc	td = cf_record_open(hi, value, &values, &nulls);
	int			ncols = 0;
	StringInfoData buf;

	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			ncols++;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_RECORD);
	cf_append_le(&buf, (uint32) ncols, 4);
	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			cf_append_item(&buf, &hi->cols[i], values[i], nulls[i], hashing);
	ReleaseTupleDesc(td);
	pfree(values);
	pfree(nulls);
	return cf_hash_buf(&buf);
}

/*
 * An interval: 'I', then the span interval equality compares (30-day
 * months, 24-hour days) as whole days and a microsecond remainder in
 * [0, 1 day), so '1 day' = '24 hours' = '1440 minutes'.
 */
static uint64
cf_hash_interval(Datum value)
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
	cf_append_le(&buf, (uint64) days, 8);
	cf_append_le(&buf, (uint64) frac, 8);
	return cf_hash_buf(&buf);
}

/*
 * A jsonb: 'J', then its tokens in storage order (object keys are stored
 * sorted and unique), each scalar with its type and canonical bytes:
 * numbers by value (numeric_normalize), as jsonb equality compares them.
 */
static uint64
cf_hash_jsonb(Datum value)
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
					cf_append_le(&buf, (uint32) v.val.string.len, 4);
					appendBinaryStringInfo(&buf, v.val.string.val, v.val.string.len);
					break;
				case jbvNumeric:
					{
						char	   *num = numeric_normalize(v.val.numeric);
						size_t		len = strlen(num);

						cf_append_le(&buf, (uint32) len, 4);
						appendBinaryStringInfo(&buf, num, (int) len);
						pfree(num);
					}
					break;
				default:
					elog(ERROR, "unexpected jsonb value type %d", (int) v.type);
			}
		}
		cf_fold_chunk(&buf);
	}
	return cf_hash_buf(&buf);
}

/*
 * A range: 'G', a flags byte (empty; lower, upper infinite; lower, upper
 * inclusive), then the hash of each finite bound.
 */
static uint64
cf_hash_range(CfHashInfo *hi, Datum value, int hashing)
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
		cf_append_le(&buf, cf_hash_datum(hi->elem, lower.val, hashing), 8);
	if (!empty && !upper.infinite)
		cf_append_le(&buf, cf_hash_datum(hi->elem, upper.val, hashing), 8);
	return cf_hash_buf(&buf);
}

/* A multirange: 'M', the number of ranges, then each range's hash. */
static uint64
cf_hash_multirange(CfHashInfo *hi, Datum value, int hashing)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	int32		n;
	RangeType **ranges;
	StringInfoData buf;

	multirange_deserialize(hi->rngcache->rngtype, mr, &n, &ranges);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, CFH_TAG_MULTIRANGE);
	cf_append_le(&buf, (uint32) n, 4);
	for (int i = 0; i < n; i++)
	{
		cf_append_le(&buf, cf_hash_datum(hi->elem, RangeTypePGetDatum(ranges[i]), hashing), 8);
		cf_fold_chunk(&buf);
	}
	return cf_hash_buf(&buf);
}

/*
 * Value hashing 2 (filters written by 1.1 on): a number that is an integer
 * in int64's range hashes as that integer, any other as its float8 value,
 * so 1::int8, 1::numeric, 1.0::float8 and 1.00::numeric agree, and so do
 * 1.5::numeric and 1.5::float8 (SQL compares a numeric with a float8 as
 * float8).
 */
static uint64
cf_hash_number_v2(float8 v)
{
	if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == floor(v))
		return cf_hash_int64((int64) v);
	return cf_hash_float8(v);
}

static uint64
cf_hash_numeric_v2(Numeric num)
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
	return cf_hash_number_v2(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																NumericGetDatum(num))));
}

/*
 * Value hashing 2: a date hashes as the timestamp of its midnight (SQL
 * calls them equal); a date beyond timestamp's range, which equals no
 * timestamp, by its day number under a tag of its own.
 */
static uint64
cf_hash_date_v2(DateADT d)
{
	uint8		b[5];

	if (DATE_IS_NOBEGIN(d))
		return cf_hash_int64(DT_NOBEGIN);
	if (DATE_IS_NOEND(d))
		return cf_hash_int64(DT_NOEND);
	if (IS_VALID_TIMESTAMP((int64) d * USECS_PER_DAY) &&
		(int64) d >= -(PG_INT64_MAX / USECS_PER_DAY) && (int64) d <= PG_INT64_MAX / USECS_PER_DAY)
		return cf_hash_int64((int64) d * USECS_PER_DAY);
	b[0] = 'D';
	for (int i = 0; i < 4; i++)
		b[i + 1] = (uint8) ((uint32) d >> (8 * i));
	return cf_hash_bytes(b, sizeof(b));
}

/*
 * A numeric under value hashing 1: the text of numeric_normalize (1.0 =
 * 1.00); under value hashing 2, as cf_hash_numeric_v2 says.
 */
static uint64
cf_hash_numeric(Datum value, int hashing)
{
	Numeric		num = DatumGetNumeric(value);
	uint64		h;

	if (hashing >= CF_HASHING_V2)
		h = cf_hash_numeric_v2(num);
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
static uint64
cf_hash_byte(uint8 b)
{
	return cf_hash_bytes(&b, 1);
}

/* any other type: the bytes of its binary send function (cf_send_utf8) */
static uint64
cf_hash_send(CfHashInfo *hi, Datum value)
{
	bytea	   *out = cf_send_utf8(hi, value);
	uint64		h = cf_hash_bytes(VARDATA(out), VARSIZE(out) - VARHDRSZ);

	pfree(out);
	return h;
}

/*
 * The 64-bit hash of a non-NULL value of hi->typid (see cf_hash_datum): one
 * case per CfHashKind, numbers and dates as value hashing 2 says when the
 * filter's is 2, everything else alike in both.
 */
uint64
cf_hash_datum_any(CfHashInfo *hi, Datum value, int hashing)
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
			return v2 ? cf_hash_number_v2((float8) DatumGetFloat4(value)) :
				cf_hash_float8((float8) DatumGetFloat4(value));
		case CFH_FLOAT8:
			return v2 ? cf_hash_number_v2(DatumGetFloat8(value)) :
				cf_hash_float8(DatumGetFloat8(value));
		case CFH_NUMERIC:
			return cf_hash_numeric(value, hashing);
		case CFH_VARLENA:
			return cf_hash_varlena(value, v2, hi->to_utf8);
		case CFH_BYTEA:
			return cf_hash_varlena(value, false, false);
		case CFH_BPCHAR:
			return cf_hash_varlena(value, true, hi->to_utf8);
		case CFH_NAME:
			return cf_hash_text_blanks(NameStr(*DatumGetName(value)),
									   strnlen(NameStr(*DatumGetName(value)), NAMEDATALEN),
									   v2, hi->to_utf8);
		case CFH_CHAR:
			return cf_hash_byte((uint8) DatumGetChar(value));
		case CFH_UUID:
			return cf_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN);
		case CFH_DATE:
			return v2 ? cf_hash_date_v2(DatumGetDateADT(value)) :
				cf_hash_int64((int64) DatumGetDateADT(value));
		case CFH_TIMESTAMP:
			return cf_hash_int64(DatumGetInt64(value));
		case CFH_BOOL:
			return cf_hash_byte(DatumGetBool(value) ? 1 : 0);
		case CFH_CSTRING:
			return cf_hash_text_blanks(DatumGetCString(value), strlen(DatumGetCString(value)),
									   v2, hi->to_utf8);
		case CFH_ARRAY:
			return cf_hash_array(hi, value, hashing);
		case CFH_RECORD:
			return cf_hash_record(hi, value, hashing);
		case CFH_INTERVAL:
			return cf_hash_interval(value);
		case CFH_JSONB:
			return cf_hash_jsonb(value);
		case CFH_RANGE:
			return cf_hash_range(hi, value, hashing);
		case CFH_MULTIRANGE:
			return cf_hash_multirange(hi, value, hashing);
		case CFH_SEND:
			return cf_hash_send(hi, value);
	}
	elog(ERROR, "unrecognized cuckoo hash kind %d", hi->kind);
	return 0;					/* keep compiler quiet */
}

/* ---------------------------------------------------------------------
 * value kinds
 * ------------------------------------------------------------------- */

int
cf_value_kind(int hashkind)
{
	switch ((CfHashKind) hashkind)
	{
		case CFH_INT2:
		case CFH_INT4:
		case CFH_INT8:
		case CFH_FLOAT4:
		case CFH_FLOAT8:
		case CFH_NUMERIC:
			return CFK_NUMBER;
		case CFH_VARLENA:
		case CFH_BPCHAR:
		case CFH_NAME:
		case CFH_CSTRING:
			return CFK_TEXT;
		case CFH_BYTEA:
			return CFK_BYTEA;
		case CFH_UUID:
			return CFK_UUID;
		case CFH_BOOL:
			return CFK_BOOL;
		case CFH_DATE:
		case CFH_TIMESTAMP:
			return CFK_TIMESTAMP;	/* timestamptz: see cf_hashinfo_init */
		case CFH_INTERVAL:
			return CFK_INTERVAL;
		case CFH_JSONB:
			return CFK_JSONB;
		case CFH_ARRAY:
			return CFK_ARRAY;
		case CFH_RECORD:
			return CFK_RECORD;
		case CFH_RANGE:
			return CFK_RANGE;
		case CFH_MULTIRANGE:
			return CFK_MULTIRANGE;
		case CFH_CHAR:
			return CFK_CHAR;
		case CFH_SEND:
			return CFK_OTHER;
	}
	return CFK_OTHER;
}

/* The value kind of values of type typid. */
int
cf_type_value_kind(Oid typid)
{
	CfHashInfo	hi;

	cf_hashinfo_init(&hi, typid, InvalidOid, CurrentMemoryContext);
	return hi.vkind;
}

/* how to cast a parameter to a type of value kind kind, for the hint below */
static const char *
cf_kind_cast_example(int kind)
{
	switch ((CfValueKind) kind)
	{
		case CFK_NUMBER:
			return "$1::bigint or $1::numeric";
		case CFK_TEXT:
			return "$1::text";
		case CFK_BYTEA:
			return "$1::bytea";
		case CFK_UUID:
			return "$1::uuid";
		case CFK_BOOL:
			return "$1::boolean";
		case CFK_DATETIME:
			return "$1::timestamptz, $1::timestamp or $1::date";
		case CFK_TIMESTAMP:
			return "$1::timestamp or $1::date";
		case CFK_TIMESTAMPTZ:
			return "$1::timestamptz";
		case CFK_INTERVAL:
			return "$1::interval";
		case CFK_JSONB:
			return "$1::jsonb";
		case CFK_ARRAY:
			return "$1::bigint[], or the array type the filter was built from";
		case CFK_RECORD:
			return "ROW(...) of the column types";
		case CFK_RANGE:
			return "$1::int8range, or the range type the filter was built from";
		case CFK_MULTIRANGE:
			return "$1::int8multirange, or the multirange type the filter was built from";
		case CFK_CHAR:
			return "$1::\"char\"";
		case CFK_OTHER:
			break;
	}
	return "$1::the_type";
}

/* The error for a value of another kind than filter f holds (cfpg_check_kind). */
void
cfpg_kind_mismatch(const cf_filter *f, const CfHashInfo *hi)
{
	if ((f->kind == CFK_TIMESTAMP && hi->vkind == CFK_TIMESTAMPTZ) ||
		(f->kind == CFK_TIMESTAMPTZ && hi->vkind == CFK_TIMESTAMP))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo filter holds %s values, not %s",
						cf_kind_name((int) f->kind), format_type_be(hi->typid)),
				 errdetail("Whether a timestamp or date equals a timestamptz depends on the session's TimeZone setting, and a filter's answers must not."),
				 errhint("Convert the value explicitly: %s.",
						 f->kind == CFK_TIMESTAMPTZ ?
						 "value AT TIME ZONE 'UTC' for the instant of a UTC wall-clock time, or value::timestamptz to read it in the session's TimeZone" :
						 "value AT TIME ZONE 'UTC' for the UTC wall-clock time of an instant, or value::timestamp for the session's")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cuckoo filter holds %s values, not %s",
					cf_kind_name((int) f->kind), format_type_be(hi->typid)),
			 errdetail("Values of kind %s are never found in a filter of %s values, so the answer would be wrong.",
					   cf_kind_name(hi->vkind), cf_kind_name((int) f->kind)),
			 errhint("Cast the value to the type the filter was built from, for example %s (an untyped literal or parameter is text), or mark a filter that really holds several kinds with cf_set_kind(filter, 'any').",
					 cf_kind_cast_example((int) f->kind))));
	pg_unreachable();
}

/* ---------------------------------------------------------------------
 * alternates: the other hashes a value SQL calls equal may be stored under
 *
 * SQL's = is not an equivalence across types: 9007199254740993::int8 equals
 * 9007199254740992::float8 (int8 = float8 compares as float8), which equals
 * 9007199254740992::int8, which does not equal the first.  No one hash per
 * value can serve all three, so a probe also tries the few hashes such a
 * value may have been stored under.  Those of one value, besides its own:
 *
 *   int8, numeric integer     above 2^53 in magnitude: the float8 it rounds to
 *   float4, float8            an integer of magnitude 2^53 .. 2^63: every
 *                             int64 that rounds to it (up to 1,025)
 *   inet, cidr                with no bits set past the netmask: the other
 *                             type's send form (SQL's = ignores the flag)
 *   time, timetz              the timetz a time equals under the session's
 *                             TimeZone (time = timetz casts so), and back
 *   text, varchar, name,      with trailing blanks: the form with them, as
 *   unknown                   filters written before 1.3 hashed it
 *   and inside a composite, array or range only (as a value on its own,
 *   these are refused as another kind, cfpg_check_kind):
 *   "char" and text           the byte as text, and text of one byte (or
 *                             none) as "char"
 *   time and interval         the other type's form of the same span
 *   timestamp, date,          the timestamptz they equal under the
 *   timestamptz               session's TimeZone, and the other way round
 *                             (as the = of the composite is)
 *   composites, arrays,       every combination of their parts' hashes
 *   ranges, multiranges
 * ------------------------------------------------------------------- */

/* a list of hashes: [0] the value's own, then its alternates */
typedef struct CfAltList
{
	int			n;
	int			cap;
	uint64	   *h;
} CfAltList;

static void
cf_alt_init(CfAltList *l)
{
	l->cap = 4;
	l->h = palloc(sizeof(uint64) * l->cap);
	l->n = 0;
}

/* the error for a value with more than CF_MAX_ALTERNATES alternates */
static void
cf_alt_too_many(void)
{
	ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot look this value up in a cuckoo filter"),
				 errdetail("SQL's = calls more than %d values that a filter hashes differently equal to it (integers above 2^53 compared as float8, inside a composite or array), so one probe cannot find them all.",
						   CF_MAX_ALTERNATES),
				 errhint("Cast the value to the type the filter was built from, for example value::bigint for a filter of bigint values.")));
}

/* adds h unless the list has it already */
static void
cf_alt_add(CfAltList *l, uint64 h)
{
	for (int i = 0; i < l->n; i++)
		if (l->h[i] == h)
			return;
	if (l->n >= CF_MAX_ALTERNATES + 1)
		cf_alt_too_many();
	if (l->n == l->cap)
	{
		l->cap *= 2;
		l->h = repalloc(l->h, sizeof(uint64) * l->cap);
	}
	l->h[l->n++] = h;
}

static void cf_alt_list(CfHashInfo *hi, Datum value, int hashing, bool nested, CfAltList *l);

/* a float8 integer of magnitude 2^53 .. 2^63: every other int64 that rounds to it */
static void
cf_alt_float8(float8 v, CfAltList *l)
{
	int64		c;

	if (isnan(v) || v != floor(v) || fabs(v) < 9007199254740992.0 ||
		fabs(v) > 9223372036854775808.0)
		return;
	/* the spacing of float8 values is at most 2048 below 2^64 */
	c = v >= 9223372036854775808.0 ? PG_INT64_MAX : (int64) v;
	for (int64 k = -2048; k <= 2048; k++)
	{
		int64		i;

		if (!pg_add_s64_overflow(c, k, &i) && (float8) i == v)
			cf_alt_add(l, cf_hash_int64(i));
	}
}

/* the hash of a "char" byte as text (charout's form), as value hashing 2 hashes text */
static uint64
cf_hash_char_as_text(uint8 b)
{
	char		buf[5];

	if (b == 0)
		return cf_hash_bytes("", 0);
	if (b & 0x80)
	{
		snprintf(buf, sizeof(buf), "\\%03o", (unsigned) b);
		return cf_hash_bytes(buf, 4);
	}
	buf[0] = (char) b;
	return cf_hash_text_blanks(buf, 1, true, false);
}

/* text p (len bytes, as stored): the forms with its blanks, and as a "char" */
static void
cf_alt_text(const char *p, size_t len, int hashing, bool nested, bool to_utf8, CfAltList *l)
{
	if (hashing < CF_HASHING_V2)
		return;
	if (len > 0 && p[len - 1] == ' ')
		cf_alt_add(l, cf_hash_text(p, len, to_utf8));
	if (!nested)
		return;
	if (len == 0)
		cf_alt_add(l, cf_hash_byte(0));
	else if (len == 1)
		cf_alt_add(l, cf_hash_byte((uint8) p[0]));
	else if (len == 4 && p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
			 p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7')
		cf_alt_add(l, cf_hash_byte((uint8) (((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'))));
}

/* an inet or cidr: its send form with the cidr flag flipped, if no host bit is set */
static void
cf_alt_inet(CfHashInfo *hi, Datum value, CfAltList *l)
{
	bytea	   *out = cf_send_utf8(hi, value);
	uint8	   *b = (uint8 *) VARDATA(out);
	int			len = VARSIZE(out) - VARHDRSZ;
	bool		host = false;

	/* family, bits, is_cidr, address length, address */
	if (len >= 4 && len == 4 + b[3])
	{
		for (int i = 0; i < b[3]; i++)
		{
			int			keep = Max(0, Min(8, b[1] - 8 * i));

			if ((b[4 + i] & (uint8) (0xFF >> keep)) != 0)
				host = true;
		}
		if (!host)
		{
			b[2] = b[2] ? 0 : 1;
			cf_alt_add(l, cf_hash_bytes(b, len));
		}
	}
	pfree(out);
}

/* microseconds as time's send form: 8 bytes, big-endian */
static uint64
cf_hash_time_send(int64 t)
{
	uint8		b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8) ((uint64) t >> (8 * (7 - i)));
	return cf_hash_bytes(b, 8);
}

/* a timetz's send form: the time, 8 bytes, then the zone, 4 bytes, big-endian */
static uint64
cf_hash_timetz_send(const TimeTzADT *t)
{
	uint8		b[12];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8) ((uint64) t->time >> (8 * (7 - i)));
	for (int i = 0; i < 4; i++)
		b[8 + i] = (uint8) ((uint32) t->zone >> (8 * (3 - i)));
	return cf_hash_bytes(b, 12);
}

/* a timestamp's, timestamptz's or date's counterpart under the session's TimeZone */
static void
cf_alt_datetime(CfHashInfo *hi, Datum value, CfAltList *l)
{
	Oid			base = hi->basetype;
	int			overflow = 0;

	if (base == TIMESTAMPOID)
	{
		TimestampTz t = timestamp2timestamptz_opt_overflow(DatumGetTimestamp(value), &overflow);

		if (overflow == 0)
			cf_alt_add(l, cf_hash_int64(t));
	}
	else if (base == DATEOID)
	{
		TimestampTz t = date2timestamptz_opt_overflow(DatumGetDateADT(value), &overflow);

		if (overflow == 0)
			cf_alt_add(l, cf_hash_int64(t));
	}
	else if (base == TIMESTAMPTZOID)
	{
		TimestampTz t = DatumGetTimestampTz(value);
		struct pg_tm tm;
		fsec_t		fsec;
		int			tz;
		Timestamp	w;

		if (TIMESTAMP_NOT_FINITE(t))
			return;
		if (timestamp2tm(t, &tz, &tm, &fsec, NULL, NULL) == 0 &&
			tm2timestamp(&tm, fsec, NULL, &w) == 0)
			cf_alt_add(l, cf_hash_int64(w));
	}
}

/*
 * The parts of a composite, array or range, each with its own list: the
 * combinations of their hashes, serialized as cf_hash_record, cf_hash_array,
 * cf_hash_range and cf_hash_multirange do (prefix, then per part a NULL flag
 * if nullflags and the 8-byte hash, folded in chunks if fold).
 */
typedef struct CfAltPart
{
	bool		isnull;
	CfAltList	l;
} CfAltPart;

static void
cf_alt_combine(const StringInfo prefix, CfAltPart *parts, int nparts, bool nullflags,
			   bool fold, CfAltList *out)
{
	int		   *idx;
	double		combos = 1;

	for (int i = 0; i < nparts; i++)
		if (!parts[i].isnull)
			combos *= parts[i].l.n;
	if (combos > CF_MAX_ALTERNATES + 1)
		cf_alt_too_many();
	idx = palloc0(sizeof(int) * Max(nparts, 1));
	for (;;)
	{
		StringInfoData buf;
		int			i;

		initStringInfo(&buf);
		appendBinaryStringInfo(&buf, prefix->data, prefix->len);
		for (i = 0; i < nparts; i++)
		{
			if (nullflags)
				appendStringInfoChar(&buf, parts[i].isnull ? 0 : 1);
			if (!parts[i].isnull)
				cf_append_le(&buf, parts[i].l.h[idx[i]], 8);
			if (fold)
				cf_fold_chunk(&buf);
		}
		cf_alt_add(out, cf_hash_buf(&buf));
		/* the next combination */
		for (i = 0; i < nparts; i++)
		{
			if (parts[i].isnull)
				continue;		/* a NULL part has no hashes to vary */
			if (++idx[i] < parts[i].l.n)
				break;
			idx[i] = 0;
		}
		if (i == nparts)
			break;
	}
	pfree(idx);
	for (int i = 0; i < nparts; i++)
		if (!parts[i].isnull)
			pfree(parts[i].l.h);
	pfree(prefix->data);
}

static void
cf_alt_array(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	AnyArrayType *arr = DatumGetAnyArrayP(value);
	int			ndim = AARR_NDIM(arr);
	int			nitems = ArrayGetNItems(ndim, AARR_DIMS(arr));
	array_iter	it;
	CfAltPart  *parts = palloc0(sizeof(CfAltPart) * Max(nitems, 1));
	StringInfoData prefix;

	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_ARRAY);
	cf_append_le(&prefix, (uint32) ndim, 4);
	for (int d = 0; d < ndim; d++)
	{
		cf_append_le(&prefix, (uint32) AARR_DIMS(arr)[d], 4);
		cf_append_le(&prefix, (uint32) AARR_LBOUND(arr)[d], 4);
	}
	array_iter_setup(&it, arr);
	for (int i = 0; i < nitems; i++)
	{
		Datum		elem = array_iter_next(&it, &parts[i].isnull, i,
										   hi->elmlen, hi->elmbyval, hi->elmalign);

		if (!parts[i].isnull)
			cf_alt_list(hi->elem, elem, hashing, true, &parts[i].l);
	}
	cf_alt_combine(&prefix, parts, nitems, true, true, l);
	pfree(parts);
}

static void
cf_alt_record(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	Datum	   *values;
	bool	   *nulls;
	TupleDesc	td = cf_record_open(hi, value, &values, &nulls);
	CfAltPart  *parts = palloc0(sizeof(CfAltPart) * Max(td->natts, 1));
	int			ncols = 0;
	StringInfoData prefix;

	for (int i = 0; i < td->natts; i++)
	{
		if (TupleDescAttr(td, i)->attisdropped)
			continue;
		parts[ncols].isnull = nulls[i];
		if (!nulls[i])
			cf_alt_list(&hi->cols[i], values[i], hashing, true, &parts[ncols].l);
		ncols++;
	}
	ReleaseTupleDesc(td);
	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_RECORD);
	cf_append_le(&prefix, (uint32) ncols, 4);
	cf_alt_combine(&prefix, parts, ncols, true, false, l);
	pfree(parts);
	pfree(values);
	pfree(nulls);
}

static void
cf_alt_range(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	RangeType  *r = DatumGetRangeTypeP(value);
	RangeBound	lower,
				upper;
	bool		empty;
	uint8		flags;
	CfAltPart	parts[2];
	int			nparts = 0;
	StringInfoData prefix;

	range_deserialize(hi->rngcache, r, &lower, &upper, &empty);
	if (empty)
	{
		cf_alt_add(l, cf_hash_range(hi, value, hashing));
		return;
	}
	flags = (lower.infinite ? 2 : 0) | (upper.infinite ? 4 : 0) |
		(!lower.infinite && lower.inclusive ? 8 : 0) |
		(!upper.infinite && upper.inclusive ? 16 : 0);
	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_RANGE);
	appendStringInfoChar(&prefix, (char) flags);
	memset(parts, 0, sizeof(parts));
	if (!lower.infinite)
		cf_alt_list(hi->elem, lower.val, hashing, true, &parts[nparts++].l);
	if (!upper.infinite)
		cf_alt_list(hi->elem, upper.val, hashing, true, &parts[nparts++].l);
	cf_alt_combine(&prefix, parts, nparts, false, false, l);
}

static void
cf_alt_multirange(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	int32		n;
	RangeType **ranges;
	CfAltPart  *parts;
	StringInfoData prefix;

	multirange_deserialize(hi->rngcache->rngtype, mr, &n, &ranges);
	parts = palloc0(sizeof(CfAltPart) * Max(n, 1));
	for (int i = 0; i < n; i++)
		cf_alt_list(hi->elem, RangeTypePGetDatum(ranges[i]), hashing, true, &parts[i].l);
	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_MULTIRANGE);
	cf_append_le(&prefix, (uint32) n, 4);
	cf_alt_combine(&prefix, parts, n, false, true, l);
}

/*
 * l: the value's own hash, then its alternates; nested: the value is part
 * of a composite, array or range.
 */
static void
cf_alt_list(CfHashInfo *hi, Datum value, int hashing, bool nested, CfAltList *l)
{
	bool		v2 = hashing >= CF_HASHING_V2;

	cf_alt_init(l);
	/* a composite, array or range: its own hash is the first combination */
	if (hi->kind != CFH_ARRAY && hi->kind != CFH_RECORD && hi->kind != CFH_RANGE &&
		hi->kind != CFH_MULTIRANGE)
		cf_alt_add(l, cf_hash_datum(hi, value, hashing));
	switch (hi->kind)
	{
		case CFH_INT8:
			{
				int64		x = DatumGetInt64(value);

				if (v2 && (x > (INT64CONST(1) << 53) || x < -(INT64CONST(1) << 53)))
					cf_alt_add(l, cf_hash_number_v2((float8) x));
				break;
			}
		case CFH_NUMERIC:
			if (v2)
				cf_alt_add(l, cf_hash_number_v2(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																				   value))));
			break;
		case CFH_FLOAT4:
			if (v2)
				cf_alt_float8((float8) DatumGetFloat4(value), l);
			break;
		case CFH_FLOAT8:
			if (v2)
				cf_alt_float8(DatumGetFloat8(value), l);
			break;
		case CFH_VARLENA:
		case CFH_BPCHAR:
			{
				struct varlena *raw = (struct varlena *) DatumGetPointer(value);
				struct varlena *t = pg_detoast_datum_packed(raw);
				size_t		len = VARSIZE_ANY_EXHDR(t);

				/* char(n)'s own blanks are padding: only its stripped form is text */
				if (hi->kind == CFH_BPCHAR)
					while (len > 0 && VARDATA_ANY(t)[len - 1] == ' ')
						len--;
				if (hi->kind == CFH_VARLENA || nested)
					cf_alt_text(VARDATA_ANY(t), len, hashing, nested, hi->to_utf8, l);
				if (t != raw)
					pfree(t);
				break;
			}
		case CFH_NAME:
			cf_alt_text(NameStr(*DatumGetName(value)),
						strnlen(NameStr(*DatumGetName(value)), NAMEDATALEN),
						hashing, nested, hi->to_utf8, l);
			break;
		case CFH_CSTRING:
			cf_alt_text(DatumGetCString(value), strlen(DatumGetCString(value)),
						hashing, nested, hi->to_utf8, l);
			break;
		case CFH_CHAR:
			if (nested && v2)
				cf_alt_add(l, cf_hash_char_as_text((uint8) DatumGetChar(value)));
			break;
		case CFH_SEND:
			{
				Oid			base = hi->basetype;

				if (base == INETOID || base == CIDROID)
					cf_alt_inet(hi, value, l);
				else if (base == TIMEOID)
				{
					cf_alt_add(l, cf_hash_timetz_send(DatumGetTimeTzADTP(DirectFunctionCall1(time_timetz,
																							 value))));
					if (nested)
					{
						Interval	iv;

						iv.time = DatumGetTimeADT(value);
						iv.day = 0;
						iv.month = 0;
						cf_alt_add(l, cf_hash_interval(PointerGetDatum(&iv)));
					}
				}
				else if (base == TIMETZOID)
				{
					TimeTzADT  *t = DatumGetTimeTzADTP(value);
					TimeTzADT  *local = DatumGetTimeTzADTP(DirectFunctionCall1(time_timetz,
																		   TimeADTGetDatum(t->time)));

					/* the time that SQL's time = timetz calls equal: same zone as now */
					if (local->zone == t->zone)
						cf_alt_add(l, cf_hash_time_send(t->time));
				}
				break;
			}
		case CFH_INTERVAL:
			if (nested)
			{
				Interval   *iv = DatumGetIntervalP(value);
				int64		days = (int64) iv->month * 30 + iv->day + iv->time / USECS_PER_DAY;
				int64		frac = iv->time % USECS_PER_DAY;

				/* the span as cf_hash_interval sees it: a time of day if in [0, 24:00] */
				if (frac < 0)
				{
					frac += USECS_PER_DAY;
					days--;
				}
				if (days == 0 || (days == 1 && frac == 0))
					cf_alt_add(l, cf_hash_time_send(days * USECS_PER_DAY + frac));
			}
			break;
		case CFH_DATE:
			if (nested && v2)
				cf_alt_datetime(hi, value, l);
			break;
		case CFH_TIMESTAMP:
			if (nested)
				cf_alt_datetime(hi, value, l);
			break;
		case CFH_ARRAY:
			cf_alt_array(hi, value, hashing, l);
			break;
		case CFH_RECORD:
			cf_alt_record(hi, value, hashing, l);
			break;
		case CFH_RANGE:
			cf_alt_range(hi, value, hashing, l);
			break;
		case CFH_MULTIRANGE:
			cf_alt_multirange(hi, value, hashing, l);
			break;
		default:
			break;
	}
}

/*
 * Whether a numeric is beyond +-2^53, where a float8 can round to it: the
 * only numerics with an alternate (the others hash as their float8 value, or
 * are integers that float8 holds exactly).
 */
static bool
cf_numeric_beyond_2_53(Datum value)
{
	static Datum limit = (Datum) 0;

	if (limit == (Datum) 0)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		limit = NumericGetDatum(int64_to_numeric(INT64CONST(1) << 53));
		MemoryContextSwitchTo(old);
	}
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp,
											 DirectFunctionCall1(numeric_abs, value), limit)) > 0;
}

/* whether a value of hi's type can have alternates at all (the cheap test first) */
static inline bool
cf_may_have_alternates(const CfHashInfo *hi, Datum value)
{
	switch (hi->kind)
	{
		case CFH_INT2:
		case CFH_INT4:
		case CFH_BOOL:
		case CFH_UUID:
		case CFH_BYTEA:
		case CFH_JSONB:
		case CFH_CHAR:
		case CFH_DATE:
		case CFH_TIMESTAMP:
		case CFH_INTERVAL:
		case CFH_BPCHAR:
			return false;		/* only inside composites, arrays and ranges */
		case CFH_INT8:
			return DatumGetInt64(value) > (INT64CONST(1) << 53) ||
				DatumGetInt64(value) < -(INT64CONST(1) << 53);
		case CFH_FLOAT8:
			return fabs(DatumGetFloat8(value)) >= 9007199254740992.0;
		case CFH_FLOAT4:
			return fabsf(DatumGetFloat4(value)) >= 9007199254740992.0f;
		case CFH_NUMERIC:
			return cf_numeric_beyond_2_53(value);
		case CFH_VARLENA:
			{
				struct varlena *v = (struct varlena *) DatumGetPointer(value);
				size_t		len;

				if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
					return true;
				len = VARSIZE_ANY_EXHDR(v);
				return len > 0 && VARDATA_ANY(v)[len - 1] == ' ';
			}
		case CFH_SEND:
			return hi->basetype == INETOID || hi->basetype == CIDROID ||
				hi->basetype == TIMEOID || hi->basetype == TIMETZOID;
		default:
			return true;
	}
}

int
cf_hash_alternates(CfHashInfo *hi, Datum value, int hashing, uint64 **alts)
{
	CfAltList	l;

	if (!cf_may_have_alternates(hi, value))
		return 0;
	cf_alt_list(hi, value, hashing, false, &l);
	*alts = l.h + 1;
	return l.n - 1;
}

bool
cfpg_find_value(const cf_filter *f, CfHashInfo *hi, Datum value, uint64 *h)
{
	CfAltList	l;

	if (!cf_may_have_alternates(hi, value))
	{
		*h = cf_hash_datum(hi, value, (int) f->hashing);
		return cf_contains(f, *h);
	}
	/* the value's own hash first, then the alternates (one pass over its parts) */
	cf_alt_list(hi, value, (int) f->hashing, false, &l);
	*h = l.h[0];
	for (int i = 0; i < l.n; i++)
		if (cf_contains(f, l.h[i]))
		{
			*h = l.h[i];
			pfree(l.h);
			return true;
		}
	pfree(l.h);
	return false;
}

uint64
cfpg_value_hash(const cf_filter *f, CfHashInfo *hi, Datum value)
{
	uint64		h;

	if (!cf_may_have_alternates(hi, value))
		return cf_hash_datum(hi, value, (int) f->hashing);
	(void) cfpg_find_value(f, hi, value, &h);
	return h;
}

uint32
cfpg_count_value(const cf_filter *f, CfHashInfo *hi, Datum value)
{
	CfAltList	l;
	uint64		n = 0;

	if (!cf_may_have_alternates(hi, value))
		return cf_count(f, cf_hash_datum(hi, value, (int) f->hashing));
	cf_alt_list(hi, value, (int) f->hashing, false, &l);
	for (int i = 0; i < l.n; i++)
		n += cf_count(f, l.h[i]);
	pfree(l.h);
	return (uint32) Min(n, (uint64) PG_UINT32_MAX);
}
