// The tests' own servers leave nothing behind: a data directory the harness made is removed when
// its server stops (a full run made ~60 of 5 MB each in /tmp, and filled a disk).
import { test, expect } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServer } from '../support/server';

test('a server the tests start removes the data directory it made, and keeps one it was given or asked to keep', async () => {
  const made = await startServer();
  expect(fs.existsSync(path.join(made.dataDir, 'soulgrid.db'))).toBe(true);
  await made.stop({ keepData: true });
  expect(fs.existsSync(made.dataDir)).toBe(true);
  // Started again on it (a restart), it is removed with its last stop.
  const again = await startServer({ port: made.port, dataDir: made.dataDir, removeOnStop: true });
  await again.stop();
  expect(fs.existsSync(made.dataDir)).toBe(false);

  const given = fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-e2e-given-'));
  const kept = await startServer({ dataDir: given });
  await kept.stop();
  expect(fs.existsSync(path.join(given, 'soulgrid.db'))).toBe(true);
  fs.rmSync(given, { recursive: true, force: true });
});
