//! The page's own files (`/pkg/`): whether this build named them by their content's hash, and
//! which names carry one (a year in the browser's cache; `security::headers`).
//!
//! A release build names them `soulgrid.<hash>.wasm` (`LEPTOS_HASH_FILES=true cargo leptos
//! build --release`: `make run`, `make bench`) and writes the hashes to `hash.txt` beside the
//! binary; a debug build (`make test`, `make dev`) keeps plain names.

use std::ffi::OsStr;
use std::path::Path;

use leptos::prelude::LeptosOptions;

/// Whether a file's name carries its content's hash as cargo-leptos writes it:
/// `soulgrid.<md5 as 22 characters of unpadded base64url>.wasm` (`.js`, `.css`). cargo-leptos'
/// own placeholder for split modules (22 underscores) is no hash.
pub fn content_hashed(name: &str) -> bool {
    let mut parts = name.split('.');
    let (Some(_), Some(hash), Some(_)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    hash.len() == 22
        && hash
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && hash.bytes().any(|b| b != b'_')
}

/// Whether the page should name its files by hash: `set`, the value of `LEPTOS_HASH_FILES`,
/// when there is one (cargo leptos serve sets it), else whether `dir` (the binary's folder) holds a `hash.txt` whose
/// wasm is in the site, so that a binary started by a test or by hand finds what its build
/// wrote. A `hash.txt` naming a wasm the site no longer has (a later build without hashes
/// replaced the site) is said, and not used.
pub fn hashed_build(
    set: Option<&OsStr>,
    dir: &Path,
    options: &LeptosOptions,
) -> Result<bool, String> {
    if let Some(set) = set {
        return Ok(set == "true");
    }
    let hashes = dir.join(&*options.hash_file);
    let Ok(text) = std::fs::read_to_string(&hashes) else {
        return Ok(false);
    };
    let wasm = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("wasm:"))
        .map(|h| format!("{}.{}.wasm", options.output_name, h.trim()));
    let site = Path::new(&*options.site_root).join(&*options.site_pkg_dir);
    match wasm {
        Some(w) if site.join(&w).is_file() => Ok(true),
        Some(w) => Err(format!(
            "{} names {w}, which {} does not hold: the site was built again without hashes \
             (serving plain names; `cargo leptos build` again if the page does not load)",
            hashes.display(),
            site.display()
        )),
        None => Err(format!(
            "{} names no wasm (serving plain names)",
            hashes.display()
        )),
    }
}
