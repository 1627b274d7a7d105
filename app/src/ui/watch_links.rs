//! **Watch links** (beside the grid): make one (with a label; its address shown once), and
//! each made so far with when it was made, last used and revoked, and **Revoke**. The list is
//! the server's (`GET /api/watch`: last uses are not events), read when the panel opens and
//! after each change.

use leptos::prelude::*;

use crate::contract::endpoints as e;
use crate::contract::{NewWatch, WatchView};
use crate::ui::when::When;

/// The panel; its body is fetched when first opened (`ui::lazy`).
#[component]
pub fn WatchLinks() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <super::lazy::LazyDetails class="panel watch-links" open=open load=move || watch_links_body(open)>
            "Watch links"
        </super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn watch_links_body(open: RwSignal<bool>) -> AnyView {
    view! { <Body open=open/> }.into_any()
}

/// The panel's body: the list read again each time the panel opens.
#[component]
fn Body(open: RwSignal<bool>) -> impl IntoView {
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let links = RwSignal::new(Vec::<WatchView>::new());
    let made = RwSignal::new(None::<String>);
    let label = RwSignal::new(String::new());
    let refresh = move || {
        action.run(
            async move {
                links.set(crate::api::call::<e::Watches>(&(), &e::Empty {}).await?);
                Ok(())
            },
            || {},
        )
    };
    let make = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = NewWatch {
            label: Some(label.get_untracked()).filter(|l| !l.trim().is_empty()),
        };
        action.run(
            async move {
                let link = crate::api::call::<e::MakeWatch>(&(), &body).await?;
                made.set(Some(link.url));
                Ok(())
            },
            refresh,
        );
    };
    let revoke = move |id: String| {
        action.run(
            async move {
                crate::api::call::<e::RevokeWatch>(&id, &e::Empty {})
                    .await
                    .map(drop)
            },
            refresh,
        )
    };
    let rows = move || {
        links
            .get()
            .into_iter()
            .map(|w| {
                let id = w.id.clone();
                let revoked = w.revoked_at;
                view! {
                    <li class="watch-link" data-watch-id=w.id.clone() class:revoked=revoked.is_some()>
                        <span class="label">{w.label.clone().unwrap_or_else(|| "(no label)".into())}</span>
                        " · made " <When at=w.created_at/>
                        {match w.last_used_at {
                            Some(at) => view! { " · last used " <When at=at/> }.into_any(),
                            None => " · not used yet".into_any(),
                        }}
                        {match revoked {
                            Some(at) => view! { " · revoked " <When at=at/> }.into_any(),
                            None => view! {
                                " " <button type="button" class="revoke" disabled=move || busy.get()
                                    on:click=move |_| revoke(id.clone())>"Revoke"</button>
                            }
                            .into_any(),
                        }}
                    </li>
                }
            })
            .collect_view()
    };
    Effect::new(move |_| {
        if open.get() {
            refresh()
        }
    });
    view! {
        <p class="hint">"Someone with a watch link sees the team live and can change nothing."</p>
        <form on:submit=make>
            <input type="text" placeholder="Label (who it is for)" maxlength="80"
                prop:value=move || label.get() on:input=move |ev| label.set(event_target_value(&ev))/>
            <button type="submit" disabled=move || busy.get()>"Make a watch link"</button>
        </form>
        {move || made.get().map(|url| view! {
            <p class="made">"Shown once: " <code class="watch-url">{url}</code></p>
        })}
        <ul class="watch-list">{rows}</ul>
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
