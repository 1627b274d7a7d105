// W2 in the browser (issue 33: "a write in a worktree → the radar updated in the browser,
// p95 ≤ 1 s"): an agent at work on a linked repository; each write of a new file in its
// worktree, until the projects panel shows the new count of changed files. The write's time and
// the page's are both the machine's clock (Date.now()).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer, postJson, humanFetch } from '../support/server';
import { pct, record } from '../support/perf';

test.use({ trace: 'off' });

let server: RunningServer;
let root: string;
let tree: string;

test.beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'soulgrid-e2e-radar-'));
  const repo = path.join(root, 'web');
  fs.mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=t@example.com', ...args], {
      cwd: repo,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# web\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  server = await startServer({ env: { SOULGRID_ALLOW_DIR: root } });
  expect((await postJson(server, '/api/agents/summon')).status).toBe(202);
  const seat0 = async () => {
    const docs = await (await humanFetch(`${server.url}/api/docs`)).json();
    const d = (Object.values(docs.docs) as any[]).find((d) => d.type === 'agent-identity' && d.gridPosition === 0 && d.status === 'alive' && d.name);
    return d ? (d.identityId ?? d.uuid) : undefined;
  };
  await expect.poll(seat0, { timeout: 30_000 }).toBeTruthy();
  const linked = await postJson(server, '/api/projects', { path: repo });
  expect(linked.status).toBe(201);
  const project = (await linked.json()).id;
  const put = await postJson(server, `/api/projects/${project}/agents`, { agent: await seat0() });
  expect(put.status).toBe(201);
  tree = (await put.json()).path;
});
test.afterAll(async () => {
  await server?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const WRITES = 20;

test('W2 in the browser: a write in a worktree → the projects panel shows it', async ({ page }) => {
  test.setTimeout(120_000);
  await openHydrated(page, server.url);
  const summary = page.locator('.projects .branch p.muted').last();
  await expect(summary).toContainText('0 files changed', { timeout: 20_000 });
  // The page notes when the summary first says `n files changed`.
  await page.evaluate(() => {
    const w = window as any;
    w.shownAt = {};
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.projects .branch p.muted')) {
        const m = /^(\d+) files? changed/.exec(el.textContent ?? '');
        if (m && !(m[1] in w.shownAt)) w.shownAt[m[1]] = Date.now();
      }
    }).observe(document.querySelector('.projects')!, { subtree: true, childList: true, characterData: true });
  });
  const lag: number[] = [];
  for (let i = 1; i <= WRITES; i++) {
    const at = Date.now();
    fs.writeFileSync(path.join(tree, `radar-${i}.txt`), 'x\n');
    await expect(summary).toContainText(`${i} file${i === 1 ? '' : 's'} changed`, { timeout: 10_000 });
    const shown: number | undefined = await page.evaluate((n) => (window as any).shownAt[String(n)], i);
    expect(shown, `the page noted when it showed ${i} files`).toBeDefined();
    lag.push(shown! - at);
  }
  lag.sort((a, b) => a - b);
  record('radar_in_browser', lag);
  console.log(`[perf] a write in a worktree → the projects panel shows it: n=${WRITES} p50=${pct(lag, 0.5)} p95=${pct(lag, 0.95)} ms (target p95 ≤ 1000 ms)`);
});
