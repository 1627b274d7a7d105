//! A tool call's paths as the file system resolves them, for the rules and the lead-first
//! check only (the request is recorded as the agent wrote it): relative ones from where the
//! agent runs, and through any symlink, so that a link inside the agent's folder to a place
//! outside it reads as outside (`ln -s ~ h` then `Edit(h/.bashrc)`).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The input with each of its path fields resolved (the longest part that exists, through its
/// links, then the rest as written).
pub fn resolved(input: &Value, cwd: Option<&str>) -> Value {
    let mut out = input.clone();
    for key in ["file_path", "notebook_path", "path"] {
        if let Some(p) = input[key].as_str() {
            out[key] = Value::String(resolve(p, cwd));
        }
    }
    out
}

fn resolve(path: &str, cwd: Option<&str>) -> String {
    let given = Path::new(path);
    let full: PathBuf = match (given.is_absolute(), cwd) {
        (true, _) => given.to_path_buf(),
        (false, Some(cwd)) => Path::new(cwd).join(given),
        (false, None) => return path.to_string(),
    };
    // The longest existing ancestor, resolved; what does not exist yet kept as written.
    let mut rest = Vec::new();
    let mut at = full.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            let joined = rest
                .iter()
                .rev()
                .fold(real, |p: PathBuf, part| p.join(part));
            return joined.display().to_string();
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return full.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_link_inside_to_outside_resolves_outside_and_new_files_keep_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("agent");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, home.join("h")).unwrap();
        let real = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
        let cwd = real(&home);
        let v = resolved(&json!({"file_path": "h/.bashrc"}), Some(&cwd));
        assert_eq!(v["file_path"], format!("{}/.bashrc", real(&outside)));
        let v = resolved(&json!({"file_path": "src/new/lib.rs"}), Some(&cwd));
        assert_eq!(v["file_path"], format!("{cwd}/src/new/lib.rs"));
        let v = resolved(&json!({"command": "ls"}), Some(&cwd));
        assert_eq!(v, json!({"command": "ls"}));
    }
}
