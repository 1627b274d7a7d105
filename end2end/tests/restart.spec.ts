import { test as base, expect, Page } from '@playwright/test';
import { openHydrated } from '../support/page';
import { startServer, RunningServer } from '../support/server';

// The page stays open while its server restarts, so the browser logs the refused reconnects of
// its event stream; those, and only those, are expected here.
const expectedWhileDown = /ERR_CONNECTION_REFUSED|api\/events/;

function watchProblems(page: Page) {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !expectedWhileDown.test(m.text() + ' ' + (m.location().url ?? ''))) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

base('after a server restart every agent sleeps, WAKE brings them back, threads intact, the open tab follows', async ({ page }) => {
  const problems = watchProblems(page);
  let server: RunningServer = await startServer();
  try {
    await openHydrated(page, server.url);
    await page.getByRole('button', { name: 'SUMMON' }).click();
    const agents = page.locator('.cell:not(.lead)');
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });

    await page.locator('.cell[data-seat="0"]').click();
    await page.getByLabel('Message').fill('remember this');
    await page.getByLabel('Message').press('Enter');
    await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“remember this' })).toHaveCount(1, { timeout: 10_000 });

    // Stop and start again on the same port and data directory; the tab stays open.
    const { port, dataDir } = server;
    await server.stop({ keepData: true });
    server = await startServer({ port, dataDir, removeOnStop: true });

    await expect(page.locator('.cell:not(.lead)[data-status="sleeping"]')).toHaveCount(8, { timeout: 20_000 });
    await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'true', { timeout: 20_000 });
    const dim = await page.locator('.cell[data-seat="0"] .face').evaluate((el) => getComputedStyle(el).opacity);
    expect(Number(dim)).toBeCloseTo(0.4, 2);

    await page.getByRole('button', { name: 'WAKE', exact: true }).click();
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'WAKE', exact: true })).toHaveCount(0);
    await expect(page.locator('.thread .msg', { hasText: 'remember this' }).first()).toBeVisible();
    await expect(page.locator('.thread .msg', { hasText: 'I remember writing' })).toHaveCount(1, { timeout: 10_000 });

    // A fresh tab agrees with the one that lived through the restart.
    const fresh = await page.context().newPage();
    const freshProblems = watchProblems(fresh);
    await openHydrated(fresh, server.url);
    await expect(fresh.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8);
    expect(await fresh.locator('.cell .name').allTextContents()).toEqual(await page.locator('.cell .name').allTextContents());
    expect(freshProblems).toEqual([]);
    expect(await agents.count()).toBe(8);
  } finally {
    await server.stop();
  }
  expect(problems).toEqual([]);
});
