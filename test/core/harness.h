/*
 * harness.h - the core test suite's tiny assert/report harness, its PRNG,
 * an exact multiset model of 64-bit hashes and a malloc-based allocator.
 */
#ifndef CF_TEST_HARNESS_H
#define CF_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_view.h"

/* ---- reporting ---- */
extern int	t_failures;			/* failed checks in the current test */
extern double t_scale;			/* CF_TEST_SCALE: workload multiplier */

void		t_fail(const char *file, int line, const char *fmt, ...)
			__attribute__((format(printf, 3, 4)));
void		t_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* iterations scaled by CF_TEST_SCALE, never below lo */
uint64_t	t_iters(uint64_t n, uint64_t lo);

#define CHECK(cond) \
	do { if (!(cond)) t_fail(__FILE__, __LINE__, "%s", #cond); } while (0)
#define CHECKF(cond, ...) \
	do { if (!(cond)) t_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
/*
 * A check that fails because of a reported, not yet fixed core bug: printed
 * as KNOWN CORE BUG and not counted, unless CF_TEST_STRICT=1 makes it fail.
 */
extern int	t_known;			/* known-bug hits in the whole run */
extern int	t_strict;
extern int	t_full;			/* CF_TEST_FULL=1: the pre-issue-32 workloads */
void		t_known_bug(const char *file, int line, const char *fmt, ...)
			__attribute__((format(printf, 3, 4)));
#define KNOWN_BUG(cond, ...) \
	do { if (!(cond)) t_known_bug(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* for loops: stop hammering once the test has failed a lot */
#define BAILED() (t_failures > 50)

/* ---- deterministic PRNG ---- */
static inline uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline uint64_t
rnd_below(uint64_t *state, uint64_t n)
{
	return n ? splitmix64(state) % n : 0;
}

/* ---- exact multiset of 64-bit hashes: open addressing, dense key array ---- */
typedef struct model
{
	uint64_t   *keys;			/* dense: keys[0..n) present, with cnt > 0 */
	uint32_t   *cnt;
	uint32_t   *slot;			/* hash table of (index + 1); 0 = empty */
	size_t		n;
	size_t		cap;			/* dense capacity; table has 2*cap slots */
	uint64_t	total;			/* sum of counts */
} model;

void		model_init(model *m);
void		model_free(model *m);
void		model_clear(model *m);
uint32_t	model_get(const model *m, uint64_t k);
void		model_add(model *m, uint64_t k);
/* removes one copy; returns 0 if k was absent */
int			model_del(model *m, uint64_t k);
void		model_copy(model *dst, const model *src);
void		model_merge(model *dst, const model *src);	/* dst += src */

/* ---- allocator for cf_insert ---- */
typedef struct alloc_ctx
{
	uint64_t	calls;
	size_t		last_size;
} alloc_ctx;

void	   *t_alloc(size_t size, void *ctx);

/* ---- helpers shared by the test files ---- */
/* a malloc'd, created filter for p (p must be valid); *len gets its size */
uint8_t    *t_create(const cf_params *p, size_t *len);
cf_params	t_params(uint64_t capacity, double fpr, int b, int max_kicks, int expansion);
/* an fpr that cf_fpbits_for maps to width f for bucket size b */
double		t_fpr_for_width(int f, int b);
double		t_now(void);
/*
 * Are two filters of len bytes equal but for the version-2 counters of
 * deletes done and left in place (header bytes 24 .. 39)?
 */
int			t_same_but_counters(const uint8_t *a, const uint8_t *b, size_t len);
/*
 * A version-3 header and descriptors edited by a test get their check bytes
 * again (cfi_seal), so that its edit reaches the check it aims at rather
 * than the check bytes; other versions are left alone.
 */
void		t_reseal(uint8_t *buf, size_t len);
/*
 * Do all sub-filters of f refine one another pairwise (a chain: every delete
 * is exact)?  Otherwise a delete may be left in place (CF_RETAINED).
 */
int			t_one_chain(const cf_filter *f);
/* qsort comparator: uint64_t ascending */
int			t_cmp_u64(const void *a, const void *b);

#endif							/* CF_TEST_HARNESS_H */
