//! `/watch/{token}`: the team live for someone who can change nothing (a watch link): the
//! grid, the threads, the quest bar, findings and reports, as a spectator sees them
//! (`domain::spectate`), with nothing on the page that acts.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::functions::{get_watch_snapshot, said};

#[component]
pub fn WatchPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let token = Memo::new(move |_| params.with(|p| p.get("token").unwrap_or_default()));
    let snapshot = Resource::new(move || token.get(), get_watch_snapshot);
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the team…"</p> }>
            {move || Suspend::new(async move {
                match snapshot.await {
                    Ok(s) => crate::home::console(s),
                    Err(e) => view! {
                        <Title text="Soulgrid"/>
                        <main class="console refused">
                            <header class="top"><h1>"Soulgrid"</h1></header>
                            <p class="error" role="alert">{said(&e)}</p>
                        </main>
                    }
                    .into_any(),
                }
            })}
        </Transition>
    }
}
