import type { PdfOptions } from '../pdf.ts';
import { openDocument } from '../pdf/document.ts';
import { amountIn, described, none, printedDate } from '../pdf/format.ts';
import { Layout, type TotalRow } from '../pdf/layout.ts';
import { pageFooters, pageHeader, QR_SIZE, qrBlock, sealLines, totalsBlock } from '../pdf/sections.ts';
import { retencionVerificationUrl } from '../qr.ts';
import { type Tfd, tfdCadena, tfdFromNode } from '../tfd.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../xml.ts';
import { CVE_RETENC_DESCRIPCION, TIPO_PAGO_RET_DESCRIPCION } from './catalogs.ts';
import { BY_NAMESPACE, COMPLEMENTS } from './complements/index.ts';

/**
 * The printed representation of a stamped CFDI de Retenciones e información de pagos 2.0, from its XML only, on the
 * CFDI's page, fonts, header, QR and seal blocks (src/cfdi/pdf/): emisor, receptor (Nacional or Extranjero), the
 * retención and its period, the related document, each tax withheld and the totals, each complement (a structured
 * one in words, through its registry entry's `pdf`; one taken as XML by its name), then the TFD with SAT's
 * retenciones QR (docs/sat-rules.md §4), both seals and the TFD's cadena.
 */

const TITLE = 'CFDI DE RETENCIONES';
const CANCELLED_MARK = 'RETENCIÓN CANCELADA';
const PRINTED_LEGEND = 'Este documento es una representación impresa de un CFDI de retenciones e información de pagos versión 2.0';

const R = 'retenciones';
const pesos = (amount: string | undefined) => amountIn('MXN', amount);
/** "26 - Servicios mediante Plataformas Tecnológicas"; the bare key when the catalog does not know it. */
const keyed = (catalog: Readonly<Record<string, string>>, key: string | undefined) => (key && catalog[key] ? `${key} - ${catalog[key]}` : (key ?? ''));

/** The stamped Retenciones as the sections read it. */
interface PrintedRetencion {
  root: XmlNode;
  a: Record<string, string>;
  emisor: Record<string, string>;
  nacional?: Record<string, string>;
  extranjero?: Record<string, string>;
  tfd: Tfd;
}

function receptorSection(layout: Layout, { root, nacional, extranjero }: PrintedRetencion): void {
  layout.section('RECEPTOR');
  const r = nacional ?? extranjero ?? {};
  layout.fields([
    ['Nombre, denominación o razón social', r.NomDenRazSocR],
    ['Nacionalidad', child(root, `${R}:Receptor`)?.attrs.NacionalidadR],
    ['RFC', nacional?.RfcR],
    ['CURP', nacional?.CurpR],
    ['Domicilio fiscal (código postal)', nacional?.DomicilioFiscalR],
    ['Número de registro de identidad fiscal', extranjero?.NumRegIdTribR],
  ]);
}

function retencionSection(layout: Layout, { root, a }: PrintedRetencion): void {
  const periodo = child(root, `${R}:Periodo`)?.attrs ?? {};
  layout.section('RETENCIÓN');
  layout.fields([
    ['Clave de retención', keyed(CVE_RETENC_DESCRIPCION, a.CveRetenc)],
    ['Descripción de la retención', a.DescRetenc],
  ]);
  layout.fields(
    [
      ['Mes inicial', described('c_Meses', periodo.MesIni)],
      ['Mes final', described('c_Meses', periodo.MesFin)],
      ['Ejercicio', periodo.Ejercicio],
      ['Folio interno', a.FolioInt],
      ['Versión', a.Version],
    ],
    3,
  );
}

function relacionadoSection(layout: Layout, { root }: PrintedRetencion): void {
  const relacionado = child(root, `${R}:CfdiRetenRelacionados`)?.attrs;
  if (!relacionado) return;
  layout.section('CFDI DE RETENCIONES RELACIONADO');
  layout.fields([[described('c_TipoRelacion', relacionado.TipoRelacion), relacionado.UUID]], 1);
}

/** Each tax withheld, then the Totales: the operation's amounts and what was withheld in all. */
function impuestosSection(layout: Layout, { root }: PrintedRetencion): void {
  const totales = child(root, `${R}:Totales`) ?? none;
  const impuestos = childrenNamed(totales, `${R}:ImpRetenidos`);
  if (impuestos.length) {
    layout.section('IMPUESTOS RETENIDOS');
    const row = layout.table([
      { title: 'Impuesto', width: 150 },
      { title: 'Tipo de pago de la retención', width: 170 },
      { title: 'Base de la retención', width: 110, align: 'right', size: 7.5 },
      { title: 'Monto retenido', width: 110, align: 'right', size: 7.5 },
    ]);
    for (const { attrs: i } of impuestos) {
      row([described('c_Impuesto', i.ImpuestoRet), keyed(TIPO_PAGO_RET_DESCRIPCION, i.TipoPagoRet), i.BaseRet ? pesos(i.BaseRet) : '', pesos(i.MontoRet)]);
    }
  }
  const t = totales.attrs;
  layout.section('TOTALES');
  const rows: TotalRow[] = [
    ['Monto total de la operación', pesos(t.MontoTotOperacion)],
    ['Monto total gravado', pesos(t.MontoTotGrav)],
    ['Monto total exento', pesos(t.MontoTotExent)],
  ];
  if (t.UtilidadBimestral) rows.push(['Utilidad bimestral', pesos(t.UtilidadBimestral)]);
  if (t.ISRCorrespondiente) rows.push(['ISR correspondiente', pesos(t.ISRCorrespondiente)]);
  rows.push(['Total retenido', pesos(t.MontoTotRet), true]);
  totalsBlock(layout, rows);
}

/** In the order the document carries them: a structured complement's own section, another's name. */
function complementSections(layout: Layout, { root }: PrintedRetencion): void {
  for (const node of (child(root, `${R}:Complemento`) ?? none).children) {
    if (node.name === 'tfd:TimbreFiscalDigital') continue;
    const prefix = node.name.includes(':') ? node.name.slice(0, node.name.indexOf(':')) : '';
    const namespace = node.attrs[prefix ? `xmlns:${prefix}` : 'xmlns'] ?? root.attrs[`xmlns:${prefix}`] ?? '';
    const structured = COMPLEMENTS.find((c) => c.namespace === namespace);
    if (structured?.pdf) {
      structured.pdf(layout, node);
      continue;
    }
    layout.section('COMPLEMENTO');
    const title = BY_NAMESPACE.get(namespace)?.title ?? node.name.slice(node.name.indexOf(':') + 1);
    layout.fields([['Complemento', title]], 1);
  }
}

function timbreSection(layout: Layout, { a, emisor, nacional, extranjero, root, tfd }: PrintedRetencion): void {
  const url = retencionVerificationUrl({
    uuid: tfd.uuid,
    rfcEmisor: emisor.RfcE ?? '',
    receptor: nacional ? { rfc: nacional.RfcR ?? '' } : { numRegIdTrib: extranjero?.NumRegIdTribR ?? '' },
    montoTotOperacion: child(root, `${R}:Totales`)?.attrs.MontoTotOperacion ?? '0',
    sello: a.Sello ?? '',
  });
  layout.section('TIMBRE FISCAL DIGITAL', QR_SIZE + 6);
  qrBlock(layout, url, [
    ['Folio fiscal (UUID)', tfd.uuid],
    ['Fecha y hora de certificación', printedDate(tfd.fechaTimbrado)],
    ['No. de certificado del emisor', a.NoCertificado ?? ''],
    ['No. de certificado del SAT', tfd.noCertificadoSat],
    ['RFC del proveedor de certificación', tfd.rfcProvCertif],
    ['Fecha y hora de expedición', printedDate(a.FechaExp)],
  ]);
  sealLines(layout, 'Sello digital del CFDI de retenciones', a.Sello ?? '');
  sealLines(layout, 'Sello digital del SAT', tfd.selloSat);
  sealLines(layout, 'Cadena original del complemento de certificación digital del SAT', tfdCadena(tfd));
}

const SECTIONS = [receptorSection, retencionSection, relacionadoSection, impuestosSection, complementSections, timbreSection];

/** The PDF of a stamped Retenciones 2.0; the options are the CFDI PDF's (sandbox and cancelled marks, branding). */
export async function renderRetencionPdf(xml: string, options: PdfOptions): Promise<Uint8Array> {
  const root = parseXml(xml);
  if (root.name !== `${R}:Retenciones`) throw new Error('not a retenciones:Retenciones document');
  const tfdNode = child(child(root, `${R}:Complemento`) ?? none, 'tfd:TimbreFiscalDigital');
  if (!tfdNode) throw new Error('the Retenciones has no TimbreFiscalDigital: only stamped documents have a printed representation');
  const tfd = tfdFromNode(tfdNode);
  const a = root.attrs;
  const receptor = child(root, `${R}:Receptor`) ?? none;
  const printed: PrintedRetencion = {
    root,
    a,
    emisor: child(root, `${R}:Emisor`)?.attrs ?? {},
    nacional: child(receptor, `${R}:Nacional`)?.attrs,
    extranjero: child(receptor, `${R}:Extranjero`)?.attrs,
    tfd,
  };
  const folio = a.FolioInt ? `Folio ${a.FolioInt}` : '';
  const { doc, fonts, accent, logo } = await openDocument(tfd.uuid, options.branding, {
    title: `CFDI de retenciones ${tfd.uuid}`,
    subject: `${TITLE} ${folio}`.trim(),
  });
  const { emisor } = printed;
  const layout = new Layout(doc, fonts, accent, (l) =>
    pageHeader(l, {
      logo,
      nombre: emisor.NomDenRazSocE ?? '',
      lines: [
        `RFC: ${emisor.RfcE ?? ''}`,
        `Régimen fiscal: ${described('c_RegimenFiscal', emisor.RegimenFiscalE)}`,
        `Lugar de expedición: ${a.LugarExpRetenc ?? ''}`,
      ],
      title: TITLE,
      number: folio,
      rows: [
        ['Folio fiscal (UUID)', tfd.uuid],
        ['Fecha de expedición', printedDate(a.FechaExp)],
        ['Fecha de certificación', printedDate(tfd.fechaTimbrado)],
      ],
      sandbox: options.sandbox,
      cancelled: options.cancelled,
      cancelledMark: CANCELLED_MARK,
    }),
  );
  layout.newPage();
  for (const section of SECTIONS) section(layout, printed);
  pageFooters(layout, { legend: PRINTED_LEGEND, sandbox: options.sandbox, cancelled: options.cancelled, cancelledMark: CANCELLED_MARK }); // last: it prints the page count
  return doc.save({ useObjectStreams: true });
}
