//! The findings board of a quest, live in every tab: its findings grouped by stage, each with
//! its agent's face, which the human can pin, strike or comment on (the lead reads comments at
//! the next stage boundary); and its artifacts (each stage's output and the report) rendered
//! with the safe Markdown, each downloadable as `.md`. Then the job board.

use crate::api::Call;
use crate::contract::endpoints::{self as e, Endpoint as _};
use leptos::prelude::*;

use super::action::Action;
use super::face::Face;
use super::quest::{shown_quest, ShownQuest};
use crate::contract::endpoints::FileAt;
use crate::contract::{job_views, FileExcerpt, FindingMark, JobPosted, NewJob};
use crate::domain::docs::{identity_by_id, ArtifactKind, Docs, FindingDoc, JobStatus};
use crate::domain::markdown;
use crate::domain::palette::seat_style;
use crate::domain::quest::{findings_of, latest_artifacts};
use crate::live::use_live;

/// The face a finding is shown with: its agent's, wherever it is now.
fn face_of(docs: &Docs, f: &FindingDoc) -> (String, String, String) {
    let who = f
        .identity_id
        .as_deref()
        .and_then(|id| identity_by_id(docs, id));
    let style = seat_style(f.seat);
    let face = who.and_then(|w| w.face_variant.clone());
    (
        who.and_then(|w| w.color.clone())
            .or_else(|| style.map(|s| s.color.to_string()))
            .unwrap_or_default(),
        face.as_ref()
            .map(|f| f.eyes.clone())
            .or_else(|| style.map(|s| s.eyes.to_string()))
            .unwrap_or_default(),
        face.map(|f| f.mouth)
            .or_else(|| style.map(|s| s.mouth.to_string()))
            .unwrap_or_default(),
    )
}

#[component]
#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn Board() -> impl IntoView {
    let live = use_live();
    let shown = expect_context::<ShownQuest>();
    let quest = Memo::new(move |_| {
        let chosen = shown.0.get();
        live.docs.with(|d| shown_quest(d, chosen.as_deref()))
    });
    move || {
        quest.get().map(|q| {
            let id = q.quest_id.clone();
            let project = q.project.clone();
            let stages = q
                .stages
                .iter()
                .map(|s| {
                    let (id, index) = (id.clone(), s.index);
                    let project = project.clone();
                    let findings = move || {
                        live.docs.with(|d| {
                            findings_of(d, &id)
                                .into_iter()
                                .filter(|f| f.stage == index)
                                .map(|f| (f.clone(), face_of(d, f)))
                                .collect::<Vec<_>>()
                        })
                    };
                    let state = match (s.started_at, s.ended_at) {
                        (_, Some(_)) => "done",
                        (Some(_), None) => "running",
                        (None, None) => "pending",
                    };
                    view! {
                        <section class="board-stage" data-stage=s.index data-state=state>
                            <h3>{format!("Stage {}: {}", s.index + 1, s.name)}<span class="muted">{format!(" · {state}")}</span></h3>
                            <ul class="findings">
                                <For each=findings key=|(f, _)| (f.finding_id.clone(), f.pinned, f.struck, f.comments.len()) let:item>
                                    <Finding f=item.0 face=item.1 project=project.clone()/>
                                </For>
                            </ul>
                        </section>
                    }
                })
                .collect_view();
            let artifacts = {
                let id = id.clone();
                move || {
                    live.docs.with(|d| {
                        latest_artifacts(d, &id)
                            .into_iter()
                            .map(|a| {
                                let href = e::Artifact::path(&(a.quest_id.clone(), format!("{}.md", a.name)));
                                let report = a.kind == ArtifactKind::Report;
                                view! {
                                    <details class="artifact" data-artifact=a.name.clone() open=report>
                                        <summary>{a.title.clone()}<span class="muted">{format!(" · version {}", a.version)}</span></summary>
                                        <div class="text md" inner_html=markdown::render(&a.text)></div>
                                        <a class="download" href=href download=format!("{}.md", a.name)>"Download .md"</a>
                                    </details>
                                }
                            })
                            .collect_view()
                    })
                }
            };
            // A finished quest shows its report first; an abandoned one says so.
            let done = q.status == crate::domain::docs::QuestStatus::Done;
            let abandoned = q.status == crate::domain::docs::QuestStatus::Abandoned;
            let artifacts = view! {
                <h2>"Artifacts"</h2>
                <div class="artifacts">{artifacts}</div>
            };
            let (first, last) = match done {
                true => (Some(artifacts), None),
                false => (None, Some(artifacts)),
            };
            view! {
                <section class="board" aria-label="Findings board" data-quest=id.clone()
                    data-quest-state=q.status.as_str()>
                    <h2>"Findings board" {abandoned.then(|| view! { <span class="abandoned-mark">" · abandoned"</span> })}</h2>
                    <p class="muted">{q.problem.chars().take(160).collect::<String>()}</p>
                    {first}
                    {stages}
                    {last}
                </section>
            }
        })
    }
}

#[component]
fn Finding(
    f: FindingDoc,
    face: (String, String, String),
    project: Option<String>,
) -> impl IntoView {
    let action = Action::new();
    let Action { busy, error } = action;
    let comment = RwSignal::new(String::new());
    let ids = (f.quest_id.clone(), f.finding_id.clone());
    let mark = move |m: FindingMark| {
        action.send(Call::new::<e::MarkFinding>(&ids, &m));
    };
    let (pin, strike, add) = (mark.clone(), mark.clone(), mark);
    let (pinned, struck) = (f.pinned, f.struck);
    let severity = f.severity.map(|s| s.as_str());
    view! {
        <li class="finding" data-finding=f.finding_id.clone() data-pinned=pinned.to_string()
            data-struck=struck.to_string() data-severity=severity>
            <Face color=face.0 eyes_kind=face.1 mouth_kind=face.2/>
            <div class="finding-body">
                <p class="finding-title">
                    <strong>{f.title.clone()}</strong>
                    {severity.map(|s| view! { <span class="severity">{s}</span> })}
                    <span class="muted">{format!(" · {}", f.agent)}</span>
                </p>
                {f.file.clone().map(|file| view! {
                    <FindingPlace file=file line=f.line project=project.clone() agent=f.identity_id.clone()/>
                })}
                <div class="text md" inner_html=markdown::render(&f.body)></div>
                {f.comments.iter().map(|c| view! { <p class="comment">{c.text.clone()}</p> }).collect_view()}
                <div class="finding-actions">
                    <button type="button" class="agent-action" disabled=move || busy.get()
                        on:click=move |_| pin(FindingMark { pinned: Some(!pinned), ..Default::default() })>
                        {if pinned { "Unpin" } else { "Pin" }}
                    </button>
                    <button type="button" class="agent-action" disabled=move || busy.get()
                        on:click=move |_| strike(FindingMark { struck: Some(!struck), ..Default::default() })>
                        {if struck { "Unstrike" } else { "Strike" }}
                    </button>
                    <label class="sr-only" for=format!("comment-{}", f.finding_id)>"A comment for the lead"</label>
                    <input id=format!("comment-{}", f.finding_id) type="text" placeholder="A comment for the lead"
                        prop:value=move || comment.get() on:input=move |ev| comment.set(event_target_value(&ev))/>
                    <button type="button" class="agent-action" disabled=move || busy.get() || comment.get().trim().is_empty()
                        on:click=move |_| add(FindingMark { comment: Some(comment.get_untracked()), ..Default::default() })>
                        "Comment"
                    </button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </div>
        </li>
    }
}

/// A finding's `file:line`: on a quest on a project, a click shows the file around the line as
/// the agent's worktree holds it (and whether its branch changes it: its diff is under
/// Projects).
#[component]
fn FindingPlace(
    file: String,
    line: Option<u32>,
    project: Option<String>,
    agent: Option<String>,
) -> impl IntoView {
    let place = match line {
        Some(l) => format!("{file}:{l}"),
        None => file.clone(),
    };
    let Some(project) = project else {
        return view! { <p class="finding-place"><code>{place}</code></p> }.into_any();
    };
    let open = RwSignal::new(false);
    let got = RwSignal::new(None::<Result<FileExcerpt, String>>);
    let at = FileAt {
        project,
        path: file,
        agent,
        line,
    };
    let toggle = move |_| {
        open.update(|o| *o = !*o);
        if open.get_untracked() && got.get_untracked().is_none() {
            let at = at.clone();
            leptos::task::spawn_local(async move {
                got.set(Some(
                    crate::api::call::<e::ProjectFile>(&at, &e::Empty {}).await,
                ));
            });
        }
    };
    view! {
        <p class="finding-place">
            <button type="button" class="link" aria-expanded=move || open.get().to_string() on:click=toggle>
                <code>{place}</code>
            </button>
        </p>
        <Show when=move || open.get()>
            {move || match got.get() {
                None => view! { <p class="muted">"Looking…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Some(Ok(x)) => excerpt(x).into_any(),
            }}
        </Show>
    }
    .into_any()
}

/// The lines of a file around one, numbered, that one marked.
fn excerpt(x: FileExcerpt) -> impl IntoView {
    let said = match (x.changed, &x.note) {
        (_, Some(note)) => format!("{} · {note}", x.from),
        (true, None) => format!(
            "{} · changed on its branch (its diff is under Projects)",
            x.from
        ),
        (false, None) => x.from.clone(),
    };
    let lines = x
        .lines
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let n = x.first + i as u32;
            let here = Some(n) == x.line;
            view! {
                <tr class:here=here data-line=n>
                    <td class="num">{n}</td>
                    <td class="code"><pre>{text}</pre></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="file-excerpt">
            <p class="muted">{said}</p>
            <table class="hunks"><tbody>{lines}</tbody></table>
        </div>
    }
}

/// The job board: what is offered, who took it, what came of it; and a job to post.
#[component]
pub fn Jobs() -> impl IntoView {
    let live = use_live();
    let count = Memo::new(move |_| live.docs.with(|d| job_views(d).len()));
    view! {
        <super::lazy::LazyDetails class="panel jobs" load=jobs_body>
            {move || format!("Jobs ({})", count.get())}
        </super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn jobs_body() -> AnyView {
    view! { <JobsBody/> }.into_any()
}

/// The job board's body (`Jobs`): the jobs so far, and a new one offered.
#[component]
fn JobsBody() -> impl IntoView {
    let live = use_live();
    let jobs = Memo::new(move |_| live.docs.with(job_views));
    let (title, text) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let error = RwSignal::new(None::<String>);
    let said = RwSignal::new(None::<String>);
    let post = move |_| {
        said.set(None);
        let body = NewJob {
            title: title.get_untracked(),
            text: text.get_untracked(),
        };
        error.set(None);
        leptos::task::spawn_local(async move {
            let posted: Result<JobPosted, String> =
                crate::api::call::<e::PostJob>(&(), &body).await;
            match posted {
                Ok(p) => {
                    title.set(String::new());
                    text.set(String::new());
                    said.set(Some(p.said));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <ul>
            {move || jobs.get().into_iter().map(|j| {
                let state = match j.status {
                    JobStatus::Open => "open".to_string(),
                    JobStatus::Claimed => format!("taken by {}", j.claimed_by.clone().unwrap_or_default()),
                    JobStatus::Done => format!("done by {}", j.claimed_by.clone().unwrap_or_default()),
                };
                view! {
                    <li data-job=j.id.clone()>
                        <strong>{j.title.clone()}</strong><span class="muted">{format!(" · {state}")}</span>
                        {j.result.clone().map(|r| view! { <p class="muted">{r}</p> })}
                    </li>
                }
            }).collect_view()}
        </ul>
        <label for="job-title">"Title"</label>
        <input id="job-title" type="text" prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev))/>
        <label for="job-text">"What to do"</label>
        <textarea id="job-text" rows="2" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
        <p class="hint">"Each offer begins a turn: a job goes to a few awake agents at a time, the idle ones first, and to the next few while nobody claims it."</p>
        <button type="button" class="agent-action" disabled=move || title.get().trim().is_empty() on:click=post>"Offer the job"</button>
        {move || said.get().map(|s| view! { <p class="job-posted">{s}</p> })}
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
