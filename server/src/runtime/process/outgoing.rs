//! What the runtime writes to an agent as a user message, and what it knows of it afterwards.
//!
//! Every message reaches the agent as **one** message: one stdin line carrying a uuid. A text
//! too long for one line is written to a file in the agent's folder and the line points to it.
//! Mail a message carries stays unread in its inbox while it is *in flight*; when the CLI
//! echoes the line's uuid (`--replay-user-messages`: it took the message) the mail is marked
//! read. A process that dies first leaves it unread, for its next start or wake.

use std::io::Write;
use std::path::Path;

use app::domain::Seat;

use crate::runtime::error::RuntimeError;
use crate::runtime::process::pipes::STDIN_SEND_TIMEOUT;
use crate::runtime::process::protocol::{self, MAX_STDIN_LINE};
use crate::runtime::process::table::Live;

/// A user message for an agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outgoing {
    pub text: String,
    /// The inbox messages it hands over (marked read once the agent took it).
    pub mail: Option<Mail>,
}

impl Outgoing {
    pub fn text(text: impl Into<String>) -> Self {
        Outgoing {
            text: text.into(),
            mail: None,
        }
    }
}

pub use crate::runtime::process::in_flight::{InFlight, Mail};

/// The folder, under the agent's own, where long messages are written.
pub const LONG_MESSAGES: &str = "messages";

/// The stdin line for `text` when it fits on one (nothing touches the disk); `None` for a
/// message too long, which [`written_aside`] makes a line of.
pub fn short_line(text: &str, uuid: &str) -> Option<String> {
    let line = protocol::user_message(text, uuid);
    (line.len() <= MAX_STDIN_LINE).then_some(line)
}

/// The stdin line for a message too long for one: `text` written to a file in `agent_dir`,
/// and a line that points to it.
pub fn written_aside(agent_dir: &Path, text: &str, uuid: &str) -> Result<String, std::io::Error> {
    // The folder and every part on the way a real folder, never a link followed.
    let dir = crate::runtime::folder::agent_fs::real_folder(agent_dir, Path::new(LONG_MESSAGES))?;
    let name = format!("{uuid}.md");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags_nofollow()
        .open(dir.join(&name))?;
    file.write_all(text.as_bytes())?;
    let pointer = format!(
        "This message is long ({} characters), so it is in the file {LONG_MESSAGES}/{name} in \
         your folder. Read the whole file now: it is the message.",
        text.chars().count()
    );
    Ok(protocol::user_message(&pointer, uuid))
}

/// `O_NOFOLLOW` where there is one: the last part of the path is never a link followed.
trait NoFollow {
    fn custom_flags_nofollow(&mut self) -> &mut Self;
}

impl NoFollow for std::fs::OpenOptions {
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            self.custom_flags(libc::O_NOFOLLOW);
        }
        self
    }
}

/// Gives a running process a user message (one turn): one line on its stdin, bounded. A text
/// too long for a line is written in the agent's folder under `data_dir` first.
pub(crate) async fn send_to(
    data_dir: &Path,
    seat: Seat,
    live: &Live,
    message: Outgoing,
) -> Result<(), RuntimeError> {
    let uuid = uuid::Uuid::new_v4().to_string();
    // Only a message too long for a line touches the disk (off the async threads).
    let line = match short_line(&message.text, &uuid) {
        Some(line) => line,
        None => {
            let folder = crate::runtime::folder::agent_fs::agent_dir(data_dir, seat);
            let (text, id) = (message.text, uuid.clone());
            tokio::task::spawn_blocking(move || written_aside(&folder, &text, &id))
                .await
                .map_err(|e| RuntimeError::NotTakingInput(seat, e.to_string()))?
                .map_err(|e| RuntimeError::NotTakingInput(seat, format!("a long message: {e}")))?
        }
    };
    if let Some(mail) = message.mail {
        live.in_flight.add(uuid.clone(), mail);
    }
    if !live.hand_turn(line, STDIN_SEND_TIMEOUT).await {
        live.in_flight.remove(&uuid);
        return Err(RuntimeError::NotTakingInput(
            seat,
            "its input is full or closed".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the runtime puts on stdin for `text`.
    fn line_for(agent_dir: &Path, text: &str, uuid: &str) -> Result<String, std::io::Error> {
        short_line(text, uuid).map_or_else(|| written_aside(agent_dir, text, uuid), Ok)
    }

    fn content(line: &str) -> String {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["uuid"], "u-1");
        v["message"]["content"].as_str().unwrap().to_string()
    }

    #[test]
    fn a_message_is_one_line_or_one_file_never_pieces() {
        let dir = tempfile::tempdir().unwrap();
        // Up to the limit (JSON escaping counted): the line itself.
        let text = "é\"\n".repeat(80_000);
        let line = line_for(dir.path(), &text, "u-1").unwrap();
        assert!(line.len() <= MAX_STDIN_LINE, "{}", line.len());
        assert!(content(&line) == text, "the line carries the whole text");
        // Past it: the whole text in a file, and a line that points to it.
        let text = "é\"\n".repeat(200_000);
        let line = line_for(dir.path(), &text, "u-1").unwrap();
        let pointer = content(&line);
        assert!(pointer.contains("messages/u-1.md"), "{pointer}");
        assert!(pointer.contains("600000 characters"), "{pointer}");
        let file = dir.path().join(LONG_MESSAGES).join("u-1.md");
        assert!(
            std::fs::read_to_string(file).unwrap() == text,
            "the file holds it whole"
        );
    }

    #[test]
    fn a_long_message_never_follows_a_link_the_agent_made() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("precious");
        std::fs::write(&target, "mine").unwrap();
        let long = "x".repeat(MAX_STDIN_LINE + 1);
        // The folder itself a link: refused.
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(LONG_MESSAGES)).unwrap();
        assert!(line_for(dir.path(), &long, "u-1").is_err());
        // The file a link: refused, the target untouched.
        std::fs::remove_file(dir.path().join(LONG_MESSAGES)).unwrap();
        std::fs::create_dir(dir.path().join(LONG_MESSAGES)).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(LONG_MESSAGES).join("u-1.md")).unwrap();
        assert!(line_for(dir.path(), &long, "u-1").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    }
}
