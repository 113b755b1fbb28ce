/*
 * cuckoo_view.h - the core's own part of its API: the layout of a filter's
 * parsed view (cf_filter: header fields and each sub-filter's descriptor;
 * the lookup engine's state is an opaque engine array), and the calls that
 * fill a caller's view, journal its writes, grow or rewrite its buffer,
 * bulk-build, unite and read lists.  The core and the PostgreSQL glue
 * include it; a library caller does not (cuckoo.h, installed, is the
 * public API: opaque filters and their operations).
 */
#ifndef CUCKOO_VIEW_H
#define CUCKOO_VIEW_H

#include "cuckoo_int.h"

/*
 * A write journal: when set on a filter (cf_set_journal), save() is called
 * with the bytes of the buffer an operation is about to overwrite, before it
 * overwrites them.  Writing the saved bytes back in reverse order restores
 * the filter exactly; the PostgreSQL glue uses this for copy-free adds.
 */
typedef struct cf_journal
{
	void		(*save) (struct cf_journal *j, const uint8_t *p, size_t n);
} cf_journal;

/*
 * one sub-filter: a table of nbuckets buckets of bucket_size slots, as
 * cf_open reads it from its descriptor (FORMAT.md, "Table descriptor")
 */
#define CF_STAGE_ENGINE_WORDS 12
typedef struct cf_stage
{
	uint32_t    nbuckets;
	uint32_t    nitems;
	uint32_t    fpbits;
	uint32_t    geom;           /* CF_GEOM_LEGACY, CF_GEOM_CHAIN, CF_GEOM_SPLIT or
								 * CF_GEOM_LIST (table: nbuckets hashes of 8 bytes) */
	uint32_t    level;          /* chain, split: nbuckets = base_nbuckets << level */
	uint32_t    basebits;       /* chain, split: width f0 of the family's base key */
	uint32_t    base_nbuckets;  /* chain, split: buckets of the family's level 0 */
	uint32_t    fpmax;          /* 2^fpbits - 1: largest fingerprint */
	uint32_t    bucket_bits;    /* bits a bucket takes */
	uint32_t    extbits;        /* split: R = fpbits - 1 - basebits, the longest
								 * extension a slot holds */
	uint32_t    nstash;         /* split: stash records after the table */
	uint32_t    enc;            /* table encoding: CF_ENC_PACKED or CF_ENC_SEMISORT */
	uint8_t    *stash;          /* split: the first of them (NULL if none) */
	uint8_t    *desc;           /* this stage's descriptor in the buffer */
	uint8_t    *table;
	size_t      table_bytes;
	cf_journal *journal;        /* NULL unless cf_set_journal */
	/* the lookup engine's state, set up by cf_open: the core's own */
	uint64_t    engine[CF_STAGE_ENGINE_WORDS];
} cf_stage;

/* a parsed view of a filter's bytes; all pointers point into buf (cf_filter: cuckoo.h) */
struct cf_filter
{
	uint8_t    *buf;
	size_t      len;
	uint32_t    version;        /* format version: 1 (read only) or 2 */
	uint32_t    hdrlen;         /* bytes of header and descriptors */
	uint32_t    bucket_size;
	uint32_t    fpbits;         /* base fingerprint width (stage 0) */
	uint32_t    expansion;
	uint32_t    max_kicks;
	uint32_t    capacity;       /* capacity requested at creation */
	uint32_t    hashing;        /* CF_HASHING_V1 or CF_HASHING_V2 */
	uint32_t    kind;           /* value kind, CF_KIND_NONE .. CF_KIND_ANY */
	double      target_fpr;     /* requested rate (version 1: 2b / 2^fpbits) */
	uint64_t    deletes;        /* deletes done (version 1: 0) */
	uint64_t    retained;       /* deletes left in place (version 1: 0) */
	uint32_t    nstages;
	uint32_t    lookup;         /* the cf_contains path chosen by cf_open */
	int32_t     split;          /* the first split sub-filter (adds go there), or -1 */
	cf_journal *journal;        /* NULL unless cf_set_journal */
	cf_stage    stages[CF_MAX_STAGES];
};

/* allocator used by cf_insert to grow; must not return NULL (or abort) */
typedef void *(*cf_alloc_fn) (size_t size, void *ctx);

/*
 * Parses and checks the header and lengths of buf (O(sub-filters), no table
 * scan) and fills f.  Returns false with err set if buf is not a filter.
 * Reads format versions 1 and 2.
 */
bool		cf_open(cf_filter *f, uint8_t *buf, size_t len, char *err, size_t errlen);

/* Journals every later write to f's buffer through j (NULL: stop). */
void		cf_set_journal(cf_filter *f, cf_journal *j);

/*
 * Adds one copy, growing through alloc when the filter is full and
 * expansion > 0.  After growth f views the new buffer; the old one is the
 * caller's to free.  CF_FULL / CF_CANNOT_GROW leave f unchanged.
 */
cf_status	cf_insert(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx);

/*
 * Set semantics: adds h (as cf_insert) only if the filter does not already
 * report it present.  Deleting a value added this way is only safe if it
 * was really absent: a false positive means nothing was stored for it.
 */
cf_status	cf_insert_unique(cf_filter *f, uint64_t h, cf_alloc_fn alloc, void *ctx);

/* ---- version 1 ---- */
/* Size of f (version 1) rewritten as version 2. */
size_t		cf_upgrade_size(const cf_filter *f);
/*
 * Writes f (version 1) as version 2 into out (cf_upgrade_size bytes) and
 * opens it as result: the same tables (legacy geometry) and answers, value
 * hashing CF_HASHING_V1, counters zero.  Writes need version 2.
 */
void		cf_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result);

/* ---- header fields the glue owns ---- */
/* Records the value kind in the header (journaled). */
void		cf_set_kind(cf_filter *f, uint32_t kind);
/*
 * Sets the header's delete counters, deletes done and deletes left in place
 * (journaled; version 2 only), for a caller that rebuilds a filter from the
 * values of others (cf_union_agg) and carries their counters over.
 */
void		cf_set_counters(cf_filter *f, uint64_t deletes, uint64_t retained);

/* ---- bulk build ---- */
/* Bytes of scratch memory cf_build needs for n items into f. */
size_t		cf_build_work_size(const cf_filter *f, uint64_t n);
/*
 * Puts the items with hashes h[0 .. n) into f, which must have one empty
 * sub-filter, much faster than n cf_adds.  The result depends only on h and
 * its order (pass distinct hashes sorted ascending for the fastest build and
 * a result that depends on the set alone).  work holds worklen bytes,
 * at least cf_build_work_size(f, n).  Returns false if the items do not all
 * fit (or too many are pending for work); f's table is then garbage and the
 * caller starts again, for example with a larger filter.
 */
bool		cf_build(cf_filter *f, const uint64_t *h, size_t n, void *work, size_t worklen);

/* one run of the items cf_build_runs reads: h[0 .. n) */
typedef struct cf_run
{
	const uint64_t *h;
	size_t		n;
} cf_run;

/*
 * cf_build of the items of runs[0 .. nruns) one after the other, as if they
 * were one array (the same result, byte for byte): for a caller whose
 * sorted hashes sit in several blocks.  work is sized for their total.
 */
bool		cf_build_runs(cf_filter *f, const cf_run *runs, size_t nruns,
						  void *work, size_t worklen);

/* ---- cf_agg's build (cuckoo_handle.c) ---- */
/*
 * Where cf_agg_build gets its memory: a filter's buffer (alloc, as
 * cf_insert's; release frees a buffer alloc gave: an attempt that did not
 * fit, or the old buffer after growth) and scratch for the bulk build
 * (scratch: the caller's, at least size bytes, valid until the next call;
 * never NULL).  The glue passes the aggregate's memory, cuckoo_handle.c
 * malloc.
 */
typedef struct cf_agg_mem
{
	cf_alloc_fn alloc;
	void		(*release) (void *p, void *ctx);
	void	   *(*scratch) (size_t size, void *ctx);
	void	   *ctx;
} cf_agg_mem;

/*
 * cf_agg's filter of the n sorted distinct hashes of runs[0 .. nruns), the
 * one build the extension's cf_agg, its typed overloads and
 * cf_filter_build share: chain tables of rate fpr and encoding encoding,
 * the capacities of cf_agg_capacities in turn, each bulk-built
 * (cf_build_runs); if none fits, the hashes one at a time into the last
 * capacity, growing as needed, so that no value is lost.  Returns true
 * with f viewing its buffer (mem->alloc's; f->len bytes).  Returns false
 * with err set when it cannot be built: p holds the parameters of the last
 * filter tried (cf_create_size(p) == 0: they were refused), nothing is left
 * allocated.  The value kind is the caller's to record.
 */
bool		cf_agg_build(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n,
						 uint64_t capacity, double fpr, int encoding, const cf_agg_mem *mem,
						 cf_params *p, char *err, size_t errlen);

/* ---- sorting hashes, for cf_build's input (cuckoo_sort.c) ---- */
/* Sorts a[0 .. n) ascending; tmp has room for n. */
void		cf_sort_hashes(uint64_t *a, uint64_t *tmp, size_t n);
/*
 * Sorts src[0 .. m), whose bits above the low nbits are all equal (a part
 * split off by its top bits), ascending into dst; src is clobbered.  A src
 * of up to 8 ascending runs one after the other is merged.
 */
void		cf_sort_hashes_below(uint64_t *src, uint64_t *dst, size_t m, int nbits);
/* Drops adjacent repeats from sorted a[0 .. n); returns how many remain. */
size_t		cf_unique_hashes(uint64_t *a, size_t n);

/* ---- growth ---- */
/* Size after appending one sub-filter, or 0 with err set if it cannot grow. */
size_t		cf_grow_size(const cf_filter *f, char *err, size_t errlen);
/* Copies f into newbuf (cf_grow_size bytes) plus an empty sub-filter; f views newbuf. */
void		cf_grow(cf_filter *f, uint8_t *newbuf);

/* ---- union ---- */
/*
 * Upper bound of the size of a union of a and b, or 0 with err set if they
 * are incompatible (bucket size or fingerprint width differ) or too large.
 */
size_t		cf_union_size(const cf_filter *a, const cf_filter *b, char *err, size_t errlen);
/*
 * Writes a union of a and b into out (cf_union_size bytes) and opens it as
 * result.  Every item of both is kept.  Returns the bytes used (<= outcap),
 * or 0 with err set if it would need more than CF_MAX_STAGES sub-filters.
 */
size_t		cf_union(const cf_filter *a, const cf_filter *b, uint8_t *out, size_t outcap,
					 cf_filter *result, char *err, size_t errlen);

/*
 * The hashes of list f, ascending (copies of a value side by side), into
 * out[0 .. max): returns how many the list holds, at most CF_LIST_MAX (0
 * when f is not a list); only the first max are written when it holds more.
 */
size_t		cf_list_hashes(const cf_filter *f, uint64_t *out, size_t max);

#endif							/* CUCKOO_VIEW_H */
