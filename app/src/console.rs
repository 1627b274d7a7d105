//! The console at `/` once its snapshot is there (now or a moment of the past): the live
//! replica feeds the grid, the conversation, the Hall and the quests; the open seat lives in the
//! URL; keys choose seats. `home` decides which snapshot; this draws it.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::domain::docs::{identity, messages, SpeakerType};
use crate::domain::{LEAD_SEAT, SEATS};
use crate::functions::Snapshot;
use crate::live::provide_live;
use crate::ui::composer::Composer;
use crate::ui::detail::AgentDetail;
use crate::ui::grid::Grid;
use crate::ui::hall::Hall;
use crate::ui::thread::Thread;

/// The console once the snapshot is there: the live replica feeds every component.
#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub(crate) fn Console(snapshot: Snapshot) -> impl IntoView {
    let past = snapshot.at;
    // A spectator's page (a watch link) is live and, like the past, acts on nothing.
    let watching = snapshot.watch.is_some();
    crate::api::set_read_only(past.is_some() || watching);
    let live = provide_live(snapshot);
    let lead_name = live.lead_name.get_value();
    let (selected, sheet) = selected_in_url(live);
    let drawn = drawn_after_paint(selected);
    keyboard(live, selected);
    if !watching {
        crate::ui::presence::notify_when_hidden(live);
    }
    crate::ui::quest::provide_shown_quest();
    // What the human has seen, per seat: everything up to the event id when they last looked.
    let seen = RwSignal::new([live.last_event_id.get_untracked(); SEATS as usize]);
    Effect::new(move |_| {
        let (seat, last) = (selected.get(), live.last_event_id.get());
        seen.update(|s| s[seat as usize] = last);
    });
    // The open seat's replies are read as they come: not counted even before the effect above
    // has moved its mark (else the title and its badge would flash once per reply).
    let unread = Memo::new(move |_| {
        let (seen, open) = (seen.get(), selected.get());
        let mut counts = [0usize; SEATS as usize];
        live.docs.with(|d| {
            // Words that answer the server (a birth, a waking, a note before sleep) are asides; a
            // tool call is the agent at work, not a reply.
            let counted = |m: &&crate::domain::docs::MessageDoc| {
                m.speaker_type != SpeakerType::Human
                    && m.seat != open
                    && m.aside.is_none()
                    && m.tool.is_none()
                    && m.channel.is_none()
                    && m.from_identity.is_none()
            };
            for m in messages(d).filter(counted) {
                if let Some(c) = counts.get_mut(m.seat as usize) {
                    if m.event_id > seen[m.seat as usize] {
                        *c += 1;
                    }
                }
            }
        });
        counts
    });
    // The page's title says whom the human talks to, and how many replies wait unread.
    let talking_to = Memo::new(move |_| {
        let seat = selected.get();
        (seat != LEAD_SEAT)
            .then(|| {
                live.docs
                    .with(|d| identity(d, seat).and_then(|i| i.name.clone()))
            })
            .flatten()
    });
    // The title outlives this console (the page's head is the root's): a console left for
    // another moment reads as the bare name until the next one sets it.
    let title = move || {
        let page = match talking_to.try_get().flatten() {
            Some(name) => format!("{name} · Soulgrid"),
            None => "Soulgrid".to_string(),
        };
        match unread.try_get().unwrap_or_default().iter().sum::<usize>() {
            0 => page,
            n => format!("({n}) {page}"),
        }
    };
    // The header's menu on a phone (its details, folded).
    let menu = RwSignal::new(false);
    view! {
        <Title text=title/>
        <main class="console" class:read-only=past.is_some() || watching class:watching=watching
            data-sheet=move || if sheet.get() { "open" } else { "closed" }
            data-last-event-id=move || live.last_event_id.get().to_string()>
            {past.map(|at| view! { <crate::ui::time_travel::PastBar at=at/> })}
            <header class="top" data-menu=move || if menu.get() { "open" } else { "closed" }>
                <h1>"Soulgrid"</h1>
                // On a phone the header is one line: what is not always needed is behind this.
                <button type="button" class="menu-button" aria-label="More"
                    aria-expanded=move || menu.get().to_string()
                    on:click=move |_| menu.update(|m| *m = !*m)>"⋯"</button>
                <div class="more-items">
                <span class="team" data-simulated=live.simulated.to_string()>
                    {if live.simulated { "simulated team" } else { "Claude team" }}
                    <small>{live.team_label.get_value()}</small>
                </span>
                {(!watching).then(|| view! {
                    <crate::ui::budgets::TeamSpend/>
                    <crate::ui::time_travel::TimeSlider at=past/>
                    <EndSession/>
                    <LogOut/>
                })}
                </div>
                {watching.then(|| view! {
                    <span class="watch-note">"Watching: you see the team live and can change nothing."</span>
                })}
                {(!watching).then(|| view! { <crate::ui::approvals::ApprovalCount/> })}
                // A warning, never folded away.
                {live.unsandboxed.get_value().map(|why| {
                    let title = why.clone();
                    view! {
                        <span class="unsandboxed" role="status" title=title>
                            "agents unsandboxed"<small>{why}</small>
                        </span>
                    }
                })}
                <span
                    class="live-state"
                    data-live=move || live.connected.get().to_string()
                    data-closing=move || live.closing.get().to_string()
                    title="Whether this tab is receiving live events"
                >
                    {move || match (past.is_some(), live.closing.get(), live.connected.get()) {
                        (true, _, _) => "the past",
                        (false, true, _) => "shutting down",
                        (false, false, true) => "live",
                        (false, false, false) => "connecting…",
                    }}
                </span>
            </header>
            <div class="panes">
                // In reading (and Tab) order: the team, the conversation with it, then the rest
                // of the left column (the stylesheet puts it under the grid).
                <div class="side">
                    <crate::ui::quest::QuestBar/>
                    <Grid docs=live.docs lead_name=lead_name selected=selected unread=unread/>
                </div>
                <div class="conversation"
                    aria-busy=move || (drawn.get() != selected.get()).then_some("true")>
                    <SheetBack/>
                    <Thread seat=drawn/>
                    {(!watching).then(|| view! {
                        <Composer seat=selected/>
                        <AgentDetail seat=drawn/>
                    })}
                    <crate::ui::findings::Board/>
                </div>
                <div class="side more">
                    {(!watching && past.is_none()).then(|| view! { <crate::ui::approvals::ApprovalQueue/> })}
                    <crate::ui::team::TeamChannel read_only=watching/>
                    {(!watching).then(|| view! { <crate::ui::projects::Projects/> })}
                    <Hall/>
                    <crate::ui::quest::QuestList/>
                    {(!watching).then(|| view! {
                        <crate::ui::budgets::Budgets/>
                        <crate::ui::findings::Jobs/>
                        <crate::ui::watch_links::WatchLinks/>
                    })}
                </div>
            </div>
        </main>
    }
}

/// Ends the session: every agent process stops and every alive seat sleeps.
#[component]
fn EndSession() -> impl IntoView {
    let live = crate::live::use_live();
    let busy = RwSignal::new(false);
    // A memo: the button is drawn again when someone wakes or the last one sleeps, not per event.
    let anyone_awake = Memo::new(move |_| {
        live.docs.with(|d| {
            crate::domain::docs::identities(d).any(|i| i.process_state.is_some_and(|p| p.is_live()))
        })
    });
    let press = move |_| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            let _ = crate::api::call::<crate::contract::endpoints::EndSession>(
                &(),
                &crate::contract::endpoints::Empty {},
            )
            .await;
            busy.set(false);
        });
    };
    // Asked first: every agent goes to sleep.
    move || {
        anyone_awake.get().then(|| view! {
            <details class="end-session">
                <summary>"End session"</summary>
                <div class="confirm">
                    <p>"Every agent writes down what it learned and goes to sleep. WAKE brings them back."</p>
                    <button type="button" class="agent-action" disabled=move || busy.get() on:click=press>
                        "End it"
                    </button>
                </div>
            </details>
        })
    }
}

/// **Log out**: this browser's login cookie is cleared and the login page shown. The login
/// itself stays (`soulgrid token --rotate` ends every browser's session).
#[component]
fn LogOut() -> impl IntoView {
    let press = move |_| {
        leptos::task::spawn_local(async move {
            let _ = crate::api::call::<crate::contract::endpoints::Logout>(
                &(),
                &crate::contract::endpoints::Empty {},
            )
            .await;
            #[cfg(feature = "hydrate")]
            if let Some(window) = web_sys::window() {
                let _ = window.location().set_href("/");
            }
        });
    };
    view! {
        <button type="button" class="log-out" title="Log this browser out of the console" on:click=press>
            "Log out"
        </button>
    }
}

/// The seat whose conversation is open, kept in the URL (`/?seat=N`, N as the keys 1–9 count):
/// a reload, a shared link and the browser's back and forward keep the human's place. Also
/// whether a conversation was chosen at all (the URL names a seat): on a phone it is then open
/// as a full-screen sheet over the grid.
///
/// A choice of the human's is a new history entry; a correction of the page's (the seat's
/// agent left, so the lead is selected) replaces the entry, so back never returns to it.
fn selected_in_url(live: crate::live::Live) -> (RwSignal<crate::domain::Seat>, Memo<bool>) {
    use leptos_router::hooks::{use_navigate, use_query_map};
    use leptos_router::NavigateOptions;
    let query = use_query_map();
    let in_url = move |q: &leptos_router::params::ParamsMap| {
        q.get("seat")
            .and_then(|s| s.parse::<u8>().ok())
            .filter(|n| (1..=SEATS).contains(n))
            .map(|n| n - 1)
    };
    let selected = RwSignal::new(query.with_untracked(in_url).unwrap_or(LEAD_SEAT));
    let sheet = Memo::new(move |_| query.with(in_url).is_some());
    let corrected = StoredValue::new(false);
    let from_grid = SheetHistory(StoredValue::new(false));
    provide_context(from_grid);
    // The URL changed (back, forward, a link): the seat follows.
    Effect::new(move |_| {
        let seat = query.with(in_url).unwrap_or(LEAD_SEAT);
        if selected.get_untracked() != seat {
            selected.set(seat);
        }
    });
    // A seat whose agent left (retired, expired, never hatched) is no one to talk to: the
    // lead is selected instead, so nothing is written to a ghost.
    Effect::new(move |_| {
        let seat = selected.get();
        let gone = seat != LEAD_SEAT
            && live
                .docs
                .with(|d| identity(d, seat).is_none_or(|i| !i.status().is_visible()));
        if gone {
            corrected.set_value(true);
            selected.set(LEAD_SEAT);
        }
    });
    // The seat changed: the URL follows.
    let navigate = use_navigate();
    Effect::new(move |_| {
        let seat = selected.get();
        let now = query.with_untracked(in_url);
        let replace = std::mem::take(&mut *corrected.write_value());
        if now == Some(seat) || (now.is_none() && seat == LEAD_SEAT) {
            return;
        }
        // A sheet opened from the grid: "← Team" can go back to it.
        from_grid.0.set_value(now.is_none() && !replace);
        let mut q = query.get_untracked();
        q.replace("seat", (seat + 1).to_string());
        let options = NavigateOptions {
            scroll: false,
            replace,
            ..Default::default()
        };
        navigate(&format!("/{}", q.to_query_string()), options);
    });
    (selected, sheet)
}

/// The seat whose conversation and details are drawn: the chosen one, once the browser has
/// painted the choice. A tap on a face is answered in the next frame (the face pressed, on a
/// phone the sheet open, the composer writing to the new seat); the conversation, its messages
/// and their Markdown, the heavier part, is drawn in the task after that frame (until then the
/// last conversation is `aria-busy`: it takes no clicks, and is dimmed if it lasts). Quick
/// choices in a row draw only the last. A hidden tab has no frames: what changed while it was
/// hidden is drawn when it is shown.
fn drawn_after_paint(selected: RwSignal<crate::domain::Seat>) -> ReadSignal<crate::domain::Seat> {
    let (drawn, set_drawn) = signal(selected.get_untracked());
    Effect::new(move |_| {
        let seat = selected.get();
        if drawn.try_get_untracked() == Some(seat) {
            return;
        }
        request_animation_frame(move || {
            set_timeout(
                move || {
                    let still = selected.try_get_untracked() == Some(seat);
                    if still && drawn.try_get_untracked().is_some_and(|d| d != seat) {
                        set_drawn.try_set(seat);
                    }
                },
                std::time::Duration::ZERO,
            )
        });
    });
    drawn
}

/// Whether the open conversation was opened from the grid in this page (the entry before it is
/// the grid's).
#[derive(Clone, Copy)]
struct SheetHistory(StoredValue<bool>);

/// "Back to the team": closes the conversation sheet on a phone (hidden on wider screens, where
/// the conversation sits beside the grid). Where the sheet was opened from the grid it is the
/// browser's back (no entry is added to return to the sheet); else the grid replaces it.
#[component]
fn SheetBack() -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    let navigate = leptos_router::hooks::use_navigate();
    let from_grid = use_context::<SheetHistory>();
    let back = move |_| {
        #[cfg(feature = "hydrate")]
        if from_grid.is_some_and(|f| f.0.get_value()) {
            if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
                if history.back().is_ok() {
                    return;
                }
            }
        }
        let _ = from_grid;
        let mut q = query.get_untracked();
        q.remove("seat");
        navigate(
            &format!("/{}", q.to_query_string()),
            leptos_router::NavigateOptions {
                scroll: false,
                replace: true,
                ..Default::default()
            },
        );
    };
    view! {
        <button type="button" class="sheet-back" on:click=back>"← Team"</button>
    }
}

/// Keys 1–9 open a seat's thread, Esc goes back to the lead's (not while typing, but Esc).
fn keyboard(live: crate::live::Live, selected: RwSignal<crate::domain::Seat>) {
    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            let typing = ev
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                .is_some_and(|el| matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT"));
            let key = ev.key();
            if key == "Escape" {
                selected.set(LEAD_SEAT);
            } else if !typing && !ev.ctrl_key() && !ev.meta_key() && !ev.alt_key() {
                if let Some(n) = key.parse::<u8>().ok().filter(|n| (1..=9).contains(n)) {
                    let seat = n - 1;
                    if seat == LEAD_SEAT
                        || live.docs.with_untracked(|d| {
                            identity(d, seat).is_some_and(|i| i.status().is_visible())
                        })
                    {
                        // The digit chooses: it is not typed into the composer the choice
                        // puts the cursor in.
                        ev.prevent_default();
                        selected.set(seat);
                    }
                }
            }
        });
        on_cleanup(move || handle.remove());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (live, selected);
}
