// Every state of the console a person meets is accessible (axe-core, WCAG 2.1 A/AA): the empty
// page, the team, an agent's conversation with its panel open, its own page, a phone's sheet.
import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';
import { expectAccessible } from '../support/axe';

const server = ownServer();

test('the console is accessible in every state a person meets', async ({ page }) => {
  await openHydrated(page, server().url);
  await expectAccessible(page, 'the empty page');

  expect((await postJson(server(), '/api/agents/summon')).status).toBe(202);
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  expect((await postJson(server(), '/api/send', { text: 'hello, team' })).status).toBe(202);
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]').first()).toBeVisible({ timeout: 10_000 });
  await expectAccessible(page, 'the team, the lead selected');

  await page.locator('.cell[data-seat="1"]').click();
  await page.getByLabel('Message').fill('how are you?');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.thread .msg[data-speaker-type="agent"]', { hasText: 'how are you?' })).toHaveCount(1, { timeout: 10_000 });
  await page.locator('.agent-detail > summary').click();
  await page.locator('.agent-detail .technical > summary').click();
  await expectAccessible(page, "an agent's conversation, its panel open");

  await page.locator('.agent-page-link').click();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expectAccessible(page, "an agent's page");
  await page.getByRole('tab', { name: 'Knowledge' }).click();
  await expectAccessible(page, "an agent's knowledge");
});

test('a finished quest, its board and report, and the past (time travel) are accessible', async ({ page }) => {
  await openHydrated(page, server().url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) < 8) {
    expect((await postJson(server(), '/api/agents/summon')).status).toBe(202);
  }
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  expect((await postJson(server(), '/api/quests', { problem: 'What should the ship be called?' })).status).toBe(202);
  await expect(page.locator('.quest-done')).toBeVisible({ timeout: 30_000 });
  await expectAccessible(page, 'a finished quest');
  const at = Number(await page.locator('main.console').getAttribute('data-last-event-id'));
  await openHydrated(page, `${server().url}/?at=${Math.floor(at / 2)}`);
  await expect(page.locator('.past-bar')).toBeVisible();
  await expectAccessible(page, 'the past');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("the phone's grid and its conversation sheet are accessible", async ({ page }) => {
    await openHydrated(page, server().url);
    if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) < 8) {
      expect((await postJson(server(), '/api/agents/summon')).status).toBe(202);
    }
    await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
    await expectAccessible(page, "the phone's grid");
    await page.locator('.cell[data-seat="2"]').tap();
    await expect(page.locator('.conversation')).toBeVisible();
    await expectAccessible(page, "the phone's conversation sheet");
  });
});
