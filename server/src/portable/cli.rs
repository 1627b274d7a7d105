//! `soulgrid export|import|backup|migrate`: each prints its progress on standard error and
//! fails with one line saying why. Each reads and writes the store `--database` names (SQLite
//! in the data directory without it).

use crate::clock::Clock;
use std::io::Write;

use super::PortableError;
use crate::config::{Command, Config};

/// Runs a subcommand other than `serve`.
pub fn run(command: &Command, config: &Config) -> Result<(), PortableError> {
    let data_dir = &config.data_dir;
    let database = config.database.clone().unwrap_or_default();
    let mut said = String::new();
    // Progress on one line, rewritten (the last word stays when the work is done).
    let mut progress = |what: &str| {
        if what != said {
            eprint!("\r{what}\x1b[K");
            said = what.to_string();
        }
    };
    let result = match command {
        Command::Serve | Command::Token { .. } | Command::Relay { .. } => Ok(()),
        Command::Export { out } => {
            let header = match out {
                Some(path) => {
                    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
                    let header = super::team::export_from(
                        data_dir,
                        &database,
                        (&config.team, &Clock::system()),
                        &mut file,
                        &mut progress,
                    )?;
                    file.flush()?;
                    header
                }
                None => {
                    let stdout = std::io::stdout();
                    let mut lock = std::io::BufWriter::new(stdout.lock());
                    super::team::export_from(
                        data_dir,
                        &database,
                        (&config.team, &Clock::system()),
                        &mut lock,
                        &mut progress,
                    )?
                }
            };
            eprintln!(
                "\rexported {} events and {} files of the team {}\x1b[K",
                header.parts[0].lines, header.parts[1].lines, header.team
            );
            Ok(())
        }
        Command::Import { file } => {
            let done = super::team::import_to(file, data_dir, &database, &mut progress)?;
            eprintln!(
                "\rimported {} events and {} files of the team {} into {}\x1b[K",
                done.events,
                done.files,
                done.header.team,
                data_dir.display()
            );
            Ok(())
        }
        Command::Backup { dest } => {
            let target = super::backup::backup(data_dir, &database, dest, &mut progress)?;
            match database {
                crate::store::Database::Sqlite => eprintln!(
                    "\rbacked up and checked: {} (start the server with --data-dir {} to restore it)\x1b[K",
                    target.display(),
                    dest.display()
                ),
                crate::store::Database::Postgres(_) => eprintln!(
                    "\rbacked up as an export: {} (soulgrid import restores it)\x1b[K",
                    target.display()
                ),
            }
            Ok(())
        }
        Command::Migrate { from, to } => {
            let moved = super::migrate::migrate(from, to, &mut progress)?;
            eprintln!(
                "\rmoved {moved} events into {} (start the server with --database and the same --data-dir)\x1b[K",
                to.shown()
            );
            Ok(())
        }
    };
    result
}
