//! Command-line flags, each also an environment variable `SOULGRID_<FLAG>`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

pub use crate::clock::parse_duration;

/// A `--notify-url`: http or https, with a host.
fn notify_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))
        .ok_or_else(|| format!("{s:?} is not an http:// or https:// URL"))?;
    match rest.split(['/', '?', '#']).next() {
        Some(host) if !host.is_empty() => Ok(s.to_string()),
        _ => Err(format!("{s:?} has no host")),
    }
}

#[derive(Clone, Debug, Parser)]
#[command(
    name = "soulgrid",
    version,
    about = "A web console for a team of Claude Code agents"
)]
pub struct Config {
    /// Address to serve on. Overrides the Leptos site address.
    #[arg(long, env = "SOULGRID_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Where the store, mailboxes and agent scratch space live. Made absolute (against the
    /// folder the server starts in) as it is read: git runs in the worktrees with the server's
    /// folders named, and the file watcher reports absolute paths.
    #[arg(
        long,
        env = "SOULGRID_DATA_DIR",
        default_value = "./data",
        global = true,
        value_parser = absolute
    )]
    pub data_dir: PathBuf,

    /// Where the event log and the documents are kept: SQLite in the data directory (the
    /// default) or a PostgreSQL database, by its URL (`postgres://user@host:port/name`). The
    /// data directory still holds the agents' folders and mailboxes.
    #[arg(
        long,
        env = "SOULGRID_DATABASE_URL",
        global = true,
        hide_env_values = true,
        value_parser = database
    )]
    pub database: Option<crate::store::Database>,

    /// Where the other servers of the team reach this one (`host:port`), when it is not
    /// `--addr` (several servers on one PostgreSQL database: followers forward to the leader).
    #[arg(long, env = "SOULGRID_ADVERTISE")]
    pub advertise: Option<SocketAddr>,

    /// How long the leader's lease lasts without a renewal (it renews every third of it): a
    /// follower takes over within this much of the leader's death, plus a few seconds.
    #[arg(long, env = "SOULGRID_LEASE", default_value = "10s", value_parser = parse_duration)]
    pub lease: Duration,

    /// How many live events a follower of the log may fall behind before it reads from the log
    /// instead. A test setting: lowered, it makes every follower lag.
    #[arg(long, hide = true, default_value_t = crate::store::LIVE_CAPACITY)]
    pub live_capacity: usize,

    /// The human's name, as agents address them. Defaults to the OS user name, capitalised.
    #[arg(long, env = "SOULGRID_HUMAN_NAME")]
    pub human_name: Option<String>,

    /// The lead agent's name (seat 4, the centre of the grid).
    #[arg(long, env = "SOULGRID_LEAD_NAME", default_value = "Julian")]
    pub lead_name: String,

    /// The Claude Code command agents run as. Default: `claude` when it is on PATH, else the
    /// bundled simulator `soulgrid-sim` (a simulated team, labelled as such in the UI).
    #[arg(long, env = "SOULGRID_CLAUDE_CMD")]
    pub claude_cmd: Option<String>,

    /// Extra arguments for every Claude process, split on whitespace.
    #[arg(
        long,
        env = "SOULGRID_CLAUDE_ARGS",
        default_value = "--permission-mode acceptEdits",
        allow_hyphen_values = true
    )]
    pub claude_args: String,

    /// The team name: mailboxes live in `{data_dir}/teams/{team}/inboxes/`.
    #[arg(long, env = "SOULGRID_TEAM", default_value = "soulgrid")]
    pub team: String,

    #[command(flatten)]
    pub agents: crate::runtime::AgentSettings,

    /// How long a message waits for an inbox another program holds locked; then sending it
    /// fails (a 503 for the human, an error on the agent's seat).
    #[arg(long, env = "SOULGRID_INBOX_LOCK_TIMEOUT", default_value = "15s", value_parser = parse_duration)]
    pub inbox_lock_timeout: Duration,

    /// Back the store up this often while serving (into `{data-dir}/backups/`); none: never.
    #[arg(long, env = "SOULGRID_BACKUP_EVERY", value_parser = parse_duration)]
    pub backup_every: Option<Duration>,

    /// How many of those backups to keep (the oldest go first).
    #[arg(long, env = "SOULGRID_BACKUP_KEEP", default_value_t = 24)]
    pub backup_keep: usize,

    /// Told when it matters, even with the browser closed: a JSON POSTed to this URL when a
    /// permission waits for you, a review is asked, a report is ready, a budget is reached or
    /// an agent crashes (repeatable; retried, never in the runtime's way).
    #[arg(long = "notify-url", env = "SOULGRID_NOTIFY_URL", value_delimiter = ',', value_parser = notify_url)]
    pub notify_url: Vec<String>,

    #[command(flatten)]
    pub http: HttpLimits,

    /// The human's login, needed by every request (`Authorization: Bearer …`, or the
    /// `soulgrid_token` cookie that opening `/?token=…` once sets). Without it the server makes
    /// one at its first start and keeps it in `{data-dir}/login-token` (`soulgrid token`).
    /// Servers that share a team on PostgreSQL are all given the same one.
    #[arg(long, env = "SOULGRID_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What the binary does; serving is the default.
/// The bounds on clients (flags of `soulgrid serve`).
#[derive(Clone, Debug, clap::Args)]
pub struct HttpLimits {
    /// A request's headers must arrive within this long (a half-sent request is dropped).
    #[arg(long, env = "SOULGRID_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// A request body that sends nothing for this long is dropped.
    #[arg(long, env = "SOULGRID_BODY_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// On shutdown, requests under way get this long; then every open connection is dropped.
    #[arg(long, env = "SOULGRID_SHUTDOWN_GRACE", default_value = "10s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// At most this many connections are open at once; more wait to be accepted.
    #[arg(long, env = "SOULGRID_MAX_CONNECTIONS", default_value_t = 512)]
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
            max_connections: 512,
        }
    }
}

#[derive(Clone, Debug, Subcommand)]
pub enum Command {
    /// Serve the console (what `soulgrid` alone does).
    Serve,
    /// Inside an agent's sandbox (not for people): run PROGRAM, carrying connections to
    /// `--listen` to the egress proxy's socket `--unix`.
    #[command(hide = true)]
    Relay {
        #[arg(long)]
        listen: std::net::SocketAddr,
        #[arg(long)]
        unix: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        program: Vec<std::ffi::OsString>,
    },
    /// Print the login link of the server on this data directory (`--data-dir`, `--addr`).
    Token {
        /// Make a new login first: every browser logged in with the old one is logged out,
        /// also while the server runs.
        #[arg(long)]
        rotate: bool,
    },
    /// Write the whole team (the event log and the agents' folders) to one file, also while
    /// the server runs.
    Export {
        /// The file to write (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Restore a team from an export into an empty data directory (`--data-dir`).
    Import {
        /// The export to read (`-`: standard input, e.g. a pipe).
        file: PathBuf,
    },
    /// Copy the store while the server runs (SQLite's online backup), checked, into a new
    /// data directory DEST: start the server on DEST to restore it. A store in PostgreSQL
    /// (`--database`) is backed up as an export, `DEST/team.export` (`soulgrid import`).
    Backup {
        /// The directory to create the copy in.
        dest: PathBuf,
    },
    /// Move a team's log from its SQLite store into an empty PostgreSQL database; the agents'
    /// folders stay in the data directory (start the server on it with `--database TO`).
    Migrate {
        /// The SQLite store: `data/soulgrid.db` (or its data directory).
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database: `postgres://user@host:port/name`.
        #[arg(long, value_parser = database)]
        to: crate::store::Database,
    },
}

impl Config {
    /// The human's name: the flag, else the OS user name capitalised, else "Human".
    pub fn human_name(&self) -> String {
        self.human_name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
            .map(|n| capitalise(n.trim()))
            .unwrap_or_else(|| "Human".into())
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `path` made absolute against the current folder (not resolved: a link stays a link).
fn absolute(path: &str) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{path}: {e}"))
}

/// `--database`: a PostgreSQL URL (SQLite needs none: it is the default).
fn database(url: &str) -> Result<crate::store::Database, String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(crate::store::Database::Postgres(url.to_string()))
    } else {
        Err("a PostgreSQL URL: postgres://user@host:port/name (without --database the store is SQLite in the data directory)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::PermissionMode;

    /// The tag agents' processes carry in their environment is no flag's variable: a
    /// `soulgrid` run from an agent's shell would read it as that flag.
    #[test]
    fn no_flag_reads_the_agents_tag() {
        use clap::CommandFactory;
        let command = Config::command();
        let envs: Vec<String> = command
            .get_arguments()
            .filter_map(|a| a.get_env())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        assert!(envs.iter().any(|e| e == "SOULGRID_CONTAINMENT"), "{envs:?}");
        assert!(
            !envs.iter().any(|e| e == crate::runtime::contain::TAG_VAR),
            "{envs:?}"
        );
    }

    #[test]
    fn a_database_is_a_postgres_url() {
        use crate::store::Database;
        let c = Config::try_parse_from(["soulgrid"]).unwrap();
        assert_eq!(c.database, None);
        for url in [
            "postgres://sg@db/team",
            "postgresql://sg:pw@127.0.0.1:5433/t",
        ] {
            let c = Config::try_parse_from(["soulgrid", "--database", url]).unwrap();
            assert_eq!(c.database, Some(Database::Postgres(url.into())));
        }
        let err = Config::try_parse_from(["soulgrid", "--database", "mysql://db/team"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("postgres://"), "{err}");
    }

    #[test]
    fn a_relative_data_dir_is_made_absolute() {
        let c = Config::try_parse_from(["soulgrid", "--data-dir", "team/data"]).unwrap();
        assert!(c.data_dir.is_absolute(), "{}", c.data_dir.display());
        assert_eq!(
            c.data_dir,
            std::env::current_dir().unwrap().join("team/data")
        );
    }

    #[test]
    fn defaults() {
        let c = Config::try_parse_from(["soulgrid"]).unwrap();
        assert_eq!(c.addr.to_string(), "127.0.0.1:3000");
        assert_eq!(c.lead_name, "Julian");
        assert_eq!(c.data_dir, std::env::current_dir().unwrap().join("data"));
        assert_eq!(c.agents.permissions, PermissionMode::Auto);
        assert_eq!(c.agents.approvals, crate::runtime::ApprovalMode::Human);
        assert_eq!(c.agents.lead_approval_timeout, Duration::from_secs(120));
        assert_eq!(c.agents.permission_timeout, Duration::from_secs(300));
        assert_eq!(c.agents.stop_grace, Duration::from_secs(5));
        let c = Config::try_parse_from(["soulgrid", "--permissions", "ui"]).unwrap();
        assert_eq!(c.agents.permissions, PermissionMode::Ui);
        let err = Config::try_parse_from(["soulgrid", "--permissions", "ask"]).unwrap_err();
        assert!(
            err.to_string().contains("possible values: auto, ui"),
            "{err}"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_duration("soon")
            .unwrap_err()
            .contains("not a duration"));
        assert!(parse_duration("5d").unwrap_err().contains("unit"));
    }

    #[test]
    fn human_name_is_capitalised() {
        let c = Config::try_parse_from(["soulgrid", "--human-name", "marcus"]).unwrap();
        assert_eq!(c.human_name(), "Marcus");
    }

    #[test]
    fn a_bad_address_is_a_clear_error() {
        let err = Config::try_parse_from(["soulgrid", "--addr", "nowhere"]).unwrap_err();
        assert!(
            err.to_string()
                .contains("invalid value 'nowhere' for '--addr <ADDR>'"),
            "{err}"
        );
    }
}
