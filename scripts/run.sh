#!/usr/bin/env bash
# Builds the release app and serves it on http://127.0.0.1:3000 (SOULGRID_ADDR to change it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
step "setup" "$ROOT/scripts/setup.sh"
# The simulated team is the default when no `claude` is on PATH; build it next to the server,
# with the flags cargo-leptos builds the server with (other flags build every dependency a
# second time).
step "build soulgrid-sim (release)" bash -c 'source scripts/lib.sh && leptos_env && cargo build --release -p soulgrid --bin soulgrid-sim'
# The simulated agents at work on a linked project do what a message asks (a line in its README,
# committed; the changes asked in a review): the whole loop shows without Claude.
# SOULGRID_ALLOW_DIR says which folders may be linked (e.g. SOULGRID_ALLOW_DIR=~/code make run).
# The page's files named by their content's hash (kept a year by the browser) and beside their
# brotli and gzip twins, which the server sends to a browser that accepts them (docs/DESIGN.md §7).
# `--split`: the agent page's code in its own part of the wasm, fetched when first shown.
echo "==> LEPTOS_HASH_FILES=true cargo leptos serve --release --precompress --split (Ctrl-C to stop)"
LEPTOS_HASH_FILES=true exec cargo leptos serve --release --precompress --split
