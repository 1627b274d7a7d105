#!/usr/bin/env bash
# Builds the release app and serves it on http://127.0.0.1:3000 (SOULGRID_ADDR to change it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
step "setup" "$ROOT/scripts/setup.sh"
# The simulated team is the default when no `claude` is on PATH; build it next to the server,
# with the flags cargo-leptos builds the server with (other flags build every dependency a
# second time).
step "build soulgrid-sim (release)" bash -c 'source scripts/lib.sh && leptos_env && cargo build --release -p soulgrid --bin soulgrid-sim'
echo "==> cargo leptos serve --release (Ctrl-C to stop)"
exec cargo leptos serve --release
