// Accessibility, checked with axe-core on the page as it is: no violation of WCAG 2 A/AA rules.
import AxeBuilder from '@axe-core/playwright';
import { expect, Page } from '@playwright/test';

/// Fails with each violation's rule, what it says and where, when the page has any.
export async function expectAccessible(page: Page, state: string) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found = results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    where: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
  }));
  expect(found, `axe violations on ${state}`).toEqual([]);
}
