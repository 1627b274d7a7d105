-- The store on PostgreSQL: the same two tables as on SQLite (server/src/store/schema.rs), the
-- event log and the documents it produced. Applied once, recorded in soulgrid_migrations.
CREATE TABLE events (
    id         BIGINT PRIMARY KEY,
    ts         BIGINT NOT NULL,
    session_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    seat       BIGINT,
    body       TEXT NOT NULL
);
-- Only the session events: the last of them says whether the previous run ended cleanly.
CREATE INDEX events_sessions ON events (id) WHERE type IN ('session_start', 'session_end');
CREATE TABLE docs (
    id         TEXT PRIMARY KEY,
    type       TEXT,
    seat       BIGINT,
    event_id   BIGINT NOT NULL REFERENCES events (id),
    body       TEXT NOT NULL,
    -- A message's thread and place in it (`docs::page::owner`); NULL for every other document.
    owner      TEXT,
    created_at BIGINT,
    origin     BIGINT
);
CREATE INDEX docs_threads ON docs (owner, created_at, origin) WHERE owner IS NOT NULL;
CREATE INDEX docs_rest ON docs (type, seat) WHERE owner IS NULL;
