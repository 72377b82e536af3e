import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { openPrivateKey, parseCertificate, rsaSha256 } from '../../../src/cfdi/csd.ts';
import { tfdCadena, tfdFromNode } from '../../../src/cfdi/tfd.ts';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { child, parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { CfdiExamples } from '../../../src/invoices/cfdis/examples.ts';
import acUat2022 from '../../../src/invoices/csds/ca/AC_UAT_2022.cer' with { type: 'file' };
import arcUat2022 from '../../../src/invoices/csds/ca/ARC_UAT_2022.cer' with { type: 'file' };
import { csdFiles, issuer, READY, type TestApp, testSandboxSat } from '../../helpers.ts';
import { SAT_DIR } from '../../sat/verify.ts';
import { CARTAS_PORTE } from '../cartaporte31/corpus.ts';
import { CORPUS, corpusResolver, EGRESOS, NOMINAS, PAGOS } from '../corpus.ts';

/**
 * The received-CFDI corpus of issue 39's acceptance 1, shared by the engine's test (tests/cfdi/received/validate.test.ts)
 * and the API's (tests/invoices/received/received.test.ts): valid documents stamped by the sandbox of another tenant
 * plus SAT's stamped samples, and the alterations, each breaking one thing.
 */
export const AUTHORITIES = {
  name: "SAT's test certification authorities",
  certificates: [acUat2022, arcUat2022].map((f) => new X509Certificate(readFileSync(f))),
};
const SAT_TIMBRADO = join(SAT_DIR, '..', 'csd', 'sat-timbrado');
const sandbox = testSandboxSat();
/** SAT's certificate repository as the engine's test sees it: the sandbox's own, and SAT's kept in tests/fixtures. */
export const satCertificate = async (no: string): Promise<Buffer | undefined> => {
  if (no === sandbox.noCertificado) return sandbox.certificateDer;
  try {
    return readFileSync(join(SAT_TIMBRADO, `${no}.cer`));
  } catch {
    return undefined;
  }
};

const signerOf = (folder: string, base: string) => {
  const files = csdFiles(folder, base);
  const certificate = parseCertificate(files.cer);
  return { certificate, sign: rsaSha256(openPrivateKey(files.key, files.password, certificate)) };
};
export const FUNK = signerOf('FUNK671228PH6_CSD', 'FUNK671228PH6');
const FIEL = signerOf('EKU9003173C9_FIEL', 'EKU9003173C9');
export const EXPIRED = signerOf('AAA010101AAA_CSD01_expired', 'CSD01_AAA010101AAA');
const FORGED = signerOf('refused', 'forged_ac_uat');
const EKU = signerOf('EKU9003173C9_CSD', 'EKU9003173C9');
const stampSat = rsaSha256(sandbox.privateKey);

/**
 * Seals the document again with another certificate (and, with `emisor`, that certificate's RFC as Emisor) and
 * stamps it again with the sandbox's key: only what the alteration names is wrong, the seals are all right.
 */
export async function resealed(
  xml: string,
  signer: typeof FUNK,
  o: { emisor?: boolean; noCertificado?: string; comprobante?: Record<string, string> } = {},
): Promise<string> {
  const root = parseXml(xml);
  Object.assign(root.attrs, o.comprobante);
  root.attrs.NoCertificado = o.noCertificado ?? signer.certificate.noCertificado;
  root.attrs.Certificado = signer.certificate.der.toString('base64');
  if (o.emisor) child(root, 'cfdi:Emisor')!.attrs.Rfc = signer.certificate.rfc;
  root.attrs.Sello = await signer.sign(cadenaOriginal(root));
  const tfdNode = child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!;
  tfdNode.attrs.SelloCFD = root.attrs.Sello;
  tfdNode.attrs.SelloSAT = await stampSat(tfdCadena(tfdFromNode(tfdNode)));
  return serializeXml(root);
}
/** The same document, its TFD's SelloCFD changed by one character and stamped again (SelloSAT right over it). */
async function otherSelloCfd(xml: string): Promise<string> {
  const root = parseXml(xml);
  const tfdNode = child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!;
  tfdNode.attrs.SelloCFD = flipped(tfdNode.attrs.SelloCFD!);
  tfdNode.attrs.SelloSAT = await stampSat(tfdCadena(tfdFromNode(tfdNode)));
  return serializeXml(root);
}
/** One base64 character changed, keeping it base64 and of the same length (not the last, which may carry padding bits). */
const flipped = (s: string) => `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
export const otherTotal = (xml: string) => xml.replace(/(\sTotal=")(\d)/, (_, a: string, d: string) => `${a}${(Number(d) + 1) % 10}`);
const otherSelloSat = (xml: string) => xml.replace(/(\sSelloSAT=")([^"]+)/, (_, a: string, s: string) => `${a}${flipped(s)}`);
/** The document as a CFDI 3.3 (its version and namespace), which is stored not validated. */
export const asCfdi33 = (xml: string) => xml.replace('Version="4.0"', 'Version="3.3"').replaceAll('http://www.sat.gob.mx/cfd/4', 'http://www.sat.gob.mx/cfd/3');

/** A valid document: its name, XML, receptor RFC, and whether the sandbox stamped it (we hold its stamping key). */
export interface CorpusDocument {
  name: string;
  xml: string;
  receptor: string;
  stampedHere: boolean;
}
const SAT_SAMPLES = ['cfdi40-ingreso-iva-sandbox-EKU.xml', 'cfdi40-ingreso-retenciones-sandbox-EKU.xml', 'cfdi40-pago20-sandbox-WATM.xml'];

/**
 * The valid documents: eight stamped through `t`'s API by a tenant of its own (Ingreso, Egreso, Pagos, Nómina, Carta
 * Porte, Comercio Exterior, Impuestos Locales), then SAT's three stamped samples.
 */
export async function buildDocuments(t: TestApp): Promise<CorpusDocument[]> {
  const docs: CorpusDocument[] = [];
  const token = (await issuer(t, READY)).key;
  const stamp = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/cfdis', { token, body });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.json as { uuid: string };
  };
  const resolve = corpusResolver(
    async (body) => (await stamp(body)).uuid,
    () => localDateTime(new Date(t.clock.now.getTime() - 2 * 3600_000), '42501'),
  );
  const requests: [string, Record<string, unknown>][] = [
    ...CORPUS.slice(0, 2),
    ...EGRESOS.slice(0, 1),
    ...PAGOS.slice(0, 1),
    ...NOMINAS.slice(0, 1),
    ...CARTAS_PORTE.slice(0, 1),
    ['Comercio Exterior (example)', CfdiExamples.ingreso_comercio_exterior.value as Record<string, unknown>],
    ['Impuestos Locales (example)', CfdiExamples.ingreso_impuestos_locales.value as Record<string, unknown>],
  ];
  for (const [name, request] of requests) {
    const { uuid } = await stamp(await resolve(request));
    const xml = await (await t.app.request(`/api/v1/cfdis/${uuid}/xml`, { headers: { authorization: `Bearer ${token}` } })).text();
    docs.push({ name, xml, receptor: child(parseXml(xml), 'cfdi:Receptor')!.attrs.Rfc!, stampedHere: true });
  }
  for (const file of SAT_SAMPLES) {
    const xml = readFileSync(join(SAT_DIR, 'samples', file), 'utf8');
    docs.push({ name: file, xml, receptor: child(parseXml(xml), 'cfdi:Receptor')!.attrs.Rfc!, stampedHere: false });
  }
  return docs;
}

/** Each alteration: what it does, how, the checks it must fail, and whether it needs the stamping key (sandbox only). */
export const ALTERATIONS: [string, (xml: string) => string | Promise<string>, string[], boolean][] = [
  ['one character of the Total', otherTotal, ['sello'], false],
  // An attribute outside the cadena: the seals still verify, only SAT's schema sees it.
  ["an attribute SAT's schema does not declare", (xml) => xml.replace('<cfdi:Emisor ', '<cfdi:Emisor Sucursal="1" '), ['xsd'], false],
  ["another tenant's certificate (FUNK's CSD)", (xml) => resealed(xml, FUNK), ['certificate_rfc'], true],
  ['a FIEL as certificate', (xml) => resealed(xml, FIEL), ['certificate_is_csd'], true],
  // SAT's expired test CSD of 2019 was issued by its older test authority (A.C. 2 de pruebas), not by AC UAT.
  ['an expired certificate at Fecha', (xml) => resealed(xml, EXPIRED, { emisor: true }), ['certificate_valid_at_fecha', 'certificate_issuer'], true],
  ['a certificate SAT did not issue (signed by a forged AC UAT)', (xml) => resealed(xml, FORGED), ['certificate_issuer'], true],
  ["a NoCertificado that is not the certificate's serial", (xml) => resealed(xml, EKU, { noCertificado: '30001000000500003415' }), ['no_certificado'], true],
  ['a wrong SelloSAT', otherSelloSat, ['tfd_sello_sat'], false],
  ['a wrong SelloCFD', otherSelloCfd, ['tfd_sello_cfd'], true],
  ['not well-formed', (xml) => xml.slice(0, -30), ['well_formed'], false],
];
