//! Presence: when an agent writes, or asks to use a tool, while this tab is hidden, a browser
//! notification says so (permission is asked on the human's first click, as browsers require a
//! user gesture).

use leptos::prelude::*;

use crate::domain::docs::permissions;
use crate::domain::docs::{identity, messages, SpeakerType};
use crate::domain::permissions::input_preview;
use crate::live::Live;

/// Asks for permission to notify, once, if the human has not decided yet. Call from a click.
pub fn ask_permission() {
    #[cfg(feature = "hydrate")]
    {
        use web_sys::{Notification, NotificationPermission};
        if Notification::permission() == NotificationPermission::Default {
            let _ = Notification::request_permission();
        }
    }
}

/// Notifies about every reply that arrives while the tab is hidden.
pub fn notify_when_hidden(live: Live) {
    let seen = StoredValue::new(live.last_event_id.get_untracked());
    Effect::new(move |_| {
        let last = live.last_event_id.get();
        let from = seen.get_value();
        seen.set_value(last);
        let new: Vec<(String, String)> = live.docs.with_untracked(|d| {
            let said = messages(d)
                .filter(|m| m.event_id > from && m.speaker_type != SpeakerType::Human)
                .map(|m| {
                    (
                        format!("{} wrote", m.speaker_name),
                        m.text.chars().take(160).collect(),
                    )
                });
            let asked = permissions(d)
                .filter(|p| p.event_id > from && p.is_pending())
                .map(|p| {
                    let who = identity(d, p.seat)
                        .and_then(|i| i.name.clone())
                        .unwrap_or_else(|| format!("Seat {}", p.seat + 1));
                    (
                        format!("{who} asks to use {}", p.tool_name),
                        input_preview(&p.tool_name, &p.input)
                            .chars()
                            .take(160)
                            .collect(),
                    )
                });
            let reports = crate::domain::quest::all_artifacts(d)
                .filter(|a| {
                    a.event_id > from && a.kind == crate::domain::docs::ArtifactKind::Report
                })
                .map(|a| ("A quest's report is ready".to_string(), a.title.clone()));
            said.chain(asked).chain(reports).collect()
        });
        #[cfg(feature = "hydrate")]
        {
            use web_sys::{Notification, NotificationOptions, NotificationPermission};
            let hidden = web_sys::window()
                .and_then(|w| w.document())
                .is_some_and(|d| d.hidden());
            if hidden && Notification::permission() == NotificationPermission::Granted {
                for (title, text) in new {
                    let options = NotificationOptions::new();
                    options.set_body(&text);
                    options.set_tag("soulgrid");
                    let _ = Notification::new_with_options(&title, &options);
                }
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = new;
    });
}
