//! The Hall: identities that left their seats, with everything they were (face, name, the
//! first lines of the soul, when and why they left, whose fork they are). Each can be recalled
//! into an empty seat (it wakes there from its soul, its last session and its mail).

use crate::api::Call;
use crate::contract::endpoints as ep;
use crate::ui::when::When;
use leptos::prelude::*;

use super::detail::PostButton;
use super::face::Face;
use crate::contract::{hall_entry, HallEntry};
use crate::domain::docs::{hall, identity_by_id};
use crate::live::use_live;

/// One entry as the Hall shows it: the API's entry, its face and its parent's name.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    entry: HallEntry,
    color: String,
    eyes: String,
    mouth: String,
    parent: Option<(String, String)>,
}

#[component]
pub fn Hall() -> impl IntoView {
    let live = use_live();
    let entries = Memo::new(move |_| {
        live.docs.with(|docs| {
            let mut v: Vec<Shown> = hall(docs)
                .map(|d| {
                    let face = d.face_variant.clone().unwrap_or_default();
                    let parent = d.parent_uuid.as_deref().map(|p| {
                        let name = identity_by_id(docs, p)
                            .and_then(|p| p.name.clone())
                            .unwrap_or_else(|| "an agent".into());
                        (p.to_string(), name)
                    });
                    Shown {
                        entry: hall_entry(d),
                        color: d.color.clone().unwrap_or_default(),
                        eyes: face.eyes,
                        mouth: face.mouth,
                        parent,
                    }
                })
                .collect();
            v.sort_by_key(|s| std::cmp::Reverse(s.entry.retired_at));
            v
        })
    });
    let list = move || {
        let entries = entries.get();
        (!entries.is_empty()).then(|| {
            view! {
                    <ul>
                        {entries
                            .into_iter()
                            .map(|s| {
                                let e = s.entry;
                                let name = e.name.clone().unwrap_or_else(|| "A nameless one".into());
                                let why = e.reason.as_ref().map(|r| format!(" ({r})"));
                                let left = view! { "left " <When at=e.retired_at/> {why} };
                                let call = Call::new::<ep::Recall>(&e.id, &crate::contract::RecallRequest::default());
                                view! {
                                    <li class="hall-entry" data-identity=e.id.clone()>
                                        <Face color=s.color eyes_kind=s.eyes mouth_kind=s.mouth/>
                                        " "
                                        <a class="name" href=format!("/agents/{}", e.id)>{name.clone()}</a>
                                        <span class="muted">" · " {left}</span>
                                        {s.parent.map(|(id, parent)| view! {
                                            <span class="muted lineage-note">
                                                " · a fork of " <a href=format!("/agents/{id}")>{parent}</a>
                                            </span>
                                        })}
                                        {e.soul.clone().map(|s| view! { <p class="soul-lines">{s}</p> })}
                                        <PostButton label=format!("Recall {name}") call=call/>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
            }
        })
    };
    view! {
        <section class="panel hall" aria-label="The Hall">
            <h2>"The Hall"</h2>
            {list}
            <DropZone/>
        </section>
    }
}

/// Bring an agent from another team: its `.soul` file dropped here (or chosen) enters the Hall.
#[component]
fn DropZone() -> impl IntoView {
    let said = RwSignal::new(None::<Result<String, String>>);
    let bring = move |text: String| {
        leptos::task::spawn_local(async move {
            let brought = crate::api::call_text::<ep::ImportAgent>(&(), text).await;
            said.set(Some(brought.map(|b| {
                match (b.already_here, b.renamed_from) {
                    (true, _) => format!("{} is here already: nothing changed.", b.name),
                    (false, Some(own)) => format!(
                        "{} joined the Hall as {}: the name {own} is taken here.",
                        own, b.name
                    ),
                    (false, None) => format!("{} joined the Hall.", b.name),
                }
            })));
        });
    };
    let bring_drop = bring;
    view! {
        <label class="drop-zone"
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                ev.prevent_default();
                #[cfg(feature = "hydrate")]
                if let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                    read_file(file, bring_drop);
                }
                #[cfg(not(feature = "hydrate"))]
                let _ = (&ev, bring_drop);
            }>
            "Bring an agent from another team: drop its .soul file here, or choose it "
            <input type="file" accept=".soul" class="soul-file"
                on:change=move |ev| {
                    #[cfg(feature = "hydrate")]
                    {
                        use wasm_bindgen::JsCast;
                        let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                        let file = input.as_ref().and_then(|i| i.files()).and_then(|f| f.get(0));
                        if let Some(file) = file {
                            read_file(file, bring);
                        }
                        // Cleared, so that choosing the same file again is a change too.
                        if let Some(input) = input {
                            input.set_value("");
                        }
                    }
                    #[cfg(not(feature = "hydrate"))]
                    let _ = (&ev, bring);
                }/>
        </label>
        {move || said.get().map(|r| match r {
            Ok(t) => view! { <p class="muted" role="status">{t}</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        })}
    }
}

/// Reads a chosen or dropped file as text, then hands it on.
#[cfg(feature = "hydrate")]
fn read_file(file: web_sys::File, then: impl Fn(String) + 'static) {
    leptos::task::spawn_local(async move {
        if let Ok(text) = wasm_bindgen_futures::JsFuture::from(file.text()).await {
            then(text.as_string().unwrap_or_default());
        }
    });
}
