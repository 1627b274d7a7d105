#!/usr/bin/env bash
# Development: rebuilds and reloads the page on every change (cargo leptos watch --split).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
step "setup" "$ROOT/scripts/setup.sh"
# The simulated team the server runs when no `claude` is on PATH; cargo-leptos builds only the
# server bin.
step "build soulgrid-sim" bash -c 'source scripts/lib.sh && leptos_env && cargo build -p soulgrid --bin soulgrid-sim'
# `--split`: the agent page's code in its own part of the wasm, as every build has it.
exec cargo leptos watch --split
