import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch, LOGGED_IN, LOGGED_OUT } from '../support/server';

// A watch link: someone else's browser sees the team live and can change nothing; revoked, it
// sees nothing more.
// The test's page is that someone's: a browser without the human's login cookie (which would be
// sent beside the watch link, so it could not show what the link alone allows).
test.use({ storageState: LOGGED_OUT });

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

/// The human's own request (with the login).
async function api(path: string, body: unknown = {}) {
  return humanFetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('a watch link shows the team live, read-only, and stops when revoked', async ({ page, browser, problems }) => {
  expect((await api('/api/agents/summon')).status).toBe(202);
  // The human makes it beside the grid, in a browser of their own (logged in); its address is
  // shown once.
  const humans = await browser.newContext({ storageState: LOGGED_IN });
  const human = await humans.newPage();
  await openHydrated(human, server.url);
  await human.locator('.watch-links > summary').click();
  await human.getByPlaceholder('Label (who it is for)').fill('for Ada');
  await human.getByRole('button', { name: 'Make a watch link' }).click();
  const url = (await human.locator('.watch-url').textContent())!;
  expect(url).toMatch(new RegExp(`^${server.url}/watch/sgw_[0-9a-f]+$`));
  const token = url.split('/watch/')[1];
  const row = human.locator('.watch-link', { hasText: 'for Ada' });
  await expect(row).toContainText('not used yet');

  await openHydrated(page, url);
  await expect(page.locator('main.console.watching')).toBeVisible();
  await expect(page.locator('.watch-note')).toContainText('can change nothing');
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  // Nothing that acts: no composer, no panel of actions, no SUMMON or end of session.
  await expect(page.locator('.composer')).toHaveCount(0);
  await expect(page.locator('.agent-detail')).toHaveCount(0);
  await expect(page.locator('.end-session')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'SUMMON' })).toBeHidden();

  // Live: the human's message to the lead and the lead's answer appear.
  expect((await api('/api/send', { text: 'Hello from the human' })).status).toBe(202);
  await expect(page.locator('.thread')).toContainText('Hello from the human', { timeout: 20_000 });

  // The page's own token changes nothing, even asked directly.
  const refused = await page.evaluate(async (t) => {
    const r = await fetch('/api/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` },
      body: JSON.stringify({ text: 'sneaky' }),
    });
    return r.status;
  }, token);
  expect(refused).toBe(403);

  // Revoked from the human's list: the stream ends (the page says it is not live) and the link
  // opens nothing.
  await human.locator('.watch-links > summary').click();
  await human.locator('.watch-links > summary').click();
  await expect(row).toContainText('last used');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('revoked');
  await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'false', { timeout: 5_000 });
  // Asked as the spectator would (no login beside it).
  const again = await fetch(url);
  expect(again.status).toBe(403);
  await humans.close();
  // The refusals above are the browser's console errors this test expects, and only those.
  const unexpected = problems.filter((p) => !p.includes('status of 403'));
  problems.splice(0, problems.length, ...unexpected);
});
