//! One seat of the grid: a face, an egg or an empty place, with its name and status dot.

use leptos::prelude::*;

use super::face::{Egg, Face};
use crate::domain::docs::AgentIdentity;
use crate::domain::palette::seat_style;
use crate::domain::status::AgentStatus;
use crate::domain::{Seat, LEAD_SEAT};

/// What a cell shows, derived from the seat's document.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CellView {
    pub seat: Seat,
    /// `None` for an empty seat (no document, or expired).
    pub status: Option<AgentStatus>,
    pub name: Option<String>,
    pub color: String,
    pub eyes: String,
    pub mouth: String,
    /// What the agent's process is doing, in words ("thinking…", "using Bash", "stopped: …").
    pub activity: Option<String>,
    /// Replies the human has not seen yet.
    pub unread: usize,
    /// Permission requests waiting for the human.
    pub asking: usize,
    /// What the lead believes of this agent, where that differs from its process.
    pub belief: Option<(bool, String)>,
    /// In the running quest stage: its number, and whether this agent is done with it.
    pub stage: Option<(u32, bool)>,
    /// What the conflict radar says of it (files others changed or claimed too).
    pub radar: Option<String>,
}

/// What a seat's agent is doing, in the console's words (`domain::words`).
pub fn activity(doc: &AgentIdentity) -> Option<String> {
    crate::domain::words::state_of(doc)
}

impl CellView {
    pub fn new(
        seat: Seat,
        doc: Option<&AgentIdentity>,
        lead_name: &str,
        unread: usize,
        asking: usize,
    ) -> Self {
        let style = seat_style(seat);
        let visible = doc.filter(|d| d.status().is_visible());
        let face = visible.and_then(|d| d.face_variant.clone());
        let mut view = CellView {
            seat,
            status: visible.map(AgentIdentity::status),
            name: visible.and_then(|d| d.name.clone()),
            color: visible
                .and_then(|d| d.color.clone())
                .or_else(|| style.map(|s| s.color.to_string()))
                .unwrap_or_default(),
            eyes: face
                .as_ref()
                .map(|f| f.eyes.clone())
                .or_else(|| style.map(|s| s.eyes.to_string()))
                .unwrap_or_default(),
            mouth: face
                .map(|f| f.mouth)
                .or_else(|| style.map(|s| s.mouth.to_string()))
                .unwrap_or_default(),
            activity: visible.and_then(activity),
            unread,
            asking,
            belief: visible
                .and_then(|d| Some((d.believed_otherwise()?, d.belief_text(lead_name)?))),
            stage: None,
            radar: None,
        };
        // The lead always has a seat, even before its first session wrote a document.
        if seat == LEAD_SEAT {
            view.status.get_or_insert(AgentStatus::Sleeping);
            view.name.get_or_insert_with(|| lead_name.to_string());
        }
        view
    }

    fn status_name(&self) -> &'static str {
        self.status.map_or("empty", AgentStatus::as_str)
    }

    fn label(&self) -> String {
        let who = match (&self.name, self.seat == LEAD_SEAT) {
            (Some(n), true) => format!("{n}, the lead"),
            (Some(n), false) => n.clone(),
            (None, _) => format!("Seat {}", self.seat + 1),
        };
        let asking = match self.asking {
            0 => String::new(),
            1 => ", waiting for your approval".into(),
            n => format!(", {n} requests waiting for your approval"),
        };
        let belief = match &self.belief {
            Some((_, text)) => format!(" ({text})"),
            None => String::new(),
        };
        match (self.status, &self.activity) {
            (None, _) => format!("{who}: empty"),
            (Some(_), Some(doing)) => format!("{who}: {doing}{asking}{belief}"),
            (Some(s), None) => format!("{who}: {}{asking}{belief}", s.as_str()),
        }
    }
}

/// One seat, kept for the page's life (the grid keys cells by seat): what it shows changes in
/// place as `view` does, so an activity line that changes leaves the button, its focus and its
/// face as they are. Only a seat becoming empty or taken changes which element it is.
#[component]
pub fn Cell(
    view: Memo<CellView>,
    #[prop(into)] selected: Signal<bool>,
    on_select: Callback<Seat>,
) -> impl IntoView {
    let seat = view.with_untracked(|v| v.seat);
    let empty = Memo::new(move |_| seat != LEAD_SEAT && view.with(|v| v.status.is_none()));
    let color = move || view.with(|v| v.color.clone());
    let status = move || view.with(CellView::status_name);
    move || {
        if empty.get() {
            // An empty seat is not a conversation: it offers what can come to it.
            return view! {
                <div class="cell empty" data-seat=seat data-status=status style:--seat-color=color>
                    <super::seat_menu::SeatMenu seat=seat/>
                    <span class="name"></span>
                </div>
            }
            .into_any();
        }
        seated(seat, view, selected, on_select).into_any()
    }
}

/// A seat with someone in it (or the lead's): a button that opens its thread.
fn seated(
    seat: Seat,
    view: Memo<CellView>,
    selected: Signal<bool>,
    on_select: Callback<Seat>,
) -> impl IntoView {
    let class = if seat == LEAD_SEAT {
        "cell lead"
    } else {
        "cell"
    };
    // The figure changes only when what it draws does.
    let figure = Memo::new(move |_| {
        view.with(|v| {
            let hatching = v.status == Some(AgentStatus::Hatching);
            (
                v.status.is_none(),
                hatching,
                v.color.clone(),
                v.eyes.clone(),
                v.mouth.clone(),
            )
        })
    });
    let unread = move || view.with(|v| v.unread);
    let asking = move || view.with(|v| v.asking);
    view! {
        <button
            type="button"
            class=class
            data-seat=seat
            data-status=move || view.with(CellView::status_name)
            data-asking=move || (asking() > 0).then_some("true")
            data-radar=move || view.with(|v| v.radar.is_some()).then_some("true")
            data-believed=move || {
                view.with(|v| v.belief.as_ref().map(|(alive, _)| if *alive { "awake" } else { "asleep" }))
            }
            aria-label=move || view.with(CellView::label)
            aria-pressed=move || selected.get().to_string()
            // The grid is one Tab stop: the chosen face (arrows reach the others).
            tabindex=move || if selected.get() { "0" } else { "-1" }
            disabled=move || view.with(|v| v.status.is_none())
            style:--seat-color=move || view.with(|v| v.color.clone())
            on:click=move |_| on_select.run(seat)
        >
            <span class="dot" aria-hidden="true"></span>
            {move || (unread() > 0).then(|| view! {
                <span class="badge" title="unread replies">{unread()}</span>
            })}
            {move || (asking() > 0).then(|| view! {
                <span class="asking" title="waiting for your approval">"approve?"</span>
            })}
            {move || {
                let (empty, hatching, color, eyes, mouth) = figure.get();
                if empty {
                    view! { <span class="empty-seat" aria-hidden="true"></span> }.into_any()
                } else if hatching {
                    view! { <Egg color=color/> }.into_any()
                } else {
                    view! { <Face color=color eyes_kind=eyes mouth_kind=mouth/> }.into_any()
                }
            }}
            <span class="name">{move || view.with(|v| v.name.clone().unwrap_or_default())}</span>
            <span class="activity">{move || view.with(|v| v.activity.clone())}</span>
            {move || view.with(|v| v.belief.clone()).map(|(_, text)| view! { <span class="belief">{text}</span> })}
            {move || view.with(|v| v.radar.clone()).map(|files| view! {
                <span class="radar-badge" title=format!("Changed by others too:\n{files}")>"overlap"</span>
            })}
            {move || view.with(|v| v.stage).map(|(n, done)| view! {
                <span class="stage-badge" data-done=done.to_string()
                    title=if done { "done with this quest stage" } else { "in the quest's running stage" }>
                    {format!("S{}{}", n + 1, if done { " ✓" } else { "" })}
                </span>
            })}
        </button>
    }
}
