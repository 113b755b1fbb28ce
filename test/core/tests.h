/*
 * tests.h - the test functions of the core suite, by file.
 */
#ifndef CF_TESTS_H
#define CF_TESTS_H

/* test_unit.c */
void		test_hash(void);
void		test_fpbits_for(void);
void		test_nbuckets_for(void);
void		test_create_params(void);
void		test_create_layout(void);
void		test_error_truncation(void);
void		test_add_contains_count_delete(void);
void		test_multiset_bucket_limit(void);
void		test_delete_absent(void);
void		test_full_unchanged(void);
void		test_format_conformance(void);
void		test_grow(void);
void		test_insert_growth(void);
void		test_cannot_grow(void);
void		test_union(void);
void		test_union_incompatible(void);
void		test_union_fold(void);
void		test_union_then_add(void);
void		test_union_errors(void);
void		test_union_stage_limit(void);
void		test_stats(void);
void		test_base64_vectors(void);
void		test_base64_reject(void);
void		test_base64_filter_roundtrip(void);
void		test_determinism(void);
void		test_journal(void);
void		test_set_counters(void);
void		test_duplicate_growth(void);
void		test_failed_add_bounded(void);
void		test_lookup_paths(void);
void		test_geom_ops(void);
void		test_geom_reopen(void);
void		test_geom_created(void);
void		test_growth_shape(void);
void		test_churn_window(void);
void		test_churn_two_families(void);

/* test_list.c */
void		test_list_basic(void);
void		test_list_grow(void);
void		test_list_union_fold(void);
void		test_list_union_precision(void);
void		test_list_union_other(void);
void		test_list_hostile(void);
void		test_list_no_cliff(void);
void		test_list_union_m0(void);
void		test_list_api(void);

/* test_split.c */
void		test_split_schedule(void);
void		test_split_growth(void);
void		test_split_stash(void);
void		test_split_union(void);
void		test_split_union_copies(void);
void		test_split_union_precision(void);
void		test_split_hostile(void);
void		test_split_build(void);
void		test_split_semisort(void);
void		test_split_wide(void);

/* test_build.c */
void		test_build_geometries(void);
void		test_build_unsorted(void);
void		test_build_deterministic(void);
void		test_build_runs(void);
void		test_build_refusals(void);
void		test_build_small_sets(void);

/* test_sort.c */
void		test_sort_random(void);
void		test_sort_repeats(void);
void		test_sort_chosen(void);
void		test_sort_runs(void);

/* test_validate.c */
void		test_validate_truncated(void);
void		test_validate_byte_corruption(void);
void		test_validate_crafted(void);
void		test_validate_table_corruption(void);

/* test_semisort.c */
void		test_semisort_codec(void);
void		test_semisort_params(void);
void		test_semisort_same_sets(void);
void		test_semisort_full_unchanged(void);
void		test_semisort_grow_union_build(void);
void		test_semisort_validate(void);
void		test_semisort_encoding_of(void);

/* test_rice.c */
void		test_rice_param(void);
void		test_rice_edges(void);
void		test_rice_golden(void);
void		test_rice_hostile(void);
void		test_rice_model(void);

/* test_model.c */
void		test_model_small(void);
void		test_model_large(void);
void		test_model_list_base(void);
void		test_model_soak(void);

/* test_fpr.c */
void		test_fpr_widths(void);
void		test_fpr_growth(void);
void		test_load_factor(void);
void		test_bits_per_item(void);

/* test_integrity.c */
void		test_flip_header(void);
void		test_flip_table(void);

#endif							/* CF_TESTS_H */
