//! The agent's own repository (`.git` in its folder), read without running anything: `HEAD`,
//! its refs, and the loose objects of its commits and trees. Every file is read through
//! [`crate::fsafe::read_in`] (no link followed on the way, no FIFO waited on, a bound on every
//! read), every object inflated up to a bound. Nothing the agent writes (its config, hooks,
//! attributes, a link or a FIFO in `.git`) makes the server run, wait or read elsewhere.
//!
//! What is not read: packed objects (the repository the server makes has git's automatic gc
//! off, so an agent's commits stay loose unless it packs them itself) and SHA-256
//! repositories. Either is an error, said on the agent's seat.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};

use super::GitError;
use crate::fsafe::{read_in, Found};

/// The largest loose object file read (compressed).
const MAX_OBJECT_FILE: usize = 4 * 1024 * 1024;
/// The largest commit or tree read (inflated).
const MAX_OBJECT: usize = 8 * 1024 * 1024;
/// The most objects one question reads (a walk of the history, a diff of two trees).
const MAX_READS: usize = 5_000;
/// How deep a tree diff goes.
const MAX_DEPTH: usize = 32;

/// A commit as the log shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    pub tree: String,
    pub parents: Vec<String>,
    pub author: String,
    pub time_ms: i64,
    /// The message's first paragraph, on one line (git's `%s`).
    pub subject: String,
}

/// The agent's repository, by its folder.
pub struct AgentGit {
    folder: PathBuf,
    /// Objects read so far by the current question.
    reads: std::cell::Cell<usize>,
}

fn unreadable(what: impl Into<String>) -> GitError {
    GitError::Folder(what.into())
}

fn is_sha(s: &str) -> bool {
    s.len() == 40
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

impl AgentGit {
    pub fn new(folder: &Path) -> Self {
        AgentGit {
            folder: folder.to_path_buf(),
            reads: std::cell::Cell::new(0),
        }
    }

    fn read(&self, rel: &str, limit: usize) -> Result<Option<Vec<u8>>, GitError> {
        match read_in(&self.folder, Path::new(".git").join(rel).as_path(), limit)? {
            Found::Bytes(b) => Ok(Some(b)),
            Found::Missing => Ok(None),
            Found::Unfit(why) => Err(unreadable(format!(".git/{rel}: {why}"))),
        }
    }

    /// The commit `HEAD` names; `None` on a branch with no commit yet.
    pub fn head(&self) -> Result<Option<String>, GitError> {
        let head = self
            .read("HEAD", 4096)?
            .ok_or_else(|| unreadable("no .git/HEAD"))?;
        let head = String::from_utf8_lossy(&head).trim().to_string();
        let Some(name) = head.strip_prefix("ref: ") else {
            return match is_sha(&head) {
                true => Ok(Some(head)),
                false => Err(unreadable("HEAD names no commit")),
            };
        };
        let plain = name.starts_with("refs/")
            && name
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != ".." && !p.starts_with('.'));
        if !plain {
            return Err(unreadable(format!("HEAD names {name:?}")));
        }
        if let Some(sha) = self.read(name, 4096)? {
            let sha = String::from_utf8_lossy(&sha).trim().to_string();
            return match is_sha(&sha) {
                true => Ok(Some(sha)),
                false => Err(unreadable(format!("{name} names no commit"))),
            };
        }
        let Some(packed) = self.read("packed-refs", 1024 * 1024)? else {
            return Ok(None);
        };
        let packed = String::from_utf8_lossy(&packed);
        Ok(packed
            .lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(_, r)| *r == name)
            .map(|(sha, _)| sha.to_string())
            .filter(|s| is_sha(s)))
    }

    /// An object's kind and content (loose only).
    fn object(&self, sha: &str) -> Result<(String, Vec<u8>), GitError> {
        if !is_sha(sha) {
            return Err(unreadable(format!("{sha:?} is not an object name")));
        }
        let n = self.reads.get() + 1;
        if n > MAX_READS {
            return Err(unreadable(format!("more than {MAX_READS} objects to read")));
        }
        self.reads.set(n);
        let file = format!("objects/{}/{}", &sha[..2], &sha[2..]);
        let packed = self.read(&file, MAX_OBJECT_FILE)?.ok_or_else(|| {
            unreadable(format!(
                "object {sha} is not loose (packed objects are not read)"
            ))
        })?;
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(&packed[..])
            .take(MAX_OBJECT as u64 + 64)
            .read_to_end(&mut raw)
            .map_err(|e| unreadable(format!("object {sha}: {e}")))?;
        let nul = raw
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| unreadable(format!("object {sha} has no header")))?;
        let header = String::from_utf8_lossy(&raw[..nul]).into_owned();
        let (kind, size) = header
            .split_once(' ')
            .ok_or_else(|| unreadable(format!("object {sha} has no header")))?;
        let body = raw[nul + 1..].to_vec();
        if size.parse::<usize>().ok() != Some(body.len()) {
            return Err(unreadable(format!(
                "object {sha} is not whole, or too large"
            )));
        }
        Ok((kind.to_string(), body))
    }

    pub fn commit(&self, sha: &str) -> Result<Commit, GitError> {
        let (kind, body) = self.object(sha)?;
        if kind != "commit" {
            return Err(unreadable(format!("{sha} is a {kind}, not a commit")));
        }
        let text = String::from_utf8_lossy(&body);
        let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
        let mut c = Commit {
            sha: sha.to_string(),
            tree: String::new(),
            parents: Vec::new(),
            author: String::new(),
            time_ms: 0,
            subject: String::new(),
        };
        for line in headers.lines() {
            if let Some(t) = line.strip_prefix("tree ") {
                c.tree = t.trim().to_string();
            } else if let Some(p) = line.strip_prefix("parent ") {
                c.parents.push(p.trim().to_string());
            } else if let Some(a) = line.strip_prefix("author ") {
                c.author = a.split(" <").next().unwrap_or("").to_string();
            } else if let Some(who) = line.strip_prefix("committer ") {
                // `Name <email> 1700000000 +0000`
                let mut from_end = who.rsplit(' ');
                let _zone = from_end.next();
                c.time_ms = from_end
                    .next()
                    .and_then(|t| t.parse::<i64>().ok())
                    .unwrap_or(0)
                    * 1000;
            }
        }
        c.subject = message
            .split("\n\n")
            .next()
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        if !is_sha(&c.tree) {
            return Err(unreadable(format!("commit {sha} has no tree")));
        }
        Ok(c)
    }

    /// The commits after `since` up to `HEAD`, oldest first (at most `most`).
    pub fn log_since(&self, since: Option<&str>, most: usize) -> Result<Vec<Commit>, GitError> {
        self.reads.set(0);
        let Some(head) = self.head()? else {
            return Ok(Vec::new());
        };
        let mut seen = HashSet::new();
        let mut queue = VecDeque::from([head]);
        let mut found = Vec::new();
        while let Some(sha) = queue.pop_front() {
            if Some(sha.as_str()) == since || !seen.insert(sha.clone()) || found.len() >= most {
                continue;
            }
            let c = self.commit(&sha)?;
            queue.extend(c.parents.iter().cloned());
            found.push(c);
        }
        // Oldest first: every commit after its parents (whatever the clocks said), the
        // earlier time first among those that are free to come.
        let within: HashSet<String> = found.iter().map(|c| c.sha.clone()).collect();
        let mut done: HashSet<String> = HashSet::new();
        let mut ordered = Vec::with_capacity(found.len());
        while !found.is_empty() {
            let ready = |c: &Commit| {
                c.parents
                    .iter()
                    .all(|p| !within.contains(p) || done.contains(p))
            };
            let next = (0..found.len())
                .filter(|&i| ready(&found[i]))
                .min_by_key(|&i| found[i].time_ms)
                .unwrap_or(0);
            let c = found.remove(next);
            done.insert(c.sha.clone());
            ordered.push(c);
        }
        Ok(ordered)
    }

    /// A tree's entries: name to (is a folder, object).
    fn tree(&self, sha: &str) -> Result<BTreeMap<String, (bool, String)>, GitError> {
        let (kind, body) = self.object(sha)?;
        if kind != "tree" {
            return Err(unreadable(format!("{sha} is a {kind}, not a tree")));
        }
        let mut out = BTreeMap::new();
        let mut rest = &body[..];
        while !rest.is_empty() {
            let nul = rest
                .iter()
                .position(|b| *b == 0)
                .filter(|n| rest.len() >= n + 21)
                .ok_or_else(|| unreadable(format!("tree {sha} is not whole")))?;
            let entry = String::from_utf8_lossy(&rest[..nul]).into_owned();
            let (mode, name) = entry
                .split_once(' ')
                .ok_or_else(|| unreadable(format!("tree {sha} is not whole")))?;
            let id: String = rest[nul + 1..nul + 21]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            out.insert(name.to_string(), (mode == "40000", id));
            rest = &rest[nul + 21..];
        }
        Ok(out)
    }

    /// The files `commit` changed from its first parent (all of them for a first commit).
    pub fn changed_by(&self, commit: &str) -> Result<Vec<String>, GitError> {
        self.reads.set(0);
        let c = self.commit(commit)?;
        let before = match c.parents.first() {
            Some(p) => Some(self.commit(p)?.tree),
            None => None,
        };
        let mut out = Vec::new();
        self.diff(before.as_deref(), Some(&c.tree), "", 0, &mut out)?;
        out.sort();
        Ok(out)
    }

    fn diff(
        &self,
        a: Option<&str>,
        b: Option<&str>,
        prefix: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), GitError> {
        if a == b || depth > MAX_DEPTH {
            return Ok(());
        }
        let read = |t: Option<&str>| t.map_or(Ok(BTreeMap::new()), |t| self.tree(t));
        let (a, b) = (read(a)?, read(b)?);
        let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for name in names {
            let (ea, eb) = (a.get(name), b.get(name));
            if ea == eb {
                continue;
            }
            let path = format!("{prefix}{name}");
            fn folder(e: Option<&(bool, String)>) -> Option<&str> {
                e.filter(|e| e.0).map(|e| e.1.as_str())
            }
            let file = |e: Option<&(bool, String)>| e.is_some_and(|e| !e.0);
            if file(ea) || file(eb) {
                out.push(path.clone());
            }
            let (fa, fb) = (folder(ea), folder(eb));
            if fa.is_some() || fb.is_some() {
                self.diff(fa, fb, &format!("{path}/"), depth + 1, out)?;
            }
        }
        Ok(())
    }
}
