/*
 * cuckoo_geom.c - what the geometries (cuckoo_geom.h) share at the filter
 * level: a filter laid out again with more sub-filters, and the header
 * counters of a union.  Plain C99.
 */
#include "cuckoo_geom.h"
#include "cuckoo_check.h"

#include <stdlib.h>

/*
 * Writes f (version 2) plus 'extra' sub-filters into out and re-opens f on
 * out (with its registry): the header, f's descriptors, the new descriptors
 * (descs), f's tables, then the new tables (tables[k], or zeros when
 * tables is NULL).
 * out may be f->buf itself when it has room: the tables are moved before
 * anything overwrites them.
 */
void
cfi_splice_stages(cf_filter *f, uint8_t *out, uint32_t extra,
				  const uint8_t *descs, const uint8_t *const *tables)
{
	size_t		hdr = f->hdrlen;
	size_t		body = f->len - hdr;
	size_t		off = hdr + (size_t) CF_V2_STAGE_SIZE * extra;

	const cfi_registry *reg = cfi_registry_of(f);

	memmove(out + off, f->buf + hdr, body);
	if (out != f->buf)
		memcpy(out, f->buf, hdr);
	memcpy(out + hdr, descs, (size_t) CF_V2_STAGE_SIZE * extra);
	out[HDR_NSTAGES] = (uint8_t) (f->nstages + extra);
	off += body;
	for (uint32_t k = 0; k < extra; k++)
	{
		const uint8_t *d = descs + (size_t) CF_V2_STAGE_SIZE * k;
		/* a stash count is zero where the geometry has none (cfi_write_desc) */
		size_t		tb = (size_t) table_bytes_for(get_le32(d), f->bucket_size, d[DESC_FPBITS], d[DESC_ENC]) +
			(size_t) get_le16(d + DESC_NSTASH) * CF_SPLIT_STASH_REC;

		if (tables)
			memcpy(out + off, tables[k], tb);
		else
			memset(out + off, 0, tb);
		off += tb;
	}
	cfi_seal(out);
	if (!cfi_open(f, out, off, reg, NULL, 0))
		abort();				/* cannot happen: built from a valid filter */
}

/*
 * The header fields of a union r of a and b written at out: the value kind
 * (b's where a has none or b holds any), deletes and retained summed.
 */
void
cfi_union_counters(const cf_filter *a, const cf_filter *b, uint8_t *out, cf_filter *r)
{
	r->kind = a->kind == CF_KIND_NONE || b->kind == CF_KIND_ANY ? b->kind : a->kind;
	r->deletes = a->deletes + b->deletes;
	r->retained = a->retained + b->retained;
	out[HDR_KIND] = (uint8_t) r->kind;
	put_le64(out + HDR_DELETES, r->deletes);
	put_le64(out + HDR_RETAINED, r->retained);
	cfi_seal(out);
	r->version = 3;
}
