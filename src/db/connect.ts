// Where the database is: DATABASE_URL when set, otherwise the embedded server in the
// project's data folder.
import type { Config } from '../config.ts';
import { startEmbedded } from './embedded.ts';

export type Database = { url: string; embedded: boolean; stop: () => Promise<void> };

export async function connectDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const server = await startEmbedded({ dataDir: config.dataDir, port: config.embeddedPort, database: 'billrun', log });
  return { url: server.url, embedded: true, stop: server.stop };
}
