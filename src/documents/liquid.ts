// The template language: Liquid (liquidjs), sandboxed. A template can only read the
// data it is given: no file system (include/render/layout find nothing), no own
// properties beyond the data's (no constructor or prototype), no unknown filter or
// variable, and limits on parse size, render time and memory, so an administrator's
// template cannot run code, read a file, reach the network or stall a worker.
import { Liquid, type Template } from 'liquidjs';
import type { ErrorDetail } from '../errors.ts';

const NO_FILES = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (): Promise<string> => {
    throw new Error('templates cannot read files');
  },
  readFileSync: (): string => {
    throw new Error('templates cannot read files');
  },
  resolve: (_dir: string, file: string) => file,
  contains: async () => false,
  sep: '/',
  dirname: (file: string) => file,
};

// A value written by {{ }} can never change the layout it lands in: a | would split a
// table cell and a line break would end a table row.
const layoutSafe = (v: unknown) => String(v).replace(/\|/g, '∣').replace(/[\r\n]+/g, ' ');

const common = {
  fs: NO_FILES,
  root: [] as string[],
  partials: [] as string[],
  layouts: [] as string[],
  relativeReference: false,
  strictFilters: true,
  strictVariables: true,
  ownPropertyOnly: true,
  parseLimit: 200_000,
  // A bill's document fills in a few milliseconds: a second is room for the largest, and
  // the most a template can hold up the process that renders it.
  renderLimit: 1_000,
  // What ranges, strings and array filters may take in all (liquidjs counts elements and
  // characters): a real bill's, so that an account billed for hundreds of meters still gets
  // its document (a template grouping 2,400 lines by 300 subscriptions took 1,440,000 for one
  // filter: a reviewer's measure). The sample bill's is a quarter of it (DocumentLimits.memory).
  memoryLimit: 20_000_000,
  // The same text whatever the machine's zone and language (a document is the same bytes
  // wherever it is made): dates in templates are read as UTC, in English.
  timezoneOffset: 0,
  locale: 'en-US',
  cache: false,
};

const DATE_FILTERS = ['date', 'date_to_xmlschema', 'date_to_rfc822', 'date_to_string', 'date_to_long_string'];

/**
 * The date filters, less the clock: `'now' | date` made a document that changed every time
 * it was made (an attacker's template changed a bill's checksum between two renders of the
 * same version), where a bill's document must be the same bytes whenever it is made
 * (docs/documents.md). A template dates a document by the bill's own dates.
 */
function withoutClock(engine: Liquid): Liquid {
  for (const name of DATE_FILTERS) {
    const filter = engine.filters[name]!;
    const handler = typeof filter === 'function' ? filter : filter.handler;
    engine.registerFilter(name, function (this: unknown, v: unknown, ...rest: unknown[]) {
      if (v === 'now' || v === 'today') throw new Error(`the ${name} filter cannot read the clock ('${v}'): a document is the same whenever it is made; use the bill's dates (bill.date)`);
      return (handler as (...a: unknown[]) => unknown).call(this, v, ...rest);
    });
  }
  return engine;
}

/** For invoice templates: output values are made safe for the layout markup. */
export const layoutEngine = withoutClock(new Liquid({ ...common, outputEscape: layoutSafe }));
/** For e-mail subjects and plain-text bodies: values as they are. */
export const textEngine = withoutClock(new Liquid({ ...common }));

export type Compiled = Template[];

/**
 * The most a filled template may write (characters) and lay out to (pages). Liquid's memory
 * limit does not count what a loop or a capture writes: a draft looping three million times
 * answered 300 MB and took the process's memory past 2.5 GB (docs/hardening.md).
 * - With the sample bill (a save's check, a preview): a bill of one page is a few kilobytes,
 *   so a template past these loops on its own, and is refused before any bill meets it.
 * - With a real bill (a run's documents, an e-mail, a print file): room for an account billed
 *   for hundreds of meters on one bill (a Post Account bill of 300 subscriptions explains
 *   2,400 lines), bounded still.
 */
export type DocumentLimits = { chars: number; pages: number; ms?: number; memory: number };
// The sample is filled in a few milliseconds by any template a bill can use: one that takes
// a second on it has work of its own (the render limit is only checked between tags). Its
// memory limit is a quarter of a real bill's: 20,000,000 let one filter call sort eight
// million numbers for three seconds (an attacker's template, `(1..8000000) | sort`, passed
// the save check and stalled the server), and the sample has a handful of lines.
export const SAMPLE_LIMITS: DocumentLimits = { chars: 500_000, pages: 50, ms: common.renderLimit, memory: 5_000_000 };
export const BILL_LIMITS: DocumentLimits = { chars: 20_000_000, pages: 2_000, memory: common.memoryLimit };

/** A template that cannot make its document: the issue names the field and line. */
export class TemplateError extends Error {
  readonly issue: ErrorDetail;
  constructor(issue: ErrorDetail) {
    super(issue.message);
    this.issue = issue;
  }
}

/** Parses a template; a syntax error comes back as an issue naming its line. */
export function compile(engine: Liquid, source: string, path: string): { template?: Compiled; issue?: ErrorDetail } {
  try {
    return { template: engine.parse(source) };
  } catch (err) {
    return { issue: issueOf(err, path) };
  }
}

/** Fills a compiled template with data; an error (unknown variable, limit) names its line. */
export async function fill(engine: Liquid, template: Compiled, data: object, path: string, limits: DocumentLimits = BILL_LIMITS): Promise<{ text?: string; issue?: ErrorDetail }> {
  try {
    // Synchronous: the data is all in memory, and the promise per tag of the async
    // renderer was a tenth of a bill document's time.
    const started = performance.now();
    const out = engine.renderSync(template, data, { memoryLimit: limits.memory }) as unknown;
    const ms = performance.now() - started;
    if (limits.ms !== undefined && ms > limits.ms) return { issue: { path, message: `takes ${Math.round(ms).toLocaleString('en')} ms to fill the sample bill, more than the ${limits.ms.toLocaleString('en')} ms a document may take` } };
    // The length of a string is known without flattening what the loops appended.
    const length = typeof out === 'string' ? out.length : String(out).length;
    if (length > limits.chars) return { issue: { path, message: `writes ${length.toLocaleString('en')} characters, more than the ${limits.chars.toLocaleString('en')} a document may have` } };
    return { text: String(out) };
  } catch (err) {
    return { issue: issueOf(err, path, limits.memory) };
  }
}

function issueOf(err: unknown, path: string, memory = common.memoryLimit): ErrorDetail {
  const e = err as { message?: string; token?: { getPosition?: () => [number, number] } };
  const pos = e.token?.getPosition?.();
  const reason = String(e.message ?? err)
    .replace(/, line:\d+, col:\d+$/, '')
    .replace(/ENOENT: Failed to lookup .*/, 'templates cannot include files')
    .replace(/memory alloc limit exceeded/, `works with more than the ${memory.toLocaleString('en')} elements and characters a document may (ranges, arrays, text made by filters)`)
    .replace(/template render limit exceeded/, `takes more than the ${common.renderLimit.toLocaleString('en')} ms a document may take`);
  return { path, message: pos ? `line ${pos[0]}, column ${pos[1]}: ${reason}` : reason };
}
