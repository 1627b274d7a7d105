//! Settings the server refuses to start with, each with a clear error.

use crate::common;
use crate::SERIAL;

#[tokio::test]
async fn an_unusable_data_dir_is_a_clear_startup_error() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "a file where the data directory should be").unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let err = soulgrid::boot(&common::config(&file, &[]), options)
        .await
        .err()
        .expect("refused");
    let msg = err.to_string();
    assert!(
        msg.contains("cannot use the data directory") && msg.contains("not-a-dir"),
        "{msg}"
    );
}

/// Beyond loopback as on it: without `--token` the server makes its own login, which every
/// request needs (it refused to start before there was one).
#[tokio::test]
async fn binding_beyond_loopback_without_a_token_serves_only_with_the_made_login() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let state = soulgrid::boot(
        &common::config(dir.path(), &["--addr", "0.0.0.0:3000", "--token="]),
        options,
    )
    .await
    .expect("started");
    let login = state.security.login();
    assert!(login.starts_with(soulgrid::login::PREFIX), "{login}");
    let router = soulgrid::http::router(state);
    let anonymous = common::call_anonymous(&router, common::get("/api/docs")).await;
    assert_eq!(anonymous.status, axum::http::StatusCode::UNAUTHORIZED);
    let bearer = common::get_with("/api/docs", "authorization", &format!("Bearer {login}"));
    assert_eq!(
        common::call(&router, bearer).await.status,
        axum::http::StatusCode::OK
    );
}
