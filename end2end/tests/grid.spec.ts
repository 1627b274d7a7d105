import { test, expect, openHydrated } from '../support/page';
import { openTeam, postJson } from '../support/own';
import { startServer, humanFetch } from '../support/server';

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

async function sendToLead(text: string) {
  const res = await humanFetch(`${test.info().project.use.baseURL}/api/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(202);
}

test('a message and its reply redraw their lines and what they change, nothing else on the page', async ({ page }) => {
  await openHydrated(page);
  await expect(page.getByRole('button', { name: 'SUMMON' })).toBeVisible();
  // The lead is started first (its seat, the End session button): what is left is one turn.
  await sendToLead('wake up check');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'wake up check' })).toHaveCount(1);
  await expect(page.locator('.cell.lead .activity')).toHaveText(/awake/);
  // Every change to the page from now on, by where it happened.
  await page.evaluate(() => {
    const w = window as any;
    w.changes = [];
    const where = (n: Node) => {
      const el = (n.nodeType === 1 ? n : n.parentElement) as Element;
      return `${el.tagName.toLowerCase()}.${el.className}`;
    };
    w.head = [];
    new MutationObserver((records) => {
      for (const r of records) {
        // Text changed in place is what a change should cost; so is a line added to the thread.
        if (r.type === 'characterData') continue;
        if (r.type === 'childList' && (r.target as Element).matches?.('div.thread-head')) {
          // The thread's head: which elements came and went, and what they said.
          const said = (sign: string, nodes: NodeList) =>
            [...nodes].filter((n) => n.nodeType === 1).forEach((n) => w.head.push(`${sign}${(n as Element).tagName.toLowerCase()} ${n.textContent}`));
          said('+', r.addedNodes);
          said('-', r.removedNodes);
        } else if (r.type !== 'childList' || !(r.target as Element).matches?.('ol.thread')) {
          w.changes.push(`${r.type} ${where(r.target)} ${r.attributeName ?? ''}`.trim());
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await sendToLead('redraw check');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'redraw check' })).toHaveCount(1);
  const { changes, head } = await page.evaluate(() => ({ changes: (window as any).changes, head: (window as any).head }));
  // Besides the two lines and the texts that changed (the activity, the detail's fields): the
  // last event's id and the time slider. Nothing drawn again with the same content (the grid's
  // button, End session, the detail panel).
  const expected = new Set([
    'attributes main.console data-last-event-id',
    'attributes input. max',
    'attributes input. aria-valuetext',
    // The lead's cell tells screen readers what it does (working, then awake again).
    'attributes button.cell lead aria-label',
    // The detail's "Last alive" moves with the turn: its <time> is updated in place.
    'attributes time. datetime',
    'attributes time. title',
  ]);
  expect(changes.filter((c: string) => !expected.has(c))).toEqual([]);
  // The Interrupt button comes with the turn and goes with it, once each; so does the turn's
  // running time beside it.
  expect(head.filter((h: string) => h.includes('button'))).toEqual(['+button Interrupt', '-button Interrupt']);
  const time = head.filter((h: string) => !h.includes('button')).map((h: string) => h.replace(/\d+ s$/, 'N s'));
  expect(time).toEqual(['+span N s', '-span N s']);
});

test("a cell stays the same element while its agent works: its focus and its face are kept", async ({ page }) => {
  // Its own server: the team changes. Slow answers, to see the agent at work.
  const own = await startServer({ env: { SOULGRID_SIM_LATENCY_MS: '400' } });
  try {
    await openTeam(page, own);
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    const cell = page.locator('.cell[data-seat="0"]');
    await expect(cell.locator('.activity')).toHaveText(/awake/, { timeout: 20_000 });
    await cell.focus();
    // Marks on the elements as they are now: a new element would not carry them.
    await cell.evaluate((el) => {
      (el as any).__kept = true;
      (el.querySelector('svg') as any).__kept = true;
    });
    expect((await postJson(own, '/api/send', { text: 'hello there', seat: 0 })).status).toBe(202);
    await expect(cell.locator('.activity')).not.toHaveText(/awake/);
    await expect(cell.locator('.activity')).toHaveText(/awake/, { timeout: 20_000 });
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
