-- A bloom filter on trace_id in spans and trace_stats (issue 33, reads at scale). A trace's reads
-- (its summary, its span page, a list page's summaries and previews) find its rows by the primary
-- key (project_id, trace_id). Trace ids are random, so every part's key range holds every id: the
-- primary key alone finds a granule to read in each part, and a store of 40 parts read 40 granules
-- of every column for a trace that lives in one of them. The filter (1% false positives, one per
-- granule) lets a read skip the parts that do not hold the trace: at 10M spans in 58 parts a
-- trace's span page took 23.7 against 35.1 ms (p50), its summary at 1M traces in 40 parts 12.7
-- against 20.2 (docs/benchmarks.md, "A bloom filter on trace_id"), for ~0.8 ms of CPU per
-- 500-span insert and 0.4% of the tables' size. Parts written before this migration get theirs by
-- a mutation: chDB runs it as the migration applies it (about 20 s for 10M spans on 2 cores), a
-- ClickHouse server in the background; until then those parts are read as before.
ALTER TABLE agent_eval.spans ADD INDEX IF NOT EXISTS trace_id_bloom trace_id TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE agent_eval.spans MATERIALIZE INDEX trace_id_bloom;
ALTER TABLE agent_eval.trace_stats ADD INDEX IF NOT EXISTS trace_id_bloom trace_id TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE agent_eval.trace_stats MATERIALIZE INDEX trace_id_bloom;
