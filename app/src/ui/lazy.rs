//! A `<details>` whose body is a part of the wasm of its own (`#[lazy]`, cargo-leptos'
//! `--split`), fetched when the details are first opened: the first screen does not download
//! what it shows closed (issue #36, docs/PERFORMANCE.md's P6b).
//!
//! The server and the hydrating browser draw it closed and empty; the body is built in the
//! browser once opened, and kept (closing hides it, as for any `<details>`). So it is never
//! hydrated, and no asynchronous hydration is compiled in (vendor/README.md). A caller that
//! owns `open` keeps a panel it draws again open. What it costs: the body is not in the
//! server's HTML (JavaScript off, it opens empty; opened before hydration, it is closed by
//! it), and on a first opening it shows a loading line until its part has arrived.

use std::future::Future;
use std::sync::Arc;

use leptos::prelude::*;

/// `load` is the body's `#[lazy]` function (called once, at the first opening); `children`
/// are the summary's.
#[component]
pub fn LazyDetails<L, F>(
    class: &'static str,
    load: L,
    children: Children,
    /// Whether the details are open, as the human left them: a body that refreshes only while
    /// shown reads it, and a panel drawn again (its owner's state changed) keeps it, open
    /// with its body at once.
    #[prop(optional)]
    open: Option<RwSignal<bool>>,
) -> impl IntoView
where
    L: Fn() -> F + Send + Sync + 'static,
    F: Future<Output = AnyView> + Send + 'static,
{
    let open = open.unwrap_or_else(|| RwSignal::new(false));
    let opened = RwSignal::new(open.get_untracked());
    let load = Arc::new(load);
    // The element's own state (a `toggle` also follows an `open` set from here).
    let toggle = move |ev: leptos::ev::Event| {
        let now = event_target::<leptos::web_sys::HtmlDetailsElement>(&ev).open();
        if now != open.get_untracked() {
            open.set(now);
        }
        if now {
            opened.set(true);
        }
    };
    view! {
        <details class=class on:toggle=toggle prop:open=move || open.get()>
            <summary>{children()}</summary>
            <Show when=move || opened.get()>
                {
                    let load = load.clone();
                    view! {
                        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                            {Suspend::new(load())}
                        </Suspense>
                    }
                }
            </Show>
        </details>
    }
}
