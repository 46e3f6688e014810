-- flink-lance walk-through: a Lance catalog, a table with an embedding column, two bounded
-- inserts, reads with pushdown, compaction. Expects the catalog `lake` (see init.sql).
SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
SET 'sql-client.execution.result-mode' = 'tableau';

CREATE DATABASE IF NOT EXISTS lake.demo;

-- an empty Lance table at <warehouse>/demo/events.lance; embeddings as 4-dimension vectors
CREATE TABLE lake.demo.events (
  id BIGINT NOT NULL,
  user_id INT,
  action STRING,
  embedding ARRAY<FLOAT NOT NULL>
) WITH (
  'vector-columns' = 'embedding:4'
);

CREATE TEMPORARY TABLE generated (
  id BIGINT NOT NULL,
  user_id INT,
  action STRING,
  embedding ARRAY<FLOAT NOT NULL>
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '1000',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '1000',
  'fields.user_id.min' = '1',
  'fields.user_id.max' = '50',
  'fields.action.length' = '8',
  'fields.embedding.length' = '4'
);

-- each INSERT is one bounded job and one Lance commit
INSERT INTO lake.demo.events SELECT * FROM generated;
INSERT INTO lake.demo.events SELECT id + 1000, user_id, action, embedding FROM generated;

SHOW TABLES IN lake.demo;
DESCRIBE lake.demo.events;

SELECT COUNT(*) AS row_count, MIN(id) AS first_id, MAX(id) AS last_id FROM lake.demo.events;

-- the filter runs inside Lance (pushdown)
SELECT id, user_id FROM lake.demo.events WHERE id BETWEEN 998 AND 1002 ORDER BY id;

-- rewrite the small fragments of the two inserts into larger ones
CALL lake.sys.compact('demo.events');

SELECT COUNT(*) AS row_count, MIN(id) AS first_id, MAX(id) AS last_id FROM lake.demo.events;
