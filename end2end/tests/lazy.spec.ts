import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';

// The panels drawn closed (Budgets, Jobs, Watch links, #team, Link a project…, New quest, an
// agent's details) are parts of the wasm of their own: a first visit neither downloads nor
// hydrates them; opening one fetches its part once, and an agent's panel drawn again (its
// state changed) stays open as the human left it.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

test('a closed panel is fetched when first opened, and an agent panel stays open as its agent changes', async ({ page }) => {
  const parts: string[] = [];
  page.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop()!;
    if (name.startsWith('split_')) parts.push(name.split('.')[0]);
  });
  await openHydrated(page, server.url);
  // Not in the server's page, and nothing of them fetched.
  await expect(page.locator('details.budgets')).toBeAttached();
  await expect(page.locator('.budget-table')).toHaveCount(0);
  await expect(page.locator('.agent-detail dl')).toHaveCount(0);
  expect(parts).toEqual([]);

  await page.locator('.budgets > summary').click();
  await expect(page.locator('.budget-table')).toBeVisible();
  expect(parts.filter((p) => p.startsWith('split_budgets_body_'))).toHaveLength(1);
  // Closed and opened again: drawn once, fetched once.
  await page.locator('.budgets > summary').click();
  await page.locator('.budgets > summary').click();
  await expect(page.locator('.budget-table')).toBeVisible();
  expect(parts.filter((p) => p.startsWith('split_budgets_body_'))).toHaveLength(1);

  // The lead's details, open, while the lead wakes: drawn again (a new button), still open.
  await page.locator('.cell.lead').click();
  await page.locator('.agent-detail > summary').click();
  const status = page.locator('.agent-detail dt', { hasText: 'Status' }).locator('+ dd');
  await expect(status).toBeVisible();
  expect(parts.filter((p) => p.startsWith('split_detail_body_'))).toHaveLength(1);
  const sent = await humanFetch(`${server.url}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'wake up' }),
  });
  expect(sent.status).toBe(202);
  await expect(page.getByRole('button', { name: /^Put .* to sleep$/ })).toBeVisible({ timeout: 20_000 });
  await expect(status).toBeVisible();
});
