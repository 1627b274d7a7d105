import { test, expect } from '../support/page';
import { humanFetch } from '../support/server';

// Server-rendered: with JavaScript off the grid and the conversation are still there to read.
test.use({ javaScriptEnabled: false });

test('the page is readable with JavaScript off', async ({ page, baseURL }) => {
  const text = `readable without scripts ${Date.now()}`;
  const res = await humanFetch(`${baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
  await page.goto('/');
  await expect(page.locator('.grid .cell')).toHaveCount(9);
  await expect(page.locator('.cell.lead .name')).toHaveText('Julian');
  await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: text })).toHaveCount(1);
  await expect(page.locator('body')).not.toHaveAttribute('data-hydrated', 'true');
});
