//! `Idempotency-Key` for requests that must not take effect twice (`POST /api/send`): the first
//! request with a key does the work; any other with the same key, at the same time or later,
//! gets its answer. Keys are kept for [`KEEP`] (a retry comes soon or not at all), at most
//! [`MOST`] of them.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::contract::SendResponse;
use axum::http::HeaderMap;
use tokio::sync::OnceCell;

use crate::error::AppError;

const KEEP: Duration = Duration::from_secs(10 * 60);
const MOST: usize = 10_000;
/// The longest key accepted.
pub const MAX_KEY: usize = 200;

type Answer = Arc<OnceCell<SendResponse>>;

#[derive(Default)]
pub struct Idempotency {
    answers: Mutex<HashMap<String, (Instant, Answer)>>,
}

impl Idempotency {
    /// The request's key, if it has one; a key that is not short printable ASCII is refused.
    pub fn key(headers: &HeaderMap) -> Result<Option<String>, AppError> {
        let Some(value) = headers.get("idempotency-key") else {
            return Ok(None);
        };
        match value.to_str() {
            Ok(k) if !k.is_empty() && k.len() <= MAX_KEY => Ok(Some(k.to_string())),
            _ => Err(AppError::BadRequest(format!(
                "Idempotency-Key must be 1-{MAX_KEY} printable ASCII characters"
            ))),
        }
    }

    /// Runs `work` once per key; every request with the key gets its answer. A failure is not
    /// kept: the next request with the key tries again.
    pub async fn once<F, Fut>(&self, key: Option<String>, work: F) -> Result<SendResponse, AppError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<SendResponse, AppError>>,
    {
        let Some(key) = key else {
            return work().await;
        };
        let answer = self.answer(key);
        answer.get_or_try_init(work).await.cloned()
    }

    fn answer(&self, key: String) -> Answer {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        if answers.len() >= MOST {
            answers.retain(|_, (at, _)| at.elapsed() < KEEP);
            if answers.len() >= MOST {
                // Still full of fresh keys: the oldest go.
                let mut by_age: Vec<(Instant, String)> = answers
                    .iter()
                    .map(|(k, (at, _))| (*at, k.clone()))
                    .collect();
                by_age.sort();
                for (_, k) in by_age.into_iter().take(MOST / 10) {
                    answers.remove(&k);
                }
            }
        }
        answers
            .entry(key)
            .or_insert_with(|| (Instant::now(), Arc::default()))
            .1
            .clone()
    }
}
