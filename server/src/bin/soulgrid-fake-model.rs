//! `soulgrid-fake-model [PORT]`: the scripted stand-in for the Anthropic Messages API that the
//! real-CLI tests use (`server/tests/common/fake_model.rs`, the one implementation), as a
//! program, so the Playwright spec can drive the real Claude Code CLI from the browser. Binds
//! 127.0.0.1 on PORT (default 0: a free one), prints `listening on http://…` and serves until it
//! is stopped. A test tool: nothing in the product uses it.

#[path = "../../tests/common/fake_model.rs"]
mod fake_model;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port = match std::env::args().nth(1).map(|p| p.parse::<u16>()) {
        None => 0,
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            eprintln!("usage: soulgrid-fake-model [PORT]: {e}");
            std::process::exit(2);
        }
    };
    let (url, _recorded) = fake_model::start_on(port).await;
    println!("listening on {url}");
    std::future::pending::<()>().await;
}
