//! Another program writing into inboxes, the way Claude Code does it, written here
//! independently of ours so that the two really are two writers.

use std::path::Path;

/// Another process's writer, done as Claude Code does it: mkdir the lock, write a temp file,
/// rename, rmdir. Written here independently of ours, so the two really are two writers.
pub fn external_append(file: &Path, from: &str, i: usize) {
    external_append_text(file, from, &format!("{from} {i}"));
}

/// As [`external_append`], `count` messages `note {round}-{i}` in one write.
pub fn external_append_batch(file: &Path, from: &str, round: usize, count: usize) {
    let texts: Vec<String> = (0..count).map(|i| format!("note {round}-{i}")).collect();
    external_append_all(file, from, &texts);
}

/// As [`external_append`], with the message's text.
pub fn external_append_text(file: &Path, from: &str, text: &str) {
    external_append_all(file, from, &[text.to_string()]);
}

fn external_append_all(file: &Path, from: &str, texts: &[String]) {
    let lock = std::path::PathBuf::from(format!("{}.lock", file.display()));
    while std::fs::create_dir(&lock).is_err() {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let mut all: Vec<serde_json::Value> = std::fs::read_to_string(file)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("the file is always valid JSON"))
        .unwrap_or_default();
    for text in texts {
        all.push(serde_json::json!({"from": from, "text": text, "timestamp": "2026-11-22T10:00:00.000Z", "read": false}));
    }
    let tmp = std::path::PathBuf::from(format!(
        "{}.tmp.ext{}",
        file.display(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&tmp, serde_json::to_vec(&all).unwrap()).unwrap();
    std::fs::rename(&tmp, file).unwrap();
    std::fs::remove_dir(&lock).unwrap();
}
