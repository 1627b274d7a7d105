-- A replica reads what each wake-up of its tail brings: the documents changed after the last
-- event it published (server/src/store/tail.rs, `event_id > $1`). By this index, not by
-- reading every document each time.
CREATE INDEX docs_by_event ON docs (event_id);
