// The account's Bills tab, for an account with two meters: the officer picks one subscription
// and sees its bills alone (get-bills by subscriptionID), or clears it and sees both.
// By hand (the water tariff, test/fixtures/tariffs.ts): 25 m3 bills 2151.80, 5 m3 493.00.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openBrowser, withoutChromium } from './browser.ts';
import { PASSWORD, type Harness } from '../support/harness.ts';
import { postAccountCustomer as customer, startRun, tariff } from '../terms/fixtures.ts';
import { billTerm } from '../billRun/publishedBills.ts';

describe("an account's bills by subscription", { skip: withoutChromium }, () => {
  let h: Harness;
  let close: () => Promise<void>;
  let browser: Browser;
  let page: Page;

  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER')]));
    ({ browser, page } = await openBrowser());
  });
  after(async () => {
    await browser?.close();
    await close?.();
  });

  test('one subscription chosen shows its bill alone; cleared, both', async () => {
    const a = await customer(h, 'TWO-METERS', [25, 5]);
    await billTerm(h, {});

    await page.goto(`${h.url}/console/`);
    await page.getByLabel('E-mail').fill('viewer@a.test');
    await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Accounts' }).waitFor();
    await page.goto(`${h.url}/console/#/accounts/${a.accountId}`);
    await page.getByRole('tab', { name: 'Bills' }).click();
    const rows = page.getByTestId('bills-table').getByRole('row', { name: /^Open bill \d+$/ });
    // The rows once the list holds `n` (a page swaps its rows when its filter changes).
    const rowsWhen = async (n: number) => {
      for (let i = 0; (await rows.count()) !== n; i++) {
        assert.ok(i < 100, `the list never held ${n} bill(s): ${(await rows.allInnerTexts()).join(' | ')}`);
        await page.waitForTimeout(100);
      }
      return rows.allInnerTexts();
    };
    await rows.first().waitFor();
    const both = await rowsWhen(2);
    assert.ok(both.some((r) => r.includes('2151.80')) && both.some((r) => r.includes('493.00')), both.join(' | '));

    await page.getByRole('combobox', { name: 'Subscription', exact: true }).click();
    await page.getByRole('option', { name: `${a.subs[1]} · WATER · ZONE-A`, exact: true }).click();
    await page.getByTestId('bills-table').getByRole('cell', { name: '2151.80' }).waitFor({ state: 'detached' });
    const one = await rowsWhen(1);
    assert.ok(one[0]!.includes('493.00'), one.join(' | '));
    // For a person to look at, not a check (as console.test.ts's screenshots).
    await page
      .screenshot({ path: path.resolve(import.meta.dirname, '../../artifacts/console/account-bills-by-subscription.png'), fullPage: true, timeout: 30_000 })
      .catch((err: Error) => process.stderr.write(`screenshot not taken: ${err.message.split('\n')[0]}\n`));
  });
});
