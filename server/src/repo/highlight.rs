//! Syntax colours for a diff page, made on the server so the wasm does not grow: each line's
//! text as HTML with `hl-` classes (syntect's scopes, escaped by it), styled by the page's
//! stylesheet (its CSP allows no inline style). A hunk is parsed in order from its start, a
//! line carrying the scopes left open by the one before; a file whose language is not known,
//! a binary one and a very long line stay plain.

use std::sync::OnceLock;

use app::contract::{DiffFile, Hunk};
use syntect::html::{line_tokens_to_classed_spans, ClassStyle};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

const STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

/// A line longer than this stays plain: a minified file costs more than its colours show.
const MAX_LINE: usize = 2000;

/// syntect's grammars, read once.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Colours `files`' lines in place (their `html`).
pub fn paint(files: &mut [DiffFile]) {
    let set = syntaxes();
    for f in files.iter_mut().filter(|f| !f.binary) {
        if let Some(syntax) = syntax_of(set, &f.path) {
            for h in &mut f.hunks {
                paint_hunk(set, syntax, h);
            }
        }
    }
}

/// The language of `path`, by its extension (or its name: `Makefile`).
fn syntax_of<'a>(set: &'a SyntaxSet, path: &str) -> Option<&'a SyntaxReference> {
    let name = path.rsplit('/').next()?;
    let ext = name.rsplit_once('.').map_or(name, |(_, e)| e);
    set.find_syntax_by_extension(ext)
        .filter(|s| s.name != "Plain Text")
}

/// The `<span>` that opens `scope` again at a line's start.
fn opening(scope: syntect::parsing::Scope) -> String {
    let classes: Vec<String> = scope
        .build_string()
        .split('.')
        .map(|atom| format!("hl-{atom}"))
        .collect();
    format!("<span class=\"{}\">", classes.join(" "))
}

fn paint_hunk(set: &SyntaxSet, syntax: &SyntaxReference, hunk: &mut Hunk) {
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    for line in &mut hunk.lines {
        if line.text.len() > MAX_LINE {
            (state, stack) = (ParseState::new(syntax), ScopeStack::new());
            continue;
        }
        let open: String = stack.as_slice().iter().map(|s| opening(*s)).collect();
        let opened = stack.as_slice().len() as isize;
        let text = format!("{}\n", line.text);
        let Ok(ops) = state.parse_line(&text, set) else {
            return;
        };
        let Ok((body, delta)) = line_tokens_to_classed_spans(&text, &ops, STYLE, &mut stack) else {
            return;
        };
        let close = "</span>".repeat((opened + delta).max(0) as usize);
        line.html = Some(format!("{open}{}{close}", body.replace('\n', "")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::contract::{DiffLine, LineKind};

    fn file(path: &str, lines: &[&str]) -> DiffFile {
        DiffFile {
            path: path.into(),
            change: "modified".into(),
            binary: false,
            added: None,
            removed: None,
            uncommitted: false,
            hunks: vec![Hunk {
                header: "@@".into(),
                lines: lines
                    .iter()
                    .map(|t| DiffLine {
                        kind: LineKind::Added,
                        old: None,
                        new: Some(1),
                        text: t.to_string(),
                        html: None,
                    })
                    .collect(),
            }],
            cut: false,
        }
    }

    /// Each line is balanced HTML on its own (a comment open across lines is opened again on
    /// the next), its text escaped; an unknown language stays plain.
    #[test]
    fn each_line_is_coloured_balanced_and_escaped() {
        let mut files = vec![
            file("src/a.rs", &["/* a <b>", "still */ fn x() {}"]),
            file("notes.unknownext", &["plain"]),
        ];
        paint(&mut files);
        let lines = &files[0].hunks[0].lines;
        for l in lines {
            let html = l.html.as_deref().unwrap();
            assert_eq!(
                html.matches("<span").count(),
                html.matches("</span>").count(),
                "{html}"
            );
        }
        let first = lines[0].html.as_deref().unwrap();
        assert!(
            first.contains("&lt;b&gt;") && first.contains("hl-comment"),
            "{first}"
        );
        let second = lines[1].html.as_deref().unwrap();
        assert!(
            second.starts_with("<span class=\"hl-source hl-rust\"><span class=\"hl-comment"),
            "{second}"
        );
        assert!(
            second.contains("hl-keyword") || second.contains("hl-storage"),
            "{second}"
        );
        assert_eq!(files[1].hunks[0].lines[0].html, None);
    }
}
