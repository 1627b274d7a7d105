//! Mail a message carries to a process, held until the process takes it (the CLI echoes the
//! line's uuid): then it is marked read in its inbox.

use std::sync::{Arc, Mutex};

/// Inbox messages, by inbox and `msg_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mail {
    pub inbox: String,
    pub ids: Vec<String>,
}

/// Mail written to a process and not taken by it yet, by the uuid of its line.
#[derive(Clone, Debug, Default)]
pub struct InFlight(Arc<Mutex<Vec<(String, Mail)>>>);

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Mail)>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(in crate::runtime) fn add(&self, uuid: String, mail: Mail) {
        self.lock().push((uuid, mail));
    }

    pub fn get(&self, uuid: &str) -> Option<Mail> {
        self.lock()
            .iter()
            .find(|(u, _)| u == uuid)
            .map(|(_, m)| m.clone())
    }

    pub fn remove(&self, uuid: &str) {
        self.lock().retain(|(u, _)| u != uuid);
    }

    /// Whether the message `msg_id` of `inbox` is with the process already.
    pub fn holds(&self, inbox: &str, msg_id: &str) -> bool {
        self.lock()
            .iter()
            .any(|(_, m)| m.inbox == inbox && m.ids.iter().any(|i| i == msg_id))
    }
}
