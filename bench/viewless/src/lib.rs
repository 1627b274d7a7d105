//! P6b's reference (`make bench`): the page's wasm with none of the console's own views.
//!
//! What every page of this design starts from before it draws anything: leptos with its router
//! and meta context, the snapshot read from the page (or loaded through its server function, as
//! time travel does) and the live replica (`app::live`: the event stream and the same reducer
//! the server runs, DESIGN §5). The bench builds it as the page's wasm is built (`wasm-release`,
//! wasm-bindgen, `wasm-opt -Oz`) and prints its size beside the page's: the difference is what
//! the console's views cost. It is measured, never served.

use app::functions::{get_snapshot, Snapshot};
use app::live::provide_live;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(Viewless);
}

#[component]
fn Viewless() -> impl IntoView {
    leptos_meta::provide_meta_context();
    view! {
        <Router>
            <Routes fallback=|| "There is nothing at this address.">
                <Route path=path!("/") view=Home/>
            </Routes>
        </Router>
    }
}

/// The snapshot as the page carries it, else loaded; then the replica, drawn as one number.
#[component]
fn Home() -> impl IntoView {
    let given = document()
        .get_element_by_id(app::SNAPSHOT_ID)
        .and_then(|e| e.text_content())
        .and_then(|json| serde_json::from_str::<Snapshot>(&json).ok());
    let snapshot = Resource::new(
        || (),
        move |_| {
            let given = given.clone();
            async move {
                match given {
                    Some(s) => Ok(s),
                    None => get_snapshot(None).await,
                }
            }
        },
    );
    view! {
        <Transition fallback=|| "Loading…">
            {move || Suspend::new(async move {
                snapshot.await.map(|s| {
                    let live = provide_live(s);
                    view! { <main data-last-event-id=move || live.last_event_id.get().to_string()></main> }
                })
            })}
        </Transition>
    }
}
