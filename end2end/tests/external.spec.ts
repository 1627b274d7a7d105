import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer } from '../support/server';

// An external agent joins from the command line the page shows, with the Python client and
// its echo example (websockets from PyPI, in the virtual environment scripts/setup.sh makes).
const PYTHON = path.join(os.homedir(), '.cache/soulgrid/python-websockets-17.4/bin/python');
const ROOT = path.resolve(__dirname, '../..');

let server: RunningServer;
let agent: ChildProcess | undefined;
let stateDir: string | undefined;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  if (agent && agent.exitCode === null) agent.kill('SIGKILL');
  await server?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

test('an empty seat invites an external agent; it joins with the command shown; its secret is replaced from its panel', async ({ page }) => {
  await openHydrated(page, server.url);
  const seat = page.locator('.cell[data-seat="2"]');
  await expect(seat).toHaveAttribute('data-status', 'empty');
  await seat.locator('.seat-menu > summary').click();
  await seat.getByRole('button', { name: 'Invite an external agent…' }).click();
  const command = (await seat.locator('.invite-command').textContent())!;
  expect(command).toContain(`--url ws://127.0.0.1:${server.port}/ws/agent`);
  const [, script, ...args] = command.trim().split(/\s+/);
  expect(script).toBe('clients/python/examples/echo.py');
  expect(args.join(' ')).toMatch(/--invite sgi_[0-9a-f]+$/);

  // Run as shown (the Python of the test setup), its identity kept in a folder of the test's.
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-agent-'));
  const state = path.join(stateDir, 'agent.json');
  let log = '';
  agent = spawn(PYTHON, ['-u', script, ...args, '--state-file', state], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  agent.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  await expect(seat).toHaveAttribute('data-status', 'alive', { timeout: 20_000 });
  await expect(seat.locator('.name')).toHaveText('Echo');

  // Its panel says what it is; nothing that needs a Claude session is offered.
  await seat.click();
  await page.locator('.agent-detail > summary').click();
  const note = page.locator('.agent-detail .external-note');
  await expect(note).toContainText('external agent');
  await expect(page.getByRole('button', { name: 'Wake Echo' })).toHaveCount(0);
  await expect(page.locator('.agent-detail .fork')).toHaveCount(0);

  // A new secret, shown once; the connection made with the old one is closed for good.
  const exited = new Promise<number | null>((resolve) => agent!.once('exit', (code) => resolve(code)));
  await note.getByRole('button', { name: 'Replace its secret' }).click();
  await expect(note.locator('.secret code')).toHaveText(/^sgs_[0-9a-f]+$/);
  await expect(seat).toHaveAttribute('data-status', 'sleeping', { timeout: 20_000 });
  expect(await exited).toBe(0);
  expect(log).toContain('4001');
});
