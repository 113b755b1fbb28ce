/*
 * _cuckoo.c - the CPython module over the cuckoo core (src/core, through
 * its public cuckoo.h only): filters in the very bytes PostgreSQL's
 * cuckoofilter stores, and Python values hashed as the server hashes the
 * SQL values they become (the core's canonical forms, cuckoo_canon.c).
 *
 * Python value        SQL type it stands for   value kind
 *   None              NULL (skipped)
 *   bool              boolean                  boolean
 *   int               bigint / numeric         number
 *   float             double precision         number
 *   decimal.Decimal   numeric                  number
 *   str               text                     text
 *   bytes-like        bytea                    bytea
 *   uuid.UUID         uuid                     uuid
 *   datetime.date     date                     timestamp
 *   datetime (naive)  timestamp                timestamp
 *   datetime (aware)  timestamptz              timestamptz
 * (a naive datetime is a wall-clock timestamp, as psycopg2 sends it.)
 *
 * The file, in order: a Python value's hash and kind (cfpy_hash_value, the
 * core's canonical forms) and the hashes of the values SQL calls equal to
 * it (cfpy_hashes: its alternates); the Filter type: the probe with
 * alternates (cfpy_find: the core's cf_contains_first, the one the server's
 * cf_contains uses), counts, adds and deletes (cf_filter_insert,
 * cf_filter_remove), construction (cf_create's parameters through
 * cf_filter_new; from_values: cf_agg's build, cf_filter_build), bytes and
 * text, the batch forms (blocks of CFPY_BLOCK hashes through
 * cf_contains_many), unions; then the module's functions (hash, kind_of,
 * the seen recipe's seen/unseen) and its init.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>

#include <math.h>
#include <stdlib.h>

#include "cuckoo.h"

static PyObject *CfError;			/* cuckoo.Error */
static PyObject *UuidType;			/* uuid.UUID */
static PyObject *DecimalType;		/* decimal.Decimal */

/* the most hashes one value is probed under: its own and its alternates */
#define CFPY_MAX_HASHES (CF_NUMBER_ALTERNATES_MAX + 1)

/* a value's own hash and kind; *skip for None */
typedef struct
{
	uint64_t	h;
	uint32_t	kind;
	bool		skip;
	/* what its alternates come from */
	enum
	{
		ALT_NONE, ALT_INT, ALT_FLOAT, ALT_TEXT
	}			alt;
	int64_t		i;
	double		d;
	const char *p;				/* text: its UTF-8 bytes (owned by the str) */
	Py_ssize_t	len;
} cfpy_value;

/* days from 2000-01-01 to y-m-d (proleptic Gregorian) */
static int64_t
cfpy_days(int y, int m, int d)
{
	int64_t		era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468 - 10957;	/* 1970-01-01, then 2000-01-01 */
}

static const char *
cfpy_type_name(PyObject *v)
{
	return Py_TYPE(v)->tp_name;
}

/* a number given as a double (float, a Decimal or int beyond int64) */
static void
cfpy_number_double(cfpy_value *out, double d, int hashing, bool alternates)
{
	out->kind = CF_KIND_NUMBER;
	out->h = cf_hash_number(d, hashing);
	out->d = d;
	out->alt = alternates ? ALT_FLOAT : ALT_NONE;
}

static void
cfpy_number_int(cfpy_value *out, int64_t i)
{
	out->kind = CF_KIND_NUMBER;
	out->h = cf_hash_int64(i);
	out->i = i;
	out->alt = ALT_INT;
}

/* an int beyond int64 (a numeric): as its float8 value, or (hashing 1) its decimal text */
static int
cfpy_big_int(cfpy_value *out, PyObject *v, int hashing)
{
	double		d;

	if (hashing < CF_HASHING_V2)
	{
		PyObject   *s = PyObject_Str(v);
		const char *p;
		Py_ssize_t	n;

		if (s == NULL)
			return -1;
		p = PyUnicode_AsUTF8AndSize(s, &n);
		if (p == NULL)
		{
			Py_DECREF(s);
			return -1;
		}
		out->kind = CF_KIND_NUMBER;
		out->h = cf_hash_bytes(p, (size_t) n);
		out->alt = ALT_NONE;
		Py_DECREF(s);
		return 0;
	}
	d = PyLong_AsDouble(v);
	if (d == -1.0 && PyErr_Occurred())
	{
		if (!PyErr_ExceptionMatches(PyExc_OverflowError))
			return -1;
		PyErr_Clear();
		/* as numeric_float8_no_overflow: beyond float8, an infinity */
		d = _PyLong_Sign(v) < 0 ? -HUGE_VAL : HUGE_VAL;
	}
	cfpy_number_double(out, d, hashing, false);
	return 0;
}

/* a Decimal as the numeric it stands for */
static int
cfpy_decimal(cfpy_value *out, PyObject *v, int hashing)
{
	PyObject   *r;
	int			special;
	double		d;

	if (hashing < CF_HASHING_V2)
	{
		PyErr_SetString(PyExc_ValueError,
						"Decimal values cannot be looked up in a filter written by cuckoo 1.0 "
						"(it hashes numerics by their normalized text): rebuild the filter");
		return -1;
	}
	r = PyObject_CallMethod(v, "is_finite", NULL);
	if (r == NULL)
		return -1;
	special = !PyObject_IsTrue(r);
	Py_DECREF(r);
	if (special)
	{
		r = PyObject_CallMethod(v, "is_snan", NULL);
		if (r == NULL)
			return -1;
		if (PyObject_IsTrue(r))
		{
			Py_DECREF(r);
			PyErr_SetString(PyExc_ValueError, "a signaling NaN is no numeric value");
			return -1;
		}
		Py_DECREF(r);
	}
	else
	{
		/* an integer in int64's range: as that integer */
		PyObject   *iv = PyObject_CallMethod(v, "to_integral_value", NULL);
		int			eq;

		if (iv == NULL)
			return -1;
		eq = PyObject_RichCompareBool(iv, v, Py_EQ);
		if (eq < 0)
		{
			Py_DECREF(iv);
			return -1;
		}
		if (eq)
		{
			PyObject   *n = PyNumber_Long(iv);
			int			overflow;
			long long	x;

			Py_DECREF(iv);
			if (n == NULL)
				return -1;
			x = PyLong_AsLongLongAndOverflow(n, &overflow);
			Py_DECREF(n);
			if (overflow == 0)
			{
				if (x == -1 && PyErr_Occurred())
					return -1;
				cfpy_number_int(out, (int64_t) x);
				return 0;
			}
		}
		else
			Py_DECREF(iv);
	}
	/* NaN, infinities, fractions, integers beyond int64: as their float8 value */
	r = PyNumber_Float(v);
	if (r == NULL)
		return -1;
	d = PyFloat_AsDouble(r);
	Py_DECREF(r);
	cfpy_number_double(out, d, hashing, false);
	return 0;
}

/*
 * The hash and kind of value v under value hashing hashing (the filter's):
 * 0, or -1 with an exception (TypeError for a value of no supported type).
 */
static int
cfpy_hash_value(PyObject *v, int hashing, cfpy_value *out)
{
	out->skip = false;
	out->alt = ALT_NONE;
	if (v == Py_None)
	{
		out->skip = true;
		return 0;
	}
	if (PyBool_Check(v))
	{
		out->kind = CF_KIND_BOOL;
		out->h = cf_hash_byte(v == Py_True ? 1 : 0);
		return 0;
	}
	if (PyLong_Check(v))
	{
		int			overflow;
		long long	x = PyLong_AsLongLongAndOverflow(v, &overflow);

		if (overflow != 0)
			return cfpy_big_int(out, v, hashing);
		if (x == -1 && PyErr_Occurred())
			return -1;
		cfpy_number_int(out, (int64_t) x);
		return 0;
	}
	if (PyFloat_Check(v))
	{
		cfpy_number_double(out, PyFloat_AS_DOUBLE(v), hashing, true);
		return 0;
	}
	if (PyUnicode_Check(v))
	{
		Py_ssize_t	n;
		const char *p = PyUnicode_AsUTF8AndSize(v, &n);

		if (p == NULL)
			return -1;
		if (memchr(p, '\0', (size_t) n) != NULL)
		{
			PyErr_SetString(PyExc_ValueError, "a PostgreSQL text value cannot contain NUL characters");
			return -1;
		}
		out->kind = CF_KIND_TEXT;
		out->h = cf_hash_text(p, (size_t) n, hashing >= CF_HASHING_V2);
		out->p = p;
		out->len = n;
		out->alt = ALT_TEXT;
		return 0;
	}
	if (PyBytes_Check(v))
	{
		out->kind = CF_KIND_BYTEA;
		out->h = cf_hash_bytes(PyBytes_AS_STRING(v), (size_t) PyBytes_GET_SIZE(v));
		return 0;
	}
	if (PyByteArray_Check(v) || PyMemoryView_Check(v))
	{
		Py_buffer	b;

		if (PyObject_GetBuffer(v, &b, PyBUF_CONTIG_RO) < 0)
			return -1;
		out->kind = CF_KIND_BYTEA;
		out->h = cf_hash_bytes(b.buf, (size_t) b.len);
		PyBuffer_Release(&b);
		return 0;
	}
	if (PyDateTime_Check(v))
	{
		int64_t		us = ((cfpy_days(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v),
									 PyDateTime_GET_DAY(v)) * 24 +
							  PyDateTime_DATE_GET_HOUR(v)) * 60 +
							 PyDateTime_DATE_GET_MINUTE(v)) * 60 + PyDateTime_DATE_GET_SECOND(v);
		PyObject   *off;

		us = us * 1000000 + PyDateTime_DATE_GET_MICROSECOND(v);
		out->kind = CF_KIND_TIMESTAMP;
		off = PyObject_CallMethod(v, "utcoffset", NULL);
		if (off == NULL)
			return -1;
		if (off != Py_None)
		{
			/* aware: the UTC instant, a timestamptz */
			us -= ((int64_t) PyDateTime_DELTA_GET_DAYS(off) * 86400 +
				   PyDateTime_DELTA_GET_SECONDS(off)) * 1000000 +
				PyDateTime_DELTA_GET_MICROSECONDS(off);
			out->kind = CF_KIND_TIMESTAMPTZ;
		}
		Py_DECREF(off);
		out->h = cf_hash_timestamp(us);
		return 0;
	}
	if (PyDate_Check(v))
	{
		out->kind = CF_KIND_TIMESTAMP;
		out->h = cf_hash_date((int32_t) cfpy_days(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v),
												   PyDateTime_GET_DAY(v)), hashing);
		return 0;
	}
	if (UuidType != NULL && PyObject_TypeCheck(v, (PyTypeObject *) UuidType))
	{
		PyObject   *b = PyObject_GetAttrString(v, "bytes");

		if (b == NULL)
			return -1;
		if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) != 16)
		{
			Py_DECREF(b);
			PyErr_SetString(PyExc_TypeError, "uuid.UUID.bytes is not 16 bytes");
			return -1;
		}
		out->kind = CF_KIND_UUID;
		out->h = cf_hash_uuid((const uint8_t *) PyBytes_AS_STRING(b));
		Py_DECREF(b);
		return 0;
	}
	if (DecimalType != NULL && PyObject_TypeCheck(v, (PyTypeObject *) DecimalType))
		return cfpy_decimal(out, v, hashing);
	PyErr_Format(PyExc_TypeError,
				 "cuckoo filters cannot hash values of Python type %s "
				 "(int, float, Decimal, str, bytes, bool, uuid.UUID, date and datetime can be hashed)",
				 cfpy_type_name(v));
	return -1;
}

/* the hashes a probe of v tries: its own first, then its alternates; how many */
static size_t
cfpy_hashes(const cfpy_value *v, int hashing, uint64_t *out)
{
	size_t		n = 1,
				k;
	uint64_t	alt;

	out[0] = v->h;
	switch (v->alt)
	{
		case ALT_INT:
			if (cf_int64_alternate(v->i, hashing, &alt) && alt != v->h)
				out[n++] = alt;
			break;
		case ALT_FLOAT:
			k = cf_number_alternates(v->d, hashing, out + 1);
			/* without the own hash (the integer the float is) */
			for (size_t i = 0; i < k; i++)
				if (out[1 + i] != v->h)
					out[n++] = out[1 + i];
			break;
		case ALT_TEXT:
			if (hashing >= CF_HASHING_V2 && v->len > 0 && v->p[v->len - 1] == ' ')
				out[n++] = cf_hash_text(v->p, (size_t) v->len, false);
			break;
		case ALT_NONE:
			break;
	}
	return n;
}

/*
 * whether v may have alternates at all (the cheap test before cfpy_hashes):
 * an int beyond +-2^53, a float of magnitude 2^53 or more, text with
 * trailing blanks, as the server's rows say (cuckoo_hashval.c)
 */
static bool
cfpy_may_have_alternates(const cfpy_value *v)
{
	switch (v->alt)
	{
		case ALT_INT:
			return v->i > (INT64_C(1) << 53) || v->i < -(INT64_C(1) << 53);
		case ALT_FLOAT:
			return fabs(v->d) >= 9007199254740992.0;
		case ALT_TEXT:
			return v->len > 0 && v->p[v->len - 1] == ' ';
		default:
			return false;
	}
}

/* ---------------------------------------------------------------------
 * Filter
 * ------------------------------------------------------------------- */

typedef struct
{
	PyObject_HEAD
	cf_filter  *f;
	uint64_t   *hbuf;				/* CFPY_MAX_HASHES, for probes with alternates */
} FilterObject;

static PyTypeObject FilterType;

static FilterObject *
cfpy_wrap(cf_filter *f)
{
	FilterObject *o;

	if (f == NULL)
		return NULL;
	o = PyObject_New(FilterObject, &FilterType);
	if (o == NULL)
	{
		cf_filter_free(f);
		return NULL;
	}
	o->f = f;
	o->hbuf = NULL;
	return o;
}

/* the filter's buffer for a value's hashes (CFPY_MAX_HASHES), made on first use */
static uint64_t *
cfpy_hbuf(FilterObject *self)
{
	if (self->hbuf == NULL)
	{
		self->hbuf = PyMem_Malloc(sizeof(uint64_t) * CFPY_MAX_HASHES);
		if (self->hbuf == NULL)
			PyErr_NoMemory();
	}
	return self->hbuf;
}

static void
Filter_dealloc(FilterObject *self)
{
	cf_filter_free(self->f);
	PyMem_Free(self->hbuf);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

/* a kind's name for a message, also for a number no kind has (bytes from elsewhere) */
static const char *
cfpy_kind_str(uint32_t kind)
{
	const char *k = cf_kind_name(kind);

	return k != NULL ? k : "unknown";
}

/* the server's refusal of a value of another kind than the filter holds */
static int
cfpy_check_kind(const cf_filter *f, const cfpy_value *v, PyObject *value)
{
	uint32_t	fk = cf_filter_kind(f);

	if (!cf_kind_mismatch(fk, cf_filter_hashing(f), v->kind))
		return 0;
	PyErr_Format(PyExc_TypeError,
				 "cuckoo filter holds %s values, not %s (a Python %s): "
				 "values of kind %s are never found in a filter of %s values%s",
				 cfpy_kind_str(fk), cfpy_kind_str(v->kind), cfpy_type_name(value),
				 cfpy_kind_str(v->kind), cfpy_kind_str(fk),
				 !PyUnicode_Check(value) ? "" :
				 fk == CF_KIND_UUID ? " (a uuid given as text, say by psycopg2: give uuid.UUID(s))" :
				 fk == CF_KIND_TIMESTAMP || fk == CF_KIND_DATETIME ?
				 " (a date or timestamp given as text: give datetime.date.fromisoformat(s) or a naive datetime)" :
				 fk == CF_KIND_TIMESTAMPTZ ?
				 " (a timestamptz given as text: give an aware datetime, datetime.datetime.fromisoformat(s))" : "");
	return -1;
}

/* the value's hash for f, kind-checked; 1: a value, 0: None, -1: error */
static int
cfpy_value_for(FilterObject *self, PyObject *value, cfpy_value *v)
{
	if (cfpy_hash_value(value, (int) cf_filter_hashing(self->f), v) < 0)
		return -1;
	if (v->skip)
		return 0;
	if (cfpy_check_kind(self->f, v, value) < 0)
		return -1;
	return 1;
}

/* whether f holds v under its own hash or an alternate; *h: the one held, else its own */
static int
cfpy_find(FilterObject *self, const cfpy_value *v, uint64_t *h)
{
	uint64_t   *hs;
	size_t		n,
				i;

	*h = v->h;
	if (!cfpy_may_have_alternates(v))
		return cf_contains(self->f, v->h);
	hs = cfpy_hbuf(self);
	if (hs == NULL)
		return -1;
	/* its own hash hs[0], then the alternates: the core's probe (cf_contains_first) */
	n = cfpy_hashes(v, (int) cf_filter_hashing(self->f), hs);
	i = cf_contains_first(self->f, hs, n);
	if (i == n)
		return 0;
	*h = hs[i];
	return 1;
}

/* cf_count of v: the copies under its own hash and its alternates' (at most INT32_MAX) */
static int
cfpy_count(FilterObject *self, const cfpy_value *v, uint64_t *count)
{
	uint64_t   *hs;
	size_t		n;

	if (!cfpy_may_have_alternates(v))
	{
		*count = cf_count(self->f, v->h);
		return 0;
	}
	hs = cfpy_hbuf(self);
	if (hs == NULL)
		return -1;
	n = cfpy_hashes(v, (int) cf_filter_hashing(self->f), hs);
	*count = 0;
	for (size_t i = 0; i < n; i++)
		*count += cf_count(self->f, hs[i]);
	if (*count > INT32_MAX)
		*count = INT32_MAX;
	return 0;
}

/* a write's status as Python sees it: 0, or -1 with cuckoo.Error set */
static int
cfpy_report_status(cf_status st)
{
	switch (st)
	{
		case CF_OK:
		case CF_NOT_FOUND:
		case CF_RETAINED:
			return 0;
		case CF_FULL:
			PyErr_SetString(CfError, "cuckoo filter is full (its expansion is 0, or a version-1 filter "
							"could not be rewritten)");
			return -1;
		case CF_CANNOT_GROW:
			PyErr_SetString(CfError, "cuckoo filter cannot grow any more");
			return -1;
		case CF_TOO_MANY_COPIES:
			PyErr_SetString(CfError, "too many copies of one value in a split table");
			return -1;
		case CF_READ_ONLY:
			PyErr_SetString(CfError, "a version-1 filter is read only");
			return -1;
	}
	PyErr_Format(CfError, "unexpected cuckoo status %s", cf_status_str(st));
	return -1;
}

/*
 * op of one value: 0 add, 1 add_unique (returns whether it was added), 2
 * delete (whether a copy was found); None changes nothing
 */
static int
cfpy_modify(FilterObject *self, PyObject *value, int op)
{
	cfpy_value	v;
	uint64_t	h;
	int			r = cfpy_value_for(self, value, &v);

	if (r <= 0)
		return r;
	if (op == 0)
		return cfpy_report_status(cf_filter_insert(self->f, v.h, false, v.kind)) < 0 ? -1 : 1;
	r = cfpy_find(self, &v, &h);
	if (r < 0)
		return -1;
	if (op == 1)
	{
		if (r)
			return 0;
		return cfpy_report_status(cf_filter_insert(self->f, v.h, false, v.kind)) < 0 ? -1 : 1;
	}
	if (!r)
		return 0;
	return cfpy_report_status(cf_filter_remove(self->f, h)) < 0 ? -1 : 1;
}

static int
cfpy_encoding(PyObject *name, int *enc)
{
	const char *s;

	if (name == NULL || name == Py_None)
	{
		*enc = CF_ENC_PACKED;
		return 0;
	}
	s = PyUnicode_AsUTF8(name);
	if (s == NULL)
		return -1;
	if (strcmp(s, "packed") == 0)
		*enc = CF_ENC_PACKED;
	else if (strcmp(s, "semisorted") == 0)
		*enc = CF_ENC_SEMISORT;
	else
	{
		PyErr_Format(PyExc_ValueError, "table encoding must be 'packed' or 'semisorted', not \"%s\"", s);
		return -1;
	}
	return 0;
}

/*
 * Filter(capacity, fpr=0.01, bucket_size=4, max_kicks=500, expansion=2,
 * encoding='packed'): SQL's cf_create, every parameter as the server takes
 * it (0 kicks, expansion 0 for a fixed size) and the same bytes
 */
static int
Filter_init(FilterObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"capacity", "fpr", "bucket_size", "max_kicks", "expansion", "encoding", NULL};
	long long	capacity;
	double		fpr = CF_DEFAULT_FPR;
	int			bucket_size = CF_DEFAULT_BUCKET_SIZE,
				max_kicks = CF_DEFAULT_MAX_KICKS,
				expansion = CF_DEFAULT_EXPANSION;
	PyObject   *encoding = NULL;
	cf_params	p;
	char		err[CF_ERRLEN];
	cf_filter  *f;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "L|diiiO", kwlist, &capacity, &fpr, &bucket_size,
									 &max_kicks, &expansion, &encoding))
		return -1;
	if (capacity < 1)
	{
		PyErr_Format(PyExc_ValueError, "capacity must be at least 1, not %lld", capacity);
		return -1;
	}
	/* SQL's cf_create: every field as given (0 kicks, expansion 0: fixed size) */
	p = cf_params_default((uint64_t) capacity);
	p.fpr = fpr;
	p.bucket_size = bucket_size;
	p.max_kicks = max_kicks;
	p.expansion = expansion;
	if (cfpy_encoding(encoding, &p.encoding) < 0)
		return -1;
	if (cf_create_size(&p, err, sizeof(err)) == 0)
	{
		PyErr_SetString(PyExc_ValueError, err);
		return -1;
	}
	/* cf_filter_new reads 0 as "the default": say none */
	if (p.max_kicks == 0)
		p.max_kicks = CF_NONE;
	if (p.expansion == 0)
		p.expansion = CF_NONE;
	f = cf_filter_new(&p, err, sizeof(err));
	if (f == NULL)
	{
		PyErr_SetString(PyExc_ValueError, err);
		return -1;
	}
	cf_filter_free(self->f);
	self->f = f;
	return 0;
}

static PyObject *
Filter_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	FilterObject *o = (FilterObject *) type->tp_alloc(type, 0);

	(void) args;
	(void) kw;
	if (o != NULL)
	{
		o->f = NULL;
		o->hbuf = NULL;
	}
	return (PyObject *) o;
}

#define CFPY_CHECK_OPEN(self) \
	do { if ((self)->f == NULL) { PyErr_SetString(CfError, "filter not initialised"); return NULL; } } while (0)

static PyObject *
Filter_from_bytes(PyObject *cls, PyObject *arg)
{
	Py_buffer	b;
	char		err[CF_ERRLEN];
	cf_filter  *f;

	(void) cls;
	if (PyUnicode_Check(arg))
	{
		PyErr_SetString(PyExc_TypeError,
						"Filter.from_bytes takes the filter's bytes (bytes, bytearray, memoryview), "
						"not a str: Filter.from_text takes its text form (base64)");
		return NULL;
	}
	if (!PyObject_CheckBuffer(arg))
	{
		PyErr_Format(PyExc_TypeError,
					 "Filter.from_bytes takes the filter's bytes (bytes, bytearray, memoryview), not %s",
					 cfpy_type_name(arg));
		return NULL;
	}
	if (PyObject_GetBuffer(arg, &b, PyBUF_CONTIG_RO) < 0)
		return NULL;
	f = cf_filter_from_bytes(b.buf, (size_t) b.len, err, sizeof(err));
	PyBuffer_Release(&b);
	if (f == NULL)
	{
		PyErr_Format(PyExc_ValueError, "invalid cuckoo filter: %s", err);
		return NULL;
	}
	return (PyObject *) cfpy_wrap(f);
}

/* cf_verify's result as a dict: ok, version, subfilters, items, problems */
static PyObject *
cfpy_verify(const uint8_t *buf, size_t len)
{
	cf_verify_result *r = PyMem_Malloc(sizeof(cf_verify_result));
	PyObject   *problems,
			   *d;
	uint32_t	n;

	if (r == NULL)
		return PyErr_NoMemory();
	cf_verify(buf, len, r);
	n = r->nproblems < CF_VERIFY_MAX ? r->nproblems : CF_VERIFY_MAX;
	problems = PyList_New(0);
	for (uint32_t i = 0; problems != NULL && i < n; i++)
	{
		PyObject   *m = PyUnicode_DecodeUTF8(r->problems[i], (Py_ssize_t) strlen(r->problems[i]), "replace");

		if (m == NULL || PyList_Append(problems, m) < 0)
			Py_CLEAR(problems);
		Py_XDECREF(m);
	}
	if (problems != NULL && r->nproblems > n)
	{
		PyObject   *m = PyUnicode_FromFormat("%u more problems not listed", (unsigned) (r->nproblems - n));

		if (m == NULL || PyList_Append(problems, m) < 0)
			Py_CLEAR(problems);
		Py_XDECREF(m);
	}
	if (problems == NULL)
	{
		PyMem_Free(r);
		return NULL;
	}
	d = Py_BuildValue("{s:O,s:I,s:I,s:K,s:N}", "ok", r->ok ? Py_True : Py_False,
					  "version", (unsigned) r->version, "subfilters", (unsigned) r->nstages,
					  "items", (unsigned long long) r->items, "problems", problems);
	PyMem_Free(r);
	return d;
}

static PyObject *
Filter_verify_bytes(PyObject *cls, PyObject *arg)
{
	Py_buffer	b;
	PyObject   *d;

	(void) cls;
	if (PyObject_GetBuffer(arg, &b, PyBUF_CONTIG_RO) < 0)
		return NULL;
	d = cfpy_verify(b.buf, (size_t) b.len);
	PyBuffer_Release(&b);
	return d;
}

static PyObject *
Filter_verify(FilterObject *self, PyObject *unused)
{
	size_t		len;
	const uint8_t *buf;

	(void) unused;
	CFPY_CHECK_OPEN(self);
	buf = cf_filter_bytes(self->f, &len);
	return cfpy_verify(buf, len);
}

static PyObject *
Filter_from_text(PyObject *cls, PyObject *arg)
{
	Py_ssize_t	len;
	const char *s;
	size_t		n;
	uint8_t    *buf;
	char		err[CF_ERRLEN];
	cf_filter  *f;

	(void) cls;
	if (!PyUnicode_Check(arg))
	{
		PyErr_Format(PyExc_TypeError,
					 "Filter.from_text takes the filter's text form (a str, base64), not %s%s",
					 cfpy_type_name(arg),
					 PyObject_CheckBuffer(arg) ? ": Filter.from_bytes takes its bytes" : "");
		return NULL;
	}
	s = PyUnicode_AsUTF8AndSize(arg, &len);
	if (s == NULL)
		return NULL;
	n = cf_base64_decoded_len(s, (size_t) len);
	if (n == SIZE_MAX)
	{
		PyErr_SetString(PyExc_ValueError, "invalid cuckoo filter text: not base64");
		return NULL;
	}
	buf = PyMem_Malloc(n + 1);
	if (buf == NULL)
		return PyErr_NoMemory();
	if (cf_base64_decode(s, (size_t) len, buf, err, sizeof(err)) == SIZE_MAX)
	{
		PyMem_Free(buf);
		PyErr_Format(PyExc_ValueError, "invalid cuckoo filter text: %s", err);
		return NULL;
	}
	f = cf_filter_from_bytes(buf, n, err, sizeof(err));
	PyMem_Free(buf);
	if (f == NULL)
	{
		PyErr_Format(PyExc_ValueError, "invalid cuckoo filter: %s", err);
		return NULL;
	}
	return (PyObject *) cfpy_wrap(f);
}

static PyObject *
Filter_to_bytes(FilterObject *self, PyObject *unused)
{
	size_t		len;
	const uint8_t *b;

	(void) unused;
	CFPY_CHECK_OPEN(self);
	b = cf_filter_bytes(self->f, &len);
	return PyBytes_FromStringAndSize((const char *) b, (Py_ssize_t) len);
}

static PyObject *
Filter_to_text(FilterObject *self, PyObject *unused)
{
	size_t		len;
	const uint8_t *b;
	char	   *s;
	PyObject   *r;

	(void) unused;
	CFPY_CHECK_OPEN(self);
	b = cf_filter_bytes(self->f, &len);
	s = PyMem_Malloc(cf_base64_len(len) + 1);
	if (s == NULL)
		return PyErr_NoMemory();
	cf_base64_encode(b, len, s);
	r = PyUnicode_FromString(s);
	PyMem_Free(s);
	return r;
}

static PyObject *
Filter_copy(FilterObject *self, PyObject *unused)
{
	(void) unused;
	CFPY_CHECK_OPEN(self);
	return (PyObject *) cfpy_wrap(cf_filter_copy(self->f));
}

/* pickling: the filter is its bytes */
static PyObject *
Filter_reduce(FilterObject *self, PyObject *unused)
{
	PyObject   *b,
			   *ctor,
			   *r;

	(void) unused;
	CFPY_CHECK_OPEN(self);
	b = Filter_to_bytes(self, NULL);
	if (b == NULL)
		return NULL;
	ctor = PyObject_GetAttrString((PyObject *) Py_TYPE(self), "from_bytes");
	if (ctor == NULL)
	{
		Py_DECREF(b);
		return NULL;
	}
	r = Py_BuildValue("(N(N))", ctor, b);
	return r;
}

static PyObject *
Filter_add(FilterObject *self, PyObject *value)
{
	CFPY_CHECK_OPEN(self);
	if (cfpy_modify(self, value, 0) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *
Filter_add_unique(FilterObject *self, PyObject *value)
{
	int			r;

	CFPY_CHECK_OPEN(self);
	if (value == Py_None)
		Py_RETURN_NONE;
	r = cfpy_modify(self, value, 1);
	if (r < 0)
		return NULL;
	return PyBool_FromLong(r);
}

static PyObject *
Filter_delete(FilterObject *self, PyObject *value)
{
	int			r;

	CFPY_CHECK_OPEN(self);
	if (value == Py_None)
		Py_RETURN_NONE;
	r = cfpy_modify(self, value, 2);
	if (r < 0)
		return NULL;
	return PyBool_FromLong(r);
}

static PyObject *
Filter_contains(FilterObject *self, PyObject *value)
{
	cfpy_value	v;
	uint64_t	h;
	int			r;

	CFPY_CHECK_OPEN(self);
	r = cfpy_value_for(self, value, &v);
	if (r < 0)
		return NULL;
	if (r == 0)
		Py_RETURN_NONE;			/* NULL, as the server answers */
	r = cfpy_find(self, &v, &h);
	if (r < 0)
		return NULL;
	return PyBool_FromLong(r);
}

static int
Filter_sq_contains(FilterObject *self, PyObject *value)
{
	cfpy_value	v;
	uint64_t	h;
	int			r;

	if (self->f == NULL)
		return 0;
	r = cfpy_value_for(self, value, &v);
	if (r <= 0)
		return r;
	return cfpy_find(self, &v, &h);
}

static PyObject *
Filter_count(FilterObject *self, PyObject *value)
{
	cfpy_value	v;
	uint64_t	n;
	int			r;

	CFPY_CHECK_OPEN(self);
	r = cfpy_value_for(self, value, &v);
	if (r < 0)
		return NULL;
	if (r == 0)
		Py_RETURN_NONE;
	if (cfpy_count(self, &v, &n) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(n);
}

/*
 * the values of a *_many call, from_values or unseen: an iterable of values,
 * never one str or bytes (iterating it would probe single characters or small
 * ints); a TypeError that says what is expected otherwise
 */
static int
cfpy_check_values(PyObject *items, const char *what)
{
	if (PyUnicode_Check(items) || PyBytes_Check(items) || PyByteArray_Check(items) ||
		PyMemoryView_Check(items))
	{
		PyErr_Format(PyExc_TypeError,
					 "%s: an iterable of values is expected (a list, tuple, set, generator ...), not one %s "
					 "(give one value as [v])",
					 what, cfpy_type_name(items));
		return -1;
	}
	if (Py_TYPE(items)->tp_iter == NULL && !PySequence_Check(items))
	{
		PyErr_Format(PyExc_TypeError,
					 "%s: an iterable of values is expected (a list, tuple, set, generator ...), not %s",
					 what, cfpy_type_name(items));
		return -1;
	}
	return 0;
}

/* op over every item of an iterable: adds (the number stored), deletes (the number found) */
static PyObject *
cfpy_modify_many(FilterObject *self, PyObject *items, int op)
{
	PyObject   *it,
			   *item;
	long long	n = 0;

	CFPY_CHECK_OPEN(self);
	if (cfpy_check_values(items, op == 0 ? "add_many" : op == 1 ? "add_unique_many" : "delete_many") < 0)
		return NULL;
	it = PyObject_GetIter(items);
	if (it == NULL)
		return NULL;
	while ((item = PyIter_Next(it)) != NULL)
	{
		int			r = cfpy_modify(self, item, op);

		Py_DECREF(item);
		if (r < 0)
		{
			Py_DECREF(it);
			return NULL;
		}
		n += r;
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromLongLong(n);
}

static PyObject *
Filter_add_many(FilterObject *self, PyObject *items)
{
	return cfpy_modify_many(self, items, 0);
}

static PyObject *
Filter_add_unique_many(FilterObject *self, PyObject *items)
{
	return cfpy_modify_many(self, items, 1);
}

static PyObject *
Filter_delete_many(FilterObject *self, PyObject *items)
{
	return cfpy_modify_many(self, items, 2);
}

#define CFPY_BLOCK 256

/*
 * contains of every item of a sequence, as a list of bools (None for None);
 * the plain hashes go to the core in blocks (cf_contains_many), the few
 * with alternates one by one
 */
static PyObject *
Filter_contains_many(FilterObject *self, PyObject *items)
{
	PyObject   *seq,
			   *out;
	Py_ssize_t	n;
	uint64_t	hs[CFPY_BLOCK];
	bool		found[CFPY_BLOCK];
	Py_ssize_t	pos[CFPY_BLOCK];
	bool		numbers_ok;

	CFPY_CHECK_OPEN(self);
	numbers_ok = !cf_kind_mismatch(cf_filter_kind(self->f), cf_filter_hashing(self->f), CF_KIND_NUMBER);
	if (cfpy_check_values(items, "contains_many") < 0)
		return NULL;
	seq = PySequence_Fast(items, "contains_many takes an iterable of values");
	if (seq == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	out = PyList_New(n);
	if (out == NULL)
	{
		Py_DECREF(seq);
		return NULL;
	}
	for (Py_ssize_t i0 = 0; i0 < n; i0 += CFPY_BLOCK)
	{
		int			nb = 0;

		for (Py_ssize_t i = i0; i < n && i < i0 + CFPY_BLOCK; i++)
		{
			cfpy_value	v;
			PyObject   *item = PySequence_Fast_GET_ITEM(seq, i);
			int			r;

			/* the common case first: an int of at most 2^53 (no alternate), in a filter of numbers */
			if (PyLong_CheckExact(item) && numbers_ok)
			{
				int			overflow;
				long long	x = PyLong_AsLongLongAndOverflow(item, &overflow);

				if (overflow == 0 && x <= (INT64_C(1) << 53) && x >= -(INT64_C(1) << 53))
				{
					hs[nb] = cf_hash_int64((int64_t) x);
					pos[nb++] = i;
					continue;
				}
				PyErr_Clear();
			}
			r = cfpy_value_for(self, item, &v);
			if (r < 0)
				goto fail;
			if (r == 0)
			{
				Py_INCREF(Py_None);
				PyList_SET_ITEM(out, i, Py_None);
			}
			else if (cfpy_may_have_alternates(&v))
			{
				uint64_t	h;
				int			f = cfpy_find(self, &v, &h);

				if (f < 0)
					goto fail;
				PyList_SET_ITEM(out, i, PyBool_FromLong(f));
			}
			else
			{
				hs[nb] = v.h;
				pos[nb++] = i;
			}
		}
		if (nb > 0)
			cf_contains_many(self->f, hs, (size_t) nb, found);
		for (int k = 0; k < nb; k++)
			PyList_SET_ITEM(out, pos[k], PyBool_FromLong(found[k]));
	}
	Py_DECREF(seq);
	return out;
fail:
	/* the items not set yet are NULL: give them None before dropping the list */
	for (Py_ssize_t i = 0; i < n; i++)
		if (PyList_GET_ITEM(out, i) == NULL)
		{
			Py_INCREF(Py_None);
			PyList_SET_ITEM(out, i, Py_None);
		}
	Py_DECREF(out);
	Py_DECREF(seq);
	return NULL;
}

static PyObject *
Filter_count_many(FilterObject *self, PyObject *items)
{
	PyObject   *it,
			   *item,
			   *out;

	CFPY_CHECK_OPEN(self);
	if (cfpy_check_values(items, "count_many") < 0)
		return NULL;
	it = PyObject_GetIter(items);
	if (it == NULL)
		return NULL;
	out = PyList_New(0);
	if (out == NULL)
	{
		Py_DECREF(it);
		return NULL;
	}
	while ((item = PyIter_Next(it)) != NULL)
	{
		PyObject   *c = Filter_count(self, item);

		Py_DECREF(item);
		if (c == NULL || PyList_Append(out, c) < 0)
		{
			Py_XDECREF(c);
			Py_DECREF(it);
			Py_DECREF(out);
			return NULL;
		}
		Py_DECREF(c);
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
	{
		Py_DECREF(out);
		return NULL;
	}
	return out;
}

/* the raw-hash forms, for recipes built on the core's operations (the seen marks) */
static PyObject *
Filter_count_hash(FilterObject *self, PyObject *arg)
{
	unsigned long long h = PyLong_AsUnsignedLongLongMask(arg);

	CFPY_CHECK_OPEN(self);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromUnsignedLong(cf_count(self->f, (uint64_t) h));
}

/* _add_hash(h, kind): the core's status name ('ok', 'too_many_copies', ...) */
static PyObject *
Filter_add_hash(FilterObject *self, PyObject *args)
{
	unsigned long long h;
	unsigned int kind;
	cf_status	st;

	CFPY_CHECK_OPEN(self);
	if (!PyArg_ParseTuple(args, "KI", &h, &kind))
		return NULL;
	st = cf_filter_insert(self->f, (uint64_t) h, false, kind);
	if (st == CF_OK)
		return PyUnicode_FromString("ok");
	if (st == CF_TOO_MANY_COPIES)
		return PyUnicode_FromString("too_many_copies");
	cfpy_report_status(st);
	return NULL;
}

static PyObject *
Filter_info(FilterObject *self, PyObject *unused)
{
	cf_stats	s;
	uint32_t	bound;
	const char *kind;

	(void) unused;
	CFPY_CHECK_OPEN(self);
	cf_get_stats(self->f, &s);
	bound = cf_list_bound(self->f);
	kind = cf_kind_name(s.kind);
	return Py_BuildValue("{s:K,s:K,s:K,s:I,s:I,s:d,s:d,s:K,s:I,s:d,s:I,s:I,s:O,s:I,s:I,s:K,s:K,s:I,s:s,s:s,s:N}",
						 "capacity", (unsigned long long) s.capacity,
						 "items", (unsigned long long) s.items,
						 "buckets", (unsigned long long) s.buckets,
						 "bucket_size", s.bucket_size,
						 "fingerprint_bits", s.fingerprint_bits,
						 "load_factor", s.load_factor,
						 "fpr", s.fpr,
						 "bytes", (unsigned long long) (s.bytes + 4),	/* with the varlena header, as cf_info */
						 "subfilters", s.subfilters,
						 "target_fpr", s.target_fpr,
						 "expansion", s.expansion,
						 "max_kicks", s.max_kicks,
						 "growing", s.expansion > 0 ? Py_True : Py_False,
						 "format_version", s.version,
						 "value_hashing", s.hashing,
						 "deletes", (unsigned long long) s.deletes,
						 "retained", (unsigned long long) s.retained,
						 "families", s.families,
						 "value_kind", kind,
						 "layout", bound > 0 ? "list" : "table",
						 "list_max", bound > 0 ? PyLong_FromUnsignedLong(bound) : Py_NewRef(Py_None));
}

static PyObject *
Filter_get_kind(FilterObject *self, void *closure)
{
	const char *k;

	(void) closure;
	CFPY_CHECK_OPEN(self);
	k = cf_kind_name(cf_filter_kind(self->f));
	if (k == NULL)
		Py_RETURN_NONE;
	return PyUnicode_FromString(k);
}

static PyObject *
Filter_get_hashing(FilterObject *self, void *closure)
{
	(void) closure;
	CFPY_CHECK_OPEN(self);
	return PyLong_FromUnsignedLong(cf_filter_hashing(self->f));
}

/* a | b: cf_union, with the server's kind rules */
static PyObject *
Filter_or(PyObject *a, PyObject *b)
{
	FilterObject *fa,
			   *fb;
	uint32_t	ka,
				kb;
	char		err[CF_ERRLEN];
	cf_filter  *r;
	cf_filter  *narrowed = NULL;
	const cf_filter *x,
			   *y;

	if (!PyObject_TypeCheck(a, &FilterType) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	fa = (FilterObject *) a;
	fb = (FilterObject *) b;
	CFPY_CHECK_OPEN(fa);
	CFPY_CHECK_OPEN(fb);
	x = fa->f;
	y = fb->f;
	ka = cf_filter_kind(x);
	kb = cf_filter_kind(y);
	if (ka != kb && ka != CF_KIND_NONE && kb != CF_KIND_NONE && ka != CF_KIND_ANY && kb != CF_KIND_ANY)
	{
		if (!cf_kind_accepts(ka, kb) && !cf_kind_accepts(kb, ka))
		{
			PyErr_Format(PyExc_TypeError,
						 "cannot combine these cuckoo filters: they hold values of different kinds (%s and %s)",
						 cfpy_kind_str(ka), cfpy_kind_str(kb));
			return NULL;
		}
		/* 1.1's datetime and one of 1.2's timestamp kinds: the union is datetime */
		narrowed = cf_filter_copy(ka == CF_KIND_DATETIME ? y : x);
		if (narrowed == NULL)
			return PyErr_NoMemory();
		cf_filter_set_kind(narrowed, CF_KIND_DATETIME);
		if (ka == CF_KIND_DATETIME)
			y = narrowed;
		else
			x = narrowed;
	}
	r = cf_filter_union(x, y, err, sizeof(err));
	cf_filter_free(narrowed);
	if (r == NULL)
	{
		PyErr_Format(PyExc_ValueError, "cannot combine these cuckoo filters: %s", err);
		return NULL;
	}
	return (PyObject *) cfpy_wrap(r);
}

static PyObject *
Filter_richcompare(PyObject *a, PyObject *b, int op)
{
	size_t		la,
				lb;
	const uint8_t *ba,
			   *bb;
	bool		eq;

	if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(a, &FilterType) ||
		!PyObject_TypeCheck(b, &FilterType) || ((FilterObject *) a)->f == NULL ||
		((FilterObject *) b)->f == NULL)
		Py_RETURN_NOTIMPLEMENTED;
	ba = cf_filter_bytes(((FilterObject *) a)->f, &la);
	bb = cf_filter_bytes(((FilterObject *) b)->f, &lb);
	eq = la == lb && memcmp(ba, bb, la) == 0;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *
Filter_repr(FilterObject *self)
{
	cf_stats	s;
	const char *k;

	if (self->f == NULL)
		return PyUnicode_FromString("<cuckoo.Filter (not initialised)>");
	cf_get_stats(self->f, &s);
	k = cf_kind_name(s.kind);
	return PyUnicode_FromFormat("<cuckoo.Filter of %s values: %llu items, %llu bytes>",
								k ? k : (s.kind == CF_KIND_NONE ? "unrecorded" : "unknown"), (unsigned long long) s.items,
								(unsigned long long) s.bytes);
}

/* the distinct sorted hashes of values (None skipped), their common kind */
static int
cfpy_u64_cmp(const void *x, const void *y)
{
	uint64_t	a = *(const uint64_t *) x,
				b = *(const uint64_t *) y;

	return a < b ? -1 : a > b;
}

static PyObject *
Filter_from_values(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"values", "fpr", "capacity", "encoding", NULL};
	PyObject   *values,
			   *encoding = NULL,
			   *it,
			   *item,
			   *first = NULL;
	double		fpr = CF_DEFAULT_FPR;
	long long	capacity = 0;
	int			enc;
	uint64_t   *h = NULL;
	size_t		n = 0,
				cap = 0;
	uint32_t	kind = CF_KIND_NONE;
	char		err[CF_ERRLEN];
	cf_filter  *f;

	(void) cls;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|dLO", kwlist, &values, &fpr, &capacity, &encoding))
		return NULL;
	if (cfpy_encoding(encoding, &enc) < 0)
		return NULL;
	if (capacity < 0)
	{
		PyErr_Format(PyExc_ValueError, "capacity must be at least 1, not %lld", capacity);
		return NULL;
	}
	if (cfpy_check_values(values, "Filter.from_values") < 0)
		return NULL;
	it = PyObject_GetIter(values);
	if (it == NULL)
		return NULL;
	while ((item = PyIter_Next(it)) != NULL)
	{
		cfpy_value	v;

		if (cfpy_hash_value(item, CF_HASHING_V2, &v) < 0)
			goto fail_item;
		if (v.skip)
		{
			Py_DECREF(item);
			continue;
		}
		if (kind == CF_KIND_NONE)
		{
			kind = v.kind;
			first = Py_NewRef(item);
		}
		else if (v.kind != kind)
		{
			/* one SQL column has one type: a filter holds one kind */
			PyErr_Format(PyExc_TypeError,
						 "cf_agg values are of one kind: %s (a Python %s), then %s (a Python %s)",
						 cfpy_kind_str(kind), cfpy_type_name(first), cfpy_kind_str(v.kind),
						 cfpy_type_name(item));
			goto fail_item;
		}
		if (n == cap)
		{
			uint64_t   *nh;

			cap = cap ? cap * 2 : 1024;
			nh = PyMem_Realloc(h, cap * sizeof(uint64_t));
			if (nh == NULL)
			{
				PyErr_NoMemory();
				goto fail_item;
			}
			h = nh;
		}
		h[n++] = v.h;
		Py_DECREF(item);
	}
	Py_DECREF(it);
	Py_XDECREF(first);
	if (PyErr_Occurred())
	{
		PyMem_Free(h);
		return NULL;
	}
	if (n == 0)
	{
		PyMem_Free(h);
		Py_RETURN_NONE;			/* cf_agg over no value is NULL */
	}
	qsort(h, n, sizeof(uint64_t), cfpy_u64_cmp);
	{
		size_t		m = 1;

		for (size_t i = 1; i < n; i++)
			if (h[i] != h[m - 1])
				h[m++] = h[i];
		n = m;
	}
	Py_BEGIN_ALLOW_THREADS
	f = cf_filter_build(h, n, (uint64_t) capacity, fpr, enc, kind, err, sizeof(err));
	Py_END_ALLOW_THREADS
	PyMem_Free(h);
	if (f == NULL)
	{
		PyErr_Format(PyExc_ValueError, "cannot build a filter of %zu distinct values: %s", n, err);
		return NULL;
	}
	return (PyObject *) cfpy_wrap(f);
fail_item:
	Py_DECREF(item);
	Py_DECREF(it);
	Py_XDECREF(first);
	PyMem_Free(h);
	return NULL;
}

static PyMethodDef Filter_methods[] = {
	{"from_bytes", (PyCFunction) Filter_from_bytes, METH_O | METH_CLASS,
	"from_bytes($type, b, /)\n--\n\nthe filter whose bytes are b (f::bytea, a binary COPY, psycopg2's memoryview), fully validated; ValueError if b is not a filter"},
	{"from_text", (PyCFunction) Filter_from_text, METH_O | METH_CLASS,
	"from_text($type, s, /)\n--\n\nthe filter of its text form (base64, what f::text and COPY text give)"},
	{"from_values", (PyCFunction) (void (*)(void)) Filter_from_values, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	"from_values($type, values, fpr=0.01, capacity=None, encoding='packed')\n--\n\nwhat cf_agg(value, fpr [, capacity]) builds over the same values (None skipped), byte for byte; None if there is none"},
	{"verify", (PyCFunction) Filter_verify, METH_NOARGS,
	"verify($self, /)\n--\n\nthe full check of the filter's bytes (the core's cf_verify, as SQL's cf_verify): a dict of ok, version, subfilters, items and problems (a list of messages)"},
	{"verify_bytes", (PyCFunction) Filter_verify_bytes, METH_O | METH_CLASS,
	"verify_bytes($type, b, /)\n--\n\ncf_verify of bytes that may be a filter (never raises on bad bytes): the dict of verify()"},
	{"to_bytes", (PyCFunction) Filter_to_bytes, METH_NOARGS, "to_bytes($self, /)\n--\n\nthe filter's bytes, what PostgreSQL stores"},
	{"__bytes__", (PyCFunction) Filter_to_bytes, METH_NOARGS, "__bytes__($self, /)\n--\n\nthe filter's bytes"},
	{"to_text", (PyCFunction) Filter_to_text, METH_NOARGS, "to_text($self, /)\n--\n\nthe filter's text form (base64), what cuckoofilter's input takes"},
	{"copy", (PyCFunction) Filter_copy, METH_NOARGS, "copy($self, /)\n--\n\na copy"},
	{"__copy__", (PyCFunction) Filter_copy, METH_NOARGS, "__copy__($self, /)\n--\n\na copy"},
	{"__reduce__", (PyCFunction) Filter_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\npickles as its bytes"},
	{"add", (PyCFunction) Filter_add, METH_O, "add($self, value, /)\n--\n\ncf_add: one more copy of the value (None: nothing)"},
	{"add_unique", (PyCFunction) Filter_add_unique, METH_O, "add_unique($self, value, /)\n--\n\ncf_add_unique: adds the value unless reported present; True if added"},
	{"delete", (PyCFunction) Filter_delete, METH_O, "delete($self, value, /)\n--\n\ncf_delete: one copy of a value that was added; True if one was found"},
	{"contains", (PyCFunction) Filter_contains, METH_O, "contains($self, value, /)\n--\n\ncf_contains: False if the value was certainly not added (None: None)"},
	{"count", (PyCFunction) Filter_count, METH_O, "count($self, value, /)\n--\n\ncf_count: copies of the value's fingerprints"},
	{"add_many", (PyCFunction) Filter_add_many, METH_O, "add_many($self, values, /)\n--\n\nadd of every item; returns how many were added"},
	{"add_unique_many", (PyCFunction) Filter_add_unique_many, METH_O, "add_unique_many($self, values, /)\n--\n\nadd_unique of every item; returns how many were added"},
	{"delete_many", (PyCFunction) Filter_delete_many, METH_O, "delete_many($self, values, /)\n--\n\ndelete of every item; returns how many were found"},
	{"contains_many", (PyCFunction) Filter_contains_many, METH_O, "contains_many($self, values, /)\n--\n\ncontains of every item, as a list"},
	{"count_many", (PyCFunction) Filter_count_many, METH_O, "count_many($self, values, /)\n--\n\ncount of every item, as a list"},
	{"info", (PyCFunction) Filter_info, METH_NOARGS, "info($self, /)\n--\n\ncf_info_all's columns, as a dict"},
	{"_count_hash", (PyCFunction) Filter_count_hash, METH_O, "_count_hash($self, h, /)\n--\n\ncf_count of a raw 64-bit hash"},
	{"_add_hash", (PyCFunction) Filter_add_hash, METH_VARARGS, "_add_hash($self, h, kind, /)\n--\n\nadds a raw 64-bit hash, recording kind; 'ok' or 'too_many_copies'"},
	{NULL, NULL, 0, NULL}
};

static PyGetSetDef Filter_getset[] = {
	{"kind", (getter) Filter_get_kind, NULL, "the value kind the filter records ('number', ..., 'any'), or None", NULL},
	{"hashing", (getter) Filter_get_hashing, NULL, "its value hashing: 2, or 1 for a filter of cuckoo 1.0", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyNumberMethods Filter_as_number = {
	.nb_or = Filter_or,
};

static PySequenceMethods Filter_as_sequence = {
	.sq_contains = (objobjproc) Filter_sq_contains,
};

static PyTypeObject FilterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "cuckoo.Filter",
	.tp_basicsize = sizeof(FilterObject),
	.tp_dealloc = (destructor) Filter_dealloc,
	.tp_repr = (reprfunc) Filter_repr,
	.tp_as_number = &Filter_as_number,
	.tp_as_sequence = &Filter_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Filter(capacity, fpr=0.01, bucket_size=4, max_kicks=500, expansion=2, encoding='packed')\n--\n\n"
	"an empty filter, as cf_create makes it",
	.tp_richcompare = Filter_richcompare,
	.tp_methods = Filter_methods,
	.tp_getset = Filter_getset,
	.tp_init = (initproc) Filter_init,
	.tp_new = Filter_new,
};

/* ---------------------------------------------------------------------
 * module functions
 * ------------------------------------------------------------------- */

/* hash(value, hashing=2): the server's cf_hash(value), a signed 64-bit int */
static PyObject *
cfpy_hash(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"value", "hashing", NULL};
	PyObject   *value;
	int			hashing = CF_HASHING_V2;
	cfpy_value	v;

	(void) mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|i", kwlist, &value, &hashing))
		return NULL;
	if (cfpy_hash_value(value, hashing, &v) < 0)
		return NULL;
	if (v.skip)
		Py_RETURN_NONE;
	return PyLong_FromLongLong((long long) (int64_t) v.h);
}

/* kind_of(value): the value kind of a Python value ('number', 'text', ...), None for None */
static PyObject *
cfpy_kind_of(PyObject *mod, PyObject *value)
{
	cfpy_value	v;

	(void) mod;
	if (cfpy_hash_value(value, CF_HASHING_V2, &v) < 0)
		return NULL;
	if (v.skip)
		Py_RETURN_NONE;
	return PyUnicode_FromString(cfpy_kind_str(v.kind));
}

/* the filter a seen call reads: a Filter, bytes-like (opened), or None */
static FilterObject *
cfpy_seen_base(PyObject *base, PyObject **owned)
{
	*owned = NULL;
	if (base == Py_None)
		return NULL;
	if (PyObject_TypeCheck(base, &FilterType))
		return (FilterObject *) base;
	*owned = Filter_from_bytes(NULL, base);
	return (FilterObject *) *owned;
}

/* delta's hashes (value hashing 2), sorted; NULL with *n = 0 for none; -1 on error */
static int
cfpy_delta_hashes(PyObject *delta, uint64_t **out, Py_ssize_t *n)
{
	PyObject   *seq;
	Py_ssize_t	m,
				k = 0;
	uint64_t   *h;

	*out = NULL;
	*n = 0;
	if (delta == Py_None)
		return 0;
	if (cfpy_check_values(delta, "delta (a list of items or None)") < 0)
		return -1;
	seq = PySequence_Fast(delta, "delta is a sequence of items (or None)");
	if (seq == NULL)
		return -1;
	m = PySequence_Fast_GET_SIZE(seq);
	h = PyMem_Malloc(sizeof(uint64_t) * (size_t) (m > 0 ? m : 1));
	if (h == NULL)
	{
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < m; i++)
	{
		cfpy_value	v;

		if (cfpy_hash_value(PySequence_Fast_GET_ITEM(seq, i), CF_HASHING_V2, &v) < 0)
		{
			PyMem_Free(h);
			Py_DECREF(seq);
			return -1;
		}
		if (!v.skip)
			h[k++] = v.h;
	}
	Py_DECREF(seq);
	qsort(h, (size_t) k, sizeof(uint64_t), cfpy_u64_cmp);
	*out = h;
	*n = k;
	return 0;
}

/* seen(base, delta, item): cf_seen (None for a None item) */
static PyObject *
cfpy_seen(PyObject *mod, PyObject *args)
{
	PyObject   *base,
			   *delta,
			   *item,
			   *owned;
	FilterObject *f;
	uint64_t   *dh;
	Py_ssize_t	nd;
	cfpy_value	v;
	uint64_t	h;
	int			r;

	(void) mod;
	if (!PyArg_ParseTuple(args, "OOO", &base, &delta, &item))
		return NULL;
	if (item == Py_None)
		Py_RETURN_NONE;
	if (cfpy_hash_value(item, CF_HASHING_V2, &v) < 0)
		return NULL;
	if (cfpy_delta_hashes(delta, &dh, &nd) < 0)
		return NULL;
	r = nd > 0 && bsearch(&v.h, dh, (size_t) nd, sizeof(uint64_t), cfpy_u64_cmp) != NULL;
	PyMem_Free(dh);
	if (r)
		Py_RETURN_TRUE;
	f = cfpy_seen_base(base, &owned);
	if (f == NULL)
	{
		if (PyErr_Occurred())
			return NULL;
		Py_RETURN_FALSE;
	}
	r = cfpy_value_for(f, item, &v);
	if (r > 0)
		r = cfpy_find(f, &v, &h);
	Py_XDECREF(owned);
	if (r < 0)
		return NULL;
	return PyBool_FromLong(r);
}

/* unseen(base, delta, candidates): cf_unseen, a list */
static PyObject *
cfpy_unseen(PyObject *mod, PyObject *args)
{
	PyObject   *base,
			   *delta,
			   *cands,
			   *owned = NULL,
			   *seq = NULL,
			   *out = NULL;
	FilterObject *f;
	uint64_t   *dh = NULL;
	Py_ssize_t	nd,
				m;
	uint64_t	hs[CFPY_BLOCK];
	bool		found[CFPY_BLOCK];
	PyObject   *pend[CFPY_BLOCK];

	(void) mod;
	if (!PyArg_ParseTuple(args, "OOO", &base, &delta, &cands))
		return NULL;
	if (cands == Py_None)
		Py_RETURN_NONE;
	if (cfpy_delta_hashes(delta, &dh, &nd) < 0)
		return NULL;
	f = cfpy_seen_base(base, &owned);
	if (f == NULL && PyErr_Occurred())
		goto done;
	if (cfpy_check_values(cands, "unseen's candidates") < 0)
		goto done;
	seq = PySequence_Fast(cands, "candidates is a sequence of items");
	if (seq == NULL)
		goto done;
	m = PySequence_Fast_GET_SIZE(seq);
	out = PyList_New(0);
	if (out == NULL)
		goto done;
	for (Py_ssize_t i0 = 0; i0 < m; i0 += CFPY_BLOCK)
	{
		int			nb = 0;

		for (Py_ssize_t i = i0; i < m && i < i0 + CFPY_BLOCK; i++)
		{
			PyObject   *item = PySequence_Fast_GET_ITEM(seq, i);
			cfpy_value	v;

			if (item == Py_None)
				continue;
			if (cfpy_hash_value(item, CF_HASHING_V2, &v) < 0)
				goto fail;
			if (nd > 0 && bsearch(&v.h, dh, (size_t) nd, sizeof(uint64_t), cfpy_u64_cmp) != NULL)
				continue;		/* in delta: seen */
			if (f != NULL)
			{
				int			r = cfpy_value_for(f, item, &v);

				if (r < 0)
					goto fail;
				/* the hash base holds for an equal value, if any */
				if (cfpy_may_have_alternates(&v) && cfpy_find(f, &v, &v.h) < 0)
					goto fail;
			}
			hs[nb] = v.h;
			pend[nb++] = item;
		}
		if (f != NULL && nb > 0)
			cf_contains_many(f->f, hs, (size_t) nb, found);
		for (int k = 0; k < nb; k++)
			if ((f == NULL || !found[k]) && PyList_Append(out, pend[k]) < 0)
				goto fail;
	}
	goto done;
fail:
	Py_CLEAR(out);
done:
	PyMem_Free(dh);
	Py_XDECREF(seq);
	Py_XDECREF(owned);
	return out;
}

static PyMethodDef module_methods[] = {
	{"hash", (PyCFunction) (void (*)(void)) cfpy_hash, METH_VARARGS | METH_KEYWORDS,
	"hash($module, value, hashing=2)\n--\n\nthe server's cf_hash(value) (a signed 64-bit int; None for None)"},
	{"kind_of", (PyCFunction) cfpy_kind_of, METH_O, "kind_of($module, value, /)\n--\n\nthe value kind a filter records for it"},
	{"seen", (PyCFunction) cfpy_seen, METH_VARARGS,
	"seen($module, base, delta, item, /)\n--\n\ncf_seen: whether item is in delta or reported by base (None for a None item)"},
	{"unseen", (PyCFunction) cfpy_unseen, METH_VARARGS,
	"unseen($module, base, delta, candidates, /)\n--\n\ncf_unseen: the candidates not reported seen, in order"},
	{NULL, NULL, 0, NULL}
};

static struct PyModuleDef cuckoo_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "cuckoo._cuckoo",
	.m_doc = "cuckoo filters in the bytes the cuckoo PostgreSQL extension stores",
	.m_size = -1,
	.m_methods = module_methods,
};

static PyObject *
cfpy_import_attr(const char *mod, const char *attr)
{
	PyObject   *m = PyImport_ImportModule(mod);
	PyObject   *a;

	if (m == NULL)
		return NULL;
	a = PyObject_GetAttrString(m, attr);
	Py_DECREF(m);
	return a;
}

PyMODINIT_FUNC
PyInit__cuckoo(void)
{
	PyObject   *m;

	PyDateTime_IMPORT;
	if (PyDateTimeAPI == NULL)
		return NULL;
	UuidType = cfpy_import_attr("uuid", "UUID");
	DecimalType = cfpy_import_attr("decimal", "Decimal");
	if (UuidType == NULL || DecimalType == NULL)
		return NULL;
	if (PyType_Ready(&FilterType) < 0)
		return NULL;
	m = PyModule_Create(&cuckoo_module);
	if (m == NULL)
		return NULL;
	CfError = PyErr_NewException("cuckoo.Error", PyExc_Exception, NULL);
	Py_INCREF(&FilterType);
	if (PyModule_AddObject(m, "Filter", (PyObject *) &FilterType) < 0 ||
		PyModule_AddObject(m, "Error", CfError) < 0)
		return NULL;
	Py_INCREF(CfError);
	return m;
}
