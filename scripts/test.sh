#!/usr/bin/env bash
# Every test tier: cargo tests of all crates, then Playwright against a real server.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
total=$SECONDS
passed=0
failed=0

# Each tier's output is kept, so that the end of the run (all a CI page may show) can name what
# failed: the tier, and the failing tests' names and first lines.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
failures=""

tier() {
  local name="$1" log="$logs/tier-$((passed + failed)).log"
  if step "$@" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" = 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+="--- $name"$'\n'
    failures+="$(grep -E -e '^test .* FAILED$' -e 'panicked at' -e '^thread .* panicked' \
      -e '✘' -e '^ +[0-9]+\) ' -e '^error(\[|:)' -e '<== .*FAILED' "$log" | head -40)"$'\n'
  fi
}

step "setup" "$ROOT/scripts/setup.sh" --test

# The page as a newcomer builds it (`cargo leptos build`, no `--split`; `watch` builds the
# same): its wasm in a target directory of its own (other flags: sharing one would rebuild
# every crate each time), its site kept apart for plain-build.spec.ts. The site directory is
# the workspace's whatever the target directory is, so the split build below comes second.
plain_build() {
  CARGO_TARGET_DIR="$(target_dir)/plain" cargo leptos build --frontend-only \
    && rm -rf "$ROOT/target/site-plain" && cp -r "$ROOT/$(site_root)" "$ROOT/target/site-plain"
}
step "build the page as a newcomer types it (cargo leptos build --frontend-only)" plain_build
# `--split`: the agent page's code is its own part of the wasm, fetched when first shown.
step "build (cargo leptos build --split)" cargo leptos build --split
# The simulated Claude CLI the server runs by default, and the fake Messages API the real-CLI
# Playwright spec runs; cargo-leptos builds only the server bin.
step "build soulgrid-sim, soulgrid-fake-model" bash -c 'source scripts/lib.sh && leptos_env && cargo build -p soulgrid --bin soulgrid-sim --bin soulgrid-fake-model'

cargo_tests() {
  # Same features and environment as cargo-leptos' server build, so nothing is compiled twice.
  # The frontend crate is wasm-only and has no tests; building it natively would turn on
  # app/hydrate next to app/ssr.
  (leptos_env && cargo test -p app -p soulgrid)
}

playwright() {
  local bin
  bin="$(target_dir)/debug/soulgrid"
  (cd end2end && SOULGRID_BIN="$bin" LEPTOS_SITE_ROOT="$ROOT/$(site_root)" \
    SOULGRID_PLAIN_SITE="$ROOT/target/site-plain" npx playwright test)
}

# The real Claude Code CLI, pinned, installed once into a cache outside the checkout.
CLAUDE_CODE_VERSION="2.1.330"
real_cli() {
  local dir="${SOULGRID_CLI_CACHE:-$HOME/.cache/soulgrid/claude-code-$CLAUDE_CODE_VERSION}"
  local have
  have="$(node -p "require('$dir/node_modules/@anthropic-ai/claude-code/package.json').version" 2>/dev/null || true)"
  if [ "$have" != "$CLAUDE_CODE_VERSION" ]; then
    echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $dir (found: ${have:-none})"
    mkdir -p "$dir"
    (cd "$dir" && echo '{"private": true}' > package.json \
      && npm install --no-audit --no-fund "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION")
  fi
  # Its own HOME, temp dirs and a fake Messages API are set up by the tests themselves.
  local claude="$dir/node_modules/.bin/claude"
  (leptos_env && SOULGRID_REAL_CLAUDE="$claude" cargo test -p soulgrid --test real_cli) || return 1
  # The same CLI driven from the browser.
  (cd end2end && SOULGRID_BIN="$(target_dir)/debug/soulgrid" LEPTOS_SITE_ROOT="$ROOT/$(site_root)" \
    SOULGRID_REAL_CLAUDE="$claude" SOULGRID_FAKE_MODEL_BIN="$(target_dir)/debug/soulgrid-fake-model" \
    npx playwright test tests/real-cli.spec.ts)
}

# Every figure of `make bench`, small, on the debug build: it catches breakage, never timing.
bench_smoke() {
  (leptos_env && "$(target_dir)/debug/soulgrid-bench" --quick --site-root "$ROOT/$(site_root)")
}

tier "tier 1+2: cargo test (domain, server)" cargo_tests
tier "bench smoke: soulgrid-bench --quick" bench_smoke
tier "tier 3: playwright (Chromium against a running server)" playwright
tier "tier 4: the real Claude Code CLI against a fake Messages API" real_cli

echo "==> all tiers done in $((SECONDS - total))s"
if [ "$failed" != 0 ]; then
  echo "==> what failed"
  printf '%s' "$failures"
fi
echo "tiers: $passed passed, $failed failed"
[ "$failed" = 0 ]
