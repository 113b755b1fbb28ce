/*
 * cuckoo_format.c - the byte format: what creating a filter shares (its
 * parameters checked, its header), opening and fully validating versions 1
 * and 2 through the geometries' tables, found in the registry cfi_open is
 * given, rewriting version 1 as 2 (the text form's base64 is
 * cuckoo_base64.c).  It names no geometry but version 1's legacy tables.
 */
#include "cuckoo_lookup.h"
#include "cuckoo_format.h"
#include "cuckoo_check.h"
#include "cuckoo_geom_iface.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * layout and parameters
 * ------------------------------------------------------------------- */

/*
 * The narrowest fingerprint cf_create uses for a bucket size.  With two
 * slots a bucket, 4- and 5-bit fingerprints key too few distinct alternate
 * buckets for the kick-out walks to reach the design load (0.3-0.9 of the
 * capacity was measured), so such filters get 6 bits: a lower rate than
 * asked, and a filter that holds its capacity.
 */
static int
min_fpbits(int bucket_size)
{
	return bucket_size == 2 ? 6 : CF_MIN_FPBITS;
}

int
cf_fpbits_for(double fpr, int bucket_size)
{
	/* smallest f with 2b / 2^f <= fpr; ldexp is exact, so no rounding */
	for (int f = min_fpbits(bucket_size); f <= CF_MAX_FPBITS; f++)
		if (ldexp(fpr, f) >= 2.0 * bucket_size)
			return f;
	return 0;
}

uint64_t
cf_nbuckets_for(uint64_t capacity, int bucket_size)
{
	uint64_t	per = (uint64_t) bucket_size * design_load_permille(bucket_size);
	uint64_t	m;

	if (capacity > UINT64_MAX / 1000)
		return UINT64_MAX;
	m = (capacity * 1000 + per - 1) / per;
	return m == 0 ? 1 : m;
}

/*
 * A value too short for its header: one message whatever the version (or
 * none, under 2 bytes) it gives, so that every reader reports it alike.
 */
static void
short_header_err(char *err, size_t errlen, size_t len)
{
	cfi_set_err(err, errlen, "value is shorter than a cuckoo filter header (length %zu; "
				"format version 1 has %d bytes, version 2 has %d)",
				len, CF_V1_HEADER_SIZE, CF_V2_HEADER_SIZE);
}

bool
cfi_check_params(const cf_params *p, char *err, size_t errlen)
{
	int			f;
	const cf_codec *codec;

	if (p->bucket_size != 2 && p->bucket_size != 4 && p->bucket_size != 8)
	{
		cfi_set_err(err, errlen, "bucket size must be 2, 4 or 8, not %d", p->bucket_size);
		return false;
	}
	if (!(p->fpr > 0.0 && p->fpr < 0.5))
	{
		cfi_set_err(err, errlen, "false-positive rate must be between 0 and 0.5 (exclusive), not %g", p->fpr);
		return false;
	}
	f = cf_fpbits_for(p->fpr, p->bucket_size);
	if (f == 0)
	{
		cfi_set_err(err, errlen, "false-positive rate %g is below what %d-bit fingerprints give with bucket size %d (%g)",
				p->fpr, CF_MAX_FPBITS, p->bucket_size, ldexp(2.0 * p->bucket_size, -CF_MAX_FPBITS));
		return false;
	}
	if (p->max_kicks < 0 || p->max_kicks > CF_MAX_KICKS_LIMIT)
	{
		cfi_set_err(err, errlen, "max_kicks must be between 0 and %d, not %d", CF_MAX_KICKS_LIMIT, p->max_kicks);
		return false;
	}
	if (p->expansion < 0 || !expansion_valid((uint32_t) p->expansion))
	{
		cfi_set_err(err, errlen, "expansion must be 0 (fixed size) or 1, 2, 4, 8 or 16, not %d", p->expansion);
		return false;
	}
	if (p->capacity < 1)
	{
		cfi_set_err(err, errlen, "capacity must be at least 1");
		return false;
	}
	if ((codec = cfi_codec_of(p->encoding)) == NULL)
	{
		cfi_set_err(err, errlen, "table encoding must be 0 (bit-packed) or 1 (semi-sorted), not %d", p->encoding);
		return false;
	}
	if (codec->bucket_size != 0 && (uint32_t) p->bucket_size != codec->bucket_size)
	{
		cfi_set_err(err, errlen, "%s buckets need bucket size %u, not %d", codec->name, codec->bucket_size,
					p->bucket_size);
		return false;
	}
	return true;
}

size_t
cfi_create_len(const cf_params *p, uint64_t m, uint32_t fpbits, char *err, size_t errlen)
{
	uint64_t	bytes = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE;

	if (p->capacity > UINT32_MAX || m > UINT32_MAX ||
		(bytes += table_bytes_for(m, p->bucket_size, fpbits, (uint32_t) p->encoding)) > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "capacity %llu with false-positive rate %g needs more than the 1 GB a value can hold",
				(unsigned long long) p->capacity, p->fpr);
		return 0;
	}
	return (size_t) bytes;
}

static inline uint64_t
double_bits(double x)
{
	uint64_t	v;

	memcpy(&v, &x, sizeof(v));
	return v;
}

static inline double
bits_double(uint64_t v)
{
	double		x;

	memcpy(&x, &v, sizeof(x));
	return x;
}

/* a version-2 sub-filter descriptor */
void
cfi_write_desc(uint8_t *d, const cf_stage *st)
{
	put_le32(d, st->nbuckets);
	put_le32(d + DESC_NITEMS, st->nitems);
	d[DESC_FPBITS] = (uint8_t) st->fpbits;
	d[DESC_GEOM] = (uint8_t) st->geom;
	d[DESC_LEVEL] = (uint8_t) st->level;
	d[DESC_BASEBITS] = (uint8_t) st->basebits;
	d[DESC_ENC] = (uint8_t) st->enc;
	/* zero unless the geometry has a stash count (cfi_geometry.stash): open_v2 sets it so */
	put_le16(d + DESC_NSTASH, (uint16_t) st->nstash);
	d[DESC_RESERVED] = 0;
}

/*
 * the version-3 header of f, except nstages (byte 5) and the check byte
 * (cfi_seal writes it once the descriptors are written)
 */
void
cfi_write_header(uint8_t *buf, const cf_filter *f)
{
	buf[HDR_MAGIC] = CF_MAGIC;
	buf[HDR_VERSION] = CF_FORMAT_VERSION;
	buf[HDR_FLAGS] = 0;
	buf[HDR_BUCKET_SIZE] = (uint8_t) f->bucket_size;
	buf[HDR_FPBITS] = (uint8_t) f->fpbits;
	buf[HDR_EXPANSION] = (uint8_t) f->expansion;
	buf[HDR_HASHING] = (uint8_t) f->hashing;
	put_le16(buf + HDR_MAX_KICKS, (uint16_t) f->max_kicks);
	buf[HDR_KIND] = (uint8_t) f->kind;
	buf[HDR_RESERVED] = 0;
	put_le32(buf + HDR_CAPACITY, f->capacity);
	put_le64(buf + HDR_TARGET_FPR, double_bits(f->target_fpr));
	put_le64(buf + HDR_DELETES, f->deletes);
	put_le64(buf + HDR_RETAINED, f->retained);
}

void
cfi_create_header(uint8_t *buf, const cf_params *p, uint32_t fpbits)
{
	cf_filter	f;

	memset(&f, 0, sizeof(f));
	f.bucket_size = (uint32_t) p->bucket_size;
	f.fpbits = fpbits;
	f.expansion = (uint32_t) p->expansion;
	f.hashing = CF_HASHING_V2;
	f.max_kicks = (uint32_t) p->max_kicks;
	f.capacity = (uint32_t) p->capacity;
	f.target_fpr = p->fpr;
	cfi_write_header(buf, &f);
	buf[HDR_NSTAGES] = 1;
}

/* ---------------------------------------------------------------------
 * opening and validation
 * ------------------------------------------------------------------- */

/*
 * checks what both versions require of the header fields in f, and that
 * the len bytes hold its header and descriptors
 */
static bool
check_header(const cf_filter *f, size_t len, char *err, size_t errlen)
{
	if (f->bucket_size != 2 && f->bucket_size != 4 && f->bucket_size != 8)
	{
		cfi_set_err(err, errlen, "bucket size %u is not 2, 4 or 8", f->bucket_size);
		return false;
	}
	if (f->fpbits < CF_MIN_FPBITS || f->fpbits > CF_MAX_FPBITS)
	{
		cfi_set_err(err, errlen, "fingerprint width %u is not between %d and %d bits",
				f->fpbits, CF_MIN_FPBITS, CF_MAX_FPBITS);
		return false;
	}
	if (f->nstages < 1 || f->nstages > CF_MAX_STAGES)
	{
		cfi_set_err(err, errlen, "sub-filter count %u is not between 1 and %d", f->nstages, CF_MAX_STAGES);
		return false;
	}
	if (f->expansion > CF_MAX_EXPANSION)
	{
		cfi_set_err(err, errlen, "expansion %u is above %d", f->expansion, CF_MAX_EXPANSION);
		return false;
	}
	if (f->capacity < 1)
	{
		cfi_set_err(err, errlen, "capacity is zero");
		return false;
	}
	if (len < f->hdrlen)
	{
		cfi_set_err(err, errlen, "value has %zu bytes, but its header and sub-filter descriptors take %u",
				len, f->hdrlen);
		return false;
	}
	return true;
}

/*
 * What a table geometry (legacy, chain, split) requires first of st, the
 * descriptor of sub-filter k: buckets, a fingerprint width, an item count
 * its slots can hold.
 */
bool
cfi_check_slots(const cf_filter *f, const cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (st->nbuckets < 1)
	{
		cfi_set_err(err, errlen, "sub-filter %u has no buckets", k);
		return false;
	}
	if (st->fpbits < CF_MIN_FPBITS || st->fpbits > CF_MAX_FPBITS)
	{
		cfi_set_err(err, errlen, "sub-filter %u has fingerprint width %u, not between %d and %d bits",
				k, st->fpbits, CF_MIN_FPBITS, CF_MAX_FPBITS);
		return false;
	}
	if ((uint64_t) st->nitems > (uint64_t) st->nbuckets * f->bucket_size)
	{
		cfi_set_err(err, errlen, "sub-filter %u has an item count of %u but only %llu slots", k,
				st->nitems, (unsigned long long) st->nbuckets * f->bucket_size);
		return false;
	}
	return true;
}

bool
cfi_unknown_geometry(const cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	cfi_set_err(err, errlen, "sub-filter %u has an unknown geometry (%u, level %u, base width %u)",
			k, st->geom, st->level, st->basebits);
	return false;
}

/*
 * Checks st, the parsed descriptor of sub-filter k, by its geometry's
 * table g (NULL: a geometry this build does not know), sets it up and
 * keeps g in it.
 */
static bool
check_stage(const cf_filter *f, cf_stage *st, uint32_t k, const cfi_geometry *g,
			char *err, size_t errlen)
{
	if (g == NULL)
		return cfi_check_slots(f, st, k, err, errlen) && cfi_unknown_geometry(st, k, err, errlen);
	ENG(st)->ops = g;
	return g->check(f, st, k, err, errlen);
}

/* the header and descriptors of version 1 */
static bool
open_v1(cf_filter *f, uint8_t *buf, size_t len, const cfi_registry *reg, char *err, size_t errlen)
{
	if (len < CF_V1_HEADER_SIZE)
	{
		short_header_err(err, errlen, len);
		return false;
	}
	if (buf[HDR_FLAGS] != 0 || buf[HDR_HASHING] != 0 || get_le16(buf + HDR_KIND) != 0)
	{
		cfi_set_err(err, errlen, "reserved header fields are not zero");
		return false;
	}
	f->bucket_size = buf[HDR_BUCKET_SIZE];
	f->fpbits = buf[HDR_FPBITS];
	f->nstages = buf[HDR_NSTAGES];
	f->expansion = buf[HDR_EXPANSION];
	f->max_kicks = get_le16(buf + HDR_MAX_KICKS);
	f->capacity = get_le32(buf + HDR_CAPACITY);
	f->hashing = CF_HASHING_V1;
	f->kind = CF_KIND_NONE;
	f->target_fpr = fmin(ldexp(2.0 * f->bucket_size, -(int) f->fpbits), 1.0);
	f->deletes = f->retained = 0;
	f->hdrlen = CF_V1_HEADER_SIZE + CF_V1_STAGE_SIZE * f->nstages;
	if (!check_header(f, len, err, errlen))
		return false;
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];
		uint8_t    *d = buf + CF_V1_HEADER_SIZE + (size_t) CF_V1_STAGE_SIZE * k;

		st->desc = d;
		st->nbuckets = get_le32(d);
		st->nitems = get_le32(d + DESC_NITEMS);
		st->fpbits = st->basebits = d[DESC_FPBITS];
		st->geom = CF_GEOM_LEGACY;
		st->level = 0;
		st->enc = CF_ENC_PACKED;
		st->nstash = 0;
		st->stash = NULL;
		if (d[DESC_GEOM] != 0 || d[DESC_LEVEL] != 0 || d[DESC_BASEBITS] != 0)
		{
			cfi_set_err(err, errlen, "reserved bytes of sub-filter %u are not zero", k);
			return false;
		}
		if (!check_stage(f, st, k, cfi_geometry_at(reg, st->geom), err, errlen))
			return false;
	}
	return true;
}

/*
 * the header and descriptors of version 2, or of version 3 (the same
 * layout, whose check bytes cfi_check_v3 has checked: its reserved bytes
 * are the check bytes)
 */
static bool
open_v2(cf_filter *f, uint8_t *buf, size_t len, const cfi_registry *reg, char *err, size_t errlen)
{
	bool		v3 = buf[HDR_VERSION] == 3;

	if (len < CF_V2_HEADER_SIZE)
	{
		short_header_err(err, errlen, len);
		return false;
	}
	if (buf[HDR_FLAGS] != 0 || (!v3 && buf[HDR_RESERVED] != 0))
	{
		cfi_set_err(err, errlen, "reserved header fields are not zero");
		return false;
	}
	f->bucket_size = buf[HDR_BUCKET_SIZE];
	f->fpbits = buf[HDR_FPBITS];
	f->nstages = buf[HDR_NSTAGES];
	f->expansion = buf[HDR_EXPANSION];
	f->hashing = buf[HDR_HASHING];
	f->max_kicks = get_le16(buf + HDR_MAX_KICKS);
	f->kind = buf[HDR_KIND];
	f->capacity = get_le32(buf + HDR_CAPACITY);
	f->target_fpr = bits_double(get_le64(buf + HDR_TARGET_FPR));
	f->deletes = get_le64(buf + HDR_DELETES);
	f->retained = get_le64(buf + HDR_RETAINED);
	f->hdrlen = CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE * f->nstages;
	if (!check_header(f, len, err, errlen))
		return false;
	if (!expansion_valid(f->expansion))
	{
		cfi_set_err(err, errlen, "expansion %u is not 0 or a power of two", f->expansion);
		return false;
	}
	if (f->hashing != CF_HASHING_V1 && f->hashing != CF_HASHING_V2)
	{
		cfi_set_err(err, errlen, "value hashing %u is not 1 or 2", f->hashing);
		return false;
	}
	if (!(f->target_fpr > 0.0 && f->target_fpr <= 1.0))
	{
		cfi_set_err(err, errlen, "target false-positive rate %g is not in (0, 1]", f->target_fpr);
		return false;
	}
	/* FORMAT.md "Value kinds": 0, 1..16, 255 (CF_KIND_TIMESTAMPTZ is the last) */
	if (f->kind > CF_KIND_TIMESTAMPTZ && f->kind != CF_KIND_ANY)
	{
		cfi_set_err(err, errlen, "value kind %u is not 0, 1 to 16 or 255", f->kind);
		return false;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];
		uint8_t    *d = buf + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * k;
		const cfi_geometry *g;
		const cf_codec *codec;
		bool		stash;

		st->desc = d;
		st->nbuckets = get_le32(d);
		st->nitems = get_le32(d + DESC_NITEMS);
		st->fpbits = d[DESC_FPBITS];
		st->geom = d[DESC_GEOM];
		st->level = d[DESC_LEVEL];
		st->basebits = d[DESC_BASEBITS];
		st->enc = d[DESC_ENC];
		if ((codec = cfi_codec_of(d[DESC_ENC])) == NULL)
		{
			cfi_set_err(err, errlen, "sub-filter %u uses table encoding %u, which this version does not read",
					k, d[DESC_ENC]);
			return false;
		}
		if (codec->bucket_size != 0 && f->bucket_size != codec->bucket_size)
		{
			cfi_set_err(err, errlen, "sub-filter %u is %s (encoding %u), which needs bucket size %u, not %u",
					k, codec->name, codec->enc, codec->bucket_size, f->bucket_size);
			return false;
		}
		g = cfi_geometry_at(reg, st->geom);
		stash = g != NULL && g->stash;
		st->nstash = stash ? get_le16(d + DESC_NSTASH) : 0;
		st->stash = NULL;
		if ((!stash && (d[DESC_NSTASH] != 0 || d[DESC_NSTASH + 1] != 0)) || (!v3 && d[DESC_RESERVED] != 0))
		{
			cfi_set_err(err, errlen, "reserved bytes of sub-filter %u are not zero", k);
			return false;
		}
		if (!check_stage(f, st, k, g, err, errlen))
			return false;
	}
	return true;
}

/*
 * false, the message in err marked as damage when the value is version 3:
 * its check bytes matched (or it would have been reported so), so its
 * header and descriptors are as a writer wrote them and what is wrong is
 * a counter or a table, which no writer leaves wrong
 */
static bool
corrupt_if_v3(const uint8_t *buf, char *err, size_t errlen)
{
	if (buf[HDR_VERSION] == 3)
		cfi_mark_corrupt(err, errlen);
	return false;
}

bool
cfi_open(cf_filter *f, uint8_t *buf, size_t len, const cfi_registry *reg, char *err, size_t errlen)
{
	size_t		off;
	bool		ok;

	if (len < 2)
	{
		short_header_err(err, errlen, len);
		return false;
	}
	if (buf[HDR_MAGIC] != CF_MAGIC)
	{
		cfi_set_err(err, errlen, "value does not start with the cuckoo filter magic byte");
		return false;
	}
	f->buf = buf;
	f->len = len;
	f->journal = NULL;
	ENG(&f->stages[0])->geoms = reg;
	f->version = buf[HDR_VERSION];
	/*
	 * version 3 has version 2's layout; its check bytes are checked where
	 * bytes enter (cfi_validate, cf_verify), not on every open of a stored
	 * value
	 */
	if (buf[HDR_VERSION] == 3 || buf[HDR_VERSION] == 2)
		ok = open_v2(f, buf, len, reg, err, errlen);
	else if (buf[HDR_VERSION] == 1)
		ok = open_v1(f, buf, len, reg, err, errlen);
	else
	{
		cfi_set_err(err, errlen, "format version %u is not supported (this build reads versions 1 to 3)",
				buf[HDR_VERSION]);
		return false;
	}
	if (!ok)
		return corrupt_if_v3(buf, err, errlen);
	off = f->hdrlen;
	f->split = -1;
	for (uint32_t k = 0; k < f->nstages; k++)
	{
		cf_stage   *st = &f->stages[k];

		st->journal = NULL;
		if (stage_data_bytes(st) > len - off)
		{
			cfi_set_err(err, errlen, "value has %zu bytes, too short for the table of sub-filter %u (%zu bytes at offset %zu)",
					len, k, stage_data_bytes(st), off);
			return corrupt_if_v3(buf, err, errlen);
		}
		st->table = buf + off;
		off += stage_data_bytes(st);
		if (cfi_geometry_of(st)->attach != NULL && !cfi_geometry_of(st)->attach(f, k, err, errlen))
			return corrupt_if_v3(buf, err, errlen);
	}
	if (off != len)
	{
		cfi_set_err(err, errlen, "value has %zu bytes but its header describes %zu", len, off);
		return corrupt_if_v3(buf, err, errlen);
	}
	cfi_setup_lookup(f);
	return true;
}

/*
 * The table of sub-filter k of f, fully checked: each slot empty or an
 * entry with one of the bits 'markers' set (a split table's entries end
 * with a marker, FORMAT.md), as many entries as its item count, the bits
 * past its last bucket zero; a semi-sorted table's buckets each as
 * cf_semi_pack writes them.
 */
bool
cfi_scan_table(const cf_filter *f, uint32_t k, uint32_t markers, char *err, size_t errlen)
{
	const cf_stage *st = &f->stages[k];
	uint64_t	used_bits = (uint64_t) st->nbuckets * st->bucket_bits;
	uint64_t	n = 0;

	if (!cfi_codec_of((int) st->enc)->scan(st, f->bucket_size, k, markers, &n, err, errlen))
		return false;
	if (n != st->nitems)
	{
		cfi_set_err(err, errlen, "sub-filter %u has an item count of %u but %llu occupied slots",
				k, st->nitems, (unsigned long long) n);
		return false;
	}
	if ((used_bits & 7) != 0 &&
		(st->table[st->table_bytes - 1] >> (used_bits & 7)) != 0)
	{
		cfi_set_err(err, errlen, "unused bits at the end of sub-filter %u are not zero", k);
		return false;
	}
	return true;
}

bool
cfi_validate(const uint8_t *buf, size_t len, const cfi_registry *reg, char *err, size_t errlen)
{
	cf_filter	f;

	/* version 3: the check bytes first, so that a flipped bit is reported as such */
	if (len >= 2 && buf[HDR_MAGIC] == CF_MAGIC && buf[HDR_VERSION] == 3 &&
		!cfi_check_v3(buf, len, err, errlen))
		return false;
	/* cfi_open only reads; the cast lets the one parser serve both */
	if (!cfi_open(&f, (uint8_t *) buf, len, reg, err, errlen))
		return false;
	for (uint32_t k = 0; k < f.nstages; k++)
		if (!cfi_geometry_of(&f.stages[k])->scan(&f, k, err, errlen))
			return corrupt_if_v3(buf, err, errlen);
	return true;
}

/* ---------------------------------------------------------------------
 * version 1 rewritten as version 2
 * ------------------------------------------------------------------- */

size_t
cf_upgrade_size(const cf_filter *f)
{
	return f->len - f->hdrlen + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * f->nstages;
}

void
cfi_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result, const cfi_registry *reg)
{
	size_t		hdr = CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * f->nstages;

	cfi_write_header(out, f);
	out[HDR_NSTAGES] = (uint8_t) f->nstages;
	/* version 1 allows any expansion up to 16; version 2 powers of two */
	if (!expansion_valid(f->expansion))
	{
		uint32_t	e = 1;

		while (e < f->expansion)
			e <<= 1;
		out[HDR_EXPANSION] = (uint8_t) e;
	}
	for (uint32_t k = 0; k < f->nstages; k++)
		cfi_write_desc(out + CF_V2_HEADER_SIZE + (size_t) CF_V2_STAGE_SIZE * k, &f->stages[k]);
	memcpy(out + hdr, f->buf + f->hdrlen, f->len - f->hdrlen);
	cfi_seal(out);
	if (!cfi_open(result, out, hdr + f->len - f->hdrlen, reg, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}
