import { test as base, expect, Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';

// While the server is down the browser logs its refused reconnects; those are expected.
const expectedWhileDown = /ERR_CONNECTION_REFUSED|api\/events/;

base('a tab ahead of the store (another database behind the same address) gets a reset and reloads the snapshot', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !expectedWhileDown.test(m.text() + ' ' + (m.location().url ?? ''))) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));

  let server: RunningServer = await startServer();
  try {
    await openHydrated(page, server.url);
    // Many events in the first database, so the tab's position is far ahead of a new one.
    for (let i = 0; i < 5; i++) {
      const res = await humanFetch(`${server.url}/api/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `old database ${i}` }),
      });
      expect(res.status).toBe(202);
    }
    await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: 'old database 4' })).toHaveCount(1);
    const before = Number(await page.locator('main.console').getAttribute('data-last-event-id'));

    const { port } = server;
    await server.stop();
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-e2e-fresh-'));
    server = await startServer({ port, dataDir: fresh, removeOnStop: true });
    const res = await humanFetch(`${server.url}/api/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'new database' }),
    });
    expect(res.status).toBe(202);

    // The tab reconnects with a Last-Event-ID the new store never had: it is told to reset,
    // reloads the snapshot and then follows the new log.
    await expect(page.locator('.thread .msg', { hasText: 'old database' })).toHaveCount(0, { timeout: 20_000 });
    await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: 'new database' })).toHaveCount(1, { timeout: 20_000 });
    const after = Number(await page.locator('main.console').getAttribute('data-last-event-id'));
    expect(after).toBeLessThan(before);
    await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'true');
  } finally {
    await server.stop();
  }
  expect(problems).toEqual([]);
});
