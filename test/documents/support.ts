// Shared helpers of the documents and delivery tests: the envelope, pdftotext and
// pdffonts (poppler-utils; under CI=true a missing tool fails the test, never skips it).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { Harness } from '../support/harness.ts';

export const docEnv = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

export const call = (h: Harness, op: string, method: string, action: string, data: unknown, token?: string) =>
  h.post(`/billing/documents/${op}`, docEnv(method, action, data), token);

/** The bytes of a raw (file) answer. */
export async function fetchFile(h: Harness, path: string, body: unknown, token = h.tokens.admin): Promise<{ status: number; type: string; bytes: Buffer; headers: Headers }> {
  const res = await fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

export const hasPoppler = spawnSync('pdftotext', ['-v']).error === undefined;
/** Skip reason for tests that need poppler, or false; under CI a missing poppler fails instead. */
export const needsPoppler = (): false | string => {
  if (hasPoppler) return false;
  if (process.env.CI === 'true') throw new Error('pdftotext (poppler-utils) is missing: .ci/run installs it');
  return 'poppler-utils is not installed (apt-get install -y poppler-utils)';
};

function withFile<T>(pdf: Buffer, fn: (file: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billrun-pdf-'));
  const file = path.join(dir, 'doc.pdf');
  fs.writeFileSync(file, pdf);
  try {
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const pdfText = (pdf: Buffer): string => withFile(pdf, (f) => execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', f, '-'], { encoding: 'utf8' }));
export const pdfFonts = (pdf: Buffer): string => withFile(pdf, (f) => execFileSync('pdffonts', [f], { encoding: 'utf8' }));

/** Loads, captures (125 on every meter), validates, approves and processes a term; answers its id once Processed. */
export async function processedTerm(h: Harness, subs: { subscriptionId: string }[], termData: Record<string, unknown> = {}): Promise<number> {
  const { makeTerm, step, waitForStatus } = await import('../terms/fixtures.ts');
  const termID = await makeTerm(h, termData);
  for (const [name, action, extra] of [
    ['load-subscriptions', 'Load Term Subscriptions', {}],
    ['capture-readings', 'Capture Term Readings', { readings: subs.map((s) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: '30/11/2026', value: 125 })) }],
    ['validate-term', 'Validate Term', {}],
    ['approve-term', 'Approve Term', {}],
    ['process-term', 'Process Term', {}],
  ] as const) {
    const r = await step(h, name, action, { termID, ...extra });
    if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
  }
  await waitForStatus(h, termID, ['Processed']);
  return termID;
}

/** Polls until check() answers a value (not undefined). */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A real SMTP server on loopback. It keeps what it accepts; it refuses the next
 * `state.refuse` messages with 451, and while `state.stall` is set it never answers a
 * message's DATA (a sender killed then dies mid-send).
 */
export async function startSmtp() {
  const received: Buffer[] = [];
  const state = { refuse: 0, refused: 0, stall: false, stalled: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.stall) {
          state.stalled++;
          return;
        }
        if (state.refuse > 0) {
          state.refuse--;
          state.refused++;
          return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
        }
        received.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  // A worker killed mid-message resets its connection, and smtp-server emits that as an
  // 'error': unheard, it threw out of the test file after its tests had passed (seen in CI).
  const errors: Error[] = [];
  server.on('error', (err: Error) => errors.push(err));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { received, state, errors, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
