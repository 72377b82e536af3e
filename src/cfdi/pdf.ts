import fontkit from '@pdf-lib/fontkit';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import pako from 'pako';
// DejaVu Sans Condensed (free licence, every Latin-1 letter and the punctuation Spanish uses), from its npm package.
import regularFont from 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf' with { type: 'file' };
import boldFont from 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf' with { type: 'file' };
import {
  asPDFNumber, beginText, degrees, endText, fill, PDFDocument, PDFHexString, PDFOperator, PDFOperatorNames, popGraphicsState, pushGraphicsState, rgb,
  setFillingRgbColor, setFontAndSize, setTextMatrix, showText, type Color, type PDFFont, type PDFImage, type PDFPage,
} from 'pdf-lib';
import { amountInWords } from './amount-words.ts';
import {
  currencyDecimals, described, groupDigits, money, nominaTotals, printedDate, rateText, renderNomina, renderPagos, taxLine, TRASLADO_NOTE, unitAmount,
  type PdfColumn, type PdfLayout, type TotalRow,
} from './pdf-complements.ts';
import { qrMatrix, verificationUrl } from './qr.ts';
import { tfdCadena, tfdFromNode } from './tfd.ts';
import { child, childrenNamed, parseXml } from './xml.ts';

/**
 * The printed representation of a stamped CFDI (RMF 2.7.1.7; docs/sat-rules.md §5), rendered from the stored XML only:
 * every value on the page is read from the document (descriptions of catalog keys come from SAT's catalogs).
 * Letter size; header and footer with page numbers on every page; long descriptions wrap across lines and pages.
 * Pagos 2.0 and Nómina 1.2 print their own sections (pdf-complements.ts); a Pago or a Traslado has no money lines.
 */
export interface PdfOptions {
  /** Test-environment stamp: every page carries "SIN VALIDEZ FISCAL — SANDBOX". */
  sandbox: boolean;
  /** Cancelled with SAT: every page says "CFDI CANCELADO" (the document itself is unchanged). */
  cancelled?: boolean;
  branding?: { logo?: { bytes: Uint8Array; type: 'image/png' | 'image/jpeg' }; accentColor?: string };
}

const SANDBOX_MARK = 'SIN VALIDEZ FISCAL — SANDBOX';
export const CANCELLED_MARK = 'CFDI CANCELADO';
const PRINTED_LEGEND = 'Este documento es una representación impresa de un CFDI versión 4.0';

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

type Face = 'regular' | 'bold';

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
  const embedder = (font as unknown as { embedder: SubsetEmbedder }).embedder;
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

/** "Serie A · Folio 1" (either alone when the other is absent), as the header prints it. */
const serieFolio = (serie: string | undefined, folio: string | undefined): string =>
  [serie && `Serie ${serie}`, folio && `Folio ${folio}`].filter(Boolean).join(' · ');

const PAGE = { width: 612, height: 792, margin: 36 };
const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
const HEADER_HEIGHT = 86;
const FOOTER_HEIGHT = 30;
const BODY_TOP = PAGE.height - PAGE.margin - HEADER_HEIGHT;
const BODY_BOTTOM = PAGE.margin + FOOTER_HEIGHT;
const SIZE = { body: 7.5, small: 6.5, label: 6.5, title: 11 };
const LEADING = 1.25;
const GREY = rgb(0.35, 0.35, 0.35);
const LIGHT = rgb(0.93, 0.93, 0.93);
const BLACK = rgb(0, 0, 0);

function parseColor(hex: string | undefined): Color {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
  if (!m) return rgb(0.11, 0.3, 0.55);
  return rgb(parseInt(m[1]!, 16) / 255, parseInt(m[2]!, 16) / 255, parseInt(m[3]!, 16) / 255);
}


const TIPO_TITLES: Record<string, string> = { I: 'FACTURA', E: 'NOTA DE CRÉDITO', P: 'RECIBO ELECTRÓNICO DE PAGO', N: 'RECIBO DE NÓMINA', T: 'TRASLADO' };

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

const m = new Measure();

interface Cell {
  lines: string[];
  font: Face;
  size: number;
  align?: 'left' | 'right';
  /** Extra lines in the small size under the main ones (per-concepto taxes). */
  notes?: string[];
}

interface RGB {
  red: number;
  green: number;
  blue: number;
}
interface TextRun {
  text: string;
  x: number;
  y: number;
  face: Face;
  size: number;
  color: RGB;
}

const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * All of a page's text in one BT … ET block, after its shapes (so text sits on top of backgrounds): a text matrix
 * and a string per run, font and colour only when they change. pdf-lib's drawText writes a whole graphics-state
 * block per string, three times the operators to build and serialise.
 */
function writeText(page: PDFPage, runs: TextRun[], fonts: Record<Face, PDFFont>) {
  const keys = { regular: page.node.newFontDictionary(fonts.regular.name, fonts.regular.ref), bold: page.node.newFontDictionary(fonts.bold.name, fonts.bold.ref) };
  const ops: PDFOperator[] = [beginText()];
  let face: Face | undefined;
  let size = 0;
  let color: RGB | undefined;
  for (const run of runs) {
    if (run.face !== face || run.size !== size) ops.push(setFontAndSize(keys[run.face], (size = run.size)));
    face = run.face;
    if (!color || run.color.red !== color.red || run.color.green !== color.green || run.color.blue !== color.blue) {
      ops.push(setFillingRgbColor(run.color.red, run.color.green, run.color.blue));
      color = run.color;
    }
    ops.push(setTextMatrix(1, 0, 0, 1, r2(run.x), r2(run.y)), showText(fonts[run.face].encodeText(run.text)));
  }
  ops.push(endText());
  page.pushOperators(...ops);
}

export async function renderCfdiPdf(xml: string, options: PdfOptions): Promise<Uint8Array> {
  const root = parseXml(xml);
  const a = root.attrs;
  const emisor = child(root, 'cfdi:Emisor')?.attrs ?? {};
  const receptor = child(root, 'cfdi:Receptor')?.attrs ?? {};
  const tfdNode = child(child(root, 'cfdi:Complemento') ?? { name: '', attrs: {}, children: [] }, 'tfd:TimbreFiscalDigital');
  if (!tfdNode) throw new Error('the CFDI has no TimbreFiscalDigital: only stamped invoices have a printed representation');
  const tfd = tfdFromNode(tfdNode);

  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(cachingFontkit);
  const features = { liga: false, kern: false, calt: false };
  const pdfFonts: Record<Face, PDFFont> = {
    regular: await doc.embedFont(fontFiles().regular, { subset: true, features, customName: subsetName('DejaVuSansCondensed', tfd.uuid) }),
    bold: await doc.embedFont(fontFiles().bold, { subset: true, features, customName: subsetName('DejaVuSansCondensed-Bold', tfd.uuid) }),
  };
  encodeWithCmap(pdfFonts.regular, 'regular');
  encodeWithCmap(pdfFonts.bold, 'bold');
  const regular: Face = 'regular';
  const bold: Face = 'bold';
  const accent = parseColor(options.branding?.accentColor);
  let logo: PDFImage | undefined;
  if (options.branding?.logo) {
    logo = options.branding.logo.type === 'image/png' ? await doc.embedPng(options.branding.logo.bytes) : await doc.embedJpg(options.branding.logo.bytes);
  }
  doc.setTitle(`CFDI ${tfd.uuid}`);
  doc.setSubject(`${TIPO_TITLES[a.TipoDeComprobante ?? ''] ?? 'CFDI'} ${serieFolio(a.Serie, a.Folio)}`.trim());
  doc.setProducer('cfdi-api');
  doc.setCreator('cfdi-api');

  const pages: PDFPage[] = [];
  const texts = new Map<PDFPage, TextRun[]>();
  let page!: PDFPage;
  let y = 0;

  const text = (s: string, x: number, yy: number, font: Face = regular, size = SIZE.body, color: Color = BLACK) => {
    if (s) texts.get(page)!.push({ text: s, x, y: yy, face: font, size, color: color as RGB });
  };
  const rightText = (s: string, right: number, yy: number, font: Face = regular, size = SIZE.body, color: Color = BLACK) =>
    text(s, right - m.width(font, s, size), yy, font, size, color);

  const drawHeader = () => {
    const top = PAGE.height - PAGE.margin;
    let x = PAGE.margin;
    if (logo) {
      const scale = Math.min(110 / logo.width, 52 / logo.height, 1);
      const w = logo.width * scale;
      const h = logo.height * scale;
      page.drawImage(logo, { x, y: top - h, width: w, height: h });
      x += w + 10;
    }
    const boxWidth = 250;
    const leftWidth = PAGE.width - PAGE.margin - boxWidth - 10 - x;
    let ly = top - 10;
    for (const line of m.wrap(bold, emisor.Nombre ?? '', 10, leftWidth).slice(0, 2)) {
      text(line, x, ly, bold, 10);
      ly -= 12;
    }
    for (const line of [`RFC: ${emisor.Rfc ?? ''}`, `Régimen fiscal: ${described('c_RegimenFiscal', emisor.RegimenFiscal)}`, `Lugar de expedición: ${a.LugarExpedicion ?? ''}`]) {
      for (const l of m.wrap(regular, line, SIZE.body, leftWidth).slice(0, 2)) {
        text(l, x, ly);
        ly -= SIZE.body * LEADING;
      }
    }
    // The document box, right.
    const bx = PAGE.width - PAGE.margin - boxWidth;
    page.drawRectangle({ x: bx, y: top - 14, width: boxWidth, height: 14, color: accent });
    const title = TIPO_TITLES[a.TipoDeComprobante ?? ''] ?? 'CFDI';
    text(title, bx + 6, top - 10.5, bold, 8.5, rgb(1, 1, 1));
    // Beside the title; smaller when a long serie and folio (up to 25 and 40 characters) would not fit.
    const sf = serieFolio(a.Serie, a.Folio);
    const room = boxWidth - 16 - m.width(bold, title, 8.5);
    rightText(sf, bx + boxWidth - 4, top - 10.5, bold, Math.min(8.5, (8.5 * room) / Math.max(m.width(bold, sf, 8.5), 1)), rgb(1, 1, 1));
    const rows: [string, string][] = [
      ['Folio fiscal (UUID)', tfd.uuid],
      ['Fecha de emisión', printedDate(a.Fecha)],
      ['Fecha de certificación', printedDate(tfd.fechaTimbrado)],
    ];
    let by = top - 24;
    for (const [label, value] of rows) {
      text(label, bx + 6, by, regular, SIZE.label, GREY);
      rightText(value, bx + boxWidth - 4, by, bold, SIZE.body);
      by -= 10;
    }
    page.drawRectangle({ x: bx, y: by + 5, width: boxWidth, height: top - 14 - by - 5, borderColor: accent, borderWidth: 0.75 });
    if (options.sandbox) text(SANDBOX_MARK, PAGE.margin, top - HEADER_HEIGHT + 8, bold, 8, rgb(0.75, 0.1, 0.1));
    if (options.cancelled) text(CANCELLED_MARK, PAGE.margin + 180, top - HEADER_HEIGHT + 8, bold, 8, rgb(0.75, 0.1, 0.1));
    page.drawLine({ start: { x: PAGE.margin, y: top - HEADER_HEIGHT + 3 }, end: { x: PAGE.width - PAGE.margin, y: top - HEADER_HEIGHT + 3 }, thickness: 1, color: accent });
  };

  const newPage = () => {
    page = doc.addPage([PAGE.width, PAGE.height]);
    pages.push(page);
    texts.set(page, []);
    drawHeader();
    y = BODY_TOP;
  };
  /** Starts a new page unless `height` fits above the footer. */
  const ensure = (height: number) => {
    if (y - height < BODY_BOTTOM) newPage();
  };

  const sectionTitle = (title: string) => {
    ensure(14 + SIZE.body * LEADING * 2);
    y -= 10;
    text(title, PAGE.margin, y, bold, 8, accent);
    y -= 4;
  };

  /** Label/value pairs in `columns` columns; values wrap inside their column. */
  const fields = (pairs: [string, string | undefined][], columns = 2) => {
    const shown = pairs.filter(([, v]) => v !== undefined && v !== '') as [string, string][];
    const colWidth = CONTENT_WIDTH / columns;
    for (let i = 0; i < shown.length; i += columns) {
      const row = shown.slice(i, i + columns).map(([label, value]) => ({ label, lines: m.wrap(regular, value, SIZE.body, colWidth - 8) }));
      const height = Math.max(...row.map((r) => r.lines.length)) * SIZE.body * LEADING + SIZE.label * LEADING + 2;
      ensure(height);
      row.forEach((r, col) => {
        const x = PAGE.margin + col * colWidth;
        text(r.label, x, y - SIZE.label, regular, SIZE.label, GREY);
        r.lines.forEach((line, k) => text(line, x, y - SIZE.label * LEADING - SIZE.body * (k + 1) * LEADING + 1));
      });
      y -= height;
    }
  };

  newPage();

  // Receptor.
  sectionTitle('RECEPTOR');
  fields([
    ['Nombre', receptor.Nombre],
    ['RFC', receptor.Rfc],
    ['Régimen fiscal', described('c_RegimenFiscal', receptor.RegimenFiscalReceptor)],
    ['Domicilio fiscal (código postal)', receptor.DomicilioFiscalReceptor],
    ['Uso del CFDI', described('c_UsoCFDI', receptor.UsoCFDI)],
    ['Residencia fiscal', receptor.ResidenciaFiscal ? described('c_Pais', receptor.ResidenciaFiscal) : undefined],
    ['Número de registro de identidad fiscal', receptor.NumRegIdTrib],
  ]);

  // Comprobante.
  sectionTitle('COMPROBANTE');
  const moneda = a.Moneda ?? 'MXN';
  fields(
    [
      ['Tipo de comprobante', described('c_TipoDeComprobante', a.TipoDeComprobante)],
      ['Exportación', described('c_Exportacion', a.Exportacion)],
      ['Moneda', described('c_Moneda', moneda)],
      ['Tipo de cambio', a.TipoCambio],
      ['Forma de pago', described('c_FormaPago', a.FormaPago)],
      ['Método de pago', described('c_MetodoPago', a.MetodoPago)],
      ['Condiciones de pago', a.CondicionesDePago],
      ['Versión', a.Version],
    ],
    3,
  );

  const global = child(root, 'cfdi:InformacionGlobal')?.attrs;
  if (global) {
    sectionTitle('INFORMACIÓN GLOBAL');
    fields(
      [
        ['Periodicidad', described('c_Periodicidad', global.Periodicidad)],
        ['Meses', described('c_Meses', global.Meses)],
        ['Año', global.Año],
      ],
      3,
    );
  }
  const relacionados = childrenNamed(root, 'cfdi:CfdiRelacionados');
  if (relacionados.length) {
    sectionTitle('CFDI RELACIONADOS');
    fields(relacionados.map((r): [string, string] => [described('c_TipoRelacion', r.attrs.TipoRelacion), childrenNamed(r, 'cfdi:CfdiRelacionado').map((c) => c.attrs.UUID).join(', ')]), 1);
  }

  /** Paragraph across the page, a line at a time (it may run onto the next page). */
  const note = (s: string) => {
    y -= 3;
    for (const line of m.wrap(regular, s, SIZE.body, CONTENT_WIDTH)) {
      ensure(SIZE.body * LEADING);
      text(line, PAGE.margin, y - SIZE.body);
      y -= SIZE.body * LEADING;
    }
    y -= 3;
  };

  /** A heading inside a section; never alone at the foot of a page (room for a table's titles and a row under it). */
  const heading = (title: string) => {
    ensure(12 + SIZE.small * LEADING * 2 + 6 + SIZE.body * LEADING * 2);
    y -= 9;
    text(title, PAGE.margin, y, bold, SIZE.body);
    y -= 3;
  };

  /**
   * A table: the column titles on a grey band, then rows; a row taller than what is left of the page continues on
   * the next one, under the titles again. Every table of the document (conceptos, complements) is drawn here.
   */
  const PAD = 2.5;
  const table = (columns: PdfColumn[]) => {
    const tableHeader = () => {
      const h = SIZE.small * LEADING * 2 + 4;
      ensure(h + SIZE.body * LEADING * 2);
      page.drawRectangle({ x: PAGE.margin, y: y - h, width: CONTENT_WIDTH, height: h, color: LIGHT });
      let x = PAGE.margin;
      for (const c of columns) {
        m.wrap(bold, c.title, SIZE.small, c.width - 2 * PAD).forEach((line, k) => {
          const yy = y - 2 - SIZE.small * (k + 1) * LEADING + 1.5;
          if (c.align === 'right') rightText(line, x + c.width - PAD, yy, bold, SIZE.small);
          else text(line, x + PAD, yy, bold, SIZE.small);
        });
        x += c.width;
      }
      y -= h + 2;
    };
    tableHeader();
    return (values: string[], notes: string[] = []) => {
      const cells: Cell[] = columns.map((col, i) => {
        const size = col.size ?? SIZE.small;
        return {
          lines: m.wrap(regular, values[i] ?? '', size, col.width - 2 * PAD),
          font: regular,
          size,
          align: col.align,
          notes: col.notes ? notes.flatMap((n) => m.wrap(regular, n, SIZE.small, col.width - 2 * PAD)) : undefined,
        };
      });
      // Rows of text, each cell's main lines then its notes; a row taller than the page continues on the next.
      const rowsOf = (cell: Cell) => [...cell.lines.map((l) => ({ l, size: cell.size, color: BLACK })), ...(cell.notes ?? []).map((l) => ({ l, size: SIZE.small, color: GREY }))];
      const cellRows = cells.map(rowsOf);
      const lineHeight = SIZE.body * LEADING;
      let from = 0;
      const total = Math.max(...cellRows.map((r) => r.length));
      while (from < total) {
        if (y - lineHeight - 3 < BODY_BOTTOM) {
          newPage();
          tableHeader();
        }
        const fit = Math.max(1, Math.floor((y - 3 - BODY_BOTTOM) / lineHeight));
        const to = Math.min(total, from + fit);
        let x = PAGE.margin;
        cells.forEach((cell, i) => {
          cellRows[i]!.slice(from, to).forEach((r, k) => {
            const yy = y - (k + 1) * lineHeight + 2;
            if (cell.align === 'right') rightText(r.l, x + columns[i]!.width - PAD, yy, cell.font, r.size, r.color);
            else text(r.l, x + PAD, yy, cell.font, r.size, r.color);
          });
          x += columns[i]!.width;
        });
        y -= (to - from) * lineHeight + 3;
        from = to;
        page.drawLine({ start: { x: PAGE.margin, y: y + 1 }, end: { x: PAGE.width - PAGE.margin, y: y + 1 }, thickness: 0.3, color: rgb(0.8, 0.8, 0.8) });
      }
    };
  };

  // Conceptos.
  sectionTitle('CONCEPTOS');
  const conceptoRow = table([
    { title: 'Clave prod./serv.', width: 46 },
    { title: 'Cantidad', width: 42, align: 'right' },
    { title: 'Unidad', width: 54 },
    { title: 'Descripción', width: 178, size: SIZE.body, notes: true },
    { title: 'Valor unitario', width: 56, align: 'right' },
    { title: 'Descuento', width: 48, align: 'right' },
    { title: 'Importe', width: 62, align: 'right', size: SIZE.body },
    { title: 'Objeto de impuesto', width: 54 },
  ]);
  for (const concepto of childrenNamed(child(root, 'cfdi:Conceptos') ?? { name: '', attrs: {}, children: [] }, 'cfdi:Concepto')) {
    const c = concepto.attrs;
    const impuestos = child(concepto, 'cfdi:Impuestos');
    conceptoRow(
      [
        c.ClaveProdServ ?? '',
        c.Cantidad ?? '',
        c.Unidad ? `${c.ClaveUnidad} ${c.Unidad}` : described('c_ClaveUnidad', c.ClaveUnidad, 'nombre'), // the XML's Unidad, else SAT's name
        c.Descripcion ?? '',
        money(unitAmount(c.ValorUnitario, currencyDecimals(moneda)), moneda),
        money(groupDigits(c.Descuento), moneda),
        money(groupDigits(c.Importe), moneda),
        described('c_ObjetoImp', c.ObjetoImp),
      ],
      [
        ...(c.NoIdentificacion ? [`No. identificación: ${c.NoIdentificacion}`] : []),
        ...childrenNamed(child(impuestos ?? concepto, 'cfdi:Traslados') ?? concepto, 'cfdi:Traslado').map((t) => taxLine('Traslado', t.attrs)),
        ...childrenNamed(child(impuestos ?? concepto, 'cfdi:Retenciones') ?? concepto, 'cfdi:Retencion').map((t) => taxLine('Retención', t.attrs)),
        ...childrenNamed(concepto, 'cfdi:CuentaPredial').map((p) => `Cuenta predial: ${p.attrs.Numero}`),
      ],
    );
  }

  // Complements with something to print: their own sections, drawn through the same layout.
  const layout: PdfLayout = { section: sectionTitle, heading, fields, table, note };
  const complemento = child(root, 'cfdi:Complemento');
  const pagos = complemento ? childrenNamed(complemento, 'pago20:Pagos') : [];
  const nominas = complemento ? childrenNamed(complemento, 'nomina12:Nomina') : [];
  for (const p of pagos) renderPagos(layout, p);
  for (const n of nominas) renderNomina(layout, n);

  /** Amounts right, the amount in words (when there is one) left. */
  const totalsBlock = (totals: TotalRow[], amount?: string) => {
    const words = amount === undefined ? [] : m.wrap(regular, amount, SIZE.body, CONTENT_WIDTH - 240);
    const totalsHeight = Math.max(totals.length * 11, words.length * SIZE.body * LEADING + 12) + 10;
    ensure(totalsHeight);
    y -= 6;
    if (words.length) {
      text('Importe con letra', PAGE.margin, y - SIZE.label, regular, SIZE.label, GREY);
      words.forEach((line, k) => text(line, PAGE.margin, y - SIZE.label * LEADING - (k + 1) * SIZE.body * LEADING + 1));
    }
    const right = PAGE.width - PAGE.margin;
    totals.forEach(([label, value, strong], k) => {
      const yy = y - (k + 1) * 11 + 2;
      const font = strong ? bold : regular;
      const size = strong ? 9 : SIZE.body;
      for (const line of m.wrap(font, label, size, 150).slice(0, 1)) rightText(line, right - 80, yy, font, size, strong ? BLACK : GREY);
      rightText(value, right, yy, font, size);
    });
    y -= totalsHeight;
  };
  const inWords = () => amountInWords(a.Total ?? '0', moneda, currencyDecimals(moneda));

  // Totals. A Pago carries no amount of its own (Moneda XXX, Total 0: its amounts are in the complement), and a
  // Traslado collects nothing: neither prints money lines nor an amount in words.
  if (a.TipoDeComprobante === 'T') {
    note(TRASLADO_NOTE);
  } else if (a.TipoDeComprobante !== 'P' && moneda !== 'XXX') {
    if (a.TipoDeComprobante === 'N' && nominas.length === 1) {
      totalsBlock(nominaTotals(nominas[0]!, a.Total, moneda), inWords());
    } else {
      const impuestos = child(root, 'cfdi:Impuestos');
      const amount = (value: string | undefined) => money(groupDigits(value), moneda);
      const totals: TotalRow[] = [['Subtotal', amount(a.SubTotal)]];
      if (a.Descuento) totals.push(['Descuento', amount(a.Descuento)]);
      for (const t of childrenNamed(child(impuestos ?? root, 'cfdi:Traslados') ?? root, 'cfdi:Traslado')) {
        const r = t.attrs;
        totals.push([`${described('c_Impuesto', r.Impuesto)} trasladado ${r.TipoFactor === 'Exento' ? 'exento' : `${r.TipoFactor} ${rateText(r.TipoFactor, r.TasaOCuota)}`}`, r.Importe ? amount(r.Importe) : `Base ${amount(r.Base)}`]);
      }
      for (const t of childrenNamed(child(impuestos ?? root, 'cfdi:Retenciones') ?? root, 'cfdi:Retencion')) {
        totals.push([`${described('c_Impuesto', t.attrs.Impuesto)} retenido`, amount(`-${t.attrs.Importe}`)]);
      }
      totals.push([`Total ${moneda}`, amount(a.Total), true]);
      totalsBlock(totals, inWords());
    }
  }
  // Timbre fiscal digital: QR beside the stamp data, then the seals and the TFD cadena.
  const qrSize = 96; // ≥ 2.75 cm (78 pt), Anexo 20 §D
  const url = verificationUrl({ uuid: tfd.uuid, rfcEmisor: emisor.Rfc ?? '', rfcReceptor: receptor.Rfc ?? '', total: a.Total ?? '0', sello: a.Sello ?? '' });
  sectionTitle('TIMBRE FISCAL DIGITAL');
  ensure(qrSize + 6);
  const matrix = qrMatrix(url);
  const quiet = 4;
  const cell = qrSize / (matrix.size + 2 * quiet);
  const qx = PAGE.margin;
  const qy = y - qrSize;
  // One filled path of `re` rectangles, one per run of dark modules in a row (pdf-lib's drawRectangle would write
  // a graphics-state block of some twenty operators for each).
  const runs: PDFOperator[] = [];
  for (let row = 0; row < matrix.size; row++) {
    for (let col = 0; col < matrix.size; ) {
      if (!matrix.dark(row, col)) {
        col++;
        continue;
      }
      let end = col;
      while (end < matrix.size && matrix.dark(row, end)) end++;
      const rect = [qx + (quiet + col) * cell, qy + qrSize - (quiet + row + 1) * cell, (end - col) * cell, cell].map((n) => asPDFNumber(Math.round(n * 1000) / 1000));
      runs.push(PDFOperator.of(PDFOperatorNames.AppendRectangle, rect));
      col = end;
    }
  }
  page.pushOperators(pushGraphicsState(), setFillingRgbColor(0, 0, 0), ...runs, fill(), popGraphicsState());
  const sx = qx + qrSize + 12;
  const stampRows: [string, string][] = [
    ['Folio fiscal (UUID)', tfd.uuid],
    ['Fecha y hora de certificación', printedDate(tfd.fechaTimbrado)],
    ['No. de certificado del emisor', a.NoCertificado ?? ''],
    ['No. de certificado del SAT', tfd.noCertificadoSat],
    ['RFC del proveedor de certificación', tfd.rfcProvCertif],
    ['Fecha y hora de emisión', printedDate(a.Fecha)],
  ];
  stampRows.forEach(([label, value], k) => {
    const yy = y - 8 - k * 15;
    text(label, sx, yy, regular, SIZE.label, GREY);
    text(value, sx, yy - 8, bold, SIZE.body);
  });
  y -= qrSize + 8;
  const SEAL = 6;
  const long = (label: string, value: string) => {
    const lines = m.wrap(regular, value, SEAL, CONTENT_WIDTH);
    ensure(SIZE.label * LEADING + SEAL * LEADING * Math.min(lines.length, 3));
    text(label, PAGE.margin, y - SIZE.label, bold, SIZE.label, GREY);
    y -= SIZE.label * LEADING + 1;
    for (const line of lines) {
      ensure(SEAL * LEADING);
      text(line, PAGE.margin, y - SEAL, regular, SEAL);
      y -= SEAL * LEADING;
    }
    y -= 3;
  };
  long('Sello digital del CFDI', a.Sello ?? '');
  long('Sello digital del SAT', tfd.selloSat);
  long('Cadena original del complemento de certificación digital del SAT', tfdCadena(tfd));

  // Footer and sandbox mark on every page, now that the page count is known.
  pages.forEach((p, i) => {
    page = p;
    const fy = PAGE.margin + 8;
    p.drawLine({ start: { x: PAGE.margin, y: fy + 12 }, end: { x: PAGE.width - PAGE.margin, y: fy + 12 }, thickness: 0.5, color: accent });
    text(PRINTED_LEGEND, PAGE.margin, fy, regular, SIZE.small, GREY);
    rightText(`Página ${i + 1} de ${pages.length}`, PAGE.width - PAGE.margin, fy, regular, SIZE.small, GREY);
    writeText(p, texts.get(p)!, pdfFonts);
    if (options.sandbox) {
      p.drawText(SANDBOX_MARK, { x: 120, y: 220, size: 34, font: pdfFonts.bold, color: rgb(0.85, 0.2, 0.2), opacity: 0.15, rotate: degrees(38) });
    }
    if (options.cancelled) {
      p.drawText(CANCELLED_MARK, { x: 150, y: 420, size: 48, font: pdfFonts.bold, color: rgb(0.85, 0.2, 0.2), opacity: 0.18, rotate: degrees(38) });
    }
  });
  return doc.save({ useObjectStreams: true });
}
