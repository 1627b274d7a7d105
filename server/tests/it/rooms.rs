//! The runtime's rooms keep their rules (docs/ARCHITECTURE.md, "The runtime's rooms"), read
//! from the source: `process/` names none of `mail/`, `team/`, `quest/`; `team/` never names
//! `quest/`; `mail/` names neither; `folder/` names no other room; no two rooms name each
//! other; the shared modules at the root (`context`, `config`, `prompts`, `record`, …) name no
//! room; no room's file reaches up to the façade (`crate::runtime::Runtime` and what `mod.rs`
//! re-exports) or has an `impl Runtime`: each room has its own owner type.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOMS: [&str; 5] = ["process", "mail", "folder", "team", "quest"];

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
                        // A leaf: every other room may use it.
                        "folder" => true,
                        _ => false,
                    };
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
