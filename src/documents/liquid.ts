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
  memoryLimit: 20_000_000,
  cache: false,
};

/** For invoice templates: output values are made safe for the layout markup. */
export const layoutEngine = new Liquid({ ...common, outputEscape: layoutSafe });
/** For e-mail subjects and plain-text bodies: values as they are. */
export const textEngine = new Liquid({ ...common });

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
export type DocumentLimits = { chars: number; pages: number };
export const SAMPLE_LIMITS: DocumentLimits = { chars: 500_000, pages: 50 };
export const BILL_LIMITS: DocumentLimits = { chars: 20_000_000, pages: 2_000 };

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
    const out = engine.renderSync(template, data) as unknown;
    // The length of a string is known without flattening what the loops appended.
    const length = typeof out === 'string' ? out.length : String(out).length;
    if (length > limits.chars) return { issue: { path, message: `writes ${length.toLocaleString('en')} characters, more than the ${limits.chars.toLocaleString('en')} a document may have` } };
    return { text: String(out) };
  } catch (err) {
    return { issue: issueOf(err, path) };
  }
}

function issueOf(err: unknown, path: string): ErrorDetail {
  const e = err as { message?: string; token?: { getPosition?: () => [number, number] } };
  const pos = e.token?.getPosition?.();
  const reason = String(e.message ?? err).replace(/, line:\d+, col:\d+$/, '').replace(/ENOENT: Failed to lookup .*/, 'templates cannot include files');
  return { path, message: pos ? `line ${pos[0]}, column ${pos[1]}: ${reason}` : reason };
}
