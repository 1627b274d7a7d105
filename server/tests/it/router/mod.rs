//! The router driven with `oneshot`: no socket, no browser. A module per concern: the page and
//! health here, then the API's requests, who may ask, the headers every response carries, and
//! the settings the server refuses to start with.

mod access;
mod errors;
mod headers;
mod login;
mod send;
mod serving;
mod slots;
mod startup;
mod whole_log;

use crate::common::{boot, call, get};
use crate::SERIAL;
use axum::http::StatusCode;

#[tokio::test]
async fn healthz_answers_ok() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let r = call(&router, get("/healthz")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["ok"], true);
}

#[tokio::test]
async fn docs_returns_the_snapshot_with_its_event_id() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let v = call(&router, get("/api/docs")).await.json();
    assert_eq!(v["lastEventId"], 1, "session_start is the first event");
    let lead = &v["docs"]["agent-identity:4"];
    assert_eq!(lead["name"], "Julian");
    assert_eq!(lead["color"], "#FFD600");
    assert_eq!(lead["type"], "agent-identity");
}

#[tokio::test]
async fn the_page_is_server_rendered_with_nine_cells_and_the_lead_in_the_centre() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    let r = call(&router, get("/")).await;
    assert_eq!(r.status, StatusCode::OK);
    let html = r.body;
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..html.len().min(200)]
    );
    assert_eq!(html.matches("data-seat=\"").count(), 9, "{html}");
    let centre = html.find("data-seat=\"4\"").expect("the lead's cell");
    let after = &html[centre..];
    assert!(after.find("Julian").unwrap() < after.find("data-seat=\"5\"").unwrap());
    assert!(html.contains("class=\"cell lead\""));
    assert!(
        html.contains("data-button=\"SUMMON\""),
        "no agent yet: SUMMON"
    );
    // In the HTML itself, not swapped in by a script after a fallback (JavaScript may be off).
    assert!(
        !html.contains("Loading the grid"),
        "the fallback was sent: {html}"
    );
    assert!(
        html.contains("<link rel=\"icon\" href=\"data:,\">"),
        "no favicon request"
    );
}

#[tokio::test]
async fn an_unknown_path_is_a_404() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let router = soulgrid::http::router(boot(dir.path()).await);
    assert_eq!(
        call(&router, get("/no/such/page")).await.status,
        StatusCode::NOT_FOUND
    );
}

/// The live page is rendered from the snapshot at once and carries it in the document as JSON
/// (what the browser hydrates from), not as a resource's data escaped into a script: a `<`
/// in a message is written as its JSON escape, so no text can end the element early.
#[tokio::test]
async fn the_page_carries_its_snapshot_as_json_that_no_message_can_break_out_of() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let state = boot(dir.path()).await;
    let text = "see </script><script>alert(1)</script> & more";
    state
        .store
        .append(
            &state.session.id(),
            app::domain::events::EventKind::UserMessage {
                message_id: soulgrid::store::new_message_id(),
                speaker_name: "Ada".into(),
                seat: 4,
                text: text.into(),
                target_agent: None,
            },
        )
        .await
        .unwrap();
    let router = soulgrid::http::router(state);
    let html = call(&router, get("/")).await.body;
    assert!(!html.contains("__RESOLVED_RESOURCES["), "no resource data");
    let open = "<script type=\"application/json\" id=\"snapshot\"";
    let start = html.find(open).expect("the snapshot's script") + open.len();
    let body = &html[start..];
    let json = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    let snapshot: app::functions::Snapshot = serde_json::from_str(json).unwrap();
    assert_eq!(snapshot.last_event_id, 2);
    let said: Vec<_> = snapshot
        .docs
        .values()
        .filter_map(|d| d.as_message())
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(said, [text]);
}
