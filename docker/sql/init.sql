-- The environment of the walk-through in docker-compose.yml: the catalog `lake` on the MinIO
-- bucket `lake`. The walk-through itself (walkthrough.sql) names no path, endpoint or key, so it
-- runs unchanged against any `lake` catalog (the e2e tests run it on a local warehouse).
CREATE CATALOG lake WITH (
  'type' = 'lance',
  'warehouse' = 's3://lake/warehouse',
  'storage.aws_access_key_id' = 'lance',
  'storage.aws_secret_access_key' = 'lance-secret',
  'storage.aws_region' = 'us-east-1',
  'storage.aws_endpoint' = 'http://minio:9000',
  'storage.allow_http' = 'true'
);
