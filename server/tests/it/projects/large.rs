//! A huge repository (100,000 files) and a file of many GB: the diff is git's, paged, and the
//! large file is named, never read (not even to count its lines); the radar lists at most its bound and counts all.

use std::io::Write;
use std::process::{Command, Stdio};

use super::*;

/// A repository at `{root}/{name}` whose one commit holds `files` files (one blob shared by
/// all: written with `git fast-import`, so it costs the tree, not the disk).
fn huge(root: &Path, name: &str, files: usize) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let mut stream = String::from("blob\nmark :1\ndata 6\nhello\n");
    stream.push_str(
        "commit refs/heads/main\ncommitter Tester <t@example.com> 1700000000 +0000\ndata 4\nhuge\n",
    );
    for i in 0..files {
        stream.push_str(&format!("M 100644 :1 d{:03}/f{i}.txt\n", i / 1000));
    }
    let mut child = Command::new("git")
        .current_dir(&dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    // Its own checkout is left empty: the agent's worktree is the one checked out.
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_repository_and_a_16_gb_file_are_diffed_a_page_at_a_time() {
    let root = tempfile::tempdir().unwrap();
    let web = huge(root.path(), "web", 100_000);
    let (_dir, state, router) = team_in(root.path()).await;
    let main = git(&web, &["rev-parse", "main"]);
    let project = link(&router, &web).await;
    let lyra = identity_in(&state, 0);
    let w = put_to_work(&router, &project, &lyra).await;
    let tree = PathBuf::from(w["path"].as_str().unwrap());
    assert!(tree.join("d099/f99999.txt").is_file(), "checked out whole");
    // 600 files changed, and a new file of 16 GB (sparse: no disk is spent on it; read whole,
    // at about 9 s a GB here, it would outlast git's time limit).
    for i in 0..600 {
        std::fs::write(tree.join(format!("d{:03}/f{i}.txt", i / 1000)), "changed\n").unwrap();
    }
    let big = std::fs::File::create(tree.join("big.bin")).unwrap();
    big.set_len(16 << 30).unwrap();
    drop(big);

    // Not committed: nothing to review yet, and the first page of what is not committed, its
    // count beside it.
    let first = diff(&router, &project, &lyra, 0).await;
    assert_eq!(
        (first["totalFiles"].as_u64(), first["pages"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(first["totalUncommitted"], 601);
    assert_eq!(first["uncommitted"].as_array().unwrap().len(), 50);
    // The large file (it sorts first) is named as binary, with no hunk.
    let big = first["uncommitted"][0].clone();
    assert_eq!(big["path"], "big.bin", "{big}");
    assert_eq!(big["binary"], true, "{big}");
    assert!(
        big["hunks"].as_array().is_none_or(|h| h.is_empty()),
        "{big}"
    );
    // The radar counts every changed file and lists at most its bound.
    wait_for(&state, "the radar's count", |d| {
        app::domain::projects::worktree(d, &project, &lyra).is_some_and(|w| w.changed_count == 601)
    })
    .await;
    let listed = state.store.with_docs(|d| {
        app::domain::projects::worktree(d, &project, &lyra)
            .unwrap()
            .changed_files
            .len()
    });
    assert_eq!(listed, app::domain::docs::MAX_LISTED);
    // The user's repository: its branch where it was.
    assert_eq!(git(&web, &["rev-parse", "main"]), main);
}
