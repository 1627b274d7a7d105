//! Every soul version of an identity, newest first, and the line diff between any two of them
//! (chosen in two lists; at first the one before the newest against the newest).

use crate::ui::when::When;
use leptos::prelude::*;

use super::super::diff::DiffLines;
use crate::contract::AgentView;

#[component]
pub fn Souls(view: Memo<Option<AgentView>>) -> impl IntoView {
    let souls =
        Memo::new(move |_| view.with(|v| v.as_ref().map(|v| v.souls.clone()).unwrap_or_default()));
    // The two versions compared; `None` means the default pair.
    let from = RwSignal::new(None::<u32>);
    let to = RwSignal::new(None::<u32>);
    let pair = Memo::new(move |_| {
        souls.with(|s| {
            let newest = s.last()?.version;
            let before = s.iter().rev().nth(1)?.version;
            Some((from.get().unwrap_or(before), to.get().unwrap_or(newest)))
        })
    });
    let compare = move || {
        let (a, b) = pair.get()?;
        let text =
            |v: u32| souls.with(|s| s.iter().find(|x| x.version == v).map(|x| x.text.clone()));
        let (old, new) = (text(a)?, text(b)?);
        let choice = move |label: &'static str, chosen: u32, set: RwSignal<Option<u32>>| {
            let options = souls.with(|s| s.iter().map(|x| x.version).collect::<Vec<_>>());
            view! {
                <label>
                    {label}
                    <select on:change=move |ev| set.set(event_target_value(&ev).parse().ok())>
                        {options.into_iter().map(|v| view! {
                            <option value=v.to_string() selected=v == chosen>{format!("version {v}")}</option>
                        }).collect_view()}
                    </select>
                </label>
            }
        };
        Some(view! {
            <section class="soul-compare" aria-label="Compare two soul versions">
                {choice("From ", a, from)}
                {choice(" to ", b, to)}
                <div data-from=a data-to=b class="soul-diff-pair">
                    <DiffLines old=old new=new/>
                </div>
            </section>
        })
    };
    view! {
        {compare}
        {move || {
            let souls = souls.get();
            if souls.is_empty() {
                return view! { <p class="muted">"No soul written yet."</p> }.into_any();
            }
            souls
                .into_iter()
                .rev()
                .map(|s| view! {
                    <section class="soul-version" data-version=s.version>
                        <h3>"Version " {s.version} " · " <When at=s.created_at/></h3>
                        <div class="soul-text">{s.text}</div>
                    </section>
                })
                .collect_view()
                .into_any()
        }}
    }
}
