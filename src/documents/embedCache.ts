// What pdfkit does again for every document although the result is the same: writing
// each font's subset (fontkit's subsetter) and deflating it with its ToUnicode map were
// a third of a bill's time (docs/documents.md, "Speed"). The subset of a font is a
// function of the glyphs it holds, in their order, and a deflated stream a function of
// its bytes, so both are kept across documents, keyed by exactly that: a document's bytes
// do not change, only the time to make them.
//
// A bill's glyphs come in a different order in every bill (the digits of its number and
// dates first appear in different places), which would make every subset new. So each
// font is seeded when a document first uses it with the glyphs of printable ASCII, in a
// fixed order: a Latin-script bill then always has the same subsets, and other scripts
// add their glyphs after the seed.
import crypto from 'node:crypto';
import zlib from 'node:zlib';

/** The parts of pdfkit's EmbeddedFont (0.20) this relies on; pinned by the tests' byte checks. */
export type EmbeddedFont = {
  layoutCache?: Record<string, unknown>;
  font: { postscriptName: string; hasGlyphForCodePoint(cp: number): boolean };
  subset?: { glyphs: number[]; includeGlyph(id: number): number; encode(): Uint8Array };
  layout(text: string): { glyphs: { id: number; advanceWidth: number; codePoints: number[] }[] };
  scale: number;
  widths: (number | undefined)[];
  unicode: (number[] | undefined)[];
  embed(): unknown;
};
type Reference = { compress: boolean; data: Record<string, unknown>; write(chunk: Uint8Array): void; finalize(): void; end(chunk?: unknown): void };
type Document = { ref(data?: object): Reference; _security?: unknown };

// Printable ASCII, each character alone (so no ligature or kerning pair is formed).
const SEED = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).join(' ');

// Bounded: a term in one script needs a few entries; many scripts or many glyph sets
// (CJK names) are dropped wholesale rather than grow without end.
const LIMIT = 2_000;
const subsets = new Map<string, Uint8Array>();
const deflated = new Map<string, Buffer>();

const remember = <T>(map: Map<string, T>, key: string, make: () => T): T => {
  let v = map.get(key);
  if (v === undefined) {
    if (map.size >= LIMIT) map.clear();
    map.set(key, (v = make()));
  }
  return v;
};

// The seed's glyphs per font, shaped once: what pdfkit's encode would record for them.
const seeds = new Map<string, { id: number; width: number; codePoints: number[] }[]>();

/** As pdfkit's EmbeddedFont.encode does for each glyph it writes: in the subset, its width and its characters. */
function seed(font: EmbeddedFont, name: string): void {
  let glyphs = seeds.get(name);
  if (!glyphs) {
    glyphs = font.layout(SEED).glyphs.map((g) => ({ id: g.id, width: g.advanceWidth * font.scale, codePoints: g.codePoints }));
    seeds.set(name, glyphs);
  }
  for (const g of glyphs) {
    const gid = font.subset!.includeGlyph(g.id);
    font.widths[gid] ??= g.width;
    font.unicode[gid] ??= g.codePoints;
  }
}

/** Seeds a font's subset and has its embedding reuse earlier documents' work. Once per document and font. */
export function reuseEmbedding(doc: unknown, font: EmbeddedFont, name: string): void {
  const subset = font.subset;
  if (!subset || (font as { reused?: true }).reused) return;
  (font as { reused?: true }).reused = true;
  seed(font, name);
  const encode = subset.encode.bind(subset);
  // The key is taken before encoding: fontkit adds composite glyphs' parts as it encodes.
  subset.encode = () => remember(subsets, `${name}:${subset.glyphs.join(',')}`, encode);
  const d = doc as Document;
  if (d._security) return;
  const embed = font.embed.bind(font);
  font.embed = () => {
    const ref = d.ref;
    // The font file and ToUnicode map made while embedding are deflated through the cache.
    d.ref = (data?: object) => deflateThroughCache(ref.call(d, data));
    try {
      return embed();
    } finally {
      d.ref = ref;
    }
  };
}

function deflateThroughCache(r: Reference): Reference {
  if (!r.compress) return r;
  const end = r.end.bind(r);
  r.end = (chunk?: unknown) => {
    if (chunk === undefined) return end();
    // As pdfkit's write does: a string is written as latin-1 with a line end.
    const raw = typeof chunk === 'string' ? Buffer.from(chunk + '\n', 'latin1') : Buffer.from(chunk as Uint8Array);
    const key = crypto.createHash('sha1').update(raw).digest('base64');
    r.compress = false;
    r.write(remember(deflated, key, () => zlib.deflateSync(raw)));
    r.data.Filter = 'FlateDecode';
    r.finalize();
  };
  return r;
}
