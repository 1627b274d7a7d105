//! External agents (DESIGN §9, docs/EXTERNAL.md): programs that join over `/ws/agent` instead
//! of a Claude process the server starts. A connection is the seat's process: it sits in the
//! process table as any process does, so mail, stops, the Hall and quests reach it unchanged.
//!
//! - `mod.rs`: the room's owner, [`Externals`]: invites made, a register frame checked (an
//!   invite used once, or an identity with its secret), a secret rotated, a session started
//! - `session.rs`: one connection run as the seat's process: its mail as turns, their ends,
//!   the connection's end; `session/frames.rs` the client's frames checked, `session/
//!   actions.rs` an answer's actions carried out as the tools of the same name
//! - `wire.rs`: what travels between the WebSocket (the HTTP layer's) and a session
//!
//! Rule: names `process/`, `mail/` and `team/`; no room names it (only the façade).

mod session;
pub mod wire;

use std::sync::Arc;

use app::contract::external::{close, ClientFrame, ServerFrame, PROTOCOL_VERSION};
use app::domain::docs::{hall_id, identities, invite_doc_id, Doc};
use app::domain::events::{EventKind, SummonedSeat};
use app::domain::{Seat, LEAD_SEAT, SEATS};

use crate::runtime::context::Context;
use crate::runtime::ids::uuid22;
use crate::runtime::mail::postman::Postman;
use crate::runtime::process::owner::Processes;
use crate::runtime::process::table::Reservation;
use crate::runtime::team::Team;
use crate::secret::{digest, new_token, same};
use wire::{FromClient, ToClient, Wire};

/// The stop reason that closes a connection with [`close::REPLACED`].
pub(in crate::runtime) const REPLACED: &str = "replaced by a new connection";

/// How long a new connection has to send `agent:register`.
const REGISTER_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The external agents room's owner.
#[derive(Clone)]
pub struct Externals {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) processes: Processes,
    pub(in crate::runtime) postman: Postman,
    pub(in crate::runtime) team: Team,
    /// One registration at a time: an invite is spent once, a seat is taken once.
    pub(in crate::runtime) joining: Arc<tokio::sync::Mutex<()>>,
}

/// Why an invite cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    #[error("seat {0} is not an agent's seat (0-8, not the lead's 4)")]
    NotASeat(Seat),
    #[error("seat {0} is not empty")]
    Occupied(Seat),
    #[error(
        "no seat is empty and nobody seated sleeps: put someone to sleep (who sleeps longest \
         makes room) or retire someone"
    )]
    NoEmptySeat,
    #[error("the store failed: {0}")]
    Store(String),
}

/// Why a secret cannot be rotated.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("no seated or retired identity has the id {0:?}")]
    Unknown(String),
    #[error("{0} is not an external agent: it has no secret")]
    NotExternal(String),
    #[error("the store failed: {0}")]
    Store(String),
}

/// A register frame refused: the close code and the reason sent with it.
type Refused = (u16, String);

/// Who a register frame seated.
struct Joined {
    reservation: Reservation,
    identity: String,
    name: Option<String>,
    /// Made for a newcomer (shown to it once).
    secret: Option<String>,
}

impl Externals {
    /// An invite for `seat` (or the first empty seat when it is used): its token, shown once.
    pub async fn invite(&self, seat: Option<Seat>) -> Result<String, InviteError> {
        match seat {
            Some(s) if s == LEAD_SEAT || s >= SEATS => return Err(InviteError::NotASeat(s)),
            Some(s) if self.team.summonable(Some(&[s])).is_empty() => {
                return Err(InviteError::Occupied(s))
            }
            None if self.team.summonable(None).is_empty() && !self.team.can_make_room() => {
                return Err(InviteError::NoEmptySeat)
            }
            _ => {}
        }
        let token = new_token("sgi_");
        self.ctx
            .recorder()
            .record(vec![EventKind::InviteMade {
                token_hash: digest(&token),
                seat,
            }])
            .await
            .map_err(|e| InviteError::Store(e.to_string()))?;
        Ok(token)
    }

    /// A new secret for the external identity `id`; a connection made with the old one is
    /// closed (it would not connect again).
    pub async fn rotate_secret(&self, id: &str) -> Result<String, SecretError> {
        // No registration checks the old secret while it is replaced.
        let _one = self.joining.lock().await;
        let found = self.ctx.store().with_docs(|docs| {
            identities(docs)
                .find(|d| d.stable_id() == id && d.status().is_visible())
                .map(|d| (Some(d.grid_position), d.external, d.name.clone()))
                .or_else(|| {
                    let h = docs.get(&hall_id(id)).and_then(Doc::as_hall)?;
                    Some((None, h.external, h.name.clone()))
                })
        });
        let (seat, external, name) = found.ok_or_else(|| SecretError::Unknown(id.into()))?;
        if !external {
            return Err(SecretError::NotExternal(name.unwrap_or_else(|| id.into())));
        }
        let secret = new_token("sgs_");
        self.ctx
            .recorder()
            .record(vec![EventKind::SecretRotated {
                identity_id: id.to_string(),
                secret_hash: digest(&secret),
            }])
            .await
            .map_err(|e| SecretError::Store(e.to_string()))?;
        // Its connection, if it has one, was made with the old secret.
        if let Some(seat) = seat {
            self.processes
                .table()
                .stop(seat, "its secret was replaced")
                .await;
        }
        Ok(secret)
    }

    /// A new connection: its register frame first (within [`REGISTER_WITHIN`]), then it runs
    /// as the seat's process until it closes.
    pub async fn connected(&self, mut wire: Wire) {
        let first = tokio::time::timeout(REGISTER_WITHIN, wire.from.recv()).await;
        let frame = match first {
            Ok(Some(FromClient::Text(text))) => {
                serde_json::from_str::<ClientFrame>(&text).map_err(|e| {
                    (
                        close::PROTOCOL,
                        format!("the first frame must be agent:register: {e}"),
                    )
                })
            }
            Ok(Some(FromClient::Binary)) => Err((close::PROTOCOL, "frames are JSON text".into())),
            Ok(Some(FromClient::Gone(_)) | None) => return,
            Err(_) => Err((close::PROTOCOL, "no agent:register within 10 s".into())),
        };
        let joined = match frame {
            Ok(ClientFrame::Register {
                invite,
                identity,
                secret,
                name,
                soul,
            }) => self
                .join(invite, identity, secret)
                .await
                .map(|j| (j, name, soul)),
            Ok(_) => Err((
                close::PROTOCOL,
                "the first frame must be agent:register".into(),
            )),
            Err(e) => Err(e),
        };
        let (joined, name, soul) = match joined {
            Ok(j) => j,
            Err((code, reason)) => {
                tracing::info!(code, %reason, "an external agent was refused");
                let _ = wire.to.send(ToClient::Close(code, reason)).await;
                return;
            }
        };
        let seat = joined.reservation.seat();
        let registered = ServerFrame::Registered {
            identity: joined.identity.clone(),
            seat,
            name: joined.name.clone(),
            secret: joined.secret.clone(),
            protocol: PROTOCOL_VERSION,
        };
        let _ = wire.to.send(ToClient::frame(&registered)).await;
        tracing::info!(seat, identity = %joined.identity, "an external agent connected");
        // A newcomer's name from its register frame is its first act; without one, its first
        // turn asks for it.
        let naming = match (&joined.name, name) {
            (None, Some(name)) => session::Naming::Given(name, soul),
            (None, None) => session::Naming::Asked,
            (Some(_), _) => session::Naming::Named,
        };
        let named = matches!(naming, session::Naming::Named);
        let started = session::start(self, seat, joined.name, naming, wire, &joined.reservation);
        self.processes.run_reserved(joined.reservation, started);
        if named {
            // The mail that waited (and a turn it did not answer before) comes as its turn.
            self.postman.deliver_mail(seat).await;
        }
    }

    /// Checks a register frame and seats its agent: a newcomer by an invite, or an identity
    /// by its secret (recalled from the Hall if it is there; a connection it has already is
    /// closed, replaced by this one).
    async fn join(
        &self,
        invite: Option<String>,
        identity: Option<String>,
        secret: Option<String>,
    ) -> Result<Joined, Refused> {
        let _one = self.joining.lock().await;
        match (invite, identity, secret) {
            (Some(token), None, None) => self.join_invited(&token).await,
            (None, Some(id), Some(secret)) => self.join_again(&id, &secret).await,
            _ => Err((
                close::REFUSED,
                "agent:register takes an invite, or an identity and its secret".into(),
            )),
        }
    }

    async fn join_invited(&self, token: &str) -> Result<Joined, Refused> {
        let token_hash = digest(token);
        let invite = self.ctx.store().with_docs(|docs| {
            docs.get(&invite_doc_id(&token_hash))
                .and_then(Doc::as_invite)
                .filter(|i| same(&i.token_hash, &token_hash))
                .cloned()
        });
        let refused = |why: &str| Err((close::REFUSED, why.to_string()));
        let Some(invite) = invite else {
            return refused("this is not an invite the console made");
        };
        if invite.is_used() {
            return refused("this invite was used already: ask the human for a new one");
        }
        let free = self
            .team
            .summonable(invite.seat.as_ref().map(std::slice::from_ref));
        let seat = match (free.first(), invite.seat) {
            (Some(&seat), _) => seat,
            (None, Some(_)) => return refused("the invite's seat is taken"),
            // Every seat taken: the agent asleep longest makes room.
            (None, None) => match self.team.seat_for(None, "an invited agent").await {
                Ok(seated) => seated.seat,
                Err(e) => return refused(&e.to_string()),
            },
        };
        let reservation = self
            .processes
            .reserve(seat)
            .map_err(|_| (close::REFUSED, format!("seat {seat} is being taken")))?;
        let identity = uuid22();
        let secret = new_token("sgs_");
        self.ctx
            .recorder()
            .record(vec![
                EventKind::AgentsSummoned {
                    seats: vec![SummonedSeat {
                        seat,
                        uuid: Some(identity.clone()),
                        secret_hash: Some(digest(&secret)),
                    }],
                },
                EventKind::InviteUsed { token_hash, seat },
            ])
            .await
            .map_err(|e| {
                (
                    close::REFUSED,
                    format!("the console could not record it: {e}"),
                )
            })?;
        Ok(Joined {
            reservation,
            identity,
            name: None,
            secret: Some(secret),
        })
    }

    async fn join_again(&self, id: &str, secret: &str) -> Result<Joined, Refused> {
        let hash = digest(secret);
        let wrong = || {
            (
                close::REFUSED,
                "no external agent has this identity and secret".to_string(),
            )
        };
        let (seat, name) = self
            .ctx
            .store()
            .with_docs(|docs| {
                let seated = identities(docs)
                    .find(|d| d.stable_id() == id && d.status().is_visible())
                    .map(|d| (Some(d.grid_position), d));
                let retired = || {
                    let h = docs.get(&hall_id(id)).and_then(Doc::as_hall)?;
                    (h.retired_at.is_some() && h.recalled_at.is_none()).then_some((None, h))
                };
                let (seat, d) = seated.or_else(retired)?;
                let ok = d.external && d.secret_hash.as_deref().is_some_and(|h| same(h, &hash));
                ok.then(|| (seat, d.name.clone()))
            })
            .ok_or_else(wrong)?;
        let seat = match seat {
            Some(seat) => seat,
            None => {
                let (seated, _) = self
                    .team
                    .recall(id, None)
                    .await
                    .map_err(|e| (close::REFUSED, format!("it could not be recalled: {e}")))?;
                seated.seat
            }
        };
        // Never two: a connection it has already is closed first.
        self.processes.table().stop(seat, REPLACED).await;
        let reservation = self
            .processes
            .reserve(seat)
            .map_err(|_| (close::REFUSED, format!("seat {seat} is being taken")))?;
        Ok(Joined {
            reservation,
            identity: id.to_string(),
            name,
            secret: None,
        })
    }
}
