import { test, expect, openHydrated } from '../support/page';
import { expectAccessible } from '../support/axe';
import { startServer, RunningServer, postJson, humanFetch } from '../support/server';

// #team: the human's post, with names completed after `@`, reaches the two agents it mentions
// and is seen by everyone; one agent's letter to another shows in both threads and lights a line
// between their faces.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: unknown = {}) => postJson(server, path, body);

/// The seated agents (not the lead), by seat, once all eight have names.
async function agents(): Promise<{ gridPosition: number; name: string }[]> {
  const seated = async () => {
    const docs = await (await humanFetch(`${server.url}/api/docs`)).json();
    return (Object.values(docs.docs) as any[])
      .filter((d) => d.type === 'agent-identity' && d.gridPosition !== 4 && d.status === 'alive' && d.name)
      .sort((a, b) => a.gridPosition - b.gridPosition);
  };
  await expect.poll(async () => (await seated()).length, { timeout: 20_000 }).toBe(8);
  return seated();
}

test('a post in #team reaches whom it mentions; a letter shows in both threads', async ({ page }) => {
  expect((await post('/api/agents/summon')).status).toBe(202);
  const team = await agents();
  await openHydrated(page, server.url);
  await page.locator('.team-channel > summary').click();
  // Another tab, open before the post: it comes live.
  const other = await page.context().newPage();
  await openHydrated(other, server.url);
  await other.locator('.team-channel > summary').click();
  const box = page.getByRole('textbox', { name: 'Write to #team' });

  // `@` offers the team: everyone, the lead, then the agents by seat.
  await box.fill('@');
  const offers = page.locator('.mention-offer [role="option"]');
  await expect(offers.first()).toHaveText('@all');
  await expect(offers).toHaveCount(10);
  await box.fill(`@${team[0].name.slice(0, 2)}`);
  await page.locator('.mention-offer [role="option"]', { hasText: `@${team[0].name}` }).click();
  await expect(box).toHaveValue(`@${team[0].name} `);
  // By keys alone: the arrows move among the names offered, Tab takes one (Enter did post
  // the half-typed "@Ka").
  await box.pressSequentially('and @');
  await expect(offers.first()).toHaveAttribute('aria-selected', 'true');
  const second = (await offers.allTextContents()).indexOf(`@${team[1].name}`);
  expect(second).toBeGreaterThan(1);
  for (let i = 0; i < second; i++) await box.press('ArrowDown');
  await expect(offers.nth(second)).toHaveAttribute('aria-selected', 'true');
  await expect(offers.nth(second)).toHaveText(`@${team[1].name}`);
  await expectAccessible(page, "#team, names offered");
  await box.press('Tab');
  await expect(box).toHaveValue(`@${team[0].name} and @${team[1].name} `);
  await box.pressSequentially('please pair on the parser');
  await box.press('Enter');
  const text = `@${team[0].name} and @${team[1].name} please pair on the parser`;
  await expect(page.locator('.team-composer .reached')).toHaveText(
    `Posted; filed for ${team[0].name}, ${team[1].name}.`,
  );
  await expect(page.locator('.team-line.human', { hasText: text })).toBeVisible();
  await expect(box).toHaveValue('');

  await expect(other.locator('.team-line.human', { hasText: text })).toBeVisible();
  // Those it names answer in #team.
  await expect(page.locator('.team-line:not(.human) .who', { hasText: team[0].name })).toHaveCount(1, { timeout: 20_000 });
  // A page loaded now carries it.
  await openHydrated(other, server.url);
  await other.locator('.team-channel > summary').click();
  await expect(other.locator('.team-line.human', { hasText: text })).toBeVisible();

  // One agent writes to another: both threads show it, "→ name".
  const letter = 'your tests fail on main';
  const call = `SIM_CALL: send_message {"to":"${team[1].name}","text":"${letter}"}`;
  expect((await post('/api/send', { text: call, seat: team[0].gridPosition })).status).toBe(202);
  // Recorded, then read from a page loaded afterwards: each thread's own pages hold it.
  await expect
    .poll(async () => (await (await humanFetch(`${server.url}/api/docs`)).text()).includes(letter), { timeout: 20_000 })
    .toBe(true);
  await openHydrated(page, server.url);
  for (const who of [team[0], team[1]]) {
    await page.locator(`.cell[data-seat="${who.gridPosition}"]`).click();
    const line = page.locator('.thread .msg', { has: page.locator('.to'), hasText: letter });
    await expect(line).toBeVisible({ timeout: 20_000 });
    await expect(line.locator('.who')).toHaveText(team[0].name);
    await expect(line.locator('.to')).toHaveText(`→ ${team[1].name}`);
  }

  // Who talks to whom: a second letter lights a line from one face to the other, which fades.
  const lit = page.locator(`.talk-lines .talk-line[data-from="${team[0].gridPosition}"][data-to="${team[1].gridPosition}"]`);
  await expect(lit).toHaveCount(0);
  const again = `SIM_CALL: send_message {"to":"${team[1].name}","text":"and the docs"}`;
  expect((await post('/api/send', { text: again, seat: team[0].gridPosition })).status).toBe(202);
  await expect(lit).toHaveCount(1, { timeout: 20_000 });
  // An SVG line, drawn from the writer's cell towards the reader's.
  expect(await lit.evaluate((l) => l.namespaceURI)).toBe('http://www.w3.org/2000/svg');
  const overlay = await page.locator('.talk-lines').boundingBox();
  const grid = await page.locator('.grid').boundingBox();
  expect(overlay && grid && Math.abs(overlay.width - grid.width) < 2 && Math.abs(overlay.height - grid.height) < 2).toBe(true);
  const at = (seat: number) => [(seat % 3) + 0.5, Math.floor(seat / 3) + 0.5].map(String);
  const [x1, y1] = at(team[0].gridPosition);
  const [x2, y2] = at(team[1].gridPosition);
  expect(await lit.evaluate((l) => ['x1', 'y1', 'x2', 'y2'].map((a) => l.getAttribute(a)))).toEqual([x1, y1, x2, y2]);
  // It fades and is gone.
  await expect(lit).toHaveCount(0, { timeout: 10_000 });
  // The writer's panel counts the pair over the last hour: two letters written, none heard.
  await page.locator(`.cell[data-seat="${team[0].gridPosition}"]`).click();
  await page.locator('.agent-detail > summary').click();
  await expect(page.locator(`.talk-counts li[data-with="${team[1].name}"]`)).toContainText('wrote 2, heard 0');
});
