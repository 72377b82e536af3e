import { afterAll, describe, expect, test } from 'bun:test';
import { createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDescargaMasivaClient, DescargaMasivaError, type DescargaSigner } from '../../src/pac/descarga-masiva.ts';
import { readZip } from '../../src/lib/zip.ts';
import { csdFiles } from '../helpers.ts';
import { SCENARIOS, startSatMock } from '../sat-mock/sat-mock.ts';

/** The Descarga Masiva client against the SAT mock: real SOAP, real signatures with EKU9003173C9's test e.firma. */

const RFC = 'EKU9003173C9';
function signerOf(folder: string): DescargaSigner & { signatures: number } {
  const f = csdFiles(folder, RFC);
  const key = createPrivateKey({ key: f.key, format: 'der', type: 'pkcs8', passphrase: f.password.trim() });
  const s = {
    rfc: RFC,
    certificateDer: f.cer,
    signatures: 0,
    async sign(data: string | Buffer, digest: 'sha1' | 'sha256') {
      s.signatures++;
      return sign(digest, typeof data === 'string' ? Buffer.from(data) : data, key).toString('base64');
    },
  };
  return s;
}
const FIEL = signerOf('EKU9003173C9_FIEL');
const sample = (name: string) => readFileSync(join(import.meta.dir, '..', 'fixtures', 'sat', 'samples', name), 'utf8');
const ISSUED = [sample('cfdi40-ingreso-iva-sandbox-EKU.xml'), sample('cfdi40-ingreso-retenciones-sandbox-EKU.xml')];

let clock = Date.parse('2026-11-27T18:00:00Z');
const now = () => new Date(clock);
const mock = startSatMock({ documents: ISSUED.map((xml) => ({ xml })), now });
afterAll(() => mock.stop());
const client = (s: DescargaSigner = FIEL) => createDescargaMasivaClient(s, { url: mock.url, downloadUrl: mock.downloadUrl, now });
const issuedXml = { direction: 'issued', kind: 'xml', desde: '2024-01-01T00:00:00', hasta: '2025-12-31T23:59:59' } as const;

describe('Descarga Masiva client', () => {
  test('authenticates with the e.firma, asks, verifies 1 → 2 → 3 and downloads two packages holding the CFDI', async () => {
    mock.control.scenario = SCENARIOS.finished(2);
    const c = client();
    const s = await c.solicita(issuedXml);
    expect(s).toMatchObject({ codEstatus: '5000', mensaje: 'Solicitud Aceptada' });
    expect(s.idSolicitud).toMatch(/^[0-9a-f-]{36}$/);
    expect((await c.verifica(s.idSolicitud!)).estadoSolicitud).toBe(1);
    expect((await c.verifica(s.idSolicitud!)).estadoSolicitud).toBe(2);
    const v = await c.verifica(s.idSolicitud!);
    expect(v).toMatchObject({ codEstatus: '5000', estadoSolicitud: 3, codigoEstadoSolicitud: '5000', numeroCfdis: 2 });
    expect(v.paquetes).toEqual([`${s.idSolicitud}_01`, `${s.idSolicitud}_02`]);
    const names: string[] = [];
    for (const p of v.paquetes) {
      const d = await c.descargar(p);
      expect(d.codEstatus).toBe('5000');
      for (const e of readZip(new Uint8Array(d.paquete!), { maxEntries: 10, maxTotalBytes: 1e7 })) names.push(e.name);
    }
    expect(names.sort()).toHaveLength(2);
    // One Autentica for the whole flow: the token is reused until it expires.
    expect(mock.control.calls.filter((x) => x.service === 'autenticacion')).toHaveLength(1);
  });

  test('a received XML request sends EstadoComprobante=Vigente (v1.5), metadata of received does not need it', async () => {
    const c = client();
    const r = await c.solicita({ direction: 'received', kind: 'xml', desde: '2025-01-01T00:00:00', hasta: '2025-06-30T00:00:00', rfc: 'ICV060329BY0' });
    expect(r.codEstatus).toBe('5000');
    expect((await c.solicita({ direction: 'received', kind: 'metadata', desde: '2025-01-01T00:00:00', hasta: '2025-06-30T00:00:00' })).codEstatus).toBe('5000');
  });

  test('the token is renewed when it expires, and once more when SAT says 300', async () => {
    const c = client();
    await c.token();
    const before = mock.control.calls.filter((x) => x.service === 'autenticacion').length;
    clock += 300_000;
    expect((await c.solicita({ ...issuedXml, desde: '2024-01-01T00:00:01' })).codEstatus).toBe('5000');
    expect(mock.control.calls.filter((x) => x.service === 'autenticacion').length).toBe(before + 1);
    mock.control.tokens.clear();
    expect((await c.solicita({ ...issuedXml, desde: '2024-01-01T00:00:02' })).codEstatus).toBe('5000');
    expect(mock.control.calls.filter((x) => x.service === 'autenticacion').length).toBe(before + 2);
  });

  test('SAT codes come back as they are: 5002 on a third identical period, 404 from verify/download, the third download refused', async () => {
    mock.control.scenario = SCENARIOS.finished(1, 0);
    const c = client();
    const q = { ...issuedXml, desde: '2024-02-01T00:00:00' };
    const first = await c.solicita(q);
    expect((await c.solicita(q)).codEstatus).toBe('5000');
    expect((await c.solicita(q)).codEstatus).toBe('5002');
    mock.control.verify404 = 1;
    expect((await c.verifica(first.idSolicitud!)).codEstatus).toBe('404');
    const v = await c.verifica(first.idSolicitud!);
    mock.control.download404 = 1;
    expect((await c.descargar(v.paquetes[0]!)).codEstatus).toBe('404');
    expect((await c.descargar(v.paquetes[0]!)).paquete).toBeDefined();
    expect((await c.descargar(v.paquetes[0]!)).paquete).toBeDefined();
    const third = await c.descargar(v.paquetes[0]!);
    expect([third.codEstatus, third.mensaje, third.paquete]).toEqual(['5008', 'Maximo de descargas permitidas.', undefined]);
  });

  test('failures are classified: HTTP 500 from Autenticacion and an unreachable host retryable; InvalidSecurity and a CSD are not', async () => {
    mock.control.authHttp500 = 1;
    const e1 = await client()
      .token()
      .catch((e) => e);
    expect(e1).toBeInstanceOf(DescargaMasivaError);
    expect(e1.retryable).toBe(true);
    mock.control.authFaults = 1;
    const e2 = await client()
      .token()
      .catch((e) => e);
    expect([e2.retryable, e2.code]).toEqual([false, 'InvalidSecurity']);
    const e3 = await client(signerOf('EKU9003173C9_CSD'))
      .token()
      .catch((e) => e);
    expect([e3.retryable, e3.code]).toEqual([false, 'InvalidSecurity']);
    const down = createDescargaMasivaClient(FIEL, { url: 'http://127.0.0.1:1', downloadUrl: 'http://127.0.0.1:1', now });
    const e4 = await down.token().catch((e) => e);
    expect([e4 instanceof DescargaMasivaError, e4.retryable]).toEqual([true, true]);
  });

  test('the certificate sent is the signer’s', () => {
    expect(new X509Certificate(FIEL.certificateDer).subject).toContain(RFC);
  });
});
