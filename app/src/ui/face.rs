//! An agent's face drawn in SVG from its `faceVariant` and colour, and the egg of a hatching seat.

use leptos::prelude::*;

fn eyes(kind: &str) -> impl IntoView {
    match kind {
        "round" => view! {
            <circle cx="36" cy="42" r="6" fill="#1b1b24"/>
            <circle cx="64" cy="42" r="6" fill="#1b1b24"/>
        }
        .into_any(),
        "sleepy" => view! {
            <path d="M29 43 q7 5 14 0" stroke="#1b1b24" stroke-width="4" fill="none" stroke-linecap="round"/>
            <path d="M57 43 q7 5 14 0" stroke="#1b1b24" stroke-width="4" fill="none" stroke-linecap="round"/>
        }
        .into_any(),
        "wide" => view! {
            <ellipse cx="36" cy="42" rx="7" ry="9" fill="#fff"/>
            <ellipse cx="64" cy="42" rx="7" ry="9" fill="#fff"/>
            <circle cx="37" cy="44" r="4" fill="#1b1b24"/>
            <circle cx="65" cy="44" r="4" fill="#1b1b24"/>
        }
        .into_any(),
        "bright" => view! {
            <circle cx="36" cy="42" r="5" fill="#1b1b24"/>
            <circle cx="64" cy="42" r="5" fill="#1b1b24"/>
            <circle cx="38" cy="40" r="1.8" fill="#fff"/>
            <circle cx="66" cy="40" r="1.8" fill="#fff"/>
        }
        .into_any(),
        _ => view! {
            <ellipse cx="36" cy="42" rx="4" ry="5.5" fill="#1b1b24"/>
            <ellipse cx="64" cy="42" rx="4" ry="5.5" fill="#1b1b24"/>
        }
        .into_any(),
    }
}

fn mouth(kind: &str) -> &'static str {
    match kind {
        "smile" => "M34 62 q16 14 32 0",
        "grin" => "M32 60 q18 20 36 0 z",
        "calm" => "M38 65 h24",
        "open" => "M42 62 q8 12 16 0 q-8 -4 -16 0 z",
        _ => "M38 63 q12 8 24 0",
    }
}

/// A face: a disc of the agent's colour with eyes and a mouth.
#[component]
pub fn Face(color: String, eyes_kind: String, mouth_kind: String) -> impl IntoView {
    let filled = mouth_kind == "grin" || mouth_kind == "open";
    view! {
        <svg class="face" viewBox="0 0 100 100" aria-hidden="true" focusable="false">
            <circle cx="50" cy="50" r="42" fill=color/>
            {eyes(&eyes_kind)}
            <path
                d=mouth(&mouth_kind)
                stroke="#1b1b24"
                stroke-width="4"
                stroke-linecap="round"
                fill=if filled { "#1b1b24" } else { "none" }
            />
        </svg>
    }
}

/// The animated egg of a seat whose agent is being born.
#[component]
pub fn Egg(color: String) -> impl IntoView {
    view! {
        <svg class="egg" viewBox="0 0 100 100" aria-hidden="true" focusable="false">
            <ellipse cx="50" cy="54" rx="30" ry="38" fill="#f3ead8" stroke=color.clone() stroke-width="4"/>
            <path d="M30 52 l8 -6 l8 6 l8 -6 l8 6 l8 -6" stroke=color stroke-width="3" fill="none"/>
        </svg>
    }
}
