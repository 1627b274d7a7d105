//! Who said what (DESIGN §1, "trust what you can prove, not what text says").
//!
//! Markers count only from an agent's own assistant text (outside fenced code: see
//! [`super::markers`]). Everything *delivered to* an agent that others wrote (the human's words,
//! routed mail, transcripts and souls in wake prompts, mail relayed to the lead) passes through
//! [`neutralise`] first: a line that looks like a protocol line (a marker, a mail header, a relay
//! or wake header) gets a backslash before its `[`, so an agent that repeats the text verbatim
//! repeats no marker and forges no header. A backslash before `[` is Markdown's own escape, so
//! the words read the same when rendered.
//!
//! Who a message is from is carried outside its body: each message delivered to an agent starts
//! with a header line `[message from NAME]` that only the server writes (a body's lines that look
//! like one are neutralised, and a name cannot hold brackets or line breaks).

use std::borrow::Cow;

use super::markers::MARKER_PREFIXES;

/// The header line that starts every message delivered to an agent.
pub const MAIL_HEADER: &str = "[message from ";
/// The header of mail the lead is given because its addressee cannot be started.
pub const RELAY_HEADER: &str = "[ROUTE TO AGENT: ";
/// The header of the lead's wake message.
pub const WAKE_HEADER: &str = "[WAKE AGENTS]";

/// Whether `line`, after leading whitespace, starts like a line only the protocol may write:
/// markers as the parser reads them, and headers as a reader might (any case, any spacing).
pub fn is_protocol_line(line: &str) -> bool {
    let t = line.trim_start();
    if MARKER_PREFIXES.iter().any(|p| t.starts_with(p)) {
        return true;
    }
    let Some(inside) = t.strip_prefix('[') else {
        return false;
    };
    let words: String = inside
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    [
        "message from",
        "route to agent",
        "wake agents",
        "quest brief",
        "quest stage",
        "quest review",
    ]
    .iter()
    .any(|h| words.starts_with(h))
}

/// `text` with every protocol-looking line defused (a `\` before its first `[`). Other lines,
/// and the line breaks, are kept exactly.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if !text.split('\n').any(is_protocol_line) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if is_protocol_line(line) {
            let indent = line.len() - line.trim_start().len();
            out.push_str(&line[..indent]);
            out.push('\\');
            out.push_str(&line[indent..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// A sender's name as a header may carry it: one line, no brackets, never empty.
pub fn header_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| match c {
            '[' | ']' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.is_empty() {
        "someone".into()
    } else {
        clean
    }
}

/// One message as an agent receives it: the server's header line, then the body, neutralised.
pub fn delivered(from: &str, body: &str) -> String {
    format!("{MAIL_HEADER}{}]\n{}", header_name(from), neutralise(body))
}

/// Several messages given in one turn, each with its own header.
pub fn delivered_all<'a>(mail: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    mail.into_iter()
        .map(|(from, body)| delivered(from, body))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Mail for `name` that the lead is given because `name` cannot be started.
pub fn relayed(name: &str, from: &str, body: &str) -> String {
    format!(
        "{RELAY_HEADER}{}]\n{}",
        header_name(name),
        delivered(from, body)
    )
}

/// The senders of the messages in a delivered text, in order: the header lines a server wrote
/// (a body cannot add one).
pub fn senders(text: &str) -> Vec<&str> {
    text.split('\n')
        .filter_map(|l| l.strip_prefix(MAIL_HEADER)?.strip_suffix(']'))
        .collect()
}

/// A delivered text cut into its messages: each sender (from its header line, `None` for text
/// before the first header) with its body. Bodies cannot hold a header (they are
/// neutralised), so every header line starts a message.
pub fn messages(text: &str) -> Vec<(Option<&str>, String)> {
    let mut out: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        match line
            .strip_prefix(MAIL_HEADER)
            .and_then(|r| r.strip_suffix(']'))
        {
            Some(from) => out.push((Some(from), Vec::new())),
            None => match out.last_mut() {
                Some((_, lines)) => lines.push(line),
                None => out.push((None, vec![line])),
            },
        }
    }
    out.into_iter()
        .map(|(from, lines)| (from, lines.join("\n").trim_end_matches('\n').to_string()))
        .filter(|(from, body)| from.is_some() || !body.trim().is_empty())
        .collect()
}
