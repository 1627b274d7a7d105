//! The postman: mail delivered and marked taken (`postman`), told and routed (`tell`), #team
//! (`channel`), the
//! inbox watch (`inbox_watch`), an agent's own look at its inbox (`pull`), and the agents' words
//! filed in the human's inbox (`replies`).
//!
//! Rule: names `process/` (and `folder/`), never `team/` or `quest/`.

pub mod channel;
pub(in crate::runtime) mod inbox_watch;
pub(in crate::runtime) mod postman;
pub(in crate::runtime) mod pull;
pub(in crate::runtime) mod replies;
pub(in crate::runtime) mod team_answers;
pub(in crate::runtime) mod tell;
