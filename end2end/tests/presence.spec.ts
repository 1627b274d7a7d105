import { test, expect, openHydrated } from '../support/page';

// The browser's Notification and document.hidden are replaced by recorders: headless Chromium
// shows no notifications, and a test cannot hide its own tab.
test('a reply that arrives while the tab is hidden becomes a notification; none while visible', async ({ page, baseURL }) => {
  await page.addInitScript(() => {
    const w = window as any;
    w.__notes = [];
    w.__hidden = false;
    w.Notification = class {
      static permission = 'granted';
      static requestPermission() {
        return Promise.resolve('granted');
      }
      constructor(title: string, options?: { body?: string }) {
        w.__notes.push({ title, body: options?.body });
      }
    };
    Object.defineProperty(document, 'hidden', { get: () => w.__hidden, configurable: true });
  });
  await openHydrated(page);

  const send = async (text: string) => {
    const res = await fetch(`${baseURL}/api/send`, {
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
