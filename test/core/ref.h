/*
 * ref.h - an independent, deliberately simple reading of FORMAT.md, used to
 * check the core against the written contract.  Header-only, slow, no core calls.
 */
#ifndef CF_TEST_REF_H
#define CF_TEST_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cuckoo.h"

typedef struct ref_stage
{
	uint32_t	nbuckets;
	uint32_t	nitems;
	uint32_t	fpbits;
	size_t		table_off;		/* offset of the table in the buffer */
	uint64_t	table_bytes;
} ref_stage;

typedef struct ref_filter
{
	const uint8_t *buf;
	size_t		len;
	uint32_t	bucket_size;
	uint32_t	fpbits;
	uint32_t	nstages;
	uint32_t	expansion;
	uint32_t	max_kicks;
	uint32_t	capacity;
	ref_stage	st[CF_MAX_STAGES];
	/* set when the verdict rests on a point FORMAT.md leaves open */
	int			ambiguous;
} ref_filter;

static inline uint32_t
ref_rd16(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8);
}

static inline uint32_t
ref_rd32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
}

static inline void
ref_wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
ref_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

/* bytes of a table of nbuckets * b slots of f bits */
static inline uint64_t
ref_table_bytes(uint64_t nbuckets, uint32_t b, uint32_t f)
{
	return (nbuckets * b * f + 7) / 8;
}

/* slot number s (counted over the whole table) of width f */
static inline uint32_t
ref_slot(const uint8_t *table, uint64_t table_bytes, uint64_t s, uint32_t f)
{
	uint64_t	p = s * f;
	uint64_t	byte = p >> 3;
	uint64_t	w = 0;
	int			k;

	if (byte + 8 <= table_bytes)
	{
		const uint8_t *q = table + byte;

		w = (uint64_t) q[0] | ((uint64_t) q[1] << 8) | ((uint64_t) q[2] << 16) |
			((uint64_t) q[3] << 24) | ((uint64_t) q[4] << 32) | ((uint64_t) q[5] << 40) |
			((uint64_t) q[6] << 48) | ((uint64_t) q[7] << 56);
	}
	else
		for (k = 0; k < 8 && byte + (uint64_t) k < table_bytes; k++)
			w |= (uint64_t) table[byte + k] << (8 * k);
	w >>= (p & 7);
	return (uint32_t) (w & ((UINT64_C(1) << f) - 1));
}

/* the hashing of FORMAT.md, written out */
static inline uint32_t
ref_fp(uint64_t h, uint32_t f)
{
	return (uint32_t) (((h & 0xFFFFFFFFu) * ((UINT64_C(1) << f) - 1)) >> 32) + 1;
}

static inline uint32_t
ref_i1(uint64_t h, uint32_t m)
{
	return (uint32_t) (((h >> 32) * (uint64_t) m) >> 32);
}

static inline uint32_t
ref_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static inline uint32_t
ref_alt(uint32_t i, uint32_t fp, uint32_t m)
{
	uint32_t	H = (uint32_t) (((uint64_t) ref_mix32(fp) * m) >> 32);

	return (uint32_t) (((uint64_t) H + m - i) % m);
}

/*
 * Parses buf per FORMAT.md.  full = also count the slots and check the
 * trailing bits.  Returns 1 if valid, else 0 with *why set.
 */
static inline int
ref_parse(ref_filter *r, const uint8_t *buf, size_t len, int full, const char **why)
{
	uint64_t	total;
	uint32_t	i;
	const char *dummy;

	if (!why)
		why = &dummy;
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	if (len < CF_HEADER_SIZE)
		return *why = "short header", 0;
	if (buf[0] != CF_MAGIC)
		return *why = "magic", 0;
	if (buf[1] != CF_FORMAT_VERSION)
		return *why = "version", 0;
	if (buf[2] != 0)
		return *why = "flags", 0;
	r->bucket_size = buf[3];
	if (r->bucket_size != 2 && r->bucket_size != 4 && r->bucket_size != 8)
		return *why = "bucket size", 0;
	r->fpbits = buf[4];
	if (r->fpbits < CF_MIN_FPBITS || r->fpbits > CF_MAX_FPBITS)
		return *why = "fpbits", 0;
	r->nstages = buf[5];
	if (r->nstages < 1 || r->nstages > CF_MAX_STAGES)
		return *why = "nstages", 0;
	r->expansion = buf[6];
	if (r->expansion > CF_MAX_EXPANSION)
		return *why = "expansion", 0;
	if (buf[7] != 0)
		return *why = "reserved 7", 0;
	r->max_kicks = ref_rd16(buf + 8);
	if (ref_rd16(buf + 10) != 0)
		return *why = "reserved 10", 0;
	r->capacity = ref_rd32(buf + 12);
	if (r->capacity < 1)
		return *why = "capacity", 0;
	total = CF_HEADER_SIZE + (uint64_t) CF_STAGE_SIZE * r->nstages;
	if (len < total)
		return *why = "short descriptors", 0;
	for (i = 0; i < r->nstages; i++)
	{
		const uint8_t *d = buf + CF_HEADER_SIZE + CF_STAGE_SIZE * i;
		ref_stage  *s = &r->st[i];

		s->nbuckets = ref_rd32(d);
		s->nitems = ref_rd32(d + 4);
		s->fpbits = d[8];
		if (s->nbuckets < 1)
			return *why = "nbuckets", 0;
		if ((uint64_t) s->nitems > (uint64_t) s->nbuckets * r->bucket_size)
			return *why = "nitems > slots", 0;
		if (s->fpbits < CF_MIN_FPBITS || s->fpbits > CF_MAX_FPBITS)
			return *why = "stage fpbits", 0;
		if (d[9] || d[10] || d[11])
			return *why = "stage reserved", 0;
		if (i == 0 && s->fpbits != r->fpbits)
			r->ambiguous = 1;	/* FORMAT.md calls the header width "base" only */
		s->table_bytes = ref_table_bytes(s->nbuckets, r->bucket_size, s->fpbits);
		s->table_off = (size_t) total;
		total += s->table_bytes;
	}
	if (total != len)
		return *why = "length", 0;
	if (total > CF_MAX_SIZE)
		return *why = "too large", 0;
	if (!full)
		return 1;
	for (i = 0; i < r->nstages; i++)
	{
		ref_stage  *s = &r->st[i];
		const uint8_t *t = buf + s->table_off;
		uint64_t	nslots = (uint64_t) s->nbuckets * r->bucket_size;
		uint64_t	n = 0,
					k;
		uint64_t	used_bits = nslots * s->fpbits;

		for (k = 0; k < nslots; k++)
			n += ref_slot(t, s->table_bytes, k, s->fpbits) != 0;
		if (n != s->nitems)
			return *why = "nitems does not match table", 0;
		if (used_bits % 8 && (t[s->table_bytes - 1] >> (used_bits % 8)) != 0)
			return *why = "trailing bits", 0;
	}
	return 1;
}

/* copies of fp(h) in h's buckets of stage i (a bucket counted once) */
static inline uint32_t
ref_stage_count(const ref_filter *r, uint32_t i, uint64_t h)
{
	const ref_stage *s = &r->st[i];
	const uint8_t *t = r->buf + s->table_off;
	uint32_t	fp = ref_fp(h, s->fpbits);
	uint32_t	b1 = ref_i1(h, s->nbuckets);
	uint32_t	b2 = ref_alt(b1, fp, s->nbuckets);
	uint32_t	n = 0,
				k;

	for (k = 0; k < r->bucket_size; k++)
	{
		n += ref_slot(t, s->table_bytes, (uint64_t) b1 * r->bucket_size + k, s->fpbits) == fp;
		if (b2 != b1)
			n += ref_slot(t, s->table_bytes, (uint64_t) b2 * r->bucket_size + k, s->fpbits) == fp;
	}
	return n;
}

static inline uint32_t
ref_count(const ref_filter *r, uint64_t h)
{
	uint32_t	n = 0,
				i;

	for (i = 0; i < r->nstages; i++)
		n += ref_stage_count(r, i, h);
	return n;
}

/* number of sub-filters in which h matches */
static inline uint32_t
ref_match_stages(const ref_filter *r, uint64_t h)
{
	uint32_t	n = 0,
				i;

	for (i = 0; i < r->nstages; i++)
		n += ref_stage_count(r, i, h) > 0;
	return n;
}

/* fingerprint width FORMAT.md / the README imply: smallest f >= 4 with 2b/2^f <= fpr */
static inline int
ref_fpbits_for(double fpr, int b)
{
	int			f;

	for (f = CF_MIN_FPBITS; f <= CF_MAX_FPBITS; f++)
		if (2.0 * b / (double) (UINT64_C(1) << f) <= fpr)
			return f;
	return 0;
}

/* a header + descriptors with zero tables, written field by field */
typedef struct ref_desc
{
	uint32_t	nbuckets;
	uint32_t	nitems;
	uint32_t	fpbits;
} ref_desc;

static inline size_t
ref_header_len(uint32_t nstages)
{
	return CF_HEADER_SIZE + (size_t) CF_STAGE_SIZE * nstages;
}

static inline void
ref_write_header(uint8_t *buf, uint32_t b, uint32_t fpbits, uint32_t nstages,
				 uint32_t expansion, uint32_t max_kicks, uint32_t capacity,
				 const ref_desc *d)
{
	uint32_t	i;

	memset(buf, 0, ref_header_len(nstages));
	buf[0] = CF_MAGIC;
	buf[1] = CF_FORMAT_VERSION;
	buf[3] = (uint8_t) b;
	buf[4] = (uint8_t) fpbits;
	buf[5] = (uint8_t) nstages;
	buf[6] = (uint8_t) expansion;
	ref_wr16(buf + 8, max_kicks);
	ref_wr32(buf + 12, capacity);
	for (i = 0; i < nstages; i++)
	{
		uint8_t    *p = buf + CF_HEADER_SIZE + CF_STAGE_SIZE * i;

		ref_wr32(p, d[i].nbuckets);
		ref_wr32(p + 4, d[i].nitems);
		p[8] = (uint8_t) d[i].fpbits;
	}
}

#endif							/* CF_TEST_REF_H */
