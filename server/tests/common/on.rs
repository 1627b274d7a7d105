//! The store's tests on both databases (`On`, `on_both!`) and the checks of a log they share.

use std::path::Path;

use super::pg;

/// Where a store test keeps its store: the suite of the store's contract runs on both
/// (`on_both!`).
#[derive(Clone, Debug)]
pub enum On {
    Sqlite,
    /// A database of its own in the test cluster (`pg`).
    Postgres(String),
}

impl On {
    pub fn postgres() -> On {
        On::Postgres(pg::database())
    }

    pub fn options(&self) -> soulgrid::store::Options {
        soulgrid::store::Options {
            database: match self {
                On::Sqlite => soulgrid::store::Database::Sqlite,
                On::Postgres(url) => soulgrid::store::Database::Postgres(url.clone()),
            },
            ..Default::default()
        }
    }

    /// The store in `dir` (SQLite's file, or the agents' folders beside PostgreSQL).
    pub fn open(&self, dir: &Path) -> soulgrid::store::Store {
        soulgrid::store::Store::open_with(dir, self.options()).unwrap()
    }

    /// The server's flags for this database.
    pub fn flags(&self) -> Vec<String> {
        match self {
            On::Sqlite => Vec::new(),
            On::Postgres(url) => vec!["--database".into(), url.clone()],
        }
    }
}

/// For each `async fn name(on: On)`, a module `name` of two tests, `sqlite` and `postgres`.
#[macro_export]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name($crate::common::On::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name($crate::common::On::postgres()).await
            }
        }
    )*};
}

/// The log's ids are 1, 2, … with no gap.
pub fn assert_gap_free(events: &[app::domain::events::Event]) {
    let ids: Vec<u64> = events.iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        (1..=ids.len() as u64).collect::<Vec<_>>(),
        "ids are 1.. with no gap"
    );
}

/// Every send acknowledged as `(text, id)` is in the log once, under that id.
pub fn assert_each_acknowledged_once(
    events: &[app::domain::events::Event],
    acknowledged: &[(String, u64)],
) {
    let mut by_text: std::collections::HashMap<&str, Vec<u64>> = Default::default();
    for e in events {
        if let app::domain::events::EventKind::UserMessage { text, .. } = &e.kind {
            by_text.entry(text.as_str()).or_default().push(e.id);
        }
    }
    for (text, id) in acknowledged {
        assert_eq!(
            by_text.get(text.as_str()),
            Some(&vec![*id]),
            "{text} acknowledged as {id}"
        );
    }
}

/// The log's `session_start` and `session_end`, in order.
pub fn session_kinds(events: &[app::domain::events::Event]) -> Vec<&'static str> {
    use app::domain::events::EventKind;
    events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::SessionStart { .. } | EventKind::SessionEnd { .. }
            )
        })
        .map(|e| e.kind.type_name())
        .collect()
}
