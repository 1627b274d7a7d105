#!/usr/bin/env bash
# `make check`: formatting, the domain-purity build, and clippy with warnings as errors for
# every crate and target:
# the server and the shared crate natively (with cargo-leptos' environment, so the build is
# shared with the tests), the page's wasm and P6b's reference for wasm32. `.ci/run` runs it
# before the tests.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

fmt() {
  cargo fmt --all -- --check
}

clippy_native() {
  (leptos_env && cargo clippy -p app -p soulgrid --all-targets -- -D warnings)
}

# The pure core alone: without its features the app crate is the domain and the contract, with
# neither leptos nor tokio among its dependencies, and clippy denies the file system, the clock
# and the like inside `domain` (app/clippy.toml).
purity() {
  (leptos_env && cargo clippy -p app --no-default-features --all-targets -- -D warnings)
}

clippy_wasm() {
  (leptos_env && cargo clippy -p frontend -p soulgrid-viewless --target wasm32-unknown-unknown -- -D warnings)
}

# The commit-msg hook (scripts/git-hooks) refuses what it should, and only that.
commit_msg() {
  local dir hook="$ROOT/scripts/git-hooks/commit-msg"
  dir="$(mktemp -d)"
  printf '%s\n' "$(printf 'x%.0s' $(seq 72))" > "$dir/72"
  printf '%s\n\nWhy: because.\n' "Short subject" > "$dir/body"
  printf '%s\n' "$(printf 'x%.0s' $(seq 73))" > "$dir/73"
  printf 'Subject\nno blank line\n' > "$dir/glued"
  local ok=true
  "$hook" "$dir/72" && "$hook" "$dir/body" || ok=false
  ! "$hook" "$dir/73" 2>/dev/null || ok=false
  ! "$hook" "$dir/glued" 2>/dev/null || ok=false
  rm -rf "$dir"
  $ok
}

step "rustfmt" fmt
step "commit-msg hook: 72 characters pass, 73 do not" commit_msg
step "purity: the domain builds alone (app, no features)" purity
step "clippy: app and server, every target" clippy_native
step "clippy: the page's wasm and P6b's reference (wasm32)" clippy_wasm
