import fontkit from '@pdf-lib/fontkit';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import pako from 'pako';
// DejaVu Sans Condensed (free licence, every Latin-1 letter and the punctuation Spanish uses), from its npm package.
import regularFont from 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf' with { type: 'file' };
import boldFont from 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf' with { type: 'file' };
import { PDFHexString, type PDFDocument, type PDFFont } from 'pdf-lib';

/** The printed representation's one typeface: the font files, their glyphs and widths, and their embedding in a document. */

let fonts: { regular: Uint8Array; bold: Uint8Array } | undefined;
const fontFiles = () => (fonts ??= { regular: readFileSync(regularFont), bold: readFileSync(boldFont) });

/** pdf-lib parses the font file for every document; the parsed font is read-only, so parse each file once. */
const parsed = new Map<Uint8Array, ReturnType<typeof fontkit.create>>();
const cachingFontkit = {
  create(data: Uint8Array, postscriptName?: string) {
    let font = parsed.get(data);
    if (!font) parsed.set(data, (font = fontkit.create(data, postscriptName)));
    return font;
  },
};

/**
 * pdf-lib compresses every stream with pako, a JavaScript zlib: a quarter of a small invoice's render time. The
 * runtime's native zlib writes the same format (zlib-wrapped deflate) several times faster; pako serves only pdf-lib.
 * It replaces a function of a shared module, so the process's entry points call it (src/index.ts, the PDF worker).
 */
export function useNativeDeflate(): void {
  pako.deflate = ((data: Uint8Array) => new Uint8Array(deflateSync(data))) as typeof pako.deflate;
}

type FontkitFont = ReturnType<typeof fontkit.create> & { unitsPerEm: number; glyphForCodePoint(cp: number): { id: number; advanceWidth: number } };
interface SubsetEmbedder {
  font: FontkitFont;
  subset: { includeGlyph(glyph: unknown): number };
  glyphs: unknown[];
  glyphIdMap: Map<number, number>;
  glyphCache: { invalidate(): void };
  encodeText(text: string): PDFHexString;
}

export type Face = 'regular' | 'bold';

/** The font's glyph for a character, per face, kept for the life of the process (the parsed font is shared). */
const glyphs: Record<Face, Map<string, { id: number; advanceWidth: number }>> = { regular: new Map(), bold: new Map() };
const fontkitFont = (face: Face) => cachingFontkit.create(fontFiles()[face]) as FontkitFont;
function glyphOf(face: Face, ch: string) {
  let glyph = glyphs[face].get(ch);
  if (!glyph) glyphs[face].set(ch, (glyph = fontkitFont(face).glyphForCodePoint(ch.codePointAt(0)!)));
  return glyph;
}

/**
 * pdf-lib encodes every string through fontkit's OpenType layout engine (GSUB/GPOS lookups): most of a render's
 * time. With ligatures and kerning off, Latin text needs only the cmap, one glyph per character, so encode that way
 * (same subset bookkeeping as pdf-lib's CustomFontSubsetEmbedder.encodeText).
 */
function encodeWithCmap(font: PDFFont, face: Face): void {
  // pdf-lib keeps the embedder private; index access is TypeScript's way to reach it on purpose.
  const embedder: SubsetEmbedder = font['embedder'];
  embedder.encodeText = (text: string) => {
    let hex = '';
    for (const ch of text) {
      const glyph = glyphOf(face, ch);
      const subsetId = embedder.subset.includeGlyph(glyph);
      embedder.glyphs[subsetId - 1] = glyph;
      embedder.glyphIdMap.set(glyph.id, subsetId);
      hex += subsetId.toString(16).padStart(4, '0');
    }
    embedder.glyphCache.invalidate();
    return PDFHexString.of(hex);
  };
}

/**
 * A subset font's BaseFont is its name behind a tag of six capital letters and "+" (PDF 32000 §9.6.4), so viewers and
 * preflight know the file carries only the glyphs used; pdf-lib would append a number instead. The tag comes from the
 * document's UUID, so a render is reproducible and two invoices' subsets never share a name.
 */
function subsetName(postscriptName: string, uuid: string): string {
  const digest = createHash('sha256').update(`${uuid}/${postscriptName}`).digest();
  const tag = [...digest.subarray(0, 6)].map((b) => String.fromCharCode(65 + (b % 26))).join('');
  return `${tag}+${postscriptName}`;
}

/** Both faces embedded as subsets (ligatures and kerning off), encoded through the cmap alone. */
export async function embedFonts(doc: PDFDocument, uuid: string): Promise<Record<Face, PDFFont>> {
  doc.registerFontkit(cachingFontkit);
  const features = { liga: false, kern: false, calt: false };
  const faces: Record<Face, PDFFont> = {
    regular: await doc.embedFont(fontFiles().regular, { subset: true, features, customName: subsetName('DejaVuSansCondensed', uuid) }),
    bold: await doc.embedFont(fontFiles().bold, { subset: true, features, customName: subsetName('DejaVuSansCondensed-Bold', uuid) }),
  };
  encodeWithCmap(faces.regular, 'regular');
  encodeWithCmap(faces.bold, 'bold');
  return faces;
}

/**
 * Text widths from the font's advance widths, per character (ligatures and kerning are off, so widths add up),
 * cached for the life of the process: they depend only on the font file.
 */
class Measure {
  private widths: Record<Face, Map<string, number>> = { regular: new Map(), bold: new Map() };
  width(face: Face, text: string, size: number): number {
    const cache = this.widths[face];
    let w = 0;
    for (const ch of text) {
      let cw = cache.get(ch);
      if (cw === undefined) cache.set(ch, (cw = glyphOf(face, ch).advanceWidth / fontkitFont(face).unitsPerEm));
      w += cw;
    }
    return w * size;
  }
  /** Lines no wider than `width`: breaks at spaces, and inside words longer than a line (seals, long codes). */
  wrap(font: Face, text: string, size: number, width: number): string[] {
    const lines: string[] = [];
    let line = '';
    const push = () => {
      if (line) lines.push(line);
      line = '';
    };
    for (const word of text.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (this.width(font, candidate, size) <= width) {
        line = candidate;
        continue;
      }
      push();
      if (this.width(font, word, size) <= width) {
        line = word;
        continue;
      }
      let piece = '';
      for (const ch of word) {
        if (this.width(font, piece + ch, size) > width) {
          lines.push(piece);
          piece = '';
        }
        piece += ch;
      }
      line = piece;
    }
    push();
    return lines.length ? lines : [''];
  }
}

export const measure = new Measure();
