//! The runtime's rooms keep their rules (docs/ARCHITECTURE.md, "The runtime's rooms"), read
//! from the source: `process/` names none of `mail/`, `team/`, `quest/`; `team/` never names
//! `quest/`; `mail/` names neither; `folder/` and `projects/` name no other room; no two rooms name each
//! other; `external/` is named by no room; the shared modules at the root (`context`, `config`, `prompts`, `record`, …) name no
//! room; no room's file reaches up to the façade (`crate::runtime::Runtime` and what `mod.rs`
//! re-exports) or has an `impl Runtime`: each room has its own owner type.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOMS: [&str; 7] = [
    "process", "mail", "folder", "team", "quest", "projects", "external",
];

/// The runtime's shared modules at its root, which every room may name (they name no room).
const SHARED: [&str; 7] = [
    "background",
    "config",
    "context",
    "error",
    "ids",
    "prompts",
    "record",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `crate::runtime::<name>` a file names, outside comments.
fn named(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::runtime::") {
            rest = &rest[i + "crate::runtime::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

struct House {
    /// Room → the rooms its files name.
    rooms: BTreeMap<&'static str, BTreeSet<String>>,
    /// Files (relative) that name something of the façade.
    upward: BTreeSet<String>,
    /// Files (relative) with an `impl Runtime` outside `mod.rs`.
    impls: BTreeSet<String>,
    /// A rule broken: file, what it names.
    broken: Vec<(String, String)>,
}

fn house() -> House {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    let mut h = House {
        rooms: BTreeMap::new(),
        upward: BTreeSet::new(),
        impls: BTreeSet::new(),
        broken: Vec::new(),
    };
    for room in ROOMS {
        let mut all = Vec::new();
        files(&root.join(room), &mut all);
        assert!(!all.is_empty(), "the room {room} has files");
        let deps = h.rooms.entry(room).or_default();
        for f in all {
            let rel = f.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            if text.contains("impl Runtime {") {
                h.impls.insert(rel.clone());
            }
            for name in named(&text) {
                // Anything else of `crate::runtime::` is the façade (`Runtime` and what
                // mod.rs re-exports): each is one place the owner types have not reached yet.
                if !ROOMS.contains(&name.as_str()) && !SHARED.contains(&name.as_str()) {
                    h.upward.insert(rel.clone());
                }
                if ROOMS.contains(&name.as_str()) && name != room {
                    let forbidden = match room {
                        "process" => ["mail", "team", "quest"].contains(&name.as_str()),
                        "team" | "mail" => name == "quest" || (room == "mail" && name == "team"),
                        // Leaves: every other room may use them.
                        "folder" | "projects" => true,
                        _ => false,
                    } || name == "external";
                    if forbidden {
                        h.broken.push((rel.clone(), name.clone()));
                    }
                    deps.insert(name);
                }
            }
        }
    }
    h
}

#[test]
fn the_rooms_keep_their_rules() {
    let h = house();
    assert!(
        h.broken.is_empty(),
        "a room names a room its rules forbid: {:?}",
        h.broken
    );
}

/// The façade is `mod.rs` (and its switchboard): the rooms reach it never, and only it has
/// an `impl Runtime`.
#[test]
fn no_room_reaches_up_to_the_facade() {
    let h = house();
    assert!(
        h.upward.is_empty(),
        "room files that name the façade: {:?}",
        h.upward
    );
    assert!(
        h.impls.is_empty(),
        "room files with an `impl Runtime`: {:?}",
        h.impls
    );
}

#[test]
fn the_shared_modules_name_no_room() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    for m in SHARED {
        let text = std::fs::read_to_string(root.join(format!("{m}.rs"))).unwrap();
        for name in named(&text) {
            assert!(
                !ROOMS.contains(&name.as_str()),
                "{m}.rs names the room {name}"
            );
        }
    }
}

#[test]
fn no_two_rooms_name_each_other() {
    let h = house();
    for (a, deps) in &h.rooms {
        for b in deps {
            let back = h.rooms.get(b.as_str()).is_some_and(|d| d.contains(*a));
            assert!(
                !back,
                "a circle between the rooms {a} and {b}: {:?}",
                h.rooms
            );
        }
    }
}

/// The module path of a file under `src/runtime` (`process/owner.rs` → `process::owner`,
/// `quest/mod.rs` → `quest`, `mod.rs` → ``).
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The modules a file names: each `crate::runtime::a::b::…` and `super::…` path, taken to the
/// longest prefix that is a file's module (the convention here: files name each other by
/// these paths).
fn modules_named(text: &str, own: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = own.rsplit_once("::").map_or("", |(p, _)| p).to_string();
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (marker, base) in [
            ("crate::runtime::", String::new()),
            ("super::", parent.clone()),
        ] {
            let mut rest = code;
            while let Some(i) = rest.find(marker) {
                // `crate::runtime::…` also contains no `super::`; a `super::` inside it is none.
                rest = &rest[i + marker.len()..];
                let path: Vec<&str> = rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .collect();
                let mut best = base.clone();
                for n in 1..=path.len() {
                    let joined = path[..n].join("::");
                    let candidate = match base.is_empty() {
                        true => joined,
                        false => format!("{base}::{joined}"),
                    };
                    if known.contains(&candidate) {
                        best = candidate;
                    }
                }
                if best != own {
                    out.insert(best);
                }
            }
        }
    }
    out
}

/// No two files of the runtime name each other, directly or round a longer circle.
#[test]
fn no_circle_between_the_runtimes_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    let mut all = Vec::new();
    files(&root, &mut all);
    let modules: BTreeMap<String, String> = all
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap();
            (module_of(rel), std::fs::read_to_string(f).unwrap())
        })
        .collect();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    let edges: BTreeMap<&str, BTreeSet<String>> = modules
        .iter()
        .map(|(m, text)| (m.as_str(), modules_named(text, m, &known)))
        .collect();
    assert!(
        edges["process::owner"].contains("process::spawn"),
        "the scan sees the files' names: {edges:?}"
    );
    // Depth-first, with the path so far: a module met again on it closes a circle.
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<&'a str, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == m) {
            panic!("a circle between files: {:?}", &path[at..]);
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        for next in edges.get(m).into_iter().flatten() {
            if let Some((k, _)) = edges.get_key_value(next.as_str()) {
                visit(k, edges, path, done);
            }
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        visit(m, &edges, &mut Vec::new(), &mut done);
    }
}
