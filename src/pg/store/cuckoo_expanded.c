/*
 * cuckoo_expanded.c - cuckoofilter as a PostgreSQL expanded object, so that
 * f := cf_add(f, x) in a PL/pgSQL loop costs the add, not a copy of f.
 *
 * PostgreSQL 15's PL/pgSQL hands a variable to a function as a read-only
 * expanded pointer (only array_append/array_prepend get read-write ones), so
 * an add cannot simply modify its argument.  Instead, the objects made from
 * one filter share a "store": one buffer holding the newest state.  An add
 * on the newest object writes into the buffer in place, journaling the bytes
 * it overwrites (the core's cf_journal), and returns a new object for the
 * new state; the old object keeps the journal ("undo"), which turns the
 * newer state back into its own.  The objects of a store form a chain, oldest
 * to newest:
 *
 *     X0 --undo--> X1 --undo--> ... --> Xn (current: its state is the buffer)
 *
 * Reading an old object (flattening it) copies the buffer and applies the
 * undo journals from Xn back down to it.  When an object is freed (its memory
 * context is deleted, e.g. PL/pgSQL overwrote the variable), it leaves the
 * chain: an old one merges its journal into its predecessor's, the current
 * one rolls the buffer back to its predecessor's state.  In a loop the chain
 * is at most two objects long and every add costs O(its kick-out chain).
 * Adds that grow the filter start a new store (growth copies anyway).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "cuckoo_expanded.h"

typedef struct CfUndo
{
	uint32		off;			/* byte offset in the buffer */
	uint8		len;			/* 1..8 */
	uint8		bytes[8];		/* what was there before */
} CfUndo;

typedef struct CfExpanded CfExpanded;

typedef struct CfStore
{
	MemoryContext cxt;			/* holds the store, its buffer and journals */
	uint8	   *buf;
	size_t		len;
	int			refcount;		/* living objects in the chain */
	CfExpanded *current;		/* newest object: its state is buf */
} CfStore;

struct CfExpanded
{
	ExpandedObjectHeader hdr;
	CfStore    *store;
	CfExpanded *older;			/* previous object of the chain, or NULL */
	CfExpanded *newer;			/* next object, NULL for the current one */
	CfUndo	   *undo;			/* turns newer's state into ours (in store) */
	int			nundo;
	MemoryContextCallback release;
};

/* journal being recorded by one operation */
typedef struct CfRecorder
{
	cf_journal	j;				/* must be first */
	CfStore    *store;
	CfUndo	   *undo;
	int			nundo;
	int			maxundo;
	cf_status	status;			/* what the operation returned */
	CfExpanded *result;			/* the new object, once made */
} CfRecorder;

/*
 * What this backend's expanded objects have done, for cuckoo_debug_state: a
 * test can see an add's in-place path kept or lost without timing it.
 */
static struct
{
	uint64		in_place;		/* adds and deletes written into a store's buffer */
	uint64		copies;			/* whole filters copied into a new store */
	uint64		flattens;		/* objects written out as flat values */
} cfpg_expanded_counters;

static Size cfpg_expanded_get_flat_size(ExpandedObjectHeader *eohptr);
static void cfpg_expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods cfpg_expanded_methods = {
	cfpg_expanded_get_flat_size,
	cfpg_expanded_flatten_into
};

/* ---------------------------------------------------------------------
 * journals
 * ------------------------------------------------------------------- */

/*
 * Saves the n bytes at p before the core overwrites them, as entries of at
 * most 8 bytes each: the core saves a slot, a stash record (12 bytes) or a
 * list's shifted tail (any length) in one call.
 */
static void
cfpg_expanded_record(cf_journal *j, const uint8_t *p, size_t n)
{
	CfRecorder *r = (CfRecorder *) j;

	while (n > 0)
	{
		CfUndo	   *u;
		size_t		k = Min(n, sizeof(u->bytes));

		if (r->nundo == r->maxundo)
		{
			r->maxundo = r->maxundo ? r->maxundo * 2 : 16;
			r->undo = r->undo ?
				repalloc(r->undo, sizeof(CfUndo) * r->maxundo) :
				MemoryContextAlloc(r->store->cxt, sizeof(CfUndo) * r->maxundo);
		}
		u = &r->undo[r->nundo++];
		u->off = (uint32) (p - r->store->buf);
		u->len = (uint8) k;
		memcpy(u->bytes, p, k);
		p += k;
		n -= k;
	}
}

/* writes an undo journal back onto buf, newest entry first */
static void
cfpg_expanded_apply_undo(uint8 *buf, const CfUndo *undo, int n)
{
	while (n-- > 0)
		memcpy(buf + undo[n].off, undo[n].bytes, undo[n].len);
}

/* ---------------------------------------------------------------------
 * objects and stores
 * ------------------------------------------------------------------- */

/*
 * Called when an object's memory context goes away: takes the object out of
 * its chain and frees the store with the last one.  Runs during error
 * cleanup too, so it only touches the store's own memory.
 */
static void
cfpg_expanded_release(void *arg)
{
	CfExpanded *x = (CfExpanded *) arg;
	CfStore    *s = x->store;
	CfExpanded *o = x->older;

	if (x->newer == NULL)
	{
		/* the current object: roll the buffer back to its predecessor */
		if (o)
		{
			cfpg_expanded_apply_undo(s->buf, o->undo, o->nundo);
			if (o->undo)
				pfree(o->undo);
			o->undo = NULL;
			o->nundo = 0;
			o->newer = NULL;
		}
		s->current = o;
	}
	else
	{
		/* an old object: its predecessor now undoes x's journal, then its own */
		x->newer->older = o;
		if (o)
		{
			int			n = o->nundo + x->nundo;
			CfUndo	   *u = MemoryContextAlloc(s->cxt, sizeof(CfUndo) * Max(n, 1));

			if (o->nundo > 0)
				memcpy(u, o->undo, sizeof(CfUndo) * o->nundo);
			if (x->nundo > 0)
				memcpy(u + o->nundo, x->undo, sizeof(CfUndo) * x->nundo);
			if (o->undo)
				pfree(o->undo);
			o->undo = u;
			o->nundo = n;
			o->newer = x->newer;
		}
		if (x->undo)
			pfree(x->undo);
	}
	if (--s->refcount == 0)
		MemoryContextDelete(s->cxt);
}

/* a new object in its own context under CurrentMemoryContext, current in s */
static CfExpanded *
cfpg_expanded_new_object(CfStore *s)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "cuckoofilter expanded object",
											  ALLOCSET_SMALL_SIZES);
	CfExpanded *x = MemoryContextAllocZero(cxt, sizeof(CfExpanded));

	EOH_init_header(&x->hdr, &cfpg_expanded_methods, cxt);
	x->store = s;
	x->older = s->current;
	if (s->current)
		s->current->newer = x;
	s->current = x;
	s->refcount++;
	x->release.func = cfpg_expanded_release;
	x->release.arg = x;
	MemoryContextRegisterResetCallback(cxt, &x->release);
	/* from its first object on, a store lives as long as its objects do */
	if (s->refcount == 1)
		MemoryContextSetParent(s->cxt, TopMemoryContext);
	return x;
}

/*
 * A new store of len bytes (contents left to the caller).  Until its first
 * object exists it belongs to CurrentMemoryContext, so an error in between
 * frees it.
 */
static CfStore *
cfpg_expanded_new_store(size_t len)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "cuckoofilter store",
											  ALLOCSET_DEFAULT_SIZES);
	CfStore    *s = MemoryContextAllocZero(cxt, sizeof(CfStore));

	s->cxt = cxt;
	s->len = len;
	s->buf = MemoryContextAllocHuge(cxt, Max(len, 1));
	return s;
}

/* copies the state of x (current or not) into dst, len bytes */
static void
cfpg_expanded_copy_state(const CfExpanded *x, uint8 *dst)
{
	const CfStore *s = x->store;

	memcpy(dst, s->buf, s->len);
	/* from the current state back to x's: each older object's journal */
	for (const CfExpanded *o = s->current; o != x;)
	{
		o = o->older;
		cfpg_expanded_apply_undo(dst, o->undo, o->nundo);
	}
}

static Size
cfpg_expanded_get_flat_size(ExpandedObjectHeader *eohptr)
{
	CfExpanded *x = (CfExpanded *) eohptr;

	return VARHDRSZ + x->store->len;
}

static void
cfpg_expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	CfExpanded *x = (CfExpanded *) eohptr;
	struct varlena *v = (struct varlena *) result;

	Assert(allocated_size == VARHDRSZ + x->store->len);
	cfpg_expanded_counters.flattens++;
	SET_VARSIZE(v, allocated_size);
	cfpg_expanded_copy_state(x, CF_VARDATA(v));
}

/* our expanded object behind d, or NULL if d is anything else */
static CfExpanded *
cfpg_expanded_from_datum(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == &cfpg_expanded_methods ? (CfExpanded *) eoh : NULL;
}

/* opens the buffer of store s, which holds the newest state of its objects */
static void
cfpg_expanded_open_store(const CfStore *s, cf_filter *f)
{
	if (!cf_open(f, s->buf, s->len, NULL, 0))
		elog(ERROR, "cuckoo filter expanded object is corrupted");
}

bool
cfpg_expanded_open_current(Datum d, cf_filter *f)
{
	CfExpanded *x = cfpg_expanded_from_datum(d);

	if (x == NULL || x->newer != NULL)
		return false;
	cfpg_expanded_open_store(x->store, f);
	return true;
}

/* ---------------------------------------------------------------------
 * modification
 * ------------------------------------------------------------------- */

/* a new current object in a new store holding a copy of len bytes at src */
static CfExpanded *
cfpg_expanded_copy_bytes(const uint8 *src, size_t len)
{
	CfStore    *s = cfpg_expanded_new_store(len);

	cfpg_expanded_counters.copies++;
	memcpy(s->buf, src, len);
	return cfpg_expanded_new_object(s);
}

/* allocator for growth: a fresh store's buffer */
static void *
cfpg_expanded_alloc_store(size_t size, void *ctx)
{
	CfStore   **out = (CfStore **) ctx;

	*out = cfpg_expanded_new_store(size);
	return (*out)->buf;
}

/* an add records value kind kind in a (version-2) filter that has none yet */
static inline void
cfpg_expanded_note_kind(cf_filter *f, CfxOp op, int kind)
{
	if (op != CFX_DELETE && f->kind == CF_KIND_NONE && f->hashing >= CF_HASHING_V2)
		cf_set_kind(f, (uint32) kind);
}

/* would cf_insert of one more item grow f, rather than fail? */
static bool
cfpg_expanded_can_grow(cf_filter *f)
{
	char		err[CF_ERRLEN];

	return f->expansion > 0 && cf_grow_size(f, err, sizeof(err)) != 0;
}

/*
 * The add into the newest state of x that did not fit its buffer: the
 * filter f (still x's state) grows into a new store of its own.  The add
 * runs on a private copy: it may still fit without a new buffer (a free
 * stash record of a split table), and x's buffer must not change
 * unjournaled.
 */
static Datum
cfpg_expanded_grow(cf_filter *f, cf_status st, uint64 h, CfxOp op, int kind)
{
	CfStore    *ns = NULL;
	CfExpanded *y;
	cf_filter	g;

	if (f->expansion == 0)
		cfpg_report_insert_failure(f, st);
	y = cfpg_expanded_copy_bytes(f->buf, f->len);
	cfpg_expanded_open_store(y->store, &g);
	st = cf_insert(&g, h, cfpg_expanded_alloc_store, &ns);
	if (st != CF_OK && op == CFX_TRY_ADD)
		return EOHPGetRWDatum(&y->hdr);	/* the copy, unchanged */
	if (st != CF_OK)
		cfpg_report_insert_failure(&g, st);	/* ns, if any, goes with the context */
	cfpg_expanded_note_kind(&g, op, kind);
	if (ns != NULL)
		y = cfpg_expanded_new_object(ns);
	return EOHPGetRWDatum(&y->hdr);
}

/*
 * op on x, the newest state of its store, opened as f: the shared buffer
 * changes in place, journaled, and a new object holds the new state; x
 * keeps the journal that turns it back into its own.
 */
static Datum
cfpg_expanded_modify_opened(CfExpanded *x, cf_filter *f, uint64 h, CfxOp op, int kind)
{
	CfStore    *s = x->store;
	CfRecorder *rec = palloc0(sizeof(CfRecorder));
	CfExpanded *y;
	cf_status	st;

	rec->j.save = cfpg_expanded_record;
	rec->store = s;

	/*
	 * If anything fails half way (the journal or the new object cannot be
	 * allocated), the journal restores the buffer: x's state must never
	 * change.  rec is on the heap, so its fields survive the longjmp.
	 */
	PG_TRY();
	{
		cf_set_journal(f, &rec->j);
		if (op == CFX_DELETE)
			rec->status = cf_delete(f, h);
		else if (op == CFX_ADD_UNIQUE && cf_contains(f, h))
			rec->status = CF_OK;	/* already there: nothing to change */
		else
			rec->status = cf_add(f, h);
		if (rec->status == CF_OK)
			cfpg_expanded_note_kind(f, op, kind);
		cf_set_journal(f, NULL);
		if (rec->status == CF_OK || rec->status == CF_NOT_FOUND ||
			rec->status == CF_RETAINED)
			rec->result = cfpg_expanded_new_object(s);
	}
	PG_CATCH();
	{
		cfpg_expanded_apply_undo(s->buf, rec->undo, rec->nundo);
		PG_RE_THROW();
	}
	PG_END_TRY();
	st = rec->status;
	if (rec->result)
	{
		/* x keeps the journal; the buffer is now the new object's state */
		x->undo = rec->undo;
		x->nundo = rec->nundo;
		y = rec->result;
		cfpg_expanded_counters.in_place++;
		pfree(rec);
		return EOHPGetRWDatum(&y->hdr);
	}
	/* full: the buffer is unchanged (the core undid its kick-outs) */
	if (rec->undo)
		pfree(rec->undo);
	pfree(rec);
	if (op == CFX_TRY_ADD &&
		(st == CF_TOO_MANY_COPIES || f->expansion == 0 || !cfpg_expanded_can_grow(f)))
	{
		/* no room and no error: a new object of the same state, no journal */
		y = cfpg_expanded_new_object(s);
		return EOHPGetRWDatum(&y->hdr);
	}
	return cfpg_expanded_grow(f, st, h, op, kind);
}

/* the same, f being x opened by the caller (opened) or here */
static Datum
cfpg_expanded_modify_current(CfExpanded *x, cf_filter *opened, uint64 h, CfxOp op, int kind)
{
	cf_filter	local;

	if (opened != NULL && opened->buf == x->store->buf && opened->len == x->store->len)
		return cfpg_expanded_modify_opened(x, opened, h, op, kind);
	cfpg_expanded_open_store(x->store, &local);
	return cfpg_expanded_modify_opened(x, &local, h, op, kind);
}

/*
 * A new current object for the flat filter d (or for a new filter of
 * parameters defaults when isnull): a private copy, a version-1 filter
 * rewritten as version 2 (FORMAT.md).
 */
static CfExpanded *
cfpg_expanded_start_copy(Datum d, bool isnull, const cf_params *defaults)
{
	struct varlena *v;
	cf_filter	f;
	CfExpanded *y;

	if (isnull)
	{
		v = cfpg_create(defaults);
		y = cfpg_expanded_copy_bytes(CF_VARDATA(v), CF_VARSIZE(v));
		pfree(v);
		return y;
	}
	v = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
	cfpg_open(&f, v);			/* checks the header before trusting it */
	if (f.version < 2)
	{
		CfStore    *s = cfpg_expanded_new_store(cf_upgrade_size(&f));

		cf_upgrade(&f, s->buf, &f);
		return cfpg_expanded_new_object(s);
	}
	return cfpg_expanded_copy_bytes((uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
}

/*
 * Applies one add (or delete) of hash h to the filter d and returns a
 * read-write expanded datum of the result.  isnull: d is NULL and a filter
 * with parameters defaults is started.
 */
Datum
cfpg_expanded_modify(Datum d, bool isnull, const cf_params *defaults, cf_filter *opened,
					 uint64 h, CfxOp op, int kind)
{
	CfExpanded *x = isnull ? NULL : cfpg_expanded_from_datum(d);
	CfExpanded *y;
	cf_filter	f;
	cf_status	st;
	CfStore    *ns = NULL;

	if (x != NULL)
	{
		/* the callers flatten an older state first (cfpg_open_datum) */
		if (x->newer != NULL)
			elog(ERROR, "cuckoo filter expanded object: an older state was not flattened");
		return cfpg_expanded_modify_current(x, opened, h, op, kind);
	}

	/* a flat value or NULL: start a private copy */
	y = cfpg_expanded_start_copy(d, isnull, defaults);
	cfpg_expanded_open_store(y->store, &f);
	if (op == CFX_DELETE)
	{
		(void) cf_delete(&f, h);
		return EOHPGetRWDatum(&y->hdr);
	}
	st = op == CFX_ADD_UNIQUE ? cf_insert_unique(&f, h, cfpg_expanded_alloc_store, &ns) :
		cf_insert(&f, h, cfpg_expanded_alloc_store, &ns);
	if (st != CF_OK && op == CFX_TRY_ADD)
		return EOHPGetRWDatum(&y->hdr);	/* no room: the copy, unchanged */
	if (st != CF_OK)
		cfpg_report_insert_failure(&f, st);
	cfpg_expanded_note_kind(&f, op, kind);
	if (ns != NULL)
	{
		/* it grew into a new store: the first copy is no longer needed */
		DeleteExpandedObject(EOHPGetRWDatum(&y->hdr));
		y = cfpg_expanded_new_object(ns);
	}
	return EOHPGetRWDatum(&y->hdr);
}

/* ---------------------------------------------------------------------
 * cuckoo_debug_state (cf_debug_state before 1.3): a testing aid
 * ------------------------------------------------------------------- */

/*
 * cuckoo_debug_state(filter): how the value reached the function (flat, or an
 * expanded object by a read-write or read-only pointer, and whether that
 * object is the newest state of its store), and this backend's counters of
 * in-place changes, whole copies and flattenings.  Internal: the regression
 * tests use it to check that PL/pgSQL loops keep the in-place path.
 */
PG_FUNCTION_INFO_V1(cuckoo_debug_state);
Datum
cuckoo_debug_state(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	CfExpanded *x = cfpg_expanded_from_datum(d);
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {0};
	const char *form;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (x == NULL)
		form = VARATT_IS_EXTERNAL(DatumGetPointer(d)) ? "toasted" :
			VARATT_IS_COMPRESSED(DatumGetPointer(d)) ? "compressed" : "flat";
	else
		form = VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) ?
			"expanded read-write" : "expanded read-only";
	values[0] = CStringGetTextDatum(form);
	if (x == NULL)
		nulls[1] = true;
	else
		values[1] = BoolGetDatum(x->newer == NULL);
	values[2] = Int64GetDatum((int64) cfpg_expanded_counters.in_place);
	values[3] = Int64GetDatum((int64) cfpg_expanded_counters.copies);
	values[4] = Int64GetDatum((int64) cfpg_expanded_counters.flattens);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
