//! The request and response bodies of the JSON API, shared by the handlers and the UI.

use serde::{Deserialize, Serialize};

use crate::domain::Seat;

/// `POST /api/send`: a message from the human. It addresses a seat (`seat`); `targetAgent`, a
/// name compared case- and Unicode-folded, is kept for callers that know only names. With
/// neither, it goes to the lead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_agent: Option<String>,
}
