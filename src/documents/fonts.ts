// The fonts a bill document embeds, all from npm packages (so `npm install` is the whole
// setup): Noto Sans for Latin, Greek and Cyrillic, Noto Naskh Arabic, and Noto Sans Hans
// for CJK. A piece of text is cut into runs, each in the first font that has its
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
  cjk: fontFile('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
  cjkBold: fontFile('@embedpdf/fonts-sc', 'NotoSansHans-Bold.otf'),
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
  regular: ['regular', 'arabic', 'cjk'],
  bold: ['bold', 'arabicBold', 'cjkBold'],
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
  return runs;
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
