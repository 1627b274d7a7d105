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
use crate::domain::docs::of_seat;
use crate::domain::docs::page::{seat_thread_owners, FIRST, PAGE};
use crate::domain::docs::{identity, thread, SpeakerType};
use crate::domain::permissions::PermissionDoc;
use crate::domain::process::ProcessState;
use crate::domain::status::AgentStatus;
use crate::domain::tool_lines::ToolLine;
use crate::domain::{markdown, Seat, LEAD_SEAT};
use crate::live::use_live;

/// How near the top of the thread (px) the reader's scroll brings the next older page.
const AT_TOP: i32 = 40;

#[derive(Clone, PartialEq)]
struct Line {
    id: String,
    who: String,
    kind: SpeakerType,
    text: String,
    at: i64,
    queued: bool,
    /// The newest message queued for a sleeper: **Wake** is offered beside it.
    wake_here: bool,
    /// A tool call rather than words.
    tool: Option<Box<ToolLine>>,
    /// One agent's letter to another: whom it was to ("Lyra → Kael").
    to: Option<String>,
}

/// One entry of the thread.
#[derive(Clone, PartialEq)]
enum Item {
    Message(Line),
    /// A permission request, and whose it is.
    Permission(Box<PermissionDoc>, String),
    /// The last thing that went wrong for the seat (a marker refused, a name taken), and when.
    Problem(String, i64),
    /// A fork's inherited conversation, by reference: the parent's id and name, up to when.
    Inherited(String, String, i64),
    /// What happened to the agent's process (it woke, was interrupted, crashed): text, when,
    /// and the event it was noted at.
    Note(String, i64, u64),
}

impl Item {
    /// Keyed by what changes how it is drawn: a queued message is drawn again when its agent
    /// wakes, a request when it is answered.
    fn key(&self) -> String {
        match self {
            Item::Message(l) => format!("{}:{}:{}", l.id, l.queued, l.wake_here),
            Item::Permission(p, _) => format!("{}:{}", p.id, p.state.as_str()),
            Item::Problem(_, at) => format!("problem:{at}"),
            Item::Inherited(parent, _, at) => format!("inherited:{parent}:{at}"),
            Item::Note(_, _, event) => format!("note:{event}"),
        }
    }
}

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn Thread(#[prop(into)] seat: Signal<Seat>) -> impl IntoView {
    let live = use_live();
    let lines = Memo::new(move |_| {
        let seat = seat.get();
        live.docs.with(|docs| {
            // Written after the agent was last alive, while it sleeps: not delivered yet.
            let asleep_since = identity(docs, seat)
                .filter(|d| d.status() == AgentStatus::Sleeping)
                .map(|d| d.last_alive_at.unwrap_or(0));
            let who = identity(docs, seat)
                .and_then(|d| d.name.clone())
                .unwrap_or_else(|| format!("Seat {}", seat + 1));
            let mut items: Vec<((i64, u64), Item)> = thread(docs, seat)
                .into_iter()
                .map(|m| {
                    let line = Line {
                        id: m.id.clone(),
                        who: m.speaker_name.clone(),
                        kind: m.speaker_type,
                        text: m.text.clone(),
                        at: m.created_at,
                        queued: m.speaker_type == SpeakerType::Human
                            && asleep_since.is_some_and(|since| m.created_at > since),
                        wake_here: false,
                        tool: m.tool.clone().map(Box::new),
                        to: (m.speaker_type != SpeakerType::Human)
                            .then(|| m.target_agent.clone())
                            .flatten(),
                    };
                    ((m.created_at, m.event_id), Item::Message(line))
                })
                .collect();
            items.extend(of_seat(docs, seat).into_iter().map(|p| {
                (
                    (p.created_at, p.event_id),
                    Item::Permission(Box::new(p.clone()), who.clone()),
                )
            }));
            // A fork carries its parent's conversation: shown by reference, not copied.
            if let Some(d) = identity(docs, seat).filter(|d| d.parent_uuid.is_some()) {
                let parent = d.parent_uuid.clone().unwrap_or_default();
                let parent_name = crate::domain::docs::identity_by_id(docs, &parent)
                    .and_then(|p| p.name.clone())
                    .unwrap_or_else(|| "its parent".into());
                let point = d
                    .fork_message_id
                    .as_ref()
                    .and_then(|id| docs.get(id))
                    .and_then(|m| m.as_message())
                    .map(|m| m.created_at);
                let at = point.or(d.created_at).unwrap_or_default();
                items.push(((i64::MIN, 0), Item::Inherited(parent, parent_name, at)));
            }
            if let Some(d) = identity(docs, seat) {
                items.extend(d.notes.iter().map(|n| {
                    (
                        (n.at, n.event_id),
                        Item::Note(n.text.clone(), n.at, n.event_id),
                    )
                }));
            }
            if let Some(p) = identity(docs, seat).and_then(|d| d.last_problem.as_ref()) {
                items.push(((p.at, u64::MAX), Item::Problem(p.message.clone(), p.at)));
            }
            items.sort_by_key(|(at, _)| *at);
            let newest_queued = items.iter_mut().rev().find_map(|(_, item)| match item {
                Item::Message(l) if l.queued => Some(l),
                _ => None,
            });
            if let Some(l) = newest_queued {
                l.wake_here = true;
            }
            items.into_iter().map(|(_, item)| item).collect::<Vec<_>>()
        })
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
    fill_when_looked_at(
        live,
        owners,
        move || {
            lines.with_untracked(|l| l.iter().filter(|i| matches!(i, Item::Message(_))).count())
        },
        // The open thread's first messages came with the page: its older ones wait to be asked for.
        FIRST,
        load,
    );
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
    let panel = NodeRef::<Section>::new();
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
    // Where the panel was at its last scroll event: the reader scrolling up to the top brings
    // the next older page, as "Show older" does. The view's own scrolls (to the bottom, or
    // keeping the reader's place as entries come in above) never move up, so they bring none.
    let last_top = StoredValue::new(i32::MAX);
    view! {
        <section
            class="thread-panel"
            aria-label="Conversation"
            // Focusable, so it scrolls from the keyboard (arrows, Page Up and Down).
            tabindex="0"
            node_ref=panel
            on:scroll=move |_| {
                if let Some(el) = panel.get_untracked() {
                    let top = el.scroll_top();
                    let ours = put.get_value().is_some_and(|at| top >= at - 1);
                    stick.set(ours || el.scroll_height() - top - el.client_height() < 80);
                    let up = top < last_top.get_value();
                    last_top.set_value(top);
                    if up && top <= AT_TOP && any_hidden.get_untracked() && !load.busy.get_untracked() {
                        show_older();
                    }
                }
            }
        >
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
                    key=Item::key
                    children=move |item| {
                        let line = match item {
                            Item::Message(line) => line,
                            Item::Permission(p, who) => {
                                return view! { <PermissionCard p=*p who=who/> }.into_any();
                            }
                            Item::Inherited(parent, name, at) => {
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
                            Item::Note(text, at, _) => {
                                return view! {
                                    <li class="note process-note">
                                        <When at=at short=true/>
                                        " "
                                        <span>{text}</span>
                                    </li>
                                }
                                .into_any();
                            }
                            Item::Problem(message, at) => {
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
                />
            </ol>
        </section>
    }
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
