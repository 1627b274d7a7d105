#![allow(dead_code)]
//! A stand-in for the Anthropic Messages API, for driving the real Claude Code CLI in tests:
//! `POST /v1/messages` answered with the real streaming event sequence, tolerant of whatever
//! else the request carries. Scripted like `soulgrid-sim`: a summon letter is answered with a
//! soul and the register marker (names by position), a wake prompt with a greeting that quotes
//! the soul, anything else with a short reply quoting the message. Scripts for tools and hangs:
//! `DO_WRITE: <path> :: <content>` calls Write, `DO_BASH: <command>` calls Bash, and once the
//! tool result comes back the model says
//! `Saw tool result (ok|error): …`; `DO_TOOL: <name> <JSON input>` calls any tool (an MCP
//! tool too); `DO_HANG` starts an answer and never finishes the stream.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

pub const NAMES: [&str; 9] = [
    "Aster", "Bram", "Cleo", "Dune", "Lead", "Fenn", "Gale", "Hale", "Iris",
];

/// The requests it received, and how many hung answers it has sent in full (their stream
/// open, waiting for the client to go away); notified at each request received.
#[derive(Clone, Default)]
pub struct Recorded(
    pub Arc<Mutex<Vec<Value>>>,
    pub Arc<std::sync::atomic::AtomicUsize>,
    pub Arc<tokio::sync::Notify>,
);

impl Recorded {
    /// Returns once a request `wanted` accepts has been received.
    pub async fn until(&self, wanted: impl Fn(&Value) -> bool) {
        loop {
            // Enabled before the look: a request that comes between is not missed.
            let mut received = std::pin::pin!(self.2.notified());
            received.as_mut().enable();
            if self.0.lock().unwrap().iter().any(&wanted) {
                return;
            }
            received.await;
        }
    }
}

/// Starts the fake on a free loopback port; returns its base URL and what it received.
pub async fn start() -> (String, Recorded) {
    start_on(0).await
}

/// Starts the fake on `127.0.0.1:port` (0: a free port).
pub async fn start_on(port: u16) -> (String, Recorded) {
    let recorded = Recorded::default();
    let app = Router::new()
        .route("/v1/messages", post(messages))
        .fallback(|req: axum::extract::Request| async move {
            eprintln!("fake model: unexpected {} {}", req.method(), req.uri());
            (axum::http::StatusCode::NOT_FOUND, Json(json!({"type": "error", "error": {"type": "not_found_error", "message": "not here"}})))
        })
        .with_state(recorded.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap_or_else(|e| panic!("fake model: cannot bind 127.0.0.1:{port}: {e}"));
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, recorded)
}

/// What the model does with a request.
enum Answer {
    Text(String),
    /// A text, then a tool call.
    Tool {
        text: String,
        name: String,
        input: Value,
    },
    /// A started answer whose stream never ends.
    Hang,
}

/// The tool result in the last user message, if that is what it carries: (is_error, content).
fn tool_result(body: &Value) -> Option<(bool, String)> {
    let last = body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|m| m["role"] == "user")?;
    last["content"]
        .as_array()?
        .iter()
        .find(|p| p["type"] == "tool_result")
        .map(|p| {
            let content = match &p["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            };
            (p["is_error"] == true, content)
        })
}

fn answer(body: &Value) -> Answer {
    if let Some((is_error, content)) = tool_result(body) {
        let how = if is_error { "error" } else { "ok" };
        return Answer::Text(format!("Saw tool result ({how}): {content}"));
    }
    let last = user_texts(body).pop().unwrap_or_default();
    // The CLI prepends reminders to a user turn: the script is the last text part.
    let script = last
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if let Some(rest) = script.trim().strip_prefix("DO_WRITE:") {
        let (path, content) = rest.split_once("::").unwrap_or((rest, ""));
        return Answer::Tool {
            text: "Writing the file.".into(),
            name: "Write".into(),
            input: json!({"file_path": path.trim(), "content": content.trim()}),
        };
    }
    if let Some(command) = script.trim().strip_prefix("DO_BASH:") {
        return Answer::Tool {
            text: "Running a command.".into(),
            name: "Bash".into(),
            input: json!({"command": command.trim(), "description": "Run what was asked"}),
        };
    }
    // `DO_TOOL: <tool name> <JSON input>`: any tool, ours (`mcp__soulgrid__team`) included.
    if let Some(rest) = script.trim().strip_prefix("DO_TOOL:") {
        let (name, input) = rest.trim().split_once(' ').unwrap_or((rest.trim(), "{}"));
        return Answer::Tool {
            text: format!("Calling {name}."),
            name: name.to_string(),
            input: serde_json::from_str(input).unwrap_or_else(|_| json!({})),
        };
    }
    if script.contains("DO_HANG") {
        return Answer::Hang;
    }
    Answer::Text(reply_to(&last))
}

/// The text of every user turn, last one last.
fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .collect()
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}

pub fn reply_to(last: &str) -> String {
    if last.contains("\"action\":\"register\"") {
        // "in seat 8 of": seats counted from 1.
        let seat = between(last, "in seat ", " ")
            .and_then(|p| p.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .unwrap_or(0);
        let name = NAMES[seat % NAMES.len()];
        return format!(
            "I am {name}, named by a fake model and glad of it.\nThe real CLI carried these words.\n\n[ACTION] {{\"action\":\"register\",\"name\":\"{name}\"}}"
        );
    }
    if let Some(reply) = quest_reply(last) {
        return reply;
    }
    if last.contains("You are waking up.") {
        let first = between(last, "<your-soul>\n", "\n").unwrap_or("(no soul)");
        return format!("Hello again. I remember: \"{first}\"");
    }
    // How much of a long message arrived in one request: a message whose body (under its
    // sender's header line) begins with COUNT_CHARS, not one quoting it in a transcript.
    let begins = |from: usize| from == 0 || last[..from].ends_with('\n');
    if let Some(from) = last.find("COUNT_CHARS").filter(|&f| begins(f)) {
        let counted = &last[from..];
        let whole = counted.trim_end().ends_with("END");
        return format!(
            "Counted {} characters from COUNT_CHARS to the end of the message ({}).",
            counted.trim_end().chars().count(),
            if whole {
                "it ends with END"
            } else {
                "END is missing"
            }
        );
    }
    // The human's words come last: the CLI puts its reminders (and, after an interrupt, its
    // note and the interrupted message) before them in the same turn.
    let words = last
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let quoted: String = words.chars().take(200).collect();
    format!("Real CLI here. You said: {quoted}")
}

async fn messages(State(recorded): State<Recorded>, Json(body): Json<Value>) -> Response {
    recorded.0.lock().unwrap().push(body.clone());
    recorded.2.notify_waiters();
    let model = body["model"].as_str().unwrap_or("fake-model").to_string();
    let id = format!("msg_fake_{}", uuid::Uuid::new_v4().simple());
    let answer = answer(&body);
    let usage = json!({"input_tokens": 1000, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let (text, tool, stop) = match &answer {
        Answer::Text(t) => (t.clone(), None, "end_turn"),
        Answer::Tool { text, name, input } => (
            text.clone(),
            Some((name.clone(), input.clone())),
            "tool_use",
        ),
        Answer::Hang => ("Thinking very hard…".to_string(), None, "end_turn"),
    };
    if body["stream"] != true {
        return Json(json!({"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null, "usage": usage}))
        .into_response();
    }
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    ];
    let hang = matches!(answer, Answer::Hang);
    if !hang {
        events.push(json!({"type": "content_block_stop", "index": 0}));
        if let Some((name, input)) = tool {
            let tool_id = format!("toolu_fake_{}", uuid::Uuid::new_v4().simple());
            let partial = input.to_string();
            let (a, b) = partial.split_at(partial.len() / 2);
            events.extend([
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}}}),
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": a}}),
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": b}}),
                json!({"type": "content_block_stop", "index": 1}),
            ]);
        }
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}}));
        events.push(json!({"type": "message_stop"}));
    }
    let frames: Vec<Result<String, std::convert::Infallible>> = events
        .iter()
        .map(|data| {
            Ok(format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap_or("message")
            ))
        })
        .collect();
    let stream = futures::stream::iter(frames);
    // A hung answer: the stream stays open until the client goes away (an interrupt); once
    // its frames are sent, it is counted as hanging.
    let body = if hang {
        let hanging = recorded.1.clone();
        let counted = futures::stream::once(async move {
            hanging.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            futures::future::pending::<Result<String, std::convert::Infallible>>().await
        });
        axum::body::Body::from_stream(futures::StreamExt::chain(stream, counted))
    } else {
        axum::body::Body::from_stream(stream)
    };
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A quest as the fake model plays it: the lead plans the brief's first process with two
/// agents a stage from the roster, summons a critic after the first stage's review, moves on
/// after each and reports after the last; an agent given a stage posts a finding and is done.
fn quest_reply(last: &str) -> Option<String> {
    if let Some(from) = last.find("[QUEST BRIEF]") {
        let brief = &last[from..];
        let template = between(brief, "\n## ", " ").unwrap_or("brainstorm");
        let section = brief.split("\n## ").nth(1).unwrap_or("");
        let stages = section
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("## "))
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .count()
            .max(1);
        let team: Vec<&str> = brief
            .lines()
            .filter_map(|l| l.strip_prefix("- ")?.split(" (seat ").next())
            .collect();
        let n = team.len().max(1);
        let plan: Vec<Value> = (0..stages)
            .map(|i| json!({"agents": [team.get((2 * i) % n).copied().unwrap_or(""), team.get((2 * i + 1) % n).copied().unwrap_or("")]}))
            .collect();
        return Some(format!(
            "A plan, from the fake model.\n[ACTION] {}",
            json!({"action": "quest_plan", "template": template, "stages": plan})
        ));
    }
    if let Some(from) = last.find("[QUEST REVIEW]") {
        let review = &last[from..];
        let first = review.lines().next().unwrap_or("").ends_with(" 1");
        if review.contains("\nNext in the plan:") {
            let summon: Vec<&str> = if first { vec!["critic"] } else { vec![] };
            return Some(format!(
                "On to the next stage.\n[ACTION] {}",
                json!({"action": "stage_next", "summon": summon, "dismiss": []})
            ));
        }
        return Some(format!(
            "The report.\n[ACTION] {}",
            json!({"action": "report", "title": "What the fake team found", "body": "# Found\n\nThe real CLI carried a quest."})
        ));
    }
    if let Some(from) = last.find("[QUEST STAGE]") {
        let stage = last[from..]
            .split_whitespace()
            .nth(3)
            .unwrap_or("1")
            .to_string();
        return Some(format!(
            "My part.\n[ACTION] {}\n[ACTION] {}",
            json!({"action": "finding", "title": format!("A finding of stage {stage}"), "body": "Seen through the real CLI.", "severity": "info"}),
            json!({"action": "stage_done"})
        ));
    }
    None
}
