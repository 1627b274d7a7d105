//! Inbox files: names, stale locks, invalid files. The lock protocol under contention is in
//! `mailbox_lock.rs`, mail through the running server in `mail_runtime.rs`.

use crate::common;

use std::path::{Path, PathBuf};

use app::domain::mail::InboxMessage;
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
        matches!(
            file::unread(&aside[0], Default::default()),
            Err(MailboxError::Invalid { .. })
        ),
        "an invalid file is reported"
    );
}

#[test]
fn unread_mail_is_marked_read_only_when_told_and_only_what_was_taken() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    boxes.send("Marcus", "Lyra", "one", None).unwrap();
    boxes.send("Marcus", "Lyra", "two", None).unwrap();
    let unread = boxes.unread_tagged("Lyra").unwrap();
    assert_eq!(
        unread.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        ["one", "two"]
    );
    assert_eq!(
        boxes.unread_tagged("lyra").unwrap().len(),
        2,
        "reading marks nothing"
    );
    // A third arrives after the first two were taken: it stays unread.
    common::external_append(&boxes.path("lyra").unwrap(), "Orin", 3);
    let ids: Vec<String> = unread.iter().filter_map(|m| m.msg_id.clone()).collect();
    boxes.mark_read("lyra", &ids).unwrap();
    let left = boxes.unread_tagged("lyra").unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].text, "Orin 3");
    assert!(
        left[0]
            .msg_id
            .as_ref()
            .is_some_and(|id| id.starts_with("ext-")),
        "mail another program wrote without an id is given one, kept in the file"
    );
    assert_eq!(
        boxes.unread_tagged("lyra").unwrap()[0].msg_id,
        left[0].msg_id
    );
    let all = read(&boxes.path("lyra").unwrap());
    assert_eq!(all.len(), 3);
    assert!(all[..2].iter().all(|m| m.read) && !all[2].read);
    assert_eq!(all[0].extra["type"], "message");
    assert!(
        all[0].timestamp.ends_with('Z') && all[0].timestamp.len() == 24,
        "{}",
        all[0].timestamp
    );
}

/// Filing a message answers with the inbox's unread mail as the write left it, what a
/// delivery right after would read: its own and older unread mail, mail another program wrote
/// without an id given one (kept in the file), nothing already read; a retried id files
/// nothing twice.
#[test]
fn filing_answers_the_unread_mail_a_delivery_would_read() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let first = boxes.send("Marcus", "lyra", "one", None).unwrap();
    boxes.mark_read("lyra", &[first]).unwrap();
    boxes.send("Marcus", "lyra", "two", None).unwrap();
    common::external_append(&boxes.path("lyra").unwrap(), "Orin", 3);
    let filed = boxes
        .file("Marcus", "lyra", "four", Some("soulgrid-key-4".into()))
        .unwrap();
    assert_eq!(filed.msg_id, "soulgrid-key-4");
    let texts = |m: &[InboxMessage]| m.iter().map(|m| m.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&filed.unread), ["two", "Orin 3", "four"]);
    assert!(filed.unread.iter().all(|m| m.msg_id.is_some()));
    let read_after = boxes.unread_tagged("lyra").unwrap();
    assert_eq!(
        read_after.iter().map(|m| &m.msg_id).collect::<Vec<_>>(),
        filed.unread.iter().map(|m| &m.msg_id).collect::<Vec<_>>(),
        "the same mail with the same ids"
    );
    let again = boxes
        .file("Marcus", "lyra", "four", Some("soulgrid-key-4".into()))
        .unwrap();
    assert_eq!(texts(&again.unread), ["two", "Orin 3", "four"]);
    assert_eq!(read(&boxes.path("lyra").unwrap()).len(), 4);
}

/// An inbox this server wrote with nothing in it for the mail watcher (all read, or its unread
/// mail handed over by the filer) is settled until anyone else writes it: by rename, or in
/// place; a write of ours that carries another program's unread mail is not settled.
#[test]
fn only_the_servers_own_write_with_nothing_left_unread_is_settled() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let path = boxes.path("lyra").unwrap();
    assert!(!boxes.settled("lyra"), "no file");

    // Sent for the watcher to hand over: not settled; filed by one that hands it over: settled.
    let one = boxes.send("Marcus", "lyra", "one", None).unwrap();
    assert!(!boxes.settled("lyra"));
    let two = boxes.file("Marcus", "lyra", "two", None).unwrap().msg_id;
    assert!(boxes.settled("lyra"));

    // All read: settled, until another program writes, by rename.
    boxes.mark_read("lyra", &[one, two]).unwrap();
    assert!(boxes.settled("lyra"));
    common::external_append(&path, "Orin", 3);
    assert!(!boxes.settled("lyra"), "another program's rename");

    // Our write that carries Orin's unread mail along is not settled.
    let orin = boxes.unread_tagged("lyra").unwrap()[0]
        .msg_id
        .clone()
        .unwrap();
    let four = boxes.send("Marcus", "lyra", "four", None).unwrap();
    boxes.mark_read("lyra", &[four]).unwrap();
    assert!(!boxes.settled("lyra"), "Orin's mail is still unread in it");
    boxes.mark_read("lyra", &[orin]).unwrap();
    assert!(boxes.settled("lyra"));

    // Another program's write in place, of the same length, at once (the same tick of the
    // file system's clock, likely): not settled.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Orin 3", "Orin 5")).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap().len(), text.len());
    assert!(!boxes.settled("lyra"), "another program's write in place");
}

/// Pages of `path` in the page cache that are not on the disk yet (dirty or being written),
/// from Linux's `cachestat` (6.5+).
fn unwritten_pages(path: &Path) -> u64 {
    use std::os::fd::AsRawFd;
    #[repr(C)]
    struct Range {
        off: u64,
        len: u64,
    }
    #[repr(C)]
    #[derive(Default)]
    struct Stat {
        cache: u64,
        dirty: u64,
        writeback: u64,
        evicted: u64,
        recently_evicted: u64,
    }
    const SYS_CACHESTAT: libc::c_long = 451;
    let file = std::fs::File::open(path).unwrap();
    let (range, mut stat) = (Range { off: 0, len: 0 }, Stat::default());
    // SAFETY: the kernel reads `range` and writes `stat`, both live and laid out as it expects.
    let rc = unsafe { libc::syscall(SYS_CACHESTAT, file.as_raw_fd(), &range, &mut stat, 0u32) };
    assert_eq!(rc, 0, "cachestat: {}", std::io::Error::last_os_error());
    stat.dirty + stat.writeback
}

/// Mail filed for an agent is on the disk when filing answers: the send records the message's
/// event, fsync'd, only after, and a power cut must not leave the event without the mail it
/// shows. (The ids given to another program's untagged mail are synced the same way; replacing
/// a file by rename makes ext4 start writing it at once, so that cannot be told apart here.)
#[test]
fn filed_mail_is_on_the_disk_when_filing_answers() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = Mailboxes::new(dir.path(), "soulgrid").unwrap();
    let inbox = boxes.path("lyra").unwrap();
    let beside = dir.path().join("beside.json");
    std::fs::write(&beside, "[]").unwrap();
    assert!(
        unwritten_pages(&beside) > 0,
        "the probe sees a write that is not on the disk yet"
    );
    boxes.file("Marcus", "lyra", "keep me", None).unwrap();
    assert_eq!(unwritten_pages(&inbox), 0, "filed mail is on the disk");
}

/// Runs `f` on its own thread; its answer, or a panic naming `what` if it is still waiting
/// after 20 s (a read that blocks on a FIFO never answers).
fn answers<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what} is still waiting"))
}

/// Another program may place anything where an inbox goes. A FIFO blocked every reader for ever
/// (the projection thread, then the shutdown); a link was followed (a link to `/dev/zero` read
/// until memory ran out). Each is moved aside, unread, and the inbox starts anew.
#[test]
fn an_inbox_that_is_a_fifo_or_a_link_is_moved_aside_unread() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let boxes = std::sync::Arc::new(Mailboxes::new(dir.path(), "soulgrid").unwrap());
    let path = boxes.path("marcus").unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let b = boxes.clone();
    let read = answers("reading a FIFO inbox", move || b.unread("marcus"));
    assert!(
        matches!(read, Err(MailboxError::Invalid { .. })),
        "{read:?}"
    );
    let b = boxes.clone();
    answers("sending to it", move || {
        b.send("Lyra", "Marcus", "after", None)
    })
    .unwrap();
    assert_eq!(boxes.unread("marcus").unwrap().len(), 1);
    // A link to somebody else's file, valid as an inbox: not read through.
    let elsewhere = dir.path().join("elsewhere.json");
    std::fs::write(
        &elsewhere,
        r#"[{"from":"Orin","text":"forged","timestamp":"2026-01-01T00:00:00Z","read":false}]"#,
    )
    .unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let b = boxes.clone();
    let read = answers("reading a linked inbox", move || b.unread("marcus"));
    assert!(
        matches!(read, Err(MailboxError::Invalid { .. })),
        "{read:?}"
    );
    assert!(
        std::fs::read_to_string(&elsewhere)
            .unwrap()
            .contains("forged"),
        "the target untouched"
    );
    boxes.send("Lyra", "Marcus", "again", None).unwrap();
    let unread = boxes.unread("marcus").unwrap();
    assert!(unread.iter().all(|m| m.text != "forged"), "{unread:?}");
    let aside = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".invalid-")
        })
        .count();
    assert_eq!(aside, 2, "the FIFO and the link, each moved aside");
}
