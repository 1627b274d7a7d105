#!/usr/bin/env bash
# Every test tier: cargo tests of all crates, then Playwright against a real server.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
total=$SECONDS
passed=0
failed=0

tier() {
  if step "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

step "setup" "$ROOT/scripts/setup.sh" --test

step "build (cargo leptos build)" cargo leptos build
# The simulated Claude CLI the server runs by default; cargo-leptos builds only the server bin.
step "build soulgrid-sim" bash -c 'source scripts/lib.sh && leptos_env && cargo build -p soulgrid --bin soulgrid-sim'

cargo_tests() {
  # Same features and environment as cargo-leptos' server build, so nothing is compiled twice.
  # The frontend crate is wasm-only and has no tests; building it natively would turn on
  # app/hydrate next to app/ssr.
  (leptos_env && cargo test -p app -p soulgrid)
}

playwright() {
  local bin
  bin="$(target_dir)/debug/soulgrid"
  (cd end2end && SOULGRID_BIN="$bin" LEPTOS_SITE_ROOT="$ROOT/$(site_root)" npx playwright test)
}

tier "tier 1+2: cargo test (domain, server)" cargo_tests
tier "tier 3: playwright (Chromium against a running server)" playwright

echo "==> all tiers done in $((SECONDS - total))s"
echo "tiers: $passed passed, $failed failed"
[ "$failed" = 0 ]
