//! Thin: configuration, wiring, serve.

use clap::Parser;
use leptos::config::get_configuration;
use soulgrid::config::{Command, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,soulgrid=debug")),
        )
        .init();
    let config = Config::parse();
    match &config.command {
        None | Some(Command::Serve) => {}
        // Inside an agent's sandbox.
        Some(Command::Relay {
            listen,
            unix,
            program,
        }) => {
            let code = soulgrid::sandbox::relay::run(*listen, unix.clone(), program.clone()).await;
            std::process::exit(code);
        }
        Some(Command::Token { rotate }) => match soulgrid::login::cli(&config, *rotate) {
            Ok(link) => {
                println!("{link}");
                return Ok(());
            }
            Err(e) => {
                eprintln!("soulgrid: {e}");
                std::process::exit(1);
            }
        },
        Some(other) => {
            // One line on failure, and a non-zero exit.
            // Blocking work (files, the database's blocking client): off the async threads.
            if let Err(e) =
                tokio::task::block_in_place(|| soulgrid::portable::cli::run(other, &config))
            {
                eprintln!("soulgrid: {e}");
                std::process::exit(1);
            }
            return Ok(());
        }
    }
    let mut leptos = get_configuration(None)
        .map_err(|e| anyhow::anyhow!("reading the Leptos configuration: {e}"))?
        .leptos_options;
    // A release build names the page's files by their content's hash and writes the hashes
    // beside the binary: found there however the server was started (`http::site`).
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Into::into))
    {
        let dir: std::path::PathBuf = dir;
        let set = std::env::var_os("LEPTOS_HASH_FILES");
        leptos.hash_files = soulgrid::http::site::hashed_build(set.as_deref(), &dir, &leptos)
            .unwrap_or_else(|e| {
                tracing::warn!("{e}");
                false
            });
    }
    // `--addr` wins over LEPTOS_SITE_ADDR so tests and users choose the port in one place.
    leptos.site_addr = config.addr;

    // The signals are taken before the server answers anything: a SIGTERM that comes as soon as
    // `/healthz` answers is a clean stop, not the default action's kill (a loaded CI run met
    // that window when the handler was set up on the shutdown future's first poll).
    let stop = shutdown_signal()?;
    // On PostgreSQL several servers may share the team: one leads, the others follow.
    if let Some(soulgrid::store::Database::Postgres(url)) = &config.database {
        // A follower hands the human's requests to the leader, which checks the same login.
        if config.token.as_deref().is_none_or(|t| t.trim().is_empty()) {
            anyhow::bail!(
                "on PostgreSQL every server of the team needs the same login: give each the same \
                 --token (SOULGRID_TOKEN)"
            );
        }
        let stopping = tokio_util::sync::CancellationToken::new();
        tokio::spawn({
            let stopping = stopping.clone();
            async move {
                stop.await;
                stopping.cancel();
            }
        });
        soulgrid::cluster::run(&config, leptos, url, stopping).await?;
        tracing::info!("soulgrid stopped");
        return Ok(());
    }
    let state = soulgrid::boot(&config, leptos).await?;
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.addr))?;
    tracing::info!(
        data_dir = %config.data_dir.display(),
        lead = %state.lead_name,
        human = %state.human_name,
        "soulgrid listening on http://{}",
        config.addr
    );
    // Where a person sees it: the way in (`soulgrid token` prints it again).
    println!(
        "soulgrid: log in at {}",
        soulgrid::login::link(config.addr, &state.security.login())
    );
    let shutdown_state = state.clone();
    let router = soulgrid::http::router(state);
    soulgrid::http::serve::serve(listener, router, config.http.clone(), async move {
        stop.await;
        // Cancel SSE streams first, or graceful shutdown would wait for them until its grace.
        soulgrid::shut_down(&shutdown_state).await;
    })
    .await?;
    tracing::info!("soulgrid stopped");
    Ok(())
}

/// SIGINT or SIGTERM, listened for from now on: the future ends at the first.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let (mut term, mut int) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::terminate())?,
            signal(SignalKind::interrupt())?,
        )
    };
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
}
