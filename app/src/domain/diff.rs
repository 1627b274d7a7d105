//! Line diffs between two texts (soul versions), computed by the `similar` crate.

use similar::{ChangeTag, TextDiff};

/// What happened to one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineChange {
    Same,
    Added,
    Removed,
}

/// The lines of `new` against `old`, in order: kept, added and removed (without line breaks).
pub fn line_diff(old: &str, new: &str) -> Vec<(LineChange, String)> {
    TextDiff::from_lines(old, new)
        .iter_all_changes()
        .map(|c| {
            let change = match c.tag() {
                ChangeTag::Equal => LineChange::Same,
                ChangeTag::Insert => LineChange::Added,
                ChangeTag::Delete => LineChange::Removed,
            };
            (change, c.value().trim_end_matches(['\n', '\r']).to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_removed_then_added_and_the_rest_kept() {
        let d = line_diff(
            "I am Lyra.\nI like harps.\n",
            "I am Lyra.\nI like rivers.\n",
        );
        assert_eq!(
            d,
            [
                (LineChange::Same, "I am Lyra.".to_string()),
                (LineChange::Removed, "I like harps.".to_string()),
                (LineChange::Added, "I like rivers.".to_string()),
            ]
        );
        assert!(line_diff("same", "same")
            .iter()
            .all(|(c, _)| *c == LineChange::Same));
    }
}
