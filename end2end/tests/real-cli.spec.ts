import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer } from '../support/server';
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The browser, the server and the real Claude Code CLI (pinned), against the scripted fake
// Messages API (`soulgrid-fake-model`). Part of the real-CLI tier: `make test` sets both
// variables there; the plain Playwright tier skips this file.
const claude = process.env.SOULGRID_REAL_CLAUDE;
const fakeModel = process.env.SOULGRID_FAKE_MODEL_BIN;
test.skip(!claude || !fakeModel, 'runs in the real-CLI tier of make test');

let model: ChildProcess | undefined;
let server: RunningServer | undefined;
let dir: string;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-real-cli-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  model = spawn(fakeModel!, ['0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const modelUrl = await new Promise<string>((resolve, reject) => {
    model!.stdout!.on('data', (chunk: Buffer) => {
      const m = /listening on (\S+)/.exec(chunk.toString());
      if (m) resolve(m[1]);
    });
    model!.on('exit', (code) => reject(new Error(`the fake model exited with ${code}`)));
  });
  server = await startServer({
    env: {
      SOULGRID_CLAUDE_CMD: claude!,
      SOULGRID_PERMISSIONS: 'ui',
      // The CLI's default mode: writing a file is asked for.
      SOULGRID_CLAUDE_ARGS: '--permission-mode default',
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'dummy',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      HOME: home,
    },
  });
});

test.afterAll(async () => {
  await server?.stop();
  model?.kill('SIGTERM');
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function askToWrite(page: import('@playwright/test').Page, file: string, content: string) {
  await page.getByLabel('Message').fill(`DO_WRITE: ${file} :: ${content}`);
  await page.getByLabel('Message').press('Enter');
  const card = page.locator('.thread .permission[data-state="pending"]');
  await expect(card).toHaveCount(1, { timeout: 60_000 });
  await expect(card.locator('.meta')).toContainText('asks to use Write');
  await expect(card.locator('.permission-input')).toContainText(file);
  await expect(card.locator('.permission-input')).toContainText(content);
  return card;
}

test('the real CLI asks before writing a file; the human approves once and denies once', async ({ page }) => {
  test.setTimeout(180_000);
  await openHydrated(page, server!.url);
  await expect(page.locator('.team')).toHaveAttribute('data-simulated', 'false');

  // In the lead's own folder (seat 4): its sandbox writes nowhere else.
  const lead = path.join(server!.dataDir, 'agents', '4');
  const approved = path.join(lead, 'approved.txt');
  let card = await askToWrite(page, approved, 'approved in the browser');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'Saw tool result (ok)' })).toHaveCount(1, {
    timeout: 60_000,
  });
  expect(fs.readFileSync(approved, 'utf8')).toBe('approved in the browser');

  const denied = path.join(lead, 'denied.txt');
  card = await askToWrite(page, denied, 'should never exist');
  await card.getByLabel('Reason for denying').fill('keep this folder clean');
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(
    page.locator('.thread .msg[data-speaker-type="lead"]', { hasText: 'Saw tool result (error): keep this folder clean' }),
  ).toHaveCount(1, { timeout: 60_000 });
  expect(fs.existsSync(denied)).toBe(false);
  await expect(page.locator('.thread .permission[data-state="allowed"]')).toHaveCount(1);
  await expect(page.locator('.thread .permission[data-state="denied"]')).toHaveCount(1);
});
