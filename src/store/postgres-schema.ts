/**
 * PostgreSQL schema changes in order; `fileconv_schema.version` records how many have run. Never
 * edit a shipped one. Rows have the SQLite schema's shape (epoch milliseconds as BIGINT, JSON as
 * text, `expired` as 0/1), so one mapper (sqlite-schema.ts) makes the records of both drivers and
 * JSON comes back with its keys in the order it was written (JSONB would sort them, and API
 * answers would differ between the drivers). `seq` columns keep insertion order where SQLite uses rowid.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE requests (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     conversion TEXT,
     from_format TEXT,
     to_format TEXT,
     options TEXT,
     filename TEXT NOT NULL,
     input_key TEXT,
     owner_hash TEXT,
     identity TEXT NOT NULL,
     queue TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     progress TEXT NOT NULL,
     error_code TEXT,
     error_message TEXT,
     report TEXT,
     quota_kind TEXT,
     quota_day TEXT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     finished_at BIGINT
   );
   CREATE INDEX requests_queue ON requests (queue, created_at, seq);
   CREATE INDEX requests_owner ON requests (owner_hash, created_at);
   CREATE INDEX requests_kind ON requests (kind, status, conversion);
   CREATE INDEX requests_input ON requests (input_key) WHERE input_key IS NOT NULL;
   CREATE TABLE artifacts (
     request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     mime TEXT NOT NULL,
     size BIGINT NOT NULL,
     sha256 TEXT NOT NULL,
     blob_key TEXT NOT NULL,
     filename TEXT NOT NULL,
     position INTEGER NOT NULL,
     expires_at BIGINT NOT NULL,
     expired INTEGER NOT NULL DEFAULT 0,
     checks TEXT,
     PRIMARY KEY (request_id, name)
   );
   CREATE INDEX artifacts_expiry ON artifacts (expired, expires_at);
   CREATE TABLE events (
     seq BIGSERIAL PRIMARY KEY,
     request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     at BIGINT NOT NULL,
     kind TEXT NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX events_request ON events (request_id, seq);
   CREATE TABLE webhooks (
     request_id TEXT PRIMARY KEY REFERENCES requests (id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     events TEXT NOT NULL,
     base_url TEXT NOT NULL
   );
   CREATE TABLE health (id INTEGER PRIMARY KEY, checked_at BIGINT NOT NULL);
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     label TEXT,
     created_at BIGINT NOT NULL,
     last_used_at BIGINT,
     revoked_at BIGINT
   );
   CREATE TABLE quota_usage (
     identity TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('conversions', 'voice', 'file_checks')),
     day TEXT NOT NULL,
     used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
     PRIMARY KEY (identity, kind, day)
   );
   CREATE INDEX quota_usage_day ON quota_usage (day);
   CREATE TABLE write_admissions (key TEXT NOT NULL, at BIGINT NOT NULL);
   CREATE INDEX write_admissions_key ON write_admissions (key, at);
   CREATE INDEX write_admissions_at ON write_admissions (at);
   CREATE TABLE secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL, created_at BIGINT NOT NULL);`,
  // The inputs of a request with several (a merge), as JSON: keys, names, formats and sizes in order.
  `ALTER TABLE requests ADD COLUMN inputs TEXT;`,
  // The claim of a conversion: the SHA-256 of its worker's token and the time of its last
  // heartbeat; a worker whose heartbeat stops has its conversions handed on (RequestStore.releaseStale).
  `ALTER TABLE requests ADD COLUMN claim_token TEXT;
   ALTER TABLE requests ADD COLUMN heartbeat_at BIGINT;
   CREATE INDEX requests_heartbeat ON requests (heartbeat_at) WHERE queue = 'working';`,
  // The queue lane of a conversion (the engine of its main work): claims pass over full lanes.
  `ALTER TABLE requests ADD COLUMN lane TEXT;`,
];
