-- stored_answers.sql - every answer the filters of stored_filters.sql give:
-- each filter's text, send bytes and cf_info; for each filter, a digest of
-- the cf_contains / cf_count / @> answers of all its values, how many
-- added values it misses (must be 0: no false negatives) and how many
-- answers are NULL (must be 0).
SET timezone = 'UTC';
-- (cf_info's 1.0 columns: 1.1 appends more where no view uses cf_info)
SELECT 'filter', name, origin, md5(f::text), md5(cuckoofilter_send(f)),
       ROW(i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.load_factor,
           i.fpr, i.bytes, i.subfilters)::text, pg_column_size(f)
  FROM filters, cf_info(f) i ORDER BY name;
SELECT 'answers', fname, count(*),
       md5(string_agg(kind || ':' || v || '=' || a, ',' ORDER BY kind, v, copies)),
       count(*) FILTER (WHERE copies > 0 AND a NOT LIKE 'true/%') AS missed,
       count(*) FILTER (WHERE a IS NULL) AS null_answers
  FROM (SELECT x.fname, x.kind, x.v, x.copies, cf_ask(f, x.kind, x.v) AS a
          FROM cf_values x JOIN filters ON name = x.fname
        OFFSET 0) y  -- each value asked once (OFFSET 0: not inlined into the aggregates)
 GROUP BY fname ORDER BY fname;
SELECT 'view', name, items FROM filter_sizes ORDER BY name;
SELECT 'matview', kind, md5(f::text) FROM agg_by_kind ORDER BY kind;
SET enable_seqscan = off;
SELECT 'index', count(*) FROM filters WHERE f @> 't1'::text AND name NOT IN ('int8', 'agg int4', 'deleted', 'large');
