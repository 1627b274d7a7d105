//! Portable history: a team exported, imported and exported again is the same file and the
//! same documents; an export taken while agents write is a consistent cut; a bad file is
//! refused before anything is written; a soul bundle brings an agent into another team's Hall
//! (once: `soul_bundle.rs`); backups: `backup.rs`.

use crate::common;
use soulgrid::clock::Clock;

use std::path::Path;

use app::domain::docs::{commit, identity, Docs};
use app::domain::reducer::apply;
use common::{call, post_json, wait_for};
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
pub(crate) async fn lived() -> (tempfile::TempDir, soulgrid::state::AppState, axum::Router) {
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
pub(crate) fn busy(router: &axum::Router) -> tokio::task::JoinHandle<()> {
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
