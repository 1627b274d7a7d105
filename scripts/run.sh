#!/usr/bin/env bash
# Builds the release app and serves it on http://127.0.0.1:3000 (SOULGRID_ADDR to change it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
step "setup" "$ROOT/scripts/setup.sh"
echo "==> cargo leptos serve --release (Ctrl-C to stop)"
exec cargo leptos serve --release
