//! The console's page at `/`: now (live, from the snapshot the server's page carries) or, with
//! `/?at=<event or time>`, the team as it was then (time travel, read-only). Moving between
//! moments, and back to now, never reloads the page: the past is loaded while the page shows
//! the moment before it, and a bad moment is a `400` page with the way back.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::Console;
use crate::functions::{get_snapshot, get_snapshot_at, said, Snapshot};

/// The element the live page's snapshot is carried in.
pub const SNAPSHOT_ID: &str = "snapshot";

#[component]
pub fn Home() -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    let at = Memo::new(move |_| query.with(|q| q.get("at")));
    // Now and the past are two pages' worth of state: switching between them builds the
    // console again; moving within the past keeps it until the next moment is there.
    let past = Memo::new(move |_| at.with(Option::is_some));
    move || match past.get() {
        false => now(),
        true => then(at),
    }
}

/// The live console: rendered from the snapshot at once, and carrying it for the browser to
/// hydrate from (no resource, so no `Suspense` walking the tree before it is rendered and no
/// JSON escaped into a JavaScript string: a quarter of the page's server time). Come back to
/// from the past, it loads a fresh snapshot.
fn now() -> AnyView {
    if let Some((snapshot, json)) = given_snapshot() {
        return view! {
            <script type="application/json" id=SNAPSHOT_ID nonce=leptos::nonce::use_nonce() inner_html=json></script>
            {console(snapshot)}
        }
        .into_any();
    }
    let snapshot = Resource::new(|| (), |_| get_snapshot(None));
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the grid…"</p> }>
            {move || Suspend::new(async move {
                match snapshot.await {
                    Ok(s) => console(s),
                    Err(e) => refused(format!("Could not load the grid: {}", said(&e))),
                }
            })}
        </Transition>
    }
    .into_any()
}

/// The team at the moment `at` names; the moment before stays on the page while the next loads.
fn then(at: Memo<Option<String>>) -> AnyView {
    let snapshot = Resource::new(
        move || at.get().unwrap_or_default(),
        |at| async move { get_snapshot_at(at).await },
    );
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the past…"</p> }>
            {move || Suspend::new(async move {
                match snapshot.await {
                    Ok(s) => console(s),
                    Err(e) => refused(said(&e)),
                }
            })}
        </Transition>
    }
    .into_any()
}

/// The console, its view's type erased here once for both ways the page gets its snapshot (each
/// way naming `Console` itself compiled the whole console's view twice into the wasm).
pub(crate) fn console(snapshot: Snapshot) -> AnyView {
    view! { <Console snapshot/> }.into_any()
}

/// A moment that cannot be shown: the header, what was wrong, and the way back to now.
fn refused(why: String) -> AnyView {
    view! {
        <Title text="Soulgrid"/>
        <main class="console read-only">
            <header class="top"><h1>"Soulgrid"</h1></header>
            <div class="past-bar" role="alert">
                <span>{format!("{why}.")}</span>
                " "
                <a href="/" class="back-to-now">"Back to now"</a>
            </div>
        </main>
    }
    .into_any()
}

/// The live documents and their JSON as the page carries them, from the server's source.
#[cfg(feature = "ssr")]
fn given_snapshot() -> Option<(Snapshot, String)> {
    let source = use_context::<std::sync::Arc<dyn crate::functions::SnapshotSource>>()?;
    let snapshot = source.snapshot(None);
    // In a script element only `</script>` (any `<`, here) could end it early; outside JSON's
    // strings there is none, and inside them it is written as its escape.
    let json = serde_json::to_string(&snapshot)
        .ok()?
        .replace('<', "\\u003c");
    Some((snapshot, json))
}

/// The snapshot the server's page carries, read once: when hydrating that page. The page
/// rendered again later (back from the past) loads a fresh one.
#[cfg(feature = "hydrate")]
fn given_snapshot() -> Option<(Snapshot, String)> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static READ: AtomicBool = AtomicBool::new(false);
    if READ.swap(true, Ordering::Relaxed) {
        return None;
    }
    let json = document().get_element_by_id(SNAPSHOT_ID)?.text_content()?;
    match serde_json::from_str(&json) {
        Ok(snapshot) => Some((snapshot, json)),
        Err(e) => {
            leptos::logging::error!("the page's snapshot is unreadable: {e}");
            None
        }
    }
}

#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
fn given_snapshot() -> Option<(Snapshot, String)> {
    None
}
