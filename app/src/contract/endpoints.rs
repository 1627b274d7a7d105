//! Every endpoint of the HTTP API, defined once: its method, its route, what fills the route,
//! the body it takes and the answer it gives. The server's router mounts each at
//! [`Endpoint::ROUTE`]; the console builds each URL with [`Endpoint::path`] and sends a body of
//! the endpoint's own type, so a wrong path or body does not compile. `docs/API.md` is written
//! from [`ALL`] (a test keeps it current).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::*;
use crate::domain::docs::WorktreeDoc;

pub use super::params::*;

/// The methods of the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// One endpoint of the API.
pub trait Endpoint {
    const METHOD: Method;
    /// The route as the router writes it: `{name}` for a parameter, `{*name}` for the rest.
    const ROUTE: &'static str;
    /// What fills the route's parameters (and its query, if any).
    type Params: Params;
    /// The request's body: JSON of this type ([`Empty`] for none, [`Text`] for plain text).
    type Body: Serialize + DeserializeOwned;
    /// The answer's body: JSON of this type ([`Empty`] for a status alone, [`File`] for a
    /// download or a stream).
    type Answer: Serialize + DeserializeOwned;

    /// The URL of this endpoint for `params`.
    fn path(params: &Self::Params) -> String {
        let mut path = fill(Self::ROUTE, &params.segments());
        if let Some(q) = params.query() {
            path.push('?');
            path.push_str(&q);
        }
        path
    }
}

/// No body: sent as `{}`, read as anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}

/// A body of plain text (a soul bundle), not JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text(pub String);

/// An answer that is a file or a stream, not JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct File;

/// `route` with its parameters filled by `segments`, in order.
pub fn fill(route: &str, segments: &[String]) -> String {
    let mut out = String::with_capacity(route.len() + 16);
    let mut given = segments.iter();
    let mut rest = route;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        out.push_str(given.next().map_or("", String::as_str));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// `s` as one URL path segment: unreserved characters as they are, everything else
/// percent-encoded (ids come from the agent's CLI, not from us).
pub fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An endpoint as the API's documentation lists it.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    pub name: &'static str,
    pub method: Method,
    pub route: &'static str,
    pub params: &'static str,
    pub body: &'static str,
    pub answer: &'static str,
    pub doc: &'static str,
}

macro_rules! endpoints {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $method:ident $route:literal, $params:ty, $body:ty => $answer:ty;
    )*) => {
        $(
            $(#[doc = $doc])+
            #[derive(Clone, Copy, Debug)]
            pub struct $name;

            impl Endpoint for $name {
                const METHOD: Method = Method::$method;
                const ROUTE: &'static str = $route;
                type Params = $params;
                type Body = $body;
                type Answer = $answer;
            }
        )*

        /// Every endpoint, in the order the documentation lists them.
        pub const ALL: &[Info] = &[$(
            Info {
                name: stringify!($name),
                method: Method::$method,
                route: $route,
                params: stringify!($params),
                body: stringify!($body),
                answer: stringify!($answer),
                doc: concat!($($doc, "\n"),+),
            },
        )*];
    };
}

endpoints! {
    /// Whether the server answers (`{"ok": true}`); with the access token, also what it runs.
    Healthz: Get "/healthz", (), Empty => Health;
    /// The documents (threads paged: each thread's newest page) and the id of the last event
    /// applied to them.
    Docs: Get "/api/docs", (), Empty => DocsResponse;
    /// The event log as Server-Sent Events: from `?after=N` (or `Last-Event-ID`), then live.
    /// One `id:` per event; `event: reset` for a client ahead of the store.
    Events: Get "/api/events", After, Empty => File;
    /// A message from the human to a seat (the lead by default), `202`. An `Idempotency-Key`
    /// header makes a retry the same message.
    SendMessage: Post "/api/send", (), SendRequest => SendResponse;
    /// SUMMON: newborn agents into the empty seats (those given, or all), `202`.
    Summon: Post "/api/agents/summon", (), SummonRequest => SeatsResponse;
    /// WAKE: the sleeping agents (those given, or all) with soul, transcript and knowledge,
    /// `202`.
    Wake: Post "/api/agents/wake", (), WakeRequest => SeatsResponse;
    /// Puts the agent in a seat to sleep (after its distil turn).
    Dismiss: Post "/api/agents/{pos}/dismiss", Seat, Empty => SeatResponse;
    /// Stops the agent's current turn; the process stays, `202`.
    Interrupt: Post "/api/agents/{pos}/interrupt", Seat, Empty => SeatResponse;
    /// Retires the agent to the Hall (`cascade`: its descendants too).
    Kill: Post "/api/agents/{pos}/kill", Seat, KillRequest => KillResponse;
    /// Forks the agent into an empty seat after its turn, `202`; with every seat taken, into
    /// the seat of the agent asleep longest, who goes to the Hall (`madeRoom`).
    Fork: Post "/api/agents/{pos}/fork", Seat, ForkRequest => SeatResponse;
    /// One identity: its souls, sessions, ledger and lineage.
    Agent: Get "/api/agents/{id}", String, Empty => AgentView;
    /// An identity's knowledge at one version (`?version=N`, the current one by default) and
    /// every version.
    Knowledge: Get "/api/agents/{id}/knowledge", KnowledgeAt, Empty => KnowledgeView;
    /// The human's text for one knowledge file (empty removes it): a new version; the agent is
    /// told.
    EditKnowledge: Put "/api/agents/{id}/knowledge/{*path}", (String, FilePath), KnowledgeEdit => KnowledgeSaved;
    /// Takes the awake agent's vault from its folder now (as a work-state change does); `409`
    /// when it is not awake.
    CaptureKnowledge: Post "/api/agents/{id}/knowledge/capture", String, Empty => KnowledgeCaptured;
    /// The work-state commits of an identity's folder, newest first.
    Commits: Get "/api/agents/{id}/commits", String, Empty => Vec<CommitView>;
    /// An identity's rules: what it may do without asking.
    Rules: Get "/api/agents/{id}/rules", String, Empty => RulesView;
    /// Gives the identity a rule (`{"rule": "Bash(cargo test:*)"}`), `201`: calls it covers are
    /// allowed without asking anyone, the rule recorded as the reason. A rule that does not
    /// parse is `400` with where.
    AddRule: Post "/api/agents/{id}/rules", String, NewRule => RulesView;
    /// Takes rule number `n` from the identity.
    RemoveRule: Delete "/api/agents/{id}/rules/{n}", RuleAt, Empty => RulesView;
    /// An identity's soul bundle, as a file to keep or bring elsewhere.
    Bundle: Get "/api/agents/{id}/bundle", String, Empty => File;
    /// The whole team as one file (a consistent cut of the log).
    Export: Get "/api/export", (), Empty => File;
    /// The retired identities.
    Hall: Get "/api/hall", (), Empty => Vec<HallEntry>;
    /// Seats a retired identity again and wakes it, `202`; with every seat taken, in the seat
    /// of the agent asleep longest, who goes to the Hall (`madeRoom`).
    Recall: Post "/api/hall/{id}/recall", String, RecallRequest => SeatResponse;
    /// Starts a quest on a problem, `202`; one quest runs at a time (`409`).
    StartQuest: Post "/api/quests", (), NewQuest => Created;
    /// Every quest, newest first.
    Quests: Get "/api/quests", (), Empty => Vec<QuestSummary>;
    /// One quest: its stages, findings and artifacts.
    Quest: Get "/api/quests/{id}", String, Empty => QuestView;
    /// Abandons the running quest, `204`.
    AbandonQuest: Post "/api/quests/{id}/abandon", String, Empty => Empty;
    /// The human marks a finding (kept, dismissed), `204`.
    MarkFinding: Post "/api/quests/{id}/findings/{fid}", (String, String), FindingMark => Empty;
    /// One artifact of a quest as Markdown (`report.md`, `stage-1.md`, …).
    Artifact: Get "/api/quests/{id}/artifacts/{file}", (String, String), Empty => File;
    /// Offers a job on the board, `202`: to `--job-offer` awake agents now (the idle first),
    /// the next ones a round at a time while nobody claims it.
    PostJob: Post "/api/jobs", (), NewJob => JobPosted;
    /// The job board.
    Jobs: Get "/api/jobs", (), Empty => Vec<JobView>;
    /// Links a local git repository as a project, `201`: inside `--allow-dir`, a work tree
    /// (not bare); `base` defaults to its current branch.
    LinkProject: Post "/api/projects", (), NewProject => ProjectSummary;
    /// Every project, linked ones first.
    Projects: Get "/api/projects", (), Empty => Vec<ProjectSummary>;
    /// The folders a project may be linked from (`--allow-dir`), as the server's file system
    /// names them.
    ProjectFolders: Get "/api/projects/folders", (), Empty => Vec<String>;
    /// One project: each agent's branch (commits ahead, changed and uncommitted files, review)
    /// and the files two or more agents changed (`overlaps`).
    Project: Get "/api/projects/{id}", String, Empty => ProjectView;
    /// Puts an agent (`{"agent": <identity id>}`) to work on the project, `201`: its worktree
    /// on its own branch `soulgrid/<inbox-slug>`.
    PutToWork: Post "/api/projects/{id}/agents", String, AgentToWork => WorktreeDoc;
    /// One agent's work: what its commits change (what an approval names and a merge
    /// brings), a page of files at a time, its commits, and apart what its worktree has not
    /// committed.
    ProjectDiff: Get "/api/projects/{id}/diff", DiffAt, Empty => DiffView;
    /// A file of the project around a line (a finding's): in the agent's worktree as it is
    /// now, or at the base's head without `agent`; `changed` says whether its branch changes it.
    ProjectFile: Get "/api/projects/{id}/file", FileAt, Empty => FileExcerpt;
    /// The human's comment on a line of an agent's diff, `201`.
    CommentLine: Post "/api/projects/{id}/branches/{identity}/comments", (String, String), LineComment => Created;
    /// Sends the agent every open comment in one message (each with its file, line and the
    /// code around it), `204`.
    RequestChanges: Post "/api/projects/{id}/branches/{identity}/request-changes", (String, String), Empty => Empty;
    /// Asks the agent to rebase its branch onto the base's head (a refused merge's next step):
    /// one message with the base's head and the conflicting files, `204`.
    AskRebase: Post "/api/projects/{id}/branches/{identity}/ask-rebase", (String, String), Empty => Empty;
    /// Approves the branch at `head` (the one the human looked at; its head now if none), one
    /// commit: ready to merge. A branch moved since is `409`; files not committed are named
    /// and the agent asked to commit them.
    ApproveBranch: Post "/api/projects/{id}/branches/{identity}/approve", (String, String), ApproveRequest => Approved;
    /// Merges exactly the approved commit into the base after the project's check passed in
    /// the worktree (one merge of a project at a time); refused: `409` with `files` or `output`.
    MergeBranch: Post "/api/projects/{id}/branches/{identity}/merge", (String, String), MergeRequest => MergeDone;
    /// Unlinks the project, `204`; its branches and worktrees stay.
    UnlinkProject: Post "/api/projects/{id}/unlink", String, Empty => Empty;
    /// An invite for an external agent (`seat`, or the first empty seat when it is used),
    /// `201`: its one-time token, shown once, and a command line for the Python client.
    MakeInvite: Post "/api/invites", (), NewInvite => Invite;
    /// A new secret for the external agent `id`, shown once; a connection with the old one is
    /// closed.
    RotateSecret: Post "/api/agents/{id}/secret", String, Empty => NewSecret;
    /// A watch link, `201`: a revocable token that shows the team live, read-only
    /// (`/watch/{token}`), shown once.
    MakeWatch: Post "/api/watch", (), NewWatch => WatchLink;
    /// Every watch link: its id, label, when it was made, last used and revoked.
    Watches: Get "/api/watch", (), Empty => Vec<WatchView>;
    /// Revokes a watch link (by its token or its id), `204`: its open streams close within a
    /// second.
    RevokeWatch: Post "/api/watch/{token}/revoke", String, Empty => Empty;
    /// Logs this browser out: its login cookie is cleared (`200 {}`). The login itself stays
    /// (`soulgrid token --rotate` ends every session).
    Logout: Post "/api/logout", (), Empty => Empty;
    /// Ends the session: every agent sleeps.
    EndSession: Post "/api/session/end", (), Empty => SessionEnded;
    /// Sets a budget, the team's or (`agent`) an identity's, per UTC day and month in US
    /// dollars (a limit left out stays, `null` removes it); the budgets after. At 100 % an agent
    /// gets no new turn (its mail waits) until the limit is raised or the period turns.
    SetBudget: Post "/api/budgets", (), NewBudget => Vec<BudgetView>;
    /// The team's budget and spend (today, this month), then each identity's budget.
    Budgets: Get "/api/budgets", (), Empty => Vec<BudgetView>;
    /// Permission requests, oldest first: `?state=waiting` is the approval queue (every agent's
    /// requests that wait for an answer); no state: all of them.
    Permissions: Get "/api/permissions", PermissionsAt, Empty => Vec<QueuedRequest>;
    /// The human's answer to a permission request (the first answer counts).
    AnswerPermission: Post "/api/permissions/{id}", String, PermissionAnswer => PermissionAnswered;
    /// Brings a soul bundle (the body, as text) into the Hall; the same bundle again changes
    /// nothing.
    ImportAgent: Post "/api/import/agent", (), Text => Brought;
}

/// `docs/API.md`, as [`ALL`] tells it.
pub fn api_markdown() -> String {
    let mut md = String::from(
        "# The HTTP API\n\n\
         Written from `app/src/contract/endpoints.rs` (the one definition the router and the \
         console both use) by `cargo test -p app`; do not edit by hand. Bodies and answers are \
         JSON of the named types in `app/src/contract/`; every error is `{\"error\": \"...\"}` \
         with a fitting status, on every `/api` path, unknown ones included. A request that \
         changes something must come from the page's own origin (or carry the access token, \
         see SECURITY.md).\n\n\
         | Method | Path | Body | Answer | What it does |\n\
         |---|---|---|---|---|\n",
    );
    for e in ALL {
        let doc = e.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        let body = match e.body {
            "Empty" => "–".to_string(),
            "Text" => "text".to_string(),
            b => format!("`{b}`"),
        };
        let answer = match e.answer {
            "Empty" => "status".to_string(),
            "File" => "file / stream".to_string(),
            a => format!("`{}`", a.replace(' ', "")),
        };
        let query = match e.params {
            "After" => "[?after=N]",
            "KnowledgeAt" => "[?version=N]",
            "DiffAt" => "?agent=ID[&page=N]",
            "FileAt" => "?path=P[&agent=ID][&line=N]",
            "PermissionsAt" => "[?state=waiting]",
            _ => "",
        };
        md.push_str(&format!(
            "| {} | `{}{query}` | {body} | {answer} | {doc} |\n",
            e.method.as_str(),
            e.route
        ));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_filled_in_order_and_encoded() {
        assert_eq!(Kill::path(&7), "/api/agents/7/kill");
        assert_eq!(Recall::path(&"a/b c".into()), "/api/hall/a%2Fb%20c/recall");
        assert_eq!(
            MarkFinding::path(&("q1".into(), "f 2".into())),
            "/api/quests/q1/findings/f%202"
        );
        assert_eq!(
            EditKnowledge::path(&("id".into(), FilePath("notes/é.md".into()))),
            "/api/agents/id/knowledge/notes/%C3%A9.md"
        );
        assert_eq!(
            Events::path(&After { after: Some(5) }),
            "/api/events?after=5"
        );
        assert_eq!(Events::path(&After::default()), "/api/events");
        assert_eq!(
            Knowledge::path(&KnowledgeAt {
                id: "x".into(),
                version: Some(2)
            }),
            "/api/agents/x/knowledge?version=2"
        );
        assert_eq!(SendMessage::path(&()), "/api/send");
        assert_eq!(path_segment("b2dc09c1-def1_x.y~"), "b2dc09c1-def1_x.y~");
    }

    #[test]
    fn no_two_endpoints_share_a_method_and_route() {
        let mut seen = std::collections::HashSet::new();
        for e in ALL {
            assert!(
                seen.insert((e.method, e.route)),
                "{} {}",
                e.method.as_str(),
                e.route
            );
        }
    }

    #[test]
    fn an_empty_body_is_an_empty_object() {
        assert_eq!(serde_json::to_string(&Empty {}).unwrap(), "{}");
    }

    /// `docs/API.md` is what [`ALL`] says (`SOULGRID_WRITE_API_MD=1` writes it).
    #[test]
    fn the_api_document_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/API.md");
        let want = api_markdown();
        if std::env::var_os("SOULGRID_WRITE_API_MD").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/API.md is not what app/src/contract/endpoints.rs says: run \
             SOULGRID_WRITE_API_MD=1 cargo test -p app the_api_document_is_current"
        );
    }
}
