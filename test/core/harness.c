/*
 * harness.c - reporting, the multiset model and the allocator shared by the
 * core tests (see harness.h).
 */
#include <stdarg.h>
#include <time.h>

#include "harness.h"
#include "../../src/core/cuckoo_check.h"

int			t_failures;
double		t_scale = 1.0;

void
t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list		ap;

	t_failures++;
	if (t_failures > 20)
	{
		if (t_failures == 21)
			printf("    ... (further failures in this test not shown)\n");
		return;
	}
	printf("    FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int			t_known;
int			t_strict;
int			t_full;

void
t_known_bug(const char *file, int line, const char *fmt, ...)
{
	va_list		ap;

	if (t_strict)
	{
		char		msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		t_fail(file, line, "%s", msg);
		return;
	}
	t_known++;
	printf("    KNOWN CORE BUG (%s:%d, not counted; CF_TEST_STRICT=1 fails it): ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void
t_note(const char *fmt, ...)
{
	va_list		ap;

	printf("    ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

uint64_t
t_iters(uint64_t n, uint64_t lo)
{
	double		v = (double) n * t_scale;

	return v < (double) lo ? lo : (uint64_t) v;
}

double
t_now(void)
{
	return (double) clock() / CLOCKS_PER_SEC;
}

/* ---- model ---- */
static inline size_t
model_home(uint64_t k, size_t tabsize)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return (size_t) (k & (tabsize - 1));
}

void
model_init(model *m)
{
	memset(m, 0, sizeof(*m));
	m->cap = 64;
	m->keys = malloc(m->cap * sizeof(uint64_t));
	m->cnt = malloc(m->cap * sizeof(uint32_t));
	m->slot = calloc(2 * m->cap, sizeof(uint32_t));
	if (!m->keys || !m->cnt || !m->slot)
		abort();
}

void
model_free(model *m)
{
	free(m->keys);
	free(m->cnt);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

void
model_clear(model *m)
{
	memset(m->slot, 0, 2 * m->cap * sizeof(uint32_t));
	m->n = 0;
	m->total = 0;
}

/* table position of k, or of the empty slot where it would go */
static size_t
model_find(const model *m, uint64_t k)
{
	size_t		mask = 2 * m->cap - 1;
	size_t		i = model_home(k, 2 * m->cap);

	while (m->slot[i] && m->keys[m->slot[i] - 1] != k)
		i = (i + 1) & mask;
	return i;
}

static void
model_grow(model *m)
{
	size_t		i;

	m->cap *= 2;
	m->keys = realloc(m->keys, m->cap * sizeof(uint64_t));
	m->cnt = realloc(m->cnt, m->cap * sizeof(uint32_t));
	free(m->slot);
	m->slot = calloc(2 * m->cap, sizeof(uint32_t));
	if (!m->keys || !m->cnt || !m->slot)
		abort();
	for (i = 0; i < m->n; i++)
		m->slot[model_find(m, m->keys[i])] = (uint32_t) (i + 1);
}

uint32_t
model_get(const model *m, uint64_t k)
{
	size_t		i = model_find(m, k);

	return m->slot[i] ? m->cnt[m->slot[i] - 1] : 0;
}

void
model_add(model *m, uint64_t k)
{
	size_t		i = model_find(m, k);

	m->total++;
	if (m->slot[i])
	{
		m->cnt[m->slot[i] - 1]++;
		return;
	}
	if (m->n + 1 > m->cap)
	{
		model_grow(m);
		i = model_find(m, k);
	}
	m->keys[m->n] = k;
	m->cnt[m->n] = 1;
	m->slot[i] = (uint32_t) (++m->n);
}

/* removes table slot i (backward-shift deletion) */
static void
model_unslot(model *m, size_t i)
{
	size_t		mask = 2 * m->cap - 1;
	size_t		j = i;

	for (;;)
	{
		size_t		home;

		j = (j + 1) & mask;
		if (!m->slot[j])
			break;
		home = model_home(m->keys[m->slot[j] - 1], 2 * m->cap);
		/* can slot j's entry move to i?  yes unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j)))
		{
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = 0;
}

int
model_del(model *m, uint64_t k)
{
	size_t		i = model_find(m, k);
	uint32_t	idx;

	if (!m->slot[i])
		return 0;
	idx = m->slot[i] - 1;
	m->total--;
	if (--m->cnt[idx] > 0)
		return 1;
	model_unslot(m, i);
	/* move the last dense entry into idx */
	if (idx != m->n - 1)
	{
		uint64_t	lk = m->keys[m->n - 1];

		m->keys[idx] = lk;
		m->cnt[idx] = m->cnt[m->n - 1];
		m->slot[model_find(m, lk)] = idx + 1;
	}
	m->n--;
	return 1;
}

void
model_copy(model *dst, const model *src)
{
	size_t		i;

	model_clear(dst);
	for (i = 0; i < src->n; i++)
	{
		uint32_t	c;

		for (c = 0; c < src->cnt[i]; c++)
			model_add(dst, src->keys[i]);
	}
}

void
model_merge(model *dst, const model *src)
{
	size_t		i;

	for (i = 0; i < src->n; i++)
	{
		uint32_t	c;

		for (c = 0; c < src->cnt[i]; c++)
			model_add(dst, src->keys[i]);
	}
}

/* ---- allocation ---- */
void *
t_alloc(size_t size, void *ctx)
{
	alloc_ctx  *a = ctx;
	void	   *p = malloc(size ? size : 1);

	if (!p)
		abort();
	if (a)
	{
		a->calls++;
		a->last_size = size;
	}
	return p;
}

cf_params
t_params(uint64_t capacity, double fpr, int b, int max_kicks, int expansion)
{
	cf_params	p;

	memset(&p, 0, sizeof(p));
	p.capacity = capacity;
	p.fpr = fpr;
	p.bucket_size = b;
	p.max_kicks = max_kicks;
	p.expansion = expansion;
	return p;
}

uint8_t *
t_create(const cf_params *p, size_t *len)
{
	char		err[CF_ERRLEN];
	size_t		n = cf_create_size(p, err, sizeof(err));
	uint8_t    *buf;

	if (n == 0)
	{
		printf("    t_create: unexpected parameter error: %s\n", err);
		*len = 0;
		return NULL;
	}
	buf = malloc(n);
	if (!buf)
		abort();
	memset(buf, 0xA5, n);		/* cf_create must write every byte */
	cf_create(buf, p);
	*len = n;
	return buf;
}

double
t_fpr_for_width(int f, int b)
{
	/* 2b/2^f is the largest fpr of width f; 1% above it is still width f */
	return 2.0 * b / (double) (UINT64_C(1) << f) * 1.01;
}

int
t_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

void
t_reseal(uint8_t *buf, size_t len)
{
	if (len >= CF_V2_HEADER_SIZE && buf[1] == 3 &&
		len >= CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * buf[5] && buf[5] <= CF_MAX_STAGES)
		cfi_seal(buf);
}

int
t_same_but_counters(const uint8_t *a, const uint8_t *b, size_t len)
{
	if (len < 40 || (a[1] != 2 && a[1] != 3))
		return memcmp(a, b, len) == 0;
	return memcmp(a, b, 24) == 0 && memcmp(a + 40, b + 40, len - 40) == 0;
}

/*
 * does sub-filter s refine t (FORMAT.md, "Families and refinement"), or are
 * they split tables of one family ("Deletes in split tables")?
 */
static int
t_refines(const cf_stage *s, const cf_stage *t)
{
	if (s->geom != t->geom)
		return 0;
	if (s->geom == CF_GEOM_LEGACY)
		return s->nbuckets == t->nbuckets && s->fpbits == t->fpbits;
	/* split tables of one family, any levels and widths: deletes take the finest entry */
	if (s->geom == CF_GEOM_SPLIT)
		return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits;
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

int
t_one_chain(const cf_filter *f)
{
	for (uint32_t i = 0; i < f->nstages; i++)
		for (uint32_t j = i + 1; j < f->nstages; j++)
			if (!t_refines(&f->stages[i], &f->stages[j]) && !t_refines(&f->stages[j], &f->stages[i]))
				return 0;
	return 1;
}
