import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson, openTeam } from '../support/own';

// Its own server: a team whose history is looked back on.
const own = ownServer();
const api = (path: string, body: unknown = {}) => postJson(own(), path, body);

async function aTeam(page: import('@playwright/test').Page) {
  await openTeam(page, own());
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
}

/// A mark on the page's window: still there after a navigation, the page was not reloaded.
async function markPage(page: import('@playwright/test').Page) {
  await page.evaluate(() => ((window as any).__same_page = true));
}
async function samePage(page: import('@playwright/test').Page) {
  return page.evaluate(() => (window as any).__same_page === true);
}

test('the slider is a line of time with ticks for sessions and quests; it shows the past without reloading the page, settles once, and comes back to now', async ({ page }) => {
  await aTeam(page);
  expect((await api('/api/quests', { problem: 'What should the ship be called? SIM_SILENT' })).status).toBe(202);
  await expect(page.locator('.quest-bar')).toBeVisible({ timeout: 10_000 });
  const slider = page.locator('.time-slider input[type="range"]');
  // Its values are times (milliseconds), its label a time, its ticks the session and the quest.
  const [min, max] = [Number(await slider.getAttribute('min')), Number(await slider.getAttribute('max'))];
  expect(min).toBeGreaterThan(1_600_000_000_000);
  expect(max).toBeGreaterThanOrEqual(min);
  await expect(page.locator('.time-slider output')).toHaveText(/\d{1,2}:\d{2}/);
  const marks = page.locator('#time-marks option');
  await expect(marks.filter({ hasText: 'session' })).toHaveCount(1);
  await expect(marks.filter({ hasText: 'What should the ship be called?' })).toHaveCount(1);
  await expect(slider).toHaveAttribute('list', 'time-marks');

  // To the first moment: the grid before anyone was summoned, in this same page.
  await markPage(page);
  const entries = await page.evaluate(() => history.length);
  await slider.evaluate((el: HTMLInputElement) => {
    el.value = el.min;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await expect(page).toHaveURL(/\?at=\d+/);
  await expect(page.locator('.past-bar')).toContainText('You are looking at');
  await expect(page.locator('.cell:not(.lead)[data-status="empty"]')).toHaveCount(8);
  await expect(page.locator('.composer')).toBeHidden();
  await expect(page.locator('.grid-button')).toBeHidden();
  // The past is not live, and does not pretend to connect.
  await expect(page.locator('.live-state')).not.toHaveText('connecting…');
  await expect(page.locator('.live-state')).toHaveText('the past');
  expect(await samePage(page)).toBe(true);

  // Arrow keys: each moves the label at once; the page settles once, after the last.
  await slider.focus();
  const before = page.url();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  await expect(page).not.toHaveURL(before);
  await expect(page.locator('.past-bar')).toBeVisible();
  expect(await page.evaluate(() => history.length)).toBe(entries + 2);
  expect(await samePage(page)).toBe(true);

  // Back to now: live again, in the same page.
  await page.getByRole('link', { name: 'Back to now' }).click();
  await expect(page.locator('.past-bar')).toHaveCount(0);
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  await expect(page.locator('.live-state')).toHaveText('live', { timeout: 10_000 });
  expect(await samePage(page)).toBe(true);
});

test('a moment out of the log is clamped and said; a bad one is a 400 page with the header and the way back', async ({ page }) => {
  await aTeam(page);
  await openHydrated(page, `${own().url}/?at=99999`);
  await expect(page.locator('.past-bar')).toContainText('after the newest event');
  await expect(page.locator('.past-bar')).not.toContainText('1970');
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8);

  await openHydrated(page, `${own().url}/?at=1970-01-01`);
  await expect(page.locator('.past-bar')).toContainText('before the first event');
  await expect(page.locator('.past-bar')).not.toContainText('1970');

  // In a page of its own: the browser logs the 400 itself, and nothing else may be logged.
  const other = await page.context().newPage();
  const logged: string[] = [];
  other.on('console', (m) => { if (m.type() === 'error' && !m.text().includes('status of 400')) logged.push(m.text()); });
  other.on('pageerror', (e) => logged.push(e.message));
  const bad = await other.goto(`${own().url}/?at=someday`);
  expect(bad!.status()).toBe(400);
  await expect(other.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(other.locator('header.top h1')).toHaveText('Soulgrid');
  await expect(other.locator('[role="alert"]')).toContainText('"someday" is neither an event number nor a time');
  await expect(other.locator('body')).not.toContainText('ServerError');
  await other.getByRole('link', { name: 'Back to now' }).click();
  await expect(other.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  expect(logged).toEqual([]);
});
