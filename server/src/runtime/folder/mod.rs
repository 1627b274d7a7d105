//! Each agent's folder: its files (`agent_fs`), its knowledge restored before a process starts
//! and captured into the store after (`knowledge`; the distil turn that comes first is
//! `process::capture`), the server's own history of it (`git`, `commits`) and its `_state.md`
//! (`state_file`).
//!
//! Rule: names no other room (a leaf: `process/` and the others use it).

pub(in crate::runtime) mod agent_fs;
pub(in crate::runtime) mod commits;
pub(in crate::runtime) mod git;
pub(in crate::runtime) mod knowledge;
pub(in crate::runtime) mod state_file;
