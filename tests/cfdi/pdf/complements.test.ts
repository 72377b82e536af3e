import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { CONCEPTO_NOTES } from '../../../src/cfdi/complements/index.ts';
import { renderCfdiPdf } from '../../../src/cfdi/pdf.ts';
import { printedDate } from '../../../src/cfdi/pdf/format.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../../../src/cfdi/xml.ts';

/**
 * The printed representation of Pagos 2.0 and Nómina 1.2 documents, rendered straight from SAT's samples and read
 * back with pdf.js (independent of our code): every related document, every percepción and deducción, the totals;
 * a long payment paginates; Pago and Traslado print no money lines; an Ingreso prints its totals as before.
 */
const SAMPLES = new URL('../../fixtures/sat/samples/', import.meta.url).pathname;
const sample = (name: string) => readFileSync(`${SAMPLES}${name}`, 'utf8');
const WATM = sample('cfdi40-pago20-sandbox-WATM.xml');
const TFD = /<tfd:TimbreFiscalDigital[^>]*\/>/.exec(WATM)![0];
/** SAT's sealed-but-unstamped Pago, with the WATM sample's TFD so it can be printed (only stamped CFDIs are). */
const EKU_PAGO = sample('cfdi40-pago20-sellado-sin-timbre-EKU.xml').replace('</cfdi:Complemento>', `${TFD}</cfdi:Complemento>`);
const NOMINA = sample('cfdi40-nomina12-sin-sello.xml');
const INGRESO = sample('cfdi40-ingreso-iva-sandbox-EKU.xml');

interface Item {
  str: string;
  transform: number[];
}
/** Each page's text runs, as pdf.js reads them (same reading as tests/invoices/cfdis/pdf.test.ts). */
async function readPdf(bytes: Uint8Array) {
  const task = getDocument({ data: bytes.slice(), disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  const doc = await task.promise;
  const pages: Item[][] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    pages.push(((await page.getTextContent()).items as Item[]).filter((i) => i.str !== undefined && i.str.trim() !== ''));
  }
  await task.destroy();
  return pages;
}

async function render(xml: string) {
  const pages = await readPdf(await renderCfdiPdf(xml, { sandbox: true }));
  const all = pages.map((p) => p.map((i) => i.str).join(' ')).join(' ');
  /** The runs on the baseline of the last run that equals `first`, left to right: a table row or a totals line. */
  const row = (first: string) => {
    for (const items of [...pages].reverse()) {
      const anchor = items.findLast((i) => i.str === first);
      if (anchor)
        return items
          .filter((i) => Math.abs(i.transform[5]! - anchor.transform[5]!) < 0.5)
          .sort((p, q) => p.transform[4]! - q.transform[4]!)
          .map((i) => i.str);
    }
    throw new Error(`"${first}" is not on the PDF`);
  };
  return { pages, all, row, compact: squash(all) };
}

const grouped = (amount: string | undefined) => (amount ?? '').replace(/^(\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
/** An amount in pesos as printed: "$5,186.10". */
const pesos = (amount: string | undefined) => `$${grouped(amount)}`;
const squash = (s: string) => s.replace(/\s+/g, '');
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const complement = (xml: string, name: string) => child(child(parseXml(xml), 'cfdi:Complemento')!, name)!;

/** Every pago and related document of the Pagos complement is on the PDF, each document's figures on its row. */
function expectPagos(r: Awaited<ReturnType<typeof render>>, pagos: XmlNode) {
  expect(r.all).toContain('COMPLEMENTO DE PAGO');
  expect(r.all).toContain(grouped(child(pagos, 'pago20:Totales')!.attrs.MontoTotalPagos));
  // Totales are in MXN.
  for (const [attr, value] of Object.entries(child(pagos, 'pago20:Totales')!.attrs)) expect(r.all, attr).toContain(pesos(value));
  for (const pago of childrenNamed(pagos, 'pago20:Pago')) {
    const p = pago.attrs;
    for (const v of [
      printedDate(p.FechaPago),
      p.MonedaP,
      grouped(p.Monto),
      p.NumOperacion,
      p.RfcEmisorCtaOrd,
      p.CtaOrdenante,
      p.RfcEmisorCtaBen,
      p.CtaBeneficiario,
    ]) {
      if (v) expect(r.all).toContain(v);
    }
    for (const docto of childrenNamed(pago, 'pago20:DoctoRelacionado')) {
      const d = docto.attrs;
      const cells = r.row(d.IdDocumento!);
      const serieFolio = [d.Serie, d.Folio].filter(Boolean).join('-');
      expect(d.MonedaDR).toBe('MXN');
      expect(cells.slice(0, serieFolio ? 9 : 8)).toEqual([
        d.IdDocumento!,
        ...(serieFolio ? [serieFolio] : []),
        d.MonedaDR!,
        d.EquivalenciaDR!,
        d.NumParcialidad!,
        pesos(d.ImpSaldoAnt),
        pesos(d.ImpPagado),
        pesos(d.ImpSaldoInsoluto),
        expect.stringContaining(d.ObjetoImpDR!) as unknown as string,
      ]);
    }
  }
  // No money lines of the comprobante (Moneda XXX, Total 0) and no amount in words.
  for (const absent of ['Subtotal', 'Total XXX', 'Importe con letra', 'CERO']) expect(r.all).not.toContain(absent);
}

describe('Complemento de pagos 2.0 on the PDF', () => {
  test('SAT sandbox sample (WATM): totals, the pago, its related document and its taxes', async () => {
    const r = await render(WATM);
    expectPagos(r, complement(WATM, 'pago20:Pagos'));
    expect(r.all).toContain('01 - Efectivo');
    expect(r.row('Traslado 002 - IVA')).toEqual(['Traslado 002 - IVA', 'Tasa', '16 %', '$862.07', '$137.93']);
    expect(r.compact).toContain(squash('Traslado 002 - IVA Tasa 16 % · Base $862.07 · Importe $137.93')); // the document's taxes
    expect(r.all).toContain('F-PPD-1');
  });

  test('SAT sample (EKU, two documents, bank accounts), with a TFD added', async () => {
    const r = await render(EKU_PAGO);
    expectPagos(r, complement(EKU_PAGO, 'pago20:Pagos'));
    expect(r.all).toContain('03 - Transferencia electrónica de fondos');
    expect(r.row('00000000-1111-2222-3333-00000000000B').slice(0, 7)).toEqual([
      '00000000-1111-2222-3333-00000000000B',
      'MXN',
      '1',
      '1',
      '$10,000.00',
      '$3,000.00',
      '$7,000.00',
    ]);
    expect(r.row('Traslado 002 - IVA')).toEqual(['Traslado 002 - IVA', 'Tasa', '16 %', '$12,931.040000', '$2,068.960000']);
  });

  test('60 related documents: several pages, the table continues under its titles, every UUID exactly once', async () => {
    const docto = /<pago20:DoctoRelacionado .*?<\/pago20:DoctoRelacionado>/.exec(WATM)![0];
    const ids = Array.from({ length: 60 }, (_, i) => `5d3a0e7e-923e-4432-a257-${String(i + 1).padStart(12, '0')}`);
    const doctos = ids
      .map((id, i) => docto.replace(/IdDocumento="[^"]*"/, `IdDocumento="${id}"`).replace(/NumParcialidad="1"/, `NumParcialidad="${i + 1}"`))
      .join('');
    const xml = WATM.replace(docto, doctos);
    const r = await render(xml);
    expect(r.pages.length).toBeGreaterThan(1);
    for (const id of ids) expect(occurrences(r.all, id)).toBe(1);
    ids.forEach((id, i) => expect(r.row(id).slice(0, 8)).toEqual([id, 'F-PPD-1', 'MXN', '1', String(i + 1), '$2,000.00', '$1,000.00', '$1,000.00']));
    // Every page holding rows of the table has its titles; nothing is drawn over the footer.
    for (const items of r.pages) {
      if (items.some((i) => ids.includes(i.str))) expect(items.map((i) => i.str)).toContain('Documento relacionado (UUID)');
      for (const i of items) if (ids.includes(i.str)) expect(i.transform[5]!).toBeGreaterThan(66);
    }
    const footers = r.pages.map((items, n) => items.some((i) => i.str === `Página ${n + 1} de ${r.pages.length}`));
    expect(footers.every(Boolean)).toBe(true);
  });
});

describe('Complemento de nómina 1.2 on the PDF', () => {
  const nomina = complement(NOMINA, 'nomina12:Nomina');
  const receptor = child(nomina, 'nomina12:Receptor')!.attrs;

  test('period, employer and employee data', async () => {
    const r = await render(NOMINA);
    expect(r.all).toContain('RECIBO DE NÓMINA');
    expect(r.all).toContain('O - Nómina ordinaria');
    expect(r.all).toContain('16/04/2026 al 30/04/2026');
    for (const v of [printedDate(nomina.attrs.FechaPago), nomina.attrs.NumDiasPagados!, child(nomina, 'nomina12:Emisor')!.attrs.RegistroPatronal!])
      expect(r.all).toContain(v);
    for (const attr of ['Curp', 'NumSeguridadSocial', 'NumEmpleado', 'Puesto', 'Departamento', 'SalarioDiarioIntegrado']) {
      expect(r.all, attr).toContain(receptor[attr]!);
    }
    expect(r.all).toContain(printedDate(receptor.FechaInicioRelLaboral));
    expect(r.all).toContain('78 semanas (P78W)');
    expect(r.all).toContain('04 - Quincenal');
    expect(r.compact).toContain(squash('01 - Contrato de trabajo por tiempo indeterminado'));
    expect(r.compact).toContain(squash('02 - Sueldos (Incluye ingresos señalados en la fracción I del artículo 94 de LISR)'));
  });

  test('percepciones, deducciones and otros pagos, one row each; the totals with the neto', async () => {
    const r = await render(NOMINA);
    for (const { attrs: p } of childrenNamed(child(nomina, 'nomina12:Percepciones')!, 'nomina12:Percepcion')) {
      const cells = r.row(p.Concepto!);
      expect(cells).toContain(p.Clave!);
      expect(cells.slice(-2)).toEqual([pesos(p.ImporteGravado), pesos(p.ImporteExento)]);
      expect(cells[0]).toStartWith(p.TipoPercepcion!);
    }
    for (const { attrs: d } of childrenNamed(child(nomina, 'nomina12:Deducciones')!, 'nomina12:Deduccion')) {
      const cells = r.row(d.Concepto!);
      expect(cells).toContain(d.Clave!);
      expect(cells.at(-1)).toBe(pesos(d.Importe));
      expect(cells[0]).toStartWith(d.TipoDeduccion!);
    }
    const otro = child(child(nomina, 'nomina12:OtrosPagos')!, 'nomina12:OtroPago')!;
    expect(r.row(otro.attrs.Concepto!).slice(-2)).toEqual([pesos(otro.attrs.Importe), pesos(child(otro, 'nomina12:SubsidioAlEmpleo')!.attrs.SubsidioCausado)]);
    // The employee's salaries and the sections' own totals, in pesos too.
    for (const amount of ['$345.74', '$5,186.10', '$122.82']) expect(r.all).toContain(amount);
    expect(r.row('Total de percepciones')).toEqual(['Total de percepciones', '$5,186.10']);
    expect(r.row('Total de otros pagos')).toEqual(['Total de otros pagos', '$0.00']);
    expect(r.row('Total de deducciones')).toEqual(['Total de deducciones', '-$741.10']);
    expect(r.row('Neto a pagar MXN')).toEqual(['Neto a pagar MXN', '$4,445.00']);
    expect(r.all).toContain('CUATRO MIL CUATROCIENTOS CUARENTA Y CINCO PESOS 00/100 M.N.');
    expect(r.all).not.toContain('Subtotal');
  });
});

describe('other types', () => {
  test('Traslado: the conceptos and a note, no money lines and no amount in words', async () => {
    const xml = INGRESO.replace('TipoDeComprobante="I"', 'TipoDeComprobante="T"');
    const r = await render(xml);
    expect(r.all).toContain('TRASLADO');
    expect(r.all).toContain('Portable tetris gamepad pro++');
    expect(r.compact).toContain(squash('Comprobante de traslado: ampara la tenencia y el transporte de las mercancías'));
    for (const absent of ['Subtotal', 'Total MXN', 'Importe con letra', 'PESOS']) expect(r.all).not.toContain(absent);
  });

  test('Ingreso (regression): the totals block as before', async () => {
    const r = await render(INGRESO);
    expect(r.row('Subtotal')).toEqual(['Subtotal', '$3,824.15']);
    expect(r.row('Descuento')).toEqual(['Descuento', '$956.04']);
    expect(r.row('002 - IVA trasladado Tasa 16 %')).toEqual(['002 - IVA trasladado Tasa 16 %', '$458.90']);
    expect(r.row('Total MXN')).toEqual(['Total MXN', '$3,327.01']);
    expect(r.all).toContain('Importe con letra');
    expect(r.all).toContain('TRES MIL TRESCIENTOS VEINTISIETE PESOS 01/100 M.N.');
    for (const absent of ['COMPLEMENTO DE PAGO', 'RECIBO DE NÓMINA']) expect(r.all).not.toContain(absent);
  });
});

describe('a concepto complement on the PDF (CONCEPTO_NOTES)', () => {
  test("its lines under its concepto's description, from the concepto's cfdi:ComplementoConcepto", async () => {
    const xml = INGRESO.replace('</cfdi:Concepto>', '<cfdi:ComplementoConcepto><prueba:Dato Valor="permiso 123"/></cfdi:ComplementoConcepto></cfdi:Concepto>');
    expect(xml).not.toBe(INGRESO);
    expect((await render(xml)).all).not.toContain('Dato de prueba: permiso 123');
    CONCEPTO_NOTES.push({ element: 'prueba:Dato', notes: (n) => [`Dato de prueba: ${n.attrs.Valor}`] });
    try {
      expect((await render(xml)).all).toContain('Dato de prueba: permiso 123');
    } finally {
      CONCEPTO_NOTES.pop();
    }
  });
});
