//! The page shell and the root component.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};

use crate::functions::get_snapshot;
use crate::ui::grid::Grid;

/// The HTML document around the app, rendered by the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="dark"/>
                // No favicon request: a 404 would be a console error.
                <link rel="icon" href="data:,"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    mark_hydrated();
    let snapshot = Resource::new(|| (), |_| get_snapshot());
    view! {
        <Stylesheet id="leptos" href="/pkg/soulgrid.css"/>
        <Title text="Soulgrid"/>
        <main class="console">
            <header class="top">
                <h1>"Soulgrid"</h1>
            </header>
            <Transition fallback=|| view! { <p class="loading">"Loading the grid…"</p> }>
                <ErrorBoundary fallback=|errors| view! {
                    <p class="error" role="alert">
                        "Could not load the grid: "
                        {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join("; ")}
                    </p>
                }>
                    {move || Suspend::new(async move {
                        snapshot.await.map(|s| view! { <Grid docs=s.docs lead_name=s.lead_name/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </main>
    }
}

/// Sets `data-hydrated` on `<body>` once the wasm has taken over, so tests (and people reading
/// the DOM) can tell a live page from server-rendered HTML.
fn mark_hydrated() {
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
}
