import { afterAll, describe, expect, test } from 'bun:test';
import { DOMParser } from '@xmldom/xmldom';
import { createHash, createPrivateKey, sign, verify, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tfdCadena } from '../../src/cfdi/tfd.ts';
import { createSandboxPac } from '../../src/pac/sandbox.ts';
import { consultSat } from '../../src/pac/sat-consulta.ts';
import { csdFiles, testSandboxSat } from '../helpers.ts';
import { SCENARIOS, type SatDocument, startSatMock } from './sat-mock.ts';
import { unzipFiles } from './zip.ts';

/**
 * The SAT mock driven with raw SOAP written here the way the public clients write it (phpcfdi/nodecfdi: one line, no
 * spaces between tags, the digest over the exclusive-c14n form of the signed element), signed with EKU9003173C9's
 * e.firma, so the mock is proven against the documented shapes before any product client talks to it.
 */

const DES = 'http://DescargaMasivaTerceros.sat.gob.mx';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const RFC = 'EKU9003173C9';

function signer(folder: string) {
  const f = csdFiles(folder, RFC);
  const cert = new X509Certificate(f.cer);
  return {
    key: createPrivateKey({ key: f.key, format: 'der', type: 'pkcs8', passphrase: f.password.trim() }),
    certB64: f.cer.toString('base64'),
    cert,
  };
}
const FIEL = signer('EKU9003173C9_FIEL');
const CSD = signer('EKU9003173C9_CSD');
type Signer = typeof FIEL;
/** The e.firma's certificate in the message, the signature made with another key (the CSD's): the digest still matches. */
const WRONG_KEY: Signer = { ...FIEL, key: CSD.key };

const samples = join(import.meta.dir, '..', 'fixtures', 'sat', 'samples');
const sample = (name: string) => readFileSync(join(samples, name), 'utf8');
/** The two CFDI the sandbox stamped for EKU9003173C9 (issued by it), byte for byte. */
const ISSUED_IVA = sample('cfdi40-ingreso-iva-sandbox-EKU.xml');
const ISSUED_RET = sample('cfdi40-ingreso-retenciones-sandbox-EKU.xml');
/**
 * Received CFDI: stamped samples of other taxpayers with the Receptor (and for one the Emisor) set to EKU9003173C9's
 * side. Seals no longer verify; the mock, like SAT's download, hands documents over without validating them.
 */
const asReceived = (xml: string, o: { emisor?: string; uuid?: string } = {}) => {
  let out = xml.replace(/(<cfdi:Receptor\b[^>]*?\bRfc=")[^"]*"/, `$1${RFC}"`);
  if (o.emisor) out = out.replace(/(<cfdi:Emisor\b[^>]*?\bRfc=")[^"]*"/, `$1${o.emisor}"`);
  if (o.uuid) out = out.replace(/\bUUID="[^"]*"/, `UUID="${o.uuid}"`);
  return out;
};
const RECEIVED_PAGO = asReceived(sample('cfdi40-pago20-sandbox-WATM.xml'));
const RECEIVED_CANCELLED = asReceived(ISSUED_IVA, { emisor: 'ICV060329BY0', uuid: '5A2B7E0C-9D41-4F3A-8E6B-1C2D3E4F5A6B' });
const uuidOf = (xml: string) => /\bUUID="([^"]+)"/.exec(xml)![1]!.toUpperCase();

const documents: SatDocument[] = [
  { xml: ISSUED_IVA },
  { xml: ISSUED_RET },
  { xml: RECEIVED_PAGO, tercero: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL' } },
  { xml: RECEIVED_CANCELLED, fechaCancelacion: '2025-03-01T10:00:00' },
];

let clock = Date.parse('2026-11-27T18:00:00Z');
const mock = startSatMock({ documents, now: () => new Date(clock) });
afterAll(() => mock.stop());

/** SAT's repository path of a certificate: the serial split 6, 6, 2, 2, 2, then the serial again. */
const certificatePath = (serial: string) =>
  `${[serial.slice(0, 6), serial.slice(6, 12), serial.slice(12, 14), serial.slice(14, 16), serial.slice(16, 18)].join('/')}/${serial}.cer`;
/** SelloSAT verified with the certificate the repository serves for the TFD's NoCertificadoSAT. */
async function selloSatVerifies(xml: string, certificatesUrl: string): Promise<boolean> {
  const a = (n: string) => new RegExp(`<tfd:TimbreFiscalDigital\\b[^>]*?\\b${n}="([^"]*)"`).exec(xml)?.[1] ?? '';
  const res = await fetch(`${certificatesUrl}/${certificatePath(a('NoCertificadoSAT'))}`);
  if (res.status !== 200) return false;
  const cert = new X509Certificate(Buffer.from(await res.arrayBuffer()));
  const cadena = tfdCadena({
    uuid: a('UUID'),
    fechaTimbrado: a('FechaTimbrado'),
    rfcProvCertif: a('RfcProvCertif'),
    leyenda: a('Leyenda') || undefined,
    selloCfd: a('SelloCFD'),
    noCertificadoSat: a('NoCertificadoSAT'),
  });
  return verify('sha256', Buffer.from(cadena), cert.publicKey, Buffer.from(a('SelloSAT'), 'base64'));
}

const nospaces = (s: string) => s.replace(/>\s+</g, '><').trim();
const sha1 = (s: string) => createHash('sha1').update(s).digest('base64');
const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
/** Attributes in canonical order (exclusive c14n sorts them by name). */
const attrs = (a: Record<string, string>) =>
  Object.keys(a)
    .sort()
    .map((k) => ` ${k}="${escapeAttr(a[k]!)}"`)
    .join('');

function signature(digested: string, uri: string, s: Signer, keyInfo: string): string {
  const signedInfo = `<SignedInfo xmlns="${DSIG}"><CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></CanonicalizationMethod><SignatureMethod Algorithm="${DSIG}rsa-sha1"></SignatureMethod><Reference URI="${uri}"><Transforms><Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></Transform></Transforms><DigestMethod Algorithm="${DSIG}sha1"></DigestMethod><DigestValue>${sha1(digested)}</DigestValue></Reference></SignedInfo>`;
  const value = sign('sha1', Buffer.from(signedInfo), s.key).toString('base64');
  return `<Signature xmlns="${DSIG}">${signedInfo.replace(`<SignedInfo xmlns="${DSIG}">`, '<SignedInfo>')}<SignatureValue>${value}</SignatureValue>${keyInfo}</Signature>`;
}

function authRequest(s: Signer = FIEL, o: { created?: number; tamper?: boolean; uri?: string } = {}): string {
  const created = new Date(o.created ?? clock);
  const expires = new Date(created.getTime() + 300_000);
  const ts = (c: Date, e: Date) => `<u:Created>${c.toISOString()}</u:Created><u:Expires>${e.toISOString()}</u:Expires>`;
  const digested = `<u:Timestamp xmlns:u="${WSU}" u:Id="_0">${ts(created, expires)}</u:Timestamp>`;
  const keyInfo = `<KeyInfo><o:SecurityTokenReference><o:Reference URI="#token-1" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"/></o:SecurityTokenReference></KeyInfo>`;
  const sent = o.tamper ? new Date(expires.getTime() + 1000) : expires;
  return nospaces(`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:u="${WSU}"><s:Header><o:Security xmlns:o="${WSSE}" s:mustUnderstand="1">
    <u:Timestamp u:Id="_0">${ts(created, sent)}</u:Timestamp>
    <o:BinarySecurityToken u:Id="token-1" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3" EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary">${s.certB64}</o:BinarySecurityToken>
    ${signature(digested, o.uri ?? '#_0', s, keyInfo)}</o:Security></s:Header><s:Body><Autentica xmlns="http://DescargaMasivaTerceros.gob.mx"/></s:Body></s:Envelope>`);
}

/** An operation request: `<des:op><des:inner attrs>children<Signature/></des:inner></des:op>`, the digest over it unsigned. */
function operationRequest(
  op: string,
  inner: string,
  a: Record<string, string>,
  o: { children?: string; s?: Signer; tamper?: Record<string, string> } = {},
): string {
  const s = o.s ?? FIEL;
  const children = o.children ?? '';
  const digested = `<des:${op} xmlns:des="${DES}"><des:${inner}${attrs(a)}>${children}</des:${inner}></des:${op}>`;
  const issuer = s.cert.issuer.split('\n').reverse().join(',');
  const keyInfo = `<KeyInfo><X509Data><X509IssuerSerial><X509IssuerName>${escapeAttr(issuer)}</X509IssuerName><X509SerialNumber>${BigInt(`0x${s.cert.serialNumber}`)}</X509SerialNumber></X509IssuerSerial><X509Certificate>${s.certB64}</X509Certificate></X509Data></KeyInfo>`;
  const sig = signature(digested, '', s, keyInfo);
  const sent = { ...a, ...o.tamper };
  return `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:des="${DES}" xmlns:xd="${DSIG}"><s:Header/><s:Body><des:${op}><des:${inner}${attrs(sent)}>${children}${sig}</des:${inner}></des:${op}></s:Body></s:Envelope>`;
}

async function post(path: string, action: string, body: string, token?: string) {
  const headers: Record<string, string> = { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action}"` };
  if (token) headers.authorization = `WRAP access_token="${token}"`;
  const res = await fetch(`${mock.url}${path}`, { method: 'POST', headers, body });
  const text = await res.text();
  const doc = res.headers.get('content-type')?.includes('xml') ? new DOMParser().parseFromString(text, 'text/xml') : undefined;
  return { status: res.status, text, doc };
}
const first = (doc: Document | Element | undefined, ns: string, local: string) => doc?.getElementsByTagNameNS(ns, local)[0];

async function authenticate(s: Signer = FIEL): Promise<string> {
  const r = await post('/Autenticacion/Autenticacion.svc', 'http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica', authRequest(s));
  expect(r.status).toBe(200);
  return first(r.doc, 'http://DescargaMasivaTerceros.gob.mx', 'AutenticaResult')!.textContent!;
}

type Direction = 'Emitidos' | 'Recibidos' | 'Folio';
async function solicita(
  token: string,
  direction: Direction,
  a: Record<string, string>,
  o: { children?: string; s?: Signer; tamper?: Record<string, string> } = {},
) {
  const op = `SolicitaDescarga${direction}`;
  const r = await post('/SolicitaDescargaService.svc', `${DES}/ISolicitaDescargaService/${op}`, operationRequest(op, 'solicitud', a, o), token);
  const result = first(r.doc, DES, `${op}Result`)!;
  return { status: r.status, code: result.getAttribute('CodEstatus'), mensaje: result.getAttribute('Mensaje'), id: result.getAttribute('IdSolicitud') ?? '' };
}
const issued = (over: Record<string, string> = {}) => ({
  EstadoComprobante: 'Todos',
  FechaInicial: '2024-01-01T00:00:00',
  FechaFinal: '2025-12-31T23:59:59',
  RfcEmisor: RFC,
  RfcSolicitante: RFC,
  TipoSolicitud: 'CFDI',
  ...over,
});
const received = (over: Record<string, string> = {}) => ({
  EstadoComprobante: 'Vigente',
  FechaInicial: '2024-01-01T00:00:00',
  FechaFinal: '2025-12-31T23:59:59',
  RfcReceptor: RFC,
  RfcSolicitante: RFC,
  TipoSolicitud: 'CFDI',
  ...over,
});
async function verifica(token: string, id: string, s: Signer = FIEL) {
  const r = await post(
    '/VerificaSolicitudDescargaService.svc',
    `${DES}/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga`,
    operationRequest('VerificaSolicitudDescarga', 'solicitud', { IdSolicitud: id, RfcSolicitante: RFC }, { s }),
    token,
  );
  const result = first(r.doc, DES, 'VerificaSolicitudDescargaResult')!;
  const g = (n: string) => (result.hasAttribute(n) ? result.getAttribute(n) : null);
  return {
    code: g('CodEstatus'),
    mensaje: g('Mensaje'),
    estado: g('EstadoSolicitud'),
    codigo: g('CodigoEstadoSolicitud'),
    numero: g('NumeroCFDIs'),
    paquetes: Array.from(result.getElementsByTagNameNS(DES, 'IdsPaquetes')).map((e) => e.textContent),
  };
}
async function descarga(token: string, paquete: string) {
  const r = await post(
    '/DescargaMasivaService.svc',
    `${DES}/IDescargaMasivaTercerosService/Descargar`,
    operationRequest('PeticionDescargaMasivaTercerosEntrada', 'peticionDescarga', { IdPaquete: paquete, RfcSolicitante: RFC }),
    token,
  );
  // The status travels in the SOAP header (h:respuesta), the package in the body.
  const header = first(r.doc, 'http://schemas.xmlsoap.org/soap/envelope/', 'Header');
  const respuesta = header && first(header, DES, 'respuesta');
  const paquete64 = first(r.doc, DES, 'Paquete')?.textContent ?? '';
  return {
    code: respuesta?.getAttribute('CodEstatus'),
    mensaje: respuesta?.getAttribute('Mensaje'),
    zip: paquete64 ? Buffer.from(paquete64, 'base64') : undefined,
  };
}

describe('Autenticacion', () => {
  test('a request signed with the e.firma gets a token; the response has AutenticaResult in SAT namespace', async () => {
    const token = await authenticate();
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(mock.control.tokens.get(token)?.rfc).toBe(RFC);
  });

  test('a CSD (not an e.firma), a tampered or expired timestamp, a signature by another key or over another element: SOAP Fault a:InvalidSecurity', async () => {
    for (const body of [
      authRequest(CSD),
      authRequest(FIEL, { tamper: true }),
      authRequest(FIEL, { created: clock - 600_000 }),
      authRequest(WRONG_KEY),
      authRequest(FIEL, { uri: '#token-1' }),
    ]) {
      const r = await post('/Autenticacion/Autenticacion.svc', 'http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica', body);
      expect(r.status).toBe(500);
      expect(first(r.doc, 'http://schemas.xmlsoap.org/soap/envelope/', 'Fault')).toBeDefined();
      expect(r.text).toContain('a:InvalidSecurity');
      expect(r.text).toContain('An error occurred when verifying security for the message.');
    }
  });

  test('knobs: the next Autentica answers HTTP 500 (HTML), then a forced InvalidSecurity fault, then works again', async () => {
    mock.control.authHttp500 = 1;
    mock.control.authFaults = 1;
    const action = 'http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica';
    const a = await post('/Autenticacion/Autenticacion.svc', action, authRequest());
    expect(a.status).toBe(500);
    expect(a.doc).toBeUndefined();
    const b = await post('/Autenticacion/Autenticacion.svc', action, authRequest());
    expect(b.text).toContain('a:InvalidSecurity');
    expect(await authenticate()).toBeTruthy();
    expect(mock.control.calls.slice(-3).map((c) => c.code)).toEqual(['HTTP 500', 'InvalidSecurity', 'token']);
  });

  test('the token lives tokenSeconds: after it, every operation answers 300 Usuario No Válido; no token is the same', async () => {
    mock.control.tokenSeconds = 60;
    const token = await authenticate();
    mock.control.tokenSeconds = 300;
    expect((await solicita(token, 'Emitidos', issued({ FechaFinal: '2025-12-31T23:59:01' }))).code).toBe('5000');
    clock += 61_000;
    const late = await solicita(token, 'Emitidos', issued({ FechaFinal: '2025-12-31T23:59:02' }));
    expect([late.code, late.mensaje]).toEqual(['300', 'Usuario No Válido']);
    expect((await solicita('', 'Emitidos', issued({ FechaFinal: '2025-12-31T23:59:02' }))).code).toBe('300');
    expect((await descarga('nope', 'x_01')).code).toBe('300');
  });
});

describe('SolicitaDescarga: v1.5 rules and signatures', () => {
  test('issued CFDI: 5000 Solicitud Aceptada with an IdSolicitud', async () => {
    const token = await authenticate();
    const r = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:01' }));
    expect(r).toMatchObject({ status: 200, code: '5000', mensaje: 'Solicitud Aceptada' });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('received XML without EstadoComprobante=Vigente: 301, as SAT answers since v1.5', async () => {
    const token = await authenticate();
    for (const estado of ['Todos', 'Cancelado']) {
      const r = await solicita(token, 'Recibidos', received({ EstadoComprobante: estado }));
      expect(r.code).toBe('301');
      expect(r.mensaje).toContain('No se permite la descarga de xml que se encuentren cancelados');
    }
    // Metadata of received CFDI still covers all of them.
    expect(
      (await solicita(token, 'Recibidos', received({ EstadoComprobante: 'Todos', TipoSolicitud: 'Metadata', FechaInicial: '2024-01-01T00:00:03' }))).code,
    ).toBe('5000');
  });

  test('FechaInicial must be before FechaFinal; not before six years ago at 00:00; one RfcEmisor for received, five RfcReceptor for issued', async () => {
    const token = await authenticate();
    const same = await solicita(token, 'Emitidos', issued({ FechaInicial: '2025-01-01T00:00:00', FechaFinal: '2025-01-01T00:00:00' }));
    expect(same.code).toBe('301');
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2025-01-02T00:00:00', FechaFinal: '2025-01-01T00:00:00' }))).code).toBe('301');
    // now is 2026-11-27: the floor is 2020-11-27T00:00:00
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2020-11-26T23:59:59' }))).code).toBe('301');
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2020-11-27T00:00:00' }))).code).toBe('5000');
    const two = '<des:RfcEmisores><des:RfcEmisor>AAA010101AAA</des:RfcEmisor><des:RfcEmisor>ICV060329BY0</des:RfcEmisor></des:RfcEmisores>';
    expect((await solicita(token, 'Recibidos', received({ TipoSolicitud: 'Metadata', EstadoComprobante: 'Todos' }), { children: two })).code).toBe('301');
    const one = '<des:RfcEmisores><des:RfcEmisor>ICV060329BY0</des:RfcEmisor></des:RfcEmisores>';
    expect((await solicita(token, 'Recibidos', received({ FechaInicial: '2024-01-01T00:00:04' }), { children: one })).code).toBe('5000');
    const receptores = (n: number) => `<des:RfcReceptores>${'<des:RfcReceptor>ICV060329BY0</des:RfcReceptor>'.repeat(n)}</des:RfcReceptores>`;
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:17' }), { children: receptores(6) })).code).toBe('301');
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:17' }), { children: receptores(5) })).code).toBe('5000');
  });

  test('the same period a third time: 5002 for life; one second later is a new period', async () => {
    const token = await authenticate();
    const period = issued({ FechaInicial: '2024-03-01T00:00:00', TipoSolicitud: 'Metadata' });
    expect((await solicita(token, 'Emitidos', period)).code).toBe('5000');
    expect((await solicita(token, 'Emitidos', period)).code).toBe('5000');
    const third = await solicita(token, 'Emitidos', period);
    expect([third.code, third.mensaje]).toEqual(['5002', 'Se han agotado las solicitudes de por vida']);
    expect(third.id).toBe('');
    expect(
      mock.control.calls
        .filter((c) => c.action === 'SolicitaDescargaEmitidos')
        .slice(-3)
        .map((c) => c.code),
    ).toEqual(['5000', '5000', '5002']);
    expect((await solicita(token, 'Emitidos', { ...period, FechaInicial: '2024-03-01T00:00:01' })).code).toBe('5000');
    // The same dates for the other direction or type are other periods.
    expect((await solicita(token, 'Emitidos', { ...period, TipoSolicitud: 'CFDI' })).code).toBe('5000');
  });

  test('signature checks: a CSD is 305, a changed attribute or a signature by another key is 302, another RFC than the e.firma is 303', async () => {
    const token = await authenticate();
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:05' }), { s: CSD })).code).toBe('305');
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:06' }), { tamper: { FechaInicial: '2024-01-01T00:00:07' } })).code).toBe(
      '302',
    );
    expect((await solicita(token, 'Emitidos', issued({ RfcSolicitante: 'ICV060329BY0', RfcEmisor: 'ICV060329BY0' }))).code).toBe('303');
    expect((await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:15' }), { s: WRONG_KEY })).code).toBe('302');
  });

  test('by Folio: found by UUID, and a Folio request with filters is refused', async () => {
    const token = await authenticate();
    const uuid = uuidOf(ISSUED_RET);
    const r = await solicita(token, 'Folio', { Folio: uuid, RfcSolicitante: RFC });
    expect(r.code).toBe('5000');
    mock.control.solicitudes.get(r.id)!.scenario = SCENARIOS.finished(1, 0);
    const v = await verifica(token, r.id);
    expect([v.estado, v.numero, v.paquetes]).toEqual(['3', '1', [`${r.id}_01`]]);
    const zip = unzipFiles((await descarga(token, `${r.id}_01`)).zip!);
    expect([...zip.keys()]).toEqual([`${uuid}.xml`]);
    expect((await solicita(token, 'Folio', { Folio: uuid, RfcSolicitante: RFC, RfcEmisor: RFC })).code).toBe('301');
  });
});

describe('Verifica and Descarga', () => {
  test('issued XML end to end: 1 → 2 → 3 with two packages <id>_01, _02; each ZIP holds the stamped XML byte for byte; a third download is refused', async () => {
    mock.control.scenario = SCENARIOS.finished(2);
    const token = await authenticate();
    const r = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:08' }));
    mock.control.scenario = SCENARIOS.finished(1);
    const polls = [await verifica(token, r.id), await verifica(token, r.id), await verifica(token, r.id)];
    expect(polls.map((p) => [p.code, p.estado, p.codigo])).toEqual([
      ['5000', '1', '5000'],
      ['5000', '2', '5000'],
      ['5000', '3', '5000'],
    ]);
    expect(polls[0]!.paquetes).toEqual([]);
    expect(polls[2]!.numero).toBe('2');
    expect(polls[2]!.paquetes).toEqual([`${r.id}_01`, `${r.id}_02`]);
    const files = new Map<string, string>();
    for (const p of polls[2]!.paquetes) {
      const d = await descarga(token, p!);
      expect([d.code, d.mensaje]).toEqual(['5000', 'Solicitud Aceptada']);
      for (const [name, bytes] of unzipFiles(d.zip!)) files.set(name, bytes.toString('utf8'));
    }
    expect(files).toEqual(
      new Map([
        [`${uuidOf(ISSUED_IVA)}.xml`, ISSUED_IVA],
        [`${uuidOf(ISSUED_RET)}.xml`, ISSUED_RET],
      ]),
    );
    expect((await descarga(token, `${r.id}_01`)).code).toBe('5000');
    const third = await descarga(token, `${r.id}_01`);
    expect(third.mensaje).toBe('Maximo de descargas permitidas.');
    expect(third.zip).toBeUndefined();
    expect((await descarga(token, `${r.id}_02`)).code).toBe('5000');
    expect((await descarga(token, `${r.id}_03`)).code).toBe('5004');
  });

  test('received XML: only the vigente CFDI addressed to the requester', async () => {
    const token = await authenticate();
    const r = await solicita(token, 'Recibidos', received({ FechaInicial: '2024-01-01T00:00:09' }));
    await verifica(token, r.id);
    await verifica(token, r.id);
    const v = await verifica(token, r.id);
    expect([v.estado, v.numero]).toEqual(['3', '1']);
    expect([...unzipFiles((await descarga(token, v.paquetes[0]!)).zip!).keys()]).toEqual([`${uuidOf(RECEIVED_PAGO)}.xml`]);
    // The one counterparty of a received request is the RfcEmisor attribute (phpcfdi's request-received.xml).
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const byIssuer = await solicita(token, 'Recibidos', received({ FechaInicial: '2024-01-01T00:00:16', RfcEmisor: 'WATM640917J45' }));
    const other = await solicita(token, 'Recibidos', received({ FechaInicial: '2024-01-01T00:00:16', RfcEmisor: 'AAA010101AAA' }));
    mock.control.scenario = SCENARIOS.finished(1);
    expect((await verifica(token, byIssuer.id)).numero).toBe('1');
    expect(await verifica(token, other.id)).toMatchObject({ estado: '5', codigo: '5004' });
  });

  test('received metadata: the 12-column header, ~ separators, CRLF records, Estatus 0 with FechaCancelacion, and <IdSolicitud>_tercero.txt', async () => {
    const token = await authenticate();
    const r = await solicita(token, 'Recibidos', received({ FechaInicial: '2024-01-01T00:00:10', EstadoComprobante: 'Todos', TipoSolicitud: 'Metadata' }));
    mock.control.solicitudes.get(r.id)!.scenario = SCENARIOS.finished(1, 0);
    const v = await verifica(token, r.id);
    const zip = unzipFiles((await descarga(token, v.paquetes[0]!)).zip!);
    expect([...zip.keys()].sort()).toEqual([`${r.id}_01.txt`, `${r.id}_tercero.txt`]);
    const text = zip.get(`${r.id}_01.txt`)!.toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = text.trimEnd().split('\r\n');
    expect(header!.split('~')).toHaveLength(12);
    expect(header).toBe(
      'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion',
    );
    const byUuid = new Map(rows.map((row) => [row.split('~')[0], row.split('~')]));
    expect(byUuid.get(uuidOf(RECEIVED_PAGO))).toEqual([
      uuidOf(RECEIVED_PAGO),
      'WATM640917J45',
      'MARIA WATEMBER TORRES',
      RFC,
      'CALEB ISAAC MORA DIAZ',
      'SPR190613I52',
      '2024-05-28 01:57:48',
      '2024-05-28 12:57:52',
      '0',
      'P',
      '1',
      '',
    ]);
    const cancelled = byUuid.get(uuidOf(RECEIVED_CANCELLED))!;
    expect([cancelled[1], cancelled[9], cancelled[10], cancelled[11]]).toEqual(['ICV060329BY0', 'I', '0', '2025-03-01 10:00:00']);
    expect(zip.get(`${r.id}_tercero.txt`)!.toString('utf8')).toBe(
      `Uuid~RfcACuentaTerceros~NombreACuentaTerceros\r\n${uuidOf(RECEIVED_PAGO)}~XAXX010101000~PUBLICO EN GENERAL\r\n`,
    );
  });

  test('stuck at 1 (6 Vencida after three days); 1 → 5 rejected after k polls', async () => {
    const token = await authenticate();
    mock.control.scenario = SCENARIOS.stuck();
    const stuck = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:11' }));
    mock.control.scenario = SCENARIOS.rejectedAfter(2);
    const rejected = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:12' }));
    mock.control.scenario = SCENARIOS.finished(1);
    for (let i = 0; i < 6; i++) expect((await verifica(token, stuck.id)).estado).toBe('1');
    const states = [];
    for (let i = 0; i < 4; i++) states.push((await verifica(token, rejected.id)).estado);
    expect(states).toEqual(['1', '1', '5', '5']);
    // Three days on, the stuck request has expired (6, Vencida); a finished one stays finished.
    clock += 259_200_000 + 1000;
    try {
      expect((await verifica(await authenticate(), stuck.id)).estado).toBe('6');
    } finally {
      clock -= 259_200_000 + 1000;
    }
  });

  test('5003 over the limit, 5004 when nothing matches (EstadoSolicitud 5, NumeroCFDIs 0)', async () => {
    const token = await authenticate();
    mock.control.limits.CFDI = 1;
    const over = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:13' }));
    mock.control.solicitudes.get(over.id)!.scenario = SCENARIOS.finished(1, 0);
    const v = await verifica(token, over.id);
    mock.control.limits.CFDI = 200_000;
    expect([v.code, v.estado, v.codigo, v.paquetes]).toEqual(['5000', '5', '5003', []]);
    const empty = await solicita(token, 'Emitidos', issued({ FechaInicial: '2021-01-01T00:00:00', FechaFinal: '2021-12-31T00:00:00' }));
    mock.control.solicitudes.get(empty.id)!.scenario = SCENARIOS.finished(1, 0);
    expect(await verifica(token, empty.id)).toMatchObject({ code: '5000', estado: '5', codigo: '5004', numero: '0', paquetes: [] });
    expect((await verifica(token, '00000000-0000-0000-0000-000000000000')).code).toBe('5004');
  });

  test('404 Error No Controlado from verify and from download, once each, then normal answers', async () => {
    const token = await authenticate();
    const r = await solicita(token, 'Emitidos', issued({ FechaInicial: '2024-01-01T00:00:14' }));
    mock.control.solicitudes.get(r.id)!.scenario = SCENARIOS.finished(1, 0);
    mock.control.verify404 = 1;
    const failed = await verifica(token, r.id);
    expect([failed.code, failed.mensaje, failed.estado]).toEqual(['404', 'Error No Controlado', null]);
    const v = await verifica(token, r.id);
    expect(v.estado).toBe('3');
    mock.control.download404 = 1;
    const d = await descarga(token, v.paquetes[0]!);
    expect([d.code, d.mensaje, d.zip]).toEqual(['404', 'Error No Controlado', undefined]);
    expect((await descarga(token, v.paquetes[0]!)).code).toBe('5000');
  });

  test('verify and download signed with a CSD are refused (305)', async () => {
    const token = await authenticate();
    expect((await verifica(token, '00000000-0000-0000-0000-000000000000', CSD)).code).toBe('305');
  });
});

describe('ConsultaCFDIService, certificates, Lista 69-B', () => {
  const query = (xml: string) => ({
    uuid: uuidOf(xml),
    rfcEmisor: /<cfdi:Emisor\b[^>]*?\bRfc="([^"]+)"/.exec(xml)![1]!,
    rfcReceptor: RFC,
    total: /\bTotal="([^"]+)"/.exec(xml)![1]!,
    sello: /\bSello="([^"]+)"/.exec(xml)![1]!,
  });

  test("the project's own client reads vigente, cancelado, no encontrado and EFOS 100 from control", async () => {
    const vigente = await consultSat(query(RECEIVED_PAGO), { url: mock.consultaUrl });
    expect(vigente).toMatchObject({ ok: true, status: { Estado: 'Vigente', EsCancelable: 'Cancelable con aceptación', ValidacionEFOS: '200' } });
    const cancelado = await consultSat(query(RECEIVED_CANCELLED), { url: mock.consultaUrl });
    expect(cancelado).toMatchObject({ ok: true, status: { Estado: 'Cancelado', EstatusCancelacion: 'Cancelado sin aceptación' } });
    const missing = await consultSat({ ...query(RECEIVED_PAGO), uuid: '11111111-2222-3333-4444-555555555555' }, { url: mock.consultaUrl });
    expect(missing).toMatchObject({ ok: true, status: { Estado: 'No Encontrado', CodigoEstatus: 'N - 602: Comprobante no encontrado.' } });
    mock.control.consulta.set(uuidOf(RECEIVED_PAGO), { ValidacionEFOS: '100', EstatusCancelacion: 'En proceso', EsCancelable: 'Cancelable con aceptación' });
    const efos = await consultSat(query(RECEIVED_PAGO), { url: mock.consultaUrl });
    expect(efos).toMatchObject({ ok: true, status: { Estado: 'Vigente', ValidacionEFOS: '100', EstatusCancelacion: 'En proceso' } });
  });

  test('the certificate repository serves SAT stamping certificates at <6>/<6>/<2>/<2>/<2>/<serial>.cer, 404 otherwise', async () => {
    const der = readFileSync(join(import.meta.dir, '..', 'fixtures', 'csd', 'sat-timbrado', '30001000000500003456.cer'));
    const ok = await fetch(`${mock.certificatesUrl}/300010/000005/00/00/34/30001000000500003456.cer`);
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(der)).toBe(true);
    expect(new X509Certificate(der).serialNumber).toBe(Buffer.from('30001000000500003456').toString('hex').toUpperCase());
    expect((await fetch(`${mock.certificatesUrl}/300010/000005/00/00/34/30001000000500009999.cer`)).status).toBe(404);
    expect((await fetch(`${mock.certificatesUrl}/300010/000005/00/00/35/30001000000500003456.cer`)).status).toBe(404);
  });

  test('SelloSAT of a SAT-stamped sample verifies with the certificate the repository serves for its NoCertificadoSAT', async () => {
    expect(await selloSatVerifies(ISSUED_IVA, mock.certificatesUrl)).toBe(true);
    const broken = ISSUED_IVA.replace(/(SelloSAT=")(.)/, (_, p: string, c: string) => `${p}${c === 'A' ? 'B' : 'A'}`);
    expect(await selloSatVerifies(broken, mock.certificatesUrl)).toBe(false);
  });

  test("the sandbox's own stamp: downloaded byte for byte by Folio, its stamping certificate served by the repository", async () => {
    const sandboxSat = testSandboxSat();
    const sealed = sample('cfdi40-pago20-sellado-sin-timbre-EKU.xml');
    const stamped = await createSandboxPac(sandboxSat, () => new Date(clock), 0).stamp(sealed, { tenantId: 'sat-mock' });
    if (!stamped.ok) throw new Error('the sandbox did not stamp the sample');
    const own = startSatMock({
      documents: [{ xml: stamped.xml }],
      now: () => new Date(clock),
      certificates: new Map([[sandboxSat.noCertificado, sandboxSat.certificateDer]]),
    });
    try {
      const auth = await fetch(`${own.url}/Autenticacion/Autenticacion.svc`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica"' },
        body: authRequest(),
      });
      const token = /<AutenticaResult>([^<]+)</.exec(await auth.text())![1]!;
      const call = async (path: string, op: string, inner: string, a: Record<string, string>, action: string) =>
        (
          await fetch(`${own.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action}"`, authorization: `WRAP access_token="${token}"` },
            body: operationRequest(op, inner, a),
          })
        ).text();
      const uuid = uuidOf(stamped.xml);
      const id = /IdSolicitud="([^"]+)"/.exec(
        await call(
          '/SolicitaDescargaService.svc',
          'SolicitaDescargaFolio',
          'solicitud',
          { Folio: uuid, RfcSolicitante: RFC },
          `${DES}/ISolicitaDescargaService/SolicitaDescargaFolio`,
        ),
      )![1]!;
      own.control.solicitudes.get(id)!.scenario = SCENARIOS.finished(1, 0);
      const verified = await call(
        '/VerificaSolicitudDescargaService.svc',
        'VerificaSolicitudDescarga',
        'solicitud',
        { IdSolicitud: id, RfcSolicitante: RFC },
        `${DES}/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga`,
      );
      expect(verified).toContain(`<IdsPaquetes>${id}_01</IdsPaquetes>`);
      const downloaded = await call(
        '/DescargaMasivaService.svc',
        'PeticionDescargaMasivaTercerosEntrada',
        'peticionDescarga',
        { IdPaquete: `${id}_01`, RfcSolicitante: RFC },
        `${DES}/IDescargaMasivaTercerosService/Descargar`,
      );
      const zip = unzipFiles(Buffer.from(/<Paquete>([^<]+)</.exec(downloaded)![1]!, 'base64'));
      const xml = zip.get(`${uuid}.xml`)!.toString('utf8');
      expect(xml).toBe(stamped.xml);
      expect(await selloSatVerifies(xml, own.certificatesUrl)).toBe(true);
      expect(await selloSatVerifies(xml, mock.certificatesUrl)).toBe(false);
    } finally {
      own.stop();
    }
  });

  test('Lista 69-B: windows-1250, three header lines, RFC in column 2, situación in column 4', async () => {
    mock.control.list69b = [
      { rfc: 'AAA010101AAA', nombre: 'EMPRESA ÁGIL, S.A. DE C.V.', situacion: 'Definitivo' },
      { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', situacion: 'Desvirtuado' },
    ];
    const res = await fetch(mock.list69bUrl);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.includes(0xc1)).toBe(true); // Á in one byte, not UTF-8
    const lines = new TextDecoder('windows-1250').decode(bytes).trimEnd().split('\r\n');
    expect(lines[2]).toContain('Situación del contribuyente');
    const rows = lines.slice(3).map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/,$/, '').replace(/^"|"$/g, '')));
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual([
      ['AAA010101AAA', 'EMPRESA ÁGIL, S.A. DE C.V.', 'Definitivo'],
      ['ICV060329BY0', 'INMOBILIARIA CVA', 'Desvirtuado'],
    ]);
  });
});
