//! The lifecycle operations: SUMMON, WAKE, and the expiry of eggs that never hatched.

use std::time::Duration;

use app::domain::docs::identity;
use app::domain::events::{Aside, EventKind, SummonedSeat};
use app::domain::status::AgentStatus;
use app::domain::wake::{sleeping_seats, wake_agents_xml, wake_payload, wake_prompt, WakePayload};
use app::domain::{agent_seats, Seat, LEAD_SEAT};

use crate::runtime::ids::uuid22;
use crate::runtime::process::outgoing::Mail;
use crate::runtime::process::outgoing::Outgoing;
use crate::runtime::process::spawn::Spec;
use crate::runtime::process::table::Reservation;
use crate::runtime::prompts;
use crate::runtime::team::Team;
use crate::store::StoreError;

impl Team {
    /// Every 30 s, eggs that never hatched (nameless, older than 5 minutes) expire, and a
    /// summon process still running for one is stopped.
    pub fn expire_hatching(&self) {
        let rt = self.clone();
        self.ctx.spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(30));
            let stop = rt.ctx.shutdown_token();
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => rt.expire_hatching_now().await,
                }
            }
        });
    }

    /// One pass of [`Team::expire_hatching`], as of now on the server's clock.
    pub async fn expire_hatching_now(&self) {
        let now = self.ctx.clock().now_ms();
        let seats: Vec<Seat> = self.ctx.store().with_docs(|docs| {
            app::domain::docs::identities(docs)
                .filter(|d| d.status() == AgentStatus::Hatching && !d.has_name())
                .filter(|d| {
                    d.created_at
                        .is_none_or(|c| now - c >= app::domain::HATCHING_TTL_MS)
                })
                .map(|d| d.grid_position)
                .collect()
        });
        if seats.is_empty() {
            return;
        }
        for &seat in &seats {
            self.processes
                .table()
                .stop(seat, "never chose a name")
                .await;
        }
        tracing::info!(?seats, "hatching placeholders expired");
        self.ctx
            .record(vec![EventKind::HatchingExpired { seats }])
            .await;
    }

    /// The seats among `seats` (every agent seat when `None`) a SUMMON would fill now: empty,
    /// or holding an egg that expired.
    pub(in crate::runtime) fn summonable(&self, seats: Option<&[Seat]>) -> Vec<Seat> {
        self.ctx.store().with_docs(|docs| {
            agent_seats()
                .filter(|s| seats.is_none_or(|only| only.contains(s)))
                .filter(|s| identity(docs, *s).is_none_or(|d| d.status() == AgentStatus::Expired))
                .collect()
        })
    }

    /// SUMMON into the empty seats among `seats` (every empty seat when `None`).
    pub async fn summon_only(&self, seats: Option<&[Seat]>) -> Result<Vec<Seat>, StoreError> {
        let candidates = self.summonable(seats);
        // Held before anything is awaited: a second SUMMON at the same time takes none of them.
        let reserved: Vec<Reservation> = candidates
            .into_iter()
            .filter_map(|seat| self.processes.reserve(seat).ok())
            .collect();
        let seats: Vec<Seat> = reserved.iter().map(Reservation::seat).collect();
        if seats.is_empty() {
            return Ok(seats);
        }
        let summoned: Vec<SummonedSeat> = seats
            .iter()
            .map(|&seat| SummonedSeat {
                seat,
                uuid: Some(uuid22()),
                secret_hash: None,
            })
            .collect();
        self.ctx
            .store()
            .append(
                &self.ctx.session().id(),
                EventKind::AgentsSummoned {
                    seats: summoned.clone(),
                },
            )
            .await?;
        // Only the seats that got this summon's egg: one filled meanwhile (a recall between the
        // choice and the reservation) keeps its agent, and no newborn is started there.
        let placed: Vec<Seat> = self.ctx.store().with_docs(|docs| {
            summoned
                .iter()
                .filter(|s| identity(docs, s.seat).is_some_and(|d| d.uuid == s.uuid))
                .map(|s| s.seat)
                .collect()
        });
        let data_dir = &self.ctx.config().data_dir;
        for reservation in reserved {
            let seat = reservation.seat();
            if !placed.contains(&seat) {
                continue;
            }
            let spec = Spec {
                seat,
                name: None,
                summoning: true,
                system_prompt: prompts::agent_prompt(data_dir, self.ctx.names()),
                first_message: Outgoing::text(prompts::summon_letter(
                    data_dir,
                    seat,
                    self.ctx.names(),
                )),
                resume: None,
                fork: false,
                aside: Some(Aside::Birth),
            };
            if let Err(e) = self.processes.start_reserved(reservation, spec).await {
                tracing::warn!(seat, error = %e, "summoning failed for a seat");
            }
        }
        Ok(placed)
    }

    /// WAKE of the sleeping agents among `seats` (all of them when `None`); returns the seats
    /// woken (the jobs that waited are offered to them by the quest room).
    pub async fn wake_only(&self, seats: Option<&[Seat]>) -> Vec<Seat> {
        // Reserved before anything is awaited (the transcripts are read after): a WAKE at the
        // same time takes none of these seats.
        let reserved: Vec<Reservation> = self
            .ctx
            .store()
            .with_docs(sleeping_seats)
            .into_iter()
            .filter(|s| seats.is_none_or(|only| only.contains(s)))
            .filter_map(|s| self.processes.reserve(s).ok())
            .collect();
        let mut payloads = self.wake_payloads(&reserved).await;
        // A reservation without a payload is dropped here: its seat is free again.
        let waking: Vec<(Reservation, WakePayload)> = reserved
            .into_iter()
            .filter_map(|r| {
                let at = payloads.iter().position(|p| p.seat == r.seat())?;
                Some((r, payloads.swap_remove(at)))
            })
            .collect();
        let mut woken = Vec::new();
        let mut payloads = Vec::new();
        for (reservation, mut p) in waking {
            let mail = self.waiting_mail(&mut p).await;
            // Its first words answer the waking, unless mail waited for it.
            let aside = mail.is_none().then_some(Aside::Wake);
            let spec = Spec {
                seat: p.seat,
                name: Some(p.name.clone()),
                summoning: false,
                system_prompt: prompts::agent_prompt(&self.ctx.config().data_dir, self.ctx.names()),
                first_message: Outgoing {
                    text: wake_prompt(&p, &self.ctx.names().human, &self.ctx.names().lead),
                    mail,
                },
                resume: None,
                fork: false,
                aside,
            };
            match self.processes.start_reserved(reservation, spec).await {
                Ok(()) => woken.push(p.seat),
                Err(e) => {
                    tracing::warn!(seat = p.seat, error = %e, "waking failed for a seat");
                    // The lead hears of the mail it was to be given (which stays unread in its
                    // inbox, for when it can be started).
                    for m in &p.unread_mail {
                        self.postman.relay(&p.name, &m.from, &m.text).await;
                    }
                }
            }
            payloads.push(p);
        }
        if !payloads.is_empty() {
            self.postman
                .deliver(LEAD_SEAT, Outgoing::text(wake_agents_xml(&payloads)))
                .await;
        }
        woken
    }

    /// A payload for each reserved seat whose agent sleeps, from the store: never from a
    /// request (what an agent wakes to is what it was, not what a page says it was). Without
    /// its transcript nobody is woken: the failed read is said on the seats.
    async fn wake_payloads(&self, reserved: &[Reservation]) -> Vec<WakePayload> {
        let seats: Vec<Seat> = reserved.iter().map(Reservation::seat).collect();
        let owners = self
            .ctx
            .store()
            .with_docs(|docs| app::domain::docs::page::transcript_owners(docs, &seats));
        match self.ctx.store().docs_with_threads(Some(owners)).await {
            Ok((docs, _)) => {
                // Still asleep now the transcripts are read (a retirement meanwhile takes an
                // agent out of its seat; the reservation only keeps other starts away).
                let sleeping = sleeping_seats(&docs);
                seats
                    .into_iter()
                    .filter(|s| sleeping.contains(s))
                    .filter_map(|seat| wake_payload(&docs, seat, &[]))
                    .collect()
            }
            Err(e) => {
                tracing::error!(error = %e, "reading the transcripts to wake from failed");
                let events = seats
                    .into_iter()
                    .map(|seat| EventKind::RuntimeError {
                        seat: Some(seat),
                        message: format!("not woken: its transcript could not be read ({e})"),
                    })
                    .collect();
                self.ctx.record(events).await;
                Vec::new()
            }
        }
    }

    /// Puts the mail that waited for `p`'s agent into its payload; returns it as the mail the
    /// wake prompt carries (marked read once the agent has taken the prompt).
    async fn waiting_mail(&self, p: &mut WakePayload) -> Option<Mail> {
        let inbox = self.ctx.seat_inbox(p.seat)?;
        let (mailboxes, name) = (self.ctx.mailboxes().clone(), inbox.clone());
        let mail = match tokio::task::spawn_blocking(move || mailboxes.unread_tagged(&name)).await {
            Ok(Ok(mail)) => mail,
            _ => Vec::new(),
        };
        let ids: Vec<String> = mail.iter().filter_map(|m| m.msg_id.clone()).collect();
        p.unread_mail = mail
            .into_iter()
            .map(|m| app::domain::wake::MailLine {
                from: m.from,
                text: m.text,
                timestamp: m.timestamp,
            })
            .collect();
        (!ids.is_empty()).then_some(Mail { inbox, ids })
    }
}
