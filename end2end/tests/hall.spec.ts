import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';

// Its own server: retiring and recalling change the team.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

test('retire an agent, see it in the Hall, summon a newcomer into its seat, recall it into another seat', async ({ page }) => {
  await openHydrated(page, server.url);
  await page.getByRole('button', { name: 'SUMMON' }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  const wren = (await page.locator('.cell[data-seat="2"] .name').textContent())!;
  const colour = (seat: number) =>
    page.locator(`.cell[data-seat="${seat}"]`).evaluate((e) => (e as HTMLElement).style.getPropertyValue('--seat-color'));
  const wrensColour = await colour(2);
  expect(wrensColour).toMatch(/^#[0-9A-Fa-f]{6}$/);

  // Retire… asks first, saying what happens.
  await page.locator('.cell[data-seat="2"]').click();
  await expect(page.locator('.agent-detail')).toHaveAttribute('data-detail-seat', '2');
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-detail .retire > summary').click();
  await expect(page.locator('.agent-detail .retire')).toContainText('leaves this seat for the Hall');
  await page.getByRole('button', { name: `Retire ${wren}` }).click();
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'empty');
  const entry = page.locator('.hall .hall-entry', { hasText: wren });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('retired by the human');
  await expect(entry.locator('.soul-lines')).toContainText(`I am ${wren}`);

  // The empty seat is offered to SUMMON: a newcomer takes it.
  await page.getByRole('button', { name: 'SUMMON' }).click();
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(page.locator('.cell[data-seat="2"] .name')).not.toHaveText(wren);

  // Another seat empties; the retired one is recalled into it and wakes there.
  const sable = (await page.locator('.cell[data-seat="5"] .name').textContent())!;
  await page.locator('.cell[data-seat="5"]').click();
  // The panel is Sable's before anything in it is pressed.
  await expect(page.locator('.agent-detail')).toHaveAttribute('data-detail-seat', '5');
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-detail .retire > summary').click();
  await page.getByRole('button', { name: `Retire ${sable}` }).click();
  await expect(page.locator('.cell[data-seat="5"]')).toHaveAttribute('data-status', 'empty');
  await entry.getByRole('button', { name: `Recall ${wren}` }).click();
  await expect(page.locator('.cell[data-seat="5"] .name')).toHaveText(wren, { timeout: 20_000 });
  await expect(page.locator('.cell[data-seat="5"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  // An identity keeps its colour wherever it sits; the newcomer in its old seat wears another.
  expect(await colour(5)).toBe(wrensColour);
  expect(await colour(2)).not.toBe(wrensColour);
  await expect(page.locator('.hall .hall-entry', { hasText: wren })).toHaveCount(0);
  await expect(page.locator('.hall .hall-entry', { hasText: sable })).toHaveCount(1);
});

test("an agent's own page: its soul and thread, linkable, and still there once it is retired", async ({ page }) => {
  await openHydrated(page, server.url);
  const alive = page.locator('.cell:not(.lead)[data-status="alive"]');
  if ((await alive.count()) === 0) {
    await page.getByRole('button', { name: 'SUMMON' }).click();
  }
  await expect(page.locator('.cell[data-seat="1"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const kael = (await page.locator('.cell[data-seat="1"] .name').textContent())!;
  await page.locator('.cell[data-seat="1"]').click();
  const box = page.getByLabel('Message');
  await box.fill('a line for the page');
  await box.press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'a line for the page' })).toHaveCount(1, { timeout: 10_000 });

  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText(kael);
  await expect(page.locator('.agent-page .place')).toContainText('Seat 2');
  await expect(page.locator('.agent-page .soul-version .soul-text')).toContainText(`I am ${kael}`);
  await expect(page.locator('.agent-page .thread .msg', { hasText: 'a line for the page' })).toHaveCount(2);
  const url = page.url();

  // Retired, the same address still shows it, now in the Hall.
  const seat1 = await (await humanFetch(`${server.url}/api/agents/1/kill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })).json();
  expect(seat1.retired).toHaveLength(1);
  await openHydrated(page, url);
  await expect(page.locator('.agent-page .place')).toContainText('In the Hall since');
  await expect(page.locator('.agent-page .thread .msg', { hasText: 'a line for the page' })).toHaveCount(2);
  await expect(page.getByRole('button', { name: `Recall ${kael}` })).toBeVisible();
});

test('fork from the detail panel: the child hatches in an empty seat and its thread points to what it inherited', async ({ page }) => {
  await openHydrated(page, server.url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    await page.getByRole('button', { name: 'SUMMON' }).click();
  }
  await expect(page.locator('.cell[data-seat="0"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(page.locator('.cell[data-seat="6"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const lyra = (await page.locator('.cell[data-seat="0"] .name').textContent())!;
  // An empty seat for the child.
  const r = await humanFetch(`${server.url}/api/agents/6/kill`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(r.status).toBe(200);
  await expect(page.locator('.cell[data-seat="6"]')).toHaveAttribute('data-status', 'empty');

  await page.locator('.cell[data-seat="0"]').click();
  await expect(page.locator('.agent-detail')).toHaveAttribute('data-detail-seat', '0');
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-detail .fork > summary').click();
  await page.getByPlaceholder('Opening words for the fork (optional)').fill('hello, child');
  await page.getByRole('button', { name: `Fork ${lyra}` }).click();
  const status = page.locator('.agent-detail .fork [role="status"]');
  await expect(status).toContainText('once this turn has ended');
  // The first empty seat (other tests in this file may have emptied one before seat 7).
  const shown = Number((await status.textContent())!.match(/seat (\d)/)![1]);
  const child = page.locator(`.cell[data-seat="${shown - 1}"]`);
  await expect(child).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(child.locator('.name')).not.toHaveText(lyra);

  await child.click();
  const inherited = page.locator('.thread .note.inherited');
  await expect(inherited).toContainText(`Inherited from ${lyra}`);
  await inherited.getByRole('link', { name: lyra }).click();
  await expect(page.locator('.agent-page h1')).toHaveText(lyra);
});
