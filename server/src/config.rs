//! Command-line flags, each also an environment variable `SOULGRID_<FLAG>`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

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

    /// Where the store, mailboxes and agent scratch space live.
    #[arg(long, env = "SOULGRID_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// The human's name, as agents address them. Defaults to the OS user name, capitalised.
    #[arg(long, env = "SOULGRID_HUMAN_NAME")]
    pub human_name: Option<String>,

    /// The lead agent's name (seat 4, the centre of the grid).
    #[arg(long, env = "SOULGRID_LEAD_NAME", default_value = "Julian")]
    pub lead_name: String,

    /// Required to bind anything but loopback; sent as `Authorization: Bearer …` or the
    /// `soulgrid_token` cookie (opening `/?token=…` once sets it).
    #[arg(long, env = "SOULGRID_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let c = Config::try_parse_from(["soulgrid"]).unwrap();
        assert_eq!(c.addr.to_string(), "127.0.0.1:3000");
        assert_eq!(c.lead_name, "Julian");
        assert_eq!(c.data_dir, PathBuf::from("./data"));
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
