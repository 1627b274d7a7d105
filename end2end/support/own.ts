// A spec file's own server (for specs that change the team), and JSON posts to its API.
import { test, expect, Page } from '@playwright/test';
import { openHydrated } from './page';
import { startServer, RunningServer, humanFetch } from './server';

/// Starts a server before the file's tests and stops it after them; the accessor gives it.
export function ownServer(opts: Parameters<typeof startServer>[0] = {}): () => RunningServer {
  let server: RunningServer | undefined;
  test.beforeAll(async () => {
    server = await startServer(opts);
  });
  test.afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('the server has not started');
    return server;
  };
}

/// POSTs `body` as JSON to the server's `path`, as the human: the status and the JSON answer.
export async function postJson(server: RunningServer, path: string, body: unknown = {}) {
  const r = await humanFetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

/// Opens the server's console, hydrated, and summons a team unless one is alive already (an
/// earlier test of the file may have left one).
export async function openTeam(page: Page, server: RunningServer) {
  await openHydrated(page, server.url);
  if ((await page.locator('.cell:not(.lead)[data-status="alive"]').count()) === 0) {
    expect((await postJson(server, '/api/agents/summon')).status).toBe(202);
  }
}
