import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';
import { pct, record } from '../support/perf';

// Prints figures; asserts no timing (make bench reads them: G1). A hundred permission requests
// wait in the approval queue (one simulated agent asks for a hundred calls at once, as the CLI
// asks for parallel tool calls); each `a` answers the focused one, and the figure is that key
// press → the next request focused, measured in the page.
test.use({ trace: 'off' });

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer({ env: { SOULGRID_PERMISSIONS: 'ui', SOULGRID_PERMISSION_TIMEOUT: '30m' } });
});
test.afterAll(async () => {
  await server?.stop();
});

const WAITING = 100;
const SAMPLES = 50;

test(`${WAITING} waiting requests: an answer → the next request focused`, async ({ page }) => {
  const res = await humanFetch(`${server.url}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: `SIM_TOOLS:${WAITING} now` }),
  });
  expect(res.status).toBe(202);
  await expect
    .poll(async () => ((await (await humanFetch(`${server.url}/api/permissions?state=waiting`)).json()) as any[]).length, { timeout: 30_000 })
    .toBe(WAITING);
  // Each key press, and the focus it moves: noted by the page itself.
  await page.addInitScript(() => {
    const w = window as any;
    w.pressedAt = 0;
    w.took = [];
    document.addEventListener('keydown', () => (w.pressedAt = performance.now()), { capture: true });
    document.addEventListener('focusin', (ev) => {
      const el = ev.target as HTMLElement;
      if (w.pressedAt && el.classList?.contains('queued')) {
        w.took.push(performance.now() - w.pressedAt);
        w.pressedAt = 0;
      }
    });
  });
  await openHydrated(page, server.url);
  const items = page.locator('.approval-queue .queued');
  await expect(items).toHaveCount(WAITING);
  await page.locator('.approvals-count').click();
  await expect(items.first()).toBeFocused();
  for (let i = 0; i < SAMPLES; i++) {
    const next = await items.nth(1).getAttribute('data-request-id');
    await page.keyboard.press('a');
    await expect(page.locator(`.queued[data-request-id="${next}"]`)).toBeFocused();
  }
  const took: number[] = (await page.evaluate(() => (window as any).took)).map((t: number) => Math.round(t * 10) / 10);
  expect(took.length).toBe(SAMPLES);
  took.sort((a, b) => a - b);
  record('queue_next', took);
  console.log(`[perf] ${WAITING} waiting: an answer → the next request focused: n=${SAMPLES} p50=${pct(took, 0.5)} ms p95=${pct(took, 0.95)} ms (target p95 ≤ 16 ms)`);
});
