#!/usr/bin/env bash
# Installs what is missing, and only that. Safe to run again: every step checks first.
#   scripts/setup.sh          toolchain for building and serving
#   scripts/setup.sh --test   plus Chromium, the Playwright packages and PostgreSQL
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

want_test=false
[ "${1:-}" = "--test" ] && want_test=true

wasm_target() {
  if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "wasm32-unknown-unknown is installed"
  else
    rustup target add wasm32-unknown-unknown
  fi
}

cargo_leptos() {
  local have
  have="$(cargo leptos --version 2>/dev/null || true)"
  if [ "$have" = "cargo-leptos $CARGO_LEPTOS_VERSION" ]; then
    echo "$have is installed"
  else
    # Built from source (~17 minutes on 2 cores); 0.3.11 does not build on rustc 1.95.
    echo "installing cargo-leptos $CARGO_LEPTOS_VERSION (found: ${have:-none})"
    cargo install cargo-leptos --locked --version "$CARGO_LEPTOS_VERSION"
  fi
}

wasm_bindgen_cli() {
  local want have
  want="$(locked_wasm_bindgen)"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [ "$have" = "$want" ]; then
    echo "wasm-bindgen $have is installed"
  else
    # Without --locked: one of its locked dependencies is not on the registry any more.
    echo "installing wasm-bindgen-cli $want (found: ${have:-none})"
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
}

node_tools() {
  if ! command -v npm >/dev/null; then
    as_root apt-get update
    as_root apt-get install -y nodejs npm
  fi
  npm_ci "$ROOT"
}

# npm ci, skipped when node_modules already matches the lock file.
npm_ci() {
  local dir="$1" stamp="$1/node_modules/.soulgrid-lock"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "$dir/node_modules is up to date"
  else
    (cd "$dir" && npm ci --no-audit --no-fund)
    cp "$dir/package-lock.json" "$stamp"
  fi
}

chromium() {
  if [ -x /usr/bin/chromium ]; then
    /usr/bin/chromium --version
  else
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
}

# PostgreSQL's server binaries (Debian's `postgresql`): the store's tests on PostgreSQL start
# a temporary cluster of their own with them (server/tests/common/pg.rs); nothing here runs one.
postgresql() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)"
  if [ -n "$found" ]; then
    "$found" --version
  elif command -v initdb >/dev/null; then
    initdb --version
  else
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
  fi
}

# The agents' sandbox (docs/SECURITY.md): Debian's `bubblewrap`. Without it agents run with the
# server's reach (`--sandbox auto` says so at start and in the header).
sandbox() {
  if command -v bwrap >/dev/null; then
    bwrap --version
  else
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y bubblewrap
  fi
}

# The external agents' Python client is tested with `websockets` from PyPI, in a virtual
# environment of its own (server/tests/it/external/python.rs makes the same one if missing).
WEBSOCKETS_VERSION="17.4"
python_websockets() {
  local dir="$HOME/.cache/soulgrid/python-websockets-$WEBSOCKETS_VERSION"
  if "$dir/bin/python" -c "import websockets" 2>/dev/null; then
    echo "websockets $WEBSOCKETS_VERSION in $dir"
    return
  fi
  if ! python3 -c "import ensurepip, venv" 2>/dev/null; then
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv
  fi
  python3 -m venv "$dir" && "$dir/bin/pip" install -q "websockets==$WEBSOCKETS_VERSION"
}

# Said first: what this run must build from source, and about how long it takes, so a first
# run on a bare machine is not a silent wait (later runs find the tools and skip this).
plan() {
  local todo=()
  [ "$(cargo leptos --version 2>/dev/null || true)" = "cargo-leptos $CARGO_LEPTOS_VERSION" ] \
    || todo+=("cargo-leptos $CARGO_LEPTOS_VERSION (about 18 minutes on 2 cores: its release profile is fat LTO, one codegen unit)")
  [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)" = "$(locked_wasm_bindgen)" ] \
    || todo+=("wasm-bindgen-cli $(locked_wasm_bindgen) (a few minutes)")
  if [ "${#todo[@]}" -gt 0 ]; then
    echo "==> first run here: building from source, once (installed under ~/.cargo/bin):"
    printf '    - %s\n' "${todo[@]}"
  fi
}
plan

# In a git checkout, its commit messages are checked (scripts/git-hooks/commit-msg).
git_hooks() {
  if [ -d "$ROOT/.git" ] || git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" config core.hooksPath scripts/git-hooks
    echo "commit messages are checked (core.hooksPath = scripts/git-hooks)"
  fi
}

step "git hooks (commit subjects of at most 72 characters)" git_hooks
step "rust target wasm32-unknown-unknown" wasm_target
step "cargo-leptos" cargo_leptos
step "wasm-bindgen-cli" wasm_bindgen_cli
step "npm packages (wasm-opt)" node_tools
step "bubblewrap (Debian: the agents' sandbox)" sandbox
if $want_test; then
  step "chromium (Debian)" chromium
  step "npm packages (end2end)" npm_ci "$ROOT/end2end"
  step "python websockets (the external agents' client)" python_websockets
  step "postgresql (Debian)" postgresql
fi
