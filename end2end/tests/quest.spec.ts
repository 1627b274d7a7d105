import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';

// Its own server, whose simulated agents take a moment to answer, so the stages can be seen
// going by.
const own = ownServer({ env: { SOULGRID_SIM_LATENCY_MS: '150' } });
const api = (path: string, body: unknown = {}) => postJson(own(), path, body);

test('a quest from the browser: the stages advance, a finding is pinned, the report is read and downloaded', async ({ page }) => {
  await openHydrated(page, own().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    expect((await api('/api/agents/summon')).status).toBe(202);
  }
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  // Every status the quest bar shows, however briefly.
  await page.evaluate(() => {
    const w = window as any;
    w.__statuses = [];
    const look = () =>
      document.querySelectorAll('[data-quest-status]').forEach((e) => {
        const s = e.getAttribute('data-quest-status');
        if (w.__statuses[w.__statuses.length - 1] !== s) w.__statuses.push(s);
      });
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
  });

  await page.locator('.new-quest > summary').click();
  // Said before it starts: the sessions it may begin (eight awake: no sleeper to wake, no
  // empty seat; the lead's own session is one more only while it sleeps).
  await expect(page.locator('.quest-sessions')).toContainText('the agents the lead picks (8 awake)');
  await expect(page.locator('.quest-sessions')).toContainText(/at most (0 new sessions|1 new session) at once\./);
  await page.getByLabel('The problem').fill('How should we name the ship?');
  await page.getByRole('button', { name: 'Start the quest' }).click();
  await expect(page.locator('.quest-bar')).toBeVisible();
  // Done: the bar says so and leads to the report; it offers a new quest again; the board keeps
  // the last one, its report first.
  await expect(page.locator('.new-quest')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.quest-done')).toHaveText('Quest done — read the report');
  await page.getByRole('button', { name: 'Quest done — read the report' }).click();
  await expect(page.locator('.board .artifact[data-artifact="report"]')).toBeInViewport();
  const order = await page.locator('.board > h2, .board > .board-stage').evaluateAll((els) =>
    els.map((e) => (e.tagName === 'H2' ? e.textContent : 'stage')),
  );
  expect(order.indexOf('Artifacts')).toBeLessThan(order.indexOf('stage'));
  const statuses: string[] = await page.evaluate(() => (window as any).__statuses);
  for (const s of ['analysing', 'stage 1', 'stage 2', 'stage 3']) expect(statuses).toContain(s);

  const board = page.locator('.board');
  await expect(board.locator('.board-stage')).toHaveCount(3);
  await expect(board.locator('.board-stage[data-state="done"]')).toHaveCount(3);
  const first = board.locator('.finding').first();
  await expect(first.locator('.face')).toBeVisible();
  await first.getByRole('button', { name: 'Pin' }).click();
  await expect(first).toHaveAttribute('data-pinned', 'true');
  await first.getByLabel('A comment for the lead').fill('more like this');
  await first.getByRole('button', { name: 'Comment' }).click();
  await expect(first.locator('.comment')).toHaveText('more like this');

  const report = board.locator('.artifact[data-artifact="report"]');
  await expect(report.locator('.md h1')).toHaveText('What the team found');
  const [download] = await Promise.all([page.waitForEvent('download'), report.locator('a.download').click()]);
  expect(download.suggestedFilename()).toBe('report.md');
  const fs = await import('node:fs');
  const text = fs.readFileSync((await download.path())!, 'utf8');
  expect(text).toContain('# What the team found');
});

test('abandoning a quest is asked first, and the abandoned quest is marked', async ({ page }) => {
  await openHydrated(page, own().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    expect((await api('/api/agents/summon')).status).toBe(202);
  }
  // Its agents say nothing (SIM_SILENT): the quest waits in its first stage, however slow the machine.
  expect((await api('/api/quests', { problem: 'Should we paint the hull? SIM_SILENT' })).status).toBe(202);
  await expect(page.locator('.quest-bar')).toBeVisible();
  await page.locator('.quest-bar .abandon > summary').click();
  await expect(page.locator('.quest-bar .abandon')).toContainText('The quest ends where it is');
  // Nothing is abandoned until the second click.
  await expect(page.locator('.quest-bar')).toBeVisible();
  await page.getByRole('button', { name: 'Abandon it' }).click();
  await expect(page.locator('.quest-abandoned')).toHaveText('Quest abandoned');
  await expect(page.locator('.board')).toHaveAttribute('data-quest-state', 'abandoned');
  await expect(page.locator('.board > h2').first()).toContainText('abandoned');
});
