import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';

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
