//! The team's lives: SUMMON and WAKE (`lifecycle`), a pause gone on from (`go_on`), fork, retire and recall (`fork`, `hall`),
//! the human's answers to permission requests (`permissions`) and the rules that answer them
//! without asking (`rules`). What a process's markers
//! ask of the team reaches it through the runtime's switchboard.
//!
//! Rule: names `process/` (and `folder/`, `mail/`), never `quest/`.

pub(in crate::runtime) mod fork;
pub(in crate::runtime) mod go_on;
pub(in crate::runtime) mod hall;
pub(in crate::runtime) mod lifecycle;
pub(in crate::runtime) mod permissions;
pub(in crate::runtime) mod rules;

use crate::runtime::context::Context;
use crate::runtime::mail::postman::Postman;
use crate::runtime::process::owner::Processes;

/// The team room's owner: it seats, wakes, forks and retires identities, starting and stopping
/// their processes through the process room and telling the lead through the postman.
#[derive(Clone)]
pub struct Team {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) processes: Processes,
    pub(in crate::runtime) postman: Postman,
}
