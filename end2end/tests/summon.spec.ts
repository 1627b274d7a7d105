import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer } from '../support/server';

// Its own server, so SUMMON does not change what the other specs see. The simulated agents take
// 1.5 s to answer, long enough to see the eggs.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer({ env: { SOULGRID_SIM_LATENCY_MS: '1500' } });
});
test.afterAll(async () => {
  await server?.stop();
});

const agentSeats = ['0', '1', '2', '3', '5', '6', '7', '8'];

test('SUMMON in the browser: eight eggs, then eight named faces that survive a reload', async ({ page }) => {
  await openHydrated(page, server.url);
  const summon = page.getByRole('button', { name: 'SUMMON' });
  await expect(summon).toBeVisible();
  await summon.click();

  for (const seat of agentSeats) {
    await expect(page.locator(`.cell[data-seat="${seat}"]`)).toHaveAttribute('data-status', 'hatching');
  }
  await expect(page.locator('.cell .egg')).toHaveCount(8);

  for (const seat of agentSeats) {
    await expect(page.locator(`.cell[data-seat="${seat}"]`)).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  }
  await expect(page.locator('.cell .egg')).toHaveCount(0);
  const names = await page.locator('.cell:not(.lead) .name').allTextContents();
  expect(new Set(names).size).toBe(8);
  expect(names.every((n) => n.length > 0)).toBe(true);
  await expect(page.getByRole('button', { name: 'SUMMON' })).toHaveCount(0);

  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  expect(await page.locator('.cell:not(.lead) .name').allTextContents()).toEqual(names);
});
