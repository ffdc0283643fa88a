import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertError, env, makeAccount, makeTemplate, subscriptionData, waterTemplate } from './fixtures.ts';

// product.md, "Every setting of a pricing template is real": requiredDocs are the
// documents a subscription must have recorded before it may be connected.
const ID = { name: 'National ID', reference: '12345678', date: '03/01/2025' };
const DEED = { name: 'Title deed', reference: 'LR 209/1184', date: '15/12/2024' };

const make = (h: Harness, data: unknown, token = h.tokens.biller) => h.post('/billing/subscriptions/make-subscription', env('Create', 'Create Subscription', data), token);
const subscriptionOf = async (h: Harness, accountNumber: string, token = h.tokens.viewer) =>
  (await h.post('/billing/subscriptions/get-subscriptions', env('Retrieve', 'Retrieve Subscriptions', { accountNumber }), token)).body.data.subscriptions;
const messages = (r: { body: any }) => (r.body.error.details as { path: string; message: string }[]).map((d) => `${d.path}: ${d.message}`);

describe("a template's required documents", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h, { ...waterTemplate('DOCS'), requiredDocs: ['National ID', 'Title deed'] });
    await makeTemplate(h, waterTemplate('PLAIN', ['ZONE-C']));
  });
  after(() => h.close());

  test('the template refuses blank, padded and repeated document names, naming the item', async () => {
    const bad = async (requiredDocs: unknown, path: string) => {
      const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...waterTemplate('BAD', ['ZONE-X']), requiredDocs } });
      assertError(r, 400, 'VALIDATION_FAILED', path);
    };
    await bad([''], 'service.requiredDocs[0]');
    await bad([' National ID'], 'service.requiredDocs[0]');
    await bad(['ID', 'ID'], 'service.requiredDocs');
  });

  test('a subscription without them is refused, naming each missing one, and nothing is written', async () => {
    await makeAccount(h, 'D-1');
    const none = await make(h, subscriptionData('D-1', { serviceCode: 'DOCS' }));
    assertError(none, 400, 'VALIDATION_FAILED', 'data.documents');
    const said = messages(none).join('\n');
    assert.match(said, /"National ID" is required by pricing template DOCS/);
    assert.match(said, /"Title deed" is required by pricing template DOCS/);

    const one = await make(h, subscriptionData('D-1', { serviceCode: 'DOCS', documents: [ID] }));
    assertError(one, 400, 'VALIDATION_FAILED', 'data.documents');
    assert.deepEqual(messages(one), ['data.documents: document "Title deed" is required by pricing template DOCS: give its name, reference and date']);

    const badDate = await make(h, subscriptionData('D-1', { serviceCode: 'DOCS', documents: [ID, { ...DEED, date: '31/02/2025' }] }));
    assertError(badDate, 400, 'VALIDATION_FAILED', 'data.documents[1].date');
    const twice = await make(h, subscriptionData('D-1', { serviceCode: 'DOCS', documents: [ID, DEED, { ...ID, reference: 'other' }] }));
    assertError(twice, 400, 'VALIDATION_FAILED', 'data.documents[2].name');
    assert.deepEqual(await subscriptionOf(h, 'D-1'), []);
  });

  test('with every one recorded it is connected, and its documents are listed', async () => {
    const r = await make(h, subscriptionData('D-1', { serviceCode: 'DOCS', documents: [DEED, ID, { name: 'Contract', reference: 'C-9', date: '2025-01-02' }] }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [s] = await subscriptionOf(h, 'D-1');
    assert.deepEqual(
      s.documents.map((d: any) => [d.name, d.reference, d.date, d.recordedBy]),
      [
        ['Contract', 'C-9', '02/01/2025', 'biller@a.test'],
        ['National ID', '12345678', '03/01/2025', 'biller@a.test'],
        ['Title deed', 'LR 209/1184', '15/12/2024', 'biller@a.test'],
      ],
    );
    // A template that requires none takes a subscription without documents, as before.
    await makeAccount(h, 'D-2');
    const plain = await make(h, subscriptionData('D-2', { serviceCode: 'PLAIN', batchCode: 'ZONE-C' }));
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual((await subscriptionOf(h, 'D-2'))[0].documents, []);
  });

  test('record-documents replaces a document and keeps what it replaced in the history; another app cannot', async () => {
    const [s] = await subscriptionOf(h, 'D-1');
    const record = (data: unknown, token = h.tokens.biller) => h.post('/billing/subscriptions/record-documents', env('Update', 'Record Subscription Documents', data), token);
    const renewed = { ...ID, reference: '87654321', date: '10/01/2027' };
    const r = await record({ subscriptionID: s.subscriptionID, documents: [renewed] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const one = (await h.post('/billing/subscriptions/get-subscriptions', env('Retrieve', 'Retrieve Subscriptions', { subscriptionID: s.subscriptionID }))).body.data.subscriptions[0];
    assert.deepEqual(one.documents.find((d: any) => d.name === 'National ID').reference, '87654321');
    const ev = one.events.find((e: any) => e.kind === 'documents_recorded');
    assert.deepEqual(ev.detail.documents, [{ name: 'National ID', reference: '87654321', date: '2027-01-10', replaced: { reference: '12345678', date: '2025-01-03' } }]);

    assertError(await record({ subscriptionID: s.subscriptionID, documents: [] }), 400, 'VALIDATION_FAILED', 'data.documents');
    assertError(await record({ subscriptionID: s.subscriptionID, documents: [{ name: 'X', reference: '' , date: '01/01/2026' }] }), 400, 'VALIDATION_FAILED', 'data.documents[0].reference');
    assertError(await record({ subscriptionID: s.subscriptionID, documents: [renewed] }, h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await record({ subscriptionID: s.subscriptionID, documents: [renewed] }, h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.subscriptionID');
  });

  test('a move to a template that requires documents carries those on record and asks for the rest', async () => {
    await makeAccount(h, 'D-3');
    assert.equal((await make(h, subscriptionData('D-3', { serviceCode: 'PLAIN', batchCode: 'ZONE-C', documents: [ID] }))).status, 200);
    const [s] = await subscriptionOf(h, 'D-3');
    const move = (extra: Record<string, unknown>) =>
      h.post('/billing/subscriptions/move-subscription', env('Update', 'Move Subscription', { subscriptionID: s.subscriptionID, date: '01/06/2025', serviceCode: 'DOCS', batchCode: 'ZONE-A', ...extra }), h.tokens.biller);
    const short = await move({});
    assertError(short, 400, 'VALIDATION_FAILED', 'data.documents');
    assert.deepEqual(messages(short), ['data.documents: document "Title deed" is required by pricing template DOCS: give its name, reference and date']);
    const moved = await move({ documents: [DEED] });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const now = (await subscriptionOf(h, 'D-3')).find((x: any) => x.serviceCode === 'DOCS');
    assert.deepEqual(now.documents.map((d: any) => d.name), ['National ID', 'Title deed']);
  });

  test('imports: document.<name> and document.<name>.date columns, and JSON rows; a missing one is a bad row', async () => {
    await makeAccount(h, 'D-4');
    await makeAccount(h, 'D-5');
    const upload = (csv: string) => h.request('POST', '/billing/imports/upload-import?kind=subscriptions', { token: h.tokens.biller, raw: csv, headers: { 'content-type': 'text/csv' } });
    const header = 'accountNumber,serviceCode,batchCode,startDate,connection.METER_NO,unmetered.ROOMS,document.National ID,document.National ID.date,document.Title deed,document.Title deed.date';
    const bad = await upload(`${header}\nD-4,DOCS,ZONE-A,01/03/2025,X4,1,111,01/02/2025,,\nD-5,DOCS,ZONE-A,01/03/2025,X5,1,222,,T-5,01/02/2025\n`);
    assertError(bad, 400, 'VALIDATION_FAILED');
    const said = messages(bad).join('\n');
    assert.match(said, /rows\[2\]\.document: document "Title deed" is required/);
    assert.match(said, /rows\[3\]\.document\.National ID\.date: is required/);
    assert.deepEqual(await subscriptionOf(h, 'D-4'), [], 'nothing of a failed import is written');

    const good = await upload(`${header}\nD-4,DOCS,ZONE-A,01/03/2025,X4,1,111,01/02/2025,T-4,02/02/2025\n`);
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.deepEqual((await subscriptionOf(h, 'D-4'))[0].documents.map((d: any) => [d.name, d.reference, d.date]), [
      ['National ID', '111', '01/02/2025'],
      ['Title deed', 'T-4', '02/02/2025'],
    ]);

    const json = await h.post('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'subscriptions', rows: [{ ...subscriptionData('D-5', { serviceCode: 'DOCS' }), documents: [ID] }] }), h.tokens.biller);
    assertError(json, 400, 'VALIDATION_FAILED', 'data.rows[0].documents');
    const jsonGood = await h.post('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'subscriptions', rows: [{ ...subscriptionData('D-5', { serviceCode: 'DOCS' }), documents: [ID, DEED] }] }), h.tokens.biller);
    assert.equal(jsonGood.status, 200, JSON.stringify(jsonGood.body));
    assert.equal((await subscriptionOf(h, 'D-5'))[0].documents.length, 2);
  });
});
