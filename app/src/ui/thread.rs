//! A conversation thread: the messages and permission requests of one seat, oldest first.
//! Agents' text is rendered as sanitised Markdown; the human's is shown as typed. Mail that waits
//! for a sleeping agent is marked queued. The view stays at the bottom unless the human scrolled
//! up.

use crate::api::Call;
use crate::contract::endpoints as e;
use crate::ui::when::When;
use leptos::html::Section;
use leptos::prelude::*;

use super::action::Action;
use super::cell::activity;
use super::detail::PostButton;
use super::older::{fill_when_looked_at, load_older, OlderFailed};
use super::permission::PermissionCard;
use crate::domain::docs::page::{seat_thread_owners, FIRST, PAGE};
use crate::domain::docs::{identity, SpeakerType};
use crate::domain::process::ProcessState;
use crate::domain::thread_items::{thread_items, ThreadItem};
use crate::domain::tool_lines::ToolLine;
use crate::domain::{markdown, Seat, LEAD_SEAT};
use crate::live::use_live;

/// How near the top of the thread (px) the reader's scroll brings the next older page.
const AT_TOP: i32 = 40;

#[component]
pub fn Thread(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let lines = Memo::new(move |_| {
        let seat = seat.get();
        live.docs.with(|docs| thread_items(docs, seat))
    });
    // A long thread shows its newest entries; older ones a page at a time, on request.
    // How many are shown, for which seat (another seat starts again at one page).
    let more = RwSignal::new((seat.get_untracked(), PAGE));
    let shown = move || {
        let (of, n) = more.get();
        if of == seat.get() {
            n
        } else {
            PAGE
        }
    };
    // Older messages the page did not carry come from the server when asked for.
    let owners = Memo::new(move |_| {
        let s = seat.get();
        live.docs.with(|d| seat_thread_owners(d, s))
    });
    let held_hidden = move || lines.with(Vec::len).saturating_sub(shown());
    let hidden = move || held_hidden() + owners.with(|o| live.older_of(o));
    // Whether there is anything older: the button is drawn again only when that changes, not
    // with every new line (its count follows on its own).
    let any_hidden = Memo::new(move |_| hidden() > 0);
    let visible = move || {
        let skip = held_hidden();
        lines.with(|all| all[skip..].to_vec())
    };
    let load = Action::new();
    let messages = move || lines.with_untracked(|l| l.iter().filter(|i| i.is_message()).count());
    // The open thread's first messages came with the page: its older ones wait to be asked for.
    fill_when_looked_at(live, owners, messages, FIRST, load);
    let panel = NodeRef::<Section>::new();
    let (stick, put) = stick_to_bottom(panel, lines, seat);
    // The next older page: shown if the replica holds it, else fetched first. Where the reader
    // is, from the bottom, is kept as older entries come in above (once they are drawn: they are
    // in the page before the next frame).
    let show_older = move || {
        let from_bottom = panel
            .get_untracked()
            .map(|el| el.scroll_height() - el.scroll_top());
        let grow = move || {
            more.set((seat.get_untracked(), shown() + PAGE));
            if let (Some(el), Some(from_bottom)) = (panel.get_untracked(), from_bottom) {
                request_animation_frame(move || {
                    el.set_scroll_top(el.scroll_height() - from_bottom);
                });
            }
        };
        if held_hidden() >= PAGE || owners.with_untracked(|o| live.older_of(o)) == 0 {
            grow();
            return;
        }
        load_older(live, owners.get_untracked(), load, grow);
    };
    let older = move || {
        if any_hidden.get_untracked() && !load.busy.get_untracked() {
            show_older();
        }
    };
    view! {
        <section
            class="thread-panel"
            aria-label="Conversation"
            // Focusable, so it scrolls from the keyboard (arrows, Page Up and Down).
            tabindex="0"
            node_ref=panel
            on:scroll=on_reader_scroll(panel, (stick, put), older)
        >
            <ThreadHead seat/>
            {move || any_hidden.get().then(|| view! {
                <button type="button" class="older" disabled=move || load.busy.get() on:click=move |_| show_older()>
                    {move || format!("Show older ({} more)", hidden())}
                </button>
            })}
            <OlderFailed load/>
            {move || (seat.get() == LEAD_SEAT && lines.with(Vec::is_empty)).then(|| view! { <Welcome/> })}
            <ol class="thread" aria-live="polite">
                <For
                    each=visible
                    key=ThreadItem::key
                    children=move |item| entry(item, seat)
                />
            </ol>
        </section>
    }
}

/// The reader's scroll: whether the thread still sticks to its bottom and, scrolled up to the
/// top, `older` (the next older page, as "Show older" brings it). Where the panel was at its
/// last scroll event tells up from down: the view's own scrolls (to the bottom, or keeping the
/// reader's place as entries come in above) never move up, so they bring none.
fn on_reader_scroll(
    panel: NodeRef<Section>,
    (stick, put): (RwSignal<bool>, StoredValue<Option<i32>>),
    older: impl Fn() + 'static,
) -> impl FnMut(leptos::ev::Event) + 'static {
    let last_top = StoredValue::new(i32::MAX);
    move |_| {
        if let Some(el) = panel.get_untracked() {
            let top = el.scroll_top();
            let ours = put.get_value().is_some_and(|at| top >= at - 1);
            stick.set(ours || el.scroll_height() - top - el.client_height() < 80);
            let up = top < last_top.get_value();
            last_top.set_value(top);
            if up && top <= AT_TOP {
                older();
            }
        }
    }
}

/// Keeps the thread at its bottom as entries come in (and on another seat), unless the reader
/// scrolled up: whether it sticks, and where the view last put the reader.
fn stick_to_bottom(
    panel: NodeRef<Section>,
    lines: Memo<Vec<ThreadItem>>,
    seat: Signal<Seat>,
) -> (RwSignal<bool>, StoredValue<Option<i32>>) {
    let stick = RwSignal::new(true);
    // Where the view last put the reader (the bottom, then). Its scroll event comes a frame
    // later, when more lines may be in: a position at or below it is the view's own scroll, or
    // the reader back at the bottom, never the reader leaving it.
    let put = StoredValue::new(None::<i32>);
    Effect::new(move |_| {
        let _ = lines.with(Vec::len);
        let _ = seat.get();
        if stick.get_untracked() {
            if let Some(el) = panel.get_untracked() {
                // Measured in the next frame, once every change of this event is in the page:
                // one layout for the frame, not one forced here and another for the paint.
                request_animation_frame(move || {
                    el.set_scroll_top(el.scroll_height());
                    put.set_value(Some(el.scroll_top()));
                });
            }
        }
    });
    (stick, put)
}

/// The thread's head: whose it is, what the agent is doing and for how long, and
/// **Interrupt** while a turn runs (never in the past).
#[component]
fn ThreadHead(seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let title = move || {
        let s = seat.get();
        live.docs
            .with(|d| identity(d, s).and_then(|i| i.name.clone()))
            .unwrap_or_else(|| live.lead_name.get_value())
    };
    // What the agent is doing, and whether it is in the middle of a turn (so it can be stopped).
    let working = Memo::new(move |_| {
        let s = seat.get();
        live.docs.with(|d| {
            identity(d, s).map(|i| {
                (
                    activity(i).unwrap_or_default(),
                    i.process_state == Some(ProcessState::Running),
                )
            })
        })
    });
    // The seat shown, while it can be interrupted: the button comes and goes with the turn and
    // with the seat (its request names the seat), not drawn again as the activity changes.
    let running = Memo::new(move |_| {
        let s = seat.get();
        working
            .with(|w| w.as_ref().is_some_and(|(_, r)| *r))
            .then_some(s)
    });
    // How long the turn has run, counted in the browser each second while there is one.
    let since = Memo::new(move |_| {
        let s = seat.get();
        live.docs
            .with(|d| identity(d, s).and_then(|i| i.busy_since))
    });
    let elapsed = super::when::elapsed(since, live.at_ts);
    view! {
        <div class="thread-head">
            <h2 class="thread-title">{title}</h2>
            <span class="thread-activity">{move || working.get().map(|(a, _)| a)}</span>
            {move || elapsed.get().map(|s| view! { <span class="elapsed" title="How long this turn has run">{s}</span> })}
            // The past is read-only: nothing there can be interrupted.
            {move || {
                running.get().filter(|_| live.at.is_none()).map(|s| {
                    let call = Call::new::<e::Interrupt>(&s, &e::Empty {});
                    view! { <PostButton label="Interrupt".to_string() call=call/> }
                })
            }}
        </div>
    }
}

/// One entry of the thread, drawn.
fn entry(item: ThreadItem, seat: Signal<Seat>) -> AnyView {
    let live = use_live();
    let line = match item {
        ThreadItem::Message(line) => line,
        ThreadItem::Permission(p, who) => {
            return view! { <PermissionCard p=*p who=who/> }.into_any();
        }
        ThreadItem::Inherited(parent, name, at) => {
            return view! {
                <li class="note inherited">
                    "Inherited from "
                    <a href=format!("/agents/{parent}")>{name}</a>
                    " up to "
                    <When at=at/>
                </li>
            }
            .into_any();
        }
        ThreadItem::Note(text, at, _) => {
            return view! {
                <li class="note process-note">
                    <When at=at short=true/>
                    " "
                    <span>{text}</span>
                </li>
            }
            .into_any();
        }
        ThreadItem::Problem(message, at) => {
            return view! {
                <li class="note problem">
                    <When at=at short=true/>
                    " "
                    <span>{message}</span>
                </li>
            }
            .into_any();
        }
    };
    if let Some(tool) = &line.tool {
        return view! { <ToolCall line=(**tool).clone() at=line.at/> }.into_any();
    }
    let kind = match line.kind {
        SpeakerType::Human => "human",
        SpeakerType::Lead => "lead",
        SpeakerType::Agent => "agent",
    };
    let body = if line.kind == SpeakerType::Human {
        view! { <div class="text plain">{line.text.clone()}</div> }.into_any()
    } else {
        view! { <div class="text md" inner_html=markdown::render(&line.text)></div> }.into_any()
    };
    view! {
        <li class="msg" class:queued=line.queued data-speaker-type=kind data-message-id=line.id.clone()>
            <div class="meta">
                <span class="who">{line.who.clone()}</span>
                {line.to.clone().map(|to| view! { <span class="to">{format!("→ {to}")}</span> })}
                <When at=line.at short=true/>
                {line.queued.then(|| view! { <span class="queued-note">"queued until wake"</span> })}
                // Where the message waits, the way to wake its reader.
                {(line.wake_here && live.at.is_none() && !live.spectating()).then(|| {
                    let request = crate::contract::WakeRequest { seats: Some(vec![seat.get_untracked()]) };
                    let call = Call::new::<e::Wake>(&(), &request);
                    view! { <PostButton label="Wake".to_string() call=call/> }
                })}
            </div>
            {body}
        </li>
    }
    .into_any()
}

/// A tool call, folded to one line (the tool, its input and its result in short); opened, its
/// whole input (an edit as its diff) and output.
#[component]
fn ToolCall(line: ToolLine, at: i64) -> impl IntoView {
    let edit = (line.name == "Edit").then(|| {
        let text = |k: &str| line.input[k].as_str().unwrap_or_default().to_string();
        (text("old_string"), text("new_string"))
    });
    let input = match &edit {
        Some((old, new)) => view! {
            <super::diff::DiffLines old=old.clone() new=new.clone() class="tool-diff"/>
        }
        .into_any(),
        None => view! {
            <pre class="tool-input">{serde_json::to_string_pretty(&line.input).unwrap_or_default()}</pre>
        }
        .into_any(),
    };
    let cut = line
        .output_cut()
        .then(|| format!("(cut: {} bytes in all)", line.output_bytes));
    view! {
        <li class="tool-line" data-tool=line.tool().to_string() data-error=line.is_error.to_string()>
            <details>
                <summary>
                    <When at=at short=true/>
                    " "
                    <span class="tool-name">{line.tool().to_string()}</span>
                    " "
                    <span class="tool-input-short">
                        {crate::domain::tool_lines::input_summary(&line.name, &line.input)}
                    </span>
                    " → "
                    <span class="tool-result">{line.result()}</span>
                </summary>
                {input}
                <pre class="tool-output">{line.output.clone()}</pre>
                {cut.map(|c| view! { <p class="muted">{c}</p> })}
            </details>
        </li>
    }
}

/// The first minute: the lead's empty thread says what the lead is, what SUMMON and WAKE do,
/// and whether the team is simulated (and how to run a real one).
#[component]
fn Welcome() -> impl IntoView {
    let live = use_live();
    let lead = live.lead_name.get_value();
    let team = match live.simulated {
        true => view! {
            <p>
                "This team is simulated: its agents are a small script on this machine, not a model, so you can try everything for free. "
                "To run a team of Claude Code agents, start the server with "<code>"--claude-cmd claude"</code>" (Claude Code installed and signed in)."
            </p>
        }
        .into_any(),
        false => view! { <p>"This team runs Claude Code (" {live.team_label.get_value()} ")."</p> }.into_any(),
    };
    view! {
        <section class="welcome" aria-label="Welcome">
            <h3>"Welcome to Soulgrid"</h3>
            <p>{format!("{lead} is the lead: it sits in the centre, talks with you here, and directs the team around it.")}</p>
            <p>
                <strong>"SUMMON"</strong>" fills the empty seats with newborn agents: each chooses its own name and writes its soul. "
                <strong>"WAKE"</strong>" brings sleeping agents back with their soul, their last conversation and what they know."
            </p>
            {team}
        </section>
    }
}
