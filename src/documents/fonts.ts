// The fonts a bill document embeds, all from npm packages (so `npm install` is the whole
// setup): Noto Sans for Latin, Greek and Cyrillic, Noto Naskh Arabic, Noto Sans Hebrew,
// Noto Sans Hans for CJK, and Noto Sans KR for Hangul. A piece of text is cut into runs, each in the first font that has its
// glyphs, so a name in any of these scripts prints instead of showing empty boxes.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as fontkit from 'fontkit';

const require = createRequire(import.meta.url);
// The packages export only their JavaScript entry (dist/), beside which the fonts/ folder lies.
const fontFile = (pkg: string, file: string) => path.join(path.dirname(require.resolve(pkg)), '..', 'fonts', file);

export const FONT_FILES = Object.freeze({
  regular: fontFile('@embedpdf/fonts-latin', 'NotoSans-Regular.ttf'),
  bold: fontFile('@embedpdf/fonts-latin', 'NotoSans-Bold.ttf'),
  arabic: fontFile('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
  arabicBold: fontFile('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'),
  hebrew: fontFile('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
  hebrewBold: fontFile('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Bold.ttf'),
  cjk: fontFile('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
  cjkBold: fontFile('@embedpdf/fonts-sc', 'NotoSansHans-Bold.otf'),
  // Hangul only in practice: Han and kana find Noto Sans Hans first (an attacker's Korean name printed as boxes).
  korean: fontFile('@embedpdf/fonts-kr', 'NotoSansKR-Regular.otf'),
  koreanBold: fontFile('@embedpdf/fonts-kr', 'NotoSansKR-Bold.otf'),
} as const);

export type FontName = keyof typeof FONT_FILES;
export type Run = { font: FontName; text: string };

type Face = { hasGlyphForCodePoint(cp: number): boolean };
let faces: Record<FontName, Face> | undefined;
/**
 * The fonts, parsed once per process. Handing pdfkit the parsed fonts instead of their
 * files saves parsing 15 MB of font per document (7 documents a second instead of
 * hundreds: docs/documents.md).
 */
export function loadFaces(): Record<FontName, Face> {
  faces ??= Object.fromEntries(
    Object.entries(FONT_FILES).map(([name, file]) => [name, fontkit.openSync(file) as unknown as Face]),
  ) as Record<FontName, Face>;
  return faces;
}

const FALLBACK: Record<'regular' | 'bold', FontName[]> = {
  regular: ['regular', 'arabic', 'hebrew', 'cjk', 'korean'],
  bold: ['bold', 'arabicBold', 'hebrewBold', 'cjkBold', 'koreanBold'],
};

/**
 * The text in runs of one font each. Spaces and punctuation every font has stay in the
 * run they are in, so "王芳 Li" is two runs, not four.
 */
export function fontRuns(text: string, weight: 'regular' | 'bold' = 'regular'): Run[] {
  const f = loadFaces();
  const order = FALLBACK[weight];
  const runs: Run[] = [];
  let current: Run | undefined;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const best = firstWith(f, order, cp);
    const font = current && isNeutral(cp) && has(f, current.font, cp) ? current.font : best;
    if (current && current.font === font) current.text += ch;
    else {
      current = { font, text: ch };
      runs.push(current);
    }
  }
  return runs.some((r) => RTL.has(r.font)) ? inVisualOrder(runs, order[0]!) : runs;
}

// Fonts of right-to-left scripts: the layout draws each of their words reversed.
const RTL: ReadonlySet<FontName> = new Set<FontName>(['arabic', 'arabicBold', 'hebrew', 'hebrewBold']);

// A letter of a left-to-right script: it ends a stretch of right-to-left text.
const STRONG_LTR = /(?![\p{Script=Hebrew}\p{Script=Arabic}])\p{L}/u;
// A stretch's pieces: spaces, numbers (kept whole and left to right: 12, 12.50, 01/12), and the rest.
const PIECES = /(\s+|[0-9]+(?:[.,:/-][0-9]+)*)/u;

/**
 * Right-to-left text in the order it is seen: each stretch that begins and ends with a
 * right-to-left run and holds no left-to-right letter between (digits, punctuation, spaces
 * may be there: "רחוב הרצל 12, תל אביב", whose digits are in the plain font), given to the
 * layout piece by piece, last first. The layout reverses the letters of each word it is given
 * (fontkit, by the word's script) but lays words out left to right, with a word's ending space
 * on its left: "מרים כהן" printed "מרים" left of "כהן", and an address's street after its town
 * (a reviewer's finding). A number stays one piece, read left to right; spaces take the
 * text's plain font; the spaces around a stretch stay where they are; a text with no
 * left-to-right letter is one stretch, its numbers at either end included. This is not the Unicode
 * bidi algorithm: a stretch that wraps onto a second line keeps its later words on the first.
 */
function inVisualOrder(runs: Run[], plain: FontName): Run[] {
  const out: Run[] = [];
  // A text with no left-to-right letter at all reads right to left whole: the numbers and
  // punctuation at its ends too ("רחוב הרצל 12" printed its 12 at the right: a new user's walk).
  const wholly = !runs.some((r) => !RTL.has(r.font) && STRONG_LTR.test(r.text));
  for (let i = 0; i < runs.length; i++) {
    if (!wholly && !RTL.has(runs[i]!.font)) {
      out.push(runs[i]!);
      continue;
    }
    // The stretch: up to the last right-to-left run reached without a left-to-right letter.
    let end = wholly ? runs.length - 1 : i;
    for (let k = i + 1; k < runs.length && !wholly; k++) {
      if (RTL.has(runs[k]!.font)) end = k;
      else if (STRONG_LTR.test(runs[k]!.text)) break;
    }
    const pieces: Run[] = [];
    for (const r of runs.slice(i, end + 1)) {
      for (const text of r.text.split(PIECES)) if (text !== '') pieces.push({ font: /^\s+$/u.test(text) ? plain : r.font, text });
    }
    const lead = pieces[0] !== undefined && /^\s+$/u.test(pieces[0].text) ? pieces.shift() : undefined;
    const trail = pieces.length > 0 && /^\s+$/u.test(pieces.at(-1)!.text) ? pieces.pop() : undefined;
    if (lead) out.push(lead);
    out.push(...pieces.reverse());
    if (trail) out.push(trail);
    i = end;
  }
  return out;
}

const isNeutral = (cp: number) => cp <= 0x40 || (cp >= 0x5b && cp <= 0x60) || (cp >= 0x7b && cp <= 0xbf) || (cp >= 0x2000 && cp <= 0x206f);

// A font's cmap lookup per character was a tenth of a document's time: answers are kept.
const coverage = new Map<string, boolean>();
function has(f: Record<FontName, Face>, name: FontName, cp: number): boolean {
  const key = `${name}:${cp}`;
  let yes = coverage.get(key);
  if (yes === undefined) {
    yes = f[name].hasGlyphForCodePoint(cp);
    if (coverage.size > 200_000) coverage.clear();
    coverage.set(key, yes);
  }
  return yes;
}

function firstWith(f: Record<FontName, Face>, order: FontName[], cp: number): FontName {
  for (const name of order) if (has(f, name, cp)) return name;
  return order[0]!;
}
