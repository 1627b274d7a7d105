// Starts and stops a real Soulgrid server for the tests: a free port on 127.0.0.1, its own data
// directory (removed when it stops, unless it was given one), stopped by the PID we started
// (never anything else).
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/// The human's login every server of the run is started with (`SOULGRID_TOKEN`). Every request
/// needs it, loopback included, but /healthz, /pkg/, /ws/agent, a watch link's and the login
/// form's.
export const E2E_TOKEN = 'e2e-login-token';

/// The login as the tests' own requests carry it (Node's fetch keeps no cookies).
export function authHeaders(token = E2E_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/// Node's fetch as the human: `init`'s headers with the login added (one they set wins).
export function humanFetch(url: string | URL, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', authHeaders().authorization);
  return fetch(url, { ...init, headers });
}

/// The browser's login: the cookie the login page sets, as a storage state (playwright.config.ts
/// gives it to every context). Cookies are per host, not per port, so this one covers every
/// server the tests start on 127.0.0.1, all started with E2E_TOKEN.
export const LOGGED_IN = {
  cookies: [
    {
      name: 'soulgrid_token',
      value: E2E_TOKEN,
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Strict' as const,
    },
  ],
  origins: [],
};

/// A browser that has never logged in (a spectator's, or one that meets the login page).
export const LOGGED_OUT = { cookies: [], origins: [] };

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  /// Stops it; the data directory goes with it when the harness made it (or was asked to remove
  /// it), unless `keepData` (to start another server on it).
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
  });
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with 'make test' (scripts/test.sh)`);
  return v;
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`soulgrid exited with ${child.exitCode} before it was ready:\n${log()}`);
    }
    try {
      // Whether it is up needs no login.
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`soulgrid did not answer ${url}/healthz within ${timeoutMs} ms:\n${log()}`);
}

export async function startServer(
  opts: { dataDir?: string; removeOnStop?: boolean; port?: number; env?: Record<string, string> } = {},
): Promise<RunningServer> {
  const bin = required('SOULGRID_BIN');
  const siteRoot = required('LEPTOS_SITE_ROOT');
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-e2e-'));
  const removeOnStop = opts.removeOnStop ?? opts.dataDir === undefined;
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  // LEPTOS_WATCH, even "false", makes the page open a live-reload socket that nobody serves.
  const { LEPTOS_WATCH: _watch, ...inherited } = process.env;
  const child = spawn(bin, [], {
    env: {
      ...inherited,
      SOULGRID_ADDR: `127.0.0.1:${port}`,
      SOULGRID_DATA_DIR: dataDir,
      SOULGRID_HUMAN_NAME: 'Tester',
      LEPTOS_OUTPUT_NAME: 'soulgrid',
      LEPTOS_SITE_ROOT: siteRoot,
      LEPTOS_SITE_PKG_DIR: 'pkg',
      LEPTOS_ENV: 'DEV',
      RUST_LOG: process.env.RUST_LOG ?? 'info',
      // The browser's cookie and humanFetch carry this one; a test may give its own.
      SOULGRID_TOKEN: E2E_TOKEN,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await waitForHealth(url, child, () => output);
  return {
    url,
    port,
    dataDir,
    pid: child.pid!,
    stop: async (stopOpts = {}) => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      if (removeOnStop && !stopOpts.keepData) {
        try {
          fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
        } catch (e) {
          // Something it started may still be writing there: said, not a failed test.
          console.warn(`[e2e] ${dataDir} could not be removed: ${e}`);
        }
      }
    },
  };
}

/// A JSON POST to the running server (`{}` without a body), as the page's own origin would send,
/// with the human's login.
export function postJson(server: RunningServer, path: string, body: unknown = {}) {
  return humanFetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
