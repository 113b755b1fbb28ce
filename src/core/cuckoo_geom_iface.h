/*
 * cuckoo_geom_iface.h - the one interface every geometry provides (FORMAT.md,
 * "Table descriptor": legacy, chain, split, list), in two parts: what every
 * table of a *sub-filter* does (cfi_geometry: read, look up, add, delete,
 * build, create), and what a geometry that grows adds (cfi_growth: the
 * filter's growth, a sub-filter that grows in place, its unions).  Each
 * geometry defines its tables in its own module; the registry
 * (cuckoo_geometries.c) holds them at their descriptor byte.
 *
 * Per sub-filter, not per filter: one filter mixes geometries (a version-1
 * filter that grew has a legacy table and chain tables; a union of two
 * split families keeps two split tables side by side), so the filter-level
 * code in cuckoo_ops.c loops over its sub-filters and calls each one's
 * table.  A geometry whose sub-filter grows in place (split, list) also
 * owns its filter's growth and the unions it can merge into one table; the
 * others grow by appending a chain sub-filter (chain's growth).  The list
 * is such a geometry of a filter's only sub-filter: a growing filter's
 * first representation (like postgresql-hll's EXPLICIT), which converts to
 * a split table at its bound.
 *
 * The table is chosen once, when a filter is opened: cfi_open (the format
 * layer) reads each descriptor, finds its geometry's table in the registry
 * it is given by the descriptor's byte (cfi_geometry_at), asks it to check
 * the descriptor (check, attach; cf_validate: scan) and keeps it in the
 * sub-filter's engine state (cfi_geometry_of: a field read).  The format
 * layer so calls the geometries through this interface without naming
 * them; the registry stands above every module (cf_open passes it down),
 * and a module that rewrites a filter re-opens the result with the
 * registry the filter was opened with (cfi_reopen), so no object refers to
 * one above it.
 */
#ifndef CUCKOO_GEOM_IFACE_H
#define CUCKOO_GEOM_IFACE_H

#include "cuckoo_codec.h"

/* how a geometry's union asks the filter level for a union of other filters */
typedef struct cf_union_again
{
	/* cf_union_size / cf_union of any two filters (for tables a list became) */
	size_t		(*size) (const cf_filter *a, const cf_filter *b, char *err, size_t errlen);
	size_t		(*unite) (const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
						  cf_filter *result, char *err, size_t errlen);
	/* the bytes and the result of a and b side by side (the sub-filters folded where they can) */
	size_t		(*side_size) (const cf_filter *a, const cf_filter *b, char *err, size_t errlen);
	size_t		(*side) (const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
						 cf_filter *result, char *err, size_t errlen);
} cf_union_again;

/*
 * A lookup path: how cf_contains, cf_contains_int64 and cf_contains_many
 * read a filter, chosen once when it is opened (cfi_setup_lookup: the
 * geometry's lookup, when every sub-filter has one geometry; else the
 * general path, which asks each sub-filter's has).  A geometry's module
 * defines its paths beside its other operations.
 */
/* lookups a batch form works on at once: their bucket loads are in flight together */
#define CFI_MANY_BLOCK	16

typedef struct cfi_lookup_path
{
	const char *name;
	uint32_t	id;				/* cf_filter.lookup: the path's number (0: general) */
	bool		table;			/* one level-0 chain table whose base key is its fingerprint
								 * (cf_probe_of inlines those of whole-byte buckets) */
	bool		(*contains) (const cf_filter *f, uint64_t h);
	bool		(*contains_int64) (const cf_filter *f, int64_t v);	/* NULL: hash, then contains */
	size_t		(*many) (const cf_filter *f, const uint64_t *h, size_t n, bool *found);	/* NULL: each */
} cfi_lookup_path;

struct cfi_geometry;

/*
 * What a geometry that grows adds (cfi_geometry.growth): the growth of a
 * filter and, for a sub-filter that grows in place and takes all of its
 * filter's adds (split, list), its inserts and unions.  A filter grows by
 * its in-place sub-filter's geometry, else by the registry's
 * cfi_geom_appended (chain: a new sub-filter appended).
 */
typedef struct cfi_growth
{
	/*
	 * bytes of f grown once (0, err set, if it cannot), and the growth
	 * into out: sub-filter k grown in place, or (appended, k unused) a new
	 * sub-filter appended, as large as the last one when same_size
	 */
	size_t		(*grow_size) (const cf_filter *f, uint32_t k, bool same_size, char *err, size_t errlen);
	void		(*grow) (cf_filter *f, uint32_t k, uint8_t *out, bool same_size);

	/* ---- a sub-filter that grows in place and takes all of its filter's adds (NULL: none) ---- */
	/* cf_insert of h after the add into sub-filter k failed: grows f (alloc) and adds h */
	cf_status	(*insert_grow) (cf_filter *f, uint32_t k, uint64_t h, cf_alloc_fn alloc, void *ctx);
	/* the union of a and b when this geometry takes it (one of them is its filter) */
	bool		(*unites) (const cf_filter *a, const cf_filter *b);
	size_t		(*union_size) (const cf_filter *a, const cf_filter *b, const cf_union_again *again,
							   char *err, size_t errlen);
	size_t		(*unite) (const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
						  cf_filter *result, const cf_union_again *again, char *err, size_t errlen);
	/* the whole filter's statistics, when they are not a sum over sub-filters (NULL: stats) */
	void		(*filter_stats) (const cf_filter *f, cf_stats *s);
} cfi_growth;

/* what every geometry's table does */
typedef struct cfi_geometry
{
	const char *name;			/* as FORMAT.md names it: legacy, chain, split, list */
	uint32_t	geom;			/* the descriptor's geometry byte (its index in the registry) */

	/* ---- reading one sub-filter (the format layer: cfi_open, cfi_validate) ---- */
	/* does its descriptor have a stash count (bytes 13-14, else reserved: zero) */
	bool		stash;
	/*
	 * checks st, the parsed descriptor of sub-filter k of f (header read),
	 * and sets up its derived fields and table_bytes; false, err set, if
	 * it is not valid
	 */
	bool		(*check) (const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen);
	/*
	 * once sub-filter k's table is placed: its bytes past the table (a
	 * split table's stash), checked and set up, and f's fields naming it
	 * (f->split); NULL: none
	 */
	bool		(*attach) (cf_filter *f, uint32_t k, char *err, size_t errlen);
	/* cf_validate's full check of sub-filter k's table: every entry well formed, its item count */
	bool		(*scan) (const cf_filter *f, uint32_t k, char *err, size_t errlen);

	/* ---- one sub-filter st of a filter of bucket size b ---- */
	/* does st hold a match of hash h */
	bool		(*has) (const cf_stage *st, uint32_t b, uint64_t h);
	/* the matches of h in st */
	uint32_t	(*count) (const cf_stage *st, uint32_t b, uint64_t h);
	/* adds h, with a kick-out walk of at most max_kicks steps (0: a free slot only); false, st unchanged, if it does not fit */
	bool		(*add) (cf_stage *st, uint32_t b, uint32_t max_kicks, uint64_t h);
	/* removes one match of h (the finest); false if none */
	bool		(*remove) (cf_stage *st, uint32_t b, uint64_t h);
	/* do two values that collide in s always collide in t (s, t of this geometry, s != t) */
	bool		(*refines) (const cf_stage *s, const cf_stage *t);
	/*
	 * sub-filters of this geometry whose entries nest by a precision
	 * whatever sub-filter of them holds an entry (NULL: none; deletes then
	 * follow refines): is t of s's family, and the precision of h's finest
	 * match in st (higher: finer; a delete removes the finest of the family)
	 */
	bool		(*same_family) (const cf_stage *s, const cf_stage *t);
	int			(*precision) (const cf_stage *st, uint32_t b, uint64_t h);
	/* did an add of h fail because h's place is filled with copies of h alone (NULL: never asked) */
	bool		(*full_of_copies) (const cf_stage *st, uint32_t b, uint64_t h);
	/* moves every entry of src into dst (same geometry and size); NULL: never folded */
	bool		(*fold) (cf_stage *dst, const cf_stage *src, uint32_t b, uint32_t max_kicks);
	/* the items st holds */
	uint64_t	(*items) (const cf_stage *st);
	/*
	 * fills f's only sub-filter, empty, with the n hashes of runs (checked
	 * by cf_build_runs; work: cf_build_work_size bytes); NULL: no build (a
	 * list is no table: the caller builds a table)
	 */
	bool		(*build) (cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work);
	/* adds sub-filter k's items, buckets, slots and capacity to s, its miss chance to *miss */
	void		(*stats) (const cf_filter *f, uint32_t k, cf_stats *s, uint64_t *slots, double *miss);
	/*
	 * the lookup path of f, every sub-filter of this geometry (cf_open,
	 * once per filter; it may set up the sub-filters' engine state for
	 * it); NULL, or a NULL answer: the general path
	 */
	const cfi_lookup_path *(*lookup) (cf_filter *f);

	/* ---- a new filter of this geometry (cf_create; NULL: none is created, as legacy) ---- */
	/*
	 * can p (checked by cfi_check_params) have a filter of this geometry;
	 * if not, cf_create takes the next geometry the request names
	 */
	bool		(*takes) (const cf_params *p);
	/* its bytes (0, err set, if too large) and the empty filter written into buf */
	size_t		(*create_size) (const cf_params *p, char *err, size_t errlen);
	void		(*create) (uint8_t *buf, const cf_params *p);

	/* what a geometry that grows adds (NULL: its filter grows by an appended sub-filter) */
	const cfi_growth *growth;
} cfi_geometry;

/*
 * The registry: each geometry's table at its descriptor byte, NULL where
 * this build knows none (cuckoo_geometries.c: cfi_geometries); the one
 * place a geometry byte meets its table.
 */
#define CFI_GEOM_BYTES	8
typedef struct cfi_registry
{
	const cfi_geometry *at[CFI_GEOM_BYTES];
} cfi_registry;

/* the table of geometry byte g in registry reg; NULL if it has none */
static inline const cfi_geometry *
cfi_geometry_at(const cfi_registry *reg, uint32_t g)
{
	return g < CFI_GEOM_BYTES ? reg->at[g] : NULL;
}

/*
 * the operations of sub-filter st, chosen when its filter was opened (a
 * view built by hand whose geometry differs from the one it was copied
 * from, as a list's view as a split table, list_view_at, sets ENG(st)->ops
 * itself)
 */
static inline const cfi_geometry *
cfi_geometry_of(const cf_stage *st)
{
	return ENG(st)->ops;
}

/* the registry f was opened with (cfi_open keeps it in sub-filter 0's engine state) */
static inline const cfi_registry *
cfi_registry_of(const cf_filter *f)
{
	return ENG(&f->stages[0])->geoms;
}

#endif							/* CUCKOO_GEOM_IFACE_H */
