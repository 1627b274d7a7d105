//! Portable history with the store in PostgreSQL: a team exported from SQLite, imported into
//! PostgreSQL and exported again is the same file and the same documents; an import whose
//! last line is bad leaves the database without a log; `soulgrid migrate` moves a team's log
//! into an empty database (and refuses one that holds a log), and `soulgrid backup` of a team
//! in PostgreSQL is an export that checks.

use std::path::Path;

use soulgrid::clock::Clock;
use soulgrid::portable::team::{export_from, import_to, verify};
use soulgrid::store::Database;

use crate::common::On;

fn export_file(dir: &Path, database: &Database, file: &Path) {
    let mut out = std::fs::File::create(file).unwrap();
    export_from(
        dir,
        database,
        ("soulgrid", &Clock::system()),
        &mut out,
        &mut |_| {},
    )
    .unwrap();
}

/// Every line but the header's time.
fn without_time(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    header["exportedAt"] = serde_json::json!("");
    lines[0] = header.to_string();
    lines
}

fn database(on: &On) -> Database {
    on.options().database
}

/// The blocking work of the portable commands, off the test's runtime.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_goes_from_sqlite_into_postgres_and_out_again_unchanged() {
    let (dir, state, _router) = crate::portable::lived().await;
    soulgrid::shut_down(&state).await;
    let before = state.store.snapshot().0;
    drop(state);
    let on = On::postgres();
    let work = tempfile::tempdir().unwrap();
    let (first, second) = (work.path().join("1.export"), work.path().join("2.export"));
    let into = work.path().join("restored");
    let (d, db, f1, f2, to) = (
        dir.path().to_path_buf(),
        database(&on),
        first.clone(),
        second.clone(),
        into.clone(),
    );
    blocking(move || {
        export_file(&d, &Database::Sqlite, &f1);
        let done = import_to(&f1, &to, &db, &mut |_| {}).unwrap();
        assert!(done.events > 0 && done.files > 0, "{done:?}");
        export_file(&to, &db, &f2);
    })
    .await;
    assert_eq!(without_time(&first), without_time(&second));
    assert!(
        !into.join("soulgrid.db").exists(),
        "the log went to PostgreSQL"
    );
    assert_eq!(on.open(&into).snapshot().0, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_into_postgres_whose_last_line_is_bad_leaves_no_log() {
    let (dir, state, _router) = crate::portable::lived().await;
    soulgrid::shut_down(&state).await;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("team.export");
    let (d, f) = (dir.path().to_path_buf(), file.clone());
    blocking(move || export_file(&d, &Database::Sqlite, &f)).await;
    let text = std::fs::read_to_string(&file).unwrap();
    let last = text.trim_end().lines().last().unwrap();
    let forged = last.replacen("\"base64\":\"", "\"base64\":\"QUJD", 1);
    std::fs::write(&file, text.replace(last, &forged)).unwrap();
    let on = On::postgres();
    let (db, into) = (database(&on), work.path().join("restored"));
    let failed = blocking(move || import_to(&file, &into, &db, &mut |_| {}).is_err()).await;
    assert!(failed);
    let store = on.open(work.path());
    assert_eq!(store.last_event_id(), 0, "nothing of the log was kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_moves_a_log_into_an_empty_database_and_backup_exports_it() {
    let (dir, state, _router) = crate::portable::lived().await;
    soulgrid::shut_down(&state).await;
    let events = state.store.raw_events_after(0, 1_000_000).await.unwrap();
    drop(state);
    let on = On::postgres();
    let On::Postgres(url) = on.clone() else {
        unreachable!()
    };
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
            .args(args)
            .env_remove("SOULGRID_DATA_DIR")
            .env_remove("SOULGRID_DATABASE_URL")
            .output()
            .unwrap()
    };
    let from = dir.path().join("soulgrid.db");
    let out = run(&["migrate", "--from", from.to_str().unwrap(), "--to", &url]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("moved {} events", events.len())),
        "{said}"
    );
    let moved = on
        .open(tempfile::tempdir().unwrap().path())
        .raw_events_after(0, 1_000_000)
        .await
        .unwrap();
    assert_eq!(moved, events, "the same ids and JSON");
    // Again into the same database: refused, one line, nothing added.
    let out = run(&["migrate", "--from", from.to_str().unwrap(), "--to", &url]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("already holds a team's log"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    // A backup of the team as the server on PostgreSQL keeps it: an export that checks.
    let dest = tempfile::tempdir().unwrap();
    let into = dest.path().join("b");
    let out = run(&[
        "backup",
        into.to_str().unwrap(),
        "--data-dir",
        dir.path().to_str().unwrap(),
        "--database",
        &url,
    ]);
    assert!(out.status.success(), "{out:?}");
    let header = verify(&into.join("team.export"), &mut |_| {}).unwrap();
    assert_eq!(header.parts[0].lines as usize, events.len());
}
