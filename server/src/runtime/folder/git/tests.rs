//! The folder's repository: what the agent's own git sees, and HEAD read without git.

use super::*;
use std::path::Path;

/// A file the server is writing (before its rename) is not something an agent's own
/// `git add -A` takes: it could be gone by the time git reads it.
#[tokio::test]
async fn an_agents_own_add_leaves_out_files_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repo::new(dir.path());
    repo.ensure().await.unwrap();
    repo.ensure().await.unwrap(); // once is enough: the pattern is not added twice
    std::fs::write(dir.path().join("._state.md.0123.tmp"), "half").unwrap();
    std::fs::write(dir.path().join("notes.md"), "mine").unwrap();
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "?? notes.md\n");
    let exclude = std::fs::read_to_string(dir.path().join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.matches(".*.tmp").count(), 1, "{exclude}");
}

/// `HEAD` is read from the files while that is simple: no commit yet, a commit, and (a
/// packed ref, or not a repository) not known without git.
#[tokio::test]
async fn head_is_read_without_git_while_it_is_simple() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repo::new(dir.path());
    assert_eq!(repo.head_fast(), FastHead::Unknown, "not a repository yet");
    repo.ensure().await.unwrap();
    assert_eq!(repo.head_fast(), FastHead::Unborn);
    assert_eq!(repo.head().await, None);
    std::fs::write(dir.path().join("notes.md"), "mine").unwrap();
    let git = |args: &[&str]| {
        agent_git(dir.path(), args);
    };
    git(&["add", "notes.md"]);
    git(&["commit", "-q", "-m", "first"]);
    let head = repo.head().await.unwrap();
    assert_eq!(repo.head_fast(), FastHead::Commit(head));
    git(&["pack-refs", "--all"]);
    assert_eq!(repo.head_fast(), FastHead::Unknown, "a packed ref");
}

/// An exclude file the agent made a link is replaced, not followed: what it points at is
/// neither read into the repository nor written.
#[tokio::test]
async fn a_linked_exclude_file_is_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "not yours\n").unwrap();
    let repo = Repo::new(dir.path());
    repo.ensure().await.unwrap();
    let exclude = dir.path().join(".git/info/exclude");
    std::fs::remove_file(&exclude).unwrap();
    std::os::unix::fs::symlink(&secret, &exclude).unwrap();
    repo.ensure().await.unwrap();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "not yours\n");
    assert!(!std::fs::symlink_metadata(&exclude)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&exclude).unwrap(), ".*.tmp\n");
}

/// Runs git as the agent would in its folder (its own config counts).
fn agent_git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=Lyra", "-c", "user.email=l@x"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// One server commit of `folder` into `history`, within 60 s.
async fn commit(history: &History, folder: &Path, subject: &str) -> (String, Vec<String>) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    history
        .commit(
            &Snapshot::read(folder),
            subject,
            ("Lyra", "l@x"),
            (&crate::clock::Clock::system(), deadline),
        )
        .await
        .unwrap()
}

/// An agent folder with one commit of the agent's own, made by git in the folder.
async fn agent_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    Repo::new(dir.path()).ensure().await.unwrap();
    std::fs::write(dir.path().join("notes.md"), "mine").unwrap();
    agent_git(dir.path(), &["add", "notes.md"]);
    agent_git(
        dir.path(),
        &["commit", "-q", "-m", "@Lyra: [STATE:bootstrap] first"],
    );
    dir
}

/// A commit signed (a `gpgsig` header) and `log.showSignature` with `gpg.program` set: any
/// `git log` in the folder ran the agent's script. The server reads the agent's commits
/// without running anything.
#[tokio::test]
async fn reading_the_agents_commits_runs_none_of_its_programs() {
    let dir = agent_folder().await;
    let ran = dir.path().join("ran");
    let script = dir.path().join("gpg.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch {}\nexit 1\n", ran.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let parent = agent_git(dir.path(), &["rev-parse", "HEAD"]);
    let tree = agent_git(dir.path(), &["rev-parse", "HEAD^{tree}"]);
    let signed = format!(
        "tree {tree}\nparent {parent}\nauthor Lyra <l@x> 1700000000 +0000\n\
         committer Lyra <l@x> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n \
         iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n@Lyra: [STATE:inbox] signed\n"
    );
    let body = dir.path().join("commit.txt");
    std::fs::write(&body, signed).unwrap();
    let sha = agent_git(
        dir.path(),
        &["hash-object", "-t", "commit", "-w", body.to_str().unwrap()],
    );
    agent_git(dir.path(), &["update-ref", "HEAD", &sha]);
    agent_git(dir.path(), &["config", "log.showSignature", "true"]);
    agent_git(
        dir.path(),
        &["config", "gpg.program", script.to_str().unwrap()],
    );
    // The agent's own git would run it (checked, so the test shows what it guards against).
    let _ = std::process::Command::new("git")
        .args(["log", "-1"])
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(ran.exists(), "git log in the folder runs gpg.program");
    std::fs::remove_file(&ran).unwrap();
    let repo = Repo::new(dir.path());
    let log = repo.log_since(None, 50).await.unwrap();
    let subjects: Vec<&str> = log.iter().map(|c| c.subject.as_str()).collect();
    assert_eq!(
        subjects,
        [
            "@Lyra: [STATE:bootstrap] first",
            "@Lyra: [STATE:inbox] signed"
        ]
    );
    assert_eq!(repo.changed_by(&sha).await.unwrap(), Vec::<String>::new());
    assert_eq!(repo.changed_by(&parent).await.unwrap(), ["notes.md"]);
    assert_eq!(repo.head().await.as_deref(), Some(sha.as_str()));
    // And the server's own commit of the folder neither.
    let data = tempfile::tempdir().unwrap();
    let history = History::new(data.path(), 0);
    commit(&history, dir.path(), "@Lyra: [STATE:inbox] x").await;
    assert!(!ran.exists(), "no program of the agent's ran");
}

/// `[include] path = <a FIFO>` in the agent's config made every git call in the folder wait
/// out its timeout (20 s each, inside the read loop). Nothing the server does reads it.
#[tokio::test]
async fn an_include_that_never_answers_holds_up_nothing() {
    let dir = agent_folder().await;
    fifo(&dir.path().join(".git/wait"));
    let config = dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[include]\n\tpath = wait\n");
    std::fs::write(&config, text).unwrap();
    let started = std::time::Instant::now();
    let repo = Repo::new(dir.path());
    assert_eq!(repo.log_since(None, 50).await.unwrap().len(), 1);
    assert!(repo.head().await.is_some());
    let data = tempfile::tempdir().unwrap();
    let history = History::new(data.path(), 0);
    let (sha, files) = commit(&history, dir.path(), "@Lyra: [STATE:inbox] x").await;
    assert_eq!(sha.len(), 40);
    assert_eq!(files, ["notes.md"], "the folder's files, not its .git");
    // Well inside one git timeout (a loaded machine takes seconds, not twenty).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// `.git/logs/HEAD` and `.git/objects` made links to places outside: the server's commit
/// appended to the one and wrote objects into the other. It writes neither now, and reads no
/// file of the folder through a link.
#[tokio::test]
async fn a_server_commit_writes_nothing_through_the_agents_links() {
    let dir = agent_folder().await;
    let outside = tempfile::tempdir().unwrap();
    let log = outside.path().join("precious.log");
    std::fs::write(&log, "mine\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".git/logs")).unwrap();
    let _ = std::fs::remove_file(dir.path().join(".git/logs/HEAD"));
    std::os::unix::fs::symlink(&log, dir.path().join(".git/logs/HEAD")).unwrap();
    let objects = outside.path().join("objects");
    std::fs::create_dir(&objects).unwrap();
    std::fs::write(objects.join("secret.md"), "not yours").unwrap();
    std::os::unix::fs::symlink(&objects, dir.path().join("objects-link")).unwrap();
    std::os::unix::fs::symlink(&log, dir.path().join("linked.md")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let history = History::new(data.path(), 0);
    let snapshot = Snapshot::read(dir.path());
    let paths: Vec<&str> = snapshot.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["notes.md"], "no link read");
    let (first, _) = commit(&history, dir.path(), "@Lyra: [STATE:bootstrap] a").await;
    std::fs::write(dir.path().join("notes.md"), "more").unwrap();
    let (second, files) = commit(&history, dir.path(), "@Lyra: [STATE:inbox] b").await;
    assert_ne!(first, second);
    assert_eq!(files, ["notes.md"]);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "mine\n");
    assert_eq!(
        std::fs::read_dir(&objects).unwrap().count(),
        1,
        "nothing written there"
    );
    // The server's history holds both, the second on the first.
    let out = std::process::Command::new("git")
        .args([
            "--git-dir",
            history.git_dir().to_str().unwrap(),
            "log",
            "--format=%s",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "@Lyra: [STATE:inbox] b\n@Lyra: [STATE:bootstrap] a\n"
    );
}
