//! An agent paused by the server (put to work while awake) goes on: the same Claude session,
//! started again with what it was just given, told why in one message. No waking words, no
//! welcome from the lead: to the human nothing restarted.

use app::domain::docs::identity;
use app::domain::events::Aside;
use app::domain::wake::sleeping_seats;
use app::domain::Seat;

use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::process::spawn::Spec;
use crate::runtime::prompts;
use crate::runtime::team::Team;

impl Team {
    /// Starts the agent of `seat`, asleep since its pause, in the Claude session it had (a
    /// session the CLI cannot resume: a fresh one; none known: a WAKE), its first message
    /// `note` from Soulgrid; then hands it the mail that came meanwhile. `false` if the seat is taken or its agent
    /// not asleep (a WAKE was quicker, or it was retired).
    pub async fn go_on(&self, seat: Seat, note: &str) -> bool {
        let Ok(reservation) = self.processes.reserve(seat) else {
            return false;
        };
        let found = self.ctx.store().with_docs(|d| {
            let asleep = sleeping_seats(d).contains(&seat);
            let who = identity(d, seat).filter(|_| asleep)?;
            Some((who.name.clone()?, who.claude_session_id.clone()))
        });
        let (name, session) = match found {
            Some((name, Some(session))) => (name, session),
            // No session to go on in: a fresh one told only the note would not know who it
            // is. It wakes instead, from its soul, transcript and knowledge.
            Some((_, None)) => {
                drop(reservation);
                return !self.wake_only(Some(&[seat])).await.is_empty();
            }
            None => return false,
        };
        let spec = Spec {
            seat,
            name: Some(name),
            summoning: false,
            system_prompt: prompts::agent_prompt(&self.ctx.config().data_dir, self.ctx.names()),
            first_message: Outgoing::text(app::domain::provenance::delivered("Soulgrid", note)),
            resume: Some(session),
            fork: false,
            aside: Some(Aside::Moved),
        };
        if let Err(e) = self.processes.start_reserved(reservation, spec).await {
            tracing::warn!(seat, error = %e, "an agent paused to go on did not start");
            return false;
        }
        self.postman.deliver_mail(seat).await;
        true
    }
}
