// Review 2, the console: the new subscription form and a demand register's opening reading.
// A new user left the demand register's opening reading blank and the first bill run asked for it
// (MISSING_READING); the fix (console/src/pages/account/SubscriptionForms.tsx) only shows "0" as
// the field's placeholder and says "0 when it is installed". A placeholder is no value: the field
// still reads "0" to the officer, and the form still sends no opening reading for it, so the
// subscription is made without one and its first bill run still fails for it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { openBrowser, withoutChromium } from './browser.ts';
import { PASSWORD, type Harness } from '../support/harness.ts';
import { makeTemplate, startRun, tariff } from '../terms/fixtures.ts';

describe('review 2: a demand register opened from the new subscription form', { skip: withoutChromium }, () => {
  let h: Harness;
  let close: () => Promise<void>;
  let browser: Browser;
  let page: Page;

  before(async () => {
    ({ h, close } = await startRun());
    ({ browser, page } = await openBrowser());
  });
  after(async () => {
    await browser?.close();
    await close?.();
  });

  test('the demand field showing 0, left as shown, opens the register at 0', async () => {
    await makeTemplate(
      h,
      tariff('BIZ', {
        name: 'Business electricity',
        batches: ['ZONE-K'],
        meteredInputs: [
          { code: 'METER', label: 'Energy', unit: 'kWh', decimals: 0 },
          { code: 'DEMAND', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' },
        ],
        components: [
          { code: 'ENERGY', name: 'Energy', model: 'perUnit', input: 'METER', rate: '0.1120' },
          { code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate: '12.50' },
        ],
        values: [],
      }),
    );
    const made = await h.post('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'KW-1', name: 'Juma Traders' } }, h.tokens.biller);
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const accountID = made.headers.get('x-billrun-account-id');
    await page.goto(`${h.url}/console/`);
    await page.getByLabel('E-mail').fill('biller@a.test');
    await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Bill runs' }).waitFor();
    await page.goto(`${h.url}/console/#/accounts/${accountID}`);
    await page.getByRole('button', { name: 'New subscription', exact: true }).click();
    await page.getByRole('textbox', { name: 'From', exact: true }).fill('01/01/2027');
    await page.getByRole('textbox', { name: 'Opening reading of Energy' }).fill('1200');
    const demand = page.getByRole('textbox', { name: 'Opening reading of Maximum demand' });
    // What the officer sees in the field: 0.
    assert.equal(await demand.inputValue(), '0');
    await page.getByRole('button', { name: 'Make the subscription', exact: true }).click();
    await page.getByRole('button', { name: 'Make the subscription', exact: true }).waitFor({ state: 'detached' });
    const readings = await h.db.query(
      `SELECT r.input_code, trim_scale(r.value)::text AS value FROM reading r JOIN subscription s USING (subscription_id) WHERE s.account_id = $1 ORDER BY r.input_code`,
      [accountID],
    );
    // billrun: [{ METER 1200 }] alone: the register has no opening reading, and its first bill is MISSING_READING.
    assert.deepEqual(readings.rows, [{ input_code: 'DEMAND', value: '0' }, { input_code: 'METER', value: '1200' }]);
  });
});
