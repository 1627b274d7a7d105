# Shared helpers for the README commands. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
CARGO_LEPTOS_VERSION="0.3.10"

# Where cargo puts its output. CI keeps it under ~/.cache between runs.
target_dir() {
  echo "${CARGO_TARGET_DIR:-$ROOT/target}"
}

# step NAME CMD...: prints what runs and how long it took; fails the script if it fails.
step() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "==> $name"
  if "$@"; then
    echo "<== $name: ok in $((SECONDS - start))s"
  else
    local rc=$?
    echo "<== $name: FAILED (exit $rc) after $((SECONDS - start))s"
    return "$rc"
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The exact wasm-bindgen version in Cargo.lock: the CLI must match it.
locked_wasm_bindgen() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# The environment cargo-leptos builds the server with (seen with `cargo leptos build -vv`),
# so that `cargo test` reuses that build instead of compiling everything again. Exactly these:
# LEPTOS_WATCH, for one, would turn on live-reload and hot-reload markers just by existing.
leptos_env() {
  export LEPTOS_OUTPUT_NAME=soulgrid
  export LEPTOS_SITE_ROOT="$(site_root)"
  export LEPTOS_SITE_PKG_DIR=pkg
  export LEPTOS_SITE_ADDR=127.0.0.1:3000
  export LEPTOS_RELOAD_PORT=3001
  export LEPTOS_LIB_DIR=frontend
  export LEPTOS_BIN_DIR=server
  export LEPTOS_JS_MINIFY=false
  export LEPTOS_HASH_FILES=false
  export RUSTFLAGS="--cfg erase_components"
}

# cargo-leptos writes the site to `site-root` relative to the workspace, whatever
# CARGO_TARGET_DIR is; the server binary itself is under the target directory.
site_root() {
  echo "target/site"
}
