import { readFileSync } from 'node:fs';
import { verify } from 'node:crypto';
import { XMLValidator } from 'fast-xml-parser';
import { cadenaOriginal } from '../cadena.ts';
import { COMPLEMENT_STEPS } from '../complements/index.ts';
import { type CertificateInfo, type CertificationAuthorities, checkIssuer, parseCertificate, publicKeyOf } from '../csd.ts';
import { tfdCadena, tfdFromNode } from '../tfd.ts';
import { timeZoneOf, zonedToUtc } from '../time.ts';
import { child, parseXml, type XmlNode } from '../xml.ts';
import { validateWithXmllint } from './xmllint.ts';
import cartaPorte31 from './xsd/CartaPorte31.xsd' with { type: 'file' };
import catCartaPorte from './xsd/catCartaPorte.xsd' with { type: 'file' };
import catCfdi from './xsd/catCFDI.xsd' with { type: 'file' };
import catComExt from './xsd/catComExt.xsd' with { type: 'file' };
import catHidroYPetro from './xsd/catHidroYPetro.xsd' with { type: 'file' };
import catNomina from './xsd/catNomina.xsd' with { type: 'file' };
import catPagos from './xsd/catPagos.xsd' with { type: 'file' };
import cfdv40 from './xsd/cfdv40.xsd' with { type: 'file' };
import comercioExterior20 from './xsd/ComercioExterior20.xsd' with { type: 'file' };
import hidrocarburos from './xsd/hidrocarburospetroliferos.xsd' with { type: 'file' };
import implocal from './xsd/implocal.xsd' with { type: 'file' };
import nomina12 from './xsd/nomina12.xsd' with { type: 'file' };
import pagos20 from './xsd/Pagos20.xsd' with { type: 'file' };
import tdCfdi from './xsd/tdCFDI.xsd' with { type: 'file' };
import tfd11 from './xsd/TimbreFiscalDigitalv11.xsd' with { type: 'file' };

/** One step of the validation; `name` is stable (stored with the received CFDI, filtered on). */
interface ReceivedCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface ReceivedValidation {
  version: '4.0' | '3.3' | 'unknown';
  result: 'validated' | 'invalid' | 'not_validated';
  uuid?: string;
  emisorRfc?: string;
  emisorNombre?: string;
  receptorRfc?: string;
  fecha?: string;
  tipo?: string;
  metodoPago?: string;
  formaPago?: string;
  total?: string;
  moneda?: string;
  serie?: string;
  folio?: string;
  checks: ReceivedCheck[];
}

export interface ReceivedContext {
  /** The tenant's RFC: a received CFDI is addressed to it. */
  receptorRfc: string;
  /** The PAC's SAT stamping certificate (DER) by NoCertificadoSAT, from SAT's certificate repository; undefined: unknown. */
  satCertificate(noCertificadoSat: string): Promise<Buffer | undefined>;
  /** Who issues CSDs (SAT's authorities of the environment). */
  authorities: CertificationAuthorities;
}

const CFDI_40 = 'http://www.sat.gob.mx/cfd/4';
const TFD = 'http://www.sat.gob.mx/TimbreFiscalDigital';
/** Namespaces a document may use without a schema of their own (xsi:schemaLocation, xml:lang). */
const NO_SCHEMA = new Set(['http://www.w3.org/2001/XMLSchema-instance', 'http://www.w3.org/XML/1998/namespace']);

/** The schema of each namespace we validate, as SAT publishes it (./xsd/README.md); another namespace fails `xsd`. */
const SCHEMA_OF: Record<string, string> = {
  [CFDI_40]: 'cfdv40.xsd',
  [TFD]: 'TimbreFiscalDigitalv11.xsd',
  'http://www.sat.gob.mx/Pagos20': 'Pagos20.xsd',
  'http://www.sat.gob.mx/nomina12': 'nomina12.xsd',
  'http://www.sat.gob.mx/CartaPorte31': 'CartaPorte31.xsd',
  'http://www.sat.gob.mx/ComercioExterior20': 'ComercioExterior20.xsd',
  'http://www.sat.gob.mx/implocal': 'implocal.xsd',
  'http://www.sat.gob.mx/hidrocarburospetroliferos': 'hidrocarburospetroliferos.xsd',
};
const XSD_PATHS: Record<string, string> = {
  'cfdv40.xsd': cfdv40,
  'TimbreFiscalDigitalv11.xsd': tfd11,
  'Pagos20.xsd': pagos20,
  'nomina12.xsd': nomina12,
  'CartaPorte31.xsd': cartaPorte31,
  'ComercioExterior20.xsd': comercioExterior20,
  'implocal.xsd': implocal,
  'hidrocarburospetroliferos.xsd': hidrocarburos,
  'catCFDI.xsd': catCfdi,
  'catPagos.xsd': catPagos,
  'catNomina.xsd': catNomina,
  'catCartaPorte.xsd': catCartaPorte,
  'catComExt.xsd': catComExt,
  'catHidroYPetro.xsd': catHidroYPetro,
  'tdCFDI.xsd': tdCfdi,
};
let xsdFiles: { fileName: string; contents: string }[] | undefined;

/**
 * Validates a CFDI someone issued to the tenant, in the order of python-satcfdi's `validate()` (docs/decisions.md,
 * "Validating a received CFDI"): every check that can run runs, so the record names each failure, not only the first.
 */
export async function validateReceived(xml: Buffer, ctx: ReceivedContext): Promise<ReceivedValidation> {
  const checks: ReceivedCheck[] = [];
  const check = (name: string, ok: boolean, detail?: string) => {
    checks.push(detail === undefined || ok ? { name, ok } : { name, ok, detail });
    return ok;
  };
  const text = xml.toString('utf8').replace(/^\uFEFF/, '');

  // Well-formed, with no DTD: a CFDI has none, and refusing it is what keeps entity expansion out of every parser below.
  const root = wellFormed(text, check);
  if (!root) return { version: 'unknown', result: 'invalid', checks };
  const a = root.attrs;
  const facts = {
    emisorRfc: child(root, 'cfdi:Emisor')?.attrs.Rfc,
    emisorNombre: child(root, 'cfdi:Emisor')?.attrs.Nombre,
    receptorRfc: child(root, 'cfdi:Receptor')?.attrs.Rfc,
    fecha: a.Fecha,
    tipo: a.TipoDeComprobante,
    metodoPago: a.MetodoPago,
    formaPago: a.FormaPago,
    total: a.Total,
    moneda: a.Moneda,
    serie: a.Serie,
    folio: a.Folio,
  };
  const namespaces = elementNamespaces(root);
  const rootNamespace = namespaces.get(root);
  if (a.Version === '3.3' && rootNamespace === 'http://www.sat.gob.mx/cfd/3') {
    check('version', false, 'CFDI 3.3: validation is a later step');
    return { version: '3.3', result: 'not_validated', ...present(facts), checks };
  }
  if (
    !check(
      'version',
      a.Version === '4.0' && rootNamespace === CFDI_40 && localName(root.name) === 'Comprobante',
      `not a CFDI 4.0 (Version "${a.Version ?? ''}")`,
    )
  ) {
    return { version: 'unknown', result: 'invalid', ...present(facts), checks };
  }

  const unknown = [...new Set([...namespaces.values()].filter((ns) => !SCHEMA_OF[ns] && !NO_SCHEMA.has(ns)))];
  if (unknown.length > 0) check('xsd', false, `no schema shipped for ${unknown.join(', ')}`);
  else {
    const errors = await xsdErrors(text, new Set(namespaces.values()));
    check('xsd', errors === undefined, errors?.slice(0, 5).join('; '));
  }

  let certificate: CertificateInfo | undefined;
  try {
    certificate = parseCertificate(Buffer.from(a.Certificado ?? '', 'base64'));
    check('certificate', true);
  } catch (err) {
    check('certificate', false, `Certificado ${(err as Error).message}`);
  }
  if (certificate) {
    const lugar = a.LugarExpedicion ?? '';
    const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(a.Fecha ?? '') ? zonedToUtc(a.Fecha!, timeZoneOf(lugar)) : undefined;
    check(
      'certificate_valid_at_fecha',
      !!at && at >= certificate.validFrom && at <= certificate.validTo,
      `Fecha ${a.Fecha} (${timeZoneOf(lugar)}) is outside ${certificate.validFrom.toISOString()} – ${certificate.validTo.toISOString()}`,
    );
    check(
      'no_certificado',
      a.NoCertificado === certificate.noCertificado,
      `NoCertificado ${a.NoCertificado} is not the certificate's ${certificate.noCertificado}`,
    );
    check('certificate_rfc', certificate.rfc === facts.emisorRfc, `the certificate is of ${certificate.rfc}, Emisor/Rfc is ${facts.emisorRfc}`);
    check('certificate_is_csd', certificate.kind === 'CSD', `the certificate is a ${certificate.kind}, not a CSD`);
    let issuer: string | undefined;
    try {
      checkIssuer(certificate, ctx.authorities);
    } catch (err) {
      issuer = `the certificate ${(err as Error).message}`;
    }
    check('certificate_issuer', issuer === undefined, issuer);
  }

  const unknownComplements = complementsWithoutCadena(root);
  const cadena = unknownComplements.length === 0 ? cadenaOriginal(root) : undefined;
  check('cadena', !!cadena, `no cadena template for ${unknownComplements.join(', ')}`);
  if (certificate && cadena) check('sello', verifies(cadena, a.Sello, certificate.der), 'Sello does not verify over the cadena original with the certificate');

  const complemento = child(root, 'cfdi:Complemento');
  const tfdNode = complemento?.children.find((c) => namespaces.get(c) === TFD && localName(c.name) === 'TimbreFiscalDigital');
  let uuid: string | undefined;
  if (
    check('tfd_present', tfdNode?.attrs.Version === '1.1', tfdNode ? `TimbreFiscalDigital Version ${tfdNode.attrs.Version}, not 1.1` : 'no TimbreFiscalDigital')
  ) {
    const tfd = tfdFromNode(tfdNode!);
    uuid = tfd.uuid || undefined;
    check('tfd_sello_cfd', tfd.selloCfd === a.Sello, 'SelloCFD is not the Comprobante Sello');
    const satCertificate = await ctx.satCertificate(tfd.noCertificadoSat);
    if (check('sat_certificate_found', !!satCertificate, `no SAT certificate ${tfd.noCertificadoSat}`)) {
      check('tfd_sello_sat', verifies(tfdCadena(tfd), tfd.selloSat, satCertificate!), `SelloSAT does not verify with certificate ${tfd.noCertificadoSat}`);
    }
  }

  check('receptor_rfc', facts.receptorRfc?.toUpperCase() === ctx.receptorRfc.toUpperCase(), `Receptor/Rfc ${facts.receptorRfc} is not ${ctx.receptorRfc}`);
  return { version: '4.0', result: checks.every((c) => c.ok) ? 'validated' : 'invalid', uuid, ...present(facts), checks };
}

function wellFormed(text: string, check: (name: string, ok: boolean, detail?: string) => boolean): XmlNode | undefined {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) {
    check('well_formed', false, 'a DOCTYPE or ENTITY declaration is refused');
    return undefined;
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    check('well_formed', false, `${valid.err.msg} (line ${valid.err.line})`);
    return undefined;
  }
  try {
    const root = parseXml(text);
    check('well_formed', true);
    return root;
  } catch (err) {
    check('well_formed', false, (err as Error).message);
    return undefined;
  }
}

const present = <T extends Record<string, string | undefined>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** Each element's namespace, from the xmlns declarations in scope (the parser keeps prefixes, not namespaces). */
function elementNamespaces(root: XmlNode): Map<XmlNode, string> {
  const out = new Map<XmlNode, string>();
  const walk = (node: XmlNode, scope: Record<string, string>) => {
    const own = { ...scope };
    for (const [k, v] of Object.entries(node.attrs)) {
      if (k === 'xmlns') own[''] = v;
      else if (k.startsWith('xmlns:')) own[k.slice(6)] = v;
    }
    const colon = node.name.indexOf(':');
    out.set(node, own[colon < 0 ? '' : node.name.slice(0, colon)] ?? '');
    for (const c of node.children) walk(c, own);
  };
  walk(root, {});
  return out;
}

/** Complements the engine's cadena does not know: its result would leave them out, so it would not be SAT's cadena. */
function complementsWithoutCadena(root: XmlNode): string[] {
  const nodes = [
    ...(child(root, 'cfdi:Complemento')?.children ?? []),
    ...(child(root, 'cfdi:Conceptos')?.children ?? []).flatMap((c) => child(c, 'cfdi:ComplementoConcepto')?.children ?? []),
  ];
  return nodes.filter((n) => !COMPLEMENT_STEPS[n.name] && localName(n.name) !== 'TimbreFiscalDigital').map((n) => n.name);
}

function verifies(text: string, signature: string | undefined, certificateDer: Buffer): boolean {
  if (!signature) return false;
  try {
    return verify('sha256', Buffer.from(text, 'utf8'), publicKeyOf(certificateDer), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/**
 * SAT's schemas of the namespaces the document uses, through a wrapper that imports only those: Carta Porte's and
 * Comercio Exterior's catalog schemas are megabytes, compiled only for a document that carries them.
 */
async function xsdErrors(text: string, used: Set<string>): Promise<string[] | undefined> {
  xsdFiles ??= Object.entries(XSD_PATHS).map(([fileName, path]) => ({ fileName, contents: readFileSync(path, 'utf8') }));
  const imports = Object.entries(SCHEMA_OF)
    .filter(([ns]) => used.has(ns))
    .map(([ns, file]) => `<xs:import namespace="${ns}" schemaLocation="${file}"/>`)
    .join('');
  const wrapper = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${imports}</xs:schema>`;
  // The catalog schemas (tens of thousands of enumerations) outgrow xmllint's default 32 MiB.
  const result = await validateWithXmllint({ fileName: 'cfdi.xml', contents: text }, { fileName: 'received.xsd', contents: wrapper }, xsdFiles, 16384);
  return result.valid ? undefined : result.errors;
}
