import { afterAll, describe, expect, test } from 'bun:test';
import { X509Certificate, verify } from 'node:crypto';
import { buildCancelacionXml, signEnveloped } from '../../src/cfdi/cancellation.ts';
import { sealRetencion } from '../../src/cfdi/retenciones/build.ts';
import { prepareRetencion } from '../../src/cfdi/retenciones/prepare.ts';
import { tfdCadena } from '../../src/cfdi/tfd.ts';
import { createPacRouter } from '../../src/pac/failover.ts';
import { createFinkokPac } from '../../src/pac/finkok.ts';
import { selloOf } from '../../src/pac/stamped-reply.ts';
import { createSwPac } from '../../src/pac/sw.ts';
import type { RetencionCancelRequest, StampResult } from '../../src/pac/types.ts';
import { arrendamiento, context, signer } from '../cfdi/retenciones/documents.ts';
import { testSandboxSat, until } from '../helpers.ts';
import { tfdCadenaFromSatXslt, validateRetencionAgainstSatXsd } from '../sat/verify.ts';
import { createFinkokMock } from './finkok-mock.ts';
import { uuidsPerDocument } from './mock-ledger.ts';
import { createSwMock } from './sw-mock.ts';

/**
 * The live adapters stamp and cancel a CFDI de Retenciones 2.0 through each PAC's retention service (docs/decisions.md,
 * "Retenciones through live PACs"), against the mocks: the engine's sealed retención goes out, a stamp SAT's schema
 * accepts comes back, and each failure is classed as a CFDI's is.
 */
let folioInt = 0;
/** A sealed retención of SAT's test issuer, each with its own FolioInt, so its own Sello (what the mocks' ledgers key). */
async function sealedRetencion(): Promise<string> {
  const prepared = await prepareRetencion(arrendamiento, { ...context, folioInt: `RP${++folioInt}` });
  expect(prepared.errors).toEqual([]);
  return (await sealRetencion(prepared.model!, signer)).xml;
}

/** The stamped retención passes SAT's Retenciones 2.0 schema and carries one TFD whose SelloSAT verifies (the mocks sign as the sandbox). */
async function expectVerifiedStamp(result: StampResult, sealed: string): Promise<string> {
  if (!result.ok) throw new Error(`not stamped: ${result.class} ${result.message}`);
  expect(result.xml).toStartWith('<?xml');
  expect(result.xml).toContain('<retenciones:Retenciones');
  expect(result.xml.match(/<tfd:TimbreFiscalDigital/g)).toHaveLength(1);
  expect(await validateRetencionAgainstSatXsd(result.xml)).toEqual({ valid: true, errors: [] });
  expect(result.tfd.selloCfd).toBe(selloOf(sealed)!);
  const cadena = await tfdCadenaFromSatXslt(result.xml);
  expect(cadena).toBe(tfdCadena(result.tfd));
  const sandboxSat = new X509Certificate(testSandboxSat().certificateDer).publicKey;
  expect(verify('sha256', Buffer.from(cadena, 'utf8'), sandboxSat, Buffer.from(result.tfd.selloSat, 'base64'))).toBe(true);
  return result.tfd.uuid;
}

/** The cancellation request the API signs for a retención (SAT's cancelacionretencion). */
function cancelRequest(uuid: string): RetencionCancelRequest {
  const folio = { uuid, motivo: '02' as const };
  const signedXml = signEnveloped(
    buildCancelacionXml({ rfcEmisor: 'EKU9003173C9', fecha: '2026-11-27T12:00:00', folios: [folio] }, 'retencion'),
    signer.signingKey,
  );
  return { ...folio, rfcEmisor: 'EKU9003173C9', tenantId: 'ten_1', signedXml };
}

const swMock = createSwMock();
const finkokMock = await createFinkokMock({ slowMs: 600, notFoundMs: 400 });
afterAll(() => {
  swMock.close();
  finkokMock.close();
});

describe('SW: a Retenciones goes to /retencion/stamp/v3/b64 and /retencion/cancel/xml', () => {
  const mock = swMock;
  const pac = createSwPac({ url: mock.url, user: mock.user, password: mock.password, timeoutMs: 400 });

  test("stamped: SW's data.retencion, valid against SAT's XSD, its SelloSAT verifies", async () => {
    mock.state.modes = [];
    const sealed = await sealedRetencion();
    const uuid = await expectVerifiedStamp(await pac.stamp(sealed, { tenantId: 'ten_1' }), sealed);
    expect(mock.ledger.find(selloOf(sealed)!)!.uuid).toBe(uuid);
  });

  test('the same retención again: 307 with the earlier stamp is that stamp, one UUID; 307 without it is a duplicate', async () => {
    mock.state.modes = [];
    const sealed = await sealedRetencion();
    const first = await pac.stamp(sealed, { tenantId: 'ten_1' });
    const again = await pac.stamp(sealed, { tenantId: 'ten_1' });
    expect(await expectVerifiedStamp(again, sealed)).toBe(first.ok ? first.tfd.uuid : 'not stamped');
    expect(mock.ledger.records.filter((r) => r.sello === selloOf(sealed))).toHaveLength(1);
    mock.state.modes = ['dup-without-stamp'];
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
  });

  test("failures are classed as a CFDI's: Reten2xxxx definitive; 5xx, a timeout and a foreign stamp ambiguous; a refused connection provider", async () => {
    mock.state.modes = ['reject'];
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'definitive', code: 'Reten20101' });
    mock.state.modes = ['5xx'];
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous', message: 'PAC answered HTTP 503' });
    mock.state.modes = ['hang'];
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    mock.state.modes = ['foreign-stamp'];
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    const down = createSwPac({ url: 'http://127.0.0.1:1', user: 'demo', password: 'secret', timeoutMs: 400 });
    expect(await down.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
  });

  test('cancelRetencion: the signed request to /retencion/cancel/xml; 1201 cancels, 1205 is refused for good, a 5xx is retried', async () => {
    mock.state.modes = [];
    const sealed = await sealedRetencion();
    const stamped = await pac.stamp(sealed, { tenantId: 'ten_1' });
    const uuid = await expectVerifiedStamp(stamped, sealed);
    const request = cancelRequest(uuid);
    mock.sat.cancelModes = ['ok', 'reject', '5xx'];
    const cancelled = await pac.cancelRetencion!(request);
    expect(cancelled).toMatchObject({ ok: true, estatusUuid: '1201', acuseXml: expect.stringContaining(`<UUID>${uuid}</UUID>`) });
    expect(mock.sat.cancelRequests.at(-1)).toMatchObject({ path: '/retencion/cancel/xml', xml: request.signedXml });
    expect(await pac.cancelRetencion!(request)).toMatchObject({ ok: false, retryable: false, code: '1205' });
    expect(await pac.cancelRetencion!(request)).toMatchObject({ ok: false, retryable: true });
  });
});

describe("Finkok: a Retenciones goes to the retentions service's stamp, stamped and cancel_signature", () => {
  const mock = finkokMock;
  const pacWith = (timeoutMs = 2000) => createFinkokPac({ url: mock.url, username: mock.username, password: mock.password, timeoutMs });
  const pac = pacWith();
  const last = (operation: string) => mock.requests.filter((r) => r.operation === operation).at(-1)!;
  const count = (operation: string) => mock.requests.filter((r) => r.operation === operation).length;

  test('stamp: a SOAP call to /servicios/soap/retentions with the base64 retención; the stamped XML is valid and verifies', async () => {
    mock.setScenario('ok');
    const sealed = await sealedRetencion();
    const uuid = await expectVerifiedStamp(await pac.stamp(sealed, { tenantId: 'ten_1' }), sealed);
    const sent = last('stamp');
    expect(sent).toMatchObject({ path: '/servicios/soap/retentions', soapAction: '"stamp"' });
    expect(sent.body).toContain('xmlns:f="http://facturacion.finkok.com/retentions"');
    expect(Buffer.from(sent.fields.xml!, 'base64').toString('utf8')).toBe(sealed);
    expect(mock.ledger.find(selloOf(sealed)!)!.uuid).toBe(uuid);
  });

  test('307: with the earlier XML that stamp; without it, `stamped` of the retentions service finds it; never query_pending', async () => {
    mock.setScenario('307_with_xml');
    const withXml = await sealedRetencion();
    await expectVerifiedStamp(await pac.stamp(withXml, { tenantId: 'ten_1' }), withXml);
    mock.setScenario('307_without_xml');
    const withoutXml = await sealedRetencion();
    const uuid = await expectVerifiedStamp(await pac.stamp(withoutXml, { tenantId: 'ten_1' }), withoutXml);
    expect(uuid).toBe(mock.ledger.find(selloOf(withoutXml)!)!.uuid);
    expect(last('stamped').path).toBe('/servicios/soap/retentions');
    expect(Buffer.from(last('stamped').fields.xml!, 'base64').toString('utf8')).toBe(withoutXml);
    // The 307 names the UUID but `stamped` fails: the retentions service has no query_pending, so a duplicate.
    const pendingBefore = count('query_pending');
    mock.state.uuidIn307 = true;
    mock.state.stampedFault = true;
    try {
      expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
    } finally {
      mock.state.uuidIn307 = false;
      mock.state.stampedFault = false;
    }
    expect(count('query_pending')).toBe(pendingBefore);
  });

  test('`stamped` not finding a fresh stamp: duplicate; asked again later, the same stamp; recover() asks the retentions service', async () => {
    mock.setScenario('stamped_not_found_for_5s');
    const sealed = await sealedRetencion();
    expect(await pac.stamp(sealed, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
    expect(await pac.recover!(sealed)).toBeUndefined();
    const record = mock.ledger.find(selloOf(sealed)!)!;
    await until(() => Date.now() >= record.visibleAt, 'Finkok finds the retención');
    expect(await expectVerifiedStamp((await pac.recover!(sealed))!, sealed)).toBe(record.uuid);
    expect(last('stamped').path).toBe('/servicios/soap/retentions');
    mock.setScenario('ok');
    expect(await expectVerifiedStamp(await pac.stamp(sealed, { tenantId: 'ten_1' }), sealed)).toBe(record.uuid);
    expect(mock.ledger.records.filter((r) => r.sello === record.sello)).toHaveLength(1);
  });

  test('a timeout after the stamp left is ambiguous; the same retención again gets the earlier stamp', async () => {
    mock.setScenario('timeout_after_stamp');
    const sealed = await sealedRetencion();
    const quick = pacWith(300);
    expect(await quick.stamp(sealed, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    await until(() => mock.ledger.find(selloOf(sealed)!) !== undefined, 'the mock stamped it');
    mock.setScenario('ok');
    expect(await expectVerifiedStamp(await quick.stamp(sealed, { tenantId: 'ten_1' }), sealed)).toBe(mock.ledger.find(selloOf(sealed)!)!.uuid);
  });

  test("failures are classed as a CFDI's: a Reten2xxxx incidence definitive, quota and a refused connection provider, a non-XML 502 ambiguous", async () => {
    mock.setScenario('reject');
    mock.state.rejection = { code: 'Reten20101', message: 'El resultado de la digestión debe ser igual al resultado de la desencripción del sello.' };
    try {
      expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'definitive', code: 'Reten20101' });
    } finally {
      mock.state.rejection = { code: 'CFDI40108', message: 'El TipoDeComprobante es I, E o N, el importe no es correcto.' };
    }
    mock.setScenario('quota_exhausted');
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
    mock.setScenario('non_xml_502');
    expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    mock.setScenario('down');
    try {
      expect(await pac.stamp(await sealedRetencion(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
    } finally {
      mock.setScenario('ok');
    }
  });

  test("an issuer not registered (702): the retención's RfcE is registered, then stamped", async () => {
    mock.setScenario('ok');
    mock.state.requireRegistration = true;
    try {
      const sealed = await sealedRetencion();
      await expectVerifiedStamp(await pac.stamp(sealed, { tenantId: 'ten_1' }), sealed);
      expect(last('add').fields).toMatchObject({ taxpayer_id: 'EKU9003173C9' });
    } finally {
      mock.state.requireRegistration = false;
    }
  });

  test('cancelRetencion: cancel_signature of the retentions service; 1201 with its acuse cancels, 1205 is final, a 5xx or a missing acuse is retried', async () => {
    mock.setScenario('ok');
    const sealed = await sealedRetencion();
    const uuid = await expectVerifiedStamp(await pac.stamp(sealed, { tenantId: 'ten_1' }), sealed);
    const request = cancelRequest(uuid);
    try {
      const cancelled = await pac.cancelRetencion!(request);
      expect(cancelled).toMatchObject({
        ok: true,
        estatusUuid: '1201',
        acuseXml: expect.stringContaining('xmlns="http://www.sat.gob.mx/esquemas/retencionpago/1"'),
      });
      expect(last('cancel_signature')).toMatchObject({ path: '/servicios/soap/retentions', fields: { store_pending: 'false' } });
      expect(Buffer.from(last('cancel_signature').fields.xml!, 'base64').toString('utf8')).toBe(request.signedXml);
      mock.state.cancelMode = 'reject';
      expect(await pac.cancelRetencion!(request)).toMatchObject({ ok: false, retryable: false, code: '1205' });
      mock.state.cancelMode = 'no_acuse';
      expect(await pac.cancelRetencion!(request)).toMatchObject({ ok: false, retryable: true, message: expect.stringContaining('1201') });
      mock.state.cancelMode = '5xx';
      expect(await pac.cancelRetencion!(request)).toMatchObject({ ok: false, retryable: true });
    } finally {
      mock.state.cancelMode = 'ok';
    }
  });
});

describe('through the failover router, Finkok first, then SW', () => {
  test("Finkok unreachable: SW stamps the retención; Finkok's answer lost: the retención waits for Finkok and gets that stamp, one UUID", async () => {
    const router = createPacRouter(
      [
        createFinkokPac({ url: finkokMock.url, username: finkokMock.username, password: finkokMock.password, timeoutMs: 300 }),
        createSwPac({ url: swMock.url, user: swMock.user, password: swMock.password, timeoutMs: 400 }),
      ],
      { ambiguousWindowMs: 600_000, breaker: { failureThreshold: 5, openMs: 30_000 }, now: () => new Date() },
    );
    const options = { tenantId: 'ten_1' };
    const failedOver = await sealedRetencion();
    finkokMock.setScenario('down');
    let routed: Awaited<ReturnType<typeof router.stamp>>;
    try {
      routed = await router.stamp(failedOver, options, []);
    } finally {
      finkokMock.setScenario('ok');
    }
    expect(routed.attempts.map((a) => `${a.pac}:${a.outcome}`)).toEqual(['finkok:provider', 'sw:stamped']);
    await expectVerifiedStamp(routed.result, failedOver);

    const lost = await sealedRetencion();
    finkokMock.setScenario('timeout_after_stamp');
    const first = await router.stamp(lost, options, []);
    expect(first).toMatchObject({ pac: 'finkok', result: { ok: false, class: 'ambiguous' } });
    await until(() => finkokMock.ledger.find(selloOf(lost)!) !== undefined, 'Finkok stamped it');
    finkokMock.setScenario('ok');
    const again = await router.stamp(lost, options, first.attempts);
    expect(again.pac).toBe('finkok');
    const uuid = await expectVerifiedStamp(again.result, lost);
    expect(uuidsPerDocument(finkokMock.ledger, swMock.ledger).get(selloOf(lost)!)).toEqual([`finkok:${uuid}`]);
  });
});
