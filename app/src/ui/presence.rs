//! Presence: when an agent writes while this tab is hidden, a browser notification says so
//! (permission is asked on the human's first click, as browsers require a user gesture).

use leptos::prelude::*;

use crate::domain::docs::{messages, SpeakerType};
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
            messages(d)
                .filter(|m| m.event_id > from && m.speaker_type != SpeakerType::Human)
                .map(|m| (m.speaker_name.clone(), m.text.chars().take(160).collect()))
                .collect()
        });
        #[cfg(feature = "hydrate")]
        {
            use web_sys::{Notification, NotificationOptions, NotificationPermission};
            let hidden = web_sys::window()
                .and_then(|w| w.document())
                .is_some_and(|d| d.hidden());
            if hidden && Notification::permission() == NotificationPermission::Granted {
                for (who, text) in new {
                    let options = NotificationOptions::new();
                    options.set_body(&text);
                    options.set_tag("soulgrid");
                    let _ = Notification::new_with_options(&format!("{who} wrote"), &options);
                }
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = new;
    });
}
