import { test, expect, openHydrated, recordNotifications } from '../support/page';
import { startServer, RunningServer, postJson, humanFetch } from '../support/server';

// A budget stops an agent: set in the Budgets panel, reached by a turn's cost (the simulated CLI
// costs $0.0012 a turn), the agent's mail waits until the human raises the limit there.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: unknown = {}) => postJson(server, path, body);

test('a budget reached stops the agent until it is raised', async ({ page }) => {
  expect((await post('/api/agents/summon')).status).toBe(202);
  const seated = async () => {
    const docs = await (await humanFetch(`${server.url}/api/docs`)).json();
    return (Object.values(docs.docs) as any[]).find((d) => d.type === 'agent-identity' && d.gridPosition === 0 && d.status === 'alive' && d.name);
  };
  await expect.poll(seated, { timeout: 20_000 }).toBeTruthy();
  const lyra = await seated();
  await recordNotifications(page);
  await openHydrated(page, server.url);
  // The births cost something: the header says what the team spent today.
  await expect(page.locator('.team-spend')).toContainText(/Today \$0\.\d+/);

  await page.locator('.budgets > summary').click();
  await page.getByLabel('Whose budget').selectOption({ label: lyra.name });
  await page.getByLabel('US dollars per day').fill('0.002');
  await page.locator('.set-budget').getByRole('button', { name: 'Set' }).click();
  const row = page.locator(`.budget-table tr[data-agent="${lyra.identityId ?? lyra.uuid}"]`);
  await expect(row).toContainText('of $0.0020');

  // One turn more reaches it (the tab hidden: a notification says so); the next message waits.
  await page.evaluate(() => ((window as any).__hidden = true));
  expect((await post('/api/send', { text: 'one more thing', seat: 0 })).status).toBe(202);
  await expect(row).toHaveAttribute('data-level', 'reached', { timeout: 20_000 });
  const notes = () => page.evaluate(() => (window as any).__notes as { title: string; body: string }[]);
  await expect.poll(async () => (await notes()).filter((n) => n.title === `${lyra.name} reached its budget`)).toHaveLength(1);
  expect((await notes()).find((n) => n.title === `${lyra.name} reached its budget`)!.body).toContain('its daily budget');
  await page.evaluate(() => ((window as any).__hidden = false));
  await expect(row.locator('.budget-word')).toContainText('its daily budget');
  const waiting = await post('/api/send', { text: 'held by the budget', seat: 0 });
  expect((await waiting.json()).delivery).not.toBe('delivered');
  await page.locator('.cell[data-seat="0"]').click();
  const answer = page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'held by the budget' });
  await expect(answer).toHaveCount(0);

  // Raised: the message that waited is answered.
  await page.getByLabel('Whose budget').selectOption({ label: lyra.name });
  await page.getByLabel('US dollars per day').fill('5');
  await page.locator('.set-budget').getByRole('button', { name: 'Set' }).click();
  await expect(row).toHaveAttribute('data-level', 'under');
  await expect(answer).toHaveCount(1, { timeout: 20_000 });
});
