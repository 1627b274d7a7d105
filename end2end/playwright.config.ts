import { defineConfig } from '@playwright/test';
import { LOGGED_IN } from './support/server';

// Debian's Chromium, never a downloaded browser. The flags keep it off the closed network.
export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  timeout: 60_000,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: process.env.SOULGRID_URL,
    // Every context (the page's, browser.newContext()'s, the request fixture's) starts logged in
    // as the human; a test that needs a stranger's browser says so (LOGGED_OUT).
    storageState: LOGGED_IN,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
