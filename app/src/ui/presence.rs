//! Presence: when an agent writes, asks to use a tool or for a review, a report is ready, or a
//! budget is near or reached, while this tab is hidden, a browser notification says so
//! (permission is asked on the human's first click, as browsers require a user gesture).

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
    // The branches in the human's review list when last looked at (a new one is told).
    let in_review = StoredValue::new(live.docs.with_untracked(asked_for_review));
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
            let budgets = crate::domain::budget::budgets(d)
                .into_iter()
                .filter_map(|b| b.last_told.as_ref().map(|t| (b, t)))
                .filter(|(_, t)| t.event_id > from)
                .map(|(b, t)| budget_note(d, b.agent.as_deref(), t));
            let now_in_review = asked_for_review(d);
            let reviews: Vec<(String, String)> = in_review.with_value(|before| {
                now_in_review
                    .iter()
                    .filter(|k| !before.contains(k))
                    .map(|(_, _, who, project)| {
                        (
                            format!("{who} asks for a review"),
                            format!("Its branch of {project} is in your review list."),
                        )
                    })
                    .collect()
            });
            in_review.set_value(now_in_review);
            said.chain(asked)
                .chain(reports)
                .chain(budgets)
                .chain(reviews)
                .collect()
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

/// A budget level told: whose, near or reached, and its words.
fn budget_note(
    d: &crate::domain::docs::Docs,
    agent: Option<&str>,
    told: &crate::domain::budget::ToldLevel,
) -> (String, String) {
    let who = match agent {
        None => "The team".to_string(),
        Some(id) => crate::domain::docs::identity_by_id(d, id)
            .and_then(|i| i.name.clone())
            .unwrap_or_else(|| "An agent".to_string()),
    };
    let title = match told.reached {
        true => format!("{who} reached its budget"),
        false => format!("{who} is near its budget (80 %)"),
    };
    (title, told.words.clone())
}

/// Every branch an agent asked the human to review: (project, identity, agent, project's name).
fn asked_for_review(d: &crate::domain::docs::Docs) -> Vec<(String, String, String, String)> {
    crate::domain::projects::worktrees(d)
        .into_iter()
        .filter(|w| w.review == crate::domain::docs::Review::Requested)
        .map(|w| {
            let name = crate::domain::projects::project(d, &w.project_id)
                .map_or(String::new(), |p| p.name.clone());
            (
                w.project_id.clone(),
                w.identity_id.clone(),
                w.agent.clone(),
                name,
            )
        })
        .collect()
}
