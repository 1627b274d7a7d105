import { test, expect, openHydrated } from '../support/page';

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
