//! The team's lives: SUMMON and WAKE (`lifecycle`), fork, retire and recall (`fork`, `hall`),
//! the task that owns each process and acts on its reports (`owner`), the human's answers to
//! permission requests (`permissions`), and what markers ask of the team (`requests`).
//!
//! Rule: names `process/` (and `folder/`, `mail/`), never `quest/`.

pub(in crate::runtime) mod fork;
pub(in crate::runtime) mod hall;
pub(in crate::runtime) mod lifecycle;
pub(in crate::runtime) mod owner;
pub(in crate::runtime) mod permissions;
pub(in crate::runtime) mod requests;
