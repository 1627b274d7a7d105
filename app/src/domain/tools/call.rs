//! A tool call checked and turned into what it does: the tool exists, the caller may use it,
//! its arguments are an object of the tool's own, of their types, and not larger than a stdin
//! line; a marker tool then becomes its marker, parsed by the marker's own rules.

use serde_json::{Map, Value};

use super::{tool, Does, Tool};
use crate::domain::markers::Marker;

/// The most bytes a call's arguments may have: a stdin line's limit (what the runtime can hand
/// to another agent in one message), 512 KiB.
pub const MAX_ARGUMENT_BYTES: usize = 512 * 1024;

/// Mail `read_mail` returns when the call says no `max`.
const READ_MAIL_DEFAULT: u32 = 10;

/// What a checked call does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// What this marker does.
    Marker(Marker),
    Team,
    CheckMail,
    /// Up to `max` unread messages.
    ReadMail {
        max: u32,
    },
}

/// Why a tool call was refused, in one sentence that says what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("there is no tool {0:?}: call tools/list for the ones you have")]
    Unknown(String),
    #[error("only the lead may use {0}: ask the lead with send_message")]
    LeadOnly(&'static str),
    #[error("{tool} needs {what}")]
    BadInput { tool: &'static str, what: String },
    #[error(
        "the arguments have {0} bytes, more than a message may carry ({MAX_ARGUMENT_BYTES}): \
         write the long part into a file in your folder and say where it is"
    )]
    TooLarge(usize),
}

/// What a call of `name` with `args` does, or why it is refused.
pub fn to_call(name: &str, args: &Value, lead: bool) -> Result<Call, Refusal> {
    let t = tool(name).ok_or_else(|| Refusal::Unknown(name.chars().take(60).collect()))?;
    if t.lead_only && !lead {
        return Err(Refusal::LeadOnly(t.name));
    }
    let size = serde_json::to_string(args).map_or(0, |s| s.len());
    if size > MAX_ARGUMENT_BYTES {
        return Err(Refusal::TooLarge(size));
    }
    let bad = |what: String| Refusal::BadInput { tool: t.name, what };
    let mut fields = match args {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        _ => return Err(bad("an object of arguments".into())),
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !t.params.iter().any(|p| p.0 == k.as_str()))
    {
        let unknown: String = unknown.chars().take(60).collect();
        return Err(bad(format!(
            "only {}; {unknown:?} is not one of its arguments",
            names(t)
        )));
    }
    match t.does {
        Does::Team => Ok(Call::Team),
        Does::CheckMail => Ok(Call::CheckMail),
        Does::ReadMail => match fields.get("max") {
            None | Some(Value::Null) => Ok(Call::ReadMail {
                max: READ_MAIL_DEFAULT,
            }),
            Some(v) => match v.as_u64().filter(|n| *n >= 1) {
                Some(n) => Ok(Call::ReadMail {
                    max: u32::try_from(n).unwrap_or(u32::MAX),
                }),
                None => Err(bad(format!("{} (a whole number from 1)", names(t)))),
            },
        },
        Does::Marker(action) => {
            fields.insert("action".into(), Value::String(action.into()));
            serde_json::from_value(Value::Object(fields))
                .map(Call::Marker)
                .map_err(|e| bad(format!("{} ({e})", names(t))))
        }
    }
}

/// A tool's arguments in words: "to (string, required), text (string, required)".
fn names(t: &Tool) -> String {
    match t.params {
        [] => "no arguments".into(),
        params => params
            .iter()
            .map(|(n, kind, _, needed)| match needed {
                true => format!("{n} ({kind}, required)"),
                false => format!("{n} ({kind})"),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}
