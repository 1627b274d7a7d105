//! Thin: configuration, wiring, serve.

use clap::Parser;
use leptos::config::get_configuration;
use soulgrid::config::{Command, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
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
        Some(other) => {
            // One line on failure, and a non-zero exit.
            if let Err(e) = soulgrid::portable::cli::run(other, &config) {
                eprintln!("soulgrid: {e}");
                std::process::exit(1);
            }
            return Ok(());
        }
    }
    let mut leptos = get_configuration(None)
        .map_err(|e| anyhow::anyhow!("reading the Leptos configuration: {e}"))?
        .leptos_options;
    // `--addr` wins over LEPTOS_SITE_ADDR so tests and users choose the port in one place.
    leptos.site_addr = config.addr;

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
    let shutdown_state = state.clone();
    let router = soulgrid::http::router(state);
    soulgrid::http::serve::serve(listener, router, config.http.clone(), async move {
        shutdown_signal().await;
        // Cancel SSE streams first, or graceful shutdown would wait for them until its grace.
        soulgrid::shut_down(&shutdown_state).await;
    })
    .await?;
    tracing::info!("soulgrid stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}
