//! What an agent knows: its knowledge vault (Markdown files in `knowledge/` of its folder,
//! captured into the store as versions) and its work cycle as commits. The rules here are the
//! pure ones: which paths and sizes a vault may have, what changed between two versions, how a
//! vault goes into a prompt within a budget, and how a commit message reports a work state.

use super::docs::TYPE_WORK_COMMIT;
use super::docs::{
    knowledge_doc_id, Doc, Docs, KnowledgeDoc, KnowledgeFiles, WorkCommitDoc, TYPE_KNOWLEDGE,
};

/// The vault's folder inside the agent's folder.
pub const DIR: &str = "knowledge";
/// The largest file a vault keeps.
pub const MAX_FILE_BYTES: usize = 64 * 1024;
/// The most a whole vault holds.
pub const MAX_KNOWLEDGE_BYTES: usize = 256 * 1024;
/// The most files a vault holds.
pub const MAX_FILES: usize = 64;
/// The most of a vault's text a prompt carries; past it, names and first lines.
pub const PROMPT_BUDGET: usize = 24 * 1024;

/// Why (part of) a vault was not kept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KnowledgeError {
    #[error("{0:?} is not a vault path: a name of letters, digits, '.', '_' and '-' ending in .md or .txt, at most one folder deep")]
    BadPath(String),
    #[error("{path} is {bytes} bytes; a vault file may have {MAX_FILE_BYTES}")]
    FileTooLarge { path: String, bytes: usize },
    #[error(
        "the vault would hold {bytes} bytes; it may hold {MAX_KNOWLEDGE_BYTES}, so {path} was left out"
    )]
    KnowledgeTooLarge { path: String, bytes: usize },
    #[error("the vault may hold {MAX_FILES} files, so {0} was left out")]
    TooManyFiles(String),
}

/// Whether `path` may be a vault file: relative, one folder deep at most, each part of safe
/// characters not starting with a dot, ending in `.md` or `.txt`.
pub fn valid_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let safe = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.len() <= 80
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    (1..=2).contains(&parts.len())
        && parts.iter().all(|p| safe(p))
        && (path.ends_with(".md") || path.ends_with(".txt"))
}

/// What of `files` a vault keeps (in path order, until a limit), and why the rest was not.
pub fn within_limits(files: KnowledgeFiles) -> (KnowledgeFiles, Vec<KnowledgeError>) {
    let mut kept = KnowledgeFiles::new();
    let mut problems = Vec::new();
    let mut total = 0;
    for (path, text) in files {
        if !valid_path(&path) {
            problems.push(KnowledgeError::BadPath(path));
        } else if text.len() > MAX_FILE_BYTES {
            problems.push(KnowledgeError::FileTooLarge {
                bytes: text.len(),
                path,
            });
        } else if kept.len() >= MAX_FILES {
            problems.push(KnowledgeError::TooManyFiles(path));
        } else if total + text.len() > MAX_KNOWLEDGE_BYTES {
            problems.push(KnowledgeError::KnowledgeTooLarge {
                bytes: total + text.len(),
                path,
            });
        } else {
            total += text.len();
            kept.insert(path, text);
        }
    }
    (kept, problems)
}

/// The paths added, changed or removed from `old` to `new`, in order.
pub fn changed(old: &KnowledgeFiles, new: &KnowledgeFiles) -> Vec<String> {
    let mut paths: Vec<String> = new
        .iter()
        .filter(|(p, t)| old.get(*p) != Some(*t))
        .map(|(p, _)| p.clone())
        .chain(old.keys().filter(|p| !new.contains_key(*p)).cloned())
        .collect();
    paths.sort();
    paths
}

/// The vault as a prompt section: every file whole when it fits `budget`, else each file's
/// name and first lines with where to read the rest; `None` for an empty vault.
pub fn prompt(files: &KnowledgeFiles, budget: usize) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let whole: usize = files.iter().map(|(p, t)| p.len() + t.len() + 8).sum();
    let body: String = if whole <= budget {
        files
            .iter()
            .map(|(path, text)| format!("## {DIR}/{path}\n\n{}\n\n", text.trim_end()))
            .collect()
    } else {
        let mut s = format!(
            "(Your vault is larger than this letter can carry: here are the first lines of each \
             file. Read the files in {DIR}/ for the rest.)\n\n"
        );
        for (path, text) in files {
            let head: Vec<&str> = text.lines().take(3).collect();
            s += &format!("## {DIR}/{path}\n\n{}\n…\n\n", head.join("\n"));
        }
        s
    };
    Some(body.trim_end().to_string())
}

/// The current version of `identity`'s vault, if it has one.
pub fn knowledge_at<'a>(docs: &'a Docs, identity: &str, version: u32) -> Option<&'a KnowledgeDoc> {
    (version > 0)
        .then(|| docs.get(&knowledge_doc_id(identity, version)))
        .flatten()
        .and_then(Doc::as_knowledge)
}

/// Every version of `identity`'s vault, oldest first.
pub fn knowledge_versions<'a>(docs: &'a Docs, identity: &str) -> Vec<&'a KnowledgeDoc> {
    let from = format!("{TYPE_KNOWLEDGE}:{identity}:");
    let to = format!("{TYPE_KNOWLEDGE}:{identity};");
    docs.range(from..to)
        .filter_map(|(_, d)| d.as_knowledge())
        .collect()
}

/// The work-cycle commits of `identity`, oldest first.
pub fn commits_of<'a>(docs: &'a Docs, identity: &str) -> Vec<&'a WorkCommitDoc> {
    let mut v: Vec<&WorkCommitDoc> = docs
        .range(format!("{TYPE_WORK_COMMIT}:")..format!("{TYPE_WORK_COMMIT};"))
        .filter_map(|(_, d)| d.as_work_commit())
        .filter(|c| c.identity_id == identity)
        .collect();
    v.sort_by_key(|c| (c.created_at, c.event_id));
    v
}

/// A commit subject that reports a work state: `@<Name>: [STATE:<state>] <summary>` (the name
/// part may be left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateCommit {
    pub name: Option<String>,
    pub state: String,
    pub summary: String,
}

/// Reads a commit subject; `None` when it carries no `[STATE:…]`.
pub fn parse_commit_subject(subject: &str) -> Option<StateCommit> {
    let subject = subject.trim();
    let (name, rest) = match subject.strip_prefix('@').and_then(|s| s.split_once(": ")) {
        Some((name, rest)) if !name.is_empty() && !name.contains('[') => {
            (Some(name.trim().to_string()), rest.trim_start())
        }
        _ => (None, subject),
    };
    let after = rest.strip_prefix("[STATE:")?;
    let (state, summary) = after.split_once(']')?;
    Some(StateCommit {
        name,
        state: state.trim().to_string(),
        summary: summary.trim().to_string(),
    })
}

/// The subject the server writes for a validated transition.
pub fn commit_subject(name: &str, state: &str, summary: &str) -> String {
    let summary = summary.trim();
    match summary.is_empty() {
        true => format!("@{name}: [STATE:{state}]"),
        false => format!("@{name}: [STATE:{state}] {summary}"),
    }
}
