//! Projects and worktrees as rules: which projects are linked, which worktrees an identity
//! holds, the branch name the server derives for an agent, and what an agent is told of where
//! it works. The git is the server's (`server/src/projects/`); this is what it decides by.

use super::docs::{Doc, Docs, ProjectDoc, WorktreeDoc, TYPE_PROJECT, TYPE_WORKTREE};
use super::names::slug;

/// The prefix of every branch the server makes; nothing else is ever named by it.
pub const BRANCH_PREFIX: &str = "soulgrid/";

/// Every project ever linked, linked ones first, then by name.
pub fn projects(docs: &Docs) -> Vec<&ProjectDoc> {
    let mut v: Vec<&ProjectDoc> = docs
        .range(format!("{TYPE_PROJECT}:")..format!("{TYPE_PROJECT};"))
        .filter_map(|(_, d)| d.as_project())
        .collect();
    v.sort_by_key(|p| (!p.is_linked(), p.name.to_lowercase(), p.project_id.clone()));
    v
}

pub fn project<'a>(docs: &'a Docs, id: &str) -> Option<&'a ProjectDoc> {
    docs.get(&super::docs::project_doc_id(id))
        .and_then(Doc::as_project)
}

/// The linked project named `name` (any case), if there is one.
pub fn linked_named<'a>(docs: &'a Docs, name: &str) -> Option<&'a ProjectDoc> {
    projects(docs)
        .into_iter()
        .find(|p| p.is_linked() && p.name.eq_ignore_ascii_case(name.trim()))
}

/// Every worktree of every project, oldest first.
pub fn worktrees(docs: &Docs) -> Vec<&WorktreeDoc> {
    let mut v: Vec<&WorktreeDoc> = docs
        .range(format!("{TYPE_WORKTREE}:")..format!("{TYPE_WORKTREE};"))
        .filter_map(|(_, d)| d.as_worktree())
        .collect();
    v.sort_by_key(|w| (w.made_at, w.id.clone()));
    v
}

/// The worktrees of one project, oldest first.
pub fn worktrees_of_project<'a>(docs: &'a Docs, project: &str) -> Vec<&'a WorktreeDoc> {
    worktrees(docs)
        .into_iter()
        .filter(|w| w.project_id == project)
        .collect()
}

/// The worktrees an identity works in: those of projects still linked, oldest first.
pub fn worktrees_of<'a>(docs: &'a Docs, identity: &str) -> Vec<&'a WorktreeDoc> {
    worktrees(docs)
        .into_iter()
        .filter(|w| w.identity_id == identity)
        .filter(|w| project(docs, &w.project_id).is_some_and(ProjectDoc::is_linked))
        .collect()
}

pub fn worktree<'a>(docs: &'a Docs, project: &str, identity: &str) -> Option<&'a WorktreeDoc> {
    docs.get(&super::docs::worktree_doc_id(project, identity))
        .and_then(Doc::as_worktree)
}

/// The branch the server names for an agent: `soulgrid/<inbox-slug>`, never raw text from an
/// agent. `taken` says whether a name is in use; a number is added until one is free.
pub fn branch_for(inbox_or_name: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = format!("{BRANCH_PREFIX}{}", slug(inbox_or_name));
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|b| !taken(b))
        .expect("an unbounded range finds a free name")
}

/// A project's name from its folder's last part, when the human gives none.
pub fn name_from_path(path: &str) -> String {
    let last = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    match last.trim() {
        "" => "project".into(),
        name => name.chars().take(64).collect(),
    }
}

/// Why a name cannot be a project's.
pub fn check_name(name: &str) -> Result<String, &'static str> {
    let name = name.trim();
    if name.is_empty() {
        return Err("a project needs a name");
    }
    if name.chars().count() > 64 {
        return Err("a project's name is at most 64 characters");
    }
    if name.chars().any(char::is_control) {
        return Err("a project's name is one line of text");
    }
    Ok(name.to_string())
}

/// What an agent is told of where it works (its system prompt and `_state.md`): each project,
/// its worktree and its branch.
pub fn where_you_work(docs: &Docs, worktrees: &[&WorktreeDoc]) -> Option<String> {
    if worktrees.is_empty() {
        return None;
    }
    let mut out = String::from(
        "You are at work on the user's code. Each project below is a git worktree of its own, \
         on a branch of your own: read, edit and commit there (git add, git commit), and only \
         there; the human reviews your branch and merges it.\n",
    );
    for w in worktrees {
        let name = project(docs, &w.project_id).map_or("a project", |p| p.name.as_str());
        let base = project(docs, &w.project_id).map_or("", |p| p.base.as_str());
        out.push_str(&format!(
            "- {name}: {} (branch {}, from {base})\n",
            w.path, w.branch
        ));
    }
    Some(out)
}

/// A file an agent names (a finding's), as a path relative to the project's root: written
/// relative, or absolute inside the agent's `worktree`. `None` for a path that leaves the
/// project (`..`, absolute elsewhere) or names nothing.
pub fn file_in_project(raw: &str, worktree: Option<&str>) -> Option<String> {
    let raw = raw.trim();
    let rel = match (raw.starts_with('/'), worktree) {
        (true, Some(w)) => raw
            .strip_prefix(w.trim_end_matches('/'))?
            .strip_prefix('/')?,
        (true, None) => return None,
        (false, _) => raw,
    };
    let mut parts = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            p if p.contains('\0') => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The files changed in two or more worktrees of `project` (branches not merged), each with
/// the identities that changed it, in file order.
pub fn overlaps(docs: &Docs, project: &str) -> Vec<(String, Vec<String>)> {
    let mut by_file: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for w in worktrees_of_project(docs, project) {
        if w.review == super::docs::Review::Merged && w.changed_files.is_empty() {
            continue;
        }
        for f in &w.changed_files {
            by_file.entry(f).or_default().push(w.identity_id.clone());
        }
    }
    by_file
        .into_iter()
        .filter(|(_, who)| who.len() > 1)
        .map(|(f, who)| (f.to_string(), who))
        .collect()
}

/// Whether a claimed path covers `file`: the same file, or a folder it is in.
pub fn covers(claimed: &str, file: &str) -> bool {
    let c = claimed
        .trim()
        .trim_start_matches("./")
        .trim_end_matches('/');
    !c.is_empty() && (file == c || file.starts_with(&format!("{c}/")))
}

/// The other worktrees of the project whose claim (while it holds at `now`) or changed files
/// meet the paths `paths`: each with the paths they meet on.
pub fn claim_meets<'a>(
    docs: &'a Docs,
    project: &str,
    identity: &str,
    paths: &[String],
    now: super::Millis,
) -> Vec<(&'a WorktreeDoc, Vec<String>)> {
    worktrees_of_project(docs, project)
        .into_iter()
        .filter(|w| w.identity_id != identity && w.review != super::docs::Review::Merged)
        .filter_map(|w| {
            let theirs: Vec<&String> = w
                .changed_files
                .iter()
                .chain(
                    w.claim
                        .iter()
                        .filter(|c| c.until > now)
                        .flat_map(|c| &c.paths),
                )
                .collect();
            let met: Vec<String> = paths
                .iter()
                .filter(|p| theirs.iter().any(|t| covers(p, t) || covers(t, p)))
                .cloned()
                .collect();
            (!met.is_empty()).then_some((w, met))
        })
        .collect()
}

/// The message **Request changes** sends: every comment not sent yet, each with its file, line
/// and the code around it.
pub fn changes_message(project: &str, w: &WorktreeDoc) -> Option<String> {
    let open: Vec<_> = w.comments.iter().filter(|c| !c.sent).collect();
    if open.is_empty() {
        return None;
    }
    let mut out = format!(
        "The human reviewed your branch {} of {project} and asks for changes ({} comment{}):\n",
        w.branch,
        open.len(),
        if open.len() == 1 { "" } else { "s" }
    );
    for c in open {
        out.push_str(&format!("\n{}:{}: {}\n", c.file, c.line, c.text.trim()));
        if !c.code.trim().is_empty() {
            out.push_str(&format!("```\n{}\n```\n", c.code.trim_end()));
        }
    }
    out.push_str("\nChange them in your worktree, commit, and ask for a review again.");
    Some(out)
}

/// What the conflict radar says of an identity, for a badge on its face: the files it and
/// others changed or claimed in one project (claims as they stand, until merged or replaced),
/// with the others' names. `None` when it is clear.
pub fn radar_of(docs: &Docs, identity: &str) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    for w in worktrees_of(docs, identity) {
        for (file, who) in overlaps(docs, &w.project_id) {
            if who.iter().any(|i| i == identity) {
                let others: Vec<&str> = who
                    .iter()
                    .filter(|i| *i != identity)
                    .filter_map(|i| worktree(docs, &w.project_id, i).map(|o| o.agent.as_str()))
                    .collect();
                said.push(format!("{file}: also {}", others.join(", ")));
            }
        }
        if let Some(c) = &w.claim {
            for (other, files) in claim_meets(docs, &w.project_id, identity, &c.paths, 0) {
                let line = format!("{} (claimed): also {}", files.join(", "), other.agent);
                if !said.contains(&line) {
                    said.push(line);
                }
            }
        }
    }
    (!said.is_empty()).then(|| said.join("\n"))
}
