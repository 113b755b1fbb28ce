/*
 * cuckoo_verify.c - cf_verify: the full check of a filter's bytes that
 * reports what it finds (the SQL cf_verify, libcuckoo's and Python's
 * Filter.verify all call it): the header and descriptors as cf_open reads
 * them (version 3: their check bytes first), then every sub-filter's table
 * scanned by its geometry on its own (cf_validate's scan), so that one
 * damaged table does not hide another.  Safe on any bytes: it reads them
 * only through cf_open and the geometries' scans, which bound every read by
 * the value's length.
 */
#include "cuckoo_format.h"
#include "cuckoo_check.h"
#include "cuckoo_geom_iface.h"

#include <stdio.h>

static void
add_problem(cf_verify_result *r, const char *msg)
{
	if (r->nproblems < CF_VERIFY_MAX)
		snprintf(r->problems[r->nproblems], CF_VERIFY_MSGLEN, "%s", msg);
	r->nproblems++;
	r->ok = false;
}

bool
cf_verify(const uint8_t *buf, size_t len, cf_verify_result *r)
{
	cf_filter	f;
	char		err[CF_ERRLEN];

	memset(r, 0, sizeof(*r));
	r->ok = true;
	if (buf == NULL)
	{
		add_problem(r, "no bytes");
		return false;
	}
	if (len >= 2 && buf[HDR_MAGIC] == CF_MAGIC)
		r->version = buf[HDR_VERSION];
	err[0] = '\0';
	/* version 3: the check bytes first, as cf_validate */
	if (r->version == 3 && !cfi_check_v3(buf, len, err, sizeof(err)))
	{
		add_problem(r, err);
		return false;
	}
	/* cf_open only reads; the cast lets the one parser serve both */
	if (!cf_open(&f, (uint8_t *) buf, len, err, sizeof(err)))
	{
		add_problem(r, err);
		return false;
	}
	r->nstages = f.nstages;
	for (uint32_t k = 0; k < f.nstages; k++)
	{
		err[0] = '\0';
		if (!cfi_geometry_of(&f.stages[k])->scan(&f, k, err, sizeof(err)))
		{
			if (f.version == 3)
				cfi_mark_corrupt(err, sizeof(err));
			add_problem(r, err);
		}
		else
			r->items += f.stages[k].nitems;
	}
	return r->ok;
}
