//! The postman: mail told, routed, delivered and marked taken (`postman`), the inbox watch
//! (`inbox_watch`), and the agents' words filed in the human's inbox (`replies`).
//!
//! Rule: names `process/` (and `folder/`), never `team/` or `quest/`.

pub(in crate::runtime) mod inbox_watch;
pub(in crate::runtime) mod postman;
pub(in crate::runtime) mod replies;
