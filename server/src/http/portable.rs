//! Portable history over HTTP: the whole team as one file (streamed), one agent as a soul
//! bundle, and a bundle brought into the Hall.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;

use super::extract::AppPath;
use crate::error::AppError;
use crate::portable::bundle::{bring, bundle, Brought};
use crate::portable::PortableError;
use crate::state::AppState;

impl From<PortableError> for AppError {
    fn from(e: PortableError) -> Self {
        match e {
            PortableError::Store(s) => AppError::Store(s),
            PortableError::Io(_) => AppError::Unavailable(e.to_string()),
            other => AppError::BadRequest(other.to_string()),
        }
    }
}

/// Bytes written to a channel, for a response body read as a stream (memory stays flat: at
/// most a few chunks are in flight). A client that takes nothing for [`STALLED`] ends the
/// download: it would hold one of the few heavy reads for ever.
struct ChannelWriter(tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>);

/// How long a download may take nothing before it is ended.
const STALLED: std::time::Duration = std::time::Duration::from_secs(60);

impl std::io::Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // On a blocking thread of the runtime: its timer bounds the wait.
        let send = self.0.send(Ok(Bytes::copy_from_slice(buf)));
        match tokio::runtime::Handle::current().block_on(tokio::time::timeout(STALLED, send)) {
            Ok(Ok(())) => Ok(buf.len()),
            Ok(Err(_)) => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the download was closed",
            )),
            Err(_) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the download took nothing for a minute",
            )),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `GET /api/export`: the whole team as one file, streamed while it is written (a consistent
/// cut of the log at the moment it starts).
pub async fn export(
    State(state): State<AppState>,
    permit: Option<axum::Extension<super::whole_log::HeavyPermit>>,
) -> impl IntoResponse {
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let data_dir = state.runtime.config().data_dir.clone();
    let team = state.team.to_string();
    let clock = state.runtime.clock().clone();
    let database = state.store.database().clone();
    tokio::task::spawn_blocking(move || {
        // One of the few heavy reads at once until the whole export is read.
        let _permit = permit;
        let errors = tx.clone();
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, ChannelWriter(tx));
        let exported = crate::portable::team::export_from(
            &data_dir,
            &database,
            (&team, &clock),
            &mut out,
            &mut |_| {},
        );
        if let Err(e) = exported {
            tracing::warn!(error = %e, "an export over HTTP failed");
            // Said if there is room; a stalled client is not waited for.
            let _ = errors.try_send(Err(std::io::Error::other(e.to_string())));
        }
    });
    let name = format!("soulgrid-{}.export", safe_name(&state.team));
    (
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx)),
    )
}

fn safe_name(s: &str) -> String {
    let kept: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    if kept.is_empty() {
        "soul".into()
    } else {
        kept
    }
}

/// `GET /api/agents/{id}/bundle`: the identity as a `.soul` file.
pub async fn download(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<impl IntoResponse, AppError> {
    let owners = state.store.with_docs(|d| {
        app::domain::docs::identity_by_id(d, &id)
            .map(app::domain::docs::page::thread_owners)
            .unwrap_or_default()
    });
    let (d, _) = state.store.docs_with_threads(Some(owners)).await?;
    // Its unmerged branches, one per project it works on.
    let owned: Vec<(String, String, String)> = app::domain::docs::identity_by_id(&d, &id)
        .map(|i| {
            app::domain::projects::worktrees_of(&d, &i.stable_id())
                .into_iter()
                .filter_map(|w| {
                    let p = app::domain::projects::project(&d, &w.project_id)?;
                    Some((p.project_id.clone(), p.name.clone(), w.branch.clone()))
                })
                .collect()
        })
        .unwrap_or_default();
    let branches =
        crate::portable::carried::soul_branches(&state.runtime.config().data_dir, owned).await;
    let (bytes, name) = app::domain::docs::identity_by_id(&d, &id)
        .and_then(|i| {
            Some((
                bundle(&d, &id, (&state.team, state.runtime.clock()), branches)?,
                i.name.clone(),
            ))
        })
        .ok_or_else(|| AppError::NoSuch("no agent has this id".into()))?;
    let file = format!("{}.soul", safe_name(&name.unwrap_or_default()));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-soulgrid-soul".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        bytes,
    ))
}

/// `POST /api/import/agent` (the bundle as the body): the identity enters the Hall; bringing
/// the same bundle again changes nothing.
pub async fn import_agent(
    State(state): State<AppState>,
    body: String,
) -> Result<Json<Brought>, AppError> {
    Ok(Json(bring(&state.runtime, &body).await?))
}
