//! Portable history: a team exported, imported and exported again is the same file and the
//! same documents; an export taken while agents write is a consistent cut; a bad file is
//! refused before anything is written; a soul bundle brings an agent into another team's Hall
//! (once); a backup taken under load is checked and serves as a data directory.

use crate::common;
use soulgrid::clock::Clock;

use std::path::Path;

use app::domain::docs::{commit, identity, thread, Docs};
use app::domain::reducer::apply;
use axum::http::StatusCode;
use common::{call, get, post_json, wait_for};
use serde_json::json;
use soulgrid::portable::team::{export, import, verify};
use soulgrid::portable::PortableError;

fn export_to(dir: &Path, file: &Path) {
    let mut out = std::fs::File::create(file).unwrap();
    export(dir, ("soulgrid", &Clock::system()), &mut out, &mut |_| {}).unwrap();
}

/// Every line but the header's time.
fn without_time(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    header["exportedAt"] = json!("");
    lines[0] = header.to_string();
    lines
}

fn docs_of(dir: &Path) -> Docs {
    soulgrid::store::Store::open(dir).unwrap().snapshot().0
}

/// A team that talked, learned and moved through its work cycle.
async fn lived() -> (tempfile::TempDir, soulgrid::state::AppState, axum::Router) {
    let (dir, state, router) = common::team().await;
    for (seat, text) in [
        (0, "SIM_LEARN: the harp has eleven strings"),
        (1, "hello"),
        (0, "SIM_STATE: bootstrap"),
    ] {
        call(
            &router,
            post_json("/api/send", json!({"text": text, "seat": seat})),
        )
        .await;
    }
    wait_for(&state, "Lyra's commit", |d| {
        app::domain::knowledge::commits_of(d, &identity(d, 0).unwrap().stable_id()).len() == 1
    })
    .await;
    (dir, state, router)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_import_export_is_the_same_file_and_the_same_documents() {
    let (dir, state, _router) = lived().await;
    soulgrid::shut_down(&state).await;
    drop(state);
    let work = tempfile::tempdir().unwrap();
    let (first, second) = (work.path().join("a.export"), work.path().join("b.export"));
    export_to(dir.path(), &first);
    let again = work.path().join("restored");
    let done = import(&first, &again, &mut |_| {}).unwrap();
    assert!(done.events > 50 && done.files > 5, "{done:?}");
    export_to(&again, &second);
    assert_eq!(without_time(&first), without_time(&second));
    assert_eq!(docs_of(dir.path()), docs_of(&again));
    // What the store does not hold came along: the folders' git history, logout logs, inboxes.
    assert!(again.join("agents/0/.git/HEAD").is_file());
    assert!(
        again.join("history/agent-0.git/HEAD").is_file(),
        "the server's history too"
    );
    assert!(again.join("teams/soulgrid/inboxes/lyra.json").is_file());
    assert!(
        !again.join("agents/0/knowledge").exists(),
        "the vault comes from the store"
    );
}

/// Forty messages sent one after another, to the lead and to an agent (each answered, so the
/// agents write too), while the test does something else.
fn busy(router: &axum::Router) -> tokio::task::JoinHandle<()> {
    let router = router.clone();
    tokio::spawn(async move {
        for i in 0..40 {
            let to = json!({"text": format!("busy {i}"), "seat": i % 8 / 4 * 5});
            call(&router, post_json("/api/send", to)).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_while_agents_write_is_a_consistent_cut() {
    let (dir, state, router) = common::team().await;
    let writer = busy(&router);
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("cut.export");
    let data = dir.path().to_path_buf();
    let path = file.clone();
    let header = tokio::task::spawn_blocking(move || {
        let mut out = std::fs::File::create(&path).unwrap();
        export(&data, ("soulgrid", &Clock::system()), &mut out, &mut |_| {}).unwrap()
    })
    .await
    .unwrap();
    writer.await.unwrap();
    assert!(verify(&file, &mut |_| {}).is_ok());
    // Exactly the events up to the cut, and the documents they make.
    let mut expected = Docs::new();
    for e in state.store.events_after(0, 1_000_000).await.unwrap() {
        if e.id <= header.up_to {
            let w = apply(&expected, &e);
            commit(&mut expected, w);
        }
    }
    let restored = work.path().join("restored");
    import(&file, &restored, &mut |_| {}).unwrap();
    assert_eq!(docs_of(&restored), expected);
    soulgrid::shut_down(&state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_file_is_refused_before_anything_is_written() {
    let (dir, state, _router) = lived().await;
    soulgrid::shut_down(&state).await;
    let work = tempfile::tempdir().unwrap();
    let good = work.path().join("good.export");
    export_to(dir.path(), &good);
    let text = std::fs::read_to_string(&good).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let variant = |name: &str, body: String| {
        let p = work.path().join(name);
        std::fs::write(&p, body).unwrap();
        p
    };
    let header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    let mut v99 = header.clone();
    v99["soulgridExport"] = json!(99);
    let mut swapped: Vec<&str> = lines.clone();
    swapped.swap(3, 4);
    let cases = [
        (
            variant("truncated", lines[..lines.len() / 2].join("\n")),
            "truncated",
        ),
        (
            variant("corrupted", text.replacen("\"seat\":0", "\"seat\":1", 1)),
            "checksum",
        ),
        (
            variant("version", format!("{}\n{}", v99, lines[1..].join("\n"))),
            "version 99",
        ),
        (
            variant("foreign", "hello, this is not an export\n".into()),
            "not a Soulgrid export",
        ),
        (variant("empty", String::new()), "not a Soulgrid export"),
        (
            variant("reordered", swapped.join("\n") + "\n"),
            "out of order",
        ),
        (
            variant("longer", format!("{text}{{\"event\":{{}}}}\n")),
            "goes on after",
        ),
    ];
    for (file, says) in cases {
        let target = work.path().join(format!(
            "into-{}",
            file.file_name().unwrap().to_string_lossy()
        ));
        let e = import(&file, &target, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains(says), "{file:?}: {e}");
        assert!(!target.exists(), "{file:?}: nothing written");
    }
    // Into a data directory that holds anything: refused.
    let e = import(&good, dir.path(), &mut |_| {}).unwrap_err();
    assert!(matches!(e, PortableError::NotEmpty(_)), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soul_bundle_brings_an_agent_into_another_teams_hall_once() {
    let (_a, state, router) = lived().await;
    let id = state
        .store
        .with_all_docs(|d| identity(d, 0).unwrap().stable_id());
    let r = call(&router, get(&format!("/api/agents/{id}/bundle"))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers["content-disposition"]
        .to_str()
        .unwrap()
        .contains("Lyra.soul"));
    let bundle = r.body.clone();
    assert_eq!(
        call(&router, get("/api/agents/nobody/bundle")).await.status,
        StatusCode::NOT_FOUND
    );
    soulgrid::shut_down(&state).await;

    // Another team, with a Lyra of its own seated.
    let (_b, other, there) = common::team().await;
    let bring = |body: String| {
        axum::http::Request::builder()
            .method("POST")
            .uri("/api/import/agent")
            .header("content-type", "application/x-soulgrid-soul")
            .body(axum::body::Body::from(body))
            .unwrap()
    };
    // Fields this version does not know ride along in no document (here: padding).
    let padded = reworked(&bundle, |b| {
        b["identity"]["padding"] = json!("p".repeat(4096));
        b["souls"][0]["padding"] = json!("p".repeat(4096));
        b["messages"][0]["padding"] = json!("p".repeat(4096));
    });
    let r = call(&there, bring(padded)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let padding = other.store.with_all_docs(|d| {
        d.values()
            .filter(|doc| doc.to_value().get("padding").is_some())
            .count()
    });
    assert_eq!(padding, 0, "unknown fields dropped");
    let brought = r.json();
    assert_eq!(brought["id"], json!(id));
    assert_eq!(
        (brought["name"].as_str(), brought["renamedFrom"].as_str()),
        (Some("Lyra 2"), Some("Lyra"))
    );
    let r = call(&there, bring(bundle.clone())).await;
    assert_eq!(r.json()["alreadyHere"], true);
    assert_eq!(
        agents_brought(&other).await,
        1,
        "the second time changes nothing"
    );
    let hall: Vec<app::contract::HallEntry> =
        serde_json::from_str(&call(&there, get("/api/hall")).await.body).unwrap();
    assert_eq!(hall[0].name.as_deref(), Some("Lyra 2"));
    // Recalled there: it wakes with its soul, its thread and its vault.
    call(&there, post_json("/api/agents/3/kill", json!({}))).await;
    let r = call(
        &there,
        post_json(&format!("/api/hall/{id}/recall"), json!({"seat": 3})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    wait_for(&other, "Lyra 2 awake in seat 4", |d| {
        thread(d, 3)
            .iter()
            .any(|m| m.text.starts_with("Hello. I am Lyra 2"))
    })
    .await;
    other.store.with_all_docs(|d| {
        let who = identity(d, 3).unwrap();
        assert_eq!(who.stable_id(), id);
        assert!(thread(d, 3)
            .iter()
            .any(|m| m.text.contains("eleven strings")));
        assert!(app::domain::knowledge::knowledge_at(d, &id, who.vault_version).is_some());
    });
    // A bundle that is not one, or tampered with, changes nothing.
    for (bad, why) in [
        ("not a bundle".to_string(), "a header and a body"),
        (bundle.replacen("Lyra", "Lyre", 3), "checksum"),
        (contradicting(&bundle), "contradicts itself"),
        // Past what a live agent may hold: one bundle made every page carry a 20 MB soul.
        (
            reworked(&bundle, |b| {
                b["souls"][0]["text"] = json!("x".repeat(17 * 1024))
            }),
            "a soul may have 16384",
        ),
        (
            reworked(&bundle, |b| {
                b["identity"]["individuationArtifact"] = json!("x".repeat(17 * 1024))
            }),
            "a soul may have 16384",
        ),
        (
            reworked(&bundle, |b| {
                let files: serde_json::Map<String, serde_json::Value> = (0..70)
                    .map(|n| (format!("note-{n}.md"), json!("a note")))
                    .collect();
                b["vault"][0]["files"] = json!(files);
            }),
            "knowledge version",
        ),
    ] {
        let r = call(&there, bring(bad)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert!(r.body.contains(why), "{why}: {}", r.body);
    }
    assert_eq!(agents_brought(&other).await, 1);
    soulgrid::shut_down(&other).await;
}

/// How many agents were brought into the team (it lives meanwhile: other events come too).
async fn agents_brought(state: &soulgrid::state::AppState) -> usize {
    common::count_events(state, |k| {
        matches!(k, app::domain::events::EventKind::AgentImported(_))
    })
    .await
}

/// The bundle with its body changed by `change`, its checksum made right.
fn reworked(bundle: &str, change: impl FnOnce(&mut serde_json::Value)) -> String {
    use sha2::{Digest, Sha256};
    let (header, body) = bundle.trim_end().split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
    let mut body: serde_json::Value = serde_json::from_str(body).unwrap();
    change(&mut body);
    let body = body.to_string();
    let sum: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    header["sha256"] = json!(sum);
    format!("{header}\n{body}\n")
}

/// The bundle with its first soul version given twice: a bundle that reads but contradicts
/// itself.
fn contradicting(bundle: &str) -> String {
    reworked(bundle, |body| {
        let souls = body["souls"].as_array_mut().unwrap();
        assert!(!souls.is_empty(), "Lyra has a soul");
        souls.push(souls[0].clone());
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_agents_write_is_checked_and_serves_as_a_data_directory() {
    let (dir, state, router) = common::team().await;
    let writer = busy(&router);
    let work = tempfile::tempdir().unwrap();
    let dest = work.path().join("backup");
    let (data, to) = (dir.path().to_path_buf(), dest.clone());
    let target = tokio::task::spawn_blocking(move || {
        soulgrid::portable::backup::backup(&data, &to, &mut |_| {})
    })
    .await
    .unwrap()
    .unwrap();
    writer.await.unwrap();
    assert!(target.ends_with("soulgrid.db"));
    let e = soulgrid::portable::backup::backup(dir.path(), &dest, &mut |_| {}).unwrap_err();
    assert!(matches!(e, PortableError::Exists(_)), "{e}");
    soulgrid::shut_down(&state).await;
    // Restoring is starting the server on the backup's directory.
    let restored = common::boot(&dest).await;
    restored.store.with_all_docs(|d| {
        assert_eq!(identity(d, 0).unwrap().name.as_deref(), Some("Lyra"));
    });
    soulgrid::shut_down(&restored).await;
}

/// A store the team keeps writing to while it is copied: SQLite's online backup started again
/// from its first page at every write between two of its steps and never finished (986
/// restarts in a minute on a 1 GB store). The copy is one snapshot: it finishes, and holds
/// every row committed before it began.
#[test]
fn a_backup_of_a_store_written_to_all_the_time_finishes() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soulgrid.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
         INSERT INTO t (body) SELECT randomblob(4000) FROM n;",
    )
    .unwrap();
    // Well over the 512 pages one step of the online backup copied.
    let pages: i64 = conn
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    assert!(pages > 3000, "{pages} pages");
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let writer = std::thread::spawn({
        let (stop, writes) = (stop.clone(), writes.clone());
        move || {
            while !stop.load(Ordering::SeqCst) {
                conn.execute("INSERT INTO t (body) VALUES (randomblob(100))", [])
                    .unwrap();
                writes.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    // The writer is writing before the copy starts.
    while writes.load(Ordering::SeqCst) < 10 {
        std::thread::yield_now();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let dest = dir.path().join("backup");
    std::thread::spawn({
        let (data, dest) = (dir.path().to_path_buf(), dest.clone());
        move || {
            let mut said = Vec::new();
            let done =
                soulgrid::portable::backup::backup(&data, &dest, &mut |p| said.push(p.to_string()));
            let _ = tx.send((done.map_err(|e| e.to_string()), said));
        }
    });
    // Bounded: a copy of 16 MB takes well under a second; the online backup never ended.
    let (done, said) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the backup finished while the store was written to");
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let target = done.unwrap();
    assert!(said.iter().any(|s| s.contains("pages")), "{said:?}");
    let copy = rusqlite::Connection::open(&target).unwrap();
    let rows: i64 = copy
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert!(
        rows >= 4010,
        "every row committed before the copy began: {rows}"
    );
    let mode: String = copy
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "a backup stands on its own");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_exports_imports_and_backs_up_and_says_why_it_fails() {
    let (dir, state, _router) = lived().await;
    soulgrid::shut_down(&state).await;
    drop(state);
    let work = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
            .args(args)
            .env_remove("SOULGRID_DATA_DIR")
            .output()
            .unwrap()
    };
    let file = work.path().join("team.export");
    let data = dir.path().to_str().unwrap();
    let out = run(&[
        "export",
        "--data-dir",
        data,
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("exported"));
    let into = work.path().join("restored");
    let out = run(&[
        "import",
        file.to_str().unwrap(),
        "--data-dir",
        into.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let out = run(&[
        "import",
        file.to_str().unwrap(),
        "--data-dir",
        into.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.trim().starts_with("soulgrid: refusing to import into"),
        "{said}"
    );
    assert_eq!(said.trim().lines().count(), 1, "one line: {said}");
    let out = run(&[
        "backup",
        work.path().join("b").to_str().unwrap(),
        "--data-dir",
        data,
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(work.path().join("b/soulgrid.db").is_file());
    // From a pipe: the one reading of it imports everything (it imported nothing and said 0).
    let piped = work.path().join("piped");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_soulgrid"))
        .args(["import", "-", "--data-dir", piped.to_str().unwrap()])
        .env_remove("SOULGRID_DATA_DIR")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    let header = verify(&file, &mut |_| {}).unwrap();
    assert!(
        said.contains(&format!(
            "imported {} events and {} files",
            header.parts[0].lines, header.parts[1].lines
        )),
        "{said}"
    );
    assert_eq!(
        docs_of(&piped),
        docs_of(&into),
        "the same team as from the file"
    );
}

/// An export whose last part does not check out (here: a file line's bytes changed, its
/// checksum not) leaves the data directory as it was, though it is read only once and the
/// store was written before the files were reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_that_fails_at_its_last_line_leaves_nothing_behind() {
    let (dir, state, _router) = lived().await;
    soulgrid::shut_down(&state).await;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("team.export");
    export_to(dir.path(), &file);
    let text = std::fs::read_to_string(&file).unwrap();
    let last = text.trim_end().lines().last().unwrap();
    assert!(last.starts_with("{\"file\""), "{last}");
    let forged = last.replacen("\"base64\":\"", "\"base64\":\"QUJD", 1);
    std::fs::write(&file, text.replace(last, &forged)).unwrap();
    let into = work.path().join("restored");
    let e = import(&file, &into, &mut |_| {}).unwrap_err();
    assert!(
        matches!(e, PortableError::Checksum { .. } | PortableError::Bad(_)),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(&into)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing written: {left:?}");
}
