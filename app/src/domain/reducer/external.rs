//! Who comes from outside: invites made and spent, an external agent's secret replaced, watch
//! links made and revoked. An invite is spent once; a secret is only ever an external
//! identity's; a revoked watch link stays revoked.

use super::super::docs::{invite_doc_id, watch_doc_id, Doc, InviteDoc, WatchDoc};
use super::super::events::{Event, EventKind};
use super::writes::Writes;

pub(super) fn apply(w: &mut Writes, event: &Event) {
    match &event.kind {
        EventKind::InviteMade { token_hash, seat } => {
            let id = invite_doc_id(token_hash);
            if !w.docs.contains_key(&id) {
                w.put(
                    id.clone(),
                    Doc::Invite(Box::new(InviteDoc {
                        id,
                        token_hash: token_hash.clone(),
                        seat: *seat,
                        created_at: event.ts,
                        used_at: None,
                        used_seat: None,
                        extra: Default::default(),
                    })),
                );
            }
        }
        EventKind::InviteUsed { token_hash, seat } => {
            let id = invite_doc_id(token_hash);
            let invite = w.docs.get(&id).and_then(Doc::as_invite);
            if let Some(invite) = invite.filter(|i| !i.is_used() && i.token_hash == *token_hash) {
                let mut invite = invite.clone();
                invite.used_at = Some(event.ts);
                invite.used_seat = Some(*seat);
                w.put(id, Doc::Invite(Box::new(invite)));
            }
        }
        EventKind::WatchMade { token_hash, label } => {
            let id = watch_doc_id(token_hash);
            if !w.docs.contains_key(&id) {
                w.put(
                    id.clone(),
                    Doc::Watch(Box::new(WatchDoc {
                        id,
                        token_hash: token_hash.clone(),
                        label: label.clone(),
                        created_at: event.ts,
                        revoked_at: None,
                        extra: Default::default(),
                    })),
                );
            }
        }
        EventKind::WatchRevoked { token_hash } => {
            let id = watch_doc_id(token_hash);
            let link = w.docs.get(&id).and_then(Doc::as_watch);
            if let Some(link) = link.filter(|l| !l.is_revoked() && l.token_hash == *token_hash) {
                let mut link = link.clone();
                link.revoked_at = Some(event.ts);
                w.put(id, Doc::Watch(Box::new(link)));
            }
        }
        EventKind::SecretRotated {
            identity_id,
            secret_hash,
        } => w.update_by_id(identity_id, |d| {
            if d.external {
                d.secret_hash = Some(secret_hash.clone());
            }
        }),
        _ => {}
    }
}
