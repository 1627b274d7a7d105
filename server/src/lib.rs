//! The Soulgrid server: axum + leptos_axum, one folder per edge.

pub mod clock;
pub mod cluster;
pub mod config;
pub mod data_dir;
pub mod error;
pub mod fsafe;
pub mod http;
pub mod login;
pub mod mailbox;
pub mod own_address;
pub mod portable;
pub mod repo;
pub mod role;
pub mod runtime;
pub mod sandbox;
pub mod secret;
pub mod session;
pub mod spectators;
pub mod state;
pub mod store;
pub mod tasks;
pub mod webhooks;

use std::sync::Arc;

use leptos::prelude::LeptosOptions;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::Config;
use crate::http::security::Security;
use crate::mailbox::Mailboxes;
use crate::runtime::prompts::Names;
use crate::runtime::{Runtime, RuntimeConfig};
use crate::state::AppState;
use crate::store::Store;

/// Opens the store, ends an unclean previous session, starts this one.
pub async fn boot(config: &Config, leptos_options: LeptosOptions) -> anyhow::Result<AppState> {
    boot_with_clock(config, leptos_options, Clock::system()).await
}

/// As [`boot`], with the server's one clock: the store, the runtime and the mailboxes read it
/// (tests move it forward).
pub async fn boot_with_clock(
    config: &Config,
    leptos_options: LeptosOptions,
    clock: Clock,
) -> anyhow::Result<AppState> {
    boot_as(config, leptos_options, clock, role::Part::Single).await
}

/// As [`boot_with_clock`], as one `part` of a team served by several servers (`cluster`): the
/// leader runs the runtime, its appends fenced by its lease; a follower only serves what the
/// store holds (a replica of the log), its runtime never started.
pub async fn boot_as(
    config: &Config,
    leptos_options: LeptosOptions,
    clock: Clock,
    part: role::Part,
) -> anyhow::Result<AppState> {
    check_flags(config).await?;
    // Before anything is read or written: a second server on this directory stops here.
    // Off the async threads: a gone holder's lock is waited for (moments, bounded).
    // A server of a cluster took it once for all its parts (`cluster::run`).
    let data_dir_lock = match part.lock() {
        Some(lock) => lock,
        None => {
            let dir = config.data_dir.clone();
            Arc::new(tokio::task::spawn_blocking(move || data_dir::DataDirLock::take(&dir)).await??)
        }
    };
    // The human's login: given, or the data directory's (made at the first start).
    let login = {
        let (dir, given) = (config.data_dir.clone(), config.token.clone());
        tokio::task::spawn_blocking(move || login::Login::open(&dir, given.as_deref())).await??
    };
    let security = Security::new(config.addr, login);
    let store = open_store(config, &part, clock.clone()).await?;
    let human = config.human_name();
    let role = part.role();
    let session = match part {
        role::Part::Follower { .. } => session::Session::none(),
        _ => session::start(&store, &config.lead_name, &human).await?,
    };
    let shutdown = CancellationToken::new();
    let follower = matches!(part, role::Part::Follower { .. });
    let (runtime, label) = make_runtime(
        config,
        (&store, &session, &shutdown),
        clock.clone(),
        follower,
    )
    .await?;
    forget_idle_history(&store, (&shutdown, runtime.tasks()));
    let state = AppState {
        leptos_options,
        store,
        session,
        runtime,
        lead_name: config.lead_name.clone().into(),
        human_name: human.into(),
        security: Arc::new(security),
        shutdown,
        claude_label: label.into(),
        idempotency: Default::default(),
        sse: Default::default(),
        spectators: Default::default(),
        data_dir_lock,
        team: config.team.clone().into(),
        role,
    };
    // A rotated login ends the streams opened with it, even with no request to notice it.
    let tasks = state.runtime.tasks();
    state
        .security
        .watch_rotation((state.shutdown.clone(), tasks));
    // On every server of a team: a revoked watch link's streams end wherever they are open.
    state
        .spectators
        .end_revoked(&state.store, (state.shutdown.clone(), tasks));
    if state.role.is_follower() {
        // Nothing runs here: the leader runs the team.
        return Ok(state);
    }
    start_runtime(config, &state, clock).await;
    Ok(state)
}

/// The runtime this server would run (a follower's is never started), and how its agents
/// are run, said in the log: the command, its sandbox, its templates and mailboxes.
async fn make_runtime(
    config: &Config,
    (store, session, shutdown): (&Store, &Arc<session::Session>, &CancellationToken),
    clock: Clock,
    follower: bool,
) -> anyhow::Result<(Runtime, String)> {
    // A bad process template stops the start here, naming its file and line.
    let templates =
        runtime::prompts::process_templates(&config.data_dir).map_err(anyhow::Error::msg)?;
    let (cmd, label, simulated) = RuntimeConfig::resolve_cmd(config.claude_cmd.as_deref());
    tracing::info!(cmd = %cmd.display(), simulated, "agents run with {label}");
    let (sandbox, egress) = sandbox_of(config, follower).await?;
    let mailboxes = Mailboxes::new(&config.data_dir, &config.team)
        .map_err(|e| anyhow::anyhow!("--team: {e}"))?
        .with_lock_timing(mailbox::lock::LockTiming {
            timeout: config.inbox_lock_timeout,
            ..Default::default()
        })
        .with_clock(clock.clone());
    let runtime = Runtime::new(
        RuntimeConfig {
            cmd,
            label: label.clone(),
            simulated,
            extra_args: config
                .claude_args
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            data_dir: config.data_dir.clone(),
            names: Names {
                human: config.human_name(),
                lead: config.lead_name.clone(),
            },
            templates: Arc::new(templates),
            agents: config.agents.clone(),
            sandbox,
            egress,
        },
        mailboxes,
        store.clone(),
        session.clone(),
        shutdown.clone(),
        clock,
    );
    Ok((runtime, label))
}

/// Flags that do not go together, and webhooks that would call this server: refused before
/// anything starts.
async fn check_flags(config: &Config) -> anyhow::Result<()> {
    let agents = &config.agents;
    if agents.approvals == runtime::ApprovalMode::LeadFirst
        && agents.lead_approval_timeout >= agents.permission_timeout
    {
        anyhow::bail!(
            "--lead-approval-timeout ({}) must be shorter than --permission-timeout ({}): a request \
             the lead leaves would be denied before the human sees it",
            runtime::human_duration(agents.lead_approval_timeout),
            runtime::human_duration(agents.permission_timeout)
        );
    }
    webhooks::not_ours(&config.notify_url, config.addr)
        .await
        .map_err(anyhow::Error::msg)?;
    Ok(())
}

/// The store this server part opens (SQLite in the data directory, or PostgreSQL; a follower's
/// a replica, a leader's appends fenced by its lease), said in the log.
async fn open_store(config: &Config, part: &role::Part, clock: Clock) -> anyhow::Result<Store> {
    let database = config.database.clone().unwrap_or_default();
    let shown = match database {
        store::Database::Sqlite => format!("in {}", config.data_dir.display()),
        ref pg => format!("on {}", pg.shown()),
    };
    tracing::info!("the store is {shown}");
    let (dir, clock) = (config.data_dir.clone(), clock.clone());
    let live_capacity = config.live_capacity;
    let (replica, fence) = match &part {
        role::Part::Single => (false, None),
        role::Part::Leader { fence, .. } => (false, Some(*fence)),
        role::Part::Follower { .. } => (true, None),
    };
    // Off the async threads: connecting and reading the documents block.
    tokio::task::spawn_blocking(move || {
        Store::open_with(
            &dir,
            store::Options {
                database,
                clock,
                live_capacity,
                replica,
                fence,
                ..Default::default()
            },
        )
    })
    .await?
    .map_err(|e| anyhow::anyhow!("opening the store {shown}: {e}"))
}

/// Whether agents run in a sandbox here (`--sandbox`), said in the log, and where their
/// sandboxes may connect: `Err` for `--sandbox on` where none can be made, or a bad
/// `--agent-net-allow`.
async fn sandbox_of(
    config: &Config,
    follower: bool,
) -> anyhow::Result<(Arc<sandbox::Sandbox>, Arc<sandbox::egress::Allow>)> {
    // A follower runs no agent: `on` does not keep it from serving.
    let mode = match (config.agents.sandbox, follower) {
        (sandbox::SandboxMode::On, true) => sandbox::SandboxMode::Auto,
        (mode, _) => mode,
    };
    let sandbox = tokio::task::spawn_blocking(move || sandbox::Sandbox::detect(mode))
        .await?
        .map_err(anyhow::Error::msg)?;
    match sandbox.is_on() {
        true => tracing::info!("agents run in a sandbox: {}", sandbox.said()),
        false => tracing::warn!(
            "agents run WITHOUT a sandbox, with this server's reach: {}",
            sandbox.said()
        ),
    }
    let base = std::env::var("ANTHROPIC_BASE_URL").ok();
    let allow =
        sandbox::egress::Allow::new(base.as_deref(), &config.agents.agent_net_allow, config.addr)
            .map_err(anyhow::Error::msg)?;
    Ok((Arc::new(sandbox), Arc::new(allow)))
}

/// The leader's (or the only server's) runtime at work: mail, worktrees, the projections,
/// the timers, notifications and backups.
async fn start_runtime(config: &Config, state: &AppState, clock: Clock) {
    let (runtime, store, shutdown) = (&state.runtime, &state.store, &state.shutdown);
    runtime.watch_mail().await;
    // Branches carried in by an import, into their projects before any agent starts.
    runtime.projects().bring_carried().await;
    runtime.watch_worktrees();
    runtime.file_replies();
    runtime.keep_state_files();
    runtime.expire_hatching();
    runtime.watch_quests();
    runtime.watch_budgets();
    webhooks::start(
        config.notify_url.clone(),
        store.clone(),
        format!("http://{}", config.addr),
        config.team.clone(),
        (shutdown.clone(), runtime.tasks()),
    );
    if let Some(every) = config.backup_every {
        portable::backup::keep_backing_up(
            config.data_dir.clone(),
            config.database.clone().unwrap_or_default(),
            every,
            config.backup_keep,
            clock,
            (shutdown.clone(), runtime.tasks()),
        );
    }
}

/// Ends the current session: every agent process stops (its seat sleeps), then `session_end`.
pub async fn end_session(
    state: &AppState,
    reason: &str,
) -> Result<app::domain::events::Event, store::StoreError> {
    state.runtime.stop_all(reason).await;
    session::end(&state.store, &state.session.id(), reason).await
}

/// Ends the session, then the open streams (which see the `session_end` first).
pub async fn shut_down(state: &AppState) {
    state.runtime.close();
    match end_session(state, "server shutdown").await {
        Ok(e) => tracing::info!(event = e.id, "session ended"),
        Err(e) => tracing::error!(error = %e, "could not record the end of the session"),
    }
    state.shutdown.cancel();
    // The watchers and what was carried on in the background end on the cancel: waited for,
    // so that nothing of this server still runs once it has shut down.
    state.runtime.tasks().end(BACKGROUND_GRACE).await;
    // Every agent stopped with the session: the server's cgroup for them goes.
    state.runtime.containment().close();
    state.data_dir_lock.release();
}

/// How long a shutdown waits for the background tasks after cancelling them.
const BACKGROUND_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Time travel's checkpoints are let go after this long without a look back.
const HISTORY_IDLE: std::time::Duration = std::time::Duration::from_secs(600);

/// Checks now and then whether time travel's checkpoints can go, until shutdown.
fn forget_idle_history(
    store: &store::Store,
    (shutdown, tasks): (&tokio_util::sync::CancellationToken, &tasks::Tasks),
) {
    let (store, shutdown) = (store.clone(), shutdown.clone());
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(HISTORY_IDLE / 4);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => store.forget_idle_history(HISTORY_IDLE),
            }
        }
    });
}
