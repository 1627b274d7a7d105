//! A follower server on PostgreSQL (the leader's log written by another store): it serves the
//! page, the documents and `/healthz` from its replica and asks writes to wait without a
//! leader; a watch link the leader revoked ends its streams here too.

use std::time::Duration;

use crate::common::On;
use crate::store_contract::said;

/// A server on `dir` that follows the team on `on` (no leader named).
async fn follower(on: &On, dir: &std::path::Path) -> soulgrid::state::AppState {
    use soulgrid::role::{Part, Role};
    let flags = on.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let config = crate::common::config(dir, &flags);
    let lock = std::sync::Arc::new(soulgrid::data_dir::DataDirLock::take(dir).unwrap());
    let part = Part::Follower {
        role: Role::follower(None),
        lock,
    };
    let options = leptos::prelude::LeptosOptions::builder()
        .output_name("soulgrid")
        .build();
    soulgrid::boot_as(&config, options, soulgrid::clock::Clock::system(), part)
        .await
        .unwrap()
}

/// A follower serves the page, the documents and `/healthz` from its replica; with no leader
/// to hand them to, writes and the leader's reads are answered 503 with `Retry-After`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_without_a_leader_serves_reads_and_asks_writes_to_wait() {
    use crate::common::{call, get, post_json};
    let _serial = crate::SERIAL.lock().await;
    let on = On::postgres();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A log another server wrote.
    let leader = on.open(a.path());
    leader.append("s", said(1, 0)).await.unwrap();
    let state = follower(&on, b.path()).await;
    let router = soulgrid::http::router(state.clone());
    let health = call(&router, get("/healthz")).await;
    assert_eq!(health.status.as_u16(), 200);
    assert_eq!(health.json()["role"], "follower");
    let docs = call(&router, get("/api/docs")).await;
    assert_eq!(
        (docs.status.as_u16(), docs.json()["lastEventId"].as_u64()),
        (200, Some(1))
    );
    assert_eq!(call(&router, get("/")).await.status.as_u16(), 200);
    for reply in [
        call(
            &router,
            post_json("/api/send", serde_json::json!({"text": "hi"})),
        )
        .await,
        call(&router, get("/api/hall")).await,
    ] {
        assert_eq!(reply.status.as_u16(), 503, "{}", reply.body);
        assert_eq!(
            reply
                .headers
                .get("retry-after")
                .and_then(|v| v.to_str().ok()),
            Some("2")
        );
        assert!(reply.json()["error"]
            .as_str()
            .unwrap()
            .contains("no server leads"));
    }
    // Nothing was recorded by the follower: no session of its own.
    assert_eq!(state.store.last_event_id(), 1);
    state.shutdown.cancel();
}

/// A watch link revoked on the leader ends the streams of it that a follower serves, within a
/// second: the follower applies the revoke from its replica of the log (it went on sending the
/// team's events before: only the leader's process knew).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_link_revoked_on_the_leader_ends_its_streams_on_a_follower() {
    use app::domain::events::EventKind;
    use http_body_util::BodyExt;
    let _serial = crate::SERIAL.lock().await;
    let on = On::postgres();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = on.open(a.path());
    let token = soulgrid::secret::new_token("sgw_");
    let token_hash = soulgrid::secret::digest(&token);
    let made = EventKind::WatchMade {
        token_hash: token_hash.clone(),
        label: None,
    };
    leader.append("s", made).await.unwrap();
    let state = follower(&on, b.path()).await;
    let router = soulgrid::http::router(state.clone());
    let req = crate::common::get(&format!("/api/events?after=0&watch={token}"));
    let res = tower::ServiceExt::oneshot(router, req).await.unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body();
    // The stream is open: its first frame came.
    tokio::time::timeout(Duration::from_secs(20), body.frame())
        .await
        .expect("the stream's first frame")
        .unwrap()
        .unwrap();
    let revoked = EventKind::WatchRevoked { token_hash };
    leader.append("s", revoked).await.unwrap();
    let started = std::time::Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(1), async {
        while let Some(Ok(_)) = body.frame().await {}
    })
    .await;
    assert!(
        ended.is_ok(),
        "the follower's stream still ran {:?} after the revoke",
        started.elapsed()
    );
    state.shutdown.cancel();
}
