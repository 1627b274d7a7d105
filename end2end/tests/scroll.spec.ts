import { test, expect, openHydrated } from '../support/page';
import { startServer, humanFetch } from '../support/server';

async function send(baseURL: string, text: string) {
  const res = await humanFetch(`${baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
}

/** `n` messages to the lead (`${prefix} 0` …) and its `n` answers, stored. */
async function fillLeadThread(baseURL: string, n: number, prefix: string) {
  for (let i = 0; i < n; i++) await send(baseURL, `${prefix} ${i}`);
  await expect
    .poll(async () => (await (await humanFetch(`${baseURL}/api/docs`)).text()).includes(`“${prefix} ${n - 1}`))
    .toBe(true);
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

  // The head stays on top, opaque, from the panel's very top: no message shows through it or
  // above it while the thread scrolls under it (the padding above it let them show).
  const covered = await panel.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return [2, 8, 20].every((dy) => {
      const at = document.elementFromPoint(box.left + box.width / 2, box.top + dy);
      return at !== null && at.closest('.thread-head') !== null;
    });
  });
  expect(covered).toBe(true);
  // Scrolled up to read: new messages do not pull the view down.
  await panel.evaluate((el) => el.scrollTo(0, 0));
  await panel.dispatchEvent('scroll');
  await send(baseURL!, 'one more while reading');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'one more while reading' })).toHaveCount(1);
  // (At the top, the thread's older entries may come in above, the reader kept in place.)
  expect(await panel.evaluate(gap)).toBeGreaterThan(80);

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
    // The button pressed where the reader is (scrolled up to it, the reader would bring the
    // older entries without it: the next test), as a keyboard or an assistive tool can.
    const press = () => older.evaluate((b) => (b as HTMLButtonElement).click());
    const before = await first.evaluate((el) => el.getBoundingClientRect().top);
    await press();
    await expect(messages.first()).toContainText('long thread 0');
    await expect(older).toHaveCount(0);
    expect(await messages.count()).toBeGreaterThan(100);
    const after = await page.locator('.thread .msg').nth((await messages.count()) - 100).evaluate((el) => el.getBoundingClientRect().top);
    expect(Math.abs(after - before)).toBeLessThan(5);
    expect(await panel.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);

    // A page loaded now carries only the newest thirty (`FIRST`); older ones come from the
    // server a hundred at a time when asked for, and the reader still stays where they were.
    const html = await (await humanFetch(own.url)).text();
    expect(html).toContain('long thread 69');
    expect(html.match(/data-message-id="/g)).toHaveLength(30);
    expect(html).not.toMatch(/long thread 0(?!\d)/);
    await openHydrated(page, own.url);
    await expect(messages).toHaveCount(30);
    await expect(older).toHaveText('Show older (110 more)');
    const top = await messages.first().evaluate((el) => el.getBoundingClientRect().top);
    await press();
    await expect(messages).toHaveCount(130);
    await expect(older).toHaveText('Show older (10 more)');
    // Kept in the frame after the older entries are drawn.
    await expect
      .poll(async () => Math.abs((await messages.nth(100).evaluate((el) => el.getBoundingClientRect().top)) - top))
      .toBeLessThan(5);
    await press();
    await expect(messages.first()).toContainText('long thread 0');
    await expect(messages).toHaveCount(140);
    await expect(older).toHaveCount(0);
  } finally {
    await own.stop();
  }
});

test('scrolling up to the top of a long thread brings its older entries, where the reader was', async ({ page }) => {
  const own = await startServer();
  try {
    // 70 messages to the lead and its 70 answers: 140 entries, of which a page carries 30.
    await fillLeadThread(own.url, 70, 'scrolled thread');
    await page.setViewportSize({ width: 1280, height: 700 });
    await openHydrated(page, own.url);
    const messages = page.locator('.thread .msg');
    const panel = page.locator('.thread-panel');
    await expect(messages).toHaveCount(30);
    await expect.poll(() => panel.evaluate(gap)).toBeLessThan(80);
    const older = page.getByRole('button', { name: /Show older \(\d+ more\)/ });

    // The reader scrolls up with the wheel, without pressing anything: at the top, the next
    // page is asked for (held here until the reader's place is measured), comes in above, and
    // what they were reading stays where it was.
    let asked = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/get_older*', async (route) => {
      asked = true;
      await released;
      await route.continue();
    });
    const id = await messages.first().getAttribute('data-message-id');
    const reading = page.locator(`[data-message-id="${id}"]`);
    await panel.hover();
    for (let i = 0; i < 40 && (await panel.evaluate((el) => el.scrollTop)) > 0; i++) await page.mouse.wheel(0, -600);
    await expect.poll(() => asked, { message: 'the reader at the top: older messages asked for' }).toBe(true);
    const top = await reading.evaluate((el) => el.getBoundingClientRect().top);
    release();
    await expect(messages).toHaveCount(130);
    await expect(older).toHaveText('Show older (10 more)');
    await expect
      .poll(async () => Math.abs((await reading.evaluate((el) => el.getBoundingClientRect().top)) - top))
      .toBeLessThan(5);
    expect(await panel.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    await page.unroute('**/api/get_older*');

    // Up to the top again: the last ten, and nothing is left to show.
    for (let i = 0; i < 80 && (await messages.count()) < 140; i++) await page.mouse.wheel(0, -600);
    await expect(messages).toHaveCount(140);
    await expect(messages.first()).toContainText('scrolled thread 0');
    await expect(older).toHaveCount(0);
  } finally {
    await own.stop();
  }
});

test('older messages that cannot be loaded say so, and Show older tries again', async ({ page, problems }) => {
  const own = await startServer();
  try {
    // 20 messages to the lead and its 20 answers: 40 entries, of which a page carries 30.
    await fillLeadThread(own.url, 20, 'short thread');
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
