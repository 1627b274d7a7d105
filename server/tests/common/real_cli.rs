//! The environment a real-CLI test runs in: the pinned Claude Code CLI (`SOULGRID_REAL_CLAUDE`,
//! set by `make test`), a fake Messages API, a private `HOME` inside a temporary folder.

use super::fake_model::{self, Recorded};

pub struct RealCli {
    pub claude: String,
    pub model_url: String,
    pub recorded: Recorded,
    pub dir: tempfile::TempDir,
    /// Held for the whole test: one real-CLI test at a time in the process.
    _one_at_a_time: tokio::sync::MutexGuard<'static, ()>,
}

static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `None` (and a note on stderr) when the real CLI is not installed for this run.
///
/// The CLI processes inherit the server's environment, which this sets for the whole test
/// process: the tests of the real-CLI binary run one at a time, each holding the lock taken
/// here until it ends.
pub async fn setup() -> Option<RealCli> {
    let Some(claude) = std::env::var_os("SOULGRID_REAL_CLAUDE") else {
        eprintln!("skipped: SOULGRID_REAL_CLAUDE is not set (make test sets it)");
        return None;
    };
    let one_at_a_time = ONE_AT_A_TIME.lock().await;
    let (model_url, recorded) = fake_model::start().await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for (k, v) in [
        ("ANTHROPIC_BASE_URL", model_url.as_str()),
        ("ANTHROPIC_API_KEY", "dummy"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("HOME", home.to_str().unwrap()),
    ] {
        std::env::set_var(k, v);
    }
    Some(RealCli {
        claude: claude.to_string_lossy().to_string(),
        model_url,
        recorded,
        dir,
        _one_at_a_time: one_at_a_time,
    })
}

/// Waits (at most 90 s) for the lead's first request to be asked, and approves it as the human.
pub async fn approve_the_leads_request(state: &soulgrid::state::AppState, router: &axum::Router) {
    use app::domain::docs::pending;
    use app::domain::LEAD_SEAT;
    super::wait_for_secs(state, 90, "the lead's request", |d| {
        !pending(d, LEAD_SEAT).is_empty()
    })
    .await;
    let id = state
        .store
        .with_all_docs(|d| pending(d, LEAD_SEAT)[0].request_id.clone());
    let answer = serde_json::json!({"decision": "allow"});
    let r = super::call(
        router,
        super::post_json(&format!("/api/permissions/{id}"), answer),
    )
    .await;
    assert_eq!(r.status, axum::http::StatusCode::OK, "{}", r.body);
}
