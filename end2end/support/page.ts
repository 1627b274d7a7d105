// A page fixture that fails the test on any console error or page error, and waits for hydration.
import { test as base, expect, Page } from '@playwright/test';

export async function openHydrated(page: Page, path = '/') {
  await page.goto(path);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
}

export const test = base.extend<{ problems: string[] }>({
  problems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
      });
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await use(problems);
      expect(problems, 'the page logged errors').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

// Replaces the browser's Notification and document.hidden with recorders: headless Chromium
// shows no notifications, and a test cannot hide its own tab. `window.__notes` collects what
// would have been shown; set `window.__hidden = true` to "hide" the tab.
export async function recordNotifications(page: Page) {
  await page.addInitScript(() => {
    const w = window as any;
    w.__notes = [];
    w.__hidden = false;
    w.Notification = class {
      static permission = 'granted';
      static requestPermission() {
        return Promise.resolve('granted');
      }
      constructor(title: string, options?: { body?: string }) {
        w.__notes.push({ title, body: options?.body });
      }
    };
    Object.defineProperty(document, 'hidden', { get: () => w.__hidden, configurable: true });
  });
}
