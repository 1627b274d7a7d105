//! Keeps `_state.md` current in every named agent's folder (`{data_dir}/agents/{seat}/`): the
//! server's objective view of the agent (`domain::state_file`), rewritten whenever the log moves
//! or the agent's inbox changes, and only when its text changed. The file is read-only: the
//! agent reads it, the server replaces it (a temp file renamed over it, never through a link
//! the agent made: `agent_fs`).

use std::collections::HashMap;
use std::time::Duration;

use app::domain::docs::identities;
use app::domain::docs::pending;
use app::domain::projects::{project, worktrees_of};
use app::domain::state_file::{render, Around, FILE_NAME};
use app::domain::Seat;
use futures::FutureExt;

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::mailbox::Mailboxes;
use crate::runtime::background::{self, Background};
use crate::runtime::folder::agent_fs::agent_dir;
use crate::runtime::folder::agent_fs::write_file;
use crate::store::{Store, PAGE};

/// A safety net: inbox changes are signalled by the mail watcher, which can miss one when
/// inotify is unavailable and it polls.
const MAIL_RECHECK: Duration = Duration::from_secs(5);

/// The keeper of the state files: what it reads and where it writes.
pub(in crate::runtime) struct StateFiles {
    pub store: Store,
    pub mailboxes: Mailboxes,
    pub data_dir: PathBuf,
    pub context_window: u64,
    /// An inbox changed: the agents' state files may be out of date.
    pub inboxes_changed: Arc<Notify>,
    pub background: Background,
    pub shutdown: CancellationToken,
    /// Where its task is spawned, owned (`crate::tasks`).
    pub tasks: crate::tasks::Tasks,
}

impl StateFiles {
    pub fn new(
        ctx: &crate::runtime::context::Context,
        inboxes_changed: Arc<Notify>,
        background: Background,
    ) -> Self {
        StateFiles {
            store: ctx.store().clone(),
            mailboxes: ctx.mailboxes().clone(),
            data_dir: ctx.config().data_dir.clone(),
            context_window: ctx.config().agents.context_window,
            inboxes_changed,
            background,
            shutdown: ctx.shutdown_token(),
            tasks: ctx.tasks().clone(),
        }
    }

    /// Starts the task that keeps the state files; it ends with the server.
    pub fn start(self) {
        let rt = self;
        // Only a wake-up: what changed is read from the documents.
        let mut follow = rt.store.follow(rt.store.last_event_id());
        let shutdown = rt.shutdown.clone();
        rt.tasks.clone().spawn(async move {
            let mut kept = Kept::default();
            let mut recheck = tokio::time::interval(MAIL_RECHECK);
            loop {
                rt.write_state_files(&mut kept).await;
                let written = tokio::time::Instant::now();
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = recheck.tick() => kept.mail.clear(),
                    _ = rt.inboxes_changed.notified() => kept.mail.clear(),
                    r = follow.next(PAGE) => if r.is_none() {
                        return;
                    },
                }
                // One rewrite an interval at most: the events and inbox changes meanwhile are
                // all in it.
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = background::after_interval(Some(written)) => {}
                }
                // What came meanwhile is in this rewrite (a read that fails is tried again at
                // the next wake-up).
                while let Some(Ok(_)) = follow.ready(PAGE).await {}
                if rt.inboxes_changed.notified().now_or_never().is_some() {
                    kept.mail.clear();
                }
            }
        });
    }

    /// Writes the state file of every named agent whose text changed since it was last
    /// written. An inbox is read again only after an inbox changed (the log moving does not
    /// change one).
    async fn write_state_files(&self, kept: &mut Kept) {
        type Trees = Vec<(String, String, String)>;
        let seats: Vec<(Seat, String, usize, Trees)> = self.store.with_docs(|docs| {
            identities(docs)
                .filter(|d| d.status().is_visible())
                .filter_map(|d| {
                    let asking = pending(docs, d.grid_position).len();
                    let trees = worktrees_of(docs, &d.stable_id())
                        .into_iter()
                        .map(|w| {
                            let name = project(docs, &w.project_id).map(|p| p.name.clone());
                            (name.unwrap_or_default(), w.path.clone(), w.branch.clone())
                        })
                        .collect();
                    Some((d.grid_position, d.inbox()?, asking, trees))
                })
                .collect()
        });
        for (seat, inbox, asking, worktrees) in seats {
            let (unread_mail, last_read) = match kept.mail.get(&inbox) {
                Some(mail) => mail.clone(),
                None => {
                    let mail = self.read_mail(inbox.clone()).await;
                    kept.mail.insert(inbox, mail.clone());
                    mail
                }
            };
            let around = Around {
                unread_mail,
                last_read,
                pending_permissions: asking,
                context_window: self.context_window,
                worktrees,
            };
            let Some(text) = self
                .store
                .with_docs(|d| app::domain::docs::identity(d, seat).map(|i| render(i, &around)))
            else {
                continue;
            };
            if kept.written.get(&seat) == Some(&text) {
                continue;
            }
            // The folder is the process's to make: no folder, no agent has run there yet.
            let dir = agent_dir(&self.data_dir, seat);
            let bytes = text.clone().into_bytes();
            let wrote = self
                .background
                .run(move || {
                    dir.is_dir()
                        .then(|| write_file(&dir, FILE_NAME, &bytes, 0o444))
                })
                .await
                .flatten();
            match wrote {
                Some(Ok(())) => {
                    kept.written.insert(seat, text);
                }
                Some(Err(e)) => tracing::warn!(seat, error = %e, "could not write {FILE_NAME}"),
                None => {}
            }
        }
    }

    /// What a state file says of an inbox: its unread count and the newest message read.
    async fn read_mail(&self, inbox: String) -> MailSeen {
        let mailboxes = self.mailboxes.clone();
        let mail = self
            .background
            .run(move || mailboxes.all(&inbox))
            .await
            .and_then(Result::ok)
            .unwrap_or_default();
        let unread = mail.iter().filter(|m| !m.read).count();
        let last_read = mail
            .iter()
            .rfind(|m| m.read)
            .map(|m| (m.from.clone(), m.timestamp.clone()));
        (unread, last_read)
    }
}

/// An inbox as a state file shows it: unread messages, and who sent the newest read one, when.
type MailSeen = (usize, Option<(String, String)>);

/// What the state-file task keeps between rewrites.
#[derive(Default)]
struct Kept {
    /// The text last written, by seat.
    written: HashMap<Seat, String>,
    /// Each inbox as last read, until an inbox changes.
    mail: HashMap<String, MailSeen>,
}
