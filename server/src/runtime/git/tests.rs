//! The folder's repository: what the agent's own git sees, and HEAD read without git.

use super::*;

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
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
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
