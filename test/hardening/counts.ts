// The figures every hardening suite prints, in one shape, so CI logs can be read (and
// grepped) alike: `# <suite>: N requests tried, N faults injected, N records checked, N failures`.

export type SuiteCounts = {
  requests: number;
  faults: number;
  records: number;
  failures: number;
  /** Runs a test body, counting it as a failure when it throws (the error is rethrown). */
  track: <T>(body: () => Promise<T>) => Promise<T>;
  print: () => void;
};

export function suiteCounts(suite: string): SuiteCounts {
  const c: SuiteCounts = {
    requests: 0,
    faults: 0,
    records: 0,
    failures: 0,
    track: async (body) => {
      try {
        return await body();
      } catch (err) {
        c.failures++;
        throw err;
      }
    },
    print: () => {
      process.stdout.write(`# ${suite}: ${c.requests} requests tried, ${c.faults} faults injected, ${c.records} records checked, ${c.failures} failures\n`);
    },
  };
  return c;
}
