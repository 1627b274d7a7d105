//! A line diff between two texts, as the pages show it: kept lines muted, added ones marked
//! `+`, removed ones `-` (the `similar` crate, through `domain::diff`).

use leptos::prelude::*;

use crate::domain::diff::{line_diff, LineChange};

#[component]
pub fn DiffLines(
    old: String,
    new: String,
    /// Classes of the `<pre>` besides `soul-diff`.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let lines = line_diff(&old, &new);
    view! {
        <pre class=format!("soul-diff {class}")>
            {lines.into_iter().map(|(c, line)| {
                let (class, mark) = match c {
                    LineChange::Same => ("same", "  "),
                    LineChange::Added => ("added", "+ "),
                    LineChange::Removed => ("removed", "- "),
                };
                view! { <span class=class>{mark}{line}"\n"</span> }
            }).collect_view()}
        </pre>
    }
}
