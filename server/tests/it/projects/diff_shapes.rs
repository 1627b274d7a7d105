//! A diff page finds each file's part of git's patch by its path: a file that became a link
//! (two parts in the patch) does not shift the hunks of the files after it.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_became_a_link_does_not_shift_the_next_files_hunks() {
    let a = at_work(0).await;
    let (router, project, lyra, tree) = (&a.router, &a.project, &a.who, &a.tree);
    std::fs::remove_file(tree.join("README.md")).unwrap();
    std::os::unix::fs::symlink("src/lib.rs", tree.join("README.md")).unwrap();
    std::fs::write(tree.join("src/lib.rs"), "pub fn one() -> u32 {\n    2\n}\n").unwrap();
    // Not committed yet (the worktree against the head), then committed (two commits).
    for (list, commit) in [("uncommitted", false), ("files", true)] {
        if commit {
            git(tree, &["add", "-A"]);
            git(tree, &["commit", "-q", "-m", "a link"]);
        }
        let page = diff(router, project, lyra, 0).await;
        let files = page[list].as_array().unwrap();
        let lib = files.iter().find(|f| f["path"] == "src/lib.rs").unwrap();
        let added: Vec<&str> = lib["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|h| h["lines"].as_array().unwrap())
            .filter(|l| l["kind"] == "added")
            .map(|l| l["text"].as_str().unwrap())
            .collect();
        assert_eq!(added, ["    2"], "{list}: {lib}");
    }
}
