import { test, expect, openHydrated, recordNotifications } from '../support/page';
import { startServer, RunningServer } from '../support/server';
import * as path from 'node:path';

// With --permissions ui, an agent's tool call waits in the thread for Approve / Deny.
let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer({ env: { SOULGRID_PERMISSIONS: 'ui', SOULGRID_PERMISSION_TIMEOUT: '10m' } });
});
test.afterAll(async () => {
  await server?.stop();
});

test('a tool call waits for approval, survives a reload, and runs once approved', async ({ page }) => {
  await openHydrated(page, server.url);
  await page.getByLabel('Message').fill('SIM_TOOL please list something');
  await page.getByLabel('Message').press('Enter');

  const card = page.locator('.thread .permission[data-state="pending"]');
  await expect(card).toHaveCount(1, { timeout: 10_000 });
  await expect(card.locator('.meta')).toContainText('asks to use Bash');
  await expect(card.locator('.permission-input')).toHaveText('echo hi');
  await expect(card.getByRole('button', { name: 'Approve and allow Bash(echo hi) (localSettings)' })).toBeVisible();
  const lead = page.locator('.cell.lead');
  await expect(lead).toHaveAttribute('data-asking', 'true');
  await expect(lead.locator('.activity')).toHaveText('waiting for approval: Bash');

  // The lead runs: the message that started it is not shown as waiting for a wake.
  await expect(page.locator('.thread .msg.queued')).toHaveCount(0);
  await page.setViewportSize({ width: 1280, height: 640 });
  await page.screenshot({ path: path.join(__dirname, '..', '..', 'docs', 'screenshots', 'permission.png') });
  // Pending requests are documents: a reload shows the same question.
  await openHydrated(page, server.url);
  await expect(page.locator('.thread .permission[data-state="pending"]')).toHaveCount(1);
  await page.locator('.thread .permission').getByRole('button', { name: 'Approve', exact: true }).click();

  await expect(page.locator('.thread .permission[data-state="allowed"] .permission-outcome')).toHaveText('approved');
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'it printed: hi' })).toHaveCount(1, { timeout: 10_000 });
  await expect(lead).not.toHaveAttribute('data-asking', 'true');
});

test('a denial carries its reason to the agent', async ({ page }) => {
  await openHydrated(page, server.url);
  await page.getByLabel('Message').fill('SIM_TOOL once more');
  await page.getByLabel('Message').press('Enter');
  const card = page.locator('.thread .permission[data-state="pending"]');
  await expect(card).toHaveCount(1, { timeout: 10_000 });
  await card.getByLabel('Reason for denying').fill('not on this machine');
  await card.getByRole('button', { name: 'Deny' }).click();

  await expect(page.locator('.thread .permission[data-state="denied"] .permission-outcome').last()).toHaveText('denied: not on this machine');
  await expect(
    page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'I was not allowed to run echo hi: not on this machine' }),
  ).toHaveCount(1, { timeout: 10_000 });
});

test('a request that arrives while the tab is hidden becomes a notification', async ({ page }) => {
  await recordNotifications(page);
  await openHydrated(page, server.url);
  await page.evaluate(() => ((window as any).__hidden = true));
  await page.getByLabel('Message').fill('SIM_TOOL while you look away');
  await page.getByLabel('Message').press('Enter');
  await expect
    .poll(() => page.evaluate(() => (window as any).__notes.filter((n: any) => n.title.includes('asks'))))
    .toEqual([{ title: 'Julian asks to use Bash', body: 'echo hi' }]);
  // Answered, so the next test starts with nothing pending.
  await page.locator('.thread .permission[data-state="pending"]').getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(page.locator('.thread .permission[data-state="pending"]')).toHaveCount(0);
});

// Last: the lead keeps the rule for the rest of this server's life.
test('approving with a suggested rule keeps it: the same call is not asked again', async ({ page }) => {
  await openHydrated(page, server.url);
  await page.getByLabel('Message').fill('SIM_TOOL and remember');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.thread .permission[data-state="pending"]')).toHaveCount(1, { timeout: 10_000 });
  await page.locator('.thread').getByRole('button', { name: 'Approve and allow Bash(echo hi) (localSettings)' }).click();
  await expect(page.locator('.thread .permission[data-state="allowed"] .permission-outcome').last()).toHaveText(
    'approved, and from now on: allow Bash(echo hi) (localSettings)',
  );
  const runs = page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'it printed: hi' });
  const before = await runs.count();
  await page.getByLabel('Message').fill('SIM_TOOL once again');
  await page.getByLabel('Message').press('Enter');
  await expect(runs).toHaveCount(before + 1, { timeout: 10_000 });
  await expect(page.locator('.thread .permission[data-state="pending"]')).toHaveCount(0);
});
