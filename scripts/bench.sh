#!/usr/bin/env bash
# Every performance figure in one run, on the release build, as one table
# (docs/PERFORMANCE.md): the browser figures in Chromium first, then soulgrid-bench, which reads them
# and measures the rest. Timing never fails this command; a figure short of its target is a
# FAIL row. The table is also written to target/bench/table.md, and (a full run) into
# docs/PERFORMANCE.md.
#   scripts/bench.sh            the full run (~5 minutes after the build)
#   scripts/bench.sh --quick    every figure small: a smoke
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
quick=()
[ "${1:-}" = "--quick" ] && quick=(--quick)

step "setup" "$ROOT/scripts/setup.sh" --test
# As `make run` builds it: hashed names, brotli and gzip twins (P6d measures what is sent), the
# agent page split off.
step "build (cargo leptos build --release --precompress --split, hashed names)" env LEPTOS_HASH_FILES=true cargo leptos build --release --precompress --split
# P6b's reference: the page's wasm without the console's views (bench/viewless), built as
# cargo-leptos builds the page's (its profile, target directory and flags; wasm-bindgen; wasm-opt).
# A subshell: its environment stays its own, and a stale file from an earlier run is gone.
viewless() (
  leptos_env
  front="$(target_dir)/front"
  dir="$ROOT/target/bench/viewless"
  rm -rf "$dir" && mkdir -p "$dir"
  CARGO_TARGET_DIR="$front" cargo build --package=soulgrid-viewless --lib \
    --target=wasm32-unknown-unknown --profile=wasm-release || return
  wasm-bindgen --target=web --out-name=viewless --out-dir="$dir" \
    "$front/wasm32-unknown-unknown/wasm-release/soulgrid_viewless.wasm" || return
  "$ROOT/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    "$dir/viewless_bg.wasm" -o "$dir/viewless.wasm"
)
# Without it P6b says its reference was not measured; the rest is still measured.
step "build P6b's reference (bench/viewless, release wasm)" viewless || true
step "build soulgrid-bench, soulgrid-sim (release)" bash -c 'source scripts/lib.sh && leptos_env && cargo build --release -p soulgrid --bin soulgrid-bench --bin soulgrid-sim'

out="$ROOT/target/bench"
mkdir -p "$out"
rm -f "$out/browser.json"
bin="$(target_dir)/release"
browser() {
  (cd end2end && PERF_OUT="$out/browser.json" PERF_BUILD=release SOULGRID_BIN="$bin/soulgrid" \
    LEPTOS_SITE_ROOT="$ROOT/$(site_root)" npx playwright test tests/perf.spec.ts tests/perf-queue.spec.ts tests/perf-phone.spec.ts tests/perf-radar.spec.ts)
}
# A browser run that fails leaves its rows "not run"; the rest is still measured.
step "browser figures (Chromium, release wasm)" browser || true
step "soulgrid-bench" bash -c "set -o pipefail; '$bin/soulgrid-bench' ${quick[*]:-} --browser '$out/browser.json' --site-root '$ROOT/$(site_root)' --viewless '$ROOT/target/bench/viewless/viewless.wasm' | tee '$out/table.md'"

# The full run's table goes into docs/PERFORMANCE.md (between its bench markers), with when and
# at which commit it was measured; a quick run writes nothing there.
performance_doc() {
  local doc="$ROOT/docs/PERFORMANCE.md" when commit
  when="$(date -u '+%Y-%m-%d (%H:%M UTC)')"
  commit="$(git -C "$ROOT" rev-parse --short HEAD)"
  git -C "$ROOT" diff --quiet HEAD -- server app frontend || commit="$commit with changes not committed"
  awk -v table="$out/table.md" -v when="$when" -v commit="$commit" '
    /<!-- bench:begin -->/ {
      print
      print "Measured on " when " on this machine (" ENVIRON["BENCH_MACHINE"] "), `make bench` at " commit "."
      print ""
      while ((getline line < table) > 0) if (line ~ /^\|/) print line
      skip = 1
      next
    }
    /<!-- bench:end -->/ { skip = 0 }
    !skip { print }
  ' "$doc" > "$doc.new" && mv "$doc.new" "$doc"
}
if [ ${#quick[@]} -eq 0 ]; then
  BENCH_MACHINE="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)" \
    step "docs/PERFORMANCE.md: the latest table" performance_doc
fi
