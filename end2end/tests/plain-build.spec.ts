// The page a plain `cargo leptos build` serves (no `--split`, as a newcomer types it, and as
// `cargo leptos watch` builds it) hydrates, its lazily drawn parts included (issue 54). It used
// to import a placeholder module no one writes and never hydrate. scripts/test.sh builds that
// site apart (target/site-plain) and names it in SOULGRID_PLAIN_SITE.
import { test, expect, openHydrated } from '../support/page';
import { startServer, RunningServer } from '../support/server';
import * as fs from 'node:fs';
import * as path from 'node:path';

const plain = process.env.SOULGRID_PLAIN_SITE;
test.skip(!plain, 'SOULGRID_PLAIN_SITE names a plain build’s site (scripts/test.sh makes one)');

let server: RunningServer;
test.beforeAll(async () => {
  // A plain build has one wasm, no split parts.
  expect(fs.existsSync(path.join(plain!, 'pkg', 'soulgrid.wasm'))).toBe(true);
  expect(fs.existsSync(path.join(plain!, 'pkg', '__wasm_split_manifest.json'))).toBe(false);
  server = await startServer({ env: { LEPTOS_SITE_ROOT: plain! } });
});
test.afterAll(async () => {
  await server?.stop();
});

test('a plain build’s page hydrates, and its lazily drawn parts open', async ({ page }) => {
  await openHydrated(page, server.url);
  await page.getByRole('button', { name: 'SUMMON' }).click();
  await expect(page.locator('.cell:not(.lead)[data-status="alive"]')).toHaveCount(8, { timeout: 20_000 });
  await page.locator('.new-quest > summary').click();
  await expect(page.locator('.new-quest textarea')).toBeVisible();
  await page.locator('.projects .link-project > summary').click();
  await expect(page.locator('.projects .link-project input').first()).toBeVisible();
});
