import { test, expect, openHydrated, recordNotifications } from '../support/page';
import { humanFetch } from '../support/server';

test('a reply that arrives while the tab is hidden becomes a notification; none while visible', async ({ page, baseURL }) => {
  await recordNotifications(page);
  await openHydrated(page);

  const send = async (text: string) => {
    const res = await humanFetch(`${baseURL}/api/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(res.status).toBe(202);
  };

  await send('while you can see me');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'while you can see me' })).toHaveCount(1);
  expect(await page.evaluate(() => (window as any).__notes)).toEqual([]);

  await page.evaluate(() => ((window as any).__hidden = true));
  await send('while the tab is hidden');
  await expect
    .poll(() => page.evaluate(() => (window as any).__notes))
    .toEqual([{ title: 'Julian wrote', body: expect.stringContaining('while the tab is hidden') }]);
});
