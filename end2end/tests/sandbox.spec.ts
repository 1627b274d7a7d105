// The header says, in warning colours, when agents run without a sandbox (`--sandbox off`, or a
// kernel that refuses one), with why; with their sandbox it says nothing of it.
import { test, expect, openHydrated } from '../support/page';
import { startServer } from '../support/server';

test('agents without a sandbox are said in the header, with why', async ({ page }) => {
  const server = await startServer({ env: { SOULGRID_SANDBOX: 'off' } });
  try {
    await openHydrated(page, server.url);
    const said = page.locator('header.top .unsandboxed');
    await expect(said).toBeVisible();
    await expect(said).toContainText('agents unsandboxed');
    await expect(said).toHaveAttribute('title', /--sandbox off/);
    // In warning colours: its own background, not the header's.
    const background = await said.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
  } finally {
    await server.stop();
  }
});

test('with their sandbox the header says nothing of it', async ({ page }) => {
  await openHydrated(page, '/');
  // The run's server is started with the default (`auto`), on a machine with bubblewrap.
  await expect(page.locator('header.top .team')).toBeVisible();
  await expect(page.locator('header.top .unsandboxed')).toHaveCount(0);
});
