import { DOMParser } from '@xmldom/xmldom';
import forge from 'node-forge';
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { Dec } from './decimal.ts';
import { child, childrenNamed, el, parseXml, serializeXml } from './xml.ts';

/** c_MotivoCancelacion (docs/sat-rules.md §6.1). */
export const MOTIVOS = ['01', '02', '03', '04'] as const;
export type Motivo = (typeof MOTIVOS)[number];
export const MOTIVO_NAMES: Record<Motivo, string> = {
  '01': 'Comprobante emitido con errores con relación',
  '02': 'Comprobante emitido con errores sin relación',
  '03': 'No se llevó a cabo la operación',
  '04': 'Operación nominativa relacionada en una factura global',
};

/**
 * The request's namespace: a CFDI's (cancelacfd), or a CFDI de Retenciones' (retencionpago/1: the document's, not the
 * cancelaretencion service's, as phpcfdi/xml-cancelacion, SW's SDK and python-satcfdi send it; docs/decisions.md).
 */
const CANCELACION_NS = { cfdi: 'http://cancelacfd.sat.gob.mx', retencion: 'http://www.sat.gob.mx/esquemas/retencionpago/1' } as const;
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';

/**
 * The cancellation request SAT receives through the PAC (docs/sat-rules.md §6.4): one `Folios` per UUID, `Fecha` local
 * time without zone, `FolioSustitucion` only when there is one.
 */
export function buildCancelacionXml(
  r: { rfcEmisor: string; fecha: string; folios: { uuid: string; motivo: Motivo; folioSustitucion?: string }[] },
  document: keyof typeof CANCELACION_NS = 'cfdi',
): string {
  return serializeXml(
    el(
      'Cancelacion',
      {
        xmlns: CANCELACION_NS[document],
        'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema',
        'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
        RfcEmisor: r.rfcEmisor,
        Fecha: r.fecha,
      },
      r.folios.map((f) => el('Folios', {}, [el('Folio', { UUID: f.uuid, Motivo: f.motivo, FolioSustitucion: f.folioSustitucion })])),
    ),
  );
}

const xmlText = (v: string) => v.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
const b64url = (v: string) => Buffer.from(v, 'base64url').toString('base64');

/** RFC 4514 text of a certificate's issuer (most specific first), as XML-DSig's X509IssuerName expects. */
function issuerName(der: Buffer): string {
  const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
  const escapeValue = (v: string) =>
    v
      .replace(/([,+"\\<>;=])/g, '\\$1')
      .replace(/^([ #])/, '\\$1')
      .replace(/ $/, '\\ ');
  return cert.issuer.attributes
    .map((a) => `${a.shortName ?? a.type}=${escapeValue(forge.util.decodeUtf8(String(a.value)))}`)
    .reverse()
    .join(',');
}

/**
 * KeyInfo as phpcfdi/xml-cancelacion writes it: X509Data (issuer and serial, the certificate) and the RSA key
 * value. The serial is the certificate's integer serial in decimal, as XML-DSig defines X509SerialNumber.
 */
function keyInfoContent(certificateDer: Buffer): string {
  const x509 = new X509Certificate(certificateDer);
  const jwk = createPublicKey(x509.publicKey.export({ type: 'spki', format: 'pem' })).export({ format: 'jwk' }) as { n: string; e: string };
  return (
    `<X509Data><X509IssuerSerial><X509IssuerName>${xmlText(issuerName(certificateDer))}</X509IssuerName>` +
    `<X509SerialNumber>${BigInt(`0x${x509.serialNumber}`).toString()}</X509SerialNumber></X509IssuerSerial>` +
    `<X509Certificate>${certificateDer.toString('base64')}</X509Certificate></X509Data>` +
    `<KeyValue><RSAKeyValue><Modulus>${b64url(jwk.n)}</Modulus><Exponent>${b64url(jwk.e)}</Exponent></RSAKeyValue></KeyValue>`
  );
}

/**
 * XML-DSig enveloped signature over the whole document, as SAT's cancellation services expect (docs/sat-rules.md §6.4):
 * inclusive C14N, SHA-1 digest, RSA-SHA1 with the CSD key, `Reference URI=""`, Signature appended to the root.
 */
export function signEnveloped(xml: string, key: { privateKey: KeyObject; certificateDer: Buffer }): string {
  const sig = new SignedXml({
    privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    signatureAlgorithm: `${DSIG}rsa-sha1`,
    canonicalizationAlgorithm: C14N,
    getKeyInfoContent: () => keyInfoContent(key.certificateDer),
  });
  sig.addReference({ xpath: '/*', transforms: [`${DSIG}enveloped-signature`], digestAlgorithm: `${DSIG}sha1`, isEmptyUri: true });
  sig.computeSignature(xml.replace(/^<\?xml[^>]*\?>\s*/, ''), { location: { reference: '/*', action: 'append' } });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${sig.getSignedXml()}`;
}

/** True when the document's enveloped signature verifies with this certificate's key (and only with it). */
export function verifyEnveloped(xml: string, certificateDer: Buffer): boolean {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = doc.getElementsByTagNameNS(DSIG, 'Signature')[0];
  if (!signature) return false;
  const pem = `-----BEGIN CERTIFICATE-----\n${certificateDer.toString('base64')}\n-----END CERTIFICATE-----\n`;
  const sig = new SignedXml({ publicCert: pem, getCertFromKeyInfo: () => null });
  sig.loadSignature(signature);
  try {
    return sig.checkSignature(xml);
  } catch {
    return false;
  }
}

/** What the cancellation rules need from a stamped CFDI, read from its XML. */
export interface CancellationFacts {
  uuid: string;
  tipo: string;
  fecha: string;
  fechaTimbrado: string;
  total: string;
  moneda: string;
  tipoCambio?: string;
  rfcEmisor: string;
  regimenEmisor: string;
  rfcReceptor: string;
  sello: string;
  informacionGlobal: boolean;
  /** CfdiRelacionados of this document: TipoRelacion → UUIDs. */
  relacionados: { tipoRelacion: string; uuid: string }[];
}

export function cancellationFactsOf(xml: string): CancellationFacts {
  const root = parseXml(xml);
  const a = root.attrs;
  const emisor = child(root, 'cfdi:Emisor')?.attrs ?? {};
  const tfd = child(child(root, 'cfdi:Complemento') ?? { name: '', attrs: {}, children: [] }, 'tfd:TimbreFiscalDigital')?.attrs ?? {};
  return {
    uuid: (tfd.UUID ?? '').toUpperCase(),
    tipo: a.TipoDeComprobante ?? '',
    fecha: a.Fecha ?? '',
    fechaTimbrado: tfd.FechaTimbrado ?? '',
    total: a.Total ?? '0',
    moneda: a.Moneda ?? 'MXN',
    tipoCambio: a.TipoCambio,
    rfcEmisor: emisor.Rfc ?? '',
    regimenEmisor: emisor.RegimenFiscal ?? '',
    rfcReceptor: child(root, 'cfdi:Receptor')?.attrs.Rfc ?? '',
    sello: a.Sello ?? '',
    informacionGlobal: child(root, 'cfdi:InformacionGlobal') !== undefined,
    relacionados: childrenNamed(root, 'cfdi:CfdiRelacionados').flatMap((r) =>
      childrenNamed(r, 'cfdi:CfdiRelacionado').map((c) => ({ tipoRelacion: r.attrs.TipoRelacion ?? '', uuid: (c.attrs.UUID ?? '').toUpperCase() })),
    ),
  };
}

const RFC_PUBLICO_GENERAL = 'XAXX010101000';
const RFC_EXTRANJERO = 'XEXX010101000';
const THOUSAND = Dec.parse('1000');

/**
 * Whether the receiver must accept the cancellation (RMF 2.7.1.35; docs/sat-rules.md §6.2): not for totals up to $1,000 MXN,
 * nómina, egresos, traslados, RIF ingresos, público en general or global invoices, foreign receivers, nor when
 * cancelled up to the business day after stamping. Otherwise it does (3 business days; silence accepts).
 * Cases the XML cannot show (sector primario, financial entities, the Federación) are not recognised.
 */
export function receiverAcceptance(f: CancellationFacts, nowLocal: string): { required: boolean; reason: string } {
  const no = (reason: string) => ({ required: false, reason });
  if (f.tipo === 'N') return no('nómina needs no acceptance');
  if (f.tipo === 'E') return no('egresos need no acceptance');
  if (f.tipo === 'T') return no('traslados need no acceptance');
  if (f.rfcReceptor === RFC_PUBLICO_GENERAL || f.informacionGlobal) return no('público en general and global invoices need no acceptance');
  if (f.rfcReceptor === RFC_EXTRANJERO) return no('invoices to foreign receivers need no acceptance');
  if (f.tipo === 'I' && f.regimenEmisor === '621') return no('ingresos of the RIF regime need no acceptance');
  if (f.tipo !== 'P') {
    const mxn = f.moneda === 'MXN' ? Dec.parse(f.total) : Dec.parse(f.total).mul(Dec.parse(f.tipoCambio ?? '1'));
    if (mxn.cmp(THOUSAND) <= 0) return no('total up to $1,000 MXN needs no acceptance');
  }
  const stamped = f.fechaTimbrado.slice(0, 10);
  if (stamped && nowLocal.slice(0, 10) <= nextBusinessDay(stamped)) return no('cancelled up to the business day after stamping needs no acceptance');
  return { required: true, reason: 'the receiver has 3 business days to accept or reject; silence counts as acceptance' };
}

/**
 * The last day a CFDI may be cancelled: CFF 29-A allows the fiscal year of issue, RMF extends it to the annual
 * return's deadline — 31 March of the next year for personas morales (12-character RFC), 30 April for personas
 * físicas (RMF 2.7.1.46 in 2025; docs/sat-rules.md §6.2).
 */
export function cancellationDeadline(fecha: string, rfcEmisor: string): string {
  const year = Number(fecha.slice(0, 4)) + 1;
  return rfcEmisor.length === 12 ? `${year}-03-31` : `${year}-04-30`;
}

/** Statutory rest days (Ley Federal del Trabajo art. 74) that fall on a weekday, for a year. */
function holidays(year: number): Set<string> {
  const d = (m: number, day: number) => `${year}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  const nthMonday = (m: number, n: number) => {
    const first = new Date(Date.UTC(year, m - 1, 1)).getUTCDay();
    return d(m, 1 + ((8 - first) % 7) + 7 * (n - 1));
  };
  const out = new Set([d(1, 1), nthMonday(2, 1), nthMonday(3, 3), d(5, 1), d(9, 16), nthMonday(11, 3), d(12, 25)]);
  if ((year - 2024) % 6 === 0) out.add(d(10, 1)); // transmission of the federal executive
  return out;
}

/** The first business day (Monday–Friday, not a statutory holiday) after a date (YYYY-MM-DD). */
export function nextBusinessDay(date: string): string {
  let t = Date.parse(`${date}T00:00:00Z`);
  for (;;) {
    t += 86_400_000;
    const day = new Date(t);
    const iso = day.toISOString().slice(0, 10);
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6 && !holidays(day.getUTCFullYear()).has(iso)) return iso;
  }
}

/** SAT's ConsultaCFDIService answer (docs/sat-rules.md §6.3), field names as SAT spells them. */
export interface SatStatus {
  CodigoEstatus: string;
  Estado: 'Vigente' | 'Cancelado' | 'No Encontrado';
  EsCancelable: '' | 'No cancelable' | 'Cancelable sin aceptación' | 'Cancelable con aceptación';
  EstatusCancelacion: '' | 'En proceso' | 'Plazo vencido' | 'Cancelado con aceptación' | 'Cancelado sin aceptación' | 'Solicitud rechazada';
  ValidacionEFOS: string;
}
