//! Inbox files: names, locking against another writer, invalid files. Mail through the running
//! server is in `mail_runtime.rs`.

mod common;

use std::path::{Path, PathBuf};

use app::domain::mail::InboxMessage;
use common::external_append;
use soulgrid::mailbox::{file, inbox_name, MailboxError, Mailboxes};

fn read(path: &Path) -> Vec<InboxMessage> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn only_whitelisted_names_become_paths() {
    assert_eq!(inbox_name("Lyra").unwrap(), "lyra");
    assert_eq!(inbox_name("team-lead_2").unwrap(), "team-lead_2");
    for bad in [
        "../x",
        "a/b",
        "..",
        "",
        "Mary Ann",
        "é",
        "x\0y",
        &"a".repeat(65),
    ] {
        let err = inbox_name(bad).unwrap_err();
        assert!(matches!(err, MailboxError::BadName(_)), "{bad:?}");
        assert!(err.to_string().contains("cannot be a mailbox name"));
    }
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    assert!(boxes
        .send("Marcus", "../../etc/passwd", "hi", None)
        .is_err());
    assert_eq!(
        std::fs::read_dir(dir.path())
            .map(|d| d.count())
            .unwrap_or(0),
        0,
        "nothing was written"
    );
    assert!(Mailboxes::new(dir.path(), "../t").is_err());
}

#[test]
fn an_external_writer_and_ours_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let path = boxes.path("lyra").unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ext_path = path.clone();
    let external = std::thread::spawn(move || {
        for i in 0..1000 {
            external_append(&ext_path, "kael", i);
        }
    });
    // Ours writes while the external writer is busy (each rewrite is O(file), so 300 keep the
    // test quick while the two still contend for the lock all along).
    for i in 0..300 {
        boxes
            .send("Marcus", "Lyra", &format!("Marcus {i}"), None)
            .unwrap();
    }
    external.join().unwrap();
    let all = read(&path);
    assert_eq!(all.len(), 1300);
    for (who, n) in [("kael", 1000), ("Marcus", 300)] {
        let mine: Vec<_> = all
            .iter()
            .filter(|m| m.from == who)
            .map(|m| m.text.clone())
            .collect();
        assert_eq!(
            mine,
            (0..n).map(|i| format!("{who} {i}")).collect::<Vec<_>>(),
            "{who}'s in order"
        );
    }
    assert!(!PathBuf::from(format!("{}.lock", path.display())).exists());
}

#[test]
fn a_stale_lock_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let path = boxes.path("lyra").unwrap();
    let lock = PathBuf::from(format!("{}.lock", path.display()));
    std::fs::create_dir_all(&lock).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    boxes.send("Marcus", "Lyra", "through", None).unwrap();
    assert_eq!(read(&path).len(), 1);
}

#[test]
fn an_invalid_inbox_is_moved_aside_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let path = boxes.path("lyra").unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "[{\"from\": \"x\", broken").unwrap();
    boxes.send("Marcus", "Lyra", "after", None).unwrap();
    let aside: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".invalid-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(
        std::fs::read_to_string(&aside[0]).unwrap(),
        "[{\"from\": \"x\", broken"
    );
    assert_eq!(read(&path).len(), 1);
    assert!(
        matches!(file::unread(&aside[0]), Err(MailboxError::Invalid { .. })),
        "an invalid file is reported"
    );
}

#[test]
fn take_unread_marks_read_and_never_removes() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    boxes.send("Marcus", "Lyra", "one", None).unwrap();
    boxes.send("Marcus", "Lyra", "two", None).unwrap();
    let taken = boxes.take_unread("Lyra").unwrap();
    assert_eq!(
        taken.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        ["one", "two"]
    );
    assert!(
        boxes.take_unread("lyra").unwrap().is_empty(),
        "delivered once"
    );
    let all = read(&boxes.path("lyra").unwrap());
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|m| m.read));
    assert_eq!(all[0].extra["type"], "message");
    assert!(
        all[0].timestamp.ends_with('Z') && all[0].timestamp.len() == 24,
        "{}",
        all[0].timestamp
    );
}
