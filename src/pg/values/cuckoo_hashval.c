/*
 * cuckoo_hashval.c - how a SQL type is hashed: the hash info of a type
 * (scalar kind, array, range, or its send function), the refusal of types
 * whose equality is not equality of the bytes hashed, the checks of a value
 * argument's expression, and the value kind a filter records (with its
 * mismatch error).  The hashing itself is in cuckoo_hashval_hash.c, the
 * alternates a probe tries in cuckoo_hashval_alt.c.
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

/* ---------------------------------------------------------------------
 * the scalar types' canonical bytes and hashes (docs/hashing.md; the
 * forms themselves are the core's, cuckoo_canon.c)
 * ------------------------------------------------------------------- */

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

static uint64
cfpg_hash_int2(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_int64((int64) DatumGetInt16(value));
}

static uint64
cfpg_hash_int4(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_int64((int64) DatumGetInt32(value));
}

static uint64
cfpg_hash_int8(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_int64(DatumGetInt64(value));
}

static uint64
cfpg_hash_float4(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_number((float8) DatumGetFloat4(value), hashing);
}

static uint64
cfpg_hash_float8(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_number(DatumGetFloat8(value), hashing);
}

static uint64
cfpg_hash_numeric_row(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_numeric(value, hashing);
}

/* text, varchar: without trailing blanks under value hashing 2 */
static uint64
cfpg_hash_textval(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_varlena(value, hashing >= CF_HASHING_V2, hi->to_utf8);
}

static uint64
cfpg_hash_bytea(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_varlena(value, false, false);
}

/* char(n): its blanks are padding, always stripped */
static uint64
cfpg_hash_bpchar(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_varlena(value, true, hi->to_utf8);
}

static uint64
cfpg_hash_name(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_text_blanks(NameStr(*DatumGetName(value)),
								 strnlen(NameStr(*DatumGetName(value)), NAMEDATALEN),
								 hashing >= CF_HASHING_V2, hi->to_utf8);
}

/* unknown (a literal inside ROW()): its bytes, as text */
static uint64
cfpg_hash_cstring(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_text_blanks(DatumGetCString(value), strlen(DatumGetCString(value)),
								 hashing >= CF_HASHING_V2, hi->to_utf8);
}

static uint64
cfpg_hash_char(CfHashInfo *hi, Datum value, int hashing)
{
	return cfpg_hash_byte((uint8) DatumGetChar(value));
}

static uint64
cfpg_hash_uuidval(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_uuid(DatumGetUUIDP(value)->data);
}

static uint64
cfpg_hash_dateval(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_date(DatumGetDateADT(value), hashing);
}

/* timestamp and timestamptz: the microseconds */
static uint64
cfpg_hash_timestampval(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_timestamp(DatumGetInt64(value));
}

static uint64
cfpg_hash_bool(CfHashInfo *hi, Datum value, int hashing)
{
	return cf_hash_byte(DatumGetBool(value) ? 1 : 0);
}

/* ---------------------------------------------------------------------
 * which values may have alternates (cuckoo_hashval_alt.c lists them)
 * ------------------------------------------------------------------- */

/* int8: beyond +-2^53, the float8 it rounds to */
static bool
cfpg_may_alt_int8(const CfHashInfo *hi, Datum value)
{
	return DatumGetInt64(value) > (INT64CONST(1) << 53) ||
		DatumGetInt64(value) < -(INT64CONST(1) << 53);
}

/* floats: an integer of magnitude 2^53 or more, the int64s that round to it */
static bool
cfpg_may_alt_float4(const CfHashInfo *hi, Datum value)
{
	return fabsf(DatumGetFloat4(value)) >= 9007199254740992.0f;
}

static bool
cfpg_may_alt_float8(const CfHashInfo *hi, Datum value)
{
	return fabs(DatumGetFloat8(value)) >= 9007199254740992.0;
}

/*
 * Whether a numeric is beyond +-2^53, where a float8 can round to it: the
 * only numerics with an alternate (the others hash as their float8 value, or
 * are integers that float8 holds exactly).
 */
static bool
cfpg_may_alt_numeric(const CfHashInfo *hi, Datum value)
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

/* text, varchar: with trailing blanks (the form filters before 1.3 hashed) */
static bool
cfpg_may_alt_text(const CfHashInfo *hi, Datum value)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	size_t		len;

	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		return true;
	len = VARSIZE_ANY_EXHDR(v);
	return len > 0 && VARDATA_ANY(v)[len - 1] == ' ';
}

/* inet and cidr, time and timetz among the types hashed by their send form */
static bool
cfpg_may_alt_send(const CfHashInfo *hi, Datum value)
{
	return hi->basetype == INETOID || hi->basetype == CIDROID ||
		hi->basetype == TIMEOID || hi->basetype == TIMETZOID;
}

/* name, unknown, and the kinds hashed by structure: their parts may */
static bool
cfpg_may_alt_always(const CfHashInfo *hi, Datum value)
{
	return true;
}

/* ---------------------------------------------------------------------
 * the value kinds' table: one row per SQL type
 *
 * A new key type: its row here (its base type's OID, a CfHashKind, its
 * value kind, the function that hashes its canonical bytes, and a test for
 * alternates if it can have any), the canonical form in the core
 * (cuckoo_canon.c) and, for a new value kind, its CF_KIND_* (cuckoo.h) and
 * name (cf_kind_name): CONTRIBUTING.md, "A new key type".  The first row of
 * a value kind gives its cast hint.
 * ------------------------------------------------------------------- */

static const CfTypeRow cfpg_types[] = {
	{INT2OID, CFH_INT2, CF_KIND_NUMBER, cfpg_hash_int2, NULL, "$1::bigint or $1::numeric"},
	{INT4OID, CFH_INT4, CF_KIND_NUMBER, cfpg_hash_int4, NULL, NULL},
	{INT8OID, CFH_INT8, CF_KIND_NUMBER, cfpg_hash_int8, cfpg_may_alt_int8, NULL},
	{FLOAT4OID, CFH_FLOAT4, CF_KIND_NUMBER, cfpg_hash_float4, cfpg_may_alt_float4, NULL},
	{FLOAT8OID, CFH_FLOAT8, CF_KIND_NUMBER, cfpg_hash_float8, cfpg_may_alt_float8, NULL},
	{NUMERICOID, CFH_NUMERIC, CF_KIND_NUMBER, cfpg_hash_numeric_row, cfpg_may_alt_numeric, NULL},
	{TEXTOID, CFH_VARLENA, CF_KIND_TEXT, cfpg_hash_textval, cfpg_may_alt_text, "$1::text"},
	{VARCHAROID, CFH_VARLENA, CF_KIND_TEXT, cfpg_hash_textval, cfpg_may_alt_text, NULL},
	{BPCHAROID, CFH_BPCHAR, CF_KIND_TEXT, cfpg_hash_bpchar, NULL, NULL},
	{NAMEOID, CFH_NAME, CF_KIND_TEXT, cfpg_hash_name, cfpg_may_alt_always, NULL},
	{UNKNOWNOID, CFH_CSTRING, CF_KIND_TEXT, cfpg_hash_cstring, cfpg_may_alt_always, NULL},
	{CSTRINGOID, CFH_CSTRING, CF_KIND_TEXT, cfpg_hash_cstring, cfpg_may_alt_always, NULL},
	{BYTEAOID, CFH_BYTEA, CF_KIND_BYTEA, cfpg_hash_bytea, NULL, "$1::bytea"},
	{CHAROID, CFH_CHAR, CF_KIND_CHAR, cfpg_hash_char, NULL, "$1::\"char\""},
	{UUIDOID, CFH_UUID, CF_KIND_UUID, cfpg_hash_uuidval, NULL, "$1::uuid"},
	{DATEOID, CFH_DATE, CF_KIND_TIMESTAMP, cfpg_hash_dateval, NULL, "$1::timestamp or $1::date"},
	{TIMESTAMPOID, CFH_TIMESTAMP, CF_KIND_TIMESTAMP, cfpg_hash_timestampval, NULL, NULL},
	/*
	 * Whether a timestamptz equals a timestamp or date depends on the
	 * session's TimeZone; a filter's answers must not, so new filters keep
	 * the two apart (value kinds timestamp and timestamptz).  The hashes are
	 * as 1.1's: a 1.1 filter (kind datetime) answers as before.
	 */
	{TIMESTAMPTZOID, CFH_TIMESTAMP, CF_KIND_TIMESTAMPTZ, cfpg_hash_timestampval, NULL, "$1::timestamptz"},
	{BOOLOID, CFH_BOOL, CF_KIND_BOOL, cfpg_hash_bool, NULL, "$1::boolean"},
	/* hashed by structure (cuckoo_hashval_hash.c) */
	{INTERVALOID, CFH_INTERVAL, CF_KIND_INTERVAL, NULL, NULL, "$1::interval"},
	{JSONBOID, CFH_JSONB, CF_KIND_JSONB, NULL, NULL, "$1::jsonb"},
	/* the kinds found by the type's form, not its OID */
	{InvalidOid, CFH_ARRAY, CF_KIND_ARRAY, NULL, cfpg_may_alt_always,
	"$1::bigint[], or the array type the filter was built from"},
	{InvalidOid, CFH_RECORD, CF_KIND_RECORD, NULL, cfpg_may_alt_always, "ROW(...) of the column types"},
	{InvalidOid, CFH_RANGE, CF_KIND_RANGE, NULL, cfpg_may_alt_always,
	"$1::int8range, or the range type the filter was built from"},
	{InvalidOid, CFH_MULTIRANGE, CF_KIND_MULTIRANGE, NULL, cfpg_may_alt_always,
	"$1::int8multirange, or the multirange type the filter was built from"},
	{InvalidOid, CFH_SEND, CF_KIND_OTHER, NULL, cfpg_may_alt_send, "$1::the_type"},
	/* 1.1's kind of dates and timestamps: no type hashes to it any more */
	{InvalidOid, 0, CF_KIND_DATETIME, NULL, NULL, "$1::timestamptz, $1::timestamp or $1::date"},
};

/* the row of a scalar type hashed by its value (by base type OID), or NULL */
static const CfTypeRow *
cfpg_type_row(Oid basetype)
{
	for (int i = 0; i < (int) lengthof(cfpg_types); i++)
		if (cfpg_types[i].typid == basetype && OidIsValid(basetype))
			return &cfpg_types[i];
	return NULL;
}

/* the row of a kind hashed by structure (CFH_ARRAY, ...) */
static const CfTypeRow *
cfpg_kind_row(int kind)
{
	for (int i = 0; i < (int) lengthof(cfpg_types); i++)
		if (cfpg_types[i].kind == kind && !OidIsValid(cfpg_types[i].typid))
			return &cfpg_types[i];
	elog(ERROR, "no cuckoo value row for hash kind %d", kind);
	return NULL;				/* keep compiler quiet */
}

/*
 * A true array, hashed element by element: its send form would carry type
 * OIDs.  Its elements come under the array's collation.
 */
static void
cfpg_hashinfo_array(CfHashInfo *hi, Oid elemtype, Oid collid, MemoryContext mcxt)
{
	CfHashInfo *elem = MemoryContextAllocZero(mcxt, sizeof(CfHashInfo));

	cfpg_hashinfo_init(elem, elemtype, collid, mcxt);
	get_typlenbyvalalign(elemtype, &hi->elmlen, &hi->elmbyval, &hi->elmalign);
	hi->elem = elem;
	hi->kind = CFH_ARRAY;
}

/*
 * A range or multirange, hashed bound by bound: equal ranges can differ in
 * their send bytes (numrange [1.0,2) = [1.00,2), floats' -0 = 0).
 */
static void
cfpg_hashinfo_range(CfHashInfo *hi, Oid basetype, bool multi, MemoryContext mcxt)
{
	TypeCacheEntry *tc = lookup_type_cache(basetype, multi ?
										   TYPECACHE_MULTIRANGE_INFO :
										   TYPECACHE_RANGE_INFO);
	CfHashInfo *elem = MemoryContextAllocZero(mcxt, sizeof(CfHashInfo));

	/* a range's bounds come under its subtype collation */
	cfpg_hashinfo_init(elem, multi ? tc->rngtype->type_id :
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
cfpg_check_equality_is_image(Oid typid, Oid collid)
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
cfpg_check_value_expr(Node *arg, Oid collid)
{
	while (arg != NULL && IsA(arg, RelabelType) &&
		   ((RelabelType *) arg)->relabelformat == COERCE_IMPLICIT_CAST)
	{
		arg = (Node *) ((RelabelType *) arg)->arg;
		if (getBaseType(exprType(arg)) >= FirstNormalObjectId)
			cfpg_check_equality_is_image(getBaseType(exprType(arg)), collid);
	}
}

/* the argno-th argument expression of a function or operator call, or NULL */
Node *
cfpg_call_arg(Node *expr, int argno)
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
cfpg_hashinfo_send(CfHashInfo *hi, Oid basetype, Oid typid, Oid collid, MemoryContext mcxt)
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
		cfpg_check_equality_is_image(basetype, collid);
	fmgr_info_cxt(sendfn, &hi->sendfn, mcxt);
	hi->kind = CFH_SEND;
}

/*
 * Fills hi for typid, values under collation collid.  The send function, if
 * one is needed, is looked up into mcxt so that hi can live in fn_extra.
 */
void
cfpg_hashinfo_init(CfHashInfo *hi, Oid typid, Oid collid, MemoryContext mcxt)
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

	hi->row = cfpg_type_row(basetype);
	if (hi->row != NULL)
		hi->kind = hi->row->kind;
	else
	{
		typtype = get_typtype(basetype);
		if (OidIsValid(get_element_type(basetype)))
			cfpg_hashinfo_array(hi, get_element_type(basetype), collid, mcxt);
		else if (typtype == TYPTYPE_RANGE || typtype == TYPTYPE_MULTIRANGE)
			cfpg_hashinfo_range(hi, basetype, typtype == TYPTYPE_MULTIRANGE, mcxt);
		else if (basetype == RECORDOID || typtype == TYPTYPE_COMPOSITE)
		{
			/* columns are looked up per row type, on first use */
			hi->rectype = InvalidOid;
			hi->kind = CFH_RECORD;
		}
		else
			cfpg_hashinfo_send(hi, basetype, typid, collid, mcxt);
		hi->row = cfpg_kind_row(hi->kind);
	}
	/* text is hashed as UTF-8, so filters do not depend on the database encoding */
	hi->to_utf8 = (hi->kind == CFH_VARLENA || hi->kind == CFH_BPCHAR ||
				   hi->kind == CFH_NAME || hi->kind == CFH_CSTRING) &&
		GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII;
	hi->vkind = hi->row->vkind;
	hi->typid = typid;
}

/* ---------------------------------------------------------------------
 * value kinds
 * ------------------------------------------------------------------- */

/* The value kind of values of type typid. */
int
cfpg_type_value_kind(Oid typid)
{
	CfHashInfo	hi;

	cfpg_hashinfo_init(&hi, typid, InvalidOid, CurrentMemoryContext);
	return hi.vkind;
}

/* how to cast a parameter to a type of value kind kind, for the hint below: its first row's */
static const char *
cfpg_kind_cast_example(int kind)
{
	for (int i = 0; i < (int) lengthof(cfpg_types); i++)
		if (cfpg_types[i].vkind == kind && cfpg_types[i].cast != NULL)
			return cfpg_types[i].cast;
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
						cfpg_kind_label((int) f->kind), format_type_be(hi->typid)),
				 errdetail("Whether a timestamp or date equals a timestamptz depends on the session's TimeZone setting, and a filter's answers must not."),
				 errhint("Convert the value explicitly: %s.",
						 f->kind == CFK_TIMESTAMPTZ ?
						 "value AT TIME ZONE 'UTC' for the instant of a UTC wall-clock time, or value::timestamptz to read it in the session's TimeZone" :
						 "value AT TIME ZONE 'UTC' for the UTC wall-clock time of an instant, or value::timestamp for the session's")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cuckoo filter holds %s values, not %s",
					cfpg_kind_label((int) f->kind), format_type_be(hi->typid)),
			 errdetail("Values of kind %s are never found in a filter of %s values, so the answer would be wrong.",
					   cfpg_kind_label(hi->vkind), cfpg_kind_label((int) f->kind)),
			 errhint("Cast the value to the type the filter was built from, for example %s (an untyped literal or parameter is text), or mark a filter that really holds several kinds with cf_set_kind(filter, 'any').",
					 cfpg_kind_cast_example((int) f->kind))));
	pg_unreachable();
}
