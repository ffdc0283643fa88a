// Lays out a filled invoice template (the small Markdown subset of docs/documents.md:
// headings, paragraphs, bold lines, notes, rules and tables) as an A4 PDF with pdfkit.
// Deterministic: the creation date is the bill's date and the file ID is derived from
// it, so the same bill and template version give the same bytes.
import PDFDocument from 'pdfkit';
import { fontRuns, loadFaces, type FontName } from './fonts.ts';
import { reuseEmbedding, type EmbeddedFont } from './embedCache.ts';
import { BILL_LIMITS, TemplateError } from './liquid.ts';

export type Block =
  | { kind: 'title' | 'heading' | 'text' | 'bold' | 'note'; text: string }
  | { kind: 'rule' | 'space' }
  | { kind: 'table'; header: string[] | null; align: ('left' | 'right' | 'center')[]; rows: string[][] };

/** The blocks of a filled template, one kind per line prefix. */
export function parseLayout(text: string): Block[] {
  const blocks: Block[] = [];
  // Every text and cell is measured by pdfkit's line wrapper: long words broken first.
  const lines = breakLongWords(text).replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('|')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.trim().startsWith('|')) rows.push(cells(lines[i++]!.trim()));
      i--;
      const second = rows[1];
      const hasHeader = second !== undefined && second.every((c) => /^:?-+:?$/.test(c));
      const align = (hasHeader ? second : rows[0]!.map(() => '-')).map((c) =>
        c.startsWith(':') && c.endsWith(':') && c.length > 1 ? 'center' : c.endsWith(':') ? 'right' : 'left',
      ) as ('left' | 'right' | 'center')[];
      blocks.push({ kind: 'table', header: hasHeader ? rows[0]! : null, align, rows: hasHeader ? rows.slice(2) : rows });
    } else if (line === '') {
      if (blocks.at(-1)?.kind !== 'space') blocks.push({ kind: 'space' });
    } else if (/^-{3,}$/.test(line)) blocks.push({ kind: 'rule' });
    else if (line.startsWith('## ')) blocks.push({ kind: 'heading', text: line.slice(3) });
    else if (line.startsWith('# ')) blocks.push({ kind: 'title', text: line.slice(2) });
    else if (line.startsWith('> ')) blocks.push({ kind: 'note', text: line.slice(2) });
    else if (/^\*\*.*\*\*$/.test(line) && line.length > 4) blocks.push({ kind: 'bold', text: line.slice(2, -2) });
    else blocks.push({ kind: 'text', text: line });
  }
  return blocks;
}

function cells(row: string): string[] {
  const inner = row.replace(/^\|/, '').replace(/\|$/, '');
  return inner.split('|').map((c) => c.trim());
}

/** `footer`: what names the document at the foot of each of its pages when it runs past one ("Bill 10, account ACC-0004"). */
export type PdfMeta = { title: string; author: string; creationDate: Date; footer?: string };

const MARGIN = 48;
const PAGE = { width: 595.28, height: 841.89 };
const WIDTH = PAGE.width - 2 * MARGIN;
const BOTTOM = PAGE.height - MARGIN;
const SIZE = { title: 18, heading: 11.5, text: 9.5, bold: 9.5, note: 7.5 } as const;

/** The PDF of the blocks, as one buffer. */
/**
 * maxPages: past it the document is refused (liquid.ts, DocumentLimits): laying out a
 * template that writes thousands of table rows took ten seconds of the process's time.
 */
export function renderPdf(blocks: Block[], meta: PdfMeta, maxPages = BILL_LIMITS.pages): Promise<Buffer> {
  const doc = newDocument(meta);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  drawBlocks(doc, blocks, maxPages, meta.footer);
  doc.end();
  return done;
}

/**
 * Many documents as one PDF, each from a new page, written to `out` as pages end (a
 * print house's file of a whole term never sits in memory).
 */
export async function renderPdfStream(documents: AsyncIterable<{ blocks: Block[]; footer?: string }>, meta: PdfMeta, out: NodeJS.WritableStream): Promise<void> {
  const doc = newDocument(meta);
  doc.pipe(out);
  let first = true;
  for await (const { blocks, footer } of documents) {
    if (!first) doc.addPage();
    first = false;
    drawBlocks(doc, blocks, BILL_LIMITS.pages, footer);
    // Its pages are final once its footers are drawn: written now, not held to the end.
    doc.flushPages();
  }
  doc.end();
}

function newDocument(meta: PdfMeta): Doc {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    compress: true,
    autoFirstPage: true,
    // Held until the document's footers are drawn ("page 1 of 2" is known at its end).
    bufferPages: true,
    // No Helvetica: loading its metrics cost every document time, and it is never drawn.
    font: null as unknown as string,
    info: { Title: meta.title, Author: meta.author, Producer: 'billrun', Creator: 'billrun', CreationDate: meta.creationDate },
  });
  for (const [name, face] of Object.entries(loadFaces())) doc.registerFont(name, face as never);
  return doc;
}

function drawBlocks(doc: Doc, blocks: Block[], maxPages: number, footer?: string): void {
  if (++documents % CACHE_DOCUMENTS === 0) layouts.clear();
  const firstPage = lastPage(doc);
  doc.x = MARGIN;
  doc.y = MARGIN;
  useFont(doc, 'regular');
  let pages = 1;
  const counted = () => {
    if (++pages > maxPages) throw new TemplateError({ path: 'body', message: `the document runs past ${maxPages} pages` });
  };
  doc.on('pageAdded', counted);
  try {
    blocks.forEach((b, i) => {
      if (b.kind === 'heading') keepShortSection(doc, blocks, i);
      drawBlock(doc, b);
    });
  } finally {
    doc.off('pageAdded', counted);
  }
  if (footer !== undefined) drawFooters(doc, firstPage, footer);
}

const lastPage = (doc: Doc) => {
  const r = doc.bufferedPageRange();
  return r.start + r.count - 1;
};

/**
 * "Bill 10, account ACC-0004 · page 2 of 2" at the foot of each page of a document that runs
 * past one: its second page held "Your last bills" and "How to pay" with the payment
 * reference, and nothing said whose bill it was (an officer's walk). One page: nothing.
 */
function drawFooters(doc: Doc, firstPage: number, footer: string): void {
  const last = lastPage(doc);
  const count = last - firstPage + 1;
  if (count < 2) return;
  for (let i = 0; i < count; i++) {
    doc.switchToPage(firstPage + i);
    // In the bottom margin: with the margin in force, pdfkit would start a new page for it.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.fillColor('#555555');
    drawText(doc, `${footer} · page ${i + 1} of ${count}`, MARGIN, PAGE.height - MARGIN + 14, WIDTH, 'right', 'regular', SIZE.note);
    doc.fillColor('#000000');
    doc.page.margins.bottom = bottom;
  }
  doc.switchToPage(last);
}

type Doc = InstanceType<typeof PDFDocument>;

// Shaping a word (fontkit's OpenType lookups) was 80% of a document's time, and pdfkit
// keeps the shaped words per document only. The words of bills repeat ("Water", "Total",
// dates, amounts), so shaped words are kept per font across documents; the cache is
// dropped every CACHE_DOCUMENTS documents so that memory stays flat over a long run.
const CACHE_DOCUMENTS = 500;
let documents = 0;
const layouts = new Map<FontName, Record<string, unknown>>();

function useFont(doc: Doc, name: FontName): void {
  doc.font(name);
  const font = (doc as unknown as { _font: EmbeddedFont })._font;
  let shared = layouts.get(name);
  if (!shared) layouts.set(name, (shared = Object.create(null) as Record<string, unknown>));
  if (font.layoutCache !== shared) {
    font.layoutCache = shared;
    reuseEmbedding(doc, font, name);
  }
}

function drawBlock(doc: Doc, b: Block): void {
  switch (b.kind) {
    case 'space':
      doc.y += 6;
      return;
    case 'rule':
      ensure(doc, 8);
      doc.moveTo(MARGIN, doc.y + 3).lineTo(MARGIN + WIDTH, doc.y + 3).lineWidth(0.6).strokeColor('#999999').stroke();
      doc.y += 8;
      return;
    case 'table':
      drawTable(doc, b);
      return;
    default: {
      const weight = b.kind === 'text' || b.kind === 'note' ? 'regular' : 'bold';
      if (b.kind === 'heading') doc.y += 4;
      // A heading goes over with the start of what it heads: left alone at a page's foot, "Your
      // last bills" sat on page 1 and its table on page 2 (a new user's walk).
      ensure(doc, SIZE[b.kind] * 1.6 + (b.kind === 'heading' ? KEEP_WITH_HEADING : 0));
      doc.fillColor(b.kind === 'note' ? '#555555' : '#000000');
      drawText(doc, b.text, MARGIN, doc.y, WIDTH, 'left', weight, SIZE[b.kind]);
      doc.fillColor('#000000');
      if (b.kind === 'title' || b.kind === 'heading') doc.y += 2;
    }
  }
}

/** The tallest section kept whole on one page: a third of it. */
const SHORT_SECTION = (BOTTOM - MARGIN) / 3;

/**
 * A short section (a heading and what follows it up to the next heading) that does not fit
 * in what is left of the page starts on the next one, whole: "How to pay" and its payment
 * reference ended page 1 and the bank table stood alone on page 2 (a new user's walk). A
 * longer one starts where it is and runs on.
 */
function keepShortSection(doc: Doc, blocks: Block[], at: number): void {
  if (doc.y <= MARGIN) return;
  let height = 0;
  for (let i = at; i < blocks.length && height <= SHORT_SECTION; i++) {
    const b = blocks[i]!;
    if (i > at && (b.kind === 'heading' || b.kind === 'title')) break;
    height += blockHeight(doc, b);
  }
  if (height <= SHORT_SECTION && doc.y + height > BOTTOM) doc.addPage();
}

/** A block's height as drawBlock lays it out (text measured in the regular face). */
function blockHeight(doc: Doc, b: Block): number {
  switch (b.kind) {
    case 'space':
      return 6;
    case 'rule':
      return 8;
    case 'table': {
      const rows = b.rows.slice(0, 60);
      const widths = columnWidths(doc, b.header, rows, Math.max(b.header?.length ?? 0, ...rows.map((r) => r.length)));
      let h = 4 + (b.header ? rowHeight(doc, b.header, widths, true) : 0);
      for (const r of b.rows) {
        h += rowHeight(doc, r, widths, false);
        if (h > SHORT_SECTION) break;
      }
      return h;
    }
    default:
      doc.fontSize(SIZE[b.kind]);
      useFont(doc, 'regular');
      return doc.heightOfString(b.text || ' ', { width: WIDTH, lineGap: 1 }) + (b.kind === 'heading' ? 6 : b.kind === 'title' ? 2 : 0);
  }
}

/** Room kept below a heading for what follows it: a table's header and first row, or two lines of text. */
const KEEP_WITH_HEADING = 40;

function ensure(doc: Doc, height: number): void {
  if (doc.y + height > BOTTOM) doc.addPage();
}

/**
 * A word longer than LONG_WORD characters, broken every LONG_WORD: pdfkit breaks a word too
 * wide for its line one character at a time, measuring it again each time, so a single
 * word of 24,000 characters took 18 s and one of 200,000 held the process for minutes (a
 * fuzzer). No word a bill prints is this long; a URL of up to 60 characters is kept whole.
 */
const LONG_WORD = 60;
// A word ends at a space or a table's | (a cell is laid out alone); a rule (---) is no word.
const LONG_WORD_RE = new RegExp(`[^\\s|]{${LONG_WORD + 1},}`, 'gu');
export const breakLongWords = (text: string): string =>
  text.replace(LONG_WORD_RE, (word) => (/^-+$/.test(word) ? word : [...word].reduce((out, ch, i) => out + (i > 0 && i % LONG_WORD === 0 ? ' ' : '') + ch, '')));

/** Text in runs of the fonts that have its glyphs; answers the y below it. */
function drawText(doc: Doc, text: string, x: number, y: number, width: number, align: 'left' | 'right' | 'center', weight: 'regular' | 'bold', size: number): number {
  const runs = fontRuns(text === '' ? ' ' : text, weight);
  doc.fontSize(size);
  runs.forEach((r, i) => {
    useFont(doc, r.font);
    const opts = { width, align, continued: i < runs.length - 1, lineGap: 1 };
    if (i === 0) doc.text(r.text, x, y, opts);
    else doc.text(r.text, opts);
  });
  return doc.y;
}

const PAD = 4;
// Vertical padding of a table cell: small, so that a bill with its history fits one page.
const VPAD = 2;

function drawTable(doc: Doc, t: Extract<Block, { kind: 'table' }>): void {
  const all = t.header ? [t.header, ...t.rows] : t.rows;
  // Loops, not Math.max(...rows): a table of 400,000 rows overflowed the call stack (a 500).
  let columns = 0;
  for (const r of all) columns = Math.max(columns, r.length);
  const widths = columnWidths(doc, t.header, t.rows, columns);
  const heightOf = (row: string[], header: boolean) => rowHeight(doc, row, widths, header);
  const drawRow = (row: string[], header: boolean) => {
    const top = doc.y;
    let x = MARGIN;
    let bottom = top;
    for (let i = 0; i < columns; i++) {
      const w = widths[i]!;
      const y = drawText(doc, row[i] ?? '', x + PAD, top + VPAD, w - 2 * PAD, t.align[i] ?? 'left', header ? 'bold' : 'regular', SIZE.text);
      bottom = Math.max(bottom, y);
      x += w;
    }
    doc.y = bottom + VPAD;
    doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + WIDTH, doc.y).lineWidth(header ? 0.8 : 0.3).strokeColor(header ? '#444444' : '#cccccc').stroke();
    doc.x = MARGIN;
  };
  // A header is never left alone at the foot of a page: it goes over with the first row
  // (an outside check found a bank table's headings on page 1 and its one row on page 2),
  // and is drawn again at the top of each page the table runs on to.
  const headerHeight = t.header ? heightOf(t.header, true) : 0;
  if (t.header) {
    ensure(doc, headerHeight + (t.rows.length > 0 ? heightOf(t.rows[0]!, false) : 0));
    drawRow(t.header, true);
  }
  for (const r of t.rows) {
    const h = heightOf(r, false);
    if (doc.y + h > BOTTOM) {
      doc.addPage();
      if (t.header && headerHeight + h <= BOTTOM - MARGIN) drawRow(t.header, true);
    }
    drawRow(r, false);
  }
  doc.y += 4;
}

/** A table row's height with these column widths. */
function rowHeight(doc: Doc, row: string[], widths: number[], header: boolean): number {
  doc.fontSize(SIZE.text);
  useFont(doc, header ? 'bold' : 'regular');
  let h = 0;
  row.forEach((c, i) => (h = Math.max(h, doc.heightOfString(c || ' ', { width: (widths[i] ?? WIDTH) - 2 * PAD }))));
  return h + 2 * VPAD;
}

/**
 * Widths by each column's widest cell, scaled to the page; no column below a minimum. A
 * column is never narrower than its longest word (in bold for the header): scaled below it,
 * a heading was broken inside a word ("Subscripti" / "on", an outside check's finding).
 */
function columnWidths(doc: Doc, header: string[] | null, rows: string[][], columns: number): number[] {
  doc.fontSize(SIZE.text);
  const natural: number[] = [];
  const least: number[] = [];
  for (let i = 0; i < columns; i++) {
    let widest = 24;
    let word = 24;
    const measure = (text: string, weight: FontName) => {
      useFont(doc, weight);
      widest = Math.max(widest, Math.min(doc.widthOfString(text) + 2 * PAD + 2, WIDTH * 0.7));
      for (const w of text.split(/\s+/)) if (w !== '') word = Math.max(word, Math.min(doc.widthOfString(w) + 2 * PAD + 2, WIDTH * 0.35));
    };
    if (header) measure(header[i] ?? '', 'bold');
    for (const r of rows) measure(r[i] ?? '', 'regular');
    natural.push(widest);
    least.push(word);
  }
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= WIDTH) {
    // Spare room is shared: half to the first column (where descriptions are), half evenly,
    // so right-aligned figures keep a gap from the column before them.
    const spare = WIDTH - total;
    return natural.map((w, i) => w + (columns === 1 ? spare : spare / 2 / columns + (i === 0 ? spare / 2 : 0)));
  }
  const floor = least.reduce((a, b) => a + b, 0);
  if (floor >= WIDTH) return least.map((w) => (w / floor) * WIDTH);
  // Each column keeps its longest word; what is left is shared by what each needs beyond it.
  const scale = (WIDTH - floor) / (total - floor);
  return natural.map((w, i) => least[i]! + (w - least[i]!) * scale);
}
