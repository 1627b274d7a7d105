//! Names: the display name an agent chooses, and the inbox name derived from it.
//!
//! A display name is any reasonable Unicode name: trimmed, 1–40 characters, one line, no
//! control characters, none of the characters the protocol and Markdown give a meaning
//! (`<>[]{}\`|`), at least one letter or digit, and not the letter's placeholder. It is unique
//! among the seated agents, the lead and the human when compared case- and Unicode-folded
//! (`Zoë` and `zoe` are one name). Its inbox name is a derived ASCII slug, `[a-z0-9_-]`, unique
//! too (`lyra`, `lyra-2`, `zoe` for `Zoë`), so every name can be written to.

use std::fmt;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 40;
/// The longest slug an inbox name is built from (a suffix may follow).
const MAX_SLUG: usize = 32;
/// Characters a name may not hold: the protocol's and Markdown's.
const FORBIDDEN: &[char] = &['<', '>', '[', ']', '{', '}', '\\', '`', '|'];
/// What the summon letter says in the name's place, folded.
const PLACEHOLDERS: &[&str] = &["chosen name", "your name", "name", "your chosen name"];
/// Words that address more than one agent, or the console itself (`send_message {to}`, `@`
/// in #team), folded: no agent may be called one.
const RESERVED: &[&str] = &["all", "lead", "team", "human", "soulgrid"];

/// Why a name cannot be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    Empty,
    TooLong(usize),
    Control,
    Forbidden(char),
    NoLetters,
    Placeholder,
    /// A word that addresses someone else (`all`, `lead`, `team`, `human`).
    Reserved(String),
    /// Ends in punctuation: a mention of it could not tell it from the name before the comma.
    TrailingPunctuation,
    Taken(String),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Empty => write!(f, "a name cannot be empty"),
            NameError::TooLong(n) => {
                write!(
                    f,
                    "a name is at most {MAX_NAME_CHARS} characters (this one has {n})"
                )
            }
            NameError::Control => write!(f, "a name is one line, without control characters"),
            NameError::Forbidden(c) => write!(f, "a name cannot contain {c:?}"),
            NameError::NoLetters => write!(f, "a name needs at least one letter or digit"),
            NameError::Placeholder => {
                write!(
                    f,
                    "that is the letter's placeholder: choose a name of your own"
                )
            }
            NameError::Reserved(word) => write!(
                f,
                "{word:?} addresses someone else (send_message and #team use it): choose a name of your own"
            ),
            NameError::TrailingPunctuation => {
                write!(f, "a name ends in a letter or a digit")
            }
            NameError::Taken(by) => write!(f, "the name is taken: {by} is called that"),
        }
    }
}

/// The display name `raw` stands for (trimmed, inner runs of spaces made one), or why not.
pub fn display_name(raw: &str) -> Result<String, NameError> {
    if raw.trim().chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = name.chars().count();
    if n == 0 {
        return Err(NameError::Empty);
    }
    if n > MAX_NAME_CHARS {
        return Err(NameError::TooLong(n));
    }
    if let Some(c) = name.chars().find(|c| FORBIDDEN.contains(c)) {
        return Err(NameError::Forbidden(c));
    }
    if !name.chars().any(char::is_alphanumeric) {
        return Err(NameError::NoLetters);
    }
    if PLACEHOLDERS.contains(&fold(&name).as_str()) {
        return Err(NameError::Placeholder);
    }
    Ok(name)
}

/// The form names are compared in: compatibility-decomposed, without combining marks,
/// lower-cased, spaces made one.
pub fn fold(name: &str) -> String {
    let bare: String = name.nfkd().filter(|c| !is_combining_mark(*c)).collect();
    bare.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ASCII slug of a name: folded, letters and digits kept, `_` kept, anything else a `-`,
/// runs of `-` made one; `agent` when nothing is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in fold(name).chars() {
        let c = match c {
            'a'..='z' | '0'..='9' | '_' => c,
            c if c.is_ascii() => '-',
            // Letters with no ASCII form (`ø`, `ß`, scripts other than Latin) are left out.
            _ => continue,
        };
        if c == '-' && (out.is_empty() || out.ends_with('-')) {
            continue;
        }
        out.push(c);
    }
    let mut out: String = out.trim_end_matches('-').chars().take(MAX_SLUG).collect();
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        "agent".into()
    } else {
        out
    }
}

/// The names and inboxes a newcomer must not take.
#[derive(Clone, Debug, Default)]
pub struct Taken {
    /// (folded name, who has it).
    names: Vec<(String, String)>,
    inboxes: Vec<String>,
}

impl Taken {
    /// `who` has `name` (and, if given, `inbox`).
    pub fn add(&mut self, name: &str, who: &str, inbox: Option<String>) {
        if name.trim().is_empty() {
            return;
        }
        self.names.push((fold(name), who.to_string()));
        self.inboxes.extend(inbox);
    }

    /// Who has `name` already, compared folded.
    pub fn holder(&self, name: &str) -> Option<&str> {
        let folded = fold(name);
        self.names
            .iter()
            .find(|(n, _)| *n == folded)
            .map(|(_, who)| who.as_str())
    }

    /// The first free inbox name for `name`: its slug, else the slug with `-2`, `-3`…
    pub fn inbox_for(&self, name: &str) -> String {
        let base = slug(name);
        std::iter::once(base.clone())
            .chain((2..).map(|i| format!("{base}-{i}")))
            .find(|s| !self.inboxes.contains(s))
            .unwrap_or(base)
    }
}

/// A name an agent asks for, checked: its display name and inbox name, or why not.
pub fn choose(raw: &str, taken: &Taken) -> Result<(String, String), NameError> {
    let name = display_name(raw)?;
    if let Some(word) = RESERVED.iter().find(|w| fold(&name) == **w) {
        return Err(NameError::Reserved(word.to_string()));
    }
    if !name.chars().next_back().is_some_and(char::is_alphanumeric) {
        return Err(NameError::TrailingPunctuation);
    }
    if let Some(who) = taken.holder(&name) {
        return Err(NameError::Taken(who.to_string()));
    }
    let inbox = taken.inbox_for(&name);
    Ok((name, inbox))
}

/// The inbox of an identity written before inbox names were derived: its name lower-cased,
/// when that was a valid file name (as the inbox was then named); else none.
pub fn legacy_inbox(name: &str) -> Option<String> {
    let lower = name.trim().to_lowercase();
    let ok = (1..=64).contains(&lower.len())
        && lower
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    ok.then_some(lower)
}
