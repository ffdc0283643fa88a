// Starting the embedded PostgreSQL: a new data folder (initdb, start, the secret), the
// same folder started again, and a stop; three rounds, in milliseconds.
import fs from 'node:fs';
import path from 'node:path';
import { startEmbedded } from '../src/db/embedded.ts';
import { freePort } from '../test/support/ports.ts';

const root = path.resolve(import.meta.dirname, '..');
const ms = (t: number) => (performance.now() - t).toFixed(0);
for (let round = 1; round <= 3; round++) {
  const dataDir = path.join(root, '.data', `bench-embedded-${round}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const port = await freePort();
  let t = performance.now();
  let server = await startEmbedded({ dataDir, port, database: 'billrun' });
  const fresh = ms(t);
  await server.stop();
  t = performance.now();
  server = await startEmbedded({ dataDir, port, database: 'billrun' });
  const again = ms(t);
  t = performance.now();
  await server.stop();
  process.stdout.write(`round ${round}: new folder ${fresh} ms, start again ${again} ms, stop ${ms(t)} ms\n`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
