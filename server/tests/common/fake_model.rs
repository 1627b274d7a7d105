#![allow(dead_code)]
//! A stand-in for the Anthropic Messages API, for driving the real Claude Code CLI in tests:
//! `POST /v1/messages` answered with the real streaming event sequence, tolerant of whatever
//! else the request carries. Scripted like `soulgrid-sim`: a summon letter is answered with a
//! soul and the register marker (names by position), a wake prompt with a greeting that quotes
//! the soul, anything else with a short reply quoting the message.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

pub const NAMES: [&str; 9] = [
    "Aster", "Bram", "Cleo", "Dune", "Lead", "Fenn", "Gale", "Hale", "Iris",
];

#[derive(Clone, Default)]
pub struct Recorded(pub Arc<Mutex<Vec<Value>>>);

/// Starts the fake on a free loopback port; returns its base URL and what it received.
pub async fn start() -> (String, Recorded) {
    let recorded = Recorded::default();
    let app = Router::new()
        .route("/v1/messages", post(messages))
        .fallback(|req: axum::extract::Request| async move {
            eprintln!("fake model: unexpected {} {}", req.method(), req.uri());
            (axum::http::StatusCode::NOT_FOUND, Json(json!({"type": "error", "error": {"type": "not_found_error", "message": "not here"}})))
        })
        .with_state(recorded.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, recorded)
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
        let seat = between(last, "position ", " ")
            .and_then(|p| {
                p.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse::<usize>()
                    .ok()
            })
            .unwrap_or(0);
        let name = NAMES[seat % NAMES.len()];
        return format!(
            "I am {name}, named by a fake model and glad of it.\nThe real CLI carried these words.\n\n[ACTION] {{\"action\":\"register\",\"name\":\"{name}\"}}"
        );
    }
    if last.contains("You are waking up.") {
        let first = between(last, "<your-soul>\n", "\n").unwrap_or("(no soul)");
        return format!("Hello again. I remember: \"{first}\"");
    }
    let quoted: String = last.chars().take(200).collect();
    format!("Real CLI here. You said: {quoted}")
}

async fn messages(State(recorded): State<Recorded>, Json(body): Json<Value>) -> Response {
    recorded.0.lock().unwrap().push(body.clone());
    let texts = user_texts(&body);
    let last = texts.last().cloned().unwrap_or_default();
    let text = reply_to(&last);
    let model = body["model"].as_str().unwrap_or("fake-model").to_string();
    let id = format!("msg_fake_{}", uuid::Uuid::new_v4().simple());
    let usage = json!({"input_tokens": 1000, "output_tokens": text.len() / 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    if body["stream"] != true {
        return Json(json!({"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null, "usage": usage}))
        .into_response();
    }
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": text.len() / 4}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        body,
    )
        .into_response()
}
