#!/usr/bin/env bash
# Tier 1+2 on a loaded machine, as a fresh clone's CI may meet it: two busy loops (one per core
# here) run beside `cargo test` for RUNS runs in a row (default 10), stopping at the first red
# one. The loops are this script's own children, stopped by their PIDs when it ends.
#   scripts/loaded.sh [RUNS] [-- extra cargo test args]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
runs="${1:-10}"
shift || true
[ "${1:-}" = "--" ] && shift

loops=()
stop_loops() {
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${loops[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_loops EXIT

leptos_env
# Built before the load starts: the runs time the tests, not the compiler.
cargo test -p app -p soulgrid --no-run "$@"
for _ in 1 2; do
  (exec yes >/dev/null) &
  loops+=("$!")
done
for i in $(seq 1 "$runs"); do
  start=$SECONDS
  if cargo test -p app -p soulgrid "$@" >"$(target_dir)/loaded-run.log" 2>&1; then
    echo "loaded run $i/$runs: green in $((SECONDS - start))s"
  else
    echo "loaded run $i/$runs: RED after $((SECONDS - start))s; the failures:"
    grep -E "^(test .* FAILED|failures:|---- )|panicked" "$(target_dir)/loaded-run.log" | head -40
    exit 1
  fi
done
echo "tier 1+2: $runs loaded runs in a row, all green"
