import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { sealRetencion } from '../../../src/cfdi/retenciones/build.ts';
import type { RetencionInput } from '../../../src/cfdi/retenciones/input.ts';
import { renderRetencionPdf } from '../../../src/cfdi/retenciones/pdf.ts';
import { PdfPool } from '../../../src/invoices/cfdis/pdf-pool.ts';
import { prepareRetencion } from '../../../src/cfdi/retenciones/prepare.ts';
import { child, childrenNamed, parseXml } from '../../../src/cfdi/xml.ts';
import { decodeQrs, readPdf, squash } from '../pdf/carta-porte.ts';
import { arrendamiento, context, dividendos, pagosAExtranjeros, plataformas, sandboxStamp, signer } from './documents.ts';

/**
 * The printed Retenciones 2.0, read back independently of the renderer (pdf.js for the text, the QR symbol rebuilt
 * from the page's rectangles and decoded with jsQR, as the CFDI PDF tests do): the engine's four documents, stamped
 * by the sandbox, show their parties, key, period, each tax withheld, the totals, their complement in words, the TFD
 * and seals, and a QR with SAT's retenciones verification URL computed here from the XML.
 */

async function stamped(input: RetencionInput): Promise<string> {
  const prepared = await prepareRetencion(input, context);
  expect(prepared.errors).toEqual([]);
  return (await sandboxStamp((await sealRetencion(prepared.model!, signer)).xml)).xml;
}

async function render(xml: string, options: Parameters<typeof renderRetencionPdf>[1] = { sandbox: true }) {
  const bytes = await renderRetencionPdf(xml, options);
  const pages = await readPdf(bytes);
  const all = pages.map((p) => p.map((i) => i.str).join(' ')).join(' ');
  /** The runs on the baseline of the first run that equals `first`, left to right: a table row. */
  const row = (first: string) => {
    for (const items of pages) {
      const anchor = items.find((i) => i.str === first);
      if (anchor)
        return items
          .filter((i) => Math.abs(i.transform[5]! - anchor.transform[5]!) < 0.5)
          .sort((p, q) => p.transform[4]! - q.transform[4]!)
          .map((i) => i.str);
    }
    throw new Error(`"${first}" is not on the PDF`);
  };
  return { bytes, pages, all, compact: squash(all), row };
}

/** SAT's retenciones verification URL, from the XML (docs/sat-rules.md §4). */
function expectedQr(xml: string): string {
  const root = parseXml(xml);
  const tfd = child(child(root, 'retenciones:Complemento')!, 'tfd:TimbreFiscalDigital')!.attrs;
  const receptor = child(root, 'retenciones:Receptor')!;
  const nacional = child(receptor, 'retenciones:Nacional')?.attrs;
  const [int, frac = ''] = child(root, 'retenciones:Totales')!.attrs.MontoTotOperacion!.split('.');
  const tt = `${int}.${frac.replace(/0+$/, '') || '0'}`;
  const who = nacional ? `rr=${nacional.RfcR}` : `nr=${child(receptor, 'retenciones:Extranjero')!.attrs.NumRegIdTribR!.padStart(20, '0')}`;
  return `https://prodretencionverificacion.clouda.sat.gob.mx/?id=${tfd.UUID}&re=${child(root, 'retenciones:Emisor')!.attrs.RfcE}&${who}&tt=${tt}&fe=${root.attrs.Sello!.slice(-8)}`;
}

const grouped = (amount: string | undefined) => (amount ?? '').replace(/^(\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
const pesos = (amount: string | undefined) => `$${grouped(amount)}`;

describe.each([
  ['plataformas tecnológicas', plataformas, '26 - Servicios mediante Plataformas Tecnológicas', 'SERVICIOS DE PLATAFORMAS TECNOLÓGICAS'],
  ['dividendos', dividendos, '14 - Dividendos o utilidades distribuidas', 'DIVIDENDOS'],
  ['pagos a extranjeros', pagosAExtranjeros, '18 - Pagos realizados a favor de residentes en el extranjero', 'PAGOS A EXTRANJEROS'],
  ['arrendamiento (no complement)', arrendamiento, '05 - Arrendamiento', undefined],
] as const)('%s', (_, input, clave, complementTitle) => {
  test('every value of the document is on the page, and the QR says what SAT verifies', async () => {
    const xml = await stamped(input);
    const root = parseXml(xml);
    const tfd = child(child(root, 'retenciones:Complemento')!, 'tfd:TimbreFiscalDigital')!.attrs;
    const { all, compact, bytes, row } = await render(xml);

    expect(all).toContain(tfd.UUID!);
    expect(all).toContain(tfd.RfcProvCertif!);
    expect(all).toContain(tfd.NoCertificadoSAT!);
    expect(all).toContain('27/11/2026 12:00'); // FechaTimbrado and FechaExp, as read in Mexico
    expect(all).toContain(clave);
    expect(all).toContain('ESCUELA KEMPER URGATE');
    expect(all).toContain(input.receptor.nombre);
    expect(all).toContain(input.receptor.nacionalidad);
    if (input.receptor.nacionalidad === 'Nacional') expect(all).toContain(input.receptor.rfc!);
    else expect(all).toContain(input.receptor.num_reg_id_trib!);
    expect(all).toContain(`Ejercicio ${input.periodo.ejercicio}`);
    // Totales and each ImpRetenidos, as the XML has them.
    const totales = child(root, 'retenciones:Totales')!;
    expect(row('Monto total de la operación')).toEqual(['Monto total de la operación', pesos(totales.attrs.MontoTotOperacion)]);
    expect(row('Monto total gravado')).toEqual(['Monto total gravado', pesos(totales.attrs.MontoTotGrav)]);
    expect(row('Monto total exento')).toEqual(['Monto total exento', pesos(totales.attrs.MontoTotExent)]);
    expect(row('Total retenido')).toEqual(['Total retenido', pesos(totales.attrs.MontoTotRet)]);
    const impuestos = childrenNamed(totales, 'retenciones:ImpRetenidos');
    expect(impuestos.length).toBeGreaterThan(0);
    for (const i of impuestos) {
      const name = { '001': '001 - ISR', '002': '002 - IVA', '003': '003 - IEPS' }[i.attrs.ImpuestoRet!]!;
      const tipoPago = {
        '01': '01 - Pago definitivo IVA',
        '02': '02 - Pago definitivo IEPS',
        '03': '03 - Pago definitivo ISR',
        '04': '04 - Pago provisional ISR',
      }[i.attrs.TipoPagoRet!];
      expect(row(name)).toEqual([name, tipoPago!, pesos(i.attrs.BaseRet), pesos(i.attrs.MontoRet)]);
    }
    // The seals and the TFD's cadena, whole (they wrap across lines).
    expect(compact).toContain(root.attrs.Sello!);
    expect(compact).toContain(tfd.SelloSAT!);
    expect(compact).toContain(`||1.1|${tfd.UUID}|${tfd.FechaTimbrado}|${tfd.RfcProvCertif}|${tfd.SelloCFD}|${tfd.NoCertificadoSAT}||`);
    if (complementTitle) expect(all).toContain(complementTitle);
    else expect(all).not.toContain('COMPLEMENTO');
    expect(all).toContain('SIN VALIDEZ FISCAL — SANDBOX');

    const qrs = await decodeQrs(bytes);
    expect(qrs.map((q) => q.text)).toEqual([expectedQr(xml)]);
  });
});

describe('the complements in words', () => {
  test('Plataformas Tecnológicas: its totals, and one row per service', async () => {
    const xml = await stamped(plataformas);
    const { all, row } = await render(xml);
    const node = child(child(parseXml(xml), 'retenciones:Complemento')!, 'plataformasTecnologicas:ServiciosPlataformasTecnologicas')!;
    expect(all).toContain(`Periodicidad 04 - Mensual`);
    expect(all).toContain(`Número de servicios 2`);
    expect(all).toContain(`Monto total de los servicios sin IVA ${pesos(node.attrs.MonTotServSIVA)}`);
    expect(all).toContain(`Total de IVA trasladado ${pesos(node.attrs.TotalIVATrasladado)}`);
    expect(all).toContain(`Monto total por uso de la plataforma ${pesos(node.attrs.MonTotalporUsoPlataforma)}`);
    // Date, form of payment, type / subtype, price without IVA, IVA rate and amount, commission, then the details.
    expect(row('05/10/2026').slice(0, 7)).toEqual(['05/10/2026', '03', '01', '$6,000.00', '16 %', '$960.00', '$600.00']);
    expect(row('20/10/2026')).toEqual(['20/10/2026', '03', '11 / 09', '$4,000.00', '16 %', '$640.00', '$400.00', 'Base del IVA trasladado: $4,000.00']);
    expect(all).toContain('Base del IVA trasladado: $6,000.00 · Comisión: 10 % de $6,000.00');
  });

  test('Dividendos and Pagos a extranjeros: their fields, labelled', async () => {
    const div = await render(await stamped(dividendos));
    expect(div.all).toContain('Clave del tipo de dividendo o utilidad 01');
    expect(div.all).toContain('ISR acreditable retenido en México $50,000.00');
    expect(div.all).toContain('Tipo de sociedad que distribuye Sociedad Nacional');
    const pagos = await render(await stamped(pagosAExtranjeros));
    expect(pagos.all).toContain('¿Es el beneficiario efectivo del cobro? No');
    expect(pagos.all).toContain('País de residencia para efectos fiscales US');
    expect(pagos.all).toContain('Regalías por el uso de software');
  });

  test('a complement taken as XML is named; many services run onto further pages under their titles', async () => {
    const sector =
      '<sectorfinanciero:SectorFinanciero xmlns:sectorfinanciero="http://www.sat.gob.mx/esquemas/retencionpago/1/sectorfinanciero" Version="1.0" IdFideicom="F-2026-01" DescripFideicom="Fideicomiso de inversión"/>';
    const raw = await render(await stamped({ ...arrendamiento, cve_retenc: '27', complementos_xml: [sector] }));
    expect(raw.all).toContain('COMPLEMENTO Complemento Sector financiero');

    const servicio = plataformas.plataformas_tecnologicas!.servicios[0]!;
    const many = structuredClone(plataformas);
    many.plataformas_tecnologicas!.servicios = Array.from({ length: 90 }, () => ({ ...servicio, precio_serv_sin_iva: '100' }));
    many.totales = { monto_tot_operacion: '9000', monto_tot_grav: '9000' };
    many.impuestos_retenidos = [{ impuesto_ret: '001', base_ret: '9000', tasa: '0.025', tipo_pago_ret: '04' }];
    const long = await render(await stamped(many));
    expect(long.pages.length).toBeGreaterThan(2);
    expect(long.pages.filter((p) => p.some((i) => i.str === 'Precio sin IVA')).length).toBeGreaterThan(1);
    expect(long.all.match(/05\/10\/2026/g)?.length).toBe(90);
    expect(long.all).toContain(`Página ${long.pages.length} de ${long.pages.length}`);
  });
});

describe('marks, branding and hostile text', () => {
  test('a name with markup, an RTL override and an ampersand prints as the text it is', async () => {
    const xml = (await stamped(arrendamiento))
      .replace('NomDenRazSocR="KARLA FUENTE NOLASCO"', 'NomDenRazSocR="&lt;script&gt;alert(1)&lt;/script&gt; &amp; \u202eOCSAN"')
      .replace('NomDenRazSocE="ESCUELA KEMPER URGATE"', 'NomDenRazSocE="&lt;b&gt;KEMPER&lt;/b&gt; &quot;S&amp;A&quot;"');
    const { all, compact } = await render(xml);
    expect(all).toContain('<script>alert(1)</script> &');
    expect(compact).toContain('OCSAN');
    expect(all).toContain('<b>KEMPER</b> "S&A"');
  });

  test('cancelled, live and branded: the marks follow the options', async () => {
    const xml = await stamped(arrendamiento);
    const logo = { bytes: new Uint8Array(readFileSync(new URL('../../fixtures/branding/logo.png', import.meta.url))), type: 'image/png' as const };
    const cancelled = await render(xml, { sandbox: false, cancelled: true, branding: { logo, accentColor: '#aa3300' } });
    expect(cancelled.all).toContain('RETENCIÓN CANCELADA');
    expect(cancelled.all).not.toContain('SANDBOX');
    expect(cancelled.all).toContain('Este documento es una representación impresa de un CFDI de retenciones e información de pagos versión 2.0');
    // Reproducible: the same XML and options give the same bytes.
    expect(await renderRetencionPdf(xml, { sandbox: true })).toEqual(await renderRetencionPdf(xml, { sandbox: true }));
  });

  test('the PDF pool renders a Retenciones on its threads, as it renders a CFDI', async () => {
    const xml = await stamped(arrendamiento);
    const pool = new PdfPool(1, 1);
    // The threads compress with the runtime's zlib: the same page, other bytes.
    const text = async (bytes: Uint8Array) => (await readPdf(bytes)).map((p) => p.map((i) => i.str).join(' '));
    const pooled = await text(await pool.render(xml, { sandbox: true }, 'tenant-ret'));
    expect(pooled).toEqual(await text(await renderRetencionPdf(xml, { sandbox: true })));
    expect(pooled.join(' ')).toContain('CFDI DE RETENCIONES');
  });

  test('a foreign receptor without NumRegIdTribR: nr is twenty zeros (docs/decisions.md)', async () => {
    const xml = (await stamped(dividendos)).replace(' NumRegIdTribR="998877665544332211"', '');
    const [qr] = await decodeQrs(await renderRetencionPdf(xml, { sandbox: true }));
    expect(qr!.text).toContain('&re=EKU9003173C9&nr=00000000000000000000&tt=500000.0&fe=');
  });

  test('only a stamped Retenciones has a printed representation', async () => {
    const prepared = await prepareRetencion(arrendamiento, context);
    const sealed = await sealRetencion(prepared.model!, signer);
    await expect(renderRetencionPdf(sealed.xml, { sandbox: true })).rejects.toThrow('TimbreFiscalDigital');
    await expect(renderRetencionPdf('<cfdi:Comprobante/>', { sandbox: true })).rejects.toThrow('retenciones:Retenciones');
  });
});
