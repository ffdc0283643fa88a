import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { tariff } from '../terms/fixtures.ts';
import { call, fetchFile, docEnv, needsPoppler, pdfText } from './support.ts';

const INVOICE = '# {{ app.name }}\n## Bill {{ bill.number }}\n| Item | Amount |\n|---|--:|\n{% for l in bill.lines %}| {{ l.name }} | {{ l.amount }} |\n{% endfor %}';

describe('invoice and e-mail templates', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  const make = (data: unknown, token?: string) => call(h, 'make-document-template', 'Create', 'Create Document Template', data, token);
  const list = (data: unknown = {}) => call(h, 'get-document-templates', 'Retrieve', 'Retrieve Document Templates', data);

  test('the defaults are templateID 0 of each kind', async () => {
    const r = await list();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const defaults = r.body.data.templates.filter((t: any) => t.templateID === 0);
    assert.deepEqual(defaults.map((t: any) => [t.kind, t.name, t.version]), [
      ['invoice', 'Standard bill', 1],
      ['email', 'Standard bill e-mail', 1],
    ]);
  });

  test('make, get, update (a new version), archive', async () => {
    const made = await make({ kind: 'invoice', name: 'Plain', body: INVOICE });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const id = Number(made.headers.get('x-billrun-template-id'));
    assert.ok(id > 0);
    let t = (await list({ templateID: id })).body.data.templates;
    assert.deepEqual([t.length, t[0].name, t[0].version, t[0].body, t[0].createdBy], [1, 'Plain', 1, INVOICE, 'admin@a.test']);

    const updated = await call(h, 'update-document-template', 'Update', 'Update Document Template', { templateID: id, name: 'Plain 2', body: INVOICE + '\n> thank you' });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.headers.get('x-billrun-template-version'), '2');
    t = (await list({ templateID: id })).body.data.templates;
    assert.deepEqual([t[0].name, t[0].version], ['Plain 2', 2]);
    const v1 = (await list({ templateID: id, version: 1 })).body.data.templates[0];
    assert.equal(v1.body, INVOICE);
    // A version the template does not have names the version, not the template (a fuzzer).
    const noVersion = await list({ templateID: id, version: 12345 });
    assert.equal(noVersion.status, 404);
    assert.deepEqual(noVersion.body.error.details.map((d: any) => d.path), ['data.version']);

    const archived = await call(h, 'archive-document-template', 'Update', 'Archive Document Template', { templateID: id, archiveStatus: 1 });
    assert.equal(archived.status, 200);
    assert.equal((await list({ templateID: id })).body.data.templates[0].archiveStatus, 1);
    // another app sees nothing of it
    const other = await call(h, 'get-document-templates', 'Retrieve', 'Retrieve Document Templates', { templateID: id }, h.tokens.otherAdmin);
    assert.equal(other.status, 404);
    // a viewer may read but not write
    assert.equal((await make({ kind: 'invoice', name: 'x', body: INVOICE }, h.tokens.viewer)).status, 403);
  });

  test('a bad template is refused at save, naming its line and reason', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ kind: 'invoice', name: 'x', body: '# ok\n\n{% if bill.total %}\nno end' }, 'data.body', /^line 3, column 1: tag \{% if bill.total %\} not closed/],
      [{ kind: 'invoice', name: 'x', body: 'a\nb\n{{ bill.totl }}' }, 'data.body', /^line 3, column 4: undefined variable: bill.totl/],
      [{ kind: 'invoice', name: 'x', body: '{{ bill.total | shell }}' }, 'data.body', /^line 1, column 1: undefined filter: shell/],
      [{ kind: 'invoice', name: 'x', body: 'x\n{% include "/etc/passwd" %}' }, 'data.body', /^line 2, column 1: templates cannot include files/],
      [{ kind: 'invoice', name: 'x', body: '{{ bill.constructor }}' }, 'data.body', /^line 1, column 4: undefined variable/],
      [{ kind: 'invoice', name: 'x', body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' }, 'data.body', /works with more than the 5,000,000 elements and characters a document may/],
      // An attacker's: one filter call sorting eight million numbers, three seconds between two checks of the render limit.
      [{ kind: 'invoice', name: 'x', body: '{% assign a = (1..8000000) %}{{ a | sort | size }}' }, 'data.body', /^line 1, column 1: works with more than the 5,000,000 elements/],
      // The clock: a document must be the same bytes whenever it is made.
      [{ kind: 'invoice', name: 'x', body: "Printed {{ 'now' | date: '%Y-%m-%d %H:%M:%S' }}" }, 'data.body', /the date filter cannot read the clock \('now'\)/],
      [{ kind: 'email', name: 'x', subject: "Bill of {{ 'today' | date_to_string }}", body: 'hi' }, 'data.subject', /the date_to_string filter cannot read the clock \('today'\)/],
      [{ kind: 'email', name: 'x', subject: 'Bill {{ bill.number', body: 'hi' }, 'data.subject', /^line 1, column 6: output "\{\{ bill.number" not closed/],
      [{ kind: 'email', name: 'x', body: 'hi' }, 'data.subject', /needs a subject/],
      // Filled for a subscription without connection inputs too (a reviewer's finding: it failed at that customer's bill).
      [{ kind: 'invoice', name: 'x', body: 'Meter {{ bill.subscription.inputs[0].value }}' }, 'data.body', /filled for a subscription without connection inputs/],
    ];
    for (const [data, path, message] of cases) {
      const r = await make(data);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VALIDATION_FAILED');
      const d = r.body.error.details.find((x: any) => x.path === path);
      assert.ok(d && message.test(d.message), `${JSON.stringify(data)}: ${JSON.stringify(r.body.error.details)}`);
    }
    // Asked first, it is kept.
    const asked = await make({ kind: 'invoice', name: 'meter', body: '{% if bill.subscription and bill.subscription.inputs.size > 0 %}Meter {{ bill.subscription.inputs[0].value }}{% endif %}' });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    const update = await call(h, 'update-document-template', 'Update', 'Update Document Template', { templateID: 999999, body: 'x' });
    assert.equal(update.status, 404);
  });

  test('a pricing template naming a missing one is refused; get-services names them (none named: "" and null, as interface.md)', async () => {
    const missing = await h.post('/billing/services/make-service', {
      method: 'Create', action: 'Create Package', apiVersion: 'v2',
      service: tariff('W1', { invoiceTemplate: { templateID: 4242, templateName: 'x' }, emailTemplate: { templateID: 4343, templateName: 'y' } }),
    });
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    assert.deepEqual(missing.body.error.details.map((d: any) => d.path), ['service.invoiceTemplate.templateID', 'service.emailTemplate.templateID']);

    const inv = Number((await make({ kind: 'invoice', name: 'Water bill', body: INVOICE })).headers.get('x-billrun-template-id'));
    const mail = Number((await make({ kind: 'email', name: 'Water mail', subject: 'Bill {{ bill.number }}', body: 'Dear {{ account.name }}' })).headers.get('x-billrun-template-id'));
    // the wrong kind is missing too
    const wrongKind = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: tariff('W2', { invoiceTemplate: { templateID: mail } }) });
    assert.equal(wrongKind.status, 400);
    const ok = await h.post('/billing/services/make-service', {
      method: 'Create', action: 'Create Package', apiVersion: 'v2',
      service: tariff('W3', { invoiceTemplate: { templateID: inv, templateName: 'stale name' }, emailTemplate: { templateID: mail } }),
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const plain = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: tariff('W4') });
    assert.equal(plain.status, 200);
    const services = (await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' })).body.data.services;
    const w3 = services.find((s: any) => s.serviceCode === 'W3');
    assert.deepEqual([w3.templateID, w3.templateName, w3.emailTemplateID, w3.emailTemplateName], [inv, 'Water bill', mail, 'Water mail']);
    const w4 = services.find((s: any) => s.serviceCode === 'W4');
    assert.deepEqual([w4.templateID, w4.templateName, w4.emailTemplateID, w4.emailTemplateName], [0, '', null, null]);
    const upd = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service: tariff('W4', { invoiceTemplate: { templateID: 777777 } }) });
    assert.equal(upd.status, 400);
    assert.equal(upd.body.error.details[0].path, 'service.invoiceTemplate.templateID');
  });

  test("preview: an invoice as a PDF of the sample bill, an e-mail as its text, both under the app's own name and currency", { skip: needsPoppler() }, async () => {
    const pdf = await fetchFile(h, '/billing/documents/preview-document-template', docEnv('Retrieve', 'Preview Document Template', { templateID: 0, kind: 'invoice' }));
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    const text = pdfText(pdf.bytes);
    // An officer previewed the e-mail signed "Sample Water Co" and took it for what customers get.
    const app = (await h.db.query('SELECT name, currency FROM app WHERE app_code = $1', [h.appCode])).rows[0];
    assert.match(text, new RegExp(app.name));
    assert.doesNotMatch(text, /Sample Water Co/);
    assert.match(text, /2191\.80/);
    const draft = await fetchFile(h, '/billing/documents/preview-document-template', docEnv('Retrieve', 'Preview Document Template', { kind: 'email', subject: 'Bill {{ bill.number }} of {{ app.name }}', body: 'Due {{ bill.totalDue }} {{ bill.currency }}' }));
    assert.equal(draft.status, 200);
    assert.equal(draft.bytes.toString(), `Subject: Bill 1001 of ${app.name}\n\nDue 2191.80 ${app.currency}`);
    const bad = await fetchFile(h, '/billing/documents/preview-document-template', docEnv('Retrieve', 'Preview Document Template', { kind: 'invoice', body: '{{ nope }}' }));
    assert.equal(bad.status, 400);
    assert.match(JSON.parse(bad.bytes.toString()).error.details[0].message, /^line 1/);
  });

  // An attack found these (docs/hardening.md): a viewer's draft looping three million times
  // answered 300 MB and held the process for 20 s; a table of 400,000 rows was a 500; one of
  // 60,000 lines took 10 s to lay out, and the same bodies could be saved.
  test('a template that writes too much or runs past the page limit is refused, fast, at preview and at save; drafts are for admins', async () => {
    const preview = (data: Record<string, unknown>, token?: string) => fetchFile(h, '/billing/documents/preview-document-template', docEnv('Retrieve', 'Preview Document Template', data), token);
    const refused = async (r: { status: number; bytes: Buffer }, pattern: RegExp) => {
      assert.equal(r.status, 400, r.bytes.toString().slice(0, 300));
      const body = JSON.parse(r.bytes.toString());
      assert.equal(body.error.details[0].path, 'data.body');
      assert.match(body.error.details[0].message, pattern);
    };
    const capture = (n: number) => `{% capture s %}{% for i in (1..${n}) %}${'x'.repeat(100)}{% endfor %}{% endcapture %}{{ s }}`;
    let t0 = performance.now();
    await refused(await preview({ kind: 'email', subject: 'hi', body: capture(3000000) }), /takes more than the 1,000 ms a document may take|characters/);
    assert.ok(performance.now() - t0 < 5000, `took ${performance.now() - t0} ms`);
    await refused(await preview({ kind: 'email', subject: 'hi', body: capture(10000) }), /writes 1,000,000 characters, more than the 500,000/);
    const rows = (n: number) => `| a | b |\n|---|---:|\n{% for i in (1..${n}) %}| row {{ i }} | 1.00 |\n{% endfor %}`;
    await refused(await preview({ kind: 'invoice', body: rows(400000) }), /characters|takes more than the 1,000 ms a document may take/);
    t0 = performance.now();
    await refused(await preview({ kind: 'invoice', body: rows(5000) }), /runs past 50 pages/);
    assert.ok(performance.now() - t0 < 5000, `took ${performance.now() - t0} ms`);
    const saved = await make({ kind: 'invoice', name: 'Long', body: rows(5000) });
    assert.equal(saved.status, 400);
    assert.match(saved.body.error.details[0].message, /runs past 50 pages/);
    assert.equal((await make({ kind: 'email', name: 'Big', subject: 's', body: capture(10000) })).status, 400);
    // One word of 200,000 characters held the process for minutes (pdfkit measures a word
    // too wide for its line again for every character it breaks off): broken first now.
    t0 = performance.now();
    const word = await preview({ kind: 'invoice', body: 'abé'.repeat(66000) });
    assert.ok([200, 400].includes(word.status), String(word.status));
    assert.ok(performance.now() - t0 < 8000, `took ${performance.now() - t0} ms`);
    // A table that fits: laid out as before.
    assert.equal((await preview({ kind: 'invoice', body: rows(100) })).status, 200);
    // A viewer previews what is saved, not what it sends.
    const draft = await preview({ kind: 'email', subject: 'Bill {{ bill.number }}', body: 'Due {{ bill.totalDue }}' }, h.tokens.viewer);
    assert.equal(draft.status, 403);
    assert.equal(JSON.parse(draft.bytes.toString()).error.details[0].path, 'data.body');
    assert.equal((await preview({ templateID: 0, kind: 'email' }, h.tokens.viewer)).status, 200);
  });
});
