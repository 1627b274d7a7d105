import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';
import * as path from 'node:path';

// Saves what a person sees, on a desktop and on a phone, to docs/screenshots/ (the README shows
// them). Its own server with a summoned team and a short conversation.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

const out = (name: string) => path.join(__dirname, '..', '..', 'docs', 'screenshots', name);

test('desktop and phone screenshots of a summoned team', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openHydrated(page, server.url);
  await page.getByRole('button', { name: 'SUMMON' }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  await page.locator('.cell[data-seat="0"]').click();
  await page.getByLabel('Message').fill('What did you notice when you chose your name?');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“What did you notice' })).toHaveCount(1, { timeout: 10_000 });
  await page.screenshot({ path: out('desktop.png') });

  await page.setViewportSize({ width: 375, height: 812 });
  // The team first (the chosen conversation opens over it on a phone).
  if (await page.getByRole('button', { name: '← Team' }).isVisible()) {
    await page.getByRole('button', { name: '← Team' }).click();
  }
  await expect(page.locator('.cell[data-seat="0"]')).toBeVisible();
  // Usable on a phone: all nine cells fit the width, nothing scrolls sideways.
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]);
  const box = await page.locator('.cell[data-seat="8"]').boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  await page.screenshot({ path: out('phone.png'), fullPage: false });
  // A conversation on the phone: the whole screen, a way back.
  await page.locator('.cell[data-seat="0"]').click();
  await expect(page.locator('.conversation')).toBeVisible();
  await expect(page.getByRole('button', { name: '← Team' })).toBeVisible();
  await page.screenshot({ path: out('phone-conversation.png'), fullPage: false });

  // Lyra's own page: where she is, her lineage (a fork of her), her soul and how it changed,
  // her ledger, sessions and thread.
  const post = (p: string, body: unknown) =>
    humanFetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await post('/api/send', { text: 'SIM_SOUL: The window seat faces the sea now.', seat: 0 });
  await post('/api/agents/7/kill', {});
  await post('/api/agents/0/fork', { seat: 7 });
  await expect(page.locator('.cell[data-seat="7"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText('Lyra');
  await expect(page.locator('.soul-compare .soul-diff .added')).toContainText('faces the sea');
  await page.screenshot({ path: out('agent-page.png'), fullPage: true });
});

test('a screenshot of a finished quest: the findings board and the report', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await openHydrated(page, server.url);
  const post = (p: string, body: unknown) =>
    humanFetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    await post('/api/agents/summon', {});
  }
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  await post('/api/quests', { problem: 'How should we name the ship that carries the team?' });
  await expect(page.locator('.board-stage[data-state="done"]')).toHaveCount(3, { timeout: 30_000 });
  await expect(page.locator('.artifact[data-artifact="report"] .md h1')).toBeVisible();
  await page.locator('.finding').first().getByRole('button', { name: 'Pin' }).click();
  await expect(page.locator('.finding').first()).toHaveAttribute('data-pinned', 'true');
  await page.locator('.board').screenshot({ path: out('quest.png') });
});
