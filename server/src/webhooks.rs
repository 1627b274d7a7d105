//! `--notify-url`: told when it matters, even with the browser closed. A watch on the log turns
//! what the human must hear of (a permission that waits for them, a review asked, a quest's
//! report ready, a budget at 80 % or reached, an agent's process that crashed) into a small JSON
//! POSTed to each URL (format in `docs/GUIDE.md`: `what`, `agent` by name, `title`, `message`,
//! `click`; `text` for chat webhooks, so ntfy and Slack-style hooks take it as it is).
//!
//! Never in the runtime's way: the watch reads committed events and queues at most
//! [`QUEUE`] notifications (past that, the oldest waiting one is dropped and said in the log);
//! a sender per URL POSTs them in order, each attempt bounded by [`ATTEMPT`], tried
//! [`TRIES`] times with a growing pause; a URL that hangs, answers 500 or cannot be reached
//! delays only its own queue.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::domain::docs::{identity, request, Docs};
use app::domain::escalation::Approver;
use app::domain::events::{Event, EventKind};
use app::domain::permissions::input_summary;
use app::domain::process::ProcessState;
use app::domain::Seat;
use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::store::Store;

/// Notifications waiting per URL, at most.
pub const QUEUE: usize = 256;
/// One POST's time limit.
pub const ATTEMPT: Duration = Duration::from_secs(5);
/// Attempts per notification.
pub const TRIES: u32 = 3;

/// One notification, as POSTed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    /// `permission`, `review`, `report`, `budget` or `crash`.
    pub what: &'static str,
    /// The agent's name, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub title: String,
    pub message: String,
    /// The same in one line, for chat webhooks.
    pub text: String,
    /// Where to look: the console at the agent's seat.
    pub click: String,
    pub team: String,
    /// The event it comes from.
    pub event_id: u64,
}

/// Watches the log and POSTs to each of `urls` (none: does nothing).
pub fn start(
    urls: Vec<String>,
    store: Store,
    base: String,
    team: String,
    (shutdown, tasks): (CancellationToken, &crate::tasks::Tasks),
) {
    if urls.is_empty() {
        return;
    }
    // The process's one TLS provider (ring); a second install is a no-op error.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = match reqwest::Client::builder()
        .timeout(ATTEMPT)
        // A receiver's answer never sends the server elsewhere (its own door, among others):
        // a redirect is a failed delivery.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("soulgrid/", env!("CARGO_PKG_VERSION")))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "no notifications: the HTTP client could not be made");
            return;
        }
    };
    let queues: Vec<Arc<Queue>> = urls
        .into_iter()
        .map(|url| {
            let q = Arc::new(Queue::default());
            tasks.spawn(send(url, q.clone(), client.clone(), shutdown.clone()));
            q
        })
        .collect();
    let watched = store.clone();
    watched.on_each_batch((shutdown, tasks), "the notification watch", move |batch| {
        let notes: Vec<Note> = store.with_docs(|d| {
            batch
                .events()
                .iter()
                .filter_map(|e| note(d, e, &base, &team))
                .collect()
        });
        for n in notes {
            for q in &queues {
                q.push(n.clone());
            }
        }
    });
}

/// Refuses a URL that names this server itself (`addr`, or loopback on its port when it
/// listens on loopback or on every address): a notification never knocks on the server's own
/// door.
pub async fn not_ours(urls: &[String], addr: std::net::SocketAddr) -> Result<(), String> {
    for url in urls {
        let Ok(parsed) = reqwest::Url::parse(url) else {
            continue;
        };
        let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
            continue;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        // A name that does not resolve at once is no address of this server's: the start
        // does not wait on a slow resolver.
        let lookup = tokio::net::lookup_host((host, port));
        let found = tokio::time::timeout(std::time::Duration::from_secs(2), lookup).await;
        let ours = found
            .into_iter()
            .flatten()
            .flatten()
            .any(|a| crate::own_address::is_own(&a, addr));
        if ours {
            return Err(format!(
                "--notify-url {url} is this server's own address: notifications go to another \
                 program"
            ));
        }
    }
    Ok(())
}

/// A bounded queue: pushing never waits; past [`QUEUE`], the oldest is dropped.
#[derive(Default)]
struct Queue {
    notes: Mutex<VecDeque<Note>>,
    ready: Notify,
}

impl Queue {
    fn push(&self, n: Note) {
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if notes.len() >= QUEUE {
            let dropped = notes.pop_front();
            tracing::warn!(dropped = ?dropped.map(|d| d.title), "notification queue full: the oldest was dropped");
        }
        notes.push_back(n);
        drop(notes);
        self.ready.notify_one();
    }

    fn pop(&self) -> Option<Note> {
        self.notes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
    }
}

/// POSTs one URL's notifications in order, each tried [`TRIES`] times.
async fn send(url: String, q: Arc<Queue>, client: reqwest::Client, shutdown: CancellationToken) {
    loop {
        let Some(n) = q.pop() else {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = q.ready.notified() => continue,
            }
        };
        let body = serde_json::to_vec(&n).unwrap_or_default();
        for attempt in 1..=TRIES {
            let sent = client
                .post(&url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
                .send()
                .await;
            let why = match sent {
                Ok(r) if r.status().is_success() => {
                    tracing::debug!(url, what = n.what, "notified");
                    break;
                }
                Ok(r) if r.status().is_redirection() => {
                    tracing::error!(url, what = n.what, status = %r.status(), "a notification failed: the URL answered a redirect, which is never followed");
                    break;
                }
                Ok(r) => format!("answered {}", r.status()),
                Err(e) if e.is_timeout() => format!("no answer within {ATTEMPT:?}"),
                Err(e) => format!("unreachable: {e}"),
            };
            tracing::warn!(url, attempt, what = n.what, "a notification failed: {why}");
            if attempt == TRIES {
                tracing::error!(url, what = n.what, title = %n.title, "a notification was given up after {TRIES} tries");
                break;
            }
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(Duration::from_millis(500) * 2u32.pow(attempt - 1)) => {}
            }
        }
    }
}

/// What the human must hear of `e`, if anything.
pub fn note(d: &Docs, e: &Event, base: &str, team: &str) -> Option<Note> {
    let name = |seat: Seat| identity(d, seat).and_then(|i| i.name.clone());
    let click = |seat: Option<Seat>| match seat {
        Some(s) => format!("{}/?seat={s}", base.trim_end_matches('/')),
        None => format!("{}/", base.trim_end_matches('/')),
    };
    let (what, seat, title, message) = match &e.kind {
        // A request that waits for the human: not one a rule answered in the same breath, nor
        // one with the lead (it is told if it comes to the human).
        EventKind::PermissionRequest { request_id, .. }
        | EventKind::PermissionRouted {
            request_id,
            to: Approver::Human,
            ..
        } => permission_note(d, e, request_id)?,
        EventKind::ReviewRequested {
            identity_id, note, ..
        } => review_note(d, identity_id, note.as_deref()),
        EventKind::ArtifactWritten {
            kind: app::domain::docs::ArtifactKind::Report,
            title,
            ..
        } => (
            "report",
            None,
            "A quest's report is ready".to_string(),
            title.clone(),
        ),
        EventKind::BudgetCrossed {
            seat,
            words,
            reached,
            ..
        } => (
            "budget",
            *seat,
            match reached {
                true => "A budget is reached".to_string(),
                false => "A budget is at 80 %".to_string(),
            },
            match seat.and_then(name) {
                Some(n) => format!("{n}: {words}"),
                None => words.clone(),
            },
        ),
        EventKind::AgentProcess {
            seat,
            state: ProcessState::Stopped,
            reason: Some(reason),
            ..
        } if reason.starts_with("crashed") => {
            let who = name(*seat).unwrap_or_else(|| format!("Seat {}", seat + 1));
            (
                "crash",
                Some(*seat),
                format!("{who} crashed"),
                reason.clone(),
            )
        }
        _ => return None,
    };
    let agent = seat.and_then(name);
    Some(Note {
        what,
        text: format!("{title}: {message}"),
        agent,
        title,
        message,
        click: click(seat),
        team: team.to_string(),
        event_id: e.id,
    })
}

/// What a note says: its kind, the seat it is about, its title and message.
type Said = (&'static str, Option<Seat>, String, String);

/// A request that waits for the human: not one a rule answered in the same breath, nor one
/// with the lead (it is told if it comes to the human).
fn permission_note(d: &Docs, e: &Event, request_id: &str) -> Option<Said> {
    let p = request(d, request_id).filter(|p| p.is_pending())?;
    let routed = matches!(e.kind, EventKind::PermissionRouted { .. });
    if !routed && p.with.is_some() {
        return None;
    }
    let who = identity(d, p.seat)
        .and_then(|i| i.name.clone())
        .unwrap_or_else(|| format!("Seat {}", p.seat + 1));
    let mut message = input_summary(&p.input);
    if let Some(why) = &p.routed_why {
        message = format!("{message} ({why})");
    }
    Some((
        "permission",
        Some(p.seat),
        format!("{who} asks to use {}", p.tool_name),
        message,
    ))
}

/// An agent asks for a review of its branch.
fn review_note(d: &Docs, identity_id: &str, note: Option<&str>) -> Said {
    let who = app::domain::docs::identity_by_id(d, identity_id);
    let seat = who
        .filter(|w| w.retired_at.is_none())
        .map(|w| w.grid_position);
    let agent = who
        .and_then(|w| w.name.clone())
        .unwrap_or_else(|| "An agent".into());
    (
        "review",
        seat,
        format!("{agent} asks for a review"),
        note.map_or_else(
            || "Its branch is in your review list.".into(),
            str::to_owned,
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u64) -> Note {
        Note {
            what: "crash",
            agent: None,
            title: format!("n{i}"),
            message: String::new(),
            text: String::new(),
            click: String::new(),
            team: "t".into(),
            event_id: i,
        }
    }

    #[test]
    fn a_full_queue_drops_its_oldest_and_never_waits() {
        let q = Queue::default();
        for i in 0..(QUEUE as u64 + 2) {
            q.push(n(i));
        }
        let first = q.pop().unwrap();
        assert_eq!(first.event_id, 2, "the two oldest were dropped");
        let mut rest = 1;
        while q.pop().is_some() {
            rest += 1;
        }
        assert_eq!(rest, QUEUE);
    }
}
