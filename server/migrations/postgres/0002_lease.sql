-- One row: which server runs the team's runtime (the leader), where it answers, until when
-- (the database's clock), and the fencing token every append of that leader's store checks
-- in its own transaction (server/src/store/lease.rs).
CREATE TABLE soulgrid_lease (
    id         INT PRIMARY KEY CHECK (id = 1),
    owner      TEXT NOT NULL,
    address    TEXT NOT NULL,
    token      BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
