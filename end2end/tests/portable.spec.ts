import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson, openTeam } from '../support/own';
import { startServer } from '../support/server';

// Its own server: a team whose history is carried away and looked back on.
const own = ownServer();
const api = (path: string, body: unknown = {}) => postJson(own(), path, body);

async function aTeam(page: import('@playwright/test').Page) {
  await openTeam(page, own());
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
}

test("a soul downloaded from an agent's page is brought into another team's Hall", async ({ page }) => {
  await aTeam(page);
  await page.locator('.cell[data-seat="0"]').click();
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText('Lyra');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download soul' }).click()]);
  expect(download.suggestedFilename()).toBe('Lyra.soul');
  const file = (await download.path())!;

  // Another team, with a Lyra of its own.
  const other = await startServer();
  try {
    await openHydrated(page, other.url);
    await postJson(other, '/api/agents/summon');
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    await page.locator('.hall .soul-file').setInputFiles(file);
    await expect(page.locator('.hall [role="status"]')).toHaveText('Lyra joined the Hall as Lyra 2: the name Lyra is taken here.');
    await expect(page.locator('.hall .hall-entry', { hasText: 'Lyra 2' })).toHaveCount(1);
    // The same file again changes nothing.
    await page.locator('.hall .soul-file').setInputFiles(file);
    await expect(page.locator('.hall [role="status"]')).toHaveText('Lyra 2 is here already: nothing changed.');
    await expect(page.locator('.hall .hall-entry')).toHaveCount(1);
  } finally {
    await other.stop();
  }
});
