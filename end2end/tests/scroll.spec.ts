import { test, expect, openHydrated } from '../support/page';

async function send(baseURL: string, text: string) {
  const res = await fetch(`${baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
}

const gap = (el: Element) => el.scrollHeight - el.scrollTop - el.clientHeight;

test('the thread stays at the bottom as messages arrive, unless the human scrolled up', async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 1280, height: 700 });
  await openHydrated(page);
  const panel = page.locator('.thread-panel');
  for (let i = 0; i < 15; i++) await send(baseURL!, `filler line ${i}\n\nwith a second paragraph`);
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'filler line 14' })).toHaveCount(1);
  expect(await panel.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  await expect.poll(() => panel.evaluate(gap)).toBeLessThan(80);

  // Scrolled up to read: new messages do not pull the view down.
  await panel.evaluate((el) => el.scrollTo(0, 0));
  await panel.dispatchEvent('scroll');
  await send(baseURL!, 'one more while reading');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'one more while reading' })).toHaveCount(1);
  expect(await panel.evaluate((el) => el.scrollTop)).toBe(0);

  // Back at the bottom: it follows again.
  await panel.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await panel.dispatchEvent('scroll');
  await send(baseURL!, 'and the last one');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'and the last one' })).toHaveCount(1);
  await expect.poll(() => panel.evaluate(gap)).toBeLessThan(80);
});
