import { test, expect, openHydrated } from '../support/page';
import { humanFetch } from '../support/server';

test('a message appended through the API shows up in two open tabs without reload', async ({ page, context, baseURL }) => {
  const second = await context.newPage();
  const problems: string[] = [];
  second.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  second.on('pageerror', (e) => problems.push(e.message));

  await openHydrated(page);
  await openHydrated(second);
  for (const p of [page, second]) {
    await expect(p.locator('.live-state')).toHaveAttribute('data-live', 'true');
  }

  const text = `hello from the API ${Date.now()}`;
  const res = await humanFetch(`${baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
  const { eventId } = await res.json();

  for (const p of [page, second]) {
    const msg = p.locator('.thread .msg[data-speaker-type="human"]', { hasText: text });
    await expect(msg).toHaveCount(1);
    // The (simulated) lead answers in the same thread, live too.
    await expect(p.locator('.thread .msg[data-speaker-type="lead"]', { hasText: text })).toHaveCount(1);
    const last = Number(await p.locator('main.console').getAttribute('data-last-event-id'));
    expect(last).toBeGreaterThanOrEqual(eventId);
  }
  expect(problems).toEqual([]);
});

test('a tab that reloads renders the same thread from the server', async ({ page, baseURL }) => {
  const text = `persisted ${Date.now()}`;
  const res = await humanFetch(`${baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
  await openHydrated(page);
  await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: text })).toHaveCount(1);
});
