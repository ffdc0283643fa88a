// Every bench of `npm run bench` runs to its end, at a size that takes seconds. Issues 12
// and 15 keep their targets in the benches, and no test ran them: two had stopped working
// (one on a column a migration renamed, one on an index another dropped) and were found
// only when a session measured with them. Here each runs with small flags, must exit 0 and
// must print the figure lines that say it measured what it names; none may print NaN or
// undefined where a figure goes. The figures themselves are not judged: at this size, beside
// other tests on two cores, they say nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const benchDir = path.resolve(import.meta.dirname, '../../bench');

type Smoke = { flags: string[]; prints: RegExp[]; followsDatabaseUrl?: boolean };

/** Each bench's small run and what it must print. A new bench without a row fails the first test. */
const SMOKE: Record<string, Smoke> = {
  accountSearch: { flags: ['--accounts=2000', '--runs=3'], prints: [/no match \(zzyzx\) \| [0-9.]+ \| [0-9.]+x/, /surname, page 20 \(offset 950\) \| [0-9.]+/] },
  apiReads: {
    flags: ['--seconds=1', '--warmup=1', '--connections=2'],
    prints: [/bare Fastify route +[0-9.]+ +[0-9.]+ +100\.0%/, /bare route \+ 1 query \(floor\) +[0-9.]+ +[0-9.]+ +[0-9.]+%/, /of the floor's requests a second: get-services [0-9.]+%/, /get-services \(1 template\) +[0-9.]+ +[0-9.]+ +[0-9.]+%/, /get-bills \(1 bill\) +[0-9.]+ +[0-9.]+ +[0-9.]+%/, /get-terms \(1 term\) +[0-9.]+ +[0-9.]+ +[0-9.]+%/],
    // Its own database on the machine's PostgreSQL when DATABASE_URL is set (the others always start their own).
    followsDatabaseUrl: true,
  },
  billRun: { flags: ['--n=2000'], prints: [/ratio: run \/ floor = [0-9.]+/, /stored: \d+ bytes a bill/, /peak RSS of worker \d+: \d+ MiB/] },
  corrections: { flags: ['--n=200', '--paid=50'], prints: [/cancel-and-rebill: 200 credit notes, 200 new bills, settled/, /check-ledger: ok/] },
  deposits: { flags: ['--n=500', '--m=50'], prints: [/500 charged in [0-9.]+ s/, /released 50: .*check-ledger ok: true/] },
  documents: { flags: ['--n=200', '--render=20', '--mail=20', '--workers=1'], prints: [/print extract csv: 200 bills/, /delivery: 20 e-mails .* received 20/] },
  embedded: { flags: [], prints: [/round 3: new folder \d+ ms, start again \d+ ms, stop \d+ ms/] },
  import: { flags: ['--rows=2000'], prints: [/readings: import 3 succeeded: 4000 rows/, /readings +4000 +[0-9.]+ +\d+ +[0-9.]+ +[0-9.]+/] },
  journal: { flags: ['--n=2000'], prints: [/export: median [0-9.]+ s of 3/] },
  lateCharges: { flags: ['--n=2000'], prints: [/the same run again: 0 charged/, /accounts whose balance is not their entries: 0/] },
  load: { flags: ['--load-seconds=3', '--connections=2'], prints: [/requests +\d+ /, /result +no errors/] },
  rating: { flags: ['--n=500', '--rounds=2'], prints: [/version change +[0-9.]+ +[0-9.]+ \/ +[0-9.]+/, /the change's extra: +-?[0-9.]+ µs a bill/] },
  settlement: { flags: ['--n=2000'], prints: [/settleAccounts over 2000 accounts/, /balances not equal to their entries: 0/] },
  simulation: { flags: ['--n=2000', '--workers=1'], prints: [/; 0 not rated/, /export-simulation, .*2000 rows/] },
  verify: { flags: ['--n=2000'], prints: [/verify: 2000 bills in [0-9.]+ s .* 0 mismatches/] },
  webhooks: { flags: ['--n=50', '--refuse=5', '--workers=1'], prints: [/0 lost, 0 delivered twice, 0 not delivered/] },
};

const benches = fs
  .readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();

/** Runs one bench as `npm run bench` does (its own process, --expose-gc): exit code and output. */
function runBench(name: string, flags: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', path.join(benchDir, `${name}.bench.ts`), ...flags], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'silent' } });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    // A bench that hangs is a failure, not a stuck run.
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('npm run bench', () => {
  test('every bench has a small run here', () => {
    assert.deepEqual(benches.filter((b) => SMOKE[b] === undefined), []);
    assert.deepEqual(Object.keys(SMOKE).filter((b) => !benches.includes(b)), []);
  });

  // With DATABASE_URL (CI's second pass), only a bench whose database follows it runs again:
  // the others start their own embedded PostgreSQL either way, so a second run adds nothing.
  for (const name of benches) {
    const smoke = SMOKE[name];
    if (smoke === undefined) continue;
    const skip = Boolean(process.env.DATABASE_URL) && !smoke.followsDatabaseUrl ? 'runs on its own embedded PostgreSQL; run in the pass without DATABASE_URL' : false;
    test(`${name} runs to its end and prints its figures`, { skip, timeout: 300_000 }, async () => {
      const { code, out } = await runBench(name, smoke.flags);
      assert.equal(code, 0, `${name} exited ${code}:\n${out.slice(-4000)}`);
      for (const line of smoke.prints) assert.match(out, line, `${name} did not print ${line}:\n${out.slice(-4000)}`);
      assert.doesNotMatch(out, /\bNaN\b|\bundefined\b|\bInfinity\b/, `${name} printed a figure it could not work out:\n${out.slice(-4000)}`);
    });
  }
});
