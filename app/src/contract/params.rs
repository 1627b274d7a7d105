//! What fills an endpoint's route and query ([`Params`]): a seat, ids, and the typed queries
//! (`?after=`, `?version=`, `?agent=&page=`, `?path=&agent=&line=`), each encoded for a URL.

use serde::{Deserialize, Serialize};

use super::endpoints::path_segment;
use crate::domain::Seat;

/// What fills a route's parameters, in order, each already encoded for a URL.
pub trait Params {
    fn segments(&self) -> Vec<String>;
    /// The query string (without `?`), if any.
    fn query(&self) -> Option<String> {
        None
    }
}

impl Params for () {
    fn segments(&self) -> Vec<String> {
        Vec::new()
    }
}

impl Params for Seat {
    fn segments(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl Params for String {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(self)]
    }
}

impl Params for (String, String) {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(&self.0), path_segment(&self.1)]
    }
}

/// A file's path inside a folder (`{*path}`): each of its parts encoded, the slashes kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePath(pub String);

impl Params for (String, FilePath) {
    fn segments(&self) -> Vec<String> {
        let rest: Vec<String> = self.1 .0.split('/').map(path_segment).collect();
        vec![path_segment(&self.0), rest.join("/")]
    }
}

/// `?after=N`: the events after this id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct After {
    #[serde(default)]
    pub after: Option<u64>,
}

impl Params for After {
    fn segments(&self) -> Vec<String> {
        Vec::new()
    }
    fn query(&self) -> Option<String> {
        self.after.map(|a| format!("after={a}"))
    }
}

/// An identity and, in the query, one version of its knowledge (`?version=N`; the current one
/// when absent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnowledgeAt {
    pub id: String,
    pub version: Option<u32>,
}

impl Params for KnowledgeAt {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(&self.id)]
    }
    fn query(&self) -> Option<String> {
        self.version.map(|v| format!("version={v}"))
    }
}

/// `?version=N`, as the server reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionQuery {
    #[serde(default)]
    pub version: Option<u32>,
}

/// A project and, in the query, a file of it, whose worktree and which line
/// (`?path=…&agent=…&line=N`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileAt {
    pub project: String,
    pub path: String,
    pub agent: Option<String>,
    pub line: Option<u32>,
}

impl Params for FileAt {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(&self.project)]
    }
    fn query(&self) -> Option<String> {
        let mut q = format!("path={}", path_segment(&self.path));
        if let Some(a) = &self.agent {
            q.push_str(&format!("&agent={}", path_segment(a)));
        }
        if let Some(l) = self.line {
            q.push_str(&format!("&line={l}"));
        }
        Some(q)
    }
}

/// A project and, in the query, whose diff and which page (`?agent=…&page=N`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffAt {
    pub project: String,
    pub agent: String,
    pub page: Option<usize>,
}

impl Params for DiffAt {
    fn segments(&self) -> Vec<String> {
        vec![path_segment(&self.project)]
    }
    fn query(&self) -> Option<String> {
        let mut q = format!("agent={}", path_segment(&self.agent));
        if let Some(p) = self.page {
            q.push_str(&format!("&page={p}"));
        }
        Some(q)
    }
}
