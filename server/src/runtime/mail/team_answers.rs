//! #team is a conversation: follows the store and posts in #team the answers of the agents a
//! post mentioned (`domain::channel::Answers` decides which words answer; here they are
//! recorded, as the agent's post, filed for nobody). Off every process's stdout loop, like the
//! replies' filer.

use app::domain::channel::Answers;
use app::domain::events::EventKind;
use tokio_util::sync::CancellationToken;

use crate::store::{Store, PAGE};

pub(in crate::runtime) struct TeamAnswers {
    pub ctx: crate::runtime::context::Context,
    pub shutdown: CancellationToken,
}

impl TeamAnswers {
    pub fn new(ctx: &crate::runtime::context::Context) -> Self {
        TeamAnswers {
            ctx: ctx.clone(),
            shutdown: ctx.shutdown_token(),
        }
    }

    /// Starts the task; it ends with the server.
    pub fn start(self) {
        let store: Store = self.ctx.store().clone();
        let mut follow = store.follow(store.last_event_id());
        let tasks = self.ctx.tasks().clone();
        tasks.spawn(async move {
            let mut answers = Answers::default();
            loop {
                let batch = tokio::select! {
                    _ = self.shutdown.cancelled() => return,
                    b = follow.next(PAGE) => b,
                };
                let events = match batch {
                    None => return,
                    Some(Ok(batch)) => batch.events(),
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "reading events for #team's answers failed");
                        continue;
                    }
                };
                let posts: Vec<EventKind> = events
                    .iter()
                    .filter_map(|e| answers.see(&e.kind))
                    .map(|a| EventKind::TeamMessage {
                        message_id: a.message_id,
                        seat: Some(a.seat),
                        speaker_name: a.speaker_name,
                        text: a.text,
                        mentioned: Vec::new(),
                    })
                    .collect();
                if !posts.is_empty() {
                    self.ctx.record(posts).await;
                }
            }
        });
    }
}
