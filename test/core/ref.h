/*
 * ref.h - an independent, deliberately simple reading of FORMAT.md, used to
 * check the core against the written contract.  Header-only, slow, no core
 * calls (cuckoo.h only for its constants: CF_MAGIC, CF_MAX_STAGES...).
 */
#ifndef CF_TEST_REF_H
#define CF_TEST_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cuckoo_int.h"

typedef struct ref_stage
{
	uint32_t	nbuckets;
	uint32_t	nitems;
	uint32_t	fpbits;
	uint32_t	geom;			/* 1 legacy, 2 chain, 3 split, 4 list */
	uint32_t	level;
	uint32_t	basebits;
	uint32_t	nstash;			/* split: stash records after the table */
	size_t		table_off;		/* offset of the table in the buffer */
	uint64_t	table_bytes;
	uint32_t	enc;			/* 0 bit-packed, 1 semi-sorted */
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
	uint32_t	version;
	uint32_t	hashing;
	uint32_t	kind;
	double		target_fpr;
	uint64_t	deletes;
	uint64_t	retained;
	ref_stage	st[CF_MAX_STAGES];

	/*
	 * Set when the verdict rests on the one point FORMAT.md leaves open: the
	 * header's fpbits differs from the first table's width (version 2 calls
	 * it "fingerprint width of the filter's first table", but a split table
	 * doubled to level L is W(L) wide under a header of W(0); version 1 calls
	 * it the "base" width).  This reading accepts the filter then (it checks
	 * everything else); a reader that holds the header to the first table's
	 * width would reject it.  So where it is set, only that disagreement is
	 * allowed: ref_agrees().
	 */
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

static inline uint64_t
ref_rd64(const uint8_t *p)
{
	return (uint64_t) ref_rd32(p) | ((uint64_t) ref_rd32(p + 4) << 32);
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

/* bit p of a table: bit p mod 8 of byte p div 8 (past the end: 0) */
static inline uint32_t
ref_bit(const uint8_t *table, uint64_t table_bytes, uint64_t p)
{
	return (p >> 3) < table_bytes ? (table[p >> 3] >> (p & 7)) & 1 : 0;
}

/* n <= 32 bits from bit p, the first one lowest */
static inline uint32_t
ref_bits(const uint8_t *table, uint64_t table_bytes, uint64_t p, uint32_t n)
{
	uint32_t	v = 0;

	for (uint32_t k = 0; k < n; k++)
		v |= ref_bit(table, table_bytes, p + k) << k;
	return v;
}

/*
 * Semi-sorted buckets (FORMAT.md "Tables (encoding 1)"), written out: the
 * 3876 sorted 4-multisets of 0..15 numbered in lexicographic order.
 * Returns the index-th in m[0..4), or 0 if index >= 3876.
 */
static inline int
ref_multiset(uint32_t index, uint32_t m[4])
{
	uint32_t	k = 0;

	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++, k++)
					if (k == index)
					{
						m[0] = a;
						m[1] = b;
						m[2] = c;
						m[3] = d;
						return 1;
					}
	return 0;
}

/*
 * The 4 values of semi-sorted bucket i of width f, and whether the bucket
 * is valid: index < 3876 and the values ascending.
 */
static inline int
ref_semi_bucket(const uint8_t *table, uint64_t table_bytes, uint64_t i, uint32_t f, uint32_t v[4])
{
	static uint8_t cache[3876][4];
	static int	ready = 0;
	uint64_t	p = i * (4 * (uint64_t) f - 4);
	uint32_t	index = ref_bits(table, table_bytes, p, 12);
	int			ok = 1;

	if (!ready)
	{
		for (uint32_t x = 0; x < 3876; x++)
		{
			uint32_t	m[4] = {0, 0, 0, 0};

			ref_multiset(x, m);
			for (int k = 0; k < 4; k++)
				cache[x][k] = (uint8_t) m[k];
		}
		ready = 1;
	}
	if (index >= 3876)
	{
		index = 0;
		ok = 0;
	}
	for (uint32_t k = 0; k < 4; k++)
	{
		v[k] = ((uint32_t) cache[index][k] << (f - 4)) |
			ref_bits(table, table_bytes, p + 12 + k * (f - 4), f - 4);
		if (k > 0 && v[k] < v[k - 1])
			ok = 0;
	}
	return ok;
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

/* the hashing of FORMAT.md, written out: version 1's (legacy) tables */
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

/* version 2's chain tables: the fingerprint is the top w bits of g */
static inline uint32_t
ref_chain_fp(uint64_t h, uint32_t w, uint32_t f0)
{
	uint64_t	g = h & 0xFFFFFFFFu;

	if ((g >> (32 - f0)) == 0)
		g += UINT64_C(1) << (32 - f0);
	return (uint32_t) (g >> (32 - w));
}

/*
 * The recursive form of FORMAT.md: level 0 reflects in m0 buckets keyed by
 * the top f0 bits; level L keeps level L-1's pair for i div 2 and flips
 * the last digit by the lowest bit of the (f0 + L)-bit fingerprint.
 */
static inline uint32_t
ref_chain_alt(uint32_t i, uint32_t fp, uint32_t w, uint32_t f0, uint32_t L, uint32_t m0)
{
	uint32_t	fpL;

	if (L == 0)
		return ref_alt(i, fp >> (w - f0), m0);
	fpL = fp >> (w - f0 - L);
	return 2 * ref_chain_alt(i / 2, fp, w, f0, L - 1, m0) + ((i % 2) ^ (fpL % 2));
}

/* fingerprint and bucket pair of h in stage s */
static inline void
ref_locate(const ref_stage *s, uint64_t h, uint32_t *fp, uint32_t *b1, uint32_t *b2)
{
	*b1 = ref_i1(h, s->nbuckets);
	if (s->geom == 2)
	{
		*fp = ref_chain_fp(h, s->fpbits, s->basebits);
		*b2 = ref_chain_alt(*b1, *fp, s->fpbits, s->basebits, s->level,
							s->nbuckets >> s->level);
	}
	else
	{
		*fp = ref_fp(h, s->fpbits);
		*b2 = ref_alt(*b1, *fp, s->nbuckets);
	}
}

/* ---- split tables (FORMAT.md, "Split tables"), bit by bit ---- */

static inline uint64_t
ref_mix64(uint64_t z)
{
	z += UINT64_C(0x9E3779B97F4A7C15);
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* bit j (1 = the most significant) of a 64-bit string */
static inline uint32_t
ref_sbit(uint64_t x, uint32_t j)
{
	return (uint32_t) (x >> (64 - j)) & 1;
}

/*
 * Does the slot value v (width W, base width F0) match h when it sits in
 * bucket x of level L of a split table of m0 base buckets?
 */
static inline int
ref_split_match(uint32_t v, uint32_t W, uint32_t F0, uint32_t L, uint32_t m0, uint32_t x, uint64_t h)
{
	uint32_t	H = (uint32_t) (h >> 32),
				g = (uint32_t) h;
	uint64_t	prod = (uint64_t) H * m0;
	uint32_t	top = (uint32_t) (prod >> 32);
	uint64_t	S = ((prod & 0xFFFFFFFFu) << 32) | (uint32_t) (g << F0);
	uint32_t	f0 = g >> (32 - F0);
	uint64_t	kk = ref_mix64(f0 + CF_HASH_SEED);
	uint32_t	hm = (uint32_t) (((kk & 0xFFFFFFFFu) * (uint64_t) m0) >> 32);
	uint32_t	a0 = (uint32_t) (((int64_t) hm - (int64_t) top + m0) % m0);
	uint64_t	i1 = top,
				i2 = a0;
	uint32_t	R = W - 1 - F0,
				pos = 0,
				r,
				j;
	int			in1,
				in2;

	if (v == 0)
		return 0;
	for (j = 1; j <= L; j++)
	{
		i1 = 2 * i1 + ref_sbit(S, j);
		i2 = 2 * i2 + (ref_sbit(S, j) ^ ref_sbit(kk, j));
	}
	if ((v >> (W - F0)) != f0)
		return 0;
	while (((v >> pos) & 1) == 0)
		pos++;
	if (pos > R)
		return 0;
	r = R - pos;
	in1 = x == i1;
	in2 = x == i2;
	for (j = 1; j <= r; j++)
	{
		uint32_t	e = (v >> (R + 1 - j)) & 1;

		if (e != ref_sbit(S, L + j))
			in1 = 0;
		if (e != (ref_sbit(S, L + j) ^ ref_sbit(kk, L + j)))
			in2 = 0;
	}
	return in1 || in2;
}

/*
 * W(0), the level-0 width of the split schedule (FORMAT.md, "Split tables",
 * "Width schedule"): 1 + Fa of the lexicographically smallest (Fa, Fb, Fc),
 * 11 <= Fa <= Fb <= Fc <= 31, with c * (12 * 2^-Fa + 10 * 2^-Fb + 11 * 2^-Fc)
 * <= 1.9 * target_fpr, c = b * design load (850, 955, 980 per mille for b =
 * 2, 4, 8); 0 when there is none.  The smallest Fa for which some (Fb, Fc)
 * works is the smallest for which (31, 31), the smallest sum, works.  (Sums
 * of these powers of two are exact; the inequality is tested divided by c.)
 */
static inline uint32_t
ref_split_width0(double target_fpr, uint32_t b)
{
	double		c = (double) (b * (b == 2 ? 850 : b == 4 ? 955 : 980)) / 1000.0;
	double		budget = 1.9 * target_fpr / c;

	for (uint32_t fa = 11; fa <= 31; fa++)
	{
		double		sum = 12.0 / (double) (UINT64_C(1) << fa) + 21.0 / (double) (UINT64_C(1) << 31);

		if (sum <= budget)
			return 1 + fa;
	}
	return 0;
}

/*
 * CRC-8/AUTOSAR bit by bit, as FORMAT.md "Version 3" states it (poly 0x2F,
 * init 0xFF, xorout 0xFF, most significant bit first), apart from the
 * core's table: the reference for the check bytes
 */
static inline uint8_t
ref_crc8_update(uint8_t c, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		c ^= p[i];
		for (int b = 0; b < 8; b++)
			c = (uint8_t) ((c & 0x80) ? (c << 1) ^ 0x2F : c << 1);
	}
	return c;
}

/* the version-3 check bytes of a header and its descriptors (nstages from byte 5) */
static inline void
ref_seal_v3(uint8_t *buf)
{
	buf[1] = 3;
	buf[11] = (uint8_t) (ref_crc8_update(ref_crc8_update(0xFF, buf, 11), buf + 12, 12) ^ 0xFF);
	for (uint32_t k = 0; k < buf[5]; k++)
	{
		uint8_t    *d = buf + 40 + 16 * (size_t) k;

		d[15] = (uint8_t) (ref_crc8_update(ref_crc8_update(0xFF, d, 4), d + 8, 5) ^ 0xFF);
	}
}

/* version 1's header (FORMAT.md, "Version 1") */
static inline int
ref_parse_v1(ref_filter *r, const uint8_t *buf, size_t len, uint64_t *total, const char **why)
{
	uint32_t	i;

	if (len < 16)
		return *why = "short header", 0;
	if (buf[2] != 0)
		return *why = "flags", 0;
	r->bucket_size = buf[3];
	r->fpbits = buf[4];
	r->nstages = buf[5];
	r->expansion = buf[6];
	if (buf[7] != 0)
		return *why = "reserved 7", 0;
	r->max_kicks = ref_rd16(buf + 8);
	if (ref_rd16(buf + 10) != 0)
		return *why = "reserved 10", 0;
	r->capacity = ref_rd32(buf + 12);
	r->hashing = 1;
	if (r->bucket_size != 2 && r->bucket_size != 4 && r->bucket_size != 8)
		return *why = "bucket size", 0;
	if (r->fpbits < CF_MIN_FPBITS || r->fpbits > CF_MAX_FPBITS)
		return *why = "fpbits", 0;
	if (r->nstages < 1 || r->nstages > CF_MAX_STAGES)
		return *why = "nstages", 0;
	if (r->expansion > CF_MAX_EXPANSION)
		return *why = "expansion", 0;
	if (r->capacity < 1)
		return *why = "capacity", 0;
	*total = 16 + (uint64_t) 12 * r->nstages;
	if (len < *total)
		return *why = "short descriptors", 0;
	for (i = 0; i < r->nstages; i++)
	{
		const uint8_t *d = buf + 16 + 12 * i;
		ref_stage  *s = &r->st[i];

		s->nbuckets = ref_rd32(d);
		s->nitems = ref_rd32(d + 4);
		s->fpbits = s->basebits = d[8];
		s->geom = 1;
		s->enc = 0;
		if (d[9] || d[10] || d[11])
			return *why = "stage reserved", 0;
		if (i == 0 && s->fpbits != r->fpbits)
			r->ambiguous = 1;	/* FORMAT.md calls the header width "base" only */
	}
	return 1;
}

/* version 2's header (FORMAT.md, "Layout"), or version 3's (the same, checked) */
static inline int
ref_parse_v2(ref_filter *r, const uint8_t *buf, size_t len, uint64_t *total, const char **why)
{
	uint32_t	i;
	uint64_t	fbits;

	if (len < 40)
		return *why = "short header", 0;
	if (buf[1] == 3)
	{
		uint8_t		c = (uint8_t) (ref_crc8_update(ref_crc8_update(0xFF, buf, 11), buf + 12, 12) ^ 0xFF);

		if (c != buf[11])
			return *why = "header check byte", 0;
	}
	if (buf[2] != 0)
		return *why = "flags", 0;
	r->bucket_size = buf[3];
	r->fpbits = buf[4];
	r->nstages = buf[5];
	r->expansion = buf[6];
	r->hashing = buf[7];
	r->max_kicks = ref_rd16(buf + 8);
	r->kind = buf[10];
	if (buf[1] == 2 && buf[11] != 0)
		return *why = "reserved 11", 0;
	if (r->kind > 16 && r->kind != 255)
		return *why = "kind", 0;
	r->capacity = ref_rd32(buf + 12);
	fbits = ref_rd64(buf + 16);
	memcpy(&r->target_fpr, &fbits, 8);
	r->deletes = ref_rd64(buf + 24);
	r->retained = ref_rd64(buf + 32);
	if (r->bucket_size != 2 && r->bucket_size != 4 && r->bucket_size != 8)
		return *why = "bucket size", 0;
	if (r->fpbits < CF_MIN_FPBITS || r->fpbits > CF_MAX_FPBITS)
		return *why = "fpbits", 0;
	if (r->nstages < 1 || r->nstages > CF_MAX_STAGES)
		return *why = "nstages", 0;
	if (r->expansion != 0 && r->expansion != 1 && r->expansion != 2 && r->expansion != 4 &&
		r->expansion != 8 && r->expansion != 16)
		return *why = "expansion", 0;
	if (r->hashing != 1 && r->hashing != 2)
		return *why = "hashing", 0;
	if (r->capacity < 1)
		return *why = "capacity", 0;
	if (!(r->target_fpr > 0.0 && r->target_fpr <= 1.0))
		return *why = "target fpr", 0;
	*total = 40 + (uint64_t) 16 * r->nstages;
	if (len < *total)
		return *why = "short descriptors", 0;
	for (i = 0; i < r->nstages; i++)
	{
		const uint8_t *d = buf + 40 + 16 * i;
		ref_stage  *s = &r->st[i];

		s->nbuckets = ref_rd32(d);
		s->nitems = ref_rd32(d + 4);
		s->fpbits = d[8];
		s->geom = d[9];
		s->level = d[10];
		s->basebits = d[11];
		s->enc = d[12];
		if (d[12] > 1 || (d[12] == 1 && r->bucket_size != 4))
			return *why = "encoding", 0;
		s->nstash = s->geom == 3 ? ref_rd16(d + 13) : 0;
		if (buf[1] == 3)
		{
			uint8_t		c = (uint8_t) (ref_crc8_update(ref_crc8_update(0xFF, d, 4), d + 8, 5) ^ 0xFF);

			if (c != d[15])
				return *why = "descriptor check byte", 0;
		}
		if ((s->geom != 3 && (d[13] || d[14])) || (buf[1] == 2 && d[15]))
			return *why = "stage reserved", 0;
		if (s->geom == 3)
		{
			uint32_t	m0 = s->level > 31 ? 0 : s->nbuckets >> s->level;

			if (s->level > 31 || s->nbuckets % (UINT64_C(1) << s->level) != 0 || m0 % 2 == 0)
				return *why = "split level", 0;
			if (s->basebits < 4 || s->basebits > 6 || s->fpbits < s->basebits + 2 ||
				s->level + s->fpbits - 1 - s->basebits > 64 - s->basebits)
				return *why = "split widths", 0;
			if (s->nstash > 256)
				return *why = "split stash", 0;
		}
		else if (s->geom == 4)
		{
			/* a list: the only sub-filter of a growing filter, bounded by its table's bytes */
			uint32_t	per = r->bucket_size * (r->bucket_size == 2 ? 850 : r->bucket_size == 4 ? 955 : 980);
			uint64_t	m0 = (((uint64_t) r->capacity * 1000 + per - 1) / per) | 1;
			uint64_t	tb = s->enc ? (m0 * (4 * (uint64_t) r->fpbits - 4) + 7) / 8 :
				(m0 * r->bucket_size * r->fpbits + 7) / 8;

			if (r->nstages != 1 || s->fpbits != 64 || s->level != 0 || s->basebits != 0 ||
				r->expansion == 0)
				return *why = "list descriptor", 0;
			/* the header width is the schedule's W(0); it must exist */
			if (ref_split_width0(r->target_fpr, r->bucket_size) != r->fpbits)
				return *why = "list header width", 0;
			if (56 + tb > CF_MAX_SIZE)
				return *why = "list table too large", 0;
			if (s->nbuckets < 1 || s->nbuckets > 256 || (uint64_t) s->nbuckets * 8 > tb ||
				s->nitems > s->nbuckets)
				return *why = "list slots", 0;
			continue;
		}
		else if (s->geom == 1)
		{
			if (s->level != 0 || s->basebits != s->fpbits)
				return *why = "legacy level or base", 0;
		}
		else if (s->geom == 2)
		{
			if (s->level > 31 || s->nbuckets % (UINT64_C(1) << s->level) != 0)
				return *why = "chain level", 0;
			if (s->basebits < CF_MIN_FPBITS || s->basebits + s->level > s->fpbits)
				return *why = "chain base width", 0;
		}
		else
			return *why = "geometry", 0;
		if (i == 0 && s->fpbits != r->fpbits)
			r->ambiguous = 1;
	}
	return 1;
}

/*
 * Parses buf per FORMAT.md.  full = also count the slots and check the
 * trailing bits.  Returns 1 if valid, else 0 with *why set.
 */
static inline int
ref_parse(ref_filter *r, const uint8_t *buf, size_t len, int full, const char **why)
{
	uint64_t	total = 0;
	uint32_t	i;
	const char *dummy;
	int			ok;

	if (!why)
		why = &dummy;
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	if (len < 2)
		return *why = "short header", 0;
	if (buf[0] != CF_MAGIC)
		return *why = "magic", 0;
	r->version = buf[1];
	if (buf[1] == 1)
		ok = ref_parse_v1(r, buf, len, &total, why);
	else if (buf[1] == 2 || buf[1] == 3)
		ok = ref_parse_v2(r, buf, len, &total, why);
	else
		return *why = "version", 0;
	if (!ok)
		return 0;
	for (i = 0; i < r->nstages; i++)
	{
		ref_stage  *s = &r->st[i];

		if (s->geom == 4)
		{
			s->table_bytes = (uint64_t) s->nbuckets * 8;
			s->table_off = (size_t) total;
			total += s->table_bytes;
			continue;
		}
		if (s->nbuckets < 1)
			return *why = "nbuckets", 0;
		if ((uint64_t) s->nitems > (uint64_t) s->nbuckets * r->bucket_size)
			return *why = "nitems > slots", 0;
		if (s->fpbits < CF_MIN_FPBITS || s->fpbits > CF_MAX_FPBITS)
			return *why = "stage fpbits", 0;
		s->table_bytes = s->enc ? (s->nbuckets * (4 * (uint64_t) s->fpbits - 4) + 7) / 8 :
			ref_table_bytes(s->nbuckets, r->bucket_size, s->fpbits);
		s->table_off = (size_t) total;
		total += s->table_bytes + (uint64_t) 12 * s->nstash;
	}
	if (total != len)
		return *why = "length", 0;
	if (total > CF_MAX_SIZE)
		return *why = "too large", 0;
	/* split stash records: free (all zero) or an entry with a marker at a level <= L */
	for (i = 0; i < r->nstages; i++)
	{
		const ref_stage *s = &r->st[i];

		for (uint32_t k = 0; k < s->nstash; k++)
		{
			const uint8_t *rec = buf + s->table_off + s->table_bytes + 12 * k;
			uint32_t	x = ref_rd32(rec),
						e = ref_rd32(rec + 4);

			if (rec[9] || rec[10] || rec[11])
				return *why = "stash reserved", 0;
			if (e == 0)
			{
				if (x != 0 || rec[8] != 0)
					return *why = "free stash record", 0;
				continue;
			}
			if (rec[8] > s->level || x >= (uint64_t) (s->nbuckets >> s->level) << rec[8] ||
				(e & ((UINT32_C(1) << (32 - s->basebits)) - 1)) == 0)
				return *why = "stash record", 0;
		}
	}
	if (!full)
		return 1;
	for (i = 0; i < r->nstages; i++)
	{
		ref_stage  *s = &r->st[i];
		const uint8_t *t = buf + s->table_off;
		uint64_t	nslots = (uint64_t) s->nbuckets * r->bucket_size;
		uint64_t	n = 0,
					k;
		uint64_t	used_bits = s->enc ? s->nbuckets * (4 * (uint64_t) s->fpbits - 4) :
			nslots * s->fpbits;

		if (s->geom == 4)
		{
			/* sorted, the free slots zero */
			for (k = 1; k < s->nitems; k++)
				if (ref_rd64(t + 8 * k) < ref_rd64(t + 8 * (k - 1)))
					return *why = "list not sorted", 0;
			for (k = s->nitems; k < s->nbuckets; k++)
				if (ref_rd64(t + 8 * k) != 0)
					return *why = "list free slot", 0;
			continue;
		}

		for (k = 0; k < nslots && !s->enc; k++)
		{
			uint32_t	v = ref_slot(t, s->table_bytes, k, s->fpbits);

			/* a split slot holds its end marker in its low W - F0 bits */
			if (s->geom == 3 && v != 0 && (v & ((UINT32_C(1) << (s->fpbits - s->basebits)) - 1)) == 0)
				return *why = "split slot without a marker", 0;
			n += v != 0;
		}
		for (k = 0; k < s->nbuckets && s->enc; k++)
		{
			uint32_t	v[4];

			if (!ref_semi_bucket(t, s->table_bytes, k, s->fpbits, v))
				return *why = "semi-sorted bucket not canonical", 0;
			for (uint32_t j = 0; j < 4; j++)
			{
				/* the same marker rule for a semi-sorted split table's values */
				if (s->geom == 3 && v[j] != 0 &&
					(v[j] & ((UINT32_C(1) << (s->fpbits - s->basebits)) - 1)) == 0)
					return *why = "split slot without a marker", 0;
				n += v[j] != 0;
			}
		}
		if (n != s->nitems)
			return *why = "nitems does not match table", 0;
		if (used_bits % 8 && (t[s->table_bytes - 1] >> (used_bits % 8)) != 0)
			return *why = "trailing bits", 0;
	}
	return 1;
}

/* slot k of bucket x of stage s, of either encoding (semi-sorted: the k-th smallest) */
static inline uint32_t
ref_split_slot(const ref_filter *r, const ref_stage *s, uint64_t x, uint32_t k)
{
	const uint8_t *t = r->buf + s->table_off;
	uint32_t	v[4];

	if (!s->enc)
		return ref_slot(t, s->table_bytes, x * r->bucket_size + k, s->fpbits);
	ref_semi_bucket(t, s->table_bytes, x, s->fpbits, v);
	return v[k];
}

/* copies of fp(h) in h's buckets of stage i (a bucket counted once) */
static inline uint32_t
ref_stage_count(const ref_filter *r, uint32_t i, uint64_t h)
{
	const ref_stage *s = &r->st[i];
	const uint8_t *t = r->buf + s->table_off;
	uint32_t	fp,
				b1,
				b2;
	uint32_t	n = 0,
				k;

	if (s->geom == 4)
	{
		for (k = 0; k < s->nitems; k++)
			n += ref_rd64(t + 8 * k) == h;
		return n;
	}
	if (s->geom == 3)
	{
		uint32_t	m0 = s->nbuckets >> s->level;

		uint32_t	H = (uint32_t) (h >> 32),
					F0 = s->basebits;
		uint64_t	prod = (uint64_t) H * m0;
		uint64_t	S = ((prod & 0xFFFFFFFFu) << 32) | (uint32_t) ((uint32_t) h << F0);
		uint64_t	kk = ref_mix64(((uint32_t) h >> (32 - F0)) + CF_HASH_SEED);
		uint32_t	hm = (uint32_t) (((kk & 0xFFFFFFFFu) * (uint64_t) m0) >> 32);
		uint64_t	x1 = prod >> 32,
					x2 = (uint32_t) (((int64_t) hm - (int64_t) (prod >> 32) + m0) % m0);

		for (uint32_t j = 1; j <= s->level; j++)
		{
			x1 = 2 * x1 + ref_sbit(S, j);
			x2 = 2 * x2 + (ref_sbit(S, j) ^ ref_sbit(kk, j));
		}
		for (k = 0; k < r->bucket_size; k++)
		{
			n += ref_split_match(ref_split_slot(r, s, x1, k), s->fpbits, F0, s->level, m0,
								 (uint32_t) x1, h);
			if (x2 != x1)
				n += ref_split_match(ref_split_slot(r, s, x2, k), s->fpbits, F0, s->level, m0,
									 (uint32_t) x2, h);
		}
		for (k = 0; k < s->nstash; k++)
		{
			const uint8_t *rec = t + s->table_bytes + 12 * k;

			n += ref_split_match(ref_rd32(rec + 4), 32, s->basebits, rec[8], m0, ref_rd32(rec), h);
		}
		return n;
	}
	ref_locate(s, h, &fp, &b1, &b2);

	if (s->enc)
	{
		uint32_t	v[4];

		ref_semi_bucket(t, s->table_bytes, b1, s->fpbits, v);
		for (k = 0; k < 4; k++)
			n += v[k] == fp;
		if (b2 != b1)
		{
			ref_semi_bucket(t, s->table_bytes, b2, s->fpbits, v);
			for (k = 0; k < 4; k++)
				n += v[k] == fp;
		}
		return n;
	}
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

/*
 * fingerprint width FORMAT.md / the README imply: smallest f >= 4 (6 with
 * bucket size 2) with 2b/2^f <= fpr
 */
static inline int
ref_fpbits_for(double fpr, int b)
{
	int			f;

	for (f = b == 2 ? 6 : CF_MIN_FPBITS; f <= CF_MAX_FPBITS; f++)
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
	uint32_t	geom;			/* version 2: 0 means chain */
	uint32_t	level;
	uint32_t	basebits;		/* version 2: 0 means fpbits - level */
} ref_desc;

/* header + descriptor bytes of a filter of the given version */
static inline size_t
ref_header_len_v(uint32_t version, uint32_t nstages)
{
	return version == 1 ? 16 + (size_t) 12 * nstages : 40 + (size_t) 16 * nstages;
}

static inline size_t
ref_header_len(uint32_t nstages)
{
	return ref_header_len_v(2, nstages);
}

/* writes a header of the given version (2: hashing 2, target 2b/2^fpbits) */
static inline void
ref_write_header_v(uint8_t *buf, uint32_t version, uint32_t b, uint32_t fpbits,
				   uint32_t nstages, uint32_t expansion, uint32_t max_kicks,
				   uint32_t capacity, const ref_desc *d)
{
	uint32_t	i;
	size_t		hdr = version == 1 ? 16 : 40;
	size_t		dsz = version == 1 ? 12 : 16;

	memset(buf, 0, ref_header_len_v(version, nstages));
	buf[0] = CF_MAGIC;
	buf[1] = (uint8_t) version;
	buf[3] = (uint8_t) b;
	buf[4] = (uint8_t) fpbits;
	buf[5] = (uint8_t) nstages;
	buf[6] = (uint8_t) expansion;
	ref_wr16(buf + 8, max_kicks);
	ref_wr32(buf + 12, capacity);
	if (version >= 2)
	{
		double		t = 2.0 * b / (double) (UINT64_C(1) << fpbits);

		if (t > 1.0)
			t = 1.0;
		uint64_t	tb;

		buf[7] = 2;
		memcpy(&tb, &t, 8);
		ref_wr32(buf + 16, (uint32_t) tb);
		ref_wr32(buf + 20, (uint32_t) (tb >> 32));
	}
	for (i = 0; i < nstages; i++)
	{
		uint8_t    *p = buf + hdr + dsz * i;

		ref_wr32(p, d[i].nbuckets);
		ref_wr32(p + 4, d[i].nitems);
		p[8] = (uint8_t) d[i].fpbits;
		if (version >= 2)
		{
			p[9] = (uint8_t) (d[i].geom ? d[i].geom : 2);
			p[10] = (uint8_t) d[i].level;
			p[11] = (uint8_t) (d[i].basebits ? d[i].basebits : d[i].fpbits);
			if (p[9] == 2 && p[11] + d[i].level > d[i].fpbits)
				p[11] = (uint8_t) (d[i].fpbits - d[i].level);
			if (p[9] == 2 && p[11] > 20)
				p[11] = 20;
		}
	}
	if (version == 3)
		ref_seal_v3(buf);
}

static inline void
ref_write_header(uint8_t *buf, uint32_t b, uint32_t fpbits, uint32_t nstages,
				 uint32_t expansion, uint32_t max_kicks, uint32_t capacity,
				 const ref_desc *d)
{
	/* version 2: the checks of crafted headers below reach their field's own check */
	ref_write_header_v(buf, 2, b, fpbits, nstages, expansion,
					   max_kicks, capacity, d);
}

/* stores fp in slot s (counted over the whole table) of width f */
static inline void
ref_set_slot(uint8_t *table, uint64_t s, uint32_t f, uint32_t fp)
{
	for (uint32_t k = 0; k < f; k++)
	{
		uint64_t	p = s * f + k;

		if ((fp >> k) & 1)
			table[p >> 3] |= (uint8_t) (1u << (p & 7));
		else
			table[p >> 3] &= (uint8_t) ~(1u << (p & 7));
	}
}

/*
 * Puts h into a free slot of its primary or alternate bucket of stage i of
 * the filter in buf (parsed as r), without kicks, and counts it in the
 * descriptor.  Returns 0 if both buckets are full.  For building version-1
 * filters, which the core no longer writes.
 */
static inline int
ref_place(ref_filter *r, uint8_t *buf, uint32_t i, uint64_t h)
{
	ref_stage  *s = &r->st[i];
	uint8_t    *t = buf + s->table_off;
	uint32_t	fp,
				b[2];
	size_t		dpos = r->version == 1 ? 16 + 12 * (size_t) i : 40 + 16 * (size_t) i;

	ref_locate(s, h, &fp, &b[0], &b[1]);
	for (int j = 0; j < 2; j++)
		for (uint32_t k = 0; k < r->bucket_size; k++)
		{
			uint64_t	slot = (uint64_t) b[j] * r->bucket_size + k;

			if (ref_slot(t, s->table_bytes, slot, s->fpbits) == 0)
			{
				ref_set_slot(t, slot, s->fpbits, fp);
				s->nitems++;
				ref_wr32(buf + dpos + 4, s->nitems);
				return 1;
			}
		}
	return 0;
}

#endif							/* CF_TEST_REF_H */
