//! The agents' processes: starting one (`spawn`), its stdin (`pipes`, `outgoing`, `in_flight`),
//! its command line (`command`), its stdout turned into events (`supervisor`, `stdout`, `lines`, `protocol`, `turn`), the
//! distil turn that captures its knowledge before it stops (`capture`), the table of who runs
//! where (`table`), an agent started again once its process stopped (`restart`), what keeps all it starts together (`group`, `contain`), and the answer a
//! tool call waits for (`answer`).
//!
//! Rule: names none of `mail/`, `team/`, `quest/` (what a process's markers ask of them is
//! carried out by the runtime's switchboard).

pub mod answer;
pub(in crate::runtime) mod capture;
pub(in crate::runtime) mod cli_home;
pub(in crate::runtime) mod command;
pub mod contain;
pub(in crate::runtime) mod group;
pub(in crate::runtime) mod in_flight;
pub mod lines;
pub mod outgoing;
pub(in crate::runtime) mod owner;
pub(in crate::runtime) mod pipes;
pub mod protocol;
pub(in crate::runtime) mod restart;
pub(in crate::runtime) mod spawn;
pub(in crate::runtime) mod stdout;
pub(in crate::runtime) mod supervisor;
pub(in crate::runtime) mod table;
pub mod turn;

pub use command::STREAM_JSON;
