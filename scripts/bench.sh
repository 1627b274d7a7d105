#!/usr/bin/env bash
# Every performance figure in one run, on the release build, as one table (README,
# "Performance"): the browser figures in Chromium first, then soulgrid-bench, which reads them
# and measures the rest. Timing never fails this command; a figure short of its target is a
# FAIL row. The table is also written to target/bench/table.md.
#   scripts/bench.sh            the full run (~5 minutes after the build)
#   scripts/bench.sh --quick    every figure small: a smoke
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
quick=()
[ "${1:-}" = "--quick" ] && quick=(--quick)

step "setup" "$ROOT/scripts/setup.sh" --test
step "build (cargo leptos build --release)" cargo leptos build --release
step "build soulgrid-bench, soulgrid-sim (release)" bash -c 'source scripts/lib.sh && leptos_env && cargo build --release -p soulgrid --bin soulgrid-bench --bin soulgrid-sim'

out="$ROOT/target/bench"
mkdir -p "$out"
rm -f "$out/browser.json"
bin="$(target_dir)/release"
browser() {
  (cd end2end && PERF_OUT="$out/browser.json" PERF_BUILD=release SOULGRID_BIN="$bin/soulgrid" \
    LEPTOS_SITE_ROOT="$ROOT/$(site_root)" npx playwright test tests/perf.spec.ts)
}
# A browser run that fails leaves its rows "not run"; the rest is still measured.
step "browser figures (Chromium, release wasm)" browser || true
step "soulgrid-bench" bash -c "set -o pipefail; '$bin/soulgrid-bench' ${quick[*]:-} --browser '$out/browser.json' --site-root '$ROOT/$(site_root)' | tee '$out/table.md'"
