/*
 * cuckoo_geometries.c - the registry of geometries: each geometry's table
 * (cuckoo_geom_iface.h) at its descriptor byte, the one place a geometry
 * byte meets its table, and the one place the geometry of a new filter is
 * chosen (cf_create).  It stands above every geometry's module: cf_open
 * passes the registry down to the format layer, which keeps it in the
 * filter for the modules' rewrites.  Plain C99.
 */
#include "cuckoo_geom.h"

const cfi_registry cfi_geometries = {{
	[CF_GEOM_LEGACY] = &cfi_geom_legacy,
	[CF_GEOM_CHAIN] = &cfi_geom_chain,
	[CF_GEOM_SPLIT] = &cfi_geom_split,
	[CF_GEOM_LIST] = &cfi_geom_list,
}};

/* a filter without a sub-filter that grows in place grows by an appended chain table */
const cfi_geometry *const cfi_geom_appended = &cfi_geom_chain;

/*
 * What a caller's cf_params.geometry asks for, most wanted first: a new
 * filter gets the first of them that takes its parameters (the last takes
 * any).  A growing filter (CF_GROWING, or CF_GEOM_LIST by its number)
 * starts as a list of hashes that becomes a split table, or as that split
 * table when it has no room for a list, or as a chain table when the rate
 * is below the split schedule's (or it has no expansion); CF_GEOM_SPLIT
 * skips the list; anything else (CF_BUILT_AT_ONCE) is a chain table.
 */
static const cfi_geometry *const growing[] = {&cfi_geom_list, &cfi_geom_split, &cfi_geom_chain};
static const cfi_geometry *const split_table[] = {&cfi_geom_split, &cfi_geom_chain};
static const cfi_geometry *const built_at_once[] = {&cfi_geom_chain};

/* the geometry of a new filter of p (checked by cfi_check_params) */
static const cfi_geometry *
new_geometry(const cf_params *p)
{
	const cfi_geometry *const *ask = p->geometry == CF_GROWING || p->geometry == CF_GEOM_LIST ? growing :
		p->geometry == CF_GEOM_SPLIT ? split_table : built_at_once;

	while (!(*ask)->takes(p))
		ask++;
	return *ask;
}

size_t
cf_create_size(const cf_params *p, char *err, size_t errlen)
{
	if (!cfi_check_params(p, err, errlen))
		return 0;
	return new_geometry(p)->create_size(p, err, errlen);
}

void
cf_create(uint8_t *buf, const cf_params *p)
{
	new_geometry(p)->create(buf, p);
}
