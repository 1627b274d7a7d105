//! The page shell and the root component.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

use crate::home::Home;
use crate::ui::agent_page::AgentPage;

/// The HTML document around the app, rendered by the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    page_policy();
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
                // The page's files are named by their content's hash (cargo-leptos
                // `hash-files`), read from beside the binary: kept a year by the browser.
                <HashedStylesheet options=options.clone() id="leptos"/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The page's Content-Security-Policy, with this response's nonce (leptos_axum makes one per
/// render and puts it on every inline script it writes).
#[cfg(feature = "ssr")]
fn page_policy() {
    let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) else {
        return;
    };
    // `make dev` reloads the page through a websocket on the reload port.
    let reload = if std::env::var_os("LEPTOS_WATCH").is_some() {
        " ws:"
    } else {
        ""
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self'{reload}; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'self'; object-src 'none'"
    );
    if let Ok(value) = http::HeaderValue::from_str(&policy) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    crate::ui::when::provide_local_times();
    mark_hydrated();
    view! {
        <Router>
            <Routes fallback=|| view! { <p class="error">"There is nothing at this address."</p> }>
                // Async: the server sends the page once the snapshot is in it, so the grid and
                // the thread are in the HTML itself (readable without JavaScript), never a
                // fallback swapped out later by a script.
                <Route path=path!("/") view=Home ssr=SsrMode::Async/>
                <Route path=path!("/agents/:id") view=AgentPage ssr=SsrMode::Async/>
                <Route path=path!("/watch/:token") view=crate::spectator::WatchPage ssr=SsrMode::Async/>
            </Routes>
        </Router>
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
