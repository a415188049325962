-- Span attribute keys as plain String, no longer LowCardinality(String). Parsing a Map with
-- LowCardinality keys costs ClickHouse about twice as much as one with String keys (each key goes
-- through the part's dictionary), and the two attribute maps were the largest share of parsing a
-- span row: with String keys an agent span costs 6-8% less CPU from receipt to stored part
-- (docs/benchmarks.md, "Attribute keys"). The keys repeat from row to row, so ZSTD still stores
-- them in a few bytes, and `attributes['key']` reads the same. Parts written before this migration
-- are converted in the background (a mutation); until then reads convert them as they go.
ALTER TABLE agent_eval.spans MODIFY COLUMN attributes Map(String, String) CODEC(ZSTD(1));
ALTER TABLE agent_eval.spans MODIFY COLUMN resource_attributes Map(String, String) CODEC(ZSTD(1));
