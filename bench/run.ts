// `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process so that
// one benchmark's heap does not colour another's figures. Flags after `--` are passed on
// (for example `npm run bench -- --million`); `npm run bench -- billRun` runs one.
// A bench starts its servers on fixed ports below 32768 (its embedded PostgreSQL on 253xx),
// outside Linux's ephemeral range (32768 to 60999): a port the OS hands out, to a test's
// server (test/support/ports.ts) or a connection's local end, is never one of them, so
// test/bench/benches.test.ts can run the benches beside other tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n=== ${f}\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(dir, f), ...flags], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
