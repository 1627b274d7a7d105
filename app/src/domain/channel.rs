//! `#team`: the one channel the human and every agent speak in. A message there is shown to
//! everyone; its mentions (`@Name`, `@lead`, `@all`) decide whose inboxes it is filed in. Who a
//! mention names is decided here, once, for the server (which files it) and the page (which
//! completes names as they are typed).
//!
//! A mention is `@` at the start of the text or after a character that is not a letter or a
//! digit (so `a@b.com` names nobody), followed by a name of the team compared case- and
//! Unicode-folded (`@zoe` names Zoë); the longest name that fits wins (`@Mary Ann` over
//! `@Mary`). A word after `@` that is no one's name is "nobody".

use super::docs::{hall, identities, Docs};
use super::names::fold;
use super::status::AgentStatus;
use super::{Seat, LEAD_SEAT};

/// The channel's name (`POST /api/send {"channel": "team"}`, `send_message {to: "team"}`).
pub const TEAM: &str = "team";

/// Mentions everyone on the team but the sender.
pub const ALL: &str = "all";

/// The `@`s of one message looked at: past these, the rest is text.
const MAX_MENTIONS: usize = 64;

/// What a channel message's mentions come to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mentions {
    /// Seated agents it is filed for: each once, never the sender, in seat order, with
    /// whether they sleep (their mail waits for their wake).
    pub to: Vec<Mentioned>,
    /// Words after `@` that are nobody's name, as written.
    pub nobody: Vec<String>,
    /// Agents in the Hall it names: retired, so not filed (recall them first).
    pub in_hall: Vec<String>,
    /// It says `@all` but its writer is an agent other than the lead: only the human and the
    /// lead reach everyone (one agent's `@all` would wake the whole team, and their answers
    /// could do the same).
    pub all_refused: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mentioned {
    pub seat: Seat,
    pub name: String,
    pub asleep: bool,
}

/// One name a mention may take, and where it leads.
#[derive(Clone, Debug)]
enum Target {
    Seat(Seat, String, bool),
    All,
    Hall(String),
    /// The human, who reads #team anyway: filed nowhere, and not "nobody".
    Human,
}

/// Who the names of the team are: the lead's and the human's (each mentioned by name or as
/// `@lead` / `@human`).
#[derive(Clone, Copy, Debug)]
pub struct Heads<'a> {
    pub lead: &'a str,
    pub human: &'a str,
}

/// Every name a mention may use, folded, longest first (`@Mary Ann` before `@Mary`), then by
/// rank: the words that address someone (`all`, `lead`, `human`) and the lead's and human's
/// names before any agent's, the seated before the Hall's.
fn names_of(docs: &Docs, heads: Heads<'_>, lead_asleep: bool) -> Vec<(String, usize, Target)> {
    let Heads { lead, human } = heads;
    let lead_seat = || Target::Seat(LEAD_SEAT, lead.to_string(), lead_asleep);
    let mut names: Vec<(String, u8, Target)> = vec![
        (ALL.into(), 0, Target::All),
        ("lead".into(), 0, lead_seat()),
        (lead.into(), 0, lead_seat()),
        ("human".into(), 0, Target::Human),
        (human.into(), 0, Target::Human),
    ];
    for d in identities(docs).filter(|d| d.status().is_visible()) {
        let Some(name) = d.name.clone() else { continue };
        let asleep = d.status() == AgentStatus::Sleeping;
        names.push((name.clone(), 1, Target::Seat(d.grid_position, name, asleep)));
    }
    for d in hall(docs) {
        if let Some(name) = d.name.clone() {
            names.push((name.clone(), 2, Target::Hall(name)));
        }
    }
    names.sort_by_key(|(n, rank, _)| (std::cmp::Reverse(n.chars().count()), *rank));
    names
        .into_iter()
        .map(|(n, _, t)| (fold(&n), n.chars().count(), t))
        .collect()
}

/// Whether `head` (what follows an `@`) begins with the folded `name` of `chars` characters,
/// as a whole word.
fn names_at(head: &str, name: &str, chars: usize) -> bool {
    let end = head
        .char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .or((head.chars().count() == chars).then_some(head.len()));
    let Some(end) = end else {
        return false;
    };
    let after = head[end..].chars().next();
    fold(&head[..end]) == name && !after.is_some_and(char::is_alphanumeric)
}

/// The mentions of `text` from the sender in `sender` (`None`: the human), against the team
/// in `docs`.
pub fn mentions(docs: &Docs, text: &str, sender: Option<Seat>, heads: Heads<'_>) -> Mentions {
    let Heads { lead, .. } = heads;
    let lead_asleep = identities(docs)
        .find(|d| d.grid_position == LEAD_SEAT)
        .is_some_and(|d| d.status() == AgentStatus::Sleeping);
    let folded = names_of(docs, heads, lead_asleep);
    let mut out = Mentions::default();
    let mut seats: Vec<Mentioned> = Vec::new();
    let mut all = false;
    for rest in at_signs(text).take(MAX_MENTIONS) {
        // A name is at most a few dozen characters: only that much is looked at.
        let head = match rest.char_indices().nth(super::names::MAX_NAME_CHARS + 1) {
            Some((i, _)) => &rest[..i],
            None => rest,
        };
        let found = folded
            .iter()
            .find(|(name, chars, _)| names_at(head, name, *chars));
        match found.map(|(_, _, t)| t) {
            Some(Target::All) => all = true,
            Some(Target::Human) => {}
            Some(Target::Seat(seat, name, asleep)) => push(&mut seats, *seat, name, *asleep),
            Some(Target::Hall(name)) => {
                if !out.in_hall.contains(name) {
                    out.in_hall.push(name.clone());
                }
            }
            None => {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                    .take(super::names::MAX_NAME_CHARS)
                    .collect();
                if !word.is_empty() && !out.nobody.contains(&word) {
                    out.nobody.push(word);
                }
            }
        }
    }
    // Only the human and the lead reach everyone.
    if all && sender.is_some_and(|s| s != LEAD_SEAT) {
        out.all_refused = true;
        all = false;
    }
    if all {
        for d in identities(docs).filter(|d| d.status().is_visible()) {
            if let Some(name) = d.name.as_deref() {
                push(
                    &mut seats,
                    d.grid_position,
                    name,
                    d.status() == AgentStatus::Sleeping,
                );
            }
        }
        push(&mut seats, LEAD_SEAT, lead, lead_asleep);
    }
    seats.retain(|m| Some(m.seat) != sender);
    seats.sort_by_key(|m| m.seat);
    out.to = seats;
    out
}

fn push(seats: &mut Vec<Mentioned>, seat: Seat, name: &str, asleep: bool) {
    if !seats.iter().any(|m| m.seat == seat) {
        seats.push(Mentioned {
            seat,
            name: name.to_string(),
            asleep,
        });
    }
}

/// What follows each `@` that starts a mention (at the start, or after a character that is
/// not a letter or a digit).
fn at_signs(text: &str) -> impl Iterator<Item = &str> {
    text.char_indices().filter_map(move |(i, c)| {
        let before = text[..i].chars().next_back();
        (c == '@' && !before.is_some_and(char::is_alphanumeric)).then(|| &text[i + 1..])
    })
}

/// The names a composer offers after `@` + `typed`: `all`, the lead and every seated agent
/// whose name starts with it (folded), in that order (the human's own is not offered).
pub fn completions(docs: &Docs, typed: &str, lead: &str) -> Vec<String> {
    let typed = fold(typed);
    let mut names = vec![ALL.to_string(), lead.to_string()];
    let mut seated: Vec<(Seat, String)> = identities(docs)
        .filter(|d| d.status().is_visible() && d.grid_position != LEAD_SEAT)
        .filter_map(|d| Some((d.grid_position, d.name.clone()?)))
        .collect();
    seated.sort();
    names.extend(seated.into_iter().map(|(_, n)| n));
    names.retain(|n| fold(n).starts_with(&typed));
    names
}

/// #team is a conversation: an agent a post mentions answers in #team. The words of its turn
/// that answers the post (its own words until that turn ends) are the channel's too, as its
/// post, filed for nobody: an answer wakes no one, so two agents cannot keep each other
/// talking. One that answers with `send_message {to: "team"}` itself owes nothing more.
/// The server follows the log with it (`runtime::mail::team_answers`); it decides, the server
/// records.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// The seats a post mentioned that have not answered yet, and whether the turn that
    /// answers has begun to speak.
    owed: std::collections::BTreeMap<Seat, bool>,
}

/// The end of an answer's message id (its words' id, then this).
const ANSWER: &str = ":team";

/// An answer to post in #team: who, and what it said (`message_id` is its words' own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub seat: Seat,
    pub speaker_name: String,
    pub text: String,
    pub message_id: String,
}

impl Answers {
    /// What `kind` changes; the answer it makes, if it is one.
    pub fn see(&mut self, kind: &super::events::EventKind) -> Option<Answer> {
        use super::events::EventKind as K;
        let (seat, message_id, speaker_name, text) = match kind {
            // An answer made here is no post of the agent's own.
            K::TeamMessage { message_id, .. } if message_id.ends_with(ANSWER) => return None,
            K::TeamMessage {
                seat, mentioned, ..
            } => {
                // Its own post answers what it owed.
                if let Some(from) = seat {
                    self.owed.remove(from);
                }
                for m in mentioned {
                    self.owed.entry(*m).or_insert(false);
                }
                return None;
            }
            // Its turn ended: once it has spoken, it has answered.
            K::AgentProcess {
                seat,
                usage: Some(_),
                ..
            } => {
                if self.owed.get(seat) == Some(&true) {
                    self.owed.remove(seat);
                }
                return None;
            }
            K::AgentMessage {
                seat,
                message_id,
                speaker_name,
                text,
                target_agent: None,
                aside: None,
            } => (*seat, message_id, speaker_name, text),
            K::LeadText {
                message_id,
                speaker_name,
                text,
                aside: None,
            } => (LEAD_SEAT, message_id, speaker_name, text),
            _ => return None,
        };
        if text.trim().is_empty() {
            return None;
        }
        let spoken = self.owed.get_mut(&seat)?;
        *spoken = true;
        Some(Answer {
            seat,
            speaker_name: speaker_name.clone(),
            text: text.clone(),
            message_id: format!("{message_id}{ANSWER}"),
        })
    }
}
