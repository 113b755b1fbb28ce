/*
 * test_main.c - runs the core test suite: each test by name, then a final
 * "core: N passed, M failed" line.  Usage: test_core [group-or-test ...]
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tests.h"

typedef struct test_entry
{
	const char *group;
	const char *name;
	void		(*fn) (void);
} test_entry;

#define T(g, f) { g, #f, f }
static const test_entry tests[] = {
	/* unit tests of the public functions */
	/* issue 48: one flipped bit, in the header and descriptors and in the tables */
	T("integrity", test_flip_header),
	T("integrity", test_flip_table),
	T("unit", test_hash),
	T("unit", test_fpbits_for),
	T("unit", test_nbuckets_for),
	T("unit", test_create_params),
	T("unit", test_create_layout),
	T("unit", test_error_truncation),
	T("unit", test_add_contains_count_delete),
	T("unit", test_multiset_bucket_limit),
	T("unit", test_delete_absent),
	T("unit", test_full_unchanged),
	T("unit", test_format_conformance),
	T("unit", test_grow),
	T("unit", test_insert_growth),
	T("unit", test_cannot_grow),
	T("unit", test_union),
	T("unit", test_union_incompatible),
	T("unit", test_union_fold),
	T("unit", test_union_then_add),
	T("unit", test_union_errors),
	T("unit", test_union_stage_limit),
	T("unit", test_stats),
	T("unit", test_base64_vectors),
	T("unit", test_base64_reject),
	T("unit", test_base64_filter_roundtrip),
	T("unit", test_determinism),
	T("unit", test_journal),
	T("unit", test_set_counters),
	T("unit", test_duplicate_growth),
	T("unit", test_failed_add_bounded),
	T("unit", test_lookup_paths),
	T("unit", test_geom_ops),
	T("unit", test_geom_reopen),
	T("unit", test_geom_created),
	T("split", test_split_schedule),
	T("split", test_split_growth),
	T("split", test_split_stash),
	T("split", test_split_union),
	T("split", test_split_union_copies),
	T("split", test_split_union_precision),
	T("split", test_split_hostile),
	T("split", test_split_build),
	T("split", test_split_semisort),
	T("split", test_split_wide),
	/* list sub-filters (geometry 4) */
	T("list", test_list_basic),
	T("list", test_list_grow),
	T("list", test_list_union_fold),
	T("list", test_list_union_precision),
	T("list", test_list_union_other),
	T("list", test_list_hostile),
	T("list", test_list_no_cliff),
	T("list", test_list_union_m0),
	T("list", test_list_api),
	/* the bulk build */
	T("build", test_build_geometries),
	T("build", test_build_unsorted),
	T("build", test_build_deterministic),
	T("build", test_build_runs),
	T("build", test_build_refusals),
	T("build", test_build_small_sets),
	/* sorting hashes for the bulk build */
	T("sort", test_sort_random),
	T("sort", test_sort_repeats),
	T("sort", test_sort_chosen),
	T("sort", test_sort_runs),
	/* adversarial validator */
	T("validate", test_validate_truncated),
	T("validate", test_validate_byte_corruption),
	T("validate", test_validate_crafted),
	T("validate", test_validate_table_corruption),
	/* model-based random test */
	T("semisort", test_semisort_codec),
	T("semisort", test_semisort_params),
	T("semisort", test_semisort_same_sets),
	T("semisort", test_semisort_full_unchanged),
	T("semisort", test_semisort_grow_union_build),
	T("semisort", test_semisort_validate),
	T("semisort", test_semisort_encoding_of),

	/* the Rice code of cf_aggstate version 2 */
	T("rice", test_rice_param),
	T("rice", test_rice_edges),
	T("rice", test_rice_golden),
	T("rice", test_rice_hostile),
	T("rice", test_rice_model),

	T("model", test_model_small),
	T("model", test_model_large),
	T("model", test_model_list_base),
	/* random geometries and seeds for CF_TEST_SECONDS (make soak) */
	T("soak", test_model_soak),
	/* measured false-positive rates and load */
	T("fpr", test_fpr_widths),
	T("fpr", test_fpr_growth),
	T("fpr", test_load_factor),
	T("fpr", test_bits_per_item),
	T("fpr", test_growth_shape),
	T("fpr", test_churn_window),
	T("fpr", test_churn_two_families),
};

static int
selected(const test_entry *t, int argc, char **argv)
{
	int			i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], t->group) == 0 || strcmp(argv[i], t->name) == 0)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	const char *s = getenv("CF_TEST_SCALE");
	int			passed = 0,
				failed = 0;
	size_t		i;
	double		t0 = t_now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s && *s)
		t_scale = atof(s);
	if (t_scale <= 0)
		t_scale = 1.0;
	s = getenv("CF_TEST_STRICT");
	t_strict = s && *s && strcmp(s, "0") != 0;
	s = getenv("CF_TEST_FULL");
	t_full = s && *s && strcmp(s, "0") != 0;
	if (t_full)
		printf("core: the complete workloads (CF_TEST_FULL)\n");
	if (t_scale != 1.0)
		printf("core: workload scaled by %g (CF_TEST_SCALE)\n", t_scale);

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
	{
		double		t1;

		if (!selected(&tests[i], argc, argv))
			continue;
		printf("%s/%s\n", tests[i].group, tests[i].name);
		t_failures = 0;
		t1 = t_now();
		tests[i].fn();
		if (t_failures == 0)
		{
			passed++;
			printf("  ok   %s (%.2f s)\n", tests[i].name, t_now() - t1);
		}
		else
		{
			failed++;
			printf("  FAIL %s: %d failed checks (%.2f s)\n", tests[i].name, t_failures,
				   t_now() - t1);
		}
	}
	if (t_known)
		printf("core: %d checks hit known core bugs (see KNOWN CORE BUG above)\n", t_known);
	printf("core: %.1f s cpu\n", t_now() - t0);
	printf("core: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
