import { expect } from 'bun:test';
import jsQR from 'jsqr';
import { decodePDFRawStream, PDFArray, PDFDocument, type PDFRawStream } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { child, childrenNamed, parseXml } from '../../../src/cfdi/xml.ts';

/**
 * The printed Carta Porte, read back independently of the renderer: text with pdf.js, the QR symbols rebuilt from the
 * content streams' rectangles and decoded with jsQR. `expectCartaPortePdf(bytes, xml)` checks any stamped CFDI with
 * a cartaporte31:CartaPorte against its XML, so it serves a hand-built document and one the engine stamped alike.
 * `cartaPorteElement` and `withCartaPorte` build the former: a hand-written complement in a stamped sandbox CFDI.
 */

// --- Reading the PDF ----------------------------------------------------------------------------------------

interface Item {
  str: string;
  transform: number[];
  width: number;
  height: number;
}

export async function readPdf(bytes: Uint8Array) {
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

interface QrSymbol {
  page: number;
  /** The symbol's box in points: left, bottom, right, top. */
  box: [number, number, number, number];
  text: string | undefined;
}

/** Every QR symbol of the document, page by page: each is one `q … re … f Q` block of filled rectangles. */
export async function decodeQrs(bytes: Uint8Array): Promise<QrSymbol[]> {
  const pdf = await PDFDocument.load(bytes);
  const symbols: QrSymbol[] = [];
  pdf.getPages().forEach((page, n) => {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
    const ops = streams.map((s) => new TextDecoder().decode(decodePDFRawStream(s as PDFRawStream).decode())).join('\n');
    for (const block of ops.split(/\bQ\b/)) {
      const rects = [...block.slice(block.lastIndexOf('q')).matchAll(/(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) re\b/g)].map(
        (m) => m.slice(1, 5).map(Number) as [number, number, number, number],
      );
      if (rects.length < 20) continue;
      const module = Math.min(...rects.map((r) => r[3]));
      const x0 = Math.min(...rects.map((r) => r[0]));
      const y0 = Math.min(...rects.map((r) => r[1]));
      const x1 = Math.max(...rects.map((r) => r[0] + r[2]));
      const yTop = Math.max(...rects.map((r) => r[1] + r[3]));
      const size = Math.round((x1 - x0) / module);
      const scale = 4;
      const quiet = 4;
      const px = (size + 2 * quiet) * scale;
      const rgba = new Uint8ClampedArray(px * px * 4).fill(255);
      for (const [x, y, w, h] of rects) {
        const col0 = Math.round((x - x0) / module);
        const cols = Math.round(w / module);
        const row = Math.round((yTop - (y + h)) / module);
        for (let c = col0; c < col0 + cols; c++)
          for (let dy = 0; dy < scale; dy++)
            for (let dx = 0; dx < scale; dx++) {
              const i = (((quiet + row) * scale + dy) * px + (quiet + c) * scale + dx) * 4;
              rgba[i] = rgba[i + 1] = rgba[i + 2] = 0;
            }
      }
      symbols.push({ page: n, box: [x0, y0, x1, yTop], text: jsQR(rgba, px, px)?.data });
    }
  });
  return symbols;
}

// --- What the QR codes must say, computed here from the XML ----------------------------------------------

/** SAT's CFDI verification URL (docs/sat-rules.md §4). */
export function expectedCfdiQr(xml: string): string {
  const root = parseXml(xml);
  const tfd = child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!.attrs;
  const [int, frac = ''] = root.attrs.Total!.split('.');
  const tt = `${int}.${frac.replace(/0+$/, '') || '0'}`;
  const rfc = (r: string) => r.replace(/&/g, '&amp;');
  return `https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=${tfd.UUID}&re=${rfc(child(root, 'cfdi:Emisor')!.attrs.Rfc!)}&rr=${rfc(child(root, 'cfdi:Receptor')!.attrs.Rfc!)}&tt=${tt}&fe=${root.attrs.Sello!.slice(-8)}`;
}

/** SAT's Carta Porte verification URL: IdCCP, the Origen's date and the TFD's, as the XML writes them (docs/sat-rules.md §4). */
function expectedCartaPorteQr(xml: string): string {
  const complemento = child(parseXml(xml), 'cfdi:Complemento')!;
  const cartaPorte = child(complemento, 'cartaporte31:CartaPorte')!;
  const origen = childrenNamed(child(cartaPorte, 'cartaporte31:Ubicaciones')!, 'cartaporte31:Ubicacion').find((u) => u.attrs.TipoUbicacion === 'Origen')!;
  const fechaTimbrado = child(complemento, 'tfd:TimbreFiscalDigital')!.attrs.FechaTimbrado!;
  return `https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=${cartaPorte.attrs.IdCCP}&FechaOrig=${origen.attrs.FechaHoraSalidaLlegada}&FechaTimb=${fechaTimbrado}`;
}

// --- Checks ----------------------------------------------------------------------------------------------

export const squash = (s: string) => s.replace(/\s+/g, '');
const grouped = (amount: string | undefined) => (amount ?? '').replace(/^(\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
/** "2025-02-19T10:00:00" → "19/02/2025 10:00", as the page prints a date-time. */
const printed = (value: string | undefined) => (value ?? '').replace(/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}).*$/, '$3/$2/$1 $4:$5');

/** A text run's box (left, bottom, right, top), through its text matrix; undefined for a rotated run (the watermark). */
function boxOf(it: Item): [number, number, number, number] | undefined {
  const [a, b, , , e, f] = it.transform as [number, number, number, number, number, number];
  if (Math.abs(b) > 1e-6 || a <= 0) return undefined;
  return [e, f, e + it.width, f + it.height];
}
const intersect = (p: number[], q: number[], slack: number) => p[0]! < q[2]! - slack && q[0]! < p[2]! - slack && p[1]! < q[3]! - slack && q[1]! < p[3]! - slack;

/** No two runs of text overlap, none overlaps a QR symbol, all sit inside the page and above the footer's rule. */
function expectCleanLayout(pages: Item[][], qrs: QrSymbol[]): void {
  pages.forEach((items, n) => {
    const boxes = items.flatMap((it) => {
      const box = boxOf(it);
      return box ? [{ it, box }] : [];
    });
    for (const { it, box } of boxes) {
      if (box[0] < 36 - 0.5 || box[2] > 576 + 0.5 || box[3] > 792 - 36) throw new Error(`page ${n + 1}: "${it.str}" leaves the body at ${box}`);
      // The footer (legend and page number) sits under its rule at y = 56; everything else above it.
      const footer = it.str.startsWith('Este documento es una representación impresa') || /^Página \d+ de \d+$/.test(it.str);
      if (!footer && box[1] < 57) throw new Error(`page ${n + 1}: "${it.str}" runs into the footer (y = ${box[1]})`);
      for (const q of qrs.filter((s) => s.page === n)) if (intersect(box, q.box, 0.5)) throw new Error(`page ${n + 1}: "${it.str}" is drawn over a QR code`);
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        if (intersect(boxes[i]!.box, boxes[j]!.box, 0.5))
          throw new Error(`page ${n + 1}: "${boxes[i]!.it.str}" overlaps "${boxes[j]!.it.str}" (${boxes[i]!.box} / ${boxes[j]!.box})`);
  });
}

/** The texts in `needles` appear in `haystack` in that order (each after the previous one). */
function expectInOrder(haystack: string, needles: string[]) {
  let from = 0;
  for (const needle of needles) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) throw new Error(`"${needle}" is not on the PDF (after position ${from})`);
    from = at + needle.length;
  }
}

/**
 * Acceptance 3 on one document: the Carta Porte section with the XML's values (route, goods, totals, vehicle,
 * figures), every page numbered and clean, and exactly two QR symbols, the CFDI's and the Carta Porte's.
 */
export async function expectCartaPortePdf(bytes: Uint8Array, xml: string) {
  const pages = await readPdf(bytes);
  const all = pages.map((p) => p.map((i) => i.str).join(' ')).join(' ');
  const compact = squash(all);
  const has = (value: string | undefined, what: string) => {
    if (value) expect(compact, what).toContain(squash(value));
  };
  const cartaPorte = child(child(parseXml(xml), 'cfdi:Complemento')!, 'cartaporte31:CartaPorte')!;
  const c = cartaPorte.attrs;

  expect(all).toContain('COMPLEMENTO CARTA PORTE');
  has(c.IdCCP, 'IdCCP');
  has(c.TotalDistRec && grouped(c.TotalDistRec), 'TotalDistRec');
  has(c.PaisOrigenDestino, 'PaisOrigenDestino');

  const ubicaciones = childrenNamed(child(cartaPorte, 'cartaporte31:Ubicaciones')!, 'cartaporte31:Ubicacion');
  for (const u of ubicaciones) {
    const domicilio = child(u, 'cartaporte31:Domicilio')?.attrs ?? {};
    for (const [what, value] of Object.entries({
      RFCRemitenteDestinatario: u.attrs.RFCRemitenteDestinatario,
      IDUbicacion: u.attrs.IDUbicacion,
      NombreRemitenteDestinatario: u.attrs.NombreRemitenteDestinatario,
      FechaHoraSalidaLlegada: printed(u.attrs.FechaHoraSalidaLlegada),
      DistanciaRecorrida: u.attrs.DistanciaRecorrida && grouped(u.attrs.DistanciaRecorrida),
      Calle: domicilio.Calle,
      CodigoPostal: domicilio.CodigoPostal,
    }))
      has(value, `Ubicacion ${u.attrs.IDUbicacion ?? ''} ${what}`);
  }

  const mercancias = child(cartaPorte, 'cartaporte31:Mercancias')!;
  const goods = childrenNamed(mercancias, 'cartaporte31:Mercancia');
  // Every description, in the document's order, read down the goods table's description column (its left edge is
  // that of its title, beside "Bienes transportados"): a description may wrap over lines and pages.
  const titles = pages.flat().find((i) => i.str === 'Bienes transportados')!;
  const column = pages.flat().find((i) => i.str === 'Descripción' && Math.abs(i.transform[5]! - titles.transform[5]!) < 0.5)!.transform[4]!;
  const descriptions = squash(
    pages
      .flat()
      .filter((i) => Math.abs(i.transform[4]! - column) < 0.01 && i.str !== 'Descripción')
      .map((i) => i.str)
      .join(''),
  );
  expectInOrder(
    descriptions,
    goods.map((m) => squash(m.attrs.Descripcion!)),
  );
  for (const m of goods) {
    has(m.attrs.BienesTransp, 'BienesTransp');
    has(grouped(m.attrs.PesoEnKg), 'PesoEnKg');
    has(m.attrs.CveMaterialPeligroso, 'CveMaterialPeligroso');
    has(m.attrs.Embalaje, 'Embalaje');
    for (const d of childrenNamed(m, 'cartaporte31:DocumentacionAduanera')) has(d.attrs.NumPedimento ?? d.attrs.IdentDocAduanero, 'documento aduanero');
    // Amounts with their currency's sign: $ for pesos (an amount without Moneda), the code for another.
    const moneda = m.attrs.Moneda ?? 'MXN';
    has(m.attrs.ValorMercancia && `${moneda === 'MXN' ? '$' : `${moneda} `}${grouped(m.attrs.ValorMercancia)}`, 'ValorMercancia');
  }
  has(mercancias.attrs.CargoPorTasacion && `$${grouped(mercancias.attrs.CargoPorTasacion)}`, 'CargoPorTasacion');
  has(grouped(mercancias.attrs.PesoBrutoTotal), 'PesoBrutoTotal');
  has(mercancias.attrs.UnidadPeso, 'UnidadPeso');
  expect(all).toContain('Número total de mercancías');
  has(mercancias.attrs.NumTotalMercancias, 'NumTotalMercancias');

  const auto = child(mercancias, 'cartaporte31:Autotransporte');
  if (auto) {
    const vehiculo = child(auto, 'cartaporte31:IdentificacionVehicular')!.attrs;
    const seguros = child(auto, 'cartaporte31:Seguros')!.attrs;
    for (const v of [
      auto.attrs.PermSCT,
      auto.attrs.NumPermisoSCT,
      vehiculo.ConfigVehicular,
      vehiculo.PlacaVM,
      vehiculo.AnioModeloVM,
      seguros.AseguraRespCivil,
      seguros.PolizaRespCivil,
      seguros.PrimaSeguro && `$${grouped(seguros.PrimaSeguro)}`,
    ])
      has(v, 'Autotransporte');
    for (const r of childrenNamed(child(auto, 'cartaporte31:Remolques') ?? auto, 'cartaporte31:Remolque')) has(r.attrs.Placa, 'Remolque');
  }
  const maritimo = child(mercancias, 'cartaporte31:TransporteMaritimo');
  if (maritimo) for (const k of ['TipoEmbarcacion', 'Matricula', 'NumeroOMI', 'NombreAgenteNaviero', 'NumAutorizacionNaviero']) has(maritimo.attrs[k], k);
  const aereo = child(mercancias, 'cartaporte31:TransporteAereo');
  if (aereo) for (const k of ['PermSCT', 'NumPermisoSCT', 'NumeroGuia', 'CodigoTransportista', 'MatriculaAeronave']) has(aereo.attrs[k], k);
  const ferroviario = child(mercancias, 'cartaporte31:TransporteFerroviario');
  if (ferroviario) {
    for (const k of ['TipoDeServicio', 'TipoDeTrafico']) has(ferroviario.attrs[k], k);
    for (const carro of childrenNamed(ferroviario, 'cartaporte31:Carro')) for (const k of ['TipoCarro', 'MatriculaCarro', 'GuiaCarro']) has(carro.attrs[k], k);
  }

  for (const f of childrenNamed(child(cartaPorte, 'cartaporte31:FiguraTransporte') ?? cartaPorte, 'cartaporte31:TiposFigura'))
    for (const k of ['TipoFigura', 'RFCFigura', 'NombreFigura', 'NumLicencia']) has(f.attrs[k], `figura ${k}`);

  // The two QR codes, in this order, each decoding to its URL computed from the XML.
  const qrs = await decodeQrs(bytes);
  expect(qrs.map((q) => q.text)).toEqual([expectedCfdiQr(xml), expectedCartaPorteQr(xml)]);
  const second = pages[qrs[1]!.page]!.map((i) => i.str).join(' ');
  expect(second).toContain('Código QR del complemento Carta Porte');
  expect(second).toContain(c.IdCCP!);

  pages.forEach((items, n) => expect(items.map((i) => i.str)).toContain(`Página ${n + 1} de ${pages.length}`));
  expectCleanLayout(pages, qrs);
  return { pages, all, compact, qrs };
}

// --- A hand-written Carta Porte in a stamped CFDI -------------------------------------------------------

/** Puts `cartaPorte` into a stamped CFDI's Complemento, with its namespace and schema location on the root. */
export function withCartaPorte(stampedXml: string, cartaPorte: string): string {
  return stampedXml
    .replace('xmlns:cfdi="http://www.sat.gob.mx/cfd/4"', 'xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:cartaporte31="http://www.sat.gob.mx/CartaPorte31"')
    .replace(
      'http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd"',
      'http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd http://www.sat.gob.mx/CartaPorte31 http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd"',
    )
    .replace('<cfdi:Complemento>', `<cfdi:Complemento>${cartaPorte}`);
}

type TransportMode = 'autotransporte' | 'maritimo' | 'aereo' | 'ferroviario';

const attrs = (a: Record<string, string | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${v!.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`)
    .join('');
const el = (name: string, a: Record<string, string | undefined>, children = '') =>
  children ? `<cartaporte31:${name}${attrs(a)}>${children}</cartaporte31:${name}>` : `<cartaporte31:${name}${attrs(a)}/>`;

export const ID_CCP = 'CCC5f0c2-8b1e-4d7a-9c3f-2a6b7e9d1c04';
export const ORIGEN_FECHA = '2025-02-19T10:00:00';

/** Destinations: postal code, estado, municipio, localidad (consistent in SAT's catalogs), street. */
const PLACES = [
  ['64000', 'NLE', '039', '07', 'Av. Constitución'],
  ['44100', 'JAL', '039', '03', 'Av. Juárez'],
  ['06000', 'CMX', '015', '06', 'Calle Madero'],
  ['72000', 'PUE', '114', '03', 'Av. Reforma'],
  ['76000', 'QUE', '014', '01', 'Calle Corregidora'],
] as const;

/** What kinds of goods, cycled: hazardous diesel, computers with a value, boxes of soft drinks, clothes with a guide. */
function mercancia(i: number, destinos: number, internacional: boolean): { xml: string; pesoMilligrams: number } {
  const kind = i % 4;
  const peso = 100 + i * 7;
  const destino = `DE${String((i % destinos) + 2).padStart(6, '0')}`;
  const descripcion =
    i % 10 === 9
      ? `Partida ${i + 1}: ${'lote mixto de refacciones, herramientas y accesorios para mantenimiento de maquinaria agrícola, con embalaje reforzado para trayecto largo (¡frágil! ñandú, pingüino, acción). '.repeat(3).trim()}`
      : `Partida ${i + 1}: ${['combustible diésel a granel', 'computadoras portátiles', 'refrescos en caja', 'prendas de vestir'][kind]}`;
  const base = {
    BienesTransp: ['15101505', '43211500', '50202306', '53102500'][kind],
    Descripcion: descripcion,
    Cantidad: String(10 + i),
    ClaveUnidad: ['LTR', 'H87', 'XBX', 'H87'][kind],
    Unidad: kind === 2 ? undefined : ['Litro', 'Pieza', '', 'Pieza'][kind],
    Dimensiones: kind === 1 ? '50/40/30cm' : undefined,
    MaterialPeligroso: kind === 0 ? 'Sí' : kind === 2 ? undefined : 'No',
    CveMaterialPeligroso: kind === 0 ? '1202' : undefined,
    Embalaje: kind === 0 ? '1A1' : undefined,
    DescripEmbalaje: kind === 0 ? 'Bidones de acero' : undefined,
    PesoEnKg: `${peso}.250`,
    ValorMercancia: kind === 1 ? '15000.00' : undefined,
    Moneda: kind === 1 ? 'MXN' : undefined,
    FraccionArancelaria: internacional && kind === 1 ? '8471300101' : undefined,
  };
  const children = [
    internacional
      ? el('DocumentacionAduanera', { TipoDocumento: '01', NumPedimento: `25  16  3173  ${String(5000000 + i).padStart(7, '0')}`, RFCImpo: 'EKU9003173C9' })
      : '',
    kind === 3
      ? el('GuiasIdentificacion', {
          NumeroGuiaIdentificacion: `GUIA${String(1000000 + i)}`,
          DescripGuiaIdentificacion: 'Paquete de ropa',
          PesoGuiaIdentificacion: '1.500',
        })
      : '',
    el('CantidadTransporta', { Cantidad: String(10 + i), IDOrigen: 'OR000001', IDDestino: destino }),
  ].join('');
  return { xml: el('Mercancia', base, children), pesoMilligrams: peso * 1000 + 250 };
}

function transporte(mode: TransportMode): string {
  switch (mode) {
    case 'autotransporte':
      return el(
        'Autotransporte',
        { PermSCT: 'TPAF01', NumPermisoSCT: 'SCT-0123456-2024' },
        el('IdentificacionVehicular', { ConfigVehicular: 'T3S2', PesoBrutoVehicular: '35.50', PlacaVM: '501AA1', AnioModeloVM: '2021' }) +
          el('Seguros', {
            AseguraRespCivil: 'Seguros El Camino SA',
            PolizaRespCivil: 'RC-998877',
            AseguraMedAmbiente: 'Seguros Verde SA',
            PolizaMedAmbiente: 'MA-112233',
            PrimaSeguro: '1850.00',
          }) +
          el('Remolques', {}, el('Remolque', { SubTipoRem: 'CTR004', Placa: '8ABC123' })),
      );
    case 'maritimo':
      return el(
        'TransporteMaritimo',
        {
          PermSCT: 'TPTM01',
          NumPermisoSCT: 'PTN-2024-001',
          NombreAseg: 'Seguros del Golfo',
          NumPolizaSeguro: 'MAR-445566',
          TipoEmbarcacion: 'B04',
          Matricula: 'MX1234567',
          NumeroOMI: 'IMO9876543',
          AnioEmbarcacion: '2015',
          NombreEmbarc: 'ESTRELLA DEL GOLFO',
          NacionalidadEmbarc: 'MEX',
          UnidadesDeArqBruto: '25000.500',
          TipoCarga: 'CGC',
          Eslora: '210.50',
          Manga: '32.20',
          LineaNaviera: 'Naviera del Golfo',
          NombreAgenteNaviero: 'Agencia Naviera Tabasco',
          NumAutorizacionNaviero: 'ANC001/2022',
          NumViaje: 'V-2025-031',
          NumConocEmbarc: 'BL-778899',
        },
        el(
          'Contenedor',
          { TipoContenedor: 'CM002', MatriculaContenedor: 'MSCU1234567', NumPrecinto: 'PR-55667' },
          el('RemolquesCCP', {}, el('RemolqueCCP', { SubTipoRemCCP: 'CTR004', PlacaCCP: '9XYZ321' })),
        ),
      );
    case 'aereo':
      return el('TransporteAereo', {
        PermSCT: 'TPTA01',
        NumPermisoSCT: 'AFAC-2024-77',
        MatriculaAeronave: 'XA-ABC',
        NombreAseg: 'Seguros Aéreos SA',
        NumPolizaSeguro: 'AER-101010',
        NumeroGuia: 'AMX1234567890',
        LugarContrato: 'Villahermosa, Tabasco',
        CodigoTransportista: 'CA143',
        RFCEmbarcador: 'EKU9003173C9',
        NombreEmbarcador: 'ESCUELA KEMPER URGATE',
      });
    case 'ferroviario':
      return el(
        'TransporteFerroviario',
        { TipoDeServicio: 'TS02', TipoDeTrafico: 'TT01', NombreAseg: 'Seguros Férreos SA', NumPolizaSeguro: 'FER-202020' },
        el('DerechosDePaso', { TipoDerechoDePaso: 'CDP001', KilometrajePagado: '13.00' }) +
          el(
            'Carro',
            { TipoCarro: 'TC01', MatriculaCarro: 'KCSM123456', GuiaCarro: 'G-001', ToneladasNetasCarro: '60.500' },
            el('Contenedor', { TipoContenedor: 'TC02', PesoContenedorVacio: '3.800', PesoNetoMercancia: '26.700' }),
          ) +
          el('Carro', { TipoCarro: 'TC02', MatriculaCarro: 'FXE9876543', GuiaCarro: 'G-002', ToneladasNetasCarro: '45.000' }),
      );
  }
}

/**
 * A hand-written cartaporte31:CartaPorte, valid against SAT's CartaPorte31.xsd: an origin in Villahermosa (or in
 * Laredo, Texas, for an international entry), `destinos` destinations, `mercancias` goods cycling through four kinds
 * (one hazardous with its packaging), the transport of `mode`, and its figures.
 */
export function cartaPorteElement({
  mode = 'autotransporte',
  mercancias = 4,
  destinos = 2,
  internacional = false,
}: {
  mode?: TransportMode;
  mercancias?: number;
  destinos?: number;
  internacional?: boolean;
} = {}): string {
  const distances = Array.from({ length: destinos }, (_, k) => 150 + 37 * k);
  const origen = internacional
    ? el(
        'Ubicacion',
        {
          TipoUbicacion: 'Origen',
          IDUbicacion: 'OR000001',
          RFCRemitenteDestinatario: 'XEXX010101000',
          NombreRemitenteDestinatario: 'BORDER SUPPLY LLC',
          NumRegIdTrib: '123456789',
          ResidenciaFiscal: 'USA',
          FechaHoraSalidaLlegada: ORIGEN_FECHA,
        },
        el('Domicilio', { Calle: 'Main Street', NumeroExterior: '1200', Estado: 'TX', Pais: 'USA', CodigoPostal: '78040' }),
      )
    : el(
        'Ubicacion',
        {
          TipoUbicacion: 'Origen',
          IDUbicacion: 'OR000001',
          RFCRemitenteDestinatario: 'EKU9003173C9',
          NombreRemitenteDestinatario: 'ESCUELA KEMPER URGATE',
          FechaHoraSalidaLlegada: ORIGEN_FECHA,
        },
        el('Domicilio', {
          Calle: 'Av. Gregorio Méndez',
          NumeroExterior: '1500',
          NumeroInterior: '4',
          Colonia: '0347',
          Localidad: '02',
          Municipio: '004',
          Estado: 'TAB',
          Pais: 'MEX',
          CodigoPostal: '86000',
          Referencia: 'Bodega junto al parque',
        }),
      );
  const destinations = distances.map((d, k) => {
    const [cp, estado, municipio, localidad, calle] = PLACES[k % PLACES.length]!;
    return el(
      'Ubicacion',
      {
        TipoUbicacion: 'Destino',
        IDUbicacion: `DE${String(k + 2).padStart(6, '0')}`,
        RFCRemitenteDestinatario: 'MCI7306249Y1',
        NombreRemitenteDestinatario: `MUNICIPIO DE CUAUTITLAN IZCALLI, ALMACÉN ${k + 1}`,
        FechaHoraSalidaLlegada: `2025-02-${20 + k}T09:30:00`,
        DistanciaRecorrida: String(d),
      },
      el('Domicilio', {
        Calle: calle,
        NumeroExterior: String(100 + k),
        Localidad: localidad,
        Municipio: municipio,
        Estado: estado,
        Pais: 'MEX',
        CodigoPostal: cp,
      }),
    );
  });
  const goods = Array.from({ length: mercancias }, (_, i) => mercancia(i, destinos, internacional));
  const total = goods.reduce((sum, g) => sum + g.pesoMilligrams, 0);
  const figuras =
    (mode === 'autotransporte'
      ? el('TiposFigura', { TipoFigura: '01', RFCFigura: 'MOSR770823K88', NumLicencia: 'LFD0012345', NombreFigura: 'RAÚL MORALES SOTO' })
      : '') +
    el(
      'TiposFigura',
      { TipoFigura: '02', RFCFigura: 'EKU9003173C9', NombreFigura: 'ESCUELA KEMPER URGATE' },
      el('PartesTransporte', { ParteTransporte: 'PT03' }) + el('PartesTransporte', { ParteTransporte: 'PT04' }),
    );
  return el(
    'CartaPorte',
    {
      Version: '3.1',
      IdCCP: ID_CCP,
      TranspInternac: internacional ? 'Sí' : 'No',
      EntradaSalidaMerc: internacional ? 'Entrada' : undefined,
      PaisOrigenDestino: internacional ? 'USA' : undefined,
      ViaEntradaSalida: internacional ? '01' : undefined,
      TotalDistRec: String(distances.reduce((s, d) => s + d, 0)),
    },
    (internacional ? el('RegimenesAduaneros', {}, el('RegimenAduaneroCCP', { RegimenAduanero: 'IMD' })) : '') +
      el('Ubicaciones', {}, origen + destinations.join('')) +
      el(
        'Mercancias',
        { PesoBrutoTotal: `${Math.floor(total / 1000)}.${String(total % 1000).padStart(3, '0')}`, UnidadPeso: 'KGM', NumTotalMercancias: String(mercancias) },
        goods.map((g) => g.xml).join('') + transporte(mode),
      ) +
      el('FiguraTransporte', {}, figuras),
  );
}
