//! The Hall: identities that left their seats, with everything they were. Each can be
//! recalled into an empty seat (it wakes there from its soul, its last session and its mail).

use leptos::prelude::*;

use super::detail::PostButton;
use crate::domain::docs::hall;
use crate::domain::time;
use crate::live::use_live;

#[component]
pub fn Hall() -> impl IntoView {
    let live = use_live();
    let entries = Memo::new(move |_| {
        live.docs.with(|docs| {
            let mut v: Vec<_> = hall(docs).map(crate::contract::hall_entry).collect();
            v.sort_by_key(|e| std::cmp::Reverse(e.retired_at));
            v
        })
    });
    move || {
        let entries = entries.get();
        (!entries.is_empty()).then(|| {
            view! {
                <section class="hall" aria-label="The Hall">
                    <h2>"The Hall"</h2>
                    <ul>
                        {entries
                            .into_iter()
                            .map(|e| {
                                let name = e.name.clone().unwrap_or_else(|| "A nameless one".into());
                                let left = match &e.reason {
                                    Some(r) => format!("left {} ({r})", time::human(e.retired_at)),
                                    None => format!("left {}", time::human(e.retired_at)),
                                };
                                let path = format!("/api/hall/{}/recall", e.id);
                                view! {
                                    <li class="hall-entry" data-identity=e.id.clone()>
                                        <a class="name" href=format!("/agents/{}", e.id)>{name.clone()}</a>
                                        <span class="muted">" · " {left}</span>
                                        {e.soul.clone().map(|s| view! { <p class="soul-lines">{s}</p> })}
                                        <PostButton label=format!("Recall {name}") path=path/>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                </section>
            }
        })
    }
}
