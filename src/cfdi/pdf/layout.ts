import {
  beginText,
  endText,
  rgb,
  setFillingRgbColor,
  setFontAndSize,
  setTextMatrix,
  showText,
  type Color,
  type PDFDocument,
  type PDFFont,
  type PDFOperator,
  type PDFPage,
} from 'pdf-lib';
import { measure as m, type Face } from './fonts.ts';

/**
 * The page: its geometry, the text runs waiting to be written, the pen's height `y`, and the pagination (a new page
 * with its header whenever something does not fit above the footer). Sections and complements draw through it.
 */

/** A table column; the widths of a table add up to the page's content width (540 pt). */
export interface PdfColumn {
  title: string;
  width: number;
  align?: 'left' | 'right';
  /** Font size of the cells (the layout's small size when absent). */
  size?: number;
  /** The column that carries a row's notes (small grey lines under its text). */
  notes?: boolean;
}

/** What a complement draws with: the layout lends it these and keeps the drawing and the pagination to itself. */
export interface PdfLayout {
  section(title: string): void;
  /** A heading inside a section (one per pago, one per table). */
  heading(title: string): void;
  fields(pairs: [string, string | undefined][], columns?: number): void;
  /** Draws the column titles now and returns the row writer; rows continue on new pages under repeated titles. */
  table(columns: PdfColumn[]): (values: string[], notes?: string[]) => void;
  /** A paragraph across the page. */
  note(text: string): void;
}

/** A line of the totals block: label, amount, bold. */
export type TotalRow = [string, string, boolean?];

export const PAGE = { width: 612, height: 792, margin: 36 };
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
export const HEADER_HEIGHT = 86;
const FOOTER_HEIGHT = 30;
const BODY_TOP = PAGE.height - PAGE.margin - HEADER_HEIGHT;
const BODY_BOTTOM = PAGE.margin + FOOTER_HEIGHT;
export const SIZE = { body: 7.5, small: 6.5, label: 6.5, title: 11 };
export const LEADING = 1.25;
export const GREY = rgb(0.35, 0.35, 0.35);
const LIGHT = rgb(0.93, 0.93, 0.93);
export const BLACK = rgb(0, 0, 0);

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
  const keys = {
    regular: page.node.newFontDictionary(fonts.regular.name, fonts.regular.ref),
    bold: page.node.newFontDictionary(fonts.bold.name, fonts.bold.ref),
  };
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

const PAD = 2.5;

export class Layout implements PdfLayout {
  readonly pages: PDFPage[] = [];
  private readonly texts = new Map<PDFPage, TextRun[]>();
  page!: PDFPage;
  /** The pen: the top of what is drawn next, in points from the bottom of the page. */
  y = 0;

  constructor(
    private readonly doc: PDFDocument,
    readonly fonts: Record<Face, PDFFont>,
    readonly accent: Color,
    /** Draws the header of the page just added. */
    private readonly header: (layout: Layout) => void,
  ) {}

  text(s: string, x: number, yy: number, font: Face = 'regular', size = SIZE.body, color: Color = BLACK): void {
    if (s) this.texts.get(this.page)!.push({ text: s, x, y: yy, face: font, size, color: color as RGB });
  }

  rightText(s: string, right: number, yy: number, font: Face = 'regular', size = SIZE.body, color: Color = BLACK): void {
    this.text(s, right - m.width(font, s, size), yy, font, size, color);
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.texts.set(this.page, []);
    this.header(this);
    this.y = BODY_TOP;
  }

  /** Starts a new page unless `height` fits above the footer. */
  ensure(height: number): void {
    if (this.y - height < BODY_BOTTOM) this.newPage();
  }

  /** Makes `page` the one drawn on again (the footers, once the page count is known). */
  turnTo(page: PDFPage): void {
    this.page = page;
  }

  /** Writes the current page's text runs, on top of its shapes. */
  writeText(): void {
    writeText(this.page, this.texts.get(this.page)!, this.fonts);
  }

  /** A section's title, kept on one page with the first `keepWith` points of what follows it (two lines unless told). */
  section(title: string, keepWith = SIZE.body * LEADING * 2): void {
    this.ensure(14 + keepWith);
    this.y -= 10;
    this.text(title, PAGE.margin, this.y, 'bold', 8, this.accent);
    this.y -= 4;
  }

  /** Label/value pairs in `columns` columns; values wrap inside their column. */
  fields(pairs: [string, string | undefined][], columns = 2): void {
    const shown = pairs.filter(([, v]) => v !== undefined && v !== '') as [string, string][];
    const colWidth = CONTENT_WIDTH / columns;
    for (let i = 0; i < shown.length; i += columns) {
      const row = shown.slice(i, i + columns).map(([label, value]) => ({ label, lines: m.wrap('regular', value, SIZE.body, colWidth - 8) }));
      const height = Math.max(...row.map((r) => r.lines.length)) * SIZE.body * LEADING + SIZE.label * LEADING + 2;
      this.ensure(height);
      row.forEach((r, col) => {
        const x = PAGE.margin + col * colWidth;
        this.text(r.label, x, this.y - SIZE.label, 'regular', SIZE.label, GREY);
        r.lines.forEach((line, k) => this.text(line, x, this.y - SIZE.label * LEADING - SIZE.body * (k + 1) * LEADING + 1));
      });
      this.y -= height;
    }
  }

  /** Paragraph across the page, a line at a time (it may run onto the next page). */
  note(s: string): void {
    this.y -= 3;
    for (const line of m.wrap('regular', s, SIZE.body, CONTENT_WIDTH)) {
      this.ensure(SIZE.body * LEADING);
      this.text(line, PAGE.margin, this.y - SIZE.body);
      this.y -= SIZE.body * LEADING;
    }
    this.y -= 3;
  }

  /** A heading inside a section; never alone at the foot of a page (room for a table's titles and a row under it). */
  heading(title: string): void {
    this.ensure(12 + SIZE.small * LEADING * 2 + 6 + SIZE.body * LEADING * 2);
    this.y -= 9;
    this.text(title, PAGE.margin, this.y, 'bold', SIZE.body);
    this.y -= 3;
  }

  /**
   * A table: the column titles on a grey band, then rows; a row taller than what is left of the page continues on
   * the next one, under the titles again. Every table of the document (conceptos, complements) is drawn here.
   */
  table(columns: PdfColumn[]): (values: string[], notes?: string[]) => void {
    const tableHeader = () => {
      const h = SIZE.small * LEADING * 2 + 4;
      this.ensure(h + SIZE.body * LEADING * 2);
      this.page.drawRectangle({ x: PAGE.margin, y: this.y - h, width: CONTENT_WIDTH, height: h, color: LIGHT });
      let x = PAGE.margin;
      for (const c of columns) {
        m.wrap('bold', c.title, SIZE.small, c.width - 2 * PAD).forEach((line, k) => {
          const yy = this.y - 2 - SIZE.small * (k + 1) * LEADING + 1.5;
          if (c.align === 'right') this.rightText(line, x + c.width - PAD, yy, 'bold', SIZE.small);
          else this.text(line, x + PAD, yy, 'bold', SIZE.small);
        });
        x += c.width;
      }
      this.y -= h + 2;
    };
    tableHeader();
    return (values: string[], notes: string[] = []) => {
      const cells: Cell[] = columns.map((col, i) => {
        const size = col.size ?? SIZE.small;
        return {
          lines: m.wrap('regular', values[i] ?? '', size, col.width - 2 * PAD),
          font: 'regular',
          size,
          align: col.align,
          notes: col.notes ? notes.flatMap((n) => m.wrap('regular', n, SIZE.small, col.width - 2 * PAD)) : undefined,
        };
      });
      // Rows of text, each cell's main lines then its notes; a row taller than the page continues on the next.
      const rowsOf = (cell: Cell) => [
        ...cell.lines.map((l) => ({ l, size: cell.size, color: BLACK })),
        ...(cell.notes ?? []).map((l) => ({ l, size: SIZE.small, color: GREY })),
      ];
      const cellRows = cells.map(rowsOf);
      const lineHeight = SIZE.body * LEADING;
      let from = 0;
      const total = Math.max(...cellRows.map((r) => r.length));
      while (from < total) {
        if (this.y - lineHeight - 3 < BODY_BOTTOM) {
          this.newPage();
          tableHeader();
        }
        const fit = Math.max(1, Math.floor((this.y - 3 - BODY_BOTTOM) / lineHeight));
        const to = Math.min(total, from + fit);
        let x = PAGE.margin;
        cells.forEach((cell, i) => {
          cellRows[i]!.slice(from, to).forEach((r, k) => {
            const yy = this.y - (k + 1) * lineHeight + 2;
            if (cell.align === 'right') this.rightText(r.l, x + columns[i]!.width - PAD, yy, cell.font, r.size, r.color);
            else this.text(r.l, x + PAD, yy, cell.font, r.size, r.color);
          });
          x += columns[i]!.width;
        });
        this.y -= (to - from) * lineHeight + 3;
        from = to;
        this.page.drawLine({
          start: { x: PAGE.margin, y: this.y + 1 },
          end: { x: PAGE.width - PAGE.margin, y: this.y + 1 },
          thickness: 0.3,
          color: rgb(0.8, 0.8, 0.8),
        });
      }
    };
  }
}
