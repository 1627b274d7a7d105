//! What a spectator sees: the team as folded from the spectator's events equals the team's
//! own documents as a spectator sees them, and nothing secret is in either.

use serde_json::json;

use super::super::events::{EventKind, SummonedSeat};
use super::super::reducer::fold;
use super::super::spectate;

fn log() -> Vec<EventKind> {
    vec![
        EventKind::AgentsSummoned {
            seats: vec![SummonedSeat {
                seat: 2,
                uuid: Some("ext".into()),
                secret_hash: Some("digest-of-the-secret".into()),
            }],
        },
        EventKind::InviteMade {
            token_hash: "digest-of-an-invite".into(),
            seat: Some(3),
        },
        EventKind::WatchMade {
            token_hash: "digest-of-a-link".into(),
            label: Some("for Ada".into()),
        },
        EventKind::PermissionRequest {
            seat: 2,
            request_id: "r1".into(),
            tool_name: "Bash".into(),
            input: json!({"command": "cat ~/.ssh/id_ed25519"}),
            description: Some("Read the key".into()),
            suggestions: Some(json!([{"type": "addRules"}])),
            tool_use_id: None,
        },
        EventKind::SecretRotated {
            identity_id: "ext".into(),
            secret_hash: "digest-of-the-new-secret".into(),
        },
    ]
}

#[test]
fn a_spectators_replica_is_the_teams_documents_as_a_spectator_sees_them() {
    let theirs = fold(log().iter().map(|k| spectate::event(k).into_owned()));
    let ours = fold(log());
    assert_eq!(theirs, spectate::docs(&ours));
    let text = serde_json::to_string(&theirs).unwrap();
    for secret in [
        "digest-of",
        "id_ed25519",
        "Read the key",
        "addRules",
        "for Ada",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    // The seat and the request are there, as the team sees them otherwise.
    assert!(
        text.contains("\"agent-identity:2\"") && text.contains("Bash"),
        "{text}"
    );
}
