//! The wasm entry point: hydrates the server-rendered page.

// The release build (LTO) lays out the page's view types here, as deep as in `app`.
#![recursion_limit = "256"]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
