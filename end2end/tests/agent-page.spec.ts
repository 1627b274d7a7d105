import { test, expect } from '../support/page';
import { ownServer, postJson, openTeam } from '../support/own';

// Its own server: the team changes.
const own = ownServer();
const api = (path: string, body: unknown = {}) => postJson(own(), path, body);

/// Every agent seat alive (a summoned team, or the one an earlier test left).
async function aTeam(page: import('@playwright/test').Page) {
  await openTeam(page, own());
  await expect(page.locator('.cell[data-seat="0"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
}

test("an agent's page: a diff between soul versions, the lineage of its fork, its ledger and sessions", async ({ page }) => {
  await aTeam(page);
  const lyra = (await page.locator('.cell[data-seat="0"] .name').textContent())!;
  // A second soul version, and a fork into an emptied seat.
  await api('/api/send', { text: 'SIM_SOUL: I keep the lighthouse now.', seat: 0 });
  await api('/api/agents/6/kill');
  await expect(page.locator('.cell[data-seat="6"]')).toHaveAttribute('data-status', 'empty');
  const forked = await api('/api/agents/0/fork', { seat: 6 });
  expect(forked.status).toBe(202);
  const child = page.locator('.cell[data-seat="6"]');
  await expect(child).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const kid = (await child.locator('.name').textContent())!;

  await page.locator('.cell[data-seat="0"]').click();
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText(lyra);

  // The newest against the one before, at first; any two can be chosen.
  const diff = page.locator('.soul-compare .soul-diff-pair');
  await expect(diff).toHaveAttribute('data-from', '1');
  await expect(diff).toHaveAttribute('data-to', '2');
  await expect(diff.locator('.added')).toContainText('I keep the lighthouse now.');
  await page.locator('.soul-compare select').nth(0).selectOption('2');
  await page.locator('.soul-compare select').nth(1).selectOption('1');
  await expect(diff.locator('.removed')).toContainText('I keep the lighthouse now.');

  // Lineage: Lyra, and her fork below her.
  const tree = page.locator('.lineage');
  await expect(tree.locator('li[aria-current="page"] > a').first()).toHaveText(lyra);
  await expect(tree.locator('li li > a', { hasText: kid })).toBeVisible();

  // The ledger and the sessions she lived.
  await expect(page.locator('.ledger [data-ledger="turns"]')).not.toHaveText('0');
  await expect(page.locator('.ledger [data-ledger="messages"]')).toContainText('/');
  await expect(page.locator('table.sessions tbody tr')).toHaveCount(1);

  // The fork's own page: its parent above it.
  await tree.locator('li li > a', { hasText: kid }).click();
  await expect(page.locator('.agent-page h1')).toHaveText(kid);
  await expect(page.locator('.lineage > li > a').first()).toHaveText(lyra);
  await expect(page.locator('.lineage li[aria-current="page"] > a')).toHaveText(kid);
});

test('an empty seat offers Summon here, Recall… and Fork into', async ({ page }) => {
  await aTeam(page);
  await expect(page.locator('.cell[data-seat="3"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const leaving = (await page.locator('.cell[data-seat="3"] .name').textContent())!;
  expect((await api('/api/agents/3/kill')).status).toBe(200);
  const seat = page.locator('.cell[data-seat="3"]');
  await expect(seat).toHaveAttribute('data-status', 'empty');

  // Recall… the one who left, back into this seat.
  await seat.locator('.seat-menu > summary').click();
  await expect(seat.getByRole('button', { name: 'Summon here' })).toBeVisible();
  await seat.getByRole('button', { name: `Recall ${leaving} here` }).click();
  await expect(seat.locator('.name')).toHaveText(leaving, { timeout: 20_000 });
  await expect(seat).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });

  // Fork into: a child of the agent in seat 1.
  const parent = (await page.locator('.cell[data-seat="1"] .name').textContent())!;
  expect((await api('/api/agents/3/kill')).status).toBe(200);
  await expect(seat).toHaveAttribute('data-status', 'empty');
  await seat.locator('.seat-menu > summary').click();
  await seat.getByRole('button', { name: `Fork ${parent} into this seat` }).click();
  await expect(seat).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(seat.locator('.name')).not.toHaveText(parent);

  // Summon here: a newborn in this seat only (seat 8 stays empty).
  expect((await api('/api/agents/3/kill')).status).toBe(200);
  expect((await api('/api/agents/8/kill')).status).toBe(200);
  await expect(seat).toHaveAttribute('data-status', 'empty');
  await seat.locator('.seat-menu > summary').click();
  await seat.getByRole('button', { name: 'Summon here' }).click();
  await expect(seat).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(page.locator('.cell[data-seat="8"]')).toHaveAttribute('data-status', 'empty');
});

test("the console's first visit does not fetch the agent page's code; the page fetches it once, when first shown", async ({ page }) => {
  const parts: string[] = [];
  page.on('request', (r) => {
    if (/\/pkg\/(split|chunk)_[^/]*\.wasm/.test(r.url())) parts.push(r.url());
  });
  await aTeam(page);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  const lyra = (await page.locator('.cell[data-seat="0"] .name').textContent())!;
  expect(parts).toEqual([]);
  // Opened from the console: fetched, then drawn.
  await page.locator('.cell[data-seat="0"]').click();
  await page.locator('.agent-detail > summary').click();
  const link = page.locator('.agent-page-link');
  const href = (await link.getAttribute('href'))!;
  await link.click();
  await expect(page.locator('.agent-page h1')).toHaveText(lyra);
  const agentPage = parts.filter((u) => /split_agent_page_/.test(u));
  expect(agentPage).toHaveLength(1);
  expect(parts.filter((u) => /split_diff_view_/.test(u)), 'no diff was opened').toEqual([]);
  // Opened by its address: the server sends the loading line, the browser draws the page.
  await page.goto(new URL(href, page.url()).toString());
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText(lyra);
});
