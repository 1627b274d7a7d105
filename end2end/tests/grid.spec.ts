import { test, expect, openHydrated } from '../support/page';
import { openTeam, postJson } from '../support/own';
import { startServer } from '../support/server';

test('the grid hydrates with nine cells and the lead in the centre', async ({ page }) => {
  await openHydrated(page);
  const cells = page.locator('.grid .cell');
  await expect(cells).toHaveCount(9);
  const seats = await cells.evaluateAll((els) => els.map((e) => e.getAttribute('data-seat')));
  expect(seats).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8']);
  const centre = cells.nth(4);
  await expect(centre).toHaveClass(/lead/);
  await expect(centre.locator('.name')).toHaveText('Julian');
  await expect(centre).toHaveAttribute('aria-label', /Julian, the lead/);
  await expect(page.getByRole('button', { name: 'SUMMON' })).toBeVisible();
});

test("a cell stays the same element while its agent works: its focus and its face are kept", async ({ page }) => {
  // Its own server: the team changes. Slow answers, to see the agent at work.
  const own = await startServer({ env: { SOULGRID_SIM_LATENCY_MS: '400' } });
  try {
    await openTeam(page, own);
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    const cell = page.locator('.cell[data-seat="0"]');
    await expect(cell.locator('.activity')).toHaveText(/idle/, { timeout: 20_000 });
    await cell.focus();
    // Marks on the elements as they are now: a new element would not carry them.
    await cell.evaluate((el) => {
      (el as any).__kept = true;
      (el.querySelector('svg') as any).__kept = true;
    });
    expect((await postJson(own, '/api/send', { text: 'hello there', seat: 0 })).status).toBe(202);
    await expect(cell.locator('.activity')).not.toHaveText(/idle/);
    await expect(cell.locator('.activity')).toHaveText(/idle/, { timeout: 20_000 });
    const kept = await cell.evaluate((el) => ({
      button: (el as any).__kept === true,
      face: (el.querySelector('svg') as any)?.__kept === true,
      focus: document.activeElement === el,
    }));
    expect(kept).toEqual({ button: true, face: true, focus: true });
  } finally {
    await own.stop();
  }
});
