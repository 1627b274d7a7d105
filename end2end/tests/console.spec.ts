// The console as a person meets it (issue 31): text never goes to the wrong agent or is lost,
// and a retired agent leaves no ghost behind.
import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';
import { humanFetch } from '../support/server';

// Its own server: these tests summon and retire.
const server = ownServer();

/// Eight agents awake, whatever an earlier test left: the empty seats summoned, sleepers woken.
async function team(page: import('@playwright/test').Page) {
  await openHydrated(page, server().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) < 8) {
    expect((await postJson(server(), '/api/agents/summon')).status).toBe(202);
    expect((await postJson(server(), '/api/agents/wake')).status).toBe(202);
  }
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
}

test('a draft stays with the agent it was written to, across switches and a reload', async ({ page }) => {
  await team(page);
  const box = page.getByLabel('Message');
  const kael = (await page.locator('.cell[data-seat="1"] .name').textContent())!;
  const sable = (await page.locator('.cell[data-seat="5"] .name').textContent())!;

  // A digit chooses a seat, and is not typed into its draft.
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('6');
  await expect(page.locator('.composer .to')).toHaveText(`To ${sable}`);
  await expect(box).toHaveValue('');
  await page.keyboard.press('Escape');
  // Choosing an agent puts the cursor in the composer, which says whom it writes to.
  await page.locator('.cell[data-seat="1"]').click();
  await expect(box).toBeFocused();
  await expect(page.locator('.composer .to')).toHaveText(`To ${kael}`);
  // What is typed next is the message (a digit does not switch seats).
  await page.keyboard.type('for 3 eyes only');
  await expect(box).toHaveValue('for 3 eyes only');
  await expect(page.locator('.cell[data-seat="1"]')).toHaveAttribute('aria-pressed', 'true');

  // Esc goes back to the lead: the draft stays with Kael, not in the lead's box.
  await page.keyboard.press('Escape');
  await expect(page.locator('.composer .to')).toHaveText('To Julian');
  await expect(box).toHaveValue('');
  await box.fill('for the lead');
  // Another face: its own (empty) draft; back to Kael: his.
  await page.locator('.cell[data-seat="5"]').click();
  await expect(page.locator('.composer .to')).toHaveText(`To ${sable}`);
  await expect(box).toHaveValue('');
  await page.locator('.cell[data-seat="1"]').click();
  await expect(box).toHaveValue('for 3 eyes only');

  // A reload keeps both drafts.
  await openHydrated(page, server().url);
  await expect(box).toHaveValue('for the lead');
  await page.locator('.cell[data-seat="1"]').click();
  await expect(box).toHaveValue('for 3 eyes only');

  // Sent, the draft is gone for good; the reply is Kael's.
  await box.press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'for 3 eyes only' })).toHaveCount(1, { timeout: 10_000 });
  await expect(box).toHaveValue('');
  await openHydrated(page, server().url);
  await page.locator('.cell[data-seat="1"]').click();
  await expect(box).toHaveValue('');
});

test('retiring the agent you talk to selects the lead and leaves no ghost or stale error', async ({ page, problems }) => {
  await team(page);
  const box = page.getByLabel('Message');
  const seat = page.locator('.cell[data-seat="2"]');
  const wren = (await seat.locator('.name').textContent())!;
  await seat.click();
  await expect(page.locator('.agent-detail')).toHaveAttribute('data-detail-seat', '2');
  // An error in the composer (the agent cannot be written to right now) …
  await page.route('**/api/send', (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'the store is busy' }) }),
  );
  await box.fill('are you there?');
  await box.press('Enter');
  await expect(page.locator('.composer .error')).toContainText('the store is busy');
  await page.unroute('**/api/send');
  // The browser logs the refused request it was made to see: that one is expected.
  const expected = problems.filter((p) => p.includes('status of 503'));
  expect(expected).toHaveLength(1);
  problems.splice(problems.indexOf(expected[0]), 1);

  // … is gone once the seat changes, here because the agent retires.
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-detail .retire > summary').click();
  await page.getByRole('button', { name: `Retire ${wren}` }).click();
  await expect(seat).toHaveAttribute('data-status', 'empty');
  await expect(page.locator('.composer .to')).toHaveText('To Julian');
  await expect(page.locator('.cell.lead')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.composer .error')).toHaveCount(0);
  await expect(page.locator('.agent-detail[data-detail-seat="2"]')).toHaveCount(0);
  await expect(page.locator('.conversation')).not.toContainText(wren);
});

test('errors name agents, never seat numbers', async ({ page }) => {
  await team(page);
  // Seat 2 emptied: whatever is written to it is refused without a number.
  const docs = async () => Object.values((await (await humanFetch(`${server().url}/api/docs`)).json()).docs) as any[];
  const seated = (await docs()).filter((d) => d.type === 'agent-identity' && d.status === 'alive' && d.gridPosition === 1);
  expect(seated).toHaveLength(1);
  const name: string = seated[0].name;
  if ((await page.locator('.cell[data-seat="2"]').getAttribute('data-status')) !== 'empty') {
    expect((await postJson(server(), '/api/agents/2/kill')).status).toBe(200);
  }
  const empty = await postJson(server(), '/api/send', { text: 'hello?', seat: 2 });
  expect(empty.status).toBe(400);
  expect(empty.json.error).not.toMatch(/seat \d/);
  // An agent that is not working: there is nothing to interrupt, said with its name.
  const idle = await postJson(server(), '/api/agents/1/interrupt');
  expect(idle.status).toBe(409);
  expect(idle.json.error).not.toMatch(/seat \d/);
  expect(idle.json.error).toContain(name);
  // Put to sleep twice: the second is refused, naming the agent.
  expect((await postJson(server(), '/api/agents/1/dismiss')).status).toBe(200);
  const asleep = await postJson(server(), '/api/agents/1/dismiss');
  expect(asleep.status).toBe(409);
  expect(asleep.json.error).toBe(`${name} is not awake: there is nothing to put to sleep`);
  // Nor asleep: nothing to interrupt.
  const nothing = await postJson(server(), '/api/agents/1/interrupt');
  expect(nothing.json.error).toBe(`${name} is not awake: there is nothing to interrupt`);
});

test('a sleeping agent is woken alone from its panel', async ({ page }) => {
  await team(page);
  const [one, three] = [page.locator('.cell[data-seat="1"]'), page.locator('.cell[data-seat="3"]')];
  const kael = (await one.locator('.name').textContent())!;
  expect((await postJson(server(), '/api/agents/1/dismiss')).status).toBe(200);
  expect((await postJson(server(), '/api/agents/3/dismiss')).status).toBe(200);
  await expect(one).toHaveAttribute('data-status', 'sleeping');
  await expect(three).toHaveAttribute('data-status', 'sleeping');
  await one.click();
  await page.locator('.agent-detail > summary').click();
  await page.getByRole('button', { name: `Wake ${kael}` }).click();
  await expect(one).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(three).toHaveAttribute('data-status', 'sleeping');
  await expect(page.getByRole('button', { name: `Wake ${kael}` })).toHaveCount(0);

  // A message to a sleeper waits, and Wake is offered where it waits (it said "queued until
  // wake" and nothing more).
  await three.click();
  const box = page.getByLabel('Message');
  await box.fill('are you there?');
  await box.press('Enter');
  const waiting = page.locator('.thread .msg.queued', { hasText: 'are you there?' });
  await expect(waiting).toContainText('queued until wake');
  await waiting.getByRole('button', { name: 'Wake' }).click();
  await expect(three).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
});

test.describe("in the reader's time zone", () => {
  test.use({ timezoneId: 'Asia/Kolkata' });

  test("times are shown in the browser's zone, with UTC in the tooltip", async ({ page }) => {
    await openHydrated(page, server().url);
    expect((await postJson(server(), '/api/send', { text: 'what time is it' })).status).toBe(202);
    const said = page.locator('.thread .msg', { hasText: 'what time is it' }).first();
    const t = said.locator('time');
    const at = Date.parse((await t.getAttribute('datetime'))!);
    // India is UTC+5:30 all year.
    const local = new Date(at + 330 * 60_000).toISOString().slice(11, 16);
    const utc = new Date(at).toISOString().slice(11, 16);
    await expect(t).toHaveText(local);
    await expect(t).toHaveAttribute('title', new RegExp(`${utc} UTC$`));
  });
});

test('the open conversation is in the URL: reload, back, forward and a shared link keep the place', async ({ page }) => {
  await team(page);
  const name = async (seat: number) => (await page.locator(`.cell[data-seat="${seat}"] .name`).textContent())!;
  const [kael, sable] = [await name(1), await name(5)];
  await page.locator('.cell[data-seat="1"]').click();
  await expect(page).toHaveURL(/\/\?seat=2$/);
  // The title names whom the human talks to (after the count of unread replies, if any).
  await expect(page).toHaveTitle(new RegExp(`^(\\(\\d+\\) )?${kael} · Soulgrid$`));
  await page.locator('.cell[data-seat="5"]').click();
  await expect(page).toHaveURL(/\/\?seat=6$/);
  await page.goBack();
  await expect(page.locator('.composer .to')).toHaveText(`To ${kael}`);
  await page.goForward();
  await expect(page.locator('.composer .to')).toHaveText(`To ${sable}`);
  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.composer .to')).toHaveText(`To ${sable}`);
  await expect(page.locator('.cell[data-seat="5"]')).toHaveAttribute('aria-pressed', 'true');
  // A link to Kael's conversation, opened anew; then his own page, titled with his name.
  await openHydrated(page, `${server().url}/?seat=2`);
  await expect(page.locator('.composer .to')).toHaveText(`To ${kael}`);
  await expect(page.locator('.thread-title')).toContainText(kael);
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page).toHaveTitle(`${kael} · Soulgrid`);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('tapping a face opens its conversation as a full-screen sheet, with targets a finger can hit; back closes it', async ({ page }) => {
    await team(page);
    await openHydrated(page, server().url);
    const conversation = page.locator('.conversation');
    await expect(conversation).toBeHidden();
    await page.locator('.cell[data-seat="1"]').tap();
    await expect(conversation).toBeVisible();
    const sheet = (await conversation.boundingBox())!;
    expect(sheet.y).toBeLessThanOrEqual(0);
    expect(sheet.height).toBeGreaterThanOrEqual(844);
    await expect(page.getByLabel('Message')).toBeInViewport();
    // Every button of the sheet is at least 44 px tall.
    const heights = await conversation.locator('button:visible, summary:visible').evaluateAll((els) =>
      els.map((e) => [e.textContent?.trim(), e.getBoundingClientRect().height] as [string, number]),
    );
    expect(heights.length).toBeGreaterThan(1);
    expect(heights.filter(([, h]) => h < 44)).toEqual([]);
    // Back to the team, by its button (the browser's back: no entry added to return to the
    // sheet) and by the browser's back.
    const entries = await page.evaluate(() => history.length);
    await page.getByRole('button', { name: '← Team' }).tap();
    await expect(conversation).toBeHidden();
    expect(await page.evaluate(() => history.length)).toBe(entries);
    await expect(page.locator('.cell[data-seat="1"]')).toBeInViewport();
    await page.locator('.cell[data-seat="1"]').tap();
    await expect(conversation).toBeVisible();
    await page.goBack();
    await expect(conversation).toBeHidden();
  });

  test('a tap is answered before its conversation is drawn, and taps in a row draw only the last', async ({ page }) => {
    await team(page);
    await openHydrated(page, server().url);
    const name = async (seat: number) => (await page.locator(`.cell[data-seat="${seat}"] .name`).textContent())!;
    // Every title the thread shows, from now on.
    await page.evaluate(() => {
      const w = window as any;
      w.titles = [];
      new MutationObserver(() => {
        const t = document.querySelector('.thread-title')?.textContent ?? '';
        if (w.titles[w.titles.length - 1] !== t) w.titles.push(t);
      }).observe(document.querySelector('.conversation')!, { subtree: true, childList: true, characterData: true });
    });
    // A tap, and another in the next frame (before the first's conversation would be drawn):
    // the second face pressed, the sheet open (nothing of the last conversation laid out again),
    // only the second's conversation drawn.
    const busy = await page.evaluate(() => {
      (document.querySelector('.cell[data-seat="2"]') as HTMLElement).click();
      return new Promise<string | null>((done) =>
        requestAnimationFrame(() => {
          const busy = document.querySelector('.conversation')!.getAttribute('aria-busy');
          (document.querySelector('.cell[data-seat="3"]') as HTMLElement).click();
          done(busy);
        }),
      );
    });
    expect(busy).toBe('true');
    await expect(page.locator('.cell[data-seat="3"]')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('.conversation')).not.toHaveAttribute('aria-busy', 'true');
    await expect(page.locator('.thread-title')).toContainText(await name(3));
    const second = await name(2);
    const titles: string[] = await page.evaluate(() => (window as any).titles);
    expect(titles, titles.join(' | ')).not.toContain(second);
    expect(titles).toContain(await name(3));
    await expect(page.getByLabel('Message')).toBeInViewport();
  });
});

test('no internal text reaches the human: one word per state, refusals as sentences, ids under Technical', async ({ page }) => {
  await team(page);
  const kael = (await page.locator('.cell[data-seat="1"] .name').textContent())!;
  // A step of the work cycle out of order is refused, and said as a sentence about the agent.
  await page.locator('.cell[data-seat="1"]').click();
  const box = page.getByLabel('Message');
  await box.fill('SIM_STATE: deep_work skipping ahead');
  await box.press('Enter');
  const note = page.locator('.thread .note.problem');
  await expect(note).toContainText(`${kael} tried to start deep work before beginning its session`, { timeout: 10_000 });
  await expect(note).not.toContainText('invalid work-cycle');
  await expect(note).not.toContainText('[STATE');
  // The panel: the state in the console's words; ids and raw states only under Technical.
  await page.locator('.agent-detail > summary').click();
  await expect(page.locator('.agent-detail dt', { hasText: 'Status' }).locator('+ dd')).toHaveText('awake');
  await expect(page.getByText('Claude session')).toBeHidden();
  await page.locator('.agent-detail .technical > summary').click();
  await expect(page.getByText('Claude session')).toBeVisible();
  await expect(page.locator('.agent-detail .technical')).toContainText('invalid work-cycle transition none -> deep_work');

  // End the session: every cell says asleep, none "stopped: ended by …".
  await page.locator('.end-session > summary').click();
  await page.getByRole('button', { name: 'End it' }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="sleeping"]')).toHaveCount(8, { timeout: 20_000 });
  await expect(page.locator('.cell:not(.lead) .activity')).toHaveText(Array(8).fill('asleep'));
  // WAKE: the lead is told who woke; the human never sees the payload it was told in.
  await page.getByRole('button', { name: 'WAKE', exact: true }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  await page.keyboard.press('Escape');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'back with us' }).first()).toBeVisible({ timeout: 10_000 });
  await expect(page.locator('.thread')).not.toContainText('agent-payloads');
  await expect(page.locator('.thread')).not.toContainText('[WAKE AGENTS]');
});

test('an interrupt, a crash and a wake are told in the thread', async ({ page }) => {
  await team(page);
  const cell = page.locator('.cell[data-seat="1"]');
  const kael = (await cell.locator('.name').textContent())!;
  await cell.click();
  const box = page.getByLabel('Message');
  const notes = page.locator('.thread .note.process-note');
  await box.fill('SIM_HANG think a while');
  await box.press('Enter');
  await expect(page.locator('.thread-activity')).toHaveText('thinking…', { timeout: 10_000 });
  await page.locator('.thread-head').getByRole('button', { name: 'Interrupt', exact: true }).click();
  await expect(notes.last()).toHaveText(/\d\d:\d\d .*turn was interrupted\./, { timeout: 10_000 });
  await box.fill('SIM_CRASH now');
  await box.press('Enter');
  await expect(notes.last()).toContainText(`${kael} crashed with exit code`, { timeout: 10_000 });
  await expect(cell.locator('.activity')).toContainText('crashed');
  await page.locator('.agent-detail > summary').click();
  await page.getByRole('button', { name: `Wake ${kael}` }).click();
  await expect(notes.last()).toContainText(`${kael} is waking up.`, { timeout: 10_000 });
  await expect(cell).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
});

test("a message that failed keeps its error and its retry key with its draft across a switch", async ({ page, problems }) => {
  await team(page);
  const box = page.getByLabel('Message');
  const keys: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/send')) keys.push(r.headers()['idempotency-key']);
  });
  await page.route('**/api/send', (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'the store is busy' }) }),
  );
  await page.locator('.cell[data-seat="1"]').click();
  await box.fill('once only');
  await box.press('Enter');
  await expect(page.locator('.composer .error')).toContainText('the store is busy');
  await page.unroute('**/api/send');
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes('status of 503')));
  // Another agent: its own box, no error; back: the error, and the retry is the same message.
  await page.locator('.cell[data-seat="5"]').click();
  await expect(page.locator('.composer .error')).toHaveCount(0);
  await page.locator('.cell[data-seat="1"]').click();
  await expect(page.locator('.composer .error')).toContainText('the store is busy');
  await expect(box).toHaveValue('once only');
  await box.press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'once only' })).toHaveCount(1, { timeout: 10_000 });
  expect(keys).toHaveLength(2);
  expect(keys[1]).toBe(keys[0]);
});

test("back never returns to a departed agent's conversation", async ({ page }) => {
  await team(page);
  // The grid, then a link to seat 3's conversation; its agent leaves.
  await openHydrated(page, `${server().url}/?seat=3`);
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('aria-pressed', 'true');
  expect((await postJson(server(), '/api/agents/2/kill')).status).toBe(200);
  // The lead is selected in place of the departed agent: that entry is replaced, not added.
  await expect(page).toHaveURL(/\/\?seat=5$/);
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${server().url.replace(/[.]/g, '\\.')}/$`));
  await expect(page.locator('.cell.lead')).toHaveAttribute('aria-pressed', 'true');
});

test('the grid is one Tab stop: arrows move between faces, Enter opens the conversation with the cursor in it', async ({ page }) => {
  await team(page);
  const focused = () => page.evaluate(() => document.activeElement?.closest('.cell')?.getAttribute('data-seat') ?? document.activeElement?.tagName);
  await page.locator('.cell[data-seat="4"]').focus();
  // Tab leaves the grid at once; Shift+Tab comes back to the chosen face.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('.grid'))).toBe(false);
  await page.keyboard.press('Shift+Tab');
  expect(await focused()).toBe('4');
  // Arrows walk the 3×3 grid (and stop at its edges).
  await page.keyboard.press('ArrowLeft');
  expect(await focused()).toBe('3');
  await page.keyboard.press('ArrowUp');
  expect(await focused()).toBe('0');
  await page.keyboard.press('ArrowUp');
  expect(await focused()).toBe('0');
  await page.keyboard.press('End');
  expect(await focused()).toBe('8');
  await page.keyboard.press('Home');
  expect(await focused()).toBe('0');
  // Enter opens that conversation, with the cursor in the composer.
  const name = (await page.locator('.cell[data-seat="0"] .name').textContent())!;
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Message')).toBeFocused();
  await expect(page.locator('.composer .to')).toHaveText(`To ${name}`);
  // From a face, the composer is a few Tabs away, not fourteen.
  await page.locator('.cell[data-seat="0"]').focus();
  let presses = 0;
  while (presses < 20 && !(await page.evaluate(() => document.activeElement?.tagName === 'TEXTAREA'))) {
    await page.keyboard.press('Tab');
    presses += 1;
  }
  expect(presses).toBeLessThanOrEqual(6);
});

test('every tool call shows in its thread as one folded line, opened to its input and output, and is not an unread reply', async ({ page }) => {
  await team(page);
  const kael = (await page.locator('.cell[data-seat="1"] .name').textContent())!;
  await page.locator('.cell[data-seat="1"]').click();
  await page.getByLabel('Message').fill('please run it SIM_TOOL');
  await page.getByLabel('Message').press('Enter');
  const line = page.locator('.thread .tool-line[data-tool="Bash"]');
  await expect(line).toHaveCount(1, { timeout: 10_000 });
  await expect(line.locator('summary')).toContainText('Bash echo hi → 1 line, 2 B');
  await expect(line.locator('.tool-output')).toBeHidden();
  await line.locator('summary').click();
  await expect(line.locator('.tool-output')).toHaveText('hi');
  await expect(line.locator('.tool-input')).toContainText('"command": "echo hi"');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'and it printed: hi' })).toHaveCount(1);
  // Away from Kael, his next tool call is no reply to read: only his words count.
  await page.keyboard.press('Escape');
  await postJson(server(), '/api/send', { text: 'again SIM_TOOL', targetAgent: kael });
  await expect(page.locator('.cell[data-seat="1"] .badge')).toHaveText('1', { timeout: 10_000 });
});

test.describe('on a phone, the header', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('is one line, its details behind a menu (it took nearly half the first screen)', async ({ page }) => {
    await team(page);
    await openHydrated(page, server().url);
    const header = page.locator('header.top');
    expect((await header.boundingBox())!.height).toBeLessThan(64);
    await expect(page.locator('.end-session')).toBeHidden();
    await page.getByRole('button', { name: 'More' }).tap();
    await expect(page.locator('.end-session')).toBeVisible();
    await expect(page.getByRole('button', { name: 'More' })).toHaveAttribute('aria-expanded', 'true');
  });
});

test('every side panel wears one style: a card, its title one size', async ({ page }) => {
  await openHydrated(page, server().url);
  const panels = ['.new-quest', '.approvals', '.team-channel', '.projects', '.hall', '.budgets', '.jobs', '.watch-links'];
  const looks = await page.evaluate((selectors) => selectors.map((s) => {
    const el = document.querySelector(s) as HTMLElement | null;
    if (!el) return `${s}: missing`;
    const title = el.querySelector(':scope > h2, :scope > summary') as HTMLElement | null;
    const css = getComputedStyle(el);
    const t = title ? getComputedStyle(title) : null;
    return [css.backgroundColor, css.borderRadius, css.paddingLeft, t?.fontSize, t?.fontWeight].join(' ');
  }), panels);
  const first = looks[0];
  expect(looks, panels.join(' ')).toEqual(panels.map(() => first));
});
