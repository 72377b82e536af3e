import {
  asPDFNumber,
  degrees,
  fill,
  PDFOperator,
  PDFOperatorNames,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  setFillingRgbColor,
  type PDFImage,
} from 'pdf-lib';
import { amountInWords } from '../amount-words.ts';
import { qrMatrix, verificationUrl } from '../qr.ts';
import { tfdCadena, type Tfd } from '../tfd.ts';
import { child, childrenNamed, type XmlNode } from '../xml.ts';
import { CONCEPTO_NOTES, PDF_SECTIONS } from '../complements/index.ts';
import { measure as m } from './fonts.ts';
import { currencyDecimals, described, groupDigits, money, none, printedDate, rateText, taxLine, unitAmount } from './format.ts';
import { BLACK, CONTENT_WIDTH, GREY, HEADER_HEIGHT, LEADING, PAGE, SIZE, type Layout, type TotalRow } from './layout.ts';

/** The sections of the printed representation, top to bottom, each drawn through the layout from the stamped CFDI. */

/** The stamped CFDI as the sections read it, and how this copy is marked. */
export interface PrintedCfdi {
  root: XmlNode;
  /** The Comprobante's attributes. */
  comprobante: Record<string, string>;
  emisor: Record<string, string>;
  receptor: Record<string, string>;
  tfd: Tfd;
  moneda: string;
  sandbox: boolean;
  cancelled?: boolean;
  logo?: PDFImage;
}

const SANDBOX_MARK = 'SIN VALIDEZ FISCAL — SANDBOX';
export const CANCELLED_MARK = 'CFDI CANCELADO';
const PRINTED_LEGEND = 'Este documento es una representación impresa de un CFDI versión 4.0';
const TRASLADO_NOTE =
  'Comprobante de traslado: ampara la tenencia y el transporte de las mercancías descritas; no documenta una venta ni un cobro, por lo que no expresa importes a pagar.';

export const TIPO_TITLES: Record<string, string> = {
  I: 'FACTURA',
  E: 'NOTA DE CRÉDITO',
  P: 'RECIBO ELECTRÓNICO DE PAGO',
  N: 'RECIBO DE NÓMINA',
  T: 'TRASLADO',
};

/** "Serie A · Folio 1" (either alone when the other is absent), as the header prints it. */
export const serieFolio = (serie: string | undefined, folio: string | undefined): string =>
  [serie && `Serie ${serie}`, folio && `Folio ${folio}`].filter(Boolean).join(' · ');

/** What every page's header shows: the issuer left, the document box right (title, its number, its key rows). */
export interface PageHeader {
  logo?: PDFImage;
  /** The issuer's name, in bold, at most two lines. */
  nombre: string;
  /** The issuer's lines under the name (RFC, régimen, place of issue), each at most two lines. */
  lines: string[];
  title: string;
  /** Beside the title, right-aligned (serie and folio). */
  number: string;
  rows: [string, string][];
  sandbox: boolean;
  cancelled?: boolean;
  /** What a cancelled document says under the header. */
  cancelledMark: string;
}

/** A page's header: the issuer left, the document box right, the sandbox and cancelled marks under them. */
export function pageHeader(layout: Layout, h: PageHeader): void {
  const { logo } = h;
  const { page, accent } = layout;
  const top = PAGE.height - PAGE.margin;
  let x = PAGE.margin;
  if (logo) {
    const scale = Math.min(110 / logo.width, 52 / logo.height, 1);
    const w = logo.width * scale;
    const hh = logo.height * scale;
    page.drawImage(logo, { x, y: top - hh, width: w, height: hh });
    x += w + 10;
  }
  const boxWidth = 250;
  const leftWidth = PAGE.width - PAGE.margin - boxWidth - 10 - x;
  let ly = top - 10;
  for (const line of m.wrap('bold', h.nombre, 10, leftWidth).slice(0, 2)) {
    layout.text(line, x, ly, 'bold', 10);
    ly -= 12;
  }
  for (const line of h.lines) {
    for (const l of m.wrap('regular', line, SIZE.body, leftWidth).slice(0, 2)) {
      layout.text(l, x, ly);
      ly -= SIZE.body * LEADING;
    }
  }
  // The document box, right.
  const bx = PAGE.width - PAGE.margin - boxWidth;
  page.drawRectangle({ x: bx, y: top - 14, width: boxWidth, height: 14, color: accent });
  const { title } = h;
  layout.text(title, bx + 6, top - 10.5, 'bold', 8.5, rgb(1, 1, 1));
  // Beside the title; smaller when a long number (a serie and folio of up to 25 and 40 characters) would not fit.
  const sf = h.number;
  const room = boxWidth - 16 - m.width('bold', title, 8.5);
  layout.rightText(sf, bx + boxWidth - 4, top - 10.5, 'bold', Math.min(8.5, (8.5 * room) / Math.max(m.width('bold', sf, 8.5), 1)), rgb(1, 1, 1));
  let by = top - 24;
  for (const [label, value] of h.rows) {
    layout.text(label, bx + 6, by, 'regular', SIZE.label, GREY);
    layout.rightText(value, bx + boxWidth - 4, by, 'bold', SIZE.body);
    by -= 10;
  }
  page.drawRectangle({ x: bx, y: by + 5, width: boxWidth, height: top - 14 - by - 5, borderColor: accent, borderWidth: 0.75 });
  if (h.sandbox) layout.text(SANDBOX_MARK, PAGE.margin, top - HEADER_HEIGHT + 8, 'bold', 8, rgb(0.75, 0.1, 0.1));
  if (h.cancelled) layout.text(h.cancelledMark, PAGE.margin + 180, top - HEADER_HEIGHT + 8, 'bold', 8, rgb(0.75, 0.1, 0.1));
  page.drawLine({
    start: { x: PAGE.margin, y: top - HEADER_HEIGHT + 3 },
    end: { x: PAGE.width - PAGE.margin, y: top - HEADER_HEIGHT + 3 },
    thickness: 1,
    color: accent,
  });
}

/** Every page's header of a CFDI. */
export function header(layout: Layout, cfdi: PrintedCfdi): void {
  const { comprobante: a, emisor, tfd } = cfdi;
  pageHeader(layout, {
    logo: cfdi.logo,
    nombre: emisor.Nombre ?? '',
    lines: [
      `RFC: ${emisor.Rfc ?? ''}`,
      `Régimen fiscal: ${described('c_RegimenFiscal', emisor.RegimenFiscal)}`,
      `Lugar de expedición: ${a.LugarExpedicion ?? ''}`,
    ],
    title: TIPO_TITLES[a.TipoDeComprobante ?? ''] ?? 'CFDI',
    number: serieFolio(a.Serie, a.Folio),
    rows: [
      ['Folio fiscal (UUID)', tfd.uuid],
      ['Fecha de emisión', printedDate(a.Fecha)],
      ['Fecha de certificación', printedDate(tfd.fechaTimbrado)],
    ],
    sandbox: cfdi.sandbox,
    cancelled: cfdi.cancelled,
    cancelledMark: CANCELLED_MARK,
  });
}

export function receptorSection(layout: Layout, { receptor }: PrintedCfdi): void {
  layout.section('RECEPTOR');
  layout.fields([
    ['Nombre', receptor.Nombre],
    ['RFC', receptor.Rfc],
    ['Régimen fiscal', described('c_RegimenFiscal', receptor.RegimenFiscalReceptor)],
    ['Domicilio fiscal (código postal)', receptor.DomicilioFiscalReceptor],
    ['Uso del CFDI', described('c_UsoCFDI', receptor.UsoCFDI)],
    ['Residencia fiscal', receptor.ResidenciaFiscal ? described('c_Pais', receptor.ResidenciaFiscal) : undefined],
    ['Número de registro de identidad fiscal', receptor.NumRegIdTrib],
  ]);
}

export function comprobanteSection(layout: Layout, { comprobante: a, moneda }: PrintedCfdi): void {
  layout.section('COMPROBANTE');
  layout.fields(
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
}

export function informacionGlobalSection(layout: Layout, { root }: PrintedCfdi): void {
  const global = child(root, 'cfdi:InformacionGlobal')?.attrs;
  if (!global) return;
  layout.section('INFORMACIÓN GLOBAL');
  layout.fields(
    [
      ['Periodicidad', described('c_Periodicidad', global.Periodicidad)],
      ['Meses', described('c_Meses', global.Meses)],
      ['Año', global.Año],
    ],
    3,
  );
}

export function relacionadosSection(layout: Layout, { root }: PrintedCfdi): void {
  const relacionados = childrenNamed(root, 'cfdi:CfdiRelacionados');
  if (!relacionados.length) return;
  layout.section('CFDI RELACIONADOS');
  layout.fields(
    relacionados.map((r): [string, string] => [
      described('c_TipoRelacion', r.attrs.TipoRelacion),
      childrenNamed(r, 'cfdi:CfdiRelacionado')
        .map((c) => c.attrs.UUID)
        .join(', '),
    ]),
    1,
  );
}

export function conceptosSection(layout: Layout, { root, moneda }: PrintedCfdi): void {
  layout.section('CONCEPTOS');
  const conceptoRow = layout.table([
    { title: 'Clave prod./serv.', width: 46 },
    { title: 'Cantidad', width: 42, align: 'right' },
    { title: 'Unidad', width: 54 },
    { title: 'Descripción', width: 178, size: SIZE.body, notes: true },
    { title: 'Valor unitario', width: 56, align: 'right' },
    { title: 'Descuento', width: 48, align: 'right' },
    { title: 'Importe', width: 62, align: 'right' },
    { title: 'Objeto de impuesto', width: 54 },
  ]);
  for (const concepto of childrenNamed(child(root, 'cfdi:Conceptos') ?? none, 'cfdi:Concepto')) {
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
        ...childrenNamed(child(impuestos ?? concepto, 'cfdi:Traslados') ?? concepto, 'cfdi:Traslado').map((t) => taxLine('Traslado', t.attrs, moneda)),
        ...childrenNamed(child(impuestos ?? concepto, 'cfdi:Retenciones') ?? concepto, 'cfdi:Retencion').map((t) => taxLine('Retención', t.attrs, moneda)),
        ...childrenNamed(concepto, 'cfdi:CuentaPredial').map((p) => `Cuenta predial: ${p.attrs.Numero}`),
        // Its concepto complements' lines (Hidrocarburos y Petrolíferos: the permit).
        ...CONCEPTO_NOTES.flatMap((c) => childrenNamed(child(concepto, 'cfdi:ComplementoConcepto') ?? none, c.element).flatMap(c.notes)),
      ],
    );
  }
}

function drawComplements(layout: Layout, root: XmlNode, afterTotals: boolean): void {
  const complemento = child(root, 'cfdi:Complemento') ?? none;
  for (const complement of PDF_SECTIONS) {
    if ((complement.afterTotals ?? false) !== afterTotals) continue;
    for (const node of childrenNamed(complemento, complement.element)) complement.render(layout, node);
  }
}

/** Complements with something to print: their own sections, drawn through the same layout, before the totals. */
export const complementSections = (layout: Layout, { root }: PrintedCfdi): void => drawComplements(layout, root, false);

/** The complements that follow the totals (Carta Porte: the invoice's amounts stay next to its conceptos). */
export const trailingComplementSections = (layout: Layout, { root }: PrintedCfdi): void => drawComplements(layout, root, true);

/** Amounts right, the amount in words (when there is one) left. */
export function totalsBlock(layout: Layout, totals: TotalRow[], amount?: string) {
  const words = amount === undefined ? [] : m.wrap('regular', amount, SIZE.body, CONTENT_WIDTH - 240);
  const totalsHeight = Math.max(totals.length * 11, words.length * SIZE.body * LEADING + 12) + 10;
  layout.ensure(totalsHeight);
  layout.y -= 6;
  const { y } = layout;
  if (words.length) {
    layout.text('Importe con letra', PAGE.margin, y - SIZE.label, 'regular', SIZE.label, GREY);
    words.forEach((line, k) => layout.text(line, PAGE.margin, y - SIZE.label * LEADING - (k + 1) * SIZE.body * LEADING + 1));
  }
  const right = PAGE.width - PAGE.margin;
  totals.forEach(([label, value, strong], k) => {
    const yy = y - (k + 1) * 11 + 2;
    const font = strong ? 'bold' : 'regular';
    const size = strong ? 9 : SIZE.body;
    for (const line of m.wrap(font, label, size, 150).slice(0, 1)) layout.rightText(line, right - 80, yy, font, size, strong ? BLACK : GREY);
    layout.rightText(value, right, yy, font, size);
  });
  layout.y -= totalsHeight;
}

/**
 * Totals. A Pago carries no amount of its own (Moneda XXX, Total 0: its amounts are in the complement), and a
 * Traslado collects nothing: neither prints money lines nor an amount in words. A complement may print its own.
 */
export function totalsSection(layout: Layout, { root, comprobante: a, moneda }: PrintedCfdi): void {
  if (a.TipoDeComprobante === 'T') {
    layout.note(TRASLADO_NOTE);
    return;
  }
  if (a.TipoDeComprobante === 'P' || moneda === 'XXX') return;
  const inWords = amountInWords(a.Total ?? '0', moneda, currencyDecimals(moneda));
  const complemento = child(root, 'cfdi:Complemento') ?? none;
  for (const complement of PDF_SECTIONS) {
    const { totals } = complement;
    const nodes = childrenNamed(complemento, complement.element);
    if (totals && totals.tipoDeComprobante === a.TipoDeComprobante && nodes.length === 1) {
      totalsBlock(layout, totals.rows(nodes[0]!, a.Total, moneda), inWords);
      return;
    }
  }
  const impuestos = child(root, 'cfdi:Impuestos');
  const amount = (value: string | undefined) => money(groupDigits(value), moneda);
  const totals: TotalRow[] = [['Subtotal', amount(a.SubTotal)]];
  if (a.Descuento) totals.push(['Descuento', amount(a.Descuento)]);
  for (const t of childrenNamed(child(impuestos ?? root, 'cfdi:Traslados') ?? root, 'cfdi:Traslado')) {
    const r = t.attrs;
    totals.push([
      `${described('c_Impuesto', r.Impuesto)} trasladado ${r.TipoFactor === 'Exento' ? 'exento' : `${r.TipoFactor} ${rateText(r.TipoFactor, r.TasaOCuota)}`}`,
      r.Importe ? amount(r.Importe) : `Base ${amount(r.Base)}`,
    ]);
  }
  for (const t of childrenNamed(child(impuestos ?? root, 'cfdi:Retenciones') ?? root, 'cfdi:Retencion')) {
    totals.push([`${described('c_Impuesto', t.attrs.Impuesto)} retenido`, amount(`-${t.attrs.Importe}`)]);
  }
  // A complement's amounts that are part of Total (Impuestos Locales), so the block adds up to it.
  for (const complement of PDF_SECTIONS) {
    if (!complement.totalLines) continue;
    for (const node of childrenNamed(complemento, complement.element))
      for (const [label, value] of complement.totalLines(node)) totals.push([label, amount(value)]);
  }
  totals.push([`Total ${moneda}`, amount(a.Total), true]);
  totalsBlock(layout, totals, inWords);
}

export const QR_SIZE = 96; // ≥ 2.75 cm (78 pt), Anexo 20 §D

/** A QR code at the left margin with the rows of what it stands for beside it (a bold title first, when given). */
export function qrBlock(layout: Layout, url: string, rows: [string, string][], title?: string): void {
  layout.ensure(QR_SIZE + 6);
  const matrix = qrMatrix(url);
  const quiet = 4;
  const cell = QR_SIZE / (matrix.size + 2 * quiet);
  const qx = PAGE.margin;
  const qy = layout.y - QR_SIZE;
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
      const rect = [qx + (quiet + col) * cell, qy + QR_SIZE - (quiet + row + 1) * cell, (end - col) * cell, cell].map((n) =>
        asPDFNumber(Math.round(n * 1000) / 1000),
      );
      runs.push(PDFOperator.of(PDFOperatorNames.AppendRectangle, rect));
      col = end;
    }
  }
  layout.page.pushOperators(pushGraphicsState(), setFillingRgbColor(0, 0, 0), ...runs, fill(), popGraphicsState());
  const sx = qx + QR_SIZE + 12;
  const first = title ? 1 : 0;
  if (title) layout.text(title, sx, layout.y - 10, 'bold', SIZE.body);
  rows.forEach(([label, value], k) => {
    const yy = layout.y - 8 - (k + first) * 15;
    layout.text(label, sx, yy, 'regular', SIZE.label, GREY);
    layout.text(value, sx, yy - 8, 'bold', SIZE.body);
  });
  layout.y -= QR_SIZE + 8;
}

const SEAL = 6;

/** A seal or a cadena under its label, in small type across the page (it may run onto the next page). */
export function sealLines(layout: Layout, label: string, value: string): void {
  const lines = m.wrap('regular', value, SEAL, CONTENT_WIDTH);
  layout.ensure(SIZE.label * LEADING + SEAL * LEADING * Math.min(lines.length, 3));
  layout.text(label, PAGE.margin, layout.y - SIZE.label, 'bold', SIZE.label, GREY);
  layout.y -= SIZE.label * LEADING + 1;
  for (const line of lines) {
    layout.ensure(SEAL * LEADING);
    layout.text(line, PAGE.margin, layout.y - SEAL, 'regular', SEAL);
    layout.y -= SEAL * LEADING;
  }
  layout.y -= 3;
}

/** Timbre fiscal digital: QR beside the stamp data (then a complement's own QR, Carta Porte's), the seals and the TFD cadena. */
export function timbreSection(layout: Layout, { root, comprobante: a, emisor, receptor, tfd }: PrintedCfdi): void {
  const url = verificationUrl({ uuid: tfd.uuid, rfcEmisor: emisor.Rfc ?? '', rfcReceptor: receptor.Rfc ?? '', total: a.Total ?? '0', sello: a.Sello ?? '' });
  // Keep-with-next: the heading goes to the next page with its QR block rather than stay alone at the foot.
  layout.section('TIMBRE FISCAL DIGITAL', QR_SIZE + 6);
  qrBlock(layout, url, [
    ['Folio fiscal (UUID)', tfd.uuid],
    ['Fecha y hora de certificación', printedDate(tfd.fechaTimbrado)],
    ['No. de certificado del emisor', a.NoCertificado ?? ''],
    ['No. de certificado del SAT', tfd.noCertificadoSat],
    ['RFC del proveedor de certificación', tfd.rfcProvCertif],
    ['Fecha y hora de emisión', printedDate(a.Fecha)],
  ]);
  const complemento = child(root, 'cfdi:Complemento') ?? none;
  for (const complement of PDF_SECTIONS) {
    if (!complement.qr) continue;
    for (const node of childrenNamed(complemento, complement.element)) {
      const qr = complement.qr(node, tfd.fechaTimbrado);
      qrBlock(layout, qr.url, qr.rows, qr.title);
    }
  }
  sealLines(layout, 'Sello digital del CFDI', a.Sello ?? '');
  sealLines(layout, 'Sello digital del SAT', tfd.selloSat);
  sealLines(layout, 'Cadena original del complemento de certificación digital del SAT', tfdCadena(tfd));
}

/** What every page's footer and watermarks say. */
export interface PageMarks {
  legend: string;
  sandbox: boolean;
  cancelled?: boolean;
  cancelledMark: string;
}

/** Footer and watermarks on every page, now that the page count is known; then each page's text is written. */
export function pageFooters(layout: Layout, marks: PageMarks): void {
  const { pages, accent, fonts } = layout;
  pages.forEach((p, i) => {
    layout.turnTo(p);
    const fy = PAGE.margin + 8;
    p.drawLine({ start: { x: PAGE.margin, y: fy + 12 }, end: { x: PAGE.width - PAGE.margin, y: fy + 12 }, thickness: 0.5, color: accent });
    layout.text(marks.legend, PAGE.margin, fy, 'regular', SIZE.small, GREY);
    layout.rightText(`Página ${i + 1} de ${pages.length}`, PAGE.width - PAGE.margin, fy, 'regular', SIZE.small, GREY);
    layout.writeText();
    if (marks.sandbox) {
      p.drawText(SANDBOX_MARK, { x: 120, y: 220, size: 34, font: fonts.bold, color: rgb(0.85, 0.2, 0.2), opacity: 0.15, rotate: degrees(38) });
    }
    if (marks.cancelled) {
      p.drawText(marks.cancelledMark, { x: 150, y: 420, size: 48, font: fonts.bold, color: rgb(0.85, 0.2, 0.2), opacity: 0.18, rotate: degrees(38) });
    }
  });
}

/** A CFDI's footers and watermarks. */
export const footer = (layout: Layout, cfdi: PrintedCfdi): void =>
  pageFooters(layout, { legend: PRINTED_LEGEND, sandbox: cfdi.sandbox, cancelled: cfdi.cancelled, cancelledMark: CANCELLED_MARK });
