//! Messages live in the database, not in the server's memory: the store holds each thread's
//! newest page and its length, reads older pages when asked, and a database from before threads
//! were indexed gets the index on open. On SQLite and PostgreSQL alike (`on_both!`), but the
//! database from before threads, which only SQLite has.

use crate::common::On;
use app::domain::docs::page::{place, FIRST, PAGE};
use app::domain::docs::{messages, Docs};
use app::domain::events::{Event, EventKind};
use soulgrid::store::Store;

fn said(seat: u8, i: usize) -> EventKind {
    EventKind::UserMessage {
        message_id: format!("m-{seat}-{i:04}"),
        speaker_name: "Human".into(),
        seat,
        text: format!("line {i} to seat {seat}"),
        target_agent: None,
    }
}

fn count(docs: &Docs) -> usize {
    messages(docs).count()
}

crate::on_both!(
    messages_are_stored_not_held_and_a_page_carries_each_threads_newest,
    a_message_written_again_is_counted_once,
);

async fn messages_are_stored_not_held_and_a_page_carries_each_threads_newest(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    for chunk in (0..250).collect::<Vec<_>>().chunks(40) {
        let kinds = chunk.iter().map(|&i| said(1, i)).collect();
        store.append_all("s", kinds).await.unwrap();
    }
    store
        .append_all("s", (0..30).map(|i| said(2, i)).collect())
        .await
        .unwrap();

    assert_eq!(store.with_docs(count), 0, "no message is held in memory");
    let (docs, older, last) = store.page_snapshot(|_| None, PAGE);
    assert_eq!(last, 280);
    assert_eq!(count(&docs), PAGE + 30);
    assert_eq!(older.get("seat:1"), Some(&150));
    assert_eq!(older.get("seat:2"), None);
    // The page holds seat 1's newest hundred.
    let mut held: Vec<_> = messages(&docs).filter(|m| m.seat == 1).collect();
    held.sort_by_key(|m| place(m));
    assert_eq!(held[0].text, "line 150 to seat 1");
    assert_eq!(held[PAGE - 1].text, "line 249 to seat 1");

    // The page before it, then the rest.
    let (page, left) = store
        .older("seat:1".into(), place(held[0]), PAGE)
        .await
        .unwrap();
    assert_eq!((page.len(), left), (PAGE, 50));
    assert_eq!(page[0].text, "line 50 to seat 1");
    assert_eq!(page[PAGE - 1].text, "line 149 to seat 1");
    let (rest, left) = store
        .older("seat:1".into(), place(&page[0]), PAGE)
        .await
        .unwrap();
    assert_eq!((rest.len(), left), (50, 0));
    assert_eq!(rest[0].text, "line 0 to seat 1");

    // A page that carries seat 2's thread only counts all of seat 1's as older.
    let (only, counts, _) = store.page_snapshot(|_| Some(vec!["seat:2".into()]), PAGE);
    assert_eq!(count(&only), 30);
    assert_eq!(counts.get("seat:1"), Some(&250));

    // A page load carries fewer than a page (`FIRST`): the newest of each thread it carries,
    // the rest counted as older.
    let (first, counts, _) = store.page_snapshot(|_| None, FIRST);
    assert_eq!(count(&first), 2 * FIRST);
    assert_eq!(counts.get("seat:1"), Some(&(250 - FIRST)));
    assert_eq!(
        counts.get("seat:2"),
        Some(&(30 - FIRST)).filter(|n| **n > 0)
    );
    let newest = messages(&first)
        .filter(|m| m.seat == 1)
        .min_by_key(|m| place(m));
    assert_eq!(
        newest.unwrap().text,
        format!("line {} to seat 1", 250 - FIRST)
    );

    // Everything, for whoever needs the whole state.
    assert_eq!(count(&store.snapshot().0), 280);

    // Opened again, the store reads the same pages back.
    drop(store);
    let store = on.open(dir.path());
    let (again, older_again, _) = store.page_snapshot(|_| None, PAGE);
    assert_eq!(again, docs);
    assert_eq!(older_again, older);
    // And goes on from there.
    store.append("s", said(1, 250)).await.unwrap();
    let (docs, older, _) = store.page_snapshot(|_| None, PAGE);
    assert_eq!(older.get("seat:1"), Some(&151));
    assert!(messages(&docs).any(|m| m.text == "line 250 to seat 1"));
    assert!(!messages(&docs).any(|m| m.text == "line 150 to seat 1"));
    // The newest message of threads, from memory (a fork's point).
    let newest = |owners: &[&str]| {
        let owners: Vec<String> = owners.iter().map(|o| o.to_string()).collect();
        store.with_newest(|_, t| t.newest(&owners).map(|m| m.text.clone()))
    };
    assert_eq!(
        newest(&["seat:2", "seat:1"]).as_deref(),
        Some("line 250 to seat 1")
    );
    assert_eq!(newest(&["seat:2"]).as_deref(), Some("line 29 to seat 2"));
    assert_eq!(newest(&["nobody"]), None);
}

async fn a_message_written_again_is_counted_once(on: On) {
    let dir = tempfile::tempdir().unwrap();
    let store = on.open(dir.path());
    store.append("s", said(1, 0)).await.unwrap();
    // The same message again, alone and in a batch with a new one.
    store.append("s", said(1, 0)).await.unwrap();
    store
        .append_all("s", vec![said(1, 0), said(1, 1)])
        .await
        .unwrap();
    let (docs, older, _) = store.page_snapshot(|_| None, PAGE);
    assert_eq!(count(&docs), 2);
    assert!(older.is_empty());
    let (page, left) = store
        .older("seat:1".into(), (i64::MAX, u64::MAX), PAGE)
        .await
        .unwrap();
    assert_eq!((page.len(), left), (2, 0));
    // A page's worth more: one message of the thread is left out, not three.
    store
        .append_all("s", (2..=PAGE).map(|i| said(1, i)).collect())
        .await
        .unwrap();
    let (docs, older, _) = store.page_snapshot(|_| None, PAGE);
    assert_eq!(count(&docs), PAGE);
    assert_eq!(older.get("seat:1"), Some(&1));
    // Opened again, the counts read from the database agree.
    drop(store);
    let store = on.open(dir.path());
    assert_eq!(store.page_snapshot(|_| None, PAGE).1, older);
}

/// A database as the store wrote it before threads: no thread columns, no index.
fn old_store(dir: &std::path::Path) {
    let conn = rusqlite::Connection::open(dir.join("soulgrid.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE events (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,
             session_id TEXT NOT NULL, type TEXT NOT NULL, seat INTEGER, body TEXT NOT NULL);
         CREATE INDEX events_type ON events(type);
         CREATE TABLE docs (id TEXT PRIMARY KEY, type TEXT, seat INTEGER,
             event_id INTEGER NOT NULL REFERENCES events(id), body TEXT NOT NULL);
         CREATE INDEX docs_type_seat ON docs(type, seat);",
    )
    .unwrap();
    let event = Event {
        id: 1,
        ts: 1_700_000_000_000,
        session_id: "old".into(),
        kind: said(3, 0),
    };
    conn.execute(
        "INSERT INTO events VALUES (1, ?1, 'old', 'user_message', 3, ?2)",
        rusqlite::params![event.ts, serde_json::to_string(&event).unwrap()],
    )
    .unwrap();
    // A message from before messages had owners, and the identity in its seat.
    let message = serde_json::json!({
        "_id": "message:m-3-0000", "type": "message", "speakerName": "Human",
        "speakerType": "human", "seat": 3, "text": "line 0 to seat 3",
        "serverSessionId": "old", "createdAt": event.ts, "eventId": 1
    });
    let ada = serde_json::json!({
        "_id": "agent-identity:3", "type": "agent-identity", "gridPosition": 3,
        "name": "Ada", "status": "sleeping", "identityId": "ada-id"
    });
    for (id, ty, body) in [
        ("message:m-3-0000", "message", message),
        ("agent-identity:3", "agent-identity", ada),
    ] {
        conn.execute(
            "INSERT INTO docs VALUES (?1, ?2, 3, 1, ?3)",
            rusqlite::params![id, ty, body.to_string()],
        )
        .unwrap();
    }
}

#[tokio::test]
async fn a_database_from_before_threads_is_indexed_on_open_and_retiring_gives_old_messages_their_owner(
) {
    let dir = tempfile::tempdir().unwrap();
    old_store(dir.path());
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.with_docs(count), 0);
    // Its indexes on every event and every document are replaced by the partial ones.
    let conn = rusqlite::Connection::open(dir.path().join("soulgrid.db")).unwrap();
    let indexes: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(indexes, ["docs_rest", "docs_threads", "events_sessions"]);
    let (docs, _, _) = store.page_snapshot(|_| None, PAGE);
    let old = messages(&docs)
        .next()
        .expect("the old message is on the page");
    assert_eq!(
        (old.text.as_str(), old.identity_id.as_deref()),
        ("line 0 to seat 3", None)
    );

    // Ada leaves for the Hall: the message she had before owners is hers, in the database too.
    store
        .append(
            "s",
            EventKind::AgentKilled {
                seat: 3,
                reason: None,
            },
        )
        .await
        .unwrap();
    let (all, _) = store.snapshot();
    let m = messages(&all).next().unwrap();
    assert_eq!(m.identity_id.as_deref(), Some("ada-id"));
    let (page, older, _) = store.page_snapshot(|_| None, PAGE);
    assert!(older.is_empty());
    assert_eq!(
        messages(&page)
            .map(|m| m.identity_id.clone())
            .collect::<Vec<_>>(),
        [Some("ada-id".to_string())]
    );
    let (hers, left) = store
        .older("ada-id".into(), (i64::MAX, u64::MAX), PAGE)
        .await
        .unwrap();
    assert_eq!((hers.len(), left), (1, 0));
    let (seats, _) = store
        .older("seat:3".into(), (i64::MAX, u64::MAX), PAGE)
        .await
        .unwrap();
    assert!(seats.is_empty());
}
