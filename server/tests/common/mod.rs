//! Helpers shared by the server's integration tests.
#![allow(dead_code)]

use std::path::Path;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use clap::Parser;
use http_body_util::BodyExt;
use leptos::prelude::LeptosOptions;
use serde_json::Value;
use soulgrid::config::Config;
use soulgrid::state::AppState;
use tower::ServiceExt;

pub fn config(data_dir: &Path, extra: &[&str]) -> Config {
    let mut args = vec![
        "soulgrid".to_string(),
        "--data-dir".into(),
        data_dir.display().to_string(),
        "--human-name".into(),
        "Marcus".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    Config::try_parse_from(args).unwrap()
}

pub async fn boot(data_dir: &Path) -> AppState {
    boot_with(data_dir, &[]).await
}

pub async fn boot_with(data_dir: &Path, extra: &[&str]) -> AppState {
    let options = LeptosOptions::builder().output_name("soulgrid").build();
    soulgrid::boot(&config(data_dir, extra), options).await.unwrap()
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

pub async fn call(router: &Router, req: Request<Body>) -> Reply {
    let res = router.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

pub fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

pub fn post_json(uri: &str, body: Value) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// One parsed Server-Sent Event.
#[derive(Debug, Clone, PartialEq)]
pub struct Sse {
    pub id: Option<u64>,
    pub event: Option<String>,
    pub data: String,
}

/// Splits SSE text into events; returns the unparsed remainder.
pub fn parse_sse(buf: &str) -> (Vec<Sse>, String) {
    let mut out = Vec::new();
    let mut rest = buf;
    while let Some(end) = rest.find("\n\n") {
        let block = &rest[..end];
        rest = &rest[end + 2..];
        let mut ev = Sse { id: None, event: None, data: String::new() };
        let mut any = false;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                ev.id = v.trim().parse().ok();
                any = true;
            } else if let Some(v) = line.strip_prefix("event:") {
                ev.event = Some(v.trim().to_string());
                any = true;
            } else if let Some(v) = line.strip_prefix("data:") {
                if !ev.data.is_empty() {
                    ev.data.push('\n');
                }
                ev.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                any = true;
            }
        }
        if any {
            out.push(ev);
        }
    }
    (out, rest.to_string())
}
