import { Page } from '@playwright/test';
import { test, expect, openHydrated } from '../support/page';
import { E2E_TOKEN, LOGGED_IN, LOGGED_OUT, humanFetch } from '../support/server';

// The human's login: a browser without it meets the login page (401) and the API refuses it;
// the login pasted into that page's form, or its link (/?token=…), keeps it as a cookie; Log out
// takes it away. These browsers start without it (every other spec's start with it).
test.use({ storageState: LOGGED_OUT });

/// Chromium logs a page answered 401 as a console error of its own ("… status of 401"), and so
/// the login page and the favicon it makes the browser ask for: those are taken out of
/// `problems` as they come (the fixture still fails the test on anything else). The check it
/// gives, run at the test's end, is that every 401 the page met was the login page, never one
/// of the console's own requests.
function loginPage401s(page: Page, problems: string[]) {
  const refused: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 401) refused.push(new URL(r.url()).pathname);
  });
  page.on('console', (m) => {
    if (m.type() !== 'error' || !m.text().includes('status of 401')) return;
    const i = problems.lastIndexOf(`console error: ${m.text()}`);
    if (i >= 0) problems.splice(i, 1);
  });
  return () => {
    const others = refused.filter((p) => !['/', '/login', '/favicon.ico'].includes(p));
    expect(others, 'requests refused that are not the login page').toEqual([]);
  };
}

/// Pastes `login` into the login page's form and sends it: the form's answer.
async function paste(page: Page, login: string) {
  await page.locator('#token').fill(login);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/login'),
    page.getByRole('button', { name: 'Log in' }).click(),
  ]);
  return answer;
}

const loginCookie = async (page: Page) =>
  (await page.context().cookies()).find((c) => c.name === 'soulgrid_token');

test('a browser without the login meets the login page, and the API refuses it', async ({ page, baseURL, problems }) => {
  const onlyLoginPage = loginPage401s(page, problems);
  const res = await page.goto('/');
  expect(res!.status()).toBe(401);
  await expect(page.getByRole('heading', { name: 'Log in to Soulgrid' })).toBeVisible();
  await expect(page.locator('main')).toContainText('soulgrid token');
  const form = page.locator('form[method="post"][action="/login"]');
  await expect(form.locator('input#token')).toHaveAttribute('type', 'password');
  await expect(form.locator('input#token')).toHaveAttribute('name', 'token');
  await expect(form.getByRole('button', { name: 'Log in' })).toBeVisible();
  expect(await loginCookie(page)).toBeUndefined();

  // Any page, not only the first: the same login page.
  const agent = await page.request.get('/agents/nobody');
  expect(agent.status()).toBe(401);
  expect(await agent.text()).toContain('Log in to Soulgrid');

  // The API says it in JSON, to this browser and to a request from loopback alike.
  const docs = await page.request.get('/api/docs');
  expect(docs.status()).toBe(401);
  expect(docs.headers()['content-type']).toContain('application/json');
  expect((await docs.json()).error).toBeTruthy();
  const bare = await fetch(`${baseURL}/api/docs`);
  expect(bare.status).toBe(401);
  expect((await bare.json()).error).toBeTruthy();
  // With the login as a bearer, it answers.
  expect((await humanFetch(`${baseURL}/api/docs`)).status).toBe(200);
  onlyLoginPage();
});

test('the login pasted into the form: a wrong one is refused, the right one opens the console', async ({ page, problems }) => {
  const onlyLoginPage = loginPage401s(page, problems);
  await page.goto('/');
  const wrong = await paste(page, 'not-the-login');
  expect(wrong.status()).toBe(401);
  await expect(page.getByRole('alert')).toHaveText('That is not the login.');
  await expect(page.getByRole('heading', { name: 'Log in to Soulgrid' })).toBeVisible();
  expect(await loginCookie(page)).toBeUndefined();

  // The right one: kept as a cookie script cannot read, sent to this site only, and the console.
  const right = await paste(page, E2E_TOKEN);
  expect(right.status()).toBe(303);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
  expect(new URL(page.url()).pathname).toBe('/');
  await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'true');
  expect(await loginCookie(page)).toMatchObject({ value: E2E_TOKEN, httpOnly: true, sameSite: 'Strict', path: '/' });
  onlyLoginPage();
});

test('the login link (/?token=…) logs a browser in, and it stays logged in', async ({ page }) => {
  const res = await page.goto(`/?token=${E2E_TOKEN}`);
  expect(res!.status()).toBe(200);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached({ timeout: 30_000 });
  await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'true');
  expect(await loginCookie(page)).toMatchObject({ value: E2E_TOKEN, httpOnly: true, sameSite: 'Strict' });
  // Kept: the console again without the link.
  await openHydrated(page, '/');
  await expect(page.locator('.live-state')).toHaveAttribute('data-live', 'true');
});

test.describe('logged in', () => {
  test.use({ storageState: LOGGED_IN });

  test("the header's Log out lands on the login page, and this browser is refused after", async ({ page, problems }) => {
    const onlyLoginPage = loginPage401s(page, problems);
    await openHydrated(page);
    await page.locator('button.log-out').click();
    await expect(page.getByRole('heading', { name: 'Log in to Soulgrid' })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await loginCookie(page)).toBeUndefined();
    // The browser's own requests (its cookies, none left) are refused.
    const docs = await page.request.get('/api/docs');
    expect(docs.status()).toBe(401);
    expect((await docs.json()).error).toBeTruthy();
    onlyLoginPage();
  });
});
