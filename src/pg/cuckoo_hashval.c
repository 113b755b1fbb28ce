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

/* the CfHashKind of a scalar type hashed by its value, or 0 for any other */
static int
cfpg_scalar_kind(Oid basetype)
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

	hi->kind = cfpg_scalar_kind(basetype);
	if (hi->kind == 0)
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
	}
	/* text is hashed as UTF-8, so filters do not depend on the database encoding */
	hi->to_utf8 = (hi->kind == CFH_VARLENA || hi->kind == CFH_BPCHAR ||
				   hi->kind == CFH_NAME || hi->kind == CFH_CSTRING) &&
		GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII;
	hi->vkind = cfpg_value_kind(hi->kind);
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

/* ---------------------------------------------------------------------
 * value kinds
 * ------------------------------------------------------------------- */

int
cfpg_value_kind(int hashkind)
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
			return CFK_TIMESTAMP;	/* timestamptz: see cfpg_hashinfo_init */
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
cfpg_type_value_kind(Oid typid)
{
	CfHashInfo	hi;

	cfpg_hashinfo_init(&hi, typid, InvalidOid, CurrentMemoryContext);
	return hi.vkind;
}

/* how to cast a parameter to a type of value kind kind, for the hint below */
static const char *
cfpg_kind_cast_example(int kind)
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
