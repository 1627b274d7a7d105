// The first minute on a fresh team: the lead's empty thread explains the console.
import { test, expect, openHydrated } from '../support/page';
import { ownServer, postJson } from '../support/own';

// Its own server: the thread must be empty.
const server = ownServer();

test("a first-load card in the lead's empty thread says what the lead, SUMMON and WAKE are, and that the team is simulated", async ({ page }) => {
  await openHydrated(page, server().url);
  const card = page.locator('.welcome');
  await expect(card).toBeVisible();
  await expect(card).toContainText('Julian is the lead');
  await expect(card).toContainText('SUMMON fills the empty seats');
  await expect(card).toContainText('This team is simulated');
  await expect(card).toContainText('--claude-cmd claude');
  // The simulator's own file path is nobody's business.
  await expect(card).not.toContainText('soulgrid-sim');
  // Once the lead has said something, the thread is the conversation.
  expect((await postJson(server(), '/api/send', { text: 'hello' })).status).toBe(202);
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]').first()).toBeVisible({ timeout: 10_000 });
  await expect(card).toHaveCount(0);
});
