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

#[tokio::test]
async fn binding_beyond_loopback_without_a_token_is_refused() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    let err = soulgrid::boot(
        &common::config(dir.path(), &["--addr", "0.0.0.0:3000"]),
        options,
    )
    .await
    .err()
    .expect("refused");
    assert!(err.to_string().contains("without a token"), "{err}");
}
