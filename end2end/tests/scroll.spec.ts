import { test, expect, openHydrated } from '../support/page';
import { startServer } from '../support/server';

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

test('a long thread shows its newest hundred entries (a page loaded, its newest thirty), and older ones on request, where the reader was', async ({ page }) => {
  // Its own server: the lead's thread is filled.
  const own = await startServer();
  try {
    await openHydrated(page, own.url);
    // 70 messages to the lead and its 70 answers: 140 entries.
    for (let i = 0; i < 70; i++) await send(own.url, `long thread ${i}`);
    await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'long thread 69' })).toHaveCount(1, { timeout: 20_000 });
    const messages = page.locator('.thread .msg');
    await expect(messages).toHaveCount(100);
    const older = page.getByRole('button', { name: /Show older \(\d+ more\)/ });
    await expect(older).toBeVisible();
    await expect(messages.first()).not.toContainText('long thread 0');
    // The reader stays where they were as the older entries come in above.
    const panel = page.locator('.thread-panel');
    const first = messages.first();
    // Where the reader is when they press it (the button is at the top of the thread).
    await older.scrollIntoViewIfNeeded();
    const before = await first.evaluate((el) => el.getBoundingClientRect().top);
    await older.click();
    await expect(messages.first()).toContainText('long thread 0');
    await expect(older).toHaveCount(0);
    expect(await messages.count()).toBeGreaterThan(100);
    const after = await page.locator('.thread .msg').nth((await messages.count()) - 100).evaluate((el) => el.getBoundingClientRect().top);
    expect(Math.abs(after - before)).toBeLessThan(5);
    expect(await panel.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);

    // A page loaded now carries only the newest thirty (`FIRST`); older ones come from the
    // server a hundred at a time when asked for, and the reader still stays where they were.
    const html = await (await fetch(own.url)).text();
    expect(html).toContain('long thread 69');
    expect(html.match(/data-message-id="/g)).toHaveLength(30);
    expect(html).not.toMatch(/long thread 0(?!\d)/);
    await openHydrated(page, own.url);
    await expect(messages).toHaveCount(30);
    await expect(older).toHaveText('Show older (110 more)');
    await older.scrollIntoViewIfNeeded();
    const top = await messages.first().evaluate((el) => el.getBoundingClientRect().top);
    await older.click();
    await expect(messages).toHaveCount(130);
    await expect(older).toHaveText('Show older (10 more)');
    // Kept in the frame after the older entries are drawn.
    await expect
      .poll(async () => Math.abs((await messages.nth(100).evaluate((el) => el.getBoundingClientRect().top)) - top))
      .toBeLessThan(5);
    await older.click();
    await expect(messages.first()).toContainText('long thread 0');
    await expect(messages).toHaveCount(140);
    await expect(older).toHaveCount(0);
  } finally {
    await own.stop();
  }
});

test('older messages that cannot be loaded say so, and Show older tries again', async ({ page, problems }) => {
  const own = await startServer();
  try {
    // 20 messages to the lead and its 20 answers: 40 entries, of which a page carries 30.
    for (let i = 0; i < 20; i++) await send(own.url, `short thread ${i}`);
    await expect
      .poll(async () => (await (await fetch(`${own.url}/api/docs`)).text()).includes('You said: short thread 19'))
      .toBe(true);
    await openHydrated(page, own.url);
    const messages = page.locator('.thread .msg');
    await expect(messages).toHaveCount(30);
    const older = page.getByRole('button', { name: 'Show older (10 more)' });

    // The server's answer fails: the reader is told, nothing is lost, the button stays.
    await page.route('**/api/get_older*', (route) => route.fulfill({ status: 500, body: 'the store is busy' }));
    await older.click();
    const alert = page.getByRole('alert').filter({ hasText: 'Older messages could not be loaded' });
    await expect(alert).toBeVisible();
    await expect(messages).toHaveCount(30);
    await expect(older).toBeEnabled();
    // The browser reports the failed request itself; it is the one expected.
    expect(problems.splice(0).every((p) => p.includes('500'))).toBe(true);

    // Once the server answers, the same button brings them and the note goes.
    await page.unroute('**/api/get_older*');
    await older.click();
    await expect(messages).toHaveCount(40);
    await expect(messages.first()).toContainText('short thread 0');
    await expect(alert).toHaveCount(0);
  } finally {
    await own.stop();
  }
});
