//! One Claude process: spawned with the protocol flags, its stdout read line by line into
//! events, its stderr drained into the log, a watchdog on silence mid-turn and an inactivity
//! timeout when idle. A crash of one process touches only its own seat.

use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::domain::events::EventKind;
use app::domain::process::ProcessState;
use app::domain::Seat;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio_util::codec::{FramedRead, LinesCodec};

use super::protocol::{self, parse_line};
use super::turn::Translator;
use super::Runtime;

/// The longest stdout line we accept (a tool result can be large; anything past this is a bug).
const MAX_LINE: usize = 32 * 1024 * 1024;

/// What the runtime keeps of a running process.
pub struct Handle {
    pub stdin: mpsc::Sender<String>,
    pub stop: mpsc::Sender<String>,
    pub pid: Option<u32>,
}

/// How a process is started.
#[derive(Clone, Debug)]
pub struct Spec {
    pub seat: Seat,
    /// The agent's name, if it has one (a newborn does not).
    pub name: Option<String>,
    /// A blank session given the summon letter.
    pub summoning: bool,
    pub system_prompt: String,
    pub first_message: String,
    /// The Claude session to continue (`--resume`) instead of starting a new one.
    pub resume: Option<String>,
}

/// The agent's own folder: its working directory, where `_state.md` is kept.
pub fn agent_dir(data_dir: &std::path::Path, seat: Seat) -> std::path::PathBuf {
    data_dir.join("agents").join(seat.to_string())
}

pub fn command(rt: &Runtime, spec: &Spec, claude_session: &str) -> Command {
    let c = rt.config();
    let mut cmd = Command::new(&c.cmd);
    cmd.args([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        if spec.resume.is_some() {
            "--resume"
        } else {
            "--session-id"
        },
        claude_session,
        "--append-system-prompt",
        &spec.system_prompt,
    ]);
    if c.permissions == super::PermissionMode::Ui {
        cmd.args(["--permission-prompt-tool", "stdio"]);
    }
    cmd.args(&c.extra_args);
    let work = agent_dir(&c.data_dir, spec.seat);
    let tmp = c.data_dir.join("tmp").join(spec.seat.to_string());
    let run = c.data_dir.join("run");
    for dir in [&work, &tmp, &run] {
        let _ = std::fs::create_dir_all(dir);
    }
    cmd.current_dir(&work)
        .env_remove("CLAUDECODE")
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("XDG_RUNTIME_DIR", &run)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    cmd
}

/// Spawns the process and supervises it until it stops. Returns once it runs.
pub async fn spawn(rt: Runtime, spec: Spec) -> Result<Handle, String> {
    let seat = spec.seat;
    let claude_session = spec
        .resume
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    rt.record(vec![EventKind::AgentProcess {
        seat,
        state: ProcessState::Starting,
        reason: None,
        claude_session_id: Some(claude_session.clone()),
        context_tokens: None,
        cost_usd: None,
    }])
    .await;
    let mut child = match command(&rt, &spec, &claude_session).spawn() {
        Ok(child) => child,
        Err(e) => {
            let reason = format!("could not start {}: {e}", rt.config().cmd.display());
            rt.record(vec![
                EventKind::AgentProcess {
                    seat,
                    state: ProcessState::Stopped,
                    reason: Some(reason.clone()),
                    claude_session_id: None,
                    context_tokens: None,
                    cost_usd: None,
                },
                EventKind::RuntimeError {
                    seat: Some(seat),
                    message: reason.clone(),
                },
            ])
            .await;
            return Err(reason);
        }
    };
    let pid = child.id();
    tracing::info!(seat, pid, session = %claude_session, "agent process started");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");

    let busy = Arc::new(AtomicBool::new(false));
    let (stdin_tx, stdin_rx) = mpsc::channel::<String>(256);
    let (stop_tx, stop_rx) = mpsc::channel::<String>(1);
    tokio::spawn(write_stdin(seat, stdin, stdin_rx, busy.clone()));
    let last_stderr = Arc::new(std::sync::Mutex::new(None::<String>));
    let stderr_task = tokio::spawn({
        let last = last_stderr.clone();
        async move {
            let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(64 * 1024));
            while let Some(line) = lines.next().await {
                match line {
                    Ok(line) => {
                        tracing::warn!(seat, "stderr: {line}");
                        if !line.trim().is_empty() {
                            *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(line);
                        }
                    }
                    Err(e) => tracing::warn!(seat, "stderr: {e}"),
                }
            }
        }
    });
    if rt.config().permissions == super::PermissionMode::Ui {
        let _ = stdin_tx.send(protocol::initialize("soulgrid-init")).await;
    }
    for line in protocol::user_messages(&spec.first_message) {
        let _ = stdin_tx.send(line).await;
    }
    let translator = Translator::new(seat, spec.name.clone(), spec.summoning);
    // Should the session not resume, the same start again as a fresh session.
    let fresh = spec.resume.is_some().then(|| Spec {
        resume: None,
        ..spec.clone()
    });
    let output = Output {
        stdin: stdin_tx.clone(),
        stderr: stderr_task,
        last_stderr,
    };
    let reader = FramedRead::new(stdout, LinesCodec::new_with_max_length(MAX_LINE));
    tokio::spawn(supervise(
        rt, seat, child, reader, output, stop_rx, translator, busy, fresh,
    ));
    Ok(Handle {
        stdin: stdin_tx,
        stop: stop_tx,
        pid,
    })
}

async fn write_stdin(
    seat: Seat,
    mut stdin: ChildStdin,
    mut rx: mpsc::Receiver<String>,
    busy: Arc<AtomicBool>,
) {
    while let Some(line) = rx.recv().await {
        busy.store(true, Ordering::SeqCst);
        let ok = stdin.write_all(line.as_bytes()).await.is_ok()
            && stdin.write_all(b"\n").await.is_ok()
            && stdin.flush().await.is_ok();
        if !ok {
            tracing::warn!(seat, "the agent's stdin is closed");
            return;
        }
    }
}

/// The process's other ends, as the supervisor needs them.
struct Output {
    stdin: mpsc::Sender<String>,
    /// Drains stderr; done once the process closed it.
    stderr: tokio::task::JoinHandle<()>,
    /// Its last non-empty stderr line: often the one that says why it exited.
    last_stderr: Arc<std::sync::Mutex<Option<String>>>,
}

#[allow(clippy::too_many_arguments)]
async fn supervise(
    rt: Runtime,
    seat: Seat,
    mut child: Child,
    mut lines: FramedRead<tokio::process::ChildStdout, LinesCodec>,
    output: Output,
    mut stop: mpsc::Receiver<String>,
    mut translator: Translator,
    busy: Arc<AtomicBool>,
    mut fresh: Option<Spec>,
) {
    let Output {
        stdin,
        stderr,
        last_stderr,
    } = output;
    let mut started = false;
    let mut resume_failed = false;
    let (stuck_after, idle_timeout) = (rt.config().stuck_after, rt.config().idle_timeout);
    let mut last_output = Instant::now();
    let mut idle_since = Instant::now();
    let mut reported_stuck = false;
    let mut tick = tokio::time::interval(Duration::from_millis(
        (stuck_after.min(idle_timeout).as_millis() as u64 / 4).clamp(20, 1000),
    ));
    let shutdown = rt.shutdown_token();
    let reason = loop {
        tokio::select! {
            line = lines.next() => match line {
                Some(Ok(line)) => {
                    last_output = Instant::now();
                    reported_stuck = false;
                    let Ok(cli) = parse_line(&line) else {
                        tracing::warn!(seat, "unreadable stdout line: {line:.300}");
                        continue;
                    };
                    match &cli {
                        protocol::CliLine::System { subtype, .. } if subtype == "init" => started = true,
                        // A session that cannot be resumed ends at once with an error result
                        // and no turn: that is not the agent's turn, and a fresh start follows.
                        protocol::CliLine::Result(_) if !started && fresh.is_some() => {
                            resume_failed = true;
                            continue;
                        }
                        _ => {}
                    }
                    let out = rt.store().with_docs(|docs| translator.on_line(&cli, docs));
                    if out.turn_done {
                        busy.store(false, Ordering::SeqCst);
                        idle_since = Instant::now();
                    }
                    let replies: Vec<(String, String)> = out
                        .events
                        .iter()
                        .filter_map(|e| match e {
                            EventKind::AgentMessage { speaker_name, text, .. }
                            | EventKind::LeadText { speaker_name, text, .. } => Some((speaker_name.clone(), text.clone())),
                            _ => None,
                        })
                        .collect();
                    rt.record(out.events).await;
                    for line in out.replies {
                        let _ = stdin.send(line).await;
                    }
                    for request_id in out.asked {
                        rt.deny_when_unanswered(request_id);
                    }
                    for (from, text) in replies {
                        rt.file_reply(from, text).await;
                    }
                    for request in out.requests {
                        // Its own task: a request may stop this very process.
                        tokio::spawn(super::requests::handle(rt.clone(), request));
                    }
                }
                Some(Err(e)) => {
                    rt.record(vec![EventKind::RuntimeError { seat: Some(seat), message: format!("stdout: {e}") }]).await;
                }
                None => {
                    let mut reason = exit_reason(&mut child).await;
                    let _ = tokio::time::timeout(Duration::from_millis(500), stderr).await;
                    if let Some(last) = last_stderr.lock().unwrap_or_else(|p| p.into_inner()).take() {
                        if reason != "exited" {
                            reason = format!("{reason}: {last:.300}");
                        }
                    }
                    if (resume_failed || (!started && fresh.is_some())) && !shutdown.is_cancelled() {
                        if let Some(spec) = fresh.take() {
                            restart_fresh(rt, seat, spec, reason).await;
                            return;
                        }
                    }
                    break reason;
                }
            },
            Some(reason) = stop.recv() => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                break reason;
            }
            _ = shutdown.cancelled() => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                break "server shutdown".to_string();
            }
            _ = tick.tick() => {
                let busy_now = busy.load(Ordering::SeqCst);
                // Waiting for the human's answer is not being stuck.
                let asking = || rt.store().with_docs(|d| !app::domain::permissions::pending(d, seat).is_empty());
                if busy_now && !reported_stuck && last_output.elapsed() >= stuck_after && !asking() {
                    reported_stuck = true;
                    tracing::warn!(seat, "no output for {:?} mid-turn", last_output.elapsed());
                    rt.record(vec![EventKind::RuntimeError {
                        seat: Some(seat),
                        message: format!("stuck: no output for {} s in the middle of a turn", last_output.elapsed().as_secs()),
                    }]).await;
                }
                if !busy_now && idle_since.elapsed() >= idle_timeout {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                    break "inactivity".to_string();
                }
            }
        }
    };
    tracing::info!(seat, %reason, "agent process stopped");
    rt.stopped(seat, reason).await;
}

/// The session could not be resumed: says so, and starts the agent in a fresh session.
fn restart_fresh(
    rt: Runtime,
    seat: Seat,
    spec: Spec,
    why: String,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        tracing::warn!(seat, %why, "could not resume the Claude session; starting a fresh one");
        rt.record(vec![EventKind::RuntimeError {
            seat: Some(seat),
            message: format!(
                "could not resume the last Claude session ({why}); started a fresh one"
            ),
        }])
        .await;
        rt.agents().remove(&seat);
        if let Err(e) = rt.start(spec).await {
            tracing::warn!(seat, error = %e, "the fresh start failed too");
        }
    })
}

async fn exit_reason(child: &mut Child) -> String {
    match child.wait().await {
        Ok(status) if status.success() => "exited".to_string(),
        Ok(status) => match status.code() {
            Some(code) => format!("crashed with exit code {code}"),
            None => format!("crashed ({status})"),
        },
        Err(e) => format!("lost: {e}"),
    }
}
