//! One Claude process's start: its folders made ready, its command (`command.rs`) spawned into
//! its seat, its first message sent. Its supervision is [`crate::runtime::process::supervisor`].

use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::Seat;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::runtime::context::Context;
use crate::runtime::error::RuntimeError;
use crate::runtime::folder::knowledge::Folders;
use crate::runtime::process::contain::Containment;
use crate::runtime::process::group::Group;
use crate::runtime::process::lines::LineCodec;
use crate::runtime::process::protocol;
use crate::runtime::process::supervisor::{self, Exit, Report, Supervisor, Timing};
use crate::runtime::process::table::{Live, StopSignal};
use crate::runtime::process::turn::Translator;

/// The longest stdout line we read (a tool result can be large); a longer one is skipped.
pub const MAX_LINE: usize = 32 * 1024 * 1024;

pub use crate::runtime::folder::agent_fs::agent_dir;

pub use super::command::Spec;
use super::command::{command, places};

/// A process that runs, and what it takes to supervise it.
pub struct Started {
    pub live: Live,
    /// Runs it to its end: a Claude process's supervisor, or an external agent's connection.
    pub run: std::pin::Pin<Box<dyn std::future::Future<Output = Exit> + Send>>,
    pub reports: mpsc::UnboundedReceiver<Report>,
}

/// What starts a process: the settings, the folder room that readies its folder, where its
/// processes are kept, and the lock newborns choose their names under.
#[derive(Clone)]
pub struct Spawner {
    pub(in crate::runtime) ctx: Context,
    pub(in crate::runtime) folders: Folders,
    /// Where agents' processes are kept, so a stop stops all they started.
    pub(in crate::runtime) containment: std::sync::Arc<Containment>,
    /// Newborns choose names one at a time: a name is checked and recorded before the next
    /// newborn's is checked, so two cannot both take one name.
    pub(in crate::runtime) naming: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Spawner {
    /// Records `starting`, spawns the process and sends it its first message. A process that
    /// cannot be spawned is recorded as stopped, with why.
    pub(in crate::runtime) async fn spawn(
        &self,
        spec: &Spec,
        stop: StopSignal,
    ) -> Result<Started, RuntimeError> {
        let rt = &self.ctx;
        let seat = spec.seat;
        // Its folder as the store says it should be: the identity's vault, a git repository.
        let folder = self
            .folders
            .prepare(seat, &agent_dir(&rt.config().data_dir, seat))
            .await;
        let claude_session = spec
            .resume
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        // An agent that goes on after a pause is not waking: the reason says so (and no
        // "is waking up" is noted in its thread).
        let going_on = (spec.aside == Some(app::domain::events::Aside::Moved))
            .then(|| app::domain::words::GOING_ON.to_string());
        rt.record(vec![process_event(
            seat,
            ProcessState::Starting,
            going_on,
            Some(claude_session.clone()),
        )])
        .await;
        // In a sandbox the program is started by bubblewrap: one that is not there is said
        // here, as a spawn of it would say it.
        if rt.config().sandbox.is_on() && crate::sandbox::program_path(&rt.config().cmd).is_none() {
            let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such program");
            return Err(self.not_started(seat, source).await);
        }
        super::command::prepare_cli_home(rt.config(), seat, spec.resume.clone()).await;
        let place = self.containment.place(seat);
        let ready = crate::runtime::projects::ready(rt, seat).await;
        let places = places(rt.config(), seat, &ready);
        let mut cmd = command(rt.config(), spec, &claude_session, &ready, &places);
        // Its way out of the sandbox, for as long as it runs.
        let egress = match super::command::open_egress(rt.config(), seat, &places) {
            Ok(egress) => egress,
            Err(source) => return Err(self.not_started(seat, source).await),
        };
        place.prepare(&mut cmd);
        let child = match cmd.spawn() {
            Ok(child) => child,
            Err(source) => return Err(self.not_started(seat, source).await),
        };
        tracing::info!(seat, pid = child.id(), session = %claude_session, "agent process started");
        // Where the agent's rules read relative paths: where it runs, then its worktrees, as
        // the file system resolves them (a relative `--data-dir` included).
        let roots = std::iter::once(agent_dir(&rt.config().data_dir, seat))
            .chain(ready.dirs.iter().cloned())
            .map(|d| {
                std::fs::canonicalize(&d)
                    .or_else(|_| std::path::absolute(&d))
                    .unwrap_or(d)
                    .display()
                    .to_string()
            })
            .collect();
        let (live, supervisor, reports) =
            self.supervisor(spec, child, stop, (folder, place), roots);
        // The control protocol, and the `soulgrid` MCP server in it, for every process.
        let _ = live.stdin.send(protocol::initialize("soulgrid-init")).await;
        // A process that does not take its first message is stopped by its supervisor's stop or
        // watchdogs; the send itself never waits long (the channel is empty).
        if let Err(e) = crate::runtime::process::outgoing::send_to(
            &rt.config().data_dir,
            seat,
            &live,
            spec.first_message.clone(),
        )
        .await
        {
            tracing::warn!(seat, error = %e, "the first message could not be written");
        }
        Ok(Started {
            live,
            run: Box::pin(async move {
                let _egress = egress;
                supervisor.run().await
            }),
            reports,
        })
    }

    /// A process that could not be started: recorded as stopped, with why.
    async fn not_started(&self, seat: Seat, source: std::io::Error) -> RuntimeError {
        let rt = &self.ctx;
        let err = RuntimeError::Spawn {
            cmd: rt.config().cmd.display().to_string(),
            source,
        };
        let reason = err.to_string();
        rt.record(vec![
            process_event(seat, ProcessState::Stopped, Some(reason.clone()), None),
            EventKind::RuntimeError {
                seat: Some(seat),
                message: reason,
            },
        ])
        .await;
        err
    }

    /// The tasks around a spawned child (stdin writer, stderr drain) and its supervisor.
    fn supervisor(
        &self,
        spec: &Spec,
        mut child: tokio::process::Child,
        stop: StopSignal,
        (folder, place): (
            crate::runtime::folder::knowledge::Folder,
            crate::runtime::process::contain::Place,
        ),
        roots: Vec<String>,
    ) -> (Live, Supervisor, mpsc::UnboundedReceiver<Report>) {
        let rt = &self.ctx;
        let seat = spec.seat;
        let group = Group::of(&child, rt.config().sandbox.is_on());
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (stdin_tx, stdin_rx) = mpsc::channel::<String>(256);
        rt.spawn(crate::runtime::process::pipes::write_stdin(
            seat, stdin, stdin_rx,
        ));
        let live = Live {
            stdin: stdin_tx,
            busy: Default::default(),
            in_flight: Default::default(),
        };
        let (reports_tx, reports) = mpsc::unbounded_channel();
        let supervisor = Supervisor {
            seat,
            child,
            group,
            lines: FramedRead::new(stdout, LineCodec::new(MAX_LINE)),
            stderr: rt.spawn(crate::runtime::process::pipes::drain_stderr(seat, stderr)),
            live: live.clone(),
            stop,
            shutdown: rt.shutdown_token(),
            closing: rt.closing_token(),
            translator: {
                let mut t = Translator::new(seat, spec.name.clone(), spec.summoning)
                    .with_team_names(&rt.names().lead, &rt.names().human)
                    .with_roots(roots)
                    .with_lead_first(
                        rt.config().agents.approvals
                            == crate::runtime::config::ApprovalMode::LeadFirst,
                    );
                t.set_aside(spec.aside);
                t
            },
            naming: self.naming.clone(),
            stop_asked: None,
            pending: Vec::new(),
            taken: Vec::new(),
            recorder: rt.recorder().clone(),
            reports: reports_tx,
            resuming: spec.resume.is_some(),
            timing: Timing {
                stuck_after: rt.config().agents.stuck_after,
                idle_timeout: rt.config().agents.idle_timeout,
                stop_grace: rt.config().agents.stop_grace,
                distill_timeout: rt.config().agents.distill_timeout,
            },
            unrecorded: None,
            workdir: agent_dir(&rt.config().data_dir, seat),
            folder,
            letters: supervisor::Letters {
                data_dir: rt.config().data_dir.clone(),
                names: rt.names().clone(),
            },
            committer: crate::runtime::folder::commits::Committer::start(
                seat,
                crate::runtime::folder::git::History::new(&rt.config().data_dir, seat),
                rt.recorder().clone(),
            ),
            commits_in_turn: 0,
            place: Some(place),
        };
        (live, supervisor, reports)
    }
}

/// A change of a seat's process state, with nothing else to report.
pub(in crate::runtime) fn process_event(
    seat: Seat,
    state: ProcessState,
    reason: Option<String>,
    claude_session_id: Option<String>,
) -> EventKind {
    EventKind::AgentProcess {
        seat,
        state,
        reason,
        claude_session_id,
        context_tokens: None,
        cost_usd: None,
        tool: None,
        usage: None,
    }
}
