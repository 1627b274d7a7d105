import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, postJson, humanFetch } from '../support/server';
import { expectAccessible } from '../support/axe';

// The one approval queue: three agents' requests in one panel, oldest first, answered from the
// keyboard; and a rule on an agent's page that answers its calls before anyone is asked.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer({ env: { SOULGRID_PERMISSIONS: 'ui', SOULGRID_PERMISSION_TIMEOUT: '10m' } });
});
test.afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: unknown = {}) => postJson(server, path, body);

async function seated(): Promise<{ gridPosition: number; name: string; identityId: string }[]> {
  const list = async () => {
    const docs = await (await humanFetch(`${server.url}/api/docs`)).json();
    return (Object.values(docs.docs) as any[])
      .filter((d) => d.type === 'agent-identity' && d.gridPosition !== 4 && d.status === 'alive' && d.name)
      .sort((a, b) => a.gridPosition - b.gridPosition);
  };
  await expect.poll(async () => (await list()).length, { timeout: 20_000 }).toBe(8);
  return list();
}

const waiting = async () => (await (await humanFetch(`${server.url}/api/permissions?state=waiting`)).json()) as any[];

test('three agents ask; the queue answers them from the keyboard, the next focused each time', async ({ page }) => {
  expect((await post('/api/agents/summon')).status).toBe(202);
  const team = await seated();
  await openHydrated(page, server.url);
  await expect(page.locator('.approvals-count')).toHaveAttribute('data-count', '0');
  // One at a time, so the queue's order is theirs.
  for (const [i, who] of team.slice(0, 3).entries()) {
    expect((await post('/api/send', { text: 'SIM_TOOL now', seat: who.gridPosition })).status).toBe(202);
    await expect.poll(async () => (await waiting()).length, { timeout: 20_000 }).toBe(i + 1);
  }
  await expect(page.locator('.approvals-count')).toHaveAttribute('data-count', '3');
  const items = page.locator('.approval-queue .queued');
  await expect(items).toHaveCount(3);
  for (const [i, who] of team.slice(0, 3).entries()) {
    await expect(items.nth(i).locator('.queued-who')).toHaveText(who.name);
    await expect(items.nth(i).locator('.queued-tool')).toHaveText('Bash');
    await expect(items.nth(i).locator('.queued-summary')).toHaveText('echo hi');
  }
  await expect(items.first().locator('.queued-waited')).toContainText('waited');
  await expectAccessible(page, 'the approval queue, three waiting');

  // From the header's count to the oldest; `a` approves it and the next is focused.
  await page.locator('.approvals-count').click();
  await expect(items.first()).toBeFocused();
  const [first, second, third] = await Promise.all([0, 1, 2].map((i) => items.nth(i).getAttribute('data-request-id')));
  await page.keyboard.press('a');
  await expect(page.locator(`.queued[data-request-id="${first}"]`)).toHaveCount(0);
  await expect(page.locator(`.queued[data-request-id="${second}"]`)).toBeFocused();
  // Down to the third, deny it; back up to the second, approve it.
  await page.keyboard.press('ArrowDown');
  await expect(page.locator(`.queued[data-request-id="${third}"]`)).toBeFocused();
  await page.keyboard.press('d');
  await expect(page.locator(`.queued[data-request-id="${second}"]`)).toBeFocused();
  await page.keyboard.press('a');
  await expect(items).toHaveCount(0);
  await expect(page.locator('.approvals-count')).toHaveAttribute('data-count', '0');

  const all = (await (await humanFetch(`${server.url}/api/permissions`)).json()) as any[];
  const state = (id: string | null) => all.find((p) => p.requestId === id)?.state;
  expect([state(first), state(second), state(third)]).toEqual(['allowed', 'allowed', 'denied']);
  // Each agent got its answer.
  await page.locator(`.cell[data-seat="${team[2].gridPosition}"]`).click();
  await expect(page.locator('.thread .msg', { hasText: 'I was not allowed to run' })).toBeVisible({ timeout: 20_000 });
});

test('a rule added on an agent page answers its calls without asking', async ({ page, problems }) => {
  const who = (await seated())[3];
  await openHydrated(page, `${server.url}/agents/${who.identityId ?? (who as any).uuid}`);
  const field = page.getByLabel('A rule');
  await field.fill('Bash(echo:*');
  await page.getByRole('button', { name: 'Always allow' }).click();
  await expect(page.locator('.agent-page .error')).toContainText('at character 12: missing the closing )');
  // Chromium logs the refusal's 400 itself: the one expected error.
  const refused = problems.filter((p) => p.includes('status of 400'));
  expect(refused).toHaveLength(1);
  problems.splice(problems.indexOf(refused[0]), 1);
  await field.fill('Bash(echo:*)');
  await page.getByRole('button', { name: 'Always allow' }).click();
  await expect(page.locator('.rules li code')).toHaveText('Bash(echo:*)');
  await expect(page.locator('.rules li')).toContainText('added by human');
  await expect(field).toHaveValue('');

  expect((await post('/api/send', { text: 'SIM_TOOL now', seat: who.gridPosition })).status).toBe(202);
  await openHydrated(page, server.url);
  await page.locator(`.cell[data-seat="${who.gridPosition}"]`).click();
  await expect(page.locator('.thread .permission[data-state="allowed"] .permission-outcome')).toHaveText(
    'allowed by its rule Bash(echo:*)',
    { timeout: 20_000 },
  );
  await expect(page.locator('.approval-queue .queued')).toHaveCount(0);

  // Taken away again: the page shows no rule.
  await openHydrated(page, `${server.url}/agents/${who.identityId ?? (who as any).uuid}`);
  await page.getByRole('button', { name: 'Remove the rule Bash(echo:*)' }).click();
  await expect(page.locator('.rules li')).toHaveCount(0);
});
