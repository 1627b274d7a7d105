import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, humanFetch } from '../support/server';

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

/// Eight agents awake on this spec's server, whatever ran before: summoned through the API if
/// the seats are empty, woken if they sleep. Each test that needs a team starts with it, so each
/// passes alone.
async function ensureTeam() {
  const agents = async () => {
    const docs = await (await humanFetch(`${server.url}/api/docs`)).json();
    return Object.values(docs.docs).filter(
      (d: any) => d.type === 'agent-identity' && d.gridPosition !== 4,
    ) as { status?: string; name?: string }[];
  };
  const post = (path: string) =>
    humanFetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const now = await agents();
  if (now.filter((a) => a.status !== 'expired').length < 8) await post('/api/agents/summon');
  else if (now.some((a) => a.status === 'sleeping')) await post('/api/agents/wake');
  await expect
    .poll(async () => (await agents()).filter((a) => a.status === 'alive' && a.name).length, { timeout: 20_000 })
    .toBe(8);
}

test('SUMMON in the browser: eight eggs, then eight named faces that survive a reload', async ({ page }) => {
  await openHydrated(page, server.url);
  const summon = page.getByRole('button', { name: 'SUMMON' });
  await expect(summon).toBeVisible();
  // Every state each cell goes through, and the most eggs at once, as the page draws them: the
  // eggs are seen however briefly they last on a loaded machine.
  await page.evaluate(() => {
    const w = window as any;
    w.seen = {};
    w.mostEggs = 0;
    const look = () => {
      document.querySelectorAll('.cell').forEach((c) => {
        const seat = c.getAttribute('data-seat')!;
        (w.seen[seat] ??= []).push(c.getAttribute('data-status'));
      });
      w.mostEggs = Math.max(w.mostEggs, document.querySelectorAll('.cell .egg').length);
    };
    new MutationObserver(look).observe(document.querySelector('.cell')!.parentElement!, {
      attributes: true,
      subtree: true,
      childList: true,
    });
  });
  await summon.click();

  for (const seat of agentSeats) {
    await expect(page.locator(`.cell[data-seat="${seat}"]`)).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  }
  await expect(page.locator('.cell .egg')).toHaveCount(0);
  const seen: Record<string, string[]> = await page.evaluate(() => (window as any).seen);
  for (const seat of agentSeats) {
    expect(seen[seat], `seat ${seat} hatched before it woke`).toContain('hatching');
  }
  expect(await page.evaluate(() => (window as any).mostEggs)).toBe(8);
  const names = await page.locator('.cell:not(.lead) .name').allTextContents();
  expect(new Set(names).size).toBe(8);
  expect(names.every((n) => n.length > 0)).toBe(true);
  await expect(page.getByRole('button', { name: 'SUMMON' })).toHaveCount(0);

  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  expect(await page.locator('.cell:not(.lead) .name').allTextContents()).toEqual(names);
});

test('talk to an agent and to the lead from the composer; each reply lands in its own thread', async ({ page }) => {
  await ensureTeam();
  await openHydrated(page, server.url);
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'alive');
  const wren = (await page.locator('.cell[data-seat="2"] .name').textContent())!;

  await page.locator('.cell[data-seat="2"]').click();
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.thread-title')).toHaveText(wren);
  const box = page.getByLabel('Message');
  await box.fill('how is the window seat?');
  await box.press('Enter');
  await expect(box).toHaveValue('');
  await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: 'how is the window seat?' })).toHaveCount(1);
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“how is the window seat?' })).toHaveCount(1, { timeout: 10_000 });

  // Esc goes back to the lead's thread, where none of that was said.
  await page.keyboard.press('Escape');
  await expect(page.locator('.cell[data-seat="4"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.thread .msg', { hasText: 'window seat' })).toHaveCount(0);
  await box.fill('hello lead');
  await box.press('Shift+Enter');
  await box.type('second line');
  await box.press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="human"]', { hasText: 'hello lead' })).toContainText('second line');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'hello lead' })).toHaveCount(1, { timeout: 10_000 });

  // Keys 1-9 open seats (3 is seat 2).
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('3');
  await expect(page.locator('.thread-title')).toHaveText(wren);

  // A page loaded now carries the lead's thread only; Wren's comes when it is opened.
  const html = await (await humanFetch(server.url)).text();
  expect(html).toContain('hello lead');
  expect(html).not.toContain('how is the window seat?');
  await openHydrated(page, server.url);
  await page.locator('.cell[data-seat="2"]').click();
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“how is the window seat?' })).toHaveCount(1);
  await expect(page.locator('.thread .older')).toHaveCount(0);
});

test('unread replies show as a badge and in the title; the detail panel shows the soul', async ({ page }) => {
  await ensureTeam();
  await openHydrated(page, server.url);
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const wren = (await page.locator('.cell[data-seat="2"] .name').textContent())!;
  await expect(page.locator('.cell .badge')).toHaveCount(0);
  await expect(page).toHaveTitle('Soulgrid');

  // Wren answers while the lead's thread is open: one unread reply.
  const res = await humanFetch(`${server.url}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'a question for later', targetAgent: wren }),
  });
  expect(res.status).toBe(202);
  await expect(page.locator('.cell[data-seat="2"] .badge')).toHaveText('1', { timeout: 10_000 });
  await expect(page).toHaveTitle('(1) Soulgrid');

  // Opening her thread reads it.
  await page.locator('.cell[data-seat="2"]').click();
  await expect(page.locator('.cell[data-seat="2"] .badge')).toHaveCount(0);
  await expect(page).toHaveTitle(`${wren} · Soulgrid`);

  // A reply in the thread that is open is read as it comes: neither the title nor her cell
  // counts it, not even for a moment (every title set and every badge drawn is noted).
  await page.evaluate(() => {
    const w = window as any;
    w.titles = [];
    w.badges = 0;
    new MutationObserver(() => w.titles.push(document.title)).observe(document.head, { subtree: true, childList: true, characterData: true });
    new MutationObserver((records) => {
      for (const r of records) r.addedNodes.forEach((n) => (w.badges += (n as Element).classList?.contains('badge') ? 1 : 0));
    }).observe(document.querySelector('.cell[data-seat="2"]')!, { subtree: true, childList: true });
  });
  const again = await humanFetch(`${server.url}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'and one more', targetAgent: wren }),
  });
  expect(again.status).toBe(202);
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“and one more' })).toHaveCount(1, { timeout: 10_000 });
  const seen: { titles: string[]; badges: number } = await page.evaluate(() => ({ titles: (window as any).titles, badges: (window as any).badges }));
  expect(seen.titles.filter((t) => t !== `${wren} · Soulgrid`), 'titles set while her reply came in').toEqual([]);
  expect(seen.badges, 'badges drawn on her cell').toBe(0);
  await expect(page).toHaveTitle(`${wren} · Soulgrid`);

  const detail = page.locator('.agent-detail');
  await detail.locator('summary').first().click();
  await expect(detail).toContainText(`About ${wren}`);
  await expect(detail).toContainText('alive');
  await expect(detail.locator('.soul-text')).toContainText(`I am ${wren}`);
  await expect(detail).toContainText('tokens');
});

test('put one agent to sleep, end the session, and wake them, all from the browser', async ({ page }) => {
  await ensureTeam();
  await openHydrated(page, server.url);
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  const kael = (await page.locator('.cell[data-seat="1"] .name').textContent())!;

  await page.locator('.cell[data-seat="1"]').click();
  await page.locator('.agent-detail summary').first().click();
  await page.getByRole('button', { name: `Put ${kael} to sleep` }).click();
  await expect(page.locator('.cell[data-seat="1"]')).toHaveAttribute('data-status', 'sleeping');
  await expect(page.locator('.cell[data-seat="1"] .activity')).toHaveText('asleep');
  await page.getByRole('button', { name: 'WAKE', exact: true }).click();
  await expect(page.locator('.cell[data-seat="1"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });

  // Asked first: nothing ends on one click.
  await page.locator('.end-session > summary').click();
  await expect(page.locator('.end-session .confirm')).toContainText('goes to sleep');
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8);
  await page.getByRole('button', { name: 'End it' }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="sleeping"]')).toHaveCount(8, { timeout: 20_000 });
  await expect(page.locator('.end-session')).toHaveCount(0);
  await page.getByRole('button', { name: 'WAKE', exact: true }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
});

test('a working agent can be interrupted from its thread', async ({ page }) => {
  await ensureTeam();
  await openHydrated(page, server.url);
  await expect(page.locator('.cell[data-seat="0"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await page.locator('.cell[data-seat="0"]').click();
  // Its wake turn over first: an interrupt between turns stops nothing, and 'thinking…' below
  // must be the hanging turn's.
  await expect(page.locator('.cell[data-seat="0"] .activity')).toHaveText('awake', { timeout: 20_000 });
  await page.getByLabel('Message').fill('SIM_HANG think forever');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.cell[data-seat="0"] .activity')).toHaveText('thinking…');
  await expect(page.locator('.thread-activity')).toHaveText('thinking…');
  // The turn's time runs beside it, counted each second.
  await expect(page.locator('.thread-head .elapsed')).toHaveText(/^\d+ s$/);
  await expect(page.locator('.thread-head .elapsed')).toHaveText(/^([2-9]|\d\d) s$/, { timeout: 10_000 });

  // Another agent at work too: its thread's Interrupt stops its turn, not the one shown before.
  await expect(page.locator('.cell[data-seat="3"] .activity')).toHaveText('awake', { timeout: 20_000 });
  const other = (await page.locator('.cell[data-seat="3"] .name').textContent())!;
  const hang = await humanFetch(`${server.url}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'SIM_HANG you too', targetAgent: other }),
  });
  expect(hang.status).toBe(202);
  await expect(page.locator('.cell[data-seat="3"] .activity')).toHaveText('thinking…');
  await page.locator('.cell[data-seat="3"]').click();
  await expect(page.locator('.thread-title')).toHaveText(other);
  await page.locator('.thread-head').getByRole('button', { name: 'Interrupt', exact: true }).click();
  await expect(page.locator('.cell[data-seat="3"] .activity')).toHaveText('awake (interrupted)', { timeout: 10_000 });
  await expect(page.locator('.cell[data-seat="0"] .activity')).toHaveText('thinking…');

  await page.locator('.cell[data-seat="0"]').click();
  await page.locator('.thread-head').getByRole('button', { name: 'Interrupt', exact: true }).click();
  await expect(page.locator('.cell[data-seat="0"] .activity')).toHaveText('awake (interrupted)', { timeout: 10_000 });
  await expect(page.getByRole('button', { name: 'Interrupt', exact: true })).toHaveCount(0);
  // The agent is still there: the next message is answered.
  await page.getByLabel('Message').fill('are you back?');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: '“are you back?' })).toHaveCount(1, { timeout: 10_000 });
});

test('badges count what the team says to the human: a newborn\'s first words, its note before sleep and its waking words are not unread', async ({ page }) => {
  const own = await startServer();
  try {
    const docs = async () => Object.values((await (await humanFetch(`${own.url}/api/docs`)).json()).docs) as any[];
    const said = async (seat: number) => (await docs()).filter((d) => d.type === 'message' && d.seat === seat && d.speakerType === 'agent');
    const post = (path: string, body: unknown = {}) =>
      humanFetch(`${own.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await openHydrated(page, own.url);
    expect((await post('/api/agents/summon')).status).toBe(202);
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    // Every newborn has said its first words (its soul) in its thread: none of them is unread.
    await expect.poll(async () => (await docs()).filter((d) => d.type === 'message' && d.speakerType === 'agent').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(8);
    await expect(page.locator('.cell .badge')).toHaveCount(0);

    // A reply to the human is.
    expect((await post('/api/send', { text: 'how is the window seat?', seat: 2 })).status).toBe(202);
    await expect(page.locator('.cell[data-seat="2"] .badge')).toHaveText('1', { timeout: 10_000 });

    // Put to sleep, it writes down what it learned and says so: not for the human.
    const before = (await said(2)).length;
    expect((await post('/api/agents/2/dismiss')).status).toBe(200);
    await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'sleeping', { timeout: 20_000 });
    expect((await said(2)).length).toBeGreaterThan(before);
    await expect(page.locator('.cell[data-seat="2"] .badge')).toHaveText('1');

    // Woken, its first words answer the wake, not the human.
    const asleep = (await said(2)).length;
    expect((await post('/api/agents/wake', { seats: [2] })).status).toBe(202);
    await expect.poll(async () => (await said(2)).length, { timeout: 20_000 }).toBeGreaterThan(asleep);
    await expect(page.locator('.cell[data-seat="2"] .badge')).toHaveText('1');
  } finally {
    await own.stop();
  }
});
