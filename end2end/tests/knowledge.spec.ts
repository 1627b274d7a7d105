import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';
import { humanFetch } from '../support/server';

// Its own server: the team changes.
const own = ownServer();
const api = (path: string, body: unknown = {}) => postJson(own(), path, body);

test('the Knowledge tab: the vault, an edit by the human the agent is told of, a diff, the work cycle', async ({ page }) => {
  await openHydrated(page, own().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    expect((await api('/api/agents/summon')).status).toBe(202);
  }
  await expect(page.locator('.cell[data-seat="2"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  const wren = (await page.locator('.cell[data-seat="2"] .name').textContent())!;
  // Wren learns something and moves through her work cycle: the vault is captured at the move.
  await api('/api/send', { text: 'SIM_LEARN: the window faces east', seat: 2 });
  await api('/api/send', { text: 'SIM_STATE: bootstrap looking around', seat: 2 });

  await page.locator('.cell[data-seat="2"]').click();
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.agent-page h1')).toHaveText(wren);
  await page.getByRole('tab', { name: 'Knowledge' }).click();
  const file = page.locator('.vault-file[data-path="insights.md"]');
  await expect(file.locator('.vault-text')).toContainText('the window faces east', { timeout: 10_000 });
  await expect(page.locator('.commits tbody tr .state')).toHaveText(['bootstrap']);

  // The human edits the file: a new version by the human, and Wren is told.
  await file.getByRole('button', { name: 'Edit insights.md' }).click();
  await file.locator('textarea').fill('- the window faces east\n- and the sea is west');
  await file.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.knowledge [role="status"]')).toContainText('Saved as version 2');
  await expect(page.locator('.vault-versions li[data-version="2"]')).toHaveAttribute('data-author', 'human');
  const diff = page.locator('.vault-compare');
  await expect(diff).toHaveAttribute('data-from', '1');
  await expect(diff).toHaveAttribute('data-to', '2');
  await expect(diff.locator('.vault-diff .added')).toContainText('and the sea is west');

  await page.getByRole('tab', { name: 'Life' }).click();
  await expect(page.locator('.agent-page .thread .msg[data-speaker-type="agent"]', { hasText: 'edited your knowledge/insights.md' })).toHaveCount(1, { timeout: 10_000 });
});

test('the vault never contradicts the agent: it says when it was last captured, Capture now takes what the agent just wrote, a bad name is a sentence', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await openHydrated(page, own().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    expect((await api('/api/agents/summon')).status).toBe(202);
  }
  await expect(page.locator('.cell[data-seat="3"]')).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await page.locator('.cell[data-seat="3"]').click();
  await page.locator('.agent-detail > summary').click();
  const href = (await page.locator('.agent-page-link').getAttribute('href'))!;
  expect(href).toMatch(/^\/agents\//);
  // The agent notes something and says so, with no work-state change: nothing captured yet.
  await api('/api/send', { text: 'SIM_LEARN: the kettle is in the second cupboard', seat: 3 });
  await expect(page.locator('.msg[data-speaker-type="agent"]', { hasText: 'Noted in my vault: the kettle' })).toBeVisible({ timeout: 10_000 });
  await page.goto(`${own().url}${href}`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await page.getByRole('tab', { name: 'Knowledge' }).click();
  const captured = page.locator('.knowledge .captured');
  await expect(captured).toContainText('Not captured yet');
  await expect(captured).toContainText('changes its work state');

  // Capture now: what the agent just wrote is in the vault, and the tab says when.
  await page.getByRole('button', { name: 'Capture now' }).click();
  await expect(page.locator('.knowledge [role="status"]')).toContainText('Captured version 1 (insights.md)');
  await expect(page.locator('.vault-file[data-path="insights.md"] .vault-text')).toContainText('the kettle is in the second cupboard');
  await expect(captured).toContainText('Last captured');
  await expect(captured.locator('time')).toBeVisible();
  // Again, with nothing new: said so, no new version.
  await page.getByRole('button', { name: 'Capture now' }).click();
  await expect(page.locator('.knowledge [role="status"]')).toContainText('Nothing new since version 1');
  await expect(page.locator('.vault-versions li')).toHaveCount(1);

  // A bad file name is refused in the page, with a sentence (no request made).
  await page.locator('.vault-new > summary').click();
  for (const bad of ['', 'notes', 'a/b/c.md', '../up.md']) {
    await page.locator('#vault-new-path').fill(bad);
    await page.locator('#vault-new-text').fill('hello');
    await page.getByRole('button', { name: 'Create' }).click();
    const alert = page.locator('.knowledge [role="alert"]');
    await expect(alert).toBeVisible();
    await expect(alert).not.toContainText('server answered');
    await expect(alert).toContainText(bad === '' ? 'Give the file a name' : 'is not a vault path');
  }

  // Over HTTP: nobody is a 404; an agent that is not awake a 409 with a sentence, and the tab
  // says why it cannot capture.
  const nobody = await humanFetch(`${own().url}/api/agents/nobody/knowledge/capture`, { method: 'POST' });
  expect(nobody.status).toBe(404);
  expect((await nobody.json()).error).toBeTruthy();
  expect((await api('/api/agents/3/dismiss')).status).toBeLessThan(300);
  await expect(page.getByRole('button', { name: 'Capture now' })).toBeDisabled({ timeout: 20_000 });
  await expect(captured).toContainText('asleep');
  const asleep = await humanFetch(`${own().url}/api${href}/knowledge/capture`, { method: 'POST' });
  expect(asleep.status).toBe(409);
  expect((await asleep.json()).error).toContain('asleep');
  expect(errors).toEqual([]);
});

