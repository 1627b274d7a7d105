// What the figure-printing specs share (perf.spec.ts, perf-queue.spec.ts): percentiles, and the
// samples written where `make bench` reads them (soulgrid-bench's browser rows).
import * as fs from 'node:fs';

export function pct(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

/// With PERF_OUT set (`make bench`), adds the samples under `key` to that JSON file, which
/// soulgrid-bench reads into its table (P1, P2, P6's time to hydrated, G1).
export function record(key: string, samples: number[]) {
  const out = process.env.PERF_OUT;
  if (!out) return;
  const all = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : {};
  all[key] = samples;
  all.build = process.env.PERF_BUILD ?? 'debug';
  fs.writeFileSync(out, JSON.stringify(all));
}
