import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { renderCfdiPdf } from '../../../src/cfdi/pdf.ts';
import { cartaPorteVerificationUrl } from '../../../src/cfdi/qr.ts';
import { validateAgainstSatXsd } from '../../sat/verify.ts';
import { cartaPorteElement, expectCartaPortePdf, ID_CCP, ORIGEN_FECHA, readPdf, squash, withCartaPorte } from './carta-porte.ts';

/**
 * Acceptance 3 of the Carta Porte issue: the PDF of a Carta Porte document shows the complement's section and both
 * QR codes, each decoding to SAT's verification URL with this document's values. The documents are SAT's stamped
 * sandbox invoice with a hand-written, XSD-valid cartaporte31:CartaPorte in its Complemento (the PDF does not check
 * seals); `checkCartaPorte(xml)` takes any stamped Carta Porte XML, so the engine's own output goes through it alike.
 */
const INGRESO = readFileSync(new URL('../../fixtures/sat/samples/cfdi40-ingreso-iva-sandbox-EKU.xml', import.meta.url).pathname, 'utf8');
const FECHA_TIMBRADO = /FechaTimbrado="([^"]+)"/.exec(INGRESO)![1]!;

/** The Ingreso a carrier bills with, carrying `cartaPorte`; a Traslado is the same with TipoDeComprobante T. */
const document = (options: Parameters<typeof cartaPorteElement>[0] = {}, tipo: 'I' | 'T' = 'I') =>
  withCartaPorte(tipo === 'T' ? INGRESO.replace('TipoDeComprobante="I"', 'TipoDeComprobante="T"') : INGRESO, cartaPorteElement(options));

async function checkCartaPorte(xml: string) {
  const bytes = await renderCfdiPdf(xml, { sandbox: true });
  return expectCartaPortePdf(bytes, xml);
}

describe('the Carta Porte verification URL', () => {
  test("SAT's example (Estándar del complemento Carta Porte 3.1, section 4)", () => {
    expect(
      cartaPorteVerificationUrl({ idCCP: 'CCC3EB8D-81CD-4557-8719-26632D2FA434', fechaOrig: '2023-02-10T10:30:21', fechaTimb: '2023-02-10T10:32:21' }),
    ).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=CCC3EB8D-81CD-4557-8719-26632D2FA434&FechaOrig=2023-02-10T10:30:21&FechaTimb=2023-02-10T10:32:21',
    );
  });
  test("IdCCP, the origin's date and the stamp's, as the XML writes them", () => {
    expect(cartaPorteVerificationUrl({ idCCP: ID_CCP, fechaOrig: ORIGEN_FECHA, fechaTimb: '2025-02-19T08:33:10' })).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=CCC5f0c2-8b1e-4d7a-9c3f-2a6b7e9d1c04&FechaOrig=2025-02-19T10:00:00&FechaTimb=2025-02-19T08:33:10',
    );
  });
});

describe('Complemento Carta Porte 3.1 on the PDF', () => {
  test('the hand-written complements are valid against SAT schemas (every mode, national and international)', async () => {
    for (const xml of [
      document({ mercancias: 50, destinos: 5 }),
      document({ mode: 'maritimo', internacional: true }),
      document({ mode: 'aereo' }, 'T'),
      document({ mode: 'ferroviario', internacional: true }),
    ]) {
      const { valid, errors } = await validateAgainstSatXsd(xml);
      expect(errors).toEqual([]);
      expect(valid).toBe(true);
    }
  }, 60_000);

  test('autotransporte: the section with route, goods, totals, vehicle and figures; both QR codes decode to their URLs', async () => {
    const xml = document();
    const { all, compact, qrs } = await checkCartaPorte(xml);
    expect(qrs.map((q) => q.text)).toEqual([
      expect.stringMatching(/^https:\/\/verificacfdi\.facturaelectronica\.sat\.gob\.mx\/default\.aspx\?id=/) as unknown as string,
      `https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=${ID_CCP}&FechaOrig=${ORIGEN_FECHA}&FechaTimb=${FECHA_TIMBRADO}`,
    ]);
    // Catalog keys with SAT's descriptions.
    for (const text of [
      '15101505 - Combustible diesel',
      '43211500 - Computadores',
      '1202 - GASOLEO o COMBUSTIBLE PARA MOTORES DIESEL',
      '1A1 - Bidones (Tambores) de Acero 1 de tapa no desmontable · Bidones de acero',
      'XBX - Caja',
      'KGM - Kilogramo',
      'TPAF01 - Autotransporte Federal de carga general.',
      'T3S2 - Tractocamión Articulado',
      'CTR004 - Caja Cerrada · placa 8ABC123',
      '01 - Operador',
      '02 - Propietario',
      'PT03 - Tractocamión, PT04 - Remolque',
      // The origin's domicilio: localidad, municipio and estado named from SAT's catalogs.
      'Av. Gregorio Méndez 1500 int. 4, Col. 0347, Loc. 02 - Villahermosa, Mun. 004 - Centro, TAB - Tabasco, MEX - México, C.P. 86000',
      'Referencia: Bodega junto al parque',
      'Transporta 10 de OR000001 a DE000002',
    ])
      expect(compact).toContain(squash(text));
    for (const text of ['IdCCP', 'Transporte internacional', 'Distancia total recorrida (km)', 'Peso bruto total', 'Número total de mercancías'])
      expect(all).toContain(text);
    expect(compact).toContain(squash('Peso bruto total 443.000'));
    // An Ingreso keeps its totals block, next to its conceptos: the complement follows it.
    expect(all.indexOf('Total MXN')).toBeGreaterThan(all.indexOf('CONCEPTOS'));
    expect(all.indexOf('Total MXN')).toBeLessThan(all.indexOf('COMPLEMENTO CARTA PORTE'));
  });

  test('a Traslado by air: the flight and the carrier; no money lines', async () => {
    const { compact, all } = await checkCartaPorte(document({ mode: 'aereo' }, 'T'));
    for (const text of ['Transporte aéreo', 'CA143 - Aeroméxico (Aerovías De México)', 'AMX1234567890', 'XA-ABC', 'TPTA01 - Concesión'])
      expect(compact).toContain(squash(text));
    for (const absent of ['Subtotal', 'Total MXN', 'Importe con letra']) expect(all).not.toContain(absent);
  });

  test('international by sea: customs regime, documents and the foreign origin; the vessel and its container', async () => {
    const { compact } = await checkCartaPorte(document({ mode: 'maritimo', internacional: true }));
    for (const text of [
      'Entrada',
      'USA - Estados Unidos (los)',
      '01 - Autotransporte',
      'IMD - Definitivo de importación.',
      'Documento aduanero: 01 - Pedimento',
      'RFC del importador EKU9003173C9',
      'Fracción arancelaria: 8471300101',
      'XEXX010101000 BORDER SUPPLY LLC',
      'Registro de identidad tributaria: 123456789',
      'Main Street 1200, TX - Texas, USA - Estados Unidos (los), C.P. 78040',
      'B04 - Porta Contenedor',
      'IMO9876543',
      'CM002 - Contenedores refrigerados de 40FT',
      'MSCU1234567',
      'Remolque: CTR004 - Caja Cerrada · placa 9XYZ321',
    ])
      expect(compact).toContain(squash(text));
  });

  test('by rail: service, traffic, rights of way and each car with its containers', async () => {
    const { compact } = await checkCartaPorte(document({ mode: 'ferroviario' }));
    for (const text of [
      'TS02 - Carros Ferroviarios intermodal',
      'TT01 - Tráfico local',
      'CDP001 - D-1 · 13.00 km pagados',
      'TC01 - Furgón',
      'KCSM123456',
      "Contenedor TC02 - 40': vacío 3.800 t, mercancía 26.700 t",
      'FXE9876543',
    ])
      expect(compact).toContain(squash(text));
  });

  test('the TIMBRE FISCAL DIGITAL heading stays with its block: never alone at the foot of a page, whatever the length before it', async () => {
    // Lengths that end the section before it at every height of the last page's foot (9 or 10 goods, 1 to 6 stops).
    const stranded: string[] = [];
    for (const [mercancias, destinos] of [9, 10].flatMap((m) => [1, 2, 3, 4, 5, 6].map((d) => [m, d] as const))) {
      const pages = await readPdf(await renderCfdiPdf(document({ mercancias, destinos }), { sandbox: true }));
      const at = pages.findIndex((items) => items.some((i) => i.str === 'TIMBRE FISCAL DIGITAL'));
      const heading = pages[at]!.find((i) => i.str === 'TIMBRE FISCAL DIGITAL')!;
      // The block's first row, under the heading on its page (the page header has the same label above it).
      const firstRow = pages[at]!.find((i) => i.str === 'Folio fiscal (UUID)' && i.transform[5]! < heading.transform[5]!);
      if (!firstRow) stranded.push(`${mercancias} mercancías, ${destinos} destinos`);
    }
    expect(stranded).toEqual([]);
  }, 60_000);

  test('50 mercancías and 5 destinos: several pages, the tables continue under their titles, nothing overlaps', async () => {
    const xml = document({ mercancias: 50, destinos: 5 });
    const { pages, qrs } = await checkCartaPorte(xml);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    // Every page with goods rows has the table's titles; each "Partida n:" is printed once.
    const text = pages.map((items) => items.map((i) => i.str).join(' '));
    for (const [n, page] of text.entries()) if (/Partida \d+:/.test(page)) expect(page, `page ${n + 1}`).toContain('Bienes transportados');
    const all = text.join(' ');
    for (let i = 1; i <= 50; i++) expect(all.split(`Partida ${i}:`).length - 1, `Partida ${i}`).toBe(1);
    for (let k = 2; k <= 6; k++) expect(all).toContain(`Destino DE00000${k}`);
    expect(qrs).toHaveLength(2);
  }, 30_000);
});
