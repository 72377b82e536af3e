import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { renderCfdiPdf } from '../../../src/cfdi/pdf.ts';
import { money, printedDate, rateText, taxLine, unitAmount } from '../../../src/cfdi/pdf/format.ts';

/**
 * How the printed representation writes its values (issue 18, item 20): unit prices with the amounts' decimals,
 * dates as dd/mm/aaaa hh:mm, rates as percentages, the currency's sign, "Serie A · Folio 1" in the header, and the
 * embedded fonts named as subsets. Rendered from SAT's sample and read back with pdf.js and pdf-lib's parser.
 */
const INGRESO = readFileSync(new URL('../../fixtures/sat/samples/cfdi40-ingreso-iva-sandbox-EKU.xml', import.meta.url).pathname, 'utf8');
const withSerieFolio = INGRESO.replace('Version="4.0"', 'Version="4.0" Serie="A" Folio="1"');

interface Item {
  str: string;
  transform: number[];
  fontName: string;
}
async function render(xml: string) {
  const bytes = await renderCfdiPdf(xml, { sandbox: true });
  const task = getDocument({ data: bytes.slice(), disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  const doc = await task.promise;
  const items: Item[] = [];
  for (let n = 1; n <= doc.numPages; n++) items.push(...((await (await doc.getPage(n)).getTextContent()).items as Item[]).filter((i) => i.str?.trim()));
  await task.destroy();
  /** The runs on the baseline of the first run that equals `first`, left to right. */
  const cells = (first: string) => {
    const anchor = items.find((i) => i.str === first);
    if (!anchor) throw new Error(`"${first}" is not on the PDF`);
    return items.filter((i) => Math.abs(i.transform[5]! - anchor.transform[5]!) < 0.5).sort((p, q) => p.transform[4]! - q.transform[4]!);
  };
  const row = (first: string) => cells(first).map((i) => i.str);
  return { bytes, all: items.map((i) => i.str).join(' '), row, cells };
}

describe('the values as printed', () => {
  test("unit prices carry the amounts' decimals (more when the XML has more significant ones), with the currency sign", async () => {
    const r = await render(withSerieFolio);
    // ValorUnitario="956.04" Importe="3824.15" Descuento="956.04", in MXN.
    expect(r.row('52161557').slice(4, 7)).toEqual(['$956.04', '$956.04', '$3,824.15']);
    const round = await render(withSerieFolio.replace('ValorUnitario="956.04"', 'ValorUnitario="1000"'));
    expect(round.row('52161557')[4]).toBe('$1,000.00');
    const fine = await render(withSerieFolio.replace('ValorUnitario="956.04"', 'ValorUnitario="956.037500"'));
    expect(fine.row('52161557')[4]).toBe('$956.0375');
  });

  test("a concepto's Importe is written in the table's font and size, as its unit price and discount", async () => {
    const [valorUnitario, descuento, importe] = (await render(withSerieFolio)).cells('52161557').slice(4, 7);
    expect([valorUnitario!.str, descuento!.str, importe!.str]).toEqual(['$956.04', '$956.04', '$3,824.15']);
    const look = (i: Item) => ({ font: i.fontName, size: i.transform[0] });
    expect(look(importe!)).toEqual(look(valorUnitario!));
    expect(look(descuento!)).toEqual(look(valorUnitario!));
  });

  test('dates as dd/mm/aaaa hh:mm: Fecha and FechaTimbrado, in the header and the stamp block', async () => {
    const r = await render(withSerieFolio);
    expect(r.row('Fecha de emisión')).toEqual(['Fecha de emisión', '19/02/2025 08:32']);
    expect(r.row('Fecha de certificación')).toEqual(['Fecha de certificación', '19/02/2025 08:37']);
    expect(r.all).toContain('Fecha y hora de emisión 19/02/2025 08:32');
    expect(r.all).toContain('Fecha y hora de certificación 19/02/2025 08:37');
    expect(r.all).not.toContain('2025-02-19T08:32:29 '); // only the TFD cadena keeps SAT's own format
  });

  test("rates as percentages, in the concepto's taxes and the totals", async () => {
    const r = await render(withSerieFolio);
    expect(r.all).toContain('Traslado 002 - IVA Tasa 16 % · Base $2,868.11 · Importe $458.90');
    expect(r.row('002 - IVA trasladado Tasa 16 %')).toEqual(['002 - IVA trasladado Tasa 16 %', '$458.90']);
    expect(r.all).not.toContain('0.160000');
  });

  test('the currency sign: $ for MXN, the ISO code for another currency', async () => {
    const usd = await render(withSerieFolio.replace('Moneda="MXN"', 'Moneda="USD" TipoCambio="17.25"'));
    expect(usd.row('Total USD')).toEqual(['Total USD', 'USD 3,327.01']);
    expect(usd.row('Subtotal')).toEqual(['Subtotal', 'USD 3,824.15']);
    expect((await render(withSerieFolio)).row('Total MXN')).toEqual(['Total MXN', '$3,327.01']);
  });

  test('"Serie A · Folio 1" in the header of every page; nothing when the CFDI has neither', async () => {
    const r = await render(withSerieFolio);
    expect(r.row('FACTURA')).toEqual(['FACTURA', 'Serie A · Folio 1']);
    expect((await render(INGRESO)).row('FACTURA')).toEqual(['FACTURA']);
    expect((await render(INGRESO.replace('Version="4.0"', 'Version="4.0" Folio="77"'))).row('FACTURA')).toEqual(['FACTURA', 'Folio 77']);
  });

  test('the embedded fonts are named as subsets (six capital letters and +), the same on every render of a document', async () => {
    const names = async (bytes: Uint8Array) => {
      const pdf = await PDFDocument.load(bytes);
      const found: string[] = [];
      for (const [, object] of pdf.context.enumerateIndirectObjects()) {
        if (!(object instanceof PDFDict)) continue;
        const type = object.get(PDFName.of('Type'));
        if (type === PDFName.of('Font')) found.push(`BaseFont ${object.get(PDFName.of('BaseFont'))?.toString()}`);
        if (type === PDFName.of('FontDescriptor')) found.push(`FontName ${object.get(PDFName.of('FontName'))?.toString()}`);
      }
      return found.sort();
    };
    const first = await names((await render(withSerieFolio)).bytes);
    expect(first.length).toBe(6); // regular and bold: the Type0 font, its CIDFont, its descriptor
    for (const n of first) expect(n).toMatch(/^(BaseFont|FontName) \/[A-Z]{6}\+DejaVuSansCondensed(-Bold)?$/);
    const tags = new Set(first.map((n) => n.split('/')[1]!.slice(0, 6)));
    expect(tags.size).toBe(2); // one subset per face
    expect(await names((await render(withSerieFolio)).bytes)).toEqual(first);
  });
});

describe('the formatting rules', () => {
  test("unitAmount: at least the currency's decimals, never fewer significant ones, never rounded", () => {
    expect(unitAmount('1000', 2)).toBe('1,000.00');
    expect(unitAmount('1234567.5', 2)).toBe('1,234,567.50');
    expect(unitAmount('0.123450', 2)).toBe('0.12345');
    expect(unitAmount('10.500000', 2)).toBe('10.50');
    expect(unitAmount('1500', 0)).toBe('1,500');
    expect(unitAmount(undefined, 2)).toBe('');
  });

  test('rateText: a Tasa as a percentage, a Cuota as an amount', () => {
    expect(rateText('Tasa', '0.160000')).toBe('16 %');
    expect(rateText('Tasa', '0.080000')).toBe('8 %');
    expect(rateText('Tasa', '0.000000')).toBe('0 %');
    expect(rateText('Tasa', '0.106667')).toBe('10.6667 %');
    expect(rateText('Tasa', '0.012500')).toBe('1.25 %');
    expect(rateText('Tasa', '0.265000')).toBe('26.5 %');
    expect(rateText('Cuota', '1.500000')).toBe('1.50');
    expect(rateText('Cuota', '0.298800')).toBe('0.2988');
    expect(taxLine('Traslado', { Impuesto: '003', TipoFactor: 'Cuota', TasaOCuota: '1.500000', Base: '10', Importe: '15.00' }, 'MXN')).toBe(
      'Traslado 003 - IEPS Cuota 1.50 · Base $10 · Importe $15.00',
    );
  });

  test('printedDate and money', () => {
    expect(printedDate('2026-11-05T09:07:59')).toBe('05/11/2026 09:07');
    expect(printedDate('2026-11-05')).toBe('05/11/2026');
    expect(printedDate(undefined)).toBe('');
    expect(money('1,160.00', 'MXN')).toBe('$1,160.00');
    expect(money('-12.00', 'MXN')).toBe('-$12.00');
    expect(money('1,160.00', 'EUR')).toBe('EUR 1,160.00');
    expect(money('0', 'XXX')).toBe('0');
  });
});
