/*
 * cuckoo_hashval_alt.c - the alternates of a value: the other hashes a value
 * SQL calls equal may be stored under (integers past 2^53 and the float8
 * they round to, inet and cidr, time and timetz, blank-padded text, parts
 * of composites, arrays and ranges), and the probes that try them
 * (cfpg_find_alternates, cfpg_count_alternates: the inline probes of
 * cuckoo_hashval_hash.h call them for a value whose row says it may have
 * alternates).
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
 *   and as a column of the composite probed only (ROW(a) = ROW(b) compares
 *   column by column with implicit casts; deeper, record = record refuses
 *   columns of different types, and oid[] = int4[] has no operator):
 *   oid, reg*, xid            the integers that cast to it: int2/int4 v
 *                             with (uint32) v = o, int8 o (not for xid)
 *   int2, int4, int8          the oid (and reg*, xid) it casts to: (uint32) v
 *                             for int2/int4, v in [0, 2^32) for int8
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
cfpg_alt_init(CfAltList *l)
{
	l->cap = 4;
	l->h = palloc(sizeof(uint64) * l->cap);
	l->n = 0;
}

/* the error for a value with more than CF_MAX_ALTERNATES alternates */
static void
cfpg_alt_too_many(void)
{
	ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot look this value up in a cuckoo filter"),
				 errdetail("SQL's = calls more than %d values that a filter hashes differently equal to it (integers above 2^53 compared as float8, or integer columns of a ROW() that may equal oids, inside a composite or array), so one probe cannot find them all.",
						   CF_MAX_ALTERNATES),
				 errhint("Cast the value to the type the filter was built from, for example value::bigint for a filter of bigint values.")));
}

/* adds h unless the list has it already */
static void
cfpg_alt_add(CfAltList *l, uint64 h)
{
	for (int i = 0; i < l->n; i++)
		if (l->h[i] == h)
			return;
	if (l->n >= CF_MAX_ALTERNATES + 1)
		cfpg_alt_too_many();
	if (l->n == l->cap)
	{
		l->cap *= 2;
		l->h = repalloc(l->h, sizeof(uint64) * l->cap);
	}
	l->h[l->n++] = h;
}

/*
 * Where a value is: the value probed itself, a column of the composite
 * probed, or deeper (an array element, a range bound, a column of a
 * composite inside another).  Anything but CFA_TOP is "nested".
 */
typedef enum CfAltWhere
{
	CFA_TOP,
	CFA_COLUMN,
	CFA_DEEPER
} CfAltWhere;

static void cfpg_alt_list(CfHashInfo *hi, Datum value, int hashing, CfAltWhere where, CfAltList *l);

/* a float8 integer of magnitude 2^53 .. 2^63: every other int64 that rounds to it (the core's rule) */
static void
cfpg_alt_float8(float8 v, int hashing, CfAltList *l)
{
	uint64	   *alts;
	size_t		n;

	if (isnan(v) || fabs(v) < 9007199254740992.0 || fabs(v) > 9223372036854775808.0)
		return;					/* (most floats: no alternate, no allocation) */
	alts = palloc(sizeof(uint64) * CF_NUMBER_ALTERNATES_MAX);
	n = cf_number_alternates(v, hashing, alts);
	for (size_t i = 0; i < n; i++)
		cfpg_alt_add(l, alts[i]);
	pfree(alts);
}

/* the hash of a "char" byte as text (charout's form), as value hashing 2 hashes text */
static uint64
cfpg_hash_char_as_text(uint8 b)
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
	return cfpg_hash_text_blanks(buf, 1, true, false);
}

/* text p (len bytes, as stored): the forms with its blanks, and as a "char" */
static void
cfpg_alt_text(const char *p, size_t len, int hashing, bool nested, bool to_utf8, CfAltList *l)
{
	if (hashing < CF_HASHING_V2)
		return;
	if (len > 0 && p[len - 1] == ' ')
		cfpg_alt_add(l, cfpg_hash_text(p, len, to_utf8));
	if (!nested)
		return;
	if (len == 0)
		cfpg_alt_add(l, cfpg_hash_byte(0));
	else if (len == 1)
		cfpg_alt_add(l, cfpg_hash_byte((uint8) p[0]));
	else if (len == 4 && p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
			 p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7')
		cfpg_alt_add(l, cfpg_hash_byte((uint8) (((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'))));
}

/* an inet or cidr: its send form with the cidr flag flipped, if no host bit is set */
static void
cfpg_alt_inet(CfHashInfo *hi, Datum value, CfAltList *l)
{
	bytea	   *out = cfpg_send_utf8(hi, value);
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
			cfpg_alt_add(l, cf_hash_bytes(b, len));
		}
	}
	pfree(out);
}

/* an oid's (reg*'s, xid's) send form: 4 bytes, big-endian */
static uint64
cfpg_hash_oid_send(uint32 o)
{
	uint8		b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (uint8) (o >> (8 * (3 - i)));
	return cf_hash_bytes(b, 4);
}

/* whether a type sends as an oid (4 bytes, big-endian) and = casts integers to it */
static bool
cfpg_is_oid_like(Oid base)
{
	switch (base)
	{
		case OIDOID:
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGTYPEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case REGNAMESPACEOID:
		case REGROLEOID:
		case REGCOLLATIONOID:
		case XIDOID:
			return true;
		default:
			return false;
	}
}

/*
 * A column of a composite probed: an integer against an oid-like column, or
 * the other way round.  ROW(o) = ROW(v) casts an int2 or int4 v to oid
 * (reinterpreting its bits: -1 equals 4294967295) and an int8 v to oid
 * (an error outside [0, 2^32)); xid = int4 compares (uint32) v likewise,
 * and has no = with int8.
 */
static void
cfpg_alt_oid_int(CfHashInfo *hi, Datum value, CfAltList *l)
{
	switch (hi->kind)
	{
		case CFH_INT2:
			cfpg_alt_add(l, cfpg_hash_oid_send((uint32) (int32) DatumGetInt16(value)));
			break;
		case CFH_INT4:
			cfpg_alt_add(l, cfpg_hash_oid_send((uint32) DatumGetInt32(value)));
			break;
		case CFH_INT8:
			{
				int64		v = DatumGetInt64(value);

				if (v >= 0 && v <= (int64) PG_UINT32_MAX)
					cfpg_alt_add(l, cfpg_hash_oid_send((uint32) v));
				break;
			}
		case CFH_SEND:
			if (cfpg_is_oid_like(hi->basetype))
			{
				uint32		o = DatumGetUInt32(value);

				/* the int2 or int4 stored (a negative one past 2^31) */
				cfpg_alt_add(l, cf_hash_int64((int64) (int32) o));
				/* the int8 stored */
				if (hi->basetype != XIDOID)
					cfpg_alt_add(l, cf_hash_int64((int64) o));
			}
			break;
		default:
			break;
	}
}

/* microseconds as time's send form: 8 bytes, big-endian */
static uint64
cfpg_hash_time_send(int64 t)
{
	uint8		b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8) ((uint64) t >> (8 * (7 - i)));
	return cf_hash_bytes(b, 8);
}

/* a timetz's send form: the time, 8 bytes, then the zone, 4 bytes, big-endian */
static uint64
cfpg_hash_timetz_send(const TimeTzADT *t)
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
cfpg_alt_datetime(CfHashInfo *hi, Datum value, CfAltList *l)
{
	Oid			base = hi->basetype;
	int			overflow = 0;

	if (base == TIMESTAMPOID)
	{
		TimestampTz t = timestamp2timestamptz_opt_overflow(DatumGetTimestamp(value), &overflow);

		if (overflow == 0)
			cfpg_alt_add(l, cf_hash_int64(t));
	}
	else if (base == DATEOID)
	{
		TimestampTz t = date2timestamptz_opt_overflow(DatumGetDateADT(value), &overflow);

		if (overflow == 0)
			cfpg_alt_add(l, cf_hash_int64(t));
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
			cfpg_alt_add(l, cf_hash_int64(w));
	}
}

/*
 * The parts of a composite, array or range, each with its own list: the
 * combinations of their hashes, serialized as cfpg_hash_record, cfpg_hash_array,
 * cfpg_hash_range and cfpg_hash_multirange do (prefix, then per part a NULL flag
 * if nullflags and the 8-byte hash, folded in chunks if fold).
 */
typedef struct CfAltPart
{
	bool		isnull;
	CfAltList	l;
} CfAltPart;

static void
cfpg_alt_combine(const StringInfo prefix, CfAltPart *parts, int nparts, bool nullflags,
			   bool fold, CfAltList *out)
{
	int		   *idx;
	double		combos = 1;

	for (int i = 0; i < nparts; i++)
		if (!parts[i].isnull)
			combos *= parts[i].l.n;
	if (combos > CF_MAX_ALTERNATES + 1)
		cfpg_alt_too_many();
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
				cfpg_append_le(&buf, parts[i].l.h[idx[i]], 8);
			if (fold)
				cfpg_fold_chunk(&buf);
		}
		cfpg_alt_add(out, cfpg_hash_buf(&buf));
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
cfpg_alt_array(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	AnyArrayType *arr = DatumGetAnyArrayP(value);
	int			ndim = AARR_NDIM(arr);
	int			nitems = ArrayGetNItems(ndim, AARR_DIMS(arr));
	array_iter	it;
	CfAltPart  *parts = palloc0(sizeof(CfAltPart) * Max(nitems, 1));
	StringInfoData prefix;

	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_ARRAY);
	cfpg_append_le(&prefix, (uint32) ndim, 4);
	for (int d = 0; d < ndim; d++)
	{
		cfpg_append_le(&prefix, (uint32) AARR_DIMS(arr)[d], 4);
		cfpg_append_le(&prefix, (uint32) AARR_LBOUND(arr)[d], 4);
	}
	array_iter_setup(&it, arr);
	for (int i = 0; i < nitems; i++)
	{
		Datum		elem = array_iter_next(&it, &parts[i].isnull, i,
										   hi->elmlen, hi->elmbyval, hi->elmalign);

		if (!parts[i].isnull)
			cfpg_alt_list(hi->elem, elem, hashing, CFA_DEEPER, &parts[i].l);
	}
	cfpg_alt_combine(&prefix, parts, nitems, true, true, l);
	pfree(parts);
}

static void
cfpg_alt_record(CfHashInfo *hi, Datum value, int hashing, CfAltWhere where, CfAltList *l)
{
	Datum	   *values;
	bool	   *nulls;
	TupleDesc	td = cfpg_record_open(hi, value, &values, &nulls);
	CfAltPart  *parts = palloc0(sizeof(CfAltPart) * Max(td->natts, 1));
	int			ncols = 0;
	StringInfoData prefix;

	for (int i = 0; i < td->natts; i++)
	{
		if (TupleDescAttr(td, i)->attisdropped)
			continue;
		parts[ncols].isnull = nulls[i];
		if (!nulls[i])
			cfpg_alt_list(&hi->cols[i], values[i], hashing,
						  where == CFA_TOP ? CFA_COLUMN : CFA_DEEPER, &parts[ncols].l);
		ncols++;
	}
	ReleaseTupleDesc(td);
	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_RECORD);
	cfpg_append_le(&prefix, (uint32) ncols, 4);
	cfpg_alt_combine(&prefix, parts, ncols, true, false, l);
	pfree(parts);
	pfree(values);
	pfree(nulls);
}

static void
cfpg_alt_range(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
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
		cfpg_alt_add(l, cfpg_hash_range(hi, value, hashing));
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
		cfpg_alt_list(hi->elem, lower.val, hashing, CFA_DEEPER, &parts[nparts++].l);
	if (!upper.infinite)
		cfpg_alt_list(hi->elem, upper.val, hashing, CFA_DEEPER, &parts[nparts++].l);
	cfpg_alt_combine(&prefix, parts, nparts, false, false, l);
}

static void
cfpg_alt_multirange(CfHashInfo *hi, Datum value, int hashing, CfAltList *l)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	int32		n;
	RangeType **ranges;
	CfAltPart  *parts;
	StringInfoData prefix;

	multirange_deserialize(hi->rngcache->rngtype, mr, &n, &ranges);
	parts = palloc0(sizeof(CfAltPart) * Max(n, 1));
	for (int i = 0; i < n; i++)
		cfpg_alt_list(hi->elem, RangeTypePGetDatum(ranges[i]), hashing, CFA_DEEPER, &parts[i].l);
	initStringInfo(&prefix);
	appendStringInfoChar(&prefix, CFH_TAG_MULTIRANGE);
	cfpg_append_le(&prefix, (uint32) n, 4);
	cfpg_alt_combine(&prefix, parts, n, false, true, l);
}

/*
 * l: the value's own hash, then its alternates; where: the value probed, a
 * column of the composite probed, or deeper in a composite, array or range.
 */
static void
cfpg_alt_list(CfHashInfo *hi, Datum value, int hashing, CfAltWhere where, CfAltList *l)
{
	bool		v2 = hashing >= CF_HASHING_V2;
	bool		nested = where != CFA_TOP;

	cfpg_alt_init(l);
	/* a composite, array or range: its own hash is the first combination */
	if (hi->kind != CFH_ARRAY && hi->kind != CFH_RECORD && hi->kind != CFH_RANGE &&
		hi->kind != CFH_MULTIRANGE)
		cfpg_alt_add(l, cfpg_hash_datum(hi, value, hashing));
	switch (hi->kind)
	{
		case CFH_INT8:
			{
				uint64		alt;

				if (cf_int64_alternate(DatumGetInt64(value), hashing, &alt))
					cfpg_alt_add(l, alt);
				break;
			}
		case CFH_NUMERIC:
			if (v2)
				cfpg_alt_add(l, cfpg_hash_number_v2(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																				   value))));
			break;
		case CFH_FLOAT4:
			cfpg_alt_float8((float8) DatumGetFloat4(value), hashing, l);
			break;
		case CFH_FLOAT8:
			cfpg_alt_float8(DatumGetFloat8(value), hashing, l);
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
					cfpg_alt_text(VARDATA_ANY(t), len, hashing, nested, hi->to_utf8, l);
				if (t != raw)
					pfree(t);
				break;
			}
		case CFH_NAME:
			cfpg_alt_text(NameStr(*DatumGetName(value)),
						strnlen(NameStr(*DatumGetName(value)), NAMEDATALEN),
						hashing, nested, hi->to_utf8, l);
			break;
		case CFH_CSTRING:
			cfpg_alt_text(DatumGetCString(value), strlen(DatumGetCString(value)),
						hashing, nested, hi->to_utf8, l);
			break;
		case CFH_CHAR:
			if (nested && v2)
				cfpg_alt_add(l, cfpg_hash_char_as_text((uint8) DatumGetChar(value)));
			break;
		case CFH_SEND:
			{
				Oid			base = hi->basetype;

				if (base == INETOID || base == CIDROID)
					cfpg_alt_inet(hi, value, l);
				else if (base == TIMEOID)
				{
					cfpg_alt_add(l, cfpg_hash_timetz_send(DatumGetTimeTzADTP(DirectFunctionCall1(time_timetz,
																							 value))));
					if (nested)
					{
						Interval	iv;

						iv.time = DatumGetTimeADT(value);
						iv.day = 0;
						iv.month = 0;
						cfpg_alt_add(l, cfpg_hash_interval(PointerGetDatum(&iv)));
					}
				}
				else if (base == TIMETZOID)
				{
					TimeTzADT  *t = DatumGetTimeTzADTP(value);
					TimeTzADT  *local = DatumGetTimeTzADTP(DirectFunctionCall1(time_timetz,
																		   TimeADTGetDatum(t->time)));

					/* the time that SQL's time = timetz calls equal: same zone as now */
					if (local->zone == t->zone)
						cfpg_alt_add(l, cfpg_hash_time_send(t->time));
				}
				break;
			}
		case CFH_INTERVAL:
			if (nested)
			{
				Interval   *iv = DatumGetIntervalP(value);
				int64		days = (int64) iv->month * 30 + iv->day + iv->time / USECS_PER_DAY;
				int64		frac = iv->time % USECS_PER_DAY;

				/* the span as cfpg_hash_interval sees it: a time of day if in [0, 24:00] */
				if (frac < 0)
				{
					frac += USECS_PER_DAY;
					days--;
				}
				if (days == 0 || (days == 1 && frac == 0))
					cfpg_alt_add(l, cfpg_hash_time_send(days * USECS_PER_DAY + frac));
			}
			break;
		case CFH_DATE:
			if (nested && v2)
				cfpg_alt_datetime(hi, value, l);
			break;
		case CFH_TIMESTAMP:
			if (nested)
				cfpg_alt_datetime(hi, value, l);
			break;
		case CFH_ARRAY:
			cfpg_alt_array(hi, value, hashing, l);
			break;
		case CFH_RECORD:
			cfpg_alt_record(hi, value, hashing, where, l);
			break;
		case CFH_RANGE:
			cfpg_alt_range(hi, value, hashing, l);
			break;
		case CFH_MULTIRANGE:
			cfpg_alt_multirange(hi, value, hashing, l);
			break;
		default:
			break;
	}
	if (where == CFA_COLUMN)
		cfpg_alt_oid_int(hi, value, l);
}

int
cfpg_hash_alternates(CfHashInfo *hi, Datum value, int hashing, uint64 **alts)
{
	CfAltList	l;

	if (!cfpg_may_have_alternates(hi, value))
		return 0;
	cfpg_alt_list(hi, value, hashing, CFA_TOP, &l);
	*alts = l.h + 1;
	return l.n - 1;
}

/*
 * The probes of a value whose row says it may have alternates (the inline
 * cfpg_find_value and cfpg_count_value call these only then): its own hash
 * first, then the alternates (one pass over its parts), tried by the
 * core's probe with alternates.
 */
bool
cfpg_find_alternates(const cf_filter *f, CfHashInfo *hi, Datum value, uint64 *h)
{
	CfAltList	l;
	size_t		i;

	cfpg_alt_list(hi, value, (int) f->hashing, CFA_TOP, &l);
	i = cf_contains_first(f, l.h, (size_t) l.n);
	*h = l.h[i < (size_t) l.n ? i : 0];
	pfree(l.h);
	return i < (size_t) l.n;
}

uint32
cfpg_count_alternates(const cf_filter *f, CfHashInfo *hi, Datum value)
{
	CfAltList	l;
	uint64		n = 0;

	cfpg_alt_list(hi, value, (int) f->hashing, CFA_TOP, &l);
	for (int i = 0; i < l.n; i++)
		n += cf_count(f, l.h[i]);
	pfree(l.h);
	return (uint32) Min(n, (uint64) PG_UINT32_MAX);
}
