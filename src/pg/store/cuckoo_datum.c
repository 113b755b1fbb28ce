/*
 * cuckoo_datum.c - the glue's ground floor: opens, makes, checks, copies and
 * combines stored filters, and turns the core's failures into errors.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "cuckoo_datum.h"

/* ---------------------------------------------------------------------
 * value kinds: their SQL names
 * ------------------------------------------------------------------- */

/* the names are the core's (cf_kind_name) */
const char *
cfpg_kind_name(int kind)
{
	return kind < 0 ? NULL : cf_kind_name((uint32) kind);
}

/*
 * The name of a kind for a message: never NULL (a kind no build knows, which
 * no reader accepts from bytes, is named by its number)
 */
const char *
cfpg_kind_label(int kind)
{
	const char *name = cfpg_kind_name(kind);

	return name != NULL ? name : psprintf("unknown kind %d", kind);
}

int
cfpg_kind_from_name(const char *name)
{
	if (pg_strcasecmp(name, "any") == 0)
		return CF_KIND_ANY;
	for (int k = 1; cf_kind_name((uint32) k) != NULL; k++)
		if (pg_strcasecmp(name, cf_kind_name((uint32) k)) == 0)
			return k;
	return -1;
}

/* ---------------------------------------------------------------------
 * messages and errors: the one place that turns what the core reports
 * (a cf_status, or a message in err) into a PostgreSQL error
 * ------------------------------------------------------------------- */

/*
 * Turns a core message ("lower case, no period") into an errdetail
 * sentence: capital first letter, final period.
 */
char *
cfpg_sentence(const char *msg)
{
	size_t		len = strlen(msg);
	char	   *s = palloc(len + 2);

	memcpy(s, msg, len + 1);
	if (len > 0 && s[0] >= 'a' && s[0] <= 'z')
		s[0] = (char) (s[0] - 'a' + 'A');
	if (len == 0 || s[len - 1] != '.')
	{
		s[len] = '.';
		s[len + 1] = '\0';
	}
	return s;
}

/* appends a rate in (0, 1) as a percentage with two significant digits */
void
cfpg_append_percent(StringInfo buf, double rate)
{
	double		p = 100.0 * rate;
	int			decimals;

	if (!(p > 0.0))
	{
		appendStringInfoString(buf, "0%");
		return;
	}
	/* two significant digits, at most 9 decimals, no exponent */
	decimals = p >= 10.0 ? 0 : Min(9, 1 - (int) floor(log10(p)));
	appendStringInfo(buf, "%.*f%%", decimals, p);
}

/*
 * Raises the error for a failed insert (CF_FULL, CF_CANNOT_GROW or
 * CF_TOO_MANY_COPIES) into f.
 */
void
cfpg_report_insert_failure(cf_filter *f, cf_status st)
{
	char		err[CF_ERRLEN];

	if (st == CF_TOO_MANY_COPIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter cannot hold another copy of this value"),
				 errdetail("The copies of one value share one bucket pair, which growth does not split, and the filter's stash of %d entries is full.",
						   CF_SPLIT_STASH_MAX),
				 errhint("Use cf_add_unique to store a value once, or cf_try_add to skip an add that does not fit.")));
	if (st == CF_FULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter is full"),
				 errdetail("The filter holds %llu items and was created with expansion 0, so it cannot grow.",
						   (unsigned long long) cfpg_items_of(f)),
				 errhint("Create the filter with a larger capacity, or with a non-zero expansion so that it grows.")));
	if (cf_grow_size(f, err, sizeof(err)) != 0)
		strlcpy(err, "growth limit reached", sizeof(err));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("cuckoo filter cannot grow any more"),
			 errdetail("%s", cfpg_sentence(err)),
			 errhint("Create the filter with a larger capacity or a larger expansion.")));
	pg_unreachable();
}

/* ---------------------------------------------------------------------
 * opening, making and checking stored filters
 * ------------------------------------------------------------------- */

/*
 * Opens a detoasted cuckoofilter datum as a core view; raises
 * ERRCODE_DATA_CORRUPTED if its header is not a valid filter.
 */
void
cfpg_open(cf_filter *f, struct varlena *v)
{
	char		err[CF_ERRLEN];

	if (!cf_open(f, (uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored cuckoo filter is corrupted"),
				 errdetail("%s", cfpg_sentence(err))));
}

/*
 * p with capacity, fpr and the default bucket size, kicks, expansion and
 * geometry: a growing filter is one split table that doubles in place
 * (FORMAT.md, "Split tables"), and starts as the sorted list of its values'
 * hashes while it is small (FORMAT.md, "List sub-filters"; the core keeps a
 * chain table where the rate is too low for the split width schedule, and
 * one fixed table at expansion 0)
 */
void
cfpg_params(cf_params *p, uint64 capacity, double fpr)
{
	*p = cf_params_default(capacity);
	p->fpr = fpr;
}

/*
 * A capacity given to cf_create or cf_agg: at least 1 (what fits is
 * cfpg_check_params's concern).  One message and SQLSTATE for both.
 */
void
cfpg_check_capacity(int64 capacity)
{
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
}

/*
 * Raises the core's message unless a filter of parameters p can be made;
 * returns its byte size.  One SQLSTATE per condition, whoever asks (cf_create,
 * cf_agg, the typed cf_agg overloads): a capacity whose filter would exceed
 * the 1 GB a value can hold is PROGRAM_LIMIT_EXCEEDED (the same parameters
 * with capacity 1 are fine), any other bad parameter INVALID_PARAMETER_VALUE.
 */
size_t
cfpg_check_params(const cf_params *p)
{
	char		err[CF_ERRLEN];
	size_t		size = cf_create_size(p, err, sizeof(err));
	cf_params	one = *p;

	if (size > 0)
		return size;
	one.capacity = 1;
	ereport(ERROR,
			(errcode(p->capacity > 1 && cf_create_size(&one, NULL, 0) > 0 ?
					 ERRCODE_PROGRAM_LIMIT_EXCEEDED : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", err)));
	return 0;					/* not reached */
}

/* A new varlena holding an empty filter for p (raises on bad parameters). */
struct varlena *
cfpg_create(const cf_params *p)
{
	size_t		size = cfpg_check_params(p);
	struct varlena *v;

	v = (struct varlena *) palloc(VARHDRSZ + size);
	SET_VARSIZE(v, VARHDRSZ + size);
	cf_create(CF_VARDATA(v), p);
	return v;
}

/* the SQL names of the table encodings (FORMAT.md, descriptor byte 12) */
static const char *const cfpg_encodings[] = {"packed", "semisorted"};

int
cfpg_encoding(text *name)
{
	char	   *s = text_to_cstring(name);

	for (int e = 0; e < (int) lengthof(cfpg_encodings); e++)
		if (strcmp(s, cfpg_encodings[e]) == 0)
			return e;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("table encoding must be 'packed' or 'semisorted', not \"%s\"", s),
			 errhint("'semisorted' stores buckets of 4 in one bit less per item, for slower lookups and adds.")));
	return 0;					/* not reached */
}

/* the table encoding of f's sub-filters: one of the names above, or "mixed" */
const char *
cfpg_encoding_name(const cf_filter *f)
{
	int			e = cf_encoding_of(f);

	return e == CF_ENC_MIXED ? "mixed" : cfpg_encodings[e];
}

/*
 * Checks the bytes of a filter with the core's full validation; bad bytes
 * are reported into escontext when the caller gave one (soft errors, 16+),
 * else raised.  Returns whether they are valid.
 */
bool
cfpg_validate(const uint8 *buf, size_t len, bool binary, Node *escontext)
{
	char		err[CF_ERRLEN];

	if (!cf_validate(buf, len, err, sizeof(err)))
	{
		/* a version-3 filter that fails its checks is damaged (FORMAT.md "Version 3") */
		if (cf_err_is_corrupt(err))
			ereturn(escontext, false,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s", err)));
		if (binary)
			ereturn(escontext, false,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary data for type %s", "cuckoofilter"),
					 errdetail("%s", cfpg_sentence(err))));
		else
			ereturn(escontext, false,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", "cuckoofilter"),
					 errdetail("%s", cfpg_sentence(err))));
	}
	return true;
}

/*
 * A private copy of the filter d that the core can write: detoasted, and a
 * version-1 filter rewritten as version 2 (its answers unchanged).
 */
struct varlena *
cfpg_writable_copy(Datum d)
{
	struct varlena *v = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
	struct varlena *w;
	cf_filter	f;
	size_t		len;

	cfpg_open(&f, v);
	if (f.version >= 2)
		return v;
	len = cf_upgrade_size(&f);
	w = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(w, VARHDRSZ + len);
	cf_upgrade(&f, CF_VARDATA(w), &f);
	pfree(v);
	return w;
}

/* allocator for cf_insert's growth: the payload of a new varlena */
void *
cfpg_alloc_varlena(size_t size, void *ctx)
{
	char	   *p = palloc(VARHDRSZ + size);

	SET_VARSIZE(p, VARHDRSZ + size);
	return p + VARHDRSZ;
}

/*
 * Inserts h into f, which varlena *v holds and which is the caller's to
 * change; growth moves the filter into a new varlena and frees the old one.
 */
cf_status
cfpg_insert(cf_filter *f, struct varlena **v, uint64 h)
{
	uint8	   *before = f->buf;
	cf_status	st = cf_insert(f, h, cfpg_alloc_varlena, NULL);

	if (f->buf != before)
	{
		/* it grew into a new varlena; the old one is ours to free */
		pfree(*v);
		*v = (struct varlena *) (f->buf - VARHDRSZ);
	}
	return st;
}

/* items in all sub-filters */
uint64
cfpg_items_of(const cf_filter *f)
{
	return cf_item_count(f);
}

/* ---------------------------------------------------------------------
 * unions
 * ------------------------------------------------------------------- */

/*
 * What works instead of a union of tables that loses precision: the rule,
 * in numbers, and the path that works (docs/unions.md).
 */
#define CFPG_UNION_HINT \
	"A union of tables cannot be more precise than its parts: k tables side by side at rate r each answer about k times r, and entries folded into one table keep the fingerprint bits their part wrote them with. Build the filter from the values with cf_agg(value): one table sized for all of them at the target rate. Parts that are still lists (up to 256 values each) unite exactly in cf_union_agg."

/*
 * A new varlena holding the union of a and b; errors carry errmsg_text and
 * the core's reason (incompatible filters, or too many sub-filters).
 */
struct varlena *
cfpg_union(const cf_filter *a, const cf_filter *b, const char *errmsg_text)
{
	cf_filter	r;
	char		err[CF_ERRLEN];
	size_t		cap,
				len;
	struct varlena *v;

	if (a->kind != b->kind && a->kind != CF_KIND_NONE && b->kind != CF_KIND_NONE &&
		a->kind != CF_KIND_ANY && b->kind != CF_KIND_ANY &&
		(cfpg_kind_accepts(a->kind, b->kind) || cfpg_kind_accepts(b->kind, a->kind)))
	{
		/*
		 * 1.1's datetime and one of 1.2's timestamp kinds: the union is of
		 * kind datetime, as the 1.1 filter is (a copy of the other one says so)
		 */
		const cf_filter *narrow = a->kind == CFK_DATETIME ? b : a;
		uint8	   *buf = palloc(narrow->len);
		cf_filter	c;

		memcpy(buf, narrow->buf, narrow->len);
		if (!cf_open(&c, buf, narrow->len, err, sizeof(err)))
			elog(ERROR, "cuckoo filter copy does not open: %s", err);
		cf_set_kind(&c, CFK_DATETIME);
		return narrow == a ? cfpg_union(&c, b, errmsg_text) : cfpg_union(a, &c, errmsg_text);
	}
	if (a->kind != b->kind && a->kind != CF_KIND_NONE && b->kind != CF_KIND_NONE &&
		a->kind != CF_KIND_ANY && b->kind != CF_KIND_ANY)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s", errmsg_text),
				 errdetail("The filters hold values of different kinds (%s and %s).",
						   cfpg_kind_label((int) a->kind), cfpg_kind_label((int) b->kind)),
				 errhint("Mark a filter that really holds several kinds with cf_set_kind(filter, 'any').")));
	cap = cf_union_size(a, b, err, sizeof(err));
	if (cap == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errmsg_text),
				 errdetail("%s", cfpg_sentence(err))));
	v = (struct varlena *) palloc(VARHDRSZ + cap);
	len = cf_union(a, b, CF_VARDATA(v), cap, &r, err, sizeof(err));
	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", errmsg_text),
				 errdetail("%s A union of tables keeps each part's entries at the precision the part wrote them with: parts of one capacity fold into one table while their entries tell their values apart, and the others stand side by side, at most %d in one filter.",
						   cfpg_sentence(err), CF_MAX_STAGES),
				 errhint(CFPG_UNION_HINT)));
	SET_VARSIZE(v, VARHDRSZ + len);
	return v;
}

/* ---------------------------------------------------------------------
 * base64 text forms (cuckoofilter and cf_aggstate)
 * ------------------------------------------------------------------- */

struct varlena *
cfpg_base64_decode(const char *str, size_t len, size_t maxlen, const char *typname,
				   const char *what, Node *escontext)
{
	size_t		n = cf_base64_decoded_len(str, len);
	char		err[CF_ERRLEN];
	struct varlena *v;

	if (n == SIZE_MAX)
		ereturn(escontext, NULL,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", typname),
				 errdetail("Base64 text has %zu characters, not a positive multiple of 4.", len)));
	if (n > maxlen)
		ereturn(escontext, NULL,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too long", what),
				 errdetail("It has %zu bytes; at most %zu fit in one value.", n, maxlen)));
	v = (struct varlena *) palloc(VARHDRSZ + n);
	if (cf_base64_decode(str, len, CF_VARDATA(v), err, sizeof(err)) != n)
		ereturn(escontext, NULL,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", typname),
				 errdetail("%s", cfpg_sentence(err))));
	SET_VARSIZE(v, VARHDRSZ + n);
	return v;
}

char *
cfpg_base64_encode(const uint8 *buf, size_t len, const char *what, const char *hint)
{
	char	   *out;

	if (cf_base64_len(len) + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s is too large for its text form", what),
				 errdetail("It has %zu bytes; its base64 text would exceed the 1 GB limit of a value.",
						   len),
				 errhint("%s", hint)));
	out = palloc(cf_base64_len(len) + 1);
	cf_base64_encode(buf, len, out);
	return out;
}

/*
 * The false-positive rate f was designed for: the rate asked for at
 * creation, which a version-2 filter stores.  A version-1 filter stores
 * only the fingerprint width it implied, and the core gives its design
 * rate instead, 2 * bucket_size / 2^fpbits of the first sub-filter (0.78%
 * for the default 1%).
 */
double
cfpg_target_fpr(const cf_filter *f)
{
	return f->target_fpr;
}

/*
 * Raises a NOTICE if union r's expected false-positive rate exceeds twice
 * its target, at most once per call site and query (flinfo's fn_extra: a
 * union in a per-row expression would otherwise say it once per row).
 * With only_on_crossing (cf_union_agg, whose transition function runs once
 * per input filter), it stays quiet when part a or b was already over.
 */
void
cfpg_union_check_fpr(FmgrInfo *flinfo, const cf_filter *a, const cf_filter *b,
					 const cf_filter *r, bool only_on_crossing)
{
	cf_stats	s;
	double		target = cfpg_target_fpr(r);

	cf_get_stats(r, &s);
	if (!(s.fpr > 2.0 * target))
		return;
	if (!only_on_crossing && flinfo != NULL)
	{
		/* fn_extra is unused by cf_union: a non-NULL value means "said it" */
		if (flinfo->fn_extra != NULL)
			return;
		flinfo->fn_extra = MemoryContextAllocZero(flinfo->fn_mcxt, 1);
	}
	if (only_on_crossing)
	{
		cf_stats	sa,
					sb;

		cf_get_stats(a, &sa);
		cf_get_stats(b, &sb);
		if (sa.fpr > 2.0 * cfpg_target_fpr(a) || sb.fpr > 2.0 * cfpg_target_fpr(b))
			return;
	}
	(void) cfpg_union_notice(r);
}

/*
 * The NOTICE for a union r whose expected false-positive rate is over twice
 * its target (nothing otherwise): what the result holds, and what to do.
 */
bool
cfpg_union_notice(const cf_filter *r)
{
	cf_stats	s;
	double		target = cfpg_target_fpr(r);
	StringInfoData rate,
				trate;

	cf_get_stats(r, &s);
	if (!(s.fpr > 2.0 * target))
		return false;
	initStringInfo(&rate);
	cfpg_append_percent(&rate, s.fpr);
	initStringInfo(&trate);
	cfpg_append_percent(&trate, target);
	ereport(NOTICE,
			(errmsg("union of cuckoo filters has an expected false-positive rate of %s, more than twice its target of %s",
					rate.data, trate.data),
			 s.subfilters == 1 ?
			 errdetail("The union holds %llu items in one table, and each entry keeps the fingerprint bits its part wrote it with: parts much smaller than the union give more false positives than one filter built for all the items.",
					   (unsigned long long) s.items) :
			 errdetail("The union holds %llu items in %u sub-filters side by side: a lookup checks each, so their false-positive rates add up.",
					   (unsigned long long) s.items, s.subfilters),
			 errhint(CFPG_UNION_HINT)));
	return true;
}
