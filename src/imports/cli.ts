// `npm run cli -- import --app 1 --kind accounts file.csv`: the same runImport as the
// API, without the HTTP server, with a progress bar on stderr.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { AppError } from '../errors.ts';
import { csvRows, jsonRows, SourceError } from './rows.ts';
import { byteCounter } from './routes.ts';
import { runImport } from './runImport.ts';
import { IMPORT_KINDS, type ImportKind, type Progress } from './store.ts';

export const IMPORT_USAGE = 'import --app CODE --kind accounts|subscriptions|readings [--as EMAIL] [--dry-run] FILE.csv|FILE.json';

export async function importCommand(db: pg.Pool, args: string[], say: (line: string) => void): Promise<number> {
  let values: { app?: string; kind?: string; as?: string; 'dry-run'?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { app: { type: 'string' }, kind: { type: 'string' }, as: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    }));
  } catch (err) {
    say(`${(err as Error).message}\nusage: npm run cli -- ${IMPORT_USAGE}`);
    return 2;
  }
  const file = positionals[0];
  const kind = values.kind as ImportKind | undefined;
  if (!values.app || !/^\d+$/.test(values.app) || !kind || !IMPORT_KINDS.includes(kind) || !file || positionals.length > 1) {
    say(`usage: npm run cli -- ${IMPORT_USAGE}`);
    return 2;
  }
  const appCode = Number(values.app);
  const app = await db.query('SELECT 1 FROM app WHERE app_code = $1', [appCode]);
  if (app.rowCount === 0) {
    say(`there is no app ${appCode}`);
    return 2;
  }
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    say(`cannot read ${file}`);
    return 2;
  }
  const isJson = file.toLowerCase().endsWith('.json');
  const counter = byteCounter();
  let rows;
  if (isJson) {
    // JSON is parsed whole (it has no streaming form here); large files belong in CSV.
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      say(`${file} is not valid JSON: ${(err as Error).message}`);
      return 1;
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown })?.rows;
    if (!Array.isArray(list)) {
      say(`${file} must hold an array of rows, or an object with "rows"`);
      return 1;
    }
    counter.bytes = size;
    rows = jsonRows(list, kind);
  } else {
    const input = fs.createReadStream(file);
    input.on('error', (err) => counter.destroy(err));
    input.pipe(counter);
    rows = csvRows(counter, kind);
  }

  const bar = progressBar(size, say);
  let importId = '';
  try {
    const out = await runImport(db, { appCode, email: values.as ?? 'cli' }, {
      kind,
      format: isJson ? 'json' : 'csv',
      rows,
      fileName: path.basename(file),
      dryRun: values['dry-run'] ?? false,
      bytesTotal: size,
      bytesRead: () => counter.bytes,
      onProgress: bar.update,
      onStart: (id) => (importId = id),
    });
    bar.done();
    const p = out.progress;
    say(
      `import ${out.importId} ${out.status}: ${p.rowsRead} rows, ${p.accounts} accounts, ${p.subscriptions} subscriptions, ${p.readings} readings${out.status === 'validated' ? ' checked (dry run, nothing written)' : ' written'} in ${bar.seconds()} s`,
    );
    return 0;
  } catch (err) {
    bar.done();
    if (err instanceof AppError) {
      say(`import ${importId} failed: ${err.message}`);
      for (const d of err.details ?? []) say(`  ${d.path}: ${d.message}`);
      return 1;
    }
    if (err instanceof SourceError) {
      for (const e of err.errors) say(`  ${e.path}: ${e.message}`);
      return 1;
    }
    throw err;
  }
}

/** A one-line bar redrawn in place on a terminal; on a pipe, a line every few seconds. */
function progressBar(total: number, say: (line: string) => void) {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const line = (p: Progress) => {
    const frac = total > 0 ? Math.min(1, p.bytesRead / total) : 0;
    const width = 30;
    const filled = Math.round(frac * width);
    const rate = Math.round(p.rowsRead / Math.max(0.001, (Date.now() - started) / 1000));
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}% ${p.rowsRead} rows ${rate} rows/s${p.errorCount ? ` ${p.errorCount} bad` : ''}`;
  };
  return {
    seconds,
    update: (p: Progress) => {
      const now = Date.now();
      if (tty) {
        if (now - last < 100) return;
        process.stderr.write(`\r${line(p)}`);
        drawn = true;
      } else {
        if (now - last < 2000) return;
        say(line(p));
      }
      last = now;
    },
    done: () => {
      if (tty && drawn) process.stderr.write('\n');
    },
  };
}
