// The console in cases the officer's walk of console.test.ts does not take: a template with a
// version dated ahead, a term whose template changed after it was made, a subscription
// terminated inside a term that failed, an account with more open bills than one page. Each
// test sets up its own template through the API and drives the pages in a real headless
// Chromium against a real server, PostgreSQL and worker.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { openBrowser, withoutChromium } from './browser.ts';
import { PASSWORD, type Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, processTerm, startRun, step, subscriptions, tariff, waitForStatus } from '../terms/fixtures.ts';

const update = (service: unknown, effectiveFrom?: string) => ({ method: 'Update', action: 'Update Package', apiVersion: 'v2', ...(effectiveFrom ? { effectiveFrom } : {}), service });

describe('the console in cases the walk does not cover', { skip: withoutChromium }, () => {
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

  const signIn = async (email: string) => {
    await page.goto(`${h.url}/console/`);
    await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
    await page.goto(`${h.url}/console/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Bill runs' }).waitFor();
  };
  const choose = async (label: string, option: string) => {
    await page.getByRole('combobox', { name: label, exact: true }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  };

  // The app's today is 31/01/2027 (the harness's). A tariff change dated 01/03/2027 is saved
  // ahead of time as version 2 with 60 days to pay; version 1, in force until then, gives 10.
  // make-term takes a term's default due date from the version in force on its last day
  // (templates.md, Effective dates): December 2026's is due 31/12/2026 + 10 = 10/01/2027,
  // already passed. The form worked it out from the newest version's 60 days (01/03/2027)
  // and said nothing.
  test("the new term's warning of a passed due date reads the version in force on the term's last day, not a version dated after it", async () => {
    await makeTemplate(h, tariff('DUE', { dueDateOffset: 10, batches: ['ZONE-D'] }));
    const later = await h.post('/billing/services/update-service', update(tariff('DUE', { dueDateOffset: 60, batches: ['ZONE-D'] }), '01/03/2027'));
    assert.equal(later.status, 200, JSON.stringify(later.body));
    await signIn('biller@a.test');
    await choose('Template', 'Domestic water (DUE)');
    await page.getByRole('textbox', { name: 'Billing period' }).fill('202612');
    const warned = await page
      .getByTestId('due-passed')
      .waitFor({ timeout: 3000 })
      .then(
        () => true,
        () => false,
      );
    await page.getByRole('button', { name: 'Make the term', exact: true }).click();
    await page.getByRole('button', { name: 'Load subscriptions', exact: true }).waitFor();
    const made = await h.db.query("SELECT to_char(t.due_date, 'DD/MM/YYYY') AS due FROM term t JOIN service s USING (service_id) WHERE s.service_code = 'DUE'");
    assert.deepEqual(made.rows, [{ due: '10/01/2027' }]);
    assert.equal(warned, true, 'the term was made due 10/01/2027, before the app\'s today 31/01/2027, and the form gave no warning');
  });

  // A subscription terminated on 20/12/2026 has no reading in December: validate-term says
  // so (readingDate 20/12/2026), approve-term records it as a failure, and the run leaves it
  // unbilled. Its fix row in the failures table (step 6) is dated the term's end, 31/12/2026,
  // after the subscription's end: a reading there is refused. The exceptions table's row
  // starts at the day validate-term names; the failures' row has no such day and guesses.
  test("a failure's fix row for a subscription terminated inside the term is dated its last day, and the reading saved there", async () => {
    await makeTemplate(h, tariff('ENDS', { batches: ['ZONE-E'] }));
    const [, ended] = await subscriptions(h, { n: 2, serviceCode: 'ENDS', batchCode: 'ZONE-E', readings: [['2026-11-30', 10]] });
    const endedID = ended!.subscriptionId;
    const t = await h.post('/billing/subscriptions/terminate-subscription', { method: 'Update', action: 'Terminate Subscription', apiVersion: 'v2', data: { subscriptionID: Number(endedID), endDate: '20/12/2026' } });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    const termID = await processTerm(h, { serviceCode: 'ENDS', batchCode: 'ZONE-E', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    const term = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(term.status, 'Processed');
    assert.equal(term.exceptions.find((e: { subscriptionID: number }) => String(e.subscriptionID) === endedID)?.readingDate, '20/12/2026');

    await signIn('biller@a.test');
    await page.goto(`${h.url}/console/#/terms/${termID}`);
    await page.getByRole('button', { name: /6\. Process/ }).click();
    const value = page.getByRole('textbox', { name: `Reading for subscription ${endedID}` });
    const row = page.getByRole('row').filter({ has: value });
    await row.waitFor();
    assert.equal(await row.getByRole('textbox', { name: 'Reading date' }).inputValue(), '20/12/2026', "the fix row is dated after the subscription's end");
    await value.fill('14');
    await row.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`Reading of METER for subscription ${endedID} on 20/12/2026 recorded.`).waitFor();
    const saved = await h.db.query("SELECT to_char(reading_date, 'DD/MM/YYYY') AS day, trim_scale(value)::text AS value FROM reading WHERE subscription_id = $1 AND source = 'term'", [endedID]);
    assert.deepEqual(saved.rows, [{ day: '20/12/2026', value: '14' }]);
  });

  // A term keeps the template version it was made with. The template is changed after the term
  // is loaded (its meter renamed METER to WATER_M, version 2): the term's exception still
  // names readings.METER, and capture-readings takes only the term's own meters. The fix row
  // (FixReading) offers the meters of the template's newest version only: the meter the
  // exception names is not among them, so it silently takes WATER_M (its note says "A reading
  // of WATER_M ... is replaced"), with no meter choice shown for a single meter; the save is
  // refused on inputCode, an error shown under that hidden choice, so nothing is recorded and
  // nothing said.
  test("an exception's fix row is for the meter the exception names, also when the template's newest version renamed it", async () => {
    await makeTemplate(h, tariff('RENAME', { batches: ['ZONE-R'] }));
    const [sub] = await subscriptions(h, { n: 1, serviceCode: 'RENAME', batchCode: 'ZONE-R', readings: [['2026-11-30', 10]] });
    const subID = sub!.subscriptionId;
    const termID = await makeTerm(h, { serviceCode: 'RENAME', batchCode: 'ZONE-R', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const renamed = tariff('RENAME', { batches: ['ZONE-R'], meteredInputs: [{ code: 'WATER_M', label: 'Water meter', unit: 'm3', decimals: 0, rolloverAt: 100000 }] });
    renamed.components = renamed.components!.map((c) => ('input' in c && c.input === 'METER' ? { ...c, input: 'WATER_M' } : c));
    const changed = await h.post('/billing/services/update-service', update(renamed));
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.deepEqual(
      validated.body.data.exceptions.map((e: { code: string; path: string; readingDate: string }) => [e.code, e.path, e.readingDate]),
      [['MISSING_READING', 'readings.METER', '31/12/2026']],
    );

    await signIn('biller@a.test');
    await page.goto(`${h.url}/console/#/terms/${termID}`);
    await page.getByRole('button', { name: /4\. Validate/ }).click();
    const value = page.getByRole('textbox', { name: `Reading for subscription ${subID}` });
    const row = page.getByRole('row').filter({ has: value });
    await value.fill('20');
    await row.getByRole('button', { name: 'Save', exact: true }).click();
    const recorded = page.getByText(`Reading of METER for subscription ${subID} on 31/12/2026 recorded.`);
    const said = await recorded.waitFor({ timeout: 5000 }).then(
      () => true,
      () => false,
    );
    const saved = await h.db.query("SELECT input_code, to_char(reading_date, 'DD/MM/YYYY') AS day FROM reading WHERE subscription_id = $1 AND source = 'term'", [subID]);
    if (saved.rows.length === 0) assert.fail(`no reading recorded, and nothing said: the row reads "${(await row.innerText()).replace(/\s+/g, ' ')}"`);
    assert.deepEqual(saved.rows, [{ input_code: 'METER', day: '31/12/2026' }]);
    assert.ok(said);
  });

  // A landlord's account with 1001 subscriptions, one posted bill each, none paid. The bill's
  // page reads the account's open bills with limit 1000 (the API's largest page) and says
  // "unpaid" only of a bill among those; of the 1001st it says nothing at all, paid or not
  // (docs/console.md: "whether a posted bill is paid, part paid or unpaid, with what is due").
  test('a posted bill of an account with more than 1000 open bills says it is unpaid', async () => {
    await makeTemplate(h, tariff('MANY', { batches: ['ZONE-M'] }));
    const a = await h.db.query<{ account_id: string }>(
      "INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, 'LANDLORD-1', 'Many Flats Ltd', 'fixture', 'fixture') RETURNING account_id",
      [h.appCode],
    );
    const accountID = a.rows[0]!.account_id;
    const subs = await h.db.query<{ subscription_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       SELECT $1, $2, s.service_id, b.batch_id, '2000-01-01', 'fixture', 'fixture'
         FROM service s JOIN batch b ON b.app_code = s.app_code AND b.batch_code = 'ZONE-M', generate_series(1, 1001)
        WHERE s.app_code = $1 AND s.service_code = 'MANY' RETURNING subscription_id`,
      [h.appCode, accountID],
    );
    await addReadings(h, subs.rows.flatMap((s) => [[s.subscription_id, '2026-10-31', 100], [s.subscription_id, '2026-11-30', 110]] as [string, string, number][]));
    const termID = await makeTerm(h, { serviceCode: 'MANY', batchCode: 'ZONE-M' });
    for (const [name, action] of [
      ['load-subscriptions', 'Load Term Subscriptions'],
      ['process-term', 'Process Term'],
    ] as const) {
      const r = await step(h, name, action, { termID });
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'], 120_000)).status, 'Processed');
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Posted'], 120_000);
    // The last of the account's open bills, oldest due first (get-open-bills' order).
    const last = await h.db.query<{ bill_id: string; bill_number: string; total_due: string }>(
      `SELECT b.bill_id, b.bill_number, b.total_due::text FROM bill b JOIN ledger_entry e ON e.bill_id = b.bill_id AND e.kind = 'bill'
        WHERE b.account_id = $1 ORDER BY b.due_date DESC, b.bill_date DESC, e.entry_id DESC LIMIT 1`,
      [accountID],
    );
    const bill = last.rows[0]!;

    await signIn('viewer@a.test');
    await page.goto(`${h.url}/console/#/bills/${bill.bill_id}`);
    await page.getByRole('heading', { name: `Bill ${bill.bill_number}` }).waitFor();
    const badge = page.getByTestId('bill-settlement');
    const shown = await badge.waitFor({ timeout: 5000 }).then(
      () => true,
      () => false,
    );
    assert.ok(shown, 'the page of a posted, unpaid bill says nothing of its settlement');
    assert.match(await badge.innerText(), /^UNPAID: .* DUE/);
  });

  // A tariff change saved ahead of its day: version 2, the standing charge 300.00 from
  // 01/03/2027; until then version 1's 150.00. An admin opens the template in the form (it shows
  // version 2, the newest) and saves it without a change. update-service is sent without
  // effectiveFrom, so version 3 "takes the date of the version in force on the app's today"
  // (templates.md), version 1's: from the beginning. March's prices are then in force at once,
  // and January 2027's bill, not yet made, charges 300.00 for a standing charge of 150.00.
  test("a template whose newest version is dated ahead, saved unchanged from the form, keeps today's prices", async () => {
    await makeTemplate(h, tariff('AHEAD', { batches: ['ZONE-H'] }));
    const march = tariff('AHEAD', { batches: ['ZONE-H'] });
    march.components = march.components!.map((c) => (c.code === 'STANDING' ? { ...c, amount: '300.00' } : c));
    const dated = await h.post('/billing/services/update-service', update(march, '01/03/2027'));
    assert.equal(dated.status, 200, JSON.stringify(dated.body));
    await subscriptions(h, { n: 1, serviceCode: 'AHEAD', batchCode: 'ZONE-H', readings: [['2026-12-31', 100], ['2027-01-31', 110]] });

    await signIn('admin@a.test');
    await page.goto(`${h.url}/console/#/templates/AHEAD`);
    await page.getByRole('link', { name: 'Change', exact: true }).click();
    await page.getByRole('button', { name: 'Save a new version', exact: true }).click();
    await page.getByTestId('versions-table').getByRole('row', { name: 'Show version 3' }).waitFor();

    const termID = await makeTerm(h, { serviceCode: 'AHEAD', batchCode: 'ZONE-H', billingPeriodID: 202701, startDate: '01/01/2027', endDate: '31/01/2027' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const standing = validated.body.data.previewBills[0].lines.find((l: { componentCode: string }) => l.componentCode === 'STANDING');
    assert.equal(standing.amount, '150.00', "January's standing charge is version 1's, whatever the form saved");
  });

  // A template that names its invoice and e-mail templates, as make-service keeps them: by id
  // and by name. Opened in the form and saved without a change, the new version keeps the ids
  // and drops the names (toBody sends { templateID } only): get-service-versions then shows
  // version 2 with templateName "" and emailTemplateName null beside the same ids.
  test('a template saved unchanged from the form keeps the names of the document templates it names', async () => {
    const made = async (kind: 'invoice' | 'email', name: string, extra: object) => {
      const r = await h.post('/billing/documents/make-document-template', { method: 'Create', action: 'Create Document Template', apiVersion: 'v2', data: { kind, name, ...extra } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return Number(r.headers.get('x-billrun-template-id'));
    };
    const invoice = await made('invoice', 'Municipal invoice', { body: '# {{ app.name }}\n\nTotal due: {{ bill.totalDue }}\n' });
    const email = await made('email', 'Municipal e-mail', { subject: 'Bill {{ bill.number }}', body: 'Due {{ bill.totalDue }}' });
    await makeTemplate(
      h,
      tariff('NAMED', {
        batches: ['ZONE-N'],
        invoiceTemplate: { templateID: invoice, templateName: 'Municipal invoice' },
        emailTemplate: { templateID: email, templateName: 'Municipal e-mail' },
      }),
    );
    await signIn('admin@a.test');
    await page.goto(`${h.url}/console/#/templates/NAMED`);
    await page.getByRole('link', { name: 'Change', exact: true }).click();
    await page.getByRole('button', { name: 'Save a new version', exact: true }).click();
    await page.getByTestId('versions-table').getByRole('row', { name: 'Show version 2' }).waitFor();
    const stored = await h.db.query(
      `SELECT v.version, v.definition->'invoiceTemplate' AS invoice, v.definition->'emailTemplate' AS email
         FROM service_version v JOIN service s USING (service_id) WHERE s.service_code = 'NAMED' AND s.app_code = $1 ORDER BY v.version`,
      [h.appCode],
    );
    const [before, saved] = stored.rows;
    assert.deepEqual(before, { version: 1, invoice: { templateID: invoice, templateName: 'Municipal invoice' }, email: { templateID: email, templateName: 'Municipal e-mail' } });
    assert.deepEqual(saved, { ...before, version: 2 });
  });

  // A template that requires a document (a title deed) before a subscription is connected:
  // make-subscription takes each document's name, reference and date. The new-subscription
  // form asks only the reference and sends the subscription's first day as the document's date
  // (its `dd.` field is read but never shown): a deed of 12/03/2019 is recorded as of the
  // connection, 01/01/2027, with no word.
  test("a new subscription's required document is recorded with the date the officer gives, not the first day billed", async () => {
    await makeTemplate(h, tariff('DEEDS', { batches: ['ZONE-Q'], requiredDocs: ['TITLE_DEED'] }));
    const made = await h.post(
      '/billing/accounts/make-account',
      { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'DEED-1', name: 'Wanjiru Kamau' } },
      h.tokens.biller,
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const accountID = made.headers.get('x-billrun-account-id');
    await signIn('biller@a.test');
    await page.goto(`${h.url}/console/#/accounts/${accountID}`);
    await page.getByRole('button', { name: 'New subscription', exact: true }).click();
    await choose('Template', 'Domestic water (DEEDS)');
    await page.getByRole('textbox', { name: 'From', exact: true }).fill('01/01/2027');
    await page.getByRole('textbox', { name: 'Opening reading of Water meter' }).fill('0');
    await page.getByRole('textbox', { name: 'TITLE_DEED: reference' }).fill('LR 209/1234');
    const dateField = page.getByRole('textbox', { name: /TITLE_DEED.*date/i });
    assert.equal(await dateField.count(), 1, "the form has no field for the document's date");
    await dateField.fill('12/03/2019');
    await page.getByRole('button', { name: 'Make the subscription', exact: true }).click();
    await page.getByRole('button', { name: 'Make the subscription', exact: true }).waitFor({ state: 'detached' });
    const stored = await h.db.query("SELECT name, reference, to_char(document_date, 'DD/MM/YYYY') AS date FROM subscription_document d JOIN subscription s USING (subscription_id) WHERE s.account_id = $1", [accountID]);
    assert.deepEqual(stored.rows, [{ name: 'TITLE_DEED', reference: 'LR 209/1234', date: '12/03/2019' }]);
  });
});
